// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Unit tests of the findings a load run's latency holds: data segments
 * sent again, from their share on (per name and side, per destination),
 * and a load generator's connects that did not connect or waited; their
 * lines and JSON objects spelled out. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include "output/findings.h"

#define DOC " See man 8 tcptrace (FINDINGS) or share/doc/tcptrace-bpf/diagnosing.md#"
#define WAIT_WORDS                                                                          \
	" A segment sent again delays what it carries by a round trip at least, and by 200 ms " \
	"or more after a timeout (the kernel's least, doubled at each one): with one segment " \
	"in a hundred sent again, the slowest requests in a hundred over these connections "   \
	"include such a wait. The segments are lost on the way: a link's errors or a full "    \
	"queue (ip -s link, tc -s qdisc), a firewall, or the peer dropping them (its nstat: "  \
	"TcpExtTCPBacklogDrop, TcpExtTCPRcvQDrop)."

static struct tt_row make_row(uint32_t pid, const char *comm)
{
	struct tt_row row;

	memset(&row, 0, sizeof(row));
	row.pid = pid;
	strncpy(row.comm, comm, sizeof(row.comm) - 1);
	return row;
}

static struct tt_dest_row make_dest(uint32_t pid, const char *comm, uint8_t last, uint64_t retrans,
				    uint64_t rto, uint64_t sent)
{
	struct tt_dest_row d;

	memset(&d, 0, sizeof(d));
	d.pid = pid;
	strncpy(d.comm, comm, sizeof(d.comm) - 1);
	d.family = AF_INET;
	d.addr[0] = 10;
	d.addr[3] = last;
	d.port = 8080;
	d.c.retrans = retrans;
	d.c.retrans_rto = rto;
	d.c.segs_sent = sent;
	return d;
}

static char *text_of(const struct tt_finding *v, size_t n)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	assert_non_null(f);
	findings_write_text(f, v, n, NULL);
	assert_int_equal(fclose(f), 0);
	return text;
}

static char *json_of(const struct tt_finding *v, size_t n)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	assert_non_null(f);
	assert_int_equal(findings_write_json(f, v, n, NULL), 0);
	assert_int_equal(fclose(f), 0);
	return text;
}

static void test_share_and_count_that_make_a_finding(void **state)
{
	(void)state;
	assert_false(findings_load_retrans_due(0, 0));
	assert_false(findings_load_retrans_due(TT_RETRANS_FINDING_MIN - 1, 100));
	assert_true(findings_load_retrans_due(10, 1000));
	assert_false(findings_load_retrans_due(10, 1001));
	assert_true(findings_load_retrans_due(12, 1000));
	/* Fewer segments of connections that ended than sent again: unknown. */
	assert_true(findings_load_retrans_due(10, 0));
	assert_true(findings_load_retrans_due(10, 9));
}

static void test_share_as_the_table_shows_it(void **state)
{
	char buf[8];

	(void)state;
	format_share(buf, sizeof(buf), 1786, 29452);
	assert_string_equal(buf, "6.1%");
	format_share(buf, sizeof(buf), 1, 29452);
	assert_string_equal(buf, "<0.1%");
	format_share(buf, sizeof(buf), 0, 29452);
	assert_string_equal(buf, "0.0%");
	format_share(buf, sizeof(buf), 300, 1000);
	assert_string_equal(buf, "30%");
	format_share(buf, sizeof(buf), 1000, 1000);
	assert_string_equal(buf, "100%");
	format_share(buf, sizeof(buf), 5, 0);
	assert_string_equal(buf, "-");
	format_share(buf, sizeof(buf), 5, 4);
	assert_string_equal(buf, "-");
}

/* Per name and side: nginx's client side at 6.1 % is one; its upstream
 * side at 0.5 % is none. */
static void test_segments_sent_again_per_side(void **state)
{
	struct tt_row rows[2] = { make_row(9236, "nginx"), make_row(9239, "nginx") };
	struct findings_input in = { .rows = rows, .n = 2 };
	struct tt_finding v[4];
	char *text;

	(void)state;
	rows[0].instance = rows[1].instance = 9236; /* a master's workers */
	rows[0].c.conn[TT_SIDE_IN] = rows[1].c.conn[TT_SIDE_IN] = 20;
	rows[0].c.conn[TT_SIDE_OUT] = 20;
	rows[0].c.retrans[TT_SIDE_IN] = 1000;
	rows[1].c.retrans[TT_SIDE_IN] = 786;
	rows[0].c.retrans_rto[TT_SIDE_IN] = 37;
	rows[0].c.segs_sent[TT_SIDE_IN] = 20000;
	rows[1].c.segs_sent[TT_SIDE_IN] = 9452;
	rows[0].c.retrans[TT_SIDE_OUT] = 50;
	rows[0].c.segs_sent[TT_SIDE_OUT] = 10000;
	assert_int_equal(findings_collect(&in, v, 4), 1);
	assert_int_equal(v[0].kind, TT_FINDING_RETRANS);
	assert_int_equal(v[0].side, TT_SIDE_IN);
	text = text_of(v, 1);
	assert_string_equal(text, "finding: nginx 9236, 9239: data segments its client connections "
				  "sent again: 1786 of 29452 (6.1%), 37 of them after a "
				  "retransmission timeout." WAIT_WORDS DOC "segments-sent-again\n");
	free(text);
	text = json_of(v, 1);
	assert_string_equal(text, "{\"finding\":\"retrans\",\"comm\":\"nginx\",\"pid\":9236,"
				  "\"processes\":2,\"pids\":[9236,9239],\"count\":1786,"
				  "\"side\":\"in\",\"rto\":37,\"segs_sent\":29452,"
				  "\"doc\":\"share/doc/tcptrace-bpf/diagnosing.md#"
				  "segments-sent-again\"}\n");
	free(text);
}

