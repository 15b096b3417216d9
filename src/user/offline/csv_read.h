/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Reads back what csv.c writes: an RFC 4180 record reader over a buffer or a
 * FILE, and a parser of a whole tcptrace CSV (per process, or per
 * destination with --by dest) into rows whose columns are found by header
 * name. Pure: no libbpf, no globals, no locale. */
#ifndef TT_CSV_READ_H
#define TT_CSV_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "common/columns.h"

/* A record (a line, or more when a quoted field holds a line break) longer
 * than this is refused, so a foreign file cannot make us allocate without
 * bound. The writer's rows are a few hundred bytes. */
#define CSV_MAX_RECORD 65536 /* 64 KiB */

/* The numeric columns after comm: enum tt_csv_col and what each is, in
 * the column table (common/columns.h). */

/* The two layouts tcptrace writes, as bits of a set of accepted kinds. */
enum tt_csv_kind {
	TT_CSV_PER_PROCESS = 1, /* the default */
	TT_CSV_PER_DEST = 2,    /* --by dest: a dest column after comm */
};

/* What went wrong, for "FILE:LINE: MESSAGE". */
struct csv_error {
	unsigned long line; /* 1-based; 0 when it concerns the whole file */
	int sys_errno;      /* nonzero: the file could not be read (errno) */
	char msg[256];      /* one line, no file name, no trailing newline */
};

/* Fill err with line and a formatted message (sys_errno 0). */
void csv_set_error(struct csv_error *err, unsigned long line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* One record's fields, NUL-terminated. They point into the reader and stay
 * valid until its next csv_read_record() or csv_reader_free(). */
struct csv_record {
	size_t n;
	char **field;
	unsigned long line; /* line the record starts on */
};

/* The record reader; fields are private, set up by csv_reader_init_*(). */
struct csv_reader {
	const unsigned char *data; /* buffer source, or NULL */
	size_t len, pos;
	FILE *f; /* stream source, or NULL */
	unsigned long line;
	char *text; /* the current record's fields, each NUL-terminated */
	size_t text_len, text_cap;
	size_t *offs; /* start of each field in text */
	char **field;
	size_t n_fields, fields_cap;
};

void csv_reader_init_buffer(struct csv_reader *r, const char *data, size_t len);
void csv_reader_init_stream(struct csv_reader *r, FILE *f);

/* Reads the next record. Returns 1 with rec filled, 0 at the end of the
 * input, -1 with err filled (bad quoting, a lone CR, a NUL byte, a record
 * over CSV_MAX_RECORD, a read error, or out of memory); rec is empty unless
 * 1 is returned. Records end with "\n", "\r\n" or the end of the input. */
int csv_read_record(struct csv_reader *r, struct csv_record *rec, struct csv_error *err);

/* Frees the reader's buffers (not the buffer or FILE it reads). */
void csv_reader_free(struct csv_reader *r);

/* One pair of rst_sent_reasons ("TCP_STATE=7"). */
struct tt_csv_reason {
	const char *name; /* points into the row's reasons_text */
	uint64_t count;
};

/* One data row of a tcptrace CSV. */
struct tt_csv_row {
	unsigned long line; /* where the row starts, for messages */
	char *time;         /* as written: "2026-11-22T16:45:01.000Z" */
	double elapsed_s;
	uint32_t pid;
	char *comm;
	uint64_t v[TT_CSV_COLS]; /* indexed by enum tt_csv_col; 0 for a column
				  * the file does not have */
	/* Per process: rst_sent_reasons, in the order written. */
	size_t n_reasons;
	struct tt_csv_reason *reasons;
	char *reasons_text;
	/* Per destination: NULL, 0, 0 and 0 in a per-process file. */
	char *dest; /* "127.0.0.1:8080", "[::1]:8080" */
	uint64_t ports_held, ports_free;
	double runout_s;
};

/* A whole tcptrace CSV: its kind, the columns its header has, and the rows
 * in file order (none is valid). */
struct tt_csv_file {
	enum tt_csv_kind kind;
	bool has[TT_CSV_COLS]; /* false for a column of the other kind, and for
				* an optional one the file lacks */
	size_t n, cap;
	struct tt_csv_row *rows;
};

/* Parse a tcptrace CSV held in data[0..len), of one of the kinds in the
 * set `kinds`. The header must start with time,elapsed_s,pid,comm (then
 * dest, per destination) and hold every column the writer writes for its
 * kind, each once, but for the optional ones (csv_col_optional), which an
 * earlier version did not write; unknown columns (added by a later
 * version) are ignored.
 * Every row must have as many fields as the header, numbers must be plain
 * digits (elapsed_s and runout_s may have a fraction), and
 * rst_sent_reasons NAME=count pairs joined by ';'. Returns 0, or -1 with
 * err filled and out empty. out is freed with csv_file_free() either way. */
int csv_parse_buffer(const char *data, size_t len, unsigned int kinds, struct tt_csv_file *out,
		     struct csv_error *err);

/* The same over a stream, read to its end; a read error sets err->sys_errno. */
int csv_parse_stream(FILE *f, unsigned int kinds, struct tt_csv_file *out,
		     struct csv_error *err);

void csv_file_free(struct tt_csv_file *file);

/* One line on f for `tcptrace PROG` about the file at path:
 * "tcptrace PROG: PATH:LINE: MESSAGE", or "cannot read PATH: REASON" when
 * it could not be read. Returns the exit status: 1 it could not be read, 2
 * its content is wrong. */
int csv_print_error(FILE *f, const char *prog, const char *path, const struct csv_error *e);

/* Opens and parses the file at path, for `tcptrace PROG`. Returns 0, or
 * the exit status after one line on err (csv_print_error(), or "cannot
 * open PATH" with 1). */
int csv_load(const char *prog, const char *path, unsigned int kinds, struct tt_csv_file *out,
	     FILE *err);

#endif /* TT_CSV_READ_H */
