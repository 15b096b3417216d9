// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Reads a CSV written by tcptrace --csv: RFC 4180 records from a buffer or a
 * stream, then the header checked and each row's columns taken by name. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "common/fail.h"
#include "offline/csv_read.h"

/* What next_byte() and take() return when they failed (err filled). */
#define CSV_FAILED (-2)

/* The columns before the counters, which every tcptrace CSV starts with. */
enum { COL_TIME, COL_ELAPSED, COL_PID, COL_COMM, LEAD_COLS };
static const char *const lead_names[LEAD_COLS] = { "time", "elapsed_s", "pid", "comm" };
static const char reasons_name[] = "rst_sent_reasons";

#define NO_COL SIZE_MAX

void csv_set_error(struct csv_error *err, unsigned long line, const char *fmt, ...)
{
	va_list ap;

	err->line = line;
	err->sys_errno = 0;
	va_start(ap, fmt);
	tt_verror(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
}

/* -1 after filling err; an expression rather than a variadic function that
 * returns -1, so that the static analyzer, which does not follow variadic
 * calls, sees the -1. */
#define fail(err, line, ...) (csv_set_error((err), (line), __VA_ARGS__), -1)

/* A failure of the system rather than of the file's content. */
static int fail_errno(struct csv_error *err, int errnum)
{
	err->line = 0;
	err->sys_errno = errnum;
	snprintf(err->msg, sizeof(err->msg), "%s", strerror(errnum));
	return -1;
}

static void reader_init(struct csv_reader *r)
{
	memset(r, 0, sizeof(*r));
	r->line = 1;
}

void csv_reader_init_buffer(struct csv_reader *r, const char *data, size_t len)
{
	reader_init(r);
	r->data = (const unsigned char *)data;
	r->len = data ? len : 0;
}

void csv_reader_init_stream(struct csv_reader *r, FILE *f)
{
	reader_init(r);
	r->f = f;
}

void csv_reader_free(struct csv_reader *r)
{
	free(r->text);
	free(r->offs);
	free(r->field);
	r->text = NULL;
	r->offs = NULL;
	r->field = NULL;
	r->text_cap = r->fields_cap = 0;
}

/* The next byte, EOF at the end, CSV_FAILED when the stream failed. */
static int next_byte(struct csv_reader *r, struct csv_error *err)
{
	int c;

	if (!r->f)
		return r->pos < r->len ? r->data[r->pos++] : EOF;
	/* The stream is ours alone while we read it: no lock per byte. */
	errno = 0;
	c = getc_unlocked(r->f);
	if (c == EOF && ferror(r->f)) {
		fail_errno(err, errno ? errno : EIO);
		return CSV_FAILED;
	}
	return c;
}

/* Grow *buf to hold at least need elements of size each (doubling). */
static int grow(void **buf, size_t *cap, size_t need, size_t size)
{
	size_t n = *cap ? *cap : 64;
	void *p;

	if (need <= *cap)
		return 0;
	while (n < need) {
		if (n > SIZE_MAX / 2 / size)
			return -1;
		n *= 2;
	}
	p = realloc(*buf, n * size);
	if (!p)
		return -1;
	*buf = p;
	*cap = n;
	return 0;
}

static int put_byte(struct csv_reader *r, char c)
{
	if (grow((void **)&r->text, &r->text_cap, r->text_len + 1, 1))
		return -1;
	r->text[r->text_len++] = c;
	return 0;
}

/* offs and field grow together, so fields_cap is the size of both. */
static int start_field(struct csv_reader *r)
{
	size_t cap = r->fields_cap;
	char **field;

	if (grow((void **)&r->offs, &cap, r->n_fields + 1, sizeof(*r->offs)))
		return -1;
	if (cap != r->fields_cap) {
		field = realloc(r->field, cap * sizeof(*field));
		if (!field)
			return -1; /* offs is larger than needed, which is harmless */
		memset(field + r->fields_cap, 0, (cap - r->fields_cap) * sizeof(*field));
		r->field = field;
		r->fields_cap = cap;
	}
	r->offs[r->n_fields++] = r->text_len;
	return 0;
}

/* How one field ended. */
enum field_end { END_FIELD, END_RECORD };

/* Reads a byte of the current record, counting it against the record's
 * limit. The limit leaves room for the "\r\n" that ends the record; the
 * exact check, without it, comes when the record is complete. */
static int take(struct csv_reader *r, size_t *used, unsigned long start, struct csv_error *err)
{
	int c = next_byte(r, err);

	if (c == CSV_FAILED || c == EOF)
		return c;
	if (++*used > CSV_MAX_RECORD + 2) {
		csv_set_error(err, start, "line longer than %d bytes", CSV_MAX_RECORD);
		return CSV_FAILED;
	}
	if (c == '\0') {
		csv_set_error(err, r->line, "NUL byte in field %zu", r->n_fields);
		return CSV_FAILED;
	}
	return c;
}

/* A byte for a message: itself when printable ASCII, else its value. */
static const char *byte_name(char *buf, size_t len, int c)
{
	if (c >= 0x20 && c < 0x7f)
		snprintf(buf, len, "'%c'", c);
	else
		snprintf(buf, len, "byte 0x%02x", (unsigned int)c);
	return buf;
}

/* After a CR outside quotes only an LF may come. Returns 0 or -1. */
static int expect_lf(struct csv_reader *r, size_t *used, unsigned long start,
		     struct csv_error *err)
{
	int c = take(r, used, start, err);

	if (c == CSV_FAILED)
		return -1;
	if (c != '\n')
		return fail(err, r->line, "carriage return not followed by a line feed");
	return 0;
}

/* Reads one field into r->text, the byte that ended it consumed. Returns
 * END_FIELD, END_RECORD, or -1. *term counts the line-end bytes consumed. */
static int read_field(struct csv_reader *r, size_t *used, size_t *term, unsigned long start,
		      struct csv_error *err)
{
	size_t field = r->n_fields;
	int c = take(r, used, start, err);
	char name[16];

	*term = 0;
	if (c == '"') {
		unsigned long open_line = r->line;

		for (;;) {
			c = take(r, used, start, err);
			if (c == CSV_FAILED)
				return -1;
			if (c == EOF)
				return fail(err, open_line,
					    "quote opening field %zu is not closed before the end "
					    "of the file",
					    field);
			if (c == '"') {
				c = take(r, used, start, err);
				if (c != '"')
					break;
			} else if (c == '\n') {
				r->line++;
			}
			if (put_byte(r, (char)c))
				return fail_errno(err, ENOMEM);
		}
		/* After the closing quote: a separator or the end of the record. */
		if (c == CSV_FAILED)
			return -1;
		if (c == ',')
			return END_FIELD;
		if (c == EOF)
			return END_RECORD;
		if (c == '\n') {
			r->line++;
			*term = 1;
			return END_RECORD;
		}
		if (c == '\r') {
			if (expect_lf(r, used, start, err))
				return -1;
			r->line++;
			*term = 2;
			return END_RECORD;
		}
		return fail(err, r->line, "unexpected %s after the closing quote of field %zu",
			    byte_name(name, sizeof(name), c), field);
	}
	for (;; c = take(r, used, start, err)) {
		if (c == CSV_FAILED)
			return -1;
		if (c == ',')
			return END_FIELD;
		if (c == EOF)
			return END_RECORD;
		if (c == '\n') {
			r->line++;
			*term = 1;
			return END_RECORD;
		}
		if (c == '\r') {
			if (expect_lf(r, used, start, err))
				return -1;
			r->line++;
			*term = 2;
			return END_RECORD;
		}
		if (c == '"')
			return fail(err, r->line,
				    "unexpected '\"' inside field %zu, which is not quoted", field);
		if (put_byte(r, (char)c))
			return fail_errno(err, ENOMEM);
	}
}

/* 1 at the end of the input, 0 when a byte follows, -1 on a read error. */
static int at_end(struct csv_reader *r, struct csv_error *err)
{
	int c;

	if (!r->f)
		return r->pos >= r->len;
	c = next_byte(r, err);
	if (c == CSV_FAILED)
		return -1;
	if (c == EOF)
		return 1;
	ungetc(c, r->f);
	return 0;
}

int csv_read_record(struct csv_reader *r, struct csv_record *rec, struct csv_error *err)
{
	unsigned long start = r->line;
	size_t used = 0, term = 0, i;
	int end;

	rec->n = 0;
	rec->field = NULL;
	rec->line = start;
	/* A line end followed by the end of the input closes the last record;
	 * it does not open an empty one. */
	end = at_end(r, err);
	if (end)
		return end > 0 ? 0 : -1;
	r->text_len = 0;
	r->n_fields = 0;
	do {
		if (start_field(r))
			return fail_errno(err, ENOMEM);
		end = read_field(r, &used, &term, start, err);
		if (end < 0)
			return -1;
		if (put_byte(r, '\0'))
			return fail_errno(err, ENOMEM);
	} while (end == END_FIELD);
	if (used - term > CSV_MAX_RECORD)
		return fail(err, start, "line longer than %d bytes", CSV_MAX_RECORD);

	/* Pointers only now: text may have moved while the record grew. */
	for (i = 0; i < r->n_fields; i++)
		r->field[i] = r->text + r->offs[i];
	rec->n = r->n_fields;
	rec->field = r->field;
	rec->line = start;
	return 1;
}

/* A value for a message: at most 32 bytes, control bytes shown as '?', so
 * that the message stays one short line. */
static const char *shown(char *buf, size_t len, const char *s)
{
	size_t i, max = len - 4;

	for (i = 0; i < max && i < 32 && s[i]; i++) {
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			buf[i] = '?';
		else
			buf[i] = s[i];
	}
	if (s[i])
		memcpy(buf + i, "...", 4);
	else
		buf[i] = '\0';
	return buf;
}

static bool all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return false;
	}
	return true;
}

