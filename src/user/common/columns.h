/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The columns of a process row, once, in the CSV's order: the name the CSV
 * header, the JSON lines, compare and the report use; what it is (a count
 * over the interval or a level at its end, in every CSV or only in those
 * written since it came); and
 * where a struct tt_row keeps it; and where /metrics has it. The writers,
 * the reader and /metrics expand this list: a new column is one entry
 * here and its field in struct tt_row. */
#ifndef TT_COLUMNS_H
#define TT_COLUMNS_H

#include <stdbool.h>
#include <stdint.h>
#include "common/stats.h"

/* What a column is: bits of its flags. */
#define TT_COL_COUNT 0x0 /* a count per interval, summed over intervals */
#define TT_COL_LEVEL 0x1 /* a value at the end of the interval (a gauge) */
#define TT_COL_LATER 0x2 /* CSVs of earlier versions lack it */
#define TT_COL_SECONDS 0x4 /* a destination row's: seconds, one decimal */

/* Failed connects by cause (enum tt_connfail): after their SYN, then
 * refused before it, by connect()'s errno. */
#define TT_CONNFAIL_COLUMNS(X, of)                                                        \
	X(CONNFAIL_REFUSED, "connfail_refused", TT_COL_LATER,                             \
	  (of).connfail_by[TT_CONNFAIL_REFUSED], "tcptrace_connect_failures_total",       \
	  "cause=\"refused\"")                                                            \
	X(CONNFAIL_TIMEOUT, "connfail_timeout", TT_COL_LATER,                             \
	  (of).connfail_by[TT_CONNFAIL_TIMEOUT], "tcptrace_connect_failures_total",       \
	  "cause=\"timeout\"")                                                            \
	X(CONNFAIL_UNREACH, "connfail_unreach", TT_COL_LATER,                             \
	  (of).connfail_by[TT_CONNFAIL_UNREACH], "tcptrace_connect_failures_total",       \
	  "cause=\"unreach\"")                                                            \
	X(CONNFAIL_ABANDONED, "connfail_abandoned", TT_COL_LATER,                         \
	  (of).connfail_by[TT_CONNFAIL_ABANDONED], "tcptrace_connect_failures_total",     \
	  "cause=\"abandoned\"")                                                          \
	X(CONNFAIL_ENETUNREACH, "connfail_enetunreach", TT_COL_LATER,                     \
	  (of).connfail_by[TT_CONNFAIL_ENETUNREACH], "tcptrace_connect_failures_total",   \
	  "cause=\"enetunreach\"")                                                        \
	X(CONNFAIL_EHOSTUNREACH, "connfail_ehostunreach", TT_COL_LATER,                   \
	  (of).connfail_by[TT_CONNFAIL_EHOSTUNREACH], "tcptrace_connect_failures_total",  \
	  "cause=\"ehostunreach\"")                                                       \
	X(CONNFAIL_EACCES, "connfail_eacces", TT_COL_LATER,                               \
	  (of).connfail_by[TT_CONNFAIL_EACCES], "tcptrace_connect_failures_total",        \
	  "cause=\"eacces\"")                                                             \
	X(CONNFAIL_EINVAL, "connfail_einval", TT_COL_LATER,                               \
	  (of).connfail_by[TT_CONNFAIL_EINVAL], "tcptrace_connect_failures_total",        \
	  "cause=\"einval\"")                                                             \
	X(CONNFAIL_EPERM, "connfail_eperm", TT_COL_LATER,                                 \
	  (of).connfail_by[TT_CONNFAIL_EPERM], "tcptrace_connect_failures_total",         \
	  "cause=\"eperm\"")                                                              \
	X(CONNFAIL_OTHER, "connfail_other", TT_COL_LATER,                                 \
	  (of).connfail_by[TT_CONNFAIL_OTHER], "tcptrace_connect_failures_total",         \
	  "cause=\"other\"")

/* Connects established, by latency: connect_B counts those above the bound
 * before B and at most B (common/connect_time.h); in /metrics, the
 * histogram tcptrace_connect_duration_seconds. */
