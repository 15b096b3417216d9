#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# nginx with HTTP/1.1 upstream but no keepalive pool in front of an nginx
# backend, loaded by vegeta at a constant rate with a new connection per
# request. The backend keeps each upstream connection open, so nginx closes
# it first after every response: the TIME_WAIT on nginx's upstream side
# grows by the request rate every second, and is held for 60 s.
#   tools/scenarios/nginx-constant-rate.sh [options]   (--help lists them)
set -u
. "$(dirname "$0")/lib.sh"
LOAD=vegeta
PROXY_CONF=nginx-http11-nopool.conf
sc_init "$@"
sc_nginx backend nginx-backend.conf 8081
sc_nginx proxy "$PROXY_CONF" 8080
sc_run http://127.0.0.1:8080/