/* A plain decimal integer up to max: strtoull alone would take a sign,
 * leading spaces and "0x". */
static int parse_uint(const char *name, const char *s, uint64_t max, uint64_t *out,
		      unsigned long line, struct csv_error *err)
{
	unsigned long long v;
	char buf[40];
	char *end;

	if (!all_digits(s))
		return fail(err, line, "field %s: '%s' is not a number", name,
			    shown(buf, sizeof(buf), s));
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v > max)
		return fail(err, line, "field %s: '%s' is out of range (at most %llu)", name,
			    shown(buf, sizeof(buf), s), (unsigned long long)max);
	*out = v;
	return 0;
}

/* Seconds as the writer prints them: digits, optionally '.' and digits. */
static int parse_seconds(const char *name, const char *s, double *out, unsigned long line,
			 struct csv_error *err)
{
	size_t int_len = strspn(s, "0123456789");
	const char *frac = s + int_len;
	char buf[40];
	char *end;
	double v;

	if (int_len == 0 ||
	    (*frac && (*frac != '.' || !frac[1] || frac[1 + strspn(frac + 1, "0123456789")])))
		return fail(err, line, "field %s: '%s' is not a number", name,
			    shown(buf, sizeof(buf), s));
	errno = 0;
	v = strtod(s, &end);
	if (errno || *end || !isfinite(v))
		return fail(err, line, "field %s: '%s' is out of range", name,
			    shown(buf, sizeof(buf), s));
	*out = v;
	return 0;
}

