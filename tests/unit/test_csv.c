// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Unit tests of the CSV writer: the header, rows spelled out in full, RFC
 * 4180 quoting, RST reason lists, and reporting a failed write. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <unistd.h>
#include "csv_fixtures.h"
#include "output/csv.h"

#define ISO_TIME "2026-11-22T16:45:01.000Z"
#define ZERO_COUNTS "0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0," ZEROS_CONNECT

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

static struct tt_row make_row(uint32_t pid, const char *comm)
{
	struct tt_row row;

	memset(&row, 0, sizeof(row));
	row.pid = pid;
	strncpy(row.comm, comm, sizeof(row.comm) - 1);
	return row;
}

/* Writes one row into memory, expecting success, and returns the text. */
static char *row_text(const struct tt_row *row, double elapsed_s,
		      const struct tt_reason_names *names)
{
	struct capture c;

	capture_start(&c);
	assert_int_equal(csv_write_row(c.f, ISO_TIME, elapsed_s, row, names, NULL), 0);
	capture_end(&c);
	return c.text;
}

static void test_header(void **state)
{
	struct capture c;

	(void)state;
	capture_start(&c);
	csv_write_header(c.f, NULL);
	assert_string_equal(
		capture_end(&c),
		"time,elapsed_s,pid,comm,conn_in,conn_out,fin_active_in,fin_active_out,"
		"fin_passive_in,fin_passive_out,rst_sent_in,rst_sent_out,rst_recv_in,"
		"rst_recv_out,tw_in,tw_out,tw_now,eaddrnotavail,eaddrinuse,timeout_in,timeout_out,"
		"connfail_out,untracked,tw_rst,open_in,open_out,listen_drops,acceptq_peak,"
		"acceptq_limit,syn_retrans_out,synack_retrans_in," HEADER_CONNECT "rst_sent_reasons\n");
	free(c.text);
}

static void test_row_of_zeros(void **state)
{
	struct tt_row row = make_row(4242, "haproxy");
	char *text;

	(void)state;
	text = row_text(&row, 1.0, NULL);
	assert_string_equal(text, ISO_TIME ",1.000,4242,haproxy," ZERO_COUNTS ",\n");
	free(text);
}

static void test_row_puts_each_counter_in_its_column(void **state)
{
	struct tt_row row = make_row(7, "nginx");
	char *text;

	(void)state;
	row.c.conn[TT_SIDE_IN] = 1;
	row.c.conn[TT_SIDE_OUT] = 2;
	row.c.fin_active[TT_SIDE_IN] = 3;
	row.c.fin_active[TT_SIDE_OUT] = 4;
	row.c.fin_passive[TT_SIDE_IN] = 5;
	row.c.fin_passive[TT_SIDE_OUT] = 6;
	row.c.rst_sent[TT_SIDE_IN] = 7;
	row.c.rst_sent[TT_SIDE_OUT] = 8;
	row.c.rst_recv[TT_SIDE_IN] = 9;
	row.c.rst_recv[TT_SIDE_OUT] = 10;
	row.c.tw[TT_SIDE_IN] = 11;
	row.c.tw[TT_SIDE_OUT] = 12;
	row.tw_now = 13;
	row.c.eaddrnotavail = 14;
	row.c.eaddrinuse = 100;
	row.c.timeout[TT_SIDE_IN] = 15;
	row.c.timeout[TT_SIDE_OUT] = 16;
	row.c.connfail = 17;
	row.c.untracked = 18446744073709551615ULL;
	row.c.tw_rst = 19;
	row.open[TT_SIDE_IN] = 20;
	row.open[TT_SIDE_OUT] = 21;
	row.listen_drops = 22;
	row.acceptq_peak = 23;
	row.acceptq_limit = 24;
	row.c.syn_retrans = 25;
	row.c.synack_retrans = 26;
	for (size_t i = 0; i < TT_CONNFAILS; i++)
		row.c.connfail_by[i] = 27 + i;
	for (size_t i = 0; i < TT_CONNECT_BUCKETS; i++)
		row.t.connect_le[i] = 37 + i;
	row.t.connect_us = 59;
	for (size_t i = 0; i < TT_CONNECT_BUCKETS; i++)
		row.t.acceptq_le[i] = 60 + i;
	row.t.acceptq_us = 82;
	for (size_t i = 0; i < TT_CONNECT_BUCKETS; i++)
		row.t.handshake_le[i] = 83 + i;
	row.t.handshake_us = 105;
	row.c.retrans[TT_SIDE_IN] = 106;
	row.c.retrans[TT_SIDE_OUT] = 107;
	row.c.retrans_rto[TT_SIDE_IN] = 108;
	row.c.retrans_rto[TT_SIDE_OUT] = 109;
	row.c.segs_sent[TT_SIDE_IN] = 110;
	row.c.segs_sent[TT_SIDE_OUT] = 111;
	text = row_text(&row, 2.5, NULL);
	assert_string_equal(text, ISO_TIME ",2.500,7,nginx,"
					   "1,2,3,4,5,6,7,8,9,10,11,12,13,14,100,15,16,17,"
					   "18446744073709551615,19,20,21,22,23,24,25,26,27,28,29,30,31,"
					   "32,33,34,35,36,37,38,39,40,41,42,43,44,45,46,47,48,49,50,51,52,"
					   "53,54,55,56,57,58,59,60,61,62,63,64,65,66,67,68,69,70,71,72,73,74,75,76,"
					   "77,78,79,80,81,82,83,84,85,86,87,88,89,90,91,92,93,94,95,96,97,98,99,"
					   "100,101,102,103,104,105,106,107,108,109,110,111,\n");
	free(text);
}

