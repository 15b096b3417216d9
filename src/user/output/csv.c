// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Writes the CSV output (RFC 4180, "\n" line ends): the header, and one
 * complete row per process per interval. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "common/columns.h"
#include "output/csv.h"
#include "output/table.h"

void csv_write_header(FILE *f, const char *scope)
{
	fputs("time,elapsed_s,pid,comm", f);
	for (size_t col = 0; col < TT_CSV_COLS; col++)
		fprintf(f, ",%s", tt_csv_col_names[col]);
	fputs(scope ? ",rst_sent_reasons,scope\n" : ",rst_sent_reasons\n", f);
}

void csv_put_field(FILE *f, const char *s)
{
	if (!s[strcspn(s, ",\"\r\n")]) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

/* A memory stream can fail to grow on any write; ferror keeps the trace. */
static int memstream_close(FILE *m)
{
	int failed = ferror(m);

	return fclose(m) || failed ? -1 : 0;
}

/* "name=count;name=count" over the nonzero slots; "" when there are none.
 * Returns NULL when out of memory, else a string to free(). */
static char *reasons_field(const struct tt_row *row, const struct tt_reason_names *names)
{
	uint64_t reasons[TT_REASON_SLOTS];
	const char *sep = "";
	char *text = NULL;
	size_t len = 0;
	FILE *m;
	size_t slot;

	m = open_memstream(&text, &len);
	if (!m)
		return NULL;
	row_reasons_total(row, reasons);
	for (slot = 0; slot < TT_REASON_SLOTS; slot++) {
		char unnamed[TT_REASON_LABEL_LEN];

		if (!reasons[slot])
			continue;
		fprintf(m, "%s%s=%llu", sep, reason_label(names, slot, unnamed),
			(unsigned long long)reasons[slot]);
		sep = ";";
	}
	if (memstream_close(m)) {
		free(text);
		return NULL;
	}
	return text;
}

int csv_write_row(FILE *f, const char *iso_time, double elapsed_s, const struct tt_row *row,
		  const struct tt_reason_names *names, const char *scope)
{
	char comm[TT_COMM_LEN + 1];
	char *reasons, *text = NULL;
	size_t len = 0, i;
	FILE *m;
	int ret = 0;

	reasons = reasons_field(row, names);
	if (!reasons)
		return -1;
	/* The whole row is built in memory, then written at once, so a failed
	 * allocation never leaves half a row in the file. */
	m = open_memstream(&text, &len);
	if (!m) {
		free(reasons);
		return -1;
	}
	memcpy(comm, row->comm, TT_COMM_LEN);
	comm[TT_COMM_LEN] = '\0';

	csv_put_field(m, iso_time);
	fprintf(m, ",%.3f,%u,", elapsed_s, row->pid);
	csv_put_field(m, comm);
	for (i = 0; i < TT_CSV_COLS; i++)
		fprintf(m, ",%llu", (unsigned long long)tt_column_value(row, (enum tt_csv_col)i));
	fputc(',', m);
	csv_put_field(m, reasons);
	if (scope) {
		fputc(',', m);
		csv_put_field(m, scope);
	}
	fputc('\n', m);
	free(reasons);
	if (memstream_close(m)) {
		free(text);
		return -1;
	}

	if (fwrite(text, 1, len, f) != len || ferror(f))
		ret = -1;
	free(text);
	return ret;
}

void csv_write_dest_header(FILE *f)
{
	fputs("time,elapsed_s,pid,comm,dest", f);
	for (size_t i = 0; i < TT_DEST_COLS; i++)
		fprintf(f, ",%s", tt_dest_col_names[i]);
	fputc('\n', f);
}

int csv_write_dest_row(FILE *f, const char *iso_time, double elapsed_s,
		       const struct tt_dest_row *row)
{
	char comm[TT_COMM_LEN + 1], dest[TT_DEST_LEN];
	char *text = NULL;
	size_t len = 0;
	FILE *m;
	int ret = 0;

	m = open_memstream(&text, &len);
	if (!m)
		return -1;
	memcpy(comm, row->comm, TT_COMM_LEN);
	comm[TT_COMM_LEN] = '\0';
	format_dest(dest, sizeof(dest), row);
	csv_put_field(m, iso_time);
	fprintf(m, ",%.3f,%u,", elapsed_s, row->pid);
	csv_put_field(m, comm);
	fputc(',', m);
	csv_put_field(m, dest);
	for (size_t i = 0; i < TT_DEST_COLS; i++) {
		double seconds;
		uint64_t v = tt_dest_column_value(row, i, &seconds);

		if (tt_dest_col_is_seconds(i))
			fprintf(m, ",%.1f", seconds);
		else
			fprintf(m, ",%llu", (unsigned long long)v);
	}
	fputc('\n', m);
	if (memstream_close(m)) {
		free(text);
		return -1;
	}
	if (fwrite(text, 1, len, f) != len || ferror(f))
		ret = -1;
	free(text);
	return ret;
}
