// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Sums each interval's per-process rows into counters per process name,
 * per listener and per destination; metrics_text.c writes them out. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "common/columns.h"
#include "common/connect_time.h"
#include "output/metrics.h"
#include "common/utf8.h"

_Static_assert(sizeof(struct tt_proc_counters) % sizeof(__u64) == 0,
	       "struct tt_proc_counters must hold only __u64 fields");
#define COUNTER_WORDS (sizeof(struct tt_proc_counters) / sizeof(__u64))


_Static_assert(sizeof(struct tt_dest_counters) % sizeof(__u64) == 0,
	       "struct tt_dest_counters must hold only __u64 fields");
#define DEST_WORDS (sizeof(struct tt_dest_counters) / sizeof(__u64))
_Static_assert(METRICS_COMM_SIZE > TT_COMM_LEN, "a comm label holds any process name");
_Static_assert(sizeof(METRICS_OTHER_DEST) <= TT_DEST_LEN, "a dest label holds the other one");
_Static_assert(sizeof(METRICS_OTHER_LISTENER) <= TT_DEST_LEN,
	       "a listener label holds the other one");

void metrics_init(struct tt_metrics *m, size_t limit)
{
	memset(m, 0, sizeof(*m));
	m->limit = limit ? limit : 1;
	memcpy(m->other.comm, METRICS_OTHER_COMM, sizeof(METRICS_OTHER_COMM));
	memcpy(m->other_dest.comm, METRICS_OTHER_COMM, sizeof(METRICS_OTHER_COMM));
	memcpy(m->other_dest.dest, METRICS_OTHER_DEST, sizeof(METRICS_OTHER_DEST));
	memcpy(m->other_listener.comm, METRICS_OTHER_COMM, sizeof(METRICS_OTHER_COMM));
	memcpy(m->other_listener.listener, METRICS_OTHER_LISTENER, sizeof(METRICS_OTHER_LISTENER));
}

void metrics_free(struct tt_metrics *m)
{
	free(m->comms);
	free(m->dests);
	free(m->listeners);
	m->comms = NULL;
	m->dests = NULL;
	m->listeners = NULL;
	m->n = m->allocated = m->n_dests = m->dests_allocated = 0;
	m->n_listeners = m->listeners_allocated = 0;
}

/* The table of n elements with room for one more (of at most limit),
 * grown by doubling; NULL past the limit or out of memory, when the table
 * stays as it was. */
static void *with_room(void *table, size_t *allocated, size_t n, size_t limit, size_t size)
{
	size_t want = *allocated ? 2 * *allocated : 16;
	void *grown;

	if (n >= limit)
		return NULL;
	if (n < *allocated)
		return table;
	if (want > limit)
		want = limit;
	grown = realloc(table, want * size);
	if (grown)
		*allocated = want;
	return grown;
}

/* As in stats.c: a counter only goes down when it starts again from zero. */
static uint64_t delta(uint64_t cur, uint64_t prev)
{
	return cur >= prev ? cur - prev : cur;
}

static int series_cmp(const struct tt_comm_series *s, const char *comm, const char *cgroup)
{
	int cmp = strcmp(s->comm, comm);

	return cmp ? cmp : strcmp(s->cgroup, cgroup);
}

/* The series of comm (in cgroup, with --by cgroup), created in sorted place
 * while the limit allows; NULL past the limit or out of memory. */
