/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Timewait sockets: the proof that the kernel made one at an active
 * close, and its owner, told to user space for tw_now and tw_rst. */
#ifndef TT_TIMEWAIT_BPF_H
#define TT_TIMEWAIT_BPF_H

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

static __always_inline void record_tw_owner(const struct tt_tw_key *key, struct tt_sock *s)
{
	struct tt_tw_record r = {
		.kind = TT_TW_OWNER, .stamp = tw_stamp, .slot = slot_of_sock(s), .side = s->side
	};

	r.key = *key;
	if (bpf_ringbuf_output(&tw_records, &r, sizeof(r), BPF_RB_NO_WAKEUP))
		count_drop(TT_DROP_TW_MAP_FULL);
}

/* The flow key of a socket from its head; lport is given because where
 * to read it depends on the kind of socket (see sk_local_port_of). */
static __always_inline void flow_of(const struct sock_common *c, __u16 lport,
				    struct tt_flow_key *k)
{
	__u16 family = c->skc_family;

	__builtin_memset(k, 0, sizeof(*k));
	k->netns = c->skc_net.net->ns.inum;
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

/* Steps of the walk for the timewait socket: ehash chains are a few
 * entries long, the hash table being sized to the socket count; the rest
 * is room for restarts. */
#define TT_EHASH_STEPS 24

/* a is a copy (read_skc), b a socket's head; b's family decides which
 * addresses. */
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
 * socket whose head is me: one with the same addresses in the same
 * connection hash chain; its tw_snd_nxt goes to *snd_nxt. The full
 * socket's own port was already released (skc_num is 0), so the local
 * port is given (see sk_local_port_of). The new timewait socket is added
 * at the head of its chain: one step of the walk usually finds it. */
static __always_inline bool timewait_replaced(const struct sock_common *me, __u16 lport,
					      struct inet_timewait_death_row *dr, __u32 *snd_nxt)
{
	struct inet_hashinfo *hinfo = dr->hashinfo;
	__u64 node_offset = bpf_core_field_offset(struct sock_common, skc_nulls_node);
	struct hlist_nulls_node *node = NULL;
	struct inet_ehash_bucket *ehash;
	struct sock_common other;
	__u32 slot;

	/* A bucket at a variable index and the sockets found from their
	 * links are plain addresses: probe reads. */
	ehash = (struct inet_ehash_bucket *)addr_of(hinfo->ehash);
	slot = me->skc_hash & hinfo->ehash_mask;

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

#endif /* TT_TIMEWAIT_BPF_H */
