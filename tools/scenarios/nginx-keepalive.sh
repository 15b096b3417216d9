#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# nginx with upstream keepalive (proxy_http_version 1.1, an empty Connection
# header, keepalive 16) in front of an nginx backend, loaded by wrk over
# keep-alive connections: upstream connections are reused, not reopened, and
# none ends, so neither side holds a TIME_WAIT of them.
#   tools/scenarios/nginx-keepalive.sh [options]   (--help lists them)
set -u
. "$(dirname "$0")/lib.sh"
LOAD=wrk
PROXY_CONF=nginx-keepalive.conf
sc_init "$@"
sc_nginx backend nginx-backend.conf 8081
sc_nginx proxy "$PROXY_CONF" 8080
sc_run http://127.0.0.1:8080/
