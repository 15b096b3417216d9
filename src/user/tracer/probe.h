/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Feature probes: whether this kernel takes a small tracing program, tried
 * before the skeleton's load (a failed load cannot be tried again with
 * other programs, and costs seconds). */
#ifndef TT_PROBE_H
#define TT_PROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/bpf.h>

/* Whether a tracing program of n insns, named name, loads for the kernel
 * type btf_id (-1 where the kernel has none) attached as type; it is
 * closed at once. */
bool tracing_prog_loads(const char *name, const struct bpf_insn *insns, size_t n,
			enum bpf_attach_type type, int btf_id);

#endif /* TT_PROBE_H */
