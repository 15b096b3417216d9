/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* `tcptrace compare`: the command line over offline/compare and
 * offline/compare_write. */
#ifndef TT_COMPARE_CLI_H
#define TT_COMPARE_CLI_H

#include <stdio.h>

/* `tcptrace compare FILE FILE... [--csv]` with argv[0] "compare": the
 * report on out, one line on err when something fails. Returns the exit
 * status: 0 ok, 1 a file could not be read (or out not written), 2 usage
 * or malformed input. */
int compare_cli(int argc, char **argv, FILE *out, FILE *err);

/* compare_cli() on stdout and stderr: the entry point for main(). */
int compare_main(int argc, char **argv);

/* Help text for `tcptrace compare --help`. */
extern const char compare_usage[];

#endif /* TT_COMPARE_CLI_H */
