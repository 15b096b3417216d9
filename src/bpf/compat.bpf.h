/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Kernel-version differences in what tcptrace reads from a socket, each
 * variant with the reason it exists. Choices between whole programs (the
 * RST reason argument) are made in user space before load, not here. */
#ifndef TT_COMPAT_BPF_H
#define TT_COMPAT_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_endian.h>

/* sk_protocol was an 8-bit bitfield until 5.6 (commit bf9765145b85
 * "sock: Make sk_protocol a 16-bit value"); the probed bitfield read
 * handles both layouts. */
static __always_inline __u16 sk_protocol_of(const struct sock *sk)
{
	return BPF_CORE_READ_BITFIELD_PROBED(sk, sk_protocol);
}

/* Network namespace inode number, as /proc/PID/ns/net shows it. */
static __always_inline __u32 sk_netns_of(const struct sock *sk)
{
	return BPF_CORE_READ(sk, __sk_common.skc_net.net, ns.inum);
}

/* Local port in host order as the connection had it. Not skc_num: on the
 * way to CLOSE the kernel releases the port (inet_put_port zeroes
 * inet_num) before the state-change tracepoint fires, while inet_sport
 * keeps the port until the socket is reused. */
static __always_inline __u16 sk_local_port_of(const struct sock *sk)
{
	return bpf_ntohs(BPF_CORE_READ((const struct inet_sock *)sk, inet_sport));
}

#endif /* TT_COMPAT_BPF_H */
