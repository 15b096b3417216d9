// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Writes the series of output/metrics as Prometheus text (0.0.4) or
 * OpenMetrics (1.0.0): each family's HELP and TYPE, then its series. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "common/columns.h"
#include "common/connect_time.h"
#include "output/metrics.h"
#include "output/metrics_render.h"

static const char *const side_names[TT_SIDES] = { [TT_SIDE_IN] = "in", [TT_SIDE_OUT] = "out" };

static const char *const drop_names[TT_DROPS] = {
	[TT_DROP_SOCK_MAP_FULL] = "sock_map_full",
	[TT_DROP_PROC_MAP_FULL] = "proc_map_full",
	[TT_DROP_TW_MAP_FULL] = "tw_map_full",
	[TT_DROP_REASON_MAP_FULL] = "reason_map_full",
	[TT_DROP_DEST_MAP_FULL] = "dest_map_full",
	[TT_DROP_LISTENER_RECORD] = "listener_ring_full",
};
/* A new enum tt_drop needs its label value above. */
_Static_assert(TT_DROPS == 6, "name every enum tt_drop in drop_names");

/* HELP and TYPE of one family. OpenMetrics names a counter family without
 * its _total and an info family without its _info; the 0.0.4 text format
 * has no info type, so build_info is a gauge there, as is customary. */
static void family(FILE *f, enum metrics_format fmt, const char *name, const char *type,
		   const char *help)
{
	int len = (int)strlen(name);

	if (fmt == METRICS_OPENMETRICS && !strcmp(type, "counter"))
		len -= (int)strlen("_total");
	else if (fmt == METRICS_OPENMETRICS && !strcmp(type, "info"))
		len -= (int)strlen("_info");
	else if (!strcmp(type, "info"))
		type = "gauge";
	fprintf(f, "# HELP %.*s %s\n# TYPE %.*s %s\n", len, name, help, len, name, type);
}

static void comm_label(FILE *f, const char *name, const struct tt_comm_series *s)
{
	fprintf(f, "%s{comm=", name);
	metrics_put_label_value(f, s->comm, strlen(s->comm));
	if (s->cgroup[0]) {
		fputs(",cgroup=", f);
		metrics_put_label_value(f, s->cgroup, strlen(s->cgroup));
	}
}

/* The series in output order: by name, then the other series if used. */
static const struct tt_comm_series *nth_series(const struct tt_metrics *m, size_t i)
{
	if (i < m->n)
		return &m->comms[i];
	return i == m->n && m->other_used ? &m->other : NULL;
}

/* The families per process name, in the order /metrics gives them. Each
 * column of the column table (common/columns.h) names its family and
 * labels there; rst_sent, by reason, follows connections_closed. */
