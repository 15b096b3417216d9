// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* tcptrace compare's report written: the runs' sections side by side
 * against the first, as aligned text or as CSV. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "offline/compare.h"
#include "offline/compare_write.h"
#include "output/csv.h"

#define LINE_WIDTH 100  /* the text report fits this for two runs */
#define NAME_WIDTH 16   /* "fin_passive_out " */
#define TOTAL_WIDTH 12
#define RATE_WIDTH 11
#define RATIO_WIDTH 9
#define CONT_INDENT "    "

#define QUEUE_WIDTH 8   /* a queue's peak or limit */

/* Text from the file (comm) may hold any byte but line breaks and other
 * control bytes would break the layout. */
static void put_printable(FILE *f, const char *s)
{
	for (; *s; s++)
		fputc((unsigned char)*s < 0x20 || *s == 0x7f ? '?' : *s, f);
}

static void write_run_line(FILE *f, const struct compare_run *run, size_t index)
{
	char label[16], pid[16];
	size_t col, i;
	int len;

	len = fprintf(f, "%s: %s, %.3f s, %zu process%s%s",
		      compare_run_label(label, sizeof(label), index), run->file, run->duration_s,
		      run->n_procs, run->n_procs == 1 ? "" : "es", run->n_procs ? ":" : "");
	col = len > 0 ? (size_t)len : 0;
	for (i = 0; i < run->n_procs; i++) {
		size_t item = (size_t)snprintf(pid, sizeof(pid), "%u", run->procs[i].pid) + 1 +
			      strlen(run->procs[i].comm);
		size_t need = (i ? 2 : 1) + item + (i + 1 < run->n_procs ? 1 : 0);

		/* Wrap before an item that would cross the line width with the
		 * comma after it; a continuation line holds at least one item. */
		if (col + need > LINE_WIDTH && col > strlen(CONT_INDENT)) {
			fputs(i ? ",\n" CONT_INDENT : "\n" CONT_INDENT, f);
			col = strlen(CONT_INDENT);
		} else {
			fputs(i ? ", " : " ", f);
			col += i ? 2 : 1;
		}
		fprintf(f, "%s ", pid);
		put_printable(f, run->procs[i].comm);
		col += item;
	}
	fputc('\n', f);
}

/* The text. */

/* Writes a line built in memory without its trailing spaces (blank cells at
 * the end of a row). */
static int put_trimmed(FILE *f, FILE *line, char **text, size_t *len)
{
	int failed = ferror(line);

	if (fclose(line) || failed) {
		free(*text);
		*text = NULL;
		return -1;
	}
	while (*len && (*text)[*len - 1] == ' ')
		(*len)--;
	fwrite(*text, 1, *len, f);
	fputc('\n', f);
	free(*text);
	*text = NULL;
	return 0;
}

/* A section's header line: its title, then per run the heads of its
 * columns ("A total", "A /s", "B/A"; "A drops", "A peak", "A limit"). */
static int write_table_header(FILE *f, const struct compare_section *s, size_t n)
{
	char label[16], first[16], cell[48];
	char *text = NULL;
	size_t len = 0, i, v;
	FILE *line = open_memstream(&text, &len);

	if (!line)
		return -1;
	compare_run_label(first, sizeof(first), 0);
	fprintf(line, "%-*s", NAME_WIDTH, s->title);
	for (i = 0; i < n; i++) {
		compare_run_label(label, sizeof(label), i);
		if (s->layout == COMPARE_QUEUES) {
			for (v = 0; v < COMPARE_QUEUE_VALUES; v++) {
				snprintf(cell, sizeof(cell), "%s %s", label, compare_queue_heads[v]);
				fprintf(line, " %*s", v ? QUEUE_WIDTH : TOTAL_WIDTH, cell);
			}
			continue;
		}
		snprintf(cell, sizeof(cell), "%s total", label);
		fprintf(line, " %*s", TOTAL_WIDTH, cell);
		snprintf(cell, sizeof(cell), "%s /s", label);
		fprintf(line, " %*s", RATE_WIDTH, cell);
		if (i) {
			snprintf(cell, sizeof(cell), "%s/%s", label, first);
			fprintf(line, " %*s", RATIO_WIDTH, cell);
		}
	}
	return put_trimmed(f, line, &text, &len);
}

