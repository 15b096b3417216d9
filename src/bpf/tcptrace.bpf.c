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
#include "settings.bpf.h"
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
#include "retrans.bpf.h"
#include "nested.bpf.h"
#include "syscalls.bpf.h"

/* Count how a connection ended, once, when its socket goes away (or is
 * reused by a new connect). Not at the move to CLOSE: an abort (close with
 * unread data, SO_LINGER 0) sends its RST after the state change. */
static __always_inline void conn_finish(const struct sock *sk, struct net *net, struct tt_sock *s)
{
	struct tt_proc_counters *c;
	struct tt_dest_counters *d;
	__u8 side = s->side & 1;

	sock_open_ends(s);
	if (!(s->flags & TT_SK_ESTABLISHED)) {
		retrans_seen_drop(sk, s);
		return;
	}
	c = sock_counters(s);
	if (!c)
		return;
	d = dest_of(sk, net, s);
	if (!(s->flags & TT_SK_COUNTED)) {
		tt_bump(&c->conn[side]);
		if (d)
			tt_bump(&d->conn);
	}
	retrans_count_sent(sk, s, c, d, side);
	/* An RST we send wins: on data arriving after shutdown the kernel
	 * runs its RST-received path and then sends the RST itself. */
	if (s->flags & TT_SK_RST_SENT) {
		tt_bump(&c->rst_sent[side]);
		if (d)
			tt_bump(&d->rst_sent);
		rst_count_reason(s);
	} else if (s->flags & TT_SK_RST_RECV) {
		tt_bump(&c->rst_recv[side]);
		if (d)
			tt_bump(&d->rst_recv);
	} else if (s->flags & TT_SK_FIN_FIRST) {
		tt_bump(&c->fin_active[side]);
		if (d)
			tt_bump(&d->fin_active);
		if (s->flags & TT_SK_TW) {
			tt_bump(&c->tw[side]);
			if (d)
				tt_bump(&d->tw);
		}
	} else if (s->flags & TT_SK_FIN_PEER) {
		tt_bump(&c->fin_passive[side]);
		if (d)
			tt_bump(&d->fin_passive);
	} else {
		tt_bump(&c->timeout[side]);
		if (d)
			tt_bump(&d->timeout);
	}
}

/* A connect() leaving SYN_SENT: every segment it sent again was its SYN
 * (tcp_sock's total_retrans counts them as TcpExtTCPSynRetrans does, on
 * every kernel), each one a wait of a second or more. */
static __always_inline void conn_count_syn_retrans(const struct sock *sk, struct tt_sock *s)
{
	struct tcp_sock *tp = bpf_skc_to_tcp_sock((void *)sk);
	struct tt_proc_counters *c;
	__u32 n = tp ? tp->total_retrans : 0;

	if (!n)
		return;
	retrans_seen_set(sk, s, n);
	c = sock_counters(s);
	if (c)
		__sync_fetch_and_add(&c->syn_retrans, n);
}

/* A connect() leaving SYN_SENT: the word that held its start goes back to
 * the RST's reason. True, with its time in *us, when it reached
 * ESTABLISHED and its start was seen (not a connect from before start-up). */
static __always_inline bool conn_connect_ends(struct tt_sock *s, int newstate, __u32 *us)
{
	/* A failed connect reads no clock. */
	if (newstate != TCP_ESTABLISHED) {
		times_rst_reason_set(s, 0);
		return false;
	}
	return times_end(s, us);
}

/* A connect() that reached ESTABLISHED after us microseconds. */
static __always_inline void conn_count_connect_time(struct tt_sock *s, __u32 us,
					       struct tt_dest_counters *d)
{
	__u64 i = times_count_wait(sock_proc_slot(s), us, WAIT_CONNECT);

	if (i >= TT_CONNECT_BUCKETS)
		return;
	barrier_var(i);
	if (d) {
		tt_bump(&d->connect_le[i]);
		__sync_fetch_and_add(&d->connect_us, us);
	}
}

/* Why a connect() that got a port failed: the error it returns, set
 * before the move to CLOSE (tcp_reset, tcp_write_err, tcp_v4_err), none
 * when the process closed it first (close, connect(AF_UNSPEC)). */
static __always_inline __u32 conn_connfail_cause(const struct sock *sk)
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

