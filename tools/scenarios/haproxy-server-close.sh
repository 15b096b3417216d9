#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# haproxy in front of an nginx backend, loaded by wrk over keep-alive
# connections. option http-server-close: client connections stay open, every request gets a new server connection.
#   tools/scenarios/haproxy-server-close.sh [options]   (--help lists them)
set -u
. "$(dirname "$0")/lib.sh"
LOAD=wrk
PROXY_CONF=haproxy-http-server-close.cfg
sc_init "$@"
sc_nginx backend nginx-backend.conf 8081
sc_haproxy proxy "$PROXY_CONF" 8080
sc_run http://127.0.0.1:8080/
