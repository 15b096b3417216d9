// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Writes the report page: the head with its style, the runs, compare's
 * tables, the destinations, then the data, the chart library and the
 * page's script, each in its own <script> element. */
#include <stdlib.h>
#include <string.h>
#include "output/json.h"
#include "offline/html.h"
#include "report_assets.h"
#include "offline/report_page.h"
#include "offline/compare_write.h"

/* The page fetches nothing: scripts and styles come from the page only. */
#define CSP "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'"
#define MAX_PROCS_SHOWN 12

static const char *file_base(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

static void write_head(FILE *f, const struct compare_run *sums, size_t n)
{
	size_t i;

	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<meta http-equiv=\"Content-Security-Policy\" content=\"" CSP "\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
	      "<meta name=\"generator\" content=\"tcptrace " TCPTRACE_VERSION "\">\n"
	      "<title>tcptrace report: ",
	      f);
	for (i = 0; i < n; i++) {
		fputs(i ? ", " : "", f);
		html_put_text(f, file_base(sums[i].file));
	}
	fputs("</title>\n<style>\n", f);
	fputs(report_css, f);
	fputs("</style>\n</head>\n<body>\n<header>\n<h1>tcptrace report</h1>\n", f);
	if (n == 1)
		fputs("<p class=\"lede\">One run, from a CSV file written by tcptrace --csv.</p>\n", f);
	else
		fprintf(f,
			"<p class=\"lede\">%zu runs, from CSV files written by tcptrace --csv; each "
			"later run is compared with the first (A).</p>\n",
			n);
	fputs("</header>\n<main>\n", f);
}

static void write_processes(FILE *f, const struct compare_run *run)
{
	size_t i;

	for (i = 0; i < run->n_procs && i < MAX_PROCS_SHOWN; i++) {
		fprintf(f, "%s%u ", i ? ", " : "", run->procs[i].pid);
		html_put_text(f, run->procs[i].comm);
	}
	if (run->n_procs > MAX_PROCS_SHOWN)
		fprintf(f, " and %zu more", run->n_procs - MAX_PROCS_SHOWN);
}

static void write_runs(FILE *f, const struct compare_run *sums, const struct timeline *tls,
		       size_t n)
{
	char label[16];
	size_t i;

	fputs("<section id=\"runs\">\n<h2>Runs</h2>\n<table class=\"runs\">\n<thead><tr>"
	      "<th scope=\"col\">run</th><th scope=\"col\">line</th>"
	      "<th scope=\"col\" class=\"text\">file</th><th scope=\"col\" class=\"text\">rows</th>"
	      "<th scope=\"col\">duration</th><th scope=\"col\">intervals</th>"
	      "<th scope=\"col\" class=\"text\">processes</th></tr></thead>\n"
	      "<tbody>\n",
	      f);
	for (i = 0; i < n; i++) {
		const struct compare_run *run = &sums[i];

		fprintf(f, "<tr><th scope=\"row\">%s</th><td class=\"sample\" data-run=\"%zu\"></td>"
			   "<td class=\"text file\">",
			compare_run_label(label, sizeof(label), i), i);
		html_put_text(f, run->file);
		fprintf(f, "</td><td class=\"kind\">%s</td><td>%.3f s</td><td>%zu</td>"
			   "<td class=\"text\">",
			run->kind == TT_CSV_PER_DEST ? "per destination (--by dest)"
						     : "per process",
			run->duration_s, tls[i].n);
		write_processes(f, run);
		fputs("</td></tr>\n", f);
	}
	fputs("</tbody>\n</table>\n</section>\n", f);
}

/* The two header rows of a section's table: each run's label and file
 * over its columns (total, rate and, for a later run, ratio to the first;
 * or a name's drops, peak and limit), as compare heads them. */
