/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* tcptrace compare's report as text or CSV, from compare_report_build()'s
 * sections. Pure. */
#ifndef TT_COMPARE_WRITE_H
#define TT_COMPARE_WRITE_H

#include <stddef.h>
#include <stdio.h>
#include "offline/compare.h"

/* Which run held more TIME_WAIT at its peak, in one sentence and a line end. */
void compare_write_verdict(FILE *f, const struct compare_run *runs, size_t n);

/* The report as aligned text: one line per run (file, duration,
 * processes), then each section of compare_report_build() as a table with
 * a header line, the verdict under TIME_WAIT. Each count has its total and
 * rate per run, and the ratio of each later run to the first. Fits 100
 * columns for two runs. Returns 0, or -1 when f has an error. */
int compare_write_text(FILE *f, const struct compare_run *runs, size_t n);

/* The same figures as CSV, one row per counter per run:
 * counter,run,file,total,per_second,ratio_to_first,comm. comm names the
 * process name of the rows per name (listen_drops, acceptq_peak,
 * acceptq_limit), and is empty in the others; total, per_second and
 * ratio_to_first are empty for a run whose file lacks the column. */
int compare_write_csv(FILE *f, const struct compare_run *runs, size_t n);

#endif /* TT_COMPARE_WRITE_H */
