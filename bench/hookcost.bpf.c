// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Building blocks of a TCP tracer, one tracepoint program each, to
 * measure what each costs per event on this kernel (bench/hookcost.sh).
 * Every program hooks inet_sock_set_state, the busiest hook, so that each
 * runs in the same contexts as tcptrace's handler, at the same rate.
 * Most are raw tracepoints; the tpbtf_ programs are tp_btf ones
 * (BPF_PROG_TYPE_TRACING, BPF_TRACE_RAW_TP): no trampoline, typed
 * arguments, direct loads from the socket, socket-local storage. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#define SOCKETS 131072 /* tcptrace's default --max-sockets */

struct sock_state {
	__u32 tgid;
	__u16 flags;
	__u8 side;
	__u8 pad;
	__u32 reason;
	__u32 pad2;
};

struct counters {
	__u64 c[20];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct counters);
} percpu_array SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} shared_array SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, struct counters);
} percpu_hash SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, 4096);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, __u32);
	__type(value, struct counters);
} percpu_hash_noprealloc SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, SOCKETS);
	__type(key, __u64);
	__type(value, struct sock_state);
} hash_big SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u64);
	__type(value, struct sock_state);
} hash_small SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, SOCKETS);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, __u64);
	__type(value, struct sock_state);
} hash_noprealloc SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, SOCKETS);
	__type(key, __u64);
	__type(value, struct sock_state);
} hash_lru SEC(".maps");

struct flow_key {
	__u32 netns;
	__u16 family, lport, rport, pad;
	__u8 laddr[16], raddr[16];
};

/* tcptrace's tw_owners: connection -> owner, twice --max-sockets. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 2 * SOCKETS);
	__type(key, struct flow_key);
	__type(value, __u64);
} lru_common SEC(".maps");

/* The same with one LRU list per CPU instead of one shared list. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 2 * SOCKETS);
	__uint(map_flags, BPF_F_NO_COMMON_LRU);
	__type(key, struct flow_key);
	__type(value, __u64);
} lru_percpu SEC(".maps");

/* Per-socket state kept by the kernel in the socket itself, freed with it. */
struct {
	__uint(type, BPF_MAP_TYPE_SK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct sock_state);
} sk_state SEC(".maps");

/* A counting filter: one __u32 per slot, 64 KiB. */
#define FILTER_SLOTS (1 << 14)
__u32 filter[FILTER_SLOTS];

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, __u64);
} task_cache SEC(".maps");

static __always_inline void bump(void)
{
	__u32 zero = 0;
	struct counters *c = bpf_map_lookup_elem(&percpu_array, &zero);

	if (c)
		c->c[0]++;
}

SEC("raw_tp/inet_sock_set_state")
int BPF_PROG(empty, struct sock *sk, int oldstate, int newstate)
{
	return 0;
}

/* "hookcost floor" attaches these five together: tcptrace's hooks with
 * nothing in them, the least any tracer on them can cost. */
SEC("raw_tp/inet_sock_set_state")
int BPF_PROG(floor_set_state, struct sock *sk, int oldstate, int newstate)
{
	return 0;
}

SEC("raw_tp/tcp_send_reset")
int BPF_PROG(floor_send_reset, const struct sock *sk, const struct sk_buff *skb)
{
	return 0;
}

SEC("raw_tp/tcp_receive_reset")
int BPF_PROG(floor_receive_reset, struct sock *sk)
{
	return 0;
}

SEC("raw_tp/tcp_rcv_space_adjust")
int BPF_PROG(floor_rcv_space_adjust, struct sock *sk)
{
	return 0;
}

SEC("raw_tp/tcp_destroy_sock")
int BPF_PROG(floor_destroy_sock, struct sock *sk)
{
	return 0;
}

/* The early exit on the state numbers alone, then a counter. */
SEC("raw_tp/inet_sock_set_state")
int BPF_PROG(filter_states, struct sock *sk, int oldstate, int newstate)
{
	if (newstate == TCP_FIN_WAIT2 || newstate == TCP_CLOSING || newstate == TCP_SYN_RECV)
		return 0;
	bump();
	return 0;
}

