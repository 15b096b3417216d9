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
#include "retrans_seen.bpf.h"

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

/* Events seen, for test_retrans_skip_every (a test's: two CPUs may
 * count one). */
__u32 test_retrans_events = 0;

/* The data segments to count for an event of segs on a socket whose own
 * count is now total: segs, and those of its events before that no
 * program ran for. */
static __always_inline __u32 retrans_catch_up(const struct sock *sk, struct tt_sock *s,
					      __u32 total, __u32 segs)
{
	struct retrans_seen *seen;
	__u32 since;

	if (s->flags & TT_SK_RETRANS_SEEN) {
		seen = retrans_seen_of(sk);
		if (!seen)
			return segs; /* the map was full: none made up for */
		since = total - seen->total;
		seen->total = total;
	} else {
		since = total; /* none accounted for, none the handshake's */
		retrans_seen_set(sk, s, total);
	}
	if (since <= segs || since >= 0x10000000)
		return segs;
	__sync_fetch_and_add(&retrans_late, since - segs);
	return since;
}

/* A connection's end: the segments it sent again that no event told. The
 * kernel's count sits on a line of tcp_sock that nothing else reads here,
 * a wait at every end: it is read only for a socket that has sent again
 * (an event seen), or may have: segments marked lost (tcp_sock.lost), or
 * more bytes sent than acknowledged (its FIN's byte aside), which any data
 * sent again makes, on lines the end's other reads and the last ACK's
 * processing have just used. */
static __always_inline __u32 retrans_at_end(const struct sock *sk, struct tt_sock *s,
					    struct tcp_sock *tp)
{
	struct retrans_seen *seen;
	__u32 n;

	if (!tp)
		return 0;
	if (s->flags & TT_SK_RETRANS_SEEN) {
		seen = retrans_seen_of(sk);
		n = seen ? tp->total_retrans - seen->total : 0;
		retrans_seen_drop(sk, s);
	} else {
		n = tp->lost || tp->bytes_sent >= tp->bytes_acked ? tp->total_retrans : 0;
	}
	if (!n || n >= 0x10000000)
		return 0;
	__sync_fetch_and_add(&retrans_late, n);
	return n;
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
	__u32 segs, rto;
	__u8 side;

	if (!s)
		return;
	segs = retrans_data_segs(skb);
	if (!segs)
		return;
	if (test_retrans_skip_every && test_retrans_events++ % test_retrans_skip_every == 0)
		return;
	accept_settle(sk, s);
	c = sock_counters(s);
	if (!c)
		return;
	tp = bpf_skc_to_tcp_sock((void *)sk);
	/* Those made up for are not known to be after a timeout. */
	rto = retrans_after_timeout(tp) ? segs : 0;
	if (tp)
		segs = retrans_catch_up(sk, s, tp->total_retrans, segs);
	side = s->side & 1;
	__sync_fetch_and_add(&c->retrans[side], segs);
	if (rto)
		__sync_fetch_and_add(&c->retrans_rto[side], rto);
	d = dest_of(sk, sk_net_of(sk), s);
	if (!d)
		return;
	__sync_fetch_and_add(&d->retrans, segs);
	if (rto)
		__sync_fetch_and_add(&d->retrans_rto, rto);
}

/* A connection's end: the data segments it sent (sent again included),
 * and those sent again that no event told. */
static __always_inline void retrans_count_sent(const struct sock *sk, struct tt_sock *s,
					       struct tt_proc_counters *c,
					       struct tt_dest_counters *d, __u8 side)
{
	struct tcp_sock *tp = bpf_skc_to_tcp_sock((void *)sk);
	__u32 segs = tp ? tp->data_segs_out : 0, late = retrans_at_end(sk, s, tp);

	if (late) {
		__sync_fetch_and_add(&c->retrans[side & 1], late);
		if (d)
			__sync_fetch_and_add(&d->retrans, late);
	}
	if (!segs)
		return;
	__sync_fetch_and_add(&c->segs_sent[side & 1], segs);
	if (d)
		__sync_fetch_and_add(&d->segs_sent, segs);
}

#endif /* TT_RETRANS_BPF_H */
