// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Unit tests of the series tcptrace report draws: rows grouped by their
 * time across processes, close classes adding both sides, RST reasons,
 * process names and destinations each once and sorted, the processes of
 * one name added up, the deepest accept queue with its limit, the series
 * a CSV lacks left out, the fewest ports free and the shortest runout, and
 * the JSON of a run spelled out. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "offline/timeline.h"
#include "csv_fixtures.h"


/* Two processes over two intervals, the second interval's rows first. */
#define TWO_PROCS                                                                            \
	HEADER                                                                               \
	T2 ",2.000,10,haproxy,5,5,1,2,3,4,5,6,7,8,1,2,30,9,1,1,0,0,0,TCP_STATE=11\n"            \
	T1 ",1.000,10,haproxy,1,2,0,0,0,0,0,3,0,0,0,0,10,0,0,0,0,0,0,"                          \
	"TCP_STATE=2;NOT_SPECIFIED=1\n"                                                      \
	T1 ",1.000,11,nginx,4,0,0,0,0,0,0,0,0,0,0,0,7,0,0,0,0,0,0,\n"                           \
	T2 ",2.000,11,nginx,1,0,0,0,0,0,0,1,0,0,0,0,0,0,0,0,0,0,0,TCP_ABORT_ON_DATA=1\n"

struct parsed {
	struct tt_csv_file csv;
	struct timeline tl;
};

static void build(struct parsed *p, const char *text)
{
	struct csv_error err;

	if (csv_parse_buffer(text, strlen(text), TT_CSV_PER_PROCESS | TT_CSV_PER_DEST, &p->csv,
			     &err))
		fail_msg("line %lu: %s", err.line, err.msg);
	assert_int_equal(timeline_build(&p->tl, &p->csv), 0);
}

static void done(struct parsed *p)
{
	timeline_free(&p->tl);
	csv_file_free(&p->csv);
}

static char *json_of(const struct timeline *tl)
{
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);

	assert_non_null(m);
	assert_int_equal(timeline_write_json(m, tl), 0);
	assert_int_equal(fclose(m), 0);
	return text;
}

static void test_rows_of_one_time_are_one_interval(void **state)
{
	struct parsed p;

	(void)state;
	build(&p, TWO_PROCS);
	assert_int_equal(p.tl.kind, TT_CSV_PER_PROCESS);
	assert_int_equal(p.tl.n, 2);
	assert_true(p.tl.elapsed_s[0] == 1.0);
	assert_true(p.tl.elapsed_s[1] == 2.0);
	assert_int_equal(p.tl.all.series[TL_CONN_IN][0], 5);
	assert_int_equal(p.tl.all.series[TL_CONN_IN][1], 6);
	assert_int_equal(p.tl.all.series[TL_CONN_OUT][0], 2);
	assert_int_equal(p.tl.all.series[TL_TW_NOW][0], 17);
	assert_int_equal(p.tl.all.series[TL_TW_NOW][1], 30);
	done(&p);
}

static void test_close_classes_add_both_sides(void **state)
{
	struct parsed p;

	(void)state;
	build(&p, TWO_PROCS);
	assert_int_equal(p.tl.all.series[TL_FIN_ACTIVE][1], 1 + 2);
	assert_int_equal(p.tl.all.series[TL_FIN_PASSIVE][1], 3 + 4);
	assert_int_equal(p.tl.all.series[TL_RST_SENT][1], 5 + 6 + 1);
	assert_int_equal(p.tl.all.series[TL_RST_RECV][1], 7 + 8);
	assert_int_equal(p.tl.all.series[TL_TIMEOUT][1], 1 + 1);
	assert_int_equal(p.tl.all.series[TL_EADDRNOTAVAIL][1], 9);
	done(&p);
}

