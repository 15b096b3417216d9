/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The kernel as vmlinux.h does not give it: the macros tcptrace needs, and
 * the differences between versions in what it reads from a socket, each
 * variant with the reason it exists. Choices between whole programs (the
 * RST reason argument) are made in user space before load, not here.
 * The programs are tp_btf ones: their arguments are typed pointers,
 * read by direct loads that CO-RE relocates (a probe read costs about
 * 50 ns, a direct load nothing measurable: bench/results/2026-11-history.md). */
#ifndef TT_COMPAT_BPF_H
#define TT_COMPAT_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_endian.h>

#define AF_INET 2
#define AF_INET6 10
#define EPERM 1
#define EACCES 13
#define EINVAL 22
#define EADDRINUSE 98
#define ENETUNREACH 101
#define ECONNRESET 104
#define ETIMEDOUT 110
#define ECONNREFUSED 111
#define EHOSTUNREACH 113
#define EALREADY 114
#define EINPROGRESS 115
#define CLONE_THREAD 0x00010000
#define TCPHDR_SYN 0x02
#define SOCK_STREAM 1
#define S_IFMT 00170000
#define S_IFSOCK 0140000

/* A plain 16-bit field from 5.6 on; in older kernels, an 8-bit bitfield
 * that this read cannot relocate to, so the load fails there. */
static __always_inline __u16 sk_protocol_of(const struct sock *sk)
{
	return sk->sk_protocol;
}

/* A socket's network namespace, read once by a program that needs it
 * on several paths and passed on. Linux 6.4 and later verify each load of
 * a pointer from a socket they trust (this one) with walks of the
 * kernel's whole BTF, for each path that reaches the load: read where the
 * paths have not parted, the walks are made once. */
static __always_inline struct net *sk_net_of(const struct sock *sk)
{
	struct net *net = sk->__sk_common.skc_net.net;

	barrier_var(net); /* not read again in each branch that uses it */
	return net;
}

/* Network namespace inode number, as /proc/PID/ns/net shows it. */
static __always_inline __u32 net_inum(struct net *net)
{
	return net->ns.inum;
}

static __always_inline __u32 sk_netns_of(const struct sock *sk)
{
	return net_inum(sk->__sk_common.skc_net.net);
}

/* The same, by probe reads: for paths that seldom run, in programs where
 * the direct read would be verified on many paths. */
static __always_inline __u32 sk_netns_read(const struct sock *sk)
{
	return BPF_CORE_READ(sk, __sk_common.skc_net.net, ns.inum);
}

/* Local port in host order as the connection had it. Not skc_num: on the
 * way to CLOSE the kernel releases the port (inet_put_port zeroes
 * inet_num) before the state-change tracepoint fires, while inet_sport
 * keeps the port until the socket is reused. It lies past struct sock,
 * which a typed pointer to one cannot reach: through the TCP socket. */
static __always_inline __u16 sk_local_port_of(const struct sock *sk)
{
	struct tcp_sock *tp = bpf_skc_to_tcp_sock((void *)sk);

	return tp ? bpf_ntohs(tp->inet_conn.icsk_inet.inet_sport) : 0;
}

/* What TCP keeps of a segment in its skb's control block (TCP_SKB_CB),
 * read with the width CO-RE relocates to: tcp_flags grew from 8 bits to
 * 16 with AccECN (16 on 6.18, 8 on the matrix's kernels). */
static __always_inline __u16 skb_tcp_flags_of(const struct sk_buff *skb)
{
	const struct tcp_skb_cb *cb = (const void *)skb->cb;

	return BPF_CORE_READ_BITFIELD(cb, tcp_flags);
}

/* The segments of a GSO packet (tcp_skb_pcount). */
static __always_inline __u32 skb_tcp_segs_of(const struct sk_buff *skb)
{
	const struct tcp_skb_cb *cb = (const void *)skb->cb;

	return BPF_CORE_READ_BITFIELD(cb, tcp_gso_segs);
}

/* A network namespace's TCP death row, which counts its timewait sockets
 * and points to the connection hash. Embedded in struct netns_ipv4; in
 * 5.17 to 6.0 it was allocated apart (commit fbb8295248e1), which no
 * kernel of the test matrix has: user space refuses those kernels before
 * load (tracer.c). */
static __always_inline struct inet_timewait_death_row *death_row_of(struct net *net)
{
	return __builtin_preserve_access_index(&net->ipv4.tcp_death_row);
}

/* Timewait sockets were counted in an atomic_t tw_count until 5.17 (5.10
 * in the test matrix), then in refcount_t tw_refcount, which starts at 1
 * (6.1 and 6.12). */
struct inet_timewait_death_row___old {
	atomic_t tw_count;
} __attribute__((preserve_access_index));

/* Whether inet_twsk_alloc would refuse a new timewait socket now
 * (tcp_max_tw_buckets reached: TcpExtTCPTimeWaitOverflow). */
static __always_inline bool death_row_full(struct inet_timewait_death_row *dr)
{
	int max = dr->sysctl_max_tw_buckets;
	int n;

	if (bpf_core_field_exists(dr->tw_refcount))
		n = dr->tw_refcount.refs.counter - 1;
	else
		n = ((struct inet_timewait_death_row___old *)dr)->tw_count.counter;
	return n >= max;
}

#endif /* TT_COMPAT_BPF_H */
