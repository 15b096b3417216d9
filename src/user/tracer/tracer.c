// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The BPF side's life cycle: open (the kernel's BTF probed for what it
 * offers), configure, load, set the targets, seed, attach and close, the
 * self-check's processes, and what the loaded object says of itself (map
 * memory). Reading the maps is snapshot.c's job. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "common/procfs.h"
#include "tracer/kallsyms.h"
#include "tracer/probe.h"
#include "tracer/seed.h"
#include "tracer/tracer.h"
#include "tt_sock_hash.h"
#include "common/test_hooks.h"
#include "tcptrace.skel.h"

#define REASON_PREFIX "SK_RST_REASON_"

/* The kernel's types that tcptrace asks about, found in one pass over its
 * BTF: a lookup by name walks every type (about a millisecond each here). */
enum kernel_type {
	KT_NETNS_IPV4,
	KT_INET_CSK_ACCEPT,
	KT_TRACE_SEND_RESET,
	KT_RST_REASON,
	KT_TRACE_KFREE_SKB,
	KT_TRACE_SET_STATE,
	KT_TRACE_RETRANSMIT_SKB,
	KERNEL_TYPES
};

static const struct {
	const char *name;
	__u16 kind;
} kernel_types[KERNEL_TYPES] = {
	[KT_NETNS_IPV4] = { "netns_ipv4", BTF_KIND_STRUCT },
	[KT_INET_CSK_ACCEPT] = { "inet_csk_accept", BTF_KIND_FUNC },
	[KT_TRACE_SEND_RESET] = { "btf_trace_tcp_send_reset", BTF_KIND_TYPEDEF },
	[KT_RST_REASON] = { "sk_rst_reason", BTF_KIND_ENUM },
	[KT_TRACE_KFREE_SKB] = { "btf_trace_kfree_skb", BTF_KIND_TYPEDEF },
	[KT_TRACE_SET_STATE] = { "btf_trace_inet_sock_set_state", BTF_KIND_TYPEDEF },
	[KT_TRACE_RETRANSMIT_SKB] = { "btf_trace_tcp_retransmit_skb", BTF_KIND_TYPEDEF },
};

/* Each kernel type's id, or -1 where the kernel has none. */
static void find_kernel_types(const struct btf *btf, int ids[KERNEL_TYPES])
{
	__u32 n = btf__type_cnt(btf);

	for (int k = 0; k < KERNEL_TYPES; k++)
		ids[k] = -1;
	for (__u32 id = 1; id < n; id++) {
		const struct btf_type *type = btf__type_by_id(btf, id);
		const char *name = btf__name_by_offset(btf, type->name_off);

		if (!name || !name[0])
			continue;
		for (int k = 0; k < KERNEL_TYPES; k++)
			if (ids[k] < 0 && btf_kind(type) == kernel_types[k].kind &&
			    !strcmp(name, kernel_types[k].name))
				ids[k] = (int)id;
	}
}

#define VMLINUX_BTF "/sys/kernel/btf/vmlinux"

/* The kernel's BTF. Mapped where the kernel lets its file be (6.16 and
 * later, here): read, the file comes a page per read() call, over a
 * thousand calls that took most of the time libbpf takes to parse it. */
static struct btf *kernel_btf(void)
{
	int fd = open(VMLINUX_BTF, O_RDONLY | O_CLOEXEC);
	struct btf *btf = NULL;
	struct stat st;
	void *data;

	if (fd >= 0 && !fstat(fd, &st) && st.st_size > 0 && st.st_size <= UINT32_MAX) {
		data = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (data != MAP_FAILED) {
			btf = btf__new(data, (__u32)st.st_size);
			if (libbpf_get_error(btf))
				btf = NULL;
			munmap(data, (size_t)st.st_size);
		}
	}
	if (fd >= 0)
		close(fd);
	return btf ? btf : btf__load_vmlinux_btf();
}