/* Columns of a per-destination CSV that are not counters: the dest after
 * comm, then the port headroom after the counters. */
enum { DEST_PORTS_HELD, DEST_PORTS_FREE, DEST_RUNOUT, DEST_EXTRA_COLS };
static const char dest_name[] = "dest";
static const enum tt_dest_col dest_extra[DEST_EXTRA_COLS] = { TT_DEST_PORTS_HELD,
							      TT_DEST_PORTS_FREE, TT_DEST_RUNOUT_S };

static const char *dest_extra_name(size_t k)
{
	return tt_dest_col_names[dest_extra[k]];
}

/* Where each known column sits in the file's header. */
struct header_map {
	enum tt_csv_kind kind;
	size_t n_fields;
	size_t col[TT_CSV_COLS];
	size_t reasons;                /* per process */
	size_t extra[DEST_EXTRA_COLS]; /* per destination */
};

static int claim(size_t *slot, size_t i, const char *name, struct csv_error *err)
{
	if (*slot != NO_COL)
		return fail(err, 1, "column %s appears twice in the header", name);
	*slot = i;
	return 0;
}

/* The slot a header name fills in this kind of file, or NULL when the
 * column is not one of its own. */
static size_t *slot_of(struct header_map *map, const char *name)
{
	size_t k;

	if (map->kind == TT_CSV_PER_PROCESS && strcmp(name, reasons_name) == 0)
		return &map->reasons;
	for (k = 0; map->kind == TT_CSV_PER_DEST && k < DEST_EXTRA_COLS; k++) {
		if (strcmp(name, dest_extra_name(k)) == 0)
			return &map->extra[k];
	}
	for (k = 0; k < TT_CSV_COLS; k++) {
		if (strcmp(name, tt_csv_col_names[k]) == 0)
			return map->kind == TT_CSV_PER_PROCESS || csv_dest_has(k) ? &map->col[k]
										  : NULL;
	}
	return NULL;
}

