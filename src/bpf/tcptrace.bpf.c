// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Per-process TCP accounting in the kernel: who owns each socket, how each
 * connection ended, the timewait sockets it left, and failed connects.
 *
 * Ownership is remembered per socket, never taken from whatever task is on
 * the CPU: most state changes run in softirq context, where on loopback the
 * current task is often the peer. A socket gets its owner when a syscall of
 * the owner creates it (connect, listen), from its listener when it is
 * accepted, or from the seeds user space wrote for sockets that existed
 * before start-up. Counters are cumulative, per process, per CPU. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "compat.bpf.h"
#include "tcptrace.h"

#define AF_INET 2
#define AF_INET6 10
#define ECONNRESET 104
#define ETIMEDOUT 110
#define ECONNREFUSED 111
#define CLONE_THREAD 0x00010000

/* Set by user space between open and load: every process, or the ones
 * --pid names by PID (traced_pids) and by name (traced_comms). */
const volatile bool trace_all = true;
const volatile bool trace_pids = false;
const volatile bool trace_comms = false;
const volatile bool by_dest = false; /* --by dest: also count per destination */
const volatile bool by_cgroup = false; /* --by cgroup: slots keep their cgroup's id */
/* --cgroup or --unit: only processes in scope_cgroups' cgroup or below it;
 * --netns: only processes in the network namespace of this inode. */
const volatile bool scope_cgroup = false;
const volatile __u32 scope_netns = 0;
/* fexit/inet_csk_accept is loaded (accept.bpf.h): acceptors are named at
 * accept(), not at a read. */
const volatile bool acceptors_at_accept = false;

#include "maps.bpf.h"
#include "procs.bpf.h"
#include "socks.bpf.h"
#include "times.bpf.h"
#include "dests.bpf.h"
#include "queues.bpf.h"
#include "sharing.bpf.h"
#include "listeners.bpf.h"
#include "accept.bpf.h"
#include "timewait.bpf.h"
#include "rsts.bpf.h"
#include "nested.bpf.h"

/* Count how a connection ended, once, when its socket goes away (or is
 * reused by a new connect). Not at the move to CLOSE: an abort (close with
 * unread data, SO_LINGER 0) sends its RST after the state change. */
static __always_inline void finish(const struct sock *sk, struct net *net, struct tt_sock *s)
{
	struct tt_proc_counters *c;
	struct tt_dest_counters *d;
	__u8 side = s->side & 1;

	open_ends(s);
	if (!(s->flags & TT_SK_ESTABLISHED))
		return;
	c = counters_of_sock(s);
	if (!c)
		return;
	d = dest_of(sk, net, s);
	if (!(s->flags & TT_SK_COUNTED)) {
		bump(&c->conn[side]);
		if (d)
			bump(&d->conn);
	}
	/* An RST we send wins: on data arriving after shutdown the kernel
	 * runs its RST-received path and then sends the RST itself. */
	if (s->flags & TT_SK_RST_SENT) {
		bump(&c->rst_sent[side]);
		if (d)
			bump(&d->rst_sent);
		count_reason(s);
	} else if (s->flags & TT_SK_RST_RECV) {
		bump(&c->rst_recv[side]);
		if (d)
			bump(&d->rst_recv);
	} else if (s->flags & TT_SK_FIN_FIRST) {
		bump(&c->fin_active[side]);
		if (d)
			bump(&d->fin_active);
		if (s->flags & TT_SK_TW) {
			bump(&c->tw[side]);
			if (d)
				bump(&d->tw);
		}
	} else if (s->flags & TT_SK_FIN_PEER) {
		bump(&c->fin_passive[side]);
		if (d)
			bump(&d->fin_passive);
	} else {
		bump(&c->timeout[side]);
		if (d)
			bump(&d->timeout);
	}
}

/* A connect() leaving SYN_SENT: every segment it sent again was its SYN
 * (tcp_sock's total_retrans counts them as TcpExtTCPSynRetrans does, on
 * every kernel), each one a wait of a second or more. */
