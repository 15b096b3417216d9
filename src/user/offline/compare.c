// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* tcptrace compare: sums each CSV run (totals, rates, the peaks of tw_now
 * and of open connections per interval, the listen queues per process
 * name, its processes) and prints the runs side by side against the first,
 * as text or CSV, TIME_WAIT first. */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "common/connect_time.h"
#include "common/fail.h"
#include "offline/compare.h"
#include "output/csv.h"

#define LINE_WIDTH 100  /* the text report fits this for two runs */
#define NAME_WIDTH 16   /* "fin_passive_out " */
#define TOTAL_WIDTH 12
#define RATE_WIDTH 11
#define RATIO_WIDTH 9
#define CONT_INDENT "    "

#define QUEUE_WIDTH 8   /* a queue's peak or limit */

/* The TIME_WAIT counts lead the report; the level tw_now comes after them. */
const enum tt_csv_col compare_tw_counts[COMPARE_TW_COUNTS] = { TT_CSV_TW_IN, TT_CSV_TW_OUT };
/* Connection attempts that waited: dropped by a full queue, sent again. */
const enum tt_csv_col compare_queue_counts[COMPARE_QUEUE_COUNTS] = {
	TT_CSV_LISTEN_DROPS, TT_CSV_SYN_RETRANS_OUT, TT_CSV_SYNACK_RETRANS_IN,
};
/* The levels whose peak over the run's intervals compare shows. */
static const enum tt_csv_col open_cols[2] = { TT_CSV_OPEN_IN, TT_CSV_OPEN_OUT };
const enum tt_csv_col compare_other_counts[COMPARE_OTHER_COUNTS] = {
	TT_CSV_CONN_IN,        TT_CSV_CONN_OUT,        TT_CSV_FIN_ACTIVE_IN,
	TT_CSV_FIN_ACTIVE_OUT, TT_CSV_FIN_PASSIVE_IN,  TT_CSV_FIN_PASSIVE_OUT,
	TT_CSV_RST_SENT_IN,    TT_CSV_RST_SENT_OUT,    TT_CSV_RST_RECV_IN,
	TT_CSV_RST_RECV_OUT,   TT_CSV_EADDRNOTAVAIL,   TT_CSV_TIMEOUT_IN,
	TT_CSV_TIMEOUT_OUT,    TT_CSV_CONNFAIL_OUT,    TT_CSV_UNTRACKED,
	TT_CSV_TW_RST,
};

/* Failed connects by cause, shown with the connect times. */
static const enum tt_csv_col connfail_cols[TT_CONNFAILS] = {
	TT_CSV_CONNFAIL_REFUSED, TT_CSV_CONNFAIL_TIMEOUT, TT_CSV_CONNFAIL_UNREACH,
	TT_CSV_CONNFAIL_ABANDONED,
};

const char compare_usage[] =
	"Usage: tcptrace compare FILE FILE [FILE]... [--csv]\n"
	"Put two or more CSV files written by tcptrace --csv side by side: per run\n"
	"its duration and processes, then for every count its total, its rate per\n"
	"second and its ratio to the first run. TIME_WAIT comes first: tw_in,\n"
	"tw_out, and the peak of tw_now (summed over processes per interval).\n"
	"Then listen_drops, syn_retrans_out and synack_retrans_in, each process\n"
	"name's listen drops and deepest accept queue with its limit, and the\n"
	"peaks of open_in and open_out (n/a for a CSV written before they were).\n"
	"Then the connects timed, those of more than 1 s, the bucket bounds of\n"
	"their p50, p99 and max in microseconds (n/a above 50 s), and the failed\n"
	"connects by cause; as much of the accept queue waits (over 100 ms) and\n"
	"of the handshakes as the listeners saw them (over 1 s), when a run has any.\n"
	"\n"
	"      --csv     write the figures as CSV: counter,run,file,total,\n"
	"                per_second,ratio_to_first,comm\n"
	"  -h, --help    print this help and exit\n"
	"\n"
	"A ratio is '-' when both runs counted 0, 'inf' when only the first did.\n"
	"Exit status: 0 ok, 1 a file could not be read, 2 usage or malformed input.\n"
	"\n"
	"Example:\n"
	"  tcptrace compare nginx-default.csv nginx-keepalive.csv\n";

/* -1 after filling err; an expression rather than a variadic function that
 * returns -1, so that the static analyzer, which does not follow variadic
 * calls, sees the -1. */
#define fail(err, line, ...) (csv_set_error((err), (line), __VA_ARGS__), -1)

static int fail_nomem(struct csv_error *err)
{
	err->line = 0;
	err->sys_errno = ENOMEM;
	snprintf(err->msg, sizeof(err->msg), "%s", strerror(ENOMEM));
	return -1;
}

static int add_checked(uint64_t *total, uint64_t v)
{
	if (*total > UINT64_MAX - v)
		return -1;
	*total += v;
	return 0;
}

static int row_cmp_time(const void *a, const void *b)
{
	const struct tt_csv_row *ra = *(const struct tt_csv_row *const *)a;
	const struct tt_csv_row *rb = *(const struct tt_csv_row *const *)b;

	return strcmp(ra->time, rb->time);
}

