// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Unit tests of the JSON lines writer: string escaping, invalid UTF-8,
 * rows spelled out in full, the same fields as the CSV, and failed writes. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include "output/csv.h"
#include "output/json.h"

#define ISO_TIME "2026-11-22T16:45:01.000Z"
/* The failed connects by cause and the connect latency buckets, all 0. */
#define CONNECT_ZERO_FIELDS          \
	",\"connfail_refused\":0,\"connfail_timeout\":0,\"connfail_unreach\":0" \
	",\"connfail_abandoned\":0,\"connfail_enetunreach\":0,\"connfail_ehostunreach\":0" \
	",\"connfail_eacces\":0,\"connfail_einval\":0,\"connfail_eperm\":0" \
	",\"connfail_other\":0,\"connect_10us\":0,\"connect_20us\":0" \
	",\"connect_50us\":0,\"connect_100us\":0,\"connect_200us\":0" \
	",\"connect_500us\":0,\"connect_1ms\":0,\"connect_2ms\":0" \
	",\"connect_5ms\":0,\"connect_10ms\":0,\"connect_20ms\":0" \
	",\"connect_50ms\":0,\"connect_100ms\":0,\"connect_200ms\":0" \
	",\"connect_500ms\":0,\"connect_1s\":0,\"connect_2s\":0" \
	",\"connect_5s\":0,\"connect_10s\":0,\"connect_20s\":0" \
	",\"connect_50s\":0,\"connect_over_50s\":0,\"connect_us\":0" ACCEPT_WAIT_ZERO_FIELDS
/* The accept queue waits and the handshakes, all 0. */
#define ACCEPT_WAIT_ZERO_FIELDS \
	",\"accept_wait_10us\":0,\"accept_wait_20us\":0,\"accept_wait_50us\":0" \
	",\"accept_wait_100us\":0,\"accept_wait_200us\":0,\"accept_wait_500us\":0" \
	",\"accept_wait_1ms\":0,\"accept_wait_2ms\":0,\"accept_wait_5ms\":0" \
	",\"accept_wait_10ms\":0,\"accept_wait_20ms\":0,\"accept_wait_50ms\":0" \
	",\"accept_wait_100ms\":0,\"accept_wait_200ms\":0,\"accept_wait_500ms\":0" \
	",\"accept_wait_1s\":0,\"accept_wait_2s\":0,\"accept_wait_5s\":0" \
	",\"accept_wait_10s\":0,\"accept_wait_20s\":0,\"accept_wait_50s\":0" \
	",\"accept_wait_over_50s\":0,\"accept_wait_us\":0" \
	",\"handshake_10us\":0,\"handshake_20us\":0,\"handshake_50us\":0" \
	",\"handshake_100us\":0,\"handshake_200us\":0,\"handshake_500us\":0" \
	",\"handshake_1ms\":0,\"handshake_2ms\":0,\"handshake_5ms\":0" \
	",\"handshake_10ms\":0,\"handshake_20ms\":0,\"handshake_50ms\":0" \
	",\"handshake_100ms\":0,\"handshake_200ms\":0,\"handshake_500ms\":0" \
	",\"handshake_1s\":0,\"handshake_2s\":0,\"handshake_5s\":0" \
	",\"handshake_10s\":0,\"handshake_20s\":0,\"handshake_50s\":0" \
	",\"handshake_over_50s\":0,\"handshake_us\":0" \
	",\"retrans_in\":0,\"retrans_out\":0,\"retrans_rto_in\":0,\"retrans_rto_out\":0" \
	",\"segs_sent_in\":0,\"segs_sent_out\":0"
