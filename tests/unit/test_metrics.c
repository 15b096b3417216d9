// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Unit tests of metrics.c: sums per process name that only grow, the
 * exposition text spelled out in both formats, label escaping, and the cap
 * on process names. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include "output/metrics.h"
#include "output/metrics_render.h"
#include "common/utf8.h"

static struct tt_row make_row(uint32_t pid, const char *comm)
{
	struct tt_row row;

	memset(&row, 0, sizeof(row));
	row.pid = pid;
	memcpy(row.comm, comm, strnlen(comm, sizeof(row.comm) - 1));
	return row;
}

static char *render(const struct tt_metrics *m, const struct tt_reason_names *names,
		    enum metrics_format format)
{
	size_t len;
	char *text = metrics_render(m, names, "0.1.0", format, &len);

	assert_non_null(text);
	assert_int_equal(strlen(text), len);
	return text;
}

static void expect_line(const char *text, const char *line)
{
	char *wanted = malloc(strlen(line) + 3);
	int found;

	assert_non_null(wanted);
	sprintf(wanted, "\n%s\n", line);
	found = strstr(text, wanted) != NULL;
	if (!found)
		fail_msg("no line '%s' in:\n%s", line, text);
	free(wanted);
}

static void expect_no_line_starting(const char *text, const char *start)
{
	char *wanted = malloc(strlen(start) + 2);

	assert_non_null(wanted);
	sprintf(wanted, "\n%s", start);
	if (strstr(text, wanted))
		fail_msg("unexpected line starting '%s' in:\n%s", start, text);
	free(wanted);
}

