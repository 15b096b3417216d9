// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Test helper of the kernel matrix, not part of tcptrace: the guest has no
 * nft. Attached to the root cgroup's ingress, it drops one in LOSS_ONE_IN
 * of the TCP segments that carry data from port LOSS_PORT (a server's), at
 * the receiving socket's filter: sent, then lost, as the integration
 * suite's nft rule at the input hook loses them. Its port and share are
 * the guest's (guest-init.sh): bpftool, which loads it, sets no global. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#define LOSS_PORT 8096
#define LOSS_ONE_IN 20
#define ETH_P_IP 0x0800

__u64 seen = 0;
__u64 dropped = 0;

SEC("cgroup_skb/ingress")
int tt_loss(struct __sk_buff *skb)
{
	struct iphdr ip;
	struct tcphdr tcp;
	__u32 headers;
	__u64 n;

	if (skb->protocol != bpf_htons(ETH_P_IP) || bpf_skb_load_bytes(skb, 0, &ip, sizeof(ip)) ||
	    ip.protocol != IPPROTO_TCP)
		return 1;
	if (bpf_skb_load_bytes(skb, ip.ihl * 4, &tcp, sizeof(tcp)) ||
	    tcp.source != bpf_htons(LOSS_PORT) || tcp.syn)
		return 1;
	headers = ip.ihl * 4 + tcp.doff * 4;
	if (skb->len <= headers)
		return 1;
	/* 5.10 has no atomic add that returns the old value. */
	n = seen;
	__sync_fetch_and_add(&seen, 1);
	if (n % LOSS_ONE_IN != LOSS_ONE_IN - 1)
		return 1;
	__sync_fetch_and_add(&dropped, 1);
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
