// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Unit tests of tcptrace compare: the sums per run (totals, the tw_now peak
 * per interval, processes), the text and CSV reports spelled out, and the
 * command line: exit codes and the one-line message for each bad input. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "offline/compare.h"
#include "offline/compare_cli.h"
#include "offline/compare_write.h"
#include "csv_fixtures.h"

#define T3 "2026-11-22T16:45:03.000Z"

/* A row with the counts a proxy's TIME_WAIT story needs; the rest 0. */
#define ROW(t, e, pid, comm, cin, cout, fa_in, fa_out, tw_in, tw_out, tw_now)                 \
	t "," e "," pid "," comm "," cin "," cout "," fa_in "," fa_out ",0,0,0,0,0,0," tw_in \
	"," tw_out "," tw_now ",0,0,0,0,0,0,\n"

/* nginx without upstream keepalive: one upstream connection per request,
 * closed by nginx, so every one leaves a timewait socket. */
#define DEFAULT_CSV                                                                          \
	HEADER                                                                               \
	ROW(T1, "1.000", "10", "nginx", "100", "100", "100", "100", "100", "100", "200")     \
	ROW(T1, "1.000", "11", "nginx", "50", "50", "50", "50", "50", "50", "100")           \
	ROW(T2, "2.000", "10", "nginx", "100", "100", "100", "100", "100", "100", "400")     \
	ROW(T2, "2.000", "11", "nginx", "50", "50", "50", "50", "50", "50", "200")

/* The same load with upstream keepalive: four pooled upstream connections. */
#define KEEPALIVE_CSV                                                                        \
	HEADER                                                                               \
	ROW(T1, "1.000", "20", "nginx", "100", "2", "100", "0", "100", "0", "100")           \
	ROW(T1, "1.000", "21", "nginx", "50", "2", "50", "0", "50", "0", "50")               \
	ROW(T2, "2.000", "20", "nginx", "100", "0", "100", "0", "100", "0", "200")           \
	ROW(T2, "2.000", "21", "nginx", "50", "0", "50", "0", "50", "0", "100")

/* A row of the current CSV with the listen queue, SYN and open connection
 * columns; the other counts 0. */
#define QROW(t, e, pid, comm, open_in, open_out, drops, peak, limit, syn, synack)            \
	t "," e "," pid "," comm "," ZEROS20 "," open_in "," open_out "," drops "," peak ","  \
	limit "," syn "," synack "," ZEROS_CONNECT ",\n"

/* The same with connects: the abandoned ones, and those established at
 * most 50 us (fast) and at most 2 s (slow: a SYN sent again) after their
 * SYN. */
#define QROWC(t, e, pid, comm, open_in, open_out, drops, peak, limit, syn, synack, abandoned,   \
	      fast, slow)                                                                    \
	t "," e "," pid "," comm "," ZEROS20 "," open_in "," open_out "," drops "," peak ","  \
	limit "," syn "," synack ",0,0,0," abandoned ",0,0,0,0,0,0,0,0," fast                 \
	",0,0,0,0,0,0,0,0,0,0,0,0,0," slow ",0,0,0,0,0,0," ZEROS_WAITS ",\n"

/* haproxy with backlog 16 under ab: its queue full, ab's SYNs sent again. */
#define SMALL_QUEUE_CSV                                                                      \
	HEADER_NOW                                                                           \
	QROW(T1, "1.000", "10", "haproxy", "20", "20", "200", "16", "16", "0", "3")          \
	QROWC(T1, "1.000", "11", "ab", "0", "300", "0", "0", "0", "400", "0", "0", "200", "100") \
	QROW(T2, "2.000", "10", "haproxy", "20", "20", "81", "16", "16", "0", "0")           \
	QROWC(T2, "2.000", "11", "ab", "0", "280", "0", "0", "0", "162", "0", "50", "180", "100")

/* The same with backlog 1024: nothing dropped. */
#define LARGE_QUEUE_CSV                                                                      \
	HEADER_NOW                                                                           \
	QROW(T1, "1.000", "20", "haproxy", "300", "20", "0", "210", "1024", "0", "0")        \
	QROWC(T1, "1.000", "21", "ab", "0", "300", "0", "0", "0", "0", "0", "0", "300", "0")  \
	QROW(T2, "2.000", "20", "haproxy", "290", "20", "0", "180", "1024", "0", "0")

/* Sums CSV text into run, expecting success. */
static void run_from(struct compare_run *run, const char *file, const char *text)
{
	struct tt_csv_file csv;
	struct csv_error err;

	if (csv_parse_buffer(text, strlen(text), TT_CSV_PER_PROCESS, &csv, &err))
		fail_msg("%s:%lu: %s", file, err.line, err.msg);
	if (compare_run_init(run, file, &csv, &err))
		fail_msg("%s:%lu: %s", file, err.line, err.msg);
	csv_file_free(&csv);
}

static void runs_free(struct compare_run *runs, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		compare_run_free(&runs[i]);
}

/* The text report of runs, to free(). */
static char *text_of(const struct compare_run *runs, size_t n)
{
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);

	assert_non_null(m);
	assert_int_equal(compare_write_text(m, runs, n), 0);
	assert_int_equal(fclose(m), 0);
	return text;
}

static char *csv_of(const struct compare_run *runs, size_t n)
{
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);

	assert_non_null(m);
	assert_int_equal(compare_write_csv(m, runs, n), 0);
	assert_int_equal(fclose(m), 0);
	return text;
}

static void test_two_runs_default_vs_keepalive(void **state)
{
	struct compare_run runs[2];
	char *text;

	(void)state;
	run_from(&runs[0], "default.csv", DEFAULT_CSV);
	run_from(&runs[1], "keepalive.csv", KEEPALIVE_CSV);
	text = text_of(runs, 2);
	assert_string_equal(
		text,
		"A: default.csv, 2.000 s, 2 processes: 10 nginx, 11 nginx\n"
		"B: keepalive.csv, 2.000 s, 2 processes: 20 nginx, 21 nginx\n"
		"\n"
		"TIME_WAIT             A total        A /s      B total        B /s       B/A\n"
		"tw_in                     300      150.00          300      150.00     1.00x\n"
		"tw_out                    300      150.00            0        0.00     0.00x\n"
		"tw_now peak               600                      300                 0.50x\n"
		"A held more TIME_WAIT at its peak: 600 against 300 in B.\n"
		"\n"
		"other counters        A total        A /s      B total        B /s       B/A\n"
		"conn_in                   300      150.00          300      150.00     1.00x\n"
		"conn_out                  300      150.00            4        2.00     0.01x\n"
		"fin_active_in             300      150.00          300      150.00     1.00x\n"
		"fin_active_out            300      150.00            0        0.00     0.00x\n"
		"fin_passive_in              0        0.00            0        0.00         -\n"
		"fin_passive_out             0        0.00            0        0.00         -\n"
		"rst_sent_in                 0        0.00            0        0.00         -\n"
		"rst_sent_out                0        0.00            0        0.00         -\n"
		"rst_recv_in                 0        0.00            0        0.00         -\n"
		"rst_recv_out                0        0.00            0        0.00         -\n"
		"eaddrnotavail               0        0.00            0        0.00         -\n"
		"eaddrinuse                n/a                      n/a\n"
		"timeout_in                  0        0.00            0        0.00         -\n"
		"timeout_out                 0        0.00            0        0.00         -\n"
		"connfail_out                0        0.00            0        0.00         -\n"
		"untracked                   0        0.00            0        0.00         -\n"
		"tw_rst                      0        0.00            0        0.00         -\n");
	free(text);
	runs_free(runs, 2);
}

static void test_two_runs_fit_100_columns(void **state)
{
	struct compare_run runs[2];
	const char *p;
	char *text;

	(void)state;
	run_from(&runs[0], "default.csv",
		 HEADER T1 ",86400.000,4194304,haproxy,18446744073709551615,0,0,0,0,0,0,0,0,"
			   "0,0,0,0,0,0,0,0,0,0,\n");
	run_from(&runs[1], "keepalive.csv", KEEPALIVE_CSV);
	text = text_of(runs, 2);
	for (p = text; *p; p += strcspn(p, "\n") + 1)
		assert_in_range(strcspn(p, "\n"), 0, 100);
	free(text);
	runs_free(runs, 2);
}

