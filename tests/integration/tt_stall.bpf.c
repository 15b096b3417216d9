// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Test helper, not part of tcptrace: holds a CPU at the moment a socket of
 * one namespace and local port moves to CLOSE from FIN_WAIT1 or FIN_WAIT2,
 * after tcptrace's program for that change has run (programs on a
 * tracepoint run in the order they were attached), and counts the other
 * sockets the kernel destroys on that CPU meanwhile, in softirqs that
 * interrupt the hold. It opens on demand a window that is otherwise a few
 * instructions wide: between the move to CLOSE of an orphan aborted in
 * its closing task and the RST the kernel sends after destroying it. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_endian.h>

const volatile __u32 netns = 0; /* inode number of the network namespace */
const volatile __u16 port = 0;  /* local port of the sockets to hold */
const volatile __u64 hold_ns = 0;

__u64 held = 0;        /* moves to CLOSE held */
__u64 interleaved = 0; /* other sockets destroyed on a CPU during a hold */

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64); /* the socket held on this CPU, 0 if none */
} holding SEC(".maps");

static long until_deadline(__u64 index, void *deadline)
{
	return bpf_ktime_get_ns() >= *(__u64 *)deadline;
}

SEC("tp_btf/inet_sock_set_state")
int BPF_PROG(hold_close, struct sock *sk, int oldstate, int newstate)
{
	struct tcp_sock *tp;
	__u64 deadline, *h;
	__u32 zero = 0;

	if (newstate != TCP_CLOSE || (oldstate != TCP_FIN_WAIT1 && oldstate != TCP_FIN_WAIT2))
		return 0;
	if (sk->__sk_common.skc_net.net->ns.inum != netns)
		return 0;
	tp = bpf_skc_to_tcp_sock(sk);
	if (!tp || bpf_ntohs(tp->inet_conn.icsk_inet.inet_sport) != port)
		return 0;
	h = bpf_map_lookup_elem(&holding, &zero);
	if (!h)
		return 0;
	*h = (__u64)sk;
	deadline = bpf_ktime_get_ns() + hold_ns;
	bpf_loop(1 << 23, until_deadline, &deadline, 0);
	*h = 0;
	__sync_fetch_and_add(&held, 1);
	return 0;
}

SEC("tp_btf/tcp_destroy_sock")
int BPF_PROG(count_interleaved, struct sock *sk)
{
	__u32 zero = 0;
	__u64 *h = bpf_map_lookup_elem(&holding, &zero);

	if (h && *h && *h != (__u64)sk)
		__sync_fetch_and_add(&interleaved, 1);
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