SEC("raw_tp/inet_sock_set_state")
int BPF_PROG(percpu_array_bump, struct sock *sk, int oldstate, int newstate)
{
	bump();
	return 0;
}

SEC("raw_tp/inet_sock_set_state")
int BPF_PROG(shared_array_atomic, struct sock *sk, int oldstate, int newstate)
{
	__u32 zero = 0;
	__u64 *c = bpf_map_lookup_elem(&shared_array, &zero);

	if (c)
		__sync_fetch_and_add(c, 1);
	return 0;
}

static __always_inline void bump_percpu_hash(void *map)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;
	struct counters *c = bpf_map_lookup_elem(map, &tgid), zero = {};

	if (!c) {
		bpf_map_update_elem(map, &tgid, &zero, BPF_NOEXIST);
		c = bpf_map_lookup_elem(map, &tgid);
	}
	if (c)
		c->c[0]++;
}

/* tcptrace's counters_of(): per process (tgid), per CPU. */
SEC("raw_tp/inet_sock_set_state")
int BPF_PROG(percpu_hash_bump, struct sock *sk, int oldstate, int newstate)
{
	bump_percpu_hash(&percpu_hash);
	return 0;
}

SEC("raw_tp/inet_sock_set_state")
int BPF_PROG(percpu_hash_noprealloc_bump, struct sock *sk, int oldstate, int newstate)
{
	bump_percpu_hash(&percpu_hash_noprealloc);
	return 0;
}

SEC("raw_tp/inet_sock_set_state")
int BPF_PROG(current_pid_tgid, struct sock *sk, int oldstate, int newstate)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;

	if (tgid == 1)
		bump();
	return 0;
}

/* A socket-keyed lookup that misses: what an untraced socket costs. */
SEC("raw_tp/inet_sock_set_state")
int BPF_PROG(hash_big_miss, struct sock *sk, int oldstate, int newstate)
{
	__u64 key = (__u64)sk;

	if (bpf_map_lookup_elem(&hash_big, &key))
		bump();
	return 0;
}

SEC("raw_tp/inet_sock_set_state")
int BPF_PROG(hash_small_miss, struct sock *sk, int oldstate, int newstate)
{
	__u64 key = (__u64)sk;

	if (bpf_map_lookup_elem(&hash_small, &key))
		bump();
	return 0;
}

/* Per-socket bookkeeping as a tracer does it: an entry from the first
 * state change to the move to CLOSE, looked up at every change between. */
static __always_inline void follow(void *map, struct sock *sk, int newstate)
{
	struct sock_state value = { .tgid = 1 };
	__u64 key = (__u64)sk;
	struct sock_state *s;

	if (newstate == TCP_CLOSE) {
		bpf_map_delete_elem(map, &key);
		return;
	}
	s = bpf_map_lookup_elem(map, &key);
	if (s) {
		s->flags |= 1 << newstate;
		return;
	}
	bpf_map_update_elem(map, &key, &value, BPF_NOEXIST);
}

SEC("raw_tp/inet_sock_set_state")
int BPF_PROG(hash_big_follow, struct sock *sk, int oldstate, int newstate)
{
	follow(&hash_big, sk, newstate);
	return 0;
}

SEC("raw_tp/inet_sock_set_state")
int BPF_PROG(hash_noprealloc_follow, struct sock *sk, int oldstate, int newstate)
{
	follow(&hash_noprealloc, sk, newstate);
	return 0;
}

SEC("raw_tp/inet_sock_set_state")
int BPF_PROG(hash_lru_follow, struct sock *sk, int oldstate, int newstate)
{
	follow(&hash_lru, sk, newstate);
	return 0;
}

/* The slot of a counting filter that says whether to look further. */
SEC("raw_tp/inet_sock_set_state")
int BPF_PROG(filter_slot_read, struct sock *sk, int oldstate, int newstate)
{
	__u32 slot = ((__u64)sk * 0x9E3779B97F4A7C15ull) >> (64 - 14);

	if (filter[slot])
		bump();
	return 0;
}

/* An owner recorded per connection (tcptrace's tw_owners): a 48-byte key
 * into an LRU hash, a new key at every event. The _full variants start
 * with the map full (hookcost fills it before attaching), as it is in a
 * long run: then every insert evicts. */
