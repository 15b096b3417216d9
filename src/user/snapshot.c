// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The reading of the BPF side's maps into a plain snapshot (stats.h): the
 * per-process counters, RST reasons, the RSTs of no process, destinations
 * and drops, each row named; timewait.c adds tw_now and tw_rst. Also the
 * self-check's reads of its own processes and the removal of every trace
 * of them. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "proc_match.h"
#include "tcptrace.skel.h"
#include "tracer.h"
#include "tracer_priv.h"

static int cmp_row_key(const struct tt_row *row, uint32_t pid, uint64_t id)
{
	if (row->pid != pid)
		return row->pid < pid ? -1 : 1;
	return row->id < id ? -1 : row->id > id;
}

/* The row of pid and id: binary search over the sorted part, then the few
 * rows appended since the last sort. */
struct tt_row *row_for(struct tt_snapshot *snap, size_t sorted, size_t *cap, uint32_t pid,
		       uint64_t id)
{
	size_t lo = 0, hi = sorted;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int cmp = cmp_row_key(&snap->rows[mid], pid, id);

		if (!cmp)
			return &snap->rows[mid];
		if (cmp < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = sorted; i < snap->n; i++)
		if (!cmp_row_key(&snap->rows[i], pid, id))
			return &snap->rows[i];
	if (snap->n == *cap) {
		size_t new_cap = *cap ? *cap * 2 : 64;
		struct tt_row *rows = realloc(snap->rows, new_cap * sizeof(*rows));

		if (!rows)
			return NULL;
		snap->rows = rows;
		*cap = new_cap;
	}
	memset(&snap->rows[snap->n], 0, sizeof(snap->rows[0]));
	snap->rows[snap->n].pid = pid;
	snap->rows[snap->n].id = id;
	return &snap->rows[snap->n++];
}

/* Add ncpus per-CPU copies of a struct of __u64 words (size bytes each) to dst. */
static void sum_percpu_words(void *dst, const void *percpu, size_t size, int ncpus)
{
	const __u64 *src = percpu;
	__u64 *out = dst;

	for (int cpu = 0; cpu < ncpus; cpu++)
		for (size_t i = 0; i < size / sizeof(__u64); i++)
			out[i] += src[(size_t)cpu * (size / sizeof(__u64)) + i];
}

int tracer_trace_pid(struct tracer *t, uint32_t pid)
{
	__u8 one = 1;

	if (bpf_map_update_elem(bpf_map__fd(t->skel->maps.traced_pids), &pid, &one, BPF_ANY) ||
	    bpf_map_update_elem(bpf_map__fd(t->skel->maps.verdicts), &pid, &one, BPF_ANY))
		return tracer_fail(t, errno, "cannot store the self-check's processes");
	__atomic_fetch_add(&t->skel->bss->procs_gen, 1, __ATOMIC_SEQ_CST);
	return 0;
}

int tracer_counters_of(struct tracer *t, uint32_t pid, struct tt_proc_counters *out)
{
	int ncpus = libbpf_num_possible_cpus();
	struct tt_proc_counters *percpu;
	__u32 slot;

	memset(out, 0, sizeof(*out));
	if (ncpus < 0)
		return tracer_fail(t, ncpus, "cannot count CPUs");
	if (bpf_map_lookup_elem(bpf_map__fd(t->skel->maps.proc_slots), &pid, &slot))
		return errno == ENOENT ? 0 : tracer_fail(t, errno, "cannot read counters");
	percpu = calloc(ncpus, sizeof(*percpu));
	if (!percpu)
		return tracer_fail(t, ENOMEM, "cannot read counters");
	if (bpf_map_lookup_elem(bpf_map__fd(t->skel->maps.proc_counters), &slot, percpu))
		return free(percpu), tracer_fail(t, errno, "cannot read counters");
	sum_percpu_words(out, percpu, sizeof(*out), ncpus);
	free(percpu);
	out->tw_rst += tw_rst_of(t, slot);
	return 0;
}

/* The self-check's processes leave no row: their slots are given back
 * once nothing holds them (slots.c), their timewait owners go now. */
void tracer_forget_pid(struct tracer *t, uint32_t pid)
{
	struct tcptrace_bpf *skel = t->skel;
	__u32 slot;

	if (!bpf_map_lookup_elem(bpf_map__fd(skel->maps.proc_slots), &pid, &slot) &&
	    slot < t->n_slots) {
		__atomic_store_n(&t->slot_owners[slot].state, TT_SLOT_FORGOTTEN, __ATOMIC_RELEASE);
		forget_tw_owners_of(t, slot);
	}
	bpf_map_delete_elem(bpf_map__fd(skel->maps.proc_slots), &pid);
	bpf_map_delete_elem(bpf_map__fd(skel->maps.proc_comms), &pid);
	bpf_map_delete_elem(bpf_map__fd(skel->maps.traced_pids), &pid);
	bpf_map_delete_elem(bpf_map__fd(skel->maps.verdicts), &pid);
	__atomic_fetch_add(&skel->bss->procs_gen, 1, __ATOMIC_SEQ_CST);
}

