#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# What each building block of a TCP tracer costs per event on this kernel:
# map types, per-socket bookkeeping, probe reads, the process name. Each
# program of bench/hookcost.bpf.c is attached alone to the tracepoint
# inet_sock_set_state (raw_tp; tp_btf for the tpbtf_ programs) while ab
# loads nginx with a new connection per request (about 10 state changes a
# request), in a fresh network namespace per run; the kernel's own
# statistics (kernel.bpf_stats_enabled) give its run time per event.
# Rounds interleave the programs, in an order that rotates. It prints
# figures; it asserts nothing.
#
#   bench/hookcost.sh [-r ROUNDS] [-n REQUESTS] [PROGRAM...]
#
# Root only, after `make hookcost`. See bench/README.md.
set -u
export LC_ALL=C

BENCH=$(cd "$(dirname "$0")" && pwd)
MEDIAN_AWK=$(cat "$BENCH/median.awk")
TOP=$(cd "$BENCH/.." && pwd)
HOOKCOST=${HOOKCOST:-$TOP/build/hookcost}
NGINX_CONF=$TOP/tools/scenarios/nginx-backend.conf
ROUNDS=3
REQUESTS=20000
RUN="" NS="" LOADER="" STATS_BEFORE=""

fail() { echo "hookcost: $*" >&2; exit 1; }
. "$BENCH/netns.sh"

while [ $# -gt 0 ]; do
	case $1 in
	-r) [[ ${2:-} =~ ^[1-9][0-9]*$ ]] || fail "-r needs a count"; ROUNDS=$2; shift 2 ;;
	-n) [[ ${2:-} =~ ^[1-9][0-9]*$ ]] || fail "-n needs a count"; REQUESTS=$2; shift 2 ;;
	-h|--help) sed -n '3,15p' "$0" >&2; exit 2 ;;
	-*) fail "unknown option $1" ;;
	*) break ;;
	esac
done
[ -x "$HOOKCOST" ] || fail "missing $HOOKCOST: run make hookcost first"
if [ $# -gt 0 ]; then PROGS=("$@"); else mapfile -t PROGS < <("$HOOKCOST" --list); fi

stop_namespace() {
	[ -n "$NS" ] || return 0
	netns_remove "$NS"
	NS=""
}

cleanup() {
	[ -n "$LOADER" ] && kill -INT "$LOADER" 2>/dev/null && wait "$LOADER" 2>/dev/null
	stop_namespace
	[ -n "$STATS_BEFORE" ] && sysctl -qw kernel.bpf_stats_enabled="$STATS_BEFORE"
	[ -n "$RUN" ] && rm -rf "$RUN"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

STATS_BEFORE=$(sysctl -n kernel.bpf_stats_enabled) || fail "cannot read kernel.bpf_stats_enabled"
sysctl -qw kernel.bpf_stats_enabled=1 || fail "cannot set kernel.bpf_stats_enabled"
RUN=$(mktemp -d /tmp/hookcost.XXXXXX) || fail "cannot create a scratch directory"
SEQ=0

start_nginx() {
	local i
	SEQ=$((SEQ + 1))
	NS=hookcost-$$-$SEQ
	ip netns add "$NS" || fail "cannot create network namespace $NS"
	ip -n "$NS" link set lo up
	ip netns exec "$NS" sysctl -qw net.ipv4.ip_local_port_range="1024 65535"
	rm -rf "$RUN/srv" && mkdir -p "$RUN/srv/tmp"
	ip netns exec "$NS" nginx -p "$RUN/srv/" -c "$NGINX_CONF" -e "$RUN/srv/error.log" \
		-g 'daemon off;' >"$RUN/srv/nginx.log" 2>&1 &
	for i in $(seq 100); do
		ip netns exec "$NS" ss -tlnH '( sport = :8081 )' | grep -q . && return 0
		sleep 0.05
	done
	fail "nginx did not start: $(cat "$RUN/srv/error.log")"
}

# One run: "program rounds req_per_s run_cnt run_time_ns" into $RUN/runs.
run_one() {
	local prog=$1 i rps
	start_nginx
	"$HOOKCOST" "$prog" >"$RUN/loader.out" 2>"$RUN/loader.err" &
	LOADER=$!
	# Filling a map (the _full programs) takes seconds on a loaded machine.
	for i in $(seq 2400); do
		grep -q "^ready" "$RUN/loader.out" && break
		kill -0 "$LOADER" 2>/dev/null || break
		sleep 0.05
	done
	if ! grep -q '^ready' "$RUN/loader.out"; then
		kill -INT "$LOADER" 2>/dev/null
		wait "$LOADER"
		# Above 128: killed by signal (status - 128), not by an error of its own.
		echo "  $prog: not attached (loader exit status $?), run skipped: $(cat "$RUN/loader.err")" >&2
		LOADER=""
		stop_namespace
		return 0
	fi
	ip netns exec "$NS" ab -q -r -n "$REQUESTS" -c 50 -s 10 http://127.0.0.1:8081/ >"$RUN/ab.out" 2>&1
	kill -INT "$LOADER"
	wait "$LOADER"
	LOADER=""
	stop_namespace
	rps=$(awk '/^Requests per second/ { print $4 }' "$RUN/ab.out")
	awk -v rps="${rps:-0}" '$1 != "ready" { print $1, rps, $2, $3 }' "$RUN/loader.out" >>"$RUN/runs"
	tail -1 "$RUN/runs" | awk '{ printf "  %-28s %9.0f req/s %9d runs %7.1f ns/run\n", $1, $2, $3, $3 ? $4 / $3 : 0 }' >&2
}

echo "hookcost: $(date -u '+%Y-%m-%d %H:%M UTC'), Linux $(uname -r), $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)" >&2
echo "hookcost: $ROUNDS rounds of ${#PROGS[@]} programs, ab -n $REQUESTS -c 50 against nginx" >&2
: >"$RUN/runs"
for r in $(seq 1 "$ROUNDS"); do
	echo "round $r/$ROUNDS" >&2
	for j in $(seq 0 $((${#PROGS[@]} - 1))); do
		run_one "${PROGS[$(( (j + r - 1) % ${#PROGS[@]} ))]}"
	done
done

# Median ns/run per program, and the same less the empty program's.
awk "$MEDIAN_AWK"'
	$3 > 0 {
		if (!($1 in ns)) order[++n] = $1
		x = $4 / $3
		if (!($1 in lo) || x < lo[$1]) lo[$1] = x
		if (!($1 in hi) || x > hi[$1]) hi[$1] = x
		ns[$1] = ns[$1] " " x; runs[$1] = runs[$1] " " $3
	}
	END {
		base = ("empty" in ns) ? median(ns["empty"]) : 0
		printf "\n| program | runs per round | ns/run (median) | min-max | above empty |\n|---|---:|---:|---|---:|\n"
		for (i = 1; i <= n; i++) {
			p = order[i]; m = median(ns[p])
			printf "| %s | %d | %.1f | %.0f-%.0f | %s |\n", p, median(runs[p]), m, lo[p], hi[p],
				(base ? sprintf("%+.1f", m - base) : "-")
		}
	}' "$RUN/runs"
