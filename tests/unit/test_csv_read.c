// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Unit tests of the CSV reader: RFC 4180 records (quotes, CRLF, line breaks
 * inside quotes, the length limit), then whole tcptrace files: columns by
 * header name, unknown columns ignored, and one message per kind of bad
 * input, with its line. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include "output/csv.h"
#include "offline/csv_read.h"
#include "csv_fixtures.h"

#define NOT_OURS "not a tcptrace CSV (header does not start with time,elapsed_s,pid,comm)"
#define BOTH (TT_CSV_PER_PROCESS | TT_CSV_PER_DEST)

/* Reads every record of text; returns how many, or -1 with err filled.
 * fields receives "a|b|c" per record, records joined by "/". */
static int read_all(const char *text, size_t len, char *fields, size_t flen,
		    unsigned long *lines, struct csv_error *err)
{
	struct csv_reader r;
	struct csv_record rec;
	int n = 0, got;
	size_t i;

	fields[0] = '\0';
	csv_reader_init_buffer(&r, text, len);
	while ((got = csv_read_record(&r, &rec, err)) > 0) {
		if (n)
			strncat(fields, "/", flen - strlen(fields) - 1);
		for (i = 0; i < rec.n; i++) {
			if (i)
				strncat(fields, "|", flen - strlen(fields) - 1);
			strncat(fields, rec.field[i], flen - strlen(fields) - 1);
		}
		if (lines)
			lines[n] = rec.line;
		n++;
	}
	csv_reader_free(&r);
	return got < 0 ? -1 : n;
}

static void expect_records(const char *text, const char *expected, int n)
{
	struct csv_error err;
	char fields[512];

	assert_int_equal(read_all(text, strlen(text), fields, sizeof(fields), NULL, &err), n);
	assert_string_equal(fields, expected);
}

static void expect_record_error(const char *text, size_t len, unsigned long line,
				const char *msg)
{
	struct csv_error err;
	char fields[512];

	assert_int_equal(read_all(text, len, fields, sizeof(fields), NULL, &err), -1);
	assert_string_equal(err.msg, msg);
	assert_int_equal(err.line, line);
	assert_int_equal(err.sys_errno, 0);
}

static void test_plain_records(void **state)
{
	(void)state;
	expect_records("a,b,c\nd,e,f\n", "a|b|c/d|e|f", 2);
}

static void test_last_record_needs_no_line_end(void **state)
{
	(void)state;
	expect_records("a,b\nc,d", "a|b/c|d", 2);
}

static void test_empty_fields_and_empty_line(void **state)
{
	(void)state;
	expect_records(",x,\n\ny\n", "|x|//y", 3);
}

static void test_quoted_comma_and_doubled_quote(void **state)
{
	(void)state;
	expect_records("\"a,\"\"b\",\"\",c\n", "a,\"b||c", 1);
}

static void test_crlf_line_ends(void **state)
{
	(void)state;
	expect_records("a,b\r\n\"c\"\r\nd\r\n", "a|b/c/d", 3);
}

static void test_line_break_inside_quotes_counts_lines(void **state)
{
	const char *text = "\"two\nlines\",x\r\ny\n";
	unsigned long lines[2];
	struct csv_error err;
	char fields[64];

	(void)state;
	assert_int_equal(read_all(text, strlen(text), fields, sizeof(fields), lines, &err), 2);
	assert_string_equal(fields, "two\nlines|x/y");
	assert_int_equal(lines[0], 1);
	assert_int_equal(lines[1], 3);
}

static void test_stream_reads_like_buffer(void **state)
{
	static const char text[] = "a,\"b\r\nc\"\r\nd,e";
	struct csv_reader r;
	struct csv_record rec;
	struct csv_error err;
	FILE *f;

	(void)state;
	f = fmemopen((void *)text, strlen(text), "r");
	assert_non_null(f);
	csv_reader_init_stream(&r, f);
	assert_int_equal(csv_read_record(&r, &rec, &err), 1);
	assert_int_equal(rec.n, 2);
	assert_string_equal(rec.field[1], "b\r\nc");
	assert_int_equal(csv_read_record(&r, &rec, &err), 1);
	assert_int_equal(rec.line, 3);
	assert_string_equal(rec.field[0], "d");
	assert_string_equal(rec.field[1], "e");
	assert_int_equal(csv_read_record(&r, &rec, &err), 0);
	csv_reader_free(&r);
	fclose(f);
}

static void test_quote_inside_unquoted_field_is_refused(void **state)
{
	(void)state;
	expect_record_error("a,b\nc,d\"e\n", 10, 2,
			    "unexpected '\"' inside field 2, which is not quoted");
}

static void test_text_after_closing_quote_is_refused(void **state)
{
	(void)state;
	expect_record_error("\"a\"b,c\n", 7, 1,
			    "unexpected 'b' after the closing quote of field 1");
}

static void test_unclosed_quote_is_refused(void **state)
{
	(void)state;
	expect_record_error("a\nb,\"c,d\ne\n", 10, 2,
			    "quote opening field 2 is not closed before the end of the file");
}

static void test_lone_carriage_return_is_refused(void **state)
{
	(void)state;
	expect_record_error("a,b\rc\n", 6, 1, "carriage return not followed by a line feed");
}

static void test_nul_byte_is_refused(void **state)
{
	(void)state;
	expect_record_error("a\nb,c\0d\n", 8, 2, "NUL byte in field 2");
}

