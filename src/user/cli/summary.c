// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The summary at the end of a run: totals, listeners, destinations,
 * findings, and on stderr what was lost and what tcptrace used. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli/summary.h"
#include "common/procfs.h"
#include "output/findings.h"

void summary_print(struct tracer *t, struct report *rep, const struct tt_snapshot *first,
		   const struct tt_snapshot *last, FILE *f)
{
	struct tt_row *totals = calloc(last->n ? last->n : 1, sizeof(*totals));
	struct tt_listener_row *listeners =
		calloc(last->n_listeners ? last->n_listeners : 1, sizeof(*listeners));
	struct findings_input found = {};
	static const char *const drop_what[TT_DROPS] = {
		[TT_DROP_SOCK_MAP_FULL] = "sockets not followed, the socket map was full: raise --max-sockets",
		[TT_DROP_PROC_MAP_FULL] = "events lost, the process map was full: raise --max-procs",
		[TT_DROP_TW_MAP_FULL] = "timewait owners not recorded: raise --max-sockets",
		[TT_DROP_REASON_MAP_FULL] = "RST reasons not counted: raise --max-procs",
		[TT_DROP_DEST_MAP_FULL] = "destination rows not counted: raise --max-procs",
		[TT_DROP_LISTENER_RECORD] = "listener closes not recorded: their last drops lost",
	};
	struct tt_dest_row *dests = calloc(last->n_dests ? last->n_dests : 1, sizeof(*dests));
	uint64_t lost, ends_lost, unattached;
	int attach_error, swept;
	size_t n;

	if (!totals || !dests || !listeners) {
		free(totals);
		free(dests);
		free(listeners);
		return;
	}
	found.rows = totals;
	found.n = n = snapshot_diff(first, last, totals, last->n);
	for (size_t i = 0; i < n; i++)
		totals[i].instance = proc_instance("/proc", totals[i].pid, totals[i].comm);
	found.listeners = listeners;
	found.n_listeners = listeners_diff(first, last, listeners, last->n_listeners);
	report_summary(f, totals, n, (double)(last->mono_ns - first->mono_ns) / 1e9,
		       &t->reason_names, t->reasons_available, tracer_times_accepts(t));
	report_listeners(f, listeners, found.n_listeners, t->listen_drops_exact);
	if (t->cfg.by_dest) {
		found.dests = dests;
		found.n_dests = dests_diff(first, last, dests, last->n_dests);
		report_dest_summary(f, dests, found.n_dests);
	}
	report_other_rsts(f, first, last, &t->reason_names);
	if (report_findings(rep, f, &found))
		fprintf(stderr, "tcptrace: cannot write the findings to the JSON lines\n");
	for (int i = 0; i < TT_DROPS; i++)
		if (last->drops[i] > first->drops[i])
			fprintf(stderr, "tcptrace: %llu %s\n",
				(unsigned long long)(last->drops[i] - first->drops[i]), drop_what[i]);
	lost = last->lost - first->lost;
	ends_lost = last->lost_ends - first->lost_ends;
	if (lost)
		fprintf(stderr, "tcptrace: %llu events lost: the kernel skipped a program already "
				"running on the same CPU%s\n", (unsigned long long)lost,
			t->cfg.catch_nested ? "" : " (--catch-nested catches most)");
	if (ends_lost)
		fprintf(stderr, "tcptrace: %llu of them sockets' ends: the close of any "
				"followed one among them is not counted\n", (unsigned long long)ends_lost);
	swept = tracer_sweep(t);
	if (swept)
		fprintf(stderr, "tcptrace: cannot look for connections whose end no program saw "
				"(%s)\n", strerror(-swept));
	if (tracer_ends_unseen(t))
		fprintf(stderr, "tcptrace: %llu connections' ends not counted: no program ran for "
				"their sockets' destruction\n", (unsigned long long)tracer_ends_unseen(t));
	if (tracer_retrans_late(t))
		fprintf(stderr, "tcptrace: %llu data segments sent again were counted late, from their "
				"socket's own count: no program ran for their events\n",
			(unsigned long long)tracer_retrans_late(t));
	unattached = tracer_read_hook_failures(t, &attach_error);
	if (unattached)
		fprintf(stderr, "tcptrace: the read hook could not be attached %llu times (%s): "
				"connections of shared listeners were counted at their close\n",
			(unsigned long long)unattached, strerror(attach_error));
	if (t->cfg.catch_nested)
		fprintf(stderr, "tcptrace: %llu events nested in a running program, counted by "
				"its twin (--catch-nested)\n",
			(unsigned long long)tracer_nested_caught(t));
	free(totals);
	free(dests);
	free(listeners);
}


/* VmHWM of /proc/self/status, in KiB (0 if unreadable). */
static uint64_t peak_rss_kib(void)
{
	uint64_t kib = 0;

	proc_read_field("/proc/self/status", "VmHWM:", &kib);
	return kib;
}


void summary_print_resources(struct tracer *t, uint32_t max_sockets)
{
	fprintf(stderr, "tcptrace: BPF maps %.1f MiB (--max-sockets %u), peak RSS %.1f MiB\n",
		(double)tracer_map_bytes(t) / (1 << 20), max_sockets, (double)peak_rss_kib() / 1024);
}
