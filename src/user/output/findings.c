// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* What went wrong in a run, from its totals: findings per process name
 * and instance (its processes added) or per listener; findings_write.c
 * writes them. */
#include <inttypes.h>
#include <string.h>
#include <netinet/in.h>
#include "output/findings.h"
#include "common/connect_time.h"

static const struct {
	const char *name;
	const char *anchor;
} kinds[TT_FINDING_KINDS] = {
	[TT_FINDING_LISTEN_DROPS] = { "listen_drops", "listen-queue-drops" },
	[TT_FINDING_SYN_RETRIES] = { "syn_retries", "syn-retries" },
	[TT_FINDING_SYNACK_RETRIES] = { "synack_retries", "syn-retries" },
	[TT_FINDING_NO_PORT] = { "no_free_port", "port-exhaustion" },
	[TT_FINDING_CONNECT_FAILED] = { "connect_failed", "connect-failures" },
	[TT_FINDING_BEFORE_SYN] = { "connect_failed_before_syn", "connect-failures-before-any-syn" },
	[TT_FINDING_TIMEWAIT] = { "timewait", "timewait-find-out-who-holds-it" },
	[TT_FINDING_RSTS] = { "rst_sent", "rsts-and-their-reasons" },
	[TT_FINDING_RETRANS] = { "retrans", "segments-sent-again" },
	[TT_FINDING_LOAD_CLIENT] = { "load_client", "a-load-generators-own-figures" },
};

const char *finding_name(enum tt_finding_kind kind)
{
	return kind < TT_FINDING_KINDS ? kinds[kind].name : "?";
}

const char *finding_anchor(enum tt_finding_kind kind)
{
	return kind < TT_FINDING_KINDS ? kinds[kind].anchor : "";
}

/* The rows of one process name and instance added up. */
struct name_totals {
	char comm[TT_COMM_LEN];
	uint32_t instance;
	bool connects;
	size_t n_pids;
	uint32_t pids[TT_FINDING_PIDS];
	struct tt_proc_counters c;
	__u64 connect_le[TT_CONNECT_BUCKETS];
	__u64 accept_le[TT_CONNECT_BUCKETS];
	__u64 handshake_le[TT_CONNECT_BUCKETS];
	uint64_t reasons[TT_SIDES][TT_REASON_SLOTS];
};

static bool counted_nothing(const struct tt_proc_counters *c)
{
	const __u64 *w = (const __u64 *)c;

	for (size_t i = 0; i < sizeof(*c) / sizeof(__u64); i++)
		if (w[i])
			return false;
	return true;
}

/* A process that opened connections, or tried to: a proxy, a client. */
static bool connects(const struct tt_proc_counters *c)
{
	return c->conn[TT_SIDE_OUT] || c->connfail || c->eaddrnotavail || c->eaddrinuse ||
	       c->syn_retrans;
}

/* One group of a name: the processes of one instance (nginx's master and
 * workers); those whose instance is not known (gone), by whether they
 * connect. So an nginx in front of an nginx on the same host is two
 * groups, a worker of the proxy that only accepted included. */
static bool same_group(const struct name_totals *t, const struct tt_row *row, bool conn_out)
{
	if (strncmp(t->comm, row->comm, TT_COMM_LEN) != 0)
		return false;
	return t->instance ? t->instance == row->instance
			   : !row->instance && t->connects == conn_out;
}

/* A process that counted nothing (nginx's master) is in no group. */
static size_t totals_by_name(const struct tt_row *rows, size_t n, struct name_totals *out)
{
	size_t n_out = 0;

	for (size_t i = 0; i < n; i++) {
		const struct tt_row *row = &rows[i];
		struct name_totals *t = NULL;
		const __u64 *add = (const __u64 *)&row->c;
		bool conn_out = connects(&row->c);
		__u64 *sum;

		if (counted_nothing(&row->c))
			continue;
		for (size_t j = 0; j < n_out && !t; j++)
			if (same_group(&out[j], row, conn_out))
				t = &out[j];
		if (!t) {
			t = &out[n_out++];
			memset(t, 0, sizeof(*t));
			memcpy(t->comm, row->comm, TT_COMM_LEN);
			t->comm[TT_COMM_LEN - 1] = '\0';
			t->instance = row->instance;
		}
		t->connects |= conn_out;
		if (t->n_pids < TT_FINDING_PIDS)
			t->pids[t->n_pids] = row->pid;
		t->n_pids++;
		sum = (__u64 *)&t->c;
		for (size_t w = 0; w < sizeof(t->c) / sizeof(__u64); w++)
			sum[w] += add[w];
		for (size_t b = 0; b < TT_CONNECT_BUCKETS; b++) {
			t->connect_le[b] += row->t.connect_le[b];
			t->accept_le[b] += row->t.acceptq_le[b];
			t->handshake_le[b] += row->t.handshake_le[b];
		}
		for (int side = 0; side < TT_SIDES; side++)
			for (size_t r = 0; r < TT_REASON_SLOTS; r++)
				t->reasons[side][r] += row->reasons[side][r];
	}
	return n_out;
}