/* A record of n bytes ("x" repeated) and its line end. */
static char *long_line(size_t n, const char *end)
{
	char *text = malloc(n + strlen(end) + 1);

	assert_non_null(text);
	memset(text, 'x', n);
	memcpy(text + n, end, strlen(end) + 1);
	return text;
}

static void test_line_at_the_limit_is_read(void **state)
{
	char *text = long_line(CSV_MAX_RECORD, "\r\n");
	struct csv_reader r;
	struct csv_record rec;
	struct csv_error err;

	(void)state;
	csv_reader_init_buffer(&r, text, strlen(text));
	assert_int_equal(csv_read_record(&r, &rec, &err), 1);
	assert_int_equal(strlen(rec.field[0]), CSV_MAX_RECORD);
	csv_reader_free(&r);
	free(text);
}

static void test_line_over_the_limit_is_refused(void **state)
{
	char *text = long_line(CSV_MAX_RECORD + 1, "\n");
	size_t len = strlen(text) + 3;
	char *two = malloc(len);

	(void)state;
	assert_non_null(two);
	snprintf(two, len, "a\n%s", text);
	expect_record_error(two, strlen(two), 2, "line longer than 65536 bytes");
	free(two);
	free(text);
}

static void test_endless_line_stops_at_the_limit(void **state)
{
	char *text = long_line((size_t)10 * CSV_MAX_RECORD, "");

	(void)state;
	expect_record_error(text, strlen(text), 1, "line longer than 65536 bytes");
	free(text);
}

/* Parses text, expecting success. */
static void parse_ok(const char *text, struct tt_csv_file *file)
{
	struct csv_error err;

	if (csv_parse_buffer(text, strlen(text), TT_CSV_PER_PROCESS, file, &err))
		fail_msg("unexpected error at line %lu: %s", err.line, err.msg);
}

static void expect_parse_error(const char *text, size_t len, unsigned long line,
			       const char *msg)
{
	struct tt_csv_file file;
	struct csv_error err;

	assert_int_equal(csv_parse_buffer(text, len, TT_CSV_PER_PROCESS, &file, &err), -1);
	assert_string_equal(err.msg, msg);
	assert_int_equal(err.line, line);
	assert_int_equal(err.sys_errno, 0);
	assert_int_equal(file.n, 0);
	assert_null(file.rows);
}

static void test_row_columns_by_name(void **state)
{
	struct tt_csv_file file;
	const struct tt_csv_row *row;
	size_t k;

	(void)state;
	parse_ok(HEADER_NOW T1 ",2.500,4242,haproxy,"
			   "1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,18446744073709551615,"
			   "20,21,22,23,24,25,26,27,28,29,30,31,32,33,34,35,36,37,38,39,40,41,"
			   "42,43,44,45,46,47,48,49,50,51,52,53,54,55,56,57,58,59,60,61,62,63,"
			   "64,65,66,67,68,69,70,71,72,73,74,75,76,77,78,79,80,81,82,83,84,85,"
			   "86,87,88,89,90,91,92,93,94,95,96,97,98,99,100,101,102,103,104,105,"
			   "106,107,108,109,110,111,112,"
			   "TCP_STATE=7;NOT_SPECIFIED=1\n",
		 &file);
	assert_int_equal(file.n, 1);
	row = &file.rows[0];
	assert_int_equal(row->line, 2);
	assert_string_equal(row->time, T1);
	assert_true(row->elapsed_s == 2.5);
	assert_int_equal(row->pid, 4242);
	assert_string_equal(row->comm, "haproxy");
	for (k = 0; k < TT_CSV_COLS; k++) {
		assert_true(file.has[k]);
		if (k != TT_CSV_UNTRACKED)
			assert_int_equal(row->v[k], k + 1);
	}
	assert_true(row->v[TT_CSV_UNTRACKED] == UINT64_MAX);
	assert_int_equal(row->v[TT_CSV_TW_NOW], 13);
	assert_int_equal(row->v[TT_CSV_EADDRINUSE], 15);
	assert_int_equal(row->v[TT_CSV_TW_RST], 20);
	assert_int_equal(row->v[TT_CSV_OPEN_IN], 21);
	assert_int_equal(row->v[TT_CSV_OPEN_OUT], 22);
	assert_int_equal(row->v[TT_CSV_LISTEN_DROPS], 23);
	assert_int_equal(row->v[TT_CSV_ACCEPTQ_PEAK], 24);
	assert_int_equal(row->v[TT_CSV_ACCEPTQ_LIMIT], 25);
	assert_int_equal(row->v[TT_CSV_SYN_RETRANS_OUT], 26);
	assert_int_equal(row->v[TT_CSV_SYNACK_RETRANS_IN], 27);
	assert_int_equal(row->v[TT_CSV_CONNFAIL_OTHER], 37);
	csv_file_free(&file);
}

/* A CSV of an earlier version has none of the listen queue, SYN and open
 * connection columns: it loads, and they read as 0. */
static void test_earlier_csv_reads_the_columns_it_lacks_as_zero(void **state)
{
	struct tt_csv_file file;
	size_t k;

	(void)state;
	parse_ok(HEADER T1 ",1.000,7,nginx,5,6,1,1,1,1,1,1,1,1,1,1,9,1,1,1,1,1,1,\n", &file);
	assert_int_equal(file.n, 1);
	assert_int_equal(file.rows[0].v[TT_CSV_CONN_IN], 5);
	assert_int_equal(file.rows[0].v[TT_CSV_TW_NOW], 9);
	for (k = 0; k < TT_CSV_COLS; k++) {
		assert_int_equal(file.has[k], !csv_col_optional(k));
		if (csv_col_optional(k))
			assert_int_equal(file.rows[0].v[k], 0);
	}
	csv_file_free(&file);
}

