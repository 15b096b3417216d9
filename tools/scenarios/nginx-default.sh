#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# nginx with the default upstream settings (HTTP/1.0, "Connection: close", a
# new upstream connection per request) in front of an nginx backend, loaded
# by wrk over keep-alive connections, so the upstream side is what churns.
# Shows which side of the upstream connections holds their TIME_WAIT.
#   tools/scenarios/nginx-default.sh [options]   (--help lists them)
set -u
. "$(dirname "$0")/lib.sh"
LOAD=wrk
PROXY_CONF=nginx-default.conf
sc_init "$@"
sc_nginx backend nginx-backend.conf 8081
sc_nginx proxy "$PROXY_CONF" 8080
sc_run http://127.0.0.1:8080/

sc_finding "nginx opened $(sc_sum proxy conn_out) upstream connections for $LOAD_REQUESTS requests;" \
	"the backend closed $(sc_sum proxy fin_passive_out) of them first, so the TIME_WAIT is" \
	"the backend's (tw_in $(sc_sum backend tw_in)), not nginx's (tw_out $(sc_sum proxy tw_out))"
