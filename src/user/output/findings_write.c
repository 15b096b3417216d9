// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The findings of a run written out: a line each for an operator, with
 * its numbers and the knob to turn, and a JSON object each. */
#include <inttypes.h>
#include <string.h>
#include "output/findings.h"
#include "common/connect_time.h"
#include "output/json.h"

static bool is(const struct tt_finding *f, const char *comm)
{
	return !strcmp(f->comm, comm);
}

/* "haproxy 4242", "nginx 9236, 9239", or "nginx 101, 102, 103 and 5 more". */
static void who(FILE *f, const struct tt_finding *v)
{
	size_t shown = v->n_pids > TT_FINDING_PIDS_SHOWN + 1 ? TT_FINDING_PIDS_SHOWN : v->n_pids;

	fprintf(f, "%s %u", v->comm, v->pid);
	for (size_t i = 1; i < shown; i++)
		fprintf(f, ", %u", v->pids[i]);
	if (shown < v->n_pids)
		fprintf(f, " and %zu more", v->n_pids - shown);
}

/* Its connections on one side, as an operator calls them. */
static const char *side_words(const struct tt_finding *v)
{
	if (v->side == TT_SIDE_IN)
		return "client";
	return v->proxy ? "upstream" : "outgoing";
}

static void write_listen_drops(FILE *f, const struct tt_finding *v)
{
	who(f, v);
	fprintf(f, ": its listener %s dropped %" PRIu64 " connection attempts", v->where, v->count);
	/* The queue holds limit + 1 before the kernel calls it full. */
	if (v->limit && v->peak > v->limit)
		fprintf(f, ", its accept queue full (%" PRIu64 " waiting, limit %" PRIu64 ")",
			v->peak, v->limit);
	else
		fprintf(f, ", its accept queue never seen full (deepest %" PRIu64 ", limit %" PRIu64
			   "): attempts dropped in the handshake (a full SYN queue without SYN "
			   "cookies, a final ACK refused)", v->peak, v->limit);
	fputs(". A client whose SYN is dropped hears nothing and sends it again after 1 s or "
	      "more.", f);
	if (tt_connect_count(v->accept_le)) {
		char p99[16], worst[16];

		tt_connect_format(p99, sizeof(p99), tt_connect_quantile(v->accept_le, 0.99));
		tt_connect_format(worst, sizeof(worst), tt_connect_quantile(v->accept_le, 1.0));
		fprintf(f, " The connections it accepted waited in the queue p99 at most %s, the "
			   "longest at most %s.", p99, worst);
	}
	if (v->n_sharers) {
		fputs(" The listener is shared with", f);
		for (size_t i = 0; i < v->n_sharers; i++)
			fprintf(f, "%s %u", i ? "," : "", v->sharers[i]);
		fputs(", counted once here.", f);
	}
	if (is(v, "haproxy"))
		fputs(" haproxy stops accepting at maxconn (global, and the frontend's) and leaves "
		      "the rest in the queue: raise maxconn if its servers keep up, and make the "
		      "queue hold the bursts with backlog on the bind line (by default the "
		      "frontend's maxconn).", f);
	else if (is(v, "nginx"))
		fputs(" nginx's queue is `listen ... backlog=N` (511 by default): raise it to hold "
		      "the bursts of new connections. nginx stops accepting when a worker has no "
		      "file descriptor left (\"accept4() failed (24: Too many open files)\" in its "
		      "error log): raise worker_rlimit_nofile above worker_connections.", f);
	else
		fputs(" Accept faster, or raise the backlog its listen() asks for.", f);
	if (v->somaxconn && v->limit >= v->somaxconn)
		fprintf(f, " net.core.somaxconn (%" PRIu64 ") caps that backlog: raise it too.",
			v->somaxconn);
	else if (v->somaxconn)
		fprintf(f, " (net.core.somaxconn, %" PRIu64 ", is above the limit: the backlog "
			   "asked is what limits it.)", v->somaxconn);
}

static void write_syn_retries(FILE *f, const struct tt_finding *v)
{
	uint64_t slow = tt_connect_slow(v->connect_le);
	char p99[16], worst[16];

	who(f, v);
	fprintf(f, ": %" PRIu64 " SYNs of its connect()s were sent again, each a wait of 1 s or "
		   "more for the connection", v->count);
	if (slow) {
		tt_connect_format(p99, sizeof(p99), tt_connect_quantile(v->connect_le, 0.99));
		tt_connect_format(worst, sizeof(worst), tt_connect_quantile(v->connect_le, 1.0));
		fprintf(f, "; %" PRIu64 " of its %" PRIu64 " connects took more than 1 s (p99 at "
			   "most %s, max at most %s)", slow, tt_connect_count(v->connect_le), p99,
			worst);
	}
	if (v->drops_seen)
		fprintf(f, ": %s's listener %s dropped %" PRIu64 " connection attempts, its queue "
			   "full (see that finding).", v->dropped_by, v->dropped_at, v->drops_seen);
	else
		fputs(": the peer's listen queue was full, or SYNs were lost on the way.", f);
}