static int row_cmp_proc(const void *a, const void *b)
{
	const struct tt_csv_row *ra = *(const struct tt_csv_row *const *)a;
	const struct tt_csv_row *rb = *(const struct tt_csv_row *const *)b;

	if (ra->pid != rb->pid)
		return ra->pid < rb->pid ? -1 : 1;
	return strcmp(ra->comm, rb->comm);
}

/* Rows of one interval share their time; their levels (tw_now, open_in,
 * open_out) add up to what the run held then. The rows need not be next to
 * each other. */
static int level_peaks(struct compare_run *run, const struct tt_csv_row **by, size_t n,
		       struct csv_error *err)
{
	static const enum tt_csv_col cols[3] = { TT_CSV_TW_NOW, TT_CSV_OPEN_IN, TT_CSV_OPEN_OUT };
	uint64_t *peaks[3] = { &run->tw_now_peak, &run->open_peak[0], &run->open_peak[1] };
	size_t i = 0, j, k;

	qsort(by, n, sizeof(*by), row_cmp_time);
	while (i < n) {
		uint64_t sum[3] = { 0 };

		for (j = i; j < n && !strcmp(by[j]->time, by[i]->time); j++) {
			for (k = 0; k < 3; k++)
				if (add_checked(&sum[k], by[j]->v[cols[k]]))
					return fail(err, by[j]->line,
						    "sum of %s at %s exceeds 18446744073709551615",
						    tt_csv_col_names[cols[k]], by[j]->time);
		}
		for (k = 0; k < 3; k++)
			if (sum[k] > *peaks[k])
				*peaks[k] = sum[k];
		i = j;
	}
	return 0;
}

static int row_cmp_comm(const void *a, const void *b)
{
	const struct tt_csv_row *ra = *(const struct tt_csv_row *const *)a;
	const struct tt_csv_row *rb = *(const struct tt_csv_row *const *)b;

	return strcmp(ra->comm, rb->comm);
}

/* The listen queues per process name, into *queues (n_queues of them). A
 * name's drops never pass the run's total, which was checked. */
static int collect_queues(struct compare_queue **queues, size_t *n_queues,
			  const struct tt_csv_row **by, size_t n, struct csv_error *err)
{
	size_t i = 0, j;

	qsort(by, n, sizeof(*by), row_cmp_comm);
	*queues = calloc(n ? n : 1, sizeof(**queues));
	if (!*queues)
		return fail_nomem(err);
	while (i < n) {
		struct compare_queue q = { 0 };

		for (j = i; j < n && !strcmp(by[j]->comm, by[i]->comm); j++) {
			uint64_t peak = by[j]->v[TT_CSV_ACCEPTQ_PEAK];
			uint64_t limit = by[j]->v[TT_CSV_ACCEPTQ_LIMIT];

			q.drops += by[j]->v[TT_CSV_LISTEN_DROPS];
			if (peak > q.peak || (peak == q.peak && limit > q.limit)) {
				q.peak = peak;
				q.limit = limit;
			}
		}
		if (q.drops || q.peak || q.limit) {
			q.comm = strdup(by[i]->comm);
			if (!q.comm)
				return fail_nomem(err);
			(*queues)[(*n_queues)++] = q;
		}
		i = j;
	}
	return 0;
}

static int collect_procs(struct compare_run *run, const struct tt_csv_row **by, size_t n,
			 struct csv_error *err)
{
	size_t i;

	qsort(by, n, sizeof(*by), row_cmp_proc);
	run->procs = calloc(n ? n : 1, sizeof(*run->procs));
	run->n_procs = 0;
	if (!run->procs)
		return fail_nomem(err);
	for (i = 0; i < n; i++) {
		if (i && !row_cmp_proc(&by[i - 1], &by[i]))
			continue;
		run->procs[run->n_procs].pid = by[i]->pid;
		run->procs[run->n_procs].comm = strdup(by[i]->comm);
		if (!run->procs[run->n_procs].comm)
			return fail_nomem(err);
		run->n_procs++;
	}
	return 0;
}

int compare_run_init(struct compare_run *run, const char *file, const struct tt_csv_file *csv,
		     struct csv_error *err)
{
	const struct tt_csv_row **by;
	size_t i, k;
	int ret;

	memset(run, 0, sizeof(*run));
	memset(err, 0, sizeof(*err));
	run->file = file;
	run->kind = csv->kind;
	memcpy(run->has, csv->has, sizeof(run->has));
	for (i = 0; i < csv->n; i++) {
		const struct tt_csv_row *row = &csv->rows[i];

		if (row->elapsed_s > run->duration_s)
			run->duration_s = row->elapsed_s;
		for (k = 0; k < TT_CSV_COLS; k++) {
			if (csv_col_is_level(k))
				continue;
			if (add_checked(&run->total[k], row->v[k]))
				return fail(err, row->line,
					    "total of %s exceeds 18446744073709551615",
					    tt_csv_col_names[k]);
		}
	}
	/* Both orderings sort pointers, never the file's own rows. */
	by = malloc((csv->n ? csv->n : 1) * sizeof(*by));
	if (!by)
		return fail_nomem(err);
	for (i = 0; i < csv->n; i++)
		by[i] = &csv->rows[i];
	ret = level_peaks(run, by, csv->n, err);
	if (!ret)
		ret = collect_queues(&run->queues, &run->n_queues, by, csv->n, err);
	if (!ret)
		ret = collect_procs(run, by, csv->n, err);
	free(by);
	return ret;
}

