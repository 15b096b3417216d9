// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The interval maths over per-process counts: sorting snapshots, turning two
 * cumulative snapshots into per-interval rows, and summing rows for totals. */
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include "common/stats.h"

/* The counters are handled as an array of words, so a field added to
 * struct tt_proc_counters is diffed and summed without touching this file. */
_Static_assert(sizeof(struct tt_proc_counters) % sizeof(__u64) == 0,
	       "struct tt_proc_counters must hold only __u64 fields");
_Static_assert(sizeof(struct tt_proc_times) % sizeof(__u64) == 0,
	       "struct tt_proc_times must hold only __u64 fields");
/* The larger of the structs words_sub takes. */
#define COUNTER_WORDS                                                                  \
	((sizeof(struct tt_proc_counters) > sizeof(struct tt_proc_times) ?                  \
		  sizeof(struct tt_proc_counters) :                                         \
		  sizeof(struct tt_proc_times)) /                                           \
	 sizeof(__u64))

size_t reason_slot(uint32_t reason)
{
	return reason < TT_REASON_OTHER ? reason : TT_REASON_OTHER;
}

static int row_cmp(const void *a, const void *b)
{
	const struct tt_row *ra = a, *rb = b;

	if (ra->pid != rb->pid)
		return (ra->pid > rb->pid) - (ra->pid < rb->pid);
	return (ra->id > rb->id) - (ra->id < rb->id);
}

void rows_sort(struct tt_row *rows, size_t n)
{
	if (n > 1)
		qsort(rows, n, sizeof(*rows), row_cmp);
}

/* A cumulative counter does not go down while its row is the same
 * process's; a reader of files from older versions may pair two
 * processes that had the same pid, the later counting from zero. */
static uint64_t counter_delta(uint64_t cur, uint64_t prev)
{
	return cur >= prev ? cur - prev : cur;
}

/* cur - prev, word by word, over a struct of size bytes of __u64. */
static void words_sub(void *out, const void *cur, const void *prev, size_t size)
{
	__u64 c[COUNTER_WORDS], p[COUNTER_WORDS];
	size_t i, n = size / sizeof(__u64);

	memcpy(c, cur, size);
	memcpy(p, prev, size);
	for (i = 0; i < n; i++)
		c[i] = counter_delta(c[i], p[i]);
	memcpy(out, c, size);
}

static void row_diff(struct tt_row *out, const struct tt_row *cur, const struct tt_row *prev)
{
	size_t side, i;

	out->pid = cur->pid;
	out->id = cur->id;
	memcpy(out->comm, cur->comm, sizeof(out->comm));
	memcpy(out->cgroup, cur->cgroup, sizeof(out->cgroup));
	out->selected = cur->selected;
	out->tw_now = cur->tw_now;
	memcpy(out->open, cur->open, sizeof(out->open));
	out->acceptq_peak = cur->acceptq_peak;
	out->acceptq_limit = cur->acceptq_limit;
	out->acceptq_peak_run = cur->acceptq_peak_run;
	out->acceptq_limit_run = cur->acceptq_limit_run;
	if (!prev) {
		out->c = cur->c;
		out->t = cur->t;
		out->listen_drops = cur->listen_drops;
		memcpy(out->reasons, cur->reasons, sizeof(out->reasons));
		return;
	}
	words_sub(&out->c, &cur->c, &prev->c, sizeof(out->c));
	words_sub(&out->t, &cur->t, &prev->t, sizeof(out->t));
	out->listen_drops = counter_delta(cur->listen_drops, prev->listen_drops);
	for (side = 0; side < TT_SIDES; side++)
		for (i = 0; i < TT_REASON_SLOTS; i++)
			out->reasons[side][i] = counter_delta(cur->reasons[side][i],
							      prev->reasons[side][i]);
}

/* Both snapshots are sorted by pid and id, so one merge walk pairs the rows. */
size_t snapshot_diff(const struct tt_snapshot *prev, const struct tt_snapshot *cur,
		     struct tt_row *out, size_t max)
{
	size_t n_prev = prev ? prev->n : 0;
	size_t i, j = 0, n_out = 0;

	for (i = 0; i < cur->n && n_out < max; i++) {
		const struct tt_row *row = &cur->rows[i];
		const struct tt_row *match = NULL;

		while (j < n_prev && row_cmp(&prev->rows[j], row) < 0)
			j++;
		if (j < n_prev && row_cmp(&prev->rows[j], row) == 0)
			match = &prev->rows[j];
		row_diff(&out[n_out++], row, match);
	}
	return n_out;
}

bool row_is_zero(const struct tt_row *row)
{
	static const struct tt_proc_counters zero_counters;
	static const struct tt_proc_times zero_times;
	uint64_t reasons[TT_REASON_SLOTS];
	size_t i;

	if (row->tw_now || row->open[TT_SIDE_IN] || row->open[TT_SIDE_OUT] || row->listen_drops ||
	    row->acceptq_peak || memcmp(&row->c, &zero_counters, sizeof(zero_counters)) != 0 ||
	    memcmp(&row->t, &zero_times, sizeof(zero_times)) != 0)
		return false;
	row_reasons_total(row, reasons);
	for (i = 0; i < TT_REASON_SLOTS; i++) {
		if (reasons[i])
			return false;
	}
	return true;
}