static void write_synack_retries(FILE *f, const struct tt_finding *v)
{
	uint64_t slow = tt_connect_slow(v->handshake_le);
	char p99[16], worst[16];

	who(f, v);
	fprintf(f, ": %" PRIu64 " SYN-ACKs of its listeners were sent again: clients did not "
		   "finish the handshake in time (their ACK was lost, or found the accept queue "
		   "full)", v->count);
	if (slow) {
		tt_connect_format(p99, sizeof(p99), tt_connect_quantile(v->handshake_le, 0.99));
		tt_connect_format(worst, sizeof(worst), tt_connect_quantile(v->handshake_le, 1.0));
		fprintf(f, "; %" PRIu64 " of the %" PRIu64 " handshakes they completed took more "
			   "than 1 s from the first SYN-ACK (p99 at most %s, max at most %s), a wait "
			   "the clients' connect times do not show", slow,
			tt_connect_count(v->handshake_le), p99, worst);
	}
	fputc('.', f);
}

static void write_no_port(FILE *f, const struct tt_finding *v)
{
	const char *sep = ":";

	who(f, v);
	if (v->eaddrnotavail) {
		fprintf(f, "%s %" PRIu64 " connect()s failed with EADDRNOTAVAIL, no local port free",
			sep, v->eaddrnotavail);
		if (v->where[0])
			fprintf(f, " toward %s (%" PRIu64 " held, %" PRIu64 " free at the end)",
				v->where, v->ports_held, v->ports_free);
		sep = ";";
	}
	if (v->eaddrinuse)
		fprintf(f, "%s %" PRIu64 " bind()s to port 0 failed with EADDRINUSE, no local port "
			   "free for their address", sep, v->eaddrinuse);
	fputs(". Widen net.ipv4.ip_local_port_range, let connect() take over TIME_WAIT ports "
	      "(net.ipv4.tcp_tw_reuse=1), or keep connections open", f);
	if (is(v, "nginx"))
		fputs(" (keepalive N in the upstream block)", f);
	else if (is(v, "haproxy"))
		fputs(" (http-reuse)", f);
	fputc('.', f);
	if (v->eaddrinuse)
		fputs(" A bind() before connect() takes its port at bind(), one a socket whatever "
		      "the destination, and TIME_WAIT ports are not taken over there: set "
		      "IP_BIND_ADDRESS_NO_PORT on the socket before bind() (nginx's proxy_bind does), "
		      "so that connect() picks the port and shares it between destinations, or bind "
		      "to more source addresses.", f);
}

static const char *const cause_words[TT_CONNFAILS] = {
	[TT_CONNFAIL_REFUSED] = "refused",
	[TT_CONNFAIL_TIMEOUT] = "timed out",
	[TT_CONNFAIL_UNREACH] = "unreachable",
	[TT_CONNFAIL_ABANDONED] = "abandoned",
	[TT_CONNFAIL_ENETUNREACH] = "ENETUNREACH",
	[TT_CONNFAIL_EHOSTUNREACH] = "EHOSTUNREACH",
	[TT_CONNFAIL_EACCES] = "EACCES",
	[TT_CONNFAIL_EINVAL] = "EINVAL",
	[TT_CONNFAIL_EPERM] = "EPERM",
	[TT_CONNFAIL_OTHER] = "other",
};

/* The causes of v from first to before last, "N words" each, then its
 * destinations by the same causes. */
static void write_causes(FILE *f, const struct tt_finding *v, const char *const *words,
			 size_t first, size_t last)
{
	const char *sep = "";

	for (size_t i = first; i < last; i++) {
		if (!v->causes[i])
			continue;
		fprintf(f, "%s %" PRIu64 " %s", sep, v->causes[i], words[i]);
		sep = ";";
	}
	fputc('.', f);
	for (size_t d = 0; d < v->n_fail_dests; d++) {
		const struct tt_finding_dest *x = &v->fail_dests[d];

		fprintf(f, "%s %s:", d ? ";" : " Toward", x->where);
		sep = "";
		for (size_t i = first; i < last; i++) {
			if (!x->causes[i])
				continue;
			fprintf(f, "%s %" PRIu64 " %s", sep, x->causes[i], cause_words[i]);
			sep = ",";
		}
	}
	if (v->n_fail_dests)
		fputc('.', f);
}

