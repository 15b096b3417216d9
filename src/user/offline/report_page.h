/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The page of `tcptrace report`: one HTML file that needs nothing else. It
 * holds the runs, compare's sections as tables (compare_report_build()), the
 * destinations of --by dest runs, the runs' series as JSON, the chart
 * library and the page's own style and script, which draws the charts.
 * Pure: writes to a FILE. */
#ifndef TT_REPORT_PAGE_H
#define TT_REPORT_PAGE_H

#include <stddef.h>
#include <stdio.h>
#include "offline/compare.h"
#include "offline/timeline.h"

/* Writes the page of n runs (at least 1), each later run against the
 * first: sums[i] holds run i's totals, rates and processes (compare's), and
 * tls[i] its series over time. chart_lib is the chart library's source
 * (Chart.js 3 or later). Returns 0, or -1 when f has an error. */
int report_page_write(FILE *f, const struct compare_run *sums, const struct timeline *tls,
		      size_t n, const char *chart_lib, size_t chart_lib_len);

#endif /* TT_REPORT_PAGE_H */
