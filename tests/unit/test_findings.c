// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Unit tests of the findings: nothing for a healthy run, one per problem
 * with its numbers, per process name, tailored to haproxy and nginx, and
 * the same as JSON objects. */
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

static struct tt_row make_row(uint32_t pid, const char *comm)
{
	struct tt_row row;

	memset(&row, 0, sizeof(row));
	row.pid = pid;
	strncpy(row.comm, comm, sizeof(row.comm) - 1);
	return row;
}

static struct tt_listener_row haproxy_listener(void)
{
	struct tt_listener_row l;

	memset(&l, 0, sizeof(l));
	l.pid = 4242;
	strcpy(l.comm, "haproxy");
	l.family = AF_INET;
	l.port = 8080;
	l.addr[0] = 127;
	l.addr[3] = 1;
	l.drops = 281;
	l.peak_run = 17;
	l.limit = 16;
	l.somaxconn = 4096;
	return l;
}

static char *text_of(const struct tt_finding *v, size_t n, const struct tt_reason_names *names)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	assert_non_null(f);
	findings_write_text(f, v, n, names);
	assert_int_equal(fclose(f), 0);
	return text;
}

static void test_healthy_run_has_none(void **state)
{
	struct tt_row rows[2] = { make_row(1, "nginx"), make_row(2, "wrk") };
	struct findings_input in = { .rows = rows, .n = 2 };
	struct tt_finding v[8];

	(void)state;
	rows[0].c.conn[TT_SIDE_IN] = 1000;
	rows[0].c.fin_passive[TT_SIDE_IN] = 1000;
	rows[0].c.tw[TT_SIDE_IN] = TT_FINDING_MIN_TIMEWAIT - 1;
	rows[1].c.conn[TT_SIDE_OUT] = 1000;
	rows[1].open[TT_SIDE_OUT] = 50;
	assert_int_equal(findings_collect(&in, v, 8), 0);
}

static void test_haproxy_listener_drops(void **state)
{
	struct tt_row rows[2] = { make_row(4242, "haproxy"), make_row(77, "ab") };
	struct tt_listener_row l = haproxy_listener();
	struct findings_input in = { .rows = rows, .n = 2, .listeners = &l, .n_listeners = 1 };
	struct tt_finding v[8];
	size_t n;
	char *text;

	(void)state;
	rows[0].listen_drops = 281;
	rows[1].c.syn_retrans = 685;
	rows[1].c.conn[TT_SIDE_OUT] = 1001;
	rows[1].t.connect_le[2] = 468;  /* at most 50 us */
	rows[1].t.connect_le[16] = 500; /* at most 2 s */
	rows[1].t.connect_le[17] = 33;  /* at most 5 s */
	n = findings_collect(&in, v, 8);
	assert_int_equal(n, 3);
	text = text_of(v, n, NULL);
	assert_string_equal(
		text,
		"finding: haproxy 4242: its listener 127.0.0.1:8080 dropped 281 connection attempts, "
		"its accept queue full (17 waiting, limit 16). A client whose SYN is dropped hears "
		"nothing and sends it again after 1 s or more. haproxy stops accepting at maxconn "
		"(global, and the frontend's) and leaves the rest in the queue: raise maxconn if its "
		"servers keep up, and make the queue hold the bursts with backlog on the bind line "
		"(by default the frontend's maxconn). (net.core.somaxconn, 4096, is above the limit: "
		"the backlog asked is what limits it.) See man 8 tcptrace (FINDINGS) or share/doc/tcptrace-bpf/diagnosing.md#listen-queue-drops\n"
		"finding: ab 77: 685 SYNs of its connect()s were sent again, each a wait of 1 s or more "
		"for the connection; 533 of its 1001 connects took more than 1 s (p99 at most 5s, max "
		"at most 5s): haproxy's listener 127.0.0.1:8080 dropped 281 connection attempts, its "
		"queue full (see that finding). See man 8 tcptrace (FINDINGS) or share/doc/tcptrace-bpf/diagnosing.md#syn-retries\n"
		"finding: ab 77: 533 of its 1001 connects took more than 1 s, a SYN sent again at "
		"least (p99 at most 5s, max at most 5s); 685 of its SYNs were sent again. A client "
		"that times its requests from its connect (ab, curl) has those waits in its latency: "
		"the server's listen queue or the path, not its responses. See man 8 tcptrace "
		"(FINDINGS) or share/doc/tcptrace-bpf/diagnosing.md#a-load-generators-own-figures\n");
	free(text);
}

