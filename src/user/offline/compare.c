// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* tcptrace compare: sums each CSV run (totals, rates, the peaks of tw_now
 * and of open connections per interval, the listen queues per process
 * name, its processes), builds the report's sections from the runs once
 * (compare_report_build(), which the report page lays out too), and prints
 * them side by side against the first, as text or CSV, TIME_WAIT first. */
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

/* The report's sections, built once from the runs. */

/* The TIME_WAIT counts lead the report; the level tw_now comes after them. */
static const enum tt_csv_col tw_counts[] = { TT_CSV_TW_IN, TT_CSV_TW_OUT };
/* Connection attempts that waited: dropped by a full queue, sent again. */
static const enum tt_csv_col queue_counts[] = {
	TT_CSV_LISTEN_DROPS, TT_CSV_SYN_RETRANS_OUT, TT_CSV_SYNACK_RETRANS_IN,
};
/* The levels whose peak over the run's intervals compare shows. */
static const enum tt_csv_col open_cols[2] = { TT_CSV_OPEN_IN, TT_CSV_OPEN_OUT };
static const char *const open_peak_counters[2] = { "open_in_peak", "open_out_peak" };
static const enum tt_csv_col other_counts[] = {
	TT_CSV_CONN_IN,        TT_CSV_CONN_OUT,        TT_CSV_FIN_ACTIVE_IN,
	TT_CSV_FIN_ACTIVE_OUT, TT_CSV_FIN_PASSIVE_IN,  TT_CSV_FIN_PASSIVE_OUT,
	TT_CSV_RST_SENT_IN,    TT_CSV_RST_SENT_OUT,    TT_CSV_RST_RECV_IN,
	TT_CSV_RST_RECV_OUT,   TT_CSV_EADDRNOTAVAIL,   TT_CSV_EADDRINUSE,
	TT_CSV_TIMEOUT_IN,     TT_CSV_TIMEOUT_OUT,     TT_CSV_CONNFAIL_OUT,
	TT_CSV_UNTRACKED,      TT_CSV_TW_RST,
};
/* Failed connects by cause, shown with the connect times. */
static const enum tt_csv_col connfail_cols[TT_CONNFAILS] = {
	TT_CSV_CONNFAIL_REFUSED,      TT_CSV_CONNFAIL_TIMEOUT,     TT_CSV_CONNFAIL_UNREACH,
	TT_CSV_CONNFAIL_ABANDONED,    TT_CSV_CONNFAIL_ENETUNREACH, TT_CSV_CONNFAIL_EHOSTUNREACH,
	TT_CSV_CONNFAIL_EACCES,       TT_CSV_CONNFAIL_EINVAL,      TT_CSV_CONNFAIL_EPERM,
	TT_CSV_CONNFAIL_OTHER,
};
#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

const char *const compare_queue_heads[COMPARE_QUEUE_VALUES] = { "drops", "peak", "limit" };
const enum tt_csv_col compare_queue_cols[COMPARE_QUEUE_VALUES] = {
	TT_CSV_LISTEN_DROPS, TT_CSV_ACCEPTQ_PEAK, TT_CSV_ACCEPTQ_LIMIT,
};

/* A section of waits from a run's bucket columns: connect times, and accept
 * queue waits (where accept() is traced; 0 elsewhere, so shown only when a
 * run has one). Its rows: how many, how many above the bucket `over`, and
 * the bounds of the buckets of p50, p99 and max. */
#define WAIT_ROWS 5
struct wait_section {
	const char *id;
	const char *title;
	enum tt_csv_col first; /* the first bucket's column */
	size_t over;
	bool only_when_any;
	const char *rows[WAIT_ROWS];
};

static const struct wait_section connect_section = {
	"connect", "connect times", TT_CSV_CONNECT_0, TT_CONNECT_1S, false,
	{ "connects", "connects_over_1s", "connect_p50_us", "connect_p99_us", "connect_max_us" },
};

static const struct wait_section accept_section = {
	"accept", "accept queue waits", TT_CSV_ACCEPT_WAIT_0, TT_WAIT_100MS, true,
	{ "accepts", "accepts_over_100ms", "accept_wait_p50_us", "accept_wait_p99_us",
	  "accept_wait_max_us" },
};

