#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# nginx's stream module (layer 4) in front of an nginx backend, loaded by
# ab: each client connection gets an upstream connection of its own, and
# nginx passes bytes, not requests. -k keeps ab's connections open; --post
# sends a request body. Shows who closes each hop and where the TIME_WAIT is.
#   tools/scenarios/nginx-stream.sh [options]   (--help lists them)
set -u
. "$(dirname "$0")/lib.sh"
LOAD=ab
PROXY_CONF=nginx-stream.conf
sc_init "$@"
sc_nginx backend nginx-backend.conf 8081
sc_nginx proxy "$PROXY_CONF" 8080
sc_run http://127.0.0.1:8080/
