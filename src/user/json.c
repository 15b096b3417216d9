// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Writes the JSON lines output (RFC 8259, one object and "\n" per row). */
#include <stdlib.h>
#include <string.h>
#include "json.h"
#include "utf8.h"

void json_put_string(FILE *f, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0;

	fputc('"', f);
	while (i < len) {
		unsigned char c = p[i];
		size_t n;

		if (c == '"' || c == '\\') {
			fputc('\\', f);
			fputc(c, f);
			i++;
		} else if (c < 0x20) {
			static const char short_form[] = { ['\b'] = 'b', ['\f'] = 'f', ['\n'] = 'n',
							   ['\r'] = 'r', ['\t'] = 't' };

			if (c < sizeof(short_form) && short_form[c])
				fprintf(f, "\\%c", short_form[c]);
			else
				fprintf(f, "\\u%04x", c);
			i++;
		} else if ((n = utf8_char_len(p + i, len - i)) > 0) {
			fwrite(p + i, 1, n, f);
			i += n;
		} else {
			fputs("\\ufffd", f);
			i++;
		}
	}
	fputc('"', f);
}

int json_write_row(FILE *f, const char *iso_time, double elapsed_s, const struct tt_row *row,
		   const struct tt_reason_names *names)
{
	const struct tt_proc_counters *c = &row->c;
	const struct {
		const char *name;
		uint64_t value;
	} counts[] = {
		{ "conn_in", c->conn[TT_SIDE_IN] },
		{ "conn_out", c->conn[TT_SIDE_OUT] },
		{ "fin_active_in", c->fin_active[TT_SIDE_IN] },
		{ "fin_active_out", c->fin_active[TT_SIDE_OUT] },
		{ "fin_passive_in", c->fin_passive[TT_SIDE_IN] },
		{ "fin_passive_out", c->fin_passive[TT_SIDE_OUT] },
		{ "rst_sent_in", c->rst_sent[TT_SIDE_IN] },
		{ "rst_sent_out", c->rst_sent[TT_SIDE_OUT] },
		{ "rst_recv_in", c->rst_recv[TT_SIDE_IN] },
		{ "rst_recv_out", c->rst_recv[TT_SIDE_OUT] },
		{ "tw_in", c->tw[TT_SIDE_IN] },
		{ "tw_out", c->tw[TT_SIDE_OUT] },
		{ "tw_now", row->tw_now },
		{ "eaddrnotavail", c->eaddrnotavail },
		{ "timeout_in", c->timeout[TT_SIDE_IN] },
		{ "timeout_out", c->timeout[TT_SIDE_OUT] },
		{ "connfail_out", c->connfail },
		{ "untracked", c->untracked },
		{ "tw_rst", c->tw_rst },
	};
	uint64_t reasons[TT_REASON_SLOTS];
	const char *sep = "";
	char *text = NULL;
	size_t len = 0, i;
	FILE *m;
	int ret = 0;

	/* Built in memory and written at once, like a CSV row. */
	m = open_memstream(&text, &len);
	if (!m)
		return -1;
	fputs("{\"time\":", m);
	json_put_string(m, iso_time, strlen(iso_time));
	fprintf(m, ",\"elapsed_s\":%.3f,\"pid\":%u,\"comm\":", elapsed_s, row->pid);
	json_put_string(m, row->comm, strnlen(row->comm, sizeof(row->comm)));
	for (i = 0; i < sizeof(counts) / sizeof(counts[0]); i++)
		fprintf(m, ",\"%s\":%llu", counts[i].name, (unsigned long long)counts[i].value);
	fputs(",\"rst_sent_reasons\":{", m);
	row_reasons_total(row, reasons);
	for (i = 0; i < TT_REASON_SLOTS; i++) {
		const char *name = names ? names->name[i] : NULL;
		char unnamed[32];

		if (!reasons[i])
			continue;
		if (!name) {
			snprintf(unnamed, sizeof(unnamed), "reason_%zu", i);
			name = unnamed;
		}
		fputs(sep, m);
		json_put_string(m, name, strlen(name));
		fprintf(m, ":%llu", (unsigned long long)reasons[i]);
		sep = ",";
	}
	fputs("}}\n", m);
	/* A memory stream can fail to grow on any write; ferror keeps the trace. */
	ret = ferror(m);
	if (fclose(m) || ret) {
		free(text);
		return -1;
	}
	if (fwrite(text, 1, len, f) != len || ferror(f))
		ret = -1;
	free(text);
	return ret;
}