static void test_optional_columns_each_on_its_own(void **state)
{
	struct tt_csv_file file;

	(void)state;
	/* One of them, after the reasons: read by its name like any other. */
	parse_ok("time,elapsed_s,pid,comm,conn_in,conn_out,fin_active_in,fin_active_out,"
		 "fin_passive_in,fin_passive_out,rst_sent_in,rst_sent_out,rst_recv_in,"
		 "rst_recv_out,tw_in,tw_out,tw_now,eaddrnotavail,timeout_in,timeout_out,"
		 "connfail_out,untracked,tw_rst,rst_sent_reasons,listen_drops\n"
		 T1 ",1.000,7,haproxy," ZEROS ",TCP_STATE=1,281\n",
		 &file);
	assert_int_equal(file.rows[0].v[TT_CSV_LISTEN_DROPS], 281);
	assert_true(file.has[TT_CSV_LISTEN_DROPS]);
	assert_false(file.has[TT_CSV_ACCEPTQ_PEAK]);
	assert_int_equal(file.rows[0].v[TT_CSV_ACCEPTQ_PEAK], 0);
	assert_int_equal(file.rows[0].n_reasons, 1);
	csv_file_free(&file);
}

static void test_optional_column_twice_is_refused(void **state)
{
	static const char text[] =
		"time,elapsed_s,pid,comm,conn_in,conn_out,fin_active_in,fin_active_out,"
		"fin_passive_in,fin_passive_out,rst_sent_in,rst_sent_out,rst_recv_in,"
		"rst_recv_out,tw_in,tw_out,tw_now,eaddrnotavail,timeout_in,timeout_out,"
		"connfail_out,untracked,tw_rst,open_in,rst_sent_reasons,open_in\n";

	(void)state;
	expect_parse_error(text, strlen(text), 1, "column open_in appears twice in the header");
}

static void test_optional_column_that_is_not_a_number(void **state)
{
	static const char text[] =
		HEADER_NOW T1 ",1.000,7,nginx," ZEROS20 ",0,0,0,-3,0,0,0," ZEROS_CONNECT ",\n";

	(void)state;
	expect_parse_error(text, strlen(text), 2, "field acceptq_peak: '-3' is not a number");
}

static void test_levels_and_optional_columns(void **state)
{
	size_t k, levels = 0, optional = 0;

	(void)state;
	assert_true(csv_col_is_level(TT_CSV_TW_NOW));
	assert_true(csv_col_is_level(TT_CSV_OPEN_IN));
	assert_true(csv_col_is_level(TT_CSV_OPEN_OUT));
	assert_true(csv_col_is_level(TT_CSV_ACCEPTQ_PEAK));
	assert_true(csv_col_is_level(TT_CSV_ACCEPTQ_LIMIT));
	assert_false(csv_col_is_level(TT_CSV_LISTEN_DROPS));
	assert_false(csv_col_is_level(TT_CSV_SYN_RETRANS_OUT));
	assert_false(csv_col_is_level(TT_CSV_SYNACK_RETRANS_IN));
	for (k = 0; k < TT_CSV_COLS; k++) {
		levels += csv_col_is_level(k);
		optional += csv_col_optional(k);
		assert_non_null(tt_csv_col_names[k]);
	}
	assert_int_equal(levels, 5);
	assert_int_equal(optional, 8 + TT_CONNFAILS + 3 * (TT_CONNECT_BUCKETS + 1) + 3 * TT_SIDES);
	assert_false(csv_col_optional(TT_CSV_TW_RST));
	assert_true(csv_col_optional(TT_CSV_EADDRINUSE));
	assert_true(csv_col_optional(TT_CSV_OPEN_IN));
	assert_true(csv_col_optional(TT_CSV_SYNACK_RETRANS_IN));
	assert_true(csv_col_optional(TT_CSV_SEGS_SENT_OUT));
}

