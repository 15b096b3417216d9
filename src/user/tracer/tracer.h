/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The tracer: the BPF side's life cycle (tracer.c) and the snapshot of
 * its maps (snapshot.c), over the modules that each read one part of them
 * and return plain data: counters.c, slots.c, timewait.c, listeners.c,
 * and seed.c, which writes the sockets from before the start. */
#ifndef TT_TRACER_H
#define TT_TRACER_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "common/fail.h"
#include "common/stats.h"
#include "tracer/acceptors.h"
#include "tracer/counters.h"
#include "tracer/listeners.h"
#include "tracer/namespaces.h"
#include "tracer/slots.h"
#include "tracer/syscall_hooks.h"
#include "tracer/timewait.h"
#include "tracer/verifier_log.h"

struct tcptrace_bpf;
struct bpf_link;

/* What to trace, and how much room the maps have. */
struct tracer_config {
	const uint32_t *pids;              /* traced by PID */
	size_t n_pids;
	const char (*comms)[TT_COMM_LEN]; /* traced by name */
	size_t n_comms;                   /* neither: every process */
	int scope_cgroup_fd;              /* --cgroup, --unit: -1 for none */
	uint32_t scope_netns;             /* --netns: its inode, 0 for none */
	const char *scope_netns_path;     /* --netns: the file that names it */
	uint32_t max_sockets;
	uint32_t max_procs;
	bool by_dest;      /* --by dest: destination rows in each snapshot */
	bool by_cgroup;    /* --by cgroup: each process row's cgroup label */
	bool catch_nested; /* --catch-nested: the twins are attached */
	bool verbose;      /* --verbose: the verifier's statistics are kept */
};

/* What the verifier spent on one loaded program (--verbose). */
struct tracer_prog_stats {
	const char *name;
	struct tt_verifier_stats verifier;
};

/* Where the kernel functions whose drops kfree_skb tells apart lie
 * (queues.bpf.h), looked up on a thread while the programs load. */
struct drop_sites {
	pthread_t thread;
	bool looking; /* the thread runs or has not been joined */
	int found;
	uint64_t start[TT_DROP_SITES], end[TT_DROP_SITES];
};

/* The queue of free process slots, a map update per slot (--max-procs of
 * them): made before the load and filled on a thread meanwhile. */
struct slot_fill {
	pthread_t thread;
	bool running; /* the thread runs or has not been joined */
	bool made;    /* fd is the queue, made here and given to libbpf */
	int fd;
	uint32_t slots;
	int err;      /* the errno of an update that failed */
};

struct tracer {
	struct tracer_config cfg;
	struct tcptrace_bpf *skel;
	struct bpf_link *links[24];
	size_t n_links;
	struct tracer_prog_stats prog_stats[32]; /* --verbose: one per loaded program */
	size_t n_prog_stats;
	bool reasons_available; /* tcp_send_reset carries enum sk_rst_reason */
	bool listen_drops_exact; /* drops that were no connection attempt are told apart */
	bool cookies_mark;       /* followed sockets are marked by their cookies */
	struct drop_sites sites;
	struct slot_fill fill;
	struct tt_reason_names reason_names;
	struct namespaces netns;
	struct counters counters;
	struct slots slots;
	struct timewait tw;
	struct listeners listeners;
	struct acceptors acceptors; /* how the process that accepted a connection is named */
	struct syscall_hooks syscalls; /* connect()'s and bind()'s own results */
	const uint32_t *selected; /* PIDs named by --pid, shown every interval */
	size_t n_selected;
	char (*selected_comms)[TT_COMM_LEN]; /* their names, kept once read */
	uint64_t seeded;                     /* sockets found at start-up */
	char err[TT_ERR_LEN];                /* the failed step and why, for the caller */
};

/* Each returns 0, or -errno with t->err set. cfg is copied; its arrays
 * must live as long as t. */
int tracer_open(struct tracer *t, const struct tracer_config *cfg);
int tracer_load(struct tracer *t);
int tracer_set_targets(struct tracer *t);
/* Sockets already there: of pids, or of every process but the hidden
 * ones (the self-check's) with all. */
int tracer_seed(struct tracer *t, const uint32_t *pids, size_t n_pids, bool all,
		const uint32_t *hidden, size_t n_hidden);
int tracer_attach(struct tracer *t);
/* Once privileges are dropped: the read hook follows the listeners'
 * sharing from a thread of its own (acceptors.c). */
int tracer_watch(struct tracer *t);
/* How acceptors are named on this kernel, for the start-up line. */
const char *tracer_acceptors(const struct tracer *t);
/* NULL when the syscall hooks of connect() and bind() are attached, else
 * why not, for the start-up line. */
const char *tracer_syscall_hooks_missing(const struct tracer *t);
/* Whether accept() is traced, and with it each connection's wait in its
 * listener's queue (the accept_wait columns). */
bool tracer_times_accepts(const struct tracer *t);
/* Times the read hook could not be attached while it was needed, and the
 * last errno; connections of shared listeners were then named at their close. */
uint64_t tracer_read_hook_failures(const struct tracer *t, int *error);
/* A map's descriptor, for privileges_drop's probe. */
int tracer_map_fd(struct tracer *t);
/* The self-check's processes (selfcheck.c): traced whatever --pid says,
 * their counters read, then every trace of them removed. */
int tracer_trace_pid(struct tracer *t, uint32_t pid);
int tracer_counters_of(struct tracer *t, uint32_t pid, struct tt_proc_counters *out);
void tracer_forget_pid(struct tracer *t, uint32_t pid);
/* Read every counter into snap (rows allocated, free with snapshot_free). */
int tracer_snapshot(struct tracer *t, struct tt_snapshot *snap);
/* Kernel memory held by the BPF maps (their fdinfo memlock), in bytes. */
uint64_t tracer_map_bytes(struct tracer *t);
/* Tests: detaches the program of that name, as a kernel that stops giving
 * it events would. */
void tracer_test_detach(struct tracer *t, const char *name);
/* Connections whose socket's destruction no program ran for, found when a
 * new socket took the address, or by tracer_sweep. */
uint64_t tracer_ends_unseen(const struct tracer *t);
/* Looks through the socket table for sockets gone with their entry still
 * there (sweep_sockets_gone), once, at the end: before
 * tracer_ends_unseen, which then counts them. Returns 0 or -errno. */
int tracer_sweep(struct tracer *t);
/* Segments sent again whose event no program handled, counted from the
 * socket's own count at its next one or at the connection's end. */
uint64_t tracer_retrans_late(const struct tracer *t);
/* Every entry still in the socket table, a line each (tests: a connection
 * whose end went uncounted). */
void tracer_print_sockets_left(struct tracer *t, FILE *f);
/* Events the twins of --catch-nested handled for their primaries. */
uint64_t tracer_nested_caught(struct tracer *t);
void tracer_close(struct tracer *t);

void snapshot_free(struct tt_snapshot *snap);

#endif /* TT_TRACER_H */
