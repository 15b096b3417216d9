// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Formats the human-readable table: a two-line header per interval and one
 * 77-column row per process, with counts shortened to five characters; and
 * below it, for the processes something failed for, the failures of
 * listeners and of connects, the data segments sent again, and blocks of
 * waits: connect times, accept queue waits, handshakes. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include "common/connect_time.h"
#include "output/table.h"

#define LEAD_WIDTH 17 /* "%7u %-9.9s" */
#define CELL_WIDTH 6  /* " %5s" */
#define CELLS 10
#define LATENCY_CELLS 5

/* Header groups, each over a run of cells of the row. */
struct group {
	const char *name;
	int first, last;
};

static const struct group groups[] = {
	{ "conn", 0, 1 }, { "open", 2, 2 }, { "fin", 3, 4 }, { "rst", 5, 6 }, { "timewait", 7, 9 },
};

static const char *const cell_names[CELLS] = {
	"in", "out", "now", "actv", "pasv", "sent", "recv", "in", "out", "now",
};

/* The failures, in three blocks, each at most 80 columns: a listener's (its
 * queue, its SYN-ACKs sent again), a connecting process's (its SYNs sent
 * again, its connect()s that failed after their SYN, by cause, and those
 * that found no port, with its bind()s that found none), and its
 * connect()s refused before any SYN, by errno. A cell is as wide as its
 * name or its group's needs, at least CELL_WIDTH. */
struct cell {
	const char *name;
	int width; /* with the space before it */
};

static const struct group queue_failure_groups[] = {
	{ "listen queue", 0, 2 },
	{ "retries", 3, 3 },
};

static const struct cell queue_failure_cells[] = {
	{ "drops", 6 }, { "peak", 6 }, { "limit", 6 }, { "synack", 8 },
};

static const struct group connect_failure_groups[] = {
	{ "retries", 0, 0 },
	{ "connect failed", 1, 5 },
	{ "bind", 6, 6 },
};

static const struct cell connect_failure_cells[] = {
	{ "syn", 8 },	  { "refused", 8 }, { "timeout", 8 }, { "unreach", 8 },
	{ "abandon", 8 }, { "noport", 7 },  { "inuse", 7 },
};

/* Data segments sent again, under the failures: by side, those after a
 * timeout, and their share of the data segments the connections that
 * ended sent. */
static const struct group retrans_groups[] = {
	{ "sent again", 0, 2 },
	{ "data segments", 3, 4 },
};

static const struct cell retrans_cells[] = {
	{ "in", 6 }, { "out", 6 }, { "rto", 6 }, { "sent", 9 }, { "share", 7 },
};

static const struct group before_syn_groups[] = {
	{ "connect failed before any SYN", 0, 5 },
};

/* By the errno connect() returned, enum tt_connfail's order. */
static const struct cell before_syn_cells[] = {
	{ "enetunr", 8 }, { "ehostunr", 9 }, { "eacces", 7 },
	{ "einval", 7 },  { "eperm", 6 },    { "other", 6 },
};

_Static_assert(sizeof(before_syn_cells) / sizeof(before_syn_cells[0]) ==
		       TT_CONNFAILS - TT_CONNFAIL_BEFORE_SYN,
	       "a cell per cause before the SYN");

/* A block of waits under the rows, from one kind of a row's buckets
 * (struct tt_proc_times): its two group names, the name of its count above
 * the bucket `over` (shown in the intervals when not 0), and where the
 * buckets are. */
struct wait_block {
	struct group groups[2];
	const char *above;
	size_t over;
	size_t le; /* offset in struct tt_proc_times */
};

static const struct wait_block connects_block = {
	{ { "connects", 0, 1 }, { "time, at most", 2, 4 } }, ">1s", TT_CONNECT_1S,
	offsetof(struct tt_proc_times, connect_le),
};
static const struct wait_block accept_waits_block = {
	{ { "accepts", 0, 1 }, { "wait, at most", 2, 4 } }, ">0.1s", TT_WAIT_100MS,
	offsetof(struct tt_proc_times, acceptq_le),
};
static const struct wait_block handshakes_block = {
	{ { "handshakes", 0, 1 }, { "time, at most", 2, 4 } }, ">1s", TT_CONNECT_1S,
	offsetof(struct tt_proc_times, handshake_le),
};

