/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* --catch-nested: a twin for each hook that runs in both process and
 * softirq context. The kernel skips a program for an event that comes
 * while the same program runs on the CPU (a softirq's, during a
 * close()'s). The twin, attached to the same tracepoint, runs after its
 * primary for every event: it handles the ones its primary did not note
 * among the last few it began on this CPU. A flag set while the primary
 * runs would not do: the kernel already counts it as running before its
 * first instruction and after its last. */
#ifndef TT_NESTED_BPF_H
#define TT_NESTED_BPF_H

#include "compat.bpf.h"
#include "maps.bpf.h"
#include "settings.bpf.h"

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct tt_nesting);
} nesting SEC(".maps");

/* An event: the object it is about (a socket, an RST's packet), and for
 * a state change which one. */
static __always_inline __u32 nested_event_what(int oldstate, int newstate)
{
	return (oldstate & 0xff) << 8 | (newstate & 0xff);
}

/* In a primary, first: pushes the event on its hook's stack of this CPU.
 * Each hook has a stack of its own: programs of other hooks may run
 * nested in it meanwhile. Without --catch-nested it compiles to nothing
 * at load: catch_nested is a constant to the verifier. */
static __always_inline void nested_note_event(enum tt_hook hook, const void *object, __u32 what)
{
	struct tt_nesting *n;
	__u32 zero = 0, i;

	if (!catch_nested)
		return;
	n = bpf_map_lookup_elem(&nesting, &zero);
	if (!n)
		return;
	i = n->depth[hook]++ % TT_NESTING_NOTES;
	n->object[hook][i] = tt_addr_of(object);
	n->what[hook][i] = what;
}

/* In a twin: whether the primary never began this event, the kernel
 * having skipped it; counted then. Otherwise its note is popped, with any
 * above it: those are of pairs nested since whose twin the kernel
 * skipped. A stack, not a ring of the last few: pairs that run whole
 * between a primary and its twin (a softirq's, on the same CPU) push and
 * pop above the note, however many they are, and never push it out. */
static __always_inline bool nested_skipped_by_primary(enum tt_hook hook, const void *object,
					       __u32 what)
{
	__u64 addr = tt_addr_of(object);
	struct tt_nesting *n;
	__u32 zero = 0, depth, found = 0;

	n = bpf_map_lookup_elem(&nesting, &zero);
	if (!n)
		return false;
	depth = n->depth[hook];
	for (__u32 k = 1; k <= TT_NESTING_NOTES && !found; k++) {
		__u32 i = (depth - k) % TT_NESTING_NOTES;

		if (n->object[hook][i] == addr && n->what[hook][i] == what)
			found = k;
	}
	if (!found) {
		__sync_fetch_and_add(&n->caught, 1);
		return true;
	}
	for (__u32 k = 1; k <= found; k++)
		n->object[hook][(depth - k) % TT_NESTING_NOTES] = 0;
	n->depth[hook] = depth - found;
	return false;
}

#endif /* TT_NESTED_BPF_H */
