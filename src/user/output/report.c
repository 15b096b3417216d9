// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Writes each interval's rows to the table, the CSV and the JSON lines,
 * and the summary at exit. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "output/findings.h"
#include "output/json.h"
#include "output/report.h"
#include "output/table.h"

static void write_reasons(FILE *f, const uint64_t *reasons, const struct tt_reason_names *names)
{
	const char *sep = "";

	for (size_t slot = 0; slot < TT_REASON_SLOTS; slot++) {
		char unnamed[TT_REASON_LABEL_LEN];

		if (!reasons[slot])
			continue;
		fprintf(f, "%s%s %" PRIu64, sep, reason_label(names, slot, unnamed), reasons[slot]);
		sep = ", ";
	}
}

bool report_shows(const struct tt_row *row)
{
	return row->selected || !row_is_zero(row);
}

/* A row block that could not be written in full (a full disk) is cut back
 * off the file, which then keeps whole rows only. */
static int stream_failed(FILE *f, off_t good, bool *failed)
{
	int err = errno ? errno : EIO;

	*failed = true;
	if (good >= 0 && ftruncate(fileno(f), good) == 0)
		clearerr(f);
	return -err;
}

/* The interval's rows as CSV or JSON lines: the process rows, or with
 * by_dest the destination rows. */
static int write_rows(struct report *r, FILE *f, bool json, bool *failed,
		      const struct tt_row *rows, size_t n, const struct tt_dest_row *dests,
		      size_t n_dests, const char *iso, double elapsed_s)
{
	off_t good = ftello(f);

	for (size_t i = 0; i < n && !r->by_dest; i++)
		if (report_shows(&rows[i]) &&
		    (json ? json_write_row : csv_write_row)(f, iso, elapsed_s, &rows[i], r->names,
							    r->scope))
			return stream_failed(f, good, failed);
	for (size_t i = 0; i < n_dests && r->by_dest; i++)
		if (!dest_row_is_zero(&dests[i]) &&
		    (json ? json_write_dest_row : csv_write_dest_row)(f, iso, elapsed_s, &dests[i]))
			return stream_failed(f, good, failed);
	if (fflush(f))
		return stream_failed(f, good, failed);
	return 0;
}

void report_csv_header(struct report *r)
{
	if (!r->csv)
		return;
	if (r->by_dest)
		csv_write_dest_header(r->csv);
	else
		csv_write_header(r->csv, r->scope);
}

/* A block under the rows (failures of listeners and of connects, segments
 * sent again, connect times, accept waits, handshakes), when any row has
 * one. */
struct row_block {
	bool (*has)(const struct tt_row *row, bool run);
	void (*header)(FILE *f);
	void (*row)(FILE *f, const struct tt_row *row, bool run);
};

static void latency_row(FILE *f, const struct tt_row *row, bool run)
{
	(void)run;
	table_write_latency_row(f, row);
}

static void connect_failure_row(FILE *f, const struct tt_row *row, bool run)
{
	(void)run;
	table_write_connect_failure_row(f, row);
}

static bool has_connect_failures(const struct tt_row *row, bool run)
{
	(void)run;
	return table_row_has_connect_failures(row);
}

static void before_syn_row(FILE *f, const struct tt_row *row, bool run)
{
	(void)run;
	table_write_before_syn_row(f, row);
}

static bool has_failures_before_syn(const struct tt_row *row, bool run)
{
	(void)run;
	return table_row_has_failures_before_syn(row);
}

static void retrans_row(FILE *f, const struct tt_row *row, bool run)
{
	(void)run;
	table_write_retrans_row(f, row);
}

static bool has_retrans(const struct tt_row *row, bool run)
{
	(void)run;
	return table_row_has_retrans(row);
}

static const struct row_block queue_failures = { table_row_has_queue_failures,
						 table_write_queue_failure_header,
						 table_write_queue_failure_row };
static const struct row_block connect_failures = { has_connect_failures,
						   table_write_connect_failure_header,
						   connect_failure_row };
static const struct row_block failures_before_syn = { has_failures_before_syn,
						      table_write_before_syn_header,
						      before_syn_row };
static const struct row_block retransmits = { has_retrans, table_write_retrans_header,
					      retrans_row };
static const struct row_block latencies = { table_row_has_latency, table_write_latency_header,
					    latency_row };

