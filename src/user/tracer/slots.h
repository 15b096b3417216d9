/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Process slots: which process each counter slot is (slot_owners, read in
 * place), its name, and a slot's return to free_slots once its process
 * has gone and nothing can count there any more. A slot given back makes
 * a new row: rows are told apart by slot and by how many times the slot
 * was given back (struct tt_row's id), not by PID alone. */
#ifndef TT_SLOTS_H
#define TT_SLOTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>
#include "tcptrace.h"
#include "common/cgroup_name.h"

struct tcptrace_bpf;

/* What user space keeps of a slot. */
struct slot_view {
	uint32_t gen;   /* which give-back of the slot its row is */
	bool gone_seen; /* its process was seen gone at a snapshot before */
	char comm[TT_COMM_LEN];
	char cgroup[TT_CGROUP_LABEL_LEN]; /* --by cgroup: its label, once known */
	uint64_t open_seeded[TT_SIDES]; /* its connections open at start-up */
};

struct slots {
	struct tcptrace_bpf *skel;
	struct tt_slot_owner *owners; /* the map, mapped: one per slot */
	size_t owners_bytes;
	struct slot_view *views;
	size_t n;      /* --max-procs */
	const int64_t *sockets; /* slot_sockets, mapped: n per CPU, CPU after CPU */
	size_t sockets_bytes;
	int ncpus;
	uint32_t gens; /* slots given back so far */
	struct cgroup_labels cgroups; /* --by cgroup: the ids' labels */
};

/* 0, or -errno with err set. */
int slots_open(struct slots *s, struct tcptrace_bpf *skel, char *err);
void slots_close(struct slots *s);

/* Whether slot has a row: a process, running or gone, not the self-check's. */
bool slots_has_row(const struct slots *s, uint32_t slot);
uint32_t slots_tgid(const struct slots *s, uint32_t slot);
/* The row's id: the slot and how many times slots were given back. */
uint64_t slots_row_id(const struct slots *s, uint32_t slot);
/* The process name of a slot ("?" when none could be had). */
void slots_name(struct slots *s, uint32_t slot, char comm[TT_COMM_LEN]);

/* --by cgroup: the label of the cgroup of a slot's process ("?" when it
 * could not be had). */
void slots_cgroup(struct slots *s, uint32_t slot, char label[TT_CGROUP_LABEL_LEN]);

/* The slot of process tgid, given now if it has none, as the BPF side
 * gives one (proc_find_slot in procs.bpf.h): for a process whose listener or
 * connections user space found. TT_NO_SLOT when the process is gone or no
 * slot is free. */
uint32_t slots_of_tgid(struct slots *s, uint32_t tgid);

/* The name of process pid as the BPF side recorded it, else read from
 * /proc now and recorded (the BPF side names the slot it gives the
 * process from it); 0, or -1 when neither has it. */
int slots_name_of_pid(struct slots *s, uint32_t pid, char comm[TT_COMM_LEN]);

/* After each snapshot: the slots that may be given back now, written to
 * out (at most max), their number returned. A slot whose process has gone
 * qualifies once no socket holds it, and only when slots run short: until
 * then its row, with the counts of the process's last connections, stays
 * in every snapshot and in the run's summary. The self-check's slots
 * qualify as soon as they can. A snapshot passes between the sight of a
 * gone process and its slot's turn, so that a program that read the slot
 * before the process went has ended. The caller still checks that no
 * timewait socket of the slot is left. */
size_t slots_reclaimable(struct slots *s, uint32_t *out, size_t max);

/* The slot back to free_slots, its row ended (its counters cleared by the
 * caller first). */
void slots_give_back(struct slots *s, uint32_t slot);

/* The self-check's slot: in no row from now on, given back when it can. */
void slots_forget(struct slots *s, uint32_t slot);

#endif /* TT_SLOTS_H */