static void write_before_syn(FILE *f, const struct tt_finding *v)
{
	static const char *const words[TT_CONNFAILS] = {
		[TT_CONNFAIL_ENETUNREACH] = "ENETUNREACH (no route to the destination's network)",
		[TT_CONNFAIL_EHOSTUNREACH] = "EHOSTUNREACH (a route of type unreachable)",
		[TT_CONNFAIL_EACCES] = "EACCES (a route of type prohibit, or an LSM)",
		[TT_CONNFAIL_EINVAL] = "EINVAL (a route of type blackhole)",
		[TT_CONNFAIL_EPERM] = "EPERM (a cgroup connect hook, or an LSM)",
		[TT_CONNFAIL_OTHER] = "with another errno",
	};

	who(f, v);
	fprintf(f, ": %" PRIu64 " connect()s failed before any SYN left, refused by the routes "
		   "or a policy of its own host:", v->count);
	write_causes(f, v, words, TT_CONNFAIL_BEFORE_SYN, TT_CONNFAILS);
	fputs(" `ip route get ADDRESS` in its network namespace shows the route connect() "
	      "found: add the missing one, or remove the unreachable, prohibit or blackhole one; "
	      "without such a route, EPERM and EACCES come from a cgroup BPF connect hook or an "
	      "LSM (SELinux, AppArmor).", f);
	if (is(v, "haproxy"))
		fputs(" haproxy counts each in its server's econ.", f);
	else if (is(v, "nginx"))
		fputs(" nginx logs each as \"connect() to ... failed (101: Network is "
		      "unreachable)\" or its errno.", f);
}

static void write_connect_failed(FILE *f, const struct tt_finding *v)
{
	static const char *const words[TT_CONNFAILS] = {
		[TT_CONNFAIL_REFUSED] = "refused (ECONNREFUSED: nothing listened there, or its "
					"listener answered with an RST)",
		[TT_CONNFAIL_TIMEOUT] = "timed out (ETIMEDOUT: no answer to its SYNs, "
					"net.ipv4.tcp_syn_retries of them sent again)",
		[TT_CONNFAIL_UNREACH] = "unreachable (an ICMP error: no route, or no host "
					"answered ARP)",
		[TT_CONNFAIL_ABANDONED] = "abandoned (closed by the process before the answer: its "
					  "own connect timeout, such as haproxy's timeout connect "
					  "or nginx's proxy_connect_timeout, or a load generator "
					  "done with connects still waiting)",
	};

	who(f, v);
	fprintf(f, ": %" PRIu64 " connect()s got a local port but no connection:", v->count);
	write_causes(f, v, words, 0, TT_CONNFAIL_BEFORE_SYN);
}

static void write_timewait(FILE *f, const struct tt_finding *v)
{
	who(f, v);
	if (v->side == TT_SIDE_IN) {
		fprintf(f, ": it closed %" PRIu64 " client connections first and keeps their "
			   "TIME_WAIT. They hold no local port (its listening port serves them all) "
			   "and cost memory only, up to net.ipv4.tcp_max_tw_buckets; clients that "
			   "keep their connections open (keep-alive) leave none.", v->count);
		return;
	}
	fprintf(f, ": it closed %" PRIu64 " %s connections first and keeps their TIME_WAIT, "
		   "each holding a local port toward its peer for 60 s", v->count, side_words(v));
	if (v->where[0]) {
		fprintf(f, "; toward %s %" PRIu64 " ports are free", v->where, v->ports_free);
		if (v->runout_s > 0)
			fprintf(f, ", none in %.0f s at the run's pace", v->runout_s);
	}
	fputc('.', f);
	if (is(v, "nginx"))
		fputs(" Keep upstream connections open: keepalive N in the upstream block, with "
		      "proxy_http_version 1.1 and proxy_set_header Connection \"\".", f);
	else if (is(v, "haproxy"))
		fputs(" Keep upstream connections open: http-reuse, and no option httpclose.", f);
	else
		fputs(" Keep connections open (keep-alive), or let the peer close first.", f);
	fputs(" net.ipv4.tcp_tw_reuse=1 lets connect() take over a TIME_WAIT port.", f);
}

