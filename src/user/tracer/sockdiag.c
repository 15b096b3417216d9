// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* TCP socket dumps through NETLINK_SOCK_DIAG, on a socket netns.c opened
 * in the namespace to dump. */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <netinet/tcp.h>
#include <linux/inet_diag.h>
#include <linux/rtnetlink.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include "tracer/sockdiag.h"

/* The message's attributes: the listener's drop count (INET_DIAG_SKMEMINFO). */
static void read_attributes(const struct nlmsghdr *h, struct tt_diag_sock *s)
{
	const struct inet_diag_msg *msg = NLMSG_DATA(h);
	const struct rtattr *attr = (const struct rtattr *)(msg + 1);
	int len = (int)h->nlmsg_len - (int)NLMSG_LENGTH(sizeof(*msg));

	for (; RTA_OK(attr, len); attr = RTA_NEXT(attr, len)) {
		const uint32_t *meminfo = RTA_DATA(attr);

		if (attr->rta_type == INET_DIAG_SKMEMINFO &&
		    RTA_PAYLOAD(attr) >= (SK_MEMINFO_DROPS + 1) * sizeof(uint32_t))
			s->drops = meminfo[SK_MEMINFO_DROPS];
	}
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
	s->timer = msg->idiag_timer;
	s->inode = msg->idiag_inode;
	s->cookie = (uint64_t)msg->id.idiag_cookie[1] << 32 | msg->id.idiag_cookie[0];
	s->expires_ms = msg->idiag_expires;
	s->rqueue = msg->idiag_rqueue;
	s->wqueue = msg->idiag_wqueue;
}

static int dump(int fd, int family, uint32_t state_mask, uint8_t ext, sockdiag_cb cb, void *ctx)
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
			.idiag_ext = ext,
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
			read_attributes(h, &sock);
			cb(&sock, ctx);
		}
	}
}

int sockdiag_dump(int fd, int family, uint32_t state_mask, sockdiag_cb cb, void *ctx)
{
	return dump(fd, family, state_mask, 0, cb, ctx);
}

/* A dump of listeners alone walks only the kernel's listening hash. */
int sockdiag_dump_listeners(int fd, int family, sockdiag_cb cb, void *ctx)
{
	return dump(fd, family, 1u << TCP_LISTEN, 1u << (INET_DIAG_SKMEMINFO - 1), cb, ctx);
}
