/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Processes: which are traced (by PID, by name through a verdict per
 * process), their names, and their counters, one block per slot of a
 * per-CPU array. */
#ifndef TT_PROCS_BPF_H
#define TT_PROCS_BPF_H

#include "compat.bpf.h"
#include "maps.bpf.h"
#include "settings.bpf.h"

/* Per-process counters, one block per slot: a socket's entry holds its
 * owner's slot, so counting costs an array index, not a hash lookup.
 * proc_slots gives each traced process its slot, taken from free_slots
 * (filled by user space), and is looked up only when a socket gets its
 * owner. A slot is its process: once the process is reaped its tgid
 * leaves proc_slots, so that a new process given the same PID gets a slot
 * (and a row) of its own, and user space gives the slot back once no
 * socket holds it (slot_sockets) and no timewait socket of it is left. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, TT_DEFAULT_MAX_PROCS);
	__type(key, __u32); /* tgid */
	__type(value, __u32); /* index in proc_counters */
} proc_slots SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_QUEUE);
	__uint(max_entries, TT_DEFAULT_MAX_PROCS);
	__type(value, __u32);
} free_slots SEC(".maps");

/* The slots of proc_counters and slot_sockets, which hold a block per slot
 * and CPU, CPU after CPU (a CPU's blocks share no cache line with
 * another's): one array each, which user space maps and reads in place.
 * A per-CPU array would allocate each slot's blocks apart at start, a
 * few thousand allocations. User space sizes both: slots_per_cpu, times
 * the possible CPUs. */

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, TT_DEFAULT_MAX_PROCS);
	__type(key, __u32); /* CPU * slots_per_cpu + slot */
	__type(value, struct tt_proc_counters);
} proc_counters SEC(".maps");

/* A slot's times (struct tt_proc_times), shared by the CPUs; user space
 * maps it and reads it in place. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, TT_DEFAULT_MAX_PROCS);
	__type(key, __u32); /* slot */
	__type(value, struct tt_proc_times);
} proc_times SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, TT_DEFAULT_MAX_PROCS);
	__type(key, __u32); /* tgid */
	__type(value, char[TT_COMM_LEN]);
} proc_comms SEC(".maps");

/* Whose each slot is (struct tt_slot_owner), read by user space in place. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, TT_DEFAULT_MAX_PROCS);
	__type(key, __u32); /* slot */
	__type(value, struct tt_slot_owner);
} slot_owners SEC(".maps");

/* How many entries of the socket table hold each slot, per CPU: one CPU
 * may add and another take away, only the sum means something. After its
 * process is gone a slot's sum only goes down, so a sum of zero read one
 * CPU at a time is a true zero. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, TT_DEFAULT_MAX_PROCS);
	__type(key, __u32); /* CPU * slots_per_cpu + slot */
	__type(value, __s64);
} slot_sockets SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, TT_MAX_TRACED);
	__type(key, __u32);
	__type(value, __u8);
} traced_pids SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, TT_MAX_TRACED);
	__type(key, char[TT_COMM_LEN]);
	__type(value, __u8);
} traced_comms SEC(".maps");

/* Whether each process is traced, by tgid, when --pid names processes by
 * name: a connect() then costs one lookup instead of reading the name and
 * matching it (bench/results/2026-11-history.md). A name changes only in __set_task_comm
 * (exec, prctl PR_SET_NAME, /proc/PID/comm), whose tracepoint task_rename
 * gives the new name; a tgid names a new process only after a fork
 * (task_newtask). Least recently used out: an entry evicted, or one of a
 * process that was there before start-up, is worked out again. User space
 * attaches the two hooks only with names to match. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4 * TT_DEFAULT_MAX_PROCS);
	__type(key, __u32); /* tgid */
	__type(value, __u8); /* 1 traced, 0 not */
} verdicts SEC(".maps");

/* What each CPU last learnt of a few processes, by tgid modulo
 * TT_PROC_CACHE: the verdict, the slot. The connects and first reads of a
 * proxy's few processes then cost an array index instead of one or two
 * hash lookups. A word holds only under the procs_gen it was made under:
 * whatever changes a verdict or a slot (task_rename, task_newtask, user
 * space adding or forgetting a process) bumps procs_gen. One word per
 * entry, so that a program nested on the CPU (a softirq's) sees either
 * the old word or the new, never half of each. */
#define TT_PROC_CACHE 16
#define PC_TGID_MASK ((1ull << 22) - 1) /* pid_max is at most 2^22 */
#define PC_SLOT_SHIFT 22
#define PC_SLOT_MASK ((1ull << 20) - 1) /* --max-procs is at most 2^20 */
#define PC_SLOT_KNOWN (1ull << 42)
#define PC_VERDICT_KNOWN (1ull << 43)
#define PC_TRACED (1ull << 44)
#define PC_GEN_SHIFT 45

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, TT_PROC_CACHE);
	__type(key, __u32);
	__type(value, __u64);
} proc_cache SEC(".maps");

__u32 procs_gen = 0;