static void test_three_runs_each_against_the_first(void **state)
{
	struct compare_run runs[3];
	char *text;

	(void)state;
	run_from(&runs[0], "default.csv", DEFAULT_CSV);
	run_from(&runs[1], "keepalive.csv", KEEPALIVE_CSV);
	run_from(&runs[2], "close.csv",
		 HEADER ROW(T1, "4.000", "30", "haproxy", "300", "300", "300", "300", "300", "600",
			    "900"));
	text = text_of(runs, 3);
	assert_string_equal(
		text,
		"A: default.csv, 2.000 s, 2 processes: 10 nginx, 11 nginx\n"
		"B: keepalive.csv, 2.000 s, 2 processes: 20 nginx, 21 nginx\n"
		"C: close.csv, 4.000 s, 1 process: 30 haproxy\n"
		"\n"
		"TIME_WAIT             A total        A /s      B total        B /s       B/A"
		"      C total        C /s       C/A\n"
		"tw_in                     300      150.00          300      150.00     1.00x"
		"          300       75.00     1.00x\n"
		"tw_out                    300      150.00            0        0.00     0.00x"
		"          600      150.00     2.00x\n"
		"tw_now peak               600                      300                 0.50x"
		"          900                 1.50x\n"
		"Most TIME_WAIT at peak: C (900); least: B (300).\n"
		"\n"
		"other counters        A total        A /s      B total        B /s       B/A"
		"      C total        C /s       C/A\n"
		"conn_in                   300      150.00          300      150.00     1.00x"
		"          300       75.00     1.00x\n"
		"conn_out                  300      150.00            4        2.00     0.01x"
		"          300       75.00     1.00x\n"
		"fin_active_in             300      150.00          300      150.00     1.00x"
		"          300       75.00     1.00x\n"
		"fin_active_out            300      150.00            0        0.00     0.00x"
		"          300       75.00     1.00x\n"
		"fin_passive_in              0        0.00            0        0.00         -"
		"            0        0.00         -\n"
		"fin_passive_out             0        0.00            0        0.00         -"
		"            0        0.00         -\n"
		"rst_sent_in                 0        0.00            0        0.00         -"
		"            0        0.00         -\n"
		"rst_sent_out                0        0.00            0        0.00         -"
		"            0        0.00         -\n"
		"rst_recv_in                 0        0.00            0        0.00         -"
		"            0        0.00         -\n"
		"rst_recv_out                0        0.00            0        0.00         -"
		"            0        0.00         -\n"
		"eaddrnotavail               0        0.00            0        0.00         -"
		"            0        0.00         -\n"
		"eaddrinuse                n/a                      n/a                                n/a\n"
		"timeout_in                  0        0.00            0        0.00         -"
		"            0        0.00         -\n"
		"timeout_out                 0        0.00            0        0.00         -"
		"            0        0.00         -\n"
		"connfail_out                0        0.00            0        0.00         -"
		"            0        0.00         -\n"
		"untracked                   0        0.00            0        0.00         -"
		"            0        0.00         -\n"
		"tw_rst                      0        0.00            0        0.00         -"
		"            0        0.00         -\n");
	free(text);
	runs_free(runs, 3);
}

/* Runs built directly: file, duration and one count. */
static void runs_with(struct compare_run *runs, enum tt_csv_col col, uint64_t a, uint64_t b)
{
	memset(runs, 0, 2 * sizeof(*runs));
	runs[0].file = "a.csv";
	runs[1].file = "b.csv";
	runs[0].duration_s = runs[1].duration_s = 10;
	runs[0].total[col] = a;
	runs[1].total[col] = b;
}

static void expect_count_line(enum tt_csv_col col, uint64_t a, uint64_t b, const char *line)
{
	struct compare_run runs[2];
	char *text;

	runs_with(runs, col, a, b);
	text = text_of(runs, 2);
	assert_string_equal(line_of(text, tt_csv_col_names[col]), line);
	free(text);
}

static void test_ratio_when_both_are_zero(void **state)
{
	(void)state;
	expect_count_line(TT_CSV_RST_SENT_IN, 0, 0,
			  "rst_sent_in                 0        0.00            0        0.00"
			  "         -");
}

static void test_ratio_when_only_the_first_is_zero(void **state)
{
	(void)state;
	expect_count_line(TT_CSV_EADDRNOTAVAIL, 0, 25,
			  "eaddrnotavail               0        0.00           25        2.50"
			  "       inf");
}

static void test_ratio_half(void **state)
{
	(void)state;
	expect_count_line(TT_CSV_TW_OUT, 4, 2,
			  "tw_out                      4        0.40            2        0.20"
			  "     0.50x");
}

static void test_ratio_when_the_later_is_zero(void **state)
{
	(void)state;
	expect_count_line(TT_CSV_TW_OUT, 3, 0,
			  "tw_out                      3        0.30            0        0.00"
			  "     0.00x");
}

static void test_tiny_ratio_is_not_shown_as_zero(void **state)
{
	(void)state;
	expect_count_line(TT_CSV_CONN_OUT, 3000, 8,
			  "conn_out                 3000      300.00            8        0.80"
			  "    <0.01x");
}

static void test_large_ratio(void **state)
{
	(void)state;
	expect_count_line(TT_CSV_TW_IN, 2, 3000,
			  "tw_in                       2        0.20         3000      300.00"
			  "  1500.00x");
}

static void test_tw_now_peak_is_per_time_across_processes(void **state)
{
	struct compare_run run;

	(void)state;
	/* Per time: T1 6+6 = 12, T2 10+0 = 10, T3 3. Not the largest row (10),
	 * nor the sum of all (31); the rows of one time are not adjacent. */
	run_from(&run, "a.csv",
		 HEADER ROW(T1, "1.000", "1", "a", "0", "0", "0", "0", "0", "0", "6")
			ROW(T2, "2.000", "1", "a", "0", "0", "0", "0", "0", "0", "10")
			ROW(T3, "3.000", "1", "a", "0", "0", "0", "0", "0", "0", "3")
			ROW(T1, "1.000", "2", "b", "0", "0", "0", "0", "0", "0", "6")
			ROW(T2, "2.000", "2", "b", "0", "0", "0", "0", "0", "0", "0"));
	assert_int_equal(run.tw_now_peak, 12);
	assert_int_equal(run.total[TT_CSV_TW_NOW], 0);
	compare_run_free(&run);
}

static void test_totals_sum_every_row(void **state)
{
	struct compare_run run;

	(void)state;
	run_from(&run, "a.csv",
		 HEADER T1 ",1.000,1,a,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,\n"
			T2 ",2.000,1,a,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,\n"
			T2 ",2.000,2,b,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,\n");
	assert_int_equal(run.total[TT_CSV_CONN_IN], 3);
	assert_int_equal(run.total[TT_CSV_TW_IN], 13);
	assert_int_equal(run.total[TT_CSV_EADDRNOTAVAIL], 16);
	assert_int_equal(run.total[TT_CSV_TW_RST], 21);
	compare_run_free(&run);
}

static void test_duration_is_the_largest_elapsed(void **state)
{
	struct compare_run run;

	(void)state;
	run_from(&run, "a.csv",
		 HEADER T2 ",2.500,1,a," ZEROS ",\n" T1 ",1.250,1,a," ZEROS ",\n");
	assert_true(run.duration_s == 2.5);
	compare_run_free(&run);
}

static void test_processes_are_distinct_pid_and_comm(void **state)
{
	struct compare_run runs[2];
	char *text;

	(void)state;
	/* pid 30 exec'd into another name: two processes. */
	run_from(&runs[0], "a.csv",
		 HEADER T1 ",1.000,30,nginx," ZEROS ",\n" T1 ",1.000,10,haproxy," ZEROS ",\n"
			T2 ",2.000,30,nginx," ZEROS ",\n" T2 ",2.000,30,nginx: worker," ZEROS
			",\n" T2 ",2.000,20,envoy," ZEROS ",\n");
	run_from(&runs[1], "b.csv", HEADER T1 ",1.000,7,\"web,1\"," ZEROS ",\n");
	text = text_of(runs, 2);
	assert_string_equal(line_of(text, "A: "), "A: a.csv, 2.000 s, 4 processes: 10 haproxy, "
						  "20 envoy, 30 nginx, 30 nginx: worker");
	assert_string_equal(line_of(text, "B: "), "B: b.csv, 1.000 s, 1 process: 7 web,1");
	free(text);
	runs_free(runs, 2);
}

static void test_control_bytes_in_comm_keep_one_line(void **state)
{
	struct compare_run runs[2];
	char *text;

	(void)state;
	run_from(&runs[0], "a.csv", HEADER T1 ",1.000,7,\"two\nlines\"," ZEROS ",\n");
	run_from(&runs[1], "b.csv", HEADER);
	text = text_of(runs, 2);
	assert_string_equal(line_of(text, "A: "), "A: a.csv, 1.000 s, 1 process: 7 two?lines");
	free(text);
	runs_free(runs, 2);
}

static void test_long_process_list_wraps_at_100_columns(void **state)
{
	struct compare_run runs[2];
	char csv[4096], *p = csv, *text;
	const char *line;
	int pid;

	(void)state;
	p += sprintf(p, "%s", HEADER);
	for (pid = 1001; pid <= 1012; pid++)
		p += sprintf(p, T1 ",1.000,%d,worker-%d," ZEROS ",\n", pid, pid);
	run_from(&runs[0], "a.csv", csv);
	run_from(&runs[1], "b.csv", HEADER);
	text = text_of(runs, 2);
	line = strstr(text, "A: ");
	assert_non_null(line);
	assert_memory_equal(line,
			    "A: a.csv, 1.000 s, 12 processes: 1001 worker-1001, 1002 worker-1002, "
			    "1003 worker-1003,\n"
			    "    1004 worker-1004, 1005 worker-1005, 1006 worker-1006, "
			    "1007 worker-1007, 1008 worker-1008,\n"
			    "    1009 worker-1009, 1010 worker-1010, 1011 worker-1011, "
			    "1012 worker-1012\n"
			    "B: b.csv, 0.000 s, 0 processes\n",
			    strlen("A: a.csv, 1.000 s, 12 processes: 1001 worker-1001, 1002 "
				   "worker-1002, 1003 worker-1003,\n"
				   "    1004 worker-1004, 1005 worker-1005, 1006 worker-1006, "
				   "1007 worker-1007, 1008 worker-1008,\n"
				   "    1009 worker-1009, 1010 worker-1010, 1011 worker-1011, "
				   "1012 worker-1012\n"
				   "B: b.csv, 0.000 s, 0 processes\n"));
	free(text);
	runs_free(runs, 2);
}

