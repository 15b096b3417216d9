/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Proof at start-up that tcptrace's programs see TCP on this kernel. */
#ifndef TT_SELFCHECK_H
#define TT_SELFCHECK_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "tracer/tracer.h"

/* Two processes of tcptrace's own, in a network namespace of their own,
 * make one loopback connection; the connecting one closes first. Its
 * counts must come out as conn_out, fin_active_out and tw_out of the one,
 * conn_in and fin_passive_in of the other, and nothing else. Every trace
 * of them is then removed from the maps, so the connection never shows in
 * a row, a total or a metric. */
struct selfcheck {
	pid_t server;    /* the accepting end, its process group holding both; 0: none */
	uint32_t client; /* the connecting end, once the server has said it */
	int go[2], report[2];
};

/* Starts the two processes, which wait: before any BPF object exists, so
 * that they never hold one and their start (two forks and a network
 * namespace) runs while the programs load. Returns 0, or -1 with one line
 * in err. */
int selfcheck_start(struct selfcheck *sc, char *err, size_t errlen);

/* The PIDs of the started processes, for the seeding to leave out (their
 * namespace is the self-check's): n of them, at most 2. */
size_t selfcheck_pids(struct selfcheck *sc, uint32_t pids[2]);

/* After attaching, as root: lets them connect, reads their counts, and
 * stops them. Returns 0, or -1 with one line in err that says what was not
 * seen and names the kernel release. */
int selfcheck_run(struct selfcheck *sc, struct tracer *t, char *err, size_t errlen);

/* Kills and reaps them, if started; safe to call again. */
void selfcheck_stop(struct selfcheck *sc);

#endif /* TT_SELFCHECK_H */
