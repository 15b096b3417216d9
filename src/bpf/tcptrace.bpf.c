// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Per-process TCP accounting in the kernel: who owns each socket, how each
 * connection ended, the timewait sockets it left, and failed connects.
 *
 * Ownership is remembered per socket, never taken from whatever task is on
 * the CPU: most state changes run in softirq context, where on loopback the
 * current task is often the peer. A socket gets its owner when a syscall of
 * the owner creates it (connect, listen), from its listener when it is
 * accepted, or from the seeds user space wrote for sockets that existed
 * before start-up. Counters are cumulative, per process, per CPU. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "compat.bpf.h"
#include "tcptrace.h"

#define AF_INET 2
#define AF_INET6 10
#define ECONNRESET 104
#define EEXIST 17
#define CLONE_THREAD 0x00010000

/* Set by user space between open and load: every process, or the ones
 * --pid names by PID (traced_pids) and by name (traced_comms). */
const volatile bool trace_all = true;
const volatile bool trace_pids = false;
const volatile bool trace_comms = false;
const volatile bool by_dest = false; /* --by dest: also count per destination */

/* Seeds not yet adopted: while zero, unknown sockets cost one lookup less. */
__u64 seeds_pending = 0;

/* Listeners being closed (entries of stopping_listeners): while zero, a
 * destroyed socket costs one lookup less. */
__u64 listeners_stopping = 0;

/* Counting filters over socket addresses: slot i holds how many members
 * of a set of sockets hash to i. A zero slot proves a socket is not a
 * member at the cost of one array read, where a lookup in sock_owner that
 * misses costs a hash and a cold bucket (bench/README.md has the figures).
 * tracked_slots: the sockets in sock_owner. Most state changes on a busy
 * machine are of sockets nobody traces. untouched_slots: the accepted
 * sockets in sock_owner that no syscall has touched yet (see on_touch).
 * tcp_rcv_space_adjust runs on every read of every TCP socket. */
#define TT_FILTER_SLOTS (1 << 14)
__u32 tracked_slots[TT_FILTER_SLOTS];
__u32 untouched_slots[TT_FILTER_SLOTS];

/* Fibonacci hashing of the socket's address. */
static __always_inline __u32 slot_of(const struct sock *sk)
{
	return ((__u64)sk * 0x9E3779B97F4A7C15ull) >> (64 - 14);
}

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, TT_DEFAULT_MAX_SOCKETS);
	__type(key, __u64); /* struct sock address */
	__type(value, struct tt_sock);
} sock_owner SEC(".maps");

/* Per-process counters, one block per slot: a socket's entry holds its
 * owner's slot, so counting costs an array index, not a hash lookup.
 * proc_slots gives each traced process its slot, taken from free_slots
 * (filled by user space at load), and is looked up only when a socket gets
 * its owner. A slot is not given back: a late count of a process whose row
 * user space dropped lands in a slot nobody reads. */
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

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, TT_DEFAULT_MAX_PROCS);
	__type(key, __u32); /* slot */
	__type(value, struct tt_proc_counters);
} proc_counters SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, TT_DEFAULT_MAX_PROCS);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct tt_reason_key);
	__type(value, __u64);
} rst_reasons SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, TT_DEFAULT_MAX_PROCS);
	__type(key, __u32); /* tgid */
	__type(value, char[TT_COMM_LEN]);
} proc_comms SEC(".maps");

/* Only with --by dest; allocated on demand, so empty costs nothing. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, TT_DEFAULT_MAX_PROCS);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct tt_dest_key);
	__type(value, struct tt_dest_counters);
} dest_counters SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, struct tt_listener_key);
	__type(value, struct tt_owner);
} listeners SEC(".maps");

/* A listener that a thread is closing, from its move to CLOSE to its
 * destruction in the same close(): the kernel destroys the connections
 * still in its accept queue in between, in that thread (see
 * is_unaccepted_child). */
struct stopping_listener {
	__u64 sk;
	struct tt_listener_key key;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u64); /* pid_tgid of the closing thread */
	__type(value, struct stopping_listener);
} stopping_listeners SEC(".maps");

/* The owners of timewait sockets. Not an LRU map, whose inserts cost
 * several times a plain one (bench/README.md): user space deletes the
 * entries of timewait sockets that have ended, those older than tw_stamp
 * that sock_diag no longer lists. It sizes the map to twice --max-sockets. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, TT_DEFAULT_MAX_SOCKETS);
	__type(key, struct tt_tw_key);
	__type(value, struct tt_tw_owner);
} tw_owners SEC(".maps");

/* Written by user space at each snapshot, before it lists timewait
 * sockets; copied into each new entry of tw_owners. */
__u64 tw_stamp = 0;

/* Filled once at start-up and emptied as sockets show up: allocated on
 * demand rather than sized up front like the maps of the hot path. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, TT_DEFAULT_MAX_SOCKETS);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, __u64); /* socket cookie */
	__type(value, struct tt_seed);
} seeds SEC(".maps");

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
 * matching it (bench/README.md). A name changes only in __set_task_comm
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

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, 1024);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct tt_other_rst_key);
	__type(value, __u64);
} other_rsts SEC(".maps");