static void test_process_lines_never_pass_100_columns(void **state)
{
	static const char comm[] = "abcdefghijklmno";
	struct compare_run runs[2];
	char csv[16384], *p = csv, *text;
	const char *line;
	int pid;

	(void)state;
	/* Names of every length from 1 to 15 bytes, so that some line ends
	 * exactly at the limit with its comma. */
	p += sprintf(p, "%s", HEADER);
	for (pid = 1; pid <= 90; pid++)
		p += sprintf(p, T1 ",1.000,%d,%.*s," ZEROS ",\n", pid, 1 + pid % 15, comm);
	run_from(&runs[0], "a.csv", csv);
	run_from(&runs[1], "b.csv", HEADER);
	text = text_of(runs, 2);
	for (line = text; *line; line += strcspn(line, "\n") + 1)
		assert_in_range(strcspn(line, "\n"), 0, 100);
	free(text);
	runs_free(runs, 2);
}

static void test_long_file_name_moves_processes_to_the_next_line(void **state)
{
	static const char name[] =
		"/srv/bench/2026-11-22/nginx-upstream-keepalive-32-workers-4/tcptrace.csv";
	struct compare_run runs[2];
	char *text;

	(void)state;
	run_from(&runs[0], name, HEADER T1 ",1.000,7,nginx," ZEROS ",\n");
	run_from(&runs[1], "b.csv", HEADER);
	text = text_of(runs, 2);
	assert_memory_equal(text,
			    "A: /srv/bench/2026-11-22/nginx-upstream-keepalive-32-workers-4/"
			    "tcptrace.csv, 1.000 s, 1 process:\n"
			    "    7 nginx\n"
			    "B: b.csv, 0.000 s, 0 processes\n",
			    strlen("A: /srv/bench/2026-11-22/nginx-upstream-keepalive-32-workers-4/"
				   "tcptrace.csv, 1.000 s, 1 process:\n"
				   "    7 nginx\n"
				   "B: b.csv, 0.000 s, 0 processes\n"));
	free(text);
	runs_free(runs, 2);
}

static void test_run_without_rows_has_no_rate(void **state)
{
	struct compare_run runs[2];
	char *text;

	(void)state;
	run_from(&runs[0], "empty.csv", HEADER);
	run_from(&runs[1], "b.csv", KEEPALIVE_CSV);
	text = text_of(runs, 2);
	assert_string_equal(line_of(text, "A: "), "A: empty.csv, 0.000 s, 0 processes");
	assert_string_equal(line_of(text, "tw_in "),
			    "tw_in                       0           -          300      150.00"
			    "       inf");
	free(text);
	runs_free(runs, 2);
}

static void expect_verdict(const uint64_t *peaks, size_t n, const char *verdict)
{
	struct compare_run runs[4];
	char *text;
	size_t i;

	memset(runs, 0, sizeof(runs));
	for (i = 0; i < n; i++) {
		runs[i].file = "x.csv";
		runs[i].duration_s = 1;
		runs[i].tw_now_peak = peaks[i];
	}
	text = text_of(runs, n);
	assert_string_equal(line_of(text, verdict), verdict);
	free(text);
}

static void test_verdict_when_the_second_held_more(void **state)
{
	(void)state;
	expect_verdict((const uint64_t[]){ 3, 9 }, 2,
		       "B held more TIME_WAIT at its peak: 9 against 3 in A.");
}

static void test_verdict_when_equal(void **state)
{
	(void)state;
	expect_verdict((const uint64_t[]){ 0, 0 }, 2,
		       "TIME_WAIT at peak: the same in every run (0).");
}

static void test_verdict_names_every_run_tied(void **state)
{
	(void)state;
	expect_verdict((const uint64_t[]){ 7, 2, 7, 2 }, 4,
		       "Most TIME_WAIT at peak: A, C (7); least: B, D (2).");
}

static void test_total_past_64_bits_names_the_row(void **state)
{
	static const char text[] =
		HEADER T1 ",1.000,1,a,18446744073709551615,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,\n"
		       T1 ",1.000,2,a,1,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,\n";
	struct compare_run run;
	struct tt_csv_file csv;
	struct csv_error err;

	(void)state;
	assert_int_equal(csv_parse_buffer(text, strlen(text), TT_CSV_PER_PROCESS, &csv, &err), 0);
	assert_int_equal(compare_run_init(&run, "a.csv", &csv, &err), -1);
	assert_int_equal(err.line, 3);
	assert_string_equal(err.msg, "total of conn_in exceeds 18446744073709551615");
	compare_run_free(&run);
	csv_file_free(&csv);
}

static void test_tw_now_sum_past_64_bits_names_the_row(void **state)
{
	static const char text[] =
		HEADER T1 ",1.000,1,a,0,0,0,0,0,0,0,0,0,0,0,0,18446744073709551615,0,0,0,0,0,0,\n"
		       T1 ",1.000,2,a,0,0,0,0,0,0,0,0,0,0,0,0,1,0,0,0,0,0,0,\n";
	struct compare_run run;
	struct tt_csv_file csv;
	struct csv_error err;

	(void)state;
	assert_int_equal(csv_parse_buffer(text, strlen(text), TT_CSV_PER_PROCESS, &csv, &err), 0);
	assert_int_equal(compare_run_init(&run, "a.csv", &csv, &err), -1);
	assert_int_equal(err.line, 3);
	assert_string_equal(err.msg,
			    "sum of tw_now at " T1 " exceeds 18446744073709551615");
	compare_run_free(&run);
	csv_file_free(&csv);
}

static void test_csv_report(void **state)
{
	struct compare_run runs[2];
	char *text;

	(void)state;
	run_from(&runs[0], "default.csv", DEFAULT_CSV);
	run_from(&runs[1], "keepalive.csv", KEEPALIVE_CSV);
	text = csv_of(runs, 2);
	assert_string_equal(text, "counter,run,file,total,per_second,ratio_to_first,comm\n"
				  "tw_in,A,default.csv,300,150.000,1.0000,\n"
				  "tw_in,B,keepalive.csv,300,150.000,1.0000,\n"
				  "tw_out,A,default.csv,300,150.000,1.0000,\n"
				  "tw_out,B,keepalive.csv,0,0.000,0.0000,\n"
				  "tw_now_peak,A,default.csv,600,,1.0000,\n"
				  "tw_now_peak,B,keepalive.csv,300,,0.5000,\n"
				  "conn_in,A,default.csv,300,150.000,1.0000,\n"
				  "conn_in,B,keepalive.csv,300,150.000,1.0000,\n"
				  "conn_out,A,default.csv,300,150.000,1.0000,\n"
				  "conn_out,B,keepalive.csv,4,2.000,0.0133,\n"
				  "fin_active_in,A,default.csv,300,150.000,1.0000,\n"
				  "fin_active_in,B,keepalive.csv,300,150.000,1.0000,\n"
				  "fin_active_out,A,default.csv,300,150.000,1.0000,\n"
				  "fin_active_out,B,keepalive.csv,0,0.000,0.0000,\n"
				  "fin_passive_in,A,default.csv,0,0.000,,\n"
				  "fin_passive_in,B,keepalive.csv,0,0.000,,\n"
				  "fin_passive_out,A,default.csv,0,0.000,,\n"
				  "fin_passive_out,B,keepalive.csv,0,0.000,,\n"
				  "rst_sent_in,A,default.csv,0,0.000,,\n"
				  "rst_sent_in,B,keepalive.csv,0,0.000,,\n"
				  "rst_sent_out,A,default.csv,0,0.000,,\n"
				  "rst_sent_out,B,keepalive.csv,0,0.000,,\n"
				  "rst_recv_in,A,default.csv,0,0.000,,\n"
				  "rst_recv_in,B,keepalive.csv,0,0.000,,\n"
				  "rst_recv_out,A,default.csv,0,0.000,,\n"
				  "rst_recv_out,B,keepalive.csv,0,0.000,,\n"
				  "eaddrnotavail,A,default.csv,0,0.000,,\n"
				  "eaddrnotavail,B,keepalive.csv,0,0.000,,\n"
				  "eaddrinuse,A,default.csv,,,,\n"
				  "eaddrinuse,B,keepalive.csv,,,,\n"
				  "timeout_in,A,default.csv,0,0.000,,\n"
				  "timeout_in,B,keepalive.csv,0,0.000,,\n"
				  "timeout_out,A,default.csv,0,0.000,,\n"
				  "timeout_out,B,keepalive.csv,0,0.000,,\n"
				  "connfail_out,A,default.csv,0,0.000,,\n"
				  "connfail_out,B,keepalive.csv,0,0.000,,\n"
				  "untracked,A,default.csv,0,0.000,,\n"
				  "untracked,B,keepalive.csv,0,0.000,,\n"
				  "tw_rst,A,default.csv,0,0.000,,\n"
				  "tw_rst,B,keepalive.csv,0,0.000,,\n");
	free(text);
	runs_free(runs, 2);
}