/* Where accept() is traced, the listener's finding says how long the
 * connections its owner took waited in the queue; JSON gives the bounds. */
static void test_listener_drops_with_accept_waits(void **state)
{
	struct tt_row row = make_row(4242, "haproxy");
	struct tt_listener_row l = haproxy_listener();
	struct findings_input in = { .rows = &row, .n = 1, .listeners = &l, .n_listeners = 1 };
	struct tt_finding v[2];
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	row.listen_drops = 281;
	row.c.conn[TT_SIDE_IN] = 300;
	row.t.acceptq_le[9] = 250;  /* at most 10 ms */
	row.t.acceptq_le[13] = 47;  /* at most 200 ms */
	row.t.acceptq_le[15] = 3;   /* at most 1 s */
	assert_int_equal(findings_collect(&in, v, 2), 1);
	text = text_of(v, 1, NULL);
	assert_non_null(strstr(text, "sends it again after 1 s or more. The connections it accepted "
				     "waited in the queue p99 at most 200ms, the longest at most 1s. "
				     "haproxy stops accepting"));
	free(text);
	f = open_memstream(&text, &len);
	assert_non_null(f);
	assert_int_equal(findings_write_json(f, v, 1, NULL), 0);
	assert_int_equal(fclose(f), 0);
	assert_non_null(strstr(text, ",\"accept_wait_p99_us\":200000,\"accept_wait_max_us\":1000000"));
	free(text);
}

/* With no listener that dropped, the SYNs' causes are named without one;
 * the failed connects by cause. */
static void test_syn_retries_alone_and_failed_connects_by_cause(void **state)
{
	struct tt_row row = make_row(812, "nginx");
	struct findings_input in = { .rows = &row, .n = 1 };
	struct tt_finding v[4];
	size_t n;
	char *text;

	(void)state;
	row.c.conn[TT_SIDE_IN] = 10;
	row.c.conn[TT_SIDE_OUT] = 10;
	row.c.syn_retrans = 2;
	row.t.connect_le[3] = 10;
	row.c.connfail = 37 + 4;
	row.c.connfail_by[TT_CONNFAIL_REFUSED] = 37;
	row.c.connfail_by[TT_CONNFAIL_ABANDONED] = 4;
	n = findings_collect(&in, v, 4);
	assert_int_equal(n, 2);
	assert_int_equal(v[1].causes[TT_CONNFAIL_REFUSED], 37);
	text = text_of(v, n, NULL);
	assert_string_equal(
		text,
		"finding: nginx 812: 2 SYNs of its connect()s were sent again, each a wait of 1 s or "
		"more for the connection: the peer's listen queue was full, or SYNs were lost on the "
		"way. See man 8 tcptrace (FINDINGS) or share/doc/tcptrace-bpf/diagnosing.md#syn-retries\n"
		"finding: nginx 812: 41 connect()s got a local port but no connection: 37 refused "
		"(ECONNREFUSED: nothing listened there, or its listener answered with an RST); 4 "
		"abandoned (closed by the process before the answer: its own connect timeout, such "
		"as haproxy's timeout connect or nginx's proxy_connect_timeout, or a load generator "
		"done with connects still waiting). See man 8 tcptrace (FINDINGS) or share/doc/tcptrace-bpf/diagnosing.md#connect-failures\n");
	free(text);
}

static void test_somaxconn_that_caps_and_sharers(void **state)
{
	struct tt_listener_row l = haproxy_listener();
	struct findings_input in = { .listeners = &l, .n_listeners = 1 };
	struct tt_finding v[2];
	char *text;

	(void)state;
	strcpy(l.comm, "nginx");
	l.limit = 128;
	l.somaxconn = 128;
	l.n_sharers = 2;
	l.sharers[0] = 11;
	l.sharers[1] = 12;
	assert_int_equal(findings_collect(&in, v, 2), 1);
	text = text_of(v, 1, NULL);
	assert_non_null(strstr(text, "The listener is shared with 11, 12, counted once here."));
	assert_non_null(strstr(text, "nginx's queue is `listen ... backlog=N` (511 by default)"));
	assert_non_null(strstr(text, "raise worker_rlimit_nofile above worker_connections."));
	assert_non_null(strstr(text, "net.core.somaxconn (128) caps that backlog: raise it too."));
	free(text);
}