static struct tt_comm_series *series_for(struct tt_metrics *m, const char *comm,
					 const char *cgroup)
{
	size_t lo = 0, hi = m->n;
	struct tt_comm_series *s;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int cmp = series_cmp(&m->comms[mid], comm, cgroup);

		if (cmp == 0)
			return &m->comms[mid];
		if (cmp < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	s = with_room(m->comms, &m->allocated, m->n, m->limit, sizeof(*s));
	if (!s)
		return NULL;
	m->comms = s;
	s = &m->comms[lo];
	memmove(s + 1, s, (m->n - lo) * sizeof(*s));
	m->n++;
	memset(s, 0, sizeof(*s));
	memcpy(s->comm, comm, strnlen(comm, TT_COMM_LEN));
	memcpy(s->cgroup, cgroup, strnlen(cgroup, sizeof(s->cgroup) - 1));
	return s;
}

static void series_add(struct tt_comm_series *s, const struct tt_row *row)
{
	struct tt_row *sum = &s->sum;
	__u64 words[COUNTER_WORDS], add[COUNTER_WORDS];

	memcpy(words, &sum->c, sizeof(words));
	memcpy(add, &row->c, sizeof(add));
	for (size_t i = 0; i < COUNTER_WORDS; i++)
		words[i] += add[i];
	memcpy(&sum->c, words, sizeof(words));
	{
		__u64 *t = (__u64 *)&sum->t;
		const __u64 *rt = (const __u64 *)&row->t;

		for (size_t i = 0; i < sizeof(sum->t) / sizeof(__u64); i++)
			t[i] += rt[i];
	}
	for (size_t side = 0; side < TT_SIDES; side++) {
		for (size_t i = 0; i < TT_REASON_SLOTS; i++)
			sum->reasons[side][i] += row->reasons[side][i];
		sum->open[side] += row->open[side];
	}
	sum->listen_drops += row->listen_drops;
	sum->tw_now += row->tw_now;
	if (row->acceptq_peak > sum->acceptq_peak ||
	    (row->acceptq_peak == sum->acceptq_peak && row->acceptq_limit > sum->acceptq_limit)) {
		sum->acceptq_peak = row->acceptq_peak;
		sum->acceptq_limit = row->acceptq_limit;
	}
}

/* The gauges of a name start each interval from its rows alone. */
static void series_clear_gauges(struct tt_comm_series *s)
{
	s->sum.tw_now = 0;
	memset(s->sum.open, 0, sizeof(s->sum.open));
	s->sum.acceptq_peak = s->sum.acceptq_limit = 0;
}

static void add_unowned_rsts(struct tt_metrics *m, const struct tt_snapshot *prev,
			     const struct tt_snapshot *cur)
{
	for (size_t i = 0; i < cur->n_other; i++) {
		const struct tt_netns_rsts *ns = &cur->other[i], *before = NULL;

		for (size_t j = 0; prev && j < prev->n_other; j++)
			if (prev->other[j].netns == ns->netns)
				before = &prev->other[j];
		for (size_t slot = 0; slot < TT_REASON_SLOTS; slot++)
			m->unowned_rsts[slot] +=
				delta(ns->reasons[slot], before ? before->reasons[slot] : 0);
	}
}

void metrics_listener_label(char *buf, size_t len, const struct tt_listener_row *l)
{
	struct tt_dest_row where = { .family = l->family, .port = l->port };

	if (!l->family) {
		snprintf(buf, len, "port %u", l->port);
		return;
	}
	memcpy(where.addr, l->addr, sizeof(where.addr));
	format_dest(buf, len, &where);
}

/* The series of a pair of process name and a second key (a listener, a
 * destination), in a table sorted by both: found, or inserted zeroed.
 * Both kinds of series begin with the name, then the key. */
_Static_assert(offsetof(struct tt_listener_series, listener) == METRICS_COMM_SIZE,
	       "a listener series begins with its name, then its listener");
_Static_assert(offsetof(struct tt_dest_series, dest) == METRICS_COMM_SIZE,
	       "a destination series begins with its name, then its destination");

static void *pair_series_for(void **table, size_t *n, size_t *allocated, size_t limit,
			     size_t size, const char *comm, const char *key)
{
	size_t lo = 0, hi = *n;
	char *v = *table, *s;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		char *at = v + mid * size;
		int cmp = strcmp(at, comm);

		if (!cmp)
			cmp = strcmp(at + METRICS_COMM_SIZE, key);
		if (cmp == 0)
			return at;
		if (cmp < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	v = with_room(v, allocated, *n, limit, size);
	if (!v)
		return NULL;
	*table = v;
	s = v + lo * size;
	memmove(s + size, s, (*n - lo) * size);
	(*n)++;
	memset(s, 0, size);
	memcpy(s, comm, strnlen(comm, TT_COMM_LEN));
	memcpy(s + METRICS_COMM_SIZE, key, strnlen(key, TT_DEST_LEN - 1));
	return s;
}

static struct tt_listener_series *listener_series_for(struct tt_metrics *m, const char *comm,
						      const char *listener)
{
	void *table = m->listeners;
	struct tt_listener_series *s = pair_series_for(&table, &m->n_listeners,
						       &m->listeners_allocated, m->limit,
						       sizeof(*s), comm, listener);

	m->listeners = table;
	return s;
}

/* A listener's drops since prev: the same socket of the same owner row,
 * as listeners_diff pairs them. */
static uint64_t listener_drops(const struct tt_snapshot *prev, const struct tt_listener_row *l)
{
	uint64_t before = 0;

	for (size_t j = 0; prev && j < prev->n_listeners; j++)
		if (prev->listeners[j].cookie == l->cookie && prev->listeners[j].id == l->id)
			before = prev->listeners[j].drops;
	return delta(l->drops, before);
}

static void add_listeners(struct tt_metrics *m, const struct tt_snapshot *prev,
			  const struct tt_snapshot *cur)
{
	for (size_t i = 0; i < m->n_listeners; i++)
		m->listeners[i].seen = false;
	for (size_t i = 0; i < cur->n_listeners; i++) {
		const struct tt_listener_row *l = &cur->listeners[i];
		char comm[TT_COMM_LEN + 1] = { 0 }, label[TT_DEST_LEN];
		uint64_t drops = listener_drops(prev, l);
		struct tt_listener_series *s;

		memcpy(comm, l->comm, strnlen(l->comm, TT_COMM_LEN));
		metrics_listener_label(label, sizeof(label), l);
		s = listener_series_for(m, comm, label);
		if (!s) {
			m->other_listener.drops += drops;
			m->other_listener_used = true;
			if (drops || (!l->closed && l->peak))
				m->listener_overflow_rows++;
			continue;
		}
		s->drops += drops;
		if (l->closed)
			continue;
		/* Several sockets at one address: the deepest queue, with
		 * its own limit and namespace. */
		if (!s->seen || l->peak > s->peak || (l->peak == s->peak && l->limit > s->limit)) {
			s->peak = l->peak;
			s->limit = l->limit;
			s->somaxconn = l->somaxconn;
		}
		if (l->peak > s->deepest)
			s->deepest = l->peak;
		s->seen = true;
	}
}

void metrics_add_interval(struct tt_metrics *m, const struct tt_row *rows, size_t n,
			  const struct tt_snapshot *prev, const struct tt_snapshot *cur)
{
	for (size_t i = 0; i < m->n; i++)
		series_clear_gauges(&m->comms[i]);
	series_clear_gauges(&m->other);
	for (size_t i = 0; i < n; i++) {
		char comm[TT_COMM_LEN + 1] = { 0 }, cgroup[TT_CGROUP_LABEL_LEN] = { 0 };
		struct tt_comm_series *s;

		memcpy(comm, rows[i].comm, strnlen(rows[i].comm, TT_COMM_LEN));
		if (m->by_cgroup)
			memcpy(cgroup, rows[i].cgroup, strnlen(rows[i].cgroup, sizeof(cgroup) - 1));
		s = series_for(m, comm, cgroup);
		if (!s) {
			s = &m->other;
			if (m->by_cgroup)
				memcpy(s->cgroup, METRICS_OTHER_CGROUP, sizeof(METRICS_OTHER_CGROUP));
			m->other_used = true;
			if (!row_is_zero(&rows[i]))
				m->overflow_rows++;
		}
		series_add(s, &rows[i]);
	}
	for (size_t i = 0; cur && i < TT_DROPS; i++)
		m->drops[i] += delta(cur->drops[i], prev ? prev->drops[i] : 0);
	if (cur)
		m->lost += delta(cur->lost, prev ? prev->lost : 0);
	if (cur)
		add_unowned_rsts(m, prev, cur);
	if (cur)
		add_listeners(m, prev, cur);
}

static struct tt_dest_series *dest_series_for(struct tt_metrics *m, const char *comm,
					      const char *dest)
{
	void *table = m->dests;
	struct tt_dest_series *s = pair_series_for(&table, &m->n_dests, &m->dests_allocated,
						   m->limit, sizeof(*s), comm, dest);

	m->dests = table;
	return s;
}

static void dest_series_add(struct tt_dest_series *s, const struct tt_dest_row *row)
{
	__u64 sum[DEST_WORDS], add[DEST_WORDS];

	memcpy(sum, &s->c, sizeof(sum));
	memcpy(add, &row->c, sizeof(add));
	for (size_t i = 0; i < DEST_WORDS; i++)
		sum[i] += add[i];
	memcpy(&s->c, sum, sizeof(sum));
	s->tw_now += row->tw_now;
	if (!s->seen || row->ports_free < s->ports_free)
		s->ports_free = row->ports_free;
	s->seen = true;
}

void metrics_add_dests(struct tt_metrics *m, const struct tt_dest_row *rows, size_t n)
{
	for (size_t i = 0; i < m->n_dests; i++) {
		m->dests[i].tw_now = 0;
		m->dests[i].seen = false;
	}
	m->other_dest.tw_now = 0;
	m->other_dest.seen = false;
	for (size_t i = 0; i < n; i++) {
		char comm[TT_COMM_LEN + 1] = { 0 }, dest[TT_DEST_LEN];
		struct tt_dest_series *s;

		memcpy(comm, rows[i].comm, strnlen(rows[i].comm, TT_COMM_LEN));
		format_dest(dest, sizeof(dest), &rows[i]);
		s = dest_series_for(m, comm, dest);
		if (!s) {
			s = &m->other_dest;
			m->other_dest_used = true;
			if (!dest_row_is_zero(&rows[i]))
				m->dest_overflow_rows++;
		}
		dest_series_add(s, &rows[i]);
	}
}