static void test_csv_report_quotes_file_and_marks_inf(void **state)
{
	struct compare_run runs[2];
	char *text;

	(void)state;
	runs_with(runs, TT_CSV_EADDRNOTAVAIL, 0, 25);
	runs[0].file = "a,\"1\".csv";
	runs[0].duration_s = 0;
	text = csv_of(runs, 2);
	assert_string_equal(line_of(text, "eaddrnotavail,A"),
			    "eaddrnotavail,A,\"a,\"\"1\"\".csv\",0,,,");
	assert_string_equal(line_of(text, "eaddrnotavail,B"), "eaddrnotavail,B,b.csv,25,2.500,inf,");
	free(text);
}

static void test_runs_past_z_are_named_like_columns(void **state)
{
	struct compare_run runs[28];
	char *text;
	size_t i;

	(void)state;
	memset(runs, 0, sizeof(runs));
	for (i = 0; i < 28; i++)
		runs[i].file = "x.csv";
	text = csv_of(runs, 28);
	assert_string_equal(line_of(text, "tw_in,Z,"), "tw_in,Z,x.csv,0,,,");
	assert_string_equal(line_of(text, "tw_in,AA,"), "tw_in,AA,x.csv,0,,,");
	assert_string_equal(line_of(text, "tw_in,AB,"), "tw_in,AB,x.csv,0,,,");
	free(text);
}

static void test_listen_queues_and_open_connections_spelled_out(void **state)
{
	static const char want[] =
		"A: small.csv, 2.000 s, 2 processes: 10 haproxy, 11 ab\n"
		"B: large.csv, 2.000 s, 2 processes: 20 haproxy, 21 ab\n"
		"\n"
		"TIME_WAIT             A total        A /s      B total        B /s       B/A\n"
		"tw_in                       0        0.00            0        0.00         -\n"
		"tw_out                      0        0.00            0        0.00         -\n"
		"tw_now peak                 0                        0                     -\n"
		"TIME_WAIT at peak: the same in every run (0).\n"
		"\n"
		"listen queues         A total        A /s      B total        B /s       B/A\n"
		"listen_drops              281      140.50            0        0.00     0.00x\n"
		"syn_retrans_out           562      281.00            0        0.00     0.00x\n"
		"synack_retrans_in           3        1.50            0        0.00     0.00x\n"
		"by process name       A drops   A peak  A limit      B drops   B peak  B limit\n"
		"haproxy                   281       16       16            0      210     1024\n"
		"\n"
		"open connections      A total        A /s      B total        B /s       B/A\n"
		"open_in peak               20                      300                15.00x\n"
		"open_out peak             320                      320                 1.00x\n"
		"\n"
		"connect times         A total        A /s      B total        B /s       B/A\n"
		"connects                  580      290.00          300      150.00     0.52x\n"
		"connects_over_1s          200      100.00            0        0.00     0.00x\n"
		"connect_p50_us             50                       50                 1.00x\n"
		"connect_p99_us        2000000                       50                <0.01x\n"
		"connect_max_us        2000000                       50                <0.01x\n"
		"connfail_refused            0        0.00            0        0.00         -\n"
		"connfail_timeout            0        0.00            0        0.00         -\n"
		"connfail_unreach            0        0.00            0        0.00         -\n"
		"connfail_abandoned         50       25.00            0        0.00     0.00x\n"
		"connfail_enetunreach        0        0.00            0        0.00         -\n"
		"connfail_ehostunreach       0        0.00            0        0.00         -\n"
		"connfail_eacces             0        0.00            0        0.00         -\n"
		"connfail_einval             0        0.00            0        0.00         -\n"
		"connfail_eperm              0        0.00            0        0.00         -\n"
		"connfail_other              0        0.00            0        0.00         -\n"
		"\n"
		"other counters        A total        A /s      B total        B /s       B/A\n";
	struct compare_run runs[2];
	char *text;

	(void)state;
	run_from(&runs[0], "small.csv", SMALL_QUEUE_CSV);
	run_from(&runs[1], "large.csv", LARGE_QUEUE_CSV);
	text = text_of(runs, 2);
	assert_memory_equal(text, want, strlen(want));
	free(text);
	runs_free(runs, 2);
}

/* The sections as data, as every writer lays them out: a line per section
 * (id, title, layout, continued) and per row (its label, its counter for
 * the CSV, whether it is a column's figure, with rate), then per run the
 * value or n/a. */
static char *sections_of(const struct compare_run *runs, size_t n)
{
	struct compare_report rep;
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);

	assert_non_null(m);
	assert_int_equal(compare_report_build(&rep, runs, n), 0);
	for (size_t k = 0; k < rep.n_sections; k++) {
		const struct compare_section *s = &rep.sections[k];
		size_t width = s->layout == COMPARE_QUEUES ? COMPARE_QUEUE_VALUES : 1;

		fprintf(m, "[%s] %s%s%s%s\n", s->id, s->title,
			s->layout == COMPARE_QUEUES ? " (per name)" : "",
			s->continued ? " (continued)" : "", s->verdict ? " (verdict)" : "");
		for (size_t r = 0; r < s->n_rows; r++) {
			const struct compare_row *row = &s->rows[r];

			fprintf(m, "%s%s %s%s%s:", row->name, row->suffix,
				row->counter ? row->counter : "-", row->column ? " column" : "",
				row->with_rate ? " rate" : "");
			for (size_t c = 0; c < n * width; c++) {
				if (row->cells[c].present)
					fprintf(m, " %llu", (unsigned long long)row->cells[c].v);
				else
					fputs(" n/a", m);
			}
			fputc('\n', m);
		}
	}
	compare_report_free(&rep);
	assert_int_equal(fclose(m), 0);
	return text;
}

static void test_sections_spelled_out(void **state)
{
	static const char want[] =
		"[timewait] TIME_WAIT (verdict)\n"
		"tw_in tw_in column rate: 0 0\n"
		"tw_out tw_out column rate: 0 0\n"
		"tw_now peak tw_now_peak column: 0 0\n"
		"[queues] listen queues\n"
		"listen_drops listen_drops column rate: 281 0\n"
		"syn_retrans_out syn_retrans_out column rate: 562 0\n"
		"synack_retrans_in synack_retrans_in column rate: 3 0\n"
		"[queues-by-name] by process name (per name) (continued)\n"
		"haproxy -: 281 16 16 0 210 1024\n"
		"[open] open connections\n"
		"open_in peak open_in_peak column: 20 300\n"
		"open_out peak open_out_peak column: 320 320\n"
		"[connect] connect times\n"
		"connects connects rate: 580 300\n"
		"connects_over_1s connects_over_1s rate: 200 0\n"
		"connect_p50_us connect_p50_us: 50 50\n"
		"connect_p99_us connect_p99_us: 2000000 50\n"
		"connect_max_us connect_max_us: 2000000 50\n"
		"connfail_refused connfail_refused column rate: 0 0\n"
		"connfail_timeout connfail_timeout column rate: 0 0\n"
		"connfail_unreach connfail_unreach column rate: 0 0\n"
		"connfail_abandoned connfail_abandoned column rate: 50 0\n"
		"connfail_enetunreach connfail_enetunreach column rate: 0 0\n"
		"connfail_ehostunreach connfail_ehostunreach column rate: 0 0\n"
		"connfail_eacces connfail_eacces column rate: 0 0\n"
		"connfail_einval connfail_einval column rate: 0 0\n"
		"connfail_eperm connfail_eperm column rate: 0 0\n"
		"connfail_other connfail_other column rate: 0 0\n"
		"[other] other counters\n"
		"conn_in conn_in column rate: 0 0\n"
		"conn_out conn_out column rate: 0 0\n"
		"fin_active_in fin_active_in column rate: 0 0\n"
		"fin_active_out fin_active_out column rate: 0 0\n"
		"fin_passive_in fin_passive_in column rate: 0 0\n"
		"fin_passive_out fin_passive_out column rate: 0 0\n"
		"rst_sent_in rst_sent_in column rate: 0 0\n"
		"rst_sent_out rst_sent_out column rate: 0 0\n"
		"rst_recv_in rst_recv_in column rate: 0 0\n"
		"rst_recv_out rst_recv_out column rate: 0 0\n"
		"eaddrnotavail eaddrnotavail column rate: 0 0\n"
		"eaddrinuse eaddrinuse column rate: 0 0\n"
		"timeout_in timeout_in column rate: 0 0\n"
		"timeout_out timeout_out column rate: 0 0\n"
		"connfail_out connfail_out column rate: 0 0\n"
		"untracked untracked column rate: 0 0\n"
		"tw_rst tw_rst column rate: 0 0\n";
	struct compare_run runs[2];
	char *text;

	(void)state;
	run_from(&runs[0], "small.csv", SMALL_QUEUE_CSV);
	run_from(&runs[1], "large.csv", LARGE_QUEUE_CSV);
	text = sections_of(runs, 2);
	assert_string_equal(text, want);
	free(text);
	runs_free(runs, 2);
}

/* Beside a CSV of an earlier version: the sections of the columns it lacks
 * are there, its figures n/a; a quantile of no connect is n/a too. */