static void test_reasons_each_once_by_name_per_interval(void **state)
{
	struct parsed p;

	(void)state;
	build(&p, TWO_PROCS);
	assert_int_equal(p.tl.n_reasons, 3);
	assert_string_equal(p.tl.reason_names[0], "NOT_SPECIFIED");
	assert_string_equal(p.tl.reason_names[1], "TCP_ABORT_ON_DATA");
	assert_string_equal(p.tl.reason_names[2], "TCP_STATE");
	assert_int_equal(p.tl.all.reasons[0][0], 1);
	assert_int_equal(p.tl.all.reasons[0][1], 0);
	assert_int_equal(p.tl.all.reasons[1][1], 1);
	assert_int_equal(p.tl.all.reasons[2][0], 2);
	assert_int_equal(p.tl.all.reasons[2][1], 11);
	done(&p);
}

/* Three nginx processes, one of them only in the second interval, beside
 * a haproxy that has no row in the second. */
#define ONE_NAME_THREE_PROCS                                                                 \
	HEADER                                                                               \
	T1 ",1.000,21,nginx,1,0,0,0,0,0,0,0,0,0,0,0,4,0,0,0,0,0,0,TCP_STATE=1\n"                \
	T1 ",1.000,20,haproxy,9,9,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,\n"                         \
	T1 ",1.000,22,nginx,2,0,0,0,0,0,0,0,0,0,0,0,5,0,0,0,0,0,0,TCP_STATE=2\n"                \
	T2 ",2.000,21,nginx,3,0,0,0,0,0,0,0,0,0,0,0,6,0,0,0,0,0,0,\n"                           \
	T2 ",2.000,23,nginx,4,0,0,0,0,0,0,0,0,0,0,0,7,0,0,0,0,0,0,\n"

static void test_processes_of_one_name_add_up(void **state)
{
	const struct timeline_group *haproxy, *nginx;
	struct parsed p;

	(void)state;
	build(&p, ONE_NAME_THREE_PROCS);
	assert_null(p.tl.all.name);
	assert_int_equal(p.tl.n_names, 2);
	haproxy = &p.tl.names[0];
	nginx = &p.tl.names[1];
	assert_string_equal(haproxy->name, "haproxy");
	assert_string_equal(nginx->name, "nginx");
	assert_int_equal(nginx->series[TL_CONN_IN][0], 1 + 2);
	assert_int_equal(nginx->series[TL_CONN_IN][1], 3 + 4);
	assert_int_equal(nginx->series[TL_TW_NOW][0], 4 + 5);
	assert_int_equal(nginx->series[TL_TW_NOW][1], 6 + 7);
	assert_int_equal(nginx->reasons[0][0], 1 + 2);
	assert_int_equal(haproxy->series[TL_CONN_IN][0], 9);
	assert_int_equal(haproxy->series[TL_CONN_IN][1], 0);
	assert_int_equal(haproxy->reasons[0][0], 0);
	assert_int_equal(p.tl.all.series[TL_CONN_IN][0], 1 + 9 + 2);
	done(&p);
}

/* Open connections, listen drops, accept queues and SYNs sent again, as
 * tcptrace writes them now: two nginx workers, each with a listener of
 * its own, and a haproxy that connects. In the second interval the
 * workers' queues are as deep, the deeper limit's row first. */
#define QUEUES                                                                               \
	HEADER_NOW                                                                           \
	T1 ",1.000,30,nginx," ZEROS20 ",5,0,2,3,4,0,1," ZEROS_CONNECT ",\n" \
	T1 ",1.000,31,nginx," ZEROS20 ",6,0,1,5,8,0,0," ZEROS_CONNECT ",\n" \
	T1 ",1.000,32,haproxy," ZEROS20 ",1,7,0,0,0,3,0," ZEROS_CONNECT ",\n" \
	T2 ",2.000,31,nginx," ZEROS20 ",2,0,0,4,16,0,0," ZEROS_CONNECT ",\n" \
	T2 ",2.000,30,nginx," ZEROS20 ",2,0,0,4,4,0,0," ZEROS_CONNECT ",\n" \
	T2 ",2.000,32,haproxy," ZEROS20 ",0,9,0,0,0,2,0," ZEROS_CONNECT ",\n"