static void test_elapsed_has_three_decimals(void **state)
{
	struct tt_row row = make_row(1, "a");
	char *text;

	(void)state;
	text = row_text(&row, 12.3456, NULL);
	assert_string_equal(text, ISO_TIME ",12.346,1,a," ZERO_COUNTS ",\n");
	free(text);
}

static void test_comm_with_comma_and_quote_is_quoted(void **state)
{
	struct tt_row row = make_row(99, "a,\"b");
	char *text;

	(void)state;
	text = row_text(&row, 1.0, NULL);
	assert_string_equal(text, ISO_TIME ",1.000,99,\"a,\"\"b\"," ZERO_COUNTS ",\n");
	free(text);
}

static void test_comm_with_newline_is_quoted(void **state)
{
	struct tt_row row = make_row(99, "two\nlines");
	char *text;

	(void)state;
	text = row_text(&row, 1.0, NULL);
	assert_string_equal(text, ISO_TIME ",1.000,99,\"two\nlines\"," ZERO_COUNTS ",\n");
	free(text);
}

static void test_comm_filling_the_array_is_written_whole(void **state)
{
	struct tt_row row = make_row(5, "");
	char *text;

	(void)state;
	memcpy(row.comm, "0123456789abcdef", TT_COMM_LEN);
	text = row_text(&row, 1.0, NULL);
	assert_string_equal(text, ISO_TIME ",1.000,5,0123456789abcdef," ZERO_COUNTS ",\n");
	free(text);
}

static void test_reasons_named_and_unnamed_in_slot_order(void **state)
{
	struct tt_reason_names names = { { NULL } };
	struct tt_row row = make_row(8, "envoy");
	char *text;

	(void)state;
	names.name[2] = "NO_SOCKET";
	names.name[TT_REASON_OTHER] = "OTHER";
	row.c.rst_sent[TT_SIDE_IN] = 10;
	row.reasons[TT_SIDE_IN][TT_REASON_OTHER] = 1;
	row.reasons[TT_SIDE_IN][5] = 3;
	row.reasons[TT_SIDE_IN][2] = 6;
	text = row_text(&row, 1.0, &names);
	assert_string_equal(text, ISO_TIME ",1.000,8,envoy,0,0,0,0,0,0,10,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0," ZEROS_CONNECT ","
					   "NO_SOCKET=6;reason_5=3;OTHER=1\n");
	free(text);
}

static void test_reasons_without_names_table(void **state)
{
	struct tt_row row = make_row(8, "envoy");
	char *text;

	(void)state;
	row.reasons[TT_SIDE_IN][0] = 2;
	text = row_text(&row, 1.0, NULL);
	assert_string_equal(text, ISO_TIME ",1.000,8,envoy," ZERO_COUNTS ",reason_0=2\n");
	free(text);
}

static void test_reason_name_with_comma_is_quoted(void **state)
{
	struct tt_reason_names names = { { NULL } };
	struct tt_row row = make_row(8, "envoy");
	char *text;

	(void)state;
	names.name[1] = "ODD,NAME";
	row.reasons[TT_SIDE_OUT][1] = 1;
	row.reasons[TT_SIDE_IN][3] = 4;
	text = row_text(&row, 1.0, &names);
	assert_string_equal(text,
			    ISO_TIME ",1.000,8,envoy," ZERO_COUNTS ",\"ODD,NAME=1;reason_3=4\"\n");
	free(text);
}

static void test_reasons_of_both_sides_are_added(void **state)
{
	struct tt_reason_names names = { { NULL } };
	struct tt_row row = make_row(8, "envoy");
	char *text;

	(void)state;
	names.name[2] = "NO_SOCKET";
	row.c.rst_sent[TT_SIDE_IN] = 4;
	row.c.rst_sent[TT_SIDE_OUT] = 3;
	row.reasons[TT_SIDE_IN][2] = 4;
	row.reasons[TT_SIDE_OUT][2] = 3;
	text = row_text(&row, 1.0, &names);
	assert_string_equal(text, ISO_TIME ",1.000,8,envoy,0,0,0,0,0,0,4,3,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0," ZEROS_CONNECT ","
					   "NO_SOCKET=7\n");
	free(text);
}