/* A listener whose queue was never seen full dropped in the handshake. */
static void test_drops_with_the_queue_never_full(void **state)
{
	struct tt_listener_row l = haproxy_listener();
	struct findings_input in = { .listeners = &l, .n_listeners = 1 };
	struct tt_finding v[1];
	char *text;

	(void)state;
	strcpy(l.comm, "hitch");
	l.drops = 1;
	l.peak_run = 5;
	l.limit = 100;
	assert_int_equal(findings_collect(&in, v, 1), 1);
	text = text_of(v, 1, NULL);
	assert_string_equal(
		text,
		"finding: hitch 4242: its listener 127.0.0.1:8080 dropped 1 connection attempts, its "
		"accept queue never seen full (deepest 5, limit 100): attempts dropped in the "
		"handshake (a full SYN queue without SYN cookies, a final ACK refused). A client "
		"whose SYN is dropped hears nothing and sends it again after 1 s or more. Accept "
		"faster, or raise the backlog its listen() asks for. (net.core.somaxconn, 4096, is "
		"above the limit: the backlog asked is what limits it.) "
		"See man 8 tcptrace (FINDINGS) or share/doc/tcptrace-bpf/diagnosing.md#listen-queue-drops\n");
	free(text);
}

/* Rows of one name are added: nginx's workers make one finding, which
 * names them; its master, which counted nothing, is not among them. */
static void test_timewait_per_name_and_side(void **state)
{
	struct tt_row rows[3] = { make_row(10, "nginx"), make_row(11, "nginx"), make_row(12, "nginx") };
	struct tt_dest_row d;
	struct findings_input in = { .rows = rows, .n = 3, .dests = &d, .n_dests = 1 };
	struct tt_finding v[4];
	char *text;

	(void)state;
	rows[1].c.conn[TT_SIDE_IN] = rows[2].c.conn[TT_SIDE_IN] = 1;
	rows[1].c.tw[TT_SIDE_OUT] = 60;
	rows[2].c.tw[TT_SIDE_OUT] = 60;
	rows[1].c.conn[TT_SIDE_OUT] = rows[2].c.conn[TT_SIDE_OUT] = 60;
	memset(&d, 0, sizeof(d));
	strcpy(d.comm, "nginx");
	d.family = AF_INET;
	d.port = 8081;
	d.addr[0] = 127;
	d.addr[3] = 1;
	d.c.tw = 120;
	d.ports_free = 28112;
	d.runout_s = 234.4;
	assert_int_equal(findings_collect(&in, v, 4), 1);
	text = text_of(v, 1, NULL);
	assert_string_equal(
		text,
		"finding: nginx 11, 12: it closed 120 upstream connections first and keeps "
		"their TIME_WAIT, each holding a local port toward its peer for 60 s; toward "
		"127.0.0.1:8081 28112 ports are free, none in 234 s at the run's pace. Keep upstream "
		"connections open: keepalive N in the upstream block, with proxy_http_version 1.1 and "
		"proxy_set_header Connection \"\". net.ipv4.tcp_tw_reuse=1 lets connect() take over a "
		"TIME_WAIT port. See man 8 tcptrace (FINDINGS) or share/doc/tcptrace-bpf/diagnosing.md#timewait-find-out-who-holds-it\n");
	free(text);
}

/* An nginx in front of an nginx on one host, the instances not known (the
 * processes gone by the end): the proxy's workers (they connect) and the
 * backend's (they only accept) are two groups, and the backend's
 * TIME_WAIT is not put on the proxy. */
