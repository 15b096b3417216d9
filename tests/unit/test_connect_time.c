// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Connect latency buckets: bounds as the BPF side's ladder, quantiles as
 * the bucket they fall in, and their text. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>
#include "common/connect_time.h"

static void test_bounds_are_1_2_5_steps_from_10_us(void **state)
{
	(void)state;
	assert_int_equal(tt_connect_bound_us(0), 10);
	assert_int_equal(tt_connect_bound_us(1), 20);
	assert_int_equal(tt_connect_bound_us(2), 50);
	assert_int_equal(tt_connect_bound_us(3), 100);
	assert_int_equal(tt_connect_bound_us(TT_CONNECT_1S), 1000000);
	assert_int_equal(tt_connect_bound_us(TT_CONNECT_OVER - 1), 50000000);
	assert_true(tt_connect_bound_us(TT_CONNECT_OVER) == UINT64_MAX);
	for (size_t i = 1; i < TT_CONNECT_BUCKETS; i++)
		assert_true(tt_connect_bound_us(i) > tt_connect_bound_us(i - 1));
}

static void test_quantiles_fall_in_their_bucket(void **state)
{
	__u64 le[TT_CONNECT_BUCKETS] = { 0 };

	(void)state;
	assert_int_equal(tt_connect_quantile(le, 0.5), -1);
	le[2] = 98; /* at most 50 us */
	le[16] = 1; /* at most 2 s */
	le[17] = 1; /* at most 5 s */
	assert_int_equal(tt_connect_count(le), 100);
	assert_int_equal(tt_connect_quantile(le, 0.5), 2);
	assert_int_equal(tt_connect_quantile(le, 0.98), 2);
	assert_int_equal(tt_connect_quantile(le, 0.99), 16);
	assert_int_equal(tt_connect_quantile(le, 1.0), 17);
}

/* More than a second: the buckets above the one of at most 1 s. */
static void test_slow_connects_are_those_above_one_second(void **state)
{
	__u64 le[TT_CONNECT_BUCKETS] = { 0 };

	(void)state;
	le[14] = 5; /* at most 500 ms */
	le[15] = 4; /* at most 1 s */
	le[16] = 3;
	le[TT_CONNECT_OVER] = 2;
	assert_int_equal(tt_connect_slow(le), 5);
	assert_int_equal(tt_waits_above(le, TT_WAIT_100MS), 14);
	assert_int_equal(tt_waits_above(le, TT_CONNECT_OVER), 0);
	assert_int_equal(tt_connect_bound_us(TT_WAIT_100MS), 100000);
}

static void test_text(void **state)
{
	char buf[16];

	(void)state;
	tt_connect_format(buf, sizeof(buf), -1);
	assert_string_equal(buf, "-");
	tt_connect_format(buf, sizeof(buf), 0);
	assert_string_equal(buf, "10us");
	tt_connect_format(buf, sizeof(buf), 7);
	assert_string_equal(buf, "2ms");
	tt_connect_format(buf, sizeof(buf), 15);
	assert_string_equal(buf, "1s");
	tt_connect_format(buf, sizeof(buf), TT_CONNECT_OVER);
	assert_string_equal(buf, ">50s");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bounds_are_1_2_5_steps_from_10_us),
		cmocka_unit_test(test_quantiles_fall_in_their_bucket),
		cmocka_unit_test(test_slow_connects_are_those_above_one_second),
		cmocka_unit_test(test_text),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
