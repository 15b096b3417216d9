/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Listeners of traced processes, and the accepted connections they hand
 * over: which process accepted each (see listener_on_touch). */
#ifndef TT_LISTENERS_BPF_H
#define TT_LISTENERS_BPF_H

#include "compat.bpf.h"
#include "maps.bpf.h"
#include "settings.bpf.h"
#include "procs.bpf.h"
#include "socks.bpf.h"
#include "sharing.bpf.h"
#include "queues.bpf.h"
#include "times.bpf.h"

/* Listeners being closed (entries of stopping_listeners): while zero, a
 * destroyed socket costs one lookup less. */
__u64 listeners_stopping = 0;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, struct tt_listener_key);
	__type(value, struct tt_listener);
} listeners SEC(".maps");

/* A listener that a thread is closing, from its move to CLOSE to its
 * destruction in the same close(): the kernel destroys the connections
 * still in its accept queue in between, in that thread (see
 * listener_child_unaccepted). */
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

static __always_inline void listener_key_of(const struct sock *sk, __u32 netns,
					    struct tt_listener_key *key)
{
	key->netns = netns;
	key->port = sk->__sk_common.skc_num;
	key->pad = 0;
}

/* A listener from before start-up, met in the walk of its namespace's
 * TCP sockets at seeding (seed_listener_addresses): its address, which
 * neither sock_diag nor /proc/net/tcp gives (%pK hashes it), for
 * queue_note_depth to read its queue from. Only ports the seeding stored
 * are taken. Returns false at the first socket that is no listener: the
 * walk gives the listening hash first, so the rest holds none. */
static __always_inline bool listener_met(const struct sock_common *skc)
{
	const struct sock *sk = (const struct sock *)skc;
	struct tt_listener_key key;
	struct tt_listener *l;

	if (skc->skc_state != TCP_LISTEN)
		return false;
	listener_key_of(sk, sk_netns_read(sk), &key);
	l = bpf_map_lookup_elem(&listeners, &key);
	if (l)
		l->sk = (__u64)skc;
	return true;
}

static __always_inline void listener_mark_shared(const struct sock *sk)
{
	struct tt_listener_key key;
	struct tt_listener *owner;

	listener_key_of(sk, sk_netns_read(sk), &key);
	owner = bpf_map_lookup_elem(&listeners, &key);
	if (owner && !(owner->flags & TT_LISTENER_SHARED)) {
		owner->flags |= TT_LISTENER_SHARED;
		sharing_tell(owner->tgid, TT_SHARED_BY_TOUCH);
	}
}

/* The first syscall touching an accepted socket names the process that
 * accepted it: accept() itself where it is traced (accept.bpf.h), else a
 * read (tcp_rcv_space_adjust), its close() or shutdown()
 * (FIN_WAIT1, LAST_ACK), or, for one that close() aborts or that ended
 * before (an RST from the peer, a timeout), its destruction in that
 * close(). From a shared listener, that is when the socket gets its owner
 * and conn_in is counted. From a listener thought to be its owner's
 * alone, a touch by another traced process shows it shared: connections
 * accepted from it later wait for their first touch too. */
static __always_inline void listener_on_touch(const struct sock *sk, struct tt_sock *s)
{
	__u32 tgid = proc_current_tgid();
	bool other = tgid != s->tgid && proc_current_is_traced(tgid);

	s->flags |= TT_SK_TOUCHED;
	if (!(s->flags & TT_SK_PROVISIONAL)) {
		if (other)
			listener_mark_shared(sk);
		return;
	}
	if (other) {
		proc_count_sockets(s->slot, -1);
		s->tgid = tgid;
		s->slot = TT_NO_SLOT;
	}
	s->flags &= ~TT_SK_PROVISIONAL;
	if ((s->flags & (TT_SK_ESTABLISHED | TT_SK_COUNTED)) == TT_SK_ESTABLISHED) {
		struct tt_proc_counters *c = sock_counters(s);
		if (c)
			tt_bump(&c->conn[TT_SIDE_IN]);
		s->flags |= TT_SK_COUNTED;
	}
	/* Not moved yet: a touch by close() comes before the move it makes. */
	if (sk->__sk_common.skc_state == TCP_ESTABLISHED)
		sock_open_begins(s, NULL);
}

static __always_inline void listener_touch(const struct sock *sk, struct tt_sock *s)
{
	if (sock_awaits_touch(s)) {
		sock_count_awaiting(s->flags, -1);
		listener_on_touch(sk, s);
		__sync_fetch_and_add(&untouched_slots[sock_filter_slot_of(sk)], -1);
	}
}

