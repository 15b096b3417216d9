// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* What a load run's latency holds that its figures do not say: data
 * segments sent again, and a load generator's connects that did not
 * connect or waited; their facts, test, words and JSON. */
#include <inttypes.h>
#include <string.h>
#include "common/connect_time.h"
#include "output/findings_load.h"
#include "output/json.h"

bool findings_load_retrans_due(uint64_t retrans, uint64_t sent)
{
	if (retrans < TT_RETRANS_FINDING_MIN)
		return false;
	return sent < retrans || retrans * 1000 >= sent * TT_RETRANS_FINDING_PERMILLE;
}

static bool dest_due(const struct tt_retrans_dest *d)
{
	return findings_load_retrans_due(d->retrans, d->sent);
}

/* Those that make a finding before those that do not, then by how many. */
static bool dest_before(const struct tt_retrans_dest *a, const struct tt_retrans_dest *b)
{
	if (dest_due(a) != dest_due(b))
		return dest_due(a);
	return a->retrans > b->retrans;
}

bool findings_load_retrans_dests(struct tt_retrans_facts *r, const char *comm,
				 const struct tt_dest_row *dests, size_t n)
{
	struct tt_retrans_dest all[64];
	size_t n_all = 0;
	bool due = false;

	for (size_t i = 0; i < n; i++) {
		const struct tt_dest_row *d = &dests[i];
		char where[TT_DEST_LEN];
		size_t k;

		if (strncmp(d->comm, comm, TT_COMM_LEN) != 0 || !d->c.retrans)
			continue;
		format_dest(where, sizeof(where), d);
		for (k = 0; k < n_all && strcmp(all[k].where, where) != 0; k++)
			;
		if (k == n_all) {
			if (n_all == sizeof(all) / sizeof(all[0]))
				continue;
			memset(&all[k], 0, sizeof(all[k]));
			memcpy(all[k].where, where, sizeof(where));
			n_all++;
		}
		all[k].retrans += d->c.retrans;
		all[k].rto += d->c.retrans_rto;
		all[k].sent += d->c.segs_sent;
	}
	r->n_dests = 0;
	while (r->n_dests < TT_RETRANS_DESTS && n_all) {
		size_t best = 0;

		for (size_t k = 1; k < n_all; k++)
			if (dest_before(&all[k], &all[best]))
				best = k;
		due |= dest_due(&all[best]);
		r->dests[r->n_dests++] = all[best];
		all[best] = all[--n_all];
	}
	return due;
}

/* "12 of 900 (1.3%)", or "12 (of 8 sent by the connections that ended)"
 * while the share cannot be told. */
static void write_share(FILE *f, uint64_t retrans, uint64_t sent)
{
	char share[8];

	format_share(share, sizeof(share), retrans, sent);
	if (share[0] == '-')
		fprintf(f, "%" PRIu64 " (of %" PRIu64 " sent by the connections that ended)",
			retrans, sent);
	else
		fprintf(f, "%" PRIu64 " of %" PRIu64 " (%s)", retrans, sent, share);
}

void findings_load_write_retrans(FILE *f, const struct tt_retrans_facts *r, const char *side)
{
	fprintf(f, ": data segments its %s connections sent again: ", side);
	write_share(f, r->retrans, r->sent);
	fprintf(f, ", %" PRIu64 " of them after a retransmission timeout", r->rto);
	for (size_t i = 0; i < r->n_dests; i++) {
		fprintf(f, "%s %s: ", i ? ";" : ". Toward", r->dests[i].where);
		write_share(f, r->dests[i].retrans, r->dests[i].sent);
		fprintf(f, ", %" PRIu64 " after a timeout", r->dests[i].rto);
	}
	fputs(". A segment sent again delays what it carries by a round trip at least, and by "
	      "200 ms or more after a timeout (the kernel's least, doubled at each one): with "
	      "one segment in a hundred sent again, the slowest requests in a hundred over these "
	      "connections include such a wait. The segments are lost on the way: a link's "
	      "errors or a full queue (ip -s link, tc -s qdisc), a firewall, or the peer "
	      "dropping them (its nstat: TcpExtTCPBacklogDrop, TcpExtTCPRcvQDrop).", f);
}

void findings_load_json_retrans(FILE *f, const struct tt_retrans_facts *r)
{
	fprintf(f, ",\"rto\":%" PRIu64 ",\"segs_sent\":%" PRIu64, r->rto, r->sent);
	if (!r->n_dests)
		return;
	fputs(",\"dests\":[", f);
	for (size_t i = 0; i < r->n_dests; i++) {
		fputs(i ? ",{\"dest\":" : "{\"dest\":", f);
		json_put_string(f, r->dests[i].where, strlen(r->dests[i].where));
		fprintf(f, ",\"retrans\":%" PRIu64 ",\"rto\":%" PRIu64 ",\"segs_sent\":%" PRIu64 "}",
			r->dests[i].retrans, r->dests[i].rto, r->dests[i].sent);
	}
	fputc(']', f);
}