void compare_run_free(struct compare_run *run)
{
	size_t i;

	for (i = 0; i < run->n_procs; i++)
		free(run->procs[i].comm);
	free(run->procs);
	run->procs = NULL;
	run->n_procs = 0;
	for (i = 0; i < run->n_queues; i++)
		free(run->queues[i].comm);
	free(run->queues);
	run->queues = NULL;
	run->n_queues = 0;
}

bool compare_has_queues(const struct compare_run *runs, size_t n)
{
	size_t i, k;

	for (i = 0; i < n; i++)
		for (k = 0; k < TT_CSV_COLS; k++)
			if (csv_col_optional(k) && runs[i].has[k])
				return true;
	return false;
}

const char *compare_run_label(char *buf, size_t len, size_t index)
{
	char rev[16];
	size_t n = 0, i;

	index++;
	while (index && n < sizeof(rev)) {
		index--;
		rev[n++] = (char)('A' + index % 26);
		index /= 26;
	}
	for (i = 0; i < n && i + 1 < len; i++)
		buf[i] = rev[n - 1 - i];
	buf[i] = '\0';
	return buf;
}

const char *compare_ratio_text(char *buf, size_t len, uint64_t first, uint64_t v)
{
	double ratio;

	if (!first)
		return v ? "inf" : "-";
	ratio = (double)v / (double)first;
	if (v && ratio < 0.005)
		return "<0.01x";
	snprintf(buf, len, "%.2fx", ratio);
	return buf;
}

const char *compare_rate_text(char *buf, size_t len, uint64_t total, double duration_s)
{
	if (duration_s <= 0)
		return "-";
	snprintf(buf, len, "%.2f", (double)total / duration_s);
	return buf;
}

/* Text from the file (comm) may hold any byte but line breaks and other
 * control bytes would break the layout. */
static void put_printable(FILE *f, const char *s)
{
	for (; *s; s++)
		fputc((unsigned char)*s < 0x20 || *s == 0x7f ? '?' : *s, f);
}

static void write_run_line(FILE *f, const struct compare_run *run, size_t index)
{
	char label[16], pid[16];
	size_t col, i;
	int len;

	len = fprintf(f, "%s: %s, %.3f s, %zu process%s%s",
		      compare_run_label(label, sizeof(label), index), run->file, run->duration_s,
		      run->n_procs, run->n_procs == 1 ? "" : "es", run->n_procs ? ":" : "");
	col = len > 0 ? (size_t)len : 0;
	for (i = 0; i < run->n_procs; i++) {
		size_t item = (size_t)snprintf(pid, sizeof(pid), "%u", run->procs[i].pid) + 1 +
			      strlen(run->procs[i].comm);
		size_t need = (i ? 2 : 1) + item + (i + 1 < run->n_procs ? 1 : 0);

		/* Wrap before an item that would cross the line width with the
		 * comma after it; a continuation line holds at least one item. */
		if (col + need > LINE_WIDTH && col > strlen(CONT_INDENT)) {
			fputs(i ? ",\n" CONT_INDENT : "\n" CONT_INDENT, f);
			col = strlen(CONT_INDENT);
		} else {
			fputs(i ? ", " : " ", f);
			col += i ? 2 : 1;
		}
		fprintf(f, "%s ", pid);
		put_printable(f, run->procs[i].comm);
		col += item;
	}
	fputc('\n', f);
}

/* Writes a line built in memory without its trailing spaces (blank cells at
 * the end of a row). */
static int put_trimmed(FILE *f, FILE *line, char **text, size_t *len)
{
	int failed = ferror(line);

	if (fclose(line) || failed) {
		free(*text);
		*text = NULL;
		return -1;
	}
	while (*len && (*text)[*len - 1] == ' ')
		(*len)--;
	fwrite(*text, 1, *len, f);
	fputc('\n', f);
	free(*text);
	*text = NULL;
	return 0;
}

static int write_table_header(FILE *f, const char *title, size_t n)
{
	char label[16], first[16], cell[48];
	char *text = NULL;
	size_t len = 0, i;
	FILE *line = open_memstream(&text, &len);

	if (!line)
		return -1;
	compare_run_label(first, sizeof(first), 0);
	fprintf(line, "%-*s", NAME_WIDTH, title);
	for (i = 0; i < n; i++) {
		compare_run_label(label, sizeof(label), i);
		snprintf(cell, sizeof(cell), "%s total", label);
		fprintf(line, " %*s", TOTAL_WIDTH, cell);
		snprintf(cell, sizeof(cell), "%s /s", label);
		fprintf(line, " %*s", RATE_WIDTH, cell);
		if (i) {
			snprintf(cell, sizeof(cell), "%s/%s", label, first);
			fprintf(line, " %*s", RATIO_WIDTH, cell);
		}
	}
	return put_trimmed(f, line, &text, &len);
}

