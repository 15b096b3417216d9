// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Counts the local ports connect() can still use toward a destination,
 * the way inet_hash_connect chooses them: within ip_local_port_range,
 * skipping ip_local_reserved_ports and ports someone listens on; a port is
 * taken toward a destination while a socket connected there holds it. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include "tracer/ports.h"

void ports_policy_default(struct tt_port_policy *p)
{
	memset(p, 0, sizeof(*p));
	p->lo = 32768;
	p->hi = 60999;
	p->tw_reuse = 2;
}

/* A port number of text at *s, then *s moved past it. */
static int parse_port(const char **s, unsigned long *v)
{
	char *end;

	if (**s < '0' || **s > '9')
		return -1;
	errno = 0;
	*v = strtoul(*s, &end, 10);
	if (errno || *v > 65535)
		return -1;
	*s = end;
	return 0;
}

int ports_parse_range(const char *text, uint16_t *lo, uint16_t *hi)
{
	unsigned long a, b;

	if (parse_port(&text, &a))
		return -1;
	while (*text == ' ' || *text == '\t')
		text++;
	if (parse_port(&text, &b) || *text != '\0' || a < 1 || a > b)
		return -1;
	*lo = (uint16_t)a;
	*hi = (uint16_t)b;
	return 0;
}

int ports_parse_reserved(const char *text, uint8_t *bitmap)
{
	memset(bitmap, 0, 65536 / 8);
	while (*text) {
		unsigned long a, b;

		if (parse_port(&text, &a))
			goto bad;
		b = a;
		if (*text == '-') {
			text++;
			if (parse_port(&text, &b) || b < a)
				goto bad;
		}
		for (unsigned long port = a; port <= b; port++)
			bitmap[port / 8] |= (uint8_t)(1u << (port % 8));
		if (*text == ',')
			text++;
		else if (*text)
			goto bad;
	}
	return 0;
bad:
	memset(bitmap, 0, 65536 / 8);
	return -1;
}

static bool bit_is_set(const uint8_t *bitmap, uint16_t port)
{
	return bitmap[port / 8] & (1u << (port % 8));
}

static bool usable(const struct tt_port_policy *p, uint16_t port)
{
	return port >= p->lo && port <= p->hi && !bit_is_set(p->reserved, port);
}

uint64_t ports_usable(const struct tt_port_policy *p)
{
	uint64_t n = 0;

	for (uint32_t port = p->lo; port <= p->hi; port++)
		n += usable(p, (uint16_t)port);
	return n;
}

static bool is_loopback(uint8_t family, const uint8_t *addr)
{
	static const uint8_t v6_loopback[16] = { [15] = 1 };
	static const uint8_t v4_mapped[12] = { [10] = 0xff, [11] = 0xff };

	if (family == AF_INET)
		return addr[0] == 127;
	return memcmp(addr, v6_loopback, 16) == 0 ||
	       (memcmp(addr, v4_mapped, 12) == 0 && addr[12] == 127);
}

/* A timewait socket older than a second gives its port to a new connect()
 * when tcp_tw_reuse allows it (2: loopback connections only). */
static bool timewait_reusable(const struct tt_port_policy *p, const struct tt_diag_sock *s)
{
	bool allowed = p->tw_reuse == 1 || (p->tw_reuse == 2 && is_loopback(s->family, s->laddr) &&
					    is_loopback(s->family, s->raddr));

	return allowed && s->expires_ms <= TT_TIMEWAIT_MS - TT_TW_REUSE_DELAY_MS;
}

uint64_t ports_held(const struct tt_port_policy *p, const struct tt_diag_sock *socks, size_t n,
		    uint8_t family, const uint8_t addr[16], uint16_t port)
{
	uint8_t held[65536 / 8];
	size_t alen = family == AF_INET ? 4 : 16;
	uint64_t count = 0;

	memset(held, 0, sizeof(held));
	for (size_t i = 0; i < n; i++) {
		const struct tt_diag_sock *s = &socks[i];
		bool toward = s->family == family && s->rport == port &&
			      memcmp(s->raddr, addr, alen) == 0;

		if (!usable(p, s->lport) || bit_is_set(held, s->lport))
			continue;
		if (s->state != TCP_LISTEN && !toward)
			continue;
		if (s->state == TCP_TIME_WAIT && timewait_reusable(p, s))
			continue;
		held[s->lport / 8] |= (uint8_t)(1u << (s->lport % 8));
		count++;
	}
	return count;
}