static __always_inline void count_syn_retrans(const struct sock *sk, struct tt_sock *s)
{
	struct tcp_sock *tp = bpf_skc_to_tcp_sock((void *)sk);
	struct tt_proc_counters *c;
	__u32 n = tp ? tp->total_retrans : 0;

	if (!n)
		return;
	c = counters_of_sock(s);
	if (c)
		__sync_fetch_and_add(&c->syn_retrans, n);
}

/* A connect() leaving SYN_SENT: the word that held its start goes back to
 * the RST's reason. True, with its time in *us, when it reached
 * ESTABLISHED and its start was seen (not a connect from before start-up). */
static __always_inline bool connect_ends(struct tt_sock *s, int newstate, __u32 *us)
{
	/* A failed connect reads no clock. */
	if (newstate != TCP_ESTABLISHED) {
		rst_reason_set(s, 0);
		return false;
	}
	return timed_end(s, us);
}

/* A connect() that reached ESTABLISHED after us microseconds. */
static __always_inline void count_connect_time(struct tt_sock *s, __u32 us,
					       struct tt_dest_counters *d)
{
	__u64 i = count_wait(slot_of_sock(s), us, WAIT_CONNECT);

	if (i >= TT_CONNECT_BUCKETS)
		return;
	barrier_var(i);
	if (d) {
		bump(&d->connect_le[i]);
		__sync_fetch_and_add(&d->connect_us, us);
	}
}

/* Why a connect() that got a port failed: the error it returns, set
 * before the move to CLOSE (tcp_reset, tcp_write_err, tcp_v4_err), none
 * when the process closed it first (close, connect(AF_UNSPEC)). */
static __always_inline __u32 connfail_cause(const struct sock *sk)
{
	int err = sk->sk_err;

	if (err == ECONNREFUSED)
		return TT_CONNFAIL_REFUSED;
	if (err == ETIMEDOUT)
		return TT_CONNFAIL_TIMEOUT;
	if (err)
		return TT_CONNFAIL_UNREACH;
	return TT_CONNFAIL_ABANDONED;
}

static __always_inline void on_connect(const struct sock *sk, struct net *net)
{
	__u32 tgid = current_tgid();
	struct tt_sock *old = find(sk), *s;

	if (old) {
		settle_accept(sk, old);
		touch(sk, old); /* connect() after connect(AF_UNSPEC) by its owner */
		finish(sk, net, old);
		forget(sk);
	}
	/* Most connects on a machine are of processes not traced: the
	 * verdict, one lookup, comes before the socket's two reads. */
	if (!current_is_traced(tgid) || !is_inet_tcp(sk))
		return;
	s = track(sk, tgid, slot_of_process(tgid), TT_SIDE_OUT, 0);
	if (s) {
		timed_from_now(s);
	}
}

/* Which side sent its FIN first, from the first change that tells: the
 * kernel may skip a program for one event (it never runs one twice at
 * once on a CPU), and the changes after it still tell. */
static __always_inline void note_who_closed_first(struct tt_sock *s, int oldstate, int newstate)
{
	bool ours = newstate == TCP_FIN_WAIT1 ||
		    (newstate == TCP_CLOSE && (oldstate == TCP_FIN_WAIT1 ||
					       oldstate == TCP_FIN_WAIT2 || oldstate == TCP_CLOSING));
	bool peers = newstate == TCP_CLOSE_WAIT || newstate == TCP_LAST_ACK ||
		     (newstate == TCP_CLOSE && (oldstate == TCP_CLOSE_WAIT ||
						oldstate == TCP_LAST_ACK));

	if (s->flags & (TT_SK_FIN_FIRST | TT_SK_FIN_PEER))
		return;
	if (ours)
		s->flags |= TT_SK_FIN_FIRST;
	else if (peers)
		s->flags |= TT_SK_FIN_PEER;
}