static void accept_wait_row(FILE *f, const struct tt_row *row, bool run)
{
	(void)run;
	table_write_accept_wait_row(f, row);
}

static const struct row_block accept_waits = { table_row_has_accept_wait,
					       table_write_accept_wait_header, accept_wait_row };

static void handshake_row(FILE *f, const struct tt_row *row, bool run)
{
	(void)run;
	table_write_handshake_row(f, row);
}

static const struct row_block handshakes = { table_row_has_handshake,
					     table_write_handshake_header, handshake_row };

static void write_block(FILE *f, const struct row_block *b, const struct tt_row *rows, size_t n,
			bool run)
{
	bool header = false;

	for (size_t i = 0; i < n; i++) {
		if (!b->has(&rows[i], run))
			continue;
		if (!header)
			b->header(f);
		header = true;
		b->row(f, &rows[i], run);
	}
}

static void table_write_dests(FILE *f, const char *label, const struct tt_dest_row *dests,
			      size_t n)
{
	bool header = false;

	table_write_dest_header(f, label);
	for (size_t i = 0; i < n; i++)
		if (!dest_row_is_zero(&dests[i]))
			table_write_dest_row(f, &dests[i]);
	for (size_t i = 0; i < n; i++) {
		if (!table_dest_has_retrans(&dests[i]))
			continue;
		if (!header)
			table_write_dest_retrans_header(f);
		header = true;
		table_write_dest_retrans_row(f, &dests[i]);
	}
}

int report_interval(struct report *r, const struct tt_row *rows, size_t n,
		    const struct tt_dest_row *dests, size_t n_dests, const struct timespec *when,
		    double elapsed_s)
{
	char clock[16], iso[40];
	struct tm local, utc;

	localtime_r(&when->tv_sec, &local);
	gmtime_r(&when->tv_sec, &utc);
	strftime(clock, sizeof(clock), "%H:%M:%S", &local);
	strftime(iso, sizeof(iso), "%Y-%m-%dT%H:%M:%S", &utc);
	snprintf(iso + 19, sizeof(iso) - 19, ".%03ldZ", when->tv_nsec / 1000000);

	if (r->table) {
		fputc('\n', r->table);
		if (r->by_dest) {
			table_write_dests(r->table, clock, dests, n_dests);
		} else {
			table_write_header(r->table, clock);
			for (size_t i = 0; i < n; i++)
				if (report_shows(&rows[i]))
					table_write_row(r->table, &rows[i]);
			write_block(r->table, &queue_failures, rows, n, false);
			write_block(r->table, &connect_failures, rows, n, false);
			write_block(r->table, &failures_before_syn, rows, n, false);
			write_block(r->table, &retransmits, rows, n, false);
			write_block(r->table, &latencies, rows, n, false);
			write_block(r->table, &accept_waits, rows, n, false);
			write_block(r->table, &handshakes, rows, n, false);
		}
		if (fflush(r->table) || ferror(r->table))
			return -(errno ? errno : EIO);
	}
	if (r->csv) {
		int err = write_rows(r, r->csv, false, &r->csv_failed, rows, n, dests, n_dests, iso,
				     elapsed_s);

		if (err)
			return err;
	}
	if (r->json)
		return write_rows(r, r->json, true, &r->json_failed, rows, n, dests, n_dests, iso,
				  elapsed_s);
	return 0;
}

