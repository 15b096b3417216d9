/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The types of one tracing run's resources, from the options to the last
 * snapshot: each step of main()'s life cycle fills its part. Types only,
 * so that every step's module can share them. */
#ifndef TT_SESSION_H
#define TT_SESSION_H

#include <stdbool.h>
#include <stdio.h>
#include "cli/command.h"
#include "cli/options.h"
#include "cli/scope.h"
#include "output/exporter.h"
#include "output/report.h"
#include "tracer/selfcheck.h"
#include "tracer/tracer.h"

/* --pid's processes: those running at launch, matched again once the
 * programs are attached (targets.c). */
struct targets {
	uint32_t pids[TT_MAX_TRACED * 4];
	size_t n_pids;
	bool found[TT_MAX_TRACED]; /* a NAME had a process at launch */
	uint32_t *in_scope;        /* --cgroup, --unit or --netns without --pid */
};

/* --verbose: the steps from launch to "tracing", each ending at a mark. */
enum startup_step { STEP_OPEN, STEP_LOAD, STEP_ATTACH, STEP_SEED, STEP_SELFCHECK, STEPS };

struct startup_clock {
	uint64_t begun_ns;
	uint64_t ended_ns[STEPS];
};

struct session {
	struct tt_options opts;
	struct targets targets;
	struct tt_scope scope;
	struct exporter exp;
	struct report rep;
	FILE *csv_file, *json_file; /* --csv and --json files of tcptrace's own */
	struct command cmd;
	bool cmd_prepared;
	struct selfcheck check;
	struct tracer_config cfg;
	uint32_t cfg_pids[TT_MAX_TRACED];
	char cfg_comms[TT_MAX_TRACED][TT_COMM_LEN];
	struct tracer t;
	struct startup_clock clock;
	struct tt_snapshot first, last;
	bool tracing; /* the "tracing" line was said: the outputs are kept */
};

#endif /* TT_SESSION_H */