/* The active closer's socket moves to CLOSE when the kernel hands the
 * connection to a timewait socket, which never shows up as a state change
 * of its own: look for it, and tell user space its owner. */
static __always_inline bool left_timewait(const struct sock *sk, struct net *net,
					  struct tt_sock *s)
{
	struct inet_timewait_death_row *dr = death_row_of(net);
	const struct sock_common *me = &sk->__sk_common;
	struct inet_hashinfo *hinfo = dr->hashinfo;
	__u16 lport = sk_local_port_of(sk);
	struct tt_tw_key key = {};
	__u64 found;

	found = timewait_find(addr_of(sk), addr_of(hinfo->ehash), hinfo->ehash_mask, me->skc_hash,
			      lport);
	if (!found)
		return false;
	s->flags |= TT_SK_TW;
	flow_of(me, net_inum(net), lport, &key.flow);
	key.snd_nxt = (__u32)found;
	record_tw_owner(&key, s);
	return true;
}

static __always_inline void on_close(const struct sock *sk, struct net *net,
				     struct tt_sock *s, int oldstate)
{
	int err;

	if (oldstate == TCP_SYN_SENT) {
		struct tt_proc_counters *c = counters_of_sock(s);
		struct tt_dest_counters *d = dest_of(sk, net, s);

		if (!c)
			return;
		/* No local port was ever assigned: inet_hash_connect found
		 * none free and connect() returns EADDRNOTAVAIL. */
		if (sk_local_port_of(sk) == 0) {
			bump(&c->eaddrnotavail);
			if (d)
				bump(&d->eaddrnotavail);
		} else {
			__u32 cause = connfail_cause(sk);

			bump(&c->connfail);
			bump(&c->connfail_by[cause]);
			if (d) {
				bump(&d->connfail);
				bump(&d->connfail_by[cause]);
			}
		}
		return;
	}
	if (s->flags & (TT_SK_RST_SENT | TT_SK_RST_RECV))
		return;
	if (oldstate != TCP_FIN_WAIT1 && oldstate != TCP_FIN_WAIT2 && oldstate != TCP_CLOSING)
		return;
	if (left_timewait(sk, net, s))
		return;
	/* No timewait socket: either the kernel's timewait table is full
	 * (tcp_max_tw_buckets), or data reached the socket after close(),
	 * which the kernel answers with an RST once the socket is destroyed,
	 * too late for the socket table (see rsts_after_end). A timeout sets sk_err. */
	err = sk->sk_err;
	if (oldstate != TCP_CLOSING && !err && !death_row_full(death_row_of(net))) {
		s->flags |= TT_SK_RST_SENT | TT_SK_RST_AHEAD;
		rst_reason_set(s, reason_abort_on_data());
	}
}

