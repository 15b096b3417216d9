// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Process slots: which process each counter slot is, its name, and a
 * slot's return to free_slots (see slots.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "common/fail.h"
#include "common/procfs.h"
#include "tracer/slots.h"
#include "tcptrace.skel.h"

int slots_open(struct slots *s, struct tcptrace_bpf *skel, char *err)
{
	struct bpf_map *map = skel->maps.slot_owners;
	size_t n = bpf_map__max_entries(map);
	void *owners;

	s->skel = skel;
	s->views = calloc(n, sizeof(*s->views));
	if (!s->views)
		return tt_fail(err, ENOMEM, "cannot hold the process slots");
	s->owners_bytes = n * sizeof(struct tt_slot_owner);
	owners = mmap(NULL, s->owners_bytes, PROT_READ | PROT_WRITE, MAP_SHARED,
		      bpf_map__fd(map), 0);
	if (owners == MAP_FAILED)
		return tt_fail(err, errno, "cannot map the process slots");
	s->owners = owners;
	s->n = n;
	s->ncpus = libbpf_num_possible_cpus();
	if (s->ncpus <= 0)
		return tt_fail(err, s->ncpus ? s->ncpus : -EINVAL, "cannot count CPUs");
	s->sockets_bytes = n * (size_t)s->ncpus * sizeof(*s->sockets);
	owners = mmap(NULL, s->sockets_bytes, PROT_READ, MAP_SHARED,
		      bpf_map__fd(skel->maps.slot_sockets), 0);
	if (owners == MAP_FAILED)
		return tt_fail(err, errno, "cannot map the process slots");
	s->sockets = owners;
	return 0;
}

void slots_close(struct slots *s)
{
	if (s->owners)
		munmap(s->owners, s->owners_bytes);
	if (s->sockets)
		munmap((void *)s->sockets, s->sockets_bytes);
	s->sockets = NULL;
	s->owners = NULL;
	free(s->views);
	s->views = NULL;
	s->n = 0;
	cgroup_labels_free(&s->cgroups);
}

static uint32_t state_of(const struct slots *s, uint32_t slot)
{
	return __atomic_load_n(&s->owners[slot].state, __ATOMIC_ACQUIRE);
}

bool slots_has_row(const struct slots *s, uint32_t slot)
{
	uint32_t state;

	if (slot >= s->n)
		return false;
	state = state_of(s, slot);
	return state == TT_SLOT_LIVE || state == TT_SLOT_GONE;
}

uint32_t slots_tgid(const struct slots *s, uint32_t slot)
{
	return s->owners[slot].tgid;
}

uint64_t slots_row_id(const struct slots *s, uint32_t slot)
{
	return (uint64_t)s->views[slot].gen << 32 | slot;
}

int slots_name_of_pid(struct slots *s, uint32_t pid, char comm[TT_COMM_LEN])
{
	int comms_fd = bpf_map__fd(s->skel->maps.proc_comms);

	if (bpf_map_lookup_elem(comms_fd, &pid, comm) == 0)
		return 0;
	if (proc_read_comm("/proc", pid, comm, TT_COMM_LEN))
		return -1;
	bpf_map_update_elem(comms_fd, &pid, comm, BPF_NOEXIST);
	return 0;
}

uint32_t slots_of_tgid(struct slots *s, uint32_t tgid)
{
	int slots_fd = bpf_map__fd(s->skel->maps.proc_slots);
	int free_fd = bpf_map__fd(s->skel->maps.free_slots);
	struct tt_slot_owner *owner;
	/* Set: valgrind does not know that BPF_MAP_LOOKUP_AND_DELETE_ELEM writes it. */
	__u32 slot = TT_NO_SLOT;

	if (!bpf_map_lookup_elem(slots_fd, &tgid, &slot))
		return slot;
	if (kill((pid_t)tgid, 0) && errno == ESRCH)
		return TT_NO_SLOT;
	if (bpf_map_lookup_and_delete_elem(free_fd, NULL, &slot) || slot >= s->n)
		return TT_NO_SLOT;
	owner = &s->owners[slot];
	memset(owner->comm, 0, sizeof(owner->comm));
	owner->cgroup_id = 0;
	owner->start = 0;
	owner->tgid = tgid;
	__atomic_store_n(&owner->state, TT_SLOT_LIVE, __ATOMIC_RELEASE);
	if (!bpf_map_update_elem(slots_fd, &tgid, &slot, BPF_NOEXIST))
		return slot;
	/* The BPF side gave tgid a slot first: this one goes back. */
	__atomic_store_n(&owner->state, TT_SLOT_FREE, __ATOMIC_RELEASE);
	bpf_map_update_elem(free_fd, NULL, &slot, BPF_ANY);
	return bpf_map_lookup_elem(slots_fd, &tgid, &slot) ? TT_NO_SLOT : slot;
}

