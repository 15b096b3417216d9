/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* What the unit tests of the CSV's readers (csv_read, compare, timeline,
 * report) share: the two headers tcptrace writes, interval times, and a
 * way to pick one line out of written text. Include after cmocka.h. */
#ifndef TT_CSV_FIXTURES_H
#define TT_CSV_FIXTURES_H

#include <string.h>

#define HEADER                                                                               \
	"time,elapsed_s,pid,comm,conn_in,conn_out,fin_active_in,fin_active_out,"             \
	"fin_passive_in,fin_passive_out,rst_sent_in,rst_sent_out,rst_recv_in,rst_recv_out,"  \
	"tw_in,tw_out,tw_now,eaddrnotavail,timeout_in,timeout_out,connfail_out,untracked,"   \
	"tw_rst,rst_sent_reasons\n"
#define DEST_HEADER                                                                          \
	"time,elapsed_s,pid,comm,dest,conn_out,fin_active_out,fin_passive_out,rst_sent_out,"  \
	"rst_recv_out,timeout_out,tw_out,tw_now,connfail_out,eaddrnotavail,ports_held,"       \
	"ports_free,runout_s\n"
#define T1 "2026-11-22T16:45:01.000Z"
#define T2 "2026-11-22T16:45:02.000Z"
/* The 19 counters after conn_in and conn_out, all 0. */
#define ZEROS "0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0"

/* The line of text that starts with prefix, without its '\n'. */
static inline const char *line_of(const char *text, const char *prefix)
{
	static char line[4096];
	const char *p = text;

	for (;;) {
		size_t len = strcspn(p, "\n");

		if (!strncmp(p, prefix, strlen(prefix))) {
			assert_true(len < sizeof(line));
			memcpy(line, p, len);
			line[len] = '\0';
			return line;
		}
		if (!p[len])
			fail_msg("no line starts with '%s' in:\n%s", prefix, text);
		p += len + 1;
	}
}

#endif /* TT_CSV_FIXTURES_H */
