// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The BPF side's life cycle: open (the kernel's BTF probed for what it
 * offers), configure, load, set the targets, attach and close, and what the
 * loaded object says of itself (map memory, lost events). Seeding is
 * seed.c's job, reading the maps snapshot.c's and timewait.c's. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "proc_match.h"
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

/* The ring buffer's header before each record (BPF_RINGBUF_HDR_SZ). */
#define TT_RING_HDR 8
#define TT_RING_MAX (1u << 30)

/* tw_records holds what happens between two snapshots: room for as many
 * records as --max-sockets (a power of two of bytes, as the kernel wants). */
static __u32 tw_ring_bytes(__u64 max_sockets)
{
	__u64 want = max_sockets * (sizeof(struct tt_tw_record) + TT_RING_HDR);
	__u32 bytes = 4096;

	while (bytes < want && bytes < TT_RING_MAX)
		bytes *= 2;
	return bytes;
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
	skel->rodata->catch_nested = t->catch_nested = opts->catch_nested;
	bpf_program__set_autoload(skel->progs.catch_set_state, opts->catch_nested);
	bpf_program__set_autoload(skel->progs.catch_send_reset,
				  opts->catch_nested && t->reasons_available);
	bpf_program__set_autoload(skel->progs.catch_send_reset_noreason,
				  opts->catch_nested && !t->reasons_available);
	bpf_program__set_autoload(skel->progs.catch_receive_reset, opts->catch_nested);
	bpf_program__set_autoload(skel->progs.catch_destroy_sock, opts->catch_nested);
	/* The verdicts by process are kept only with names to match. */
	bpf_program__set_autoload(skel->progs.handle_task_rename, skel->rodata->trace_comms);

	/* The socket table's buckets: see sock_table in socks.bpf.h. */
	skel->rodata->sock_buckets = (opts->max_sockets + 1) / 2;
	err = bpf_map__set_max_entries(skel->maps.sock_table, skel->rodata->sock_buckets);
	err = err ?: bpf_map__set_max_entries(skel->maps.sock_spill, opts->max_sockets / 4);
	err = err ?: bpf_map__set_max_entries(skel->maps.tw_records,
					      tw_ring_bytes(opts->max_sockets));
	err = err ?: bpf_map__set_max_entries(skel->maps.seeds, opts->max_sockets);
	err = err ?: bpf_map__set_max_entries(skel->maps.proc_counters, opts->max_procs);
	err = err ?: bpf_map__set_max_entries(skel->maps.proc_slots, opts->max_procs);
	err = err ?: bpf_map__set_max_entries(skel->maps.free_slots, opts->max_procs);
	err = err ?: bpf_map__set_max_entries(skel->maps.proc_comms, opts->max_procs);
	err = err ?: bpf_map__set_max_entries(skel->maps.slot_owners, opts->max_procs);
	err = err ?: bpf_map__set_max_entries(skel->maps.slot_sockets, opts->max_procs);
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
	t->tw_ring = ring_buffer__new(bpf_map__fd(t->skel->maps.tw_records), on_tw_record, t, NULL);
	if (!t->tw_ring)
		return tracer_fail(t, errno, "cannot map the timewait records");
	for (__u32 slot = 0; slot < slots; slot++)
		if (bpf_map_update_elem(fd, NULL, &slot, BPF_ANY))
			return tracer_fail(t, errno, "cannot fill the process slots");
	err = slots_open(t);
	if (err)
		return err;
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

static bool is_twin(const struct bpf_program *prog)
{
	return !strncmp(bpf_program__name(prog), "catch_", 6);
}

int tracer_attach(struct tracer *t)
{
	/* For the self-check's test: a program left unattached is an event
	 * tcptrace never sees, as on a kernel that does not fire it. */
	const char *skip = getenv("TCPTRACE_TEST_SKIP_PROGRAM");
	struct bpf_program *prog;

	/* Twins (--catch-nested) last: a tracepoint runs its programs in the
	 * order they were attached, and a twin must run after its primary. */
	for (int twins = 0; twins < 2; twins++) {
		bpf_object__for_each_program(prog, t->skel->obj) {
			struct bpf_link *link;

			if (!bpf_program__autoload(prog) || is_twin(prog) != twins ||
			    (skip && !strcmp(skip, bpf_program__name(prog))))
				continue;
			if (t->n_links == sizeof(t->links) / sizeof(t->links[0]))
				return tracer_fail(t, E2BIG, "too many BPF programs to attach");
			link = bpf_program__attach(prog);
			if (!link)
				return tracer_fail(t, errno, "cannot attach to %s",
						   strchr(bpf_program__section_name(prog), '/') + 1);
			t->links[t->n_links++] = link;
		}
	}
	return 0;
}

int tracer_map_fd(struct tracer *t)
{
	return bpf_map__fd(t->skel->maps.proc_slots);
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

/* Events the twins handled for their primaries, over every CPU. */
static uint64_t nested_caught(struct tracer *t)
{
	int ncpus = libbpf_num_possible_cpus();
	struct tt_nesting *percpu;
	uint64_t caught = 0;
	__u32 zero = 0;

	if (ncpus <= 0)
		return 0;
	percpu = calloc(ncpus, sizeof(*percpu));
	if (percpu && !bpf_map_lookup_elem(bpf_map__fd(t->skel->maps.nesting), &zero, percpu))
		for (int cpu = 0; cpu < ncpus; cpu++)
			caught += percpu[cpu].caught;
	free(percpu);
	return caught;
}

/* The kernel runs a BPF program at most once at a time on a CPU: a softirq
 * that interrupts one of tcptrace's programs in a task's syscall (close(),
 * connect()) and hits the same tracepoint skips it, and counts it in the
 * program's recursion_misses. That event is lost to tcptrace, unless the
 * program's twin handled it (--catch-nested). A twin's own misses lose
 * nothing its primary did not miss too. */
uint64_t tracer_lost_events(struct tracer *t)
{
	struct bpf_program *prog;
	uint64_t missed = 0, caught = t->catch_nested ? nested_caught(t) : 0;

	bpf_object__for_each_program(prog, t->skel->obj) {
		struct bpf_prog_info info = {};
		__u32 len = sizeof(info);

		if (bpf_program__autoload(prog) && !is_twin(prog) &&
		    !bpf_obj_get_info_by_fd(bpf_program__fd(prog), &info, &len))
			missed += info.recursion_misses;
	}
	return missed > caught ? missed - caught : 0;
}

uint64_t tracer_nested_caught(struct tracer *t)
{
	return t->catch_nested ? nested_caught(t) : 0;
}

void tracer_close(struct tracer *t)
{
	while (t->n_links)
		bpf_link__destroy(t->links[--t->n_links]);
	ring_buffer__free(t->tw_ring);
	t->tw_ring = NULL;
	slots_close(t);
	free(t->selected_comms);
	t->selected_comms = NULL;
	tcptrace_bpf__destroy(t->skel);
	t->skel = NULL;
	tw_table_free(&t->tw_owners);
	free(t->tw_rsts);
	free(t->tw_other_rsts);
	t->tw_rsts = t->tw_other_rsts = NULL;
	t->n_tw_rsts = t->n_tw_other_rsts = 0;
	for (size_t i = 0; i < t->n_netns; i++)
		netns_close(&t->netns[i]);
	t->n_netns = 0;
	for (size_t i = 0; i < TT_REASON_SLOTS; i++) {
		free((char *)t->reason_names.name[i]);
		t->reason_names.name[i] = NULL;
	}
}