static void test_open_connections_and_listen_queues(void **state)
{
	const struct timeline_group *haproxy, *nginx, *all;
	struct parsed p;

	(void)state;
	build(&p, QUEUES);
	all = &p.tl.all;
	haproxy = &p.tl.names[0];
	nginx = &p.tl.names[1];
	assert_string_equal(nginx->name, "nginx");
	/* Levels and counts add up over the processes. */
	assert_int_equal(all->series[TL_OPEN_IN][0], 5 + 6 + 1);
	assert_int_equal(all->series[TL_OPEN_OUT][1], 9);
	assert_int_equal(nginx->series[TL_OPEN_IN][1], 2 + 2);
	assert_int_equal(all->series[TL_LISTEN_DROPS][0], 2 + 1);
	assert_int_equal(all->series[TL_SYN_RETRANS_OUT][0], 3);
	assert_int_equal(haproxy->series[TL_SYN_RETRANS_OUT][1], 2);
	assert_int_equal(nginx->series[TL_SYNACK_RETRANS_IN][0], 1);
	/* The accept queue is the deepest, with its own limit. */
	assert_int_equal(all->series[TL_ACCEPTQ_PEAK][0], 5);
	assert_int_equal(all->series[TL_ACCEPTQ_LIMIT][0], 8);
	assert_int_equal(nginx->series[TL_ACCEPTQ_PEAK][0], 5);
	assert_int_equal(nginx->series[TL_ACCEPTQ_LIMIT][0], 8);
	assert_int_equal(haproxy->series[TL_ACCEPTQ_PEAK][0], 0);
	assert_int_equal(haproxy->series[TL_ACCEPTQ_LIMIT][0], 0);
	/* As deep: the larger limit, whichever row came first. */
	assert_int_equal(all->series[TL_ACCEPTQ_PEAK][1], 4);
	assert_int_equal(all->series[TL_ACCEPTQ_LIMIT][1], 16);
	done(&p);
}

static void test_series_a_csv_lacks(void **state)
{
	struct parsed p;

	(void)state;
	build(&p, QUEUES);
	for (int s = 0; s < TL_SERIES; s++)
		assert_true(p.tl.has[s]);
	done(&p);
	/* A CSV of an earlier version: none of the columns it lacks. */
	build(&p, TWO_PROCS);
	assert_true(p.tl.has[TL_TW_NOW]);
	for (int s = TL_OPEN_IN; s <= TL_SYNACK_RETRANS_IN; s++)
		assert_false(timeline_has(&p.csv, s) || p.tl.has[s]);
	done(&p);
	/* --by dest: no accepted connection, no listen queue. */
	build(&p, DEST_HEADER T1 ",0.200,7,nginx,127.0.0.1:8080,1,0,0,0,0,0,0,0,0,0,1,9,0.0\n");
	assert_false(p.tl.has[TL_CONN_IN]);
	assert_true(p.tl.has[TL_CONN_OUT] && p.tl.has[TL_TW_NOW]);
	for (int s = TL_OPEN_IN; s <= TL_SYNACK_RETRANS_IN; s++)
		assert_false(p.tl.has[s]);
	done(&p);
}

