// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Unit tests of the table: format_count at every unit boundary, and the
 * header and rows spelled out character for character. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include "output/table.h"

#define HEADER_LINE_1(label)                                                              \
	label "              conn     open     fin         rst          timewait\n"
#define HEADER_LINE_2                                                                     \
	"    PID COMM         in   out   now  actv  pasv  sent  recv    in   out   now\n"
#define QUEUE_FAILURE_HEADER                                                              \
	"                     listen queue   retries\n"                                          \
	"    PID COMM      drops  peak limit  synack\n"
#define CONNECT_FAILURE_HEADER                                                            \
	"                  retries             connect failed              bind\n"              \
	"    PID COMM          syn refused timeout unreach abandon noport  inuse\n"
#define BEFORE_SYN_HEADER                                                                 \
	"                         connect failed before any SYN\n"                              \
	"    PID COMM      enetunr ehostunr eacces einval eperm other\n"

/* Output of one table_write_* call, captured in memory. */
struct capture {
	FILE *f;
	char *text;
	size_t len;
};

static void capture_start(struct capture *c)
{
	c->text = NULL;
	c->f = open_memstream(&c->text, &c->len);
	assert_non_null(c->f);
}

static const char *capture_end(struct capture *c)
{
	assert_int_equal(fclose(c->f), 0);
	return c->text;
}

static void assert_count(uint64_t v, const char *expected)
{
	char buf[8];

	memset(buf, 'X', sizeof(buf));
	format_count(buf, sizeof(buf), v);
	assert_string_equal(buf, expected);
}

static struct tt_row haproxy_row(void)
{
	struct tt_row row;

	memset(&row, 0, sizeof(row));
	row.pid = 4242;
	strcpy(row.comm, "haproxy");
	row.c.conn[TT_SIDE_IN] = 1000;
	row.c.fin_passive[TT_SIDE_IN] = 1000;
	row.c.rst_sent[TT_SIDE_IN] = 1500;
	row.c.rst_sent[TT_SIDE_OUT] = 500;
	row.c.tw[TT_SIDE_IN] = 1000;
	row.tw_now = 1000;
	row.open[TT_SIDE_IN] = 10;
	row.open[TT_SIDE_OUT] = 20;
	return row;
}

static void test_count_small_values_as_is(void **state)
{
	(void)state;
	assert_count(0, "0");
	assert_count(7, "7");
	assert_count(99999, "99999");
}

static void test_count_thousands(void **state)
{
	(void)state;
	assert_count(100000, "100k");
	assert_count(100999, "100k");
	assert_count(999999, "999k");
}

static void test_count_millions_with_one_decimal(void **state)
{
	(void)state;
	assert_count(1000000, "1.0M");
	assert_count(1099999, "1.0M");
	assert_count(1100000, "1.1M");
	assert_count(9999999, "9.9M");
}

static void test_count_tens_of_millions(void **state)
{
	(void)state;
	assert_count(10000000, "10M");
	assert_count(999999999, "999M");
}

static void test_count_larger_units(void **state)
{
	(void)state;
	assert_count(1000000000, "1.0G");
	assert_count(10000000000ULL, "10G");
	assert_count(1000000000000ULL, "1.0T");
	assert_count(999999999999999ULL, "999T");
	assert_count(1000000000000000ULL, "1.0P");
	assert_count(1000000000000000000ULL, "1.0E");
}

static void test_count_uint64_max(void **state)
{
	(void)state;
	assert_count(UINT64_MAX, "18E");
}

static void test_count_never_exceeds_five_characters(void **state)
{
	char buf[8];
	uint64_t v;

	(void)state;
	for (v = 1; v < UINT64_MAX / 3; v = v * 3 + 1) {
		format_count(buf, sizeof(buf), v);
		assert_in_range(strlen(buf), 1, 5);
	}
}

static void test_header_with_clock(void **state)
{
	struct capture c;
	const char *text;

	(void)state;
	capture_start(&c);
	table_write_header(c.f, "16:45:01");
	text = capture_end(&c);
	assert_string_equal(text, HEADER_LINE_1("16:45:01") HEADER_LINE_2);
	free(c.text);
}

