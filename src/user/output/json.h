/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* JSON lines: one object per process per interval, with the CSV's fields
 * and names. Pure formatting into a FILE; the caller flushes per interval. */
#ifndef TT_JSON_H
#define TT_JSON_H

#include <stdio.h>
#include "output/csv.h"
#include "common/stats.h"

/* s (len bytes) as a JSON string in quotes: '"', '\\' and control bytes
 * escaped, bytes that are not UTF-8 written as U+FFFD. */
void json_put_string(FILE *f, const char *s, size_t len);

/* The same, safe inside an HTML <script> element: '<', '>', '&', U+2028 and
 * U+2029 written as \u escapes too. */
void json_put_string_for_html(FILE *f, const char *s, size_t len);

/* One line: {"time":...,"elapsed_s":...,"pid":...,"comm":...,"conn_in":...,
 * ...,"rst_sent_reasons":{"NAME":count,...}} (then "scope":"..." when scope
 * is not NULL). The same arguments and the same fields, in the same order,
 * as csv_write_row. Returns 0, or -1 on a write error; a line is never
 * written in part by this function. */
int json_write_row(FILE *f, const char *iso_time, double elapsed_s, const struct tt_row *row,
		   const struct tt_reason_names *names, const char *scope);

/* --by dest: one line per process and destination, with the fields of
 * csv_write_dest_row ("dest" a string, runout_s a number). */
int json_write_dest_row(FILE *f, const char *iso_time, double elapsed_s,
			const struct tt_dest_row *row);

#endif /* TT_JSON_H */