static void test_sections_of_an_earlier_csv_beside_a_current_one(void **state)
{
	static const char want[] =
		"[timewait] TIME_WAIT (verdict)\n"
		"tw_in tw_in column rate: 300 0\n"
		"tw_out tw_out column rate: 300 0\n"
		"tw_now peak tw_now_peak column: 600 0\n"
		"[queues] listen queues\n"
		"listen_drops listen_drops column rate: n/a 0\n"
		"syn_retrans_out syn_retrans_out column rate: n/a 0\n"
		"synack_retrans_in synack_retrans_in column rate: n/a 0\n"
		"[queues-by-name] by process name (per name) (continued)\n"
		"haproxy -: n/a n/a n/a 0 210 1024\n"
		"[open] open connections\n"
		"open_in peak open_in_peak column: n/a 300\n"
		"open_out peak open_out_peak column: n/a 320\n"
		"[connect] connect times\n"
		"connects connects rate: n/a 300\n"
		"connects_over_1s connects_over_1s rate: n/a 0\n"
		"connect_p50_us connect_p50_us: n/a 50\n"
		"connect_p99_us connect_p99_us: n/a 50\n"
		"connect_max_us connect_max_us: n/a 50\n"
		"connfail_refused connfail_refused column rate: n/a 0\n";
	struct compare_run runs[2];
	char *text;

	(void)state;
	run_from(&runs[0], "default.csv", DEFAULT_CSV);
	run_from(&runs[1], "large.csv", LARGE_QUEUE_CSV);
	text = sections_of(runs, 2);
	assert_memory_equal(text, want, strlen(want));
	free(text);
	runs_free(runs, 2);
}

/* Where no run has the columns (CSVs of an earlier version): TIME_WAIT and
 * the other counters only. */
static void test_sections_of_earlier_csvs(void **state)
{
	struct compare_run runs[2];
	char *text;

	(void)state;
	run_from(&runs[0], "default.csv", DEFAULT_CSV);
	run_from(&runs[1], "keepalive.csv", KEEPALIVE_CSV);
	text = sections_of(runs, 2);
	assert_non_null(strstr(text, "[timewait] TIME_WAIT (verdict)\n"));
	assert_non_null(strstr(text, "[other] other counters\n"));
	assert_int_equal(strchr(strstr(text, "[other]") + 1, '[') == NULL, 1);
	assert_null(strstr(text, "[queues]"));
	assert_null(strstr(text, "[connect]"));
	free(text);
	runs_free(runs, 2);
}

/* A current CSV's row of one process whose accepts waited: b1ms at most
 * 1 ms, b500ms at most 500 ms; the other counts 0. */
#define AROW(pid, comm, b1ms, b500ms, us)                                                    \
	T1 ",1.000," pid "," comm "," ZEROS20 ",0,0,0,0,0,0,0,"                               \
	"0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,"                  \
	"0,0,0,0,0,0," b1ms ",0,0,0,0,0,0,0," b500ms ",0,0,0,0,0,0,0," us ","                \
	"0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,\n"

/* The accept queue waits, side by side, where a run has any; none where
 * no run accepted with accept() traced (all 0). */
static void test_accept_queue_waits(void **state)
{
	struct compare_run runs[2];
	char *text;

	(void)state;
	run_from(&runs[0], "slow.csv", HEADER_NOW AROW("10", "haproxy", "10", "2", "1000000"));
	run_from(&runs[1], "fast.csv", HEADER_NOW AROW("20", "haproxy", "12", "0", "9000"));
	text = text_of(runs, 2);
	assert_string_equal(line_of(text, "accepts_over_100ms"),
			    "accepts_over_100ms          2        2.00            0        0.00     0.00x");
	assert_string_equal(line_of(text, "accept_wait_p99_us"),
			    "accept_wait_p99_us     500000                     1000                <0.01x");
	free(text);
	text = csv_of(runs, 2);
	assert_non_null(strstr(text, "\naccepts,B,fast.csv,12,12.000,1.0000,\n"));
	free(text);
	runs_free(runs, 2);
	run_from(&runs[0], "a.csv", HEADER_NOW AROW("10", "haproxy", "0", "0", "0"));
	run_from(&runs[1], "b.csv", HEADER_NOW AROW("20", "haproxy", "0", "0", "0"));
	text = text_of(runs, 2);
	assert_null(strstr(text, "accept"));
	free(text);
	runs_free(runs, 2);
}

/* A current CSV's row of one process whose connections to a lossy backend
 * sent data segments again (its out side); the other counts 0. */
#define RROW(pid, comm, retrans, rto, sent)                                              \
	T1 ",1.000," pid "," comm "," ZEROS20 "," ZEROS_NOW ","                                 \
	"0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,"                    \
	"0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,"                                        \
	"0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,"                                        \
	"0," retrans ",0," rto ",0," sent ",\n"

/* The segments sent again, side by side, when a run sent any; no section
 * when none did. */
static void test_segments_sent_again(void **state)
{
	struct compare_run runs[2];
	char *text;

	(void)state;
	run_from(&runs[0], "lossy.csv", HEADER_NOW RROW("10", "haproxy", "300", "12", "10000"));
	run_from(&runs[1], "fixed.csv", HEADER_NOW RROW("20", "haproxy", "3", "0", "10100"));
	text = text_of(runs, 2);
	assert_non_null(strstr(text, "\n\nsegments sent again"));
	assert_string_equal(line_of(text, "retrans_out"),
			    "retrans_out               300      300.00            3        3.00     0.01x");
	assert_string_equal(line_of(text, "retrans_rto_out"),
			    "retrans_rto_out            12       12.00            0        0.00     0.00x");
	assert_string_equal(line_of(text, "segs_sent_out"),
			    "segs_sent_out           10000    10000.00        10100    10100.00     1.01x");
	free(text);
	text = csv_of(runs, 2);
	assert_non_null(strstr(text, "\nretrans_out,B,fixed.csv,3,3.000,0.0100,\n"));
	free(text);
	runs_free(runs, 2);
	run_from(&runs[0], "a.csv", HEADER_NOW RROW("10", "haproxy", "0", "0", "10000"));
	run_from(&runs[1], "b.csv", HEADER_NOW RROW("20", "haproxy", "0", "0", "900"));
	text = text_of(runs, 2);
	assert_null(strstr(text, "segments sent again"));
	assert_null(strstr(text, "\nretrans_"));
	assert_null(strstr(text, "segs_sent"));
	free(text);
	runs_free(runs, 2);
}

/* CSVs written before the listen queue columns show no section of them. */
static void test_earlier_csvs_show_no_listen_queues(void **state)
{
	struct compare_run runs[2];
	char *text;

	(void)state;
	run_from(&runs[0], "default.csv", DEFAULT_CSV);
	run_from(&runs[1], "keepalive.csv", KEEPALIVE_CSV);
	assert_false(compare_has_queues(runs, 2));
	text = text_of(runs, 2);
	assert_null(strstr(text, "listen"));
	assert_null(strstr(text, "open_in"));
	free(text);
	text = csv_of(runs, 2);
	assert_null(strstr(text, "listen_drops"));
	assert_null(strstr(text, "open_in_peak"));
	free(text);
	runs_free(runs, 2);
}

/* An earlier CSV beside a current one: n/a, never a 0 it did not count. */
static void test_earlier_csv_beside_a_current_one_is_na(void **state)
{
	struct compare_run runs[2];
	char *text;

	(void)state;
	run_from(&runs[0], "default.csv", DEFAULT_CSV);
	run_from(&runs[1], "small.csv", SMALL_QUEUE_CSV);
	assert_true(compare_has_queues(runs, 2));
	text = text_of(runs, 2);
	assert_string_equal(line_of(text, "listen_drops "),
			    "listen_drops              n/a                      281      140.50");
	assert_string_equal(line_of(text, "haproxy "),
			    "haproxy                   n/a      n/a      n/a          281       16"
			    "       16");
	assert_string_equal(line_of(text, "open_out peak "),
			    "open_out peak             n/a                      320");
	free(text);
	text = csv_of(runs, 2);
	assert_string_equal(line_of(text, "listen_drops,A,"), "listen_drops,A,default.csv,,,,");
	assert_string_equal(line_of(text, "listen_drops,B,"),
			    "listen_drops,B,small.csv,281,140.500,,");
	assert_string_equal(line_of(text, "open_in_peak,B,"), "open_in_peak,B,small.csv,20,,,");
	free(text);
	runs_free(runs, 2);
}

static void test_levels_are_not_summed(void **state)
{
	struct compare_run run;

	(void)state;
	run_from(&run, "small.csv", SMALL_QUEUE_CSV);
	assert_int_equal(run.total[TT_CSV_OPEN_IN], 0);
	assert_int_equal(run.total[TT_CSV_OPEN_OUT], 0);
	assert_int_equal(run.total[TT_CSV_ACCEPTQ_PEAK], 0);
	assert_int_equal(run.total[TT_CSV_ACCEPTQ_LIMIT], 0);
	assert_int_equal(run.total[TT_CSV_LISTEN_DROPS], 281);
	assert_int_equal(run.total[TT_CSV_SYN_RETRANS_OUT], 562);
	assert_int_equal(run.total[TT_CSV_SYNACK_RETRANS_IN], 3);
	compare_run_free(&run);
}

