/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Force-included by `make lint` into every src/user .c file, never by a build.
 * libbpf's headers live in /usr/include, and the static analyzer assumes a
 * function declared in a system header frees nothing. It then reports a leak
 * of the bpf_object_skeleton that bpftool's generated open() hands to
 * bpf_object__destroy_skeleton() on its error path. ownership_takes says what
 * libbpf really does (libbpf.c: free(s)); the analyzer honours it with
 * unix.DynamicMemoryModeling:Optimistic, set in .clang-tidy. */
#ifndef TT_LINT_LIBBPF_OWNERSHIP_H
#define TT_LINT_LIBBPF_OWNERSHIP_H

struct bpf_object_skeleton;
void bpf_object__destroy_skeleton(struct bpf_object_skeleton *s)
	__attribute__((ownership_takes(malloc, 1)));

#endif