struct proc_memo {
	__u64 *word;
	__u64 known; /* the word's bits when it is tgid's under gen, else 0 */
	__u64 head;  /* tgid and gen, for a new word */
};

static __always_inline void proc_memo_of(__u32 tgid, struct proc_memo *m)
{
	__u32 i = tgid % TT_PROC_CACHE;

	m->head = tgid | ((__u64)procs_gen << PC_GEN_SHIFT);
	m->word = bpf_map_lookup_elem(&proc_cache, &i);
	m->known = 0;
	if (m->word) {
		__u64 w = *m->word;

		if ((w & PC_TGID_MASK) == tgid && (w >> PC_GEN_SHIFT) == (m->head >> PC_GEN_SHIFT))
			m->known = w;
	}
}

static __always_inline void proc_memo_keep(struct proc_memo *m, __u64 bits)
{
	if (m->word)
		*m->word = m->head | (m->known & ~(PC_TGID_MASK | (~0ull << PC_GEN_SHIFT))) | bits;
}

static __always_inline __u32 proc_current_tgid(void)
{
	return bpf_get_current_pid_tgid() >> 32;
}

static __always_inline __u64 proc_current_start_time(void)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();

	return BPF_CORE_READ(task, group_leader, start_time);
}

/* The slot of process tgid, given at its first need; TT_NO_SLOT when
 * every slot is taken. */
static __always_inline __u32 proc_find_slot(__u32 tgid)
{
	__u32 *slot = bpf_map_lookup_elem(&proc_slots, &tgid);
	struct tt_slot_owner *owner;
	char (*comm)[TT_COMM_LEN];
	__u32 fresh;

	if (slot)
		return *slot;
	if (bpf_map_pop_elem(&free_slots, &fresh))
		return TT_NO_SLOT;
	owner = bpf_map_lookup_elem(&slot_owners, &fresh);
	if (!owner)
		return TT_NO_SLOT;
	comm = bpf_map_lookup_elem(&proc_comms, &tgid);
	if (comm)
		__builtin_memcpy(owner->comm, comm, TT_COMM_LEN);
	owner->start = 0;
	owner->cgroup_id = 0;
	if (tgid == proc_current_tgid()) {
		owner->start = proc_current_start_time();
		/* The id, not the name: reading the name would make libbpf
		 * search the kernel's types for three more structs at every
		 * start. User space finds the name from the id. */
		if (by_cgroup)
			owner->cgroup_id = bpf_get_current_cgroup_id();
	}
	owner->tgid = tgid;
	owner->state = TT_SLOT_LIVE;
	if (!bpf_map_update_elem(&proc_slots, &tgid, &fresh, BPF_NOEXIST))
		return fresh;
	/* A racing CPU gave tgid a slot first: this one goes back. */
	owner->state = TT_SLOT_FREE;
	bpf_map_push_elem(&free_slots, &fresh, 0);
	slot = bpf_map_lookup_elem(&proc_slots, &tgid);
	return slot ? *slot : TT_NO_SLOT;
}

/* Global: verified once, not in each of the many paths that give a
 * socket its owner's slot. */
__noinline __u32 proc_slot_of(__u32 tgid)
{
	struct proc_memo m;
	__u32 slot;

	proc_memo_of(tgid, &m);
	if (m.known & PC_SLOT_KNOWN)
		return (m.known >> PC_SLOT_SHIFT) & PC_SLOT_MASK;
	slot = proc_find_slot(tgid);
	if (slot != TT_NO_SLOT)
		proc_memo_keep(&m, PC_SLOT_KNOWN | ((__u64)(slot & PC_SLOT_MASK) << PC_SLOT_SHIFT));
	return slot;
}

/* This CPU's block of slot in proc_counters or slot_sockets. */
static __always_inline __u32 proc_block_of(__u32 slot)
{
	return bpf_get_smp_processor_id() * slots_per_cpu + slot;
}

static __always_inline struct tt_proc_counters *proc_counters_at(__u32 slot)
{
	struct tt_proc_counters *c = NULL;
	__u32 block = proc_block_of(slot);

	if (slot < slots_per_cpu)
		c = bpf_map_lookup_elem(&proc_counters, &block);
	if (!c)
		tt_count_drop(TT_DROP_PROC_MAP_FULL);
	return c;
}

static __always_inline void proc_count_sockets(__u32 slot, __s64 n)
{
	__u32 block = proc_block_of(slot);
	__s64 *count;

	if (slot >= slots_per_cpu)
		return;
	count = bpf_map_lookup_elem(&slot_sockets, &block);
	if (count)
		__sync_fetch_and_add(count, n);
}

/* The process that had tgid and started at start (0: whichever) is gone:
 * its slot keeps counting the sockets that hold it, under its name, and
 * the process that gets the PID next starts anew. */