static void test_header_with_total_label(void **state)
{
	struct capture c;
	const char *text;

	(void)state;
	capture_start(&c);
	table_write_header(c.f, "total");
	text = capture_end(&c);
	assert_string_equal(text, HEADER_LINE_1("total   ") HEADER_LINE_2);
	free(c.text);
}

static void test_row_sums_sides_of_fin_and_rst(void **state)
{
	struct tt_row row = haproxy_row();
	struct capture c;
	const char *text;

	(void)state;
	capture_start(&c);
	table_write_row(c.f, &row);
	text = capture_end(&c);
	assert_string_equal(
		text,
		"   4242 haproxy    1000     0    30     0  1000  2000     0  1000     0  1000\n");
	free(c.text);
}

static void test_header_and_row_line_up(void **state)
{
	struct tt_row row = haproxy_row();
	struct capture c;
	const char *text;

	(void)state;
	capture_start(&c);
	table_write_header(c.f, "16:45:01");
	table_write_row(c.f, &row);
	text = capture_end(&c);
	assert_string_equal(
		text,
		"16:45:01              conn     open     fin         rst          timewait\n"
		"    PID COMM         in   out   now  actv  pasv  sent  recv    in   out   now\n"
		"   4242 haproxy    1000     0    30     0  1000  2000     0  1000     0  1000\n");
	free(c.text);
}

static void test_row_puts_each_counter_in_its_column(void **state)
{
	struct tt_row row;
	struct capture c;
	const char *text;

	(void)state;
	memset(&row, 0, sizeof(row));
	row.pid = 1;
	strcpy(row.comm, "a");
	row.c.conn[TT_SIDE_IN] = 1;
	row.c.conn[TT_SIDE_OUT] = 2;
	row.open[TT_SIDE_IN] = 1;
	row.open[TT_SIDE_OUT] = 2;
	row.c.fin_active[TT_SIDE_IN] = 1;
	row.c.fin_active[TT_SIDE_OUT] = 3;
	row.c.fin_passive[TT_SIDE_OUT] = 5;
	row.c.rst_sent[TT_SIDE_OUT] = 6;
	row.c.rst_recv[TT_SIDE_IN] = 7;
	row.c.tw[TT_SIDE_IN] = 8;
	row.c.tw[TT_SIDE_OUT] = 9;
	row.tw_now = 10;
	row.c.eaddrnotavail = 99;
	row.c.timeout[TT_SIDE_IN] = 99;
	row.c.connfail = 99;
	row.c.untracked = 99;
	row.listen_drops = 99;
	capture_start(&c);
	table_write_row(c.f, &row);
	text = capture_end(&c);
	assert_string_equal(
		text,
		"      1 a             1     2     3     4     5     6     7     8     9    10\n");
	free(c.text);
}

static void test_row_truncates_comm_and_shortens_counts(void **state)
{
	struct tt_row row;
	struct capture c;
	const char *text;

	(void)state;
	memset(&row, 0, sizeof(row));
	row.pid = 4194304;
	strcpy(row.comm, "systemd-journal");
	row.c.conn[TT_SIDE_OUT] = 123456789;
	row.c.fin_active[TT_SIDE_IN] = 99999;
	row.c.fin_active[TT_SIDE_OUT] = 1;
	row.tw_now = UINT64_MAX;
	capture_start(&c);
	table_write_row(c.f, &row);
	text = capture_end(&c);
	assert_string_equal(
		text,
		"4194304 systemd-j     0  123M     0  100k     0     0     0     0     0   18E\n");
	assert_int_equal(strlen(text), 78);
	free(c.text);
}

static struct tt_dest_row nginx_dest(void)
{
	struct tt_dest_row d;

	memset(&d, 0, sizeof(d));
	d.pid = 77;
	strcpy(d.comm, "nginx");
	d.family = AF_INET;
	d.port = 8081;
	d.addr[0] = 127;
	d.addr[3] = 1;
	d.c.conn = 950;
	d.c.fin_active = 940;
	d.c.rst_recv = 10;
	d.c.tw = 940;
	d.tw_now = 28000;
	d.c.eaddrnotavail = 50;
	d.ports_free = 123;
	d.runout_s = 4.4;
	return d;
}

