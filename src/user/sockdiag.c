// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* TCP socket dumps through NETLINK_SOCK_DIAG. A netlink socket belongs to
 * the namespace it was created in, so sockdiag_open enters the target's
 * namespace just long enough to create one. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include "sockdiag.h"

static int open_here(void)
{
	int fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);

	if (fd < 0)
		return -errno;
	return fd;
}

int sockdiag_open(uint32_t pid)
{
	char path[64];
	int self, target, fd, err;

	if (pid == 0)
		return open_here();
	snprintf(path, sizeof(path), "/proc/%u/ns/net", pid);
	target = open(path, O_RDONLY | O_CLOEXEC);
	if (target < 0)
		return -errno;
	self = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (self < 0) {
		err = -errno;
		close(target);
		return err;
	}
	if (setns(target, CLONE_NEWNET)) {
		fd = -errno;
	} else {
		fd = open_here();
		if (setns(self, CLONE_NEWNET))
			fd = -errno; /* cannot happen without losing our own namespace */
	}
	close(target);
	close(self);
	return fd;
}

static void to_diag_sock(const struct inet_diag_msg *msg, struct tt_diag_sock *s)
{
	size_t alen = msg->idiag_family == AF_INET ? 4 : 16;

	memset(s, 0, sizeof(*s));
	s->family = msg->idiag_family;
	s->state = msg->idiag_state;
	s->lport = ntohs(msg->id.idiag_sport);
	s->rport = ntohs(msg->id.idiag_dport);
	memcpy(s->laddr, msg->id.idiag_src, alen);
	memcpy(s->raddr, msg->id.idiag_dst, alen);
	s->inode = msg->idiag_inode;
	s->cookie = (uint64_t)msg->id.idiag_cookie[1] << 32 | msg->id.idiag_cookie[0];
}

int sockdiag_dump(int fd, int family, uint32_t state_mask, sockdiag_cb cb, void *ctx)
{
	struct {
		struct nlmsghdr nlh;
		struct inet_diag_req_v2 req;
	} request = {
		.nlh = {
			.nlmsg_len = sizeof(request),
			.nlmsg_type = SOCK_DIAG_BY_FAMILY,
			.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP,
		},
		.req = {
			.sdiag_family = family,
			.sdiag_protocol = IPPROTO_TCP,
			.idiag_states = state_mask,
		},
	};
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
	static char buf[64 * 1024] __attribute__((aligned(NLMSG_ALIGNTO)));

	if (sendto(fd, &request, sizeof(request), 0, (struct sockaddr *)&kernel, sizeof(kernel)) < 0)
		return -errno;
	for (;;) {
		ssize_t len = recv(fd, buf, sizeof(buf), 0);
		struct nlmsghdr *h;

		if (len < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		for (h = (struct nlmsghdr *)buf; NLMSG_OK(h, (size_t)len); h = NLMSG_NEXT(h, len)) {
			struct tt_diag_sock sock;

			if (h->nlmsg_type == NLMSG_DONE)
				return 0;
			if (h->nlmsg_type == NLMSG_ERROR) {
				const struct nlmsgerr *e = NLMSG_DATA(h);
				return e->error ? e->error : -EIO;
			}
			if (h->nlmsg_type != SOCK_DIAG_BY_FAMILY)
				continue;
			to_diag_sock(NLMSG_DATA(h), &sock);
			cb(&sock, ctx);
		}
	}
}