static void test_json_of_a_run_of_now(void **state)
{
	struct parsed p;
	char *json;

	(void)state;
	build(&p, QUEUES);
	json = json_of(&p.tl);
	assert_non_null(strstr(json, "{\"kind\":\"process\",\"elapsed_s\":[1.000,2.000],"
				     "\"series\":{\"conn_in\":[0,0],"));
	assert_non_null(strstr(json, "\"tw_now\":[0,0],\"open_in\":[12,4],\"open_out\":[7,9],"
				     "\"listen_drops\":[3,0],\"acceptq_peak\":[5,4],"
				     "\"acceptq_limit\":[8,16],\"syn_retrans_out\":[3,2],"
				     "\"synack_retrans_in\":[1,0],\"retrans_in\":[0,0],\"retrans_out\":[0,0],"
				     "\"retrans_rto\":[0,0],\"connects\":[0,0],"
				     "\"connects_over_1s\":[0,0],\"connect_p99_us\":[0,0],"
				     "\"connfail_enetunreach\":[0,0],\"connfail_ehostunreach\":[0,0],"
				     "\"connfail_eacces\":[0,0],\"connfail_einval\":[0,0],"
				     "\"connfail_eperm\":[0,0],\"connfail_other\":[0,0]},"
				     "\"rst_sent_reasons\":{},\"names\":[{\"name\":\"haproxy\","));
	assert_non_null(strstr(json, "{\"name\":\"nginx\",\"series\":{"));
	assert_non_null(strstr(json, "\"tw_now\":[0,0],\"open_in\":[11,4],\"open_out\":[0,0],"
				     "\"listen_drops\":[3,0],\"acceptq_peak\":[5,4],"
				     "\"acceptq_limit\":[8,16],\"syn_retrans_out\":[0,0],"
				     "\"synack_retrans_in\":[1,0],\"retrans_in\":[0,0],\"retrans_out\":[0,0],"
				     "\"retrans_rto\":[0,0],\"connects\":[0,0],"
				     "\"connects_over_1s\":[0,0],\"connect_p99_us\":[0,0],"
				     "\"connfail_enetunreach\":[0,0],\"connfail_ehostunreach\":[0,0],"
				     "\"connfail_eacces\":[0,0],\"connfail_einval\":[0,0],"
				     "\"connfail_eperm\":[0,0],\"connfail_other\":[0,0]},"
				     "\"rst_sent_reasons\":{}}],\"dests\":[]}"));
	free(json);
	done(&p);
}

/* Connects per interval from the buckets: all, those over 1 s, and the
 * bound of the bucket of their p99 (0 without connects); per name too. */
static void test_connects_from_the_buckets(void **state)
{
	/* 98 at most 50 us and 2 at most 2 s; then 5 at most 100 us. */
	static const char text[] =
		HEADER_NOW T1 ",1.000,7,ab," ZEROS20 ",0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,98,0,0,0,0,0,0,0,0,0,0,0,0,"
		"0,2,0,0,0,0,0,0," ZEROS_WAITS ",\n"
		T2 ",2.000,7,ab," ZEROS20 ",0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,5,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,"
		"0,0,0,0," ZEROS_WAITS ",\n"
		T2 ",2.000,8,nginx," ZEROS20 ",0,0,0,0,0,0,0," ZEROS_CONNECT ",\n";
	struct parsed p;
	char *json;

	(void)state;
	build(&p, text);
	assert_true(p.tl.has[TL_CONNECTS] && p.tl.has[TL_CONNECT_P99_US]);
	json = json_of(&p.tl);
	assert_non_null(strstr(json, "\"connects\":[100,5],\"connects_over_1s\":[2,0],"
				     "\"connect_p99_us\":[2000000,100],"));
	assert_non_null(strstr(json, "{\"name\":\"nginx\",\"series\":{"));
	assert_non_null(strstr(json, "\"connects\":[0,0],\"connects_over_1s\":[0,0],"
				     "\"connect_p99_us\":[0,0],"));
	free(json);
	done(&p);
}

/* bind()'s EADDRINUSE and the connects refused before any SYN, by errno:
 * a series each, per interval, over every process and per name. */