/* The socket whose RST was counted ahead at its move to CLOSE (abort on
 * data): the kernel sends that RST on the same CPU right after. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} rst_counted_ahead SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, TT_DROPS);
	__type(key, __u32);
	__type(value, __u64);
} drop_counts SEC(".maps");

/* Every counter is bumped atomically: a program in a process's syscall
 * (close(), connect()) can be interrupted on its CPU by a softirq whose
 * program bumps the same per-CPU counter, and a plain ++ would then lose
 * one of the two. */
static __always_inline void bump(__u64 *counter)
{
	__sync_fetch_and_add(counter, 1);
}

static __always_inline void count_drop(enum tt_drop drop)
{
	__u32 key = drop;
	__u64 *count = bpf_map_lookup_elem(&drop_counts, &key);

	if (count)
		bump(count);
}

/* The slot of process tgid, given at its first need; TT_NO_SLOT when
 * every slot is taken. */
static __always_inline __u32 slot_of_process(__u32 tgid)
{
	__u32 *slot = bpf_map_lookup_elem(&proc_slots, &tgid);
	__u32 fresh;

	if (slot)
		return *slot;
	if (bpf_map_pop_elem(&free_slots, &fresh))
		return TT_NO_SLOT;
	if (!bpf_map_update_elem(&proc_slots, &tgid, &fresh, BPF_NOEXIST))
		return fresh;
	/* A racing CPU gave tgid a slot first: this one goes back. */
	bpf_map_push_elem(&free_slots, &fresh, 0);
	slot = bpf_map_lookup_elem(&proc_slots, &tgid);
	return slot ? *slot : TT_NO_SLOT;
}

static __always_inline struct tt_proc_counters *counters_at(__u32 slot)
{
	struct tt_proc_counters *c = bpf_map_lookup_elem(&proc_counters, &slot);

	if (!c)
		count_drop(TT_DROP_PROC_MAP_FULL);
	return c;
}

static __always_inline struct tt_proc_counters *counters_of(__u32 tgid)
{
	return counters_at(slot_of_process(tgid));
}

/* The counters of a followed socket's owner. A socket accepted from a
 * shared listener gets its slot with its owner, at its first touch (or at
 * its first count if it ends untouched): the listener's owner gets no row
 * for connections it did not accept. */
static __always_inline struct tt_proc_counters *counters_of_sock(struct tt_sock *s)
{
	if (s->slot == TT_NO_SLOT)
		s->slot = slot_of_process(s->tgid);
	return counters_at(s->slot);
}

/* Copies a struct sock_common, up to a timewait socket's tw_snd_nxt,
 * into c: addresses, hash, ports, family, state, namespace, the link in
 * the connection hash. A probe read costs about as much whatever its size
 * (bench/README.md), and these fields sit together: one read gets them
 * all. c's fields are then read like any other, at the offsets CO-RE
 * relocates to the running kernel's. */
static __always_inline bool read_skc(struct sock_common *c, const void *skc)
{
	__u32 len = bpf_core_field_offset(struct sock_common, skc_tw_snd_nxt) +
		    bpf_core_field_size(struct sock_common, skc_tw_snd_nxt);

	if (len > sizeof(*c))
		len = sizeof(*c);
	return bpf_probe_read_kernel(c, len, skc) == 0;
}

static __always_inline __u32 netns_of(struct net *net)
{
	return BPF_CORE_READ(net, ns.inum);
}

/* The --by dest counters of an `out` socket's owner toward its peer, or
 * NULL (not --by dest, an `in` socket, or the map is full). */
static __always_inline struct tt_dest_counters *dest_of(const struct sock *sk,
							 const struct tt_sock *s)
{
	struct tt_dest_key key = { .tgid = s->tgid };
	struct tt_dest_counters zero = {}, *d;
	struct sock_common c;

	if (!by_dest || s->side != TT_SIDE_OUT)
		return NULL;
	if (!read_skc(&c, sk))
		__builtin_memset(&c, 0, sizeof(c));
	key.netns = netns_of(c.skc_net.net);
	key.family = c.skc_family;
	key.port = bpf_ntohs(c.skc_dport);
	if (key.family == AF_INET)
		__builtin_memcpy(key.addr, &c.skc_daddr, 4);
	else
		__builtin_memcpy(key.addr, &c.skc_v6_daddr, 16);
	d = bpf_map_lookup_elem(&dest_counters, &key);
	if (d)
		return d;
	bpf_map_update_elem(&dest_counters, &key, &zero, BPF_NOEXIST);
	d = bpf_map_lookup_elem(&dest_counters, &key);
	if (!d)
		count_drop(TT_DROP_DEST_MAP_FULL);
	return d;
}

/* The process name: the thread group leader's comm (threads of envoy or
 * haproxy may carry their own). */
static __always_inline void read_process_name(char (*comm)[TT_COMM_LEN])
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();

	BPF_CORE_READ_STR_INTO(comm, task, group_leader, comm);
}

/* Records the name of a traced process, once. */
static __always_inline void record_name(__u32 tgid, char (*comm)[TT_COMM_LEN], bool known)
{
	if (bpf_map_lookup_elem(&proc_comms, &tgid))
		return;
	if (!known)
		read_process_name(comm);
	bpf_map_update_elem(&proc_comms, &tgid, comm, BPF_ANY);
}

/* Whether --pid names the process tgid, called comm. */
static __always_inline bool named_by_pid_option(__u32 tgid, const char (*comm)[TT_COMM_LEN])
{
	return (trace_pids && bpf_map_lookup_elem(&traced_pids, &tgid)) ||
	       bpf_map_lookup_elem(&traced_comms, comm);
}