static __always_inline void listener_on_listen(const struct sock *sk, struct net *net)
{
	__u32 tgid = proc_current_tgid();
	struct tt_listener_key key;
	struct tt_listener owner = { .tgid = tgid, .sk = (__u64)sk }, *before;

	if (!proc_current_is_traced(tgid))
		return;
	listener_key_of(sk, net_inum(net), &key);
	/* Another process listening on the port (SO_REUSEPORT: a haproxy
	 * reload) takes connections from it too. */
	before = bpf_map_lookup_elem(&listeners, &key);
	if (before)
		owner.flags = before->flags;
	if (!sharing_note_listening(tgid, &key) || (before && before->tgid != tgid)) {
		if (!(owner.flags & TT_LISTENER_SHARED))
			sharing_tell(tgid, TT_SHARED_BY_LISTEN);
		owner.flags |= TT_LISTENER_SHARED;
	}
	bpf_map_update_elem(&listeners, &key, &owner, BPF_ANY);
	sharing_note_listen_sock(&key, sk);
}

static __always_inline void listener_on_unlisten(const struct sock *sk, struct net *net)
{
	struct stopping_listener stopping = { .sk = (__u64)sk };
	__u64 thread = bpf_get_current_pid_tgid();
	struct tt_listener *owner;
	bool its_socket;

	listener_key_of(sk, net_inum(net), &stopping.key);
	/* Not skc_num, which the kernel has zeroed by now unless the port
	 * was bound explicitly (see sk_local_port_of). */
	stopping.key.port = sk_local_port_of(sk);
	owner = bpf_map_lookup_elem(&listeners, &stopping.key);
	if (!owner)
		return;
	queue_listener_closed(sk, owner, &stopping.key);
	/* Another process may listen on the same port (SO_REUSEPORT); the
	 * entry's own socket may be closed last by another process. */
	its_socket = sharing_was_listen_sock(&stopping.key, sk);
	if (owner->tgid == proc_current_tgid() || its_socket) {
		bpf_map_delete_elem(&listeners, &stopping.key);
	}
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
static __always_inline bool listener_child_unaccepted(const struct sock *sk, struct net *net)
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
	return net_inum(net) == stopping->key.netns &&
	       sk_local_port_of(sk) == stopping->key.port;
}

/* Follows a connection accepted from a listener of process tgid (in
 * owner_slot), its entry complete from the start; open when it has reached
 * ESTABLISHED. conn_in waits for the first touch if the listener is shared
 * (see listener_on_touch). */
static __always_inline bool listener_follow_child(const struct sock *sk, __u32 tgid, __u32 owner_slot,
					 bool shared, bool open)
{
	__u32 slot = shared ? TT_NO_SLOT : owner_slot;
	struct tt_proc_counters *counters;
	struct tt_sock *s;

	s = sock_track_sk(sk, tgid, slot, TT_SIDE_IN,
		  TT_SK_ESTABLISHED | (shared ? TT_SK_PROVISIONAL : TT_SK_COUNTED));
	if (!s)
		return false;
	/* Queued for accept() now: where accept() is traced, its wait there. */
	if (acceptors_at_accept && open)
		times_start_now(s);
	if (shared)
		return true;
	counters = proc_counters_at(slot);
	if (!counters)
		return true;
	tt_bump(&counters->conn[TT_SIDE_IN]);
	if (open)
		sock_open_begins(s, counters);
	return true;
}

/* A connection accepted from a listener of a traced process has reached
 * ESTABLISHED: its socket is followed from now on. */
static __always_inline void listener_adopt_child(const struct sock *sk, struct net *net)
{
	struct tt_listener_key lkey;
	struct tt_listener *owner;
	__u32 slot;

	if (!sock_is_inet_tcp(sk))
		return;
	listener_key_of(sk, net_inum(net), &lkey);
	owner = bpf_map_lookup_elem(&listeners, &lkey);
	if (!owner)
		return;
	queue_note_depth(owner);
	slot = proc_slot_of(owner->tgid);
	listener_follow_child(sk, owner->tgid, slot, sharing_acceptor_unknown(owner), true);
	times_count_handshake(sk, lkey.netns, slot);
}

/* A socket leaving SYN_RECV for anything but ESTABLISHED, not followed:
 * a TCP Fast Open child, which the kernel makes at the SYN and queues for
 * accept() at once (tcp_fastopen_create_child). Its owner may read, write
 * and close it before the handshake's last ACK comes, and then it never
 * reaches ESTABLISHED: it goes to FIN_WAIT1 (close, shutdown), or to
 * CLOSE (an abort in close(), an RST from the peer, SYN-ACKs unanswered,
 * its listener's close()). It is followed from that move on, as if it had
 * reached ESTABLISHED. Returns its entry, or NULL if it is not followed.
 * Other sockets that take this way are children the kernel throws away
 * at birth (inet_ehash_nolisten: a second child made for one connection),
 * which were never connections. */