static void test_open_peak_is_per_time_across_processes(void **state)
{
	struct compare_run run;

	(void)state;
	/* Per time: T1 in 5+1 = 6, out 0+7 = 7; T2 in 4, out 9; T3 in 2. */
	run_from(&run, "a.csv",
		 HEADER_NOW QROW(T1, "1.000", "1", "a", "5", "0", "0", "0", "0", "0", "0")
			    QROW(T2, "2.000", "1", "a", "4", "9", "0", "0", "0", "0", "0")
			    QROW(T3, "3.000", "1", "a", "2", "0", "0", "0", "0", "0", "0")
			    QROW(T1, "1.000", "2", "b", "1", "7", "0", "0", "0", "0", "0"));
	assert_int_equal(run.open_peak[0], 6);
	assert_int_equal(run.open_peak[1], 9);
	compare_run_free(&run);
}

/* A name's queue is its deepest row's, with that row's limit (the larger
 * one when rows are as deep); a name that neither dropped nor queued has
 * none. */
static void test_queue_per_name(void **state)
{
	struct compare_run run;

	(void)state;
	run_from(&run, "a.csv",
		 HEADER_NOW QROW(T1, "1.000", "1", "nginx", "0", "0", "2", "7", "511", "0", "0")
			    QROW(T1, "1.000", "2", "nginx", "0", "0", "3", "9", "128", "0", "0")
			    QROW(T2, "2.000", "1", "nginx", "0", "0", "0", "9", "511", "0", "0")
			    QROW(T2, "2.000", "3", "ab", "0", "9", "0", "0", "0", "5", "0")
			    QROW(T2, "2.000", "4", "envoy", "0", "0", "0", "0", "100", "0", "0"));
	assert_int_equal(run.n_queues, 2);
	assert_string_equal(run.queues[0].comm, "envoy");
	assert_int_equal(run.queues[0].drops, 0);
	assert_int_equal(run.queues[0].peak, 0);
	assert_int_equal(run.queues[0].limit, 100);
	assert_string_equal(run.queues[1].comm, "nginx");
	assert_int_equal(run.queues[1].drops, 5);
	assert_int_equal(run.queues[1].peak, 9);
	assert_int_equal(run.queues[1].limit, 511);
	compare_run_free(&run);
}

/* Every name of any run has a line; a run where it had no queue shows 0. */
static void test_queue_names_of_every_run(void **state)
{
	struct compare_run runs[2];
	char *text;

	(void)state;
	run_from(&runs[0], "a.csv",
		 HEADER_NOW QROW(T1, "1.000", "1", "nginx", "0", "0", "4", "8", "8", "0", "0"));
	run_from(&runs[1], "b.csv",
		 HEADER_NOW QROW(T1, "1.000", "2", "\"ha\nproxy\"", "0", "0", "1", "2", "4", "0",
				 "0"));
	text = text_of(runs, 2);
	assert_string_equal(line_of(text, "ha?proxy"),
			    "ha?proxy                    0        0        0            1        2"
			    "        4");
	assert_string_equal(line_of(text, "nginx "),
			    "nginx                       4        8        8            0        0"
			    "        0");
	free(text);
	runs_free(runs, 2);
}

static void test_csv_report_of_listen_queues(void **state)
{
	static const char want[] =
		"listen_drops,A,small.csv,281,140.500,1.0000,\n"
		"listen_drops,B,large.csv,0,0.000,0.0000,\n"
		"syn_retrans_out,A,small.csv,562,281.000,1.0000,\n"
		"syn_retrans_out,B,large.csv,0,0.000,0.0000,\n"
		"synack_retrans_in,A,small.csv,3,1.500,1.0000,\n"
		"synack_retrans_in,B,large.csv,0,0.000,0.0000,\n"
		"listen_drops,A,small.csv,281,140.500,1.0000,haproxy\n"
		"listen_drops,B,large.csv,0,0.000,0.0000,haproxy\n"
		"acceptq_peak,A,small.csv,16,,1.0000,haproxy\n"
		"acceptq_peak,B,large.csv,210,,13.1250,haproxy\n"
		"acceptq_limit,A,small.csv,16,,1.0000,haproxy\n"
		"acceptq_limit,B,large.csv,1024,,64.0000,haproxy\n"
		"open_in_peak,A,small.csv,20,,1.0000,\n"
		"open_in_peak,B,large.csv,300,,15.0000,\n"
		"open_out_peak,A,small.csv,320,,1.0000,\n"
		"open_out_peak,B,large.csv,320,,1.0000,\n"
		"connects,A,small.csv,580,290.000,1.0000,\n"
		"connects,B,large.csv,300,150.000,0.5172,\n"
		"connects_over_1s,A,small.csv,200,100.000,1.0000,\n"
		"connects_over_1s,B,large.csv,0,0.000,0.0000,\n"
		"connect_p50_us,A,small.csv,50,,1.0000,\n"
		"connect_p50_us,B,large.csv,50,,1.0000,\n"
		"connect_p99_us,A,small.csv,2000000,,1.0000,\n"
		"connect_p99_us,B,large.csv,50,,0.0000,\n"
		"connect_max_us,A,small.csv,2000000,,1.0000,\n"
		"connect_max_us,B,large.csv,50,,0.0000,\n"
		"connfail_refused,A,small.csv,0,0.000,,\n"
		"connfail_refused,B,large.csv,0,0.000,,\n"
		"connfail_timeout,A,small.csv,0,0.000,,\n"
		"connfail_timeout,B,large.csv,0,0.000,,\n"
		"connfail_unreach,A,small.csv,0,0.000,,\n"
		"connfail_unreach,B,large.csv,0,0.000,,\n"
		"connfail_abandoned,A,small.csv,50,25.000,1.0000,\n"
		"connfail_abandoned,B,large.csv,0,0.000,0.0000,\n"
		"connfail_enetunreach,A,small.csv,0,0.000,,\n"
		"connfail_enetunreach,B,large.csv,0,0.000,,\n"
		"connfail_ehostunreach,A,small.csv,0,0.000,,\n"
		"connfail_ehostunreach,B,large.csv,0,0.000,,\n"
		"connfail_eacces,A,small.csv,0,0.000,,\n"
		"connfail_eacces,B,large.csv,0,0.000,,\n"
		"connfail_einval,A,small.csv,0,0.000,,\n"
		"connfail_einval,B,large.csv,0,0.000,,\n"
		"connfail_eperm,A,small.csv,0,0.000,,\n"
		"connfail_eperm,B,large.csv,0,0.000,,\n"
		"connfail_other,A,small.csv,0,0.000,,\n"
		"connfail_other,B,large.csv,0,0.000,,\n";
	struct compare_run runs[2];
	const char *from, *to;
	char *text;

	(void)state;
	run_from(&runs[0], "small.csv", SMALL_QUEUE_CSV);
	run_from(&runs[1], "large.csv", LARGE_QUEUE_CSV);
	text = csv_of(runs, 2);
	from = strstr(text, "listen_drops,A,");
	to = strstr(text, "conn_in,A,");
	assert_non_null(from);
	assert_non_null(to);
	assert_int_equal(to - from, strlen(want));
	assert_memory_equal(from, want, strlen(want));
	free(text);
	runs_free(runs, 2);
}

static void test_open_sum_past_64_bits_names_the_row(void **state)
{
	static const char text[] =
		HEADER_NOW QROW(T1, "1.000", "1", "a", "0", "18446744073709551615", "0", "0", "0",
				"0", "0")
			   QROW(T1, "1.000", "2", "a", "0", "1", "0", "0", "0", "0", "0");
	struct compare_run run;
	struct tt_csv_file csv;
	struct csv_error err;

	(void)state;
	assert_int_equal(csv_parse_buffer(text, strlen(text), TT_CSV_PER_PROCESS, &csv, &err), 0);
	assert_int_equal(compare_run_init(&run, "a.csv", &csv, &err), -1);
	assert_int_equal(err.line, 3);
	assert_string_equal(err.msg, "sum of open_out at " T1 " exceeds 18446744073709551615");
	compare_run_free(&run);
	csv_file_free(&csv);
}

/* The command line, with files in a private directory. */
struct cli {
	char dir[64];
	char paths[8][128];
	size_t n_paths;
	char *out, *err;
	size_t out_len, err_len;
};

static int cli_setup(void **state)
{
	struct cli *c = calloc(1, sizeof(*c));

	if (!c)
		return -1;
	strcpy(c->dir, "/tmp/test_compare_XXXXXX");
	if (!mkdtemp(c->dir)) {
		free(c);
		return -1;
	}
	*state = c;
	return 0;
}

static int cli_teardown(void **state)
{
	struct cli *c = *state;
	size_t i;

	for (i = 0; i < c->n_paths; i++)
		unlink(c->paths[i]);
	rmdir(c->dir);
	free(c->out);
	free(c->err);
	free(c);
	return 0;
}

/* Writes text to DIR/name and returns the path. */
static const char *put_file(struct cli *c, const char *name, const char *text)
{
	char *path = c->paths[c->n_paths++];
	char buf[sizeof(c->paths[0])];
	FILE *f;

	snprintf(buf, sizeof(buf), "%s/%s", c->dir, name);
	memcpy(path, buf, sizeof(buf));
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(text, 1, strlen(text), f), strlen(text));
	assert_int_equal(fclose(f), 0);
	return path;
}

