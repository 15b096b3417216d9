// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The traced listeners, read at each snapshot (see listeners.h). A
 * listener's drops are its sk_drops, which the kernel bumps for every
 * connection attempt it drops (tcp_listendrop) and, on some paths, for a
 * packet that was none or for the same attempt again; the BPF side counts
 * those others where the kernel tells them (extra). */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "common/fail.h"
#include "common/procfs.h"
#include "common/test_hooks.h"
#include "tracer/listeners.h"
#include "tracer/sockdiag.h"
#include "tcptrace.skel.h"

static struct listener_state *new_state(struct listeners *l)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 16;
		struct listener_state *v = realloc(l->v, cap * sizeof(*v));

		if (!v)
			return NULL;
		l->v = v;
		l->cap = cap;
	}
	memset(&l->v[l->n], 0, sizeof(l->v[0]));
	l->v[l->n].slot = TT_NO_SLOT;
	return &l->v[l->n++];
}

static struct listener_state *state_of_cookie(struct listeners *l, uint64_t cookie)
{
	for (size_t i = 0; i < l->n; i++)
		if (cookie && l->v[i].row.cookie == cookie)
			return &l->v[i];
	return NULL;
}

/* A closed listener's record: its last drops. One never seen (it opened
 * and closed between two snapshots, or had no cookie) is counted whole. */
static int on_record(void *ctx, void *data, size_t size)
{
	const struct tt_listener_record *r = data;
	struct listeners *l = ctx;
	struct listener_state *st;

	if (size < sizeof(*r))
		return 0;
	st = state_of_cookie(l, r->cookie);
	if (!st) {
		st = new_state(l);
		if (!st)
			return 0;
		st->row.cookie = r->cookie;
		st->row.pid = r->tgid;
		st->row.netns = r->netns;
		st->row.port = r->port;
	}
	st->raw = r->drops;
	st->extra = r->extra;
	st->row.closed = true;
	st->row.depth = 0;
	st->row.limit = r->limit;
	st->closed_peak = r->peak;
	return 0;
}

int listeners_open(struct listeners *l, struct tcptrace_bpf *skel, bool exact, char *err)
{
	l->skel = skel;
	l->exact = exact;
	l->ring = ring_buffer__new(bpf_map__fd(skel->maps.listener_records), on_record, l, NULL);
	if (!l->ring)
		return tt_fail(err, errno, "cannot map the listener records");
	return 0;
}

void listeners_close(struct listeners *l)
{
	ring_buffer__free(l->ring);
	l->ring = NULL;
	free(l->v);
	l->v = NULL;
	l->n = l->cap = 0;
}

/* The owner of a listener on port in netns, as the BPF side has it. */
static bool owner_of(struct listeners *l, uint32_t netns, uint16_t port, uint32_t *tgid)
{
	struct tt_listener_key key = { .netns = netns, .port = port };
	struct tt_listener owner;

	if (bpf_map_lookup_elem(bpf_map__fd(l->skel->maps.listeners), &key, &owner))
		return false;
	*tgid = owner.tgid;
	return true;
}

struct dump_ctx {
	struct listeners *l;
	uint32_t netns;
	uint64_t somaxconn;
};

static void on_listener(const struct tt_diag_sock *sock, void *opaque)
{
	struct dump_ctx *ctx = opaque;
	struct listener_state *st = state_of_cookie(ctx->l, sock->cookie);
	uint32_t tgid;

	if (!st) {
		if (!owner_of(ctx->l, ctx->netns, sock->lport, &tgid))
			return; /* not a traced process's */
		st = new_state(ctx->l);
		if (!st)
			return;
		st->row.cookie = sock->cookie;
		st->row.pid = tgid;
		st->row.netns = ctx->netns;
		st->row.family = sock->family;
		st->row.port = sock->lport;
		memcpy(st->row.addr, sock->laddr, sizeof(st->row.addr));
		st->inode = sock->inode;
	}
	if (st->row.closed)
		return;
	st->seen = true;
	st->raw = sock->drops;
	st->row.depth = sock->rqueue;
	st->row.limit = sock->wqueue;
	st->row.somaxconn = ctx->somaxconn;
}

static uint64_t somaxconn_of(const struct tt_netns *ns)
{
	char text[32], *end;
	unsigned long long v;

	if (netns_read_sysctl(ns, TT_SYSCTL_SOMAXCONN, text, sizeof(text)))
		return 0;
	errno = 0;
	v = strtoull(text, &end, 10);
	return errno || end == text ? 0 : v;
}

/* The namespaces of the traced listeners, opened through their owners. */
static void open_namespaces(struct listeners *l, struct namespaces *nss)
{
	int fd = bpf_map__fd(l->skel->maps.listeners);
	struct tt_listener_key key, *prev = NULL;
	struct tt_listener owner;

	while (bpf_map_get_next_key(fd, prev, &key) == 0) {
		prev = &key;
		if (namespaces_index(nss, key.netns) == TT_MAX_NETNS &&
		    !bpf_map_lookup_elem(fd, &key, &owner))
			namespaces_of_pid(nss, owner.tgid);
	}
}

/* The deepest queue of each port since the last look: the entries'
 * peaks of the interval that ends now. */