static void test_rows_read_back_from_the_writer(void **state)
{
	struct tt_row row;
	struct tt_csv_file file;
	struct csv_error err;
	char *text = NULL;
	size_t len = 0;
	FILE *m;

	(void)state;
	memset(&row, 0, sizeof(row));
	row.pid = 99;
	memcpy(row.comm, "a,\"b\nc", 7);
	row.c.tw[TT_SIDE_OUT] = 12;
	row.c.connfail = 17;
	row.tw_now = 13;
	row.open[TT_SIDE_IN] = 40;
	row.open[TT_SIDE_OUT] = 41;
	row.listen_drops = 281;
	row.acceptq_peak = 16;
	row.acceptq_limit = 16;
	row.acceptq_peak_run = 99; /* the summary's, not a column */
	row.c.syn_retrans = 42;
	row.c.synack_retrans = 43;
	row.reasons[TT_SIDE_IN][2] = 6;
	m = open_memstream(&text, &len);
	assert_non_null(m);
	/* A scoped run's last column, "scope", a reader of the counts passes over. */
	csv_write_header(m, "cgroup /sys/fs/cgroup/a, netns 4026532000");
	assert_int_equal(csv_write_row(m, T1, 12.3456, &row, NULL,
				       "cgroup /sys/fs/cgroup/a, netns 4026532000"), 0);
	assert_int_equal(csv_write_row(m, T1, 12.3456, &row, NULL,
				       "cgroup /sys/fs/cgroup/a, netns 4026532000"), 0);
	assert_int_equal(fclose(m), 0);

	assert_int_equal(csv_parse_buffer(text, len, TT_CSV_PER_PROCESS, &file, &err), 0);
	assert_int_equal(file.n, 2);
	assert_string_equal(file.rows[0].comm, "a,\"b\nc");
	assert_true(file.rows[0].elapsed_s == 12.346);
	assert_int_equal(file.rows[0].pid, 99);
	assert_int_equal(file.rows[0].v[TT_CSV_TW_OUT], 12);
	assert_int_equal(file.rows[0].v[TT_CSV_CONNFAIL_OUT], 17);
	assert_int_equal(file.rows[0].v[TT_CSV_TW_NOW], 13);
	assert_int_equal(file.rows[0].v[TT_CSV_OPEN_IN], 40);
	assert_int_equal(file.rows[0].v[TT_CSV_OPEN_OUT], 41);
	assert_int_equal(file.rows[0].v[TT_CSV_LISTEN_DROPS], 281);
	assert_int_equal(file.rows[0].v[TT_CSV_ACCEPTQ_PEAK], 16);
	assert_int_equal(file.rows[0].v[TT_CSV_ACCEPTQ_LIMIT], 16);
	assert_int_equal(file.rows[0].v[TT_CSV_SYN_RETRANS_OUT], 42);
	assert_int_equal(file.rows[0].v[TT_CSV_SYNACK_RETRANS_IN], 43);
	for (size_t k = 0; k < TT_CSV_COLS; k++)
		assert_true(file.has[k]);
	assert_int_equal(file.rows[1].line, 4); /* the comm of row 1 spans two lines */
	assert_non_null(strstr(text, ",rst_sent_reasons,scope\n"));
	assert_non_null(strstr(text, ",\"cgroup /sys/fs/cgroup/a, netns 4026532000\"\n"));
	csv_file_free(&file);
	free(text);
}

static void test_quoted_comm_with_comma(void **state)
{
	struct tt_csv_file file;

	(void)state;
	parse_ok(HEADER T1 ",1.000,7,\"web,\"\"1\"\"\"," ZEROS ",\n", &file);
	assert_int_equal(file.n, 1);
	assert_string_equal(file.rows[0].comm, "web,\"1\"");
	csv_file_free(&file);
}

static void test_crlf_file(void **state)
{
	struct tt_csv_file file;

	(void)state;
	parse_ok("time,elapsed_s,pid,comm,conn_in,conn_out,fin_active_in,fin_active_out,"
		 "fin_passive_in,fin_passive_out,rst_sent_in,rst_sent_out,rst_recv_in,"
		 "rst_recv_out,tw_in,tw_out,tw_now,eaddrnotavail,timeout_in,timeout_out,"
		 "connfail_out,untracked,tw_rst,rst_sent_reasons\r\n"
		 T1 ",1.000,7,nginx,5," "0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,\r\n"
		 T1 ",1.000,8,nginx,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,6,\r\n",
		 &file);
	assert_int_equal(file.n, 2);
	assert_string_equal(file.rows[1].comm, "nginx");
	assert_int_equal(file.rows[0].v[TT_CSV_CONN_IN], 5);
	assert_int_equal(file.rows[1].v[TT_CSV_TW_RST], 6);
	csv_file_free(&file);
}

static void test_unknown_extra_columns_are_ignored(void **state)
{
	struct tt_csv_file file;

	(void)state;
	parse_ok("time,elapsed_s,pid,comm,conn_in,conn_out,fin_active_in,fin_active_out,"
		 "fin_passive_in,fin_passive_out,rst_sent_in,rst_sent_out,rst_recv_in,"
		 "rst_recv_out,tw_in,tw_out,tw_now,eaddrnotavail,timeout_in,timeout_out,"
		 "connfail_out,untracked,tw_rst,rst_sent_reasons,syn_drops,note\n"
		 T1 ",1.000,7,nginx,0,0,0,0,0,0,0,0,0,0,0,0,9,0,0,0,0,0,0,,12a,\"x,y\"\n",
		 &file);
	assert_int_equal(file.n, 1);
	assert_int_equal(file.rows[0].v[TT_CSV_TW_NOW], 9);
	csv_file_free(&file);
}

static void test_known_columns_found_in_any_order(void **state)
{
	struct tt_csv_file file;

	(void)state;
	parse_ok("time,elapsed_s,pid,comm,rst_sent_reasons,tw_rst,untracked,connfail_out,"
		 "timeout_out,timeout_in,eaddrnotavail,tw_now,tw_out,tw_in,rst_recv_out,"
		 "rst_recv_in,rst_sent_out,rst_sent_in,fin_passive_out,fin_passive_in,"
		 "fin_active_out,fin_active_in,conn_out,conn_in\n"
		 T1 ",1.000,7,nginx,,19,18,17,16,15,14,13,12,11,10,9,8,7,6,5,4,3,2,1\n",
		 &file);
	assert_int_equal(file.rows[0].v[TT_CSV_CONN_IN], 1);
	assert_int_equal(file.rows[0].v[TT_CSV_TW_NOW], 13);
	assert_int_equal(file.rows[0].v[TT_CSV_TW_RST], 19);
	csv_file_free(&file);
}

static void test_header_only_is_a_run_without_rows(void **state)
{
	struct tt_csv_file file;

	(void)state;
	parse_ok(HEADER, &file);
	assert_int_equal(file.n, 0);
	csv_file_free(&file);
}