#define TT_CONNECT_COLUMNS(X, of)                                                          \
	X(CONNECT_0, "connect_10us", TT_COL_LATER, (of).connect_le[0], "", "") \
	X(CONNECT_1, "connect_20us", TT_COL_LATER, (of).connect_le[1], "", "") \
	X(CONNECT_2, "connect_50us", TT_COL_LATER, (of).connect_le[2], "", "") \
	X(CONNECT_3, "connect_100us", TT_COL_LATER, (of).connect_le[3], "", "") \
	X(CONNECT_4, "connect_200us", TT_COL_LATER, (of).connect_le[4], "", "") \
	X(CONNECT_5, "connect_500us", TT_COL_LATER, (of).connect_le[5], "", "") \
	X(CONNECT_6, "connect_1ms", TT_COL_LATER, (of).connect_le[6], "", "") \
	X(CONNECT_7, "connect_2ms", TT_COL_LATER, (of).connect_le[7], "", "") \
	X(CONNECT_8, "connect_5ms", TT_COL_LATER, (of).connect_le[8], "", "") \
	X(CONNECT_9, "connect_10ms", TT_COL_LATER, (of).connect_le[9], "", "") \
	X(CONNECT_10, "connect_20ms", TT_COL_LATER, (of).connect_le[10], "", "") \
	X(CONNECT_11, "connect_50ms", TT_COL_LATER, (of).connect_le[11], "", "") \
	X(CONNECT_12, "connect_100ms", TT_COL_LATER, (of).connect_le[12], "", "") \
	X(CONNECT_13, "connect_200ms", TT_COL_LATER, (of).connect_le[13], "", "") \
	X(CONNECT_14, "connect_500ms", TT_COL_LATER, (of).connect_le[14], "", "") \
	X(CONNECT_15, "connect_1s", TT_COL_LATER, (of).connect_le[15], "", "") \
	X(CONNECT_16, "connect_2s", TT_COL_LATER, (of).connect_le[16], "", "") \
	X(CONNECT_17, "connect_5s", TT_COL_LATER, (of).connect_le[17], "", "") \
	X(CONNECT_18, "connect_10s", TT_COL_LATER, (of).connect_le[18], "", "") \
	X(CONNECT_19, "connect_20s", TT_COL_LATER, (of).connect_le[19], "", "") \
	X(CONNECT_20, "connect_50s", TT_COL_LATER, (of).connect_le[20], "", "") \
	X(CONNECT_21, "connect_over_50s", TT_COL_LATER, (of).connect_le[21], "", "") \
	X(CONNECT_US, "connect_us", TT_COL_LATER, (of).connect_us, "", "")

/* Connections accepted, by how long each waited in its listener's queue,
 * from the move to ESTABLISHED to accept(): accept_wait_B as connect_B.
 * Only where accept() is traced (fexit on inet_csk_accept); 0 elsewhere,
 * and the summary says so. In /metrics, the histogram
 * tcptrace_accept_wait_seconds. */
