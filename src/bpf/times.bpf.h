/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Waits timed in the kernel: a connect() from its SYN to ESTABLISHED, an
 * accepted connection from its queueing to accept(), and the handshake as
 * a listener saw it. Each wait lands in a 1-2-5 bucket of its process's
 * slot in proc_times (procs.bpf.h). */
#ifndef TT_TIMES_BPF_H
#define TT_TIMES_BPF_H

#include "compat.bpf.h"
#include "maps.bpf.h"
#include "settings.bpf.h"
#include "procs.bpf.h"
#include "socks.bpf.h"

/* The clock in microseconds, cut to 32 bits: a wait is the difference,
 * right across a wrap for any wait under an hour. */
static __always_inline __u32 times_now_us(void)
{
	return bpf_ktime_get_ns() / 1000;
}

/* The bucket of a wait: global, so that the verifier walks the ladder
 * once, not once for each path of its caller. */
__noinline __u32 times_latency_bucket(__u32 us)
{
	__u32 bound = 10, i = 0;

	for (int decade = 0; decade < TT_CONNECT_BUCKETS / 3; decade++) {
		if (us <= bound)
			return i;
		if (us <= bound * 2)
			return i + 1;
		if (us <= bound * 5)
			return i + 2;
		bound *= 10;
		i += 3;
	}
	return TT_CONNECT_BUCKETS - 1;
}

/* The socket's entry holds a start in since_us (TT_SK_TIMED) until its
 * wait ends; the word is the RST's reason after that. */
static __always_inline void times_start_now(struct tt_sock *s)
{
	s->since_us = times_now_us();
	s->flags |= TT_SK_TIMED;
}

/* An RST's reason takes the word: a start still kept is given up. */
static __always_inline void times_rst_reason_set(struct tt_sock *s, __u32 reason)
{
	s->flags &= ~TT_SK_TIMED;
	s->rst_reason = reason;
}

/* Microseconds since the start, if one was kept; the word goes back to
 * the RST's reason. */
static __always_inline bool times_end(struct tt_sock *s, __u32 *us)
{
	bool timed = s->flags & TT_SK_TIMED;

	if (timed)
		*us = times_now_us() - s->since_us;
	times_rst_reason_set(s, 0);
	return timed;
}

enum wait_kind { WAIT_CONNECT, WAIT_ACCEPTQ, WAIT_HANDSHAKE };

/* A wait of us microseconds into the slot's buckets of its kind. Returns
 * its bucket, bounded for the caller's own buckets, or TT_CONNECT_BUCKETS. */
static __always_inline __u64 times_count_wait(__u32 slot, __u32 us, enum wait_kind kind)
{
	struct tt_proc_times *t;
	__u64 i = times_latency_bucket(us);

	if (i >= TT_CONNECT_BUCKETS)
		return TT_CONNECT_BUCKETS;
	barrier_var(i); /* the bounded register itself indexes the buckets */
	t = bpf_map_lookup_elem(&proc_times, &slot);
	if (!t)
		return i;
	switch (kind) {
	case WAIT_CONNECT:
		tt_bump(&t->connect_le[i]);
		__sync_fetch_and_add(&t->connect_us, us);
		break;
	case WAIT_ACCEPTQ:
		tt_bump(&t->acceptq_le[i]);
		__sync_fetch_and_add(&t->acceptq_us, us);
		break;
	case WAIT_HANDSHAKE:
		tt_bump(&t->handshake_le[i]);
		__sync_fetch_and_add(&t->handshake_us, us);
		break;
	}
	return i;
}

/* A child taken by accept() after us microseconds in its listener's queue:
 * on the acceptor's slot (listener_on_touch has made the entry its). */
static __always_inline void times_count_accept_wait(struct tt_sock *s, __u32 us)
{
	times_count_wait(sock_proc_slot(s), us, WAIT_ACCEPTQ);
}

/* The first SYN-ACK of a request whose SYN-ACK went again, in the clock
 * of times_now_us(), by its flow: by the time the child made of it is
 * established, the kernel keeps that time nowhere the child can reach. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 8192);
	__type(key, struct tt_flow_key);
	__type(value, __u32);
} synack_first SEC(".maps");

/* A traced listener sent a request's SYN-ACK again: its first stays. */
static __always_inline void times_synack_sent_again(const struct request_sock *req, __u32 netns)
{
	const struct sock_common *c = &req->__req_common;
	__u32 first = BPF_CORE_READ((struct tcp_request_sock *)req, snt_synack);
	struct tt_flow_key k;

	sock_flow_of(c, netns, c->skc_num, &k);
	bpf_map_update_elem(&synack_first, &k, &first, BPF_NOEXIST);
}

/* A traced listener's child just established: its handshake, from the
 * first SYN-ACK, on the listener owner's slot. Without a SYN-ACK sent
 * again, that is the RTT the kernel measured from it (tcp_synack_rtt_meas,
 * before the move); with one, the first's time kept by times_synack_sent_again. */
static __always_inline void times_count_handshake(const struct sock *sk, __u32 netns, __u32 slot)
{
	struct tcp_sock *tp = bpf_skc_to_tcp_sock((void *)sk);
	struct tt_flow_key k;
	__u32 us, *first;

	if (!tp)
		return;
	if (!tp->total_retrans) {
		us = tp->srtt_us >> 3;
		if (us)
			times_count_wait(slot, us, WAIT_HANDSHAKE);
		return;
	}
	sock_flow_of(&sk->__sk_common, netns, sk->__sk_common.skc_num, &k);
	first = bpf_map_lookup_elem(&synack_first, &k);
	if (!first)
		return;
	us = times_now_us() - *first;
	bpf_map_delete_elem(&synack_first, &k);
	times_count_wait(slot, us, WAIT_HANDSHAKE);
}

#endif /* TT_TIMES_BPF_H */
