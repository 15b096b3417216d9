/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Writes each interval's rows to the table, the CSV and the JSON lines,
 * and the summary at exit. Knows which rows to show; knows nothing of BPF. */
#ifndef TT_REPORT_H
#define TT_REPORT_H

#include <stdbool.h>
#include <stdio.h>
#include <time.h>
#include "output/csv.h"
#include "common/stats.h"

struct report {
	FILE *table; /* NULL when the CSV or JSON goes to stdout, or with --listen */
	FILE *csv;   /* NULL without --csv */
	FILE *json;  /* NULL without --json */
	const struct tt_reason_names *names;
	const char *scope; /* --cgroup, --unit, --netns: a column of its own; NULL */
	bool by_dest;     /* rows per destination instead of per process */
	bool csv_failed;  /* the last error was the CSV file's */
	bool json_failed; /* the last error was the JSON file's */
};

/* Whether a row is shown: named by --pid, or anything happened. */
bool report_shows(const struct tt_row *row);

/* One interval ending at wall-clock time `when`, elapsed_s after start:
 * the process rows, or with by_dest the destination rows. Returns 0, or
 * -errno of a failed write. */
int report_interval(struct report *r, const struct tt_row *rows, size_t n,
		    const struct tt_dest_row *dests, size_t n_dests, const struct timespec *when,
		    double elapsed_s);

/* The CSV header of the rows report_interval writes. */
void report_csv_header(struct report *r);

/* Totals per process and destination over the whole run (--by dest). */
void report_dest_summary(FILE *f, const struct tt_dest_row *dests, size_t n);

/* Totals per process over the whole run, then the RST reasons; what this
 * kernel does not give is said (no RST reasons, no accept queue waits). */
void report_summary(FILE *f, const struct tt_row *rows, size_t n, double elapsed_s,
		    const struct tt_reason_names *names, bool reasons_available, bool waits_measured);

/* RSTs in no process's row, per network namespace, over the whole run
 * (last minus first). */
void report_other_rsts(FILE *f, const struct tt_snapshot *first, const struct tt_snapshot *last,
		       const struct tt_reason_names *names);

/* The listeners that dropped connection attempts over the run (drops as
 * listeners_diff gives them); exact: their drops equal what ListenDrops
 * counts on this kernel. */
void report_listeners(FILE *f, const struct tt_listener_row *l, size_t n, bool exact);

/* The run's findings: lines to f (NULL: none), objects to the JSON lines.
 * Returns 0, or -errno of a failed JSON write. */
struct findings_input;
int report_findings(struct report *r, FILE *f, const struct findings_input *in);

#endif /* TT_REPORT_H */