static void write_compare_head(FILE *f, const struct compare_section *s,
			       const struct compare_run *sums, size_t n)
{
	bool queues = s->layout == COMPARE_QUEUES;
	char label[16], first[16];
	size_t i, v;

	compare_run_label(first, sizeof(first), 0);
	fprintf(f, "<thead>\n<tr><th scope=\"col\" rowspan=\"2\">%s</th>",
		queues ? "process name" : "counter");
	for (i = 0; i < n; i++) {
		fprintf(f, "<th scope=\"colgroup\" class=\"group\" colspan=\"%d\">%s <span "
			   "class=\"file\">",
			queues ? COMPARE_QUEUE_VALUES : i ? 3 : 2,
			compare_run_label(label, sizeof(label), i));
		html_put_text(f, file_base(sums[i].file));
		fputs("</span></th>", f);
	}
	fputs("</tr>\n<tr>", f);
	for (i = 0; i < n; i++) {
		if (queues) {
			for (v = 0; v < COMPARE_QUEUE_VALUES; v++)
				fprintf(f, "<th scope=\"col\">%s</th>", compare_queue_heads[v]);
			continue;
		}
		fputs("<th scope=\"col\">total</th><th scope=\"col\">/s</th>", f);
		if (i)
			fprintf(f, "<th scope=\"col\">%s/%s</th>",
				compare_run_label(label, sizeof(label), i), first);
	}
	fputs("</tr>\n</thead>\n", f);
}

/* A figure of run i: its value, or n/a, with what a test reads it by: the
 * run, the counter of a CSV column's total or peak, the value. */
static void write_value(FILE *f, const struct compare_row *row, const struct compare_cell *c,
			const struct compare_run *run, size_t i)
{
	if (!c->present) {
		fprintf(f, "<td class=\"na\" data-run=\"%zu\"", i);
		if (row->column)
			fprintf(f, " data-counter=\"%s\" title=\"%s\"", row->counter,
				run->kind == TT_CSV_PER_DEST ? "not in a --by dest CSV"
							     : "not in a CSV of an earlier version");
		fputs(">n/a</td>", f);
		return;
	}
	fprintf(f, "<td data-run=\"%zu\"", i);
	if (row->column)
		fprintf(f, " data-counter=\"%s\"", row->counter);
	fprintf(f, " data-total=\"%llu\">%llu</td>", (unsigned long long)c->v,
		(unsigned long long)c->v);
}

/* A row as compare writes it: per run the value and its rate, and for a
 * later run its ratio to the first (blank where either is n/a); or a
 * name's drops, peak and limit. compare's "<0.01x" is text here, not the
 * start of a tag. */
static void write_compare_row(FILE *f, const struct compare_section *s,
			      const struct compare_row *row, const struct compare_run *sums, size_t n)
{
	char num[48];
	size_t i, v;

	fputs("<tr><th scope=\"row\"><code>", f);
	html_put_text(f, row->name);
	fputs("</code>", f);
	html_put_text(f, row->suffix);
	fputs("</th>", f);
	for (i = 0; i < n; i++) {
		const struct compare_cell *c = &row->cells[i], *c0 = &row->cells[0];

		if (s->layout == COMPARE_QUEUES) {
			for (v = 0; v < COMPARE_QUEUE_VALUES; v++)
				write_value(f, row, &row->cells[i * COMPARE_QUEUE_VALUES + v],
					    &sums[i], i);
			continue;
		}
		write_value(f, row, c, &sums[i], i);
		if (!c->present)
			fputs("<td class=\"na\"></td>", f);
		else if (row->with_rate)
			fprintf(f, "<td>%s</td>",
				compare_rate_text(num, sizeof(num), c->v, sums[i].duration_s));
		else
			fputs("<td></td>", f);
		if (!i)
			continue;
		if (c->present && c0->present) {
			fputs("<td class=\"ratio\">", f);
			html_put_text(f, compare_ratio_text(num, sizeof(num), c0->v, c->v));
			fputs("</td>", f);
		} else {
			fputs("<td class=\"na\"></td>", f);
		}
	}
	fputs("</tr>\n", f);
}

