/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Listen queues: what tcptrace learns of a traced listener besides its
 * owner (listeners.bpf.h). User space reads each listener's own drop count
 * (sk_drops) and queue through sock_diag; the BPF side adds what sock_diag
 * cannot tell: the deepest the accept queue got between two snapshots (in
 * the listener's entry, struct tt_listener), the sk_drops bumps that were
 * no connection attempt, the SYN-ACKs sent again, and a listener's drops
 * up to its close. */
#ifndef TT_QUEUES_BPF_H
#define TT_QUEUES_BPF_H

#include "compat.bpf.h"
#include "maps.bpf.h"
#include "settings.bpf.h"

/* User space's snapshot interval: it adds one at each look, and takes the
 * peaks of the entries whose epoch is the interval that ended. */
__u32 peak_epoch = 0;

/* Per listener (by socket cookie): the sk_drops bumps that ListenDrops
 * does not count (see listener_on_kfree_skb). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u64);
	__type(value, __u64);
} listen_extra SEC(".maps");

/* Traced listeners that closed (struct tt_listener_record). */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 64 * 1024);
} listener_records SEC(".maps");

/* The kernel functions in which a packet a listener drops goes to its
 * sk_drops a second time, or only there (sk_drops_add on the discard path),
 * while ListenDrops counts it once or not at all: tcp_v4_rcv and
 * tcp_v6_rcv (a third ACK that found the accept queue full, a bare ACK
 * under TCP_DEFER_ACCEPT, a segment out of window), and tcp_rcv_state_process
 * with tcp_drop_reason (an RST, SYN+FIN or no flags to a listener). A drop
 * at the same places for a bad checksum never reaches sk_drops, nor one in
 * tcp_v4_do_rcv (a bare ACK answered with an RST). User space sets the
 * functions' address ranges from /proc/kallsyms after load and before
 * attach (with their out-of-line .cold parts); the first TT_DROP_SITES_RCV
 * are the receive functions'. */
__u64 drop_site_start[TT_DROP_SITES] = {};
__u64 drop_site_end[TT_DROP_SITES] = {};
#define TT_DROP_SITES_RCV 4

/* A listener's address, learnt from an event that passes it: for one
 * from before start-up whose address user space could not read. */
static __always_inline void queue_listener_seen(struct tt_listener *l, const struct sock *sk)
{
	if (!l->sk)
		l->sk = (__u64)sk;
}

/* A child just queued for accept(): its listener's queue holds it
 * already (inet_csk_reqsk_queue_add comes before the child's move to
 * ESTABLISHED). The listener is a plain address here: a probe read. */
static __always_inline void queue_note_depth(struct tt_listener *l)
{
	__u32 epoch = peak_epoch;
	struct sock *listener;
	__u32 depth;

	if (!l->sk)
		return;
	listener = (struct sock *)l->sk;
	depth = BPF_CORE_READ(listener, sk_ack_backlog);
	if (l->epoch != epoch) {
		l->epoch = epoch;
		l->peak = depth;
	} else if (depth > l->peak) {
		l->peak = depth;
	}
}

/* A traced listener's close: its sk_drops and the extra bumps, to user
 * space, which counts those since its last look. */
static __always_inline void queue_listener_closed(const struct sock *sk, const struct tt_listener *owner,
					    const struct tt_listener_key *key)
{
	struct tt_listener_record r = {
		.cookie = sk->__sk_common.skc_cookie.counter,
		.drops = (__u32)sk->sk_drops.counter,
		.netns = key->netns,
		.tgid = owner->tgid,
		.limit = sk->sk_max_ack_backlog,
		.port = key->port,
	};
	__u64 *extra = r.cookie ? bpf_map_lookup_elem(&listen_extra, &r.cookie) : NULL;

	if (owner->sk == (__u64)sk && owner->epoch == peak_epoch)
		r.peak = owner->peak;

	if (extra) {
		r.extra = *extra;
		bpf_map_delete_elem(&listen_extra, &r.cookie);
	}
	if (bpf_ringbuf_output(&listener_records, &r, sizeof(r), BPF_RB_NO_WAKEUP))
		tt_count_drop(TT_DROP_LISTENER_RECORD);
}

/* The segments a dropped packet stood for, as sk_drops counts them. */
static __always_inline __u64 queue_segments_of(const struct sk_buff *skb)
{
	unsigned char *head = BPF_CORE_READ(skb, head);
	struct skb_shared_info *shinfo = (void *)(head + skb->end);
	__u16 segs = BPF_CORE_READ(shinfo, gso_segs);

	return segs ? segs : 1;
}

#endif /* TT_QUEUES_BPF_H */
