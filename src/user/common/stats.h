/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Plain structs for one process's counts, and the interval maths over
 * them: pure functions, no libbpf, so unit tests need no root. */
#ifndef TT_STATS_H
#define TT_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>
#include "tcptrace.h"
#include "common/cgroup_name.h"

/* RST reasons are counted per value of enum sk_rst_reason; values at or
 * past TT_REASON_OTHER, and TT_REASON_UNKNOWN, share the last slot. */
#define TT_REASON_SLOTS 64
#define TT_REASON_OTHER (TT_REASON_SLOTS - 1)

/* Names of RST reasons indexed by reason slot; NULL entries are unnamed. */
struct tt_reason_names {
	const char *name[TT_REASON_SLOTS];
};

/* One process's counts: cumulative in a snapshot, a difference in a row. */
struct tt_row {
	uint64_t id; /* which of the processes that had pid (tracer: slot and give-back) */
	uint32_t pid;
	char comm[TT_COMM_LEN];
	char cgroup[TT_CGROUP_LABEL_LEN]; /* --by cgroup: its cgroup's label; else empty */
	uint32_t instance; /* its server's instance (proc_instance); 0: not known */
	bool selected; /* named by --pid: shown every interval, zeros included */
	struct tt_proc_counters c;
	struct tt_proc_times t;
	uint64_t tw_now; /* a gauge: timewait sockets held now, never a difference */
	uint64_t open[TT_SIDES]; /* a gauge: its connections open (ESTABLISHED) now */
	uint64_t listen_drops;   /* connection attempts its listeners dropped */
	/* Gauges: the deepest accept queue of its listeners since the snapshot
	 * before, and that listener's limit; the same since tracing began. */
	uint64_t acceptq_peak, acceptq_limit;
	uint64_t acceptq_peak_run, acceptq_limit_run;
	uint64_t reasons[TT_SIDES][TT_REASON_SLOTS]; /* RSTs sent, by side and reason */
};

/* A listening socket of a traced process; its drops count on its owner's
 * row (the process tcptrace takes for the owner of a listener that
 * several share). */
#define TT_MAX_SHARERS 8

struct tt_listener_row {
	uint64_t cookie; /* the kernel's socket cookie */
	uint64_t id;     /* the owner's row: as in struct tt_row */
	uint32_t pid;
	char comm[TT_COMM_LEN];
	uint32_t netns;
	uint16_t family; /* 0 when only its close was seen */
	uint16_t port;
	uint8_t addr[16];
	uint64_t drops;           /* cumulative, as listen_drops */
	uint64_t depth, limit;    /* gauges: its accept queue now, and its limit */
	uint64_t somaxconn;       /* its namespace's net.core.somaxconn (0: unknown) */
	uint64_t peak, peak_run;  /* gauges, as acceptq_peak and acceptq_peak_run */
	bool closed;
	size_t n_sharers;                 /* other processes that hold it */
	uint32_t sharers[TT_MAX_SHARERS]; /* found when it first dropped */
};

/* One process's connections to one destination (--by dest). */
struct tt_dest_row {
	uint64_t id; /* as in struct tt_row */
	uint32_t pid;
	char comm[TT_COMM_LEN];
	uint32_t netns;
	uint16_t family;
	uint16_t port;
	uint8_t addr[16];
	struct tt_dest_counters c;
	uint64_t tw_now;     /* gauge: its timewait sockets toward the destination */
	uint64_t ports_held; /* gauge: usable local ports of the namespace held toward it */
	uint64_t ports_free; /* gauge: usable local ports still free toward it */
	double runout_s;     /* in a difference: seconds until ports_free is 0 at the
			      * interval's growth of ports_held; 0 when not growing */
};

/* RSTs in no process's row, in one network namespace, by reason. */
struct tt_netns_rsts {
	uint32_t netns;
	uint64_t reasons[TT_REASON_SLOTS];
};

/* Everything read from the kernel at one moment, rows sorted by pid and id. */
struct tt_snapshot {
	uint64_t mono_ns; /* CLOCK_MONOTONIC when taken */
	size_t n;
	struct tt_row *rows;
	uint64_t drops[TT_DROPS];
	uint64_t lost; /* events the kernel skipped tcptrace's programs for */
	uint64_t lost_ends; /* of those, sockets' destructions (without --catch-nested) */
	size_t n_other;
	struct tt_netns_rsts *other; /* cumulative, like rows */
	size_t n_dests;
	struct tt_dest_row *dests; /* --by dest only; sorted by dests_sort */
	size_t n_listeners;
	struct tt_listener_row *listeners;
};

/* Slot of a reason value in tt_row.reasons. */
size_t reason_slot(uint32_t reason);

/* Sort rows by pid, then id (snapshots must be sorted for snapshot_diff). */
void rows_sort(struct tt_row *rows, size_t n);

/* For every row of cur, the difference to the row with the same pid and id
 * in prev (a row missing from prev counts from zero); tw_now, comm and
 * selected are taken from cur. Writes at most max rows to out, returns
 * how many it wrote. */
size_t snapshot_diff(const struct tt_snapshot *prev, const struct tt_snapshot *cur,
		     struct tt_row *out, size_t max);

/* True when the row has nothing to show: all counters and gauges zero. */
bool row_is_zero(const struct tt_row *row);

/* The row's RSTs sent by reason, both sides added. */
void row_reasons_total(const struct tt_row *row, uint64_t out[TT_REASON_SLOTS]);

/* A reason slot's label in every output: the kernel's name for it, or
 * "reason_N" (written into buf) when names has none. */
#define TT_REASON_LABEL_LEN 32
const char *reason_label(const struct tt_reason_names *names, size_t slot,
			 char buf[TT_REASON_LABEL_LEN]);

/* Sort destination rows by pid and id, then destination. */
void dests_sort(struct tt_dest_row *rows, size_t n);

/* The row with key's pid, id and destination in rows sorted by dests_sort. */
struct tt_dest_row *dests_find(struct tt_dest_row *rows, size_t n, const struct tt_dest_row *key);

/* snapshot_diff for destination rows: counters become differences,
 * gauges are taken from cur, and runout_s is worked out from the growth
 * of ports_held since prev. Returns how many rows it wrote (at most max). */
size_t dests_diff(const struct tt_snapshot *prev, const struct tt_snapshot *cur,
		  struct tt_dest_row *out, size_t max);

/* True when a destination row has nothing to show: counters and tw_now 0. */
bool dest_row_is_zero(const struct tt_dest_row *row);

/* For every listener of cur, its drops since prev (the same socket, by
 * cookie; all of them for one prev lacks); gauges from cur. Writes at most
 * max rows to out, returns how many it wrote. */
size_t listeners_diff(const struct tt_snapshot *prev, const struct tt_snapshot *cur,
		      struct tt_listener_row *out, size_t max);

/* True when both snapshots hold the same processes with the same counters
 * and RST reasons (tw_now, a gauge, is not compared): nothing happened
 * between them. */
bool snapshot_counts_equal(const struct tt_snapshot *a, const struct tt_snapshot *b);


#endif /* TT_STATS_H */