static const struct {
	const char *name, *type, *help;
} comm_families[] = {
	{ "tcptrace_connections_total", "counter",
	  "TCP connections that reached ESTABLISHED, by process name and side (in: accepted "
	  "from a listener, out: opened with connect())." },
	{ "tcptrace_connections_closed_total", "counter",
	  "TCP connections that ended, each once, by how: fin_active (this side sent the first "
	  "FIN), fin_passive (the peer did), rst_sent, rst_recv, timeout (neither a FIN exchange "
	  "nor an RST)." },
	{ "tcptrace_timewait_total", "counter",
	  "Timewait sockets left behind by the side's connections (a subset of connections "
	  "closed with how fin_active)." },
	{ "tcptrace_timewait_sockets", "gauge",
	  "Timewait sockets of the process name's connections that exist now (at the end of "
	  "the last interval), from the kernel's socket table." },
	{ "tcptrace_timewait_rst_total", "counter",
	  "RSTs sent by the process name's timewait sockets, answering a segment that arrived "
	  "after the connection ended." },
	{ "tcptrace_connect_failed_total", "counter",
	  "connect() attempts that never reached ESTABLISHED, for another cause than no free "
	  "local port: refused, timed out, closed while connecting, or refused before any SYN." },
	{ "tcptrace_connect_failures_total", "counter",
	  "The failed connect() attempts of tcptrace_connect_failed_total by cause. After the "
	  "SYN: refused (ECONNREFUSED: an RST answered it), timeout (ETIMEDOUT: its SYNs sent "
	  "again ran out), unreach (another error: an ICMP unreachable), abandoned (the process "
	  "closed it first, as a proxy's connect timeout does). Before any SYN, connect()'s own "
	  "errno: enetunreach (no route), ehostunreach (an unreachable route), eacces (a "
	  "prohibit route, an LSM), einval (a blackhole route), eperm (a cgroup connect hook, an "
	  "LSM), other." },
	{ "tcptrace_connect_eaddrnotavail_total", "counter",
	  "connect() calls that failed with EADDRNOTAVAIL because no local port was free." },
	{ "tcptrace_bind_eaddrinuse_total", "counter",
	  "bind() calls to port 0 of TCP sockets that failed with EADDRINUSE because no local "
	  "port was free (a bind() to a port of its own is not counted)." },
	{ "tcptrace_untracked_sockets_total", "counter",
	  "Sockets of the process name that were not followed because the socket map was full "
	  "(raise --max-sockets)." },
	{ "tcptrace_open_connections", "gauge",
	  "TCP connections of the process name open now (ESTABLISHED, as ss state established "
	  "counts them) at the end of the last interval, by side; those opened before tcptrace "
	  "started included." },
	{ "tcptrace_listen_drops_total", "counter",
	  "Connection attempts the process name's listeners dropped because a queue was full "
	  "(the kernel's ListenDrops, told per listener; a listener several processes share "
	  "counts on one of them)." },
	{ "tcptrace_acceptq_peak", "gauge",
	  "The deepest accept queue of the process name's listeners in the last interval (-i): "
	  "at its limit, further connection attempts are dropped." },
	{ "tcptrace_acceptq_limit", "gauge",
	  "The limit of the listener whose accept queue was deepest in the last interval (its "
	  "listen() backlog, capped by net.core.somaxconn); 0 when no listener of the name held "
	  "a connection." },
	{ "tcptrace_syn_retransmits_total", "counter",
	  "Handshake packets sent again, by side: out, SYNs of the process name's connect()s "
	  "(each a wait of a second or more for the connection); in, SYN-ACKs of its "
	  "listeners. Both sides add up to the kernel's TCPSynRetrans." },
	{ "tcptrace_segments_retransmitted_total", "counter",
	  "Data segments sent again by the process name's connections, by side, a GSO packet "
	  "as its segments (as the kernel's TcpRetransSegs, less TCPSynRetrans); each delays "
	  "what it carries by a round trip at least." },
	{ "tcptrace_segments_retransmitted_rto_total", "counter",
	  "Of tcptrace_segments_retransmitted_total, those sent after a retransmission timeout "
	  "(the socket in the Loss state): each a wait of 200 ms or more." },
	{ "tcptrace_segments_sent_total", "counter",
	  "Data segments the process name's connections sent, by side, those sent again "
	  "included (tcpi_data_segs_out), counted when each connection ends: the share sent "
	  "again is tcptrace_segments_retransmitted_total over it." },
};

static void comm_family(FILE *f, const struct tt_metrics *m, enum metrics_format fmt, size_t k)
{
	const char *name = comm_families[k].name;
	const struct tt_comm_series *s;

	family(f, fmt, name, comm_families[k].type, comm_families[k].help);
	for (size_t i = 0; (s = nth_series(m, i)); i++) {
		/* A name's in side first, then its out side. */
		for (int side = TT_SIDE_IN; side <= TT_SIDE_OUT; side++) {
			for (size_t col = 0; col < TT_CSV_COLS; col++) {
				enum tt_csv_col c = (enum tt_csv_col)col;
				const char *labels = tt_column_labels(c);

				if (strcmp(tt_column_metric(c), name) != 0 ||
				    (strstr(labels, "side=\"out\"") != NULL) != (side == TT_SIDE_OUT))
					continue;
				comm_label(f, name, s);
				fprintf(f, "%s%s} %llu\n", *labels ? "," : "", labels,
					(unsigned long long)tt_column_value(&s->sum, c));
			}
		}
	}
}

