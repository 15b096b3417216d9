/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* tcptrace compare: puts two or more tcptrace CSV runs side by side, the
 * TIME_WAIT figures first. The sums and the sections, pure functions over
 * plain structs; offline/compare_write writes them, offline/compare_cli
 * adds the files and the command line. */
#ifndef TT_COMPARE_H
#define TT_COMPARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "offline/csv_read.h"

/* A process as the CSV names it: a pid reused under another name is
 * another process. */
struct compare_proc {
	uint32_t pid;
	char *comm;
};

/* One process name's listen queues over a run: what its listeners dropped,
 * and the deepest accept queue of one of them with that one's limit. */
struct compare_queue {
	char *comm;
	uint64_t drops; /* listen_drops summed over the name's rows */
	uint64_t peak;  /* the largest acceptq_peak of the name's rows */
	uint64_t limit; /* the acceptq_limit of the row with that peak (the
			 * largest limit among rows of equal peak) */
};

/* What compare reports about one CSV file. */
struct compare_run {
	const char *file;             /* as named on the command line, not owned */
	enum tt_csv_kind kind;        /* the file's: a per-destination run has only
				       * the columns csv_dest_has() names */
	bool has[TT_CSV_COLS];        /* the columns the file has (csv_read.h) */
	double duration_s;            /* the largest elapsed_s, 0 without rows */
	size_t n_procs;
	struct compare_proc *procs;   /* distinct pid+comm, by pid, then comm */
	uint64_t total[TT_CSV_COLS];  /* each count summed over every row; the
				       * slots of levels stay 0 (csv_col_is_level) */
	uint64_t tw_now_peak;         /* the largest sum of tw_now over the rows of
				       * one time (one interval) */
	uint64_t open_peak[2];        /* the same for open_in, then open_out */
	size_t n_queues;
	struct compare_queue *queues; /* names whose listeners dropped or queued,
				       * by name (bytewise) */
};

/* Sums one parsed file into run. Returns 0, or -1 with err filled (a total
 * past 2^64-1, with the line of the row that overflowed it; out of memory
 * sets err->sys_errno). run is freed with compare_run_free() either way. */
int compare_run_init(struct compare_run *run, const char *file, const struct tt_csv_file *csv,
		     struct csv_error *err);
void compare_run_free(struct compare_run *run);

/* Whether any of the runs has the listen queue, SYN and open connection
 * columns (CSVs of earlier versions have none): the report shows them
 * only then, "n/a" for a run that lacks them. */
bool compare_has_queues(const struct compare_run *runs, size_t n);

/* The run's name in the report: A..Z, then AA, AB..., as spreadsheet
 * columns. Returns buf. */
const char *compare_run_label(char *buf, size_t len, size_t index);

/* A later run's count against the first's: "0.50x"; "-" when both are 0;
 * "inf" when only the first is; "<0.01x" when the later count is not 0 but
 * would round to "0.00x". Returns buf or a constant. */
const char *compare_ratio_text(char *buf, size_t len, uint64_t first, uint64_t v);

/* The rate per second with two decimals, or "-" for a run without
 * duration. Returns buf or a constant. */
const char *compare_rate_text(char *buf, size_t len, uint64_t total, double duration_s);

/* compare's figures as data, section by section, in the order and with the
 * rows compare prints them. The text and CSV writers (offline/compare_write) and the report
 * page (report_page.c) each lay these sections out; none of them chooses,
 * names or computes a figure of its own. */
enum compare_layout {
	COMPARE_COUNTS, /* a row per figure: per run its value, its rate per
			 * second when with_rate, and a later run's ratio to
			 * the first */
	COMPARE_QUEUES, /* a row per process name: per run its listen drops,
			 * its deepest accept queue and that one's limit */
};

/* The values of a COMPARE_QUEUES row per run: as the text heads them
 * ("A drops") and the columns they come from, which the CSV names. */
#define COMPARE_QUEUE_VALUES 3
extern const char *const compare_queue_heads[COMPARE_QUEUE_VALUES];
extern const enum tt_csv_col compare_queue_cols[COMPARE_QUEUE_VALUES];

struct compare_cell {
	uint64_t v;
	bool present; /* false: n/a (the run's CSV lacks the column, or a
		       * wait's quantile has no bucket bound) */
};

struct compare_row {
	const char *name;    /* "tw_in", "connect_p50_us", "tw_now" (suffix
			      * " peak"); in COMPARE_QUEUES the process name,
			      * the runs' own string */
	const char *suffix;  /* "" or " peak": the text's label is name, suffix */
	const char *counter; /* as compare --csv names the row: "tw_now_peak";
			      * NULL in COMPARE_QUEUES */
	bool column;         /* the figure is one CSV column's total (counter
			      * is the column's name) or, with suffix " peak",
			      * its peak */
	bool with_rate;
	struct compare_cell *cells; /* per run; in COMPARE_QUEUES,
				     * COMPARE_QUEUE_VALUES per run, run after run */
};

struct compare_section {
	const char *id;    /* unique, for a page: "timewait", "queues",
			    * "queues-by-name", "open", "connect", "accept",
			    * "handshake", "other" */
	const char *title; /* as compare heads the table: "TIME_WAIT" */
	enum compare_layout layout;
	bool verdict;      /* the verdict on the TIME_WAIT peaks follows */
	bool continued;    /* under the section before it, no blank line between */
	size_t n_rows;
	struct compare_row *rows;
};

#define COMPARE_MAX_SECTIONS 8
struct compare_report {
	size_t n_runs;
	size_t n_sections;
	struct compare_section sections[COMPARE_MAX_SECTIONS];
};

/* The sections of n runs (at least 1): TIME_WAIT (tw_in, tw_out, the
 * tw_now peak); when a run has them (compare_has_queues), the listen
 * queues (listen_drops, syn_retrans_out, synack_retrans_in), by process
 * name when a name dropped or queued, and the peaks of open connections;
 * the connect times with the failed connects by cause, when a run has the
 * columns; the accept queue waits and the handshakes, when a run has any;
 * the data segments sent again and sent, when a run sent any again; then
 * the other counters. A row's names point into the runs, which must
 * outlive rep. Returns 0, or -1 out of memory (rep empty). */
int compare_report_build(struct compare_report *rep, const struct compare_run *runs, size_t n);
void compare_report_free(struct compare_report *rep);

#endif /* TT_COMPARE_H */