static void test_dest_header_and_row_line_up(void **state)
{
	struct tt_dest_row d = nginx_dest();
	struct capture c;

	(void)state;
	capture_start(&c);
	table_write_dest_header(c.f, "16:45:01");
	table_write_dest_row(c.f, &d);
	assert_string_equal(
		capture_end(&c),
		"16:45:01                                          fin         rst       timewait        ports\n"
		"    PID COMM      DESTINATION            conn  actv  pasv  sent  recv    tw   now  port  free runout\n"
		"     77 nginx     127.0.0.1:8081          950   940     0     0    10   940 28000    50   123     4s\n");
	free(c.text);
}

static void test_dest_runout_dash_when_not_growing_and_ipv6(void **state)
{
	struct tt_dest_row d = nginx_dest();
	char dest[TT_DEST_LEN];
	struct capture c;

	(void)state;
	d.runout_s = 0;
	d.family = AF_INET6;
	memset(d.addr, 0, sizeof(d.addr));
	d.addr[15] = 1;
	format_dest(dest, sizeof(dest), &d);
	assert_string_equal(dest, "[::1]:8081");
	capture_start(&c);
	table_write_dest_row(c.f, &d);
	assert_non_null(strstr(capture_end(&c), "   123      -\n"));
	free(c.text);
}

static struct tt_row overflowing_row(void)
{
	struct tt_row row;

	memset(&row, 0, sizeof(row));
	row.pid = 4242;
	strcpy(row.comm, "haproxy");
	row.listen_drops = 281;
	row.acceptq_peak = 17;
	row.acceptq_limit = 16;
	row.acceptq_peak_run = 17;
	row.acceptq_limit_run = 16;
	row.c.syn_retrans = 3;
	row.c.synack_retrans = 4;
	row.c.connfail = 5 + 6 + 7 + 8;
	for (size_t i = 0; i < TT_CONNFAIL_BEFORE_SYN; i++)
		row.c.connfail_by[i] = 5 + i;
	row.c.eaddrnotavail = 9;
	row.c.eaddrinuse = 2;
	return row;
}

static void test_queue_failure_block_puts_each_count_in_its_column(void **state)
{
	struct tt_row row = overflowing_row();
	struct capture c;

	(void)state;
	capture_start(&c);
	table_write_queue_failure_header(c.f);
	table_write_queue_failure_row(c.f, &row, false);
	assert_string_equal(capture_end(&c), QUEUE_FAILURE_HEADER
			    "   4242 haproxy     281    17    16       4\n");
	free(c.text);
}

static void test_queue_failure_block_run_queue_in_the_summary(void **state)
{
	struct tt_row row = overflowing_row();
	struct capture c;

	(void)state;
	row.acceptq_peak = 2;
	row.acceptq_limit = 128;
	capture_start(&c);
	table_write_queue_failure_row(c.f, &row, true);
	assert_string_equal(capture_end(&c), "   4242 haproxy     281    17    16       4\n");
	free(c.text);
}

static void test_connect_failure_block_puts_each_count_in_its_column(void **state)
{
	struct tt_row row = overflowing_row();
	struct capture c;

	(void)state;
	capture_start(&c);
	table_write_connect_failure_header(c.f);
	table_write_connect_failure_row(c.f, &row);
	assert_string_equal(capture_end(&c), CONNECT_FAILURE_HEADER
			    "   4242 haproxy         3       5       6       7       8      9      2\n");
	free(c.text);
}

/* A connect() refused before its SYN is in a block of its own, by errno,
 * and in no cell of the connect failures block. */
static void test_before_syn_block_puts_each_errno_in_its_column(void **state)
{
	struct tt_row row = overflowing_row();
	struct capture c;

	(void)state;
	assert_false(table_row_has_failures_before_syn(&row));
	memset(&row.c, 0, sizeof(row.c));
	for (size_t i = TT_CONNFAIL_BEFORE_SYN; i < TT_CONNFAILS; i++)
		row.c.connfail_by[i] = 11 + i - TT_CONNFAIL_BEFORE_SYN;
	row.c.connfail = 11 + 12 + 13 + 14 + 15 + 16;
	assert_true(table_row_has_failures_before_syn(&row));
	assert_false(table_row_has_connect_failures(&row));
	capture_start(&c);
	table_write_before_syn_header(c.f);
	table_write_before_syn_row(c.f, &row);
	assert_string_equal(capture_end(&c), BEFORE_SYN_HEADER
			    "   4242 haproxy        11       12     13     14    15    16\n");
	free(c.text);
}