/* A process name in a column of the text: control bytes as '?', cut to
 * the column's width. */
static void put_name_cell(FILE *f, const char *comm)
{
	char cell[NAME_WIDTH + 1];
	size_t i;

	for (i = 0; i < NAME_WIDTH && comm[i]; i++) {
		unsigned char c = (unsigned char)comm[i];

		cell[i] = comm[i];
		if (c < 0x20 || c == 0x7f)
			cell[i] = '?';
	}
	cell[i] = '\0';
	fprintf(f, "%-*s", NAME_WIDTH, cell);
}

static const char *value_text(char *buf, size_t len, const struct compare_cell *c)
{
	if (!c->present)
		return "n/a";
	snprintf(buf, len, "%llu", (unsigned long long)c->v);
	return buf;
}

/* One row: per run its total (n/a when not present) and rate, and for a
 * later run its ratio to the first, when both are present; or per run a
 * name's drops, peak and limit. */
static int write_table_row(FILE *f, const struct compare_section *s, const struct compare_row *row,
			   const struct compare_run *runs, size_t n)
{
	char name[64], num[32], rate[48], ratio[48];
	char *text = NULL;
	size_t len = 0, i, v;
	FILE *line = open_memstream(&text, &len);
	int over;

	if (!line)
		return -1;
	if (s->layout == COMPARE_QUEUES) {
		put_name_cell(line, row->name);
		for (i = 0; i < n; i++)
			for (v = 0; v < COMPARE_QUEUE_VALUES; v++)
				fprintf(line, " %*s", v ? QUEUE_WIDTH : TOTAL_WIDTH,
					value_text(num, sizeof(num),
						   &row->cells[i * COMPARE_QUEUE_VALUES + v]));
		return put_trimmed(f, line, &text, &len);
	}
	snprintf(name, sizeof(name), "%s%s", row->name, row->suffix);
	/* A name longer than its column (synack_retrans_in) takes room from
	 * the first total, which is right-aligned: the columns stay in line. */
	over = strlen(name) > NAME_WIDTH ? (int)(strlen(name) - NAME_WIDTH) : 0;
	fprintf(line, "%-*s", NAME_WIDTH, name);
	for (i = 0; i < n; i++) {
		const struct compare_cell *c = &row->cells[i], *c0 = &row->cells[0];
		int width = i ? TOTAL_WIDTH : TOTAL_WIDTH - over;

		fprintf(line, " %*s %*s", width, value_text(num, sizeof(num), c), RATE_WIDTH,
			c->present && row->with_rate
				? compare_rate_text(rate, sizeof(rate), c->v, runs[i].duration_s)
				: "");
		if (i)
			fprintf(line, " %*s", RATIO_WIDTH,
				c->present && c0->present
					? compare_ratio_text(ratio, sizeof(ratio), c0->v, c->v)
					: "");
	}
	return put_trimmed(f, line, &text, &len);
}

/* Labels of the runs whose peak equals v, as "A" or "A, C". */
static void write_labels_at(FILE *f, const struct compare_run *runs, size_t n, uint64_t v)
{
	const char *sep = "";
	char label[16];
	size_t i;

	for (i = 0; i < n; i++) {
		if (runs[i].tw_now_peak != v)
			continue;
		fprintf(f, "%s%s", sep, compare_run_label(label, sizeof(label), i));
		sep = ", ";
	}
}

