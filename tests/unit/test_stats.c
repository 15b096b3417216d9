// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Unit tests of the interval maths in stats.c: reason slots, sorting,
 * snapshot differences, zero rows, totals and close counts. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>
#include "common/stats.h"

static struct tt_row make_row(uint32_t pid, const char *comm)
{
	struct tt_row row;

	memset(&row, 0, sizeof(row));
	row.pid = pid;
	strncpy(row.comm, comm, sizeof(row.comm) - 1);
	return row;
}

static void test_reason_slot_keeps_small_values(void **state)
{
	(void)state;
	assert_int_equal(reason_slot(0), 0);
	assert_int_equal(reason_slot(5), 5);
	assert_int_equal(reason_slot(TT_REASON_OTHER - 1), TT_REASON_OTHER - 1);
}

static void test_reason_slot_folds_large_values_into_other(void **state)
{
	(void)state;
	assert_int_equal(reason_slot(TT_REASON_OTHER), TT_REASON_OTHER);
	assert_int_equal(reason_slot(TT_REASON_SLOTS), TT_REASON_OTHER);
	assert_int_equal(reason_slot(1000), TT_REASON_OTHER);
	assert_int_equal(reason_slot(UINT32_MAX), TT_REASON_OTHER);
}

static void test_reason_slot_unknown_is_other(void **state)
{
	(void)state;
	assert_int_equal(reason_slot(TT_REASON_UNKNOWN), TT_REASON_OTHER);
}

static void test_rows_sort_orders_by_pid(void **state)
{
	struct tt_row rows[4] = {
		make_row(30, "c"), make_row(4194304, "d"), make_row(1, "a"), make_row(20, "b"),
	};

	(void)state;
	rows_sort(rows, 4);
	assert_int_equal(rows[0].pid, 1);
	assert_string_equal(rows[0].comm, "a");
	assert_int_equal(rows[1].pid, 20);
	assert_int_equal(rows[2].pid, 30);
	assert_int_equal(rows[3].pid, 4194304);
	assert_string_equal(rows[3].comm, "d");
}

static void test_diff_subtracts_every_counter(void **state)
{
	struct tt_row p = make_row(10, "web"), c = make_row(10, "web"), out;
	struct tt_snapshot prev = { .n = 1, .rows = &p };
	struct tt_snapshot cur = { .n = 1, .rows = &c };
	__u64 pw[sizeof(p.c) / 8], cw[sizeof(c.c) / 8], ow[sizeof(out.c) / 8];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(pw) / 8; i++) {
		pw[i] = 100 + i;
		cw[i] = 100 + 3 * i;
	}
	memcpy(&p.c, pw, sizeof(pw));
	memcpy(&c.c, cw, sizeof(cw));
	assert_int_equal(snapshot_diff(&prev, &cur, &out, 1), 1);
	memcpy(ow, &out.c, sizeof(ow));
	for (i = 0; i < sizeof(ow) / 8; i++)
		assert_int_equal(ow[i], 2 * i);
	assert_int_equal(out.pid, 10);
}

static void test_diff_named_fields(void **state)
{
	struct tt_row p = make_row(10, "web"), c = make_row(10, "web"), out;
	struct tt_snapshot prev = { .n = 1, .rows = &p };
	struct tt_snapshot cur = { .n = 1, .rows = &c };

	(void)state;
	p.c.conn[TT_SIDE_IN] = 5;
	c.c.conn[TT_SIDE_IN] = 12;
	p.c.rst_sent[TT_SIDE_OUT] = 1;
	c.c.rst_sent[TT_SIDE_OUT] = 4;
	c.c.untracked = 2;
	assert_int_equal(snapshot_diff(&prev, &cur, &out, 1), 1);
	assert_int_equal(out.c.conn[TT_SIDE_IN], 7);
	assert_int_equal(out.c.rst_sent[TT_SIDE_OUT], 3);
	assert_int_equal(out.c.untracked, 2);
	assert_int_equal(out.c.conn[TT_SIDE_OUT], 0);
}

static void test_diff_pid_missing_from_prev_counts_from_zero(void **state)
{
	struct tt_row p[1] = { make_row(10, "old") };
	struct tt_row c[2] = { make_row(10, "old"), make_row(11, "new") };
	struct tt_snapshot prev = { .n = 1, .rows = p };
	struct tt_snapshot cur = { .n = 2, .rows = c };
	struct tt_row out[2];

	(void)state;
	c[1].c.conn[TT_SIDE_OUT] = 9;
	c[1].reasons[TT_SIDE_OUT][3] = 2;
	assert_int_equal(snapshot_diff(&prev, &cur, out, 2), 2);
	assert_int_equal(out[1].pid, 11);
	assert_string_equal(out[1].comm, "new");
	assert_int_equal(out[1].c.conn[TT_SIDE_OUT], 9);
	assert_int_equal(out[1].reasons[TT_SIDE_OUT][3], 2);
}

