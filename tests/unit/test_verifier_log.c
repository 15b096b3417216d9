// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Unit tests of verifier_log.c: the statistics of a BPF_LOG_STATS log. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "tracer/verifier_log.h"

static void test_log_of_a_recent_kernel_gives_time_and_insns(void **state)
{
	struct tt_verifier_stats st;

	(void)state;
	assert_int_equal(verifier_log_stats("func#0 @0\nverification time 1534 usec\n"
					    "stack depth 88+0\nprocessed 21718 insns (limit "
					    "1000000) max_states_per_insn 4 total_states 1500 "
					    "peak_states 800 mark_read 300\n",
					    &st),
			 0);
	assert_int_equal(st.insns, 21718);
	assert_int_equal(st.usec, 1534);
}

static void test_log_of_an_older_kernel_has_no_time(void **state)
{
	struct tt_verifier_stats st;

	(void)state;
	assert_int_equal(verifier_log_stats("processed 512 insns (limit 1000000) "
					    "max_states_per_insn 1 total_states 30\n",
					    &st),
			 0);
	assert_int_equal(st.insns, 512);
	assert_int_equal(st.usec, 0);
}

static void test_log_without_a_count_is_refused(void **state)
{
	struct tt_verifier_stats st;

	(void)state;
	assert_int_equal(verifier_log_stats("", &st), -1);
	assert_int_equal(verifier_log_stats(NULL, &st), -1);
	assert_int_equal(verifier_log_stats("processed many insns", &st), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_log_of_a_recent_kernel_gives_time_and_insns),
		cmocka_unit_test(test_log_of_an_older_kernel_has_no_time),
		cmocka_unit_test(test_log_without_a_count_is_refused),
	};

	return cmocka_run_group_tests_name("verifier_log", tests, NULL, NULL);
}
