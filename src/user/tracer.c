// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The BPF side's life cycle (open, probe, configure, load, attach, seed)
 * and the only module that reads its maps, into plain snapshots. */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <stdarg.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "ports.h"
#include "proc_match.h"
#include "sockdiag.h"
#include "tcptrace.skel.h"
#include "tracer.h"
#include "tracer_priv.h"

#define REASON_PREFIX "SK_RST_REASON_"

int tracer_fail(struct tracer *t, int err, const char *fmt, ...)
{
	va_list ap;
	size_t len;

	va_start(ap, fmt);
	vsnprintf(t->err, sizeof(t->err), fmt, ap);
	va_end(ap);
	len = strlen(t->err);
	snprintf(t->err + len, sizeof(t->err) - len, ": %s", strerror(err < 0 ? -err : err));
	return err < 0 ? err : -err;
}

/* Whether the running kernel's tcp_send_reset passes enum sk_rst_reason
 * (6.10+): its raw tracepoint prototype has a fourth parameter. */
static bool probe_rst_reason(const struct btf *btf)
{
	const struct btf_type *type;
	int id = btf__find_by_name_kind(btf, "btf_trace_tcp_send_reset", BTF_KIND_TYPEDEF);

	if (id < 0)
		return false;
	type = btf__type_by_id(btf, id);
	type = btf__type_by_id(btf, type->type);
	if (!type || !btf_is_ptr(type))
		return false;
	type = btf__type_by_id(btf, type->type);
	return type && btf_is_func_proto(type) && btf_vlen(type) >= 4;
}

/* The kernel's own names for its RST reasons; values differ by version. */
static void load_reason_names(const struct btf *btf, struct tt_reason_names *names)
{
	int id = btf__find_by_name_kind(btf, "sk_rst_reason", BTF_KIND_ENUM);
	const struct btf_type *type;
	const struct btf_enum *e;

	if (id < 0)
		return;
	type = btf__type_by_id(btf, id);
	e = btf_enum(type);
	for (int i = 0; i < btf_vlen(type); i++, e++) {
		const char *name = btf__name_by_offset(btf, e->name_off);
		size_t slot = reason_slot(e->val);

		if (!name || slot == TT_REASON_OTHER || names->name[slot])
			continue;
		if (!strncmp(name, REASON_PREFIX, strlen(REASON_PREFIX)))
			name += strlen(REASON_PREFIX);
		names->name[slot] = strdup(name);
	}
	names->name[TT_REASON_OTHER] = strdup("OTHER");
}

/* The type of a struct's member, past typedefs and qualifiers; NULL if
 * either is missing. */
static const struct btf_type *member_type(const struct btf *btf, const char *type_name,
					  const char *member_name)
{
	int id = btf__find_by_name_kind(btf, type_name, BTF_KIND_STRUCT);
	const struct btf_type *type = id < 0 ? NULL : btf__type_by_id(btf, id);
	const struct btf_member *m;

	if (!type)
		return NULL;
	m = btf_members(type);
	for (int i = 0; i < btf_vlen(type); i++, m++)
		if (!strcmp(btf__name_by_offset(btf, m->name_off), member_name))
			return btf__type_by_id(btf, btf__resolve_type(btf, m->type));
	return NULL;
}

/* Linux 5.17 to 6.0 allocated a namespace's TCP death row apart from
 * struct netns_ipv4 (see compat.bpf.h), which no kernel of the test
 * matrix does: refused in one line rather than loaded and unproven. */
static bool death_row_embedded(const struct btf *btf)
{
	const struct btf_type *type = member_type(btf, "netns_ipv4", "tcp_death_row");

	return type && btf_is_struct(type);
}

