// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Unit tests of tw_table.c: the owners of timewait sockets by key. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>
#include <sys/socket.h>
#include "tracer/tw_table.h"

/* Timewait socket number i: distinct local ports, then sequence numbers. */
static struct tw_owner owner_of(uint32_t i, uint32_t slot)
{
	struct tw_owner o;

	memset(&o, 0, sizeof(o));
	o.key.flow.netns = 4026531840u;
	o.key.flow.family = AF_INET;
	o.key.flow.lport = (uint16_t)(32768 + i % 20000);
	o.key.flow.rport = 80;
	o.key.flow.laddr[0] = 127;
	o.key.flow.raddr[0] = 127;
	o.key.snd_nxt = i / 20000;
	o.slot = slot;
	o.stamp = i;
	return o;
}

static void test_empty_table_finds_nothing(void **state)
{
	struct tw_table t = {};
	struct tw_owner o = owner_of(1, 10);
	size_t pos = 0;

	(void)state;
	assert_null(tw_table_get(&t, &o.key));
	assert_null(tw_table_next(&t, &pos));
	tw_table_free(&t);
}

static void test_put_then_get(void **state)
{
	struct tw_table t = {};
	struct tw_owner a = owner_of(1, 10), b = owner_of(2, 20), *found;

	(void)state;
	assert_int_equal(tw_table_put(&t, &a), 0);
	assert_int_equal(tw_table_put(&t, &b), 0);
	assert_int_equal(t.n, 2);
	found = tw_table_get(&t, &a.key);
	assert_non_null(found);
	assert_int_equal(found->slot, 10);
	found = tw_table_get(&t, &b.key);
	assert_non_null(found);
	assert_int_equal(found->slot, 20);
	tw_table_free(&t);
}

static void test_same_key_replaces_owner(void **state)
{
	struct tw_table t = {};
	struct tw_owner a = owner_of(7, 10), again = owner_of(7, 30);

	(void)state;
	assert_int_equal(tw_table_put(&t, &a), 0);
	assert_int_equal(tw_table_put(&t, &again), 0);
	assert_int_equal(t.n, 1);
	assert_int_equal(tw_table_get(&t, &a.key)->slot, 30);
	tw_table_free(&t);
}

static void test_sequence_number_tells_sockets_apart(void **state)
{
	struct tw_table t = {};
	struct tw_owner old = owner_of(5, 10), next = owner_of(5 + 20000, 20);

	(void)state;
	assert_memory_equal(&old.key.flow, &next.key.flow, sizeof(old.key.flow));
	assert_int_equal(tw_table_put(&t, &old), 0);
	assert_int_equal(tw_table_put(&t, &next), 0);
	assert_int_equal(t.n, 2);
	assert_int_equal(tw_table_get(&t, &old.key)->slot, 10);
	assert_int_equal(tw_table_get(&t, &next.key)->slot, 20);
	tw_table_free(&t);
}

#define MANY 50000

static void test_grows_and_keeps_every_owner(void **state)
{
	struct tw_table t = {};
	size_t pos = 0, walked = 0;

	(void)state;
	for (uint32_t i = 0; i < MANY; i++) {
		struct tw_owner o = owner_of(i, i);

		assert_int_equal(tw_table_put(&t, &o), 0);
	}
	assert_int_equal(t.n, MANY);
	for (uint32_t i = 0; i < MANY; i++) {
		struct tw_owner o = owner_of(i, 0);

		assert_non_null(tw_table_get(&t, &o.key));
		assert_int_equal(tw_table_get(&t, &o.key)->slot, i);
	}
	while (tw_table_next(&t, &pos))
		walked++;
	assert_int_equal(walked, MANY);
	tw_table_free(&t);
}

static bool odd_stamp(const struct tw_owner *o, void *ctx)
{
	(void)ctx;
	return o->stamp & 1;
}

static bool of_slot(const struct tw_owner *o, void *ctx)
{
	return o->slot == *(uint32_t *)ctx;
}

/* Removals inside runs of colliding owners: every owner kept is still
 * found, none removed is. */
static void test_remove_if_keeps_the_others_findable(void **state)
{
	struct tw_table t = {};

	(void)state;
	for (uint32_t i = 0; i < MANY; i++) {
		struct tw_owner o = owner_of(i, i % 3);

		assert_int_equal(tw_table_put(&t, &o), 0);
	}
	assert_int_equal(tw_table_remove_if(&t, odd_stamp, NULL), MANY / 2);
	assert_int_equal(t.n, MANY / 2);
	for (uint32_t i = 0; i < MANY; i++) {
		struct tw_owner o = owner_of(i, 0);

		if (i & 1)
			assert_null(tw_table_get(&t, &o.key));
		else
			assert_non_null(tw_table_get(&t, &o.key));
	}
	assert_int_equal(tw_table_remove_if(&t, odd_stamp, NULL), 0);
	tw_table_free(&t);
}

static void test_remove_one_process(void **state)
{
	struct tw_table t = {};
	uint32_t slot = 2;
	size_t pos = 0;
	struct tw_owner *o;

	(void)state;
	for (uint32_t i = 0; i < 3000; i++) {
		struct tw_owner put = owner_of(i, i % 3);

		assert_int_equal(tw_table_put(&t, &put), 0);
	}
	assert_int_equal(tw_table_remove_if(&t, of_slot, &slot), 1000);
	while ((o = tw_table_next(&t, &pos)))
		assert_int_not_equal(o->slot, 2);
	assert_int_equal(t.n, 2000);
	tw_table_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_empty_table_finds_nothing),
		cmocka_unit_test(test_put_then_get),
		cmocka_unit_test(test_same_key_replaces_owner),
		cmocka_unit_test(test_sequence_number_tells_sockets_apart),
		cmocka_unit_test(test_grows_and_keeps_every_owner),
		cmocka_unit_test(test_remove_if_keeps_the_others_findable),
		cmocka_unit_test(test_remove_one_process),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
