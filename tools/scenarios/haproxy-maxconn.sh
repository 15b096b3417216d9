#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# haproxy at its maxconn (20) with a listen queue of 16 (bind ... backlog 16)
# in front of a slow backend (slow-backend.py: every answer after 50 ms),
# loaded by ab with 300 concurrent clients and a new connection per request:
# once haproxy holds 20 connections it stops accepting, 17 more wait in the
# kernel's queue, and the kernel drops the SYNs after them. Each such client
# sends its SYN again a second later, and again. --load wrk: 300 keep-alive
# connections opened at once, of which haproxy serves 20. SYN cookies are
# off in the namespace (see docs/diagnosing.md#syn-cookies); --sysctl
# net.ipv4.tcp_syncookies=1 turns them back on.
#   tools/scenarios/haproxy-maxconn.sh [options]   (--help lists them)
set -u
. "$(dirname "$0")/lib.sh"
LOAD=ab
REQUESTS=1000
CONCURRENCY=300
PROXY_CONF=haproxy-maxconn.cfg
SYSCTLS+=(net.ipv4.tcp_syncookies=0)
SHOW_LOAD=1
sc_init "$@"
sc_slow_backend backend 8081 50
sc_haproxy proxy "$PROXY_CONF" 8080
sc_run http://127.0.0.1:8080/