static const char one_comm_text[] =
	"# HELP tcptrace_connections_total TCP connections that reached ESTABLISHED, by process "
	"name and side (in: accepted from a listener, out: opened with connect()).\n"
	"# TYPE tcptrace_connections_total counter\n"
	"tcptrace_connections_total{comm=\"nginx\",side=\"in\"} 5\n"
	"tcptrace_connections_total{comm=\"nginx\",side=\"out\"} 0\n"
	"# HELP tcptrace_connections_closed_total TCP connections that ended, each once, by how: "
	"fin_active (this side sent the first FIN), fin_passive (the peer did), rst_sent, "
	"rst_recv, timeout (neither a FIN exchange nor an RST).\n"
	"# TYPE tcptrace_connections_closed_total counter\n"
	"tcptrace_connections_closed_total{comm=\"nginx\",side=\"in\",how=\"fin_active\"} 0\n"
	"tcptrace_connections_closed_total{comm=\"nginx\",side=\"in\",how=\"fin_passive\"} 2\n"
	"tcptrace_connections_closed_total{comm=\"nginx\",side=\"in\",how=\"rst_sent\"} 1\n"
	"tcptrace_connections_closed_total{comm=\"nginx\",side=\"in\",how=\"rst_recv\"} 0\n"
	"tcptrace_connections_closed_total{comm=\"nginx\",side=\"in\",how=\"timeout\"} 0\n"
	"tcptrace_connections_closed_total{comm=\"nginx\",side=\"out\",how=\"fin_active\"} 0\n"
	"tcptrace_connections_closed_total{comm=\"nginx\",side=\"out\",how=\"fin_passive\"} 0\n"
	"tcptrace_connections_closed_total{comm=\"nginx\",side=\"out\",how=\"rst_sent\"} 0\n"
	"tcptrace_connections_closed_total{comm=\"nginx\",side=\"out\",how=\"rst_recv\"} 0\n"
	"tcptrace_connections_closed_total{comm=\"nginx\",side=\"out\",how=\"timeout\"} 0\n"
	"# HELP tcptrace_rst_sent_total TCP connections ended by an RST this side sent, by the "
	"kernel's reason (enum sk_rst_reason; UNKNOWN before Linux 6.10). Only reasons seen have "
	"a series.\n"
	"# TYPE tcptrace_rst_sent_total counter\n"
	"tcptrace_rst_sent_total{comm=\"nginx\",side=\"in\",reason=\"NO_SOCKET\"} 1\n"
	"# HELP tcptrace_timewait_total Timewait sockets left behind by the side's connections (a "
	"subset of connections closed with how fin_active).\n"
	"# TYPE tcptrace_timewait_total counter\n"
	"tcptrace_timewait_total{comm=\"nginx\",side=\"in\"} 0\n"
	"tcptrace_timewait_total{comm=\"nginx\",side=\"out\"} 0\n"
	"# HELP tcptrace_timewait_sockets Timewait sockets of the process name's connections that "
	"exist now (at the end of the last interval), from the kernel's socket table.\n"
	"# TYPE tcptrace_timewait_sockets gauge\n"
	"tcptrace_timewait_sockets{comm=\"nginx\"} 4\n"
	"# HELP tcptrace_timewait_rst_total RSTs sent by the process name's timewait sockets, "
	"answering a segment that arrived after the connection ended.\n"
	"# TYPE tcptrace_timewait_rst_total counter\n"
	"tcptrace_timewait_rst_total{comm=\"nginx\"} 0\n"
	"# HELP tcptrace_connect_failed_total connect() attempts that never reached ESTABLISHED, "
	"for another cause than no free local port: refused, timed out, closed while connecting, "
	"or refused before any SYN.\n"
	"# TYPE tcptrace_connect_failed_total counter\n"
	"tcptrace_connect_failed_total{comm=\"nginx\"} 2\n"
	"# HELP tcptrace_connect_failures_total The failed connect() attempts of "
	"tcptrace_connect_failed_total by cause. After the SYN: refused (ECONNREFUSED: an RST "
	"answered it), timeout (ETIMEDOUT: its SYNs sent again ran out), unreach (another error: "
	"an ICMP unreachable), abandoned (the process closed it first, as a proxy's connect "
	"timeout does). Before any SYN, connect()'s own errno: enetunreach (no route), "
	"ehostunreach (an unreachable route), eacces (a prohibit route, an LSM), einval (a "
	"blackhole route), eperm (a cgroup connect hook, an LSM), other.\n"
	"# TYPE tcptrace_connect_failures_total counter\n"
	"tcptrace_connect_failures_total{comm=\"nginx\",cause=\"refused\"} 2\n"
	"tcptrace_connect_failures_total{comm=\"nginx\",cause=\"timeout\"} 0\n"
	"tcptrace_connect_failures_total{comm=\"nginx\",cause=\"unreach\"} 0\n"
	"tcptrace_connect_failures_total{comm=\"nginx\",cause=\"abandoned\"} 0\n"
	"tcptrace_connect_failures_total{comm=\"nginx\",cause=\"enetunreach\"} 0\n"
	"tcptrace_connect_failures_total{comm=\"nginx\",cause=\"ehostunreach\"} 0\n"
	"tcptrace_connect_failures_total{comm=\"nginx\",cause=\"eacces\"} 0\n"
	"tcptrace_connect_failures_total{comm=\"nginx\",cause=\"einval\"} 0\n"
	"tcptrace_connect_failures_total{comm=\"nginx\",cause=\"eperm\"} 0\n"
	"tcptrace_connect_failures_total{comm=\"nginx\",cause=\"other\"} 0\n"
	"# HELP tcptrace_connect_eaddrnotavail_total connect() calls that failed with "
	"EADDRNOTAVAIL because no local port was free.\n"
	"# TYPE tcptrace_connect_eaddrnotavail_total counter\n"
	"tcptrace_connect_eaddrnotavail_total{comm=\"nginx\"} 0\n"
	"# HELP tcptrace_bind_eaddrinuse_total bind() calls to port 0 of TCP sockets that failed "
	"with EADDRINUSE because no local port was free (a bind() to a port of its own is not "
	"counted).\n"
	"# TYPE tcptrace_bind_eaddrinuse_total counter\n"
	"tcptrace_bind_eaddrinuse_total{comm=\"nginx\"} 0\n"
	"# HELP tcptrace_untracked_sockets_total Sockets of the process name that were not "
	"followed because the socket map was full (raise --max-sockets).\n"
	"# TYPE tcptrace_untracked_sockets_total counter\n"
	"tcptrace_untracked_sockets_total{comm=\"nginx\"} 0\n"
	"# HELP tcptrace_open_connections TCP connections of the process name open now "
	"(ESTABLISHED, as ss state established counts them) at the end of the last interval, "
	"by side; those opened before tcptrace started included.\n"
	"# TYPE tcptrace_open_connections gauge\n"
	"tcptrace_open_connections{comm=\"nginx\",side=\"in\"} 2\n"
	"tcptrace_open_connections{comm=\"nginx\",side=\"out\"} 0\n"
	"# HELP tcptrace_listen_drops_total Connection attempts the process name's listeners "
	"dropped because a queue was full (the kernel's ListenDrops, told per listener; a "
	"listener several processes share counts on one of them).\n"
	"# TYPE tcptrace_listen_drops_total counter\n"
	"tcptrace_listen_drops_total{comm=\"nginx\"} 6\n"
	"# HELP tcptrace_acceptq_peak The deepest accept queue of the process name's listeners "
	"in the last interval (-i): at its limit, further connection attempts are dropped.\n"
	"# TYPE tcptrace_acceptq_peak gauge\n"
	"tcptrace_acceptq_peak{comm=\"nginx\"} 511\n"
	"# HELP tcptrace_acceptq_limit The limit of the listener whose accept queue was deepest "
	"in the last interval (its listen() backlog, capped by net.core.somaxconn); 0 when no "
	"listener of the name held a connection.\n"
	"# TYPE tcptrace_acceptq_limit gauge\n"
	"tcptrace_acceptq_limit{comm=\"nginx\"} 511\n"
	"# HELP tcptrace_syn_retransmits_total Handshake packets sent again, by side: out, SYNs "
	"of the process name's connect()s (each a wait of a second or more for the connection); "
	"in, SYN-ACKs of its listeners. Both sides add up to the kernel's TCPSynRetrans.\n"
	"# TYPE tcptrace_syn_retransmits_total counter\n"
	"tcptrace_syn_retransmits_total{comm=\"nginx\",side=\"in\"} 1\n"
	"tcptrace_syn_retransmits_total{comm=\"nginx\",side=\"out\"} 0\n"
	"# HELP tcptrace_segments_retransmitted_total Data segments sent again by the process "
	"name's connections, by side, a GSO packet as its segments (as the kernel's "
	"TcpRetransSegs, less TCPSynRetrans); each delays what it carries by a round trip at "
	"least.\n"
	"# TYPE tcptrace_segments_retransmitted_total counter\n"
	"tcptrace_segments_retransmitted_total{comm=\"nginx\",side=\"in\"} 40\n"
	"tcptrace_segments_retransmitted_total{comm=\"nginx\",side=\"out\"} 0\n"
	"# HELP tcptrace_segments_retransmitted_rto_total Of "
	"tcptrace_segments_retransmitted_total, those sent after a retransmission timeout (the "
	"socket in the Loss state): each a wait of 200 ms or more.\n"
	"# TYPE tcptrace_segments_retransmitted_rto_total counter\n"
	"tcptrace_segments_retransmitted_rto_total{comm=\"nginx\",side=\"in\"} 3\n"
	"tcptrace_segments_retransmitted_rto_total{comm=\"nginx\",side=\"out\"} 0\n"
	"# HELP tcptrace_segments_sent_total Data segments the process name's connections sent, "
	"by side, those sent again included (tcpi_data_segs_out), counted when each connection "
	"ends: the share sent again is tcptrace_segments_retransmitted_total over it.\n"
	"# TYPE tcptrace_segments_sent_total counter\n"
	"tcptrace_segments_sent_total{comm=\"nginx\",side=\"in\"} 900\n"
	"tcptrace_segments_sent_total{comm=\"nginx\",side=\"out\"} 0\n"
	"# HELP tcptrace_connect_duration_seconds connect() calls that reached ESTABLISHED, by how "
	"long from the SYN (the move to SYN_SENT) to ESTABLISHED; a SYN sent again adds a second "
	"or more. Connects begun before tcptrace started are not in it.\n"
	"# TYPE tcptrace_connect_duration_seconds histogram\n"
	"tcptrace_connect_duration_seconds_bucket{comm=\"nginx\",le=\"0.00001\"} 0\n"
	"tcptrace_connect_duration_seconds_bucket{comm=\"nginx\",le=\"0.00002\"} 0\n"
	"tcptrace_connect_duration_seconds_bucket{comm=\"nginx\",le=\"0.00005\"} 3\n"
	"tcptrace_connect_duration_seconds_bucket{comm=\"nginx\",le=\"0.0001\"} 3\n"
	"tcptrace_connect_duration_seconds_bucket{comm=\"nginx\",le=\"0.0002\"} 3\n"
	"tcptrace_connect_duration_seconds_bucket{comm=\"nginx\",le=\"0.0005\"} 3\n"
	"tcptrace_connect_duration_seconds_bucket{comm=\"nginx\",le=\"0.001\"} 3\n"
	"tcptrace_connect_duration_seconds_bucket{comm=\"nginx\",le=\"0.002\"} 3\n"
	"tcptrace_connect_duration_seconds_bucket{comm=\"nginx\",le=\"0.005\"} 3\n"
	"tcptrace_connect_duration_seconds_bucket{comm=\"nginx\",le=\"0.01\"} 3\n"
	"tcptrace_connect_duration_seconds_bucket{comm=\"nginx\",le=\"0.02\"} 3\n"
	"tcptrace_connect_duration_seconds_bucket{comm=\"nginx\",le=\"0.05\"} 3\n"
	"tcptrace_connect_duration_seconds_bucket{comm=\"nginx\",le=\"0.1\"} 3\n"
	"tcptrace_connect_duration_seconds_bucket{comm=\"nginx\",le=\"0.2\"} 3\n"
	"tcptrace_connect_duration_seconds_bucket{comm=\"nginx\",le=\"0.5\"} 3\n"
	"tcptrace_connect_duration_seconds_bucket{comm=\"nginx\",le=\"1\"} 3\n"
	"tcptrace_connect_duration_seconds_bucket{comm=\"nginx\",le=\"2\"} 4\n"
	"tcptrace_connect_duration_seconds_bucket{comm=\"nginx\",le=\"5\"} 4\n"
	"tcptrace_connect_duration_seconds_bucket{comm=\"nginx\",le=\"10\"} 4\n"
	"tcptrace_connect_duration_seconds_bucket{comm=\"nginx\",le=\"20\"} 4\n"
	"tcptrace_connect_duration_seconds_bucket{comm=\"nginx\",le=\"50\"} 4\n"
	"tcptrace_connect_duration_seconds_bucket{comm=\"nginx\",le=\"+Inf\"} 4\n"
	"tcptrace_connect_duration_seconds_sum{comm=\"nginx\"} 1.00012\n"
	"tcptrace_connect_duration_seconds_count{comm=\"nginx\"} 4\n"
	"# HELP tcptrace_handshake_seconds Connections the process's listeners completed, by the "
	"handshake as the listener saw it: from its first SYN-ACK to ESTABLISHED; a SYN-ACK sent "
	"again adds a second or more.\n"
	"# TYPE tcptrace_handshake_seconds histogram\n"
	"tcptrace_handshake_seconds_bucket{comm=\"nginx\",le=\"0.00001\"} 0\n"
	"tcptrace_handshake_seconds_bucket{comm=\"nginx\",le=\"0.00002\"} 2\n"
	"tcptrace_handshake_seconds_bucket{comm=\"nginx\",le=\"0.00005\"} 2\n"
	"tcptrace_handshake_seconds_bucket{comm=\"nginx\",le=\"0.0001\"} 2\n"
	"tcptrace_handshake_seconds_bucket{comm=\"nginx\",le=\"0.0002\"} 2\n"
	"tcptrace_handshake_seconds_bucket{comm=\"nginx\",le=\"0.0005\"} 2\n"
	"tcptrace_handshake_seconds_bucket{comm=\"nginx\",le=\"0.001\"} 2\n"
	"tcptrace_handshake_seconds_bucket{comm=\"nginx\",le=\"0.002\"} 2\n"
	"tcptrace_handshake_seconds_bucket{comm=\"nginx\",le=\"0.005\"} 2\n"
	"tcptrace_handshake_seconds_bucket{comm=\"nginx\",le=\"0.01\"} 2\n"
	"tcptrace_handshake_seconds_bucket{comm=\"nginx\",le=\"0.02\"} 2\n"
	"tcptrace_handshake_seconds_bucket{comm=\"nginx\",le=\"0.05\"} 2\n"
	"tcptrace_handshake_seconds_bucket{comm=\"nginx\",le=\"0.1\"} 2\n"
	"tcptrace_handshake_seconds_bucket{comm=\"nginx\",le=\"0.2\"} 2\n"
	"tcptrace_handshake_seconds_bucket{comm=\"nginx\",le=\"0.5\"} 2\n"
	"tcptrace_handshake_seconds_bucket{comm=\"nginx\",le=\"1\"} 2\n"
	"tcptrace_handshake_seconds_bucket{comm=\"nginx\",le=\"2\"} 2\n"
	"tcptrace_handshake_seconds_bucket{comm=\"nginx\",le=\"5\"} 3\n"
	"tcptrace_handshake_seconds_bucket{comm=\"nginx\",le=\"10\"} 3\n"
	"tcptrace_handshake_seconds_bucket{comm=\"nginx\",le=\"20\"} 3\n"
	"tcptrace_handshake_seconds_bucket{comm=\"nginx\",le=\"50\"} 3\n"
	"tcptrace_handshake_seconds_bucket{comm=\"nginx\",le=\"+Inf\"} 3\n"
	"tcptrace_handshake_seconds_sum{comm=\"nginx\"} 3.00003\n"
	"tcptrace_handshake_seconds_count{comm=\"nginx\"} 3\n"
	"# HELP tcptrace_listener_drops_total Connection attempts the listener dropped because a "
	"queue was full, on the process name that owns it; a listener several processes share "
	"(nginx's master and workers) counts once. listener is its address and port.\n"
	"# TYPE tcptrace_listener_drops_total counter\n"
	"# HELP tcptrace_listener_acceptq_peak The deepest accept queue of the listener in the "
	"last interval (-i); absent once it is closed.\n"
	"# TYPE tcptrace_listener_acceptq_peak gauge\n"
	"# HELP tcptrace_listener_acceptq_deepest The deepest accept queue of the listener since "
	"tcptrace started, whatever the scrape interval.\n"
	"# TYPE tcptrace_listener_acceptq_deepest gauge\n"
	"# HELP tcptrace_listener_acceptq_limit The accept queue limit of the listener: its "
	"listen() backlog, capped by net.core.somaxconn.\n"
	"# TYPE tcptrace_listener_acceptq_limit gauge\n"
	"# HELP tcptrace_listener_somaxconn net.core.somaxconn of the listener's network "
	"namespace, the cap on any listen() backlog there; absent when it could not be read.\n"
	"# TYPE tcptrace_listener_somaxconn gauge\n"
	"# HELP tcptrace_listeners Pairs of process name and listener with series of their "
	"own.\n"
	"# TYPE tcptrace_listeners gauge\n"
	"tcptrace_listeners 0\n"
	"# HELP tcptrace_listeners_overflow_total Listener rows of an interval with drops or a "
	"queue that went to comm (other processes) and listener (other listeners), drops only, "
	"because --max-comms pairs had series already.\n"
	"# TYPE tcptrace_listeners_overflow_total counter\n"
	"tcptrace_listeners_overflow_total 0\n"
	"# HELP tcptrace_unowned_rst_sent_total RSTs the kernel sent that end no traced "
	"connection: no socket, a listener, a half-open socket, an untraced process. By reason, "
	"only reasons seen.\n"
	"# TYPE tcptrace_unowned_rst_sent_total counter\n"
	"# HELP tcptrace_drops_total Events tcptrace could not account for, by the map that was "
	"full: sock_map_full (sockets not followed: raise --max-sockets), tw_map_full (timewait "
	"owners not recorded), proc_map_full, reason_map_full and dest_map_full (raise "
	"--max-procs), listener_ring_full (closed listeners' last drops not recorded).\n"
	"# TYPE tcptrace_drops_total counter\n"
	"tcptrace_drops_total{what=\"sock_map_full\"} 0\n"
	"tcptrace_drops_total{what=\"proc_map_full\"} 0\n"
	"tcptrace_drops_total{what=\"tw_map_full\"} 0\n"
	"tcptrace_drops_total{what=\"reason_map_full\"} 0\n"
	"tcptrace_drops_total{what=\"dest_map_full\"} 0\n"
	"tcptrace_drops_total{what=\"listener_ring_full\"} 0\n"
	"# HELP tcptrace_events_lost_total TCP events the kernel did not run tcptrace's programs "
	"for: a softirq hit the same tracepoint while one of them ran on that CPU "
	"(recursion_misses).\n"
	"# TYPE tcptrace_events_lost_total counter\n"
	"tcptrace_events_lost_total 0\n"
	"# HELP tcptrace_comms Process names with series of their own.\n"
	"# TYPE tcptrace_comms gauge\n"
	"tcptrace_comms 1\n"
	"# HELP tcptrace_comms_limit Process names that can have series of their own "
	"(--max-comms), and as many pairs of name and listener, and with --by dest of name and "
	"destination. Counts of further ones are added up under comm (other processes).\n"
	"# TYPE tcptrace_comms_limit gauge\n"
	"tcptrace_comms_limit 256\n"
	"# HELP tcptrace_comms_overflow_total Process rows of an interval with counts that went "
	"to comm (other processes) because --max-comms names had series already.\n"
	"# TYPE tcptrace_comms_overflow_total counter\n"
	"tcptrace_comms_overflow_total 0\n"
	"# HELP tcptrace_build_info The tcptrace version that serves these metrics.\n"
	"# TYPE tcptrace_build_info gauge\n"
	"tcptrace_build_info{version=\"0.1.0\"} 1\n";