static void test_diff_with_no_prev_snapshot_counts_from_zero(void **state)
{
	struct tt_row c = make_row(7, "x"), out;
	struct tt_snapshot cur = { .n = 1, .rows = &c };

	(void)state;
	c.c.fin_active[TT_SIDE_IN] = 4;
	assert_int_equal(snapshot_diff(NULL, &cur, &out, 1), 1);
	assert_int_equal(out.c.fin_active[TT_SIDE_IN], 4);
}

static void test_diff_pid_vanished_has_no_row(void **state)
{
	struct tt_row p[3] = { make_row(10, "a"), make_row(20, "gone"), make_row(30, "c") };
	struct tt_row c[2] = { make_row(10, "a"), make_row(30, "c") };
	struct tt_snapshot prev = { .n = 3, .rows = p };
	struct tt_snapshot cur = { .n = 2, .rows = c };
	struct tt_row out[3];

	(void)state;
	p[2].c.conn[TT_SIDE_IN] = 1;
	c[1].c.conn[TT_SIDE_IN] = 6;
	assert_int_equal(snapshot_diff(&prev, &cur, out, 3), 2);
	assert_int_equal(out[0].pid, 10);
	assert_int_equal(out[1].pid, 30);
	assert_int_equal(out[1].c.conn[TT_SIDE_IN], 5);
}

static void test_diff_counter_going_down_means_pid_reused(void **state)
{
	struct tt_row p = make_row(10, "old"), c = make_row(10, "new"), out;
	struct tt_snapshot prev = { .n = 1, .rows = &p };
	struct tt_snapshot cur = { .n = 1, .rows = &c };

	(void)state;
	p.c.conn[TT_SIDE_IN] = 1000;
	c.c.conn[TT_SIDE_IN] = 3;
	p.c.conn[TT_SIDE_OUT] = 1;
	c.c.conn[TT_SIDE_OUT] = 4;
	p.reasons[TT_SIDE_IN][2] = 50;
	c.reasons[TT_SIDE_IN][2] = 1;
	assert_int_equal(snapshot_diff(&prev, &cur, &out, 1), 1);
	assert_int_equal(out.c.conn[TT_SIDE_IN], 3);
	assert_int_equal(out.c.conn[TT_SIDE_OUT], 3);
	assert_int_equal(out.reasons[TT_SIDE_IN][2], 1);
	assert_string_equal(out.comm, "new");
}

/* Two processes that had the same PID are two rows, told apart by id:
 * each is paired with its own row of the snapshot before. */
static void test_diff_pairs_rows_by_pid_and_id(void **state)
{
	struct tt_row p[2] = { make_row(10, "old"), make_row(10, "new") };
	struct tt_row c[2] = { make_row(10, "old"), make_row(10, "new") };
	struct tt_snapshot prev = { .n = 1, .rows = p };
	struct tt_snapshot cur = { .n = 2, .rows = c };
	struct tt_row out[2];

	(void)state;
	p[0].id = c[0].id = 3;
	p[1].id = c[1].id = 1ull << 32 | 3;
	p[0].c.conn[TT_SIDE_OUT] = 5;
	c[0].c.conn[TT_SIDE_OUT] = 5;
	c[1].c.conn[TT_SIDE_OUT] = 2;
	assert_int_equal(snapshot_diff(&prev, &cur, out, 2), 2);
	assert_int_equal(out[0].c.conn[TT_SIDE_OUT], 0);
	assert_string_equal(out[0].comm, "old");
	assert_int_equal(out[1].c.conn[TT_SIDE_OUT], 2);
	assert_string_equal(out[1].comm, "new");
	assert_true(out[1].id == c[1].id);
}

static void test_rows_sort_orders_by_id_within_a_pid(void **state)
{
	struct tt_row rows[3] = { make_row(10, "b"), make_row(9, "x"), make_row(10, "a") };

	(void)state;
	rows[0].id = 7;
	rows[2].id = 2;
	rows_sort(rows, 3);
	assert_int_equal(rows[0].pid, 9);
	assert_string_equal(rows[1].comm, "a");
	assert_string_equal(rows[2].comm, "b");
}

