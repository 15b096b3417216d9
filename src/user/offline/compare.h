/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* tcptrace compare: puts two or more tcptrace CSV runs side by side, the
 * TIME_WAIT figures first. The sums and the formatting are pure functions
 * over plain structs; compare_cli() adds the files and the command line. */
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

/* The counts in the order the report shows them: TIME_WAIT first (the
 * tw_now peak after these), then the listen queues' and SYNs' (with the
 * peaks of open connections and the queues per name after these), then
 * every other one. */
#define COMPARE_TW_COUNTS 2
#define COMPARE_QUEUE_COUNTS 3
#define COMPARE_OTHER_COUNTS 16
extern const enum tt_csv_col compare_tw_counts[COMPARE_TW_COUNTS];
extern const enum tt_csv_col compare_queue_counts[COMPARE_QUEUE_COUNTS];
extern const enum tt_csv_col compare_other_counts[COMPARE_OTHER_COUNTS];

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

/* Which run held more TIME_WAIT at its peak, in one sentence and a line end. */
void compare_write_verdict(FILE *f, const struct compare_run *runs, size_t n);

/* The report as aligned text: one line per run (file, duration,
 * processes), then tw_in, tw_out, the tw_now peak and which run held more;
 * then, when a run has them, listen_drops, syn_retrans_out and
 * synack_retrans_in, per process name its listen drops and deepest accept
 * queue with its limit, and the peaks of open_in and open_out; then every
 * other count. Each count has its total and rate per run, and the ratio of
 * each later run to the first. Fits 100 columns for two runs. Returns 0,
 * or -1 when f has an error. */
int compare_write_text(FILE *f, const struct compare_run *runs, size_t n);

/* The same figures as CSV, one row per counter per run:
 * counter,run,file,total,per_second,ratio_to_first,comm. comm names the
 * process name of the rows per name (listen_drops, acceptq_peak,
 * acceptq_limit), and is empty in the others; total, per_second and
 * ratio_to_first are empty for a run whose file lacks the column. */
int compare_write_csv(FILE *f, const struct compare_run *runs, size_t n);

/* `tcptrace compare FILE FILE... [--csv]` with argv[0] "compare": the
 * report on out, one line on err when something fails. Returns the exit
 * status: 0 ok, 1 a file could not be read (or out not written), 2 usage
 * or malformed input. */
int compare_cli(int argc, char **argv, FILE *out, FILE *err);

/* compare_cli() on stdout and stderr: the entry point for main(). */
int compare_main(int argc, char **argv);

/* Help text for `tcptrace compare --help`. */
extern const char compare_usage[];

#endif /* TT_COMPARE_H */