/* How many arguments the kernel passes to a tracepoint's programs, from
 * its raw tracepoint prototype (typedef id, the context pointer first); 0
 * if none. */
static int tracepoint_args(const struct btf *btf, int id)
{
	const struct btf_type *type;

	if (id < 0)
		return 0;
	type = btf__type_by_id(btf, id);
	type = btf__type_by_id(btf, type->type);
	if (!type || !btf_is_ptr(type))
		return 0;
	type = btf__type_by_id(btf, type->type);
	return type && btf_is_func_proto(type) ? btf_vlen(type) : 0;
}

/* Whether a tp_btf program may make a socket's cookie (Linux 5.12 and
 * later), which then marks the sockets it follows (cookie_marks_followed
 * in socks.bpf.h): a program that does it on inet_sock_set_state's socket,
 * loaded and closed. */
static bool cookies_probe(int trace_set_state)
{
	/* r1 = ctx[0]; call bpf_get_socket_cookie; r0 = 0; exit */
	const struct bpf_insn insns[] = {
		{ .code = BPF_LDX | BPF_MEM | BPF_DW, .dst_reg = BPF_REG_1, .src_reg = BPF_REG_1 },
		{ .code = BPF_JMP | BPF_CALL, .imm = BPF_FUNC_get_socket_cookie },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};

	return tracing_prog_loads("tt_cookie_probe", insns, sizeof(insns) / sizeof(insns[0]),
				  BPF_TRACE_RAW_TP, trace_set_state);
}

/* The functions where a listener's drop goes to its sk_drops alone (see
 * drop_site_start in queues.bpf.h): the receive paths first, each with the
 * part a compiler may move out of line (.cold). */
static const char *const drop_sites[] = {
	"tcp_v4_rcv", "tcp_v6_rcv", "tcp_v4_rcv.cold", "tcp_v6_rcv.cold",
	"tcp_rcv_state_process", "tcp_drop_reason", "tcp_rcv_state_process.cold",
	"tcp_drop_reason.cold",
};

/* The drop sites' addresses, read from /proc/kallsyms, which the kernel
 * writes out as it is read, slowly: on a thread of its own, while the
 * programs are verified. */
static void *read_drop_sites(void *arg)
{
	struct drop_sites *sites = arg;

	_Static_assert(sizeof(drop_sites) / sizeof(drop_sites[0]) == TT_DROP_SITES,
		       "one name per drop site");
	sites->found = kallsyms_ranges("/proc/kallsyms", drop_sites, TT_DROP_SITES, sites->start,
				       sites->end);
	return NULL;
}

/* Whether the drops of a listener that are no connection attempt can be
 * told apart here: kfree_skb passes the receiving socket (Linux 6.11+),
 * and /proc/kallsyms says where tcp_v4_rcv and tcp_rcv_state_process are
 * (tcp_v6_rcv and tcp_drop_reason may be missing: no IPv6, inlined). The
 * addresses are looked up meanwhile, and given to the program after its
 * load (drop_sites_set). */
static bool drop_sites_look_up(struct tracer *t, const struct btf *btf, int trace_kfree_skb)
{
	if (tracepoint_args(btf, trace_kfree_skb) < 5)
		return false;
	t->sites.looking = !pthread_create(&t->sites.thread, NULL, read_drop_sites, &t->sites);
	return t->sites.looking;
}

static bool drop_sites_set(struct tracer *t)
{
	struct drop_sites *sites = &t->sites;

	if (!sites->looking)
		return false;
	pthread_join(sites->thread, NULL);
	sites->looking = false;
	if (sites->found < 2 || !sites->start[0] || !sites->start[4])
		return false;
	for (int i = 0; i < TT_DROP_SITES; i++) {
		t->skel->bss->drop_site_start[i] = sites->start[i];
		t->skel->bss->drop_site_end[i] = sites->end[i];
	}
	return true;
}

