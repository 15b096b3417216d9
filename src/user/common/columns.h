/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The columns of a process row, once, in the CSV's order: the name the CSV
 * header, the JSON lines, compare and the report use; what it is (a count
 * over the interval or a level at its end, in every CSV or only in those
 * written since it came, also in the per-destination CSV or not); and
 * where a struct tt_row keeps it. The writers and the reader expand this
 * list: a new column is one line here and its field in struct tt_row. */
#ifndef TT_COLUMNS_H
#define TT_COLUMNS_H

#include <stdbool.h>
#include <stdint.h>
#include "common/stats.h"

/* What a column is: bits of its flags. */
#define TT_COL_COUNT 0x0 /* a count per interval, summed over intervals */
#define TT_COL_LEVEL 0x1 /* a value at the end of the interval (a gauge) */
#define TT_COL_LATER 0x2 /* CSVs of earlier versions lack it */
#define TT_COL_DEST  0x4 /* the per-destination CSV (--by dest) has it too */

/* X(ID, name, flags, value of const struct tt_row *r) */
#define TT_COLUMNS(X)                                                                       \
	X(CONN_IN, "conn_in", TT_COL_COUNT, r->c.conn[TT_SIDE_IN])                          \
	X(CONN_OUT, "conn_out", TT_COL_DEST, r->c.conn[TT_SIDE_OUT])                        \
	X(FIN_ACTIVE_IN, "fin_active_in", TT_COL_COUNT, r->c.fin_active[TT_SIDE_IN])        \
	X(FIN_ACTIVE_OUT, "fin_active_out", TT_COL_DEST, r->c.fin_active[TT_SIDE_OUT])      \
	X(FIN_PASSIVE_IN, "fin_passive_in", TT_COL_COUNT, r->c.fin_passive[TT_SIDE_IN])     \
	X(FIN_PASSIVE_OUT, "fin_passive_out", TT_COL_DEST, r->c.fin_passive[TT_SIDE_OUT])   \
	X(RST_SENT_IN, "rst_sent_in", TT_COL_COUNT, r->c.rst_sent[TT_SIDE_IN])              \
	X(RST_SENT_OUT, "rst_sent_out", TT_COL_DEST, r->c.rst_sent[TT_SIDE_OUT])            \
	X(RST_RECV_IN, "rst_recv_in", TT_COL_COUNT, r->c.rst_recv[TT_SIDE_IN])              \
	X(RST_RECV_OUT, "rst_recv_out", TT_COL_DEST, r->c.rst_recv[TT_SIDE_OUT])            \
	X(TW_IN, "tw_in", TT_COL_COUNT, r->c.tw[TT_SIDE_IN])                                \
	X(TW_OUT, "tw_out", TT_COL_DEST, r->c.tw[TT_SIDE_OUT])                              \
	X(TW_NOW, "tw_now", TT_COL_LEVEL | TT_COL_DEST, r->tw_now)                          \
	X(EADDRNOTAVAIL, "eaddrnotavail", TT_COL_DEST, r->c.eaddrnotavail)                  \
	X(TIMEOUT_IN, "timeout_in", TT_COL_COUNT, r->c.timeout[TT_SIDE_IN])                 \
	X(TIMEOUT_OUT, "timeout_out", TT_COL_DEST, r->c.timeout[TT_SIDE_OUT])               \
	X(CONNFAIL_OUT, "connfail_out", TT_COL_DEST, r->c.connfail)                         \
	X(UNTRACKED, "untracked", TT_COL_COUNT, r->c.untracked)                             \
	X(TW_RST, "tw_rst", TT_COL_COUNT, r->c.tw_rst)                                      \
	X(OPEN_IN, "open_in", TT_COL_LEVEL | TT_COL_LATER, r->open[TT_SIDE_IN])             \
	X(OPEN_OUT, "open_out", TT_COL_LEVEL | TT_COL_LATER, r->open[TT_SIDE_OUT])          \
	X(LISTEN_DROPS, "listen_drops", TT_COL_LATER, r->listen_drops)                      \
	X(ACCEPTQ_PEAK, "acceptq_peak", TT_COL_LEVEL | TT_COL_LATER, r->acceptq_peak)       \
	X(ACCEPTQ_LIMIT, "acceptq_limit", TT_COL_LEVEL | TT_COL_LATER, r->acceptq_limit)    \
	X(SYN_RETRANS_OUT, "syn_retrans_out", TT_COL_LATER, r->c.syn_retrans)               \
	X(SYNACK_RETRANS_IN, "synack_retrans_in", TT_COL_LATER, r->c.synack_retrans)

enum tt_csv_col {
#define TT_COLUMN_ID(id, name, flags, value) TT_CSV_##id,
	TT_COLUMNS(TT_COLUMN_ID)
#undef TT_COLUMN_ID
	TT_CSV_COLS,
};

/* Header names, indexed by enum tt_csv_col. */
extern const char *const tt_csv_col_names[TT_CSV_COLS];

/* A column's value in a row. */
uint64_t tt_column_value(const struct tt_row *r, enum tt_csv_col col);

/* A level holds a value at the end of the interval; every other column is
 * a count per interval. */
bool csv_col_is_level(enum tt_csv_col col);
/* A column CSVs of earlier versions lack. */
bool csv_col_optional(enum tt_csv_col col);
/* A column the per-destination CSV has too. */
bool csv_dest_has(enum tt_csv_col col);

#endif /* TT_COLUMNS_H */
