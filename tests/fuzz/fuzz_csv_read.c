// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* libFuzzer harness for the CSV reader of `tcptrace compare` and `tcptrace
 * report`: the input is a CSV file, per process or per destination. It is parsed from the buffer and again from a stream over the
 * same bytes, and the two must agree (csv_read.h: "the same over a
 * stream"). Besides the sanitizers, it checks csv_read.h's promises: on
 * failure err holds a message and out is empty; on success every row has
 * its time and comm, and a column the file lacks reads as 0 in every row. */
#define _GNU_SOURCE
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "offline/csv_read.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define KINDS (TT_CSV_PER_PROCESS | TT_CSV_PER_DEST)

static void check_result(int ret, const struct tt_csv_file *out, const struct csv_error *err)
{
	if (ret != 0 && ret != -1)
		abort();
	if (ret == -1) {
		size_t len = strnlen(err->msg, sizeof(err->msg));

		if (out->n != 0 || len == 0 || len == sizeof(err->msg))
			abort();
		return;
	}
	for (size_t i = 0; i < out->n; i++) {
		const struct tt_csv_row *row = &out->rows[i];

		if (!row->time || !row->comm || !isfinite(row->elapsed_s) || row->elapsed_s < 0)
			abort();
		if ((out->kind == TT_CSV_PER_DEST) != (row->dest != NULL) ||
		    !isfinite(row->runout_s) || row->runout_s < 0)
			abort();
		for (size_t k = 0; k < row->n_reasons; k++)
			if (!row->reasons[k].name || !*row->reasons[k].name)
				abort();
		for (size_t k = 0; k < TT_CSV_COLS; k++)
			if (!out->has[k] && row->v[k])
				abort();
	}
	for (size_t k = 0; k < TT_CSV_COLS; k++)
		if (!out->has[k] && !csv_col_optional(k) &&
		    (out->kind == TT_CSV_PER_PROCESS || csv_dest_has(k)))
			abort();
}

static bool same_text(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

static bool same_reasons(const struct tt_csv_row *x, const struct tt_csv_row *y)
{
	if (x->n_reasons != y->n_reasons)
		return false;
	for (size_t k = 0; k < x->n_reasons; k++)
		if (strcmp(x->reasons[k].name, y->reasons[k].name) ||
		    x->reasons[k].count != y->reasons[k].count)
			return false;
	return true;
}

static bool same_rows(const struct tt_csv_file *a, const struct tt_csv_file *b)
{
	if (a->n != b->n || a->kind != b->kind || memcmp(a->has, b->has, sizeof(a->has)))
		return false;
	for (size_t i = 0; i < a->n; i++) {
		const struct tt_csv_row *x = &a->rows[i], *y = &b->rows[i];

		if (x->line != y->line || x->pid != y->pid || x->elapsed_s != y->elapsed_s ||
		    strcmp(x->time, y->time) || strcmp(x->comm, y->comm) ||
		    memcmp(x->v, y->v, sizeof(x->v)) || !same_text(x->dest, y->dest) ||
		    x->ports_held != y->ports_held || x->ports_free != y->ports_free ||
		    x->runout_s != y->runout_s || !same_reasons(x, y))
			return false;
	}
	return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tt_csv_file from_buf = { 0 }, from_stream = { 0 };
	struct csv_error buf_err = { 0 }, stream_err = { 0 };
	int buf_ret, stream_ret;
	FILE *f;

	buf_ret = csv_parse_buffer((const char *)data, size, KINDS, &from_buf, &buf_err);
	check_result(buf_ret, &from_buf, &buf_err);

	/* fmemopen refuses a zero size on some C libraries: nothing to compare. */
	f = size ? fmemopen((void *)data, size, "r") : NULL;
	if (f) {
		stream_ret = csv_parse_stream(f, KINDS, &from_stream, &stream_err);
		fclose(f);
		check_result(stream_ret, &from_stream, &stream_err);
		if (stream_ret != buf_ret || !same_rows(&from_buf, &from_stream))
			abort();
		if (buf_ret && (buf_err.line != stream_err.line ||
				strcmp(buf_err.msg, stream_err.msg)))
			abort();
		csv_file_free(&from_stream);
	}
	csv_file_free(&from_buf);
	return 0;
}