#define TT_ACCEPT_WAIT_COLUMNS(X)                                                            \
	X(ACCEPT_WAIT_0, "accept_wait_10us", TT_COL_LATER, r->t.acceptq_le[0], "", "")       \
	X(ACCEPT_WAIT_1, "accept_wait_20us", TT_COL_LATER, r->t.acceptq_le[1], "", "")       \
	X(ACCEPT_WAIT_2, "accept_wait_50us", TT_COL_LATER, r->t.acceptq_le[2], "", "")       \
	X(ACCEPT_WAIT_3, "accept_wait_100us", TT_COL_LATER, r->t.acceptq_le[3], "", "")      \
	X(ACCEPT_WAIT_4, "accept_wait_200us", TT_COL_LATER, r->t.acceptq_le[4], "", "")      \
	X(ACCEPT_WAIT_5, "accept_wait_500us", TT_COL_LATER, r->t.acceptq_le[5], "", "")      \
	X(ACCEPT_WAIT_6, "accept_wait_1ms", TT_COL_LATER, r->t.acceptq_le[6], "", "")        \
	X(ACCEPT_WAIT_7, "accept_wait_2ms", TT_COL_LATER, r->t.acceptq_le[7], "", "")        \
	X(ACCEPT_WAIT_8, "accept_wait_5ms", TT_COL_LATER, r->t.acceptq_le[8], "", "")        \
	X(ACCEPT_WAIT_9, "accept_wait_10ms", TT_COL_LATER, r->t.acceptq_le[9], "", "")       \
	X(ACCEPT_WAIT_10, "accept_wait_20ms", TT_COL_LATER, r->t.acceptq_le[10], "", "")     \
	X(ACCEPT_WAIT_11, "accept_wait_50ms", TT_COL_LATER, r->t.acceptq_le[11], "", "")     \
	X(ACCEPT_WAIT_12, "accept_wait_100ms", TT_COL_LATER, r->t.acceptq_le[12], "", "")    \
	X(ACCEPT_WAIT_13, "accept_wait_200ms", TT_COL_LATER, r->t.acceptq_le[13], "", "")    \
	X(ACCEPT_WAIT_14, "accept_wait_500ms", TT_COL_LATER, r->t.acceptq_le[14], "", "")    \
	X(ACCEPT_WAIT_15, "accept_wait_1s", TT_COL_LATER, r->t.acceptq_le[15], "", "")       \
	X(ACCEPT_WAIT_16, "accept_wait_2s", TT_COL_LATER, r->t.acceptq_le[16], "", "")       \
	X(ACCEPT_WAIT_17, "accept_wait_5s", TT_COL_LATER, r->t.acceptq_le[17], "", "")       \
	X(ACCEPT_WAIT_18, "accept_wait_10s", TT_COL_LATER, r->t.acceptq_le[18], "", "")      \
	X(ACCEPT_WAIT_19, "accept_wait_20s", TT_COL_LATER, r->t.acceptq_le[19], "", "")      \
	X(ACCEPT_WAIT_20, "accept_wait_50s", TT_COL_LATER, r->t.acceptq_le[20], "", "")      \
	X(ACCEPT_WAIT_21, "accept_wait_over_50s", TT_COL_LATER, r->t.acceptq_le[21], "", "") \
	X(ACCEPT_WAIT_US, "accept_wait_us", TT_COL_LATER, r->t.acceptq_us, "", "")

/* Connections a process's listeners completed, by the handshake as the
 * listener saw it: from its first SYN-ACK to ESTABLISHED (a SYN-ACK sent
 * again shows here as a second or more), handshake_B as connect_B; on the
 * listener's owner. In /metrics, the histogram tcptrace_handshake_seconds. */
#define TT_HANDSHAKE_COLUMNS(X)                                                               \
	X(HANDSHAKE_0, "handshake_10us", TT_COL_LATER, r->t.handshake_le[0], "", "")          \
	X(HANDSHAKE_1, "handshake_20us", TT_COL_LATER, r->t.handshake_le[1], "", "")          \
	X(HANDSHAKE_2, "handshake_50us", TT_COL_LATER, r->t.handshake_le[2], "", "")          \
	X(HANDSHAKE_3, "handshake_100us", TT_COL_LATER, r->t.handshake_le[3], "", "")         \
	X(HANDSHAKE_4, "handshake_200us", TT_COL_LATER, r->t.handshake_le[4], "", "")         \
	X(HANDSHAKE_5, "handshake_500us", TT_COL_LATER, r->t.handshake_le[5], "", "")         \
	X(HANDSHAKE_6, "handshake_1ms", TT_COL_LATER, r->t.handshake_le[6], "", "")           \
	X(HANDSHAKE_7, "handshake_2ms", TT_COL_LATER, r->t.handshake_le[7], "", "")           \
	X(HANDSHAKE_8, "handshake_5ms", TT_COL_LATER, r->t.handshake_le[8], "", "")           \
	X(HANDSHAKE_9, "handshake_10ms", TT_COL_LATER, r->t.handshake_le[9], "", "")          \
	X(HANDSHAKE_10, "handshake_20ms", TT_COL_LATER, r->t.handshake_le[10], "", "")        \
	X(HANDSHAKE_11, "handshake_50ms", TT_COL_LATER, r->t.handshake_le[11], "", "")        \
	X(HANDSHAKE_12, "handshake_100ms", TT_COL_LATER, r->t.handshake_le[12], "", "")       \
	X(HANDSHAKE_13, "handshake_200ms", TT_COL_LATER, r->t.handshake_le[13], "", "")       \
	X(HANDSHAKE_14, "handshake_500ms", TT_COL_LATER, r->t.handshake_le[14], "", "")       \
	X(HANDSHAKE_15, "handshake_1s", TT_COL_LATER, r->t.handshake_le[15], "", "")          \
	X(HANDSHAKE_16, "handshake_2s", TT_COL_LATER, r->t.handshake_le[16], "", "")          \
	X(HANDSHAKE_17, "handshake_5s", TT_COL_LATER, r->t.handshake_le[17], "", "")          \
	X(HANDSHAKE_18, "handshake_10s", TT_COL_LATER, r->t.handshake_le[18], "", "")         \
	X(HANDSHAKE_19, "handshake_20s", TT_COL_LATER, r->t.handshake_le[19], "", "")         \
	X(HANDSHAKE_20, "handshake_50s", TT_COL_LATER, r->t.handshake_le[20], "", "")         \
	X(HANDSHAKE_21, "handshake_over_50s", TT_COL_LATER, r->t.handshake_le[21], "", "")    \
	X(HANDSHAKE_US, "handshake_us", TT_COL_LATER, r->t.handshake_us, "", "")

