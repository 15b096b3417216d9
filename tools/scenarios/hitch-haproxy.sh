#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# hitch terminating TLS (a throwaway self-signed certificate) in front of
# haproxy (option http-keep-alive) in front of an nginx backend, loaded by
# ab over HTTPS with a new TLS connection per request. haproxy closes
# hitch's connections first (its TIME_WAIT); hitch closes the client side
# first, and ab's TLS close_notify, arriving after that, draws an RST:
# from hitch's closing socket (TCP_ABORT_ON_DATA) or from its timewait
# socket (tw_rst).
#   tools/scenarios/hitch-haproxy.sh [options]   (--help lists them)
set -u
. "$(dirname "$0")/lib.sh"
LOAD=ab
PROXY_CONF=haproxy-http-keep-alive.cfg
sc_init "$@"
sc_nginx backend nginx-backend.conf 8081
sc_haproxy proxy "$PROXY_CONF" 8080
sc_hitch tls hitch.conf 8443
sc_run https://127.0.0.1:8443/