static void one_nginx_interval(struct tt_metrics *m, struct tt_reason_names *names)
{
	struct tt_row row = make_row(10, "nginx");

	memset(names, 0, sizeof(*names));
	names->name[2] = "NO_SOCKET";
	row.c.conn[TT_SIDE_IN] = 5;
	row.c.fin_passive[TT_SIDE_IN] = 2;
	row.c.rst_sent[TT_SIDE_IN] = 1;
	row.reasons[TT_SIDE_IN][2] = 1;
	row.tw_now = 4;
	row.open[TT_SIDE_IN] = 2;
	row.listen_drops = 6;
	row.acceptq_peak = 511;
	row.acceptq_limit = 511;
	row.acceptq_peak_run = 600; /* the summary's: not exported per name */
	row.c.synack_retrans = 1;
	row.c.retrans[TT_SIDE_IN] = 40;
	row.c.retrans_rto[TT_SIDE_IN] = 3;
	row.c.segs_sent[TT_SIDE_IN] = 900;
	row.c.connfail = row.c.connfail_by[TT_CONNFAIL_REFUSED] = 2;
	row.t.connect_le[2] = 3; /* at most 50 us */
	row.t.connect_le[16] = 1; /* at most 2 s: a SYN sent again */
	row.t.connect_us = 1000120;
	row.t.handshake_le[1] = 2; /* at most 20 us */
	row.t.handshake_le[17] = 1; /* at most 5 s: two SYN-ACKs sent again */
	row.t.handshake_us = 3000030;
	metrics_init(m, 256);
	metrics_add_interval(m, &row, 1, NULL, NULL);
}

static void test_text_format_spelled_out(void **state)
{
	struct tt_reason_names names;
	struct tt_metrics m;
	char *text;

	(void)state;
	one_nginx_interval(&m, &names);
	text = render(&m, &names, METRICS_TEXT);
	assert_string_equal(text, one_comm_text);
	free(text);
	metrics_free(&m);
}

/* The OpenMetrics text expected for a 0.0.4 text: in the HELP and TYPE
 * lines, counter families lose their _total suffix and build_info becomes
 * the info family build; # EOF ends it. */
static char *as_openmetrics(const char *text)
{
	char *out = NULL;
	size_t size = 0;
	FILE *m = open_memstream(&out, &size);
	const char *line = text;

	assert_non_null(m);
	while (*line) {
		size_t len = strcspn(line, "\n");
		const char *name = line + 7, *name_end = memchr(name, ' ', len - 7);
		bool meta = !strncmp(line, "# HELP ", 7) || !strncmp(line, "# TYPE ", 7);
		size_t name_len = name_end ? (size_t)(name_end - name) : 0;

		if (meta && name_len > 6 && !strncmp(name_end - 6, "_total", 6)) {
			fprintf(m, "%.*s%.*s\n", (int)(name_end - 6 - line), line,
				(int)(len - (size_t)(name_end - line)), name_end);
		} else if (meta && name_len == 19 && !strncmp(name, "tcptrace_build_info", 19)) {
			if (line[2] == 'T')
				fputs("# TYPE tcptrace_build info\n", m);
			else
				fprintf(m, "# HELP tcptrace_build%.*s\n",
					(int)(len - (size_t)(name_end - line)), name_end);
		} else {
			fprintf(m, "%.*s\n", (int)len, line);
		}
		line += len + 1;
	}
	fputs("# EOF\n", m);
	assert_int_equal(fclose(m), 0);
	return out;
}

