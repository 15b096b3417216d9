/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The series `tcptrace report` draws, from one parsed CSV: per interval
 * (one time of the CSV), the counts of its rows and the RSTs sent by
 * reason, summed over every process and over the processes of each name
 * (the accept queue: the deepest of them); and per destination the fewest
 * ports free and the shortest runout.
 * Pure: plain structs in, plain structs and JSON out. */
#ifndef TT_TIMELINE_H
#define TT_TIMELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <linux/types.h>
#include "tcptrace.h"
#include "offline/csv_read.h"

/* The series of a run: counts per interval, but the levels tw_now, open_in,
 * open_out, acceptq_peak and acceptq_limit. A close class adds up both
 * sides. A group's acceptq_peak is the deepest of its rows, not their sum,
 * and acceptq_limit the limit of that row (the largest limit among rows of
 * that depth, as compare takes it). */
enum timeline_series {
	TL_CONN_IN, /* per process only */
	TL_CONN_OUT,
	TL_FIN_ACTIVE,
	TL_FIN_PASSIVE,
	TL_RST_SENT,
	TL_RST_RECV,
	TL_TIMEOUT,
	TL_EADDRNOTAVAIL,
	TL_EADDRINUSE, /* per process only */
	TL_TW_NOW,
	TL_OPEN_IN,
	TL_OPEN_OUT,
	TL_LISTEN_DROPS,
	TL_ACCEPTQ_PEAK,
	TL_ACCEPTQ_LIMIT,
	TL_SYN_RETRANS_OUT,
	TL_SYNACK_RETRANS_IN,
	TL_RETRANS_IN,       /* data segments sent again, by side */
	TL_RETRANS_OUT,
	TL_RETRANS_RTO,      /* of those, after a retransmission timeout: both sides */
	TL_CONNECTS,         /* connects timed: all the connect_* buckets */
	TL_CONNECTS_OVER_1S, /* those of more than a second */
	/* A level: the bound, in microseconds, of the bucket of the interval's
	 * p99 over the group's connects; 0 when it had none. */
	TL_CONNECT_P99_US,
	/* connect()s refused before any SYN, by errno */
	TL_CONNFAIL_ENETUNREACH,
	TL_CONNFAIL_EHOSTUNREACH,
	TL_CONNFAIL_EACCES,
	TL_CONNFAIL_EINVAL,
	TL_CONNFAIL_EPERM,
	TL_CONNFAIL_OTHER,
	TL_SERIES,
};

/* JSON names of the series, indexed by enum timeline_series. */
extern const char *const timeline_series_names[TL_SERIES];

/* Whether the CSV has the series: one of the columns it adds up (a
 * per-destination one has no accepted connections; neither it nor one of
 * an earlier version has the open connection, listen queue and SYN
 * columns). */
bool timeline_has(const struct tt_csv_file *csv, enum timeline_series s);

/* The counts per interval of a set of rows: every row, or the rows of one
 * process name (comm). */
struct timeline_group {
	const char *name;            /* the CSV's comm, not owned; NULL for every row */
	uint64_t *series[TL_SERIES];
	__u64 (*connect_le)[TT_CONNECT_BUCKETS]; /* per interval, for TL_CONNECT_P99_US */
	uint64_t **reasons;          /* per reason of the timeline's reason_names */
};

/* One destination of a --by dest CSV. */
struct timeline_dest {
	const char *dest;           /* the CSV's, not owned */
	bool *seen;                 /* per interval: the destination has a row */
	uint64_t *ports_free;       /* per interval: the fewest over its rows */
	double *runout_s;           /* per interval: the shortest above 0, or 0 */
	uint64_t total[TT_CSV_COLS]; /* its counts summed over every row; tw_now 0 */
	uint64_t fewest_free;       /* over the run */
	double shortest_runout_s;   /* over the run, above 0; 0 when none */
};

struct timeline {
	enum tt_csv_kind kind;
	bool has[TL_SERIES]; /* timeline_has() of each series */
	size_t n;           /* intervals, in time order */
	double *elapsed_s;  /* the end of each, as the CSV has it */
	size_t n_reasons;
	const char **reason_names; /* the CSV's, sorted */
	struct timeline_group all; /* every row */
	size_t n_names;
	struct timeline_group *names; /* one per comm, sorted by it */
	size_t n_dests;
	struct timeline_dest *dests;     /* sorted by destination */
};

/* Builds the series of csv, whose strings it points into: csv must outlive
 * tl. Rows of one interval share their time; they need not be next to each
 * other. Sums stop at 2^64-1. Returns 0, or -1 when out of memory (errno
 * ENOMEM); tl is freed with timeline_free() either way. */
int timeline_build(struct timeline *tl, const struct tt_csv_file *csv);
void timeline_free(struct timeline *tl);

/* The run as one JSON object, to be embedded in an HTML page (no '<', '>'
 * or '&' in it):
 * {"kind":"process"|"dest","elapsed_s":[...],"series":{"conn_in":[...],...},
 *  "rst_sent_reasons":{"REASON":[...],...},
 *  "names":[{"name":"COMM","series":{...},"rst_sent_reasons":{...}},...],
 *  "dests":[{"dest":"...","ports_free":[n|null,...],"runout_s":[s|null,...]}]}
 * The first series and reasons are every row's. A series the CSV has not
 * is left out, and a reason of which a group has no count; runout_s is
 * null where it is 0.
 * Returns 0, or -1 when f has an error. */
int timeline_write_json(FILE *f, const struct timeline *tl);

#endif /* TT_TIMELINE_H */
