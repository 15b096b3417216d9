/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Data segments sent again (tcp_retransmit_skb), on the socket's owner by
 * side, and with --by dest by destination; and the data segments a
 * connection sent, at its end, for the share of them sent again. */
#ifndef TT_RETRANS_BPF_H
#define TT_RETRANS_BPF_H

#include "compat.bpf.h"
#include "maps.bpf.h"
#include "socks.bpf.h"
#include "accept.bpf.h"
#include "dests.bpf.h"

/* The data segments skb carries, as TcpRetransSegs counts them: 0 for a
 * SYN or a SYN-ACK, which syn_retrans and synack_retrans count. */
static __always_inline __u32 retrans_data_segs(const struct sk_buff *skb)
{
	if (!skb || (skb_tcp_flags_of(skb) & TCPHDR_SYN))
		return 0;
	return skb_tcp_segs_of(skb);
}

/* Sent in the Loss state: a retransmission timeout puts the socket there
 * (tcp_enter_loss, before the timer sends the first segment again), as
 * does a path MTU that shrank (tcp_simple_retransmit); it stays there
 * until what was outstanding then is acknowledged. */
static __always_inline bool retrans_after_timeout(struct tcp_sock *tp)
{
	return tp && BPF_CORE_READ_BITFIELD(&tp->inet_conn, icsk_ca_state) == TCP_CA_Loss;
}

/* A segment sent again, successfully: in a timer, a softirq or any
 * process's syscall (an ACK it processes), so the owner comes from the
 * socket table, never from the current task. */
static __always_inline void retrans_on_send(const struct sock *sk, const struct sk_buff *skb)
{
	struct tt_sock *s = sock_find_or_adopt(sk);
	struct tt_proc_counters *c;
	struct tt_dest_counters *d;
	struct tcp_sock *tp;
	__u32 segs;
	__u8 side;
	bool rto;

	if (!s)
		return;
	segs = retrans_data_segs(skb);
	if (!segs)
		return;
	accept_settle(sk, s);
	c = sock_counters(s);
	if (!c)
		return;
	tp = bpf_skc_to_tcp_sock((void *)sk);
	rto = retrans_after_timeout(tp);
	side = s->side & 1;
	__sync_fetch_and_add(&c->retrans[side], segs);
	if (rto)
		__sync_fetch_and_add(&c->retrans_rto[side], segs);
	d = dest_of(sk, sk_net_of(sk), s);
	if (!d)
		return;
	__sync_fetch_and_add(&d->retrans, segs);
	if (rto)
		__sync_fetch_and_add(&d->retrans_rto, segs);
}

/* A connection's end: the data segments it sent (sent again included). */
static __always_inline void retrans_count_sent(const struct sock *sk, struct tt_proc_counters *c,
					       struct tt_dest_counters *d, __u8 side)
{
	struct tcp_sock *tp = bpf_skc_to_tcp_sock((void *)sk);
	__u32 segs = tp ? tp->data_segs_out : 0;

	if (!segs)
		return;
	__sync_fetch_and_add(&c->segs_sent[side & 1], segs);
	if (d)
		__sync_fetch_and_add(&d->segs_sent, segs);
}

#endif /* TT_RETRANS_BPF_H */