static void test_many_rows_grow_the_array(void **state)
{
	struct tt_csv_file file;
	size_t n = 5000, i;
	char *text, *p;

	(void)state;
	text = malloc(strlen(HEADER) + n * 128);
	assert_non_null(text);
	p = text + sprintf(text, "%s", HEADER);
	for (i = 0; i < n; i++)
		p += sprintf(p, T1 ",1.000,%zu,nginx," ZEROS ",\n", i);
	parse_ok(text, &file);
	assert_int_equal(file.n, n);
	assert_int_equal(file.rows[n - 1].pid, n - 1);
	assert_int_equal(file.rows[n - 1].line, n + 1);
	csv_file_free(&file);
	free(text);
}

static void test_empty_file(void **state)
{
	(void)state;
	expect_parse_error("", 0, 0, "empty file");
}

static void test_foreign_header(void **state)
{
	(void)state;
	expect_parse_error("name,value\nx,1\n", 16, 1, NOT_OURS);
}

static void test_per_destination_csv_is_named(void **state)
{
	static const char text[] = "time,elapsed_s,pid,comm,dest,conn_out\n";

	(void)state;
	expect_parse_error(text, sizeof(text) - 1, 1,
			   "a per-destination CSV (--by dest); compare reads the per-process CSV "
			   "that tcptrace writes without --by dest");
}

static void test_header_that_is_not_csv_is_foreign(void **state)
{
	(void)state;
	expect_parse_error("\x89PNG\r\n\x1a\n\0\0", 10, 1, NOT_OURS);
}

static void test_header_missing_a_column(void **state)
{
	static const char text[] =
		"time,elapsed_s,pid,comm,conn_in,conn_out,fin_active_in,fin_active_out,"
		"fin_passive_in,fin_passive_out,rst_sent_in,rst_sent_out,rst_recv_in,"
		"rst_recv_out,tw_in,tw_out,eaddrnotavail,timeout_in,timeout_out,"
		"connfail_out,untracked,tw_rst,rst_sent_reasons\n";

	(void)state;
	expect_parse_error(text, strlen(text), 1, "header has no column tw_now");
}

static void test_header_missing_the_reasons(void **state)
{
	static const char text[] =
		"time,elapsed_s,pid,comm,conn_in,conn_out,fin_active_in,fin_active_out,"
		"fin_passive_in,fin_passive_out,rst_sent_in,rst_sent_out,rst_recv_in,"
		"rst_recv_out,tw_in,tw_out,tw_now,eaddrnotavail,timeout_in,timeout_out,"
		"connfail_out,untracked,tw_rst\n";

	(void)state;
	expect_parse_error(text, strlen(text), 1, "header has no column rst_sent_reasons");
}

static void test_header_with_a_column_twice(void **state)
{
	static const char text[] =
		"time,elapsed_s,pid,comm,conn_in,conn_out,fin_active_in,fin_active_out,"
		"fin_passive_in,fin_passive_out,rst_sent_in,rst_sent_out,rst_recv_in,"
		"rst_recv_out,tw_in,tw_out,tw_now,eaddrnotavail,timeout_in,timeout_out,"
		"connfail_out,untracked,tw_rst,rst_sent_reasons,tw_in\n";

	(void)state;
	expect_parse_error(text, strlen(text), 1, "column tw_in appears twice in the header");
}

static void test_row_with_a_field_missing(void **state)
{
	static const char text[] = HEADER T1 ",1.000,7,nginx," ZEROS ",\n"
					  T1 ",1.000,8,nginx," ZEROS "\n";

	(void)state;
	expect_parse_error(text, strlen(text), 3, "expected 24 fields, found 23");
}

static void test_counter_that_is_not_a_number(void **state)
{
	static const char text[] = HEADER T1 ",1.000,7,nginx," ZEROS ",\n"
					  T1 ",1.000,8,nginx,12a,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,\n";

	(void)state;
	expect_parse_error(text, strlen(text), 3, "field conn_in: '12a' is not a number");
}

static void test_signs_spaces_and_hex_are_not_numbers(void **state)
{
	static const char *const values[] = { "-1", "+1", " 1", "0x1", "" };
	char text[1024], msg[64];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
		snprintf(text, sizeof(text),
			 HEADER T1 ",1.000,7,nginx,0,0,0,0,0,0,0,0,0,0,0,0,%s,0,0,0,0,0,0,\n",
			 values[i]);
		snprintf(msg, sizeof(msg), "field tw_now: '%s' is not a number", values[i]);
		expect_parse_error(text, strlen(text), 2, msg);
	}
}

static void test_counter_past_64_bits(void **state)
{
	static const char text[] =
		HEADER T1 ",1.000,7,nginx,0,0,0,0,0,0,0,0,0,0,18446744073709551616,"
		"0,0,0,0,0,0,0,0,\n";

	(void)state;
	expect_parse_error(text, strlen(text), 2,
			   "field tw_in: '18446744073709551616' is out of range "
			   "(at most 18446744073709551615)");
}

static void test_pid_past_32_bits(void **state)
{
	static const char text[] = HEADER T1 ",1.000,4294967296,nginx," ZEROS ",\n";

	(void)state;
	expect_parse_error(text, strlen(text), 2,
			   "field pid: '4294967296' is out of range (at most 4294967295)");
}