/* --by dest: one backend of three loses segments; the name's share over
 * all of them is below the threshold, that backend's is not. It is named
 * first, then the others toward which segments were sent again. */
static void test_a_destination_that_loses_segments(void **state)
{
	struct tt_row row = make_row(4242, "haproxy");
	struct tt_dest_row d[4] = {
		make_dest(4242, "haproxy", 5, 3, 0, 20000),
		make_dest(4242, "haproxy", 6, 30, 4, 1000),
		make_dest(4242, "haproxy", 7, 0, 0, 20000),
		make_dest(4242, "haproxy", 8, 1, 0, 500),
	};
	struct findings_input in = { .rows = &row, .n = 1, .dests = d, .n_dests = 4 };
	struct tt_finding v[2];
	char *text;

	(void)state;
	row.c.conn[TT_SIDE_IN] = row.c.conn[TT_SIDE_OUT] = 100;
	row.c.retrans[TT_SIDE_OUT] = 34;
	row.c.retrans_rto[TT_SIDE_OUT] = 4;
	row.c.segs_sent[TT_SIDE_OUT] = 41500;
	assert_int_equal(findings_collect(&in, v, 2), 1);
	text = text_of(v, 1);
	assert_string_equal(text, "finding: haproxy 4242: data segments its upstream connections "
				  "sent again: 34 of 41500 (<0.1%), 4 of them after a "
				  "retransmission timeout. Toward 10.0.0.6:8080: 30 of 1000 "
				  "(3.0%), 4 after a timeout; 10.0.0.5:8080: 3 of 20000 (<0.1%), "
				  "0 after a timeout; 10.0.0.8:8080: 1 of 500 (0.2%), 0 after a "
				  "timeout." WAIT_WORDS DOC "segments-sent-again\n");
	free(text);
	text = json_of(v, 1);
	assert_non_null(strstr(text, ",\"rto\":4,\"segs_sent\":41500,\"dests\":[{\"dest\":"
				     "\"10.0.0.6:8080\",\"retrans\":30,\"rto\":4,\"segs_sent\":1000},"));
	free(text);
	/* The same destination at 0.9 %: no finding. */
	d[1].c.segs_sent = 3334;
	assert_int_equal(findings_collect(&in, v, 2), 0);
}

/* Connections still open (a keep-alive pool) have sent segments that are
 * counted only at their end: the share is not known, the count is said. */
static void test_share_not_known_while_connections_stay_open(void **state)
{
	struct tt_row row = make_row(4242, "haproxy");
	struct findings_input in = { .rows = &row, .n = 1 };
	struct tt_finding v[2];
	char *text;

	(void)state;
	row.c.conn[TT_SIDE_IN] = row.c.conn[TT_SIDE_OUT] = 100;
	row.c.retrans[TT_SIDE_OUT] = 40;
	row.c.segs_sent[TT_SIDE_OUT] = 12;
	assert_int_equal(findings_collect(&in, v, 2), 1);
	text = text_of(v, 1);
	assert_non_null(strstr(text, "data segments its upstream connections sent again: 40 (of 12 "
				     "sent by the connections that ended), 0 of them after a "
				     "retransmission timeout. A segment"));
	free(text);
}

/* wrk -c 400 against haproxy at maxconn: 82 connections made, 319 connects
 * abandoned at its end, and the SYNs sent again meanwhile. */