void format_count(char *buf, size_t len, uint64_t v)
{
	static const char units[] = "kMGTPE";
	uint64_t div = 1000;
	int unit = 0;

	if (v < 100000) {
		snprintf(buf, len, "%llu", (unsigned long long)v);
		return;
	}
	/* UINT64_MAX is 18.4E, so the loop stops at E. */
	while (v / div >= 1000) {
		div *= 1000;
		unit++;
	}
	if (v / div < 10)
		snprintf(buf, len, "%llu.%llu%c", (unsigned long long)(v / div),
			 (unsigned long long)(v / (div / 10) % 10), units[unit]);
	else
		snprintf(buf, len, "%llu%c", (unsigned long long)(v / div), units[unit]);
}

/* The x of cell i's first character (its space): cells[] gives each cell's
 * width, or when NULL each is CELL_WIDTH. */
static size_t cell_start(size_t lead_width, const struct cell *cells, int i)
{
	size_t x = lead_width;

	for (int k = 0; k < i; k++)
		x += cells ? (size_t)cells[k].width : CELL_WIDTH;
	return x;
}

/* The label, then each group's name centred over the text of its cells,
 * odd space to the left as the numbers below are right-aligned. */
static void write_group_line(FILE *f, const char *label, size_t lead_width,
			     const struct group *g, size_t n_groups, const struct cell *cells)
{
	char line[128];
	size_t i, end;

	memset(line, ' ', sizeof(line));
	end = strnlen(label, LEAD_WIDTH - 1);
	memcpy(line, label, end);
	for (i = 0; i < n_groups; i++) {
		size_t start = cell_start(lead_width, cells, g[i].first) + 1;
		size_t width = cell_start(lead_width, cells, g[i].last + 1) - start;
		size_t len = strlen(g[i].name);

		if (len > width)
			break;
		start += (width - len + 1) / 2;
		if (start + len >= sizeof(line))
			break;
		memcpy(line + start, g[i].name, len);
		end = start + len;
	}
	fprintf(f, "%.*s\n", (int)end, line);
}

static void write_names(FILE *f, const char *const *names, size_t n)
{
	fprintf(f, "%7s %-9s", "PID", "COMM");
	for (size_t i = 0; i < n; i++)
		fprintf(f, " %5s", names[i]);
	fputc('\n', f);
}

static void write_cells(FILE *f, const struct tt_row *row, const uint64_t *cells, size_t n)
{
	char buf[8];

	fprintf(f, "%7u %-9.9s", row->pid, row->comm);
	for (size_t i = 0; i < n; i++) {
		format_count(buf, sizeof(buf), cells[i]);
		fprintf(f, " %5s", buf);
	}
	fputc('\n', f);
}

void table_write_header(FILE *f, const char *label)
{
	write_group_line(f, label, LEAD_WIDTH, groups, sizeof(groups) / sizeof(groups[0]), NULL);
	write_names(f, cell_names, CELLS);
}

void table_write_row(FILE *f, const struct tt_row *row)
{
	const struct tt_proc_counters *c = &row->c;
	const uint64_t cells[CELLS] = {
		c->conn[TT_SIDE_IN],
		c->conn[TT_SIDE_OUT],
		row->open[TT_SIDE_IN] + row->open[TT_SIDE_OUT],
		c->fin_active[TT_SIDE_IN] + c->fin_active[TT_SIDE_OUT],
		c->fin_passive[TT_SIDE_IN] + c->fin_passive[TT_SIDE_OUT],
		c->rst_sent[TT_SIDE_IN] + c->rst_sent[TT_SIDE_OUT],
		c->rst_recv[TT_SIDE_IN] + c->rst_recv[TT_SIDE_OUT],
		c->tw[TT_SIDE_IN],
		c->tw[TT_SIDE_OUT],
		row->tw_now,
	};

	write_cells(f, row, cells, CELLS);
}

/* The queue a row shows: the interval's, or the run's (the summary). */
static void row_queue(const struct tt_row *row, bool run, uint64_t *peak, uint64_t *limit)
{
	*peak = run ? row->acceptq_peak_run : row->acceptq_peak;
	*limit = run ? row->acceptq_limit_run : row->acceptq_limit;
}

bool table_row_has_queue_failures(const struct tt_row *row, bool run)
{
	uint64_t peak, limit;

	row_queue(row, run, &peak, &limit);
	return row->listen_drops || row->c.synack_retrans || (limit && 2 * peak > limit);
}

/* Connects that failed after their SYN: the causes before TT_CONNFAIL_BEFORE_SYN. */
static uint64_t failed_after_syn(const struct tt_proc_counters *c)
{
	uint64_t n = 0;

	for (size_t i = 0; i < TT_CONNFAIL_BEFORE_SYN; i++)
		n += c->connfail_by[i];
	return n;
}

bool table_row_has_connect_failures(const struct tt_row *row)
{
	const struct tt_proc_counters *c = &row->c;

	return c->syn_retrans || failed_after_syn(c) || c->eaddrnotavail || c->eaddrinuse;
}