static void test_openmetrics_names_families_without_suffix_and_ends_with_eof(void **state)
{
	struct tt_reason_names names;
	struct tt_metrics m;
	char *text, *expected;

	(void)state;
	one_nginx_interval(&m, &names);
	text = render(&m, &names, METRICS_OPENMETRICS);
	expected = as_openmetrics(one_comm_text);
	assert_string_equal(text, expected);
	/* Spot checks of the conversion itself. */
	expect_line(expected, "# TYPE tcptrace_connections counter");
	expect_line(expected, "# TYPE tcptrace_timewait_sockets gauge");
	expect_line(expected, "# TYPE tcptrace_build info");
	expect_line(expected, "tcptrace_connections_total{comm=\"nginx\",side=\"in\"} 5");
	free(expected);
	free(text);
	metrics_free(&m);
}

static void test_counts_of_a_process_that_exits_stay_in_its_name(void **state)
{
	struct tt_row a = make_row(100, "worker"), b = make_row(200, "worker");
	struct tt_metrics m;
	char *text;

	(void)state;
	metrics_init(&m, 16);
	a.c.conn[TT_SIDE_IN] = 5;
	b.c.conn[TT_SIDE_IN] = 7;
	{
		struct tt_row both[2] = { a, b };

		metrics_add_interval(&m, both, 2, NULL, NULL);
	}
	/* pid 100 is gone; pid 300, a new worker, appears. */
	b.c.conn[TT_SIDE_IN] = 1;
	a = make_row(300, "worker");
	a.c.conn[TT_SIDE_IN] = 2;
	{
		struct tt_row both[2] = { b, a };

		metrics_add_interval(&m, both, 2, NULL, NULL);
	}
	text = render(&m, NULL, METRICS_TEXT);
	expect_line(text, "tcptrace_connections_total{comm=\"worker\",side=\"in\"} 15");
	expect_line(text, "tcptrace_comms 1");
	free(text);
	/* An interval with no row for the name adds nothing and takes nothing. */
	metrics_add_interval(&m, NULL, 0, NULL, NULL);
	text = render(&m, NULL, METRICS_TEXT);
	expect_line(text, "tcptrace_connections_total{comm=\"worker\",side=\"in\"} 15");
	free(text);
	metrics_free(&m);
}

/* The accept wait histogram: only where accept() is traced; its buckets
 * are the workers' waits added up, cumulative. */
static void test_accept_wait_histogram_where_accept_is_traced(void **state)
{
	struct tt_row rows[2] = { make_row(100, "nginx"), make_row(101, "nginx") };
	struct tt_metrics m;
	char *text;

	(void)state;
	metrics_init(&m, 16);
	rows[0].t.acceptq_le[6] = 4;  /* at most 1 ms */
	rows[1].t.acceptq_le[14] = 1; /* at most 500 ms */
	rows[0].t.acceptq_us = 2000;
	rows[1].t.acceptq_us = 300000;
	metrics_add_interval(&m, rows, 2, NULL, NULL);
	text = render(&m, NULL, METRICS_TEXT);
	expect_no_line_starting(text, "tcptrace_accept_wait_seconds");
	free(text);
	m.accept_waits = true;
	text = render(&m, NULL, METRICS_TEXT);
	expect_line(text, "# TYPE tcptrace_accept_wait_seconds histogram");
	expect_line(text, "tcptrace_accept_wait_seconds_bucket{comm=\"nginx\",le=\"0.0005\"} 0");
	expect_line(text, "tcptrace_accept_wait_seconds_bucket{comm=\"nginx\",le=\"0.001\"} 4");
	expect_line(text, "tcptrace_accept_wait_seconds_bucket{comm=\"nginx\",le=\"0.2\"} 4");
	expect_line(text, "tcptrace_accept_wait_seconds_bucket{comm=\"nginx\",le=\"0.5\"} 5");
	expect_line(text, "tcptrace_accept_wait_seconds_bucket{comm=\"nginx\",le=\"+Inf\"} 5");
	expect_line(text, "tcptrace_accept_wait_seconds_sum{comm=\"nginx\"} 0.302");
	expect_line(text, "tcptrace_accept_wait_seconds_count{comm=\"nginx\"} 5");
	free(text);
	metrics_free(&m);
}

static void test_timewait_sockets_is_the_last_interval_sum(void **state)
{
	struct tt_row rows[2] = { make_row(1, "nginx"), make_row(2, "nginx") };
	struct tt_metrics m;
	char *text;

	(void)state;
	metrics_init(&m, 16);
	rows[0].tw_now = 30;
	rows[1].tw_now = 12;
	metrics_add_interval(&m, rows, 2, NULL, NULL);
	text = render(&m, NULL, METRICS_TEXT);
	expect_line(text, "tcptrace_timewait_sockets{comm=\"nginx\"} 42");
	free(text);
	rows[0].tw_now = 5;
	metrics_add_interval(&m, rows, 1, NULL, NULL);
	text = render(&m, NULL, METRICS_TEXT);
	expect_line(text, "tcptrace_timewait_sockets{comm=\"nginx\"} 5");
	free(text);
	metrics_add_interval(&m, NULL, 0, NULL, NULL);
	text = render(&m, NULL, METRICS_TEXT);
	expect_line(text, "tcptrace_timewait_sockets{comm=\"nginx\"} 0");
	free(text);
	metrics_free(&m);
}

static void test_names_are_in_byte_order(void **state)
{
	struct tt_row rows[3] = { make_row(1, "nginx"), make_row(2, "envoy"), make_row(3, "b") };
	struct tt_metrics m;
	char *text, *b, *envoy, *nginx;

	(void)state;
	metrics_init(&m, 16);
	metrics_add_interval(&m, rows, 3, NULL, NULL);
	text = render(&m, NULL, METRICS_TEXT);
	b = strstr(text, "tcptrace_connections_total{comm=\"b\"");
	envoy = strstr(text, "tcptrace_connections_total{comm=\"envoy\"");
	nginx = strstr(text, "tcptrace_connections_total{comm=\"nginx\"");
	assert_non_null(b);
	assert_true(b < envoy && envoy < nginx);
	free(text);
	metrics_free(&m);
}

static void test_rst_reasons_per_side_and_unnamed(void **state)
{
	struct tt_reason_names names = { { NULL } };
	struct tt_row row = make_row(1, "haproxy");
	struct tt_metrics m;
	char *text;

	(void)state;
	names.name[TT_REASON_OTHER] = "UNKNOWN";
	row.c.rst_sent[TT_SIDE_IN] = 2;
	row.c.rst_sent[TT_SIDE_OUT] = 6;
	row.reasons[TT_SIDE_IN][TT_REASON_OTHER] = 2;
	row.reasons[TT_SIDE_OUT][7] = 6;
	metrics_init(&m, 16);
	metrics_add_interval(&m, &row, 1, NULL, NULL);
	text = render(&m, &names, METRICS_TEXT);
	expect_line(text, "tcptrace_rst_sent_total{comm=\"haproxy\",side=\"in\",reason=\"UNKNOWN\"} 2");
	expect_line(text, "tcptrace_rst_sent_total{comm=\"haproxy\",side=\"out\",reason=\"reason_7\"} 6");
	expect_line(text, "tcptrace_connections_closed_total{comm=\"haproxy\",side=\"out\",how=\"rst_sent\"} 6");
	expect_no_line_starting(text, "tcptrace_rst_sent_total{comm=\"haproxy\",side=\"in\",reason=\"reason_7\"");
	free(text);
	metrics_free(&m);
}

static void test_label_values_are_escaped(void **state)
{
	struct tt_row row = make_row(1, "a\"b\\c\nd");
	struct tt_metrics m;
	char *text;

	(void)state;
	metrics_init(&m, 16);
	metrics_add_interval(&m, &row, 1, NULL, NULL);
	text = render(&m, NULL, METRICS_TEXT);
	expect_line(text, "tcptrace_timewait_sockets{comm=\"a\\\"b\\\\c\\nd\"} 0");
	free(text);
	metrics_free(&m);
}

