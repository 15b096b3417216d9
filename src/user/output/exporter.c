// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* --listen: ties the counters per process name (metrics.c) to the HTTP
 * server (http.c). The text is made at each scrape, in the format the
 * scraper asked for, from the sums of the last completed interval. */
#include <arpa/inet.h>
#include <errno.h>
#include <string.h>
#include <netinet/in.h>
#include "output/exporter.h"
#include "output/metrics_render.h"

static char *render(void *ctx, bool openmetrics, size_t *len)
{
	const struct exporter *e = ctx;

	return metrics_render(&e->metrics, e->names, TCPTRACE_VERSION,
			      openmetrics ? METRICS_OPENMETRICS : METRICS_TEXT, len);
}

int exporter_open(struct exporter *e, const struct tt_listen *l, uint32_t max_comms,
		  bool by_dest, bool by_cgroup, const struct tt_reason_names *names, char *err,
		  size_t errlen)
{
	struct sockaddr_in6 a6 = { .sin6_family = AF_INET6, .sin6_port = htons(l->port) };
	struct sockaddr_in a4 = { .sin_family = AF_INET, .sin_port = htons(l->port) };

	memset(e, 0, sizeof(*e));
	e->names = names;
	metrics_init(&e->metrics, max_comms);
	e->metrics.by_dest = by_dest;
	e->metrics.by_cgroup = by_cgroup;
	if (l->family == AF_INET6) {
		memcpy(&a6.sin6_addr, l->addr, sizeof(a6.sin6_addr));
		return http_server_open(&e->http, (struct sockaddr *)&a6, sizeof(a6), render, e,
					err, errlen);
	}
	memcpy(&a4.sin_addr, l->addr, sizeof(a4.sin_addr));
	return http_server_open(&e->http, (struct sockaddr *)&a4, sizeof(a4), render, e, err,
				errlen);
}

void exporter_interval(struct exporter *e, const struct tt_row *rows, size_t n,
		       const struct tt_dest_row *dests, size_t n_dests,
		       const struct tt_snapshot *prev, const struct tt_snapshot *cur)
{
	metrics_add_interval(&e->metrics, rows, n, prev, cur);
	if (e->metrics.by_dest)
		metrics_add_dests(&e->metrics, dests, n_dests);
}

int exporter_wait(struct exporter *e, uint64_t deadline_ns, const sigset_t *wait_mask)
{
	return http_server_run(e->http, deadline_ns, wait_mask);
}

const char *exporter_address(const struct exporter *e)
{
	return http_server_address(e->http);
}

void exporter_close(struct exporter *e)
{
	http_server_close(e->http);
	e->http = NULL;
	metrics_free(&e->metrics);
}
