/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The tracing loop: a row block per interval until the run ends, and the
 * signals that end it. */
#ifndef TT_LOOP_H
#define TT_LOOP_H

#include "cli/command.h"
#include "cli/options.h"
#include "output/exporter.h"
#include "output/report.h"
#include "tracer/tracer.h"

/* SIGINT, SIGTERM and SIGHUP end the run, SIGCHLD wakes the wait; all of
 * them are blocked but while the loop waits. */
void loop_signals_install(void);

/* Trace from first until duration, count, a signal, COMMAND's end (run
 * mode) or the exit of the processes named by PID; last gets the final
 * snapshot. Returns an exit status. */
int trace_loop(struct tracer *t, const struct tt_options *opts, struct report *rep,
	       struct command *cmd, struct exporter *exp, struct tt_snapshot *first,
	       struct tt_snapshot *last);

#endif /* TT_LOOP_H */