/* Whether the current process is traced; records its name when it is.
 * Reading the name costs more than a map lookup (bench/README.md): it is
 * read only when a name must be matched or recorded. */
static __always_inline bool current_is_traced(__u32 tgid)
{
	char comm[TT_COMM_LEN] = {};
	__u8 *verdict, traced;

	if (trace_all) {
		record_name(tgid, &comm, false);
		return true;
	}
	if (!trace_comms) {
		if (!bpf_map_lookup_elem(&traced_pids, &tgid))
			return false;
		record_name(tgid, &comm, false);
		return true;
	}
	verdict = bpf_map_lookup_elem(&verdicts, &tgid);
	if (verdict)
		return *verdict;
	read_process_name(&comm);
	traced = named_by_pid_option(tgid, &comm);
	/* Not over a verdict that handle_task_rename stored meanwhile: it
	 * knew the new name before the kernel stored it. */
	bpf_map_update_elem(&verdicts, &tgid, &traced, BPF_NOEXIST);
	if (traced)
		record_name(tgid, &comm, true);
	return traced;
}

static __always_inline __u32 current_tgid(void)
{
	return bpf_get_current_pid_tgid() >> 32;
}

static __always_inline bool awaits_touch(const struct tt_sock *s)
{
	return s->side == TT_SIDE_IN && !(s->flags & TT_SK_TOUCHED);
}

/* Every entry of sock_owner is removed here, so that the filters stay
 * exact. s is read before the delete: the kernel may reuse it at once. */
static __always_inline void forget(const struct sock *sk, const struct tt_sock *s)
{
	bool untouched = awaits_touch(s);
	__u64 key = (__u64)sk;

	if (bpf_map_delete_elem(&sock_owner, &key))
		return;
	__sync_fetch_and_add(&tracked_slots[slot_of(sk)], -1);
	if (untouched)
		__sync_fetch_and_add(&untouched_slots[slot_of(sk)], -1);
}

/* The entry of a socket in sock_owner, if it may have one. */
static __always_inline struct tt_sock *find(const struct sock *sk)
{
	__u64 key = (__u64)sk;

	if (!tracked_slots[slot_of(sk)])
		return NULL;
	return bpf_map_lookup_elem(&sock_owner, &key);
}

/* Every entry of sock_owner is added here. Returns whether sk is
 * followed from now on. */
static __always_inline bool track(const struct sock *sk, __u32 tgid, __u32 slot, __u8 side,
				  __u16 flags)
{
	struct tt_sock value = { .tgid = tgid, .slot = slot, .side = side, .flags = flags };
	__u64 key = (__u64)sk;
	struct tt_sock *s;
	long err;

	err = bpf_map_update_elem(&sock_owner, &key, &value, BPF_NOEXIST);
	if (err == -EEXIST) {
		/* Left by an earlier socket at this address whose destruction
		 * went unseen: its connection cannot be counted any more. */
		s = bpf_map_lookup_elem(&sock_owner, &key);
		if (s)
			forget(sk, s);
		err = bpf_map_update_elem(&sock_owner, &key, &value, BPF_NOEXIST);
	}
	if (err == 0) {
		__sync_fetch_and_add(&tracked_slots[slot_of(sk)], 1);
		if (awaits_touch(&value))
			__sync_fetch_and_add(&untouched_slots[slot_of(sk)], 1);
		return true;
	}
	count_drop(TT_DROP_SOCK_MAP_FULL);
	struct tt_proc_counters *c = counters_of(tgid);
	if (c)
		bump(&c->untracked);
	return false;
}

/* A socket that existed before start-up, known to user space by cookie. */
static __always_inline struct tt_sock *adopt_seed(const struct sock *sk)
{
	struct tt_seed *seed;
	__u64 cookie;

	if (!seeds_pending)
		return NULL;
	cookie = BPF_CORE_READ(sk, __sk_common.skc_cookie.counter);
	if (!cookie)
		return NULL;
	seed = bpf_map_lookup_elem(&seeds, &cookie);
	if (!seed)
		return NULL;
	__u32 slot = seed->flags & TT_SK_PROVISIONAL ? TT_NO_SLOT : slot_of_process(seed->tgid);
	bool followed = track(sk, seed->tgid, slot, seed->side, seed->flags);
	__u64 key = (__u64)sk;

	bpf_map_delete_elem(&seeds, &cookie);
	__sync_fetch_and_add(&seeds_pending, -1);
	return followed ? bpf_map_lookup_elem(&sock_owner, &key) : NULL;
}

/* A socket that goes away drops its seed: one written by a scan that
 * raced with the programs, for a socket they already followed, would
 * otherwise never be adopted and keep seeds_pending up. */
static __always_inline void drop_seed(const struct sock *sk)
{
	__u64 cookie;

	if (!seeds_pending)
		return;
	cookie = BPF_CORE_READ(sk, __sk_common.skc_cookie.counter);
	if (cookie && !bpf_map_delete_elem(&seeds, &cookie))
		__sync_fetch_and_add(&seeds_pending, -1);
}

static __always_inline struct tt_sock *lookup_sock(const struct sock *sk)
{
	struct tt_sock *s = find(sk);

	return s ? s : adopt_seed(sk);
}

