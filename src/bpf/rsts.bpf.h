/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* RSTs: the kernel's reason per connection's end, RSTs of timewait
 * sockets and of no socket, and the RST predicted at a move to CLOSE. */
#ifndef TT_RSTS_BPF_H
#define TT_RSTS_BPF_H

#include "compat.bpf.h"
#include "maps.bpf.h"
#include "settings.bpf.h"
#include "socks.bpf.h"
#include "timewait.bpf.h"
#include "times.bpf.h"

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, TT_DEFAULT_MAX_PROCS);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct tt_reason_key);
	__type(value, __u64);
} rst_reasons SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, 1024);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct tt_other_rst_key);
	__type(value, __u64);
} other_rsts SEC(".maps");

/* Sockets whose RST, counted at their end, the kernel sends after it: an
 * orphan aborted in tcp_rcv_state_process (data after close(), linger2 < 0)
 * is destroyed first. Keyed by socket, not a slot per CPU: a softirq or
 * another task may end other sockets in between, and the task may change
 * CPU. LRU: a predicted RST may never come (no memory for a timewait socket). */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 1024);
	__type(key, __u64);   /* struct sock address */
	__type(value, __u64); /* its rst_seq_mark_of */
} rsts_after_end SEC(".maps");

/* Tells a socket from a later one at the same address: the sequence
 * numbers of both directions, which start at random and which neither the
 * socket's destruction nor the RST changes. */
static __always_inline __u64 rst_seq_mark_of(const struct sock *sk)
{
	struct tcp_sock *tp = bpf_skc_to_tcp_sock((void *)sk);

	return tp ? (__u64)tp->snd_nxt << 32 | tp->rcv_nxt : 0;
}

/* At the end of a socket whose RST was counted ahead and not seen yet. */
static __always_inline void rst_expect_after_end(const struct sock *sk)
{
	__u64 key = (__u64)sk, mark = rst_seq_mark_of(sk);

	bpf_map_update_elem(&rsts_after_end, &key, &mark, BPF_ANY);
}

/* Whether the RST of a socket no longer followed was counted at its end. */
static __always_inline bool rst_counted_at_end(const struct sock *sk)
{
	__u64 key = (__u64)sk, *mark = bpf_map_lookup_elem(&rsts_after_end, &key);
	bool same;

	if (!mark)
		return false;
	same = *mark == rst_seq_mark_of(sk);
	bpf_map_delete_elem(&rsts_after_end, &key);
	return same;
}

static __always_inline void rst_count_reason(struct tt_sock *s)
{
	struct tt_reason_key key = { .slot = sock_proc_slot(s), .reason = s->rst_reason,
				     .side = s->side & 1 };
	__u64 zero = 0, *count;

	if (key.slot == TT_NO_SLOT)
		return;
	count = tt_lookup_or_init(&rst_reasons, &key, &zero);

	if (count)
		tt_bump(count);
	else
		tt_count_drop(TT_DROP_REASON_MAP_FULL);
}

static __always_inline __u32 rst_reason_abort_on_data(void)
{
	if (bpf_core_enum_value_exists(enum sk_rst_reason, SK_RST_REASON_TCP_ABORT_ON_DATA))
		return bpf_core_enum_value(enum sk_rst_reason, SK_RST_REASON_TCP_ABORT_ON_DATA);
	return TT_REASON_UNKNOWN;
}

static __always_inline void rst_count_other(__u32 netns, __u32 reason)
{
	struct tt_other_rst_key key = { .netns = netns, .reason = reason };
	__u64 zero = 0, *count = tt_lookup_or_init(&other_rsts, &key, &zero);

	if (count)
		tt_bump(count);
}

/* A timewait socket answering a segment with an RST (a stray data
 * segment, a SYN it refuses): the connection has already ended and been
 * counted. Its owner is known to user space only, which counts the RST in
 * the owner's tw_rst, or as an other RST when it knows no owner. */
static __always_inline void rst_count_timewait(const struct sock_common *tw, __u32 reason)
{
	struct tt_tw_record r = { .kind = TT_TW_RST, .reason = reason };

	sock_flow_of(tw, sk_netns_read((const struct sock *)tw), tw->skc_num, &r.key.flow);
	r.key.snd_nxt = tw->skc_tw_snd_nxt;
	if (bpf_ringbuf_output(&tw_records, &r, sizeof(r), BPF_RB_NO_WAKEUP))
		tt_count_drop(TT_DROP_TW_MAP_FULL);
}

/* Whether this RST ends a followed connection, and records it if so. An
 * RST with no incoming segment (skb NULL) always ends the connection; one
 * answering a segment does only once the socket is CLOSE (a SYN_SENT
 * socket answers a stray ACK with an RST and carries on). */
static __always_inline bool rst_count_connection(const struct sock *sk, const struct sk_buff *skb,
						 __u32 reason)
{
	struct tt_sock *s = sock_find_or_adopt(sk);

	if (!s)
		return false;
	/* The RST expected at the move to CLOSE, here before the socket's end
	 * (tcp_disconnect from FIN_WAIT): counted already, the kernel's reason. */
	if (s->flags & TT_SK_RST_AHEAD) {
		s->flags &= ~TT_SK_RST_AHEAD;
		times_rst_reason_set(s, reason);
		return true;
	}
	if (s->flags & TT_SK_RST_SENT)
		return false;
	if (skb && sk->__sk_common.skc_state != TCP_CLOSE)
		return false;
	s->flags |= TT_SK_RST_SENT;
	times_rst_reason_set(s, reason);
	return true;
}

/* Every RST the kernel sends lands in one place: a connection's end
 * (rst_sent), a timewait socket's record (its owner's tw_rst, or an other
 * RST, resolved by user space), or other_rsts. */
static __always_inline void rst_on_send(const struct sock *sk, const struct sk_buff *skb,
					  __u32 reason)
{
	if (!sk) {
		if (skb)
			rst_count_other(BPF_CORE_READ(skb, dev, nd_net.net, ns.inum), reason);
		return;
	}
	if (sk->__sk_common.skc_state == TCP_TIME_WAIT) {
		rst_count_timewait((const struct sock_common *)sk, reason);
		return;
	}
	if (rst_count_connection(sk, skb, reason))
		return;
	/* An orphan's abort on data, counted at its end. */
	if (skb && sk->__sk_common.skc_state == TCP_CLOSE && rst_counted_at_end(sk))
		return;
	rst_count_other(sk_netns_read(sk), reason);
}

#endif /* TT_RSTS_BPF_H */
