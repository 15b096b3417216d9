// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The syscalls tracepoints of connect() and bind(): their ids found, with
 * a tracefs of a child's own mount namespace where none is mounted, and
 * their programs attached as perf events. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <bpf/libbpf.h>
#include "common/test_hooks.h"
#include "tracer/syscall_hooks.h"
#include "tcptrace.skel.h"

static const char *const tracepoints[SYSCALL_HOOKS] = {
	[SYSCALL_HOOK_CONNECT_ENTER] = "sys_enter_connect",
	[SYSCALL_HOOK_CONNECT_EXIT] = "sys_exit_connect",
	[SYSCALL_HOOK_BIND_ENTER] = "sys_enter_bind",
	[SYSCALL_HOOK_BIND_EXIT] = "sys_exit_bind",
};

#define TRACEFS "/sys/kernel/tracing"
#define TRACEFS_IN_DEBUGFS "/sys/kernel/debug/tracing"

/* A hook's program: the exits read the registers, or (kept) the
 * arguments their entries kept; an entry has a program only when kept. */
static struct bpf_program *program_of(const struct tcptrace_bpf *skel, enum syscall_hook hook,
				      bool kept)
{
	switch (hook) {
	case SYSCALL_HOOK_CONNECT_ENTER:
		return kept ? skel->progs.handle_connect_enter_kept : NULL;
	case SYSCALL_HOOK_CONNECT_EXIT:
		return kept ? skel->progs.handle_connect_exit_kept : skel->progs.handle_connect_exit;
	case SYSCALL_HOOK_BIND_ENTER:
		return kept ? skel->progs.handle_bind_enter_kept : NULL;
	default:
		return kept ? skel->progs.handle_bind_exit_kept : skel->progs.handle_bind_exit;
	}
}

/* A tracepoint's id under a tracefs mount, or -errno. Only calls a forked
 * child may make. */
static int read_id(const char *tracefs, const char *tracepoint)
{
	char path[128], buf[16];
	int fd, id = 0;
	ssize_t n;

	snprintf(path, sizeof(path), "%s/events/syscalls/%s/id", tracefs, tracepoint);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return n < 0 ? -errno : -EINVAL;
	for (ssize_t i = 0; i < n && buf[i] >= '0' && buf[i] <= '9'; i++)
		id = id * 10 + (buf[i] - '0');
	return id > 0 ? id : -EINVAL;
}

/* Every id under a tracefs mount: 0, or the first -errno, the hook that
 * failed in *failed. */
static int read_ids(const char *tracefs, int ids[SYSCALL_HOOKS], int *failed)
{
	for (int k = 0; k < SYSCALL_HOOKS; k++) {
		ids[k] = read_id(tracefs, tracepoints[k]);
		*failed = k;
		if (ids[k] < 0)
			return ids[k];
	}
	return 0;
}

/* With no tracefs mounted: a child mounts one in a mount namespace of its
 * own, private, so that nothing of it reaches the machine's, reads the ids
 * and exits, the mount going with its namespace. 0 or -errno, and the
 * step that failed in *step. */