static void test_label_value_not_utf8_gets_replacement_characters(void **state)
{
	struct tt_row row = make_row(1, "x\xff\xc3\xa9\xe2\x82");
	struct tt_metrics m;
	char *text;

	(void)state;
	metrics_init(&m, 16);
	metrics_add_interval(&m, &row, 1, NULL, NULL);
	text = render(&m, NULL, METRICS_TEXT);
	expect_line(text, "tcptrace_timewait_sockets{comm=\"x" UTF8_REPLACEMENT "\xc3\xa9"
			  UTF8_REPLACEMENT UTF8_REPLACEMENT "\"} 0");
	free(text);
	metrics_free(&m);
}

static void test_comm_of_all_16_bytes_stops_at_the_array(void **state)
{
	struct tt_row row = make_row(1, "");
	struct tt_metrics m;
	char *text;

	(void)state;
	memcpy(row.comm, "0123456789abcdef", TT_COMM_LEN); /* no NUL: not from the kernel */
	metrics_init(&m, 16);
	metrics_add_interval(&m, &row, 1, NULL, NULL);
	text = render(&m, NULL, METRICS_TEXT);
	expect_line(text, "tcptrace_timewait_sockets{comm=\"0123456789abcdef\"} 0");
	free(text);
	metrics_free(&m);
}

/* Past the limit, names share one series whose label no process can have,
 * so totals over comm stay exact; the overflow is counted. */
static void test_names_past_the_limit_go_to_other(void **state)
{
	struct tt_row rows[4] = { make_row(1, "a"), make_row(2, "b"), make_row(3, "c"),
				  make_row(4, "d") };
	struct tt_metrics m;
	char *text;

	(void)state;
	for (size_t i = 0; i < 4; i++)
		rows[i].c.conn[TT_SIDE_OUT] = i + 1;
	rows[3].c.conn[TT_SIDE_OUT] = 0; /* nothing happened: no overflow counted */
	metrics_init(&m, 2);
	metrics_add_interval(&m, rows, 4, NULL, NULL);
	text = render(&m, NULL, METRICS_TEXT);
	expect_line(text, "tcptrace_connections_total{comm=\"a\",side=\"out\"} 1");
	expect_line(text, "tcptrace_connections_total{comm=\"b\",side=\"out\"} 2");
	expect_line(text, "tcptrace_connections_total{comm=\"(other processes)\",side=\"out\"} 3");
	expect_no_line_starting(text, "tcptrace_connections_total{comm=\"c\"");
	expect_no_line_starting(text, "tcptrace_connections_total{comm=\"d\"");
	expect_line(text, "tcptrace_comms 2");
	expect_line(text, "tcptrace_comms_limit 2");
	expect_line(text, "tcptrace_comms_overflow_total 1");
	free(text);
	/* A name that has its series keeps it; the others stay in other. */
	metrics_add_interval(&m, rows, 3, NULL, NULL);
	text = render(&m, NULL, METRICS_TEXT);
	expect_line(text, "tcptrace_connections_total{comm=\"a\",side=\"out\"} 2");
	expect_line(text, "tcptrace_connections_total{comm=\"(other processes)\",side=\"out\"} 6");
	expect_line(text, "tcptrace_comms_overflow_total 2");
	free(text);
	metrics_free(&m);
}

/* --by cgroup: one name in two cgroups is two series, labelled; pairs past
 * the limit go to (other processes, other cgroups); without it, no label. */
static void test_series_per_name_and_cgroup(void **state)
{
	struct tt_row rows[3] = { make_row(1, "haproxy"), make_row(2, "haproxy"),
				  make_row(3, "nginx") };
	struct tt_metrics m;
	char *text;

	(void)state;
	memcpy(rows[0].cgroup, "tt-b", 5);
	memcpy(rows[1].cgroup, "tt-a", 5);
	memcpy(rows[2].cgroup, "tt-a", 5);
	for (size_t i = 0; i < 3; i++)
		rows[i].c.conn[TT_SIDE_IN] = 10 * (i + 1);
	metrics_init(&m, 2);
	m.by_cgroup = true;
	metrics_add_interval(&m, rows, 3, NULL, NULL);
	text = render(&m, NULL, METRICS_TEXT);
	expect_line(text, "tcptrace_connections_total{comm=\"haproxy\",cgroup=\"tt-a\",side=\"in\"} 20");
	expect_line(text, "tcptrace_connections_total{comm=\"haproxy\",cgroup=\"tt-b\",side=\"in\"} 10");
	expect_line(text, "tcptrace_connections_total{comm=\"(other processes)\","
			  "cgroup=\"(other cgroups)\",side=\"in\"} 30");
	expect_no_line_starting(text, "tcptrace_connections_total{comm=\"nginx\"");
	/* The label is on every family of the process series. */
	expect_line(text, "tcptrace_handshake_seconds_count{comm=\"haproxy\",cgroup=\"tt-b\"} 0");
	free(text);
	metrics_free(&m);

	metrics_init(&m, 2);
	metrics_add_interval(&m, rows, 2, NULL, NULL);
	text = render(&m, NULL, METRICS_TEXT);
	expect_line(text, "tcptrace_connections_total{comm=\"haproxy\",side=\"in\"} 30");
	assert_null(strstr(text, "cgroup="));
	free(text);
	metrics_free(&m);
}

static void test_other_series_absent_below_the_limit(void **state)
{
	struct tt_row row = make_row(1, "a");
	struct tt_metrics m;
	char *text;

	(void)state;
	metrics_init(&m, 1);
	metrics_add_interval(&m, &row, 1, NULL, NULL);
	text = render(&m, NULL, METRICS_TEXT);
	assert_null(strstr(text, "comm=\"" METRICS_OTHER_COMM "\""));
	expect_line(text, "tcptrace_comms 1");
	free(text);
	metrics_free(&m);
}

static void test_many_names_grow_the_table(void **state)
{
	struct tt_row rows[100];
	struct tt_metrics m;
	char name[16], *text;

	(void)state;
	for (size_t i = 0; i < 100; i++) {
		snprintf(name, sizeof(name), "p%03zu", 99 - i);
		rows[i] = make_row((uint32_t)i + 1, name);
		rows[i].c.tw_rst = i;
	}
	metrics_init(&m, 1000);
	metrics_add_interval(&m, rows, 100, NULL, NULL);
	assert_int_equal(m.n, 100);
	for (size_t i = 1; i < m.n; i++)
		assert_true(strcmp(m.comms[i - 1].comm, m.comms[i].comm) < 0);
	text = render(&m, NULL, METRICS_TEXT);
	expect_line(text, "tcptrace_timewait_rst_total{comm=\"p000\"} 99");
	expect_line(text, "tcptrace_timewait_rst_total{comm=\"p099\"} 0");
	free(text);
	metrics_free(&m);
}

static void test_drops_lost_and_unowned_rsts_are_interval_differences(void **state)
{
	struct tt_netns_rsts ns_prev[1] = { { .netns = 7 } }, ns_cur[2] = { { .netns = 7 },
									      { .netns = 9 } };
	struct tt_snapshot prev = { .other = ns_prev, .n_other = 1 };
	struct tt_snapshot cur = { .other = ns_cur, .n_other = 2 };
	struct tt_reason_names names = { { NULL } };
	struct tt_metrics m;
	char *text;

	(void)state;
	names.name[2] = "NO_SOCKET";
	prev.drops[TT_DROP_SOCK_MAP_FULL] = 10;
	cur.drops[TT_DROP_SOCK_MAP_FULL] = 14;
	cur.drops[TT_DROP_REASON_MAP_FULL] = 1;
	prev.lost = 2;
	cur.lost = 5;
	ns_prev[0].reasons[2] = 100;
	ns_cur[0].reasons[2] = 103;
	ns_cur[1].reasons[2] = 2;
	ns_cur[1].reasons[5] = 1;
	metrics_init(&m, 16);
	metrics_add_interval(&m, NULL, 0, &prev, &cur);
	metrics_add_interval(&m, NULL, 0, &cur, &cur); /* nothing new */
	text = render(&m, &names, METRICS_TEXT);
	expect_line(text, "tcptrace_drops_total{what=\"sock_map_full\"} 4");
	expect_line(text, "tcptrace_drops_total{what=\"reason_map_full\"} 1");
	expect_line(text, "tcptrace_drops_total{what=\"tw_map_full\"} 0");
	expect_line(text, "tcptrace_events_lost_total 3");
	expect_line(text, "tcptrace_unowned_rst_sent_total{reason=\"NO_SOCKET\"} 5");
	expect_line(text, "tcptrace_unowned_rst_sent_total{reason=\"reason_5\"} 1");
	free(text);
	metrics_free(&m);
}

/* open and the accept queue are the last interval's: open summed over the
 * name's rows, the queue its deepest row's with that row's limit (the
 * larger limit among rows as deep). */