static __always_inline void listener_key_of(const struct sock_common *c,
					    struct tt_listener_key *key)
{
	key->netns = netns_of(c->skc_net.net);
	key->port = c->skc_num;
	key->pad = 0;
}

static __always_inline void listener_key_of_sk(const struct sock *sk, struct tt_listener_key *key)
{
	struct sock_common c;

	if (!read_skc(&c, sk))
		__builtin_memset(&c, 0, sizeof(c));
	listener_key_of(&c, key);
}

/* The flow key of a socket from a copy of its head; lport is given
 * because where to read it depends on the kind of socket (see
 * sk_local_port_of). */
static __always_inline void flow_of(const struct sock_common *c, __u16 lport,
				    struct tt_flow_key *k)
{
	__u16 family = c->skc_family;

	__builtin_memset(k, 0, sizeof(*k));
	k->netns = netns_of(c->skc_net.net);
	k->family = family;
	k->lport = lport;
	k->rport = bpf_ntohs(c->skc_dport);
	if (family == AF_INET) {
		__builtin_memcpy(k->laddr, &c->skc_rcv_saddr, 4);
		__builtin_memcpy(k->raddr, &c->skc_daddr, 4);
	} else {
		__builtin_memcpy(k->laddr, &c->skc_v6_rcv_saddr, 16);
		__builtin_memcpy(k->raddr, &c->skc_v6_daddr, 16);
	}
}

static __always_inline void mark_listener_shared(const struct sock *sk)
{
	struct tt_listener_key key;
	struct tt_owner *owner;

	listener_key_of_sk(sk, &key);
	owner = bpf_map_lookup_elem(&listeners, &key);
	if (owner)
		owner->flags |= TT_LISTENER_SHARED;
}

/* The first syscall touching an accepted socket names the process that
 * accepted it: a read (tcp_rcv_space_adjust), its close() or shutdown()
 * (FIN_WAIT1, LAST_ACK), or, for one that close() aborts or that ended
 * before (an RST from the peer, a timeout), its destruction in that
 * close(). From a shared listener, that is when the socket gets its owner
 * and conn_in is counted. From a listener thought to be its owner's
 * alone, a touch by another traced process shows it shared: connections
 * accepted from it later wait for their first touch too. */
static __always_inline void on_touch(const struct sock *sk, struct tt_sock *s)
{
	__u32 tgid = current_tgid();
	bool other = tgid != s->tgid && current_is_traced(tgid);

	s->flags |= TT_SK_TOUCHED;
	if (!(s->flags & TT_SK_PROVISIONAL)) {
		if (other)
			mark_listener_shared(sk);
		return;
	}
	if (other) {
		s->tgid = tgid;
		s->slot = TT_NO_SLOT;
	}
	s->flags &= ~TT_SK_PROVISIONAL;
	if ((s->flags & (TT_SK_ESTABLISHED | TT_SK_COUNTED)) == TT_SK_ESTABLISHED) {
		struct tt_proc_counters *c = counters_of_sock(s);
		if (c)
			bump(&c->conn[TT_SIDE_IN]);
		s->flags |= TT_SK_COUNTED;
	}
}

static __always_inline void touch(const struct sock *sk, struct tt_sock *s)
{
	if (awaits_touch(s)) {
		on_touch(sk, s);
		__sync_fetch_and_add(&untouched_slots[slot_of(sk)], -1);
	}
}

static __always_inline void count_reason(const struct tt_sock *s)
{
	struct tt_reason_key key = { .tgid = s->tgid, .reason = s->rst_reason, .side = s->side };
	__u64 one = 1, *count;

	count = bpf_map_lookup_elem(&rst_reasons, &key);
	if (count) {
		bump(count);
		return;
	}
	if (bpf_map_update_elem(&rst_reasons, &key, &one, BPF_NOEXIST) == 0)
		return;
	count = bpf_map_lookup_elem(&rst_reasons, &key);
	if (count)
		bump(count);
	else
		count_drop(TT_DROP_REASON_MAP_FULL);
}

/* Count how a connection ended, once, when its socket goes away (or is
 * reused by a new connect). Not at the move to CLOSE: an abort (close with
 * unread data, SO_LINGER 0) sends its RST after the state change. */
static __always_inline void finish(const struct sock *sk, struct tt_sock *s)
{
	struct tt_dest_counters *d, scratch = {}; /* d's target when not counted */
	struct tt_proc_counters *c;
	__u8 side = s->side & 1;

	if (!(s->flags & TT_SK_ESTABLISHED))
		return;
	c = counters_of_sock(s);
	if (!c)
		return;
	d = dest_of(sk, s);
	if (!d)
		d = &scratch;
	if (!(s->flags & TT_SK_COUNTED)) {
		bump(&c->conn[side]);
		bump(&d->conn);
	}
	/* An RST we send wins: on data arriving after shutdown the kernel
	 * runs its RST-received path and then sends the RST itself. */
	if (s->flags & TT_SK_RST_SENT) {
		bump(&c->rst_sent[side]);
		bump(&d->rst_sent);
		count_reason(s);
	} else if (s->flags & TT_SK_RST_RECV) {
		bump(&c->rst_recv[side]);
		bump(&d->rst_recv);
	} else if (s->flags & TT_SK_FIN_FIRST) {
		bump(&c->fin_active[side]);
		bump(&d->fin_active);
		if (s->flags & TT_SK_TW) {
			bump(&c->tw[side]);
			bump(&d->tw);
		}
	} else if (s->flags & TT_SK_FIN_PEER) {
		bump(&c->fin_passive[side]);
		bump(&d->fin_passive);
	} else {
		bump(&c->timeout[side]);
		bump(&d->timeout);
	}
}