void compare_write_verdict(FILE *f, const struct compare_run *runs, size_t n)
{
	uint64_t hi = runs[0].tw_now_peak, lo = hi;
	char a[16], b[16];
	size_t i;

	for (i = 1; i < n; i++) {
		if (runs[i].tw_now_peak > hi)
			hi = runs[i].tw_now_peak;
		if (runs[i].tw_now_peak < lo)
			lo = runs[i].tw_now_peak;
	}
	if (hi == lo) {
		fprintf(f, "TIME_WAIT at peak: the same in every run (%llu).\n",
			(unsigned long long)hi);
		return;
	}
	if (n == 2) {
		size_t more = runs[1].tw_now_peak > runs[0].tw_now_peak;

		fprintf(f, "%s held more TIME_WAIT at its peak: %llu against %llu in %s.\n",
			compare_run_label(a, sizeof(a), more),
			(unsigned long long)runs[more].tw_now_peak,
			(unsigned long long)runs[!more].tw_now_peak,
			compare_run_label(b, sizeof(b), !more));
		return;
	}
	fputs("Most TIME_WAIT at peak: ", f);
	write_labels_at(f, runs, n, hi);
	fprintf(f, " (%llu); least: ", (unsigned long long)hi);
	write_labels_at(f, runs, n, lo);
	fprintf(f, " (%llu).\n", (unsigned long long)lo);
}

int compare_write_text(FILE *f, const struct compare_run *runs, size_t n)
{
	struct compare_report rep;
	size_t i, k, r;
	int ret = -1;

	if (!n || compare_report_build(&rep, runs, n))
		return -1;
	for (i = 0; i < n; i++)
		write_run_line(f, &runs[i], i);
	for (k = 0; k < rep.n_sections; k++) {
		const struct compare_section *s = &rep.sections[k];

		if (!s->continued)
			fputc('\n', f);
		if (write_table_header(f, s, n))
			goto out;
		for (r = 0; r < s->n_rows; r++)
			if (write_table_row(f, s, &s->rows[r], runs, n))
				goto out;
		if (s->verdict)
			compare_write_verdict(f, runs, n);
	}
	ret = ferror(f) ? -1 : 0;
out:
	compare_report_free(&rep);
	return ret;
}

/* The CSV. */

/* RFC 4180: quoted only when it must be, quotes doubled. A cell not
 * present has its total, rate and ratio empty, as has the ratio of every
 * run when the first's is not present. comm: the process name of a row
 * per name, NULL for the run's. */
static void write_csv_row(FILE *f, const char *counter, const char *comm, bool with_rate,
			  size_t index, const struct compare_run *run, const struct compare_cell *c,
			  const struct compare_cell *first)
{
	char label[16];

	fprintf(f, "%s,%s,", counter, compare_run_label(label, sizeof(label), index));
	csv_put_field(f, run->file);
	fputc(',', f);
	if (c->present)
		fprintf(f, "%llu", (unsigned long long)c->v);
	fputc(',', f);
	if (c->present && with_rate && run->duration_s > 0)
		fprintf(f, "%.3f", (double)c->v / run->duration_s);
	fputc(',', f);
	if (c->present && first->present && first->v)
		fprintf(f, "%.4f", (double)c->v / (double)first->v);
	else if (c->present && first->present && c->v)
		fputs("inf", f);
	fputc(',', f);
	if (comm)
		csv_put_field(f, comm);
	fputc('\n', f);
}

/* A row per figure and run; a process name's figures are one row per
 * value (listen_drops with its rate, acceptq_peak, acceptq_limit), each
 * with the name in comm. */
int compare_write_csv(FILE *f, const struct compare_run *runs, size_t n)
{
	struct compare_report rep;
	size_t k, r, i, v;

	if (!n || compare_report_build(&rep, runs, n))
		return -1;
	fputs("counter,run,file,total,per_second,ratio_to_first,comm\n", f);
	for (k = 0; k < rep.n_sections; k++) {
		const struct compare_section *s = &rep.sections[k];

		for (r = 0; r < s->n_rows; r++) {
			const struct compare_row *row = &s->rows[r];

			if (s->layout == COMPARE_COUNTS) {
				for (i = 0; i < n; i++)
					write_csv_row(f, row->counter, NULL, row->with_rate, i,
						      &runs[i], &row->cells[i], &row->cells[0]);
				continue;
			}
			for (v = 0; v < COMPARE_QUEUE_VALUES; v++)
				for (i = 0; i < n; i++)
					write_csv_row(f, tt_csv_col_names[compare_queue_cols[v]],
						      row->name, v == 0, i, &runs[i],
						      &row->cells[i * COMPARE_QUEUE_VALUES + v],
						      &row->cells[v]);
		}
	}
	compare_report_free(&rep);
	return ferror(f) ? -1 : 0;
}