/* The BPF side's copy when it made one (and after a rename), else the one
 * it records by PID, else /proc's while the process runs; kept, since the
 * process may go before its last count. */
void slots_name(struct slots *s, uint32_t slot, char comm[TT_COMM_LEN])
{
	const struct tt_slot_owner *owner = &s->owners[slot];
	struct slot_view *view = &s->views[slot];
	int comms_fd = bpf_map__fd(s->skel->maps.proc_comms);

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

/* From the id the BPF side read in the process's own context when it gave
 * the slot, else (no id, or one not found in the cgroup2 mount tcptrace
 * sees: a cgroup namespace of its own) from /proc while the process runs;
 * kept once found, as its name is. */
void slots_cgroup(struct slots *s, uint32_t slot, char label[TT_CGROUP_LABEL_LEN])
{
	const struct tt_slot_owner *owner = &s->owners[slot];
	struct slot_view *view = &s->views[slot];
	uint64_t id = owner->cgroup_id;
	char path[PATH_MAX];

	if (!view->cgroup[0] && id) {
		cgroup_label_of_id(&s->cgroups, id, view->cgroup);
		if (!strcmp(view->cgroup, "?"))
			view->cgroup[0] = '\0';
	}
	if (!view->cgroup[0] && owner->state == TT_SLOT_LIVE &&
	    !proc_cgroup_path("/proc", owner->tgid, path, sizeof(path)))
		cgroup_label_of_path(path, view->cgroup, sizeof(view->cgroup));
	memcpy(label, view->cgroup[0] ? view->cgroup : "?", view->cgroup[0] ? TT_CGROUP_LABEL_LEN : 2);
}

/* How many entries of the socket table hold slot, over every CPU. */
static int64_t sockets_holding(const struct slots *s, uint32_t slot)
{
	int64_t sum = 0;

	for (int cpu = 0; cpu < s->ncpus; cpu++)
		sum += __atomic_load_n(&s->sockets[(size_t)cpu * s->n + slot], __ATOMIC_RELAXED);
	return sum;
}

size_t slots_reclaimable(struct slots *s, uint32_t *out, size_t max)
{
	size_t in_use = 0, n = 0;
	bool low;

	for (size_t slot = 0; slot < s->n; slot++)
		in_use += s->owners[slot].state != TT_SLOT_FREE;
	low = s->n - in_use < (s->n + 3) / 4;
	for (uint32_t slot = 0; slot < s->n && n < max; slot++) {
		uint32_t state = state_of(s, slot);
		struct slot_view *view = &s->views[slot];

		if (state != TT_SLOT_GONE && state != TT_SLOT_FORGOTTEN)
			continue;
		if (!view->gone_seen) {
			view->gone_seen = true;
			continue;
		}
		if ((state == TT_SLOT_GONE && !low) || sockets_holding(s, slot))
			continue;
		out[n++] = slot;
	}
	return n;
}

void slots_give_back(struct slots *s, uint32_t slot)
{
	struct tt_slot_owner *owner = &s->owners[slot];

	memset(owner->comm, 0, sizeof(owner->comm));
	owner->tgid = 0;
	owner->cgroup_id = 0;
	__atomic_store_n(&owner->state, TT_SLOT_FREE, __ATOMIC_RELEASE);
	memset(&s->views[slot], 0, sizeof(s->views[slot]));
	s->views[slot].gen = ++s->gens;
	if (bpf_map_update_elem(bpf_map__fd(s->skel->maps.free_slots), NULL, &slot, BPF_ANY))
		owner->state = TT_SLOT_FORGOTTEN; /* tried again at the next snapshot */
}

void slots_forget(struct slots *s, uint32_t slot)
{
	if (slot < s->n)
		__atomic_store_n(&s->owners[slot].state, TT_SLOT_FORGOTTEN, __ATOMIC_RELEASE);
}