/* Every slot's counters, a row each for a process running or gone. */
static int read_counters(struct tracer *t, struct tt_snapshot *snap, size_t *cap, int ncpus)
{
	int counters_fd = bpf_map__fd(t->skel->maps.proc_counters);
	struct tt_proc_counters *percpu = calloc(ncpus, sizeof(*percpu));
	int err = 0;

	if (!percpu)
		return -ENOMEM;
	for (__u32 slot = 0; slot < t->n_slots; slot++) {
		struct tt_row *row;

		if (!slot_has_row(t, slot))
			continue;
		/* A refused read must not pass for an empty map: a table of
		 * zeros would follow (bpf() refuses map reads to a process
		 * without CAP_BPF on some kernels, see privileges.h). */
		if (bpf_map_lookup_elem(counters_fd, &slot, percpu)) {
			err = -errno;
			break;
		}
		/* Each slot once: no row to find, all sorted is new. */
		row = row_of_slot(t, snap, snap->n, cap, slot);
		if (!row) {
			err = -ENOMEM;
			break;
		}
		sum_percpu_words(&row->c, percpu, sizeof(row->c), ncpus);
	}
	free(percpu);
	return err;
}

/* The value of key in a per-CPU map of __u64, summed over CPUs; buf holds
 * ncpus values. Returns -1 when the key is gone. */
static int lookup_percpu_sum(int fd, const void *key, __u64 *buf, int ncpus, uint64_t *sum)
{
	if (bpf_map_lookup_elem(fd, key, buf))
		return -1;
	*sum = 0;
	for (int cpu = 0; cpu < ncpus; cpu++)
		*sum += buf[cpu];
	return 0;
}

static void read_reasons(struct tracer *t, struct tt_snapshot *snap, size_t sorted, size_t *cap,
			 int ncpus)
{
	int fd = bpf_map__fd(t->skel->maps.rst_reasons);
	struct tt_reason_key key, *prev = NULL;
	__u64 *percpu = calloc(ncpus, sizeof(*percpu));

	if (!percpu)
		return;
	while (bpf_map_get_next_key(fd, prev, &key) == 0) {
		struct tt_row *row;
		uint64_t sum;

		prev = &key;
		if (lookup_percpu_sum(fd, &key, percpu, ncpus, &sum))
			continue;
		row = row_of_slot(t, snap, sorted, cap, key.slot);
		if (row)
			row->reasons[key.side & 1][reason_slot(key.reason)] += sum;
	}
	free(percpu);
}

/* The other RSTs of namespace netns in snap, added if missing. */
static struct tt_netns_rsts *other_rsts_of(struct tt_snapshot *snap, uint32_t netns)
{
	struct tt_netns_rsts *v;

	for (size_t i = 0; i < snap->n_other; i++)
		if (snap->other[i].netns == netns)
			return &snap->other[i];
	v = realloc(snap->other, (snap->n_other + 1) * sizeof(*v));
	if (!v)
		return NULL;
	snap->other = v;
	v = &v[snap->n_other++];
	memset(v, 0, sizeof(*v));
	v->netns = netns;
	return v;
}

/* other_rsts, and the RSTs of timewait sockets whose owner user space did
 * not know (timewait.c). */
static void read_other_rsts(struct tracer *t, struct tt_snapshot *snap, int ncpus)
{
	int fd = bpf_map__fd(t->skel->maps.other_rsts);
	struct tt_other_rst_key key, *prev = NULL;
	__u64 *percpu = calloc(ncpus, sizeof(*percpu));
	struct tt_netns_rsts *ns;

	if (!percpu)
		return;
	while (bpf_map_get_next_key(fd, prev, &key) == 0) {
		uint64_t sum;

		prev = &key;
		if (lookup_percpu_sum(fd, &key, percpu, ncpus, &sum))
			continue;
		ns = other_rsts_of(snap, key.netns);
		if (!ns)
			break;
		ns->reasons[reason_slot(key.reason)] += sum;
	}
	free(percpu);
	for (size_t i = 0; i < t->n_tw_other_rsts; i++) {
		const struct tt_tw_count *c = &t->tw_other_rsts[i];

		ns = other_rsts_of(snap, c->id);
		if (ns)
			ns->reasons[reason_slot(c->reason)] += c->count;
	}
}

static void read_dests(struct tracer *t, struct tt_snapshot *snap, size_t sorted,
		       size_t *rows_cap, int ncpus)
{
	int fd = bpf_map__fd(t->skel->maps.dest_counters);
	struct tt_dest_counters *percpu = calloc(ncpus, sizeof(*percpu));
	struct tt_dest_key key, *prev = NULL;
	size_t cap = 0;

	if (!percpu)
		return;
	while (bpf_map_get_next_key(fd, prev, &key) == 0) {
		struct tt_dest_row *row;
		const struct tt_row *proc;

		prev = &key;
		proc = row_of_slot(t, snap, sorted, rows_cap, key.slot);
		if (!proc || bpf_map_lookup_elem(fd, &key, percpu))
			continue;
		if (snap->n_dests == cap) {
			size_t new_cap = cap ? cap * 2 : 64;
			struct tt_dest_row *v = realloc(snap->dests, new_cap * sizeof(*v));

			if (!v)
				break;
			snap->dests = v;
			cap = new_cap;
		}
		row = &snap->dests[snap->n_dests++];
		memset(row, 0, sizeof(*row));
		row->pid = proc->pid;
		row->id = proc->id;
		memcpy(row->comm, proc->comm, sizeof(row->comm));
		row->netns = key.netns;
		row->family = key.family;
		row->port = key.port;
		memcpy(row->addr, key.addr, sizeof(row->addr));
		sum_percpu_words(&row->c, percpu, sizeof(row->c), ncpus);
	}
	free(percpu);
	dests_sort(snap->dests, snap->n_dests);
}

