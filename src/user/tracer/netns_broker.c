// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The namespace broker: a request per message over a SOCK_SEQPACKET pair,
 * its answer with the files as SCM_RIGHTS. */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include "tracer/netns_broker.h"

enum broker_ask { ASK_INUM, ASK_OPEN };

struct broker_request {
	uint32_t ask, pid, inum;
};

struct broker_answer {
	int32_t err;
	uint32_t inum;
	uint32_t sysctls; /* bit i: sysctl i's file follows the diag socket */
};

#define BROKER_FDS (1 + TT_SYSCTLS)

static int broker_fd = -1;
static pid_t broker_pid = -1;

static int send_answer(int fd, const struct broker_answer *a, const int *fds, size_t n)
{
	char control[CMSG_SPACE(sizeof(int) * BROKER_FDS)] = {};
	struct iovec iov = { .iov_base = (void *)a, .iov_len = sizeof(*a) };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *c;

	if (n) {
		msg.msg_control = control;
		msg.msg_controllen = CMSG_SPACE(sizeof(int) * n);
		c = CMSG_FIRSTHDR(&msg);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int) * n);
		memcpy(CMSG_DATA(c), fds, sizeof(int) * n);
	}
	return sendmsg(fd, &msg, MSG_NOSIGNAL) < 0 ? -errno : 0;
}

static void answer(int fd, const struct broker_request *q)
{
	struct broker_answer a = {};
	struct tt_netns ns;
	int fds[BROKER_FDS];
	char path[64];
	struct stat st;
	size_t n = 0;

	snprintf(path, sizeof(path), "/proc/%u/ns/net", q->pid);
	if (stat(path, &st)) {
		a.err = -errno;
	} else {
		a.inum = (uint32_t)st.st_ino;
		if (q->ask == ASK_OPEN && a.inum != q->inum)
			a.err = -ESRCH; /* the PID's namespace is another by now */
	}
	if (!a.err && q->ask == ASK_OPEN) {
		a.err = netns_open(q->pid, a.inum, &ns);
		if (!a.err) {
			fds[n++] = ns.diag_fd;
			for (int i = 0; i < TT_SYSCTLS; i++) {
				if (ns.sysctl_fd[i] < 0)
					continue;
				a.sysctls |= 1u << i;
				fds[n++] = ns.sysctl_fd[i];
			}
		}
	}
	send_answer(fd, &a, fds, n);
	if (!a.err && q->ask == ASK_OPEN)
		netns_close(&ns);
}

static void serve(int fd)
{
	struct broker_request q;

	/* Ctrl-C reaches the whole group: tcptrace's last snapshot may still
	 * ask. It ends when tcptrace closes its end or dies. */
	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	while (recv(fd, &q, sizeof(q), 0) == sizeof(q))
		answer(fd, &q);
}

int netns_broker_start(void)
{
	pid_t parent = getpid();
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv))
		return -errno;
	broker_pid = fork();
	if (broker_pid < 0) {
		close(sv[0]);
		close(sv[1]);
		return -errno;
	}
	if (broker_pid == 0) {
		/* Forked once tcptrace holds its BPF objects: it keeps none of
		 * them, nor any other file but its end of the pair. */
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent ||
		    dup2(sv[1], 3) != 3 || close_range(4, ~0U, 0))
			_exit(0);
		serve(3);
		_exit(0);
	}
	close(sv[1]);
	broker_fd = sv[0];
	return 0;
}

static int ask(const struct broker_request *q, struct broker_answer *a, int *fds, size_t *n)
{
	char control[CMSG_SPACE(sizeof(int) * BROKER_FDS)];
	struct iovec iov = { .iov_base = a, .iov_len = sizeof(*a) };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = control,
			      .msg_controllen = sizeof(control) };
	struct cmsghdr *c;
	ssize_t got;

	*n = 0;
	if (broker_fd < 0)
		return -ENOTCONN;
	if (send(broker_fd, q, sizeof(*q), MSG_NOSIGNAL) != sizeof(*q))
		return -errno;
	do
		got = recvmsg(broker_fd, &msg, MSG_CMSG_CLOEXEC);
	while (got < 0 && errno == EINTR);
	if (got != sizeof(*a))
		return got < 0 ? -errno : -EPROTO;
	for (c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		*n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		if (*n > BROKER_FDS)
			*n = BROKER_FDS;
		memcpy(fds, CMSG_DATA(c), sizeof(int) * *n);
	}
	return a->err;
}

int netns_broker_inum(uint32_t pid, uint32_t *inum)
{
	struct broker_request q = { .ask = ASK_INUM, .pid = pid };
	struct broker_answer a = {};
	int fds[BROKER_FDS], err;
	size_t n;

	err = ask(&q, &a, fds, &n);
	if (!err)
		*inum = a.inum;
	return err;
}

int netns_broker_open(uint32_t pid, uint32_t inum, struct tt_netns *ns)
{
	struct broker_request q = { .ask = ASK_OPEN, .pid = pid, .inum = inum };
	struct broker_answer a = {};
	int fds[BROKER_FDS], err;
	size_t n, next = 1;

	memset(ns, 0, sizeof(*ns));
	ns->inum = inum;
	ns->diag_fd = -1;
	for (int i = 0; i < TT_SYSCTLS; i++)
		ns->sysctl_fd[i] = -1;
	err = ask(&q, &a, fds, &n);
	if (err || n == 0) {
		for (size_t i = 0; i < n; i++)
			close(fds[i]);
		return err ? err : -EPROTO;
	}
	ns->diag_fd = fds[0];
	for (int i = 0; i < TT_SYSCTLS && next < n; i++)
		if (a.sysctls & (1u << i))
			ns->sysctl_fd[i] = fds[next++];
	return 0;
}

pid_t netns_broker_pid(void)
{
	return broker_pid;
}

void netns_broker_stop(void)
{
	if (broker_fd >= 0)
		close(broker_fd);
	broker_fd = -1;
	if (broker_pid > 0)
		while (waitpid(broker_pid, NULL, 0) < 0 && errno == EINTR)
			;
	broker_pid = -1;
}