static void test_proxy_and_backend_of_one_name_apart(void **state)
{
	struct tt_row rows[6] = { make_row(20, "nginx"), make_row(21, "nginx"), make_row(22, "nginx"),
				  make_row(30, "nginx"), make_row(31, "nginx"), make_row(32, "nginx") };
	struct findings_input in = { .rows = rows, .n = 6 };
	struct tt_finding v[4];
	char *text;

	(void)state;
	rows[1].c.conn[TT_SIDE_IN] = rows[2].c.conn[TT_SIDE_IN] = 1000;
	rows[1].c.tw[TT_SIDE_IN] = rows[2].c.tw[TT_SIDE_IN] = 980;
	rows[4].c.conn[TT_SIDE_IN] = rows[5].c.conn[TT_SIDE_IN] = 5;
	rows[4].c.conn[TT_SIDE_OUT] = rows[5].c.conn[TT_SIDE_OUT] = 1000;
	rows[4].c.fin_passive[TT_SIDE_OUT] = rows[5].c.fin_passive[TT_SIDE_OUT] = 960;
	rows[4].c.tw[TT_SIDE_OUT] = rows[5].c.tw[TT_SIDE_OUT] = 40;
	assert_int_equal(findings_collect(&in, v, 4), 1);
	assert_int_equal(v[0].kind, TT_FINDING_TIMEWAIT);
	assert_int_equal(v[0].side, TT_SIDE_IN);
	assert_int_equal(v[0].n_pids, 2);
	text = text_of(v, 1, NULL);
	assert_non_null(strstr(text, "finding: nginx 21, 22: it closed 1960 client connections first"));
	free(text);
}

/* The same two, the instances known: a proxy worker that only accepted (a
 * client connection that never sent a request) stays with its own
 * instance, not with the backend's workers that only accept. */
static void test_instances_keep_a_worker_that_only_accepted(void **state)
{
	struct tt_row rows[5] = { make_row(21, "nginx"), make_row(22, "nginx"), make_row(31, "nginx"),
				  make_row(32, "nginx"), make_row(40, "wrk") };
	struct findings_input in = { .rows = rows, .n = 5 };
	struct tt_finding v[4];
	char *text;

	(void)state;
	rows[0].instance = rows[1].instance = 20;
	rows[2].instance = rows[3].instance = 30;
	rows[0].c.conn[TT_SIDE_IN] = rows[1].c.conn[TT_SIDE_IN] = 1000;
	rows[0].c.tw[TT_SIDE_IN] = rows[1].c.tw[TT_SIDE_IN] = 980;
	rows[2].c.conn[TT_SIDE_IN] = 10;
	rows[2].c.conn[TT_SIDE_OUT] = 2000;
	rows[2].c.tw[TT_SIDE_IN] = 150;
	rows[3].c.conn[TT_SIDE_IN] = 1;
	rows[3].c.tw[TT_SIDE_IN] = 1;
	rows[4].c.conn[TT_SIDE_OUT] = 11;
	assert_int_equal(findings_collect(&in, v, 4), 2);
	assert_int_equal(v[0].kind, TT_FINDING_TIMEWAIT);
	assert_int_equal(v[0].count, 1960);
	assert_int_equal(v[1].count, 151);
	assert_int_equal(v[1].n_pids, 2);
	assert_true(v[1].proxy);
	text = text_of(v, 2, NULL);
	assert_non_null(strstr(text, "finding: nginx 21, 22: it closed 1960 client connections first"));
	assert_non_null(strstr(text, "finding: nginx 31, 32: it closed 151 client connections first"));
	free(text);
}

/* Below the threshold, the TIME_WAIT of a process that ran out of ports
 * is a finding all the same: it holds them. Five PIDs are named, more
 * are counted. */
static void test_timewait_that_holds_the_ports(void **state)
{
	struct tt_row rows[7];
	struct findings_input in = { .rows = rows, .n = 7 };
	struct tt_finding v[4];
	char *text;

	(void)state;
	for (int i = 0; i < 7; i++) {
		rows[i] = make_row(100 + i, "nginx");
		rows[i].c.conn[TT_SIDE_IN] = rows[i].c.conn[TT_SIDE_OUT] = 7;
		rows[i].c.tw[TT_SIDE_OUT] = 7;
		rows[i].c.eaddrnotavail = 100;
	}
	assert_int_equal(findings_collect(&in, v, 4), 2);
	assert_int_equal(v[0].kind, TT_FINDING_NO_PORT);
	assert_int_equal(v[1].kind, TT_FINDING_TIMEWAIT);
	assert_int_equal(v[1].count, 49);
	text = text_of(v, 2, NULL);
	assert_non_null(strstr(text, "finding: nginx 100, 101, 102, 103 and 3 more: 700 connect()s "
				     "failed with EADDRNOTAVAIL"));
	assert_non_null(strstr(text, "finding: nginx 100, 101, 102, 103 and 3 more: it closed 49 "
				     "upstream connections first"));
	free(text);
}