static void read_drops(struct tracer *t, struct tt_snapshot *snap, int ncpus)
{
	int fd = bpf_map__fd(t->skel->maps.drop_counts);
	__u64 *percpu = calloc(ncpus, sizeof(*percpu));

	if (!percpu)
		return;
	for (__u32 key = 0; key < TT_DROPS; key++)
		lookup_percpu_sum(fd, &key, percpu, ncpus, &snap->drops[key]);
	free(percpu);
	snap->drops[TT_DROP_TW_MAP_FULL] += t->tw_unrecorded;
}

/* --pid PID shows the process every interval: a row of zeros while it
 * has no slot, under an id no slot's row has. */
#define TT_ROW_ID_NO_SLOT (1ull << 63)

static void add_selected_row(struct tt_snapshot *snap, size_t *cap, uint32_t pid)
{
	for (size_t i = 0; i < snap->n; i++)
		if (snap->rows[i].pid == pid)
			return;
	row_for(snap, snap->n, cap, pid, TT_ROW_ID_NO_SLOT | pid);
}

/* The name of a --pid process, read while it runs and kept: it may have
 * no slot, and so no name of the BPF side's, before it exits. Told to the
 * BPF side too, which names the slot it gives the process from it (a
 * process that was there before start-up may get its slot in a softirq,
 * where its name cannot be read). */
static void name_selected(struct tracer *t, size_t j, char comm[TT_COMM_LEN])
{
	int comms_fd = bpf_map__fd(t->skel->maps.proc_comms);
	char *kept;

	if (!t->selected_comms)
		t->selected_comms = calloc(t->n_selected, TT_COMM_LEN);
	kept = t->selected_comms ? t->selected_comms[j] : comm;
	if (!kept[0] && bpf_map_lookup_elem(comms_fd, &t->selected[j], kept)) {
		if (proc_read_comm("/proc", t->selected[j], kept, TT_COMM_LEN) == 0)
			bpf_map_update_elem(comms_fd, &t->selected[j], kept, BPF_NOEXIST);
		else
			kept[0] = '\0';
	}
	kept[TT_COMM_LEN - 1] = '\0';
	memcpy(comm, kept[0] ? kept : "?", kept[0] ? TT_COMM_LEN : 2);
}

static void name_rows(struct tracer *t, struct tt_snapshot *snap)
{
	for (size_t i = 0; i < snap->n; i++) {
		struct tt_row *row = &snap->rows[i];

		for (size_t j = 0; j < t->n_selected; j++) {
			if (t->selected[j] != row->pid)
				continue;
			row->selected = true;
			if (!row->comm[0])
				name_selected(t, j, row->comm);
		}
		row->comm[sizeof(row->comm) - 1] = '\0';
	}
}

int tracer_snapshot(struct tracer *t, struct tt_snapshot *snap)
{
	struct timespec now;
	int ncpus = libbpf_num_possible_cpus();
	size_t cap = 0, sorted;
	int err;

	memset(snap, 0, sizeof(*snap));
	if (ncpus < 0)
		return tracer_fail(t, ncpus, "cannot count CPUs");
	clock_gettime(CLOCK_MONOTONIC, &now);
	snap->mono_ns = (uint64_t)now.tv_sec * 1000000000ull + (uint64_t)now.tv_nsec;

	err = read_counters(t, snap, &cap, ncpus);
	if (err)
		return tracer_fail(t, err, "cannot read counters");
	for (size_t i = 0; i < t->n_selected; i++)
		add_selected_row(snap, &cap, t->selected[i]);
	rows_sort(snap->rows, snap->n);
	sorted = snap->n;
	if (t->by_dest)
		read_dests(t, snap, sorted, &cap, ncpus); /* before read_timewait, which fills tw_now */
	read_reasons(t, snap, sorted, &cap, ncpus);
	read_timewait(t, snap, sorted, &cap);
	read_drops(t, snap, ncpus);
	snap->lost = tracer_lost_events(t);
	read_other_rsts(t, snap, ncpus);
	rows_sort(snap->rows, snap->n);
	name_rows(t, snap);
	slots_reclaim(t);
	return 0;
}

void snapshot_free(struct tt_snapshot *snap)
{
	free(snap->rows);
	free(snap->other);
	free(snap->dests);
	snap->rows = NULL;
	snap->other = NULL;
	snap->dests = NULL;
	snap->n = snap->n_other = snap->n_dests = 0;
}
