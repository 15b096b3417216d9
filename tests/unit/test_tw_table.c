// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Unit tests of tw_table.c: the owners of timewait sockets by four-tuple. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>
#include <sys/socket.h>
#include "tracer/tw_table.h"

/* Timewait socket number i: a four-tuple of its own. */
static struct tw_owner owner_of(uint32_t i, uint32_t slot)
{
	struct tw_owner o;

	memset(&o, 0, sizeof(o));
	o.flow.netns = 4026531840u;
	o.flow.family = AF_INET;
	o.flow.lport = (uint16_t)(1024 + i % 60000);
	o.flow.rport = 80;
	o.flow.laddr[0] = 127;
	o.flow.raddr[0] = 127;
	o.flow.raddr[3] = (uint8_t)(1 + i / 60000);
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
	assert_null(tw_table_get(&t, &o.flow));
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
	found = tw_table_get(&t, &a.flow);
	assert_non_null(found);
	assert_int_equal(found->slot, 10);
	found = tw_table_get(&t, &b.flow);
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
	assert_int_equal(tw_table_get(&t, &a.flow)->slot, 30);
	tw_table_free(&t);
}

/* The kernel holds one socket per four-tuple: a later connection's
 * timewait socket there takes the place of the owner of the one before. */
static void test_later_connection_of_a_four_tuple_replaces(void **state)
{
	struct tw_table t = {};
	struct tw_owner old = owner_of(5, 10), next = owner_of(5, 20);

	(void)state;
	next.snd_nxt = old.snd_nxt - 1000; /* sequence numbers do not order connections */
	assert_int_equal(tw_table_put(&t, &old), 0);
	assert_int_equal(tw_table_put(&t, &next), 0);
	assert_int_equal(t.n, 1);
	assert_int_equal(tw_table_get(&t, &old.flow)->slot, 20);
	assert_int_equal(tw_table_get(&t, &old.flow)->snd_nxt, next.snd_nxt);
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

		assert_non_null(tw_table_get(&t, &o.flow));
		assert_int_equal(tw_table_get(&t, &o.flow)->slot, i);
	}
	while (tw_table_next(&t, &pos))
		walked++;
	assert_int_equal(walked, MANY);
	tw_table_free(&t);
}

static bool odd_stamp(struct tw_owner *o, void *ctx)
{
	(void)ctx;
	return o->stamp & 1;
}

static bool of_slot(struct tw_owner *o, void *ctx)
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
			assert_null(tw_table_get(&t, &o.flow));
		else
			assert_non_null(tw_table_get(&t, &o.flow));
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
		cmocka_unit_test(test_later_connection_of_a_four_tuple_replaces),
		cmocka_unit_test(test_grows_and_keeps_every_owner),
		cmocka_unit_test(test_remove_if_keeps_the_others_findable),
		cmocka_unit_test(test_remove_one_process),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