/* One row of the table: totals (with rates when with_rate) and ratios.
 * present, when not NULL, says which runs have the column: the others
 * show n/a, and no ratio. */
static int write_table_row(FILE *f, const char *name, const uint64_t *values,
			   const struct compare_run *runs, size_t n, bool with_rate,
			   const bool *present)
{
	char num[32], rate[48], ratio[48];
	char *text = NULL;
	size_t len = 0, i;
	FILE *line = open_memstream(&text, &len);
	int over;

	if (!line)
		return -1;
	/* A name longer than its column (synack_retrans_in) takes room from
	 * the first total, which is right-aligned: the columns stay in line. */
	over = strlen(name) > NAME_WIDTH ? (int)(strlen(name) - NAME_WIDTH) : 0;
	fprintf(line, "%-*s", NAME_WIDTH, name);
	for (i = 0; i < n; i++) {
		int width = i ? TOTAL_WIDTH : TOTAL_WIDTH - over;

		if (present && !present[i]) {
			fprintf(line, " %*s %*s", width, "n/a", RATE_WIDTH, "");
			if (i)
				fprintf(line, " %*s", RATIO_WIDTH, "");
			continue;
		}
		snprintf(num, sizeof(num), "%llu", (unsigned long long)values[i]);
		fprintf(line, " %*s %*s", width, num, RATE_WIDTH,
			with_rate ? compare_rate_text(rate, sizeof(rate), values[i], runs[i].duration_s)
				  : "");
		if (i)
			fprintf(line, " %*s", RATIO_WIDTH,
				present && !present[0]
					? ""
					: compare_ratio_text(ratio, sizeof(ratio), values[0], values[i]));
	}
	return put_trimmed(f, line, &text, &len);
}

/* Rows of counts; with_has, a run whose file lacks a column shows n/a. */
static int write_count_rows(FILE *f, const enum tt_csv_col *cols, size_t n_cols,
			    const struct compare_run *runs, size_t n, uint64_t *values,
			    bool *present, bool with_has)
{
	size_t c, i;

	for (c = 0; c < n_cols; c++) {
		for (i = 0; i < n; i++) {
			values[i] = runs[i].total[cols[c]];
			present[i] = runs[i].has[cols[c]];
		}
		if (write_table_row(f, tt_csv_col_names[cols[c]], values, runs, n, true,
				    with_has ? present : NULL))
			return -1;
	}
	return 0;
}

/* The queue of comm in run, or NULL when its listeners neither dropped nor
 * queued. */