static __always_inline void lru_insert(void *map, struct sock *sk, int newstate)
{
	struct flow_key key = { .family = 2, .lport = newstate };
	__u64 owner = 1;

	__builtin_memcpy(key.laddr, &sk, sizeof(sk));
	bpf_map_update_elem(map, &key, &owner, BPF_ANY);
}

SEC("raw_tp/inet_sock_set_state")
int BPF_PROG(lru_common_insert, struct sock *sk, int oldstate, int newstate)
{
	lru_insert(&lru_common, sk, newstate);
	return 0;
}

SEC("raw_tp/inet_sock_set_state")
int BPF_PROG(lru_common_insert_full, struct sock *sk, int oldstate, int newstate)
{
	lru_insert(&lru_common, sk, newstate);
	return 0;
}

SEC("raw_tp/inet_sock_set_state")
int BPF_PROG(lru_percpu_insert, struct sock *sk, int oldstate, int newstate)
{
	lru_insert(&lru_percpu, sk, newstate);
	return 0;
}

SEC("raw_tp/inet_sock_set_state")
int BPF_PROG(lru_percpu_insert_full, struct sock *sk, int oldstate, int newstate)
{
	lru_insert(&lru_percpu, sk, newstate);
	return 0;
}

SEC("raw_tp/inet_sock_set_state")
int BPF_PROG(probe_read_1, struct sock *sk, int oldstate, int newstate)
{
	__u16 family = BPF_CORE_READ(sk, __sk_common.skc_family);

	if (family == 1)
		bump();
	return 0;
}

SEC("raw_tp/inet_sock_set_state")
int BPF_PROG(probe_read_4, struct sock *sk, int oldstate, int newstate)
{
	__u16 family = BPF_CORE_READ(sk, __sk_common.skc_family);
	__u16 dport = BPF_CORE_READ(sk, __sk_common.skc_dport);
	__u16 num = BPF_CORE_READ(sk, __sk_common.skc_num);
	__u32 hash = BPF_CORE_READ(sk, __sk_common.skc_hash);

	if (family + dport + num + hash == 1)
		bump();
	return 0;
}

/* Four fields of struct sock_common in one read of the bytes around them. */
SEC("raw_tp/inet_sock_set_state")
int BPF_PROG(probe_read_block, struct sock *sk, int oldstate, int newstate)
{
	__u64 block[4];

	bpf_probe_read_kernel(block, sizeof(block), sk);
	if (block[0] + block[1] + block[2] + block[3] == 1)
		bump();
	return 0;
}

/* Two dependent reads: the socket's network namespace inode. */
SEC("raw_tp/inet_sock_set_state")
int BPF_PROG(probe_read_netns, struct sock *sk, int oldstate, int newstate)
{
	__u32 inum = BPF_CORE_READ(sk, __sk_common.skc_net.net, ns.inum);

	if (inum == 1)
		bump();
	return 0;
}

/* The process name: group_leader, then its comm. */
SEC("raw_tp/inet_sock_set_state")
int BPF_PROG(leader_comm, struct sock *sk, int oldstate, int newstate)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	char comm[16] = {};

	BPF_CORE_READ_STR_INTO(&comm, task, group_leader, comm);
	if (comm[0] == 1)
		bump();
	return 0;
}

/* A per-task cached value: the alternative to reading and matching the
 * process name at every connect. */
SEC("raw_tp/inet_sock_set_state")
int BPF_PROG(task_storage, struct sock *sk, int oldstate, int newstate)
{
	struct task_struct *task = bpf_get_current_task_btf();
	__u64 *v = bpf_task_storage_get(&task_cache, task, NULL, BPF_LOCAL_STORAGE_GET_F_CREATE);

	if (v && ++*v == 1)
		bump();
	return 0;
}

SEC("tp_btf/inet_sock_set_state")
int BPF_PROG(tpbtf_empty, struct sock *sk, int oldstate, int newstate)
{
	return 0;
}

/* hash_big_follow's bookkeeping in socket storage: created at the first
 * change (one get that creates), found at each, deleted at CLOSE. */
