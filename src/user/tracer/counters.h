/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The BPF side's counting maps read as plain data, summed over CPUs:
 * per-process counters, RST reasons, destinations, the RSTs of no process,
 * drops, and the events the kernel skipped the programs for. */
#ifndef TT_COUNTERS_H
#define TT_COUNTERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>
#include "tcptrace.h"

struct tcptrace_bpf;

struct counters {
	struct tcptrace_bpf *skel;
	int ncpus;
	void *percpu; /* one value of the largest per-CPU map, for each CPU */
	struct tt_proc_counters *blocks; /* proc_counters, mapped: CPU after CPU */
	size_t blocks_bytes;
	size_t slots; /* blocks per CPU */
	struct tt_proc_times *times; /* proc_times, mapped: a slot each */
	size_t times_bytes;
};

/* RSTs sent by the processes' connections, per slot, side and reason. */
struct reason_count {
	uint32_t slot;
	uint8_t side;
	uint16_t reason;
	uint64_t count;
};

/* RSTs of no process, per namespace and reason. */
struct other_rst_count {
	uint32_t netns;
	uint16_t reason;
	uint64_t count;
};

struct dest_count {
	struct tt_dest_key key;
	struct tt_dest_counters c;
};

/* 0, or -errno with err set. */
int counters_open(struct counters *c, struct tcptrace_bpf *skel, char *err);
void counters_close(struct counters *c);

/* One slot's counters. 0, or -errno: a refused read must not pass for an
 * empty map (bpf() refuses map reads to a process without CAP_BPF on some
 * kernels, see privileges.h). */
int counters_of_slot(struct counters *c, uint32_t slot, struct tt_proc_counters *out);
/* One slot's times; the same. */
int counters_times_of_slot(struct counters *c, uint32_t slot, struct tt_proc_times *out);

/* Each returns how many entries it put in *out (NULL when none; free it). */
size_t counters_reasons(struct counters *c, struct reason_count **out);
size_t counters_other_rsts(struct counters *c, struct other_rst_count **out);
size_t counters_dests(struct counters *c, struct dest_count **out);

void counters_drops(struct counters *c, uint64_t drops[TT_DROPS]);

/* Events the kernel never gave a primary program, less those its twin
 * handled (--catch-nested), and in *ends, without --catch-nested, how many
 * of them were sockets' destructions; and those the twins handled. */
uint64_t counters_lost(struct counters *c, bool catch_nested, uint64_t *ends);
uint64_t counters_nested_caught(struct counters *c);

/* A slot's counters zeroed and its reasons and destinations deleted, for
 * the slot's next process. 0, or -errno (the counters untouched). */
int counters_clear_slot(struct counters *c, uint32_t slot);

#endif /* TT_COUNTERS_H */