static __always_inline void conn_on_connect(const struct sock *sk, struct net *net)
{
	__u32 tgid = proc_current_tgid();
	struct tt_sock *old = sock_find(sk), *s;

	if (old) {
		/* Else the sweep at exit has said its end was not counted. */
		if (!(old->side & TT_SOCK_GONE)) {
			accept_settle(sk, old);
			listener_touch(sk, old); /* connect() after connect(AF_UNSPEC) by its owner */
			conn_finish(sk, net, old);
		}
		sock_forget_sk(sk);
	}
	/* Most connects on a machine are of processes not traced: the
	 * verdict, one lookup, comes before the socket's two reads. */
	if (!proc_current_is_traced(tgid) || !sock_is_inet_tcp(sk))
		return;
	s = sock_track_sk(sk, tgid, proc_slot_of(tgid), TT_SIDE_OUT, 0);
	if (s) {
		times_start_now(s);
	}
}

/* Which side sent its FIN first, from the first change that tells: the
 * kernel may skip a program for one event (it never runs one twice at
 * once on a CPU), and the changes after it still tell. */
static __always_inline void conn_note_who_closed_first(struct tt_sock *s, int oldstate, int newstate)
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
static __always_inline bool conn_left_timewait(const struct sock *sk, struct net *net,
					  struct tt_sock *s)
{
	struct inet_timewait_death_row *dr = death_row_of(net);
	const struct sock_common *me = &sk->__sk_common;
	struct inet_hashinfo *hinfo = dr->hashinfo;
	__u16 lport = sk_local_port_of(sk);
	struct tt_tw_key key = {};
	__u64 found;

	found = timewait_find(tt_addr_of(sk), tt_addr_of(hinfo->ehash), hinfo->ehash_mask, me->skc_hash,
			      lport);
	if (!found)
		return false;
	s->flags |= TT_SK_TW;
	sock_flow_of(me, net_inum(net), lport, &key.flow);
	key.snd_nxt = (__u32)found;
	timewait_record_owner(&key, s);
	return true;
}

static __always_inline void conn_on_close(const struct sock *sk, struct net *net,
				     struct tt_sock *s, int oldstate)
{
	int err;

	if (oldstate == TCP_SYN_SENT) {
		struct tt_proc_counters *c = sock_counters(s);
		struct tt_dest_counters *d = dest_of(sk, net, s);

		if (!c)
			return;
		/* No local port was ever assigned: inet_hash_connect found
		 * none free and connect() returns EADDRNOTAVAIL. */
		if (sk_local_port_of(sk) == 0) {
			tt_bump(&c->eaddrnotavail);
			if (d)
				tt_bump(&d->eaddrnotavail);
		} else {
			__u32 cause = conn_connfail_cause(sk);

			tt_bump(&c->connfail);
			tt_bump(&c->connfail_by[cause]);
			if (d) {
				tt_bump(&d->connfail);
				tt_bump(&d->connfail_by[cause]);
			}
		}
		return;
	}
	if (s->flags & (TT_SK_RST_SENT | TT_SK_RST_RECV))
		return;
	if (oldstate != TCP_FIN_WAIT1 && oldstate != TCP_FIN_WAIT2 && oldstate != TCP_CLOSING)
		return;
	if (conn_left_timewait(sk, net, s))
		return;
	/* No timewait socket: either the kernel's timewait table is full
	 * (tcp_max_tw_buckets), or data reached the socket after close(),
	 * which the kernel answers with an RST once the socket is destroyed,
	 * too late for the socket table (see rsts_after_end). A timeout sets sk_err. */
	err = sk->sk_err;
	if (oldstate != TCP_CLOSING && !err && !death_row_full(death_row_of(net))) {
		s->flags |= TT_SK_RST_SENT | TT_SK_RST_AHEAD;
		times_rst_reason_set(s, rst_reason_abort_on_data());
	}
}