#define ZERO_FIELDS                                                                          \
	"\"conn_in\":0,\"conn_out\":0,\"fin_active_in\":0,\"fin_active_out\":0,"             \
	"\"fin_passive_in\":0,\"fin_passive_out\":0,\"rst_sent_in\":0,\"rst_sent_out\":0,"   \
	"\"rst_recv_in\":0,\"rst_recv_out\":0,\"tw_in\":0,\"tw_out\":0,\"tw_now\":0,"         \
	"\"eaddrnotavail\":0,\"eaddrinuse\":0,\"timeout_in\":0,\"timeout_out\":0,"           \
	"\"connfail_out\":0,"                                                                \
	"\"untracked\":0,\"tw_rst\":0,\"open_in\":0,\"open_out\":0,\"listen_drops\":0,"          \
	"\"acceptq_peak\":0,\"acceptq_limit\":0,\"syn_retrans_out\":0,\"synack_retrans_in\":0" \
	CONNECT_ZERO_FIELDS

static struct tt_row make_row(uint32_t pid, const char *comm)
{
	struct tt_row row;

	memset(&row, 0, sizeof(row));
	row.pid = pid;
	strncpy(row.comm, comm, sizeof(row.comm) - 1);
	return row;
}

/* json_put_string of len bytes, as text to free(). */
static char *escaped(const char *s, size_t len)
{
	char *text = NULL;
	size_t size = 0;
	FILE *m = open_memstream(&text, &size);

	assert_non_null(m);
	json_put_string(m, s, len);
	assert_int_equal(fclose(m), 0);
	return text;
}

static void expect_escaped(const char *s, size_t len, const char *expected)
{
	char *text = escaped(s, len);

	assert_string_equal(text, expected);
	free(text);
}

static char *row_text(const struct tt_row *row, const struct tt_reason_names *names)
{
	char *text = NULL;
	size_t size = 0;
	FILE *m = open_memstream(&text, &size);

	assert_non_null(m);
	assert_int_equal(json_write_row(m, ISO_TIME, 1.5, row, names, NULL), 0);
	assert_int_equal(fclose(m), 0);
	return text;
}

/* A scoped run's line names its scope last. */
static void test_row_names_the_scope(void **state)
{
	struct tt_row row = { .pid = 7 };
	char *text = NULL;
	size_t size = 0;
	FILE *m = open_memstream(&text, &size);

	(void)state;
	memcpy(row.comm, "haproxy", 8);
	assert_non_null(m);
	assert_int_equal(json_write_row(m, ISO_TIME, 1.5, &row, NULL, "netns /run/netns/a"), 0);
	assert_int_equal(fclose(m), 0);
	assert_non_null(strstr(text, ",\"rst_sent_reasons\":{},\"scope\":\"netns /run/netns/a\"}\n"));
	free(text);
}

static void test_plain_string_is_quoted(void **state)
{
	(void)state;
	expect_escaped("nginx", 5, "\"nginx\"");
	expect_escaped("", 0, "\"\"");
}

static void test_quote_and_backslash_are_escaped(void **state)
{
	(void)state;
	expect_escaped("a\"b\\c", 5, "\"a\\\"b\\\\c\"");
}

static void test_control_bytes_are_escaped(void **state)
{
	(void)state;
	expect_escaped("\b\f\n\r\t", 5, "\"\\b\\f\\n\\r\\t\"");
	expect_escaped("\x01\x1f", 2, "\"\\u0001\\u001f\"");
	/* DEL needs no escape in JSON. */
	expect_escaped("\x7f", 1, "\"\x7f\"");
}

static void test_utf8_is_kept(void **state)
{
	(void)state;
	expect_escaped("caf\xc3\xa9", 5, "\"caf\xc3\xa9\"");
	expect_escaped("\xe2\x82\xac\xf0\x9f\x98\x80", 7, "\"\xe2\x82\xac\xf0\x9f\x98\x80\"");
}