/* What the kernel's reason says about who did what. */
static const char *reason_meaning(const char *name, const struct tt_finding *v)
{
	if (!strcmp(name, "TCP_STATE"))
		return is(v, "haproxy") && v->side == TT_SIDE_OUT ?
			       "haproxy's own close of a server connection (SO_LINGER 0), which leaves "
			       "no TIME_WAIT behind: nothing to fix if responses were complete" :
			       "a close with SO_LINGER 0, or in a state that sends no FIN";
	if (!strcmp(name, "TCP_ABORT_ON_CLOSE"))
		return "close() with data unread: the peer sent what it did not read";
	if (!strcmp(name, "TCP_ABORT_ON_DATA"))
		return "data that came after its close";
	if (!strcmp(name, "UNKNOWN"))
		return "this kernel gives no reason (before Linux 6.10)";
	return NULL;
}

static void write_rsts(FILE *f, const struct tt_finding *v, const struct tt_reason_names *names)
{
	const char *sep = " (";

	who(f, v);
	fprintf(f, ": it ended %" PRIu64 " %s connections with an RST instead of a FIN", v->count,
		side_words(v));
	for (size_t r = 0; r < TT_REASON_SLOTS; r++) {
		const char *name = names ? names->name[r] : NULL;
		const char *meaning = name ? reason_meaning(name, v) : NULL;

		if (!v->reasons[r])
			continue;
		fprintf(f, "%s%s %" PRIu64, sep, name ? name : "reason", v->reasons[r]);
		if (meaning)
			fprintf(f, ": %s", meaning);
		sep = "; ";
	}
	fputs(sep[0] == ';' ? ")." : ".", f);
	fputs(" Its peers see a reset, not an end of stream.", f);
}

void findings_write_text(FILE *f, const struct tt_finding *v, size_t n,
			 const struct tt_reason_names *names)
{
	for (size_t i = 0; i < n; i++) {
		fputs("finding: ", f);
		switch (v[i].kind) {
		case TT_FINDING_LISTEN_DROPS:
			write_listen_drops(f, &v[i]);
			break;
		case TT_FINDING_SYN_RETRIES:
			write_syn_retries(f, &v[i]);
			break;
		case TT_FINDING_SYNACK_RETRIES:
			write_synack_retries(f, &v[i]);
			break;
		case TT_FINDING_NO_PORT:
			write_no_port(f, &v[i]);
			break;
		case TT_FINDING_CONNECT_FAILED:
			write_connect_failed(f, &v[i]);
			break;
		case TT_FINDING_BEFORE_SYN:
			write_before_syn(f, &v[i]);
			break;
		case TT_FINDING_TIMEWAIT:
			write_timewait(f, &v[i]);
			break;
		case TT_FINDING_RSTS:
			write_rsts(f, &v[i], names);
			break;
		case TT_FINDING_RETRANS:
			who(f, &v[i]);
			findings_load_write_retrans(f, &v[i].retrans, side_words(&v[i]));
			break;
		case TT_FINDING_LOAD_CLIENT:
			who(f, &v[i]);
			findings_load_write_client(f, &v[i].client);
			break;
		case TT_FINDING_KINDS:
			break;
		}
		fprintf(f, " See man 8 tcptrace (FINDINGS) or " TT_FINDINGS_DOC "#%s\n",
			finding_anchor(v[i].kind));
	}
}

/* "causes" and, with --by dest, "dests", by the causes from first to
 * before last, named as /metrics' cause label. */
static void json_causes(FILE *f, const struct tt_finding *x, size_t first, size_t last)
{
	static const char *const cause[TT_CONNFAILS] = {
		"refused",     "timeout",      "unreach", "abandoned", "enetunreach",
		"ehostunreach", "eacces",      "einval",  "eperm",     "other",
	};

	fputs(",\"causes\":{", f);
	for (size_t c = first; c < last; c++)
		fprintf(f, "%s\"%s\":%" PRIu64, c > first ? "," : "", cause[c], x->causes[c]);
	fputc('}', f);
	if (x->n_fail_dests)
		fputs(",\"dests\":[", f);
	for (size_t d = 0; d < x->n_fail_dests; d++) {
		fputs(d ? ",{\"dest\":" : "{\"dest\":", f);
		json_put_string(f, x->fail_dests[d].where, strlen(x->fail_dests[d].where));
		for (size_t c = first; c < last; c++)
			fprintf(f, ",\"%s\":%" PRIu64, cause[c], x->fail_dests[d].causes[c]);
		fputc('}', f);
	}
	if (x->n_fail_dests)
		fputc(']', f);
}