static void test_bind_and_before_syn_failures(void **state)
{
	/* ab: 3 EADDRINUSE, then 2 EACCES; nginx: 1 ENETUNREACH. */
	static const char text[] =
		HEADER_NOW T1 ",1.000,7,ab,0,0,0,0,0,0,0,0,0,0,0,0,0,0,3,0,0,0,0,0,0,0,0,0,0,0,0,"
		"0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0," ZEROS_WAITS ",\n"
		T2 ",2.000,7,ab,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,2,0,0,0,0,0,0,0,0,0,"
		"0,0,0,0,0,0,2,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0," ZEROS_WAITS ",\n"
		T2 ",2.000,8,nginx,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,1,0,0,0,0,0,0,0,0,0,"
		"0,0,0,0,1,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0," ZEROS_WAITS ",\n";
	struct parsed p;
	char *json;

	(void)state;
	build(&p, text);
	assert_true(p.tl.has[TL_EADDRINUSE] && p.tl.has[TL_CONNFAIL_OTHER]);
	json = json_of(&p.tl);
	assert_non_null(strstr(json, "\"eaddrnotavail\":[0,0],\"eaddrinuse\":[3,0],\"tw_now\":[0,0],"));
	assert_non_null(strstr(json, "\"connfail_enetunreach\":[0,1],\"connfail_ehostunreach\":[0,0],"
				     "\"connfail_eacces\":[0,2],\"connfail_einval\":[0,0],"
				     "\"connfail_eperm\":[0,0],\"connfail_other\":[0,0]},"
				     "\"rst_sent_reasons\":{},\"names\":[{\"name\":\"ab\","));
	assert_non_null(strstr(json, "{\"name\":\"nginx\",\"series\":{"));
	assert_non_null(strstr(json, "\"connfail_enetunreach\":[0,1],\"connfail_ehostunreach\":[0,0],"
				     "\"connfail_eacces\":[0,0],"));
	free(json);
	done(&p);
}

/* Data segments sent again per interval, by side, and those after a
 * timeout, both sides added. */
static void test_segments_sent_again_per_interval(void **state)
{
	/* The 33 columns of failed connects and connect times, then the 46 of
	 * accept waits and handshakes, all 0; then retrans_in, retrans_out,
	 * retrans_rto_in, retrans_rto_out, segs_sent_in, segs_sent_out. */
#define NO_WAITS                                                                        \
	ZEROS20 "," ZEROS_NOW ","                                                       \
	"0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,"            \
	"0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,"                                \
	"0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,"
	static const char text[] =
		HEADER_NOW T1 ",1.000,7,haproxy," NO_WAITS "4,30,1,2,900,1000,\n"
		T2 ",2.000,7,haproxy," NO_WAITS "0,5,0,5,0,0,\n"
		T2 ",2.000,8,nginx," NO_WAITS "6,0,6,0,100,0,\n";
#undef NO_WAITS
	struct parsed p;
	char *json;

	(void)state;
	build(&p, text);
	assert_true(p.tl.has[TL_RETRANS_IN] && p.tl.has[TL_RETRANS_OUT] && p.tl.has[TL_RETRANS_RTO]);
	json = json_of(&p.tl);
	assert_non_null(strstr(json, "\"retrans_in\":[4,6],\"retrans_out\":[30,5],"
				     "\"retrans_rto\":[3,11],"));
	assert_non_null(strstr(json, "{\"name\":\"nginx\",\"series\":{"));
	assert_non_null(strstr(json, "\"retrans_in\":[0,6],\"retrans_out\":[0,0],"
				     "\"retrans_rto\":[0,6],"));
	free(json);
	done(&p);
}

/* A CSV of an earlier version: no series of the columns it lacks. */
static void test_json_of_a_per_process_run(void **state)
{
	struct parsed p;
	char *json;

	(void)state;
	build(&p, TWO_PROCS);
	json = json_of(&p.tl);
	assert_string_equal(json, "{\"kind\":\"process\",\"elapsed_s\":[1.000,2.000],\"series\":{"
				  "\"conn_in\":[5,6],\"conn_out\":[2,5],\"fin_active\":[0,3],"
				  "\"fin_passive\":[0,7],\"rst_sent\":[3,12],\"rst_recv\":[0,15],"
				  "\"timeout\":[0,2],\"eaddrnotavail\":[0,9],\"tw_now\":[17,30]},"
				  "\"rst_sent_reasons\":{\"NOT_SPECIFIED\":[1,0],"
				  "\"TCP_ABORT_ON_DATA\":[0,1],\"TCP_STATE\":[2,11]},\"names\":["
				  /* A name's reasons: only those it sent. */
				  "{\"name\":\"haproxy\",\"series\":{\"conn_in\":[1,5],\"conn_out\":[2,5],"
				  "\"fin_active\":[0,3],\"fin_passive\":[0,7],\"rst_sent\":[3,11],"
				  "\"rst_recv\":[0,15],\"timeout\":[0,2],\"eaddrnotavail\":[0,9],"
				  "\"tw_now\":[10,30]},\"rst_sent_reasons\":{\"NOT_SPECIFIED\":[1,0],"
				  "\"TCP_STATE\":[2,11]}},"
				  "{\"name\":\"nginx\",\"series\":{\"conn_in\":[4,1],\"conn_out\":[0,0],"
				  "\"fin_active\":[0,0],\"fin_passive\":[0,0],\"rst_sent\":[0,1],"
				  "\"rst_recv\":[0,0],\"timeout\":[0,0],\"eaddrnotavail\":[0,0],"
				  "\"tw_now\":[7,0]},\"rst_sent_reasons\":{\"TCP_ABORT_ON_DATA\":[0,1]}}],"
				  "\"dests\":[]}");
	free(json);
	done(&p);
}

