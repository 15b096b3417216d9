// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Which process accepted each connection (see acceptors.h): the probe for
 * fexit/inet_csk_accept, its attachment, and where it cannot be had, the
 * read hook attached and detached as the BPF side's listeners need it. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/types.h>
#include "tcptrace.h"
#include "common/fail.h"
#include "tracer/acceptors.h"
#include "tracer/probe.h"
#include "tcptrace.skel.h"

#define WATCH_EVERY_MS 1000
/* Checks in a row that find the read hook not needed before it goes: a
 * check reads the listeners while the BPF side changes them. */
#define UNNEEDED_CHECKS 2

bool acceptors_probe(int inet_csk_accept)
{
	/* r0 = 0; exit */
	const struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};

	return tracing_prog_loads("tt_accept_probe", insns, sizeof(insns) / sizeof(insns[0]),
				  BPF_TRACE_FEXIT, inet_csk_accept);
}

void acceptors_configure(struct acceptors *a, struct tcptrace_bpf *skel, bool at_accept)
{
	memset(a, 0, sizeof(*a));
	a->skel = skel;
	a->epoll_fd = a->stop_fd = -1;
	a->way = at_accept ? ACCEPTORS_AT_ACCEPT : ACCEPTORS_AT_READ;
	bpf_program__set_autoload(skel->progs.handle_accept, at_accept);
	skel->rodata->acceptors_at_accept = at_accept;
}

bool acceptors_own(const struct acceptors *a, const struct bpf_program *prog)
{
	return prog == a->skel->progs.handle_accept || prog == a->skel->progs.handle_rcv_space_adjust;
}

static int attach_read_hook(struct acceptors *a, char *err)
{
	struct bpf_link *link = bpf_program__attach(a->skel->progs.handle_rcv_space_adjust);

	if (!link) {
		int e = errno;

		__atomic_fetch_add(&a->attach_failures, 1, __ATOMIC_RELAXED);
		__atomic_store_n(&a->attach_error, e, __ATOMIC_RELAXED);
		return tt_fail(err, e, "cannot attach to tcp_rcv_space_adjust");
	}
	a->read_link = link;
	__atomic_fetch_add(&a->attaches, 1, __ATOMIC_RELAXED);
	return 0;
}

int acceptors_attach(struct acceptors *a, char *err)
{
	if (a->way != ACCEPTORS_AT_ACCEPT)
		return 0;
	a->accept_link = bpf_program__attach(a->skel->progs.handle_accept);
	if (a->accept_link) {
		a->skel->bss->accept_hook_attached = true;
		return 0;
	}
	/* Loaded but not attached (a kernel whose trampolines are missing
	 * for this function): every connection was built to wait for a
	 * touch, which the read hook then gives. */
	a->way = ACCEPTORS_AT_READ_ALWAYS;
	return attach_read_hook(a, err);
}

/* Whether a traced listener is held by several processes. The map may
 * change while it is read; an entry skipped then is seen at the next
 * check. */
static bool a_listener_is_shared(struct acceptors *a)
{
	int listeners = bpf_map__fd(a->skel->maps.listeners);
	uint32_t room = bpf_map__max_entries(a->skel->maps.listeners);
	struct tt_listener_key key, next;
	struct tt_listener owner;
	bool first = true;

	for (uint32_t i = 0; i < 2 * room; i++) {
		if (bpf_map_get_next_key(listeners, first ? NULL : &key, &next))
			return errno != ENOENT; /* unreadable: keep the hook */
		key = next;
		first = false;
		if (bpf_map_lookup_elem(listeners, &key, &owner))
			continue;
		if (owner.flags & TT_LISTENER_SHARED)
			return true;
	}
	return true;
}

/* Whether an accepted connection waits for its acceptor: the BPF side's
 * per-CPU counts summed. Unreadable, it says yes, which keeps the hook. */
static bool an_acceptor_awaited(struct acceptors *a)
{
	int ncpus = libbpf_num_possible_cpus();
	__s64 *counts, sum = 1;
	__u32 zero = 0;

	counts = ncpus > 0 ? calloc((size_t)ncpus, sizeof(*counts)) : NULL;
	if (!counts)
		return true;
	if (!bpf_map_lookup_elem(bpf_map__fd(a->skel->maps.awaiting_acceptor), &zero, counts)) {
		sum = 0;
		for (int cpu = 0; cpu < ncpus; cpu++)
			sum += counts[cpu];
	}
	free(counts);
	return sum > 0;
}