/* bind()'s EADDRINUSE alone puts a row in the connect failures block. */
static void test_bind_eaddrinuse_alone_is_a_connect_failure(void **state)
{
	struct tt_row row;

	(void)state;
	memset(&row, 0, sizeof(row));
	assert_false(table_row_has_connect_failures(&row));
	row.c.eaddrinuse = 1;
	assert_true(table_row_has_connect_failures(&row));
	assert_false(table_row_has_failures_before_syn(&row));
}

/* Counts of five characters, the most format_count gives, stay under
 * their names and the lines within 80 columns. */
static void test_failure_blocks_fit_80_columns(void **state)
{
	struct tt_row row = overflowing_row();
	struct capture c;
	const char *text, *line;

	(void)state;
	row.pid = 4194304;
	row.listen_drops = 123456789;
	row.c.synack_retrans = 99999;
	row.c.syn_retrans = 99999;
	row.c.connfail_by[TT_CONNFAIL_ABANDONED] = 1000000;
	row.c.eaddrnotavail = UINT64_MAX;
	row.c.eaddrinuse = 99999;
	for (size_t i = TT_CONNFAIL_BEFORE_SYN; i < TT_CONNFAILS; i++)
		row.c.connfail_by[i] = UINT64_MAX - i;
	capture_start(&c);
	table_write_queue_failure_header(c.f);
	table_write_queue_failure_row(c.f, &row, false);
	table_write_connect_failure_header(c.f);
	table_write_connect_failure_row(c.f, &row);
	table_write_before_syn_header(c.f);
	table_write_before_syn_row(c.f, &row);
	text = capture_end(&c);
	assert_string_equal(text, QUEUE_FAILURE_HEADER
			    "4194304 haproxy    123M    17    16   99999\n" CONNECT_FAILURE_HEADER
			    "4194304 haproxy     99999       5       6       7    1.0M    18E  99999\n"
			    BEFORE_SYN_HEADER
			    "4194304 haproxy       18E      18E    18E    18E   18E   18E\n");
	for (line = text; *line; line = strchr(line, '\n') + 1)
		assert_in_range(strcspn(line, "\n"), 1, 80);
	free(c.text);
}

#define RETRANS_HEADER                                                                    \
	"                      sent again     data segments\n"                                    \
	"    PID COMM         in   out   rto     sent  share\n"

/* Segments sent again by side, those after a timeout, the segments sent
 * and the share; within 80 columns with the widest counts. */
static void test_retrans_block(void **state)
{
	struct tt_row row = haproxy_row();
	struct capture c;
	const char *text, *line;

	(void)state;
	assert_false(table_row_has_retrans(&row));
	row.c.retrans[TT_SIDE_OUT] = 1786;
	row.c.retrans_rto[TT_SIDE_OUT] = 30;
	row.c.retrans_rto[TT_SIDE_IN] = 7;
	row.c.retrans[TT_SIDE_IN] = 12;
	row.c.segs_sent[TT_SIDE_OUT] = 29000;
	row.c.segs_sent[TT_SIDE_IN] = 452;
	assert_true(table_row_has_retrans(&row));
	capture_start(&c);
	table_write_retrans_header(c.f);
	table_write_retrans_row(c.f, &row);
	row.pid = 4194304;
	row.c.retrans[TT_SIDE_IN] = 99999;
	row.c.retrans[TT_SIDE_OUT] = UINT64_MAX / 2;
	row.c.segs_sent[TT_SIDE_OUT] = 0;
	table_write_retrans_row(c.f, &row);
	text = capture_end(&c);
	assert_string_equal(text, RETRANS_HEADER
			    "   4242 haproxy      12  1786    37    29452   6.1%\n"
			    "4194304 haproxy   99999  9.2E    37      452      -\n");
	for (line = text; *line; line = strchr(line, '\n') + 1)
		assert_in_range(strcspn(line, "\n"), 1, 80);
	free(c.text);
}