bool table_row_has_failures_before_syn(const struct tt_row *row)
{
	for (size_t i = TT_CONNFAIL_BEFORE_SYN; i < TT_CONNFAILS; i++)
		if (row->c.connfail_by[i])
			return true;
	return false;
}

#define QUEUE_FAILURE_CELLS (sizeof(queue_failure_cells) / sizeof(queue_failure_cells[0]))
#define CONNECT_FAILURE_CELLS (sizeof(connect_failure_cells) / sizeof(connect_failure_cells[0]))
#define BEFORE_SYN_CELLS (sizeof(before_syn_cells) / sizeof(before_syn_cells[0]))

/* A failures block's two header lines, each name right-aligned in its cell. */
static void write_cells_header(FILE *f, const struct group *g, size_t n_groups,
			       const struct cell *cells, size_t n)
{
	write_group_line(f, "", LEAD_WIDTH, g, n_groups, cells);
	fprintf(f, "%7s %-9s", "PID", "COMM");
	for (size_t i = 0; i < n; i++)
		fprintf(f, " %*s", cells[i].width - 1, cells[i].name);
	fputc('\n', f);
}

static void write_sized_cells(FILE *f, const struct tt_row *row, const struct cell *cells,
			      const uint64_t *v, size_t n)
{
	char buf[8];

	fprintf(f, "%7u %-9.9s", row->pid, row->comm);
	for (size_t i = 0; i < n; i++) {
		format_count(buf, sizeof(buf), v[i]);
		fprintf(f, " %*s", cells[i].width - 1, buf);
	}
	fputc('\n', f);
}

void table_write_queue_failure_header(FILE *f)
{
	write_cells_header(f, queue_failure_groups,
			   sizeof(queue_failure_groups) / sizeof(queue_failure_groups[0]),
			   queue_failure_cells, QUEUE_FAILURE_CELLS);
}

void table_write_queue_failure_row(FILE *f, const struct tt_row *row, bool run)
{
	uint64_t v[QUEUE_FAILURE_CELLS] = { row->listen_drops, 0, 0, row->c.synack_retrans };

	row_queue(row, run, &v[1], &v[2]);
	write_sized_cells(f, row, queue_failure_cells, v, QUEUE_FAILURE_CELLS);
}

void table_write_connect_failure_header(FILE *f)
{
	write_cells_header(f, connect_failure_groups,
			   sizeof(connect_failure_groups) / sizeof(connect_failure_groups[0]),
			   connect_failure_cells, CONNECT_FAILURE_CELLS);
}

void table_write_connect_failure_row(FILE *f, const struct tt_row *row)
{
	const struct tt_proc_counters *c = &row->c;
	const uint64_t v[CONNECT_FAILURE_CELLS] = {
		c->syn_retrans,
		c->connfail_by[TT_CONNFAIL_REFUSED],
		c->connfail_by[TT_CONNFAIL_TIMEOUT],
		c->connfail_by[TT_CONNFAIL_UNREACH],
		c->connfail_by[TT_CONNFAIL_ABANDONED],
		c->eaddrnotavail,
		c->eaddrinuse,
	};

	write_sized_cells(f, row, connect_failure_cells, v, CONNECT_FAILURE_CELLS);
}

#define RETRANS_CELLS (sizeof(retrans_cells) / sizeof(retrans_cells[0]))

bool table_row_has_retrans(const struct tt_row *row)
{
	return row->c.retrans[TT_SIDE_IN] || row->c.retrans[TT_SIDE_OUT];
}

void table_write_retrans_header(FILE *f)
{
	write_cells_header(f, retrans_groups, sizeof(retrans_groups) / sizeof(retrans_groups[0]),
			   retrans_cells, RETRANS_CELLS);
}

void format_share(char *buf, size_t len, uint64_t part, uint64_t whole)
{
	double pct = whole ? 100.0 * (double)part / (double)whole : 0;

	if (!whole || part > whole)
		snprintf(buf, len, "-");
	else if (part && pct < 0.1)
		snprintf(buf, len, "<0.1%%");
	else if (pct < 9.95)
		snprintf(buf, len, "%.1f%%", pct);
	else
		snprintf(buf, len, "%.0f%%", pct);
}