int tracer_open(struct tracer *t, const struct tt_options *opts)
{
	struct tcptrace_bpf *skel;
	struct btf *btf;
	int err;

	btf = btf__load_vmlinux_btf();
	if (!btf)
		return tracer_fail(t, errno, "cannot read kernel BTF (/sys/kernel/btf/vmlinux)");
	if (!death_row_embedded(btf)) {
		btf__free(btf);
		return tracer_fail(t, ENOTSUP, "this kernel keeps a network namespace's timewait "
				   "accounting (tcp_death_row) apart, as Linux 5.17 to 6.0 did; "
				   "tcptrace supports 5.10 to 5.16 and 6.1 or later");
	}
	t->reasons_available = probe_rst_reason(btf);
	if (t->reasons_available)
		load_reason_names(btf, &t->reason_names);
	else
		t->reason_names.name[TT_REASON_OTHER] = strdup("UNKNOWN");
	btf__free(btf);

	skel = tcptrace_bpf__open();
	if (!skel)
		return tracer_fail(t, errno, "cannot open BPF object");
	t->skel = skel;
	skel->rodata->trace_all = opts->n_targets == 0;
	for (size_t i = 0; i < opts->n_targets; i++) {
		if (opts->targets[i].is_pid)
			skel->rodata->trace_pids = true;
		else
			skel->rodata->trace_comms = true;
	}
	skel->rodata->by_dest = t->by_dest = opts->by_dest;
	bpf_program__set_autoload(skel->progs.handle_send_reset, t->reasons_available);
	bpf_program__set_autoload(skel->progs.handle_send_reset_noreason, !t->reasons_available);
	/* The verdicts by process are kept only with names to match. */
	bpf_program__set_autoload(skel->progs.handle_task_rename, skel->rodata->trace_comms);
	bpf_program__set_autoload(skel->progs.handle_task_newtask, skel->rodata->trace_comms);

	err = bpf_map__set_max_entries(skel->maps.sock_owner, opts->max_sockets);
	/* Twice as large: a timewait socket outlives its connection's socket. */
	err = err ?: bpf_map__set_max_entries(skel->maps.tw_owners, 2 * opts->max_sockets);
	err = err ?: bpf_map__set_max_entries(skel->maps.seeds, opts->max_sockets);
	err = err ?: bpf_map__set_max_entries(skel->maps.proc_counters, opts->max_procs);
	err = err ?: bpf_map__set_max_entries(skel->maps.proc_slots, opts->max_procs);
	err = err ?: bpf_map__set_max_entries(skel->maps.free_slots, opts->max_procs);
	err = err ?: bpf_map__set_max_entries(skel->maps.proc_comms, opts->max_procs);
	err = err ?: bpf_map__set_max_entries(skel->maps.verdicts,
					      skel->rodata->trace_comms ? 4 * opts->max_procs : 64);
	err = err ?: bpf_map__set_max_entries(skel->maps.rst_reasons, opts->max_procs);
	err = err ?: bpf_map__set_max_entries(skel->maps.dest_counters, opts->max_procs);
	if (err)
		return tracer_fail(t, err, "cannot size BPF maps");
	return 0;
}

int tracer_load(struct tracer *t)
{
	int err = tcptrace_bpf__load(t->skel);
	int fd = bpf_map__fd(t->skel->maps.free_slots);
	__u32 slots = bpf_map__max_entries(t->skel->maps.free_slots);

	if (err)
		return tracer_fail(t, err, "cannot load BPF programs");
	for (__u32 slot = 0; slot < slots; slot++)
		if (bpf_map_update_elem(fd, NULL, &slot, BPF_ANY))
			return tracer_fail(t, errno, "cannot fill the process slots");
	next_tw_stamp(t);
	return 0;
}

int tracer_set_targets(struct tracer *t, const struct tt_options *opts)
{
	int pids_fd = bpf_map__fd(t->skel->maps.traced_pids);
	int comms_fd = bpf_map__fd(t->skel->maps.traced_comms);
	__u8 one = 1;

	for (size_t i = 0; i < opts->n_targets; i++) {
		const struct tt_target *target = &opts->targets[i];
		char comm[TT_COMM_LEN] = {};
		int err;

		if (target->is_pid) {
			err = bpf_map_update_elem(pids_fd, &target->pid, &one, BPF_ANY);
		} else {
			strncpy(comm, target->name, sizeof(comm) - 1);
			err = bpf_map_update_elem(comms_fd, comm, &one, BPF_ANY);
		}
		if (err)
			return tracer_fail(t, errno, "cannot store traced process");
	}
	return 0;
}