/* A bucket bound in seconds, as Prometheus writes le: "1e-05" would do,
 * "0.00001" reads better. */
static void put_seconds(FILE *f, uint64_t us)
{
	char buf[32];
	size_t n = (size_t)snprintf(buf, sizeof(buf), "%llu.%06llu", (unsigned long long)(us / 1000000),
				    (unsigned long long)(us % 1000000));

	while (n > 0 && buf[n - 1] == '0')
		buf[--n] = '\0';
	if (n > 0 && buf[n - 1] == '.')
		buf[--n] = '\0';
	fputs(buf, f);
}

/* A histogram of waits from a slot's buckets (struct tt_proc_times): the
 * buckets at offset le, their sum in microseconds at offset us. */
struct wait_histogram {
	const char *name, *bucket, *sum, *count, *help;
	size_t le, us;
};

static const struct wait_histogram connect_wait = {
	"tcptrace_connect_duration_seconds", "tcptrace_connect_duration_seconds_bucket",
	"tcptrace_connect_duration_seconds_sum", "tcptrace_connect_duration_seconds_count",
	"connect() calls that reached ESTABLISHED, by how long from the SYN (the move to "
	"SYN_SENT) to ESTABLISHED; a SYN sent again adds a second or more. Connects begun "
	"before tcptrace started are not in it.",
	offsetof(struct tt_proc_times, connect_le), offsetof(struct tt_proc_times, connect_us),
};

static const struct wait_histogram accept_wait = {
	"tcptrace_accept_wait_seconds", "tcptrace_accept_wait_seconds_bucket",
	"tcptrace_accept_wait_seconds_sum", "tcptrace_accept_wait_seconds_count",
	"Connections accepted, by how long each waited in its listener's accept queue, from "
	"its move to ESTABLISHED to accept(). Only where accept() is traced (fexit on "
	"inet_csk_accept): the family is left out elsewhere.",
	offsetof(struct tt_proc_times, acceptq_le), offsetof(struct tt_proc_times, acceptq_us),
};

static const struct wait_histogram handshake = {
	"tcptrace_handshake_seconds", "tcptrace_handshake_seconds_bucket",
	"tcptrace_handshake_seconds_sum", "tcptrace_handshake_seconds_count",
	"Connections the process's listeners completed, by the handshake as the listener saw "
	"it: from its first SYN-ACK to ESTABLISHED; a SYN-ACK sent again adds a second or more.",
	offsetof(struct tt_proc_times, handshake_le), offsetof(struct tt_proc_times, handshake_us),
};

static void histogram(FILE *f, const struct tt_metrics *m, enum metrics_format fmt,
		      const struct wait_histogram *h)
{
	const struct tt_comm_series *s;

	family(f, fmt, h->name, "histogram", h->help);
	for (size_t i = 0; (s = nth_series(m, i)); i++) {
		const char *t = (const char *)&s->sum.t;
		const __u64 *le = (const __u64 *)(t + h->le);
		uint64_t running = 0;

		for (size_t b = 0; b < TT_CONNECT_BUCKETS; b++) {
			running += le[b];
			comm_label(f, h->bucket, s);
			fputs(",le=\"", f);
			if (b == TT_CONNECT_OVER)
				fputs("+Inf", f);
			else
				put_seconds(f, tt_connect_bound_us(b));
			fprintf(f, "\"} %llu\n", (unsigned long long)running);
		}
		comm_label(f, h->sum, s);
		fputs("} ", f);
		put_seconds(f, *(const __u64 *)(t + h->us));
		fputc('\n', f);
		comm_label(f, h->count, s);
		fprintf(f, "} %llu\n", (unsigned long long)running);
	}
}

