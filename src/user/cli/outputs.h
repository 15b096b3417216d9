/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Where the rows go: the table, the --csv and --json files or stdout, and
 * nothing but /metrics with --listen. */
#ifndef TT_OUTPUTS_H
#define TT_OUTPUTS_H

#include "cli/session.h"

/* Opens the files the options name and points s->rep at each output.
 * Returns 0, or an exit status after one line on stderr. */
int outputs_open(struct session *s);

/* Closes the files; a run that never said "tracing" leaves none behind.
 * Returns ret, or TT_EXIT_RUNTIME where a file of an ok run did not close. */
int outputs_close(struct session *s, int ret);

#endif /* TT_OUTPUTS_H */