static void test_invalid_utf8_becomes_replacement_escape(void **state)
{
	(void)state;
	expect_escaped("a\xff" "b", 3, "\"a\\ufffdb\"");
	/* A cut sequence: each byte of it is replaced. */
	expect_escaped("\xe2\x82", 2, "\"\\ufffd\\ufffd\"");
	/* Overlong '/' and a UTF-16 surrogate are not UTF-8. */
	expect_escaped("\xc0\xaf", 2, "\"\\ufffd\\ufffd\"");
	expect_escaped("\xed\xa0\x80", 3, "\"\\ufffd\\ufffd\\ufffd\"");
}

static void test_row_of_zeros(void **state)
{
	struct tt_row row = make_row(4242, "haproxy");
	char *text;

	(void)state;
	text = row_text(&row, NULL);
	assert_string_equal(text, "{\"time\":\"" ISO_TIME "\",\"elapsed_s\":1.500,\"pid\":4242,"
				  "\"comm\":\"haproxy\"," ZERO_FIELDS ",\"rst_sent_reasons\":{}}\n");
	free(text);
}

static void test_row_puts_each_counter_in_its_field(void **state)
{
	struct tt_row row = make_row(7, "envoy");
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
	row.c.eaddrinuse = 27;
	row.c.timeout[TT_SIDE_IN] = 15;
	row.c.timeout[TT_SIDE_OUT] = 16;
	row.c.connfail = 17;
	row.c.untracked = 18;
	row.c.tw_rst = 18446744073709551615ULL;
	row.open[TT_SIDE_IN] = 20;
	row.open[TT_SIDE_OUT] = 21;
	row.listen_drops = 22;
	row.acceptq_peak = 23;
	row.acceptq_limit = 24;
	row.c.syn_retrans = 25;
	row.c.synack_retrans = 26;
	text = row_text(&row, NULL);
	assert_string_equal(
		text, "{\"time\":\"" ISO_TIME "\",\"elapsed_s\":1.500,\"pid\":7,\"comm\":\"envoy\","
		      "\"conn_in\":1,\"conn_out\":2,\"fin_active_in\":3,\"fin_active_out\":4,"
		      "\"fin_passive_in\":5,\"fin_passive_out\":6,\"rst_sent_in\":7,"
		      "\"rst_sent_out\":8,\"rst_recv_in\":9,\"rst_recv_out\":10,\"tw_in\":11,"
		      "\"tw_out\":12,\"tw_now\":13,\"eaddrnotavail\":14,\"eaddrinuse\":27,"
		      "\"timeout_in\":15,"
		      "\"timeout_out\":16,\"connfail_out\":17,\"untracked\":18,"
		      "\"tw_rst\":18446744073709551615,\"open_in\":20,\"open_out\":21,"
		      "\"listen_drops\":22,\"acceptq_peak\":23,\"acceptq_limit\":24,"
		      "\"syn_retrans_out\":25,\"synack_retrans_in\":26" CONNECT_ZERO_FIELDS
		      ",\"rst_sent_reasons\":{}}\n");
	free(text);
}

static void test_reasons_are_an_object_of_both_sides_added(void **state)
{
	struct tt_reason_names names = { { NULL } };
	struct tt_row row = make_row(8, "envoy");
	char *text;

	(void)state;
	names.name[2] = "NO_SOCKET";
	names.name[TT_REASON_OTHER] = "UNKNOWN";
	row.c.rst_sent[TT_SIDE_IN] = 9;
	row.c.rst_sent[TT_SIDE_OUT] = 2;
	row.reasons[TT_SIDE_IN][2] = 5;
	row.reasons[TT_SIDE_OUT][2] = 1;
	row.reasons[TT_SIDE_IN][5] = 3;
	row.reasons[TT_SIDE_OUT][TT_REASON_OTHER] = 1;
	text = row_text(&row, &names);
	assert_non_null(strstr(text, ",\"rst_sent_reasons\":{\"NO_SOCKET\":6,\"reason_5\":3,"
				     "\"UNKNOWN\":1}}\n"));
	free(text);
}

