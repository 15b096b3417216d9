/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* TCP socket dumps through NETLINK_SOCK_DIAG (the socket: netns.h). */
#ifndef TT_SOCKDIAG_H
#define TT_SOCKDIAG_H

#include <stdint.h>

struct tt_diag_sock {
	uint64_t cookie;
	uint32_t inode;      /* 0 for timewait and unaccepted sockets */
	uint32_t expires_ms; /* a timewait socket's time left */
	uint16_t lport;      /* host order */
	uint16_t rport;
	uint8_t family;
	uint8_t state;     /* TCP_* as in the kernel; a timewait socket's substate */
	uint8_t timer;     /* idiag_timer: 3 for a timewait socket, whatever its state */
	uint8_t laddr[16]; /* IPv4 in the first 4 bytes, the rest zero */
	uint8_t raddr[16];
	uint32_t rqueue; /* a listener's accept queue: its depth */
	uint32_t wqueue; /* and its limit (a connection socket's queues otherwise) */
	uint32_t drops;  /* a listener's sk_drops (sockdiag_dump_listeners only) */
};

typedef void (*sockdiag_cb)(const struct tt_diag_sock *sock, void *ctx);

/* Dump the TCP sockets of one family whose state bit (1 << TCP_*) is in
 * state_mask, calling cb for each. Returns 0 or -errno. */
int sockdiag_dump(int fd, int family, uint32_t state_mask, sockdiag_cb cb, void *ctx);

/* Dump the TCP listeners of one family, with their drop counts. */
int sockdiag_dump_listeners(int fd, int family, sockdiag_cb cb, void *ctx);

#endif /* TT_SOCKDIAG_H */