static struct tt_finding *add(struct tt_finding *out, size_t *n, size_t max,
			      enum tt_finding_kind kind, const struct name_totals *t, int side,
			      uint64_t count)
{
	struct tt_finding *f;

	if (*n == max)
		return NULL;
	f = &out[(*n)++];
	memset(f, 0, sizeof(*f));
	f->kind = kind;
	f->side = side;
	f->count = count;
	if (t) {
		memcpy(f->comm, t->comm, TT_COMM_LEN);
		f->n_pids = t->n_pids;
		memcpy(f->pids, t->pids, sizeof(f->pids));
		f->pid = t->pids[0];
		f->proxy = t->c.conn[TT_SIDE_IN] && t->c.conn[TT_SIDE_OUT];
	}
	return f;
}

/* The destination of comm that counts most of what `count` picks. */
static const struct tt_dest_row *top_dest(const struct findings_input *in, const char *comm,
					  uint64_t (*count)(const struct tt_dest_row *))
{
	const struct tt_dest_row *best = NULL;

	for (size_t i = 0; i < in->n_dests; i++) {
		const struct tt_dest_row *d = &in->dests[i];

		if (!strncmp(d->comm, comm, TT_COMM_LEN) && count(d) &&
		    (!best || count(d) > count(best)))
			best = d;
	}
	return best;
}

static uint64_t dest_tw(const struct tt_dest_row *d)
{
	return d->c.tw;
}

static uint64_t dest_no_port(const struct tt_dest_row *d)
{
	return d->c.eaddrnotavail;
}

static void set_dest(struct tt_finding *f, const struct tt_dest_row *d)
{
	if (!d)
		return;
	format_dest(f->where, sizeof(f->where), d);
	f->ports_free = d->ports_free;
	f->ports_held = d->ports_held;
	f->runout_s = d->runout_s;
}

/* The failed connects of the causes from first to before last. */
static uint64_t causes_sum(const __u64 *by, size_t first, size_t last)
{
	uint64_t n = 0;

	for (size_t c = first; c < last; c++)
		n += by[c];
	return n;
}

/* Where comm's connects failed for the causes from first to before last:
 * summed over its processes by destination, the TT_FINDING_DESTS with the
 * most kept in f. */
static void set_fail_dests(struct tt_finding *f, const struct findings_input *in, size_t first,
			   size_t last)
{
	struct tt_finding_dest all[64];
	size_t n = 0;

	for (size_t i = 0; i < in->n_dests; i++) {
		const struct tt_dest_row *d = &in->dests[i];
		uint64_t failed = causes_sum(d->c.connfail_by, first, last);
		char where[TT_DEST_LEN];
		size_t k;

		if (strncmp(d->comm, f->comm, TT_COMM_LEN) != 0 || !failed)
			continue;
		format_dest(where, sizeof(where), d);
		for (k = 0; k < n && strcmp(all[k].where, where) != 0; k++)
			;
		if (k == n) {
			if (n == sizeof(all) / sizeof(all[0]))
				continue;
			memset(&all[n], 0, sizeof(all[n]));
			memcpy(all[n++].where, where, sizeof(where));
		}
		all[k].count += failed;
		for (size_t c = first; c < last; c++)
			all[k].causes[c] += d->c.connfail_by[c];
	}
	while (f->n_fail_dests < TT_FINDING_DESTS && n) {
		size_t best = 0;

		for (size_t k = 1; k < n; k++)
			if (all[k].count > all[best].count)
				best = k;
		f->fail_dests[f->n_fail_dests++] = all[best];
		all[best] = all[--n];
	}
}