static void rst_sent(FILE *f, const struct tt_metrics *m, enum metrics_format fmt,
		     const struct tt_reason_names *names)
{
	const char *name = "tcptrace_rst_sent_total";
	const struct tt_comm_series *s;
	char buf[TT_REASON_LABEL_LEN];

	family(f, fmt, name, "counter",
	       "TCP connections ended by an RST this side sent, by the kernel's reason (enum "
	       "sk_rst_reason; UNKNOWN before Linux 6.10). Only reasons seen have a series.");
	for (size_t i = 0; (s = nth_series(m, i)); i++)
		for (size_t side = 0; side < TT_SIDES; side++)
			for (size_t slot = 0; slot < TT_REASON_SLOTS; slot++) {
				const char *reason = reason_label(names, slot, buf);

				if (!s->sum.reasons[side][slot])
					continue;
				comm_label(f, name, s);
				fprintf(f, ",side=\"%s\",reason=", side_names[side]);
				metrics_put_label_value(f, reason, strlen(reason));
				fprintf(f, "} %llu\n", (unsigned long long)s->sum.reasons[side][slot]);
			}
}

static const struct tt_listener_series *nth_listener(const struct tt_metrics *m, size_t i)
{
	if (i < m->n_listeners)
		return &m->listeners[i];
	return i == m->n_listeners && m->other_listener_used ? &m->other_listener : NULL;
}

static void listener_labels(FILE *f, const char *name, const struct tt_listener_series *s)
{
	fprintf(f, "%s{comm=", name);
	metrics_put_label_value(f, s->comm, strlen(s->comm));
	fputs(",listener=", f);
	metrics_put_label_value(f, s->listener, strlen(s->listener));
}

/* A gauge per listener over a field of its series, for listeners open in
 * the last interval; with known, only where the field is not 0. */
static void listener_gauge(FILE *f, const struct tt_metrics *m, enum metrics_format fmt,
			   const char *name, size_t offset, bool known, const char *help)
{
	const struct tt_listener_series *s;

	family(f, fmt, name, "gauge", help);
	for (size_t i = 0; (s = nth_listener(m, i)); i++) {
		const uint64_t *v = (const uint64_t *)((const char *)s + offset);

		if (!s->seen || (known && !*v))
			continue;
		listener_labels(f, name, s);
		fprintf(f, "} %llu\n", (unsigned long long)*v);
	}
}

/* Per listener: the facts of the summary's listener lines, as data. */
static void listener_families(FILE *f, const struct tt_metrics *m, enum metrics_format fmt)
{
	const char *name = "tcptrace_listener_drops_total";
	const struct tt_listener_series *s;

	family(f, fmt, name, "counter",
	       "Connection attempts the listener dropped because a queue was full, on the "
	       "process name that owns it; a listener several processes share (nginx's master "
	       "and workers) counts once. listener is its address and port.");
	for (size_t i = 0; (s = nth_listener(m, i)); i++) {
		listener_labels(f, name, s);
		fprintf(f, "} %llu\n", (unsigned long long)s->drops);
	}
	listener_gauge(f, m, fmt, "tcptrace_listener_acceptq_peak",
		       offsetof(struct tt_listener_series, peak), false,
		       "The deepest accept queue of the listener in the last interval (-i); absent "
		       "once it is closed.");
	listener_gauge(f, m, fmt, "tcptrace_listener_acceptq_deepest",
		       offsetof(struct tt_listener_series, deepest), false,
		       "The deepest accept queue of the listener since tcptrace started, whatever "
		       "the scrape interval.");
	listener_gauge(f, m, fmt, "tcptrace_listener_acceptq_limit",
		       offsetof(struct tt_listener_series, limit), false,
		       "The accept queue limit of the listener: its listen() backlog, capped by "
		       "net.core.somaxconn.");
	listener_gauge(f, m, fmt, "tcptrace_listener_somaxconn",
		       offsetof(struct tt_listener_series, somaxconn), true,
		       "net.core.somaxconn of the listener's network namespace, the cap on any "
		       "listen() backlog there; absent when it could not be read.");
	family(f, fmt, "tcptrace_listeners", "gauge",
	       "Pairs of process name and listener with series of their own.");
	fprintf(f, "tcptrace_listeners %zu\n", m->n_listeners);
	family(f, fmt, "tcptrace_listeners_overflow_total", "counter",
	       "Listener rows of an interval with drops or a queue that went to comm (other "
	       "processes) and listener (other listeners), drops only, because --max-comms pairs "
	       "had series already.");
	fprintf(f, "tcptrace_listeners_overflow_total %llu\n",
		(unsigned long long)m->listener_overflow_rows);
}