void table_write_retrans_row(FILE *f, const struct tt_row *row)
{
	const struct tt_proc_counters *c = &row->c;
	uint64_t again = c->retrans[TT_SIDE_IN] + c->retrans[TT_SIDE_OUT];
	uint64_t sent = c->segs_sent[TT_SIDE_IN] + c->segs_sent[TT_SIDE_OUT];
	const uint64_t v[RETRANS_CELLS - 1] = {
		c->retrans[TT_SIDE_IN],
		c->retrans[TT_SIDE_OUT],
		c->retrans_rto[TT_SIDE_IN] + c->retrans_rto[TT_SIDE_OUT],
		sent,
	};
	char buf[8];

	fprintf(f, "%7u %-9.9s", row->pid, row->comm);
	for (size_t i = 0; i < RETRANS_CELLS - 1; i++) {
		format_count(buf, sizeof(buf), v[i]);
		fprintf(f, " %*s", retrans_cells[i].width - 1, buf);
	}
	format_share(buf, sizeof(buf), again, sent);
	fprintf(f, " %*s\n", retrans_cells[RETRANS_CELLS - 1].width - 1, buf);
}

void table_write_before_syn_header(FILE *f)
{
	write_cells_header(f, before_syn_groups, sizeof(before_syn_groups) / sizeof(before_syn_groups[0]),
			   before_syn_cells, BEFORE_SYN_CELLS);
}

void table_write_before_syn_row(FILE *f, const struct tt_row *row)
{
	uint64_t v[BEFORE_SYN_CELLS];

	for (size_t i = 0; i < BEFORE_SYN_CELLS; i++)
		v[i] = row->c.connfail_by[TT_CONNFAIL_BEFORE_SYN + i];
	write_sized_cells(f, row, before_syn_cells, v, BEFORE_SYN_CELLS);
}

static const __u64 *waits_of(const struct tt_row *row, const struct wait_block *b)
{
	return (const __u64 *)((const char *)&row->t + b->le);
}

/* In the summary (run) a row for any wait; in the intervals, for one above
 * the block's bucket. */
static bool row_has_waits(const struct tt_row *row, const struct wait_block *b, bool run)
{
	const __u64 *le = waits_of(row, b);

	return run ? tt_connect_count(le) > 0 : tt_waits_above(le, b->over) > 0;
}

static void write_waits_header(FILE *f, const struct wait_block *b)
{
	const char *names[LATENCY_CELLS] = { "all", b->above, "p50", "p99", "max" };

	write_group_line(f, "", LEAD_WIDTH, b->groups, sizeof(b->groups) / sizeof(b->groups[0]),
			 NULL);
	write_names(f, names, LATENCY_CELLS);
}

/* Count, count above the block's bucket, p50, p99 and max of one row. */
static void write_waits_row(FILE *f, const struct tt_row *row, const struct wait_block *b)
{
	const double quantiles[3] = { 0.5, 0.99, 1.0 };
	const __u64 *le = waits_of(row, b);
	char buf[16];

	format_count(buf, sizeof(buf), tt_connect_count(le));
	fprintf(f, "%7u %-9.9s %5s", row->pid, row->comm, buf);
	format_count(buf, sizeof(buf), tt_waits_above(le, b->over));
	fprintf(f, " %5s", buf);
	for (size_t i = 0; i < 3; i++) {
		tt_connect_format(buf, sizeof(buf), tt_connect_quantile(le, quantiles[i]));
		fprintf(f, " %5s", buf);
	}
	fputc('\n', f);
}

bool table_row_has_latency(const struct tt_row *row, bool run)
{
	return row_has_waits(row, &connects_block, run);
}

void table_write_latency_header(FILE *f)
{
	write_waits_header(f, &connects_block);
}

void table_write_latency_row(FILE *f, const struct tt_row *row)
{
	write_waits_row(f, row, &connects_block);
}

bool table_row_has_accept_wait(const struct tt_row *row, bool run)
{
	return row_has_waits(row, &accept_waits_block, run);
}

void table_write_accept_wait_header(FILE *f)
{
	write_waits_header(f, &accept_waits_block);
}

void table_write_accept_wait_row(FILE *f, const struct tt_row *row)
{
	write_waits_row(f, row, &accept_waits_block);
}

bool table_row_has_handshake(const struct tt_row *row, bool run)
{
	return row_has_waits(row, &handshakes_block, run);
}

void table_write_handshake_header(FILE *f)
{
	write_waits_header(f, &handshakes_block);
}

void table_write_handshake_row(FILE *f, const struct tt_row *row)
{
	write_waits_row(f, row, &handshakes_block);
}

#define DEST_WIDTH 21 /* "255.255.255.255:65535"; longer IPv6 ones push the row */
#define DEST_CELLS 10

static const struct group dest_groups[] = {
	{ "fin", 1, 2 }, { "rst", 3, 4 }, { "timewait", 5, 6 }, { "ports", 7, 9 },
};

