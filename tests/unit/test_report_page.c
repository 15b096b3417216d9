// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Unit tests of the report page: the escaping of text, scripts and JSON
 * strings; compare's figures as table rows, spelled out, with n/a where a
 * --by dest CSV has no column; the destinations; the data element; the
 * page's shape. Then `tcptrace report` itself: exit codes, one-line
 * messages, and the page written whole or not at all. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "offline/html.h"
#include "output/json.h"
#include "offline/report_cli.h"
#include "offline/report_page.h"
#include "csv_fixtures.h"


/* A default nginx: 300 upstream connections in 2 s, each left in TIME_WAIT. */
#define DEFAULT_CSV                                                                          \
	HEADER                                                                               \
	T1 ",1.000,10,nginx,150,150,150,150,0,0,0,0,0,0,150,150,300,0,0,0,0,0,0,\n"             \
	T2 ",2.000,10,nginx,150,150,150,150,0,0,0,0,0,0,150,150,600,0,0,0,0,0,0,\n"
/* With upstream keepalive: 1 pooled connection, no upstream TIME_WAIT. */
#define KEEPALIVE_CSV                                                                        \
	HEADER                                                                               \
	T1 ",1.000,20,nginx,150,1,150,0,0,0,0,0,0,0,150,0,150,0,0,0,0,0,0,\n"                   \
	T2 ",2.000,20,nginx,150,0,150,0,0,0,0,0,0,0,150,0,300,0,0,0,0,0,0,\n"
#define DEST_CSV                                                                             \
	DEST_HEADER                                                                          \
	T1 ",0.500,7,nginx,127.0.0.1:8080,4,4,0,0,0,0,4,4,0,0,4,8,1.0\n"                        \
	T2 ",1.000,7,nginx,127.0.0.1:8080,8,0,0,0,0,0,0,4,0,2,12,0,0.0\n"

/* Parsed runs, summed and followed over time, for report_page_write(). */
struct runs {
	size_t n;
	struct tt_csv_file csv[4];
	struct compare_run sums[4];
	struct timeline tls[4];
};

static void add_run(struct runs *r, const char *file, const char *text)
{
	struct csv_error err;
	size_t i = r->n++;

	if (csv_parse_buffer(text, strlen(text), TT_CSV_PER_PROCESS | TT_CSV_PER_DEST, &r->csv[i],
			     &err) ||
	    compare_run_init(&r->sums[i], file, &r->csv[i], &err))
		fail_msg("%s:%lu: %s", file, err.line, err.msg);
	assert_int_equal(timeline_build(&r->tls[i], &r->csv[i]), 0);
}

static void runs_free(struct runs *r)
{
	for (size_t i = 0; i < r->n; i++) {
		timeline_free(&r->tls[i]);
		compare_run_free(&r->sums[i]);
		csv_file_free(&r->csv[i]);
	}
}

#define LIB "/* the chart library */ var Chart = {}; // '</script>' and '<!--' inside"

static char *page_of(const struct runs *r)
{
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);

	assert_non_null(m);
	assert_int_equal(report_page_write(m, r->sums, r->tls, r->n, LIB, strlen(LIB)), 0);
	assert_int_equal(fclose(m), 0);
	return text;
}