static const struct tt_dest_series *nth_dest(const struct tt_metrics *m, size_t i)
{
	if (i < m->n_dests)
		return &m->dests[i];
	return i == m->n_dests && m->other_dest_used ? &m->other_dest : NULL;
}

static void dest_labels(FILE *f, const char *name, const struct tt_dest_series *s)
{
	fprintf(f, "%s{comm=", name);
	metrics_put_label_value(f, s->comm, strlen(s->comm));
	fputs(",dest=", f);
	metrics_put_label_value(f, s->dest, strlen(s->dest));
}

/* A counter family with comm and dest labels over a field of the pair's
 * counters. */
static void per_dest(FILE *f, const struct tt_metrics *m, enum metrics_format fmt,
		     const char *name, size_t offset, const char *help)
{
	const struct tt_dest_series *s;

	family(f, fmt, name, "counter", help);
	for (size_t i = 0; (s = nth_dest(m, i)); i++) {
		const __u64 *v = (const __u64 *)((const char *)&s->c + offset);

		dest_labels(f, name, s);
		fprintf(f, "} %llu\n", (unsigned long long)*v);
	}
}

/* The cause label of each enum tt_connfail, from the column table. */
static const char *const connfail_labels[] = {
#define TT_CAUSE_LABEL(id, name, flags, value, metric, labels) labels,
	TT_CONNFAIL_COLUMNS(TT_CAUSE_LABEL, unused)
#undef TT_CAUSE_LABEL
};
_Static_assert(sizeof(connfail_labels) / sizeof(connfail_labels[0]) == TT_CONNFAILS,
	       "a cause label per enum tt_connfail");

/* --by dest: the out side of each process name per destination, and the
 * local ports still free toward it. */