static void add_listener(struct tt_finding *out, size_t *n, size_t max,
			 const struct tt_listener_row *l, const struct name_totals *names,
			 size_t n_names)
{
	struct tt_dest_row where = { .family = l->family, .port = l->port };
	struct tt_finding *f = add(out, n, max, TT_FINDING_LISTEN_DROPS, NULL, -1, l->drops);

	if (!f)
		return;
	memcpy(f->comm, l->comm, TT_COMM_LEN);
	f->comm[TT_COMM_LEN - 1] = '\0';
	f->pid = f->pids[0] = l->pid;
	f->n_pids = 1;
	for (size_t i = 0; i < n_names; i++) {
		if (strcmp(names[i].comm, f->comm) != 0)
			continue;
		if (names[i].connects)
			f->proxy = names[i].c.conn[TT_SIDE_IN] && names[i].c.conn[TT_SIDE_OUT];
		for (size_t b = 0; b < TT_CONNECT_BUCKETS; b++)
			f->accept_le[b] += names[i].accept_le[b];
	}
	f->peak = l->peak_run;
	f->limit = l->limit;
	f->somaxconn = l->somaxconn;
	f->n_sharers = l->n_sharers;
	memcpy(f->sharers, l->sharers, sizeof(f->sharers));
	memcpy(where.addr, l->addr, sizeof(where.addr));
	if (l->family)
		format_dest(f->where, sizeof(f->where), &where);
	else
		snprintf(f->where, sizeof(f->where), "port %u", l->port);
}

/* What the SYNs sent again cost the process's connects, and the listener
 * that dropped most connection attempts, a likely cause. */
static void join_connect_times(struct tt_finding *f, const struct name_totals *t,
			       const struct findings_input *in)
{
	memcpy(f->connect_le, t->connect_le, sizeof(f->connect_le));
	for (size_t i = 0; i < in->n_listeners; i++) {
		const struct tt_listener_row *l = &in->listeners[i];
		struct tt_dest_row where = { .family = l->family, .port = l->port };

		if (l->drops <= f->drops_seen)
			continue;
		f->drops_seen = l->drops;
		memcpy(f->dropped_by, l->comm, TT_COMM_LEN);
		f->dropped_by[TT_COMM_LEN - 1] = '\0';
		memcpy(where.addr, l->addr, sizeof(where.addr));
		if (l->family)
			format_dest(f->dropped_at, sizeof(f->dropped_at), &where);
		else
			snprintf(f->dropped_at, sizeof(f->dropped_at), "port %u", l->port);
	}
}

/* A finding of kind per name whose connects failed for a cause from first
 * to before last. */
static void add_connect_failures(struct tt_finding *out, size_t *n, size_t max,
				 enum tt_finding_kind kind, size_t first, size_t last,
				 const struct name_totals *names, size_t n_names,
				 const struct findings_input *in)
{
	for (size_t i = 0; i < n_names; i++) {
		uint64_t failed = causes_sum(names[i].c.connfail_by, first, last);
		struct tt_finding *f;

		if (!failed)
			continue;
		f = add(out, n, max, kind, &names[i], TT_SIDE_OUT, failed);
		if (!f)
			continue;
		for (size_t c = first; c < last; c++)
			f->causes[c] = names[i].c.connfail_by[c];
		set_fail_dests(f, in, first, last);
	}
}

/* Segments sent again, per name and side: on the out side, with --by
 * dest, a destination's share makes a finding too. */
static void add_retrans(struct tt_finding *out, size_t *n, size_t max,
			const struct findings_input *in, const struct name_totals *names,
			size_t n_names)
{
	for (size_t i = 0; i < n_names; i++) {
		for (int side = TT_SIDE_OUT; side >= TT_SIDE_IN; side--) {
			const struct tt_proc_counters *c = &names[i].c;
			struct tt_retrans_facts r = { .retrans = c->retrans[side],
						      .rto = c->retrans_rto[side],
						      .sent = c->segs_sent[side] };
			bool due = findings_load_retrans_due(r.retrans, r.sent);
			struct tt_finding *f;

			if (!r.retrans)
				continue;
			if (side == TT_SIDE_OUT)
				due |= findings_load_retrans_dests(&r, names[i].comm, in->dests,
								   in->n_dests);
			if (!due)
				continue;
			f = add(out, n, max, TT_FINDING_RETRANS, &names[i], side, r.retrans);
			if (f)
				f->retrans = r;
		}
	}
}

