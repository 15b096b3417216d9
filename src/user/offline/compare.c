// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* tcptrace compare: sums each CSV run (totals, rates, the peaks of tw_now
 * and of open connections per interval, the listen queues per process
 * name, its processes) and builds the report's sections from the runs once
 * (compare_report_build(), which offline/compare_write prints and the
 * report page lays out), TIME_WAIT first. */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "common/connect_time.h"
#include "offline/compare.h"
#include "output/csv.h"

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
/* Data segments sent again, when a run sent any. */
static const enum tt_csv_col retrans_cols[] = {
	TT_CSV_RETRANS_IN,    TT_CSV_RETRANS_OUT,  TT_CSV_RETRANS_RTO_IN,
	TT_CSV_RETRANS_RTO_OUT, TT_CSV_SEGS_SENT_IN, TT_CSV_SEGS_SENT_OUT,
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

static int add_retrans(struct compare_report *rep, const struct compare_run *runs, size_t n)
{
	struct compare_section *s;
	bool any = false;

	for (size_t i = 0; i < n; i++)
		any |= runs[i].total[TT_CSV_RETRANS_IN] || runs[i].total[TT_CSV_RETRANS_OUT];
	if (!any)
		return 0;
	s = add_section(rep, "retrans", "segments sent again", COMPARE_COUNTS, N_OF(retrans_cols));
	if (!s)
		return -1;
	count_rows(s, 0, retrans_cols, N_OF(retrans_cols), runs, n);
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
	    add_waits(rep, &handshake_section, runs, n) || add_retrans(rep, runs, n))
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
