/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* connect() and bind() as their syscalls return: the failures no TCP
 * state change shows. A connect() refused before its SYN (no route, a
 * route of type unreachable, prohibit or blackhole, a cgroup hook or an
 * LSM) never moves its socket to SYN_SENT; a bind() to port 0 that finds
 * no free port fails with EADDRINUSE, and its connect() never runs. The
 * syscalls tracepoints run only in these two syscalls (though while one is
 * attached, the kernel takes its slower syscall path for every syscall:
 * docs/reliability.md has the cost); user space loads them where tracefs
 * gives their ids.
 *
 * Only the exits are hooked: a call that did not fail costs a test of its
 * result. A failed one's arguments are read from the registers the task
 * entered the syscall with (bpf_task_pt_regs, Linux 5.15 and later), which
 * the syscall leaves as they were; before 5.15 an entry hook keeps them per
 * thread (the *_kept programs; user space loads one set). */
#ifndef TT_SYSCALLS_BPF_H
#define TT_SYSCALLS_BPF_H

#include <bpf/bpf_tracing.h>
#include "compat.bpf.h"
#include "maps.bpf.h"
#include "settings.bpf.h"
#include "procs.bpf.h"
#include "socks.bpf.h"
#include "dests.bpf.h"

/* Before 5.15: the arguments of the connect() or bind() a thread is in,
 * or was last in; an entry stays with its thread, written over at its next
 * call. Least recently used out: the entries of threads gone make room. */
struct syscalls_args {
	__u64 uaddr; /* the sockaddr, in the process's memory */
	__s32 fd;
	__s32 len;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, __u64); /* pid_tgid */
	__type(value, struct syscalls_args);
} syscall_args SEC(".maps");

/* sys_enter_connect, sys_enter_bind, before 5.15: the arguments kept. */
static __always_inline void syscalls_on_enter(__s64 fd, __u64 uaddr, __s64 len)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct syscalls_args *a;

	/* By name or PID: most calls are of processes not traced. */
	if (!trace_all && !proc_current_is_traced(id >> 32))
		return;
	a = bpf_map_lookup_elem(&syscall_args, &id);
	if (a) {
		a->uaddr = uaddr;
		a->fd = (__s32)fd;
		a->len = (__s32)len;
	} else {
		struct syscalls_args fresh = { .uaddr = uaddr, .fd = (__s32)fd, .len = (__s32)len };

		bpf_map_update_elem(&syscall_args, &id, &fresh, BPF_ANY);
	}
}

/* The failed call's arguments: from the registers it entered with, or
 * (from_regs false) as its entry hook kept them. False when there are none
 * of a traced process. */
static __always_inline bool syscalls_args_of_call(struct syscalls_args *a, bool from_regs)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct syscalls_args *kept;

	if (!proc_current_is_traced(id >> 32))
		return false;
	if (from_regs) {
		struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(bpf_get_current_task_btf());

		a->fd = (__s32)PT_REGS_PARM1_CORE_SYSCALL(regs);
		a->uaddr = PT_REGS_PARM2_CORE_SYSCALL(regs);
		a->len = (__s32)PT_REGS_PARM3_CORE_SYSCALL(regs);
		return true;
	}
	kept = bpf_map_lookup_elem(&syscall_args, &id);
	if (!kept)
		return false;
	*a = *kept;
	return true;
}

/* The socket behind a descriptor of the current process, or NULL when it
 * is none: its inode a socket's, and the socket's file this one (an O_PATH
 * descriptor of a socket's path has the inode but no socket). */
static __always_inline struct socket *syscalls_sock_of_fd(__s32 fd)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	struct fdtable *fdt = BPF_CORE_READ(task, files, fdt);
	struct file *file = NULL, **fds;
	struct socket *sock;

	if (fd < 0 || (__u32)fd >= BPF_CORE_READ(fdt, max_fds))
		return NULL;
	fds = BPF_CORE_READ(fdt, fd);
	if (bpf_probe_read_kernel(&file, sizeof(file), &fds[fd]) || !file)
		return NULL;
	if ((BPF_CORE_READ(file, f_inode, i_mode) & S_IFMT) != S_IFSOCK)
		return NULL;
	sock = BPF_CORE_READ(file, private_data);
	if (!sock || BPF_CORE_READ(sock, file) != file)
		return NULL;
	return sock;
}

/* The TCP socket (IPv4 or IPv6) behind the descriptor, when it is one;
 * its family in *family. */