static int read_ids_privately(int ids[SYSCALL_HOOKS], const char **step)
{
	int pipe_fds[2], got[SYSCALL_HOOKS + 2] = { -EIO, 0 }, status, failed;
	pid_t pid;
	ssize_t n;

	*step = "fork";
	if (pipe2(pipe_fds, O_CLOEXEC))
		return -errno;
	pid = fork();
	if (pid < 0) {
		int err = -errno;

		close(pipe_fds[0]);
		close(pipe_fds[1]);
		return err;
	}
	if (pid == 0) {
		int out[SYSCALL_HOOKS + 2] = { 0, 0 };

		if (unshare(CLONE_NEWNS))
			out[0] = -errno, out[1] = 1;
		else if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
			out[0] = -errno, out[1] = 2;
		else if (mount("nodev", TRACEFS, "tracefs", 0, NULL))
			out[0] = -errno, out[1] = 3;
		else
			out[0] = read_ids(TRACEFS, out + 2, &failed), out[1] = 4;
		_exit(write(pipe_fds[1], out, sizeof(out)) == (ssize_t)sizeof(out) ? 0 : 1);
	}
	close(pipe_fds[1]);
	do
		n = read(pipe_fds[0], got, sizeof(got));
	while (n < 0 && errno == EINTR);
	close(pipe_fds[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (n != (ssize_t)sizeof(got))
		return -EIO;
	switch (got[1]) {
	case 1:
		*step = "unshare";
		break;
	case 2:
		*step = "making its mounts private";
		break;
	case 3:
		*step = "mount on " TRACEFS;
		break;
	default:
		*step = "reading the tracepoints' ids";
		break;
	}
	memcpy(ids, got + 2, sizeof(int) * SYSCALL_HOOKS);
	return got[0];
}

void syscall_hooks_probe(struct syscall_hooks *h)
{
	const char *step;
	int err, failed;

	memset(h, 0, sizeof(*h));
	err = read_ids(TRACEFS, h->ids, &failed);
	if (err == -ENOENT)
		err = read_ids(TRACEFS_IN_DEBUGFS, h->ids, &failed);
	if (err == -ENOENT) {
		err = read_ids_privately(h->ids, &step);
		if (err)
			snprintf(h->why, sizeof(h->why),
				 "tracefs is not mounted, and tcptrace could not mount one in a mount "
				 "namespace of its own (%s: %s)", step, strerror(-err));
	} else if (err) {
		snprintf(h->why, sizeof(h->why), "cannot read the id of syscalls/%s: %s",
			 tracepoints[failed], strerror(-err));
	}
	h->found = !err;
	h->args_kept = tt_test_hooks()->args_kept ||
		       libbpf_probe_bpf_helper(BPF_PROG_TYPE_TRACEPOINT, BPF_FUNC_task_pt_regs, NULL) != 1;
}

void syscall_hooks_configure(const struct syscall_hooks *h, struct tcptrace_bpf *skel)
{
	for (int k = 0; k < SYSCALL_HOOKS; k++) {
		struct bpf_program *regs = program_of(skel, (enum syscall_hook)k, false);
		struct bpf_program *kept = program_of(skel, (enum syscall_hook)k, true);

		if (regs)
			bpf_program__set_autoload(regs, h->found && !h->args_kept);
		bpf_program__set_autoload(kept, h->found && h->args_kept);
	}
}

bool syscall_hooks_own(const struct tcptrace_bpf *skel, const struct bpf_program *prog)
{
	for (int k = 0; k < SYSCALL_HOOKS; k++)
		if (prog == program_of(skel, (enum syscall_hook)k, false) ||
		    prog == program_of(skel, (enum syscall_hook)k, true))
			return true;
	return false;
}

static struct bpf_link *attach_one(struct bpf_program *prog, int id)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_TRACEPOINT,
		.size = sizeof(attr),
		.config = (__u64)id,
	};
	struct bpf_link *link;
	int pfd, err;

	pfd = (int)syscall(__NR_perf_event_open, &attr, -1, 0, -1, PERF_FLAG_FD_CLOEXEC);
	if (pfd < 0)
		return NULL;
	link = bpf_program__attach_perf_event(prog, pfd);
	if (!link) {
		err = errno;
		close(pfd);
		errno = err;
	}
	return link;
}

/* The exits first: arguments kept by an entry whose exit is not attached
 * yet would wait to be written over. */
void syscall_hooks_attach(struct syscall_hooks *h, struct tcptrace_bpf *skel)
{
	static const enum syscall_hook order[SYSCALL_HOOKS] = {
		SYSCALL_HOOK_CONNECT_EXIT, SYSCALL_HOOK_BIND_EXIT,
		SYSCALL_HOOK_CONNECT_ENTER, SYSCALL_HOOK_BIND_ENTER,
	};

	if (!h->found)
		return;
	for (int i = 0; i < SYSCALL_HOOKS; i++) {
		enum syscall_hook k = order[i];
		struct bpf_program *prog = program_of(skel, k, h->args_kept);

		if (!prog)
			continue;
		h->links[k] = attach_one(prog, h->ids[k]);
		if (!h->links[k]) {
			snprintf(h->why, sizeof(h->why), "cannot attach to syscalls/%s: %s",
				 tracepoints[k], strerror(errno));
			syscall_hooks_close(h);
			return;
		}
	}
	h->attached = true;
}

const char *syscall_hooks_missing(const struct syscall_hooks *h)
{
	return h->attached ? NULL : h->why;
}

void syscall_hooks_close(struct syscall_hooks *h)
{
	for (int k = 0; k < SYSCALL_HOOKS; k++) {
		bpf_link__destroy(h->links[k]);
		h->links[k] = NULL;
	}
	h->attached = false;
}