/* Runs compare_cli with the arguments after "compare" (NULL-terminated);
 * c->out and c->err hold what it wrote. Returns its exit status. */
static int run_cli(struct cli *c, ...)
{
	char *argv[16] = { "compare" };
	int argc = 1, ret;
	FILE *out, *err;
	va_list ap;

	va_start(ap, c);
	while ((argv[argc] = va_arg(ap, char *)))
		argc++;
	va_end(ap);
	free(c->out);
	free(c->err);
	c->out = c->err = NULL;
	out = open_memstream(&c->out, &c->out_len);
	err = open_memstream(&c->err, &c->err_len);
	assert_non_null(out);
	assert_non_null(err);
	ret = compare_cli(argc, argv, out, err);
	assert_int_equal(fclose(out), 0);
	assert_int_equal(fclose(err), 0);
	return ret;
}

/* "tcptrace compare: DIR/rest\n" */
static void expect_err_in_dir(struct cli *c, const char *rest)
{
	char want[512];

	snprintf(want, sizeof(want), "tcptrace compare: %s/%s\n", c->dir, rest);
	assert_string_equal(c->err, want);
	assert_string_equal(c->out, "");
}

static void test_cli_text_report(void **state)
{
	struct cli *c = *state;
	char *a = strdup(put_file(c, "default.csv", DEFAULT_CSV));
	char *b = strdup(put_file(c, "keepalive.csv", KEEPALIVE_CSV));
	char first[256];

	assert_int_equal(run_cli(c, a, b, NULL), 0);
	assert_string_equal(c->err, "");
	snprintf(first, sizeof(first), "A: %s, 2.000 s, 2 processes: 10 nginx, 11 nginx", a);
	assert_string_equal(line_of(c->out, "A: "), first);
	assert_string_equal(line_of(c->out, "tw_out "),
			    "tw_out                    300      150.00            0        0.00"
			    "     0.00x");
	free(a);
	free(b);
}

static void test_cli_csv_option_after_the_files(void **state)
{
	struct cli *c = *state;
	char *a = strdup(put_file(c, "default.csv", DEFAULT_CSV));
	char *b = strdup(put_file(c, "keepalive.csv", KEEPALIVE_CSV));
	char want[256];

	assert_int_equal(run_cli(c, a, b, "--csv", NULL), 0);
	assert_string_equal(c->err, "");
	snprintf(want, sizeof(want),
		 "counter,run,file,total,per_second,ratio_to_first,comm\n"
		 "tw_in,A,%s,300,150.000,1.0000,\n", a);
	assert_memory_equal(c->out, want, strlen(want));
	free(a);
	free(b);
}

static void test_cli_reads_crlf_quoted_comm_and_extra_column(void **state)
{
	struct cli *c = *state;
	char *a = strdup(put_file(
		c, "future.csv",
		"time,elapsed_s,pid,comm,conn_in,conn_out,fin_active_in,fin_active_out,"
		"fin_passive_in,fin_passive_out,rst_sent_in,rst_sent_out,rst_recv_in,"
		"rst_recv_out,tw_in,tw_out,tw_now,eaddrnotavail,timeout_in,timeout_out,"
		"connfail_out,untracked,tw_rst,rst_sent_reasons,syn_drops\r\n"
		T1 ",1.000,7,\"web,1\",0,0,0,0,0,0,0,0,0,0,5,0,5,0,0,0,0,0,0,,3\r\n"));
	char *b = strdup(put_file(c, "b.csv", KEEPALIVE_CSV));
	char want[256];

	assert_int_equal(run_cli(c, a, b, NULL), 0);
	assert_string_equal(c->err, "");
	snprintf(want, sizeof(want), "A: %s, 1.000 s, 1 process: 7 web,1", a);
	assert_string_equal(line_of(c->out, "A: "), want);
	assert_string_equal(line_of(c->out, "tw_in "),
			    "tw_in                       5        5.00          300      150.00"
			    "    60.00x");
	free(a);
	free(b);
}

static void test_cli_help(void **state)
{
	struct cli *c = *state;

	assert_int_equal(run_cli(c, "--help", NULL), 0);
	assert_string_equal(c->out, compare_usage);
	assert_string_equal(c->err, "");
}

static void test_cli_one_file_is_a_usage_error(void **state)
{
	struct cli *c = *state;
	const char *a = put_file(c, "a.csv", DEFAULT_CSV);

	assert_int_equal(run_cli(c, a, NULL), 2);
	assert_string_equal(c->err, "tcptrace compare: expected at least two CSV files, got 1 "
				    "(see tcptrace compare --help)\n");
	assert_string_equal(c->out, "");
}

static void test_cli_no_file_is_a_usage_error(void **state)
{
	struct cli *c = *state;

	assert_int_equal(run_cli(c, "--csv", NULL), 2);
	assert_string_equal(c->err, "tcptrace compare: expected at least two CSV files, got 0 "
				    "(see tcptrace compare --help)\n");
}

static void test_cli_unknown_long_option(void **state)
{
	struct cli *c = *state;

	assert_int_equal(run_cli(c, "a.csv", "b.csv", "--tsv", NULL), 2);
	assert_string_equal(c->err, "tcptrace compare: unknown option '--tsv' "
				    "(see tcptrace compare --help)\n");
}

static void test_cli_unknown_short_option(void **state)
{
	struct cli *c = *state;

	assert_int_equal(run_cli(c, "-x", "a.csv", "b.csv", NULL), 2);
	assert_string_equal(c->err, "tcptrace compare: unknown option '-x' "
				    "(see tcptrace compare --help)\n");
}

static void test_cli_csv_takes_no_argument(void **state)
{
	struct cli *c = *state;

	assert_int_equal(run_cli(c, "--csv=out.csv", "a.csv", "b.csv", NULL), 2);
	assert_string_equal(c->err, "tcptrace compare: option '--csv' takes no argument "
				    "(see tcptrace compare --help)\n");
}

static void test_cli_missing_file(void **state)
{
	struct cli *c = *state;
	const char *a = put_file(c, "a.csv", DEFAULT_CSV);
	char missing[128], want[256];

	snprintf(missing, sizeof(missing), "%s/missing.csv", c->dir);
	assert_int_equal(run_cli(c, a, missing, NULL), 1);
	snprintf(want, sizeof(want),
		 "tcptrace compare: cannot open %s: No such file or directory\n", missing);
	assert_string_equal(c->err, want);
}

static void test_cli_unreadable_file(void **state)
{
	struct cli *c = *state;
	const char *a = put_file(c, "a.csv", DEFAULT_CSV);
	char want[128];

	assert_int_equal(run_cli(c, a, c->dir, NULL), 1);
	snprintf(want, sizeof(want), "tcptrace compare: cannot read %s: Is a directory\n",
		 c->dir);
	assert_string_equal(c->err, want);
	assert_string_equal(c->out, "");
}

static void test_cli_foreign_csv(void **state)
{
	struct cli *c = *state;
	const char *a = put_file(c, "a.csv", DEFAULT_CSV);
	const char *b = put_file(c, "nginx.csv", "remote_addr,status\n10.0.0.1,200\n");

	assert_int_equal(run_cli(c, a, b, NULL), 2);
	expect_err_in_dir(c, "nginx.csv:1: not a tcptrace CSV (header does not start with "
			     "time,elapsed_s,pid,comm)");
}

static void test_cli_empty_file(void **state)
{
	struct cli *c = *state;
	const char *a = put_file(c, "a.csv", DEFAULT_CSV);
	const char *b = put_file(c, "empty.csv", "");

	assert_int_equal(run_cli(c, a, b, NULL), 2);
	expect_err_in_dir(c, "empty.csv: empty file");
}

static void test_cli_short_row(void **state)
{
	struct cli *c = *state;
	char text[4096], *p = text;
	const char *a, *b;
	int i;

	p += sprintf(p, "%s", HEADER);
	for (i = 2; i <= 16; i++)
		p += sprintf(p, T1 ",1.000,%d,nginx," ZEROS ",\n", i);
	sprintf(p, T1 ",1.000,17,nginx," ZEROS "\n");
	a = put_file(c, "a.csv", DEFAULT_CSV);
	b = put_file(c, "x.csv", text);
	assert_int_equal(run_cli(c, a, b, NULL), 2);
	expect_err_in_dir(c, "x.csv:17: expected 24 fields, found 23");
}

static void test_cli_counter_not_a_number(void **state)
{
	struct cli *c = *state;
	char text[4096], *p = text;
	const char *a, *b;
	int i;

	p += sprintf(p, "%s", HEADER);
	for (i = 2; i <= 8; i++)
		p += sprintf(p, T1 ",1.000,%d,nginx," ZEROS ",\n", i);
	sprintf(p, T1 ",1.000,9,nginx,12a,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,\n");
	a = put_file(c, "a.csv", DEFAULT_CSV);
	b = put_file(c, "x.csv", text);
	assert_int_equal(run_cli(c, b, a, NULL), 2);
	expect_err_in_dir(c, "x.csv:9: field conn_in: '12a' is not a number");
}

