// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Turns a parsed CSV into the per-interval series of tcptrace report: rows
 * grouped by time, summed over every process and over each process name,
 * per destination, and written as JSON for the page. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "common/connect_time.h"
#include "output/json.h"
#include "offline/timeline.h"

const char *const timeline_series_names[TL_SERIES] = {
	[TL_CONN_IN] = "conn_in",
	[TL_CONN_OUT] = "conn_out",
	[TL_FIN_ACTIVE] = "fin_active",
	[TL_FIN_PASSIVE] = "fin_passive",
	[TL_RST_SENT] = "rst_sent",
	[TL_RST_RECV] = "rst_recv",
	[TL_TIMEOUT] = "timeout",
	[TL_EADDRNOTAVAIL] = "eaddrnotavail",
	[TL_EADDRINUSE] = "eaddrinuse",
	[TL_TW_NOW] = "tw_now",
	[TL_OPEN_IN] = "open_in",
	[TL_OPEN_OUT] = "open_out",
	[TL_LISTEN_DROPS] = "listen_drops",
	[TL_ACCEPTQ_PEAK] = "acceptq_peak",
	[TL_ACCEPTQ_LIMIT] = "acceptq_limit",
	[TL_SYN_RETRANS_OUT] = "syn_retrans_out",
	[TL_SYNACK_RETRANS_IN] = "synack_retrans_in",
	[TL_RETRANS_IN] = "retrans_in",
	[TL_RETRANS_OUT] = "retrans_out",
	[TL_RETRANS_RTO] = "retrans_rto",
	[TL_CONNECTS] = "connects",
	[TL_CONNECTS_OVER_1S] = "connects_over_1s",
	[TL_CONNECT_P99_US] = "connect_p99_us",
	[TL_CONNFAIL_ENETUNREACH] = "connfail_enetunreach",
	[TL_CONNFAIL_EHOSTUNREACH] = "connfail_ehostunreach",
	[TL_CONNFAIL_EACCES] = "connfail_eacces",
	[TL_CONNFAIL_EINVAL] = "connfail_einval",
	[TL_CONNFAIL_EPERM] = "connfail_eperm",
	[TL_CONNFAIL_OTHER] = "connfail_other",
};

/* The CSV columns each series adds up: both sides of a close class. The
 * accept queue's two are kept by keep_deepest() instead. */
static const enum tt_csv_col series_cols[TL_SERIES][2] = {
	[TL_CONN_IN] = { TT_CSV_CONN_IN, TT_CSV_COLS },
	[TL_CONN_OUT] = { TT_CSV_CONN_OUT, TT_CSV_COLS },
	[TL_FIN_ACTIVE] = { TT_CSV_FIN_ACTIVE_IN, TT_CSV_FIN_ACTIVE_OUT },
	[TL_FIN_PASSIVE] = { TT_CSV_FIN_PASSIVE_IN, TT_CSV_FIN_PASSIVE_OUT },
	[TL_RST_SENT] = { TT_CSV_RST_SENT_IN, TT_CSV_RST_SENT_OUT },
	[TL_RST_RECV] = { TT_CSV_RST_RECV_IN, TT_CSV_RST_RECV_OUT },
	[TL_TIMEOUT] = { TT_CSV_TIMEOUT_IN, TT_CSV_TIMEOUT_OUT },
	[TL_EADDRNOTAVAIL] = { TT_CSV_EADDRNOTAVAIL, TT_CSV_COLS },
	[TL_EADDRINUSE] = { TT_CSV_EADDRINUSE, TT_CSV_COLS },
	[TL_TW_NOW] = { TT_CSV_TW_NOW, TT_CSV_COLS },
	[TL_OPEN_IN] = { TT_CSV_OPEN_IN, TT_CSV_COLS },
	[TL_OPEN_OUT] = { TT_CSV_OPEN_OUT, TT_CSV_COLS },
	[TL_LISTEN_DROPS] = { TT_CSV_LISTEN_DROPS, TT_CSV_COLS },
	[TL_ACCEPTQ_PEAK] = { TT_CSV_ACCEPTQ_PEAK, TT_CSV_COLS },
	[TL_ACCEPTQ_LIMIT] = { TT_CSV_ACCEPTQ_LIMIT, TT_CSV_COLS },
	[TL_SYN_RETRANS_OUT] = { TT_CSV_SYN_RETRANS_OUT, TT_CSV_COLS },
	[TL_SYNACK_RETRANS_IN] = { TT_CSV_SYNACK_RETRANS_IN, TT_CSV_COLS },
	[TL_RETRANS_IN] = { TT_CSV_RETRANS_IN, TT_CSV_COLS },
	[TL_RETRANS_OUT] = { TT_CSV_RETRANS_OUT, TT_CSV_COLS },
	[TL_RETRANS_RTO] = { TT_CSV_RETRANS_RTO_IN, TT_CSV_RETRANS_RTO_OUT },
	/* From the connect_* buckets, in add_connects(). */
	[TL_CONNECTS] = { TT_CSV_CONNECT_0, TT_CSV_COLS },
	[TL_CONNECTS_OVER_1S] = { TT_CSV_CONNECT_0, TT_CSV_COLS },
	[TL_CONNECT_P99_US] = { TT_CSV_CONNECT_0, TT_CSV_COLS },
	[TL_CONNFAIL_ENETUNREACH] = { TT_CSV_CONNFAIL_ENETUNREACH, TT_CSV_COLS },
	[TL_CONNFAIL_EHOSTUNREACH] = { TT_CSV_CONNFAIL_EHOSTUNREACH, TT_CSV_COLS },
	[TL_CONNFAIL_EACCES] = { TT_CSV_CONNFAIL_EACCES, TT_CSV_COLS },
	[TL_CONNFAIL_EINVAL] = { TT_CSV_CONNFAIL_EINVAL, TT_CSV_COLS },
	[TL_CONNFAIL_EPERM] = { TT_CSV_CONNFAIL_EPERM, TT_CSV_COLS },
	[TL_CONNFAIL_OTHER] = { TT_CSV_CONNFAIL_OTHER, TT_CSV_COLS },
};

