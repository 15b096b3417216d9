/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Start-up: the tracer opened, loaded, attached, seeded and checked, root
 * given up, and the "tracing" line; with --verbose, where its time went. */
#ifndef TT_STARTUP_H
#define TT_STARTUP_H

#include <stdint.h>
#include "cli/session.h"
#include "tracer/tracer.h"

uint64_t monotonic_ns(void);
void startup_mark(struct startup_clock *clock, enum startup_step step);
/* "tcptrace: start-up N ms: open N, load N, ..." on stderr. */
void startup_print(const struct startup_clock *clock);
/* Each program's instructions walked by the verifier and its time. */
void verifier_stats_print(const struct tracer *t);

/* Open, load, attach, seed and self-check the tracer, and take the first
 * snapshot. Returns 0, or an exit status after one line on stderr. */
int startup_trace(struct session *s);

/* COMMAND started, root given up, the watch begun, and "tcptrace:
 * tracing ..." said. Returns 0, or an exit status after one line on
 * stderr. */
int startup_go_live(struct session *s);

#endif /* TT_STARTUP_H */
