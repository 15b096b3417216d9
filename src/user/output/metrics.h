/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Counters per process name for /metrics, summed from each interval's
 * per-process rows, and their text in the Prometheus and OpenMetrics
 * exposition formats. Pure: plain structs in, text out. */
#ifndef TT_METRICS_H
#define TT_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "output/csv.h"
#include "common/stats.h"
#include "output/table.h"

/* The comm label of counts past --max-comms: longer than any process name
 * (15 bytes), so no process can own it. */
#define METRICS_OTHER_COMM "(other processes)"
/* The cgroup label of counts past --max-comms pairs (--by cgroup): no
 * cgroup's label is in parentheses. */
#define METRICS_OTHER_CGROUP "(other cgroups)"
/* The dest label of destination counts past --max-comms pairs: no
 * address:port can be spelled so. */
#define METRICS_OTHER_DEST "(other destinations)"
/* The listener label of listener counts past --max-comms pairs. */
#define METRICS_OTHER_LISTENER "(other listeners)"

/* Room for a comm label: a process name, or METRICS_OTHER_COMM. */
#define METRICS_COMM_SIZE sizeof(METRICS_OTHER_COMM)

/* One process name's rows added up, as a row: the counts since tcptrace
 * started. They only grow: a process that exits, or is replaced by a new
 * one of the same name, adds to the same counters. The gauges are the last
 * interval's: tw_now and open summed over the name's rows, acceptq_peak
 * the largest of them with that row's acceptq_limit (the larger limit
 * among rows as deep). */
struct tt_comm_series {
	char comm[METRICS_COMM_SIZE];
	char cgroup[TT_CGROUP_LABEL_LEN]; /* --by cgroup: the cgroup label; else empty */
	struct tt_row sum;
};

/* One listening address of a process name: its owners' listeners there
 * (several sockets with SO_REUSEPORT, or one per network namespace) added
 * up. drops counts since tcptrace started, and stays when the listener
 * closes; the gauges are from the last interval's open listeners, absent
 * when it had none: peak the deepest accept queue in the interval with
 * that listener's limit and its namespace's somaxconn (0: unknown), and
 * deepest the deepest since tcptrace started. */
struct tt_listener_series {
	char comm[METRICS_COMM_SIZE];
	char listener[TT_DEST_LEN];
	uint64_t drops;
	uint64_t peak, limit, somaxconn, deepest;
	bool seen; /* an open listener in the last interval: the gauges are current */
};

/* --by dest: one process name's connections to one destination, counts
 * since tcptrace started. tw_now and ports_free are gauges from the last
 * interval (ports_free the smallest of the name's rows, as the ports are
 * the namespace's), absent when the interval had no row for the pair. */
struct tt_dest_series {
	char comm[METRICS_COMM_SIZE];
	char dest[TT_DEST_LEN];
	struct tt_dest_counters c;
	uint64_t tw_now;
	uint64_t ports_free;
	bool seen; /* a row in the last interval: the gauges are current */
};

struct tt_metrics {
	struct tt_comm_series *comms; /* sorted by comm (bytewise) */
	size_t n, allocated, limit;
	struct tt_comm_series other; /* names past the limit, added up */
	bool other_used;
	uint64_t overflow_rows; /* rows with counts that went to other */
	bool by_dest;                 /* expose the tcptrace_dest_* families */
	bool by_cgroup;               /* series per name and cgroup, labelled cgroup */
	bool accept_waits;            /* accept() is traced: tcptrace_accept_wait_seconds */
	struct tt_dest_series *dests; /* sorted by comm, then dest; at most limit */
	size_t n_dests, dests_allocated;
	struct tt_dest_series other_dest; /* pairs past the limit, added up */
	bool other_dest_used;
	uint64_t dest_overflow_rows;
	struct tt_listener_series *listeners; /* sorted by comm, then listener; at most limit */
	size_t n_listeners, listeners_allocated;
	struct tt_listener_series other_listener; /* pairs past the limit: drops only */
	bool other_listener_used;
	uint64_t listener_overflow_rows;
	uint64_t drops[TT_DROPS];
	uint64_t lost;
	uint64_t unowned_rsts[TT_REASON_SLOTS]; /* RSTs in no process row */
};

enum metrics_format {
	METRICS_TEXT,        /* Prometheus text format 0.0.4 */
	METRICS_OPENMETRICS, /* OpenMetrics 1.0.0 */
};

/* At most limit process names get series of their own (limit >= 1). */
void metrics_init(struct tt_metrics *m, size_t limit);
void metrics_free(struct tt_metrics *m);

/* Add one interval: rows is snapshot_diff(prev, cur); the drops, the RSTs
 * in no process row and the listeners' drops are taken as cur minus prev
 * (listeners as listeners_diff pairs them), the listeners' gauges from cur.
 * Pairs of process name and listener share the limit's size, apart from
 * the names'; past it, drops go to (other processes, other listeners).
 * Never fails: when memory for a new name or listener cannot be had, its
 * counts go to the other series. */
void metrics_add_interval(struct tt_metrics *m, const struct tt_row *rows, size_t n,
			  const struct tt_snapshot *prev, const struct tt_snapshot *cur);

/* The listener label of a listener row: its address and port as a
 * destination is written, or "port N" for one seen only at its close. */
void metrics_listener_label(char *buf, size_t len, const struct tt_listener_row *l);

/* --by dest: add one interval's destination rows (dests_diff). The pairs
 * of process name and destination share the limit's size, apart from the
 * names'; past it, counts go to (other processes, other destinations). */
void metrics_add_dests(struct tt_metrics *m, const struct tt_dest_row *rows, size_t n);

/* A label value in quotes: '\\', '"' and newline escaped, bytes that are
 * not UTF-8 written as U+FFFD (Prometheus refuses a scrape with them). */
void metrics_put_label_value(FILE *f, const char *s, size_t len);

#endif /* TT_METRICS_H */