static __always_inline void conn_on_set_state(struct sock *sk, int oldstate, int newstate)
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
		conn_on_connect(sk, net);
		return;
	}
	if (newstate == TCP_LISTEN) {
		if (sock_is_inet_tcp(sk))
			listener_on_listen(sk, net);
		return;
	}
	if (oldstate == TCP_LISTEN) {
		if (newstate == TCP_CLOSE)
			listener_on_unlisten(sk, net);
		return;
	}

	s = sock_find_or_adopt(sk);
	/* A connection just accepted has no entry of its own yet: one found
	 * was left at this address by a socket whose end went unseen, and
	 * the new one must not take its owner. */
	if (s && oldstate == TCP_SYN_RECV && newstate == TCP_ESTABLISHED && !accept_made_at(s)) {
		if (sock_end_unseen(s->flags, s->side))
			__sync_fetch_and_add(&ends_unseen, 1);
		sock_forget_sk(sk);
		s = NULL;
	}
	if (!s) {
		if (oldstate != TCP_SYN_RECV)
			return;
		if (newstate == TCP_ESTABLISHED) {
			listener_adopt_child(sk, net);
			return;
		}
		/* Closed before the handshake ended: handled below as a
		 * followed socket's same move would be. */
		s = listener_adopt_fastopen_child(sk, net, newstate);
		if (!s)
			return;
	}
	accept_settle(sk, s);

	conn_note_who_closed_first(s, oldstate, newstate);
	if (oldstate == TCP_SYN_SENT) {
		conn_count_syn_retrans(sk, s);
		timed = conn_connect_ends(s, newstate, &us);
	}
	switch (newstate) {
	case TCP_ESTABLISHED:
		s->flags |= TT_SK_ESTABLISHED;
		if (!(s->flags & TT_SK_PROVISIONAL)) {
			struct tt_proc_counters *c = sock_counters(s);
			struct tt_dest_counters *d = dest_of(sk, net, s);

			if (c)
				tt_bump(&c->conn[s->side & 1]);
			if (d)
				tt_bump(&d->conn);
			if (timed)
				conn_count_connect_time(s, us, d);
			s->flags |= TT_SK_COUNTED;
			if (c)
				sock_open_begins(s, c);
		}
		break;
	case TCP_FIN_WAIT1: /* close() or shutdown() by the owner */
	case TCP_LAST_ACK:
		listener_touch(sk, s);
		break;
	case TCP_CLOSE:
		s->flags |= TT_SK_CLOSED;
		conn_on_close(sk, net, s, oldstate);
		break;
	}
	if (oldstate == TCP_ESTABLISHED)
		sock_open_ends(s);
}

/* Every connection's birth, close and end passes here: the one hook that
 * sees them all. */
SEC("tp_btf/inet_sock_set_state")
int BPF_PROG(handle_set_state, struct sock *sk, int oldstate, int newstate)
{
	nested_note_event(TT_HOOK_SET_STATE, sk, nested_event_what(oldstate, newstate));
	conn_on_set_state(sk, oldstate, newstate);
	return 0;
}

SEC("tp_btf/inet_sock_set_state")
int BPF_PROG(catch_set_state, struct sock *sk, int oldstate, int newstate)
{
	if (nested_skipped_by_primary(TT_HOOK_SET_STATE, sk, nested_event_what(oldstate, newstate)))
		conn_on_set_state(sk, oldstate, newstate);
	return 0;
}

/* RSTs sent and their reasons: no state change says that an RST left. */
SEC("tp_btf/tcp_send_reset")
int BPF_PROG(handle_send_reset, const struct sock *sk, const struct sk_buff *skb, __u32 reason)
{
	nested_note_event(TT_HOOK_SEND_RESET, skb, nested_event_what(0, 0));
	rst_on_send(sk, skb, reason);
	return 0;
}

SEC("tp_btf/tcp_send_reset")
int BPF_PROG(catch_send_reset, const struct sock *sk, const struct sk_buff *skb, __u32 reason)
{
	if (nested_skipped_by_primary(TT_HOOK_SEND_RESET, skb, nested_event_what(0, 0)))
		rst_on_send(sk, skb, reason);
	return 0;
}

/* Kernels before 6.10: the tracepoint has no reason argument, and reading
 * one would make the attach fail. User space loads one of the two. */
SEC("tp_btf/tcp_send_reset")
int BPF_PROG(handle_send_reset_noreason, const struct sock *sk, const struct sk_buff *skb)
{
	nested_note_event(TT_HOOK_SEND_RESET, skb, nested_event_what(0, 0));
	rst_on_send(sk, skb, TT_REASON_UNKNOWN);
	return 0;
}

