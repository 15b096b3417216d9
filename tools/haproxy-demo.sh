#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# haproxy (127.0.0.1:8080) in front of an nginx backend with two workers
# (127.0.0.1:8081), in a private network namespace, loaded by ab with a new
# connection per request, while tcptrace traces haproxy and nginx from
# the host. Everything it starts stops when it ends.
#
#   tools/haproxy-demo.sh [-n REQUESTS] [-c CONCURRENCY] [-t SECONDS] [--csv FILE] [--truth FILE] [--all]
#
# -t bounds the load run (default 120 s): ab is stopped if it takes longer.
#
# --all traces every process (ab included) instead of haproxy and nginx.
# --truth FILE writes what the kernel and ab counted in the namespace over
# the same run (nstat, ss, ab), for tests to compare tcptrace's CSV with:
# each kernel counter as read after tcptrace stopped, and as NAME_before
# just before it was stopped, and the socket destructions the kernel
# counted (perf) and tcptrace's program ran for over the load;
# FILE.nstat gets every kernel counter of the namespace.
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
TCPTRACE=${TCPTRACE:-$TOP/tcptrace}
REQUESTS=2000
CONCURRENCY=10
TIME_LIMIT=120
CSV=""
TRUTH=""
TARGETS=(-p haproxy,nginx)

while [ $# -gt 0 ]; do
	case $1 in
	-n) REQUESTS=$2; shift 2 ;;
	-c) CONCURRENCY=$2; shift 2 ;;
	-t) TIME_LIMIT=$2; shift 2 ;;
	--csv) CSV=$2; shift 2 ;;
	--truth) TRUTH=$2; shift 2 ;;
	--all) TARGETS=(); shift ;;
	*) echo "usage: $0 [-n REQUESTS] [-c CONCURRENCY] [-t SECONDS] [--csv FILE] [--truth FILE] [--all]" >&2; exit 2 ;;
	esac
done

NS=tt-demo-$$
RUN=$(mktemp -d /tmp/tcptrace-demo.XXXXXX)
export NSTAT_HISTORY=$RUN/nstat.history
TRACER=""
PERF=""
STATS_WERE=""

