// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Writes the CSV output (RFC 4180, "\n" line ends): the header, and one
 * complete row per process per interval. */
#include <stdlib.h>
#include <string.h>
#include "output/csv.h"
#include "output/table.h"

static const char csv_header[] =
	"time,elapsed_s,pid,comm,conn_in,conn_out,fin_active_in,fin_active_out,"
	"fin_passive_in,fin_passive_out,rst_sent_in,rst_sent_out,rst_recv_in,rst_recv_out,"
	"tw_in,tw_out,tw_now,eaddrnotavail,timeout_in,timeout_out,connfail_out,untracked,"
	"tw_rst,open_in,open_out,listen_drops,acceptq_peak,acceptq_limit,syn_retrans_out,"
	"synack_retrans_in,rst_sent_reasons\n";

void csv_write_header(FILE *f)
{
	fputs(csv_header, f);
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
		const char *name = names ? names->name[slot] : NULL;

		if (!reasons[slot])
			continue;
		if (name)
			fprintf(m, "%s%s=%llu", sep, name, (unsigned long long)reasons[slot]);
		else
			fprintf(m, "%sreason_%zu=%llu", sep, slot, (unsigned long long)reasons[slot]);
		sep = ";";
	}
	if (memstream_close(m)) {
		free(text);
		return NULL;
	}
	return text;
}

int csv_write_row(FILE *f, const char *iso_time, double elapsed_s, const struct tt_row *row,
		  const struct tt_reason_names *names)
{
	const struct tt_proc_counters *c = &row->c;
	const uint64_t counts[] = {
		c->conn[TT_SIDE_IN],        c->conn[TT_SIDE_OUT],
		c->fin_active[TT_SIDE_IN],  c->fin_active[TT_SIDE_OUT],
		c->fin_passive[TT_SIDE_IN], c->fin_passive[TT_SIDE_OUT],
		c->rst_sent[TT_SIDE_IN],    c->rst_sent[TT_SIDE_OUT],
		c->rst_recv[TT_SIDE_IN],    c->rst_recv[TT_SIDE_OUT],
		c->tw[TT_SIDE_IN],          c->tw[TT_SIDE_OUT],
		row->tw_now,                c->eaddrnotavail,
		c->timeout[TT_SIDE_IN],     c->timeout[TT_SIDE_OUT],
		c->connfail,                c->untracked,
		c->tw_rst,                  row->open[TT_SIDE_IN],
		row->open[TT_SIDE_OUT],     row->listen_drops,
		row->acceptq_peak,          row->acceptq_limit,
		c->syn_retrans,             c->synack_retrans,
	};
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
	for (i = 0; i < sizeof(counts) / sizeof(counts[0]); i++)
		fprintf(m, ",%llu", (unsigned long long)counts[i]);
	fputc(',', m);
	csv_put_field(m, reasons);
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
	"ports_free,runout_s\n";

void csv_write_dest_header(FILE *f)
{
	fputs(csv_dest_header, f);
}

int csv_write_dest_row(FILE *f, const char *iso_time, double elapsed_s,
		       const struct tt_dest_row *row)
{
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
	fprintf(m, ",%.1f\n", row->runout_s);
	if (memstream_close(m)) {
		free(text);
		return -1;
	}
	if (fwrite(text, 1, len, f) != len || ferror(f))
		ret = -1;
	free(text);
	return ret;
}