/* Two processes toward :8080 and one toward :8081; in the first interval
 * the processes see different ports free (their rows were read at
 * different moments): the fewest counts. */
#define DESTS                                                                                \
	DEST_HEADER                                                                          \
	T1 ",0.200,7,nginx,127.0.0.1:8080,4,0,0,0,0,0,0,0,0,0,6,10,0.5\n"                       \
	T1 ",0.200,8,nginx,127.0.0.1:8080,2,1,0,1,0,0,1,1,0,0,6,9,0.0\n"                        \
	T2 ",0.400,7,nginx,127.0.0.1:8080,0,0,0,0,0,0,0,0,0,3,15,0,0.2\n"                       \
	T2 ",0.400,9,nginx,[::1]:8081,1,0,0,0,0,0,0,0,0,0,1,99,0.0\n"

static void test_destinations_fewest_ports_and_shortest_runout(void **state)
{
	struct parsed p;
	const struct timeline_dest *a, *b;

	(void)state;
	build(&p, DESTS);
	assert_int_equal(p.tl.kind, TT_CSV_PER_DEST);
	assert_int_equal(p.tl.n_dests, 2);
	a = &p.tl.dests[0];
	b = &p.tl.dests[1];
	assert_string_equal(a->dest, "127.0.0.1:8080");
	assert_string_equal(b->dest, "[::1]:8081");
	assert_true(a->seen[0] && a->seen[1]);
	assert_int_equal(a->ports_free[0], 9);
	assert_int_equal(a->ports_free[1], 0);
	assert_true(a->runout_s[0] == 0.5);
	assert_true(a->runout_s[1] == 0.2);
	assert_int_equal(a->total[TT_CSV_CONN_OUT], 6);
	assert_int_equal(a->total[TT_CSV_RST_SENT_OUT], 1);
	assert_int_equal(a->total[TT_CSV_EADDRNOTAVAIL], 3);
	assert_int_equal(a->total[TT_CSV_TW_NOW], 0);
	assert_int_equal(a->fewest_free, 0);
	assert_true(a->shortest_runout_s == 0.2);
	assert_false(b->seen[0]);
	assert_int_equal(b->fewest_free, 99);
	assert_true(b->shortest_runout_s == 0);
	/* The run's series add up every destination. */
	assert_int_equal(p.tl.all.series[TL_CONN_OUT][0], 6);
	assert_int_equal(p.tl.all.series[TL_CONN_OUT][1], 1);
	assert_int_equal(p.tl.all.series[TL_RST_SENT][0], 1);
	assert_int_equal(p.tl.all.series[TL_EADDRNOTAVAIL][1], 3);
	done(&p);
}