static __always_inline struct sock *syscalls_tcp_sk_of_fd(__s32 fd, __u16 *family)
{
	struct socket *sock = syscalls_sock_of_fd(fd);
	struct sock *sk;

	if (!sock || BPF_CORE_READ(sock, type) != SOCK_STREAM)
		return NULL;
	sk = BPF_CORE_READ(sock, sk);
	if (!sk || BPF_CORE_READ(sk, sk_protocol) != IPPROTO_TCP)
		return NULL;
	*family = BPF_CORE_READ(sk, __sk_common.skc_family);
	return *family == AF_INET || *family == AF_INET6 ? sk : NULL;
}

/* The call's address, when it is one the socket's family takes (any other
 * fails with EINVAL or EAFNOSUPPORT before any route is looked up, which
 * is no network's failure): into key, port in host order. */
static __always_inline bool syscalls_read_addr(const struct syscalls_args *a, __u16 family,
					       struct tt_dest_key *key)
{
	struct {
		__u16 family;
		__u16 port;
		__u32 addr4;   /* sockaddr_in's address, sockaddr_in6's flow label */
	} head;

	if (a->len < 16 || bpf_probe_read_user(&head, sizeof(head), (const void *)a->uaddr) ||
	    head.family != family)
		return false;
	key->family = head.family;
	key->port = bpf_ntohs(head.port);
	if (head.family == AF_INET) {
		__builtin_memcpy(key->addr, &head.addr4, 4);
		return true;
	}
	return a->len >= 24 && !bpf_probe_read_user(key->addr, 16, (const char *)a->uaddr + 8);
}

static __always_inline __u32 syscalls_connect_cause(__s64 err)
{
	switch (err) {
	case ENETUNREACH:
		return TT_CONNFAIL_ENETUNREACH;
	case EHOSTUNREACH:
		return TT_CONNFAIL_EHOSTUNREACH;
	case EACCES:
		return TT_CONNFAIL_EACCES;
	case EINVAL:
		return TT_CONNFAIL_EINVAL;
	case EPERM:
		return TT_CONNFAIL_EPERM;
	default:
		return TT_CONNFAIL_OTHER;
	}
}

static __always_inline void syscalls_count_connect_failure(struct tt_dest_key *key, __u32 tgid,
							   __u32 cause)
{
	__u32 slot = proc_slot_of(tgid);
	struct tt_proc_counters *c = proc_counters_at(slot);
	struct tt_dest_counters *d;

	if (!c || cause >= TT_CONNFAILS)
		return;
	barrier_var(cause);
	tt_bump(&c->connfail);
	tt_bump(&c->connfail_by[cause]);
	if (!by_dest)
		return;
	key->slot = slot;
	d = dest_counters_at(key);
	if (d) {
		tt_bump(&d->connfail);
		tt_bump(&d->connfail_by[cause]);
	}
}

/* sys_exit_connect: a connect() of a TCP socket that failed before its
 * SYN. EINPROGRESS is a non-blocking connect() under way, EALREADY one
 * asked again: no failure. A socket in the socket table has moved to
 * SYN_SENT, in this call or an earlier one, and its failure is the state
 * changes' to count (EADDRNOTAVAIL; a cause of connfail, which a
 * connect() asked again returns once more, as haproxy asks). */
static __always_inline void syscalls_on_connect_exit(__s64 ret, bool from_regs)
{
	struct tt_dest_key key = {};
	struct syscalls_args a;
	struct sock *sk;
	__u16 family;

	if (ret >= 0 || ret == -EINPROGRESS || ret == -EALREADY)
		return;
	if (!syscalls_args_of_call(&a, from_regs))
		return;
	sk = syscalls_tcp_sk_of_fd(a.fd, &family);
	if (!sk || !syscalls_read_addr(&a, family, &key) ||
	    sock_index_of_key((__u64)sk) != TT_NO_ENTRY)
		return;
	key.netns = sk_netns_read(sk);
	syscalls_count_connect_failure(&key, proc_current_tgid(), syscalls_connect_cause(-ret));
}

/* sys_exit_bind: a bind() of a TCP socket to port 0 that found no free
 * port. A bind() to a port of its own is not counted: its EADDRINUSE says
 * that port is taken (a listener's, most often), not that the range ran
 * out. */
static __always_inline void syscalls_on_bind_exit(__s64 ret, bool from_regs)
{
	struct tt_dest_key addr = {};
	struct tt_proc_counters *c;
	struct syscalls_args a;
	__u16 family;

	if (ret != -EADDRINUSE)
		return;
	if (!syscalls_args_of_call(&a, from_regs) || !syscalls_tcp_sk_of_fd(a.fd, &family) ||
	    !syscalls_read_addr(&a, family, &addr) || addr.port)
		return;
	c = proc_counters_at(proc_slot_of(proc_current_tgid()));
	if (c)
		tt_bump(&c->eaddrinuse);
}

#endif /* TT_SYSCALLS_BPF_H */
