/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The BPF side's life cycle and the only module that reads its maps
 * (tracer.c, seed.c, snapshot.c, timewait.c; tracer_priv.h is what they
 * share). */
#ifndef TT_TRACER_H
#define TT_TRACER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "csv.h"
#include "netns.h"
#include "options.h"
#include "stats.h"
#include "tw_table.h"

struct tcptrace_bpf;
struct bpf_link;
struct ring_buffer;

/* RSTs of timewait sockets counted in user space (timewait.c): by owner
 * (id a process slot, reason 0), or by namespace and reason for those of
 * no known owner (id a netns). Cumulative, like the BPF side's counters. */
struct tt_tw_count {
	uint32_t id;
	uint16_t reason;
	uint64_t count;
};

#define TT_MAX_NETNS 64

/* What user space keeps of a process slot (slots.c). */
struct tt_slot_view {
	uint32_t gen;       /* which give-back of the slot its row is */
	bool gone_seen;     /* its process was seen gone at a snapshot before */
	char comm[TT_COMM_LEN];
};

struct tracer {
	struct tcptrace_bpf *skel;
	struct bpf_link *links[16];
	size_t n_links;
	bool reasons_available; /* tcp_send_reset carries enum sk_rst_reason */
	bool by_dest;           /* --by dest: destination rows in each snapshot */
	bool catch_nested;      /* --catch-nested: the twins are attached */
	struct tt_reason_names reason_names;
	struct tt_netns netns[TT_MAX_NETNS];
	size_t n_netns;
	bool netns_warned;        /* a namespace could not be opened (said once) */
	const uint32_t *selected; /* PIDs named by --pid, shown every interval */
	size_t n_selected;
	char (*selected_comms)[TT_COMM_LEN]; /* their names, kept once read */
	uint64_t seeded;          /* sockets found at start-up */
	uint64_t tw_stamp;        /* the last one given to the BPF side */
	unsigned int tw_families[TT_MAX_NETNS]; /* netns[i]'s with timewait owners: 1 IPv4, 2 IPv6 */
	struct ring_buffer *tw_ring; /* reads tw_records */
	struct tw_table tw_owners;
	struct tt_tw_count *tw_rsts, *tw_other_rsts;
	size_t n_tw_rsts, n_tw_other_rsts;
	uint64_t tw_unrecorded; /* owners the table had no memory for */
	struct tt_slot_owner *slot_owners; /* the map, mapped: one per slot */
	size_t slot_owners_bytes;
	struct tt_slot_view *slot_views;
	size_t n_slots;           /* --max-procs */
	uint32_t slot_gens;       /* slots given back so far */
	char err[256];            /* the failed step and why, for the caller */
};

/* Each returns 0, or -errno with t->err set. */
int tracer_open(struct tracer *t, const struct tt_options *opts);
int tracer_load(struct tracer *t);
int tracer_set_targets(struct tracer *t, const struct tt_options *opts);
int tracer_seed(struct tracer *t, const uint32_t *pids, size_t n_pids, bool all);
int tracer_attach(struct tracer *t);
/* A map's descriptor, for privileges_drop's probe. */
int tracer_map_fd(struct tracer *t);
/* The self-check's processes (selfcheck.c): traced whatever --pid says,
 * their counters read, then every trace of them removed. */
int tracer_trace_pid(struct tracer *t, uint32_t pid);
int tracer_counters_of(struct tracer *t, uint32_t pid, struct tt_proc_counters *out);
void tracer_forget_pid(struct tracer *t, uint32_t pid);
/* Read every counter into snap (rows allocated, free with snapshot_free). */
int tracer_snapshot(struct tracer *t, struct tt_snapshot *snap);
/* Kernel memory held by the BPF maps (their fdinfo memlock), in bytes. */
uint64_t tracer_map_bytes(struct tracer *t);
/* Events the kernel never gave tcptrace's programs (see tracer.c). */
uint64_t tracer_lost_events(struct tracer *t);
/* Events the twins of --catch-nested handled for their primaries. */
uint64_t tracer_nested_caught(struct tracer *t);
void tracer_close(struct tracer *t);

void snapshot_free(struct tt_snapshot *snap);

#endif /* TT_TRACER_H */
