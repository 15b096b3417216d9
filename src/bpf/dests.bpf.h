/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* --by dest: an `out` socket's counts per destination as well. */
#ifndef TT_DESTS_BPF_H
#define TT_DESTS_BPF_H

#include "compat.bpf.h"
#include "maps.bpf.h"
#include "settings.bpf.h"
#include "socks.bpf.h"

/* Only with --by dest; allocated on demand, so empty costs nothing. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, TT_DEFAULT_MAX_PROCS);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct tt_dest_key);
	__type(value, struct tt_dest_counters);
} dest_counters SEC(".maps");

/* A new destination's first value: a global, as the value is too large
 * for the stack beside its callers' frames. */
static const struct tt_dest_counters zero_dest = {};

/* The --by dest counters of key, made on first use; NULL when the map is
 * full (counted). */
static __always_inline struct tt_dest_counters *dest_counters_at(const struct tt_dest_key *key)
{
	struct tt_dest_counters *d = tt_lookup_or_init(&dest_counters, key, &zero_dest);

	if (!d)
		tt_count_drop(TT_DROP_DEST_MAP_FULL);
	return d;
}

/* The --by dest counters of an `out` socket's owner toward its peer, or
 * NULL (not --by dest, an `in` socket, or the map is full). */
static __always_inline struct tt_dest_counters *dest_of(const struct sock *sk, struct net *net,
						       struct tt_sock *s)
{
	struct tt_dest_key key = {};
	const struct sock_common *c = &sk->__sk_common;

	if (!by_dest || (s->side & 1) != TT_SIDE_OUT)
		return NULL;
	key.slot = sock_proc_slot(s);
	if (key.slot == TT_NO_SLOT)
		return NULL;
	key.netns = net_inum(net);
	key.family = c->skc_family;
	key.port = bpf_ntohs(c->skc_dport);
	if (key.family == AF_INET)
		__builtin_memcpy(key.addr, &c->skc_daddr, 4);
	else
		__builtin_memcpy(key.addr, &c->skc_v6_daddr, 16);
	return dest_counters_at(&key);
}

#endif /* TT_DESTS_BPF_H */