static void test_rsts_with_what_their_reason_means(void **state)
{
	struct tt_reason_names names = { { NULL } };
	struct tt_row row = make_row(4242, "haproxy");
	struct findings_input in = { .rows = &row, .n = 1 };
	struct tt_finding v[2];
	char *text;

	(void)state;
	names.name[5] = "TCP_STATE";
	row.c.conn[TT_SIDE_IN] = row.c.conn[TT_SIDE_OUT] = 10;
	row.c.rst_sent[TT_SIDE_OUT] = 9;
	row.reasons[TT_SIDE_OUT][5] = 9;
	assert_int_equal(findings_collect(&in, v, 2), 1);
	text = text_of(v, 1, &names);
	assert_string_equal(
		text,
		"finding: haproxy 4242: it ended 9 upstream connections with an RST instead of a FIN "
		"(TCP_STATE 9: haproxy's own close of a server connection (SO_LINGER 0), which leaves "
		"no TIME_WAIT behind: nothing to fix if responses were complete). Its peers see a "
		"reset, not an end of stream. See man 8 tcptrace (FINDINGS) or share/doc/tcptrace-bpf/diagnosing.md#rsts-and-their-reasons\n");
	free(text);
}

static void test_json_objects(void **state)
{
	struct tt_reason_names names = { { NULL } };
	struct tt_row rows[2] = { make_row(4242, "haproxy"), make_row(77, "ab") };
	struct tt_listener_row l = haproxy_listener();
	struct findings_input in = { .rows = rows, .n = 2, .listeners = &l, .n_listeners = 1 };
	struct tt_finding v[4];
	char *text = NULL;
	size_t len = 0, n;
	FILE *f;

	(void)state;
	l.n_sharers = 1;
	l.sharers[0] = 4243;
	rows[1].c.eaddrnotavail = 3;
	rows[1].c.rst_sent[TT_SIDE_OUT] = 2;
	rows[1].reasons[TT_SIDE_OUT][7] = 2;
	names.name[7] = "NO_SOCKET";
	n = findings_collect(&in, v, 4);
	assert_int_equal(n, 4);
	f = open_memstream(&text, &len);
	assert_non_null(f);
	assert_int_equal(findings_write_json(f, v, n, &names), 0);
	assert_int_equal(fclose(f), 0);
	assert_string_equal(
		text,
		"{\"finding\":\"listen_drops\",\"comm\":\"haproxy\",\"pid\":4242,\"processes\":1,"
		"\"pids\":[4242],\"count\":281,\"listener\":\"127.0.0.1:8080\",\"acceptq_peak\":17,\"acceptq_limit\":16,"
		"\"somaxconn\":4096,\"shared_with\":[4243],\"doc\":\"share/doc/tcptrace-bpf/diagnosing.md#listen-queue-drops\"}\n"
		"{\"finding\":\"no_free_port\",\"comm\":\"ab\",\"pid\":77,\"processes\":1,\"pids\":[77],"
		"\"count\":3,"
		"\"side\":\"out\",\"eaddrnotavail\":3,\"eaddrinuse\":0,"
		"\"doc\":\"share/doc/tcptrace-bpf/diagnosing.md#port-exhaustion\"}\n"
		"{\"finding\":\"rst_sent\",\"comm\":\"ab\",\"pid\":77,\"processes\":1,\"pids\":[77],"
		"\"count\":2,"
		"\"side\":\"out\",\"reasons\":{\"NO_SOCKET\":2},"
		"\"doc\":\"share/doc/tcptrace-bpf/diagnosing.md#rsts-and-their-reasons\"}\n"
		"{\"finding\":\"load_client\",\"comm\":\"ab\",\"pid\":77,\"processes\":1,"
		"\"pids\":[77],\"count\":0,\"side\":\"out\",\"tried\":3,\"causes\":{\"refused\":0,"
		"\"timeout\":0,\"unreach\":0,\"abandoned\":0,\"enetunreach\":0,\"ehostunreach\":0,"
		"\"eacces\":0,\"einval\":0,\"eperm\":0,\"other\":0},\"eaddrnotavail\":3,"
		"\"eaddrinuse\":0,\"syn_retrans\":0,"
		"\"connects\":0,\"connects_over_1s\":0,"
		"\"doc\":\"share/doc/tcptrace-bpf/diagnosing.md#a-load-generators-own-figures\"}\n");
	free(text);
}