/* A new socket is followed only if it is TCP over IPv4 or IPv6 (the
 * tracepoint also fires for MPTCP's own sockets). Sockets already followed
 * passed this test when they were created. */
static __always_inline bool is_inet_tcp(const struct sock *sk)
{
	__u16 family;

	if (sk_protocol_of(sk) != IPPROTO_TCP)
		return false;
	family = BPF_CORE_READ(sk, __sk_common.skc_family);
	return family == AF_INET || family == AF_INET6;
}

static __always_inline void on_connect(const struct sock *sk)
{
	__u32 tgid = current_tgid();
	struct tt_sock *old = find(sk);

	if (old) {
		touch(sk, old); /* connect() after connect(AF_UNSPEC) by its owner */
		finish(sk, old);
		forget(sk, old);
	}
	/* Most connects on a machine are of processes not traced: the
	 * verdict, one lookup, comes before the socket's two reads. */
	if (current_is_traced(tgid) && is_inet_tcp(sk))
		track(sk, tgid, slot_of_process(tgid), TT_SIDE_OUT, 0);
}

static __always_inline void on_listen(const struct sock *sk)
{
	__u32 tgid = current_tgid();
	struct tt_listener_key key;
	struct tt_owner owner = { .tgid = tgid };

	if (!current_is_traced(tgid))
		return;
	listener_key_of_sk(sk, &key);
	bpf_map_update_elem(&listeners, &key, &owner, BPF_ANY);
}

static __always_inline void on_unlisten(const struct sock *sk)
{
	struct stopping_listener stopping = { .sk = (__u64)sk };
	__u64 thread = bpf_get_current_pid_tgid();
	struct tt_owner *owner;

	listener_key_of_sk(sk, &stopping.key);
	owner = bpf_map_lookup_elem(&listeners, &stopping.key);
	if (!owner)
		return;
	/* Another process may listen on the same port (SO_REUSEPORT). */
	if (owner->tgid == current_tgid())
		bpf_map_delete_elem(&listeners, &stopping.key);
	if (!bpf_map_update_elem(&stopping_listeners, &thread, &stopping, BPF_NOEXIST))
		__sync_fetch_and_add(&listeners_stopping, 1);
	else
		bpf_map_update_elem(&stopping_listeners, &thread, &stopping, BPF_ANY);
}

/* A listener's destruction ends its close(). */
static __always_inline void listener_destroyed(const struct sock *sk)
{
	__u64 thread = bpf_get_current_pid_tgid();
	struct stopping_listener *stopping;

	stopping = bpf_map_lookup_elem(&stopping_listeners, &thread);
	if (stopping && stopping->sk == (__u64)sk &&
	    !bpf_map_delete_elem(&stopping_listeners, &thread))
		__sync_fetch_and_add(&listeners_stopping, -1);
}

/* Whether sk, destroyed before any syscall touched it, is a connection
 * still in the accept queue of a listener this thread is closing: no
 * process accepted it, and it stays its listener's owner's. */
static __always_inline bool is_unaccepted_child(const struct sock *sk)
{
	__u64 thread = bpf_get_current_pid_tgid();
	struct stopping_listener *stopping;

	if (!listeners_stopping)
		return false;
	stopping = bpf_map_lookup_elem(&stopping_listeners, &thread);
	if (!stopping)
		return false;
	/* Not skc_num, which the kernel may have zeroed by now (see
	 * sk_local_port_of). */
	return sk_netns_of(sk) == stopping->key.netns &&
	       sk_local_port_of(sk) == stopping->key.port;
}

/* A connection accepted from a listener of a traced process has reached
 * ESTABLISHED: its socket is followed from now on, its entry complete
 * from the start. conn_in waits for the first touch if the listener is
 * shared (see on_touch). */
static __always_inline void adopt_child(const struct sock *sk)
{
	struct tt_listener_key lkey;
	struct tt_owner *owner;
	struct sock_common c;
	bool shared;
	__u32 slot;

	if (sk_protocol_of(sk) != IPPROTO_TCP || !read_skc(&c, sk) ||
	    (c.skc_family != AF_INET && c.skc_family != AF_INET6))
		return;
	listener_key_of(&c, &lkey);
	owner = bpf_map_lookup_elem(&listeners, &lkey);
	if (!owner)
		return;
	shared = owner->flags & TT_LISTENER_SHARED;
	slot = shared ? TT_NO_SLOT : slot_of_process(owner->tgid);
	if (track(sk, owner->tgid, slot, TT_SIDE_IN,
		  TT_SK_ESTABLISHED | (shared ? TT_SK_PROVISIONAL : TT_SK_COUNTED)) && !shared) {
		struct tt_proc_counters *counters = counters_at(slot);

		if (counters)
			bump(&counters->conn[TT_SIDE_IN]);
	}
}

/* Steps of the walk for the timewait socket: ehash chains are a few
 * entries long, the hash table being sized to the socket count; the rest
 * is room for restarts. */
#define TT_EHASH_STEPS 24

/* The head of struct inet_hashinfo: where the connection hash (ehash)
 * is and its size, read in one go. */
