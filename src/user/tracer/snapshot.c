// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* One snapshot, assembled: the rows of a plain tt_snapshot (stats.h) made
 * from what the readers of the maps return (counters.c, timewait.c), each
 * row named after its process slot (slots.c); then the slots whose rows
 * have ended are given back. The only module that makes or finds rows. */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "common/procfs.h"
#include "tracer/tracer.h"

/* The rows being assembled: sorted up to `sorted`, appended after. */
struct assembly {
	struct tt_snapshot *snap;
	size_t sorted, cap;
};

static int cmp_row_key(const struct tt_row *row, uint32_t pid, uint64_t id)
{
	if (row->pid != pid)
		return row->pid < pid ? -1 : 1;
	return row->id < id ? -1 : row->id > id;
}

/* A new row of pid and id at the end. */
static struct tt_row *append_row(struct assembly *a, uint32_t pid, uint64_t id)
{
	struct tt_snapshot *snap = a->snap;

	if (snap->n == a->cap) {
		size_t new_cap = a->cap ? a->cap * 2 : 64;
		struct tt_row *rows = realloc(snap->rows, new_cap * sizeof(*rows));

		if (!rows)
			return NULL;
		snap->rows = rows;
		a->cap = new_cap;
	}
	memset(&snap->rows[snap->n], 0, sizeof(snap->rows[0]));
	snap->rows[snap->n].pid = pid;
	snap->rows[snap->n].id = id;
	return &snap->rows[snap->n++];
}

/* The row of pid and id, added if missing: binary search over the sorted
 * part, then the few rows appended since the last sort. */
static struct tt_row *row_for(struct assembly *a, uint32_t pid, uint64_t id)
{
	struct tt_snapshot *snap = a->snap;
	size_t lo = 0, hi = a->sorted;

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
	for (size_t i = a->sorted; i < snap->n; i++)
		if (!cmp_row_key(&snap->rows[i], pid, id))
			return &snap->rows[i];
	return append_row(a, pid, id);
}

static void sort_rows(struct assembly *a)
{
	rows_sort(a->snap->rows, a->snap->n);
	a->sorted = a->snap->n;
}

/* The row of a slot's process, named; NULL for a slot of no row. */
static struct tt_row *row_of_slot(struct tracer *t, struct assembly *a, uint32_t slot)
{
	struct tt_row *row;

	if (!slots_has_row(&t->slots, slot))
		return NULL;
	row = row_for(a, slots_tgid(&t->slots, slot), slots_row_id(&t->slots, slot));
	if (row && !row->comm[0])
		slots_name(&t->slots, slot, row->comm);
	return row;
}

/* Connections open now: those seeded open, and those the BPF side saw
 * open, less those it saw end. */
static void add_open(struct tt_row *row, const struct tt_proc_counters *c,
		     const uint64_t seeded[TT_SIDES])
{
	for (int side = 0; side < TT_SIDES; side++) {
		uint64_t began = seeded[side] + c->opened[side];

		row->open[side] = began > c->open_ended[side] ? began - c->open_ended[side] : 0;
	}
}

/* Every slot's counters, a row each for a process running or gone: the
 * first rows of the snapshot, one per slot. */
static int add_counters(struct tracer *t, struct assembly *a)
{
	for (uint32_t slot = 0; slot < t->slots.n; slot++) {
		struct tt_proc_counters c;
		struct tt_proc_times times;
		struct tt_row *row;
		int err;

		if (!slots_has_row(&t->slots, slot))
			continue;
		err = counters_of_slot(&t->counters, slot, &c);
		if (err)
			return err;
		err = counters_times_of_slot(&t->counters, slot, &times);
		if (err)
			return err;
		row = append_row(a, slots_tgid(&t->slots, slot), slots_row_id(&t->slots, slot));
		if (!row)
			return -ENOMEM;
		slots_name(&t->slots, slot, row->comm);
		if (t->cfg.by_cgroup)
			slots_cgroup(&t->slots, slot, row->cgroup);
		row->c = c;
		row->t = times;
		add_open(row, &c, t->slots.views[slot].open_seeded);
	}
	return 0;
}

/* --pid PID shows the process every interval: a row of zeros while it
 * has no slot, under an id no slot's row has. */
#define TT_ROW_ID_NO_SLOT (1ull << 63)

static void add_selected_rows(struct tracer *t, struct assembly *a)
{
	for (size_t j = 0; j < t->n_selected; j++) {
		bool found = false;

		for (size_t i = 0; i < a->snap->n && !found; i++)
			found = a->snap->rows[i].pid == t->selected[j];
		if (!found)
			append_row(a, t->selected[j], TT_ROW_ID_NO_SLOT | t->selected[j]);
	}
}

static void add_reasons(struct tracer *t, struct assembly *a)
{
	struct reason_count *v;
	size_t n = counters_reasons(&t->counters, &v);

	for (size_t i = 0; i < n; i++) {
		struct tt_row *row = row_of_slot(t, a, v[i].slot);

		if (row)
			row->reasons[v[i].side][reason_slot(v[i].reason)] += v[i].count;
	}
	free(v);
}