/* Data segments sent again, and those sent after a retransmission
 * timeout, by side; the data segments the side's connections sent,
 * counted as each ends. */
#define TT_RETRANS_COLUMNS(X)                                                             \
	X(RETRANS_IN, "retrans_in", TT_COL_LATER, r->c.retrans[TT_SIDE_IN],               \
	  "tcptrace_segments_retransmitted_total", "side=\"in\"")                        \
	X(RETRANS_OUT, "retrans_out", TT_COL_LATER, r->c.retrans[TT_SIDE_OUT],            \
	  "tcptrace_segments_retransmitted_total", "side=\"out\"")                       \
	X(RETRANS_RTO_IN, "retrans_rto_in", TT_COL_LATER, r->c.retrans_rto[TT_SIDE_IN],   \
	  "tcptrace_segments_retransmitted_rto_total", "side=\"in\"")                    \
	X(RETRANS_RTO_OUT, "retrans_rto_out", TT_COL_LATER, r->c.retrans_rto[TT_SIDE_OUT], \
	  "tcptrace_segments_retransmitted_rto_total", "side=\"out\"")                   \
	X(SEGS_SENT_IN, "segs_sent_in", TT_COL_LATER, r->c.segs_sent[TT_SIDE_IN],         \
	  "tcptrace_segments_sent_total", "side=\"in\"")                                 \
	X(SEGS_SENT_OUT, "segs_sent_out", TT_COL_LATER, r->c.segs_sent[TT_SIDE_OUT],      \
	  "tcptrace_segments_sent_total", "side=\"out\"")

/* X(ID, name, flags, value of const struct tt_row *r, its /metrics family
 * per process name, the labels it has there besides comm) */