struct inet_hashinfo___head {
	struct inet_ehash_bucket *ehash;
	spinlock_t *ehash_locks;
	unsigned int ehash_mask;
} __attribute__((preserve_access_index));

union hashinfo_head {
	struct inet_hashinfo___head h;
	__u8 room[64];
};

/* a and b are copies (read_skc); b's family decides which addresses. */
static __always_inline bool same_addresses(const struct sock_common *a,
					   const struct sock_common *b)
{
	if (b->skc_family == AF_INET)
		return a->skc_addrpair == b->skc_addrpair;
	for (int i = 0; i < 4; i++)
		if (a->skc_v6_daddr.in6_u.u6_addr32[i] != b->skc_v6_daddr.in6_u.u6_addr32[i] ||
		    a->skc_v6_rcv_saddr.in6_u.u6_addr32[i] !=
			    b->skc_v6_rcv_saddr.in6_u.u6_addr32[i])
			return false;
	return true;
}

/* Whether the kernel has just put a timewait socket in the place of the
 * socket whose head me copies: one with the same addresses in the same
 * connection hash chain; its tw_snd_nxt goes to *snd_nxt. The full
 * socket's own port was already released (skc_num is 0), so the local
 * port is given (see sk_local_port_of). The new timewait socket is added
 * at the head of its chain: one step of the walk usually finds it. */
static __always_inline bool timewait_replaced(const struct sock_common *me, __u16 lport,
					      struct inet_timewait_death_row *dr, __u32 *snd_nxt)
{
	struct inet_hashinfo *hinfo = BPF_CORE_READ(dr, hashinfo);
	__u32 len = bpf_core_field_offset(struct inet_hashinfo___head, ehash_mask) +
		    sizeof(unsigned int);
	__u64 node_offset = bpf_core_field_offset(struct sock_common, skc_nulls_node);
	struct hlist_nulls_node *node = NULL;
	struct inet_ehash_bucket *ehash;
	union hashinfo_head head;
	struct sock_common other;
	__u32 slot;

	if (len > sizeof(head))
		len = sizeof(head);
	if (bpf_probe_read_kernel(&head, len, hinfo))
		return false;
	ehash = head.h.ehash;
	slot = me->skc_hash & head.h.ehash_mask;

	bpf_probe_read_kernel(&node, sizeof(node), &ehash[slot].chain.first);
	for (int i = 0; i < TT_EHASH_STEPS; i++) {
		if (!node)
			return false;
		/* The chain ends in a "nulls" marker carrying its bucket. Sockets
		 * are freed and reused under RCU, so a walk can drift into
		 * another chain: like the kernel's own lookup, start again. */
		if ((unsigned long)node & 1) {
			if (((unsigned long)node >> 1) == slot)
				return false;
			bpf_probe_read_kernel(&node, sizeof(node), &ehash[slot].chain.first);
			continue;
		}
		if (!read_skc(&other, (const void *)node - node_offset))
			return false;
		if (other.skc_state == TCP_TIME_WAIT && other.skc_hash == me->skc_hash &&
		    other.skc_dport == me->skc_dport && other.skc_num == lport &&
		    other.skc_net.net == me->skc_net.net && same_addresses(&other, me)) {
			*snd_nxt = other.skc_tw_snd_nxt;
			return true;
		}
		node = other.skc_nulls_node.next;
	}
	return false;
}

static __always_inline __u32 reason_abort_on_data(void)
{
	if (bpf_core_enum_value_exists(enum sk_rst_reason, SK_RST_REASON_TCP_ABORT_ON_DATA))
		return bpf_core_enum_value(enum sk_rst_reason, SK_RST_REASON_TCP_ABORT_ON_DATA);
	return TT_REASON_UNKNOWN;
}

static __always_inline void on_close(const struct sock *sk, struct tt_sock *s, int oldstate)
{
	struct inet_timewait_death_row *dr;
	struct sock_common me;
	__u32 snd_nxt = 0;
	__u16 lport;
	int err;

	if (oldstate == TCP_SYN_SENT) {
		struct tt_proc_counters *c = counters_of_sock(s);
		struct tt_dest_counters *d = dest_of(sk, s), scratch = {};

		if (!c)
			return;
		if (!d)
			d = &scratch;
		/* No local port was ever assigned: inet_hash_connect found
		 * none free and connect() returns EADDRNOTAVAIL. */
		if (sk_local_port_of(sk) == 0) {
			bump(&c->eaddrnotavail);
			bump(&d->eaddrnotavail);
		} else {
			bump(&c->connfail);
			bump(&d->connfail);
		}
		return;
	}
	if (s->flags & (TT_SK_RST_SENT | TT_SK_RST_RECV))
		return;
	if (oldstate != TCP_FIN_WAIT1 && oldstate != TCP_FIN_WAIT2 && oldstate != TCP_CLOSING)
		return;
	if (!read_skc(&me, sk))
		return;
	dr = death_row_of(me.skc_net.net);
	lport = sk_local_port_of(sk);
	/* The active closer's socket moves to CLOSE when the kernel hands the
	 * connection to a timewait socket, which never shows up as a state
	 * change of its own: look for it. */
	if (timewait_replaced(&me, lport, dr, &snd_nxt)) {
		struct tt_tw_key key = { .snd_nxt = snd_nxt };
		struct tt_tw_owner owner = { .stamp = tw_stamp, .tgid = s->tgid, .side = s->side };

		s->flags |= TT_SK_TW;
		flow_of(&me, lport, &key.flow);
		if (bpf_map_update_elem(&tw_owners, &key, &owner, BPF_ANY))
			count_drop(TT_DROP_TW_MAP_FULL);
		return;
	}
	/* No timewait socket: either the kernel's timewait table is full
	 * (tcp_max_tw_buckets), or data reached the socket after close(),
	 * which the kernel answers with an RST once the socket is destroyed,
	 * too late for handle_send_reset to find it. A timeout sets sk_err. */
	err = BPF_CORE_READ(sk, sk_err);
	if (oldstate != TCP_CLOSING && !err && !death_row_full(dr)) {
		__u32 zero = 0;
		__u64 *ahead = bpf_map_lookup_elem(&rst_counted_ahead, &zero);

		s->flags |= TT_SK_RST_SENT | TT_SK_RST_AHEAD;
		s->rst_reason = reason_abort_on_data();
		if (ahead)
			*ahead = (__u64)sk;
	}
}