static void test_load_generator_that_did_not_connect(void **state)
{
	struct tt_row rows[2] = { make_row(4242, "haproxy"), make_row(5151, "wrk") };
	struct findings_input in = { .rows = rows, .n = 2 };
	struct tt_finding v[4];
	size_t n;
	char *text;

	(void)state;
	rows[0].c.conn[TT_SIDE_IN] = 82;
	rows[0].c.conn[TT_SIDE_OUT] = 3337;
	rows[1].c.conn[TT_SIDE_OUT] = 82;
	rows[1].t.connect_le[2] = 82; /* at most 50 us */
	rows[1].c.syn_retrans = 1914;
	rows[1].c.connfail = 319;
	rows[1].c.connfail_by[TT_CONNFAIL_ABANDONED] = 319;
	n = findings_collect(&in, v, 4);
	assert_int_equal(n, 3);
	assert_int_equal(v[2].kind, TT_FINDING_LOAD_CLIENT);
	text = text_of(&v[2], 1);
	assert_string_equal(text, "finding: wrk 5151: connected 82 times of the 401 it tried (319 "
				  "abandoned, unanswered when it closed them); 1914 of its SYNs "
				  "were sent again. Its own latency and request figures describe "
				  "those 82 connections: the others carried no request, and a load "
				  "generator counts no error for a connect still waiting when it "
				  "stops." DOC "a-load-generators-own-figures\n");
	free(text);
	text = json_of(&v[2], 1);
	assert_string_equal(text, "{\"finding\":\"load_client\",\"comm\":\"wrk\",\"pid\":5151,"
				  "\"processes\":1,\"pids\":[5151],\"count\":82,\"side\":\"out\","
				  "\"tried\":401,\"causes\":{\"refused\":0,\"timeout\":0,"
				  "\"unreach\":0,\"abandoned\":319,\"enetunreach\":0,"
				  "\"ehostunreach\":0,\"eacces\":0,\"einval\":0,\"eperm\":0,"
				  "\"other\":0},\"eaddrnotavail\":0,\"eaddrinuse\":0,"
				  "\"syn_retrans\":1914,\"connects\":82,\"connects_over_1s\":0,"
				  "\"connect_p99_us\":50,\"connect_max_us\":50,"
				  "\"doc\":\"share/doc/tcptrace-bpf/diagnosing.md#"
				  "a-load-generators-own-figures\"}\n");
	free(text);
}

/* Both at once, and a proxy (it accepted) is never a load generator. */
static void test_load_generator_unconnected_and_slow(void **state)
{
	struct tt_row rows[2] = { make_row(4242, "haproxy"), make_row(77, "ab") };
	struct findings_input in = { .rows = rows, .n = 2 };
	struct tt_client_facts facts;
	struct tt_finding v[4];
	char *text;

	(void)state;
	rows[0].c.conn[TT_SIDE_IN] = 50;
	rows[0].c.connfail = 5;
	rows[0].c.connfail_by[TT_CONNFAIL_REFUSED] = 5;
	rows[0].t.connect_le[16] = 3;
	assert_false(findings_load_client_of(&rows[0].c, rows[0].t.connect_le, &facts));
	rows[1].c.conn[TT_SIDE_OUT] = 50;
	rows[1].c.eaddrnotavail = 2;
	rows[1].c.connfail = 4;
	rows[1].c.connfail_by[TT_CONNFAIL_TIMEOUT] = 1;
	rows[1].c.connfail_by[TT_CONNFAIL_ABANDONED] = 3;
	rows[1].t.connect_le[3] = 40; /* at most 100 us */
	rows[1].t.connect_le[16] = 10; /* at most 2 s */
	assert_true(findings_load_client_of(&rows[1].c, rows[1].t.connect_le, &facts));
	assert_int_equal(facts.tried, 56);
	text = text_of(&(struct tt_finding){ .kind = TT_FINDING_LOAD_CLIENT, .comm = "ab",
					     .pid = 77, .n_pids = 1, .client = facts },
		       1);
	assert_string_equal(text, "finding: ab 77: connected 50 times of the 56 it tried (1 timed "
				  "out; 3 abandoned, unanswered when it closed them; 2 with no local "
				  "port free); 10 of its 50 connects took more than 1 s, a SYN sent "
				  "again at least (p99 at most 2s, max at most 2s). Its own latency "
				  "and request figures describe those 50 connections: the others "
				  "carried no request, and a load generator counts no error for a "
				  "connect still waiting when it stops. A client that times its "
				  "requests from its connect (ab, curl) has those waits in its "
				  "latency: the server's listen queue or the path, not its "
				  "responses." DOC "a-load-generators-own-figures\n");
	free(text);
	/* A client whose connects all connected, none slowly: no finding. */
	memset(&rows[1].c, 0, sizeof(rows[1].c));
	memset(&rows[1].t, 0, sizeof(rows[1].t));
	rows[1].c.conn[TT_SIDE_OUT] = 50;
	rows[1].t.connect_le[3] = 50;
	assert_false(findings_load_client_of(&rows[1].c, rows[1].t.connect_le, &facts));
	assert_int_equal(findings_collect(&in, v, 4), 1);
	assert_int_equal(v[0].kind, TT_FINDING_CONNECT_FAILED);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_share_and_count_that_make_a_finding),
		cmocka_unit_test(test_share_as_the_table_shows_it),
		cmocka_unit_test(test_segments_sent_again_per_side),
		cmocka_unit_test(test_a_destination_that_loses_segments),
		cmocka_unit_test(test_share_not_known_while_connections_stay_open),
		cmocka_unit_test(test_load_generator_that_did_not_connect),
		cmocka_unit_test(test_load_generator_unconnected_and_slow),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
