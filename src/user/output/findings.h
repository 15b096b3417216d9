/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* What went wrong in a run, from its totals alone: one finding per problem
 * and process name and instance (or listener), with its numbers, the knob
 * to look at (nginx's and haproxy's own directives where the name says
 * which) and the section of docs/diagnosing.md that explains it. Nothing
 * when nothing is wrong. Pure: no libbpf, no globals. */
#ifndef TT_FINDINGS_H
#define TT_FINDINGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "common/stats.h"
#include "output/findings_load.h"
#include "output/table.h"

enum tt_finding_kind {
	TT_FINDING_LISTEN_DROPS,    /* a listener dropped connection attempts */
	TT_FINDING_SYN_RETRIES,     /* connect()s whose SYN was sent again */
	TT_FINDING_SYNACK_RETRIES,  /* listeners whose SYN-ACK was sent again */
	TT_FINDING_NO_PORT,         /* connect() or bind() found no free local port */
	TT_FINDING_CONNECT_FAILED,  /* connect() got a port but no connection */
	TT_FINDING_BEFORE_SYN,      /* connect() refused before any SYN */
	TT_FINDING_TIMEWAIT,        /* TIME_WAIT left on one side */
	TT_FINDING_RSTS,            /* connections ended by an RST it sent, on one side */
	TT_FINDING_RETRANS,         /* data segments sent again, on one side */
	TT_FINDING_LOAD_CLIENT,     /* a client's connects that did not connect, or waited */
	TT_FINDING_KINDS,
};

/* Below these, TIME_WAIT is no finding: a few connections closed first.
 * On the connecting side it is one all the same when connect() found no
 * free port: then it is what holds the ports. */
#define TT_FINDING_MIN_TIMEWAIT 100

/* The PIDs a finding keeps (JSON "pids"), and names in its line. */
#define TT_FINDING_PIDS 16
#define TT_FINDING_PIDS_SHOWN 4

#define TT_FINDING_DESTS 3

struct tt_finding_dest {
	char where[TT_DEST_LEN];
	uint64_t count;
	uint64_t causes[TT_CONNFAILS];
};

struct tt_finding {
	enum tt_finding_kind kind;
	int side;                  /* TT_SIDE_IN or TT_SIDE_OUT; -1: none */
	char comm[TT_COMM_LEN];
	size_t n_pids;             /* processes of that name it sums */
	uint32_t pid;              /* the first (the listener's owner) */
	uint32_t pids[TT_FINDING_PIDS]; /* the first TT_FINDING_PIDS of them */
	bool proxy;                /* the name both accepts and connects */
	uint64_t count;            /* the finding's number (drops, SYNs, sockets, RSTs, segments,
				    * connections) */
	char where[TT_DEST_LEN];   /* the listener, or the destination; "" if none */
	uint64_t peak, limit, somaxconn;          /* TT_FINDING_LISTEN_DROPS */
	size_t n_sharers;
	uint32_t sharers[TT_MAX_SHARERS];
	uint64_t ports_free, ports_held;          /* --by dest */
	double runout_s;
	uint64_t reasons[TT_REASON_SLOTS];        /* TT_FINDING_RSTS, by reason */
	uint64_t eaddrnotavail, eaddrinuse;       /* TT_FINDING_NO_PORT: its count's parts */
	/* TT_FINDING_CONNECT_FAILED (causes before TT_CONNFAIL_BEFORE_SYN) and
	 * TT_FINDING_BEFORE_SYN (the others): its count by cause. */
	uint64_t causes[TT_CONNFAILS];
	/* With --by dest: the destinations with the most of those failed
	 * connects, over every process of the name, most first. */
	struct tt_finding_dest fail_dests[TT_FINDING_DESTS];
	size_t n_fail_dests;
	/* TT_FINDING_SYN_RETRIES: its connects' latency buckets, and the
	 * listener that dropped most connection attempts in the run ("" if
	 * none) with how many (drops_seen). */
	__u64 connect_le[TT_CONNECT_BUCKETS];
	/* TT_FINDING_LISTEN_DROPS: the accept waits of the name's processes,
	 * where accept() is traced (all 0 elsewhere). */
	__u64 accept_le[TT_CONNECT_BUCKETS];
	/* TT_FINDING_SYNACK_RETRIES: the handshakes its listeners completed. */
	__u64 handshake_le[TT_CONNECT_BUCKETS];
	char dropped_at[TT_DEST_LEN];
	char dropped_by[TT_COMM_LEN];
	uint64_t drops_seen;
	struct tt_retrans_facts retrans;  /* TT_FINDING_RETRANS */
	struct tt_client_facts client;    /* TT_FINDING_LOAD_CLIENT */
};

struct findings_input {
	const struct tt_row *rows; /* totals over the run */
	size_t n;
	const struct tt_dest_row *dests; /* totals per destination (--by dest) */
	size_t n_dests;
	const struct tt_listener_row *listeners; /* drops over the run */
	size_t n_listeners;
};

/* The run's findings, at most max, in the order of enum tt_finding_kind. */
size_t findings_collect(const struct findings_input *in, struct tt_finding *out, size_t max);

/* Where the findings send a reader: docs/diagnosing.md as `make install`
 * and the Debian package install it, under the prefix (/usr/share/doc/...
 * from the package, /usr/local/share/doc/... from make install). */
#define TT_FINDINGS_DOC "share/doc/tcptrace-bpf/diagnosing.md"

/* The section of TT_FINDINGS_DOC a finding's kind links. */
const char *finding_anchor(enum tt_finding_kind kind);
/* Its kind as JSON and /metrics name it ("listen_drops"). */
const char *finding_name(enum tt_finding_kind kind);

/* One line each, in an operator's words. names: the RST reasons' names. */
void findings_write_text(FILE *f, const struct tt_finding *v, size_t n,
			 const struct tt_reason_names *names);

/* One JSON object each, a line each ({"finding": ...}). Returns 0, or -1
 * on a write error. */
int findings_write_json(FILE *f, const struct tt_finding *v, size_t n,
			const struct tt_reason_names *names);

#endif /* TT_FINDINGS_H */
