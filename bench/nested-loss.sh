#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# Events the kernel skips tcptrace's programs for (a program already
# running on the CPU: recursion_misses), against the connection rate: for
# each rate, in a fresh network namespace, vegeta makes a new connection
# per request to nginx for DURATION seconds while one tcptrace traces
# every process of the namespace (--netns), without --catch-nested (or with, given --catch-nested).
# It prints a row per rate: connections made, events lost (tcptrace's own
# line at exit), and timewait sockets counted against TcpExtTW. It asserts
# nothing: the rate where the default stops being exact is for the docs.
#
#   bench/nested-loss.sh [--rates 1000,5000,...] [--duration S] [--catch-nested]
#
# Root only, after make; vegeta from tools/install-deps.sh.
set -u
export LC_ALL=C

BENCH=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$BENCH/.." && pwd)
TCPTRACE=${TCPTRACE:-$TOP/tcptrace}
RATES=1000,2000,5000,10000,0
DURATION=13
EXTRA=()
NS=""
TRACER=""
WORK=$(mktemp -d /tmp/tcptrace-nested.XXXXXX)

. "$BENCH/netns.sh"

usage() {
	echo "usage: $0 [--rates R,R,...] [--duration SECONDS] [--catch-nested]  (rate 0: as fast as it goes)" >&2
	exit 2
}

while [ $# -gt 0 ]; do
	case $1 in
	--rates) [ $# -ge 2 ] && [[ $2 =~ ^[0-9]+(,[0-9]+)*$ ]] || usage; RATES=$2; shift 2 ;;
	--duration) [ $# -ge 2 ] && [[ $2 =~ ^[1-9][0-9]{0,3}$ ]] || usage; DURATION=$2; shift 2 ;;
	--catch-nested) EXTRA=(--catch-nested); shift ;;
	*) usage ;;
	esac
done

clean_up() {
	[ -n "$TRACER" ] && kill -INT "$TRACER" 2>/dev/null && wait "$TRACER" 2>/dev/null
	[ -n "$NS" ] && netns_remove "$NS"
	rm -rf "$WORK"
}
trap clean_up EXIT
trap 'exit 1' INT TERM

nstat_of() { # counter (of the namespace's last nstat reading)
	awk -v k="$1" '$1 == k { print $2; f = 1 } END { if (!f) print 0 }' "$WORK/nstat"
}

# One rate: prints its row.
run_rate() { # rate (0: unbounded)
	local rate=$1 made lost tw_counted tw_kernel
	NS=tt-nested-$$-$rate
	ip netns add "$NS" && ip -n "$NS" link set lo up || return 1
	ip netns exec "$NS" sysctl -qw net.ipv4.ip_local_port_range="1024 65535" \
		net.ipv4.tcp_max_tw_buckets=2000000 net.ipv4.tcp_tw_reuse=1
	cat >"$WORK/nginx.conf" <<EOF
worker_processes 2;
pid $WORK/nginx.pid;
error_log $WORK/error.log;
events { worker_connections 4096; }
http {
	access_log off;
	server { listen 127.0.0.1:8081 backlog=4096; location / { return 200 "ok\n"; } }
}
EOF
	ip netns exec "$NS" nginx -c "$WORK/nginx.conf" || return 1
	"$TCPTRACE" "${EXTRA[@]}" --netns "/run/netns/$NS" --csv "$WORK/t.csv" 1 >/dev/null 2>"$WORK/tracer.err" &
	TRACER=$!
	until grep -qs '^tcptrace: tracing' "$WORK/tracer.err"; do
		kill -0 "$TRACER" 2>/dev/null || { cat "$WORK/tracer.err" >&2; return 1; }
		sleep 0.05
	done
	ip netns exec "$NS" nstat -n
	echo "GET http://127.0.0.1:8081/" |
		timeout $((DURATION + 30)) ip netns exec "$NS" vegeta attack -keepalive=false \
			-rate="$rate/s" -duration="${DURATION}s" -max-workers 64 -timeout 5s \
			>"$WORK/results.bin"
	sleep 1
	ip netns exec "$NS" nstat -a >"$WORK/nstat"
	kill -INT "$TRACER"
	wait "$TRACER"
	TRACER=""
	made=$(nstat_of TcpActiveOpens)
	lost=$(sed -n 's/^tcptrace: \([0-9]*\) events lost.*/\1/p' "$WORK/tracer.err")
	tw_counted=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		{ s += $c["tw_in"] + $c["tw_out"] } END { print s + 0 }' "$WORK/t.csv")
	tw_kernel=$(nstat_of TcpExtTW)
	printf '%8s %8.0f %11s %8s %12s %10s\n' "${rate/#0/max}" "$((made / DURATION))" "$made" \
		"${lost:-0}" "$tw_counted" "$tw_kernel"
	netns_remove "$NS"
	NS=""
}

printf '%8s %8s %11s %8s %12s %10s\n' rate conn/s connections lost tw_counted TcpExtTW
for rate in ${RATES//,/ }; do
	run_rate "$rate" || { echo "nested-loss: rate $rate failed" >&2; exit 1; }
done