static void dest_families(FILE *f, const struct tt_metrics *m, enum metrics_format fmt)
{
	static const struct {
		const char *how;
		size_t offset;
	} classes[] = {
		{ "fin_active", offsetof(struct tt_dest_counters, fin_active) },
		{ "fin_passive", offsetof(struct tt_dest_counters, fin_passive) },
		{ "rst_sent", offsetof(struct tt_dest_counters, rst_sent) },
		{ "rst_recv", offsetof(struct tt_dest_counters, rst_recv) },
		{ "timeout", offsetof(struct tt_dest_counters, timeout) },
	};
	const struct tt_dest_series *s;
	const char *name;

	per_dest(f, m, fmt, "tcptrace_dest_connections_total",
		 offsetof(struct tt_dest_counters, conn),
		 "Connections the process name opened with connect() to the destination that "
		 "reached ESTABLISHED (--by dest).");
	name = "tcptrace_dest_connections_closed_total";
	family(f, fmt, name, "counter",
	       "Connections to the destination that ended, by how, as in "
	       "tcptrace_connections_closed_total (--by dest).");
	for (size_t i = 0; (s = nth_dest(m, i)); i++)
		for (size_t k = 0; k < sizeof(classes) / sizeof(classes[0]); k++) {
			const __u64 *v = (const __u64 *)((const char *)&s->c + classes[k].offset);

			dest_labels(f, name, s);
			fprintf(f, ",how=\"%s\"} %llu\n", classes[k].how, (unsigned long long)*v);
		}
	per_dest(f, m, fmt, "tcptrace_dest_timewait_total",
		 offsetof(struct tt_dest_counters, tw),
		 "Timewait sockets left behind by connections to the destination (--by dest).");
	per_dest(f, m, fmt, "tcptrace_dest_connect_failed_total",
		 offsetof(struct tt_dest_counters, connfail),
		 "connect() attempts to the destination that never reached ESTABLISHED, for another "
		 "cause than no free local port (--by dest).");
	name = "tcptrace_dest_connect_failures_total";
	family(f, fmt, name, "counter",
	       "The failed connect() attempts of tcptrace_dest_connect_failed_total by cause, as "
	       "in tcptrace_connect_failures_total (--by dest).");
	for (size_t i = 0; (s = nth_dest(m, i)); i++)
		for (size_t c = 0; c < TT_CONNFAILS; c++) {
			dest_labels(f, name, s);
			fprintf(f, ",%s} %llu\n", connfail_labels[c],
				(unsigned long long)s->c.connfail_by[c]);
		}
	per_dest(f, m, fmt, "tcptrace_dest_connect_eaddrnotavail_total",
		 offsetof(struct tt_dest_counters, eaddrnotavail),
		 "connect() calls to the destination that failed with EADDRNOTAVAIL (--by dest).");
	per_dest(f, m, fmt, "tcptrace_dest_segments_retransmitted_total",
		 offsetof(struct tt_dest_counters, retrans),
		 "Data segments sent again toward the destination (--by dest).");
	per_dest(f, m, fmt, "tcptrace_dest_segments_retransmitted_rto_total",
		 offsetof(struct tt_dest_counters, retrans_rto),
		 "Of those, the ones sent after a retransmission timeout (--by dest).");
	per_dest(f, m, fmt, "tcptrace_dest_segments_sent_total",
		 offsetof(struct tt_dest_counters, segs_sent),
		 "Data segments the connections to the destination sent, counted when each ends "
		 "(--by dest).");
	name = "tcptrace_dest_timewait_sockets";
	family(f, fmt, name, "gauge",
	       "Timewait sockets of the process name toward the destination now (--by dest).");
	for (size_t i = 0; (s = nth_dest(m, i)); i++) {
		dest_labels(f, name, s);
		fprintf(f, "} %llu\n", (unsigned long long)s->tw_now);
	}
	name = "tcptrace_dest_ports_free";
	family(f, fmt, name, "gauge",
	       "Local ports of the namespace still free for connections to the destination, "
	       "the fewest over the process name's namespaces; absent without a row in the last "
	       "interval (--by dest).");
	for (size_t i = 0; (s = nth_dest(m, i)); i++) {
		if (!s->seen)
			continue;
		dest_labels(f, name, s);
		fprintf(f, "} %llu\n", (unsigned long long)s->ports_free);
	}
	family(f, fmt, "tcptrace_dests", "gauge",
	       "Pairs of process name and destination with series of their own (--by dest).");
	fprintf(f, "tcptrace_dests %zu\n", m->n_dests);
	family(f, fmt, "tcptrace_dests_overflow_total", "counter",
	       "Destination rows of an interval with counts that went to comm (other processes) "
	       "and dest (other destinations) because --max-comms pairs had series already.");
	fprintf(f, "tcptrace_dests_overflow_total %llu\n", (unsigned long long)m->dest_overflow_rows);
}

