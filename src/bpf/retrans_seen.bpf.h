/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* How much of a followed socket's own count of segments sent again
 * (tcp_sock.total_retrans, what tcp_info gives) tcptrace has accounted
 * for. A socket without TT_SK_RETRANS_SEEN has accounted for none and
 * owes none to its handshake: all the kernel counted is data it sent again.
 * One with it has an entry here (or had: a full map loses it, and then
 * nothing is made up for), written where its count was first not all data
 * (its SYNs or SYN-ACKs sent again, or a history from before start-up) or
 * at its first event. So an event that ran no program is counted at the
 * socket's next one, or at the connection's end (retrans.bpf.h). */
#ifndef TT_RETRANS_SEEN_BPF_H
#define TT_RETRANS_SEEN_BPF_H

#include "compat.bpf.h"
#include "maps.bpf.h"

struct retrans_seen {
	__u32 total;
	/* The peer's port: an entry left by an earlier socket at the address,
	 * whose own write of it failed, seldom has it. Not the local port,
	 * which the kernel gives back (0) at the move to CLOSE. */
	__u32 dport;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	/* Sockets that sent again, or whose handshake did, at once. */
	__uint(max_entries, 16384);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, __u64); /* the socket's address */
	__type(value, struct retrans_seen);
} retrans_seen SEC(".maps");

/* Data segments sent again that were counted late, from the socket's own
 * count: their events ran no program of tcptrace's. */
__u64 retrans_late = 0;

/* The socket's count, accounted for up to total. */
static __always_inline void retrans_seen_set(const struct sock *sk, struct tt_sock *s, __u32 total)
{
	struct retrans_seen v = { .total = total, .dport = sk->__sk_common.skc_dport };
	__u64 key = tt_addr_of(sk);

	bpf_map_update_elem(&retrans_seen, &key, &v, BPF_ANY);
	s->flags |= TT_SK_RETRANS_SEEN;
}

/* A socket entering the table with segments sent again already: its
 * SYN-ACKs (an accepted one), or its past (one from before start-up). */
static __always_inline void retrans_seen_join(const struct sock *sk, struct tt_sock *s)
{
	struct tcp_sock *tp = bpf_skc_to_tcp_sock((void *)sk);
	__u32 total = tp ? tp->total_retrans : 0;

	if (total)
		retrans_seen_set(sk, s, total);
}

/* The entry of a socket with TT_SK_RETRANS_SEEN, if it still has it. */
static __always_inline struct retrans_seen *retrans_seen_of(const struct sock *sk)
{
	__u64 key = tt_addr_of(sk);
	struct retrans_seen *seen = bpf_map_lookup_elem(&retrans_seen, &key);

	return seen && seen->dport == sk->__sk_common.skc_dport ? seen : NULL;
}

/* A socket's entry, gone with it. */
static __always_inline void retrans_seen_drop(const struct sock *sk, struct tt_sock *s)
{
	__u64 key;

	if (!(s->flags & TT_SK_RETRANS_SEEN))
		return;
	key = tt_addr_of(sk);
	bpf_map_delete_elem(&retrans_seen, &key);
	s->flags &= ~TT_SK_RETRANS_SEEN;
}

/* A Fast Open child's SYN-ACK sent again, which its count takes in too. */
static __always_inline void retrans_seen_synack(const struct sock *sk, struct tt_sock *s)
{
	struct retrans_seen *seen;

	if (!(s->flags & TT_SK_RETRANS_SEEN)) {
		retrans_seen_join(sk, s);
		return;
	}
	seen = retrans_seen_of(sk);
	if (seen)
		seen->total++;
}

#endif /* TT_RETRANS_SEEN_BPF_H */
