#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# nginx runs out of local ports: in a namespace with 100 ephemeral ports
# (ip_local_port_range 40000 40099) and tcp_tw_reuse off (lib.sh), nginx
# with HTTP/1.1 upstream but no keepalive pool closes every upstream
# connection itself, each TIME_WAIT holds a port for 60 s, and connect()
# fails with EADDRNOTAVAIL (nginx logs error 99 and answers 502). Loaded by ab.
#   tools/scenarios/nginx-port-exhaustion.sh [options]   (--help lists them)
set -u
. "$(dirname "$0")/lib.sh"
LOAD=ab
PROXY_CONF=nginx-http11-nopool.conf
SYSCTLS+=("net.ipv4.ip_local_port_range=40000 40099")
sc_init "$@"
sc_nginx backend nginx-backend.conf 8081
sc_nginx proxy "$PROXY_CONF" 8080
sc_run http://127.0.0.1:8080/