static void test_comm_is_escaped(void **state)
{
	struct tt_row row = make_row(9, "a\"b\\c\nd\xff");
	char *text;

	(void)state;
	text = row_text(&row, NULL);
	assert_non_null(strstr(text, ",\"comm\":\"a\\\"b\\\\c\\nd\\ufffd\","));
	free(text);
}

static void test_comm_of_all_16_bytes_stops_at_the_array(void **state)
{
	struct tt_row row = make_row(9, "");
	char *text;

	(void)state;
	memcpy(row.comm, "0123456789abcdef", TT_COMM_LEN); /* no NUL */
	text = row_text(&row, NULL);
	assert_non_null(strstr(text, ",\"comm\":\"0123456789abcdef\","));
	free(text);
}

/* The keys of a JSON line, in order, are the columns of the CSV header. */
static void test_fields_are_the_csv_columns(void **state)
{
	struct tt_row row = make_row(1, "x");
	char *header = NULL, *text, *p, keys[2048] = "";
	size_t used = 0;
	size_t size = 0;
	FILE *m = open_memstream(&header, &size);

	(void)state;
	assert_non_null(m);
	csv_write_header(m, NULL);
	assert_int_equal(fclose(m), 0);
	row.reasons[TT_SIDE_IN][1] = 1; /* a key inside rst_sent_reasons is no field */
	text = row_text(&row, NULL);
	for (p = text; (p = strstr(p, "\":")); p += 2) {
		char *start = p;

		while (start > text && start[-1] != '"')
			start--;
		if (!strncmp(start, "reason_1", 8))
			continue;
		used += (size_t)snprintf(keys + used, sizeof(keys) - used, "%.*s,", (int)(p - start),
					 start);
		assert_true(used < sizeof(keys));
	}
	keys[used - 1] = '\n';
	assert_string_equal(keys, header);
	free(text);
	free(header);
}

static void test_dest_row_spelled_out(void **state)
{
	struct tt_dest_row row;
	char *text = NULL;
	size_t size = 0;
	FILE *m = open_memstream(&text, &size);

	(void)state;
	assert_non_null(m);
	memset(&row, 0, sizeof(row));
	row.pid = 31;
	memcpy(row.comm, "haproxy", 7);
	row.family = AF_INET6;
	row.port = 8081;
	inet_pton(AF_INET6, "::1", row.addr);
	row.c.conn = 1;
	row.c.fin_active = 2;
	row.c.fin_passive = 3;
	row.c.rst_sent = 4;
	row.c.rst_recv = 5;
	row.c.timeout = 6;
	row.c.tw = 7;
	row.tw_now = 8;
	row.c.connfail = 9;
	row.c.eaddrnotavail = 10;
	row.ports_held = 11;
	row.ports_free = 12;
	row.runout_s = 13.25;
	row.c.connfail_by[TT_CONNFAIL_REFUSED] = 9;
	row.c.connect_le[0] = 14;
	row.c.connect_us = 140;
	row.c.retrans = 15;
	row.c.retrans_rto = 16;
	row.c.segs_sent = 17;
	assert_int_equal(json_write_dest_row(m, ISO_TIME, 2.0, &row), 0);
	assert_int_equal(fclose(m), 0);
	assert_string_equal(text, "{\"time\":\"" ISO_TIME "\",\"elapsed_s\":2.000,\"pid\":31,"
				  "\"comm\":\"haproxy\",\"dest\":\"[::1]:8081\",\"conn_out\":1,"
				  "\"fin_active_out\":2,\"fin_passive_out\":3,\"rst_sent_out\":4,"
				  "\"rst_recv_out\":5,\"timeout_out\":6,\"tw_out\":7,\"tw_now\":8,"
				  "\"connfail_out\":9,\"eaddrnotavail\":10,\"ports_held\":11,"
				  "\"ports_free\":12,\"runout_s\":13.2,\"connfail_refused\":9,"
				  "\"connfail_timeout\":0,\"connfail_unreach\":0,\"connfail_abandoned\":0,"
				  "\"connfail_enetunreach\":0,\"connfail_ehostunreach\":0,"
				  "\"connfail_eacces\":0,\"connfail_einval\":0,\"connfail_eperm\":0,"
				  "\"connfail_other\":0,\"connect_10us\":14,\"connect_20us\":0,\"connect_50us\":0,"
				  "\"connect_100us\":0,\"connect_200us\":0,\"connect_500us\":0,"
				  "\"connect_1ms\":0,\"connect_2ms\":0,\"connect_5ms\":0,"
				  "\"connect_10ms\":0,\"connect_20ms\":0,\"connect_50ms\":0,"
				  "\"connect_100ms\":0,\"connect_200ms\":0,\"connect_500ms\":0,"
				  "\"connect_1s\":0,\"connect_2s\":0,\"connect_5s\":0,\"connect_10s\":0,"
				  "\"connect_20s\":0,\"connect_50s\":0,\"connect_over_50s\":0,"
				  "\"connect_us\":140,\"retrans_out\":15,\"retrans_rto_out\":16,"
				  "\"segs_sent_out\":17}\n");
	free(text);
}