SEC("tp_btf/tcp_send_reset")
int BPF_PROG(catch_send_reset_noreason, const struct sock *sk, const struct sk_buff *skb)
{
	if (nested_skipped_by_primary(TT_HOOK_SEND_RESET, skb, nested_event_what(0, 0)))
		rst_on_send(sk, skb, TT_REASON_UNKNOWN);
	return 0;
}

static __always_inline void conn_on_receive_reset(struct sock *sk)
{
	struct tt_sock *s = sock_find_or_adopt(sk);

	if (s)
		s->flags |= TT_SK_RST_RECV;
}

/* An RST received: the move to CLOSE that follows looks like any other. */
SEC("tp_btf/tcp_receive_reset")
int BPF_PROG(handle_receive_reset, struct sock *sk)
{
	nested_note_event(TT_HOOK_RECEIVE_RESET, sk, nested_event_what(0, 0));
	conn_on_receive_reset(sk);
	return 0;
}

SEC("tp_btf/tcp_receive_reset")
int BPF_PROG(catch_receive_reset, struct sock *sk)
{
	if (nested_skipped_by_primary(TT_HOOK_RECEIVE_RESET, sk, nested_event_what(0, 0)))
		conn_on_receive_reset(sk);
	return 0;
}

/* SYN-ACKs sent again: a client's ACK that did not come in time, or a
 * SYN that came again. Runs at a retransmission only. */
SEC("tp_btf/tcp_retransmit_synack")
int BPF_PROG(handle_retransmit_synack, struct sock *sk, struct request_sock *req)
{
	listener_on_synack_retrans(sk, req);
	return 0;
}

/* Data segments sent again: runs at a retransmission only. From 6.17 the
 * tracepoint fires for a retransmission that failed too, with its error;
 * before, only for one that was sent. User space loads one of the two. */
SEC("tp_btf/tcp_retransmit_skb")
int BPF_PROG(handle_retransmit_skb, const struct sock *sk, const struct sk_buff *skb, int err)
{
	if (!err)
		retrans_on_send(sk, skb);
	return 0;
}

SEC("tp_btf/tcp_retransmit_skb")
int BPF_PROG(handle_retransmit_skb_noerr, const struct sock *sk, const struct sk_buff *skb)
{
	retrans_on_send(sk, skb);
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
	listener_on_kfree_skb(skb, (__u64)location, reason, rx_sk);
	return 0;
}

/* accept(), in the acceptor's own syscall, where the kernel has BPF
 * trampolines (user space probes it before load): every accepted
 * connection's acceptor, once per connection. */
SEC("fexit/inet_csk_accept")
int BPF_PROG(handle_accept, struct sock *listener)
{
	struct sock *child = accept_child_of(ctx);

	if (child)
		accept_on_return(listener, child);
	return 0;
}

/* tcp_recvmsg, in the reader's own syscall: the first touch of an accepted
 * socket that is read before it is closed (see listener_on_touch), where accept()
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

	if (sock_cannot_await_acceptor(sk) || !sock_may_be_followed(sk))
		return 0;
	key = tt_addr_of(sk);
	if (!untouched_slots[sock_filter_slot(key)])
		return 0;
	s = sock_entry_at(sock_index_of_key(key));
	if (s)
		listener_touch(sk, s);
	return 0;
}

/* connect() and bind(): their failures that no state change shows
 * (syscalls.bpf.h). Classic tracepoints, the only hooks of the syscalls'
 * results on every kernel; user space attaches them by their ids. */
SEC("tracepoint/syscalls/sys_exit_connect")
int handle_connect_exit(struct trace_event_raw_sys_exit *ctx)
{
	syscalls_on_connect_exit(ctx->ret, true);
	return 0;
}

SEC("tracepoint/syscalls/sys_exit_bind")
int handle_bind_exit(struct trace_event_raw_sys_exit *ctx)
{
	syscalls_on_bind_exit(ctx->ret, true);
	return 0;
}

/* Kernels before 5.15 have no bpf_task_pt_regs: the entry hooks keep the
 * arguments for the exits. User space loads one set or the other. */
SEC("tracepoint/syscalls/sys_enter_connect")
int handle_connect_enter_kept(struct trace_event_raw_sys_enter *ctx)
{
	syscalls_on_enter(ctx->args[0], ctx->args[1], ctx->args[2]);
	return 0;
}