/* compare's verdict on the TIME_WAIT peaks, as a paragraph. */
static int write_verdict(FILE *f, const struct compare_run *sums, size_t n)
{
	char *text = NULL;
	size_t len = 0;
	FILE *m;
	int failed;

	m = open_memstream(&text, &len);
	if (!m)
		return -1;
	compare_write_verdict(m, sums, n);
	failed = ferror(m);
	if (fclose(m) || failed) {
		free(text);
		return -1;
	}
	if (len && text[len - 1] == '\n')
		text[len - 1] = '\0';
	fputs("<p class=\"verdict\">", f);
	html_put_text(f, text);
	fputs("</p>\n", f);
	free(text);
	return 0;
}

/* compare's sections (compare_report_build()), a table each, titled as
 * compare titles them; a section compare continues under the one before
 * shares its box. */
static int write_compare(FILE *f, const struct compare_run *sums, size_t n)
{
	struct compare_report rep;
	size_t k, r;

	if (compare_report_build(&rep, sums, n))
		return -1;
	fputs("<section id=\"compare\">\n<h2>Totals and rates</h2>\n"
	      "<p class=\"note\">As <code>tcptrace compare</code> prints them, section for section: "
	      "each count summed over every row, per second of the run, and against the first "
	      "run; a level's peak over the intervals; the bounds of the buckets of the waits' "
	      "quantiles, in microseconds. n/a: not in the run's CSV, or no wait to take a "
	      "quantile of.</p>\n<div class=\"compare-tables\">\n",
	      f);
	for (k = 0; k < rep.n_sections; k++) {
		const struct compare_section *s = &rep.sections[k];

		if (k && !s->continued)
			fputs("</div>\n", f);
		if (!s->continued)
			fputs("<div class=\"compare-box\">\n", f);
		fprintf(f, "<table class=\"compare\" id=\"compare-%s\" data-section=\"", s->id);
		html_put_text(f, s->title);
		fprintf(f, "\" data-layout=\"%s\">\n<caption>",
			s->layout == COMPARE_QUEUES ? "queues" : "counts");
		html_put_text(f, s->title);
		fputs("</caption>\n", f);
		write_compare_head(f, s, sums, n);
		fputs("<tbody>\n", f);
		for (r = 0; r < s->n_rows; r++)
			write_compare_row(f, s, &s->rows[r], sums, n);
		fputs("</tbody>\n</table>\n", f);
		if (s->verdict && n > 1 && write_verdict(f, sums, n)) {
			compare_report_free(&rep);
			return -1;
		}
	}
	fputs("</div>\n</div>\n</section>\n", f);
	compare_report_free(&rep);
	return 0;
}

/* Per destination of the --by dest runs: its totals, the fewest ports free
 * and the shortest runout. */
static const enum tt_csv_col dest_cols[] = {
	TT_CSV_CONN_OUT, TT_CSV_FIN_ACTIVE_OUT, TT_CSV_RST_SENT_OUT, TT_CSV_TW_OUT,
	TT_CSV_CONNFAIL_OUT, TT_CSV_EADDRNOTAVAIL,
};

static void write_dest_row(FILE *f, size_t run, const char *label, const struct timeline_dest *d)
{
	size_t c;

	fprintf(f, "<tr data-run=\"%zu\" data-dest=\"", run);
	html_put_text(f, d->dest);
	fprintf(f, "\"><th scope=\"row\">%s</th><td class=\"text file\">", label);
	html_put_text(f, d->dest);
	fputs("</td>", f);
	for (c = 0; c < sizeof(dest_cols) / sizeof(dest_cols[0]); c++)
		fprintf(f, "<td data-counter=\"%s\" data-total=\"%llu\">%llu</td>",
			tt_csv_col_names[dest_cols[c]], (unsigned long long)d->total[dest_cols[c]],
			(unsigned long long)d->total[dest_cols[c]]);
	fprintf(f, "<td data-counter=\"fewest_ports_free\" data-total=\"%llu\">%llu</td>",
		(unsigned long long)d->fewest_free, (unsigned long long)d->fewest_free);
	if (d->shortest_runout_s > 0)
		fprintf(f, "<td>%.1f s</td></tr>\n", d->shortest_runout_s);
	else
		fputs("<td class=\"na\">-</td></tr>\n", f);
}