static void read_peaks(struct listeners *l)
{
	int fd = bpf_map__fd(l->skel->maps.listeners);
	uint32_t epoch = __atomic_fetch_add(&l->skel->bss->peak_epoch, 1, __ATOMIC_SEQ_CST);
	struct tt_listener_key key, *prev = NULL;
	struct tt_listener entry;

	while (bpf_map_get_next_key(fd, prev, &key) == 0) {
		prev = &key;
		if (bpf_map_lookup_elem(fd, &key, &entry) || entry.epoch != epoch || !entry.peak)
			continue;
		for (size_t i = 0; i < l->n; i++) {
			struct tt_listener_row *row = &l->v[i].row;

			if (!row->closed && row->netns == key.netns && row->port == key.port &&
			    entry.peak > row->peak)
				row->peak = entry.peak;
		}
	}
}

/* Other processes of the owner's name that hold the listener: nginx's
 * workers beside its master. */
static void find_sharers(struct listener_state *st)
{
	char owner_comm[TT_COMM_LEN], comm[TT_COMM_LEN], path[64], link[64], want[32];
	DIR *proc = opendir("/proc");
	struct dirent *de;

	st->sharers_looked = true;
	if (!proc || proc_read_comm("/proc", st->row.pid, owner_comm, sizeof(owner_comm))) {
		if (proc)
			closedir(proc);
		return;
	}
	snprintf(want, sizeof(want), "socket:[%u]", st->inode);
	while ((de = readdir(proc)) && st->row.n_sharers < TT_MAX_SHARERS) {
		char *end;
		unsigned long pid = strtoul(de->d_name, &end, 10);
		struct dirent *fde;
		DIR *fds;
		int fds_fd;

		if (*end || !pid || pid == st->row.pid || pid > UINT32_MAX ||
		    proc_read_comm("/proc", (uint32_t)pid, comm, sizeof(comm)) ||
		    strcmp(comm, owner_comm) != 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%lu/fd", pid);
		fds = opendir(path);
		fds_fd = fds ? dirfd(fds) : -1;
		while (fds_fd >= 0 && (fde = readdir(fds))) {
			ssize_t len = readlinkat(fds_fd, fde->d_name, link, sizeof(link) - 1);

			if (len > 0 && (link[len] = '\0', !strcmp(link, want))) {
				st->row.sharers[st->row.n_sharers++] = (uint32_t)pid;
				break;
			}
		}
		if (fds)
			closedir(fds);
	}
	closedir(proc);
}

void listeners_read(struct listeners *l, struct namespaces *nss)
{
	int extra_fd = bpf_map__fd(l->skel->maps.listen_extra);
	const char *late = tt_test_hooks()->listeners_late_ms;

	ring_buffer__consume(l->ring);
	open_namespaces(l, nss);
	for (size_t i = 0; i < l->n; i++)
		l->v[i].seen = false;
	for (size_t i = 0; i < nss->n; i++) {
		struct dump_ctx ctx = {
			.l = l, .netns = nss->ns[i].inum, .somaxconn = somaxconn_of(&nss->ns[i])
		};

		sockdiag_dump_listeners(nss->ns[i].diag_fd, AF_INET, on_listener, &ctx);
		sockdiag_dump_listeners(nss->ns[i].diag_fd, AF_INET6, on_listener, &ctx);
	}
	/* For tcptrace's own tests: the extras read late, as by a tcptrace
	 * that loses the CPU here. */
	if (late)
		usleep(1000 * (useconds_t)strtoul(late, NULL, 10));
	for (size_t i = 0; i < l->n; i++) {
		struct listener_state *st = &l->v[i];
		uint64_t drops;
		__u64 extra;

		st->row.peak = 0;
		/* Gone without a record (its close was not a traced process's):
		 * its last drops are those of the last look. */
		if (!st->seen && !st->row.closed) {
			st->row.closed = true;
			st->row.depth = 0;
		}
		if (!st->row.closed && !bpf_map_lookup_elem(extra_fd, &st->row.cookie, &extra))
			st->extra = extra;
		/* Never less than at the last look: raw comes from the dump and
		 * extra after it, so a bump that was no connection attempt in
		 * between (a last ACK dropped at a full accept queue) is taken
		 * off before raw holds it. Read as a counter gone back, the
		 * whole count would be counted again (issue 38). */
		drops = st->raw > st->extra ? st->raw - st->extra : 0;
		if (drops > st->row.drops)
			st->row.drops = drops;
		/* Closed since the last look: the deepest its queue got until then. */
		st->row.peak = st->row.closed ? st->closed_peak : st->row.depth;
		st->closed_peak = 0;
	}
	read_peaks(l);
	for (size_t i = 0; i < l->n; i++) {
		struct listener_state *st = &l->v[i];

		if (st->row.peak > st->row.peak_run)
			st->row.peak_run = st->row.peak;
		if (st->row.drops && !st->sharers_looked && st->inode)
			find_sharers(st);
		/* A closed one that never dropped nor queued adds nothing. */
		if (st->row.closed && !st->row.drops && !st->row.peak_run)
			l->v[i--] = l->v[--l->n];
	}
}

void listeners_forget_slot(struct listeners *l, uint32_t slot)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->v[i].slot == slot)
			l->v[i--] = l->v[--l->n];
}
