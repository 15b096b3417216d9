/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Map helpers shared by the parts of tcptrace.bpf.c. */
#ifndef TT_MAPS_BPF_H
#define TT_MAPS_BPF_H

/* The value at key, created from init if absent; NULL when the map is
 * full. A racing CPU may create it first: either way, it is looked up
 * again. */
static __always_inline void *lookup_or_init(void *map, const void *key, const void *init)
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
static __always_inline void bump(__u64 *counter)
{
	__sync_fetch_and_add(counter, 1);
}

#endif /* TT_MAPS_BPF_H */
