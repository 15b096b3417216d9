/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Port headroom of --by dest: how many local ports connect() can still
 * pick toward one destination, from the namespace's sysctls and sockets.
 * Pure functions over plain structs. */
#ifndef TT_PORTS_H
#define TT_PORTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "tracer/sockdiag.h"

#define TT_TIMEWAIT_MS 60000 /* TCP_TIMEWAIT_LEN */
#define TT_TW_REUSE_DELAY_MS 1000

struct tt_port_policy {
	uint16_t lo, hi;             /* net.ipv4.ip_local_port_range */
	uint8_t reserved[65536 / 8]; /* net.ipv4.ip_local_reserved_ports, one bit a port */
	int tw_reuse;                /* net.ipv4.tcp_tw_reuse: 0 off, 1 on, 2 loopback only */
};

/* The kernel's defaults: 32768-60999, nothing reserved, tw_reuse 2. */
void ports_policy_default(struct tt_port_policy *p);

/* "32768\t60999" into lo and hi. 0, or -1 (lo, hi untouched). */
int ports_parse_range(const char *text, uint16_t *lo, uint16_t *hi);

/* "" or "8080,9000-9010" into the reserved bitmap. 0, or -1 (bitmap
 * cleared). */
int ports_parse_reserved(const char *text, uint8_t *bitmap);

/* Ports of the range connect() may use at all (not reserved). */
uint64_t ports_usable(const struct tt_port_policy *p);

/* Of the usable ports, those held toward family/addr/port by the sockets
 * of the namespace: any socket connected there (a timewait socket only
 * while tcp_tw_reuse does not let connect() take it over), and any
 * listener, since connect() skips a port someone listens on. */
uint64_t ports_held(const struct tt_port_policy *p, const struct tt_diag_sock *socks, size_t n,
		    uint8_t family, const uint8_t addr[16], uint16_t port);

#endif /* TT_PORTS_H */