#define TT_COLUMNS(X)                                                                            \
	X(CONN_IN, "conn_in", TT_COL_COUNT, r->c.conn[TT_SIDE_IN],                               \
	  "tcptrace_connections_total", "side=\"in\"")                                            \
	X(CONN_OUT, "conn_out", TT_COL_COUNT, r->c.conn[TT_SIDE_OUT],                             \
	  "tcptrace_connections_total", "side=\"out\"")                                           \
	X(FIN_ACTIVE_IN, "fin_active_in", TT_COL_COUNT, r->c.fin_active[TT_SIDE_IN],             \
	  "tcptrace_connections_closed_total", "side=\"in\",how=\"fin_active\"")                  \
	X(FIN_ACTIVE_OUT, "fin_active_out", TT_COL_COUNT, r->c.fin_active[TT_SIDE_OUT],           \
	  "tcptrace_connections_closed_total", "side=\"out\",how=\"fin_active\"")                 \
	X(FIN_PASSIVE_IN, "fin_passive_in", TT_COL_COUNT, r->c.fin_passive[TT_SIDE_IN],          \
	  "tcptrace_connections_closed_total", "side=\"in\",how=\"fin_passive\"")                 \
	X(FIN_PASSIVE_OUT, "fin_passive_out", TT_COL_COUNT, r->c.fin_passive[TT_SIDE_OUT],        \
	  "tcptrace_connections_closed_total", "side=\"out\",how=\"fin_passive\"")                \
	X(RST_SENT_IN, "rst_sent_in", TT_COL_COUNT, r->c.rst_sent[TT_SIDE_IN],                   \
	  "tcptrace_connections_closed_total", "side=\"in\",how=\"rst_sent\"")                    \
	X(RST_SENT_OUT, "rst_sent_out", TT_COL_COUNT, r->c.rst_sent[TT_SIDE_OUT],                 \
	  "tcptrace_connections_closed_total", "side=\"out\",how=\"rst_sent\"")                   \
	X(RST_RECV_IN, "rst_recv_in", TT_COL_COUNT, r->c.rst_recv[TT_SIDE_IN],                   \
	  "tcptrace_connections_closed_total", "side=\"in\",how=\"rst_recv\"")                    \
	X(RST_RECV_OUT, "rst_recv_out", TT_COL_COUNT, r->c.rst_recv[TT_SIDE_OUT],                 \
	  "tcptrace_connections_closed_total", "side=\"out\",how=\"rst_recv\"")                   \
	X(TW_IN, "tw_in", TT_COL_COUNT, r->c.tw[TT_SIDE_IN],                                     \
	  "tcptrace_timewait_total", "side=\"in\"")                                               \
	X(TW_OUT, "tw_out", TT_COL_COUNT, r->c.tw[TT_SIDE_OUT],                                   \
	  "tcptrace_timewait_total", "side=\"out\"")                                              \
	X(TW_NOW, "tw_now", TT_COL_LEVEL, r->tw_now,                               \
	  "tcptrace_timewait_sockets", "")                                                        \
	X(EADDRNOTAVAIL, "eaddrnotavail", TT_COL_COUNT, r->c.eaddrnotavail,                       \
	  "tcptrace_connect_eaddrnotavail_total", "")                                             \
	X(EADDRINUSE, "eaddrinuse", TT_COL_COUNT | TT_COL_LATER, r->c.eaddrinuse,                \
	  "tcptrace_bind_eaddrinuse_total", "")                                                   \
	X(TIMEOUT_IN, "timeout_in", TT_COL_COUNT, r->c.timeout[TT_SIDE_IN],                      \
	  "tcptrace_connections_closed_total", "side=\"in\",how=\"timeout\"")                     \
	X(TIMEOUT_OUT, "timeout_out", TT_COL_COUNT, r->c.timeout[TT_SIDE_OUT],                    \
	  "tcptrace_connections_closed_total", "side=\"out\",how=\"timeout\"")                    \
	X(CONNFAIL_OUT, "connfail_out", TT_COL_COUNT, r->c.connfail,                              \
	  "tcptrace_connect_failed_total", "")                                                    \
	X(UNTRACKED, "untracked", TT_COL_COUNT, r->c.untracked,                                  \
	  "tcptrace_untracked_sockets_total", "")                                                 \
	X(TW_RST, "tw_rst", TT_COL_COUNT, r->c.tw_rst, "tcptrace_timewait_rst_total", "")        \
	X(OPEN_IN, "open_in", TT_COL_LEVEL | TT_COL_LATER, r->open[TT_SIDE_IN],                  \
	  "tcptrace_open_connections", "side=\"in\"")                                             \
	X(OPEN_OUT, "open_out", TT_COL_LEVEL | TT_COL_LATER, r->open[TT_SIDE_OUT],               \
	  "tcptrace_open_connections", "side=\"out\"")                                            \
	X(LISTEN_DROPS, "listen_drops", TT_COL_LATER, r->listen_drops,                           \
	  "tcptrace_listen_drops_total", "")                                                      \
	X(ACCEPTQ_PEAK, "acceptq_peak", TT_COL_LEVEL | TT_COL_LATER, r->acceptq_peak,            \
	  "tcptrace_acceptq_peak", "")                                                            \
	X(ACCEPTQ_LIMIT, "acceptq_limit", TT_COL_LEVEL | TT_COL_LATER, r->acceptq_limit,         \
	  "tcptrace_acceptq_limit", "")                                                           \
	X(SYN_RETRANS_OUT, "syn_retrans_out", TT_COL_LATER, r->c.syn_retrans,                    \
	  "tcptrace_syn_retransmits_total", "side=\"out\"")                                       \
	X(SYNACK_RETRANS_IN, "synack_retrans_in", TT_COL_LATER, r->c.synack_retrans,             \
	  "tcptrace_syn_retransmits_total", "side=\"in\"") \
	TT_CONNFAIL_COLUMNS(X, r->c)                                                              \
	TT_CONNECT_COLUMNS(X, r->t)                                                                   \
	TT_ACCEPT_WAIT_COLUMNS(X)                                                                 \
	TT_HANDSHAKE_COLUMNS(X)                                                                   \
	TT_RETRANS_COLUMNS(X)