static struct tt_dest_row fail_dest(uint32_t pid, uint8_t last, uint16_t port, int cause,
				    uint64_t n)
{
	struct tt_dest_row d;

	memset(&d, 0, sizeof(d));
	d.pid = pid;
	strcpy(d.comm, "nginx");
	d.family = AF_INET;
	d.addr[0] = 10;
	d.addr[3] = last;
	d.port = port;
	d.c.connfail = n;
	d.c.connfail_by[cause] = n;
	return d;
}

/* --by dest: the failed connects by destination over the name's workers,
 * the three with the most, each with its causes. */
static void test_failed_connects_by_destination(void **state)
{
	struct tt_row rows[2] = { make_row(812, "nginx"), make_row(813, "nginx") };
	struct tt_dest_row d[5] = {
		fail_dest(812, 5, 8080, TT_CONNFAIL_REFUSED, 20),
		fail_dest(813, 5, 8080, TT_CONNFAIL_REFUSED, 17),
		fail_dest(813, 6, 80, TT_CONNFAIL_TIMEOUT, 3),
		fail_dest(812, 7, 80, TT_CONNFAIL_ABANDONED, 1),
		fail_dest(812, 6, 80, TT_CONNFAIL_ABANDONED, 2),
	};
	struct findings_input in = { .rows = rows, .n = 2, .dests = d, .n_dests = 5 };
	struct tt_finding v[2];
	char *text = NULL, *json;
	size_t len = 0;
	FILE *f;

	(void)state;
	rows[0].c.connfail = 20 + 1 + 2;
	rows[0].c.connfail_by[TT_CONNFAIL_REFUSED] = 20;
	rows[0].c.connfail_by[TT_CONNFAIL_ABANDONED] = 3;
	rows[1].c.connfail = 17 + 3;
	rows[1].c.connfail_by[TT_CONNFAIL_REFUSED] = 17;
	rows[1].c.connfail_by[TT_CONNFAIL_TIMEOUT] = 3;
	rows[0].c.conn[TT_SIDE_IN] = rows[1].c.conn[TT_SIDE_IN] = 50;
	assert_int_equal(findings_collect(&in, v, 2), 1);
	text = text_of(v, 1, NULL);
	assert_non_null(strstr(text, "). Toward 10.0.0.5:8080: 37 refused; 10.0.0.6:80: 3 timed out, "
				     "2 abandoned; 10.0.0.7:80: 1 abandoned. See "));
	free(text);
	f = open_memstream(&text, &len);
	assert_non_null(f);
	assert_int_equal(findings_write_json(f, v, 1, NULL), 0);
	assert_int_equal(fclose(f), 0);
	json = strstr(text, ",\"dests\":[");
	assert_non_null(json);
	assert_non_null(strstr(json, "{\"dest\":\"10.0.0.6:80\",\"refused\":0,\"timeout\":3,"
				     "\"unreach\":0,\"abandoned\":2}"));
	free(text);
}

/* Connects refused before any SYN are a finding of their own, by errno,
 * apart from those that failed after theirs; with --by dest, by where
 * they went, each destination with its errnos only. */
