/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The hooks the integration tests reach tcptrace by, all named here: its
 * environment's TCPTRACE_TEST_* variables, none of them set in normal use. */
#ifndef TT_TEST_HOOKS_H
#define TT_TEST_HOOKS_H

#include <stdbool.h>

struct tt_test_hooks {
	/* TCPTRACE_TEST_DETACH_AFTER_START=NAME: that program detached after
	 * the self-check and before the "tracing" line, as if the kernel never
	 * ran it from then on (ends no program saw). */
	const char *detach_after_start;
	/* TCPTRACE_TEST_SOCKETS_LEFT: the socket table's entries at exit. */
	bool sockets_left;
	/* TCPTRACE_TEST_SEED_GATE=PATH: the seeds' write waits for PATH. */
	const char *seed_gate;
	/* TCPTRACE_TEST_NO_COOKIES: the counting filter, as before 5.12. */
	bool no_cookies;
	/* TCPTRACE_TEST_SKIP_PROGRAM=NAME: a program left unattached. */
	const char *skip_program;
	/* TCPTRACE_TEST_SELFCHECK_LATE_MS=N: the self-check's peer waits N ms. */
	const char *selfcheck_late_ms;
	/* TCPTRACE_TEST_LISTENERS_LATE_MS=N: each look at the listeners waits
	 * N ms between their dump and the read of their extra drops. */
	const char *listeners_late_ms;
	/* TCPTRACE_TEST_ARGS_KEPT: the syscall hooks keep connect()'s and
	 * bind()'s arguments at their entry, as before Linux 5.15. */
	bool args_kept;
	/* TCPTRACE_TEST_RETRANS_SKIP_EVERY=N: the retransmit hook ignores
	 * every Nth event, as if the kernel had run no program for it. */
	const char *retrans_skip_every;
	/* TCPTRACE_TEST_SWEEP_UNROLLED: the sweep at exit without bpf_loop,
	 * as before Linux 5.17. */
	bool sweep_unrolled;
};

/* Read from the environment at the first call. */
const struct tt_test_hooks *tt_test_hooks(void);

#endif /* TT_TEST_HOOKS_H */