static void test_write_to_read_only_stream_fails(void **state)
{
	struct tt_row row = make_row(1, "a");
	char path[] = "/tmp/test_csv_XXXXXX";
	int fd;
	FILE *f;

	(void)state;
	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	f = fopen(path, "r");
	assert_non_null(f);
	assert_int_equal(csv_write_row(f, ISO_TIME, 1.0, &row, NULL, NULL), -1);
	fclose(f);
	unlink(path);
}

static void test_write_to_full_unbuffered_stream_fails(void **state)
{
	struct tt_row row = make_row(1, "a");
	char buf[1];
	FILE *f;

	(void)state;
	f = fmemopen(buf, sizeof(buf), "w");
	assert_non_null(f);
	setvbuf(f, NULL, _IONBF, 0);
	assert_int_equal(csv_write_row(f, ISO_TIME, 1.0, &row, NULL, NULL), -1);
	fclose(f);
}

static void test_rows_follow_the_header(void **state)
{
	struct tt_row a = make_row(1, "a"), b = make_row(2, "b");
	struct capture c;

	(void)state;
	a.c.conn[TT_SIDE_IN] = 3;
	capture_start(&c);
	csv_write_header(c.f, NULL);
	assert_int_equal(csv_write_row(c.f, ISO_TIME, 0.5, &a, NULL, NULL), 0);
	assert_int_equal(csv_write_row(c.f, ISO_TIME, 0.5, &b, NULL, NULL), 0);
	assert_string_equal(
		capture_end(&c),
		"time,elapsed_s,pid,comm,conn_in,conn_out,fin_active_in,fin_active_out,"
		"fin_passive_in,fin_passive_out,rst_sent_in,rst_sent_out,rst_recv_in,"
		"rst_recv_out,tw_in,tw_out,tw_now,eaddrnotavail,eaddrinuse,timeout_in,timeout_out,"
		"connfail_out,untracked,tw_rst,open_in,open_out,listen_drops,acceptq_peak,"
		"acceptq_limit,syn_retrans_out,synack_retrans_in," HEADER_CONNECT "rst_sent_reasons\n"
		ISO_TIME ",0.500,1,a,3,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0," ZEROS_CONNECT ",\n"
		ISO_TIME ",0.500,2,b," ZERO_COUNTS ",\n");
	free(c.text);
}

static void test_dest_header_and_row(void **state)
{
	struct tt_dest_row d;
	struct capture c;

	(void)state;
	memset(&d, 0, sizeof(d));
	d.pid = 77;
	strcpy(d.comm, "nginx");
	d.family = AF_INET;
	d.port = 8081;
	d.addr[0] = 10;
	d.addr[3] = 9;
	d.c.conn = 5;
	d.c.fin_active = 4;
	d.c.timeout = 1;
	d.c.tw = 4;
	d.tw_now = 9;
	d.c.connfail = 2;
	d.c.eaddrnotavail = 3;
	d.ports_held = 100;
	d.ports_free = 7;
	d.runout_s = 1.25;
	d.c.connfail_by[TT_CONNFAIL_TIMEOUT] = 2;
	d.c.connect_le[16] = 5;
	d.c.connect_us = 5000000;
	d.c.retrans = 40;
	d.c.retrans_rto = 3;
	d.c.segs_sent = 900;
	capture_start(&c);
	csv_write_dest_header(c.f);
	assert_int_equal(csv_write_dest_row(c.f, "2026-11-22T16:45:01.000Z", 2.5, &d), 0);
	assert_string_equal(
		capture_end(&c),
		"time,elapsed_s,pid,comm,dest,conn_out,fin_active_out,fin_passive_out,rst_sent_out,"
		"rst_recv_out,timeout_out,tw_out,tw_now,connfail_out,eaddrnotavail,ports_held,"
		"ports_free,runout_s," HEADER_CONNECT_NO_COMMA ",retrans_out,retrans_rto_out,"
		"segs_sent_out\n"
		"2026-11-22T16:45:01.000Z,2.500,77,nginx,10.0.0.9:8081,5,4,0,0,0,1,4,9,2,3,100,7,1.2,"
		"0,2,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,5,0,0,0,0,0,5000000,40,3,900\n");
	free(c.text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_header),
		cmocka_unit_test(test_dest_header_and_row),
		cmocka_unit_test(test_row_of_zeros),
		cmocka_unit_test(test_row_puts_each_counter_in_its_column),
		cmocka_unit_test(test_elapsed_has_three_decimals),
		cmocka_unit_test(test_comm_with_comma_and_quote_is_quoted),
		cmocka_unit_test(test_comm_with_newline_is_quoted),
		cmocka_unit_test(test_comm_filling_the_array_is_written_whole),
		cmocka_unit_test(test_reasons_named_and_unnamed_in_slot_order),
		cmocka_unit_test(test_reasons_without_names_table),
		cmocka_unit_test(test_reason_name_with_comma_is_quoted),
		cmocka_unit_test(test_reasons_of_both_sides_are_added),
		cmocka_unit_test(test_write_to_read_only_stream_fails),
		cmocka_unit_test(test_write_to_full_unbuffered_stream_fails),
		cmocka_unit_test(test_rows_follow_the_header),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
