/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* TCP socket dumps through NETLINK_SOCK_DIAG, in any network namespace. */
#ifndef TT_SOCKDIAG_H
#define TT_SOCKDIAG_H

#include <stdint.h>

struct tt_diag_sock {
	uint8_t family;
	uint8_t state; /* TCP_* as in the kernel */
	uint16_t lport; /* host order */
	uint16_t rport;
	uint8_t laddr[16]; /* IPv4 in the first 4 bytes, the rest zero */
	uint8_t raddr[16];
	uint32_t inode; /* 0 for timewait and unaccepted sockets */
	uint64_t cookie;
};

typedef void (*sockdiag_cb)(const struct tt_diag_sock *sock, void *ctx);

/* A sock_diag socket in the network namespace of pid (0: our own).
 * Returns the fd, or -errno. */
int sockdiag_open(uint32_t pid);

/* Dump the TCP sockets of one family whose state bit (1 << TCP_*) is in
 * state_mask, calling cb for each. Returns 0 or -errno. */
int sockdiag_dump(int fd, int family, uint32_t state_mask, sockdiag_cb cb, void *ctx);

#endif /* TT_SOCKDIAG_H */