static bool read_hook_needed(struct acceptors *a)
{
	if (a->way == ACCEPTORS_AT_READ_ALWAYS)
		return true;
	return an_acceptor_awaited(a) || a_listener_is_shared(a);
}

int acceptors_update(struct acceptors *a, char *err)
{
	if (a->way == ACCEPTORS_AT_ACCEPT)
		return 0;
	if (read_hook_needed(a)) {
		a->unneeded = 0;
		return a->read_link ? 0 : attach_read_hook(a, err);
	}
	if (a->read_link && ++a->unneeded >= UNNEEDED_CHECKS) {
		bpf_link__destroy(a->read_link);
		a->read_link = NULL;
		a->unneeded = 0;
		__atomic_fetch_add(&a->detaches, 1, __ATOMIC_RELAXED);
	}
	return 0;
}

/* A record of share_news: what it says is in the maps already. */
static int on_news(void *ctx, void *data, size_t size)
{
	(void)ctx;
	(void)data;
	(void)size;
	return 0;
}

static void *watch(void *arg)
{
	struct acceptors *a = arg;
	char err[TT_ERR_LEN];

	for (;;) {
		struct epoll_event events[2];
		int n = epoll_wait(a->epoll_fd, events, 2, WATCH_EVERY_MS);

		if (__atomic_load_n(&a->stopping, __ATOMIC_ACQUIRE) || (n < 0 && errno != EINTR))
			break;
		ring_buffer__consume(a->news);
		/* A failure is counted and said at exit; the next check tries
		 * again. Until then such connections are named at their close. */
		acceptors_update(a, err);
	}
	return NULL;
}

int acceptors_watch(struct acceptors *a, char *err)
{
	struct epoll_event stop = { .events = EPOLLIN }, news = { .events = EPOLLIN };
	int e;

	if (a->way != ACCEPTORS_AT_READ)
		return 0;
	a->news = ring_buffer__new(bpf_map__fd(a->skel->maps.share_news), on_news, NULL, NULL);
	if (!a->news)
		return tt_fail(err, errno, "cannot read the share_news ring buffer");
	a->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
	a->stop_fd = eventfd(0, EFD_CLOEXEC);
	stop.data.fd = a->stop_fd;
	news.data.fd = ring_buffer__epoll_fd(a->news);
	if (a->epoll_fd < 0 || a->stop_fd < 0 ||
	    epoll_ctl(a->epoll_fd, EPOLL_CTL_ADD, a->stop_fd, &stop) ||
	    epoll_ctl(a->epoll_fd, EPOLL_CTL_ADD, news.data.fd, &news))
		return tt_fail(err, errno, "cannot watch the share_news ring buffer");
	e = pthread_create(&a->thread, NULL, watch, a);
	if (e)
		return tt_fail(err, e, "cannot start the thread that attaches the read hook");
	a->watching = true;
	return 0;
}

const char *acceptors_way_text(const struct acceptors *a)
{
	return a->way == ACCEPTORS_AT_ACCEPT ? "acceptors named at accept()"
					     : "acceptors named at their first read";
}

void acceptors_close(struct acceptors *a)
{
	if (!a->skel)
		return; /* never configured */
	if (a->watching) {
		uint64_t one = 1;

		/* The thread sees the flag when the write wakes it, or within
		 * a second if the write fails. */
		__atomic_store_n(&a->stopping, true, __ATOMIC_RELEASE);
		if (write(a->stop_fd, &one, sizeof(one)) < 0) {
			/* nothing else to do: it wakes every second */
		}
		pthread_join(a->thread, NULL);
		a->watching = false;
	}
	if (a->stop_fd >= 0)
		close(a->stop_fd);
	if (a->epoll_fd >= 0)
		close(a->epoll_fd);
	a->stop_fd = a->epoll_fd = -1;
	ring_buffer__free(a->news);
	a->news = NULL;
	bpf_link__destroy(a->read_link);
	bpf_link__destroy(a->accept_link);
	a->read_link = a->accept_link = NULL;
	a->skel = NULL;
}