static void test_diff_subtracts_every_reason_slot(void **state)
{
	struct tt_row p = make_row(10, "a"), c = make_row(10, "a"), out;
	struct tt_snapshot prev = { .n = 1, .rows = &p };
	struct tt_snapshot cur = { .n = 1, .rows = &c };
	size_t i;

	(void)state;
	for (i = 0; i < TT_REASON_SLOTS; i++) {
		p.reasons[TT_SIDE_IN][i] = i;
		c.reasons[TT_SIDE_IN][i] = 3 * i;
		p.reasons[TT_SIDE_OUT][i] = 2 * i;
		c.reasons[TT_SIDE_OUT][i] = 7 * i;
	}
	snapshot_diff(&prev, &cur, &out, 1);
	for (i = 0; i < TT_REASON_SLOTS; i++) {
		assert_int_equal(out.reasons[TT_SIDE_IN][i], 2 * i);
		assert_int_equal(out.reasons[TT_SIDE_OUT][i], 5 * i);
	}
}

static void test_diff_tw_now_is_a_gauge(void **state)
{
	struct tt_row p = make_row(10, "a"), c = make_row(10, "a"), out;
	struct tt_snapshot prev = { .n = 1, .rows = &p };
	struct tt_snapshot cur = { .n = 1, .rows = &c };

	(void)state;
	p.tw_now = 500;
	c.tw_now = 700;
	snapshot_diff(&prev, &cur, &out, 1);
	assert_int_equal(out.tw_now, 700);
	c.tw_now = 2;
	snapshot_diff(&prev, &cur, &out, 1);
	assert_int_equal(out.tw_now, 2);
}

static void test_diff_takes_comm_and_selected_from_cur(void **state)
{
	struct tt_row p = make_row(10, "before"), c = make_row(10, "after"), out;
	struct tt_snapshot prev = { .n = 1, .rows = &p };
	struct tt_snapshot cur = { .n = 1, .rows = &c };

	(void)state;
	c.selected = true;
	snapshot_diff(&prev, &cur, &out, 1);
	assert_string_equal(out.comm, "after");
	assert_true(out.selected);
}

static void test_diff_writes_at_most_max_rows(void **state)
{
	struct tt_row c[3] = { make_row(1, "a"), make_row(2, "b"), make_row(3, "c") };
	struct tt_snapshot cur = { .n = 3, .rows = c };
	struct tt_snapshot prev = { .n = 0, .rows = NULL };
	struct tt_row out[3];

	(void)state;
	out[2] = make_row(99, "untouched");
	assert_int_equal(snapshot_diff(&prev, &cur, out, 2), 2);
	assert_int_equal(out[1].pid, 2);
	assert_int_equal(out[2].pid, 99);
}

static void test_row_is_zero_for_empty_row(void **state)
{
	struct tt_row row = make_row(1, "a");

	(void)state;
	row.selected = true;
	assert_true(row_is_zero(&row));
}

static void test_row_is_zero_false_for_any_counter(void **state)
{
	struct tt_row row = make_row(1, "a");

	(void)state;
	row.c.eaddrnotavail = 1;
	assert_false(row_is_zero(&row));
}

static void test_row_is_zero_false_for_tw_now(void **state)
{
	struct tt_row row = make_row(1, "a");

	(void)state;
	row.tw_now = 1;
	assert_false(row_is_zero(&row));
}

static void test_counts_equal_ignores_tw_now_only(void **state)
{
	struct tt_row a_rows[2] = { make_row(1, "a"), make_row(2, "b") };
	struct tt_row b_rows[2] = { make_row(1, "a"), make_row(2, "b") };
	struct tt_snapshot a = { .n = 2, .rows = a_rows }, b = { .n = 2, .rows = b_rows };

	(void)state;
	a_rows[1].c.conn[TT_SIDE_IN] = 7;
	b_rows[1].c.conn[TT_SIDE_IN] = 7;
	b_rows[0].tw_now = 3;
	assert_true(snapshot_counts_equal(&a, &b));
	b_rows[1].c.rst_sent[TT_SIDE_OUT] = 1;
	assert_false(snapshot_counts_equal(&a, &b));
	b_rows[1].c.rst_sent[TT_SIDE_OUT] = 0;
	b_rows[0].reasons[TT_SIDE_OUT][4] = 1;
	assert_false(snapshot_counts_equal(&a, &b));
	b_rows[0].reasons[TT_SIDE_OUT][4] = 0;
	b_rows[1].pid = 3;
	assert_false(snapshot_counts_equal(&a, &b));
	b.n = 1;
	assert_false(snapshot_counts_equal(&a, &b));
}

static struct tt_dest_row dest(uint32_t pid, uint16_t port, uint64_t conn, uint64_t held,
			       uint64_t free_ports)
{
	struct tt_dest_row d;

	memset(&d, 0, sizeof(d));
	d.pid = pid;
	d.family = 2;
	d.port = port;
	d.c.conn = conn;
	d.ports_held = held;
	d.ports_free = free_ports;
	return d;
}