/* --by dest: a block under the destination rows for those toward which
 * segments were sent again. */
static void test_dest_retrans_block(void **state)
{
	struct tt_dest_row d = nginx_dest();
	struct capture c;

	(void)state;
	assert_false(table_dest_has_retrans(&d));
	d.c.retrans = 30;
	d.c.retrans_rto = 4;
	d.c.segs_sent = 1000;
	assert_true(table_dest_has_retrans(&d));
	capture_start(&c);
	table_write_dest_retrans_header(c.f);
	table_write_dest_retrans_row(c.f, &d);
	assert_string_equal(capture_end(&c),
			    "                                         sent again  data segments\n"
			    "    PID COMM      DESTINATION            segs   rto     sent  share\n"
			    "     77 nginx     127.0.0.1:8081           30     4     1000   3.0%\n");
	free(c.text);
}

static void test_latency_block(void **state)
{
	struct tt_row row = overflowing_row();
	struct capture c;

	(void)state;
	assert_false(table_row_has_latency(&row, true));
	row.t.connect_le[2] = 980; /* at most 50 us */
	assert_true(table_row_has_latency(&row, true));
	assert_false(table_row_has_latency(&row, false));
	row.t.connect_le[16] = 18; /* at most 2 s */
	row.t.connect_le[17] = 2;  /* at most 5 s */
	assert_true(table_row_has_latency(&row, false));
	capture_start(&c);
	table_write_latency_header(c.f);
	table_write_latency_row(c.f, &row);
	assert_string_equal(capture_end(&c), "                    connects    time, at most\n"
					     "    PID COMM        all   >1s   p50   p99   max\n"
					     "   4242 haproxy    1000    20  50us    2s    5s\n");
	free(c.text);
}

/* The accepts block: a row for a wait over 100 ms in the intervals, for
 * any accept in the summary; the connects' buckets are not its. */
static void test_accept_wait_block(void **state)
{
	struct tt_row row = overflowing_row();
	struct capture c;

	(void)state;
	row.t.connect_le[17] = 9; /* connects: not accept waits */
	assert_false(table_row_has_accept_wait(&row, true));
	row.t.acceptq_le[6] = 40; /* at most 1 ms */
	row.t.acceptq_le[12] = 1; /* at most 100 ms */
	assert_true(table_row_has_accept_wait(&row, true));
	assert_false(table_row_has_accept_wait(&row, false));
	row.t.acceptq_le[14] = 3; /* at most 500 ms */
	assert_true(table_row_has_accept_wait(&row, false));
	capture_start(&c);
	table_write_accept_wait_header(c.f);
	table_write_accept_wait_row(c.f, &row);
	assert_string_equal(capture_end(&c), "                    accepts     wait, at most\n"
					     "    PID COMM        all >0.1s   p50   p99   max\n"
					     "   4242 haproxy      44     3   1ms 500ms 500ms\n");
	free(c.text);
}

/* The handshakes block: a row for a handshake over 1 s in the intervals,
 * for any handshake in the summary; the accept waits' buckets are not its. */
static void test_handshake_block(void **state)
{
	struct tt_row row = overflowing_row();
	struct capture c;

	(void)state;
	row.t.acceptq_le[17] = 9; /* accept waits: not handshakes */
	assert_false(table_row_has_handshake(&row, true));
	row.t.handshake_le[1] = 30; /* at most 20 us */
	row.t.handshake_le[15] = 2; /* at most 1 s */
	assert_true(table_row_has_handshake(&row, true));
	assert_false(table_row_has_handshake(&row, false));
	row.t.handshake_le[17] = 1; /* at most 5 s: two SYN-ACKs sent again */
	assert_true(table_row_has_handshake(&row, false));
	capture_start(&c);
	table_write_handshake_header(c.f);
	table_write_handshake_row(c.f, &row);
	assert_string_equal(capture_end(&c), "                   handshakes   time, at most\n"
					     "    PID COMM        all   >1s   p50   p99   max\n"
					     "   4242 haproxy      33     1  20us    5s    5s\n");
	free(c.text);
}