static __always_inline void on_set_state(struct sock *sk, int oldstate, int newstate)
{
	bool timed = false;
	struct net *net;
	struct tt_sock *s;
	__u32 us = 0;

	/* Half of all changes say nothing tcptrace counts: leave at once. */
	if (newstate == TCP_FIN_WAIT2 || newstate == TCP_CLOSING || newstate == TCP_SYN_RECV)
		return;
	net = sk_net_of(sk);

	/* These three run in the syscall of the process that owns the socket. */
	if (newstate == TCP_SYN_SENT) {
		on_connect(sk, net);
		return;
	}
	if (newstate == TCP_LISTEN) {
		if (is_inet_tcp(sk))
			on_listen(sk, net);
		return;
	}
	if (oldstate == TCP_LISTEN) {
		if (newstate == TCP_CLOSE)
			on_unlisten(sk, net);
		return;
	}

	s = lookup_sock(sk);
	/* A connection just accepted has no entry of its own yet: one found
	 * was left at this address by a socket whose end went unseen, and
	 * the new one must not take its owner. */
	if (s && oldstate == TCP_SYN_RECV && newstate == TCP_ESTABLISHED && !made_at_accept(s)) {
		if (s->flags & TT_SK_ESTABLISHED)
			__sync_fetch_and_add(&ends_unseen, 1);
		forget(sk);
		s = NULL;
	}
	if (!s) {
		if (oldstate != TCP_SYN_RECV)
			return;
		if (newstate == TCP_ESTABLISHED) {
			adopt_child(sk, net);
			return;
		}
		/* Closed before the handshake ended: handled below as a
		 * followed socket's same move would be. */
		s = adopt_fastopen_child(sk, net, newstate);
		if (!s)
			return;
	}
	settle_accept(sk, s);

	note_who_closed_first(s, oldstate, newstate);
	if (oldstate == TCP_SYN_SENT) {
		count_syn_retrans(sk, s);
		timed = connect_ends(s, newstate, &us);
	}
	switch (newstate) {
	case TCP_ESTABLISHED:
		s->flags |= TT_SK_ESTABLISHED;
		if (!(s->flags & TT_SK_PROVISIONAL)) {
			struct tt_proc_counters *c = counters_of_sock(s);
			struct tt_dest_counters *d = dest_of(sk, net, s);

			if (c)
				bump(&c->conn[s->side & 1]);
			if (d)
				bump(&d->conn);
			if (timed)
				count_connect_time(s, us, d);
			s->flags |= TT_SK_COUNTED;
			if (c)
				open_begins(s, c);
		}
		break;
	case TCP_FIN_WAIT1: /* close() or shutdown() by the owner */
	case TCP_LAST_ACK:
		touch(sk, s);
		break;
	case TCP_CLOSE:
		s->flags |= TT_SK_CLOSED;
		on_close(sk, net, s, oldstate);
		break;
	}
	if (oldstate == TCP_ESTABLISHED)
		open_ends(s);
}

/* Every connection's birth, close and end passes here: the one hook that
 * sees them all. */
SEC("tp_btf/inet_sock_set_state")
int BPF_PROG(handle_set_state, struct sock *sk, int oldstate, int newstate)
{
	note_event(TT_HOOK_SET_STATE, sk, event_what(oldstate, newstate));
	on_set_state(sk, oldstate, newstate);
	return 0;
}

SEC("tp_btf/inet_sock_set_state")
int BPF_PROG(catch_set_state, struct sock *sk, int oldstate, int newstate)
{
	if (skipped_by_primary(TT_HOOK_SET_STATE, sk, event_what(oldstate, newstate)))
		on_set_state(sk, oldstate, newstate);
	return 0;
}

/* RSTs sent and their reasons: no state change says that an RST left. */
SEC("tp_btf/tcp_send_reset")
int BPF_PROG(handle_send_reset, const struct sock *sk, const struct sk_buff *skb, __u32 reason)
{
	note_event(TT_HOOK_SEND_RESET, skb, event_what(0, 0));
	on_send_reset(sk, skb, reason);
	return 0;
}

SEC("tp_btf/tcp_send_reset")
int BPF_PROG(catch_send_reset, const struct sock *sk, const struct sk_buff *skb, __u32 reason)
{
	if (skipped_by_primary(TT_HOOK_SEND_RESET, skb, event_what(0, 0)))
		on_send_reset(sk, skb, reason);
	return 0;
}

/* Kernels before 6.10: the tracepoint has no reason argument, and reading
 * one would make the attach fail. User space loads one of the two. */
SEC("tp_btf/tcp_send_reset")
int BPF_PROG(handle_send_reset_noreason, const struct sock *sk, const struct sk_buff *skb)
{
	note_event(TT_HOOK_SEND_RESET, skb, event_what(0, 0));
	on_send_reset(sk, skb, TT_REASON_UNKNOWN);
	return 0;
}

SEC("tp_btf/tcp_send_reset")
int BPF_PROG(catch_send_reset_noreason, const struct sock *sk, const struct sk_buff *skb)
{
	if (skipped_by_primary(TT_HOOK_SEND_RESET, skb, event_what(0, 0)))
		on_send_reset(sk, skb, TT_REASON_UNKNOWN);
	return 0;
}