void row_reasons_total(const struct tt_row *row, uint64_t out[TT_REASON_SLOTS])
{
	for (size_t i = 0; i < TT_REASON_SLOTS; i++)
		out[i] = row->reasons[TT_SIDE_IN][i] + row->reasons[TT_SIDE_OUT][i];
}

bool snapshot_counts_equal(const struct tt_snapshot *a, const struct tt_snapshot *b)
{
	size_t i;

	if (a->n != b->n)
		return false;
	for (i = 0; i < a->n; i++) {
		const struct tt_row *ra = &a->rows[i], *rb = &b->rows[i];

		if (row_cmp(ra, rb) || memcmp(&ra->c, &rb->c, sizeof(ra->c)) != 0 ||
		    memcmp(&ra->t, &rb->t, sizeof(ra->t)) != 0 ||
		    ra->listen_drops != rb->listen_drops ||
		    memcmp(ra->reasons, rb->reasons, sizeof(ra->reasons)) != 0)
			return false;
	}
	return true;
}

_Static_assert(sizeof(struct tt_dest_counters) % sizeof(__u64) == 0,
	       "struct tt_dest_counters must hold only __u64 fields");
#define DEST_WORDS (sizeof(struct tt_dest_counters) / sizeof(__u64))

static int dest_cmp(const void *a, const void *b)
{
	const struct tt_dest_row *x = a, *y = b;

	if (x->pid != y->pid)
		return (x->pid > y->pid) - (x->pid < y->pid);
	if (x->id != y->id)
		return (x->id > y->id) - (x->id < y->id);
	if (x->netns != y->netns)
		return (x->netns > y->netns) - (x->netns < y->netns);
	if (x->family != y->family)
		return (x->family > y->family) - (x->family < y->family);
	if (x->port != y->port)
		return (x->port > y->port) - (x->port < y->port);
	return memcmp(x->addr, y->addr, sizeof(x->addr));
}

void dests_sort(struct tt_dest_row *rows, size_t n)
{
	if (n > 1)
		qsort(rows, n, sizeof(*rows), dest_cmp);
}

struct tt_dest_row *dests_find(struct tt_dest_row *rows, size_t n, const struct tt_dest_row *key)
{
	return n ? bsearch(key, rows, n, sizeof(*rows), dest_cmp) : NULL;
}

static void dest_row_diff(struct tt_dest_row *out, const struct tt_dest_row *cur,
			  const struct tt_dest_row *prev, double dt_s)
{
	__u64 c[DEST_WORDS], p[DEST_WORDS];

	*out = *cur;
	out->runout_s = 0;
	if (!prev)
		return;
	memcpy(c, &cur->c, sizeof(c));
	memcpy(p, &prev->c, sizeof(p));
	for (size_t i = 0; i < DEST_WORDS; i++)
		c[i] = counter_delta(c[i], p[i]);
	memcpy(&out->c, c, sizeof(c));
	if (cur->ports_held > prev->ports_held && dt_s > 0)
		out->runout_s = (double)cur->ports_free /
				((double)(cur->ports_held - prev->ports_held) / dt_s);
}

size_t dests_diff(const struct tt_snapshot *prev, const struct tt_snapshot *cur,
		  struct tt_dest_row *out, size_t max)
{
	size_t n_prev = prev ? prev->n_dests : 0;
	double dt_s = prev ? (double)(cur->mono_ns - prev->mono_ns) / 1e9 : 0;
	size_t j = 0, n_out = 0;

	for (size_t i = 0; i < cur->n_dests && n_out < max; i++) {
		const struct tt_dest_row *row = &cur->dests[i];
		const struct tt_dest_row *match = NULL;

		while (j < n_prev && dest_cmp(&prev->dests[j], row) < 0)
			j++;
		if (j < n_prev && dest_cmp(&prev->dests[j], row) == 0)
			match = &prev->dests[j];
		dest_row_diff(&out[n_out++], row, match, dt_s);
	}
	return n_out;
}

bool dest_row_is_zero(const struct tt_dest_row *row)
{
	static const struct tt_dest_counters zero;

	return !row->tw_now && memcmp(&row->c, &zero, sizeof(zero)) == 0;
}

size_t listeners_diff(const struct tt_snapshot *prev, const struct tt_snapshot *cur,
		      struct tt_listener_row *out, size_t max)
{
	size_t n_out = 0;

	for (size_t i = 0; i < cur->n_listeners && n_out < max; i++) {
		const struct tt_listener_row *l = &cur->listeners[i];
		uint64_t before = 0;

		for (size_t j = 0; prev && j < prev->n_listeners; j++)
			if (prev->listeners[j].cookie == l->cookie && prev->listeners[j].id == l->id)
				before = prev->listeners[j].drops;
		out[n_out] = *l;
		out[n_out++].drops = counter_delta(l->drops, before);
	}
	return n_out;
}

const char *reason_label(const struct tt_reason_names *names, size_t slot,
			 char buf[TT_REASON_LABEL_LEN])
{
	if (names && slot < TT_REASON_SLOTS && names->name[slot])
		return names->name[slot];
	snprintf(buf, TT_REASON_LABEL_LEN, "reason_%zu", slot);
	return buf;
}
