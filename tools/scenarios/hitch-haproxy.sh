#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# hitch terminating TLS (a throwaway self-signed certificate) in front of
# haproxy (option http-keep-alive) in front of an nginx backend, loaded by
# ab over HTTPS with a new TLS connection per request.
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

sc_finding "hitch opened $(sc_sum tls conn_out) backend connections for $(sc_sum tls conn_in) TLS" \
	"connections; haproxy closed $(sc_sum tls fin_passive_out) of them first (its tw_in" \
	"$(sc_sum proxy tw_in)); ab's close_notify, arriving after hitch had closed, drew RSTs" \
	"from hitch: $(sc_sum tls rst_sent_in) from closing sockets, $(sc_sum tls tw_rst) from" \
	"timewait sockets (tw_rst); hitch's RST reasons: $(sc_reasons tls)"