static void test_open_and_queue_gauges_are_the_last_interval(void **state)
{
	struct tt_row rows[3] = { make_row(1, "nginx"), make_row(2, "nginx"), make_row(3, "nginx") };
	struct tt_metrics m;
	char *text;

	(void)state;
	metrics_init(&m, 16);
	rows[0].open[TT_SIDE_IN] = 30;
	rows[1].open[TT_SIDE_IN] = 12;
	rows[1].open[TT_SIDE_OUT] = 4;
	rows[0].acceptq_peak = 9;
	rows[0].acceptq_limit = 128;
	rows[1].acceptq_peak = 9;
	rows[1].acceptq_limit = 511;
	rows[2].acceptq_peak = 3;
	rows[2].acceptq_limit = 4096;
	metrics_add_interval(&m, rows, 3, NULL, NULL);
	text = render(&m, NULL, METRICS_TEXT);
	expect_line(text, "tcptrace_open_connections{comm=\"nginx\",side=\"in\"} 42");
	expect_line(text, "tcptrace_open_connections{comm=\"nginx\",side=\"out\"} 4");
	expect_line(text, "tcptrace_acceptq_peak{comm=\"nginx\"} 9");
	expect_line(text, "tcptrace_acceptq_limit{comm=\"nginx\"} 511");
	free(text);
	rows[0].acceptq_peak = 1;
	metrics_add_interval(&m, rows, 1, NULL, NULL);
	text = render(&m, NULL, METRICS_TEXT);
	expect_line(text, "tcptrace_open_connections{comm=\"nginx\",side=\"in\"} 30");
	expect_line(text, "tcptrace_open_connections{comm=\"nginx\",side=\"out\"} 0");
	expect_line(text, "tcptrace_acceptq_peak{comm=\"nginx\"} 1");
	expect_line(text, "tcptrace_acceptq_limit{comm=\"nginx\"} 128");
	free(text);
	metrics_add_interval(&m, NULL, 0, NULL, NULL);
	text = render(&m, NULL, METRICS_TEXT);
	expect_line(text, "tcptrace_open_connections{comm=\"nginx\",side=\"in\"} 0");
	expect_line(text, "tcptrace_acceptq_peak{comm=\"nginx\"} 0");
	expect_line(text, "tcptrace_acceptq_limit{comm=\"nginx\"} 0");
	free(text);
	metrics_free(&m);
}

/* listen_drops and the SYNs sent again are counters: they add up over
 * intervals and processes, side in the SYN-ACKs, side out the SYNs. */
static void test_listen_drops_and_syn_retransmits_add_up(void **state)
{
	struct tt_row rows[2] = { make_row(1, "haproxy"), make_row(2, "ab") };
	struct tt_metrics m;
	char *text;

	(void)state;
	metrics_init(&m, 16);
	rows[0].listen_drops = 200;
	rows[0].c.synack_retrans = 3;
	rows[1].c.syn_retrans = 400;
	metrics_add_interval(&m, rows, 2, NULL, NULL);
	rows[0].listen_drops = 81;
	rows[0].c.synack_retrans = 0;
	rows[1].c.syn_retrans = 162;
	metrics_add_interval(&m, rows, 2, NULL, NULL);
	text = render(&m, NULL, METRICS_TEXT);
	expect_line(text, "tcptrace_listen_drops_total{comm=\"haproxy\"} 281");
	expect_line(text, "tcptrace_listen_drops_total{comm=\"ab\"} 0");
	expect_line(text, "tcptrace_syn_retransmits_total{comm=\"haproxy\",side=\"in\"} 3");
	expect_line(text, "tcptrace_syn_retransmits_total{comm=\"haproxy\",side=\"out\"} 0");
	expect_line(text, "tcptrace_syn_retransmits_total{comm=\"ab\",side=\"in\"} 0");
	expect_line(text, "tcptrace_syn_retransmits_total{comm=\"ab\",side=\"out\"} 562");
	free(text);
	metrics_free(&m);
}

static struct tt_listener_row listener_row(uint64_t cookie, const char *comm, const char *v4,
					   uint16_t port)
{
	struct tt_listener_row l;

	memset(&l, 0, sizeof(l));
	l.cookie = cookie;
	l.id = 7;
	l.pid = 70;
	memcpy(l.comm, comm, strnlen(comm, sizeof(l.comm) - 1));
	l.family = AF_INET;
	l.port = port;
	assert_int_equal(inet_pton(AF_INET, v4, l.addr), 1);
	return l;
}

/* The text of the listener families, from the HELP of the first to that
 * of tcptrace_listeners. */
static char *listener_text(const struct tt_metrics *m)
{
	char *text = render(m, NULL, METRICS_TEXT), *out;
	const char *from = strstr(text, "# HELP tcptrace_listener_drops_total ");
	const char *to = strstr(text, "# HELP tcptrace_listeners ");

	assert_non_null(from);
	assert_non_null(to);
	out = strndup(from, (size_t)(to - from));
	assert_non_null(out);
	free(text);
	return out;
}

/* The lines of listener_text without the HELP and TYPE lines. */
static void expect_listener_samples(const struct tt_metrics *m, const char *samples)
{
	char *text = listener_text(m), *out = calloc(1, strlen(text) + 1), *p = out;
	const char *line;

	assert_non_null(out);
	for (line = text; *line; line += strcspn(line, "\n") + 1) {
		size_t len = strcspn(line, "\n");

		if (line[0] == '#')
			continue;
		memcpy(p, line, len + 1);
		p += len + 1;
	}
	assert_string_equal(out, samples);
	free(out);
	free(text);
}

/* The summary's listener lines as data: drops since tcptrace started, and
 * the queue of the last interval, its deepest ever, its limit and the
 * namespace's somaxconn. */
static void test_listener_series_spelled_out(void **state)
{
	struct tt_listener_row prev_l[1], cur_l[2];
	struct tt_snapshot prev = { .listeners = prev_l, .n_listeners = 1 };
	struct tt_snapshot cur = { .listeners = cur_l, .n_listeners = 2 };
	struct tt_metrics m;

	(void)state;
	prev_l[0] = listener_row(11, "haproxy", "127.0.0.1", 8080);
	prev_l[0].drops = 100; /* before the first interval: not counted */
	cur_l[0] = prev_l[0];
	cur_l[0].drops = 381;
	cur_l[0].peak = 16;
	cur_l[0].peak_run = 16;
	cur_l[0].limit = 16;
	cur_l[0].somaxconn = 4096;
	cur_l[1] = listener_row(12, "nginx", "0.0.0.0", 80);
	cur_l[1].family = AF_INET6;
	memset(cur_l[1].addr, 0, sizeof(cur_l[1].addr));
	cur_l[1].limit = 511; /* somaxconn unknown: no series */
	metrics_init(&m, 16);
	metrics_add_interval(&m, NULL, 0, &prev, &cur);
	expect_listener_samples(
		&m,
		"tcptrace_listener_drops_total{comm=\"haproxy\",listener=\"127.0.0.1:8080\"} 281\n"
		"tcptrace_listener_drops_total{comm=\"nginx\",listener=\"[::]:80\"} 0\n"
		"tcptrace_listener_acceptq_peak{comm=\"haproxy\",listener=\"127.0.0.1:8080\"} 16\n"
		"tcptrace_listener_acceptq_peak{comm=\"nginx\",listener=\"[::]:80\"} 0\n"
		"tcptrace_listener_acceptq_deepest{comm=\"haproxy\",listener=\"127.0.0.1:8080\"} 16\n"
		"tcptrace_listener_acceptq_deepest{comm=\"nginx\",listener=\"[::]:80\"} 0\n"
		"tcptrace_listener_acceptq_limit{comm=\"haproxy\",listener=\"127.0.0.1:8080\"} 16\n"
		"tcptrace_listener_acceptq_limit{comm=\"nginx\",listener=\"[::]:80\"} 511\n"
		"tcptrace_listener_somaxconn{comm=\"haproxy\",listener=\"127.0.0.1:8080\"} 4096\n");
	metrics_free(&m);
}

/* Drops are differences of the same socket of the same owner row; a
 * socket new since the last interval counts whole. The deepest queue is
 * kept while the peak follows each interval; a closed listener keeps its
 * drops and loses its gauges. */