static void add_dests(struct tracer *t, struct assembly *a)
{
	struct tt_snapshot *snap = a->snap;
	struct dest_count *v;
	size_t n = counters_dests(&t->counters, &v), kept = 0;

	snap->dests = calloc(n ? n : 1, sizeof(*snap->dests));
	for (size_t i = 0; i < n && snap->dests; i++) {
		const struct tt_row *proc = row_of_slot(t, a, v[i].key.slot);
		struct tt_dest_row *row = &snap->dests[kept];

		if (!proc)
			continue;
		row->pid = proc->pid;
		row->id = proc->id;
		memcpy(row->comm, proc->comm, sizeof(row->comm));
		row->netns = v[i].key.netns;
		row->family = v[i].key.family;
		row->port = v[i].key.port;
		memcpy(row->addr, v[i].key.addr, sizeof(row->addr));
		row->c = v[i].c;
		kept++;
	}
	snap->n_dests = snap->dests ? kept : 0;
	free(v);
	dests_sort(snap->dests, snap->n_dests);
}

static struct tt_dest_row *dest_row_of(struct tt_snapshot *snap, const struct tt_row *proc,
				       const struct tt_flow_key *flow)
{
	struct tt_dest_row key = {
		.pid = proc->pid, .id = proc->id, .netns = flow->netns,
		.family = (uint8_t)flow->family, .port = flow->rport
	};

	memcpy(key.addr, flow->raddr, sizeof(key.addr));
	return dests_find(snap->dests, snap->n_dests, &key);
}

/* Local ports held and still free toward each destination row of a
 * namespace whose sockets were listed. */
static void add_ports(struct tracer *t, struct tt_snapshot *snap, const struct ns_sockets *listed)
{
	const struct tt_netns *ns = &t->netns.ns[listed->ns];
	struct tt_port_policy policy;
	uint64_t usable;

	namespaces_port_policy(ns, &policy);
	usable = ports_usable(&policy);
	for (size_t i = 0; i < snap->n_dests; i++) {
		struct tt_dest_row *d = &snap->dests[i];

		if (d->netns != ns->inum)
			continue;
		d->ports_held = ports_held(&policy, listed->socks, listed->n, (uint8_t)d->family,
					   d->addr, d->port);
		d->ports_free = usable > d->ports_held ? usable - d->ports_held : 0;
	}
}

/* tw_now of each process, and with --by dest of each destination; tw_rst;
 * the ports of each destination. */