/* The kernel's own names for its RST reasons; values differ by version. */
static void load_reason_names(const struct btf *btf, int id, struct tt_reason_names *names)
{
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

/* The type of a struct's member (struct id), past typedefs and
 * qualifiers; NULL if either is missing. */
static const struct btf_type *member_type(const struct btf *btf, int id, const char *member_name)
{
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
static bool death_row_embedded(const struct btf *btf, int netns_ipv4)
{
	const struct btf_type *type = member_type(btf, netns_ipv4, "tcp_death_row");

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

static void *fill_free_slots(void *arg)
{
	struct slot_fill *f = arg;

	for (__u32 slot = 0; slot < f->slots && !f->err; slot++)
		if (bpf_map_update_elem(f->fd, NULL, &slot, BPF_ANY))
			f->err = errno ? errno : EIO;
	return NULL;
}

/* Every slot free at start: the queue is made here and filled while the
 * programs load. Where it cannot be made (not root), libbpf makes it at
 * the load, which then fails or fills it after. */
static void slot_fill_start(struct tracer *t, __u32 slots)
{
	struct slot_fill *f = &t->fill;

	f->slots = slots;
	f->fd = bpf_map_create(BPF_MAP_TYPE_QUEUE, "free_slots", 0, sizeof(__u32), slots, NULL);
	if (f->fd < 0)
		return;
	if (bpf_map__reuse_fd(t->skel->maps.free_slots, f->fd)) {
		close(f->fd);
		return;
	}
	f->made = true;
	f->running = !pthread_create(&f->thread, NULL, fill_free_slots, f);
}

static int slot_fill_wait(struct tracer *t)
{
	struct slot_fill *f = &t->fill;

	if (f->running)
		pthread_join(f->thread, NULL);
	else if (f->made)
		fill_free_slots(f);
	f->running = false;
	if (!f->made) {
		f->fd = bpf_map__fd(t->skel->maps.free_slots);
		fill_free_slots(f);
	}
	return f->err ? -f->err : 0;
}

/* proc_counters and slot_sockets: a block per slot and CPU (procs.bpf.h). */
static int set_blocks(struct tcptrace_bpf *skel, __u32 slots)
{
	int ncpus = libbpf_num_possible_cpus();
	__u64 blocks = (__u64)slots * (__u64)(ncpus > 0 ? ncpus : 0);

	if (ncpus <= 0)
		return ncpus ? ncpus : -EINVAL;
	if (blocks > UINT32_MAX)
		return -E2BIG;
	skel->rodata->slots_per_cpu = slots;
	return bpf_map__set_max_entries(skel->maps.proc_counters, (__u32)blocks) ?:
	       bpf_map__set_max_entries(skel->maps.slot_sockets, (__u32)blocks);
}

int tracer_open(struct tracer *t, const struct tracer_config *config)
{
	const struct tracer_config *cfg = &t->cfg;
	int ids[KERNEL_TYPES], err;
	struct tcptrace_bpf *skel;
	bool at_accept, retrans_err, sweep_loops;
	struct btf *btf;

	t->cfg = *config;
	btf = kernel_btf();
	if (!btf)
		return tt_fail(t->err, errno, "cannot read kernel BTF (/sys/kernel/btf/vmlinux)");
	find_kernel_types(btf, ids);
	if (!death_row_embedded(btf, ids[KT_NETNS_IPV4])) {
		btf__free(btf);
		return tt_fail(t->err, ENOTSUP, "this kernel keeps a network namespace's timewait "
				   "accounting (tcp_death_row) apart, as Linux 5.17 to 6.0 did; "
				   "tcptrace supports 5.10 to 5.16 and 6.1 or later");
	}
	at_accept = acceptors_probe(ids[KT_INET_CSK_ACCEPT]);
	syscall_hooks_probe(&t->syscalls);
	/* For the tests: the counting filter, as before 5.12. */
	t->cookies_mark = !tt_test_hooks()->no_cookies &&
			  cookies_probe(ids[KT_TRACE_SET_STATE]);
	t->reasons_available = tracepoint_args(btf, ids[KT_TRACE_SEND_RESET]) >= 4;
	if (t->reasons_available)
		load_reason_names(btf, ids[KT_RST_REASON], &t->reason_names);
	else
		t->reason_names.name[TT_REASON_OTHER] = strdup("UNKNOWN");
	/* From 6.17 tcp_retransmit_skb passes the send's error, and fires
	 * for failed sends too. */
	retrans_err = tracepoint_args(btf, ids[KT_TRACE_RETRANSMIT_SKB]) >= 4;

	skel = tcptrace_bpf__open();
	if (!skel) {
		btf__free(btf);
		return tt_fail(t->err, errno, "cannot open BPF object");
	}
	t->skel = skel;
	bpf_program__set_autoload(skel->progs.handle_kfree_skb, drop_sites_look_up(t, btf, ids[KT_TRACE_KFREE_SKB]));
	btf__free(btf);
	skel->rodata->cookie_marks_followed = t->cookies_mark;
	skel->rodata->trace_pids = cfg->n_pids > 0;
	skel->rodata->trace_comms = cfg->n_comms > 0;
	skel->rodata->trace_all = !cfg->n_pids && !cfg->n_comms;
	skel->rodata->scope_cgroup = cfg->scope_cgroup_fd >= 0;
	skel->rodata->scope_netns = cfg->scope_netns;
	skel->rodata->by_dest = cfg->by_dest;
	skel->rodata->by_cgroup = cfg->by_cgroup;
	if (tt_test_hooks()->retrans_skip_every)
		skel->rodata->test_retrans_skip_every =
			(__u32)strtoul(tt_test_hooks()->retrans_skip_every, NULL, 10);
	bpf_program__set_autoload(skel->progs.handle_send_reset, t->reasons_available);
	bpf_program__set_autoload(skel->progs.handle_send_reset_noreason, !t->reasons_available);
	bpf_program__set_autoload(skel->progs.handle_retransmit_skb, retrans_err);
	bpf_program__set_autoload(skel->progs.handle_retransmit_skb_noerr, !retrans_err);
	skel->rodata->catch_nested = cfg->catch_nested;
	bpf_program__set_autoload(skel->progs.catch_set_state, cfg->catch_nested);
	bpf_program__set_autoload(skel->progs.catch_send_reset,
				  cfg->catch_nested && t->reasons_available);
	bpf_program__set_autoload(skel->progs.catch_send_reset_noreason,
				  cfg->catch_nested && !t->reasons_available);
	bpf_program__set_autoload(skel->progs.catch_receive_reset, cfg->catch_nested);
	bpf_program__set_autoload(skel->progs.catch_destroy_sock, cfg->catch_nested);
	sweep_loops = !tt_test_hooks()->sweep_unrolled &&
		      libbpf_probe_bpf_helper(BPF_PROG_TYPE_RAW_TRACEPOINT, BPF_FUNC_loop, NULL) == 1;
	bpf_program__set_autoload(skel->progs.sweep_sockets_gone, sweep_loops);
	bpf_program__set_autoload(skel->progs.sweep_sockets_gone_unrolled, !sweep_loops);
	/* The verdicts by process are kept only with names to match. */
	bpf_program__set_autoload(skel->progs.handle_task_rename, skel->rodata->trace_comms);
	/* fexit/inet_csk_accept where it loads, else the read hook. */
	acceptors_configure(&t->acceptors, skel, at_accept);
	syscall_hooks_configure(&t->syscalls, skel);

	/* The socket table's buckets: see sock_table in socks.bpf.h. */
	skel->rodata->sock_buckets = cfg->max_sockets;
	err = bpf_map__set_max_entries(skel->maps.sock_table,
				       skel->rodata->sock_buckets + TT_SOCK_PROBES - 1);
	err = err ?: bpf_map__set_max_entries(skel->maps.tw_records,
					      tw_ring_bytes(cfg->max_sockets));
	err = err ?: bpf_map__set_max_entries(skel->maps.seeds, cfg->max_sockets);
	err = err ?: set_blocks(skel, cfg->max_procs);
	err = err ?: bpf_map__set_max_entries(skel->maps.proc_slots, cfg->max_procs);
	err = err ?: bpf_map__set_max_entries(skel->maps.free_slots, cfg->max_procs);
	err = err ?: bpf_map__set_max_entries(skel->maps.proc_comms, cfg->max_procs);
	err = err ?: bpf_map__set_max_entries(skel->maps.slot_owners, cfg->max_procs);
	err = err ?: bpf_map__set_max_entries(skel->maps.proc_times, cfg->max_procs);
	err = err ?: bpf_map__set_max_entries(skel->maps.verdicts,
					      skel->rodata->trace_comms ? 4 * cfg->max_procs : 64);
	err = err ?: bpf_map__set_max_entries(skel->maps.rst_reasons, cfg->max_procs);
	err = err ?: bpf_map__set_max_entries(skel->maps.dest_counters, cfg->max_procs);
	if (err)
		return tt_fail(t->err, err, "cannot size BPF maps");
	slot_fill_start(t, cfg->max_procs);
	return 0;
}

/* The log of each program to load gets the verifier's statistics only
 * (a few lines); a log that is too short would fail the load. */
#define TT_STATS_LOG_LEN 4096

static char (*stats_logs_prepare(struct tracer *t))[TT_STATS_LOG_LEN]
{
	size_t n = sizeof(t->prog_stats) / sizeof(t->prog_stats[0]);
	char (*logs)[TT_STATS_LOG_LEN] = calloc(n, sizeof(*logs));
	struct bpf_program *prog;
	size_t i = 0;

	if (!logs)
		return NULL;
	bpf_object__for_each_program(prog, t->skel->obj) {
		if (!bpf_program__autoload(prog) || i == n)
			continue;
		bpf_program__set_log_level(prog, TT_LOG_STATS);
		bpf_program__set_log_buf(prog, logs[i++], TT_STATS_LOG_LEN);
	}
	return logs;
}

static void stats_logs_read(struct tracer *t, char (*logs)[TT_STATS_LOG_LEN])
{
	size_t n = sizeof(t->prog_stats) / sizeof(t->prog_stats[0]);
	struct bpf_program *prog;
	size_t i = 0;

	bpf_object__for_each_program(prog, t->skel->obj) {
		if (!bpf_program__autoload(prog) || i == n)
			continue;
		t->prog_stats[i].name = bpf_program__name(prog);
		verifier_log_stats(logs[i], &t->prog_stats[i].verifier);
		i++;
	}
	t->n_prog_stats = i;
}

int tracer_load(struct tracer *t)
{
	char (*logs)[TT_STATS_LOG_LEN] = t->cfg.verbose ? stats_logs_prepare(t) : NULL;
	int err = tcptrace_bpf__load(t->skel);

	if (logs && !err)
		stats_logs_read(t, logs);
	free(logs);
	t->listen_drops_exact = drop_sites_set(t);
	if (err)
		return tt_fail(t->err, err, "cannot load BPF programs");
	err = slot_fill_wait(t);
	if (err)
		return tt_fail(t->err, err, "cannot fill the process slots");
	err = counters_open(&t->counters, t->skel, t->err);
	err = err ?: slots_open(&t->slots, t->skel, t->err);
	err = err ?: timewait_open(&t->tw, bpf_map__fd(t->skel->maps.tw_records),
				   &t->skel->bss->tw_stamp, t->err);
	err = err ?: listeners_open(&t->listeners, t->skel, t->listen_drops_exact, t->err);
	return err;
}

int tracer_set_targets(struct tracer *t)
{
	int pids_fd = bpf_map__fd(t->skel->maps.traced_pids);
	int comms_fd = bpf_map__fd(t->skel->maps.traced_comms);
	__u8 one = 1;

	__u32 zero = 0;

	if (t->cfg.scope_cgroup_fd >= 0 &&
	    bpf_map_update_elem(bpf_map__fd(t->skel->maps.scope_cgroups), &zero,
				&t->cfg.scope_cgroup_fd, BPF_ANY))
		return tt_fail(t->err, errno, "cannot store the cgroup of --cgroup or --unit");
	for (size_t i = 0; i < t->cfg.n_pids; i++)
		if (bpf_map_update_elem(pids_fd, &t->cfg.pids[i], &one, BPF_ANY))
			return tt_fail(t->err, errno, "cannot store traced process");
	for (size_t i = 0; i < t->cfg.n_comms; i++) {
		char comm[TT_COMM_LEN] = {};

		strncpy(comm, t->cfg.comms[i], sizeof(comm) - 1);
		if (bpf_map_update_elem(comms_fd, comm, &one, BPF_ANY))
			return tt_fail(t->err, errno, "cannot store traced process");
	}
	return 0;
}

int tracer_seed(struct tracer *t, const uint32_t *pids, size_t n_pids, bool all,
		const uint32_t *hidden, size_t n_hidden)
{
	struct seed_open open = {};

	/* Its timewait sockets are listed even when no process of it lives
	 * at a snapshot. */
	if (t->cfg.scope_netns)
		namespaces_of_path(&t->netns, t->cfg.scope_netns_path, t->cfg.scope_netns);
	t->seeded = seed_sockets(t->skel, &t->netns, pids, n_pids, all, hidden, n_hidden, &open);
	for (size_t i = 0; i < open.n; i++) {
		uint32_t slot = slots_of_tgid(&t->slots, open.v[i].tgid);

		if (slot != TT_NO_SLOT)
			t->slots.views[slot].open_seeded[open.v[i].side & 1] += open.v[i].n;
	}
	free(open.v);
	/* A listener found shared wants the read hook now. */
	return acceptors_update(&t->acceptors, t->err);
}

static bool is_twin(const struct bpf_program *prog)
{
	return !strncmp(bpf_program__name(prog), "catch_", 6);
}

int tracer_attach(struct tracer *t)
{
	/* For the self-check's test: a program left unattached is an event
	 * tcptrace never sees, as on a kernel that does not fire it. */
	const char *skip = tt_test_hooks()->skip_program;
	struct bpf_program *prog;
	int err;

	/* accept() first: every connection adopted after it waits for it. */
	err = acceptors_attach(&t->acceptors, t->err);
	if (err)
		return err;
	/* Twins (--catch-nested) last: a tracepoint runs its programs in the
	 * order they were attached, and a twin must run after its primary. */
	for (int twins = 0; twins < 2; twins++) {
		bpf_object__for_each_program(prog, t->skel->obj) {
			struct bpf_link *link;

			/* The seeding runs the iterator itself (walk_listeners), the
			 * summary the sweep (raw_tp, run on demand). */
			/* Without the drop sites' addresses it would count nothing. */
			if (!bpf_program__autoload(prog) || is_twin(prog) != twins ||
			    (prog == t->skel->progs.handle_kfree_skb && !t->listen_drops_exact) ||
			    bpf_program__expected_attach_type(prog) == BPF_TRACE_ITER ||
			    bpf_program__type(prog) == BPF_PROG_TYPE_RAW_TRACEPOINT ||
			    acceptors_own(&t->acceptors, prog) || syscall_hooks_own(t->skel, prog) ||
			    (skip && !strcmp(skip, bpf_program__name(prog))))
				continue;
			if (t->n_links == sizeof(t->links) / sizeof(t->links[0]))
				return tt_fail(t->err, E2BIG, "too many BPF programs to attach");
			link = bpf_program__attach(prog);
			if (!link)
				return tt_fail(t->err, errno, "cannot attach to %s",
						   strchr(bpf_program__section_name(prog), '/') + 1);
			t->links[t->n_links++] = link;
		}
	}
	/* Without them tcptrace carries on, and says so. */
	syscall_hooks_attach(&t->syscalls, t->skel);
	return 0;
}

int tracer_watch(struct tracer *t)
{
	return acceptors_watch(&t->acceptors, t->err);
}

const char *tracer_acceptors(const struct tracer *t)
{
	return acceptors_way_text(&t->acceptors);
}

const char *tracer_syscall_hooks_missing(const struct tracer *t)
{
	return syscall_hooks_missing(&t->syscalls);
}

bool tracer_times_accepts(const struct tracer *t)
{
	return t->acceptors.way == ACCEPTORS_AT_ACCEPT;
}

uint64_t tracer_read_hook_failures(const struct tracer *t, int *error)
{
	*error = __atomic_load_n(&t->acceptors.attach_error, __ATOMIC_RELAXED);
	return __atomic_load_n(&t->acceptors.attach_failures, __ATOMIC_RELAXED);
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

void tracer_test_detach(struct tracer *t, const char *name)
{
	struct bpf_program *prog = bpf_object__find_program_by_name(t->skel->obj, name);
	struct bpf_prog_info prog_info = {};
	__u32 len = sizeof(prog_info);

	if (!prog || bpf_obj_get_info_by_fd(bpf_program__fd(prog), &prog_info, &len))
		return;
	for (size_t i = 0; i < t->n_links; i++) {
		struct bpf_link_info info = {};

		len = sizeof(info);
		if (t->links[i] && !bpf_obj_get_info_by_fd(bpf_link__fd(t->links[i]), &info, &len) &&
		    info.prog_id == prog_info.id) {
			bpf_link__destroy(t->links[i]);
			t->links[i] = NULL;
		}
	}
}

uint64_t tracer_ends_unseen(const struct tracer *t)
{
	return __atomic_load_n(&t->skel->bss->ends_unseen, __ATOMIC_RELAXED) +
	       __atomic_load_n(&t->skel->bss->ends_swept, __ATOMIC_RELAXED);
}

int tracer_sweep(struct tracer *t)
{
	bool loops = bpf_program__autoload(t->skel->progs.sweep_sockets_gone);
	int fd = bpf_program__fd(loops ? t->skel->progs.sweep_sockets_gone :
					 t->skel->progs.sweep_sockets_gone_unrolled);
	__u32 buckets = bpf_map__max_entries(t->skel->maps.sock_table);
	__u32 step = loops ? TT_SWEEP_BUCKETS : TT_SWEEP_BUCKETS_UNROLLED;

	for (__u32 first = 0; first < buckets; first += step) {
		__u64 args[1] = { first };
		struct bpf_test_run_opts run = {
			.sz = sizeof(run), .ctx_in = args, .ctx_size_in = sizeof(args),
		};

		if (bpf_prog_test_run_opts(fd, &run))
			return -errno;
	}
	return 0;
}

uint64_t tracer_retrans_late(const struct tracer *t)
{
	return __atomic_load_n(&t->skel->bss->retrans_late, __ATOMIC_RELAXED);
}

/* Each entry with where it is: its bucket, its home's, and whether its
 * home says it has sockets held further on (a lookup stops there if not). */
void tracer_print_sockets_left(struct tracer *t, FILE *f)
{
	int fd = bpf_map__fd(t->skel->maps.sock_table);
	__u32 n = bpf_map__max_entries(t->skel->maps.sock_table);
	__u32 buckets = t->skel->rodata->sock_buckets;
	struct tt_sock_bucket b, h;

	for (__u32 i = 0; i < n; i++) {
		if (bpf_map_lookup_elem(fd, &i, &b))
			continue;
		for (int w = 0; w < TT_SOCK_WAYS; w++) {
			__u32 home;

			if (!b.sk[w])
				continue;
			home = tt_sock_home(b.sk[w], buckets);
			if (bpf_map_lookup_elem(fd, &home, &h))
				h.spilled = 0;
			fprintf(f, "tcptrace: socket left: tgid %u side %u flags 0x%x bucket %u "
				   "home %u (spilled %u) claims %u at %#llx%s\n",
				b.s[w].tgid, b.s[w].side & 1, b.s[w].flags, i, home, h.spilled,
				b.claims[w], (unsigned long long)b.sk[w],
				b.s[w].side & TT_SOCK_GONE ? " (gone)" : "");
		}
	}
}

uint64_t tracer_nested_caught(struct tracer *t)
{
	return t->cfg.catch_nested ? counters_nested_caught(&t->counters) : 0;
}

int tracer_trace_pid(struct tracer *t, uint32_t pid)
{
	__u8 one = 1;

	if (bpf_map_update_elem(bpf_map__fd(t->skel->maps.traced_pids), &pid, &one, BPF_ANY) ||
	    bpf_map_update_elem(bpf_map__fd(t->skel->maps.verdicts), &pid, &one, BPF_ANY) ||
	    bpf_map_update_elem(bpf_map__fd(t->skel->maps.scope_exempt), &pid, &one, BPF_ANY))
		return tt_fail(t->err, errno, "cannot store the self-check's processes");
	__atomic_fetch_add(&t->skel->bss->procs_gen, 1, __ATOMIC_SEQ_CST);
	return 0;
}

int tracer_counters_of(struct tracer *t, uint32_t pid, struct tt_proc_counters *out)
{
	__u32 slot;
	int err;

	memset(out, 0, sizeof(*out));
	if (bpf_map_lookup_elem(bpf_map__fd(t->skel->maps.proc_slots), &pid, &slot))
		return errno == ENOENT ? 0 : tt_fail(t->err, errno, "cannot read counters");
	err = counters_of_slot(&t->counters, slot, out);
	if (err)
		return tt_fail(t->err, err, "cannot read counters");
	out->tw_rst += timewait_rsts_of(&t->tw, slot);
	return 0;
}

/* The self-check's processes leave no row: their slots are given back
 * once nothing holds them, their timewait owners go now. */
void tracer_forget_pid(struct tracer *t, uint32_t pid)
{
	struct tcptrace_bpf *skel = t->skel;
	__u32 slot;

	if (!bpf_map_lookup_elem(bpf_map__fd(skel->maps.proc_slots), &pid, &slot) &&
	    slot < t->slots.n) {
		slots_forget(&t->slots, slot);
		timewait_forget_slot(&t->tw, slot);
	}
	bpf_map_delete_elem(bpf_map__fd(skel->maps.proc_slots), &pid);
	bpf_map_delete_elem(bpf_map__fd(skel->maps.proc_comms), &pid);
	bpf_map_delete_elem(bpf_map__fd(skel->maps.traced_pids), &pid);
	bpf_map_delete_elem(bpf_map__fd(skel->maps.verdicts), &pid);
	bpf_map_delete_elem(bpf_map__fd(skel->maps.scope_exempt), &pid);
	__atomic_fetch_add(&skel->bss->procs_gen, 1, __ATOMIC_SEQ_CST);
}

void tracer_close(struct tracer *t)
{
	if (t->sites.looking)
		pthread_join(t->sites.thread, NULL);
	t->sites.looking = false;
	if (t->fill.running)
		pthread_join(t->fill.thread, NULL);
	t->fill.running = false;
	if (t->fill.made)
		close(t->fill.fd);
	t->fill.made = false;
	acceptors_close(&t->acceptors);
	syscall_hooks_close(&t->syscalls);
	while (t->n_links)
		bpf_link__destroy(t->links[--t->n_links]);
	listeners_close(&t->listeners);
	timewait_close(&t->tw);
	slots_close(&t->slots);
	counters_close(&t->counters);
	free(t->selected_comms);
	t->selected_comms = NULL;
	tcptrace_bpf__destroy(t->skel);
	t->skel = NULL;
	namespaces_close(&t->netns);
	for (size_t i = 0; i < TT_REASON_SLOTS; i++) {
		free((char *)t->reason_names.name[i]);
		t->reason_names.name[i] = NULL;
	}
}