SEC("tp_btf/inet_sock_set_state")
int BPF_PROG(tpbtf_sk_storage_follow, struct sock *sk, int oldstate, int newstate)
{
	struct sock_state value = { .tgid = 1 }, *s;

	if (newstate == TCP_CLOSE) {
		bpf_sk_storage_delete(&sk_state, sk);
		return 0;
	}
	s = bpf_sk_storage_get(&sk_state, sk, &value, BPF_SK_STORAGE_GET_F_CREATE);
	if (s)
		s->flags |= 1 << newstate;
	return 0;
}

/* Its parts: a get that finds no storage (a socket nobody follows), and
 * storage created at the first change and left for the kernel to free
 * with the socket (that free is outside the program's run time). */
SEC("tp_btf/inet_sock_set_state")
int BPF_PROG(tpbtf_sk_storage_miss, struct sock *sk, int oldstate, int newstate)
{
	if (bpf_sk_storage_get(&sk_state, sk, NULL, 0))
		bump();
	return 0;
}

SEC("tp_btf/inet_sock_set_state")
int BPF_PROG(tpbtf_sk_storage_keep, struct sock *sk, int oldstate, int newstate)
{
	struct sock_state value = { .tgid = 1 }, *s;

	s = bpf_sk_storage_get(&sk_state, sk, &value, BPF_SK_STORAGE_GET_F_CREATE);
	if (s)
		s->flags |= 1 << newstate;
	return 0;
}

/* probe_read_4's four fields as direct loads through the typed pointer. */
SEC("tp_btf/inet_sock_set_state")
int BPF_PROG(tpbtf_direct_read, struct sock *sk, int oldstate, int newstate)
{
	__u16 family = sk->__sk_common.skc_family;
	__u16 dport = sk->__sk_common.skc_dport;
	__u16 num = sk->__sk_common.skc_num;
	__u32 hash = sk->__sk_common.skc_hash;

	if (family + dport + num + hash == 1)
		bump();
	return 0;
}

/* probe_read_netns's two dependent reads as direct loads: the second
 * through a pointer loaded by the first. */
SEC("tp_btf/inet_sock_set_state")
int BPF_PROG(tpbtf_direct_netns, struct sock *sk, int oldstate, int newstate)
{
	if (sk->__sk_common.skc_net.net->ns.inum == 1)
		bump();
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/* Per-socket bookkeeping in an open-addressed table held in an array:
 * a slot is claimed by a compare-and-swap of the socket's address and
 * found by probing a few slots on; no lock, no free list, no allocation.
 * A deleted slot becomes a tombstone that a later claim may take. */
#define TABLE_SLOTS (SOCKETS * 4)
#define TABLE_PROBES 8
#define TOMBSTONE 1

struct table_entry {
	__u64 sk;
	struct sock_state s;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, TABLE_SLOTS);
	__type(key, __u32);
	__type(value, struct table_entry);
} table SEC(".maps");

static __always_inline void table_follow_sk(struct sock *sk, int newstate)
{
	struct sock_state value = { .tgid = 1 };
	__u64 key = (__u64)sk;
	__u32 h = (key * 0x9E3779B97F4A7C15ull) >> (64 - 19);

	for (int i = 0; i < TABLE_PROBES; i++) {
		__u32 idx = (h + i) & (TABLE_SLOTS - 1);
		struct table_entry *e = bpf_map_lookup_elem(&table, &idx);
		__u64 cur;

		if (!e)
			return;
		cur = e->sk;
		if (cur == key) {
			if (newstate == TCP_CLOSE) {
				e->sk = TOMBSTONE;
				return;
			}
			e->s.flags |= 1 << newstate;
			return;
		}
		if (cur == 0) {
			if (newstate == TCP_CLOSE)
				return;
			if (__sync_val_compare_and_swap(&e->sk, 0, key) == 0) {
				e->s = value;
				return;
			}
		} else if (cur == TOMBSTONE && newstate != TCP_CLOSE &&
			   __sync_val_compare_and_swap(&e->sk, TOMBSTONE, key) == TOMBSTONE) {
			e->s = value;
			return;
		}
	}
}

SEC("raw_tp/inet_sock_set_state")
int BPF_PROG(table_follow, struct sock *sk, int oldstate, int newstate)
{
	table_follow_sk(sk, newstate);
	return 0;
}
