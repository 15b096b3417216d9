/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* --listen: the /metrics endpoint, fed once per interval and served while
 * the main loop waits for the next one. */
#ifndef TT_EXPORTER_H
#define TT_EXPORTER_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "output/csv.h"
#include "output/metrics.h"
#include "output/http.h"
#include "common/stats.h"

struct http_server;

struct exporter {
	struct http_server *http;
	struct tt_metrics metrics;
	const struct tt_reason_names *names; /* filled in later by the tracer */
};

/* Bind and listen on l (before privileges are dropped); series for at
 * most max_comms process names (pairs of name and cgroup with by_cgroup),
 * and per destination with by_dest. Returns 0, or -errno with one line in
 * err. */
int exporter_open(struct exporter *e, const struct tt_listen *l, uint32_t max_comms,
		  bool by_dest, bool by_cgroup, const struct tt_reason_names *names, char *err,
		  size_t errlen);

/* Add one interval: rows = snapshot_diff(prev, cur), dests = dests_diff
 * of the two (none without --by dest). */
void exporter_interval(struct exporter *e, const struct tt_row *rows, size_t n,
		       const struct tt_dest_row *dests, size_t n_dests,
		       const struct tt_snapshot *prev, const struct tt_snapshot *cur);

/* Answer scrapes until CLOCK_MONOTONIC reaches deadline_ns (returns 0) or
 * a signal handler has run (returns -EINTR); wait_mask as in http.h. */
int exporter_wait(struct exporter *e, uint64_t deadline_ns, const sigset_t *wait_mask);

/* Where /metrics is served: "127.0.0.1:9477" or "[::1]:9477". */
const char *exporter_address(const struct exporter *e);

void exporter_close(struct exporter *e);

#endif /* TT_EXPORTER_H */
