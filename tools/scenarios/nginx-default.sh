#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# nginx with the default upstream settings (HTTP/1.0, "Connection: close", a
# new upstream connection per request) in front of an nginx backend, loaded
# by wrk over keep-alive connections, so the upstream side is what churns.
# The backend answers and closes each upstream connection first, so their
# TIME_WAIT is the backend's, not nginx's: tcptrace's finding puts it on the
# backend's workers (the instance under the backend's master).
#   tools/scenarios/nginx-default.sh [options]   (--help lists them)
set -u
. "$(dirname "$0")/lib.sh"
LOAD=wrk
PROXY_CONF=nginx-default.conf
sc_init "$@"
sc_nginx backend nginx-backend.conf 8081
sc_nginx proxy "$PROXY_CONF" 8080
sc_run http://127.0.0.1:8080/