bool findings_load_client_of(const struct tt_proc_counters *c,
			     const __u64 le[TT_CONNECT_BUCKETS], struct tt_client_facts *out)
{
	memset(out, 0, sizeof(*out));
	out->connected = c->conn[TT_SIDE_OUT];
	out->no_port = c->eaddrnotavail;
	out->bind_no_port = c->eaddrinuse;
	out->tried = out->connected + c->connfail + c->eaddrnotavail + c->eaddrinuse;
	memcpy(out->causes, c->connfail_by, sizeof(out->causes));
	out->syn_retrans = c->syn_retrans;
	out->timed = tt_connect_count(le);
	out->slow = tt_connect_slow(le);
	out->p99 = tt_connect_quantile(le, 0.99);
	out->worst = tt_connect_quantile(le, 1.0);
	return !c->conn[TT_SIDE_IN] && (out->tried > out->connected || out->slow);
}

void findings_load_write_client(FILE *f, const struct tt_client_facts *v)
{
	static const char *const causes[TT_CONNFAILS] = {
		[TT_CONNFAIL_REFUSED] = "refused",
		[TT_CONNFAIL_TIMEOUT] = "timed out",
		[TT_CONNFAIL_UNREACH] = "unreachable",
		[TT_CONNFAIL_ABANDONED] = "abandoned, unanswered when it closed them",
		[TT_CONNFAIL_ENETUNREACH] = "refused before their SYN with ENETUNREACH",
		[TT_CONNFAIL_EHOSTUNREACH] = "refused before their SYN with EHOSTUNREACH",
		[TT_CONNFAIL_EACCES] = "refused before their SYN with EACCES",
		[TT_CONNFAIL_EINVAL] = "refused before their SYN with EINVAL",
		[TT_CONNFAIL_EPERM] = "refused before their SYN with EPERM",
		[TT_CONNFAIL_OTHER] = "refused before their SYN with another errno",
	};
	bool unconnected = v->tried > v->connected;
	const char *sep = " (";
	char p99[16], worst[16];

	fputc(':', f);
	if (unconnected) {
		fprintf(f, " connected %" PRIu64 " times of the %" PRIu64 " it tried", v->connected,
			v->tried);
		for (size_t i = 0; i < TT_CONNFAILS; i++) {
			if (!v->causes[i])
				continue;
			fprintf(f, "%s%" PRIu64 " %s", sep, v->causes[i], causes[i]);
			sep = "; ";
		}
		if (v->no_port)
			fprintf(f, "%s%" PRIu64 " with no local port free", sep, v->no_port);
		if (v->bind_no_port)
			fprintf(f, "%s%" PRIu64 " with no local port free at bind()", sep,
				v->bind_no_port);
		fputc(')', f);
	}
	if (v->slow) {
		tt_connect_format(p99, sizeof(p99), v->p99);
		tt_connect_format(worst, sizeof(worst), v->worst);
		fprintf(f, "%s%" PRIu64 " of its %" PRIu64 " connects took more than 1 s, a SYN "
			   "sent again at least (p99 at most %s, max at most %s)",
			unconnected ? "; " : " ", v->slow, v->timed, p99, worst);
	}
	if (v->syn_retrans)
		fprintf(f, "; %" PRIu64 " of its SYNs were sent again", v->syn_retrans);
	if (unconnected)
		fprintf(f, ". Its own latency and request figures describe those %" PRIu64
			   " connections: the others carried no request, and a load generator "
			   "counts no error for a connect still waiting when it stops",
			v->connected);
	if (v->slow)
		fputs(". A client that times its requests from its connect (ab, curl) has those "
		      "waits in its latency: the server's listen queue or the path, not its "
		      "responses",
		      f);
	fputc('.', f);
}

void findings_load_json_client(FILE *f, const struct tt_client_facts *v)
{
	static const char *const cause[TT_CONNFAILS] = {
		"refused",      "timeout", "unreach", "abandoned", "enetunreach",
		"ehostunreach", "eacces",  "einval",  "eperm",     "other",
	};

	fprintf(f, ",\"tried\":%" PRIu64 ",\"causes\":{", v->tried);
	for (size_t c = 0; c < TT_CONNFAILS; c++)
		fprintf(f, "%s\"%s\":%" PRIu64, c ? "," : "", cause[c], v->causes[c]);
	fprintf(f, "},\"eaddrnotavail\":%" PRIu64 ",\"eaddrinuse\":%" PRIu64
		   ",\"syn_retrans\":%" PRIu64 ",\"connects\":%" PRIu64
		   ",\"connects_over_1s\":%" PRIu64,
		v->no_port, v->bind_no_port, v->syn_retrans, v->timed, v->slow);
	if (v->timed)
		fprintf(f, ",\"connect_p99_us\":%" PRIu64 ",\"connect_max_us\":%" PRIu64,
			tt_connect_bound_us((size_t)v->p99), tt_connect_bound_us((size_t)v->worst));
}
