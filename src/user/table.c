// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Formats the human-readable table: a two-line header per interval and one
 * 77-column row per process, with counts shortened to five characters. */
#include <string.h>
#include "table.h"

#define LEAD_WIDTH 17 /* "%7u %-9.9s" */
#define CELL_WIDTH 6  /* " %5s" */
#define CELLS 10
#define LINE_WIDTH (LEAD_WIDTH + CELLS * CELL_WIDTH)

/* Header groups, each over a run of cells of the row. */
static const struct {
	const char *name;
	int first, last;
} groups[] = {
	{ "conn", 0, 1 }, { "fin", 2, 3 }, { "rst", 4, 5 }, { "timewait", 6, 8 }, { "port", 9, 9 },
};

static const char *const cell_names[CELLS] = {
	"in", "out", "actv", "pasv", "sent", "recv", "in", "out", "now", "fail",
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

void table_write_header(FILE *f, const char *label)
{
	char line[LINE_WIDTH + 1];
	size_t i, end;

	memset(line, ' ', sizeof(line));
	end = strnlen(label, LEAD_WIDTH - 1);
	memcpy(line, label, end);
	/* Each name is centred over the text of its cells, odd space to the left
	 * as the numbers below are right-aligned. */
	for (i = 0; i < sizeof(groups) / sizeof(groups[0]); i++) {
		size_t start = LEAD_WIDTH + groups[i].first * CELL_WIDTH + 1;
		size_t width = (groups[i].last - groups[i].first) * CELL_WIDTH + CELL_WIDTH - 1;
		size_t len = strlen(groups[i].name);

		start += (width - len + 1) / 2;
		memcpy(line + start, groups[i].name, len);
		end = start + len;
	}
	fprintf(f, "%.*s\n", (int)end, line);

	fprintf(f, "%7s %-9s", "PID", "COMM");
	for (i = 0; i < CELLS; i++)
		fprintf(f, " %5s", cell_names[i]);
	fputc('\n', f);
}

void table_write_row(FILE *f, const struct tt_row *row)
{
	const struct tt_proc_counters *c = &row->c;
	const uint64_t cells[CELLS] = {
		c->conn[TT_SIDE_IN],
		c->conn[TT_SIDE_OUT],
		c->fin_active[TT_SIDE_IN] + c->fin_active[TT_SIDE_OUT],
		c->fin_passive[TT_SIDE_IN] + c->fin_passive[TT_SIDE_OUT],
		c->rst_sent[TT_SIDE_IN] + c->rst_sent[TT_SIDE_OUT],
		c->rst_recv[TT_SIDE_IN] + c->rst_recv[TT_SIDE_OUT],
		c->tw[TT_SIDE_IN],
		c->tw[TT_SIDE_OUT],
		row->tw_now,
		c->eaddrnotavail,
	};
	char buf[8];
	size_t i;

	fprintf(f, "%7u %-9.9s", row->pid, row->comm);
	for (i = 0; i < CELLS; i++) {
		format_count(buf, sizeof(buf), cells[i]);
		fprintf(f, " %5s", buf);
	}
	fputc('\n', f);
}
