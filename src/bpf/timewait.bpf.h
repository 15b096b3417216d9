/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Timewait sockets: the proof that the kernel made one at an active
 * close, and its owner, told to user space for tw_now and tw_rst. */
#ifndef TT_TIMEWAIT_BPF_H
#define TT_TIMEWAIT_BPF_H

#include "compat.bpf.h"
#include "maps.bpf.h"
#include "settings.bpf.h"
#include "socks.bpf.h"

/* Owners of timewait sockets and their RSTs (struct tt_tw_record), for
 * user space to resolve at each snapshot: one ring write per active close
 * instead of a hash insert, and no deletes. User space sizes it from
 * --max-sockets and reads it without being woken. */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096 * 4096);
} tw_records SEC(".maps");

/* Written by user space at each snapshot, before it drains tw_records;
 * copied into each owner record. */
__u64 tw_stamp = 0;

static __always_inline void timewait_record_owner(const struct tt_tw_key *key, struct tt_sock *s)
{
	struct tt_tw_record r = {
		.kind = TT_TW_OWNER, .stamp = tw_stamp, .slot = sock_proc_slot(s), .side = s->side & 1
	};

	r.key = *key;
	if (bpf_ringbuf_output(&tw_records, &r, sizeof(r), BPF_RB_NO_WAKEUP))
		tt_count_drop(TT_DROP_TW_MAP_FULL);
}

/* Steps of the walk for the timewait socket: ehash chains are a few
 * entries long, the hash table being sized to the socket count; the rest
 * is room for restarts. */
#define TT_EHASH_STEPS 24

/* Whether two copies of socket heads (sock_read_common) have the same addresses,
 * those of a's family: compared without a branch per word, so that the
 * verifier walks the timewait walk's steps as one path each. */
static __always_inline bool timewait_same_addresses(const struct sock_common *a,
					   const struct sock_common *b)
{
	const __u64 *a6 = (const __u64 *)&a->skc_v6_daddr, *b6 = (const __u64 *)&b->skc_v6_daddr;
	const __u64 *a6s = (const __u64 *)&a->skc_v6_rcv_saddr;
	const __u64 *b6s = (const __u64 *)&b->skc_v6_rcv_saddr;

	if (a->skc_family == AF_INET)
		return a->skc_addrpair == b->skc_addrpair;
	return ((a6[0] ^ b6[0]) | (a6[1] ^ b6[1]) | (a6s[0] ^ b6s[0]) | (a6s[1] ^ b6s[1])) == 0;
}

/* The head of a socket up to its IPv6 addresses: what tells its
 * connection from another's, read into a smaller object than a whole
 * struct sock_common (the stack of a chain of calls holds 512 bytes). */
struct skc_head {
	__u64 bytes[12];
};

static __always_inline bool timewait_read_head(struct skc_head *h, __u64 sk)
{
	__u32 len = bpf_core_field_offset(struct sock_common, skc_v6_rcv_saddr) +
		    bpf_core_field_size(struct sock_common, skc_v6_rcv_saddr);

	return len <= sizeof(*h) && bpf_probe_read_kernel(h, len, (const void *)sk) == 0;
}

/* The walk below, and each of its steps, are global functions, verified
 * once on their own rather than in every path that reaches them: their
 * arguments are plain numbers (addresses included), as Linux before 5.12
 * requires of a global function's, and what lies behind them is read with
 * probe reads. */
#define TT_TW_FOUND (1ull << 62) /* above a nulls marker, below an address */

/* One step of the walk, at node in the chain whose head is at address
 * chain: whether the socket head there is the timewait socket that
 * replaced the socket at address sk (its local port, lport, given: see
 * timewait_find). Returns TT_TW_FOUND with its tw_snd_nxt if it is, else
 * where to go next: the next node, the chain's first again when node is
 * another chain's end, or 0 at the chain's own end or when unreadable.
 * The chain ends in a "nulls" marker carrying its bucket: sockets are
 * freed and reused under RCU, so a walk can drift into another chain, and
 * starts again, as the kernel's own lookup does. */
__noinline __u64 timewait_step(__u64 node, __u64 sk, __u32 lport, __u64 chain, __u32 slot)
{
	__u64 node_offset = bpf_core_field_offset(struct sock_common, skc_nulls_node);
	const struct sock_common *me;
	struct sock_common other;
	struct skc_head head;

	if (node & 1) {
		if ((node >> 1) == slot || bpf_probe_read_kernel(&node, sizeof(node), (void *)chain))
			return 0;
		return node;
	}
	if (!sock_read_common(&other, (const void *)(node - node_offset)) || !timewait_read_head(&head, sk))
		return 0;
	me = (const struct sock_common *)&head;
	if (!((other.skc_state ^ TCP_TIME_WAIT) | (other.skc_hash ^ me->skc_hash) |
	      (other.skc_dport ^ me->skc_dport) | (other.skc_num ^ lport) |
	      ((__u64)other.skc_net.net ^ (__u64)me->skc_net.net)) &&
	    other.skc_family == me->skc_family && timewait_same_addresses(&other, me))
		return TT_TW_FOUND | other.skc_tw_snd_nxt;
	return (__u64)other.skc_nulls_node.next;
}

/* Whether the kernel has just put a timewait socket in the place of the
 * socket at address sk: one with the same addresses in the same
 * connection hash chain (whose bucket hash gives). Returns its
 * tw_snd_nxt with TT_TW_FOUND, or 0. The full socket's own port was
 * already released (skc_num is 0), so the local port is given (see
 * sk_local_port_of). The new timewait socket is added at the head of its
 * chain: one step of the walk usually finds it. */
__noinline __u64 timewait_find(__u64 sk, __u64 ehash, __u32 ehash_mask, __u32 hash, __u32 lport)
{
	struct inet_ehash_bucket *buckets = (struct inet_ehash_bucket *)ehash;
	__u32 slot = hash & ehash_mask;
	__u64 chain = (__u64)&buckets[slot].chain.first, node = 0;

	bpf_probe_read_kernel(&node, sizeof(node), (void *)chain);
	for (int i = 0; i < TT_EHASH_STEPS && node; i++) {
		node = timewait_step(node, sk, lport, chain, slot);
		if (node >> 62 == TT_TW_FOUND >> 62)
			return node;
	}
	return 0;
}

#endif /* TT_TIMEWAIT_BPF_H */