static void test_elapsed_forms(void **state)
{
	static const char *const bad[] = { "1.", ".5", "1e3", "-1.0", "1.0.0", "inf", "" };
	struct tt_csv_file file;
	char text[1024], msg[64];
	size_t i;

	(void)state;
	parse_ok(HEADER T1 ",7,1,a," ZEROS ",\n" T1 ",0.25,1,a," ZEROS ",\n", &file);
	assert_true(file.rows[0].elapsed_s == 7.0);
	assert_true(file.rows[1].elapsed_s == 0.25);
	csv_file_free(&file);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(text, sizeof(text), HEADER T1 ",%s,1,a," ZEROS ",\n", bad[i]);
		snprintf(msg, sizeof(msg), "field elapsed_s: '%s' is not a number", bad[i]);
		expect_parse_error(text, strlen(text), 2, msg);
	}
}

static void test_long_bad_value_is_cut_in_the_message(void **state)
{
	static const char text[] =
		HEADER T1 ",1.000,7,nginx,0123456789abcdefghij0123456789abcdefghij,"
		"0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,\n";

	(void)state;
	expect_parse_error(text, strlen(text), 2,
			   "field conn_in: '0123456789abcdefghij0123456789ab...' is not a number");
}

static void test_bad_quoting_in_a_row_names_its_line(void **state)
{
	static const char text[] = HEADER T1 ",1.000,7,\"nginx" ZEROS ",\n";

	(void)state;
	expect_parse_error(text, strlen(text), 2,
			   "quote opening field 4 is not closed before the end of the file");
}

static void test_blank_line_is_a_row_of_one_field(void **state)
{
	static const char text[] = HEADER T1 ",1.000,7,nginx," ZEROS ",\n\n";

	(void)state;
	expect_parse_error(text, strlen(text), 3, "expected 24 fields, found 1");
}

static void test_stream_read_error_sets_errno(void **state)
{
	struct tt_csv_file file;
	struct csv_error err;
	FILE *f;

	(void)state;
	f = fopen("/", "r"); /* opens, but reading a directory fails */
	assert_non_null(f);
	assert_int_equal(csv_parse_stream(f, TT_CSV_PER_PROCESS, &file, &err), -1);
	assert_int_not_equal(err.sys_errno, 0);
	assert_int_equal(file.n, 0);
	fclose(f);
}

static void test_stream_parses_a_file(void **state)
{
	static const char text[] = HEADER T1 ",1.000,7,nginx," ZEROS ",\n";
	struct tt_csv_file file;
	struct csv_error err;
	FILE *f;

	(void)state;
	f = fmemopen((void *)text, strlen(text), "r");
	assert_non_null(f);
	assert_int_equal(csv_parse_stream(f, TT_CSV_PER_PROCESS, &file, &err), 0);
	assert_int_equal(file.n, 1);
	assert_int_equal(file.rows[0].pid, 7);
	csv_file_free(&file);
	fclose(f);
}

static void parse_both_ok(const char *text, struct tt_csv_file *file)
{
	struct csv_error err;

	if (csv_parse_buffer(text, strlen(text), BOTH, file, &err))
		fail_msg("unexpected error at line %lu: %s", err.line, err.msg);
}

static void expect_both_error(const char *text, unsigned long line, const char *msg)
{
	struct tt_csv_file file;
	struct csv_error err;

	assert_int_equal(csv_parse_buffer(text, strlen(text), BOTH, &file, &err), -1);
	assert_string_equal(err.msg, msg);
	assert_int_equal(err.line, line);
	assert_int_equal(file.n, 0);
}

static void test_reasons_are_read_as_pairs(void **state)
{
	struct tt_csv_file file;
	const struct tt_csv_row *row;

	(void)state;
	parse_ok(HEADER T1 ",1.000,7,haproxy," ZEROS ",TCP_STATE=7;reason_2=18446744073709551615\n"
		 T1 ",1.000,8,nginx," ZEROS ",\n", &file);
	assert_int_equal(file.kind, TT_CSV_PER_PROCESS);
	row = &file.rows[0];
	assert_int_equal(row->n_reasons, 2);
	assert_string_equal(row->reasons[0].name, "TCP_STATE");
	assert_int_equal(row->reasons[0].count, 7);
	assert_string_equal(row->reasons[1].name, "reason_2");
	assert_true(row->reasons[1].count == UINT64_MAX);
	assert_null(row->dest);
	assert_int_equal(file.rows[1].n_reasons, 0);
	csv_file_free(&file);
}

static void test_bad_reasons_name_their_line(void **state)
{
	static const char *const bad[] = { "TCP_STATE", "=3", "A=1;", "A=1;;B=2", "A B=1",
					   "A=x", "A=-1" };
	char text[512];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct tt_csv_file file;
		struct csv_error err;

		snprintf(text, sizeof(text), HEADER T1 ",1.000,7,nginx," ZEROS ",\n" T1
			 ",1.000,8,nginx," ZEROS ",%s\n", bad[i]);
		assert_int_equal(csv_parse_buffer(text, strlen(text), BOTH, &file, &err), -1);
		assert_int_equal(err.line, 3);
		assert_non_null(strstr(err.msg, "field rst_sent_reasons: '"));
	}
}

