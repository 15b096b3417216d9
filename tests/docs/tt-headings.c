// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Prints every heading the table and the summary write, from their own
 * code, for tests/docs/check-docs.py to hold the docs' output blocks
 * against. Each block opens with "# NAME labelled" (its first line starts
 * with the interval's clock or "total", printed here as nothing) or
 * "# NAME plain", then its lines as tcptrace writes them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "output/report.h"
#include "output/table.h"

static void block(const char *name, const char *kind)
{
	printf("# %s %s\n", name, kind);
}

/* The listeners block writes its heading with its first row: only the
 * lines up to the heading's "PID COMM" line are kept. */
static void listeners_heading(void)
{
	struct tt_listener_row l;
	char *text = NULL, *line, *end;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		exit(1);
	memset(&l, 0, sizeof(l));
	l.drops = 1;
	report_listeners(f, &l, 1, true);
	if (fclose(f))
		exit(1);
	line = text + strspn(text, "\n");
	for (int i = 0; i < 2 && (end = strchr(line, '\n')); i++, line = end + 1)
		printf("%.*s\n", (int)(end - line + 1) - 1, line);
	free(text);
}

int main(void)
{
	block("processes", "labelled");
	table_write_header(stdout, "");
	block("listen-queue", "plain");
	table_write_queue_failure_header(stdout);
	block("connect-failures", "plain");
	table_write_connect_failure_header(stdout);
	block("connect-failures-before-syn", "plain");
	table_write_before_syn_header(stdout);
	block("retransmits", "plain");
	table_write_retrans_header(stdout);
	block("connect-times", "plain");
	table_write_latency_header(stdout);
	block("accept-waits", "plain");
	table_write_accept_wait_header(stdout);
	block("handshakes", "plain");
	table_write_handshake_header(stdout);
	block("destinations", "labelled");
	table_write_dest_header(stdout, "");
	block("destination-retransmits", "plain");
	table_write_dest_retrans_header(stdout);
	block("listeners", "plain");
	listeners_heading();
	return fflush(stdout) ? 1 : 0;
}