SEC("tracepoint/syscalls/sys_exit_connect")
int handle_connect_exit_kept(struct trace_event_raw_sys_exit *ctx)
{
	syscalls_on_connect_exit(ctx->ret, false);
	return 0;
}

SEC("tracepoint/syscalls/sys_enter_bind")
int handle_bind_enter_kept(struct trace_event_raw_sys_enter *ctx)
{
	syscalls_on_enter(ctx->args[0], ctx->args[1], ctx->args[2]);
	return 0;
}

SEC("tracepoint/syscalls/sys_exit_bind")
int handle_bind_exit_kept(struct trace_event_raw_sys_exit *ctx)
{
	syscalls_on_bind_exit(ctx->ret, false);
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
	traced = proc_named_by_pid_option(tgid, &comm);
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
		proc_gone(task->tgid, 0);
		sharing_forget_listening(task->tgid);
		accept_note_fork(proc_current_tgid());
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
		proc_gone(tgid, task->start_time);
		sharing_forget_listening(tgid);
	}
	return 0;
}

static __always_inline void conn_on_destroy(struct sock *sk)
{
	struct net *net = sk_net_of(sk);
	__u32 entry = sock_index_or_adopt(sk);
	struct tt_sock *s = sock_entry_at(entry);

	if (!s) {
		if (listeners_stopping)
			listener_destroyed(sk);
		return;
	}
	accept_settle(sk, s);
	if (s->flags & TT_SK_SEED_RACE)
		sock_drop_seed(sk);
	/* Untouched, the socket is not orphaned: only its holder's close()
	 * destroys it, in that process (see listener_on_touch). */
	if (sock_awaits_touch(s) && !listener_child_unaccepted(sk, net))
		listener_touch(sk, s);
	if (s->flags & TT_SK_RST_AHEAD)
		rst_expect_after_end(sk);
	/* Its move to CLOSE went unseen (the kernel skipped the program): the
	 * timewait socket it would have found is there still. */
	if ((s->flags & (TT_SK_CLOSED | TT_SK_FIN_FIRST | TT_SK_RST_SENT | TT_SK_RST_RECV)) ==
	    TT_SK_FIN_FIRST)
		conn_left_timewait(sk, net, s);
	conn_finish(sk, net, s);
	sock_forget_found(sk, entry);
}

/* A connection's end is counted at its socket's destruction, after any
 * RST that its move to CLOSE brings. */
SEC("tp_btf/tcp_destroy_sock")
int BPF_PROG(handle_destroy_sock, struct sock *sk)
{
	nested_note_event(TT_HOOK_DESTROY, sk, nested_event_what(0, 0));
	conn_on_destroy(sk);
	return 0;
}

SEC("tp_btf/tcp_destroy_sock")
int BPF_PROG(catch_destroy_sock, struct sock *sk)
{
	if (nested_skipped_by_primary(TT_HOOK_DESTROY, sk, nested_event_what(0, 0)))
		conn_on_destroy(sk);
	return 0;
}

/* Never attached: at exit user space runs it over the socket table,
 * TT_SWEEP_BUCKETS buckets a run from the first it is given, to find the
 * entries of sockets whose destruction no program ran for (tracer_sweep).
 * A raw tracepoint program run by BPF_PROG_TEST_RUN: every kernel from
 * 5.10 on runs one on demand, where some refuse iterators over a map. */
static long sweep_step(__u32 n, void *first)
{
	return sock_sweep_bucket(*(__u32 *)first + n) ? 1 : 0;
}

SEC("raw_tp")
int sweep_sockets_gone(struct bpf_raw_tracepoint_args *ctx)
{
	__u32 first = ctx->args[0];

	bpf_loop(TT_SWEEP_BUCKETS, sweep_step, &first, 0);
	return 0;
}

/* Kernels before 5.17 have no bpf_loop: a loop the verifier walks
 * through, of fewer buckets. User space loads one of the two. */
SEC("raw_tp")
int sweep_sockets_gone_unrolled(struct bpf_raw_tracepoint_args *ctx)
{
	__u32 first = ctx->args[0];

	for (__u32 n = 0; n < TT_SWEEP_BUCKETS_UNROLLED; n++)
		if (sock_sweep_bucket(first + n))
			break;
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
