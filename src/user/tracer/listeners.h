/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The traced listeners as user space reads them at each snapshot: their
 * own drop counts and accept queues (sock_diag), the drops that were no
 * connection attempt and the deepest queues (the BPF side's
 * listen_extra and listeners), and the last drops of those that
 * closed (listener_records). Returned as plain data. */
#ifndef TT_LISTENERS_H
#define TT_LISTENERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "common/stats.h"
#include "tracer/namespaces.h"

struct tcptrace_bpf;
struct ring_buffer;

/* One listening socket, from its first sight to the end of the run (or
 * until its owner's slot is given back). */
struct listener_state {
	struct tt_listener_row row; /* pid: the owner's; id, comm: set by the caller */
	uint32_t inode;
	uint32_t slot;    /* the owner's slot, once known */
	uint64_t raw;     /* its sk_drops, last read */
	uint64_t extra;   /* of those, the ones that were no connection attempt */
	uint64_t closed_peak; /* its deepest queue between the last look and its close */
	bool seen;        /* in the last dump */
	bool sharers_looked;
};

struct listeners {
	struct tcptrace_bpf *skel;
	struct ring_buffer *ring; /* reads listener_records */
	struct listener_state *v;
	size_t n, cap;
	bool exact; /* extra is known: drops equal what ListenDrops counts */
};

/* 0, or -errno with err set. */
int listeners_open(struct listeners *l, struct tcptrace_bpf *skel, bool exact, char *err);
void listeners_close(struct listeners *l);

/* Reads the listeners of every traced process: the namespaces they live
 * in are opened in nss if new. Each state's row then holds its drops (its
 * sk_drops less the extra), depth, limit and peaks; row.pid is its owner
 * as the BPF side has it. */
void listeners_read(struct listeners *l, struct namespaces *nss);

/* A slot given back: the listeners counted on it are forgotten. */
void listeners_forget_slot(struct listeners *l, uint32_t slot);

#endif /* TT_LISTENERS_H */