static void test_listener_drops_and_gauges_over_intervals(void **state)
{
	struct tt_listener_row a[1], b[2], c[2], d[2];
	struct tt_snapshot s1 = { .listeners = a, .n_listeners = 1 };
	struct tt_snapshot s2 = { .listeners = b, .n_listeners = 2 };
	struct tt_snapshot s3 = { .listeners = c, .n_listeners = 2 };
	struct tt_snapshot s4 = { .listeners = d, .n_listeners = 2 };
	struct tt_metrics m;

	(void)state;
	a[0] = listener_row(11, "srv", "127.0.0.1", 8080);
	a[0].limit = 4;
	b[0] = a[0];
	b[0].drops = 5;
	b[0].peak = 4;
	b[1] = listener_row(12, "srv", "127.0.0.1", 8081);
	b[1].drops = 2; /* new: counted whole */
	b[1].limit = 8;
	c[0] = b[0];
	c[0].drops = 9;
	c[0].peak = 1;
	c[1] = b[1];
	c[1].drops = 3;
	c[1].closed = true;
	metrics_init(&m, 16);
	metrics_add_interval(&m, NULL, 0, NULL, &s1);
	metrics_add_interval(&m, NULL, 0, &s1, &s2);
	metrics_add_interval(&m, NULL, 0, &s2, &s3);
	expect_listener_samples(
		&m,
		"tcptrace_listener_drops_total{comm=\"srv\",listener=\"127.0.0.1:8080\"} 9\n"
		"tcptrace_listener_drops_total{comm=\"srv\",listener=\"127.0.0.1:8081\"} 3\n"
		"tcptrace_listener_acceptq_peak{comm=\"srv\",listener=\"127.0.0.1:8080\"} 1\n"
		"tcptrace_listener_acceptq_deepest{comm=\"srv\",listener=\"127.0.0.1:8080\"} 4\n"
		"tcptrace_listener_acceptq_limit{comm=\"srv\",listener=\"127.0.0.1:8080\"} 4\n");
	/* The same socket on another row (its owner's slot given again) is
	 * paired with nothing before: its drops count whole, as the
	 * summary's listeners_diff counts them. */
	d[0] = c[0];
	d[0].id = 8;
	d[1] = c[1];
	metrics_add_interval(&m, NULL, 0, &s3, &s4);
	expect_listener_samples(
		&m,
		"tcptrace_listener_drops_total{comm=\"srv\",listener=\"127.0.0.1:8080\"} 18\n"
		"tcptrace_listener_drops_total{comm=\"srv\",listener=\"127.0.0.1:8081\"} 3\n"
		"tcptrace_listener_acceptq_peak{comm=\"srv\",listener=\"127.0.0.1:8080\"} 1\n"
		"tcptrace_listener_acceptq_deepest{comm=\"srv\",listener=\"127.0.0.1:8080\"} 4\n"
		"tcptrace_listener_acceptq_limit{comm=\"srv\",listener=\"127.0.0.1:8080\"} 4\n");
	metrics_free(&m);
}

/* Sockets at one address (SO_REUSEPORT, or one per network namespace)
 * share the series: drops added, the deepest queue with its own limit. */
static void test_listeners_at_one_address_share_a_series(void **state)
{
	struct tt_listener_row l[3];
	struct tt_snapshot cur = { .listeners = l, .n_listeners = 3 };
	struct tt_metrics m;
	char *text;

	(void)state;
	l[0] = listener_row(1, "nginx", "0.0.0.0", 80);
	l[0].drops = 3;
	l[0].peak = 2;
	l[0].limit = 511;
	l[1] = listener_row(2, "nginx", "0.0.0.0", 80);
	l[1].drops = 4;
	l[1].peak = 7;
	l[1].limit = 128;
	l[1].somaxconn = 128;
	l[2] = listener_row(3, "nginx", "0.0.0.0", 80);
	l[2].peak = 7;
	l[2].limit = 64;
	metrics_init(&m, 16);
	metrics_add_interval(&m, NULL, 0, NULL, &cur);
	text = render(&m, NULL, METRICS_TEXT);
	expect_line(text, "tcptrace_listener_drops_total{comm=\"nginx\",listener=\"0.0.0.0:80\"} 7");
	expect_line(text, "tcptrace_listener_acceptq_peak{comm=\"nginx\",listener=\"0.0.0.0:80\"} 7");
	expect_line(text, "tcptrace_listener_acceptq_limit{comm=\"nginx\",listener=\"0.0.0.0:80\"} 128");
	expect_line(text, "tcptrace_listener_somaxconn{comm=\"nginx\",listener=\"0.0.0.0:80\"} 128");
	expect_line(text, "tcptrace_listeners 1");
	free(text);
	metrics_free(&m);
}

static void test_listener_labels(void **state)
{
	struct tt_listener_row l = listener_row(1, "x", "192.0.2.1", 443);
	char buf[TT_DEST_LEN];

	(void)state;
	metrics_listener_label(buf, sizeof(buf), &l);
	assert_string_equal(buf, "192.0.2.1:443");
	l.family = AF_INET6;
	assert_int_equal(inet_pton(AF_INET6, "2001:db8::1", l.addr), 1);
	metrics_listener_label(buf, sizeof(buf), &l);
	assert_string_equal(buf, "[2001:db8::1]:443");
	/* Seen only at its close: its port is all there is. */
	l.family = 0;
	metrics_listener_label(buf, sizeof(buf), &l);
	assert_string_equal(buf, "port 443");
}

/* Past --max-comms pairs, listeners' drops are added up under labels no
 * process or address can have; that series has no gauges. */
static void test_listeners_past_the_limit_go_to_other(void **state)
{
	struct tt_listener_row l[3];
	struct tt_snapshot cur = { .listeners = l, .n_listeners = 3 };
	struct tt_metrics m;
	char *text;

	(void)state;
	l[0] = listener_row(1, "a", "127.0.0.1", 1);
	l[0].drops = 1;
	l[1] = listener_row(2, "b", "127.0.0.1", 2);
	l[1].drops = 2;
	l[1].peak = 5;
	l[2] = listener_row(3, "c", "127.0.0.1", 3); /* nothing to count: no overflow */
	metrics_init(&m, 1);
	metrics_add_interval(&m, NULL, 0, NULL, &cur);
	text = render(&m, NULL, METRICS_TEXT);
	expect_line(text, "tcptrace_listener_drops_total{comm=\"a\",listener=\"127.0.0.1:1\"} 1");
	expect_line(text, "tcptrace_listener_drops_total{comm=\"(other processes)\","
			  "listener=\"(other listeners)\"} 2");
	expect_no_line_starting(text, "tcptrace_listener_acceptq_peak{comm=\"(other");
	expect_no_line_starting(text, "tcptrace_listener_drops_total{comm=\"b\"");
	expect_line(text, "tcptrace_listeners 1");
	expect_line(text, "tcptrace_listeners_overflow_total 1");
	free(text);
	metrics_free(&m);
}

/* HELP text may not hold '"' in OpenMetrics, nor '\\' or a newline in
 * either format unescaped: ours holds none of them. */
static void test_help_lines_need_no_escape(void **state)
{
	struct tt_reason_names names;
	struct tt_metrics m;
	char *text, *line;

	(void)state;
	one_nginx_interval(&m, &names);
	text = render(&m, &names, METRICS_OPENMETRICS);
	for (line = strstr(text, "# HELP "); line; line = strstr(line + 1, "\n# HELP ")) {
		size_t len = strcspn(line + 1, "\n");

		assert_null(memchr(line + 1, '"', len));
		assert_null(memchr(line + 1, '\\', len));
	}
	free(text);
	metrics_free(&m);
}

static void test_empty_metrics_still_expose_the_globals(void **state)
{
	struct tt_metrics m;
	char *text;

	(void)state;
	metrics_init(&m, 5);
	text = render(&m, NULL, METRICS_TEXT);
	expect_line(text, "tcptrace_comms 0");
	expect_line(text, "tcptrace_comms_limit 5");
	expect_line(text, "tcptrace_build_info{version=\"0.1.0\"} 1");
	expect_no_line_starting(text, "tcptrace_connections_total{");
	free(text);
	metrics_free(&m);
}

static struct tt_dest_row dest_row(uint32_t pid, const char *comm, const char *v4, uint16_t port)
{
	struct tt_dest_row row;

	memset(&row, 0, sizeof(row));
	row.pid = pid;
	memcpy(row.comm, comm, strnlen(comm, sizeof(row.comm) - 1));
	row.family = AF_INET;
	row.port = port;
	assert_int_equal(inet_pton(AF_INET, v4, row.addr), 1);
	return row;
}