static bool from_buckets(size_t s)
{
	return s == TL_CONNECTS || s == TL_CONNECTS_OVER_1S || s == TL_CONNECT_P99_US;
}

bool timeline_has(const struct tt_csv_file *csv, enum timeline_series s)
{
	size_t k;

	for (k = 0; k < 2 && series_cols[s][k] != TT_CSV_COLS; k++) {
		if (csv->has[series_cols[s][k]])
			return true;
	}
	return false;
}

static void add_saturating(uint64_t *sum, uint64_t v)
{
	*sum = *sum > UINT64_MAX - v ? UINT64_MAX : *sum + v;
}

static int row_cmp_time(const void *a, const void *b)
{
	const struct tt_csv_row *ra = *(const struct tt_csv_row *const *)a;
	const struct tt_csv_row *rb = *(const struct tt_csv_row *const *)b;

	if (ra->elapsed_s != rb->elapsed_s)
		return ra->elapsed_s < rb->elapsed_s ? -1 : 1;
	return strcmp(ra->time, rb->time);
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The distinct strings of names[0..n), sorted, in place; returns how many. */
static size_t sort_unique(const char **names, size_t n)
{
	size_t i, out = 0;

	qsort(names, n, sizeof(*names), name_cmp);
	for (i = 0; i < n; i++) {
		if (!out || strcmp(names[out - 1], names[i]) != 0)
			names[out++] = names[i];
	}
	return out;
}

static size_t index_of(const char *const *names, size_t n, const char *name)
{
	const char *const *at = bsearch(&name, names, n, sizeof(*names), name_cmp);

	return (size_t)(at - names);
}

/* The distinct strings of a file, each list sorted. */
struct file_names {
	const char **reasons, **comms, **dests;
	size_t n_reasons, n_comms, n_dests;
};

static int collect_names(const struct tt_csv_file *csv, struct file_names *fn)
{
	size_t i, k, nr = 0, nd = 0, rows = csv->n ? csv->n : 1;

	for (i = 0; i < csv->n; i++)
		nr += csv->rows[i].n_reasons;
	fn->reasons = malloc((nr ? nr : 1) * sizeof(*fn->reasons));
	fn->comms = malloc(rows * sizeof(*fn->comms));
	fn->dests = malloc(rows * sizeof(*fn->dests));
	if (!fn->reasons || !fn->comms || !fn->dests)
		return -1;
	nr = 0;
	for (i = 0; i < csv->n; i++) {
		for (k = 0; k < csv->rows[i].n_reasons; k++)
			fn->reasons[nr++] = csv->rows[i].reasons[k].name;
		fn->comms[i] = csv->rows[i].comm;
		if (csv->rows[i].dest)
			fn->dests[nd++] = csv->rows[i].dest;
	}
	fn->n_reasons = sort_unique(fn->reasons, nr);
	fn->n_comms = sort_unique(fn->comms, csv->n);
	fn->n_dests = sort_unique(fn->dests, nd);
	return 0;
}

static int alloc_group(struct timeline_group *g, const char *name, size_t n, size_t n_reasons)
{
	size_t s, r;

	g->name = name;
	for (s = 0; s < TL_SERIES; s++)
		if (!(g->series[s] = calloc(n, sizeof(*g->series[s]))))
			return -1;
	if (!(g->connect_le = calloc(n, sizeof(*g->connect_le))))
		return -1;
	if (!(g->reasons = calloc(n_reasons ? n_reasons : 1, sizeof(*g->reasons))))
		return -1;
	for (r = 0; r < n_reasons; r++)
		if (!(g->reasons[r] = calloc(n, sizeof(*g->reasons[r]))))
			return -1;
	return 0;
}

static void free_group(struct timeline_group *g, size_t n_reasons)
{
	size_t s, r;

	for (s = 0; s < TL_SERIES; s++)
		free(g->series[s]);
	free(g->connect_le);
	for (r = 0; g->reasons && r < n_reasons; r++)
		free(g->reasons[r]);
	free(g->reasons);
}

static int alloc_series(struct timeline *tl, const struct file_names *fn)
{
	size_t n = tl->n ? tl->n : 1, i;

	tl->elapsed_s = calloc(n, sizeof(*tl->elapsed_s));
	tl->names = calloc(fn->n_comms ? fn->n_comms : 1, sizeof(*tl->names));
	tl->dests = calloc(fn->n_dests ? fn->n_dests : 1, sizeof(*tl->dests));
	if (!tl->elapsed_s || !tl->names || !tl->dests)
		return -1;
	tl->n_names = fn->n_comms;
	tl->n_dests = fn->n_dests;
	if (alloc_group(&tl->all, NULL, n, tl->n_reasons))
		return -1;
	for (i = 0; i < tl->n_names; i++)
		if (alloc_group(&tl->names[i], fn->comms[i], n, tl->n_reasons))
			return -1;
	for (i = 0; i < tl->n_dests; i++) {
		struct timeline_dest *d = &tl->dests[i];

		d->dest = fn->dests[i];
		d->seen = calloc(n, sizeof(*d->seen));
		d->ports_free = calloc(n, sizeof(*d->ports_free));
		d->runout_s = calloc(n, sizeof(*d->runout_s));
		if (!d->seen || !d->ports_free || !d->runout_s)
			return -1;
		d->fewest_free = UINT64_MAX;
	}
	return 0;
}

/* Adds one destination row to interval t of its destination. */
static void add_dest_row(struct timeline_dest *d, size_t t, const struct tt_csv_row *row)
{
	size_t k;

	for (k = 0; k < TT_CSV_COLS; k++) {
		if (k != TT_CSV_TW_NOW)
			add_saturating(&d->total[k], row->v[k]);
	}
	if (!d->seen[t] || row->ports_free < d->ports_free[t])
		d->ports_free[t] = row->ports_free;
	if (row->runout_s > 0 && (d->runout_s[t] == 0 || row->runout_s < d->runout_s[t]))
		d->runout_s[t] = row->runout_s;
	d->seen[t] = true;
	if (row->ports_free < d->fewest_free)
		d->fewest_free = row->ports_free;
	if (row->runout_s > 0 && (d->shortest_runout_s == 0 || row->runout_s < d->shortest_runout_s))
		d->shortest_runout_s = row->runout_s;
}

/* The queues of separate listeners do not add up: a group's is its
 * deepest, with that listener's limit. */
static void keep_deepest(struct timeline_group *g, size_t t, const struct tt_csv_row *row)
{
	uint64_t peak = row->v[TT_CSV_ACCEPTQ_PEAK], limit = row->v[TT_CSV_ACCEPTQ_LIMIT];
	uint64_t *deepest = &g->series[TL_ACCEPTQ_PEAK][t];
	uint64_t *its_limit = &g->series[TL_ACCEPTQ_LIMIT][t];

	if (peak > *deepest || (peak == *deepest && limit > *its_limit)) {
		*deepest = peak;
		*its_limit = limit;
	}
}

static void add_group_row(const struct timeline *tl, struct timeline_group *g, size_t t,
			  const struct tt_csv_row *row)
{
	size_t s, k;

	for (s = 0; s < TL_SERIES; s++) {
		if (s == TL_ACCEPTQ_PEAK || s == TL_ACCEPTQ_LIMIT || from_buckets(s))
			continue;
		for (k = 0; k < 2 && series_cols[s][k] != TT_CSV_COLS; k++)
			add_saturating(&g->series[s][t], row->v[series_cols[s][k]]);
	}
	keep_deepest(g, t, row);
	for (k = 0; k < TT_CONNECT_BUCKETS; k++) {
		__u64 *bucket = &g->connect_le[t][k], v = row->v[TT_CSV_CONNECT_0 + k];

		*bucket = *bucket > UINT64_MAX - v ? UINT64_MAX : *bucket + v;
	}
	for (k = 0; k < row->n_reasons; k++) {
		size_t r = index_of(tl->reason_names, tl->n_reasons, row->reasons[k].name);

		add_saturating(&g->reasons[r][t], row->reasons[k].count);
	}
}

static void add_row(struct timeline *tl, size_t t, const struct tt_csv_row *row,
		    const struct file_names *fn)
{
	add_group_row(tl, &tl->all, t, row);
	add_group_row(tl, &tl->names[index_of(fn->comms, fn->n_comms, row->comm)], t, row);
	if (row->dest)
		add_dest_row(&tl->dests[index_of(fn->dests, fn->n_dests, row->dest)], t, row);
}

/* The connects series of a group, from its buckets of each interval. */
static void add_connects(const struct timeline *tl, struct timeline_group *g)
{
	for (size_t t = 0; t < tl->n; t++) {
		int p99 = tt_connect_quantile(g->connect_le[t], 0.99);

		g->series[TL_CONNECTS][t] = tt_connect_count(g->connect_le[t]);
		g->series[TL_CONNECTS_OVER_1S][t] = tt_connect_slow(g->connect_le[t]);
		/* Above the last bound: shown as the last bound's, "at least". */
		g->series[TL_CONNECT_P99_US][t] =
			p99 < 0 ? 0 : tt_connect_bound_us(p99 < TT_CONNECT_OVER ? (size_t)p99 : TT_CONNECT_OVER - 1);
	}
}

static int fill(struct timeline *tl, const struct tt_csv_file *csv, const struct tt_csv_row **by)
{
	struct file_names fn = { 0 };
	size_t i, t = 0;
	int ret = -1;

	if (collect_names(csv, &fn))
		goto out;
	/* The timeline keeps the reasons' names; the groups and destinations
	 * point into the file. */
	tl->reason_names = fn.reasons;
	tl->n_reasons = fn.n_reasons;
	fn.reasons = NULL;
	for (i = 0; i < csv->n; i++)
		tl->n += !i || strcmp(by[i]->time, by[i - 1]->time) != 0;
	if (alloc_series(tl, &fn))
		goto out;
	for (i = 0; i < csv->n; i++) {
		if (i && strcmp(by[i]->time, by[i - 1]->time) != 0)
			t++;
		tl->elapsed_s[t] = by[i]->elapsed_s;
		add_row(tl, t, by[i], &fn);
	}
	for (i = 0; i < tl->n_dests; i++) {
		if (tl->dests[i].fewest_free == UINT64_MAX)
			tl->dests[i].fewest_free = 0;
	}
	add_connects(tl, &tl->all);
	for (i = 0; i < tl->n_names; i++)
		add_connects(tl, &tl->names[i]);
	ret = 0;
out:
	free(fn.reasons);
	free(fn.comms);
	free(fn.dests);
	return ret;
}

int timeline_build(struct timeline *tl, const struct tt_csv_file *csv)
{
	const struct tt_csv_row **by;
	size_t i;
	int ret;

	memset(tl, 0, sizeof(*tl));
	tl->kind = csv->kind;
	for (i = 0; i < TL_SERIES; i++)
		tl->has[i] = timeline_has(csv, i);
	/* Sorted pointers, never the file's own rows. */
	by = malloc((csv->n ? csv->n : 1) * sizeof(*by));
	if (!by) {
		errno = ENOMEM;
		return -1;
	}
	for (i = 0; i < csv->n; i++)
		by[i] = &csv->rows[i];
	qsort(by, csv->n, sizeof(*by), row_cmp_time);
	ret = fill(tl, csv, by);
	free(by);
	if (ret)
		errno = ENOMEM;
	return ret;
}

void timeline_free(struct timeline *tl)
{
	size_t i;

	free(tl->elapsed_s);
	free_group(&tl->all, tl->n_reasons);
	for (i = 0; tl->names && i < tl->n_names; i++)
		free_group(&tl->names[i], tl->n_reasons);
	for (i = 0; tl->dests && i < tl->n_dests; i++) {
		free(tl->dests[i].seen);
		free(tl->dests[i].ports_free);
		free(tl->dests[i].runout_s);
	}
	free(tl->reason_names);
	free(tl->names);
	free(tl->dests);
	memset(tl, 0, sizeof(*tl));
}

static void put_counts(FILE *f, const uint64_t *v, size_t n)
{
	size_t i;

	fputc('[', f);
	for (i = 0; i < n; i++)
		fprintf(f, "%s%llu", i ? "," : "", (unsigned long long)v[i]);
	fputc(']', f);
}

static void put_dest(FILE *f, const struct timeline_dest *d, size_t n)
{
	size_t i;

	fputs("{\"dest\":", f);
	json_put_string_for_html(f, d->dest, strlen(d->dest));
	fputs(",\"ports_free\":[", f);
	for (i = 0; i < n; i++) {
		if (d->seen[i])
			fprintf(f, "%s%llu", i ? "," : "", (unsigned long long)d->ports_free[i]);
		else
			fputs(i ? ",null" : "null", f);
	}
	fputs("],\"runout_s\":[", f);
	for (i = 0; i < n; i++) {
		if (d->runout_s[i] > 0)
			fprintf(f, "%s%.1f", i ? "," : "", d->runout_s[i]);
		else
			fputs(i ? ",null" : "null", f);
	}
	fputs("]}", f);
}

static bool all_zero(const uint64_t *v, size_t n)
{
	size_t i;

	for (i = 0; i < n && !v[i]; i++)
		;
	return i == n;
}

/* "series":{...},"rst_sent_reasons":{...} of one group. */
static void put_group(FILE *f, const struct timeline *tl, const struct timeline_group *g)
{
	const char *sep = "";
	size_t s, r;

	fputs("\"series\":{", f);
	for (s = 0; s < TL_SERIES; s++) {
		if (!tl->has[s])
			continue;
		fprintf(f, "%s\"%s\":", sep, timeline_series_names[s]);
		put_counts(f, g->series[s], tl->n);
		sep = ",";
	}
	fputs("},\"rst_sent_reasons\":{", f);
	sep = "";
	for (r = 0; r < tl->n_reasons; r++) {
		if (all_zero(g->reasons[r], tl->n))
			continue;
		fputs(sep, f);
		json_put_string_for_html(f, tl->reason_names[r], strlen(tl->reason_names[r]));
		fputc(':', f);
		put_counts(f, g->reasons[r], tl->n);
		sep = ",";
	}
	fputc('}', f);
}

int timeline_write_json(FILE *f, const struct timeline *tl)
{
	size_t i;

	fprintf(f, "{\"kind\":\"%s\",\"elapsed_s\":[",
		tl->kind == TT_CSV_PER_DEST ? "dest" : "process");
	for (i = 0; i < tl->n; i++)
		fprintf(f, "%s%.3f", i ? "," : "", tl->elapsed_s[i]);
	fputs("],", f);
	put_group(f, tl, &tl->all);
	fputs(",\"names\":[", f);
	for (i = 0; i < tl->n_names; i++) {
		fputs(i ? ",{\"name\":" : "{\"name\":", f);
		json_put_string_for_html(f, tl->names[i].name, strlen(tl->names[i].name));
		fputc(',', f);
		put_group(f, tl, &tl->names[i]);
		fputc('}', f);
	}
	fputs("],\"dests\":[", f);
	for (i = 0; i < tl->n_dests; i++) {
		if (i)
			fputc(',', f);
		put_dest(f, &tl->dests[i], tl->n);
	}
	fputs("]}", f);
	return ferror(f) ? -1 : 0;
}