static __always_inline void on_receive_reset(struct sock *sk)
{
	struct tt_sock *s = lookup_sock(sk);

	if (s)
		s->flags |= TT_SK_RST_RECV;
}

/* An RST received: the move to CLOSE that follows looks like any other. */
SEC("tp_btf/tcp_receive_reset")
int BPF_PROG(handle_receive_reset, struct sock *sk)
{
	note_event(TT_HOOK_RECEIVE_RESET, sk, event_what(0, 0));
	on_receive_reset(sk);
	return 0;
}

SEC("tp_btf/tcp_receive_reset")
int BPF_PROG(catch_receive_reset, struct sock *sk)
{
	if (skipped_by_primary(TT_HOOK_RECEIVE_RESET, sk, event_what(0, 0)))
		on_receive_reset(sk);
	return 0;
}

/* SYN-ACKs sent again: a client's ACK that did not come in time, or a
 * SYN that came again. Runs at a retransmission only. */
SEC("tp_btf/tcp_retransmit_synack")
int BPF_PROG(handle_retransmit_synack, struct sock *sk, struct request_sock *req)
{
	on_synack_retrans(sk, req);
	return 0;
}

/* Not attached with the others: user space runs it once per network
 * namespace at seeding (seed.c), on the TCP sockets of the namespace it
 * was started in. One byte out at the first socket that is no listener
 * tells the reader it may stop there. */
SEC("iter/tcp")
int seed_listener_addresses(struct bpf_iter__tcp *ctx)
{
	struct sock_common *skc = ctx->sk_common;
	char end = 0;

	if (skc && !listener_met(skc))
		bpf_seq_write(ctx->meta->seq, &end, 1);
	return 0;
}

/* Packets freed as dropped, with the socket that received them (6.11+;
 * user space loads it only there): to tell a listener's drops that were
 * connection attempts from the others. Runs at every drop on the machine;
 * most leave at the first test. */
SEC("tp_btf/kfree_skb")
int BPF_PROG(handle_kfree_skb, struct sk_buff *skb, void *location, enum skb_drop_reason reason,
	     struct sock *rx_sk)
{
	on_kfree_skb(skb, (__u64)location, reason, rx_sk);
	return 0;
}

/* accept(), in the acceptor's own syscall, where the kernel has BPF
 * trampolines (user space probes it before load): every accepted
 * connection's acceptor, once per connection. */
SEC("fexit/inet_csk_accept")
int BPF_PROG(handle_accept, struct sock *listener)
{
	struct sock *child = accepted_child(ctx);

	if (child)
		on_accept(listener, child);
	return 0;
}

/* tcp_recvmsg, in the reader's own syscall: the first touch of an accepted
 * socket that is read before it is closed (see on_touch), where accept()
 * is not traced. It runs on every read of every TCP socket, most of which
 * leave at the first test (connect()ed sockets) or at the filter: user
 * space attaches it only while a traced listener is shared
 * (sharing.bpf.h). Then conn_in stays exact at every snapshot: without
 * it, a connection from a shared listener that stays open (a proxy's idle
 * upstream pool) would be counted only at its close. */
SEC("tp_btf/tcp_rcv_space_adjust")
int BPF_PROG(handle_rcv_space_adjust, struct sock *sk)
{
	__u64 key;
	struct tt_sock *s;

	if (cannot_await_acceptor(sk) || !may_be_followed(sk))
		return 0;
	key = addr_of(sk);
	if (!untouched_slots[filter_slot(key)])
		return 0;
	s = entry_at(sock_entry_find(key));
	if (s)
		touch(sk, s);
	return 0;
}

/* A process named anew (exec, prctl PR_SET_NAME), before the kernel
 * stores the name: the verdict follows the new name. Only the thread group
 * leader's name is the process name. */