int tracer_attach(struct tracer *t)
{
	/* For the self-check's test: a program left unattached is an event
	 * tcptrace never sees, as on a kernel that does not fire it. */
	const char *skip = getenv("TCPTRACE_TEST_SKIP_PROGRAM");
	struct bpf_program *prog;

	bpf_object__for_each_program(prog, t->skel->obj) {
		struct bpf_link *link;

		if (!bpf_program__autoload(prog) || (skip && !strcmp(skip, bpf_program__name(prog))))
			continue;
		if (t->n_links == sizeof(t->links) / sizeof(t->links[0]))
			return tracer_fail(t, E2BIG, "too many BPF programs to attach");
		link = bpf_program__attach(prog);
		if (!link)
			return tracer_fail(t, errno, "cannot attach to %s",
					   strchr(bpf_program__section_name(prog), '/') + 1);
		t->links[t->n_links++] = link;
	}
	return 0;
}

/* The row of pid: binary search over the sorted part, then the few rows
 * appended since the last sort. */
struct tt_row *row_for(struct tt_snapshot *snap, size_t sorted, size_t *cap, uint32_t pid)
{
	size_t lo = 0, hi = sorted;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (snap->rows[mid].pid == pid)
			return &snap->rows[mid];
		if (snap->rows[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = sorted; i < snap->n; i++)
		if (snap->rows[i].pid == pid)
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

int tracer_map_fd(struct tracer *t)
{
	return bpf_map__fd(t->skel->maps.proc_slots);
}

int tracer_trace_pid(struct tracer *t, uint32_t pid)
{
	__u8 one = 1;

	if (bpf_map_update_elem(bpf_map__fd(t->skel->maps.traced_pids), &pid, &one, BPF_ANY) ||
	    bpf_map_update_elem(bpf_map__fd(t->skel->maps.verdicts), &pid, &one, BPF_ANY))
		return tracer_fail(t, errno, "cannot store the self-check's processes");
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
	percpu = calloc(ncpus, sizeof(*percpu));
	if (!percpu)
		return tracer_fail(t, ENOMEM, "cannot read counters");
	if (!bpf_map_lookup_elem(bpf_map__fd(t->skel->maps.proc_slots), &pid, &slot) &&
	    !bpf_map_lookup_elem(bpf_map__fd(t->skel->maps.proc_counters), &slot, percpu))
		sum_percpu_words(out, percpu, sizeof(*out), ncpus);
	else if (errno != ENOENT)
		return free(percpu), tracer_fail(t, errno, "cannot read counters");
	free(percpu);
	return 0;
}

/* Every entry of a map whose key starts with tgid (rst_reasons,
 * dest_counters), or whose value does (tw_owners' owner), deleted. */
static void delete_entries_of(int fd, size_t key_size, bool by_value, uint32_t tgid)
{
	__u8 key[sizeof(struct tt_tw_key)] = {}, next[sizeof(struct tt_tw_key)];
	struct tt_tw_owner owner;
	bool first = true;

	while (bpf_map_get_next_key(fd, first ? NULL : key, next) == 0) {
		uint32_t head;

		memcpy(key, next, key_size);
		memcpy(&head, key, sizeof(head));
		if (by_value)
			head = bpf_map_lookup_elem(fd, key, &owner) ? 0 : owner.tgid;
		/* After a delete the walk starts over: the key is gone. */
		first = head == tgid && !bpf_map_delete_elem(fd, key);
	}
}

void tracer_forget_pid(struct tracer *t, uint32_t pid)
{
	struct tcptrace_bpf *skel = t->skel;

	/* Its slot is not reused: a late count of its sockets lands there. */
	bpf_map_delete_elem(bpf_map__fd(skel->maps.proc_slots), &pid);
	bpf_map_delete_elem(bpf_map__fd(skel->maps.proc_comms), &pid);
	bpf_map_delete_elem(bpf_map__fd(skel->maps.traced_pids), &pid);
	bpf_map_delete_elem(bpf_map__fd(skel->maps.verdicts), &pid);
	delete_entries_of(bpf_map__fd(skel->maps.rst_reasons), sizeof(struct tt_reason_key), false, pid);
	delete_entries_of(bpf_map__fd(skel->maps.dest_counters), sizeof(struct tt_dest_key), false, pid);
	delete_entries_of(bpf_map__fd(skel->maps.tw_owners), sizeof(struct tt_tw_key), true, pid);
}

static int read_counters(struct tracer *t, struct tt_snapshot *snap, size_t *cap, int ncpus)
{
	int fd = bpf_map__fd(t->skel->maps.proc_slots);
	int counters_fd = bpf_map__fd(t->skel->maps.proc_counters);
	struct tt_proc_counters *percpu = calloc(ncpus, sizeof(*percpu));
	__u32 key, slot, *prev = NULL;

	int err = 0;

	if (!percpu)
		return -ENOMEM;
	/* A refused read must not pass for an empty map: a table of zeros
	 * would follow (bpf() refuses map reads to a process without CAP_BPF
	 * on some kernels, see privileges.h). */
	while (!(err = bpf_map_get_next_key(fd, prev, &key) ? -errno : 0)) {
		struct tt_row *row;

		prev = &key;
		if (bpf_map_lookup_elem(fd, &key, &slot)) {
			if (errno == ENOENT)
				continue; /* deleted meanwhile (the self-check's rows) */
			err = -errno;
			break;
		}
		if (bpf_map_lookup_elem(counters_fd, &slot, percpu)) {
			err = -errno;
			break;
		}
		row = row_for(snap, 0, cap, key);
		if (!row)
			break;
		sum_percpu_words(&row->c, percpu, sizeof(row->c), ncpus);
	}
	free(percpu);
	return err == -ENOENT ? 0 : err;
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
		row = row_for(snap, sorted, cap, key.tgid);
		if (row)
			row->reasons[key.side & 1][reason_slot(key.reason)] += sum;
	}
	free(percpu);
}

static void read_other_rsts(struct tracer *t, struct tt_snapshot *snap, int ncpus)
{
	int fd = bpf_map__fd(t->skel->maps.other_rsts);
	struct tt_other_rst_key key, *prev = NULL;
	__u64 *percpu = calloc(ncpus, sizeof(*percpu));

	if (!percpu)
		return;
	while (bpf_map_get_next_key(fd, prev, &key) == 0) {
		struct tt_netns_rsts *ns = NULL;
		uint64_t sum;

		prev = &key;
		if (lookup_percpu_sum(fd, &key, percpu, ncpus, &sum))
			continue;
		for (size_t i = 0; i < snap->n_other; i++)
			if (snap->other[i].netns == key.netns)
				ns = &snap->other[i];
		if (!ns) {
			struct tt_netns_rsts *v =
				realloc(snap->other, (snap->n_other + 1) * sizeof(*v));

			if (!v)
				break;
			snap->other = v;
			ns = &v[snap->n_other++];
			memset(ns, 0, sizeof(*ns));
			ns->netns = key.netns;
		}
		ns->reasons[reason_slot(key.reason)] += sum;
	}
	free(percpu);
}

static void read_dests(struct tracer *t, struct tt_snapshot *snap, int ncpus)
{
	int fd = bpf_map__fd(t->skel->maps.dest_counters);
	int comms_fd = bpf_map__fd(t->skel->maps.proc_comms);
	struct tt_dest_counters *percpu = calloc(ncpus, sizeof(*percpu));
	struct tt_dest_key key, *prev = NULL;
	size_t cap = 0;

	if (!percpu)
		return;
	while (bpf_map_get_next_key(fd, prev, &key) == 0) {
		struct tt_dest_row *row;

		prev = &key;
		if (bpf_map_lookup_elem(fd, &key, percpu))
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
		row->pid = key.tgid;
		row->netns = key.netns;
		row->family = key.family;
		row->port = key.port;
		memcpy(row->addr, key.addr, sizeof(row->addr));
		if (bpf_map_lookup_elem(comms_fd, &key.tgid, row->comm))
			snprintf(row->comm, sizeof(row->comm), "?");
		row->comm[sizeof(row->comm) - 1] = '\0';
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
}

static void name_rows(struct tracer *t, struct tt_snapshot *snap)
{
	int fd = bpf_map__fd(t->skel->maps.proc_comms);

	for (size_t i = 0; i < snap->n; i++) {
		struct tt_row *row = &snap->rows[i];

		/* Remember the name while the process lives: it may exit
		 * before its last connections are counted. */
		if (bpf_map_lookup_elem(fd, &row->pid, row->comm)) {
			char comm[TT_COMM_LEN] = {};

			if (proc_read_comm("/proc", row->pid, comm, sizeof(comm)) == 0)
				bpf_map_update_elem(fd, &row->pid, comm, BPF_NOEXIST);
			else
				snprintf(comm, sizeof(comm), "?");
			memcpy(row->comm, comm, sizeof(comm));
		}
		row->comm[sizeof(row->comm) - 1] = '\0';
		for (size_t j = 0; j < t->n_selected; j++)
			if (t->selected[j] == row->pid)
				row->selected = true;
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
		row_for(snap, 0, &cap, t->selected[i]);
	rows_sort(snap->rows, snap->n);
	sorted = snap->n;
	if (t->by_dest)
		read_dests(t, snap, ncpus); /* before read_timewait, which fills tw_now */
	read_reasons(t, snap, sorted, &cap, ncpus);
	read_timewait(t, snap, sorted, &cap);
	read_drops(t, snap, ncpus);
	snap->lost = tracer_lost_events(t);
	read_other_rsts(t, snap, ncpus);
	rows_sort(snap->rows, snap->n);
	name_rows(t, snap);
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

uint64_t tracer_map_bytes(struct tracer *t)
{
	struct bpf_map *map;
	uint64_t total = 0;

	bpf_object__for_each_map(map, t->skel->obj) {
		char path[64];
		uint64_t bytes;

		snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", bpf_map__fd(map));
		if (proc_read_field(path, "memlock:", &bytes) == 0)
			total += bytes;
	}
	return total;
}

/* The kernel runs a BPF program at most once at a time on a CPU: a softirq
 * that interrupts one of tcptrace's programs in a task's syscall (close(),
 * connect()) and hits the same tracepoint skips it, and counts it in the
 * program's recursion_misses. That event is lost to tcptrace. */
uint64_t tracer_lost_events(struct tracer *t)
{
	struct bpf_program *prog;
	uint64_t lost = 0;

	bpf_object__for_each_program(prog, t->skel->obj) {
		struct bpf_prog_info info = {};
		__u32 len = sizeof(info);

		if (bpf_program__autoload(prog) &&
		    !bpf_obj_get_info_by_fd(bpf_program__fd(prog), &info, &len))
			lost += info.recursion_misses;
	}
	return lost;
}

void tracer_close(struct tracer *t)
{
	while (t->n_links)
		bpf_link__destroy(t->links[--t->n_links]);
	tcptrace_bpf__destroy(t->skel);
	t->skel = NULL;
	for (size_t i = 0; i < t->n_netns; i++)
		netns_close(&t->netns[i]);
	t->n_netns = 0;
	for (size_t i = 0; i < TT_REASON_SLOTS; i++) {
		free((char *)t->reason_names.name[i]);
		t->reason_names.name[i] = NULL;
	}
}