/* The keys of a destination line are the columns of the --by dest CSV. */
static void test_dest_fields_are_the_dest_csv_columns(void **state)
{
	struct tt_dest_row row;
	char *header = NULL, *text = NULL, *p, keys[2048] = "";
	size_t size = 0, used = 0;
	FILE *m = open_memstream(&header, &size);

	(void)state;
	assert_non_null(m);
	csv_write_dest_header(m);
	assert_int_equal(fclose(m), 0);
	memset(&row, 0, sizeof(row));
	row.family = AF_INET;
	m = open_memstream(&text, &size);
	assert_non_null(m);
	assert_int_equal(json_write_dest_row(m, ISO_TIME, 1.0, &row), 0);
	assert_int_equal(fclose(m), 0);
	for (p = text; (p = strstr(p, "\":")); p += 2) {
		char *start = p;

		while (start > text && start[-1] != '"')
			start--;
		used += (size_t)snprintf(keys + used, sizeof(keys) - used, "%.*s,", (int)(p - start),
					 start);
		assert_true(used < sizeof(keys));
	}
	keys[used - 1] = '\n';
	assert_string_equal(keys, header);
	free(text);
	free(header);
}

static void test_write_to_full_unbuffered_stream_fails(void **state)
{
	struct tt_row row = make_row(1, "a");
	char buf[8];
	FILE *f;

	(void)state;
	f = fmemopen(buf, sizeof(buf), "w");
	assert_non_null(f);
	setvbuf(f, NULL, _IONBF, 0);
	assert_int_equal(json_write_row(f, ISO_TIME, 1.0, &row, NULL, NULL), -1);
	fclose(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain_string_is_quoted),
		cmocka_unit_test(test_row_names_the_scope),
		cmocka_unit_test(test_quote_and_backslash_are_escaped),
		cmocka_unit_test(test_control_bytes_are_escaped),
		cmocka_unit_test(test_utf8_is_kept),
		cmocka_unit_test(test_invalid_utf8_becomes_replacement_escape),
		cmocka_unit_test(test_row_of_zeros),
		cmocka_unit_test(test_row_puts_each_counter_in_its_field),
		cmocka_unit_test(test_reasons_are_an_object_of_both_sides_added),
		cmocka_unit_test(test_comm_is_escaped),
		cmocka_unit_test(test_comm_of_all_16_bytes_stops_at_the_array),
		cmocka_unit_test(test_fields_are_the_csv_columns),
		cmocka_unit_test(test_dest_row_spelled_out),
		cmocka_unit_test(test_dest_fields_are_the_dest_csv_columns),
		cmocka_unit_test(test_write_to_full_unbuffered_stream_fails),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