static void test_connects_refused_before_any_syn(void **state)
{
	struct tt_row row = make_row(4242, "haproxy");
	struct tt_dest_row d[3] = {
		fail_dest(4242, 5, 80, TT_CONNFAIL_EACCES, 4),
		fail_dest(4242, 6, 80, TT_CONNFAIL_ENETUNREACH, 7),
		fail_dest(4242, 7, 80, TT_CONNFAIL_REFUSED, 2),
	};
	struct findings_input in = { .rows = &row, .n = 1, .dests = d, .n_dests = 3 };
	struct tt_finding v[3];
	char *text = NULL;
	size_t len = 0, n;
	FILE *f;

	(void)state;
	memcpy(d[0].comm, "haproxy", sizeof("haproxy"));
	memcpy(d[1].comm, "haproxy", sizeof("haproxy"));
	memcpy(d[2].comm, "haproxy", sizeof("haproxy"));
	row.c.connfail = 2 + 4 + 7;
	row.c.connfail_by[TT_CONNFAIL_REFUSED] = 2;
	row.c.connfail_by[TT_CONNFAIL_EACCES] = 4;
	row.c.connfail_by[TT_CONNFAIL_ENETUNREACH] = 7;
	n = findings_collect(&in, v, 3);
	/* It accepted nothing: a client whose connects did not connect, too. */
	assert_int_equal(n, 3);
	assert_int_equal(v[0].kind, TT_FINDING_CONNECT_FAILED);
	assert_int_equal(v[0].count, 2);
	assert_int_equal(v[2].kind, TT_FINDING_LOAD_CLIENT);
	assert_int_equal(v[2].client.tried, 13);
	assert_int_equal(v[1].kind, TT_FINDING_BEFORE_SYN);
	assert_int_equal(v[1].count, 11);
	text = text_of(&v[1], 1, NULL);
	assert_string_equal(
		text,
		"finding: haproxy 4242: 11 connect()s failed before any SYN left, refused by the "
		"routes or a policy of its own host: 7 ENETUNREACH (no route to the destination's "
		"network); 4 EACCES (a route of type prohibit, or an LSM). Toward 10.0.0.6:80: 7 "
		"ENETUNREACH; 10.0.0.5:80: 4 EACCES. `ip route get ADDRESS` in its network namespace "
		"shows the route connect() found: add the missing one, or remove the unreachable, "
		"prohibit or blackhole one; without such a route, EPERM and EACCES come from a cgroup "
		"BPF connect hook or an LSM (SELinux, AppArmor). haproxy counts each in its server's "
		"econ. See man 8 tcptrace (FINDINGS) or "
		"share/doc/tcptrace-bpf/diagnosing.md#connect-failures-before-any-syn\n");
	free(text);
	f = open_memstream(&text, &len);
	assert_non_null(f);
	assert_int_equal(findings_write_json(f, &v[1], 1, NULL), 0);
	assert_int_equal(fclose(f), 0);
	assert_non_null(strstr(text, "{\"finding\":\"connect_failed_before_syn\",\"comm\":\"haproxy\","));
	assert_non_null(strstr(text, ",\"causes\":{\"enetunreach\":7,\"ehostunreach\":0,\"eacces\":4,"
				     "\"einval\":0,\"eperm\":0,\"other\":0},\"dests\":[{\"dest\":"
				     "\"10.0.0.6:80\",\"enetunreach\":7,"));
	assert_null(strstr(text, "refused"));
	free(text);
}

/* bind() to port 0 that found no port: the port run-out finding, with
 * bind()'s own knob; the TIME_WAIT that holds the ports with it. */
static void test_bind_out_of_ports(void **state)
{
	struct tt_row row = make_row(31, "envoy");
	struct findings_input in = { .rows = &row, .n = 1 };
	struct tt_finding v[4];
	char *text;
	size_t n;

	(void)state;
	row.c.conn[TT_SIDE_OUT] = 8;
	row.c.tw[TT_SIDE_OUT] = 8;
	row.c.eaddrinuse = 5;
	n = findings_collect(&in, v, 4);
	assert_int_equal(n, 3);
	assert_int_equal(v[0].kind, TT_FINDING_NO_PORT);
	assert_int_equal(v[0].count, 5);
	assert_int_equal(v[1].kind, TT_FINDING_TIMEWAIT);
	/* It accepted nothing: 8 of the 13 connections it tried connected. */
	assert_int_equal(v[2].kind, TT_FINDING_LOAD_CLIENT);
	assert_int_equal(v[2].client.tried, 13);
	assert_int_equal(v[2].client.bind_no_port, 5);
	text = text_of(v, 1, NULL);
	assert_string_equal(
		text,
		"finding: envoy 31: 5 bind()s to port 0 failed with EADDRINUSE, no local port free "
		"for their address. Widen net.ipv4.ip_local_port_range, let connect() take over "
		"TIME_WAIT ports (net.ipv4.tcp_tw_reuse=1), or keep connections open. A bind() "
		"before connect() takes its port at bind(), one a socket whatever the destination, "
		"and TIME_WAIT ports are not taken over there: set IP_BIND_ADDRESS_NO_PORT on the "
		"socket before bind() (nginx's proxy_bind does), so that connect() picks the port and "
		"shares it between destinations, or bind to more source addresses. See man 8 "
		"tcptrace (FINDINGS) or share/doc/tcptrace-bpf/diagnosing.md#port-exhaustion\n");
	free(text);
}

