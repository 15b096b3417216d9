#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# nginx with a listen queue of 16 (listen ... backlog=16) and 64 file
# descriptors per worker (worker_rlimit_nofile 64) in front of a slow
# backend (slow-backend.py: every answer after 50 ms), loaded by ab with 300
# concurrent clients and a new connection per request. Each request holds
# a client and an upstream connection for 50 ms, so the workers run out of
# descriptors: accept4() fails (EMFILE), nginx stops accepting for 500 ms,
# the queue fills, and the kernel drops the SYNs after it; each such client
# sends its SYN again a second later. The requests whose upstream socket()
# fails the same way get a 500. --load wrk: 300 keep-alive connections
# opened at once. SYN cookies are off in the namespace (see
# docs/diagnosing.md#syn-cookies); --sysctl net.ipv4.tcp_syncookies=1 turns
# them back on.
#   tools/scenarios/nginx-backlog.sh [options]   (--help lists them)
set -u
. "$(dirname "$0")/lib.sh"
LOAD=ab
REQUESTS=1000
CONCURRENCY=300
PROXY_CONF=nginx-backlog.conf
SYSCTLS+=(net.ipv4.tcp_syncookies=0)
SHOW_LOAD=1
sc_init "$@"
sc_slow_backend backend 8081 50
sc_nginx proxy "$PROXY_CONF" 8080
sc_run http://127.0.0.1:8080/