static int map_header(const struct csv_record *rec, unsigned int kinds, struct header_map *map,
		      struct csv_error *err)
{
	size_t i, k, first;

	map->n_fields = rec->n;
	map->reasons = NO_COL;
	for (k = 0; k < TT_CSV_COLS; k++)
		map->col[k] = NO_COL;
	for (k = 0; k < DEST_EXTRA_COLS; k++)
		map->extra[k] = NO_COL;
	for (i = 0; i < LEAD_COLS; i++) {
		if (i >= rec->n || strcmp(rec->field[i], lead_names[i]) != 0)
			return fail(err, 1, "not a tcptrace CSV (header does not start with "
					    "time,elapsed_s,pid,comm)");
	}
	map->kind = rec->n > LEAD_COLS && strcmp(rec->field[LEAD_COLS], dest_name) == 0
			    ? TT_CSV_PER_DEST
			    : TT_CSV_PER_PROCESS;
	if (!(kinds & map->kind))
		return map->kind == TT_CSV_PER_DEST
			       ? fail(err, 1, "a per-destination CSV (--by dest); compare reads the "
					      "per-process CSV that tcptrace writes without --by dest")
			       : fail(err, 1, "a per-process CSV; expected one written with --by dest");
	first = map->kind == TT_CSV_PER_DEST ? LEAD_COLS + 1 : LEAD_COLS;
	for (i = first; i < rec->n; i++) {
		const char *name = rec->field[i];
		size_t *slot;

		for (k = 0; k < LEAD_COLS; k++) {
			if (strcmp(name, lead_names[k]) == 0)
				return fail(err, 1, "column %s appears twice in the header", name);
		}
		if (map->kind == TT_CSV_PER_DEST && strcmp(name, dest_name) == 0)
			return fail(err, 1, "column %s appears twice in the header", name);
		/* Columns a later version adds are not ours to judge. */
		slot = slot_of(map, name);
		if (slot && claim(slot, i, name, err))
			return -1;
	}
	for (k = 0; k < TT_CSV_COLS; k++) {
		if (map->col[k] == NO_COL && !csv_col_optional(k) &&
		    (map->kind == TT_CSV_PER_PROCESS || csv_dest_has(k)))
			return fail(err, 1, "header has no column %s", tt_csv_col_names[k]);
	}
	if (map->kind == TT_CSV_PER_PROCESS && map->reasons == NO_COL)
		return fail(err, 1, "header has no column %s", reasons_name);
	for (k = 0; map->kind == TT_CSV_PER_DEST && k < DEST_EXTRA_COLS; k++) {
		if (map->extra[k] == NO_COL)
			return fail(err, 1, "header has no column %s", dest_extra_name(k));
	}
	return 0;
}