static size_t count_of(const char *text, const char *needle)
{
	size_t n = 0;

	for (const char *p = text; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

static char *escaped(void (*put)(FILE *, const char *, size_t), const char *s, size_t len)
{
	char *text = NULL;
	size_t n = 0;
	FILE *m = open_memstream(&text, &n);

	assert_non_null(m);
	put(m, s, len);
	assert_int_equal(fclose(m), 0);
	return text;
}

static void put_text(FILE *f, const char *s, size_t len)
{
	(void)len;
	html_put_text(f, s);
}

static void expect_escaped(void (*put)(FILE *, const char *, size_t), const char *s,
			   const char *want)
{
	char *got = escaped(put, s, strlen(s));

	assert_string_equal(got, want);
	free(got);
}

static void test_text_markup_is_escaped(void **state)
{
	(void)state;
	expect_escaped(put_text, "<a href=\"x\" title='y'>&amp;</a>",
		       "&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;amp;&lt;/a&gt;");
}

static void test_text_keeps_utf8_and_replaces_the_rest(void **state)
{
	(void)state;
	expect_escaped(put_text, "caf\xc3\xa9 \xe2\x82\xac\tok\n", "caf\xc3\xa9 \xe2\x82\xac\tok\n");
	expect_escaped(put_text, "a\xff" "b\x01" "c\x7f", "a\xef\xbf\xbd" "b\xef\xbf\xbd" "c\xef\xbf\xbd");
	expect_escaped(put_text, "cut \xe2\x82", "cut \xef\xbf\xbd\xef\xbf\xbd");
}

static void test_script_cannot_be_ended(void **state)
{
	(void)state;
	expect_escaped(html_put_script, "a='</script>';b='</SCRIPT x';c='<!--';d='a<b</s'",
		       "a='<\\/script>';b='<\\/SCRIPT x';c='<\\!--';d='a<b</s'");
	expect_escaped(html_put_script, "ends with </scrip", "ends with </scrip");
	expect_escaped(html_put_script, "", "");
}

static void test_json_string_for_html(void **state)
{
	(void)state;
	expect_escaped(json_put_string_for_html, "</script>&\"\\\n\xe2\x80\xa8\xe2\x80\xa9\xff",
		       "\"\\u003c/script\\u003e\\u0026\\\"\\\\\\n\\u2028\\u2029\\ufffd\"");
	/* The JSON lines writer is unchanged. */
	expect_escaped(json_put_string, "<&>", "\"<&>\"");
}

static void test_timewait_rows_with_ratios(void **state)
{
	struct runs r = { 0 };
	char *page;

	(void)state;
	add_run(&r, "runs/default.csv", DEFAULT_CSV);
	add_run(&r, "runs/keepalive.csv", KEEPALIVE_CSV);
	page = page_of(&r);
	assert_string_equal(line_of(page, "<tr><th scope=\"row\"><code>tw_out</code>"),
			    "<tr><th scope=\"row\"><code>tw_out</code></th>"
			    "<td data-run=\"0\" data-counter=\"tw_out\" data-total=\"300\">300</td>"
			    "<td>150.00</td>"
			    "<td data-run=\"1\" data-counter=\"tw_out\" data-total=\"0\">0</td>"
			    "<td>0.00</td><td class=\"ratio\">0.00x</td></tr>");
	assert_string_equal(line_of(page, "<tr><th scope=\"row\"><code>tw_now</code> peak"),
			    "<tr><th scope=\"row\"><code>tw_now</code> peak</th>"
			    "<td data-run=\"0\" data-counter=\"tw_now_peak\" data-total=\"600\">600</td>"
			    "<td></td>"
			    "<td data-run=\"1\" data-counter=\"tw_now_peak\" data-total=\"300\">300</td>"
			    "<td></td><td class=\"ratio\">0.50x</td></tr>");
	assert_string_equal(line_of(page, "<p class=\"verdict\">"),
			    "<p class=\"verdict\">A held more TIME_WAIT at its peak: 600 against 300 "
			    "in B.</p>");
	free(page);
	runs_free(&r);
}

static void test_ratio_text_is_escaped_as_html(void **state)
{
	struct runs r = { 0 };
	char *page;

	(void)state;
	add_run(&r, "default.csv", DEFAULT_CSV);
	add_run(&r, "keepalive.csv", KEEPALIVE_CSV);
	page = page_of(&r);
	/* compare's "<0.01x" is text in a page: its '<' would open a tag. */
	assert_string_equal(line_of(page, "<tr><th scope=\"row\"><code>conn_out</code>"),
			    "<tr><th scope=\"row\"><code>conn_out</code></th>"
			    "<td data-run=\"0\" data-counter=\"conn_out\" data-total=\"300\">300</td>"
			    "<td>150.00</td>"
			    "<td data-run=\"1\" data-counter=\"conn_out\" data-total=\"1\">1</td>"
			    "<td>0.50</td><td class=\"ratio\">&lt;0.01x</td></tr>");
	free(page);
	runs_free(&r);
}

static void test_columns_a_dest_csv_lacks_are_na(void **state)
{
	struct runs r = { 0 };
	char *page;

	(void)state;
	add_run(&r, "default.csv", DEFAULT_CSV);
	add_run(&r, "dest.csv", DEST_CSV);
	page = page_of(&r);
	assert_string_equal(line_of(page, "<tr><th scope=\"row\"><code>tw_in</code>"),
			    "<tr><th scope=\"row\"><code>tw_in</code></th>"
			    "<td data-run=\"0\" data-counter=\"tw_in\" data-total=\"300\">300</td>"
			    "<td>150.00</td>"
			    "<td class=\"na\" data-run=\"1\" data-counter=\"tw_in\" "
			    "title=\"not in a --by dest CSV\">n/a</td><td class=\"na\"></td>"
			    "<td class=\"na\"></td></tr>");
	assert_string_equal(line_of(page, "<tr><th scope=\"row\"><code>eaddrnotavail</code>"),
			    "<tr><th scope=\"row\"><code>eaddrnotavail</code></th>"
			    "<td data-run=\"0\" data-counter=\"eaddrnotavail\" data-total=\"0\">0</td>"
			    "<td>0.00</td>"
			    "<td data-run=\"1\" data-counter=\"eaddrnotavail\" data-total=\"2\">2</td>"
			    "<td>2.00</td><td class=\"ratio\">inf</td></tr>");
	assert_string_equal(line_of(page, "<tr data-run=\"1\" data-dest="),
			    "<tr data-run=\"1\" data-dest=\"127.0.0.1:8080\"><th scope=\"row\">B</th>"
			    "<td class=\"text file\">127.0.0.1:8080</td>"
			    "<td data-counter=\"conn_out\" data-total=\"12\">12</td>"
			    "<td data-counter=\"fin_active_out\" data-total=\"4\">4</td>"
			    "<td data-counter=\"rst_sent_out\" data-total=\"0\">0</td>"
			    "<td data-counter=\"tw_out\" data-total=\"4\">4</td>"
			    "<td data-counter=\"connfail_out\" data-total=\"0\">0</td>"
			    "<td data-counter=\"eaddrnotavail\" data-total=\"2\">2</td>"
			    "<td data-counter=\"fewest_ports_free\" data-total=\"0\">0</td>"
			    "<td>1.0 s</td></tr>");
	free(page);
	runs_free(&r);
}

static void test_one_run_has_no_verdict_nor_destinations(void **state)
{
	struct runs r = { 0 };
	char *page;

	(void)state;
	add_run(&r, "default.csv", DEFAULT_CSV);
	page = page_of(&r);
	assert_null(strstr(page, "class=\"verdict\""));
	assert_null(strstr(page, "id=\"destinations\""));
	assert_non_null(strstr(page, "<p class=\"lede\">One run,"));
	free(page);
	runs_free(&r);
}

static void test_data_element(void **state)
{
	struct runs r = { 0 };
	char *page;

	(void)state;
	add_run(&r, "runs/keepalive.csv", KEEPALIVE_CSV);
	page = page_of(&r);
	assert_string_equal(
		line_of(page, "<script id=\"tt-data\""),
		"<script id=\"tt-data\" type=\"application/json\">{\"runs\":[{\"label\":\"A\","
		"\"file\":\"runs/keepalive.csv\",\"timeline\":{\"kind\":\"process\","
		"\"elapsed_s\":[1.000,2.000],\"series\":{\"conn_in\":[150,150],\"conn_out\":[1,0],"
		"\"fin_active\":[150,150],\"fin_passive\":[0,0],\"rst_sent\":[0,0],"
		"\"rst_recv\":[0,0],\"timeout\":[0,0],\"eaddrnotavail\":[0,0],"
		"\"tw_now\":[150,300]},\"rst_sent_reasons\":{},\"names\":[{\"name\":\"nginx\","
		"\"series\":{\"conn_in\":[150,150],\"conn_out\":[1,0],\"fin_active\":[150,150],"
		"\"fin_passive\":[0,0],\"rst_sent\":[0,0],\"rst_recv\":[0,0],\"timeout\":[0,0],"
		"\"eaddrnotavail\":[0,0],\"tw_now\":[150,300]},\"rst_sent_reasons\":{}}],"
		"\"dests\":[]}}]}</script>");
	free(page);
	runs_free(&r);
}

/* A run of now, with its open connections, listen queue and SYNs sent
 * again, beside one of an earlier version, which has none of their series
 * (the page's script draws a chart only for a series some run has). */
static void test_data_of_a_run_of_now_beside_an_earlier_one(void **state)
{
	struct runs r = { 0 };
	const char *data, *b;
	char *page;

	(void)state;
	add_run(&r, "now.csv",
		HEADER_NOW T1 ",1.000,20,nginx," ZEROS20 ",3,1,4,17,16,2,1," ZEROS_CONNECT ",\n");
	add_run(&r, "earlier.csv", KEEPALIVE_CSV);
	page = page_of(&r);
	data = line_of(page, "<script id=\"tt-data\"");
	b = strstr(data, "{\"label\":\"B\"");
	assert_non_null(b);
	assert_non_null(strstr(data, "\"tw_now\":[0],\"open_in\":[3],\"open_out\":[1],"
				     "\"listen_drops\":[4],\"acceptq_peak\":[17],\"acceptq_limit\":[16],"
				     "\"syn_retrans_out\":[2],\"synack_retrans_in\":[1],\"retrans_in\":[0],"
				     "\"retrans_out\":[0],\"retrans_rto\":[0],\"connects\":[0],"
				     "\"connects_over_1s\":[0],\"connect_p99_us\":[0],"
				     "\"connfail_enetunreach\":[0],\"connfail_ehostunreach\":[0],"
				     "\"connfail_eacces\":[0],\"connfail_einval\":[0],"
				     "\"connfail_eperm\":[0],\"connfail_other\":[0]}"));
	assert_true(strstr(data, "\"open_in\"") < b);
	assert_null(strstr(b, "\"open_in\""));
	assert_null(strstr(b, "\"eaddrinuse\""));
	assert_null(strstr(b, "\"connfail_eacces\""));
	assert_null(strstr(b, "\"acceptq_peak\""));
	free(page);
	runs_free(&r);
}

/* The tables are compare's sections, in compare's order and titled as
 * compare titles them (compare_report_build()), each figure as compare
 * gives it: n/a where a run's CSV lacks the column, or a quantile has no
 * connect to be taken of, with the rate and ratio left blank as compare
 * leaves them. */
static void test_totals_are_compares_sections(void **state)
{
	static const char *const tables[] = {
		"<table class=\"compare\" id=\"compare-timewait\" data-section=\"TIME_WAIT\" "
		"data-layout=\"counts\">",
		"<table class=\"compare\" id=\"compare-queues\" data-section=\"listen queues\" "
		"data-layout=\"counts\">",
		"<table class=\"compare\" id=\"compare-queues-by-name\" data-section=\"by process "
		"name\" data-layout=\"queues\">",
		"<table class=\"compare\" id=\"compare-open\" data-section=\"open connections\" "
		"data-layout=\"counts\">",
		"<table class=\"compare\" id=\"compare-connect\" data-section=\"connect times\" "
		"data-layout=\"counts\">",
		"<table class=\"compare\" id=\"compare-other\" data-section=\"other counters\" "
		"data-layout=\"counts\">",
	};
	struct runs r = { 0 };
	const char *at;
	char *page;

	(void)state;
	add_run(&r, "now.csv",
		HEADER_NOW T1 ",1.000,20,nginx," ZEROS20 ",3,1,4,17,16,2,1," ZEROS_CONNECT ",\n");
	add_run(&r, "earlier.csv", KEEPALIVE_CSV);
	page = page_of(&r);
	assert_non_null(page);
	at = page;
	for (size_t i = 0; i < sizeof(tables) / sizeof(tables[0]); i++) {
		const char *next = strstr(at, tables[i]);

		if (!next)
			fail_msg("no %s after the tables before it", tables[i]);
		assert_non_null(next);
		at = next + 1;
	}
	assert_int_equal(count_of(page, "<table class=\"compare\""), 6);
	assert_string_equal(line_of(page, "<caption>by process name"),
			    "<caption>by process name</caption>");
	assert_string_equal(line_of(page, "<tr><th scope=\"row\"><code>listen_drops</code>"),
			    "<tr><th scope=\"row\"><code>listen_drops</code></th>"
			    "<td data-run=\"0\" data-counter=\"listen_drops\" data-total=\"4\">4</td>"
			    "<td>4.00</td>"
			    "<td class=\"na\" data-run=\"1\" data-counter=\"listen_drops\" "
			    "title=\"not in a CSV of an earlier version\">n/a</td><td class=\"na\"></td>"
			    "<td class=\"na\"></td></tr>");
	assert_string_equal(line_of(page, "<tr><th scope=\"row\"><code>nginx</code>"),
			    "<tr><th scope=\"row\"><code>nginx</code></th>"
			    "<td data-run=\"0\" data-total=\"4\">4</td>"
			    "<td data-run=\"0\" data-total=\"17\">17</td>"
			    "<td data-run=\"0\" data-total=\"16\">16</td>"
			    "<td class=\"na\" data-run=\"1\">n/a</td><td class=\"na\" data-run=\"1\">n/a</td>"
			    "<td class=\"na\" data-run=\"1\">n/a</td></tr>");
	assert_string_equal(line_of(page, "<tr><th scope=\"row\"><code>open_in</code> peak"),
			    "<tr><th scope=\"row\"><code>open_in</code> peak</th>"
			    "<td data-run=\"0\" data-counter=\"open_in_peak\" data-total=\"3\">3</td>"
			    "<td></td>"
			    "<td class=\"na\" data-run=\"1\" data-counter=\"open_in_peak\" "
			    "title=\"not in a CSV of an earlier version\">n/a</td><td class=\"na\"></td>"
			    "<td class=\"na\"></td></tr>");
	assert_string_equal(line_of(page, "<tr><th scope=\"row\"><code>connects</code>"),
			    "<tr><th scope=\"row\"><code>connects</code></th>"
			    "<td data-run=\"0\" data-total=\"0\">0</td><td>0.00</td>"
			    "<td class=\"na\" data-run=\"1\">n/a</td><td class=\"na\"></td>"
			    "<td class=\"na\"></td></tr>");
	assert_string_equal(line_of(page, "<tr><th scope=\"row\"><code>connect_p50_us</code>"),
			    "<tr><th scope=\"row\"><code>connect_p50_us</code></th>"
			    "<td class=\"na\" data-run=\"0\">n/a</td><td class=\"na\"></td>"
			    "<td class=\"na\" data-run=\"1\">n/a</td><td class=\"na\"></td>"
			    "<td class=\"na\"></td></tr>");
	/* The verdict under the TIME_WAIT table, as compare puts it. */
	assert_true(strstr(page, "<p class=\"verdict\">") > strstr(page, "id=\"compare-timewait\""));
	assert_true(strstr(page, "<p class=\"verdict\">") < strstr(page, "id=\"compare-queues\""));
	free(page);
	runs_free(&r);
}

static void test_hostile_file_names_stay_text(void **state)
{
	static const char file[] = "x/</script><script>alert(1)</script>/\"a'&b\xff.csv";
	struct runs r = { 0 };
	char *page;

	(void)state;
	add_run(&r, file, DEFAULT_CSV);
	page = page_of(&r);
	/* The page's own three scripts, and no other. */
	assert_int_equal(count_of(page, "<script"), 3);
	assert_int_equal(count_of(page, "</script>"), 3);
	assert_string_equal(line_of(page, "<title>"),
			    "<title>tcptrace report: &quot;a&#39;&amp;b\xef\xbf\xbd.csv</title>");
	assert_non_null(strstr(page, "<td class=\"text file\">x/&lt;/script&gt;&lt;script&gt;"
				     "alert(1)&lt;/script&gt;/&quot;a&#39;&amp;b\xef\xbf\xbd.csv</td>"));
	assert_non_null(strstr(page, "\"file\":\"x/\\u003c/script\\u003e\\u003cscript\\u003e"
				     "alert(1)\\u003c/script\\u003e/\\\"a'\\u0026b\\ufffd.csv\""));
	free(page);
	runs_free(&r);
}

static void test_page_shape(void **state)
{
	struct runs r = { 0 };
	char *page;

	(void)state;
	add_run(&r, "default.csv", DEFAULT_CSV);
	page = page_of(&r);
	assert_int_equal(strncmp(page, "<!DOCTYPE html>\n<html lang=\"en\">\n", 33), 0);
	assert_string_equal(line_of(page, "<meta http-equiv"),
			    "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src "
			    "'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'\">");
	/* The library, with what would end its element broken up. */
	assert_non_null(strstr(page, "<script>\n/* the chart library */ var Chart = {}; // "
				     "'<\\/script>' and '<\\!--' inside\n</script>\n"));
	assert_non_null(strstr(page, "<div class=\"charts\" id=\"chart-grid\"></div>"));
	assert_non_null(strstr(page, "window.ttReport"));
	assert_string_equal(page + strlen(page) - 16, "</body>\n</html>\n");
	free(page);
	runs_free(&r);
}

/* The command line, with files in a private directory. */
struct cli {
	char dir[64];
	char lib[96];
	char *out, *err;
	size_t out_len, err_len;
};

static int cli_setup(void **state)
{
	struct cli *c = calloc(1, sizeof(*c));
	FILE *f;

	if (!c)
		return -1;
	strcpy(c->dir, "/tmp/test_report_XXXXXX");
	if (!mkdtemp(c->dir)) {
		free(c);
		return -1;
	}
	snprintf(c->lib, sizeof(c->lib), "%s/chart.min.js", c->dir);
	f = fopen(c->lib, "w");
	if (!f || fputs(LIB, f) == EOF || fclose(f))
		return -1;
	*state = c;
	return 0;
}

/* The tests leave files and empty folders only. */
static int cli_teardown(void **state)
{
	struct cli *c = *state;
	struct dirent **names;
	char path[sizeof(c->dir) + 258];
	int n = scandir(c->dir, &names, NULL, alphasort);

	assert_true(n >= 0);
	for (int i = 0; i < n; i++) {
		if (strcmp(names[i]->d_name, ".") != 0 && strcmp(names[i]->d_name, "..") != 0) {
			snprintf(path, sizeof(path), "%s/%s", c->dir, names[i]->d_name);
			assert_int_equal(remove(path), 0);
		}
		free(names[i]);
	}
	free(names);
	assert_int_equal(rmdir(c->dir), 0);
	free(c->out);
	free(c->err);
	free(c);
	return 0;
}

static char *path_in(struct cli *c, const char *name)
{
	static char paths[4][160];
	static int next;
	char *p = paths[next++ % 4];

	snprintf(p, sizeof(paths[0]), "%s/%s", c->dir, name);
	return p;
}

static char *put_file(struct cli *c, const char *name, const char *text)
{
	char *path = path_in(c, name);
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_int_equal(fputs(text, f) == EOF, 0);
	assert_int_equal(fclose(f), 0);
	return path;
}

/* Runs report_cli with the arguments after "report" (NULL-terminated) and
 * the library lib; c->out and c->err hold what it wrote. */
static int run_cli(struct cli *c, const char *lib, ...)
{
	char *argv[16] = { "report" };
	int argc = 1, ret;
	FILE *out, *err;
	va_list ap;

	va_start(ap, lib);
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
	ret = report_cli(argc, argv, lib, out, err);
	assert_int_equal(fclose(out), 0);
	assert_int_equal(fclose(err), 0);
	return ret;
}

/* The names in the directory, sorted, joined by ' '. */
static const char *files_in(struct cli *c)
{
	static char list[512];
	struct dirent **names;
	int n = scandir(c->dir, &names, NULL, alphasort);
	size_t len = 0;

	assert_true(n >= 0);
	list[0] = '\0';
	for (int i = 0; i < n; i++) {
		const char *name = names[i]->d_name;

		if (strcmp(name, ".") != 0 && strcmp(name, "..") != 0)
			len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s",
						len ? " " : "", name);
		assert_true(len < sizeof(list));
		free(names[i]);
	}
	free(names);
	return list;
}

static void expect_err(struct cli *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void expect_err(struct cli *c, const char *fmt, ...)
{
	char want[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(want, sizeof(want), fmt, ap);
	va_end(ap);
	assert_string_equal(c->err, want);
	assert_string_equal(c->out, "");
}

static void test_cli_writes_the_page(void **state)
{
	struct cli *c = *state;
	char *a = strdup(put_file(c, "a.csv", DEFAULT_CSV));
	char *page = strdup(path_in(c, "page.html"));
	struct stat st;
	mode_t mask = umask(022);

	assert_int_equal(run_cli(c, c->lib, a, "-o", page, NULL), 0);
	umask(mask);
	assert_string_equal(c->err, "");
	assert_string_equal(c->out, "");
	assert_string_equal(files_in(c), "a.csv chart.min.js page.html");
	assert_int_equal(stat(page, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0644);
	free(a);
	free(page);
}

static void test_cli_options_in_any_order(void **state)
{
	struct cli *c = *state;
	char *a = strdup(put_file(c, "a.csv", DEFAULT_CSV));
	char *b = strdup(put_file(c, "-b.csv", KEEPALIVE_CSV));
	char *page = strdup(path_in(c, "page.html"));
	char opt[200];

	snprintf(opt, sizeof(opt), "--output=%s", page);
	assert_int_equal(run_cli(c, c->lib, opt, a, "--", b, NULL), 0);
	assert_string_equal(c->err, "");
	assert_string_equal(files_in(c), "-b.csv a.csv chart.min.js page.html");
	free(a);
	free(b);
	free(page);
}

static void test_cli_missing_library(void **state)
{
	struct cli *c = *state;
	char *a = strdup(put_file(c, "a.csv", DEFAULT_CSV));
	char *page = strdup(path_in(c, "page.html"));
	char *lib = strdup(path_in(c, "none.js"));

	assert_int_equal(run_cli(c, lib, a, "-o", page, NULL), 1);
	expect_err(c, "tcptrace report: cannot read the chart library %s: No such file or "
		      "directory (it comes with the package libjs-chart.js)\n", lib);
	assert_string_equal(files_in(c), "a.csv chart.min.js");
	free(a);
	free(page);
	free(lib);
}

static void test_cli_empty_library(void **state)
{
	struct cli *c = *state;
	char *a = strdup(put_file(c, "a.csv", DEFAULT_CSV));
	char *lib = strdup(put_file(c, "empty.js", ""));
	char *page = strdup(path_in(c, "page.html"));

	assert_int_equal(run_cli(c, lib, a, "-o", page, NULL), 1);
	expect_err(c, "tcptrace report: cannot read the chart library %s: the file is empty "
		      "(it comes with the package libjs-chart.js)\n", lib);
	free(a);
	free(lib);
	free(page);
}

static void test_cli_bad_csv_as_compare_says_it(void **state)
{
	struct cli *c = *state;
	char *a = strdup(put_file(c, "a.csv", DEFAULT_CSV));
	char *b = strdup(put_file(c, "b.csv", HEADER T1 ",1.000,7,nginx,1,2\n"));
	char *page = strdup(put_file(c, "page.html", "the page before\n"));

	assert_int_equal(run_cli(c, c->lib, a, b, "-o", page, NULL), 2);
	expect_err(c, "tcptrace report: %s:2: expected 24 fields, found 6\n", b);
	/* The page there before is kept as it was, and no other file is left. */
	assert_string_equal(files_in(c), "a.csv b.csv chart.min.js page.html");
	free(c->out);
	c->out = NULL;
	{
		FILE *f = fopen(page, "r");
		char line[64] = "";

		assert_non_null(f);
		assert_non_null(fgets(line, sizeof(line), f));
		fclose(f);
		assert_string_equal(line, "the page before\n");
	}
	free(a);
	free(b);
	free(page);
}

static void test_cli_foreign_csv(void **state)
{
	struct cli *c = *state;
	char *a = strdup(put_file(c, "a.csv", "name,value\n"));

	assert_int_equal(run_cli(c, c->lib, a, "-o", path_in(c, "p.html"), NULL), 2);
	expect_err(c, "tcptrace report: %s:1: not a tcptrace CSV (header does not start with "
		      "time,elapsed_s,pid,comm)\n", a);
	free(a);
}

static void test_cli_missing_csv(void **state)
{
	struct cli *c = *state;
	char *a = strdup(path_in(c, "none.csv"));

	assert_int_equal(run_cli(c, c->lib, a, "-o", path_in(c, "p.html"), NULL), 1);
	expect_err(c, "tcptrace report: cannot open %s: No such file or directory\n", a);
	free(a);
}

static void test_cli_usage_errors(void **state)
{
	struct cli *c = *state;
	char *a = strdup(put_file(c, "a.csv", DEFAULT_CSV));

	assert_int_equal(run_cli(c, c->lib, a, NULL), 2);
	expect_err(c, "tcptrace report: missing -o FILE.html, where to write the page (see "
		      "tcptrace report --help)\n");
	assert_int_equal(run_cli(c, c->lib, "-o", "x.html", NULL), 2);
	expect_err(c, "tcptrace report: expected at least one CSV file (see tcptrace report "
		      "--help)\n");
	assert_int_equal(run_cli(c, c->lib, a, "-o", NULL), 2);
	expect_err(c, "tcptrace report: option '-o' needs FILE.html, where to write the page "
		      "(see tcptrace report --help)\n");
	assert_int_equal(run_cli(c, c->lib, a, "-o", "-", NULL), 2);
	expect_err(c, "tcptrace report: -o - : the page is written to a file, whole or not at "
		      "all (see tcptrace report --help)\n");
	assert_int_equal(run_cli(c, c->lib, a, "-o", "", NULL), 2);
	expect_err(c, "tcptrace report: -o names no file (see tcptrace report --help)\n");
	assert_int_equal(run_cli(c, c->lib, a, "--frobnicate", NULL), 2);
	expect_err(c, "tcptrace report: unknown option '--frobnicate' (see tcptrace report "
		      "--help)\n");
	assert_int_equal(run_cli(c, c->lib, a, "-x", NULL), 2);
	expect_err(c, "tcptrace report: unknown option '-x' (see tcptrace report --help)\n");
	assert_int_equal(run_cli(c, c->lib, "--help=yes", NULL), 2);
	expect_err(c, "tcptrace report: option '--help' takes no argument (see tcptrace report "
		      "--help)\n");
	assert_string_equal(files_in(c), "a.csv chart.min.js");
	free(a);
}

static void test_cli_unwritable_output(void **state)
{
	struct cli *c = *state;
	char *a = strdup(put_file(c, "a.csv", DEFAULT_CSV));
	char *page = strdup(path_in(c, "no/such/page.html"));
	char *dir = strdup(path_in(c, "dir.html"));

	assert_int_equal(run_cli(c, c->lib, a, "-o", page, NULL), 2);
	expect_err(c, "tcptrace report: cannot write %s: No such file or directory\n", page);
	assert_int_equal(mkdir(dir, 0755), 0);
	assert_int_equal(run_cli(c, c->lib, a, "-o", dir, NULL), 2);
	expect_err(c, "tcptrace report: cannot write %s: Is a directory\n", dir);
	assert_string_equal(files_in(c), "a.csv chart.min.js dir.html");
	free(a);
	free(page);
	free(dir);
}

static void test_cli_help(void **state)
{
	struct cli *c = *state;

	assert_int_equal(run_cli(c, c->lib, "--help", NULL), 0);
	assert_string_equal(c->out, report_usage);
	assert_string_equal(c->err, "");
	assert_non_null(strstr(report_usage, TT_CHART_LIB));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_text_markup_is_escaped),
		cmocka_unit_test(test_text_keeps_utf8_and_replaces_the_rest),
		cmocka_unit_test(test_script_cannot_be_ended),
		cmocka_unit_test(test_json_string_for_html),
		cmocka_unit_test(test_timewait_rows_with_ratios),
		cmocka_unit_test(test_ratio_text_is_escaped_as_html),
		cmocka_unit_test(test_columns_a_dest_csv_lacks_are_na),
		cmocka_unit_test(test_one_run_has_no_verdict_nor_destinations),
		cmocka_unit_test(test_data_element),
		cmocka_unit_test(test_data_of_a_run_of_now_beside_an_earlier_one),
		cmocka_unit_test(test_totals_are_compares_sections),
		cmocka_unit_test(test_hostile_file_names_stay_text),
		cmocka_unit_test(test_page_shape),
		cmocka_unit_test_setup_teardown(test_cli_writes_the_page, cli_setup, cli_teardown),
		cmocka_unit_test_setup_teardown(test_cli_options_in_any_order, cli_setup,
						cli_teardown),
		cmocka_unit_test_setup_teardown(test_cli_missing_library, cli_setup, cli_teardown),
		cmocka_unit_test_setup_teardown(test_cli_empty_library, cli_setup, cli_teardown),
		cmocka_unit_test_setup_teardown(test_cli_bad_csv_as_compare_says_it, cli_setup,
						cli_teardown),
		cmocka_unit_test_setup_teardown(test_cli_foreign_csv, cli_setup, cli_teardown),
		cmocka_unit_test_setup_teardown(test_cli_missing_csv, cli_setup, cli_teardown),
		cmocka_unit_test_setup_teardown(test_cli_usage_errors, cli_setup, cli_teardown),
		cmocka_unit_test_setup_teardown(test_cli_unwritable_output, cli_setup, cli_teardown),
		cmocka_unit_test_setup_teardown(test_cli_help, cli_setup, cli_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
