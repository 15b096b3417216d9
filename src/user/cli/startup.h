/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* --verbose: where the time from launch to "tracing" went. */
#ifndef TT_STARTUP_H
#define TT_STARTUP_H

#include <stdint.h>
#include "tracer/tracer.h"

/* --verbose: the steps from launch to "tracing", each ending at a mark. */
enum startup_step { STEP_OPEN, STEP_LOAD, STEP_ATTACH, STEP_SEED, STEP_SELFCHECK, STEPS };

struct startup_clock {
	uint64_t begun_ns;
	uint64_t ended_ns[STEPS];
};

uint64_t monotonic_ns(void);
void startup_mark(struct startup_clock *clock, enum startup_step step);
/* "tcptrace: start-up N ms: open N, load N, ..." on stderr. */
void startup_print(const struct startup_clock *clock);
/* Each program's instructions walked by the verifier and its time. */
void verifier_stats_print(const struct tracer *t);

#endif /* TT_STARTUP_H */