static const struct wait_section handshake_section = {
	"handshake", "handshakes, as the listeners saw them", TT_CSV_HANDSHAKE_0, TT_CONNECT_1S,
	true,
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

/* Row r of run's section; n/a when the run lacks the columns, or the
 * quantile has no bound (no wait, or one above the last). */
static struct compare_cell wait_cell(const struct compare_run *run, const struct wait_section *w,
				     size_t r)
{
	static const double quantiles[3] = { 0.5, 0.99, 1.0 };
	struct compare_cell cell = { 0, false };
	__u64 le[TT_CONNECT_BUCKETS];
	int bucket;

	if (!run->has[w->first])
		return cell;
	wait_buckets(run, w, le);
	cell.present = true;
	if (r == 0) {
		cell.v = tt_connect_count(le);
	} else if (r == 1) {
		cell.v = tt_waits_above(le, w->over);
	} else {
		bucket = tt_connect_quantile(le, quantiles[r - 2]);
		if (bucket < 0 || bucket >= TT_CONNECT_OVER)
			cell.present = false;
		else
			cell.v = tt_connect_bound_us((size_t)bucket);
	}
	return cell;
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

/* A new section of n_rows rows, each with `width` cells per run, in one
 * block of memory; NULL out of memory. */
static struct compare_section *add_section(struct compare_report *rep, const char *id,
					   const char *title, enum compare_layout layout,
					   size_t n_rows)
{
	size_t width = layout == COMPARE_QUEUES ? COMPARE_QUEUE_VALUES : 1;
	struct compare_section *s = &rep->sections[rep->n_sections];
	struct compare_cell *cells;
	size_t r;

	memset(s, 0, sizeof(*s));
	s->id = id;
	s->title = title;
	s->layout = layout;
	s->rows = calloc(n_rows ? n_rows : 1, sizeof(*s->rows));
	cells = calloc((n_rows ? n_rows : 1) * rep->n_runs * width, sizeof(*cells));
	if (!s->rows || !cells) {
		free(s->rows);
		free(cells);
		return NULL;
	}
	for (r = 0; r < n_rows; r++)
		s->rows[r].cells = cells + r * rep->n_runs * width;
	s->n_rows = n_rows;
	rep->n_sections++;
	return s;
}

/* Whether the run's CSV has the column: every per-process CSV has those
 * an earlier version wrote too; a --by dest one, the columns of its side. */
static bool run_has(const struct compare_run *run, enum tt_csv_col col)
{
	if (csv_col_optional(col))
		return run->has[col];
	return run->kind != TT_CSV_PER_DEST || csv_dest_has(col);
}

/* Rows of column totals, from row `at` of s on. */
static void count_rows(struct compare_section *s, size_t at, const enum tt_csv_col *cols,
		       size_t n_cols, const struct compare_run *runs, size_t n)
{
	for (size_t c = 0; c < n_cols; c++) {
		struct compare_row *row = &s->rows[at + c];

		row->name = row->counter = tt_csv_col_names[cols[c]];
		row->suffix = "";
		row->column = true;
		row->with_rate = true;
		for (size_t i = 0; i < n; i++) {
			row->cells[i].v = runs[i].total[cols[c]];
			row->cells[i].present = run_has(&runs[i], cols[c]);
		}
	}
}

/* A level's peak per run: tw_now's in every run, open_in's and open_out's
 * where the run's CSV has them. */
static void peak_row(struct compare_row *row, enum tt_csv_col col, const char *counter,
		     const struct compare_run *runs, size_t n)
{
	row->name = tt_csv_col_names[col];
	row->suffix = " peak";
	row->counter = counter;
	row->column = true;
	for (size_t i = 0; i < n; i++) {
		if (col == TT_CSV_TW_NOW) {
			row->cells[i].v = runs[i].tw_now_peak;
			row->cells[i].present = true;
		} else {
			size_t s = col == TT_CSV_OPEN_OUT;

			row->cells[i].v = runs[i].open_peak[s];
			row->cells[i].present = runs[i].has[open_cols[s]];
		}
	}
}

static int add_queues(struct compare_report *rep, const struct compare_run *runs, size_t n)
{
	static const struct compare_queue none;
	struct compare_section *s;
	const char **names;
	size_t n_names, k, i;

	s = add_section(rep, "queues", "listen queues", COMPARE_COUNTS, N_OF(queue_counts));
	if (!s)
		return -1;
	count_rows(s, 0, queue_counts, N_OF(queue_counts), runs, n);
	n_names = queue_names(runs, n, &names);
	if (!names)
		return -1;
	if (n_names) {
		s = add_section(rep, "queues-by-name", "by process name", COMPARE_QUEUES, n_names);
		if (!s) {
			free(names);
			return -1;
		}
		s->continued = true;
		for (k = 0; k < n_names; k++) {
			struct compare_row *row = &s->rows[k];

			row->name = names[k];
			row->suffix = "";
			for (i = 0; i < n; i++) {
				const struct compare_queue *q = queue_of(&runs[i], names[k]);
				struct compare_cell *c = &row->cells[i * COMPARE_QUEUE_VALUES];

				q = q ? q : &none;
				c[0].v = q->drops;
				c[1].v = q->peak;
				c[2].v = q->limit;
				for (size_t v = 0; v < COMPARE_QUEUE_VALUES; v++)
					c[v].present = runs[i].has[compare_queue_cols[v]];
			}
		}
	}
	free(names);
	s = add_section(rep, "open", "open connections", COMPARE_COUNTS, 2);
	if (!s)
		return -1;
	peak_row(&s->rows[0], TT_CSV_OPEN_IN, open_peak_counters[0], runs, n);
	peak_row(&s->rows[1], TT_CSV_OPEN_OUT, open_peak_counters[1], runs, n);
	return 0;
}

static int add_waits(struct compare_report *rep, const struct wait_section *w,
		     const struct compare_run *runs, size_t n)
{
	size_t extra = w == &connect_section ? N_OF(connfail_cols) : 0;
	struct compare_section *s;

	if (!has_waits(runs, n, w))
		return 0;
	s = add_section(rep, w->id, w->title, COMPARE_COUNTS, WAIT_ROWS + extra);
	if (!s)
		return -1;
	for (size_t r = 0; r < WAIT_ROWS; r++) {
		struct compare_row *row = &s->rows[r];

		row->name = row->counter = w->rows[r];
		row->suffix = "";
		row->with_rate = r < 2;
		for (size_t i = 0; i < n; i++)
			row->cells[i] = wait_cell(&runs[i], w, r);
	}
	count_rows(s, WAIT_ROWS, connfail_cols, extra, runs, n);
	return 0;
}

int compare_report_build(struct compare_report *rep, const struct compare_run *runs, size_t n)
{
	struct compare_section *s;

	memset(rep, 0, sizeof(*rep));
	rep->n_runs = n;
	if (!n)
		return -1;
	s = add_section(rep, "timewait", "TIME_WAIT", COMPARE_COUNTS, N_OF(tw_counts) + 1);
	if (!s)
		goto fail;
	s->verdict = true;
	count_rows(s, 0, tw_counts, N_OF(tw_counts), runs, n);
	peak_row(&s->rows[N_OF(tw_counts)], TT_CSV_TW_NOW, "tw_now_peak", runs, n);
	if (compare_has_queues(runs, n) && add_queues(rep, runs, n))
		goto fail;
	if (add_waits(rep, &connect_section, runs, n) || add_waits(rep, &accept_section, runs, n) ||
	    add_waits(rep, &handshake_section, runs, n))
		goto fail;
	s = add_section(rep, "other", "other counters", COMPARE_COUNTS, N_OF(other_counts));
	if (!s)
		goto fail;
	count_rows(s, 0, other_counts, N_OF(other_counts), runs, n);
	return 0;
fail:
	compare_report_free(rep);
	return -1;
}

void compare_report_free(struct compare_report *rep)
{
	for (size_t k = 0; k < rep->n_sections; k++) {
		struct compare_section *s = &rep->sections[k];

		if (s->n_rows)
			free(s->rows[0].cells);
		free(s->rows);
	}
	rep->n_sections = 0;
}

/* The text. */

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

/* A section's header line: its title, then per run the heads of its
 * columns ("A total", "A /s", "B/A"; "A drops", "A peak", "A limit"). */
static int write_table_header(FILE *f, const struct compare_section *s, size_t n)
{
	char label[16], first[16], cell[48];
	char *text = NULL;
	size_t len = 0, i, v;
	FILE *line = open_memstream(&text, &len);

	if (!line)
		return -1;
	compare_run_label(first, sizeof(first), 0);
	fprintf(line, "%-*s", NAME_WIDTH, s->title);
	for (i = 0; i < n; i++) {
		compare_run_label(label, sizeof(label), i);
		if (s->layout == COMPARE_QUEUES) {
			for (v = 0; v < COMPARE_QUEUE_VALUES; v++) {
				snprintf(cell, sizeof(cell), "%s %s", label, compare_queue_heads[v]);
				fprintf(line, " %*s", v ? QUEUE_WIDTH : TOTAL_WIDTH, cell);
			}
			continue;
		}
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

static const char *value_text(char *buf, size_t len, const struct compare_cell *c)
{
	if (!c->present)
		return "n/a";
	snprintf(buf, len, "%llu", (unsigned long long)c->v);
	return buf;
}

/* One row: per run its total (n/a when not present) and rate, and for a
 * later run its ratio to the first, when both are present; or per run a
 * name's drops, peak and limit. */
static int write_table_row(FILE *f, const struct compare_section *s, const struct compare_row *row,
			   const struct compare_run *runs, size_t n)
{
	char name[64], num[32], rate[48], ratio[48];
	char *text = NULL;
	size_t len = 0, i, v;
	FILE *line = open_memstream(&text, &len);
	int over;

	if (!line)
		return -1;
	if (s->layout == COMPARE_QUEUES) {
		put_name_cell(line, row->name);
		for (i = 0; i < n; i++)
			for (v = 0; v < COMPARE_QUEUE_VALUES; v++)
				fprintf(line, " %*s", v ? QUEUE_WIDTH : TOTAL_WIDTH,
					value_text(num, sizeof(num),
						   &row->cells[i * COMPARE_QUEUE_VALUES + v]));
		return put_trimmed(f, line, &text, &len);
	}
	snprintf(name, sizeof(name), "%s%s", row->name, row->suffix);
	/* A name longer than its column (synack_retrans_in) takes room from
	 * the first total, which is right-aligned: the columns stay in line. */
	over = strlen(name) > NAME_WIDTH ? (int)(strlen(name) - NAME_WIDTH) : 0;
	fprintf(line, "%-*s", NAME_WIDTH, name);
	for (i = 0; i < n; i++) {
		const struct compare_cell *c = &row->cells[i], *c0 = &row->cells[0];
		int width = i ? TOTAL_WIDTH : TOTAL_WIDTH - over;

		fprintf(line, " %*s %*s", width, value_text(num, sizeof(num), c), RATE_WIDTH,
			c->present && row->with_rate
				? compare_rate_text(rate, sizeof(rate), c->v, runs[i].duration_s)
				: "");
		if (i)
			fprintf(line, " %*s", RATIO_WIDTH,
				c->present && c0->present
					? compare_ratio_text(ratio, sizeof(ratio), c0->v, c->v)
					: "");
	}
	return put_trimmed(f, line, &text, &len);
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

int compare_write_text(FILE *f, const struct compare_run *runs, size_t n)
{
	struct compare_report rep;
	size_t i, k, r;
	int ret = -1;

	if (!n || compare_report_build(&rep, runs, n))
		return -1;
	for (i = 0; i < n; i++)
		write_run_line(f, &runs[i], i);
	for (k = 0; k < rep.n_sections; k++) {
		const struct compare_section *s = &rep.sections[k];

		if (!s->continued)
			fputc('\n', f);
		if (write_table_header(f, s, n))
			goto out;
		for (r = 0; r < s->n_rows; r++)
			if (write_table_row(f, s, &s->rows[r], runs, n))
				goto out;
		if (s->verdict)
			compare_write_verdict(f, runs, n);
	}
	ret = ferror(f) ? -1 : 0;
out:
	compare_report_free(&rep);
	return ret;
}

/* The CSV. */

/* RFC 4180: quoted only when it must be, quotes doubled. A cell not
 * present has its total, rate and ratio empty, as has the ratio of every
 * run when the first's is not present. comm: the process name of a row
 * per name, NULL for the run's. */
static void write_csv_row(FILE *f, const char *counter, const char *comm, bool with_rate,
			  size_t index, const struct compare_run *run, const struct compare_cell *c,
			  const struct compare_cell *first)
{
	char label[16];

	fprintf(f, "%s,%s,", counter, compare_run_label(label, sizeof(label), index));
	csv_put_field(f, run->file);
	fputc(',', f);
	if (c->present)
		fprintf(f, "%llu", (unsigned long long)c->v);
	fputc(',', f);
	if (c->present && with_rate && run->duration_s > 0)
		fprintf(f, "%.3f", (double)c->v / run->duration_s);
	fputc(',', f);
	if (c->present && first->present && first->v)
		fprintf(f, "%.4f", (double)c->v / (double)first->v);
	else if (c->present && first->present && c->v)
		fputs("inf", f);
	fputc(',', f);
	if (comm)
		csv_put_field(f, comm);
	fputc('\n', f);
}

/* A row per figure and run; a process name's figures are one row per
 * value (listen_drops with its rate, acceptq_peak, acceptq_limit), each
 * with the name in comm. */
int compare_write_csv(FILE *f, const struct compare_run *runs, size_t n)
{
	struct compare_report rep;
	size_t k, r, i, v;

	if (!n || compare_report_build(&rep, runs, n))
		return -1;
	fputs("counter,run,file,total,per_second,ratio_to_first,comm\n", f);
	for (k = 0; k < rep.n_sections; k++) {
		const struct compare_section *s = &rep.sections[k];

		for (r = 0; r < s->n_rows; r++) {
			const struct compare_row *row = &s->rows[r];

			if (s->layout == COMPARE_COUNTS) {
				for (i = 0; i < n; i++)
					write_csv_row(f, row->counter, NULL, row->with_rate, i,
						      &runs[i], &row->cells[i], &row->cells[0]);
				continue;
			}
			for (v = 0; v < COMPARE_QUEUE_VALUES; v++)
				for (i = 0; i < n; i++)
					write_csv_row(f, tt_csv_col_names[compare_queue_cols[v]],
						      row->name, v == 0, i, &runs[i],
						      &row->cells[i * COMPARE_QUEUE_VALUES + v],
						      &row->cells[v]);
		}
	}
	compare_report_free(&rep);
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
