// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Writes the JSON lines output (RFC 8259, one object and "\n" per row). */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "common/columns.h"
#include "output/csv.h"
#include "output/json.h"
#include "output/table.h"
#include "common/utf8.h"

/* In an HTML <script> element, "</script>" or "<!--" in a string would end
 * or change the element: '<', '>' and '&' are written as escapes there, and
 * U+2028 and U+2029, which end a line in older JavaScript. */
static void put_string(FILE *f, const char *s, size_t len, bool for_html)
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
		} else if (for_html && (c == '<' || c == '>' || c == '&')) {
			fprintf(f, "\\u%04x", c);
			i++;
		} else if ((n = utf8_char_len(p + i, len - i)) > 0) {
			if (for_html && n == 3 && !memcmp(p + i, "\xe2\x80", 2) &&
			    (p[i + 2] == 0xa8 || p[i + 2] == 0xa9))
				fprintf(f, "\\u%04x", 0x2000 + (p[i + 2] & 0x3f));
			else
				fwrite(p + i, 1, n, f);
			i += n;
		} else {
			fputs("\\ufffd", f);
			i++;
		}
	}
	fputc('"', f);
}

void json_put_string(FILE *f, const char *s, size_t len)
{
	put_string(f, s, len, false);
}

void json_put_string_for_html(FILE *f, const char *s, size_t len)
{
	put_string(f, s, len, true);
}

/* The line's start: time, elapsed_s, pid and comm, into a memory stream;
 * the row is built in memory and written at once, like a CSV row. */
static FILE *line_start(char **text, size_t *len, const char *iso_time, double elapsed_s,
			uint32_t pid, const char *comm)
{
	FILE *m = open_memstream(text, len);

	if (!m)
		return NULL;
	fputs("{\"time\":", m);
	json_put_string(m, iso_time, strlen(iso_time));
	fprintf(m, ",\"elapsed_s\":%.3f,\"pid\":%u,\"comm\":", elapsed_s, pid);
	json_put_string(m, comm, strnlen(comm, TT_COMM_LEN));
	return m;
}

/* Close the memory stream (which sets *text and *len) and write its line
 * to f at once. */
static int line_end(FILE *f, FILE *m, char **text, const size_t *len)
{
	/* A memory stream can fail to grow on any write; ferror keeps the trace. */
	int failed = ferror(m), ret = 0;

	if (fclose(m) || failed) {
		free(*text);
		return -1;
	}
	if (fwrite(*text, 1, *len, f) != *len || ferror(f))
		ret = -1;
	free(*text);
	return ret;
}

int json_write_row(FILE *f, const char *iso_time, double elapsed_s, const struct tt_row *row,
		   const struct tt_reason_names *names, const char *scope)
{
	uint64_t reasons[TT_REASON_SLOTS];
	const char *sep = "";
	char *text = NULL;
	size_t len = 0, i;
	FILE *m = line_start(&text, &len, iso_time, elapsed_s, row->pid, row->comm);

	if (!m)
		return -1;
	for (i = 0; i < TT_CSV_COLS; i++)
		fprintf(m, ",\"%s\":%llu", tt_csv_col_names[i],
			(unsigned long long)tt_column_value(row, (enum tt_csv_col)i));
	fputs(",\"rst_sent_reasons\":{", m);
	row_reasons_total(row, reasons);
	for (i = 0; i < TT_REASON_SLOTS; i++) {
		char unnamed[TT_REASON_LABEL_LEN];
		const char *name;

		if (!reasons[i])
			continue;
		name = reason_label(names, i, unnamed);
		fputs(sep, m);
		json_put_string(m, name, strlen(name));
		fprintf(m, ":%llu", (unsigned long long)reasons[i]);
		sep = ",";
	}
	fputc('}', m);
	if (scope) {
		fputs(",\"scope\":", m);
		json_put_string(m, scope, strlen(scope));
	}
	fputs("}\n", m);
	return line_end(f, m, &text, &len);
}

int json_write_dest_row(FILE *f, const char *iso_time, double elapsed_s,
			const struct tt_dest_row *row)
{
	char *text = NULL, dest[TT_DEST_LEN];
	size_t len = 0;
	FILE *m = line_start(&text, &len, iso_time, elapsed_s, row->pid, row->comm);

	if (!m)
		return -1;
	format_dest(dest, sizeof(dest), row);
	fputs(",\"dest\":", m);
	json_put_string(m, dest, strlen(dest));
	for (size_t i = 0; i < TT_DEST_COLS; i++) {
		double seconds;
		uint64_t v = tt_dest_column_value(row, i, &seconds);

		if (tt_dest_col_is_seconds(i))
			fprintf(m, ",\"%s\":%.1f", tt_dest_col_names[i], seconds);
		else
			fprintf(m, ",\"%s\":%llu", tt_dest_col_names[i], (unsigned long long)v);
	}
	fputs("}\n", m);
	return line_end(f, m, &text, &len);
}
