// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The socket table's geometry (socks.bpf.h): a model of it, with the same
 * hash, buckets, ways and probes, filled with socket addresses. --max-sockets
 * N promises N sockets followed at once: no fill up to N may turn one away,
 * while sockets come and go too. Each test prints the fill, in N, at which
 * the first socket would have been turned away. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <linux/types.h>
#include "tcptrace.h"
#include "tt_sock_hash.h"

/* How many ways of each bucket are taken: the table less its contents. */
struct table_model {
	uint32_t buckets;
	uint8_t *taken;
};

static struct table_model model_new(uint32_t max_sockets)
{
	struct table_model t = { .buckets = max_sockets };

	t.taken = calloc(max_sockets + TT_SOCK_PROBES - 1, 1);
	assert_non_null(t.taken);
	return t;
}

/* sock_claim's walk: the bucket that takes the socket, or -1. */
static int64_t model_claim(struct table_model *t, uint64_t addr)
{
	uint32_t home = tt_sock_home(addr, t->buckets);

	for (uint32_t p = 0; p < TT_SOCK_PROBES; p++)
		if (t->taken[home + p] < TT_SOCK_WAYS) {
			t->taken[home + p]++;
			return home + p;
		}
	return -1;
}

/* xorshift64: the same addresses on every run. */
static uint64_t next_random(uint64_t *state)
{
	*state ^= *state << 13;
	*state ^= *state >> 7;
	*state ^= *state << 17;
	return *state;
}

/* A kernel address anywhere, aligned as a slab object's start. */
static uint64_t random_address(uint64_t *state)
{
	return 0xffff880000000000ull | (next_random(state) & 0x3fffffffffc0ull);
}

/* Sockets as the kernel lays them out: 2,432-byte objects (a tcp_sock),
 * 13 to a 32 KiB slab, slabs at random pages. */
static uint64_t slab_address(uint64_t *state)
{
	static uint64_t slab;
	static uint32_t object = 13;

	if (object == 13) {
		slab = 0xffff880000000000ull | (next_random(state) & 0x3fffffff8000ull);
		object = 0;
	}
	return slab + 2432ull * object++;
}

/* Fills an empty table until a socket is turned away; the fill then, in
 * sockets. */
static uint64_t first_turned_away(uint32_t max_sockets, uint64_t seed,
				  uint64_t (*address)(uint64_t *))
{
	struct table_model t = model_new(max_sockets);
	uint64_t held = 0;

	while (model_claim(&t, address(&seed)) >= 0)
		held++;
	free(t.taken);
	return held;
}

static void expect_no_turn_away_up_to(uint32_t max_sockets, int fills,
				      uint64_t (*address)(uint64_t *))
{
	for (int i = 0; i < fills; i++) {
		uint64_t first = first_turned_away(max_sockets, 0x9e3779b97f4a7c15ull * (i + 1),
						   address);

		print_message("--max-sockets %u, fill %d: first socket turned away at %.3f N\n",
			      max_sockets, i + 1, (double)first / max_sockets);
		assert_true(first >= max_sockets);
	}
}

static void test_random_addresses_fill_100k_without_a_turn_away(void **state)
{
	(void)state;
	expect_no_turn_away_up_to(100000, 8, random_address);
}

static void test_random_addresses_fill_1m_without_a_turn_away(void **state)
{
	(void)state;
	expect_no_turn_away_up_to(1000000, 4, random_address);
}

static void test_slab_addresses_fill_1m_without_a_turn_away(void **state)
{
	(void)state;
	expect_no_turn_away_up_to(1000000, 4, slab_address);
}

/* Held at 97.5 % of N while sockets end and new ones come, ten times N
 * arrivals: an entry freed in a bucket its home is not is taken by the
 * next comer, so the table's shape differs from a fresh fill's. */
static void test_held_at_97_5_percent_while_sockets_come_and_go(void **state)
{
	const uint32_t max_sockets = 100000, held = max_sockets / 40 * 39;
	struct table_model t = model_new(max_sockets);
	int64_t *where = calloc(held, sizeof(*where));
	uint64_t seed = 42, turned_away = 0;

	(void)state;
	assert_non_null(where);
	for (uint32_t i = 0; i < held; i++) {
		where[i] = model_claim(&t, random_address(&seed));
		assert_true(where[i] >= 0);
	}
	for (uint64_t n = 0; n < 10ull * max_sockets; n++) {
		uint32_t i = next_random(&seed) % held;

		if (where[i] >= 0)
			t.taken[where[i]]--;
		where[i] = model_claim(&t, random_address(&seed));
		turned_away += where[i] < 0;
	}
	print_message("held at 97.5 %% of %u, %u arrivals: %lu turned away\n", max_sockets,
		      10 * max_sockets, (unsigned long)turned_away);
	assert_int_equal(turned_away, 0);
	free(where);
	free(t.taken);
}

/* The hash spreads a slab's sockets: 13 neighbours of one slab land in
 * 13 different homes of a table of 100,000. */
static void test_neighbours_in_a_slab_get_different_homes(void **state)
{
	uint64_t base = 0xffff888100a40000ull;

	(void)state;
	for (int i = 0; i < 13; i++)
		for (int j = 0; j < i; j++)
			assert_int_not_equal(tt_sock_home(base + 2432ull * i, 100000),
					     tt_sock_home(base + 2432ull * j, 100000));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_neighbours_in_a_slab_get_different_homes),
		cmocka_unit_test(test_random_addresses_fill_100k_without_a_turn_away),
		cmocka_unit_test(test_random_addresses_fill_1m_without_a_turn_away),
		cmocka_unit_test(test_slab_addresses_fill_1m_without_a_turn_away),
		cmocka_unit_test(test_held_at_97_5_percent_while_sockets_come_and_go),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