static void test_cli_total_overflow(void **state)
{
	struct cli *c = *state;
	const char *a = put_file(c, "a.csv", DEFAULT_CSV);
	const char *b = put_file(
		c, "big.csv",
		HEADER T1 ",1.000,1,a,0,0,0,0,0,0,0,0,0,0,18446744073709551615,0,0,0,0,0,0,0,0,\n"
		T2 ",2.000,1,a,0,0,0,0,0,0,0,0,0,0,1,0,0,0,0,0,0,0,0,\n");

	assert_int_equal(run_cli(c, a, b, NULL), 2);
	expect_err_in_dir(c, "big.csv:3: total of tw_in exceeds 18446744073709551615");
}

static void test_cli_first_bad_file_wins(void **state)
{
	struct cli *c = *state;
	const char *a = put_file(c, "a.csv", DEFAULT_CSV);
	const char *bad = put_file(c, "bad.csv", "x\n");
	char missing[128], want[256];

	snprintf(missing, sizeof(missing), "%s/missing.csv", c->dir);
	assert_int_equal(run_cli(c, a, missing, bad, NULL), 1);
	snprintf(want, sizeof(want),
		 "tcptrace compare: cannot open %s: No such file or directory\n", missing);
	assert_string_equal(c->err, want);
}

static void test_cli_unwritable_output(void **state)
{
	struct cli *c = *state;
	const char *a = put_file(c, "a.csv", DEFAULT_CSV);
	char *argv[] = { "compare", NULL, NULL };
	char buf[16], err_text[256] = "";
	FILE *out, *err;

	argv[1] = argv[2] = (char *)a;
	out = fmemopen(buf, sizeof(buf), "w");
	err = fmemopen(err_text, sizeof(err_text), "w");
	assert_non_null(out);
	assert_non_null(err);
	setvbuf(out, NULL, _IONBF, 0);
	assert_int_equal(compare_cli(3, argv, out, err), 1);
	fclose(out);
	fclose(err);
	assert_memory_equal(err_text, "tcptrace compare: cannot write the report: ",
			    strlen("tcptrace compare: cannot write the report: "));
}

/* The sample files in tests/data/compare, read from the repository root
 * (where make runs the unit tests). */
static void test_cli_sample_files(void **state)
{
	struct cli *c = *state;
	char *a = "tests/data/compare/nginx-default.csv";
	char *b = "tests/data/compare/nginx-keepalive.csv";

	if (access(a, R_OK) || access(b, R_OK))
		fail_msg("cannot read %s and %s: run the unit tests from the repository root", a,
			 b);
	assert_int_equal(run_cli(c, a, b, NULL), 0);
	assert_string_equal(c->err, "");
	assert_string_equal(
		c->out,
		"A: tests/data/compare/nginx-default.csv, 3.000 s, 3 processes: 2100 nginx, "
		"2101 nginx, 2102 nginx\n"
		"B: tests/data/compare/nginx-keepalive.csv, 3.000 s, 3 processes: 3100 nginx, "
		"3101 nginx, 3102 nginx\n"
		"\n"
		"TIME_WAIT             A total        A /s      B total        B /s       B/A\n"
		"tw_in                    2994      998.00         2999      999.67     1.00x\n"
		"tw_out                   2993      997.67            0        0.00     0.00x\n"
		"tw_now peak              5987                     2999                 0.50x\n"
		"A held more TIME_WAIT at its peak: 5987 against 2999 in B.\n"
		"\n"
		"other counters        A total        A /s      B total        B /s       B/A\n"
		"conn_in                  3000     1000.00         3000     1000.00     1.00x\n"
		"conn_out                 3000     1000.00            8        2.67    <0.01x\n"
		"fin_active_in            2994      998.00         2999      999.67     1.00x\n"
		"fin_active_out           2993      997.67            0        0.00     0.00x\n"
		"fin_passive_in              0        0.00            0        0.00         -\n"
		"fin_passive_out             0        0.00            0        0.00         -\n"
		"rst_sent_in                 0        0.00            0        0.00         -\n"
		"rst_sent_out                1        0.33            0        0.00     0.00x\n"
		"rst_recv_in                 0        0.00            0        0.00         -\n"
		"rst_recv_out                0        0.00            0        0.00         -\n"
		"eaddrnotavail               0        0.00            0        0.00         -\n"
		"eaddrinuse                n/a                      n/a\n"
		"timeout_in                  0        0.00            0        0.00         -\n"
		"timeout_out                 0        0.00            0        0.00         -\n"
		"connfail_out                0        0.00            0        0.00         -\n"
		"untracked                   0        0.00            0        0.00         -\n"
		"tw_rst                      0        0.00            0        0.00         -\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_two_runs_default_vs_keepalive),
		cmocka_unit_test(test_two_runs_fit_100_columns),
		cmocka_unit_test(test_three_runs_each_against_the_first),
		cmocka_unit_test(test_ratio_when_both_are_zero),
		cmocka_unit_test(test_ratio_when_only_the_first_is_zero),
		cmocka_unit_test(test_ratio_half),
		cmocka_unit_test(test_ratio_when_the_later_is_zero),
		cmocka_unit_test(test_tiny_ratio_is_not_shown_as_zero),
		cmocka_unit_test(test_large_ratio),
		cmocka_unit_test(test_tw_now_peak_is_per_time_across_processes),
		cmocka_unit_test(test_totals_sum_every_row),
		cmocka_unit_test(test_duration_is_the_largest_elapsed),
		cmocka_unit_test(test_processes_are_distinct_pid_and_comm),
		cmocka_unit_test(test_control_bytes_in_comm_keep_one_line),
		cmocka_unit_test(test_long_process_list_wraps_at_100_columns),
		cmocka_unit_test(test_process_lines_never_pass_100_columns),
		cmocka_unit_test(test_long_file_name_moves_processes_to_the_next_line),
		cmocka_unit_test(test_run_without_rows_has_no_rate),
		cmocka_unit_test(test_verdict_when_the_second_held_more),
		cmocka_unit_test(test_verdict_when_equal),
		cmocka_unit_test(test_verdict_names_every_run_tied),
		cmocka_unit_test(test_total_past_64_bits_names_the_row),
		cmocka_unit_test(test_tw_now_sum_past_64_bits_names_the_row),
		cmocka_unit_test(test_csv_report),
		cmocka_unit_test(test_listen_queues_and_open_connections_spelled_out),
		cmocka_unit_test(test_sections_spelled_out),
		cmocka_unit_test(test_sections_of_an_earlier_csv_beside_a_current_one),
		cmocka_unit_test(test_sections_of_earlier_csvs),
		cmocka_unit_test(test_accept_queue_waits),
		cmocka_unit_test(test_segments_sent_again),
		cmocka_unit_test(test_earlier_csvs_show_no_listen_queues),
		cmocka_unit_test(test_earlier_csv_beside_a_current_one_is_na),
		cmocka_unit_test(test_levels_are_not_summed),
		cmocka_unit_test(test_open_peak_is_per_time_across_processes),
		cmocka_unit_test(test_queue_per_name),
		cmocka_unit_test(test_queue_names_of_every_run),
		cmocka_unit_test(test_csv_report_of_listen_queues),
		cmocka_unit_test(test_open_sum_past_64_bits_names_the_row),
		cmocka_unit_test(test_csv_report_quotes_file_and_marks_inf),
		cmocka_unit_test(test_runs_past_z_are_named_like_columns),
		cmocka_unit_test_setup_teardown(test_cli_text_report, cli_setup, cli_teardown),
		cmocka_unit_test_setup_teardown(test_cli_csv_option_after_the_files, cli_setup,
						cli_teardown),
		cmocka_unit_test_setup_teardown(test_cli_reads_crlf_quoted_comm_and_extra_column,
						cli_setup, cli_teardown),
		cmocka_unit_test_setup_teardown(test_cli_help, cli_setup, cli_teardown),
		cmocka_unit_test_setup_teardown(test_cli_one_file_is_a_usage_error, cli_setup,
						cli_teardown),
		cmocka_unit_test_setup_teardown(test_cli_no_file_is_a_usage_error, cli_setup,
						cli_teardown),
		cmocka_unit_test_setup_teardown(test_cli_unknown_long_option, cli_setup,
						cli_teardown),
		cmocka_unit_test_setup_teardown(test_cli_unknown_short_option, cli_setup,
						cli_teardown),
		cmocka_unit_test_setup_teardown(test_cli_csv_takes_no_argument, cli_setup,
						cli_teardown),
		cmocka_unit_test_setup_teardown(test_cli_missing_file, cli_setup, cli_teardown),
		cmocka_unit_test_setup_teardown(test_cli_unreadable_file, cli_setup, cli_teardown),
		cmocka_unit_test_setup_teardown(test_cli_foreign_csv, cli_setup, cli_teardown),
		cmocka_unit_test_setup_teardown(test_cli_empty_file, cli_setup, cli_teardown),
		cmocka_unit_test_setup_teardown(test_cli_short_row, cli_setup, cli_teardown),
		cmocka_unit_test_setup_teardown(test_cli_counter_not_a_number, cli_setup,
						cli_teardown),
		cmocka_unit_test_setup_teardown(test_cli_total_overflow, cli_setup, cli_teardown),
		cmocka_unit_test_setup_teardown(test_cli_first_bad_file_wins, cli_setup,
						cli_teardown),
		cmocka_unit_test_setup_teardown(test_cli_unwritable_output, cli_setup, cli_teardown),
		cmocka_unit_test_setup_teardown(test_cli_sample_files, cli_setup, cli_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