static bool is_reason_name_byte(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
	       c == '_';
}

/* rst_sent_reasons as the writer joins them: "NAME=count;NAME=count", or
 * empty. The names point into a copy of the field that the row keeps. */
static int parse_reasons(const char *s, struct tt_csv_row *row, struct csv_error *err)
{
	size_t n = 1, i;
	const char *q;
	char buf[40], *p;

	if (!*s)
		return 0;
	for (q = s; *q; q++)
		n += *q == ';';
	row->reasons_text = strdup(s);
	row->reasons = calloc(n, sizeof(*row->reasons));
	if (!row->reasons_text || !row->reasons)
		return fail_errno(err, ENOMEM);
	p = row->reasons_text;
	for (i = 0; i < n; i++) {
		char *name = p, *value;

		while (is_reason_name_byte(*p))
			p++;
		if (p == name || *p != '=')
			return fail(err, row->line,
				    "field %s: '%s' is not NAME=count pairs joined by ';'",
				    reasons_name, shown(buf, sizeof(buf), s));
		*p++ = '\0';
		value = p;
		p += strcspn(p, ";");
		if (*p)
			*p++ = '\0';
		if (parse_uint(reasons_name, value, UINT64_MAX, &row->reasons[i].count, row->line,
			       err))
			return -1;
		row->reasons[i].name = name;
		row->n_reasons++;
	}
	return 0;
}

static int parse_dest_fields(const struct csv_record *rec, const struct header_map *map,
			     struct tt_csv_row *row, struct csv_error *err)
{
	const size_t *x = map->extra;

	if (parse_uint(dest_extra_name(DEST_PORTS_HELD), rec->field[x[DEST_PORTS_HELD]],
		       UINT64_MAX, &row->ports_held, rec->line, err) ||
	    parse_uint(dest_extra_name(DEST_PORTS_FREE), rec->field[x[DEST_PORTS_FREE]],
		       UINT64_MAX, &row->ports_free, rec->line, err) ||
	    parse_seconds(dest_extra_name(DEST_RUNOUT), rec->field[x[DEST_RUNOUT]],
			  &row->runout_s, rec->line, err))
		return -1;
	row->dest = strdup(rec->field[LEAD_COLS]);
	return row->dest ? 0 : fail_errno(err, ENOMEM);
}

static void row_free(struct tt_csv_row *row)
{
	free(row->time);
	free(row->comm);
	free(row->dest);
	free(row->reasons);
	free(row->reasons_text);
}

static int parse_fields(const struct csv_record *rec, const struct header_map *map,
			struct tt_csv_row *row, struct csv_error *err)
{
	uint64_t pid;
	size_t k;

	if (rec->n != map->n_fields)
		return fail(err, rec->line, "expected %zu fields, found %zu", map->n_fields,
			    rec->n);
	if (parse_seconds(lead_names[COL_ELAPSED], rec->field[COL_ELAPSED], &row->elapsed_s,
			  rec->line, err) ||
	    parse_uint(lead_names[COL_PID], rec->field[COL_PID], UINT32_MAX, &pid, rec->line,
		       err))
		return -1;
	row->pid = (uint32_t)pid;
	for (k = 0; k < TT_CSV_COLS; k++) {
		if (map->col[k] != NO_COL &&
		    parse_uint(tt_csv_col_names[k], rec->field[map->col[k]], UINT64_MAX,
			       &row->v[k], rec->line, err))
			return -1;
	}
	if (map->kind == TT_CSV_PER_PROCESS
		    ? parse_reasons(rec->field[map->reasons], row, err)
		    : parse_dest_fields(rec, map, row, err))
		return -1;
	row->time = strdup(rec->field[COL_TIME]);
	row->comm = strdup(rec->field[COL_COMM]);
	if (!row->time || !row->comm)
		return fail_errno(err, ENOMEM);
	return 0;
}

