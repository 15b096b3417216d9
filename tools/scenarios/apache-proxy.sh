#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# Apache httpd (event MPM, mod_proxy_http) in front of an nginx backend,
# loaded by ab with a new client connection per request. mod_proxy keeps
# its backend connections open and reuses them; Apache closes the client
# connections first: TIME_WAIT on its client side only.
#   tools/scenarios/apache-proxy.sh [options]   (--help lists them)
set -u
. "$(dirname "$0")/lib.sh"
LOAD=ab
PROXY_CONF=apache-proxy.conf
sc_init "$@"
sc_nginx backend nginx-backend.conf 8081
sc_apache proxy "$PROXY_CONF" 8080
sc_run http://127.0.0.1:8080/