int findings_write_json(FILE *f, const struct tt_finding *v, size_t n,
			const struct tt_reason_names *names)
{
	for (size_t i = 0; i < n; i++) {
		const struct tt_finding *x = &v[i];
		const char *sep = "";

		fprintf(f, "{\"finding\":\"%s\",\"comm\":", finding_name(x->kind));
		json_put_string(f, x->comm, strlen(x->comm));
		fprintf(f, ",\"pid\":%u,\"processes\":%zu,\"pids\":[", x->pid, x->n_pids);
		for (size_t p = 0; p < x->n_pids && p < TT_FINDING_PIDS; p++)
			fprintf(f, "%s%u", p ? "," : "", x->pids[p]);
		fprintf(f, "],\"count\":%" PRIu64, x->count);
		if (x->side >= 0)
			fprintf(f, ",\"side\":\"%s\"", x->side == TT_SIDE_IN ? "in" : "out");
		if (x->where[0]) {
			fputs(x->kind == TT_FINDING_LISTEN_DROPS ? ",\"listener\":" : ",\"dest\":", f);
			json_put_string(f, x->where, strlen(x->where));
		}
		if (x->kind == TT_FINDING_LISTEN_DROPS) {
			fprintf(f, ",\"acceptq_peak\":%" PRIu64 ",\"acceptq_limit\":%" PRIu64
				   ",\"somaxconn\":%" PRIu64 ",\"shared_with\":[",
				x->peak, x->limit, x->somaxconn);
			for (size_t s = 0; s < x->n_sharers; s++)
				fprintf(f, "%s%u", s ? "," : "", x->sharers[s]);
			fputc(']', f);
			if (tt_connect_count(x->accept_le))
				fprintf(f, ",\"accept_wait_p99_us\":%" PRIu64 ",\"accept_wait_max_us\":%" PRIu64,
					tt_connect_bound_us((size_t)tt_connect_quantile(x->accept_le, 0.99)),
					tt_connect_bound_us((size_t)tt_connect_quantile(x->accept_le, 1.0)));
		}
		if (x->where[0] && x->kind != TT_FINDING_LISTEN_DROPS)
			fprintf(f, ",\"ports_held\":%" PRIu64 ",\"ports_free\":%" PRIu64
				   ",\"runout_s\":%.1f", x->ports_held, x->ports_free, x->runout_s);
		if (x->kind == TT_FINDING_NO_PORT)
			fprintf(f, ",\"eaddrnotavail\":%" PRIu64 ",\"eaddrinuse\":%" PRIu64,
				x->eaddrnotavail, x->eaddrinuse);
		if (x->kind == TT_FINDING_CONNECT_FAILED)
			json_causes(f, x, 0, TT_CONNFAIL_BEFORE_SYN);
		if (x->kind == TT_FINDING_BEFORE_SYN)
			json_causes(f, x, TT_CONNFAIL_BEFORE_SYN, TT_CONNFAILS);
		if (x->kind == TT_FINDING_SYNACK_RETRIES)
			fprintf(f, ",\"handshakes\":%" PRIu64 ",\"handshakes_over_1s\":%" PRIu64,
				tt_connect_count(x->handshake_le), tt_connect_slow(x->handshake_le));
		if (x->kind == TT_FINDING_SYN_RETRIES) {
			fprintf(f, ",\"connects\":%" PRIu64 ",\"connects_over_1s\":%" PRIu64,
				tt_connect_count(x->connect_le), tt_connect_slow(x->connect_le));
			if (x->drops_seen) {
				fputs(",\"dropped_at\":", f);
				json_put_string(f, x->dropped_at, strlen(x->dropped_at));
			}
		}
		if (x->kind == TT_FINDING_RETRANS)
			findings_load_json_retrans(f, &x->retrans);
		if (x->kind == TT_FINDING_LOAD_CLIENT)
			findings_load_json_client(f, &x->client);
		if (x->kind == TT_FINDING_RSTS) {
			fputs(",\"reasons\":{", f);
			for (size_t r = 0; r < TT_REASON_SLOTS; r++) {
				char unnamed[TT_REASON_LABEL_LEN];
				const char *name;

				if (!x->reasons[r])
					continue;
				name = reason_label(names, r, unnamed);
				fputs(sep, f);
				json_put_string(f, name, strlen(name));
				fprintf(f, ":%" PRIu64, x->reasons[r]);
				sep = ",";
			}
			fputc('}', f);
		}
		fprintf(f, ",\"doc\":\"" TT_FINDINGS_DOC "#%s\"}\n", finding_anchor(x->kind));
	}
	return ferror(f) ? -1 : 0;
}