size_t findings_collect(const struct findings_input *in, struct tt_finding *out, size_t max)
{
	struct name_totals names[256] = { 0 };
	size_t n_names = 0, n = 0;
	struct tt_finding *f;

	/* More names than that: the first ones, as the table's order has them. */
	n_names = totals_by_name(in->rows, in->n < 256 ? in->n : 256, names);
	for (size_t i = 0; i < in->n_listeners; i++)
		if (in->listeners[i].drops)
			add_listener(out, &n, max, &in->listeners[i], names, n_names);
	for (size_t i = 0; i < n_names; i++) {
		if (!names[i].c.syn_retrans)
			continue;
		f = add(out, &n, max, TT_FINDING_SYN_RETRIES, &names[i], TT_SIDE_OUT,
			names[i].c.syn_retrans);
		if (f)
			join_connect_times(f, &names[i], in);
	}
	for (size_t i = 0; i < n_names; i++) {
		if (!names[i].c.synack_retrans)
			continue;
		f = add(out, &n, max, TT_FINDING_SYNACK_RETRIES, &names[i], TT_SIDE_IN,
			names[i].c.synack_retrans);
		if (f)
			memcpy(f->handshake_le, names[i].handshake_le, sizeof(f->handshake_le));
	}
	for (size_t i = 0; i < n_names; i++) {
		const struct tt_proc_counters *c = &names[i].c;

		if (!c->eaddrnotavail && !c->eaddrinuse)
			continue;
		f = add(out, &n, max, TT_FINDING_NO_PORT, &names[i], TT_SIDE_OUT,
			c->eaddrnotavail + c->eaddrinuse);
		if (!f)
			continue;
		f->eaddrnotavail = c->eaddrnotavail;
		f->eaddrinuse = c->eaddrinuse;
		set_dest(f, top_dest(in, f->comm, dest_no_port));
	}
	add_connect_failures(out, &n, max, TT_FINDING_CONNECT_FAILED, 0, TT_CONNFAIL_BEFORE_SYN,
			     names, n_names, in);
	add_connect_failures(out, &n, max, TT_FINDING_BEFORE_SYN, TT_CONNFAIL_BEFORE_SYN,
			     TT_CONNFAILS, names, n_names, in);
	for (size_t i = 0; i < n_names; i++) {
		for (int side = TT_SIDE_OUT; side >= TT_SIDE_IN; side--) {
			/* Few, unless they are what the ports ran out for. */
			if (!names[i].c.tw[side] ||
			    (names[i].c.tw[side] < TT_FINDING_MIN_TIMEWAIT &&
			     !(side == TT_SIDE_OUT &&
			       (names[i].c.eaddrnotavail || names[i].c.eaddrinuse))))
				continue;
			f = add(out, &n, max, TT_FINDING_TIMEWAIT, &names[i], side,
				names[i].c.tw[side]);
			if (f && side == TT_SIDE_OUT)
				set_dest(f, top_dest(in, f->comm, dest_tw));
		}
	}
	for (size_t i = 0; i < n_names; i++) {
		for (int side = TT_SIDE_OUT; side >= TT_SIDE_IN; side--) {
			if (!names[i].c.rst_sent[side])
				continue;
			f = add(out, &n, max, TT_FINDING_RSTS, &names[i], side,
				names[i].c.rst_sent[side]);
			if (f)
				memcpy(f->reasons, names[i].reasons[side], sizeof(f->reasons));
		}
	}
	add_retrans(out, &n, max, in, names, n_names);
	for (size_t i = 0; i < n_names; i++) {
		struct tt_client_facts client;

		if (!findings_load_client_of(&names[i].c, names[i].connect_le, &client))
			continue;
		f = add(out, &n, max, TT_FINDING_LOAD_CLIENT, &names[i], TT_SIDE_OUT,
			client.connected);
		if (f)
			f->client = client;
	}
	return n;
}