static void add_timewait(struct tracer *t, struct assembly *a)
{
	struct tw_reading r;

	/* Every process's namespace is opened, to be listed. */
	for (size_t i = 0; i < a->snap->n; i++)
		namespaces_of_pid(&t->netns, a->snap->rows[i].pid);
	timewait_read(&t->tw, &t->netns, t->cfg.by_dest, &r);
	for (size_t i = 0; i < r.n_listed; i++)
		add_ports(t, a->snap, &r.listed[i]);
	for (size_t i = 0; i < t->tw.n_rsts; i++) {
		struct tt_row *row = row_of_slot(t, a, t->tw.rsts[i].id);

		if (row)
			row->c.tw_rst += t->tw.rsts[i].count;
	}
	for (size_t slot = 0; slot < r.n_slots; slot++) {
		struct tt_row *row = r.held_by_slot[slot] ? row_of_slot(t, a, (uint32_t)slot) : NULL;

		if (row)
			row->tw_now += r.held_by_slot[slot];
	}
	for (size_t i = 0; i < r.n_held; i++) {
		struct tt_row *row = row_of_slot(t, a, r.held[i].slot);
		struct tt_dest_row *dest = row ? dest_row_of(a->snap, row, &r.held[i].flow) : NULL;

		if (dest)
			dest->tw_now++;
	}
	tw_reading_free(&r);
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

/* Each traced listener's drops and queue on its owner's row, and a
 * listener row of its own. The owner gets a slot if it has none yet: the
 * drops of a listener that accepted nothing still need a row. */
static void add_listeners(struct tracer *t, struct assembly *a)
{
	struct tt_snapshot *snap = a->snap;

	listeners_read(&t->listeners, &t->netns);
	snap->listeners = calloc(t->listeners.n ? t->listeners.n : 1, sizeof(*snap->listeners));
	for (size_t i = 0; i < t->listeners.n && snap->listeners; i++) {
		struct listener_state *st = &t->listeners.v[i];
		struct tt_row *row;

		if (st->slot == TT_NO_SLOT)
			st->slot = slots_of_tgid(&t->slots, st->row.pid);
		row = st->slot == TT_NO_SLOT ? NULL : row_of_slot(t, a, st->slot);
		if (!row)
			continue;
		row->listen_drops += st->row.drops;
		if (st->row.peak > row->acceptq_peak || !row->acceptq_limit) {
			row->acceptq_peak = st->row.peak;
			row->acceptq_limit = st->row.limit;
		}
		if (st->row.peak_run > row->acceptq_peak_run || !row->acceptq_limit_run) {
			row->acceptq_peak_run = st->row.peak_run;
			row->acceptq_limit_run = st->row.limit;
		}
		st->row.id = row->id;
		memcpy(st->row.comm, row->comm, sizeof(st->row.comm));
		snap->listeners[snap->n_listeners++] = st->row;
	}
}

/* The RSTs of no process: the BPF side's, and those of timewait sockets
 * whose owner user space did not know. */
static void add_other_rsts(struct tracer *t, struct tt_snapshot *snap)
{
	struct other_rst_count *v;
	size_t n = counters_other_rsts(&t->counters, &v);
	struct tt_netns_rsts *ns;

	for (size_t i = 0; i < n; i++) {
		ns = other_rsts_of(snap, v[i].netns);
		if (ns)
			ns->reasons[reason_slot(v[i].reason)] += v[i].count;
	}
	free(v);
	for (size_t i = 0; i < t->tw.n_other_rsts; i++) {
		const struct tw_count *c = &t->tw.other_rsts[i];

		ns = other_rsts_of(snap, c->id);
		if (ns)
			ns->reasons[reason_slot(c->reason)] += c->count;
	}
}

/* The name of a --pid process, read while it runs and kept: it may have
 * no slot, and so no name of the BPF side's, before it exits. */
static void name_selected(struct tracer *t, size_t j, char comm[TT_COMM_LEN])
{
	char *kept;

	if (!t->selected_comms)
		t->selected_comms = calloc(t->n_selected, TT_COMM_LEN);
	kept = t->selected_comms ? t->selected_comms[j] : comm;
	if (!kept[0] && slots_name_of_pid(&t->slots, t->selected[j], kept))
		kept[0] = '\0';
	kept[TT_COMM_LEN - 1] = '\0';
	memcpy(comm, kept[0] ? kept : "?", kept[0] ? TT_COMM_LEN : 2);
}

/* --by cgroup, a row of no slot (a --pid process with no socket yet): its
 * cgroup's label from /proc while it runs, else "?". */
static void label_cgroup_of_pid(uint32_t pid, char label[TT_CGROUP_LABEL_LEN])
{
	char path[PATH_MAX];

	if (proc_cgroup_path("/proc", pid, path, sizeof(path)))
		memcpy(label, "?", 2);
	else
		cgroup_label_of_path(path, label, TT_CGROUP_LABEL_LEN);
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
		if (t->cfg.by_cgroup && !row->cgroup[0])
			label_cgroup_of_pid(row->pid, row->cgroup);
	}
}

/* The slots whose processes have gone and left nothing behind go back,
 * their counts and timewait RSTs with them. */
static void give_back_slots(struct tracer *t)
{
	uint32_t *ready = calloc(t->slots.n ? t->slots.n : 1, sizeof(*ready));
	size_t n = ready ? slots_reclaimable(&t->slots, ready, t->slots.n) : 0;
	uint32_t *tw_held = n ? timewait_owners_by_slot(&t->tw, t->slots.n) : NULL;

	for (size_t i = 0; i < n && tw_held; i++) {
		if (tw_held[ready[i]] || counters_clear_slot(&t->counters, ready[i]))
			continue;
		timewait_forget_rsts(&t->tw, ready[i]);
		listeners_forget_slot(&t->listeners, ready[i]);
		slots_give_back(&t->slots, ready[i]);
	}
	free(tw_held);
	free(ready);
}

int tracer_snapshot(struct tracer *t, struct tt_snapshot *snap)
{
	struct assembly a = { .snap = snap };
	struct timespec now;
	int err;

	memset(snap, 0, sizeof(*snap));
	clock_gettime(CLOCK_MONOTONIC, &now);
	snap->mono_ns = (uint64_t)now.tv_sec * 1000000000ull + (uint64_t)now.tv_nsec;

	err = add_counters(t, &a);
	if (err)
		return tt_fail(t->err, err, "cannot read counters");
	add_selected_rows(t, &a);
	sort_rows(&a);
	if (t->cfg.by_dest)
		add_dests(t, &a); /* before add_timewait, which fills their tw_now */
	add_reasons(t, &a);
	add_timewait(t, &a);
	add_listeners(t, &a);
	counters_drops(&t->counters, snap->drops);
	snap->drops[TT_DROP_TW_MAP_FULL] += t->tw.unrecorded;
	snap->lost = counters_lost(&t->counters, t->cfg.catch_nested, &snap->lost_ends);
	add_other_rsts(t, snap);
	rows_sort(snap->rows, snap->n);
	name_rows(t, snap);
	give_back_slots(t);
	return 0;
}

void snapshot_free(struct tt_snapshot *snap)
{
	free(snap->rows);
	free(snap->other);
	free(snap->dests);
	free(snap->listeners);
	snap->rows = NULL;
	snap->other = NULL;
	snap->dests = NULL;
	snap->listeners = NULL;
	snap->n = snap->n_other = snap->n_dests = snap->n_listeners = 0;
}
