// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Opens a sock_diag socket and sysctl files inside another network
 * namespace. Both a netlink socket and a /proc/sys/net file belong to the
 * namespace of the task that opened them, so tcptrace enters the target's
 * namespace just long enough to open them (and, for the seeding, to start
 * a walk of its sockets). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <stdbool.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include "tracer/netns.h"

static const char *const sysctl_paths[TT_SYSCTLS] = {
	[TT_SYSCTL_PORT_RANGE] = "/proc/sys/net/ipv4/ip_local_port_range",
	[TT_SYSCTL_RESERVED_PORTS] = "/proc/sys/net/ipv4/ip_local_reserved_ports",
	[TT_SYSCTL_TW_REUSE] = "/proc/sys/net/ipv4/tcp_tw_reuse",
	[TT_SYSCTL_SOMAXCONN] = "/proc/sys/net/core/somaxconn",
};

/* A sysctl that cannot be opened (an older kernel) is left at -1. */
static int open_here(struct tt_netns *ns)
{
	ns->diag_fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
	if (ns->diag_fd < 0)
		return -errno;
	for (int i = 0; i < TT_SYSCTLS; i++)
		ns->sysctl_fd[i] = open(sysctl_paths[i], O_RDONLY | O_CLOEXEC);
	return 0;
}

/* Entering a namespace needs CAP_SYS_ADMIN; our own needs no entering. */
static bool in_own_namespace(uint32_t inum)
{
	struct stat st;

	return stat("/proc/self/ns/net", &st) == 0 && (uint32_t)st.st_ino == inum;
}

/* Enter the network namespace (inum) that path names. */
static int enter_path(const char *path, uint32_t inum, int *back)
{
	int self, target, err = 0;

	*back = -1;
	if (in_own_namespace(inum))
		return 0;
	target = open(path, O_RDONLY | O_CLOEXEC);
	if (target < 0)
		return -errno;
	self = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (self < 0) {
		err = -errno;
	} else if (setns(target, CLONE_NEWNET)) {
		err = -errno;
		close(self);
	} else {
		*back = self;
	}
	close(target);
	return err;
}

int netns_enter(uint32_t pid, uint32_t inum, int *back)
{
	char path[64];

	*back = -1;
	if (pid == 0)
		return 0;
	snprintf(path, sizeof(path), "/proc/%u/ns/net", pid);
	return enter_path(path, inum, back);
}

int netns_leave(int back)
{
	int err = 0;

	if (back < 0)
		return 0;
	/* Cannot fail without losing our own namespace. */
	if (setns(back, CLONE_NEWNET))
		err = -errno;
	close(back);
	return err;
}

/* The files of the namespace after enter() went into it. */
static int open_entered(int err, int back, struct tt_netns *ns)
{
	int left;

	if (err)
		return err;
	err = open_here(ns);
	left = netns_leave(back);
	if (left)
		err = left;
	if (err)
		netns_close(ns);
	return err;
}

static void netns_init(struct tt_netns *ns, uint32_t inum)
{
	memset(ns, 0, sizeof(*ns));
	ns->inum = inum;
	ns->diag_fd = -1;
	for (int i = 0; i < TT_SYSCTLS; i++)
		ns->sysctl_fd[i] = -1;
}

int netns_open(uint32_t pid, uint32_t inum, struct tt_netns *ns)
{
	int back, err;

	netns_init(ns, inum);
	err = netns_enter(pid, inum, &back);
	return open_entered(err, back, ns);
}

int netns_open_path(const char *path, uint32_t inum, struct tt_netns *ns)
{
	int back, err;

	netns_init(ns, inum);
	err = enter_path(path, inum, &back);
	return open_entered(err, back, ns);
}

int netns_read_sysctl(const struct tt_netns *ns, enum tt_netns_sysctl which, char *buf,
		      size_t len)
{
	ssize_t got;

	if (len == 0 || ns->sysctl_fd[which] < 0)
		return -1;
	got = pread(ns->sysctl_fd[which], buf, len - 1, 0);
	if (got < 0)
		return -1;
	buf[got] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

void netns_close(struct tt_netns *ns)
{
	if (ns->diag_fd >= 0)
		close(ns->diag_fd);
	ns->diag_fd = -1;
	for (int i = 0; i < TT_SYSCTLS; i++) {
		if (ns->sysctl_fd[i] >= 0)
			close(ns->sysctl_fd[i]);
		ns->sysctl_fd[i] = -1;
	}
}
