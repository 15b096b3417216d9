/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* CSV per RFC 4180: header once, then one row per process per interval.
 * Pure formatting into a FILE; the caller flushes per interval. */
#ifndef TT_CSV_H
#define TT_CSV_H

#include <stdio.h>
#include "common/stats.h"

/* scope: the run's (--cgroup, --unit, --netns), a last column "scope" in
 * the header and every row; NULL for none (no such column). */
void csv_write_header(FILE *f, const char *scope);

/* One field, quoted per RFC 4180 when it holds a comma, quote, CR or LF. */
void csv_put_field(FILE *f, const char *s);

/* iso_time: "2026-11-22T16:45:01.000Z"; elapsed_s: seconds since tracing
 * began, at the end of the interval. Returns 0, or -1 on a write error. */
int csv_write_row(FILE *f, const char *iso_time, double elapsed_s, const struct tt_row *row,
		  const struct tt_reason_names *names, const char *scope);

/* --by dest: its own header and one row per process and destination, the
 * columns of TT_DEST_COLUMNS. */
void csv_write_dest_header(FILE *f);
int csv_write_dest_row(FILE *f, const char *iso_time, double elapsed_s,
		       const struct tt_dest_row *row);

#endif /* TT_CSV_H */