static const struct compare_queue *queue_of(const struct compare_run *run, const char *comm)
{
	size_t i;

	for (i = 0; i < run->n_queues; i++)
		if (!strcmp(run->queues[i].comm, comm))
			return &run->queues[i];
	return NULL;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The names with a queue in any run, each once, sorted; *names is NULL when
 * out of memory. Returns how many. */
static size_t queue_names(const struct compare_run *runs, size_t n, const char ***names)
{
	size_t total = 0, i, k, m = 0;

	for (i = 0; i < n; i++)
		total += runs[i].n_queues;
	*names = malloc((total ? total : 1) * sizeof(**names));
	if (!*names)
		return 0;
	for (i = 0; i < n; i++)
		for (k = 0; k < runs[i].n_queues; k++)
			(*names)[m++] = runs[i].queues[k].comm;
	qsort(*names, m, sizeof(**names), cmp_str);
	for (i = 0, k = 0; i < m; i++)
		if (!k || strcmp((*names)[k - 1], (*names)[i]) != 0)
			(*names)[k++] = (*names)[i];
	return k;
}

/* A process name in a column of the text: control bytes as '?', cut to
 * the column's width. */
static void put_name_cell(FILE *f, const char *comm)
{
	char cell[NAME_WIDTH + 1];
	size_t i;

	for (i = 0; i < NAME_WIDTH && comm[i]; i++) {
		unsigned char c = (unsigned char)comm[i];

		cell[i] = comm[i];
		if (c < 0x20 || c == 0x7f)
			cell[i] = '?';
	}
	cell[i] = '\0';
	fprintf(f, "%-*s", NAME_WIDTH, cell);
}

static void put_queue_cell(FILE *f, int width, uint64_t v, bool present)
{
	char num[32];

	snprintf(num, sizeof(num), "%llu", (unsigned long long)v);
	fprintf(f, " %*s", width, present ? num : "n/a");
}

/* Per process name: its listen drops, and its deepest accept queue with
 * that listener's limit, in each run. */
static int write_queue_names(FILE *f, const struct compare_run *runs, size_t n)
{
	const char **names;
	size_t n_names = queue_names(runs, n, &names), i, k;
	char label[16], cell[48];
	char *text = NULL;
	size_t len = 0;
	FILE *line;

	if (!names)
		return -1;
	for (k = 0; k <= n_names; k++) {
		line = open_memstream(&text, &len);
		if (!line) {
			free(names);
			return -1;
		}
		if (!k)
			fprintf(line, "%-*s", NAME_WIDTH, "by process name");
		else
			put_name_cell(line, names[k - 1]);
		for (i = 0; i < n; i++) {
			const struct compare_queue *q = k ? queue_of(&runs[i], names[k - 1]) : NULL;
			static const struct compare_queue none;

			compare_run_label(label, sizeof(label), i);
			if (!k) {
				snprintf(cell, sizeof(cell), "%s drops", label);
				fprintf(line, " %*s", TOTAL_WIDTH, cell);
				snprintf(cell, sizeof(cell), "%s peak", label);
				fprintf(line, " %*s", QUEUE_WIDTH, cell);
				snprintf(cell, sizeof(cell), "%s limit", label);
				fprintf(line, " %*s", QUEUE_WIDTH, cell);
				continue;
			}
			if (!q)
				q = &none;
			put_queue_cell(line, TOTAL_WIDTH, q->drops, runs[i].has[TT_CSV_LISTEN_DROPS]);
			put_queue_cell(line, QUEUE_WIDTH, q->peak, runs[i].has[TT_CSV_ACCEPTQ_PEAK]);
			put_queue_cell(line, QUEUE_WIDTH, q->limit, runs[i].has[TT_CSV_ACCEPTQ_LIMIT]);
		}
		if (put_trimmed(f, line, &text, &len)) {
			free(names);
			return -1;
		}
	}
	free(names);
	return 0;
}

/* listen_drops and the SYNs sent again, the queues per name, then the
 * peaks of open connections. */
static int write_queues(FILE *f, const struct compare_run *runs, size_t n, uint64_t *values,
			bool *present)
{
	bool any_queue = false;
	size_t i, s;

	if (write_table_header(f, "listen queues", n) ||
	    write_count_rows(f, compare_queue_counts, COMPARE_QUEUE_COUNTS, runs, n, values,
			     present, true))
		return -1;
	for (i = 0; i < n; i++)
		any_queue = any_queue || runs[i].n_queues;
	if (any_queue && write_queue_names(f, runs, n))
		return -1;
	fputc('\n', f);
	if (write_table_header(f, "open connections", n))
		return -1;
	for (s = 0; s < 2; s++) {
		char name[32];

		for (i = 0; i < n; i++) {
			values[i] = runs[i].open_peak[s];
			present[i] = runs[i].has[open_cols[s]];
		}
		snprintf(name, sizeof(name), "%s peak", tt_csv_col_names[open_cols[s]]);
		if (write_table_row(f, name, values, runs, n, false, present))
			return -1;
	}
	fputc('\n', f);
	return 0;
}

/* Labels of the runs whose peak equals v, as "A" or "A, C". */
static void write_labels_at(FILE *f, const struct compare_run *runs, size_t n, uint64_t v)
{
	const char *sep = "";
	char label[16];
	size_t i;

	for (i = 0; i < n; i++) {
		if (runs[i].tw_now_peak != v)
			continue;
		fprintf(f, "%s%s", sep, compare_run_label(label, sizeof(label), i));
		sep = ", ";
	}
}

void compare_write_verdict(FILE *f, const struct compare_run *runs, size_t n)
{
	uint64_t hi = runs[0].tw_now_peak, lo = hi;
	char a[16], b[16];
	size_t i;

	for (i = 1; i < n; i++) {
		if (runs[i].tw_now_peak > hi)
			hi = runs[i].tw_now_peak;
		if (runs[i].tw_now_peak < lo)
			lo = runs[i].tw_now_peak;
	}
	if (hi == lo) {
		fprintf(f, "TIME_WAIT at peak: the same in every run (%llu).\n",
			(unsigned long long)hi);
		return;
	}
	if (n == 2) {
		size_t more = runs[1].tw_now_peak > runs[0].tw_now_peak;

		fprintf(f, "%s held more TIME_WAIT at its peak: %llu against %llu in %s.\n",
			compare_run_label(a, sizeof(a), more),
			(unsigned long long)runs[more].tw_now_peak,
			(unsigned long long)runs[!more].tw_now_peak,
			compare_run_label(b, sizeof(b), !more));
		return;
	}
	fputs("Most TIME_WAIT at peak: ", f);
	write_labels_at(f, runs, n, hi);
	fprintf(f, " (%llu); least: ", (unsigned long long)hi);
	write_labels_at(f, runs, n, lo);
	fprintf(f, " (%llu).\n", (unsigned long long)lo);
}

/* A section of waits from a run's bucket columns: connect times, and accept
 * queue waits (where accept() is traced; 0 elsewhere, so shown only when a
 * run has one). Its rows: how many, how many above the bucket `over`, and
 * the bounds of the buckets of p50, p99 and max. */
#define WAIT_ROWS 5
struct wait_section {
	const char *title;
	enum tt_csv_col first; /* the first bucket's column */
	size_t over;
	bool only_when_any;
	const char *rows[WAIT_ROWS];
};

static const struct wait_section connect_section = {
	"connect times", TT_CSV_CONNECT_0, TT_CONNECT_1S, false,
	{ "connects", "connects_over_1s", "connect_p50_us", "connect_p99_us", "connect_max_us" },
};

static const struct wait_section accept_section = {
	"accept queue waits", TT_CSV_ACCEPT_WAIT_0, TT_WAIT_100MS, true,
	{ "accepts", "accepts_over_100ms", "accept_wait_p50_us", "accept_wait_p99_us",
	  "accept_wait_max_us" },
};

static const struct wait_section handshake_section = {
	"handshakes, as the listeners saw them", TT_CSV_HANDSHAKE_0, TT_CONNECT_1S, true,
	{ "handshakes", "handshakes_over_1s", "handshake_p50_us", "handshake_p99_us",
	  "handshake_max_us" },
};

static void wait_buckets(const struct compare_run *run, const struct wait_section *w,
			 __u64 le[TT_CONNECT_BUCKETS])
{
	for (size_t i = 0; i < TT_CONNECT_BUCKETS; i++)
		le[i] = run->total[w->first + i];
}

static bool has_waits(const struct compare_run *runs, size_t n, const struct wait_section *w)
{
	__u64 le[TT_CONNECT_BUCKETS];

	for (size_t i = 0; i < n; i++) {
		if (!runs[i].has[w->first])
			continue;
		wait_buckets(&runs[i], w, le);
		if (!w->only_when_any || tt_connect_count(le))
			return true;
	}
	return false;
}

/* Row r of run's section; false when the run lacks the columns, or the
 * quantile has no bound (no wait, or one above the last). */
static bool wait_row(const struct compare_run *run, const struct wait_section *w, size_t r,
		     uint64_t *v)
{
	static const double quantiles[3] = { 0.5, 0.99, 1.0 };
	__u64 le[TT_CONNECT_BUCKETS];
	int bucket;

	if (!run->has[w->first])
		return false;
	wait_buckets(run, w, le);
	if (r == 0) {
		*v = tt_connect_count(le);
		return true;
	}
	if (r == 1) {
		*v = tt_waits_above(le, w->over);
		return true;
	}
	bucket = tt_connect_quantile(le, quantiles[r - 2]);
	if (bucket < 0 || bucket >= TT_CONNECT_OVER)
		return false;
	*v = tt_connect_bound_us((size_t)bucket);
	return true;
}

static int write_waits(FILE *f, const struct wait_section *w, const struct compare_run *runs,
		       size_t n, uint64_t *values, bool *present)
{
	if (write_table_header(f, w->title, n))
		return -1;
	for (size_t r = 0; r < WAIT_ROWS; r++) {
		for (size_t i = 0; i < n; i++) {
			values[i] = 0;
			present[i] = wait_row(&runs[i], w, r, &values[i]);
		}
		if (write_table_row(f, w->rows[r], values, runs, n, r < 2, present))
			return -1;
	}
	if (w == &connect_section &&
	    write_count_rows(f, connfail_cols, TT_CONNFAILS, runs, n, values, present, true))
		return -1;
	fputc('\n', f);
	return 0;
}

int compare_write_text(FILE *f, const struct compare_run *runs, size_t n)
{
	uint64_t *values = calloc(n ? n : 1, sizeof(*values));
	bool *present = calloc(n ? n : 1, sizeof(*present));
	size_t i;
	int ret = -1;

	if (!values || !present || !n)
		goto out;
	for (i = 0; i < n; i++)
		write_run_line(f, &runs[i], i);
	fputc('\n', f);
	if (write_table_header(f, "TIME_WAIT", n) ||
	    write_count_rows(f, compare_tw_counts, COMPARE_TW_COUNTS, runs, n, values, present,
			     false))
		goto out;
	for (i = 0; i < n; i++)
		values[i] = runs[i].tw_now_peak;
	if (write_table_row(f, "tw_now peak", values, runs, n, false, NULL))
		goto out;
	compare_write_verdict(f, runs, n);
	fputc('\n', f);
	if (compare_has_queues(runs, n) && write_queues(f, runs, n, values, present))
		goto out;
	if (has_waits(runs, n, &connect_section) &&
	    write_waits(f, &connect_section, runs, n, values, present))
		goto out;
	if (has_waits(runs, n, &accept_section) &&
	    write_waits(f, &accept_section, runs, n, values, present))
		goto out;
	if (has_waits(runs, n, &handshake_section) &&
	    write_waits(f, &handshake_section, runs, n, values, present))
		goto out;
	if (write_table_header(f, "other counters", n) ||
	    write_count_rows(f, compare_other_counts, COMPARE_OTHER_COUNTS, runs, n, values,
			     present, false))
		goto out;
	ret = ferror(f) ? -1 : 0;
out:
	free(values);
	free(present);
	return ret;
}

/* RFC 4180: quoted only when it must be, quotes doubled. A run whose file
 * lacks the column (present false) has its total, rate and ratio empty, as
 * has the ratio of every run when the first lacks it. comm: the process
 * name of a row per name, NULL for the run's. */
struct csv_cell {
	const char *counter;
	const char *comm;
	bool with_rate;
};

static void write_csv_row(FILE *f, const struct csv_cell *cell, size_t index,
			  const struct compare_run *run, uint64_t v, bool present, uint64_t first,
			  bool first_present)
{
	char label[16];

	fprintf(f, "%s,%s,", cell->counter, compare_run_label(label, sizeof(label), index));
	csv_put_field(f, run->file);
	fputc(',', f);
	if (present)
		fprintf(f, "%llu", (unsigned long long)v);
	fputc(',', f);
	if (present && cell->with_rate && run->duration_s > 0)
		fprintf(f, "%.3f", (double)v / run->duration_s);
	fputc(',', f);
	if (present && first_present && first)
		fprintf(f, "%.4f", (double)v / (double)first);
	else if (present && first_present && v)
		fputs("inf", f);
	fputc(',', f);
	if (cell->comm)
		csv_put_field(f, cell->comm);
	fputc('\n', f);
}

/* Rows of counts; with_has, a run whose file lacks a column is empty. */
static void write_csv_counts(FILE *f, const enum tt_csv_col *cols, size_t n_cols,
			     const struct compare_run *runs, size_t n, bool with_has)
{
	size_t c, i;

	for (c = 0; c < n_cols; c++) {
		struct csv_cell cell = { tt_csv_col_names[cols[c]], NULL, true };

		for (i = 0; i < n; i++)
			write_csv_row(f, &cell, i, &runs[i], runs[i].total[cols[c]],
				      !with_has || runs[i].has[cols[c]], runs[0].total[cols[c]],
				      !with_has || runs[0].has[cols[c]]);
	}
}

static void write_csv_waits(FILE *f, const struct wait_section *w, const struct compare_run *runs,
			    size_t n)
{
	for (size_t r = 0; r < WAIT_ROWS; r++) {
		struct csv_cell cell = { w->rows[r], NULL, r < 2 };
		uint64_t v0 = 0;
		bool p0 = wait_row(&runs[0], w, r, &v0);

		for (size_t i = 0; i < n; i++) {
			uint64_t v = 0;
			bool p = wait_row(&runs[i], w, r, &v);

			write_csv_row(f, &cell, i, &runs[i], v, p, v0, p0);
		}
	}
}

/* The queues per name: listen_drops, acceptq_peak and acceptq_limit, each
 * with the name in comm. */
static int write_csv_queue_names(FILE *f, const struct compare_run *runs, size_t n)
{
	static const struct compare_queue none;
	const char **names;
	size_t n_names = queue_names(runs, n, &names), k, c, i;

	if (!names)
		return -1;
	for (k = 0; k < n_names; k++) {
		const struct compare_queue *first = queue_of(&runs[0], names[k]);

		for (c = 0; c < 3; c++) {
			static const enum tt_csv_col cols[3] = { TT_CSV_LISTEN_DROPS,
								 TT_CSV_ACCEPTQ_PEAK,
								 TT_CSV_ACCEPTQ_LIMIT };
			struct csv_cell cell = { tt_csv_col_names[cols[c]], names[k], c == 0 };
			const struct compare_queue *q0 = first ? first : &none;

			for (i = 0; i < n; i++) {
				const struct compare_queue *q = queue_of(&runs[i], names[k]);
				uint64_t v, v0;

				q = q ? q : &none;
				v = c == 0 ? q->drops : c == 1 ? q->peak : q->limit;
				v0 = c == 0 ? q0->drops : c == 1 ? q0->peak : q0->limit;
				write_csv_row(f, &cell, i, &runs[i], v, runs[i].has[cols[c]], v0,
					      runs[0].has[cols[c]]);
			}
		}
	}
	free(names);
	return 0;
}

int compare_write_csv(FILE *f, const struct compare_run *runs, size_t n)
{
	size_t i, s;

	if (!n)
		return -1;
	fputs("counter,run,file,total,per_second,ratio_to_first,comm\n", f);
	write_csv_counts(f, compare_tw_counts, COMPARE_TW_COUNTS, runs, n, false);
	for (i = 0; i < n; i++) {
		static const struct csv_cell cell = { "tw_now_peak", NULL, false };

		write_csv_row(f, &cell, i, &runs[i], runs[i].tw_now_peak, true,
			      runs[0].tw_now_peak, true);
	}
	if (compare_has_queues(runs, n)) {
		write_csv_counts(f, compare_queue_counts, COMPARE_QUEUE_COUNTS, runs, n, true);
		if (write_csv_queue_names(f, runs, n))
			return -1;
		for (s = 0; s < 2; s++) {
			struct csv_cell cell = { s ? "open_out_peak" : "open_in_peak", NULL, false };

			for (i = 0; i < n; i++)
				write_csv_row(f, &cell, i, &runs[i], runs[i].open_peak[s],
					      runs[i].has[open_cols[s]], runs[0].open_peak[s],
					      runs[0].has[open_cols[s]]);
		}
	}
	if (has_waits(runs, n, &connect_section)) {
		write_csv_waits(f, &connect_section, runs, n);
		write_csv_counts(f, connfail_cols, TT_CONNFAILS, runs, n, true);
	}
	if (has_waits(runs, n, &accept_section))
		write_csv_waits(f, &accept_section, runs, n);
	if (has_waits(runs, n, &handshake_section))
		write_csv_waits(f, &handshake_section, runs, n);
	write_csv_counts(f, compare_other_counts, COMPARE_OTHER_COUNTS, runs, n, false);
	return ferror(f) ? -1 : 0;
}

enum { OPT_CSV = 0x100 };

static const struct option long_options[] = {
	{ "csv", no_argument, NULL, OPT_CSV },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

struct compare_args {
	const char **files;
	size_t n_files;
	bool csv;
	bool help;
};

static int usage_error(FILE *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int usage_error(FILE *err, const char *fmt, ...)
{
	char line[TT_ERR_LEN];
	va_list ap;

	va_start(ap, fmt);
	tt_verror(line, sizeof(line), fmt, ap);
	va_end(ap);
	return tt_say(err, 2, "tcptrace compare", "%s (see tcptrace compare --help)", line);
}

/* Returns 0, or the exit status after one line on err. */
static int parse_args(int argc, char **argv, struct compare_args *args, FILE *err)
{
	int c;

	memset(args, 0, sizeof(*args));
	args->files = calloc(argc > 0 ? (size_t)argc : 1, sizeof(*args->files));
	if (!args->files) {
		tt_say(err, 1, "tcptrace compare", "out of memory");
		return 1;
	}
	/* '-': files come back in order, between options; ':': a missing
	 * argument is ':'. */
	opterr = 0;
	optind = 0;
	while ((c = getopt_long(argc, argv, "-:h", long_options, NULL)) != -1) {
		switch (c) {
		case 1:
			args->files[args->n_files++] = optarg;
			break;
		case OPT_CSV:
			args->csv = true;
			break;
		case 'h':
			args->help = true;
			break;
		default: {
			const char *arg = optind > 0 && optind <= argc ? argv[optind - 1] : "";

			if (optopt == OPT_CSV || optopt == 'h')
				return usage_error(err, "option '%.*s' takes no argument",
						   (int)strcspn(arg, "="), arg);
			if (optopt)
				return usage_error(err, "unknown option '-%c'", optopt);
			return usage_error(err, "unknown option '%.*s'", (int)strcspn(arg, "="),
					   arg);
		}
		}
	}
	/* Whatever follows "--" is a file, even when it starts with '-'. */
	while (optind < argc)
		args->files[args->n_files++] = argv[optind++];
	if (!args->help && args->n_files < 2)
		return usage_error(err, "expected at least two CSV files, got %zu",
				   args->n_files);
	return 0;
}

/* Reads and sums one file. Returns 0, or the exit status after one line on
 * err: 1 when it could not be read, 2 when its content is wrong. */
static int load_run(const char *path, struct compare_run *run, FILE *err)
{
	struct tt_csv_file csv;
	struct csv_error e;
	int ret;

	ret = csv_load("compare", path, TT_CSV_PER_PROCESS, &csv, err);
	if (ret)
		return ret;
	ret = compare_run_init(run, path, &csv, &e);
	csv_file_free(&csv);
	return ret ? csv_print_error(err, "compare", path, &e) : 0;
}

/* The report is built in memory and written at once, so that a failed
 * write is seen, with its errno, at the call that failed. */
static int write_report(FILE *out, const struct compare_run *runs, size_t n, bool csv,
			FILE *err)
{
	char *text = NULL;
	size_t len = 0;
	FILE *m;
	int failed;

	m = open_memstream(&text, &len);
	if (!m) {
		tt_say(err, 1, "tcptrace compare", "out of memory");
		return 1;
	}
	failed = csv ? compare_write_csv(m, runs, n) : compare_write_text(m, runs, n);
	if (fclose(m) || failed) {
		free(text);
		tt_say(err, 1, "tcptrace compare", "out of memory");
		return 1;
	}
	if (fwrite(text, 1, len, out) != len || fflush(out)) {
		tt_say(err, 1, "tcptrace compare", "cannot write the report: %s", strerror(errno));
		free(text);
		return 1;
	}
	free(text);
	return 0;
}

int compare_cli(int argc, char **argv, FILE *out, FILE *err)
{
	struct compare_run *runs = NULL;
	struct compare_args args;
	size_t loaded = 0, i;
	int ret;

	ret = parse_args(argc, argv, &args, err);
	if (ret)
		goto out;
	if (args.help) {
		if (fputs(compare_usage, out) == EOF || fflush(out)) {
			tt_say(err, 1, "tcptrace compare", "cannot write the help: %s",
				strerror(errno));
			ret = 1;
		}
		goto out;
	}
	runs = calloc(args.n_files ? args.n_files : 1, sizeof(*runs));
	if (!runs) {
		tt_say(err, 1, "tcptrace compare", "out of memory");
		ret = 1;
		goto out;
	}
	for (loaded = 0; loaded < args.n_files; loaded++) {
		ret = load_run(args.files[loaded], &runs[loaded], err);
		if (ret) {
			compare_run_free(&runs[loaded]);
			goto out;
		}
	}
	ret = write_report(out, runs, args.n_files, args.csv, err);
out:
	for (i = 0; i < loaded; i++)
		compare_run_free(&runs[i]);
	free(runs);
	free(args.files);
	return ret;
}

int compare_main(int argc, char **argv)
{
	return compare_cli(argc, argv, stdout, stderr);
}