void format_dest(char *buf, size_t len, const struct tt_dest_row *row)
{
	char addr[INET6_ADDRSTRLEN] = "?";

	inet_ntop(row->family == AF_INET ? AF_INET : AF_INET6, row->addr, addr, sizeof(addr));
	if (row->family == AF_INET)
		snprintf(buf, len, "%s:%u", addr, row->port);
	else
		snprintf(buf, len, "[%s]:%u", addr, row->port);
}

void table_write_dest_header(FILE *f, const char *label)
{
	static const char *const names[DEST_CELLS] = {
		"conn", "actv", "pasv", "sent", "recv", "tw", "now", "port", "free", "runout",
	};

	write_group_line(f, label, LEAD_WIDTH + 1 + DEST_WIDTH, dest_groups,
			 sizeof(dest_groups) / sizeof(dest_groups[0]), NULL);
	fprintf(f, "%7s %-9s %-*s", "PID", "COMM", DEST_WIDTH, "DESTINATION");
	for (size_t i = 0; i < DEST_CELLS - 1; i++)
		fprintf(f, " %5s", names[i]);
	fprintf(f, " %6s\n", names[DEST_CELLS - 1]);
}

/* --by dest: the data segments sent again toward each destination. */
static const struct group dest_retrans_groups[] = {
	{ "sent again", 0, 1 },
	{ "data segments", 2, 3 },
};

static const struct cell dest_retrans_cells[] = {
	{ "segs", 6 }, { "rto", 6 }, { "sent", 9 }, { "share", 7 },
};

#define DEST_RETRANS_CELLS (sizeof(dest_retrans_cells) / sizeof(dest_retrans_cells[0]))

bool table_dest_has_retrans(const struct tt_dest_row *row)
{
	return row->c.retrans > 0;
}

void table_write_dest_retrans_header(FILE *f)
{
	write_group_line(f, "", LEAD_WIDTH + 1 + DEST_WIDTH, dest_retrans_groups,
			 sizeof(dest_retrans_groups) / sizeof(dest_retrans_groups[0]),
			 dest_retrans_cells);
	fprintf(f, "%7s %-9s %-*s", "PID", "COMM", DEST_WIDTH, "DESTINATION");
	for (size_t i = 0; i < DEST_RETRANS_CELLS; i++)
		fprintf(f, " %*s", dest_retrans_cells[i].width - 1, dest_retrans_cells[i].name);
	fputc('\n', f);
}

void table_write_dest_retrans_row(FILE *f, const struct tt_dest_row *row)
{
	const uint64_t v[DEST_RETRANS_CELLS - 1] = { row->c.retrans, row->c.retrans_rto,
						     row->c.segs_sent };
	char dest[TT_DEST_LEN], buf[8];

	format_dest(dest, sizeof(dest), row);
	fprintf(f, "%7u %-9.9s %-*s", row->pid, row->comm, DEST_WIDTH, dest);
	for (size_t i = 0; i < DEST_RETRANS_CELLS - 1; i++) {
		format_count(buf, sizeof(buf), v[i]);
		fprintf(f, " %*s", dest_retrans_cells[i].width - 1, buf);
	}
	format_share(buf, sizeof(buf), row->c.retrans, row->c.segs_sent);
	fprintf(f, " %*s\n", dest_retrans_cells[DEST_RETRANS_CELLS - 1].width - 1, buf);
}

/* Seconds until no port is free: "-" when the ports held are not growing. */
static void format_runout(char *buf, size_t len, double s)
{
	if (s <= 0)
		snprintf(buf, len, "-");
	else if (s < 99999.5)
		snprintf(buf, len, "%.0fs", s);
	else
		snprintf(buf, len, ">1d");
}

void table_write_dest_row(FILE *f, const struct tt_dest_row *row)
{
	const struct tt_dest_counters *c = &row->c;
	const uint64_t cells[DEST_CELLS - 1] = {
		c->conn,     c->fin_active, c->fin_passive,   c->rst_sent,    c->rst_recv,
		c->tw,       row->tw_now,   c->eaddrnotavail, row->ports_free,
	};
	char dest[TT_DEST_LEN], buf[8];

	format_dest(dest, sizeof(dest), row);
	fprintf(f, "%7u %-9.9s %-*s", row->pid, row->comm, DEST_WIDTH, dest);
	for (size_t i = 0; i < DEST_CELLS - 1; i++) {
		format_count(buf, sizeof(buf), cells[i]);
		fprintf(f, " %5s", buf);
	}
	format_runout(buf, sizeof(buf), row->runout_s);
	fprintf(f, " %6s\n", buf);
}
