/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* What the unit tests of the CSV's readers (csv_read, compare, timeline,
 * report) share: the two headers tcptrace writes, interval times, and a
 * way to pick one line out of written text. Include after cmocka.h. */
#ifndef TT_CSV_FIXTURES_H
#define TT_CSV_FIXTURES_H

#include <string.h>

/* The header of a CSV of an earlier version (tests/data/compare's): the
 * columns every tcptrace CSV has, none of the optional ones. */
#define HEADER                                                                               \
	"time,elapsed_s,pid,comm,conn_in,conn_out,fin_active_in,fin_active_out,"             \
	"fin_passive_in,fin_passive_out,rst_sent_in,rst_sent_out,rst_recv_in,rst_recv_out,"  \
	"tw_in,tw_out,tw_now,eaddrnotavail,timeout_in,timeout_out,connfail_out,untracked,"   \
	"tw_rst,rst_sent_reasons\n"
/* The columns after synack_retrans_in: failed connects by cause, connects
 * by latency (common/connect_time.h), accepts by their queue wait,
 * handshakes as the listeners saw them, and data segments sent again. */
#define HEADER_CONNECT                                                                       \
	HEADER_CONNECT_NO_COMMA ","                                                          \
	"accept_wait_10us,accept_wait_20us,accept_wait_50us,accept_wait_100us,"              \
	"accept_wait_200us,accept_wait_500us,accept_wait_1ms,accept_wait_2ms,"               \
	"accept_wait_5ms,accept_wait_10ms,accept_wait_20ms,accept_wait_50ms,"                \
	"accept_wait_100ms,accept_wait_200ms,accept_wait_500ms,accept_wait_1s,"              \
	"accept_wait_2s,accept_wait_5s,accept_wait_10s,accept_wait_20s,accept_wait_50s,"     \
	"accept_wait_over_50s,accept_wait_us,"                                               \
	"handshake_10us,handshake_20us,handshake_50us,handshake_100us,handshake_200us,"      \
	"handshake_500us,handshake_1ms,handshake_2ms,handshake_5ms,handshake_10ms,"          \
	"handshake_20ms,handshake_50ms,handshake_100ms,handshake_200ms,"                     \
	"handshake_500ms,handshake_1s,handshake_2s,handshake_5s,handshake_10s,"              \
	"handshake_20s,handshake_50s,handshake_over_50s,handshake_us,"                       \
	"retrans_in,retrans_out,retrans_rto_in,retrans_rto_out,segs_sent_in,segs_sent_out,"
/* The failed connects and the connects by latency, without a comma after
 * connect_us: the per-destination CSV's last columns. */
#define HEADER_CONNECT_NO_COMMA                                                              \
	"connfail_refused,connfail_timeout,connfail_unreach,connfail_abandoned,"             \
	"connfail_enetunreach,connfail_ehostunreach,connfail_eacces,connfail_einval,"        \
	"connfail_eperm,connfail_other,"                                                     \
	"connect_10us,connect_20us,connect_50us,connect_100us,connect_200us,"                \
	"connect_500us,connect_1ms,connect_2ms,connect_5ms,connect_10ms,connect_20ms,"       \
	"connect_50ms,connect_100ms,connect_200ms,connect_500ms,connect_1s,"                 \
	"connect_2s,connect_5s,connect_10s,connect_20s,connect_50s,connect_over_50s,"        \
	"connect_us"
/* The 23 accept_wait and 23 handshake columns and the 6 of segments sent
 * again, all 0. */
#define ZEROS_WAITS                                                                          \
	"0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,"                                     \
	"0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0"
/* HEADER_CONNECT's 85 columns, all 0. */
#define ZEROS_CONNECT                                                                        \
	"0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0," ZEROS_WAITS
/* The header tcptrace writes now: HEADER's columns with the optional ones
 * (open_in to handshake_us) before rst_sent_reasons. */
#define HEADER_NOW                                                                           \
	"time,elapsed_s,pid,comm,conn_in,conn_out,fin_active_in,fin_active_out,"             \
	"fin_passive_in,fin_passive_out,rst_sent_in,rst_sent_out,rst_recv_in,rst_recv_out,"  \
	"tw_in,tw_out,tw_now,eaddrnotavail,eaddrinuse,timeout_in,timeout_out,connfail_out,"  \
	"untracked,tw_rst,open_in,open_out,listen_drops,acceptq_peak,acceptq_limit,"          \
	"syn_retrans_out,synack_retrans_in," HEADER_CONNECT "rst_sent_reasons\n"
#define DEST_HEADER                                                                          \
	"time,elapsed_s,pid,comm,dest,conn_out,fin_active_out,fin_passive_out,rst_sent_out,"  \
	"rst_recv_out,timeout_out,tw_out,tw_now,connfail_out,eaddrnotavail,ports_held,"       \
	"ports_free,runout_s\n"
#define T1 "2026-11-22T16:45:01.000Z"
#define T2 "2026-11-22T16:45:02.000Z"
/* HEADER's 19 counters, conn_in to tw_rst, all 0. */
#define ZEROS "0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0"
/* HEADER_NOW's 20 counters from conn_in to tw_rst (eaddrinuse among them), all 0. */
#define ZEROS20 ZEROS ",0"
/* HEADER_NOW's 7 columns after tw_rst, all 0. */
#define ZEROS_NOW "0,0,0,0,0,0,0"

/* The line of text that starts with prefix, without its '\n'. */
static inline const char *line_of(const char *text, const char *prefix)
{
	static char line[4096];
	const char *p = text;

	for (;;) {
		size_t len = strcspn(p, "\n");

		if (!strncmp(p, prefix, strlen(prefix))) {
			assert_true(len < sizeof(line));
			memcpy(line, p, len);
			line[len] = '\0';
			return line;
		}
		if (!p[len])
			fail_msg("no line starts with '%s' in:\n%s", prefix, text);
		p += len + 1;
	}
}

#endif /* TT_CSV_FIXTURES_H */
