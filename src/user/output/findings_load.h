/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Two findings about what a load run's latency holds that its figures do
 * not say: data segments sent again on one side of a process name (and
 * toward which destinations), and a load generator whose connects did not
 * all connect, or waited for a SYN sent again. Their facts, when they
 * make a finding, their words and their JSON fields; output/findings
 * collects them with the others. Pure. */
#ifndef TT_FINDINGS_LOAD_H
#define TT_FINDINGS_LOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "common/stats.h"
#include "output/table.h"

/* Segments sent again are a finding from this share of the data segments
 * sent, in thousandths, and this many: docs/diagnosing.md says why. */
#define TT_RETRANS_FINDING_PERMILLE 10
#define TT_RETRANS_FINDING_MIN 10

/* The destinations a segments finding names. */
#define TT_RETRANS_DESTS 3

struct tt_retrans_dest {
	char where[TT_DEST_LEN];
	uint64_t retrans, rto, sent;
};

/* Data segments sent again on one side of a name's processes. */
struct tt_retrans_facts {
	uint64_t retrans, rto; /* sent again; of them, after a retransmission timeout */
	uint64_t sent;         /* data segments of the side's connections that ended */
	/* Side out, --by dest: those it names, summed over the name's
	 * processes, the ones that make a finding first, most sent again
	 * first. */
	struct tt_retrans_dest dests[TT_RETRANS_DESTS];
	size_t n_dests;
};

/* Whether retrans of sent make a finding: at least TT_RETRANS_FINDING_MIN,
 * and the share at least TT_RETRANS_FINDING_PERMILLE, or not known yet
 * (fewer segments of connections that ended than sent again). */
bool findings_load_retrans_due(uint64_t retrans, uint64_t sent);

/* comm's destinations toward which segments were sent again, into r.
 * Returns whether one of them makes a finding by itself. */
bool findings_load_retrans_dests(struct tt_retrans_facts *r, const char *comm,
				 const struct tt_dest_row *dests, size_t n);

/* The finding's words after its processes; side: "client", "upstream", ... */
void findings_load_write_retrans(FILE *f, const struct tt_retrans_facts *r, const char *side);
/* Its JSON fields, each after a comma. */
void findings_load_json_retrans(FILE *f, const struct tt_retrans_facts *r);

/* A client (it accepted nothing) and its connects over the run. */
struct tt_client_facts {
	uint64_t connected; /* conn_out */
	uint64_t tried;     /* connected, failed (by cause, before or after the SYN), no port */
	uint64_t causes[TT_CONNFAILS];
	uint64_t no_port;      /* connect()'s EADDRNOTAVAIL */
	uint64_t bind_no_port; /* bind()'s EADDRINUSE at port 0 */
	uint64_t syn_retrans;
	uint64_t timed, slow; /* connects timed, and of them over 1 s */
	int p99, worst;       /* their buckets (common/connect_time.h) */
};

/* The facts of a name whose counters are c and connect buckets le; true
 * when they make a finding: it accepted nothing, and some connect did not
 * connect or took more than a second. */
bool findings_load_client_of(const struct tt_proc_counters *c,
			     const __u64 le[TT_CONNECT_BUCKETS], struct tt_client_facts *out);

void findings_load_write_client(FILE *f, const struct tt_client_facts *v);
void findings_load_json_client(FILE *f, const struct tt_client_facts *v);

#endif /* TT_FINDINGS_LOAD_H */
