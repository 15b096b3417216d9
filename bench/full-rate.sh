#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# Exact by default at the machine's full connection rate? In a fresh
# network namespace, PAIRS tt-scenario clients make PER connections each to
# their own server as fast as they can (the client closes first, so each
# leaves a timewait socket), while tcptrace follows them by name, by default
# (no --catch-nested), 1 s intervals. It prints one line: the connections
# and their rate, conn_out, tw_out against TcpExtTW, the last interval's
# tw_now against ss's timewait sockets read after it (a run shorter than a
# timewait socket's 60 s: none ends before ss reads them), and tcptrace's
# lines about events lost. It asserts nothing.
#
#   [TCPTRACE=BUILD] bench/full-rate.sh [--pairs N] [--per N]
#
# Root only, after make.
set -u
export LC_ALL=C
BENCH=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$BENCH/.." && pwd)
PAIRS=8
PER=32500
while [ $# -gt 0 ]; do
	case $1 in
	--pairs) PAIRS=${2:?}; shift 2 ;;
	--per) PER=${2:?}; shift 2 ;;
	*) echo "full-rate: unknown option $1" >&2; exit 2 ;;
	esac
done
[[ $PAIRS =~ ^[1-9][0-9]?$ && $PER =~ ^[1-9][0-9]*$ && $PER -le 60000 ]] ||
	{ echo "full-rate: --pairs takes 1 to 99, --per 1 to 60000" >&2; exit 2; }
[ -x "$TOP/tcptrace" ] && [ -x "$TOP/build/tt-scenario" ] || { echo "full-rate: build first (make)" >&2; exit 1; }

. "$BENCH/netns.sh"
NS=ttrate-$$
RUN=$(mktemp -d /tmp/tcptrace-full-rate.XXXXXX)
TRACER=""
cleanup() {
	[ -n "$TRACER" ] && kill -INT "$TRACER" 2>/dev/null && wait "$TRACER" 2>/dev/null
	netns_remove "$NS"
	rm -rf "$RUN"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP
in_ns() { ip netns exec "$NS" "$@"; }

ip netns add "$NS" && ip -n "$NS" link set lo up || exit 1
in_ns sysctl -qw net.ipv4.ip_local_port_range="1024 65535" net.ipv4.tcp_max_tw_buckets=$((2 * PAIRS * PER))
in_ns nstat -n >/dev/null
"${TCPTRACE:-$TOP/tcptrace}" -p tt-scenario --netns "/run/netns/$NS" --csv "$RUN/t.csv" -i 1 \
	>"$RUN/tracer.out" 2>"$RUN/tracer.err" &
TRACER=$!
for ((i = 0; i < 300; i++)); do grep -qs '^tcptrace: tracing' "$RUN/tracer.err" && break; sleep 0.05; done
grep -qs '^tcptrace: tracing' "$RUN/tracer.err" || { cat "$RUN/tracer.err" >&2; exit 1; }
servers=() clients=()
for ((i = 1; i <= PAIRS; i++)); do
	in_ns "$TOP/build/tt-scenario" server --addr 127.0.0.1 --port $((7000 + i)) --count "$PER" \
		--mode fin-client >"$RUN/server$i.out" 2>&1 &
	servers+=($!)
done
sleep 0.5
start=$(date +%s.%N)
for ((i = 1; i <= PAIRS; i++)); do
	in_ns "$TOP/build/tt-scenario" client --addr 127.0.0.1 --port $((7000 + i)) --count "$PER" \
		--mode fin-client >"$RUN/client$i.out" 2>&1 &
	clients+=($!)
done
wait "${clients[@]}" "${servers[@]}"
end=$(date +%s.%N)
sleep 2.5 # two intervals: the last one's tw_now is read after every close
held=$(in_ns ss -Htan state time-wait | wc -l)
kill -INT "$TRACER" && wait "$TRACER"
TRACER=""
read -r tw killed <<<"$(in_ns nstat -a | awk '$1 == "TcpExtTW" { t = $2 } $1 == "TcpExtTWKilled" { k = $2 } END { print t + 0, k + 0 }')"
read -r conn_out tw_out tw_now <<<"$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	{ co += $c["conn_out"]; to += $c["tw_out"]; if ($1 != last) { last = $1; tn = 0 } tn += $c["tw_now"] }
	END { print co + 0, to + 0, tn + 0 }' "$RUN/t.csv")"
lost=$(grep -E 'events lost|not counted' "$RUN/tracer.err" | paste -sd' ')
echo "connections=$((PAIRS * PER)) rate=$(awk -v s="$start" -v e="$end" -v n=$((PAIRS * PER)) 'BEGIN { printf "%.0f", n / (e - s) }')/s" \
	"conn_out=$conn_out tw_out=$tw_out TcpExtTW=$tw TcpExtTWKilled=$killed tw_now=$tw_now ss_timewait=$held" \
	"lost=${lost:-none}"