enum tt_csv_col {
#define TT_COLUMN_ID(id, name, flags, value, metric, labels) TT_CSV_##id,
	TT_COLUMNS(TT_COLUMN_ID)
#undef TT_COLUMN_ID
	TT_CSV_COLS,
};

/* Header names, indexed by enum tt_csv_col. */
extern const char *const tt_csv_col_names[TT_CSV_COLS];

/* A column's value in a row. */
uint64_t tt_column_value(const struct tt_row *r, enum tt_csv_col col);

/* Where /metrics has a column: its family, and the labels besides comm
 * ("" for none). */
const char *tt_column_metric(enum tt_csv_col col);
const char *tt_column_labels(enum tt_csv_col col);

/* A level holds a value at the end of the interval; every other column is
 * a count per interval. */
bool csv_col_is_level(enum tt_csv_col col);
/* A column CSVs of earlier versions lack. */
bool csv_col_optional(enum tt_csv_col col);
/* A column the destination rows (--by dest) have too: one of the same
 * name in TT_DEST_COLUMNS. */
bool csv_dest_has(enum tt_csv_col col);

/* The columns of a destination row (--by dest), in its CSV's order after
 * time, elapsed_s, pid, comm and dest, as TT_COLUMNS: X(ID, name, flags,
 * value of const struct tt_dest_row *d, "", ""). A name that a process row
 * has too means the same there. The CSV and JSON writers and the reader
 * expand this list. */
#define TT_DEST_COLUMNS(X)                                                               \
	X(CONN_OUT, "conn_out", TT_COL_COUNT, d->c.conn, "", "")                         \
	X(FIN_ACTIVE_OUT, "fin_active_out", TT_COL_COUNT, d->c.fin_active, "", "")       \
	X(FIN_PASSIVE_OUT, "fin_passive_out", TT_COL_COUNT, d->c.fin_passive, "", "")    \
	X(RST_SENT_OUT, "rst_sent_out", TT_COL_COUNT, d->c.rst_sent, "", "")             \
	X(RST_RECV_OUT, "rst_recv_out", TT_COL_COUNT, d->c.rst_recv, "", "")             \
	X(TIMEOUT_OUT, "timeout_out", TT_COL_COUNT, d->c.timeout, "", "")                \
	X(TW_OUT, "tw_out", TT_COL_COUNT, d->c.tw, "", "")                               \
	X(TW_NOW, "tw_now", TT_COL_LEVEL, d->tw_now, "", "")                             \
	X(CONNFAIL_OUT, "connfail_out", TT_COL_COUNT, d->c.connfail, "", "")             \
	X(EADDRNOTAVAIL, "eaddrnotavail", TT_COL_COUNT, d->c.eaddrnotavail, "", "")      \
	X(PORTS_HELD, "ports_held", TT_COL_LEVEL, d->ports_held, "", "")                 \
	X(PORTS_FREE, "ports_free", TT_COL_LEVEL, d->ports_free, "", "")                 \
	X(RUNOUT_S, "runout_s", TT_COL_LEVEL | TT_COL_SECONDS, d->runout_s, "", "")      \
	TT_CONNFAIL_COLUMNS(X, d->c)                                                     \
	TT_CONNECT_COLUMNS(X, d->c)                                                      \
	X(RETRANS_OUT, "retrans_out", TT_COL_LATER, d->c.retrans, "", "")                \
	X(RETRANS_RTO_OUT, "retrans_rto_out", TT_COL_LATER, d->c.retrans_rto, "", "")    \
	X(SEGS_SENT_OUT, "segs_sent_out", TT_COL_LATER, d->c.segs_sent, "", "")

enum tt_dest_col {
#define TT_DEST_COLUMN_ID(id, name, flags, value, metric, labels) TT_DEST_##id,
	TT_DEST_COLUMNS(TT_DEST_COLUMN_ID)
#undef TT_DEST_COLUMN_ID
	TT_DEST_COLS,
};

/* Header names of a destination row's columns, by enum tt_dest_col. */
extern const char *const tt_dest_col_names[TT_DEST_COLS];

/* A destination row's column: a count or level, or (TT_COL_SECONDS) a
 * number of seconds, *seconds set and 0 returned. */
uint64_t tt_dest_column_value(const struct tt_dest_row *d, enum tt_dest_col col, double *seconds);
bool tt_dest_col_is_seconds(enum tt_dest_col col);

#endif /* TT_COLUMNS_H */
