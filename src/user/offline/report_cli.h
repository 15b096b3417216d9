/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* tcptrace report: CSV runs in, one self-contained HTML page out. Reads the
 * files and the chart library, and writes the page whole or not at all: to
 * a temporary file beside it, renamed over it once complete. */
#ifndef TT_REPORT_CLI_H
#define TT_REPORT_CLI_H

#include <stdio.h>

/* Chart.js as Debian's libjs-chart.js installs it; read when a page is
 * written, and embedded in it. */
#ifndef TT_CHART_LIB
#define TT_CHART_LIB "/usr/share/javascript/chart.js/chart.min.js"
#endif
#define TT_CHART_LIB_PACKAGE "libjs-chart.js"

/* `tcptrace report FILE... -o FILE.html` with argv[0] "report", the chart
 * library read from chart_lib: the help on out, one line on err when
 * something fails. Returns the exit status: 0 ok, 1 a file could not be
 * read or the page not written, 2 usage, malformed input, or an output
 * path that cannot be written. */
int report_cli(int argc, char **argv, const char *chart_lib, FILE *out, FILE *err);

/* report_cli() with TT_CHART_LIB, on stdout and stderr: the entry point
 * for main(). */
int report_main(int argc, char **argv);

/* Help text for `tcptrace report --help`. */
extern const char report_usage[];

#endif /* TT_REPORT_CLI_H */