static __always_inline struct tt_sock *listener_adopt_fastopen_child(const struct sock *sk,
							    struct net *net, int newstate)
{
	struct tcp_sock *tp = bpf_skc_to_tcp_sock((void *)sk);
	struct tt_listener_key lkey;
	struct tt_listener *owner;
	bool followed = false;
	struct tt_sock *s;
	bool reset;

	if (!tp)
		return NULL;
	/* tcp_reset sets sk_err, then moves the socket to CLOSE; the RST came
	 * to handle_receive_reset while the socket was not followed yet. */
	reset = newstate == TCP_CLOSE && sk->sk_err == ECONNRESET;
	/* The request a Fast Open child keeps until the handshake's last ACK;
	 * an RST from the peer drops it just before the move to CLOSE. */
	if (!tp->fastopen_rsk && !reset)
		return NULL;
	/* Not skc_num, which the kernel has zeroed by a move to CLOSE (see
	 * sk_local_port_of). */
	lkey.netns = net_inum(net);
	lkey.port = sk_local_port_of(sk);
	lkey.pad = 0;
	owner = bpf_map_lookup_elem(&listeners, &lkey);
	if (owner)
		followed = listener_follow_child(sk, owner->tgid, proc_slot_of(owner->tgid),
					sharing_acceptor_unknown(owner), false);
	else if (listener_child_unaccepted(sk, net))
		/* Its listener's owner is closing the listener, which it has
		 * forgotten already (listener_on_unlisten): the child stays its. */
		followed = listener_follow_child(sk, proc_current_tgid(), proc_slot_of(proc_current_tgid()), false,
					false);
	if (!followed)
		return NULL;
	s = sock_find(sk);
	if (s && reset)
		s->flags |= TT_SK_RST_RECV;
	return s;
}

/* A packet freed as dropped, with the listener that received it (6.11+):
 * counted when it went to the listener's sk_drops but not to ListenDrops. */
static __always_inline void listener_on_kfree_skb(const struct sk_buff *skb, __u64 location, __u32 reason,
					 const struct sock *rx_sk)
{
	struct tt_listener_key key;
	__u64 cookie, zero = 0, *extra;
	struct tt_listener *l;
	int site = -1;

	if (!rx_sk || rx_sk->__sk_common.skc_state != TCP_LISTEN)
		return;
	for (int i = 0; i < TT_DROP_SITES; i++) {
		if (location >= drop_site_start[i] && location < drop_site_end[i]) {
			site = i;
			break;
		}
	}
	if (site < 0)
		return;
	if (site < TT_DROP_SITES_RCV &&
	    reason == bpf_core_enum_value(enum skb_drop_reason, SKB_DROP_REASON_TCP_CSUM))
		return;
	/* Only for a drop at one of the sites: the namespace is a probe read. */
	listener_key_of(rx_sk, sk_netns_read(rx_sk), &key);
	l = bpf_map_lookup_elem(&listeners, &key);
	if (!l)
		return;
	queue_listener_seen(l, rx_sk);
	cookie = bpf_get_socket_cookie((void *)rx_sk);
	extra = tt_lookup_or_init(&listen_extra, &cookie, &zero);
	if (extra)
		__sync_fetch_and_add(extra, queue_segments_of(skb));
}

/* A SYN-ACK sent again: by a listener for a request (its owner's), or by
 * a Fast Open child before the handshake's last ACK (the child's owner). */
static __always_inline void listener_on_synack_retrans(const struct sock *sk,
					      const struct request_sock *req)
{
	struct tt_proc_counters *c = NULL;

	if (sk->__sk_common.skc_state == TCP_LISTEN) {
		struct tt_listener_key key;
		struct tt_listener *owner;

		listener_key_of(sk, sk_netns_read(sk), &key);
		owner = bpf_map_lookup_elem(&listeners, &key);
		if (owner) {
			c = proc_counters_of(owner->tgid);
			queue_listener_seen(owner, sk);
			times_synack_sent_again(req, key.netns);
		}
	} else {
		struct tt_sock *s = sock_find_or_adopt(sk);

		if (s) {
			retrans_seen_synack(sk, s);
			c = sock_counters(s);
		}
	}
	if (c)
		tt_bump(&c->synack_retrans);
}

#endif /* TT_LISTENERS_BPF_H */