static void test_json_of_a_per_destination_run(void **state)
{
	struct parsed p;
	char *json;

	(void)state;
	build(&p, DESTS);
	json = json_of(&p.tl);
	/* No conn_in: a --by dest CSV has no accepted connections. */
	assert_string_equal(json, "{\"kind\":\"dest\",\"elapsed_s\":[0.200,0.400],\"series\":{"
				  "\"conn_out\":[6,1],\"fin_active\":[1,0],\"fin_passive\":[0,0],"
				  "\"rst_sent\":[1,0],\"rst_recv\":[0,0],\"timeout\":[0,0],"
				  "\"eaddrnotavail\":[0,3],\"tw_now\":[1,0]},"
				  "\"rst_sent_reasons\":{},\"names\":[{\"name\":\"nginx\",\"series\":{"
				  "\"conn_out\":[6,1],\"fin_active\":[1,0],\"fin_passive\":[0,0],"
				  "\"rst_sent\":[1,0],\"rst_recv\":[0,0],\"timeout\":[0,0],"
				  "\"eaddrnotavail\":[0,3],\"tw_now\":[1,0]},\"rst_sent_reasons\":{}}],"
				  "\"dests\":["
				  "{\"dest\":\"127.0.0.1:8080\",\"ports_free\":[9,0],"
				  "\"runout_s\":[0.5,0.2]},"
				  "{\"dest\":\"[::1]:8081\",\"ports_free\":[null,99],"
				  "\"runout_s\":[null,null]}]}");
	free(json);
	done(&p);
}

static void test_json_strings_cannot_end_a_script(void **state)
{
	struct parsed p;
	char *json;

	(void)state;
	build(&p, DEST_HEADER T1 ",0.200,7,nginx,\"</script><!--&\xe2\x80\xa8\",1,0,0,0,0,0,0,0,0,0,"
				 "1,9,0.0\n");
	json = json_of(&p.tl);
	assert_non_null(strstr(json, "{\"dest\":\"\\u003c/script\\u003e\\u003c!--\\u0026\\u2028\","));
	assert_null(strchr(json, '<'));
	free(json);
	done(&p);
}

static void test_header_only_has_no_interval(void **state)
{
	struct parsed p;
	char *json;

	(void)state;
	build(&p, HEADER);
	assert_int_equal(p.tl.n, 0);
	json = json_of(&p.tl);
	assert_string_equal(json, "{\"kind\":\"process\",\"elapsed_s\":[],\"series\":{"
				  "\"conn_in\":[],\"conn_out\":[],\"fin_active\":[],"
				  "\"fin_passive\":[],\"rst_sent\":[],\"rst_recv\":[],\"timeout\":[],"
				  "\"eaddrnotavail\":[],\"tw_now\":[]},\"rst_sent_reasons\":{},"
				  "\"names\":[],\"dests\":[]}");
	free(json);
	done(&p);
}

static void test_sums_stop_at_64_bits(void **state)
{
	struct parsed p;

	(void)state;
	build(&p, HEADER T1 ",1.000,1,a,18446744073709551615,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,\n"
			 T1 ",1.000,2,b,5,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,\n");
	assert_true(p.tl.all.series[TL_CONN_IN][0] == UINT64_MAX);
	done(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rows_of_one_time_are_one_interval),
		cmocka_unit_test(test_close_classes_add_both_sides),
		cmocka_unit_test(test_reasons_each_once_by_name_per_interval),
		cmocka_unit_test(test_processes_of_one_name_add_up),
		cmocka_unit_test(test_open_connections_and_listen_queues),
		cmocka_unit_test(test_series_a_csv_lacks),
		cmocka_unit_test(test_json_of_a_run_of_now),
		cmocka_unit_test(test_connects_from_the_buckets),
		cmocka_unit_test(test_segments_sent_again_per_interval),
		cmocka_unit_test(test_bind_and_before_syn_failures),
		cmocka_unit_test(test_json_of_a_per_process_run),
		cmocka_unit_test(test_destinations_fewest_ports_and_shortest_runout),
		cmocka_unit_test(test_json_of_a_per_destination_run),
		cmocka_unit_test(test_json_strings_cannot_end_a_script),
		cmocka_unit_test(test_header_only_has_no_interval),
		cmocka_unit_test(test_sums_stop_at_64_bits),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