cleanup() {
	[ -n "$PERF" ] && kill -INT "$PERF" 2>/dev/null && wait "$PERF"
	[ -n "$STATS_WERE" ] && sysctl -qw kernel.bpf_stats_enabled="$STATS_WERE"
	[ -n "$TRACER" ] && kill -INT "$TRACER" 2>/dev/null && wait "$TRACER"
	for pid in $(ip netns pids "$NS" 2>/dev/null); do kill -TERM "$pid" 2>/dev/null; done
	sleep 0.2
	for pid in $(ip netns pids "$NS" 2>/dev/null); do kill -KILL "$pid" 2>/dev/null; done
	ip netns del "$NS" 2>/dev/null
	rm -rf "$RUN"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

fail() { echo "haproxy-demo: $*" >&2; exit 1; }
in_ns() { ip netns exec "$NS" "$@"; }

# PIDs in the namespace with this command name, comma-separated.
pids_named() {
	local pid
	for pid in $(ip netns pids "$NS"); do
		[ "$(cat "/proc/$pid/comm" 2>/dev/null)" = "$1" ] && echo "$pid"
	done | paste -sd,
}

listening() { in_ns ss -tlnH "( sport = :$1 )" | grep -q .; }

# Runs so far of tcptrace's program on tcp_destroy_sock
# (kernel.bpf_stats_enabled), from the program ids its descriptors hold.
destroy_runs() {
	local id
	for id in $(awk '$1 == "prog_id:" { print $2 }' /proc/"$TRACER"/fdinfo/* 2>/dev/null | sort -u); do
		bpftool prog show id "$id" -j
	done | jq -s '[.[] | select(.name == "handle_destroy_sock") | .run_cnt // 0] | add // 0'
}

wait_listening() {
	local i
	for i in $(seq 100); do listening "$1" && return 0; sleep 0.05; done
	fail "nothing listens on port $1: $(cat "$RUN"/*.log 2>/dev/null)"
}

[ -x "$TCPTRACE" ] || fail "missing $TCPTRACE: run make first"
ip netns add "$NS" || fail "cannot create a network namespace"
ip -n "$NS" link set lo up
mkdir -p "$RUN/tmp"

in_ns nginx -p "$RUN/" -c "$TOP/tools/scenarios/nginx-backend.conf" -e "$RUN/nginx.log" \
	-g 'daemon off;' >"$RUN/nginx.out.log" 2>&1 &
in_ns haproxy -db -f "$TOP/tools/scenarios/haproxy.cfg" >"$RUN/haproxy.log" 2>&1 &
wait_listening 8081
wait_listening 8080

"$TCPTRACE" "${TARGETS[@]}" ${CSV:+--csv "$CSV"} 2> >(tee "$RUN/tracer.err" >&2) &
TRACER=$!
for i in $(seq 200); do grep -q '^tcptrace: tracing' "$RUN/tracer.err" 2>/dev/null && break; sleep 0.05; done
grep -q '^tcptrace: tracing' "$RUN/tracer.err" || fail "tcptrace did not start"
# --truth: a witness of the events the kernel gives no BPF program
# (docs/reliability.md): the kernel's own count of socket destructions
# (perf, no BPF), against the runs of tcptrace's program over a window
# that holds perf's.
if [ -n "$TRUTH" ]; then
	STATS_WERE=$(sysctl -n kernel.bpf_stats_enabled)
	sysctl -qw kernel.bpf_stats_enabled=1
	RUNS_BEFORE=$(destroy_runs)
	perf stat -x, -e tcp:tcp_destroy_sock -a -o "$RUN/perf.out" 2>"$RUN/perf.err" &
	PERF=$!
fi
sleep 1 # one quiet interval before the load starts

# ab itself is the child (its PID goes into --truth); a watchdog bounds it.
ip netns exec "$NS" ab -q -n "$REQUESTS" -c "$CONCURRENCY" -s 10 \
	http://127.0.0.1:8080/ >"$RUN/ab.out" 2>&1 &
AB=$!
(sleep "$TIME_LIMIT" && kill "$AB" 2>/dev/null) &
WATCHDOG=$!
wait "$AB" || fail "ab failed: $(tail -3 "$RUN/ab.out")"
kill "$WATCHDOG" 2>/dev/null
# Let the last connections finish closing, and land in one more interval.
closing() {
	in_ns ss -tanH state fin-wait-1 state fin-wait-2 state closing state last-ack state close-wait
}
for i in $(seq 100); do
	[ -z "$(closing)" ] && break
	sleep 0.05
done
CLOSING_LEFT=$(closing | wc -l)
sleep 1.2
if [ -n "$TRUTH" ]; then
	kill -INT "$PERF"
	wait "$PERF"
	PERF=""
	grep -q ',tcp:tcp_destroy_sock,' "$RUN/perf.out" ||
		fail "perf counted no socket destruction: $(cat "$RUN/perf.err" "$RUN/perf.out")"
	RUNS_AFTER=$(destroy_runs)
	sysctl -qw kernel.bpf_stats_enabled="$STATS_WERE"
	STATS_WERE=""
fi
# Timewait sockets expire every second in a run longer than 60 s: the
# count before and after tcptrace's last snapshot brackets its tw_now.
TW_BEFORE=$(in_ns ss -tanH state time-wait | wc -l)
TW_8080_BEFORE=$(in_ns ss -tanH state time-wait '( sport = :8080 )' | wc -l)
# The same for the kernel's counters: a connection that ends while
# tcptrace stops (haproxy closes idle upstream connections on a timer)
# counts in the second reading and not in tcptrace's last snapshot.
[ -z "$TRUTH" ] || in_ns nstat -az >"$RUN/nstat.before"
kill -INT "$TRACER"
wait "$TRACER" || fail "tcptrace failed"
TRACER=""

if [ -n "$TRUTH" ]; then
	# Every counter of the namespace, for a look when a figure differs.
	in_ns nstat -az >"$TRUTH.nstat"
	{
		for counter in TcpActiveOpens TcpPassiveOpens TcpOutRsts TcpExtTW TcpExtTWKilled \
			TcpExtTCPTimeWaitOverflow TcpAttemptFails TcpExtTCPAbortFailed; do
			echo "$counter=$(awk -v k="$counter" '$1 == k { print $2 }' "$TRUTH.nstat")"
			echo "${counter}_before=$(awk -v k="$counter" '$1 == k { print $2 }' "$RUN/nstat.before")"
		done
		echo "closing_left=$CLOSING_LEFT"
		echo "destroys_counted_by_perf=$(awk -F, '$3 == "tcp:tcp_destroy_sock" { print $1 }' "$RUN/perf.out")"
		echo "destroys_run_by_tcptrace=$((RUNS_AFTER - RUNS_BEFORE))"
		echo "ss_timewait_before=$TW_BEFORE"
		echo "ss_timewait=$(in_ns ss -tanH state time-wait | wc -l)"
		echo "ss_timewait_from_8080_before=$TW_8080_BEFORE"
		echo "ss_timewait_from_8080=$(in_ns ss -tanH state time-wait '( sport = :8080 )' | wc -l)"
		echo "ab_complete=$(awk '/^Complete requests:/ { print $3 }' "$RUN/ab.out")"
		echo "ab_failed=$(awk '/^Failed requests:/ { print $3 }' "$RUN/ab.out")"
		echo "ab_pid=$AB"
		echo "netns_inum=$(stat -L -c %i "/run/netns/$NS")"
		echo "haproxy_pids=$(pids_named haproxy)"
		echo "nginx_master=$(cat "$RUN/nginx.pid")"
		echo "nginx_pids=$(pids_named nginx)"
	} >"$TRUTH"
fi
