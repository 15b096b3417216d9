// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Unit tests of ports.c: the sysctl parsers and the ports held toward a
 * destination, timewait reuse and listeners included. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include "tracer/ports.h"

static struct tt_port_policy policy; /* 8 KiB: not on the test's stack */

static struct tt_diag_sock sock_v4(uint8_t state, uint16_t lport, uint8_t last_octet,
				   uint16_t rport)
{
	struct tt_diag_sock s;

	memset(&s, 0, sizeof(s));
	s.family = AF_INET;
	s.state = state;
	s.lport = lport;
	s.rport = rport;
	s.laddr[0] = 127;
	s.laddr[3] = 1;
	s.raddr[0] = 127;
	s.raddr[3] = last_octet;
	return s;
}

static const uint8_t dest_1[16] = { 127, 0, 0, 1 };
static const uint8_t dest_2[16] = { 127, 0, 0, 2 };

static void test_parse_range(void **state)
{
	uint16_t lo = 1, hi = 2;

	(void)state;
	assert_int_equal(ports_parse_range("32768\t60999", &lo, &hi), 0);
	assert_int_equal(lo, 32768);
	assert_int_equal(hi, 60999);
	assert_int_equal(ports_parse_range("40000 40003", &lo, &hi), 0);
	assert_int_equal(hi, 40003);
	assert_int_equal(ports_parse_range("5 4", &lo, &hi), -1);
	assert_int_equal(ports_parse_range("0 4", &lo, &hi), -1);
	assert_int_equal(ports_parse_range("1 70000", &lo, &hi), -1);
	assert_int_equal(ports_parse_range("1", &lo, &hi), -1);
	assert_int_equal(ports_parse_range("1 2 3", &lo, &hi), -1);
	assert_int_equal(lo, 40000); /* untouched by the failures */
}

static void test_parse_reserved_and_usable(void **state)
{
	(void)state;
	ports_policy_default(&policy);
	policy.lo = 40000;
	policy.hi = 40009;
	assert_int_equal(ports_parse_reserved("", policy.reserved), 0);
	assert_int_equal(ports_usable(&policy), 10);
	assert_int_equal(ports_parse_reserved("40001,40005-40007,8080", policy.reserved), 0);
	assert_int_equal(ports_usable(&policy), 6);
	assert_int_equal(ports_parse_reserved("40005-40004", policy.reserved), -1);
	assert_int_equal(ports_usable(&policy), 10);
	assert_int_equal(ports_parse_reserved("12;13", policy.reserved), -1);
}

static void test_held_counts_sockets_toward_the_destination_only(void **state)
{
	struct tt_diag_sock socks[] = {
		sock_v4(TCP_ESTABLISHED, 40000, 1, 80), sock_v4(TCP_SYN_SENT, 40001, 1, 80),
		sock_v4(TCP_ESTABLISHED, 40002, 1, 81), /* another port of the peer */
		sock_v4(TCP_ESTABLISHED, 40003, 2, 80), /* another peer */
		sock_v4(TCP_ESTABLISHED, 39999, 1, 80), /* outside the range */
		sock_v4(TCP_FIN_WAIT2, 40000, 1, 80),   /* same port twice: once */
	};

	(void)state;
	ports_policy_default(&policy);
	policy.lo = 40000;
	policy.hi = 40009;
	assert_int_equal(ports_held(&policy, socks, 6, AF_INET, dest_1, 80), 2);
	assert_int_equal(ports_held(&policy, socks, 6, AF_INET, dest_1, 81), 1);
	assert_int_equal(ports_held(&policy, socks, 6, AF_INET, dest_2, 80), 1);
	assert_int_equal(ports_held(&policy, socks, 6, AF_INET6, dest_1, 80), 0);
}

static void test_listener_in_range_is_held_for_every_destination(void **state)
{
	struct tt_diag_sock socks[] = { sock_v4(TCP_LISTEN, 40005, 0, 0) };

	(void)state;
	ports_policy_default(&policy);
	policy.lo = 40000;
	policy.hi = 40009;
	assert_int_equal(ports_held(&policy, socks, 1, AF_INET, dest_1, 80), 1);
	assert_int_equal(ports_held(&policy, socks, 1, AF_INET, dest_2, 443), 1);
}

static void test_timewait_reuse(void **state)
{
	struct tt_diag_sock young = sock_v4(TCP_TIME_WAIT, 40000, 1, 80);
	struct tt_diag_sock old = sock_v4(TCP_TIME_WAIT, 40001, 1, 80);
	struct tt_diag_sock socks[2];

	(void)state;
	young.expires_ms = TT_TIMEWAIT_MS - 200;  /* closed 0.2 s ago */
	old.expires_ms = TT_TIMEWAIT_MS - 5000;   /* 5 s ago */
	socks[0] = young;
	socks[1] = old;
	ports_policy_default(&policy);
	policy.lo = 40000;
	policy.hi = 40009;
	policy.tw_reuse = 0;
	assert_int_equal(ports_held(&policy, socks, 2, AF_INET, dest_1, 80), 2);
	/* 2, the default: on loopback, a timewait socket over a second old is free. */
	policy.tw_reuse = 2;
	assert_int_equal(ports_held(&policy, socks, 2, AF_INET, dest_1, 80), 1);
	/* ... but not toward another host. */
	socks[0].raddr[0] = socks[1].raddr[0] = 10;
	{
		const uint8_t remote[16] = { 10, 0, 0, 1 };

		assert_int_equal(ports_held(&policy, socks, 2, AF_INET, remote, 80), 2);
		policy.tw_reuse = 1;
		assert_int_equal(ports_held(&policy, socks, 2, AF_INET, remote, 80), 1);
	}
}

static void test_reserved_ports_are_not_held(void **state)
{
	struct tt_diag_sock socks[] = { sock_v4(TCP_ESTABLISHED, 40001, 1, 80) };

	(void)state;
	ports_policy_default(&policy);
	policy.lo = 40000;
	policy.hi = 40009;
	assert_int_equal(ports_parse_reserved("40001", policy.reserved), 0);
	assert_int_equal(ports_held(&policy, socks, 1, AF_INET, dest_1, 80), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_range),
		cmocka_unit_test(test_parse_reserved_and_usable),
		cmocka_unit_test(test_held_counts_sockets_toward_the_destination_only),
		cmocka_unit_test(test_listener_in_range_is_held_for_every_destination),
		cmocka_unit_test(test_timewait_reuse),
		cmocka_unit_test(test_reserved_ports_are_not_held),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