SEC("raw_tp/inet_sock_set_state")
int BPF_PROG(handle_set_state, struct sock *sk, int oldstate, int newstate)
{
	struct tt_sock *s;

	/* Half of all changes say nothing tcptrace counts: leave at once. */
	if (newstate == TCP_FIN_WAIT2 || newstate == TCP_CLOSING || newstate == TCP_SYN_RECV)
		return 0;

	/* These three run in the syscall of the process that owns the socket. */
	if (newstate == TCP_SYN_SENT) {
		on_connect(sk);
		return 0;
	}
	if (newstate == TCP_LISTEN) {
		if (is_inet_tcp(sk))
			on_listen(sk);
		return 0;
	}
	if (oldstate == TCP_LISTEN) {
		if (newstate == TCP_CLOSE)
			on_unlisten(sk);
		return 0;
	}

	s = lookup_sock(sk);
	if (!s) {
		if (oldstate == TCP_SYN_RECV && newstate == TCP_ESTABLISHED)
			adopt_child(sk);
		return 0;
	}

	switch (newstate) {
	case TCP_ESTABLISHED:
		s->flags |= TT_SK_ESTABLISHED;
		if (!(s->flags & TT_SK_PROVISIONAL)) {
			struct tt_proc_counters *c = counters_of_sock(s);
			struct tt_dest_counters *d = dest_of(sk, s);

			if (c)
				bump(&c->conn[s->side & 1]);
			if (d)
				bump(&d->conn);
			s->flags |= TT_SK_COUNTED;
		}
		break;
	case TCP_FIN_WAIT1: /* close() or shutdown() by the owner */
		if (!(s->flags & TT_SK_FIN_PEER))
			s->flags |= TT_SK_FIN_FIRST;
		touch(sk, s);
		break;
	case TCP_CLOSE_WAIT:
		if (!(s->flags & TT_SK_FIN_FIRST))
			s->flags |= TT_SK_FIN_PEER;
		break;
	case TCP_LAST_ACK: /* close() or shutdown() by the owner */
		touch(sk, s);
		break;
	case TCP_CLOSE:
		on_close(sk, s, oldstate);
		break;
	}
	return 0;
}

static __always_inline void count_other_rst(__u32 netns, __u32 reason)
{
	struct tt_other_rst_key key = { .netns = netns, .reason = reason };
	__u64 one = 1, *count = bpf_map_lookup_elem(&other_rsts, &key);

	if (count) {
		bump(count);
		return;
	}
	if (bpf_map_update_elem(&other_rsts, &key, &one, BPF_NOEXIST) == 0)
		return;
	count = bpf_map_lookup_elem(&other_rsts, &key); /* a racing CPU made it */
	if (count)
		bump(count);
}

/* A timewait socket answering a segment with an RST (a stray data
 * segment, a SYN it refuses): the connection has already ended and been
 * counted, so this RST goes to the owner's tw_rst. */
static __always_inline bool count_timewait_rst(const struct sock_common *tw)
{
	struct tt_proc_counters *c;
	struct tt_tw_owner *owner;
	struct tt_tw_key key;
	struct sock_common me;

	if (!read_skc(&me, tw))
		return false;
	flow_of(&me, me.skc_num, &key.flow);
	key.snd_nxt = me.skc_tw_snd_nxt;
	owner = bpf_map_lookup_elem(&tw_owners, &key);
	if (!owner)
		return false;
	c = counters_of(owner->tgid);
	if (c)
		bump(&c->tw_rst);
	return true;
}

/* Whether this RST ends a followed connection, and records it if so. An
 * RST with no incoming segment (skb NULL) always ends the connection; one
 * answering a segment does only once the socket is CLOSE (a SYN_SENT
 * socket answers a stray ACK with an RST and carries on). */
static __always_inline bool count_connection_rst(const struct sock *sk, const struct sk_buff *skb,
						 __u32 reason)
{
	struct tt_sock *s = lookup_sock(sk);

	if (!s)
		return false;
	/* The RST expected at the move to CLOSE, here before the socket's end
	 * (tcp_disconnect from FIN_WAIT): counted already, the kernel's reason. */
	if (s->flags & TT_SK_RST_AHEAD) {
		s->flags &= ~TT_SK_RST_AHEAD;
		s->rst_reason = reason;
		return true;
	}
	if (s->flags & TT_SK_RST_SENT)
		return false;
	if (skb && BPF_CORE_READ(sk, __sk_common.skc_state) != TCP_CLOSE)
		return false;
	s->flags |= TT_SK_RST_SENT;
	s->rst_reason = reason;
	return true;
}

