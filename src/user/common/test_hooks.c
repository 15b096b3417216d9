// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The integration tests' hooks, read from the environment once. */
#include <stdlib.h>
#include "common/test_hooks.h"

const struct tt_test_hooks *tt_test_hooks(void)
{
	static struct tt_test_hooks hooks;
	static bool read;

	if (!read) {
		hooks.detach_after_start = getenv("TCPTRACE_TEST_DETACH_AFTER_START");
		hooks.sockets_left = getenv("TCPTRACE_TEST_SOCKETS_LEFT") != NULL;
		hooks.seed_gate = getenv("TCPTRACE_TEST_SEED_GATE");
		hooks.no_cookies = getenv("TCPTRACE_TEST_NO_COOKIES") != NULL;
		hooks.skip_program = getenv("TCPTRACE_TEST_SKIP_PROGRAM");
		hooks.selfcheck_late_ms = getenv("TCPTRACE_TEST_SELFCHECK_LATE_MS");
		hooks.listeners_late_ms = getenv("TCPTRACE_TEST_LISTENERS_LATE_MS");
		hooks.args_kept = getenv("TCPTRACE_TEST_ARGS_KEPT") != NULL;
		hooks.retrans_skip_every = getenv("TCPTRACE_TEST_RETRANS_SKIP_EVERY");
		hooks.sweep_unrolled = getenv("TCPTRACE_TEST_SWEEP_UNROLLED") != NULL;
		read = true;
	}
	return &hooks;
}