static void test_per_destination_rows(void **state)
{
	struct tt_csv_file file;
	const struct tt_csv_row *row;

	(void)state;
	parse_both_ok(DEST_HEADER T1 ",0.200,41,nginx,\"[::1]:8080\",1,2,3,4,5,6,7,8,9,10,11,12,"
				     "0.5\n",
		      &file);
	assert_int_equal(file.kind, TT_CSV_PER_DEST);
	assert_int_equal(file.n, 1);
	row = &file.rows[0];
	assert_string_equal(row->dest, "[::1]:8080");
	assert_string_equal(row->comm, "nginx");
	assert_int_equal(row->v[TT_CSV_CONN_OUT], 1);
	assert_int_equal(row->v[TT_CSV_FIN_ACTIVE_OUT], 2);
	assert_int_equal(row->v[TT_CSV_FIN_PASSIVE_OUT], 3);
	assert_int_equal(row->v[TT_CSV_RST_SENT_OUT], 4);
	assert_int_equal(row->v[TT_CSV_RST_RECV_OUT], 5);
	assert_int_equal(row->v[TT_CSV_TIMEOUT_OUT], 6);
	assert_int_equal(row->v[TT_CSV_TW_OUT], 7);
	assert_int_equal(row->v[TT_CSV_TW_NOW], 8);
	assert_int_equal(row->v[TT_CSV_CONNFAIL_OUT], 9);
	assert_int_equal(row->v[TT_CSV_EADDRNOTAVAIL], 10);
	assert_int_equal(row->ports_held, 11);
	assert_int_equal(row->ports_free, 12);
	assert_true(row->runout_s == 0.5);
	assert_int_equal(row->v[TT_CSV_CONN_IN], 0);
	assert_int_equal(row->n_reasons, 0);
	csv_file_free(&file);
}

static void test_per_destination_rows_read_back_from_the_writer(void **state)
{
	struct tt_dest_row row;
	struct tt_csv_file file;
	char *text = NULL;
	size_t len = 0;
	FILE *m;

	(void)state;
	memset(&row, 0, sizeof(row));
	row.pid = 5;
	memcpy(row.comm, "haproxy", 8);
	row.family = AF_INET;
	row.port = 8081;
	memcpy(row.addr, "\x7f\0\0\x01", 4);
	row.c.conn = 3;
	row.c.eaddrnotavail = 2;
	row.ports_held = 90;
	row.ports_free = 10;
	row.runout_s = 12.25;
	m = open_memstream(&text, &len);
	assert_non_null(m);
	csv_write_dest_header(m);
	assert_int_equal(csv_write_dest_row(m, T1, 1.5, &row), 0);
	assert_int_equal(fclose(m), 0);

	parse_both_ok(text, &file);
	assert_int_equal(file.kind, TT_CSV_PER_DEST);
	assert_string_equal(file.rows[0].dest, "127.0.0.1:8081");
	assert_int_equal(file.rows[0].v[TT_CSV_CONN_OUT], 3);
	assert_int_equal(file.rows[0].v[TT_CSV_EADDRNOTAVAIL], 2);
	assert_int_equal(file.rows[0].ports_held, 90);
	assert_int_equal(file.rows[0].ports_free, 10);
	assert_true(file.rows[0].runout_s == 12.2 || file.rows[0].runout_s == 12.3);
	csv_file_free(&file);
	free(text);
}

static void test_per_destination_columns_it_lacks_are_ignored(void **state)
{
	struct tt_csv_file file;

	(void)state;
	/* conn_in is not a per-destination column: a later version's to judge. */
	parse_both_ok("time,elapsed_s,pid,comm,dest,conn_in,conn_out,fin_active_out,"
		      "fin_passive_out,rst_sent_out,rst_recv_out,timeout_out,tw_out,tw_now,"
		      "connfail_out,eaddrnotavail,ports_held,ports_free,runout_s\n" T1
		      ",1.000,7,nginx,127.0.0.1:80,9,1,0,0,0,0,0,0,0,0,0,0,5,0.0\n",
		      &file);
	assert_int_equal(file.rows[0].v[TT_CSV_CONN_IN], 0);
	assert_int_equal(file.rows[0].v[TT_CSV_CONN_OUT], 1);
	csv_file_free(&file);
}

/* The listen queue, SYN and open connection columns are the process's:
 * a per-destination CSV has none, and one it holds is not read. The
 * connect columns it has, as a later version added them: read when there. */
static void test_per_destination_has_none_of_the_optional_columns(void **state)
{
	struct tt_csv_file file;
	size_t k;

	(void)state;
	for (k = TT_CSV_OPEN_IN; k <= TT_CSV_SYNACK_RETRANS_IN; k++)
		assert_false(csv_dest_has(k));
	for (k = TT_CSV_CONNFAIL_REFUSED; k <= TT_CSV_CONNECT_US; k++)
		assert_true(csv_dest_has(k) && csv_col_optional(k));
	parse_both_ok("time,elapsed_s,pid,comm,dest,conn_out,fin_active_out,fin_passive_out,"
		      "rst_sent_out,rst_recv_out,timeout_out,tw_out,tw_now,connfail_out,"
		      "eaddrnotavail,ports_held,ports_free,runout_s,open_out\n" T1
		      ",1.000,7,nginx,127.0.0.1:80,1,0,0,0,0,0,0,0,0,0,0,5,0.0,8\n",
		      &file);
	assert_false(file.has[TT_CSV_OPEN_OUT]);
	assert_false(file.has[TT_CSV_CONN_IN]);
	assert_true(file.has[TT_CSV_CONN_OUT]);
	assert_int_equal(file.rows[0].v[TT_CSV_OPEN_OUT], 0);
	csv_file_free(&file);
}