static void global(FILE *f, const struct tt_metrics *m, enum metrics_format fmt,
		   const struct tt_reason_names *names, const char *version)
{
	char buf[TT_REASON_LABEL_LEN];

	family(f, fmt, "tcptrace_unowned_rst_sent_total", "counter",
	       "RSTs the kernel sent that end no traced connection: no socket, a listener, a "
	       "half-open socket, an untraced process. By reason, only reasons seen.");
	for (size_t slot = 0; slot < TT_REASON_SLOTS; slot++) {
		const char *reason = reason_label(names, slot, buf);

		if (!m->unowned_rsts[slot])
			continue;
		fputs("tcptrace_unowned_rst_sent_total{reason=", f);
		metrics_put_label_value(f, reason, strlen(reason));
		fprintf(f, "} %llu\n", (unsigned long long)m->unowned_rsts[slot]);
	}
	family(f, fmt, "tcptrace_drops_total", "counter",
	       "Events tcptrace could not account for, by the map that was full: sock_map_full "
	       "(sockets not followed: raise --max-sockets), tw_map_full (timewait owners not "
	       "recorded), proc_map_full, reason_map_full and dest_map_full (raise --max-procs), "
	       "listener_ring_full (closed listeners' last drops not recorded).");
	for (size_t i = 0; i < TT_DROPS; i++)
		fprintf(f, "tcptrace_drops_total{what=\"%s\"} %llu\n", drop_names[i],
			(unsigned long long)m->drops[i]);
	family(f, fmt, "tcptrace_events_lost_total", "counter",
	       "TCP events the kernel did not run tcptrace's programs for: a softirq hit the "
	       "same tracepoint while one of them ran on that CPU (recursion_misses).");
	fprintf(f, "tcptrace_events_lost_total %llu\n", (unsigned long long)m->lost);
	family(f, fmt, "tcptrace_comms", "gauge", "Process names with series of their own.");
	fprintf(f, "tcptrace_comms %zu\n", m->n);
	family(f, fmt, "tcptrace_comms_limit", "gauge",
	       "Process names that can have series of their own (--max-comms), and as many "
	       "pairs of name and listener, and with --by dest of name and destination. Counts "
	       "of further ones are added up under comm (other processes).");
	fprintf(f, "tcptrace_comms_limit %zu\n", m->limit);
	family(f, fmt, "tcptrace_comms_overflow_total", "counter",
	       "Process rows of an interval with counts that went to comm (other processes) "
	       "because --max-comms names had series already.");
	fprintf(f, "tcptrace_comms_overflow_total %llu\n", (unsigned long long)m->overflow_rows);
	family(f, fmt, "tcptrace_build_info", "info", "The tcptrace version that serves these metrics.");
	fputs("tcptrace_build_info{version=", f);
	metrics_put_label_value(f, version, strlen(version));
	fputs("} 1\n", f);
}

char *metrics_render(const struct tt_metrics *m, const struct tt_reason_names *names,
		     const char *version, enum metrics_format format, size_t *len)
{
	char *text = NULL;
	int failed;
	FILE *f;

	*len = 0;
	f = open_memstream(&text, len);
	if (!f)
		return NULL;
	for (size_t k = 0; k < sizeof(comm_families) / sizeof(comm_families[0]); k++) {
		comm_family(f, m, format, k);
		if (!strcmp(comm_families[k].name, "tcptrace_connections_closed_total"))
			rst_sent(f, m, format, names);
	}
	histogram(f, m, format, &connect_wait);
	if (m->accept_waits)
		histogram(f, m, format, &accept_wait);
	histogram(f, m, format, &handshake);
	listener_families(f, m, format);
	if (m->by_dest)
		dest_families(f, m, format);
	global(f, m, format, names, version);
	if (format == METRICS_OPENMETRICS)
		fputs("# EOF\n", f);
	failed = ferror(f);
	if (fclose(f) || failed) {
		free(text);
		return NULL;
	}
	return text;
}
