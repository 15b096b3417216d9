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

static const char csv_dest_header[] =
	"time,elapsed_s,pid,comm,dest,conn_out,fin_active_out,fin_passive_out,rst_sent_out,"
	"rst_recv_out,timeout_out,tw_out,tw_now,connfail_out,eaddrnotavail,ports_held,"
	"ports_free,runout_s";

/* After runout_s, as a later version added them: the failed connects by
 * cause and the connect times, the words of struct tt_dest_counters from
 * connfail_by on, and the columns of the same names. */
_Static_assert(offsetof(struct tt_dest_counters, connect_us) + sizeof(__u64) ==
		       offsetof(struct tt_dest_counters, connfail_by) +
			       DEST_CONNECT_WORDS * sizeof(__u64),
	       "connfail_by, connect_le and connect_us follow each other");
_Static_assert(TT_CSV_CONNECT_US - TT_CSV_CONNFAIL_REFUSED + 1 == DEST_CONNECT_WORDS,
	       "the columns of the same words follow each other");

void csv_dest_connect_words(const struct tt_dest_counters *c, __u64 words[DEST_CONNECT_WORDS])
{
	memcpy(words, (const char *)c + offsetof(struct tt_dest_counters, connfail_by),
	       DEST_CONNECT_WORDS * sizeof(__u64));
}

void csv_write_dest_header(FILE *f)
{
	fputs(csv_dest_header, f);
	for (size_t i = 0; i < DEST_CONNECT_WORDS; i++)
		fprintf(f, ",%s", tt_csv_col_names[TT_CSV_CONNFAIL_REFUSED + i]);
	fputc('\n', f);
}

int csv_write_dest_row(FILE *f, const char *iso_time, double elapsed_s,
		       const struct tt_dest_row *row)
{
	__u64 words[DEST_CONNECT_WORDS];
	const struct tt_dest_counters *c = &row->c;
	const uint64_t counts[] = {
		c->conn,        c->fin_active, c->fin_passive, c->rst_sent,
		c->rst_recv,    c->timeout,    c->tw,          row->tw_now,
		c->connfail,    c->eaddrnotavail, row->ports_held, row->ports_free,
	};
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
	for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++)
		fprintf(m, ",%llu", (unsigned long long)counts[i]);
	fprintf(m, ",%.1f", row->runout_s);
	csv_dest_connect_words(c, words);
	for (size_t i = 0; i < DEST_CONNECT_WORDS; i++)
		fprintf(m, ",%llu", (unsigned long long)words[i]);
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