static void test_dests_diff_counters_gauges_and_runout(void **state)
{
	struct tt_dest_row prev_rows[] = { dest(7, 80, 100, 1000, 3000) };
	struct tt_dest_row cur_rows[] = { dest(7, 80, 150, 1500, 2500), dest(7, 81, 5, 5, 3995) };
	struct tt_snapshot prev = { .mono_ns = 1000000000ull, .n_dests = 1, .dests = prev_rows };
	struct tt_snapshot cur = { .mono_ns = 3000000000ull, .n_dests = 2, .dests = cur_rows };
	struct tt_dest_row out[2];

	(void)state;
	dests_sort(cur_rows, 2);
	assert_int_equal(dests_diff(&prev, &cur, out, 2), 2);
	assert_int_equal(out[0].port, 80);
	assert_int_equal(out[0].c.conn, 50);
	assert_int_equal(out[0].ports_held, 1500);
	/* 500 more ports held in 2 s: 2500 free last 10 s at that rate. */
	assert_true(out[0].runout_s > 9.99 && out[0].runout_s < 10.01);
	/* New since prev: counted from zero, no rate yet. */
	assert_int_equal(out[1].c.conn, 5);
	assert_true(out[1].runout_s == 0);
	/* Ports held going down: not running out. */
	prev_rows[0].ports_held = 2000;
	dests_diff(&prev, &cur, out, 2);
	assert_true(out[0].runout_s == 0);
	assert_int_equal(dests_diff(&prev, &cur, out, 1), 1);
}

static void test_dests_find(void **state)
{
	struct tt_dest_row rows[] = { dest(9, 80, 1, 0, 0), dest(7, 81, 2, 0, 0), dest(7, 80, 3, 0, 0) };
	struct tt_dest_row key = dest(7, 81, 0, 0, 0);

	(void)state;
	dests_sort(rows, 3);
	assert_int_equal(dests_find(rows, 3, &key)->c.conn, 2);
	key.addr[3] = 1;
	assert_null(dests_find(rows, 3, &key));
	assert_null(dests_find(rows, 0, &key));
	assert_true(dest_row_is_zero(&key));
	key.tw_now = 1;
	assert_false(dest_row_is_zero(&key));
}

static void test_row_is_zero_false_for_a_reason_of_either_side(void **state)
{
	struct tt_row row = make_row(1, "a");

	(void)state;
	row.reasons[TT_SIDE_OUT][TT_REASON_OTHER] = 1;
	assert_false(row_is_zero(&row));
}

static void test_reasons_total_adds_the_sides(void **state)
{
	struct tt_row row = make_row(1, "a");
	uint64_t total[TT_REASON_SLOTS];

	(void)state;
	row.reasons[TT_SIDE_IN][4] = 2;
	row.reasons[TT_SIDE_OUT][4] = 5;
	row.reasons[TT_SIDE_OUT][TT_REASON_OTHER] = 1;
	row_reasons_total(&row, total);
	assert_int_equal(total[4], 7);
	assert_int_equal(total[TT_REASON_OTHER], 1);
	assert_int_equal(total[0], 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reason_slot_keeps_small_values),
		cmocka_unit_test(test_reason_slot_folds_large_values_into_other),
		cmocka_unit_test(test_reason_slot_unknown_is_other),
		cmocka_unit_test(test_rows_sort_orders_by_pid),
		cmocka_unit_test(test_diff_subtracts_every_counter),
		cmocka_unit_test(test_diff_named_fields),
		cmocka_unit_test(test_diff_pid_missing_from_prev_counts_from_zero),
		cmocka_unit_test(test_diff_with_no_prev_snapshot_counts_from_zero),
		cmocka_unit_test(test_diff_pid_vanished_has_no_row),
		cmocka_unit_test(test_diff_counter_going_down_means_pid_reused),
		cmocka_unit_test(test_diff_pairs_rows_by_pid_and_id),
		cmocka_unit_test(test_rows_sort_orders_by_id_within_a_pid),
		cmocka_unit_test(test_diff_subtracts_every_reason_slot),
		cmocka_unit_test(test_diff_tw_now_is_a_gauge),
		cmocka_unit_test(test_diff_takes_comm_and_selected_from_cur),
		cmocka_unit_test(test_diff_writes_at_most_max_rows),
		cmocka_unit_test(test_row_is_zero_for_empty_row),
		cmocka_unit_test(test_row_is_zero_false_for_any_counter),
		cmocka_unit_test(test_row_is_zero_false_for_tw_now),
		cmocka_unit_test(test_row_is_zero_false_for_a_reason_of_either_side),
		cmocka_unit_test(test_reasons_total_adds_the_sides),
		cmocka_unit_test(test_counts_equal_ignores_tw_now_only),
		cmocka_unit_test(test_dests_diff_counters_gauges_and_runout),
		cmocka_unit_test(test_dests_find),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
