/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Helpers every part of the BPF side shares (tt_ names): a map value
 * made on first use, a counter bump, a drop counted, an address as a
 * number. */
#ifndef TT_MAPS_BPF_H
#define TT_MAPS_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "tcptrace.h"

/* The value at key, created from init if absent; NULL when the map is
 * full. A racing CPU may create it first: either way, it is looked up
 * again. */
static __always_inline void *tt_lookup_or_init(void *map, const void *key, const void *init)
{
	void *value = bpf_map_lookup_elem(map, key);

	if (value)
		return value;
	bpf_map_update_elem(map, key, init, BPF_NOEXIST);
	return bpf_map_lookup_elem(map, key);
}

/* Every counter is bumped atomically: a program in a process's syscall
 * (close(), connect()) can be interrupted on its CPU by a softirq whose
 * program bumps the same per-CPU counter, and a plain ++ would then lose
 * one of the two. */
static __always_inline void tt_bump(__u64 *counter)
{
	__sync_fetch_and_add(counter, 1);
}

/* Events tcptrace could not account for, by enum tt_drop, per CPU. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, TT_DROPS);
	__type(key, __u32);
	__type(value, __u64);
} drop_counts SEC(".maps");

static __always_inline void tt_count_drop(enum tt_drop drop)
{
	__u32 key = drop;
	__u64 *count = bpf_map_lookup_elem(&drop_counts, &key);

	if (count)
		tt_bump(count);
}

/* The programs' arguments are typed pointers (tp_btf), on which the
 * verifier allows no arithmetic: an address becomes a number to hash by
 * a trip through a per-CPU word. A program nested on the CPU (a
 * softirq's, in a syscall's) runs to its end before the one it
 * interrupted goes on: each nesting level takes its own word. */
struct addr_words {
	__u32 depth;
	__u32 pad;
	__u64 word[4];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct addr_words);
} addr_scratch SEC(".maps");

static __always_inline __u64 tt_addr_of(const void *p)
{
	__u32 zero = 0;
	struct addr_words *w = bpf_map_lookup_elem(&addr_scratch, &zero);
	__u32 level;
	__u64 addr;

	if (!w)
		return 0;
	/* Every access volatile: plain ones let the compiler fold the
	 * increment and the decrement away, and with them the levels. */
	level = (*(volatile __u32 *)&w->depth)++ & 3;
	*(volatile __u64 *)&w->word[level] = (__u64)p;
	addr = *(volatile __u64 *)&w->word[level];
	(*(volatile __u32 *)&w->depth)--;
	return addr;
}

#endif /* TT_MAPS_BPF_H */
