// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Process slots: which process each counter slot is (slot_owners, read in
 * place), the row each makes, and a slot's return to free_slots once its
 * process has gone and nothing can count there any more. A slot given back
 * makes a new row: rows are told apart by slot and by how many times the
 * slot was given back (struct tt_row's id), not by PID alone. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "proc_match.h"
#include "tcptrace.skel.h"
#include "tracer.h"
#include "tracer_priv.h"

int slots_open(struct tracer *t)
{
	struct bpf_map *map = t->skel->maps.slot_owners;
	size_t n = bpf_map__max_entries(map);
	void *owners;

	t->slot_views = calloc(n, sizeof(*t->slot_views));
	if (!t->slot_views)
		return tracer_fail(t, ENOMEM, "cannot hold the process slots");
	t->slot_owners_bytes = n * sizeof(struct tt_slot_owner);
	owners = mmap(NULL, t->slot_owners_bytes, PROT_READ | PROT_WRITE, MAP_SHARED,
		      bpf_map__fd(map), 0);
	if (owners == MAP_FAILED)
		return tracer_fail(t, errno, "cannot map the process slots");
	t->slot_owners = owners;
	t->n_slots = n;
	return 0;
}

void slots_close(struct tracer *t)
{
	if (t->slot_owners)
		munmap(t->slot_owners, t->slot_owners_bytes);
	t->slot_owners = NULL;
	free(t->slot_views);
	t->slot_views = NULL;
	t->n_slots = 0;
}

/* Whether slot has a row: a process, running or gone, not the self-check's. */
bool slot_has_row(const struct tracer *t, uint32_t slot)
{
	uint32_t state;

	if (slot >= t->n_slots)
		return false;
	state = __atomic_load_n(&t->slot_owners[slot].state, __ATOMIC_ACQUIRE);
	return state == TT_SLOT_LIVE || state == TT_SLOT_GONE;
}

/* The process name of a slot: the BPF side's copy when it made one (and
 * after a rename), else the one it records by PID, else /proc's while the
 * process runs; kept, since the process may go before its last count. */
static void name_slot(struct tracer *t, uint32_t slot, char comm[TT_COMM_LEN])
{
	const struct tt_slot_owner *owner = &t->slot_owners[slot];
	struct tt_slot_view *view = &t->slot_views[slot];
	int comms_fd = bpf_map__fd(t->skel->maps.proc_comms);

	if (owner->comm[0]) {
		memcpy(view->comm, owner->comm, TT_COMM_LEN);
	} else if (!view->comm[0] &&
		   bpf_map_lookup_elem(comms_fd, &owner->tgid, view->comm) &&
		   owner->state == TT_SLOT_LIVE &&
		   proc_read_comm("/proc", owner->tgid, view->comm, TT_COMM_LEN) == 0) {
		bpf_map_update_elem(comms_fd, &owner->tgid, view->comm, BPF_NOEXIST);
	}
	view->comm[TT_COMM_LEN - 1] = '\0';
	memcpy(comm, view->comm, TT_COMM_LEN);
	if (!comm[0])
		memcpy(comm, "?", 2);
}

struct tt_row *row_of_slot(struct tracer *t, struct tt_snapshot *snap, size_t sorted,
			   size_t *cap, uint32_t slot)
{
	struct tt_row *row;

	if (!slot_has_row(t, slot))
		return NULL;
	row = row_for(snap, sorted, cap, t->slot_owners[slot].tgid, slot_row_id(t, slot));
	if (row && !row->comm[0])
		name_slot(t, slot, row->comm);
	return row;
}

uint64_t slot_row_id(const struct tracer *t, uint32_t slot)
{
	return (uint64_t)t->slot_views[slot].gen << 32 | slot;
}

/* How many entries of the socket table hold slot, over every CPU. */
static int64_t sockets_holding(struct tracer *t, uint32_t slot, int64_t *percpu, int ncpus)
{
	int64_t sum = 0;

	if (bpf_map_lookup_elem(bpf_map__fd(t->skel->maps.slot_sockets), &slot, percpu))
		return -1;
	for (int cpu = 0; cpu < ncpus; cpu++)
		sum += percpu[cpu];
	return sum;
}

/* Every entry of a per-CPU map whose key starts with slot (rst_reasons,
 * dest_counters), deleted. */
void delete_entries_of(int fd, size_t key_size, uint32_t slot)
{
	__u8 key[sizeof(struct tt_dest_key)] = {}, next[sizeof(struct tt_dest_key)];
	bool first = true;

	while (bpf_map_get_next_key(fd, first ? NULL : key, next) == 0) {
		uint32_t head;

		memcpy(key, next, key_size);
		memcpy(&head, key, sizeof(head));
		/* After a delete the walk starts over: the key is gone. */
		first = head == slot && !bpf_map_delete_elem(fd, key);
	}
}

/* Slot back to free_slots, its counters zero, its row ended. */
static void give_back(struct tracer *t, uint32_t slot, void *zeros)
{
	struct tcptrace_bpf *skel = t->skel;
	struct tt_slot_owner *owner = &t->slot_owners[slot];

	if (bpf_map_update_elem(bpf_map__fd(skel->maps.proc_counters), &slot, zeros, BPF_ANY))
		return;
	delete_entries_of(bpf_map__fd(skel->maps.rst_reasons), sizeof(struct tt_reason_key), slot);
	delete_entries_of(bpf_map__fd(skel->maps.dest_counters), sizeof(struct tt_dest_key), slot);
	forget_tw_rsts_of(t, slot);
	memset(owner->comm, 0, sizeof(owner->comm));
	owner->tgid = 0;
	__atomic_store_n(&owner->state, TT_SLOT_FREE, __ATOMIC_RELEASE);
	memset(&t->slot_views[slot], 0, sizeof(t->slot_views[slot]));
	t->slot_views[slot].gen = ++t->slot_gens;
	if (bpf_map_update_elem(bpf_map__fd(skel->maps.free_slots), NULL, &slot, BPF_ANY))
		owner->state = TT_SLOT_FORGOTTEN; /* tried again at the next snapshot */
}

/* After each snapshot. A slot whose process has gone is given back once
 * no socket holds it and no timewait socket of it is left, and only when
 * slots run short: until then its row, with the counts of the process's
 * last connections, stays in every snapshot and in the run's summary. The
 * self-check's slots go back as soon as they can. A snapshot passes
 * between the sight of a gone process and the give-back, so that a
 * program that read the slot before the process went has ended. */
void slots_reclaim(struct tracer *t)
{
	int ncpus = libbpf_num_possible_cpus();
	size_t in_use = 0, low;
	uint32_t *tw_held = NULL;
	int64_t *percpu;
	void *zeros;

	if (ncpus <= 0)
		return;
	for (size_t slot = 0; slot < t->n_slots; slot++)
		in_use += t->slot_owners[slot].state != TT_SLOT_FREE;
	low = t->n_slots - in_use < (t->n_slots + 3) / 4;
	percpu = calloc(ncpus, sizeof(*percpu));
	zeros = calloc(ncpus, sizeof(struct tt_proc_counters));
	if (!percpu || !zeros)
		goto out;
	for (uint32_t slot = 0; slot < t->n_slots; slot++) {
		uint32_t state = __atomic_load_n(&t->slot_owners[slot].state, __ATOMIC_ACQUIRE);
		struct tt_slot_view *view = &t->slot_views[slot];

		if (state != TT_SLOT_GONE && state != TT_SLOT_FORGOTTEN)
			continue;
		if (!view->gone_seen) {
			view->gone_seen = true;
			continue;
		}
		if ((state == TT_SLOT_GONE && !low) || sockets_holding(t, slot, percpu, ncpus))
			continue;
		if (!tw_held) {
			tw_held = tw_owners_by_slot(t);
			if (!tw_held)
				goto out;
		}
		if (!tw_held[slot])
			give_back(t, slot, zeros);
	}
out:
	free(tw_held);
	free(percpu);
	free(zeros);
}