static __always_inline void proc_gone(__u32 tgid, __u64 start)
{
	__u32 *slot = bpf_map_lookup_elem(&proc_slots, &tgid);
	struct tt_slot_owner *owner;

	if (slot) {
		owner = bpf_map_lookup_elem(&slot_owners, slot);
		/* A process freed after its PID went to a new one (the
		 * new one's fork called this first) leaves the new slot be. */
		if (owner && start && owner->start && owner->start != start)
			return;
		if (owner && owner->tgid == tgid && owner->state == TT_SLOT_LIVE) {
			char (*comm)[TT_COMM_LEN] = bpf_map_lookup_elem(&proc_comms, &tgid);

			/* Named after its slot was given (in a softirq): the
			 * name goes with the slot, for user space to read. */
			if (comm && !owner->comm[0])
				__builtin_memcpy(owner->comm, comm, TT_COMM_LEN);
			owner->state = TT_SLOT_GONE;
		}
		bpf_map_delete_elem(&proc_slots, &tgid);
	}
	bpf_map_delete_elem(&proc_comms, &tgid);
	bpf_map_delete_elem(&verdicts, &tgid);
	__sync_fetch_and_add(&procs_gen, 1);
}

static __always_inline struct tt_proc_counters *proc_counters_of(__u32 tgid)
{
	return proc_counters_at(proc_slot_of(tgid));
}

/* The process name: the thread group leader's comm (threads of envoy or
 * haproxy may carry their own). */
static __always_inline void proc_read_name(char (*comm)[TT_COMM_LEN])
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();

	BPF_CORE_READ_STR_INTO(comm, task, group_leader, comm);
}

/* Records the name of a traced process, once. */
static __always_inline void proc_record_name(__u32 tgid, char (*comm)[TT_COMM_LEN], bool known)
{
	if (bpf_map_lookup_elem(&proc_comms, &tgid))
		return;
	if (!known)
		proc_read_name(comm);
	bpf_map_update_elem(&proc_comms, &tgid, comm, BPF_ANY);
}

/* The cgroup (v2) of --cgroup or --unit, at index 0. */
struct {
	__uint(type, BPF_MAP_TYPE_CGROUP_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} scope_cgroups SEC(".maps");

/* Processes traced whatever the scope: the self-check's. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16);
	__type(key, __u32);
	__type(value, __u8);
} scope_exempt SEC(".maps");

/* Whether the current process is inside --cgroup (or --unit) and
 * --netns. Asked where a process first meets a socket (connect, listen,
 * accept), in its own syscall: its verdict then holds for its life. */
static __always_inline bool proc_in_scope(__u32 tgid)
{
	if (!scope_cgroup && !scope_netns)
		return true;
	if (bpf_map_lookup_elem(&scope_exempt, &tgid))
		return true;
	if (scope_cgroup && bpf_current_task_under_cgroup(&scope_cgroups, 0) != 1)
		return false;
	if (scope_netns) {
		struct task_struct *task = (struct task_struct *)bpf_get_current_task();

		if (BPF_CORE_READ(task, nsproxy, net_ns, ns.inum) != scope_netns)
			return false;
	}
	return true;
}

/* Whether --pid names the process tgid, called comm. */
static __always_inline bool proc_named_by_pid_option(__u32 tgid, const char (*comm)[TT_COMM_LEN])
{
	return (trace_pids && bpf_map_lookup_elem(&traced_pids, &tgid)) ||
	       bpf_map_lookup_elem(&traced_comms, comm);
}

/* Whether the current process is traced; records its name when it is.
 * Reading the name costs more than a map lookup (bench/results/2026-11-history.md): it is
 * read only when a name must be matched or recorded. */
static __always_inline bool proc_work_out_verdict(__u32 tgid)
{
	char comm[TT_COMM_LEN] = {};
	__u8 *verdict, traced;

	if (!proc_in_scope(tgid))
		return false;
	if (trace_all) {
		proc_record_name(tgid, &comm, false);
		return true;
	}
	if (!trace_comms) {
		if (!bpf_map_lookup_elem(&traced_pids, &tgid))
			return false;
		proc_record_name(tgid, &comm, false);
		return true;
	}
	verdict = bpf_map_lookup_elem(&verdicts, &tgid);
	if (verdict)
		return *verdict;
	proc_read_name(&comm);
	traced = proc_named_by_pid_option(tgid, &comm);
	/* Not over a verdict that handle_task_rename stored meanwhile: it
	 * knew the new name before the kernel stored it. */
	bpf_map_update_elem(&verdicts, &tgid, &traced, BPF_NOEXIST);
	if (traced)
		proc_record_name(tgid, &comm, true);
	return traced;
}

/* Global: verified once, not in each path that asks. */
__noinline bool proc_current_is_traced(__u32 tgid)
{
	struct proc_memo m;
	bool traced;

	proc_memo_of(tgid, &m);
	if (m.known & PC_VERDICT_KNOWN)
		return m.known & PC_TRACED;
	traced = proc_work_out_verdict(tgid);
	proc_memo_keep(&m, PC_VERDICT_KNOWN | (traced ? PC_TRACED : 0));
	return traced;
}

#endif /* TT_PROCS_BPF_H */