void report_summary(FILE *f, const struct tt_row *rows, size_t n, double elapsed_s,
		    const struct tt_reason_names *names, bool reasons_available, bool waits_measured)
{
	bool accepted = false;

	fprintf(f, "\nTotals over %.1f s\n", elapsed_s);
	table_write_header(f, "total");
	for (size_t i = 0; i < n; i++)
		if (report_shows(&rows[i]))
			table_write_row(f, &rows[i]);
	write_block(f, &queue_failures, rows, n, true);
	write_block(f, &connect_failures, rows, n, true);
	write_block(f, &failures_before_syn, rows, n, true);
	write_block(f, &retransmits, rows, n, true);
	write_block(f, &latencies, rows, n, true);
	write_block(f, &accept_waits, rows, n, true);
	write_block(f, &handshakes, rows, n, true);

	for (size_t i = 0; i < n; i++) {
		accepted |= rows[i].c.conn[TT_SIDE_IN] > 0;
		uint64_t reasons[TT_REASON_SLOTS];

		if (!rows[i].c.rst_sent[TT_SIDE_IN] && !rows[i].c.rst_sent[TT_SIDE_OUT])
			continue;
		fprintf(f, "%7u %-9.9s RSTs sent by reason: ", rows[i].pid, rows[i].comm);
		row_reasons_total(&rows[i], reasons);
		write_reasons(f, reasons, names);
		fputc('\n', f);
	}
	/* Both came with Linux 6.10: before it, tcp_send_reset fires only for
	 * RSTs sent by full sockets. */
	if (!reasons_available)
		fprintf(f, "RST reasons are not available on this kernel (tcp_send_reset has no "
			   "reason before Linux 6.10)\n"
			   "RSTs sent by timewait sockets or for no socket are not seen on this "
			   "kernel (tcp_send_reset reports them from Linux 6.10): tw_rst stays 0\n");
	if (!waits_measured && accepted)
		fprintf(f, "Accept queue waits are not measured on this kernel (accept() is not "
			   "traced: no fexit on inet_csk_accept): the accept_wait columns stay 0\n");
	fflush(f);
}
void report_other_rsts(FILE *f, const struct tt_snapshot *first, const struct tt_snapshot *last,
		       const struct tt_reason_names *names)
{
	for (size_t i = 0; i < last->n_other; i++) {
		const struct tt_netns_rsts *ns = &last->other[i];
		uint64_t diff[TT_REASON_SLOTS], total = 0;

		for (size_t slot = 0; slot < TT_REASON_SLOTS; slot++) {
			diff[slot] = ns->reasons[slot];
			for (size_t j = 0; j < first->n_other; j++)
				if (first->other[j].netns == ns->netns)
					diff[slot] -= first->other[j].reasons[slot];
			total += diff[slot];
		}
		if (!total)
			continue;
		fprintf(f, "RSTs in no process row, network namespace %u: %" PRIu64 " (", ns->netns,
			total);
		write_reasons(f, diff, names);
		fputs(")\n", f);
	}
	fflush(f);
}

void report_dest_summary(FILE *f, const struct tt_dest_row *dests, size_t n)
{
	fprintf(f, "\nTotals by destination\n");
	table_write_dests(f, "total", dests, n);
	fflush(f);
}

void report_listeners(FILE *f, const struct tt_listener_row *l, size_t n, bool exact)
{
	bool any = false;

	for (size_t i = 0; i < n; i++) {
		char where[TT_DEST_LEN];
		struct tt_dest_row d = { .family = l[i].family, .port = l[i].port };

		if (!l[i].drops)
			continue;
		if (!any)
			fprintf(f, "\nListeners that dropped connection attempts\n"
				   "%7s %-9s %-21s %6s %5s %5s  %s\n", "PID", "COMM", "LISTENER",
				"drops", "peak", "limit", "shared with");
		any = true;
		memcpy(d.addr, l[i].addr, sizeof(d.addr));
		if (l[i].family)
			format_dest(where, sizeof(where), &d);
		else
			snprintf(where, sizeof(where), "port %u", l[i].port);
		fprintf(f, "%7u %-9.9s %-21s %6" PRIu64 " %5" PRIu64 " %5" PRIu64 " ", l[i].pid,
			l[i].comm, where, l[i].drops, l[i].peak_run, l[i].limit);
		for (size_t s = 0; s < l[i].n_sharers; s++)
			fprintf(f, " %u", l[i].sharers[s]);
		fputc('\n', f);
	}
	/* Before 6.11 the kernel does not say which packets a listener
	 * dropped; its own count is all there is. */
	if (any && !exact)
		fputs("A listener's drops are its own count (ss -ltm's d): on this kernel they may "
		      "exceed ListenDrops by third ACKs that found the queue full and by bare ACKs "
		      "under TCP_DEFER_ACCEPT (told apart from Linux 6.11 on)\n", f);
	fflush(f);
}

int report_findings(struct report *r, FILE *f, const struct findings_input *in)
{
	struct tt_finding v[64];
	size_t n = findings_collect(in, v, sizeof(v) / sizeof(v[0]));

	if (f && n) {
		fputc('\n', f);
		findings_write_text(f, v, n, r->names);
		fflush(f);
	}
	if (r->json && (findings_write_json(r->json, v, n, r->names) || fflush(r->json)))
		return -(errno ? errno : EIO);
	return 0;
}
