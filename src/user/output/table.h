/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The human-readable table: a two-line header per interval carrying the
 * clock, then one row per process, 78 columns wide. Pure formatting. */
#ifndef TT_TABLE_H
#define TT_TABLE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "common/stats.h"

/* Right-aligned into at most 5 characters: 0..99999 as is, then 100k..999k,
 * 1.0M..9.9M, 10M..999M, 1.0G.. and so on. buf must hold 8 bytes. */
void format_count(char *buf, size_t len, uint64_t v);

/* label is the clock ("16:45:01") for an interval, or "total" for the summary. */
void table_write_header(FILE *f, const char *label);
void table_write_row(FILE *f, const struct tt_row *row);

/* The failures, under the rows, in three blocks. A listener's: connection
 * attempts its listeners dropped and their queue, SYN-ACKs they sent again;
 * a row is in it when one is not zero or its accept queue got more than
 * half full (run: the queue since tracing began, the summary's, not the
 * interval's). A connecting process's: SYNs of its connect()s sent again,
 * its connect()s that failed after their SYN, by cause, those that found
 * no local port, and its bind()s to port 0 that found none; a row is in
 * it when one is not zero. Its connect()s refused before any SYN, by
 * errno; a row is in it when one is not zero. */
bool table_row_has_queue_failures(const struct tt_row *row, bool run);
void table_write_queue_failure_header(FILE *f);
void table_write_queue_failure_row(FILE *f, const struct tt_row *row, bool run);
bool table_row_has_connect_failures(const struct tt_row *row);
void table_write_connect_failure_header(FILE *f);
void table_write_connect_failure_row(FILE *f, const struct tt_row *row);
bool table_row_has_failures_before_syn(const struct tt_row *row);
void table_write_before_syn_header(FILE *f);
void table_write_before_syn_row(FILE *f, const struct tt_row *row);

/* The segments block, under the failures: data segments sent again, by
 * side, those of them sent after a retransmission timeout, the data
 * segments of the connections that ended, and the share of those sent
 * again ("-" while it cannot be told: nothing ended, or fewer segments of
 * ended connections than were sent again). A row is in it when it sent
 * any segment again. */
bool table_row_has_retrans(const struct tt_row *row);
void table_write_retrans_header(FILE *f);
void table_write_retrans_row(FILE *f, const struct tt_row *row);

/* part of whole as a percentage into at most 5 characters ("6.1%", "12%",
 * "<0.1%"), or "-" when whole is 0 or less than part. buf: 8 bytes. */
void format_share(char *buf, size_t len, uint64_t part, uint64_t whole);

/* The connect times block, under the failures: of the connect()s that
 * reached ESTABLISHED, how many, and the bound of the latency bucket
 * (common/connect_time.h) their p50, p99 and max fall in, and how many
 * took more than a second. A row is in it when one of its connects took
 * more than a second, or, run (the summary), when it has any. */
bool table_row_has_latency(const struct tt_row *row, bool run);
void table_write_latency_header(FILE *f);
void table_write_latency_row(FILE *f, const struct tt_row *row);

/* The accept queue block, under the connect times: of the connections the
 * process accepted where accept() is traced, how many, how many waited
 * more than 100 ms in their listener's queue, and the bound of the bucket
 * their p50, p99 and max wait fall in. A row is in it when one waited more
 * than 100 ms, or, run (the summary), when it has any. */
bool table_row_has_accept_wait(const struct tt_row *row, bool run);
void table_write_accept_wait_header(FILE *f);
void table_write_accept_wait_row(FILE *f, const struct tt_row *row);
/* The handshakes block: the handshakes a process's listeners completed, as
 * the listener saw them (all, over 1 s, p50, p99, max); a row for one over
 * 1 s in the intervals, for any in the summary. */
bool table_row_has_handshake(const struct tt_row *row, bool run);
void table_write_handshake_header(FILE *f);
void table_write_handshake_row(FILE *f, const struct tt_row *row);

/* "192.0.2.1:80" or "[2001:db8::1]:80". buf must hold TT_DEST_LEN bytes. */
#define TT_DEST_LEN 56
void format_dest(char *buf, size_t len, const struct tt_dest_row *row);

/* --by dest: the same, one row per process and destination. */
void table_write_dest_header(FILE *f, const char *label);
void table_write_dest_row(FILE *f, const struct tt_dest_row *row);
/* Under the destination rows, those toward which data segments were sent
 * again: how many, after a timeout, the segments sent, the share. */
bool table_dest_has_retrans(const struct tt_dest_row *row);
void table_write_dest_retrans_header(FILE *f);
void table_write_dest_retrans_row(FILE *f, const struct tt_dest_row *row);

#endif /* TT_TABLE_H */
