/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Which process accepted each connection: named at accept() itself where
 * the kernel lets tcptrace trace it (fexit/inet_csk_accept), else at the
 * connection's first read, by a hook on every read of every socket that
 * is attached only while a traced listener is held by several processes. */
#ifndef TT_ACCEPTORS_H
#define TT_ACCEPTORS_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

struct bpf_link;
struct bpf_program;
struct ring_buffer;
struct tcptrace_bpf;

enum acceptors_way {
	ACCEPTORS_AT_READ = 0,   /* the read hook, attached while needed */
	ACCEPTORS_AT_ACCEPT,     /* fexit/inet_csk_accept */
	ACCEPTORS_AT_READ_ALWAYS /* fexit loaded but not attached: the read hook, always */
};

struct acceptors {
	struct tcptrace_bpf *skel;
	enum acceptors_way way;
	struct bpf_link *accept_link;
	struct bpf_link *read_link;
	int unneeded;     /* checks in a row that found the read hook not needed */
	/* Counts, read by another thread while the watch runs. */
	uint64_t attaches, detaches, attach_failures;
	int attach_error; /* errno of the last failed attach of the read hook */
	/* The watch: a thread that waits for share_news and checks every second. */
	struct ring_buffer *news;
	int epoll_fd, stop_fd;
	pthread_t thread;
	bool watching, stopping;
};

/* Whether fexit/inet_csk_accept (its BTF id given, -1 where the kernel has
 * no such function) loads on this kernel: a probe of two instructions. */
bool acceptors_probe(int inet_csk_accept);

/* Between the skeleton's open and load: the fexit program is loaded only
 * where the probe loaded. */
void acceptors_configure(struct acceptors *a, struct tcptrace_bpf *skel, bool at_accept);

/* Whether prog is one of the two programs attached here, not by the tracer. */
bool acceptors_own(const struct acceptors *a, const struct bpf_program *prog);

/* After load, before the other programs: fexit/inet_csk_accept, or, if it
 * cannot be attached, the read hook for good. 0 or -errno with err set. */
int acceptors_attach(struct acceptors *a, char *err);

/* The read hook attached if a traced listener is shared or an accepted
 * connection waits for its acceptor, detached after two checks in a row
 * found neither. 0 or -errno with err set. */
int acceptors_update(struct acceptors *a, char *err);

/* From now on acceptors_update runs in a thread of its own, at once when
 * the BPF side says a listener became shared, else every second. Started
 * after tcptrace gave up its privileges, which the thread inherits. */
int acceptors_watch(struct acceptors *a, char *err);

/* How acceptors are named, for tcptrace's start-up line. */
const char *acceptors_way_text(const struct acceptors *a);

void acceptors_close(struct acceptors *a);

#endif /* TT_ACCEPTORS_H */
