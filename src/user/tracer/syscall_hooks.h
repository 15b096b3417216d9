/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The syscalls tracepoints of connect() and bind() (syscalls.bpf.h): the
 * connects refused before their SYN, the binds to port 0 that found no
 * free port. Their exits only, where the kernel has bpf_task_pt_regs
 * (5.15+), which gives a failed call's arguments; before it, the entries
 * too, which keep them. A classic tracepoint is attached by its id, which
 * only tracefs tells: read where tracefs is mounted, else from a tracefs
 * that a child process mounts for a moment in a mount namespace of its
 * own (the machine's mounts stay as they were); the programs are then
 * attached as perf events, which need no tracefs. Where the ids cannot be
 * had or the attach fails, tcptrace carries on without these counts and
 * says so. */
#ifndef TT_SYSCALL_HOOKS_H
#define TT_SYSCALL_HOOKS_H

#include <stdbool.h>
#include "common/fail.h"

struct bpf_link;
struct bpf_program;
struct tcptrace_bpf;

enum syscall_hook {
	SYSCALL_HOOK_CONNECT_ENTER,
	SYSCALL_HOOK_CONNECT_EXIT,
	SYSCALL_HOOK_BIND_ENTER,
	SYSCALL_HOOK_BIND_EXIT,
	SYSCALL_HOOKS,
};

struct syscall_hooks {
	int ids[SYSCALL_HOOKS];   /* the tracepoints' ids, once found */
	bool found;               /* every id found: the programs are loaded */
	bool args_kept;           /* no bpf_task_pt_regs: the entries are hooked too */
	bool attached;
	struct bpf_link *links[SYSCALL_HOOKS];
	char why[TT_ERR_LEN];     /* why not found or not attached */
};

/* Before the skeleton's open: the tracepoints' ids, and whether the
 * kernel gives a failed call's arguments at its exit. */
void syscall_hooks_probe(struct syscall_hooks *h);

/* Between open and load: the programs loaded only where the ids were found. */
void syscall_hooks_configure(const struct syscall_hooks *h, struct tcptrace_bpf *skel);

/* Whether prog is one of the programs attached here, not by the tracer. */
bool syscall_hooks_own(const struct tcptrace_bpf *skel, const struct bpf_program *prog);

/* After load: each program on its tracepoint. A failure is no error:
 * syscall_hooks_missing says it. */
void syscall_hooks_attach(struct syscall_hooks *h, struct tcptrace_bpf *skel);

/* NULL when attached, else why not (for tcptrace's start-up line). */
const char *syscall_hooks_missing(const struct syscall_hooks *h);

void syscall_hooks_close(struct syscall_hooks *h);

#endif /* TT_SYSCALL_HOOKS_H */