SEC("tp_btf/task_rename")
int BPF_PROG(handle_task_rename, struct task_struct *task, const char *name)
{
	char comm[TT_COMM_LEN] = {};
	__u32 pid = task->pid;
	__u32 tgid = task->tgid;
	__u8 traced;

	if (pid != tgid)
		return 0;
	bpf_probe_read_kernel_str(&comm, sizeof(comm), name);
	traced = named_by_pid_option(tgid, &comm);
	bpf_map_update_elem(&verdicts, &tgid, &traced, BPF_ANY);
	/* Over a name recorded before: the row takes the new one. */
	if (traced) {
		__u32 *slot = bpf_map_lookup_elem(&proc_slots, &tgid);
		struct tt_slot_owner *owner = slot ? bpf_map_lookup_elem(&slot_owners, slot) : NULL;

		bpf_map_update_elem(&proc_comms, &tgid, &comm, BPF_ANY);
		if (owner)
			__builtin_memcpy(owner->comm, comm, TT_COMM_LEN);
	}
	__sync_fetch_and_add(&procs_gen, 1);
	return 0;
}

/* A new process: its tgid may be that of one gone, whose row and verdict
 * it must not take, and whose task may not be freed yet
 * (handle_process_free). A new thread changes nothing. */
SEC("tp_btf/task_newtask")
int BPF_PROG(handle_task_newtask, struct task_struct *task, __u64 clone_flags)
{
	if (!(clone_flags & CLONE_THREAD)) {
		process_gone(task->tgid, 0);
		forget_listening(task->tgid);
		note_fork(current_tgid());
	}
	return 0;
}

/* A process's end: its thread group leader is freed once every thread has
 * gone and the process has been reaped, after its files were closed. Its
 * PID may then be given to a new process, which must not inherit its row.
 * Runs at every thread's end, a few per fork. */
SEC("tp_btf/sched_process_free")
int BPF_PROG(handle_process_free, struct task_struct *task)
{
	__u32 pid = task->pid;
	__u32 tgid = task->tgid;

	if (pid == tgid) {
		process_gone(tgid, task->start_time);
		forget_listening(tgid);
	}
	return 0;
}

static __always_inline void on_destroy_sock(struct sock *sk)
{
	struct net *net = sk_net_of(sk);
	__u32 entry = lookup_entry(sk);
	struct tt_sock *s = entry_at(entry);

	if (!s) {
		if (listeners_stopping)
			listener_destroyed(sk);
		return;
	}
	settle_accept(sk, s);
	if (s->flags & TT_SK_SEED_RACE)
		drop_seed(sk);
	/* Untouched, the socket is not orphaned: only its holder's close()
	 * destroys it, in that process (see on_touch). */
	if (awaits_touch(s) && !is_unaccepted_child(sk, net))
		touch(sk, s);
	if (s->flags & TT_SK_RST_AHEAD)
		expect_rst_after_end(sk);
	/* Its move to CLOSE went unseen (the kernel skipped the program): the
	 * timewait socket it would have found is there still. */
	if ((s->flags & (TT_SK_CLOSED | TT_SK_FIN_FIRST | TT_SK_RST_SENT | TT_SK_RST_RECV)) ==
	    TT_SK_FIN_FIRST)
		left_timewait(sk, net, s);
	finish(sk, net, s);
	forget_found(sk, entry);
}

/* A connection's end is counted at its socket's destruction, after any
 * RST that its move to CLOSE brings. */
SEC("tp_btf/tcp_destroy_sock")
int BPF_PROG(handle_destroy_sock, struct sock *sk)
{
	note_event(TT_HOOK_DESTROY, sk, event_what(0, 0));
	on_destroy_sock(sk);
	return 0;
}

SEC("tp_btf/tcp_destroy_sock")
int BPF_PROG(catch_destroy_sock, struct sock *sk)
{
	if (skipped_by_primary(TT_HOOK_DESTROY, sk, event_what(0, 0)))
		on_destroy_sock(sk);
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