/* A row is in the listeners' failures block for a drop, a SYN-ACK sent
 * again or a queue more than half full; not for a queue at half its limit,
 * nor for its connects' failures. */
static void test_which_rows_have_queue_failures(void **state)
{
	struct tt_row row;

	(void)state;
	memset(&row, 0, sizeof(row));
	assert_false(table_row_has_queue_failures(&row, false));
	row.acceptq_peak = 8;
	row.acceptq_limit = 16;
	assert_false(table_row_has_queue_failures(&row, false));
	row.acceptq_peak = 9;
	assert_true(table_row_has_queue_failures(&row, false));
	assert_false(table_row_has_queue_failures(&row, true));
	memset(&row, 0, sizeof(row));
	row.c.synack_retrans = 1;
	assert_true(table_row_has_queue_failures(&row, true));
	memset(&row, 0, sizeof(row));
	row.listen_drops = 1;
	assert_true(table_row_has_queue_failures(&row, false));
	memset(&row, 0, sizeof(row));
	row.c.syn_retrans = 1;
	row.c.connfail = 1;
	row.c.eaddrnotavail = 1;
	assert_false(table_row_has_queue_failures(&row, false));
}

/* A row is in the connects' failures block for a SYN sent again, a failed
 * connect() or one that found no port; not for its listeners'. */
static void test_which_rows_have_connect_failures(void **state)
{
	struct tt_row row;

	(void)state;
	memset(&row, 0, sizeof(row));
	row.listen_drops = 1;
	row.c.synack_retrans = 1;
	row.acceptq_peak = 17;
	row.acceptq_limit = 16;
	assert_false(table_row_has_connect_failures(&row));
	memset(&row, 0, sizeof(row));
	row.c.syn_retrans = 1;
	assert_true(table_row_has_connect_failures(&row));
	memset(&row, 0, sizeof(row));
	row.c.connfail = 1;
	row.c.connfail_by[TT_CONNFAIL_REFUSED] = 1;
	assert_true(table_row_has_connect_failures(&row));
	memset(&row, 0, sizeof(row));
	row.c.eaddrnotavail = 1;
	assert_true(table_row_has_connect_failures(&row));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_count_small_values_as_is),
		cmocka_unit_test(test_count_thousands),
		cmocka_unit_test(test_count_millions_with_one_decimal),
		cmocka_unit_test(test_count_tens_of_millions),
		cmocka_unit_test(test_count_larger_units),
		cmocka_unit_test(test_count_uint64_max),
		cmocka_unit_test(test_count_never_exceeds_five_characters),
		cmocka_unit_test(test_header_with_clock),
		cmocka_unit_test(test_header_with_total_label),
		cmocka_unit_test(test_row_sums_sides_of_fin_and_rst),
		cmocka_unit_test(test_header_and_row_line_up),
		cmocka_unit_test(test_dest_header_and_row_line_up),
		cmocka_unit_test(test_dest_runout_dash_when_not_growing_and_ipv6),
		cmocka_unit_test(test_row_puts_each_counter_in_its_column),
		cmocka_unit_test(test_row_truncates_comm_and_shortens_counts),
		cmocka_unit_test(test_queue_failure_block_puts_each_count_in_its_column),
		cmocka_unit_test(test_queue_failure_block_run_queue_in_the_summary),
		cmocka_unit_test(test_connect_failure_block_puts_each_count_in_its_column),
		cmocka_unit_test(test_before_syn_block_puts_each_errno_in_its_column),
		cmocka_unit_test(test_bind_eaddrinuse_alone_is_a_connect_failure),
		cmocka_unit_test(test_failure_blocks_fit_80_columns),
		cmocka_unit_test(test_which_rows_have_queue_failures),
		cmocka_unit_test(test_which_rows_have_connect_failures),
		cmocka_unit_test(test_retrans_block),
		cmocka_unit_test(test_dest_retrans_block),
		cmocka_unit_test(test_latency_block),
		cmocka_unit_test(test_accept_wait_block),
		cmocka_unit_test(test_handshake_block),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