/* SYN-ACKs sent again, and the handshakes the listeners completed: those
 * over 1 s are what the clients' connect times do not show. */
static void test_synack_retries_with_slow_handshakes(void **state)
{
	struct tt_row row = make_row(17060, "haproxy");
	struct findings_input in = { .rows = &row, .n = 1 };
	struct tt_finding v[2];
	size_t len;
	char *text;
	FILE *f;

	(void)state;
	row.c.conn[TT_SIDE_IN] = 100;
	row.c.synack_retrans = 4;
	row.t.handshake_le[1] = 97; /* at most 20 us */
	row.t.handshake_le[16] = 2; /* at most 2 s: one SYN-ACK sent again */
	row.t.handshake_le[17] = 1; /* at most 5 s: two */
	assert_int_equal(findings_collect(&in, v, 2), 1);
	text = text_of(v, 1, NULL);
	assert_string_equal(
		text,
		"finding: haproxy 17060: 4 SYN-ACKs of its listeners were sent again: clients did "
		"not finish the handshake in time (their ACK was lost, or found the accept queue "
		"full); 3 of the 100 handshakes they completed took more than 1 s from the first "
		"SYN-ACK (p99 at most 2s, max at most 5s), a wait the clients' connect times do not "
		"show. See man 8 tcptrace (FINDINGS) or share/doc/tcptrace-bpf/diagnosing.md#syn-retries\n");
	free(text);
	f = open_memstream(&text, &len);
	assert_non_null(f);
	assert_int_equal(findings_write_json(f, v, 1, NULL), 0);
	assert_int_equal(fclose(f), 0);
	assert_non_null(strstr(text, ",\"handshakes\":100,\"handshakes_over_1s\":3"));
	free(text);
}

static void test_room_for_fewer_than_found(void **state)
{
	struct tt_row row = make_row(1, "ab");
	struct findings_input in = { .rows = &row, .n = 1 };
	struct tt_finding v[1];

	(void)state;
	row.c.syn_retrans = 1;
	row.c.synack_retrans = 1;
	row.c.connfail = 1;
	assert_int_equal(findings_collect(&in, v, 1), 1);
	assert_int_equal(v[0].kind, TT_FINDING_SYN_RETRIES);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_healthy_run_has_none),
		cmocka_unit_test(test_haproxy_listener_drops),
		cmocka_unit_test(test_listener_drops_with_accept_waits),
		cmocka_unit_test(test_syn_retries_alone_and_failed_connects_by_cause),
		cmocka_unit_test(test_somaxconn_that_caps_and_sharers),
		cmocka_unit_test(test_drops_with_the_queue_never_full),
		cmocka_unit_test(test_timewait_per_name_and_side),
		cmocka_unit_test(test_proxy_and_backend_of_one_name_apart),
		cmocka_unit_test(test_instances_keep_a_worker_that_only_accepted),
		cmocka_unit_test(test_timewait_that_holds_the_ports),
		cmocka_unit_test(test_rsts_with_what_their_reason_means),
		cmocka_unit_test(test_json_objects),
		cmocka_unit_test(test_failed_connects_by_destination),
		cmocka_unit_test(test_connects_refused_before_any_syn),
		cmocka_unit_test(test_bind_out_of_ports),
		cmocka_unit_test(test_synack_retries_with_slow_handshakes),
		cmocka_unit_test(test_room_for_fewer_than_found),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
