/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Naming the process that accepts a connection.
 *
 * accept() traced: fexit/inet_csk_accept returns the accepted socket in
 * the acceptor's own syscall (an io_uring worker's is a thread of the same
 * process), once per connection. Where the kernel loads it (BPF
 * trampolines: Debian's 5.10, 6.1 and 6.12 do; user space probes it before
 * load), every connection of a traced listener waits there for its
 * acceptor (sharing_acceptor_unknown), and the read hook is not needed. */
#ifndef TT_ACCEPT_BPF_H
#define TT_ACCEPT_BPF_H

#include "compat.bpf.h"
#include "maps.bpf.h"
#include "settings.bpf.h"
#include "socks.bpf.h"
#include "listeners.bpf.h"

/* A ctx slot read at a constant offset. Written as plain C, the two reads
 * of accept_child_of() become one at a variable offset, which the verifier
 * refuses for a ctx pointer ("dereference of modified ctx ptr"). The
 * verifier types the value from the traced function's prototype. */
#define TT_CTX_SLOT(ctx, off)                                                       \
	({                                                                          \
		__u64 __v;                                                          \
		asm volatile("%0 = *(u64 *)(%1 + " #off ")" : "=r"(__v) : "r"(ctx)); \
		__v;                                                                \
	})

/* The socket inet_csk_accept returned, NULL when it failed (EAGAIN, a
 * signal). It is the return value, after the arguments: (sk, struct
 * proto_accept_arg *) from Linux 6.10 on, (sk, flags, int *err, kern)
 * before. bpf_core_type_exists() is a constant at load: the verifier walks
 * only the running kernel's branch. The error is not read: 5.10 refuses a
 * load through an int * argument, and a NULL socket says enough. */
static __always_inline struct sock *accept_child_of(unsigned long long *ctx)
{
	if (bpf_core_type_exists(struct proto_accept_arg))
		return (struct sock *)TT_CTX_SLOT(ctx, 16);
	return (struct sock *)TT_CTX_SLOT(ctx, 32);
}

/* accept() returned child, whose entry is s, to process tgid (traced, or
 * else the entry's owner): listener_on_touch's work, flags aside. inet_accept
 * locks the child only after inet_csk_accept returns, and the peer's FIN
 * (a client that shuts down at once) may be moving it on another CPU
 * meanwhile, in a program that rewrites flags whole: a write of flags
 * here could be lost there, and the close's touch count conn_in again.
 * So this writes the owner and counts, then says so, last, in a byte
 * that only it sets; a program that holds the lock takes it into flags
 * (accept_settle). */
static __always_inline void accept_names(const struct sock *child, struct tt_sock *s, __u32 tgid)
{
	__u8 done = TT_ACCEPTED;
	struct tt_proc_counters *c;
	__u16 flags = s->flags;
	__u32 since = s->since_us;

	if (!sock_awaits_touch(s))
		return;
	if (!(flags & TT_SK_PROVISIONAL)) {
		if (tgid != s->tgid)
			listener_mark_shared(child);
	} else {
		if (tgid != s->tgid) {
			proc_count_sockets(s->slot, -1);
			s->tgid = tgid;
			s->slot = TT_NO_SLOT;
		}
		c = sock_counters(s);
		if (c && (flags & (TT_SK_ESTABLISHED | TT_SK_COUNTED)) == TT_SK_ESTABLISHED)
			tt_bump(&c->conn[TT_SIDE_IN]);
		if (c && child->__sk_common.skc_state == TCP_ESTABLISHED && !(flags & TT_SK_OPEN)) {
			tt_bump(&c->opened[TT_SIDE_IN]);
			done |= TT_ACCEPTED_OPEN;
		}
	}
	/* Queued at its move to ESTABLISHED (listener_follow_child), it has waited
	 * until now: its accept wait. */
	if (flags & TT_SK_TIMED)
		times_count_accept_wait(s, times_now_us() - since);
	barrier();
	s->accepted = done;
}

/* What accept_names did, into the flags of sk's entry s, by a program
 * that holds the socket's lock, before it reads them. Until then the
 * entry awaits its touch (sock_awaits_touch), which no program gives meanwhile:
 * every one that touches settles first, and the read hook, which does
 * not, is not attached where accept() is traced. */
static __always_inline void accept_settle(const struct sock *sk, struct tt_sock *s)
{
	__u8 done;
	__u16 flags;

	if (!acceptors_at_accept)
		return;
	done = s->accepted;
	if (!done)
		return;
	flags = s->flags | TT_SK_TOUCHED;
	if (flags & TT_SK_PROVISIONAL) {
		flags &= ~TT_SK_PROVISIONAL;
		if (flags & TT_SK_ESTABLISHED)
			flags |= TT_SK_COUNTED;
		if (done & TT_ACCEPTED_OPEN)
			flags |= TT_SK_OPEN;
	}
	if (flags & TT_SK_TIMED) {
		flags &= ~TT_SK_TIMED;
		s->rst_reason = 0;
	}
	s->flags = flags;
	s->accepted = 0;
	__sync_fetch_and_add(&untouched_slots[sock_filter_slot_of(sk)], -1);
}

/* accept() returned child from listener to the current process. A child
 * of a traced listener is followed from its handshake on, waiting for this
 * touch, which names its acceptor and counts conn_in (accept_names). One
 * not followed yet is still in SYN_RECV: a Fast Open child, which is
 * queued at the SYN, or one that a busy acceptor took between its
 * queueing and its move to ESTABLISHED. It is followed from now on as the
 * acceptor's, its conn_in counted at that move (conn_on_set_state). */
static __always_inline void accept_on_return(const struct sock *listener, struct sock *child)
{
	__u32 tgid = proc_current_tgid();
	struct tt_listener_key key;
	struct tt_listener *owner;
	struct tt_sock *s;

	s = sock_find_or_adopt(child);
	if (s) {
		accept_names(child, s, proc_current_is_traced(tgid) ? tgid : s->tgid);
		return;
	}
	if (child->__sk_common.skc_state != TCP_SYN_RECV || !sock_is_inet_tcp(child))
		return;
	listener_key_of(listener, sk_netns_of(listener), &key);
	owner = bpf_map_lookup_elem(&listeners, &key);
	if (!owner)
		return;
	if (!proc_current_is_traced(tgid))
		tgid = owner->tgid;
	sock_track_sk(child, tgid, proc_slot_of(tgid), TT_SIDE_IN,
	      TT_SK_ESTABLISHED | TT_SK_TOUCHED | TT_SK_ACCEPTED_EARLY);
}

/* Where accept() is not traced, the process that accepts from a listener
 * is its owner's only while no other holds it. A new process, in its
 * parent's fork: each listener the parent listens on is now held by the
 * child too, and its connections wait for their acceptor from now on. */
static __always_inline void accept_note_fork(__u32 parent)
{
	struct tt_listening *l = bpf_map_lookup_elem(&listening_tgids, &parent);
	bool newly = false;
	__u32 n;

	if (!l)
		return;
	n = l->n;
	for (__u32 i = 0; i < TT_LISTENING_KEYS && i < n; i++) {
		struct tt_listener *owner = bpf_map_lookup_elem(&listeners, &l->keys[i]);

		if (owner && owner->tgid == parent && !(owner->flags & TT_LISTENER_SHARED)) {
			owner->flags |= TT_LISTENER_SHARED;
			newly = true;
		}
	}
	if (newly)
		sharing_tell(parent, TT_SHARED_BY_FORK);
}

/* An entry found at a child's move from SYN_RECV to ESTABLISHED was left
 * at its address by a socket whose end went unseen, unless accept_on_return made
 * it for this child: kept then, once. */
static __always_inline bool accept_made_at(struct tt_sock *s)
{
	if (!(s->flags & TT_SK_ACCEPTED_EARLY))
		return false;
	s->flags &= ~TT_SK_ACCEPTED_EARLY;
	return true;
}

#endif /* TT_ACCEPT_BPF_H */