static int parse_row(const struct csv_record *rec, const struct header_map *map,
		     struct tt_csv_row *row, struct csv_error *err)
{
	memset(row, 0, sizeof(*row));
	row->line = rec->line;
	if (parse_fields(rec, map, row, err)) {
		row_free(row);
		return -1;
	}
	return 0;
}

void csv_file_free(struct tt_csv_file *file)
{
	size_t i;

	for (i = 0; i < file->n; i++)
		row_free(&file->rows[i]);
	free(file->rows);
	memset(file, 0, sizeof(*file));
}

static int parse_records(struct csv_reader *r, unsigned int kinds, struct tt_csv_file *out,
			 struct csv_error *err)
{
	struct header_map map;
	struct csv_record rec;
	size_t k;
	int got;

	got = csv_read_record(r, &rec, err);
	if (got == 0)
		return fail(err, 0, "empty file");
	/* A header that cannot even be split into fields is not ours either. */
	if (got < 0 && !err->sys_errno)
		return fail(err, 1, "not a tcptrace CSV (header does not start with "
				    "time,elapsed_s,pid,comm)");
	if (got < 0 || map_header(&rec, kinds, &map, err))
		return -1;
	out->kind = map.kind;
	for (k = 0; k < TT_CSV_COLS; k++)
		out->has[k] = map.col[k] != NO_COL;
	while ((got = csv_read_record(r, &rec, err)) > 0) {
		if (grow((void **)&out->rows, &out->cap, out->n + 1, sizeof(*out->rows)))
			return fail_errno(err, ENOMEM);
		if (parse_row(&rec, &map, &out->rows[out->n], err))
			return -1;
		out->n++;
	}
	return got;
}

static int parse_with(struct csv_reader *r, unsigned int kinds, struct tt_csv_file *out,
		      struct csv_error *err)
{
	int ret;

	memset(out, 0, sizeof(*out));
	memset(err, 0, sizeof(*err));
	ret = parse_records(r, kinds, out, err);
	csv_reader_free(r);
	if (ret < 0) {
		csv_file_free(out);
		return -1;
	}
	return 0;
}

int csv_parse_buffer(const char *data, size_t len, unsigned int kinds, struct tt_csv_file *out,
		     struct csv_error *err)
{
	struct csv_reader r;

	csv_reader_init_buffer(&r, data, len);
	return parse_with(&r, kinds, out, err);
}

int csv_parse_stream(FILE *f, unsigned int kinds, struct tt_csv_file *out,
		     struct csv_error *err)
{
	struct csv_reader r;

	csv_reader_init_stream(&r, f);
	return parse_with(&r, kinds, out, err);
}

int csv_print_error(FILE *f, const char *prog, const char *path, const struct csv_error *e)
{
	char who[64];

	snprintf(who, sizeof(who), "tcptrace %s", prog);
	if (e->sys_errno)
		return tt_say(f, 1, who, "cannot read %s: %s", path, strerror(e->sys_errno));
	if (e->line)
		return tt_say(f, 2, who, "%s:%lu: %s", path, e->line, e->msg);
	return tt_say(f, 2, who, "%s: %s", path, e->msg);
}

int csv_load(const char *prog, const char *path, unsigned int kinds, struct tt_csv_file *out,
	     FILE *err)
{
	struct csv_error e;
	FILE *f;
	int ret;

	memset(out, 0, sizeof(*out));
	f = fopen(path, "re");
	if (!f) {
		char who[64];

		snprintf(who, sizeof(who), "tcptrace %s", prog);
		return tt_say(err, 1, who, "cannot open %s: %s", path, strerror(errno));
	}
	ret = csv_parse_stream(f, kinds, out, &e);
	fclose(f);
	return ret ? csv_print_error(err, prog, path, &e) : 0;
}