/* Without --by dest, no tcptrace_dest_* family at all. */
static void test_dest_families_only_by_dest(void **state)
{
	struct tt_metrics m;
	char *text;

	(void)state;
	metrics_init(&m, 4);
	text = render(&m, NULL, METRICS_TEXT);
	assert_null(strstr(text, "tcptrace_dest"));
	free(text);
	m.by_dest = true;
	text = render(&m, NULL, METRICS_TEXT);
	expect_line(text, "# TYPE tcptrace_dest_connections_total counter");
	expect_line(text, "# TYPE tcptrace_dest_ports_free gauge");
	expect_line(text, "tcptrace_dests 0");
	free(text);
	metrics_free(&m);
}

static void test_dest_series_per_name_and_destination(void **state)
{
	struct tt_dest_row rows[3] = {
		dest_row(10, "haproxy", "10.0.0.2", 8081),
		dest_row(11, "haproxy", "10.0.0.2", 8081),
		dest_row(11, "haproxy", "10.0.0.3", 8081),
	};
	struct tt_metrics m;
	char *text;

	(void)state;
	rows[0].c.conn = 5;
	rows[0].c.rst_sent = 2;
	rows[0].tw_now = 3;
	rows[0].ports_free = 900;
	rows[1].c.conn = 7;
	rows[1].c.eaddrnotavail = 1;
	rows[1].c.connfail = 3;
	rows[1].c.connfail_by[TT_CONNFAIL_REFUSED] = 1;
	rows[1].c.connfail_by[TT_CONNFAIL_EACCES] = 2;
	rows[1].tw_now = 4;
	rows[1].ports_free = 800; /* another namespace of the name: the fewest counts */
	rows[2].c.fin_active = 6;
	rows[2].c.tw = 6;
	rows[2].ports_free = 28000;
	rows[2].c.retrans = 30;
	rows[2].c.retrans_rto = 4;
	rows[2].c.segs_sent = 1000;
	metrics_init(&m, 8);
	m.by_dest = true;
	metrics_add_dests(&m, rows, 3);
	metrics_add_dests(&m, rows, 1);
	text = render(&m, NULL, METRICS_TEXT);
	expect_line(text, "tcptrace_dest_connections_total{comm=\"haproxy\",dest=\"10.0.0.2:8081\"} 17");
	expect_line(text, "tcptrace_dest_connections_closed_total{comm=\"haproxy\",dest=\"10.0.0.2:8081\","
			  "how=\"rst_sent\"} 4");
	expect_line(text, "tcptrace_dest_connections_closed_total{comm=\"haproxy\",dest=\"10.0.0.3:8081\","
			  "how=\"fin_active\"} 6");
	expect_line(text, "tcptrace_dest_timewait_total{comm=\"haproxy\",dest=\"10.0.0.3:8081\"} 6");
	expect_line(text, "tcptrace_dest_connect_eaddrnotavail_total{comm=\"haproxy\",dest=\"10.0.0.2:8081\"} 1");
	expect_line(text, "tcptrace_dest_segments_retransmitted_total{comm=\"haproxy\","
			  "dest=\"10.0.0.3:8081\"} 30");
	expect_line(text, "tcptrace_dest_segments_retransmitted_rto_total{comm=\"haproxy\","
			  "dest=\"10.0.0.3:8081\"} 4");
	expect_line(text, "tcptrace_dest_segments_sent_total{comm=\"haproxy\","
			  "dest=\"10.0.0.3:8081\"} 1000");
	expect_line(text, "tcptrace_dest_segments_retransmitted_total{comm=\"haproxy\","
			  "dest=\"10.0.0.2:8081\"} 0");
	expect_line(text, "tcptrace_dest_connect_failed_total{comm=\"haproxy\",dest=\"10.0.0.2:8081\"} 3");
	expect_line(text, "tcptrace_dest_connect_failures_total{comm=\"haproxy\",dest=\"10.0.0.2:8081\","
			  "cause=\"refused\"} 1");
	expect_line(text, "tcptrace_dest_connect_failures_total{comm=\"haproxy\",dest=\"10.0.0.2:8081\","
			  "cause=\"eacces\"} 2");
	expect_line(text, "tcptrace_dest_connect_failures_total{comm=\"haproxy\",dest=\"10.0.0.3:8081\","
			  "cause=\"other\"} 0");
	/* Gauges of the last interval, which had a row for 10.0.0.2 only. */
	expect_line(text, "tcptrace_dest_timewait_sockets{comm=\"haproxy\",dest=\"10.0.0.2:8081\"} 3");
	expect_line(text, "tcptrace_dest_timewait_sockets{comm=\"haproxy\",dest=\"10.0.0.3:8081\"} 0");
	expect_line(text, "tcptrace_dest_ports_free{comm=\"haproxy\",dest=\"10.0.0.2:8081\"} 900");
	expect_no_line_starting(text, "tcptrace_dest_ports_free{comm=\"haproxy\",dest=\"10.0.0.3:8081\"}");
	expect_line(text, "tcptrace_dests 2");
	free(text);
	metrics_add_dests(&m, rows, 3);
	text = render(&m, NULL, METRICS_TEXT);
	expect_line(text, "tcptrace_dest_ports_free{comm=\"haproxy\",dest=\"10.0.0.2:8081\"} 800");
	expect_line(text, "tcptrace_dest_ports_free{comm=\"haproxy\",dest=\"10.0.0.3:8081\"} 28000");
	free(text);
	metrics_free(&m);
}

static void test_dest_pairs_past_the_limit_go_to_other(void **state)
{
	struct tt_dest_row rows[3] = {
		dest_row(1, "a", "192.0.2.1", 80),
		dest_row(1, "a", "192.0.2.2", 80),
		dest_row(2, "b", "192.0.2.1", 80),
	};
	struct tt_metrics m;
	char *text;

	(void)state;
	for (size_t i = 0; i < 3; i++)
		rows[i].c.conn = i + 1;
	metrics_init(&m, 1);
	m.by_dest = true;
	metrics_add_dests(&m, rows, 3);
	text = render(&m, NULL, METRICS_TEXT);
	expect_line(text, "tcptrace_dest_connections_total{comm=\"a\",dest=\"192.0.2.1:80\"} 1");
	expect_line(text, "tcptrace_dest_connections_total{comm=\"(other processes)\","
			  "dest=\"(other destinations)\"} 5");
	expect_line(text, "tcptrace_dests 1");
	expect_line(text, "tcptrace_dests_overflow_total 2");
	free(text);
	metrics_free(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_text_format_spelled_out),
		cmocka_unit_test(test_openmetrics_names_families_without_suffix_and_ends_with_eof),
		cmocka_unit_test(test_counts_of_a_process_that_exits_stay_in_its_name),
		cmocka_unit_test(test_accept_wait_histogram_where_accept_is_traced),
		cmocka_unit_test(test_timewait_sockets_is_the_last_interval_sum),
		cmocka_unit_test(test_names_are_in_byte_order),
		cmocka_unit_test(test_rst_reasons_per_side_and_unnamed),
		cmocka_unit_test(test_label_values_are_escaped),
		cmocka_unit_test(test_label_value_not_utf8_gets_replacement_characters),
		cmocka_unit_test(test_comm_of_all_16_bytes_stops_at_the_array),
		cmocka_unit_test(test_names_past_the_limit_go_to_other),
		cmocka_unit_test(test_series_per_name_and_cgroup),
		cmocka_unit_test(test_other_series_absent_below_the_limit),
		cmocka_unit_test(test_many_names_grow_the_table),
		cmocka_unit_test(test_drops_lost_and_unowned_rsts_are_interval_differences),
		cmocka_unit_test(test_open_and_queue_gauges_are_the_last_interval),
		cmocka_unit_test(test_listen_drops_and_syn_retransmits_add_up),
		cmocka_unit_test(test_listener_series_spelled_out),
		cmocka_unit_test(test_listener_drops_and_gauges_over_intervals),
		cmocka_unit_test(test_listeners_at_one_address_share_a_series),
		cmocka_unit_test(test_listener_labels),
		cmocka_unit_test(test_listeners_past_the_limit_go_to_other),
		cmocka_unit_test(test_help_lines_need_no_escape),
		cmocka_unit_test(test_empty_metrics_still_expose_the_globals),
		cmocka_unit_test(test_dest_families_only_by_dest),
		cmocka_unit_test(test_dest_series_per_name_and_destination),
		cmocka_unit_test(test_dest_pairs_past_the_limit_go_to_other),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