/* Every RST the kernel sends lands in one place: a connection's end
 * (rst_sent), a timewait socket's owner (tw_rst), or other_rsts. */
static __always_inline void on_send_reset(const struct sock *sk, const struct sk_buff *skb,
					  __u32 reason)
{
	__u32 zero = 0;
	__u64 key = (__u64)sk, *ahead = bpf_map_lookup_elem(&rst_counted_ahead, &zero);

	if (ahead && sk && *ahead == key) {
		*ahead = 0;
		/* Counted at the socket's end, unless it is still followed. */
		if (!find(sk))
			return;
	}
	if (!sk) {
		count_other_rst(BPF_CORE_READ(skb, dev, nd_net.net, ns.inum), reason);
		return;
	}
	if (BPF_CORE_READ(sk, __sk_common.skc_state) == TCP_TIME_WAIT) {
		if (!count_timewait_rst((const struct sock_common *)sk))
			count_other_rst(sk_netns_of(sk), reason);
		return;
	}
	if (!count_connection_rst(sk, skb, reason))
		count_other_rst(sk_netns_of(sk), reason);
}

SEC("raw_tp/tcp_send_reset")
int BPF_PROG(handle_send_reset, const struct sock *sk, const struct sk_buff *skb, __u32 reason)
{
	on_send_reset(sk, skb, reason);
	return 0;
}

/* Kernels before 6.10: the tracepoint has no reason argument, and reading
 * one would make the attach fail. User space loads one of the two. */
SEC("raw_tp/tcp_send_reset")
int BPF_PROG(handle_send_reset_noreason, const struct sock *sk, const struct sk_buff *skb)
{
	on_send_reset(sk, skb, TT_REASON_UNKNOWN);
	return 0;
}

SEC("raw_tp/tcp_receive_reset")
int BPF_PROG(handle_receive_reset, struct sock *sk)
{
	struct tt_sock *s = lookup_sock(sk);

	if (s)
		s->flags |= TT_SK_RST_RECV;
	return 0;
}

/* tcp_recvmsg, in the reader's own syscall: the first touch of an accepted
 * socket that is read before it is closed (see on_touch). It runs on every
 * read of every TCP socket, most of which leave at the filter. It stays
 * because conn_in must be exact at every snapshot: without it, a
 * connection from a shared listener that stays open (a proxy's idle
 * upstream pool) would be counted only at its close. */
SEC("raw_tp/tcp_rcv_space_adjust")
int BPF_PROG(handle_rcv_space_adjust, struct sock *sk)
{
	__u64 key = (__u64)sk;
	struct tt_sock *s;

	if (!untouched_slots[slot_of(sk)])
		return 0;
	s = bpf_map_lookup_elem(&sock_owner, &key);
	if (s)
		touch(sk, s);
	return 0;
}

/* A process named anew (exec, prctl PR_SET_NAME), before the kernel
 * stores the name: the verdict follows the new name. Only the thread group
 * leader's name is the process name. */
SEC("raw_tp/task_rename")
int BPF_PROG(handle_task_rename, struct task_struct *task, const char *name)
{
	char comm[TT_COMM_LEN] = {};
	__u32 pid = BPF_CORE_READ(task, pid);
	__u32 tgid = BPF_CORE_READ(task, tgid);
	__u8 traced;

	if (pid != tgid)
		return 0;
	bpf_probe_read_kernel_str(&comm, sizeof(comm), name);
	traced = named_by_pid_option(tgid, &comm);
	bpf_map_update_elem(&verdicts, &tgid, &traced, BPF_ANY);
	/* Over a name recorded before: the row takes the new one. */
	if (traced)
		bpf_map_update_elem(&proc_comms, &tgid, &comm, BPF_ANY);
	return 0;
}

/* A new process: its tgid may be that of one gone, whose verdict was for
 * another name. A new thread changes nothing. */
SEC("raw_tp/task_newtask")
int BPF_PROG(handle_task_newtask, struct task_struct *task, __u64 clone_flags)
{
	__u32 tgid;

	if (clone_flags & CLONE_THREAD)
		return 0;
	tgid = BPF_CORE_READ(task, tgid);
	bpf_map_delete_elem(&verdicts, &tgid);
	return 0;
}

SEC("raw_tp/tcp_destroy_sock")
int BPF_PROG(handle_destroy_sock, struct sock *sk)
{
	struct tt_sock *s = lookup_sock(sk);
	__u32 zero = 0;
	__u64 *ahead = bpf_map_lookup_elem(&rst_counted_ahead, &zero);

	/* The RST counted ahead follows its own socket's destruction at once:
	 * another socket destroyed in between means it is not coming. */
	if (ahead && *ahead && *ahead != (__u64)sk)
		*ahead = 0;

	drop_seed(sk);
	if (!s) {
		if (listeners_stopping)
			listener_destroyed(sk);
		return 0;
	}
	/* Untouched, the socket is not orphaned: only its holder's close()
	 * destroys it, in that process (see on_touch). */
	if (awaits_touch(s) && !is_unaccepted_child(sk))
		touch(sk, s);
	finish(sk, s);
	forget(sk, s);
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