static void write_dests(FILE *f, const struct timeline *tls, size_t n)
{
	char label[16];
	size_t i, d, c;

	for (i = 0; i < n && tls[i].kind != TT_CSV_PER_DEST; i++)
		;
	if (i == n)
		return;
	fputs("<section id=\"destinations\">\n<h2>Destinations</h2>\n"
	      "<p class=\"note\">Runs written with <code>--by dest</code>: each destination's "
	      "counts summed over its rows, the fewest local ports free toward it, and the "
	      "shortest time to run out of them.</p>\n"
	      "<table class=\"dests\">\n<thead><tr><th scope=\"col\">run</th>"
	      "<th scope=\"col\">destination</th>",
	      f);
	for (c = 0; c < sizeof(dest_cols) / sizeof(dest_cols[0]); c++)
		fprintf(f, "<th scope=\"col\"><code>%s</code></th>", tt_csv_col_names[dest_cols[c]]);
	fputs("<th scope=\"col\">fewest <code>ports_free</code></th>"
	      "<th scope=\"col\">shortest <code>runout_s</code></th></tr></thead>\n<tbody>\n",
	      f);
	for (i = 0; i < n; i++) {
		compare_run_label(label, sizeof(label), i);
		for (d = 0; d < tls[i].n_dests; d++)
			write_dest_row(f, i, label, &tls[i].dests[d]);
	}
	fputs("</tbody>\n</table>\n</section>\n", f);
}

static void write_charts_section(FILE *f)
{
	fputs("<section id=\"charts\">\n<h2>Over time</h2>\n"
	      "<p class=\"note\">The runs on one time axis, from the start of tracing. A rate is "
	      "an interval's count over the time since the run's previous interval in its CSV; "
	      "a level (<code>tw_now</code>, <code>open_in</code>, <code>open_out</code>, "
	      "<code>ports_free</code>) is its value at the end of the interval, and "
	      "<code>acceptq_peak</code> the deepest queue in it. Each run has its own line "
	      "style, each kind of line its colour. Choose below which process names are drawn, "
	      "or the sum over every process: a name's line adds up its processes in that run "
	      "(the accept queue: the deepest of them). The charts per destination are of every "
	      "process.</p>\n"
	      "<p class=\"note\" id=\"buckets\"></p>\n"
	      "<div class=\"charts\" id=\"chart-grid\"></div>\n</section>\n",
	      f);
}

/* {"runs":[{"label":"A","file":"...","timeline":{...}},...]} */
static int write_data(FILE *f, const struct compare_run *sums, const struct timeline *tls,
		      size_t n)
{
	char label[16];
	size_t i;

	fputs("<script id=\"tt-data\" type=\"application/json\">{\"runs\":[", f);
	for (i = 0; i < n; i++) {
		fprintf(f, "%s{\"label\":\"%s\",\"file\":", i ? "," : "",
			compare_run_label(label, sizeof(label), i));
		json_put_string_for_html(f, sums[i].file, strlen(sums[i].file));
		fputs(",\"timeline\":", f);
		if (timeline_write_json(f, &tls[i]))
			return -1;
		fputc('}', f);
	}
	fputs("]}</script>\n", f);
	return 0;
}

int report_page_write(FILE *f, const struct compare_run *sums, const struct timeline *tls,
		      size_t n, const char *chart_lib, size_t chart_lib_len)
{
	if (!n)
		return -1;
	write_head(f, sums, n);
	write_runs(f, sums, tls, n);
	if (write_compare(f, sums, n))
		return -1;
	write_dests(f, tls, n);
	write_charts_section(f);
	fputs("</main>\n<footer>Written by tcptrace " TCPTRACE_VERSION ". The charts are drawn "
	      "by Chart.js <span id=\"chartjs-version\"></span>, which this file holds: it "
	      "loads nothing from elsewhere.</footer>\n",
	      f);
	if (write_data(f, sums, tls, n))
		return -1;
	fputs("<script>\n", f);
	html_put_script(f, chart_lib, chart_lib_len);
	fputs("\n</script>\n<script>\n", f);
	html_put_script(f, report_js, sizeof(report_js) - 1);
	fputs("</script>\n</body>\n</html>\n", f);
	return ferror(f) ? -1 : 0;
}