static void test_per_destination_header_missing_a_column(void **state)
{
	(void)state;
	expect_both_error("time,elapsed_s,pid,comm,dest,conn_out,fin_active_out,fin_passive_out,"
			  "rst_sent_out,rst_recv_out,timeout_out,tw_out,tw_now,connfail_out,"
			  "eaddrnotavail,ports_held,ports_free\n",
			  1, "header has no column runout_s");
	expect_both_error("time,elapsed_s,pid,comm,dest,conn_out,fin_active_out,fin_passive_out,"
			  "rst_sent_out,rst_recv_out,timeout_out,tw_out,connfail_out,"
			  "eaddrnotavail,ports_held,ports_free,runout_s\n",
			  1, "header has no column tw_now");
	expect_both_error("time,elapsed_s,pid,comm,dest,dest\n", 1,
			  "column dest appears twice in the header");
}

static void test_per_destination_bad_values(void **state)
{
	(void)state;
	expect_both_error(DEST_HEADER T1 ",1.000,7,nginx,127.0.0.1:80,0,0,0,0,0,0,0,0,0,0,0,-5,0.0\n",
			  2, "field ports_free: '-5' is not a number");
	expect_both_error(DEST_HEADER T1 ",1.000,7,nginx,127.0.0.1:80,0,0,0,0,0,0,0,0,0,0,0,5,inf\n",
			  2, "field runout_s: 'inf' is not a number");
}

static void test_per_process_only_refuses_per_destination(void **state)
{
	struct tt_csv_file file;
	struct csv_error err;
	static const char text[] = DEST_HEADER;

	(void)state;
	assert_int_equal(csv_parse_buffer(text, strlen(text), TT_CSV_PER_DEST, &file, &err), 0);
	assert_int_equal(csv_parse_buffer(HEADER, strlen(HEADER), TT_CSV_PER_DEST, &file, &err),
			 -1);
	assert_string_equal(err.msg, "a per-process CSV; expected one written with --by dest");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain_records),
		cmocka_unit_test(test_last_record_needs_no_line_end),
		cmocka_unit_test(test_empty_fields_and_empty_line),
		cmocka_unit_test(test_quoted_comma_and_doubled_quote),
		cmocka_unit_test(test_crlf_line_ends),
		cmocka_unit_test(test_line_break_inside_quotes_counts_lines),
		cmocka_unit_test(test_stream_reads_like_buffer),
		cmocka_unit_test(test_quote_inside_unquoted_field_is_refused),
		cmocka_unit_test(test_text_after_closing_quote_is_refused),
		cmocka_unit_test(test_unclosed_quote_is_refused),
		cmocka_unit_test(test_lone_carriage_return_is_refused),
		cmocka_unit_test(test_nul_byte_is_refused),
		cmocka_unit_test(test_line_at_the_limit_is_read),
		cmocka_unit_test(test_line_over_the_limit_is_refused),
		cmocka_unit_test(test_endless_line_stops_at_the_limit),
		cmocka_unit_test(test_row_columns_by_name),
		cmocka_unit_test(test_earlier_csv_reads_the_columns_it_lacks_as_zero),
		cmocka_unit_test(test_optional_columns_each_on_its_own),
		cmocka_unit_test(test_optional_column_twice_is_refused),
		cmocka_unit_test(test_optional_column_that_is_not_a_number),
		cmocka_unit_test(test_levels_and_optional_columns),
		cmocka_unit_test(test_rows_read_back_from_the_writer),
		cmocka_unit_test(test_quoted_comm_with_comma),
		cmocka_unit_test(test_crlf_file),
		cmocka_unit_test(test_unknown_extra_columns_are_ignored),
		cmocka_unit_test(test_known_columns_found_in_any_order),
		cmocka_unit_test(test_header_only_is_a_run_without_rows),
		cmocka_unit_test(test_many_rows_grow_the_array),
		cmocka_unit_test(test_empty_file),
		cmocka_unit_test(test_foreign_header),
		cmocka_unit_test(test_per_destination_csv_is_named),
		cmocka_unit_test(test_reasons_are_read_as_pairs),
		cmocka_unit_test(test_bad_reasons_name_their_line),
		cmocka_unit_test(test_per_destination_rows),
		cmocka_unit_test(test_per_destination_rows_read_back_from_the_writer),
		cmocka_unit_test(test_per_destination_columns_it_lacks_are_ignored),
		cmocka_unit_test(test_per_destination_has_none_of_the_optional_columns),
		cmocka_unit_test(test_per_destination_header_missing_a_column),
		cmocka_unit_test(test_per_destination_bad_values),
		cmocka_unit_test(test_per_process_only_refuses_per_destination),
		cmocka_unit_test(test_header_that_is_not_csv_is_foreign),
		cmocka_unit_test(test_header_missing_a_column),
		cmocka_unit_test(test_header_missing_the_reasons),
		cmocka_unit_test(test_header_with_a_column_twice),
		cmocka_unit_test(test_row_with_a_field_missing),
		cmocka_unit_test(test_counter_that_is_not_a_number),
		cmocka_unit_test(test_signs_spaces_and_hex_are_not_numbers),
		cmocka_unit_test(test_counter_past_64_bits),
		cmocka_unit_test(test_pid_past_32_bits),
		cmocka_unit_test(test_elapsed_forms),
		cmocka_unit_test(test_long_bad_value_is_cut_in_the_message),
		cmocka_unit_test(test_bad_quoting_in_a_row_names_its_line),
		cmocka_unit_test(test_blank_line_is_a_row_of_one_field),
		cmocka_unit_test(test_stream_read_error_sets_errno),
		cmocka_unit_test(test_stream_parses_a_file),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
