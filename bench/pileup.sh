#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# A pile-up of timewait sockets: what a tracer's own process costs per
# second against the timewait sockets held (bench/run.sh --targets pileup
# runs it once per round and tcptrace variant). In a fresh network
# namespace, PAIRS tt-scenario servers and clients (the client closes
# first, so each connection leaves a timewait socket on the client) make
# connections until TARGET timewait sockets are held, then stop. The
# tracer, started before them, follows the clients by name, 1 s intervals.
# Every second: the namespace's timewait sockets (sockstat) and the
# tracer's CPU time (/proc/PID/stat). Once they are held and nothing
# closes: ss's count of the clients' (the servers, stopped, close a few
# first), and tw_now at the second interval that ends after ss read it,
# both before the first of them can end (a timewait socket lives 60 s:
# the pile-up must take less than about 55 s, else the line says
# tw_now_checked=0); then nothing happens for HOLD seconds: the
# tracer's CPU per second while they are held (as many at the end of the
# hold: held_after).
#
#   bench/pileup.sh TRACER SAMPLES_CSV [--target N] [--pairs N] [--hold S]
#
# Root only, after make. Prints one line of key=value figures; appends
# "held,cpu_ticks,seconds" samples to SAMPLES_CSV. Asserts nothing.
set -u
export LC_ALL=C

BENCH=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$BENCH/.." && pwd)
SCENARIO=${TT_SCENARIO:-$TOP/build/tt-scenario}
TRACER=${1:?usage: bench/pileup.sh TRACER SAMPLES_CSV [--target N] [--pairs N] [--hold S]}
SAMPLES=${2:?usage: bench/pileup.sh TRACER SAMPLES_CSV [--target N] [--pairs N] [--hold S]}
shift 2
TARGET=175000
PAIRS=8
HOLD=10
NAME=tt-pile
while [ $# -gt 0 ]; do
	case $1 in
	--target) TARGET=${2:?}; shift 2 ;;
	--pairs) PAIRS=${2:?}; shift 2 ;;
	--hold) HOLD=${2:?}; shift 2 ;;
	*) echo "pileup: unknown option $1" >&2; exit 2 ;;
	esac
done
[[ $TARGET =~ ^[1-9][0-9]*$ && $PAIRS =~ ^[1-9][0-9]?$ && $HOLD =~ ^[1-9][0-9]*$ ]] ||
	{ echo "pileup: --target, --pairs and --hold take counts" >&2; exit 2; }
[ -x "$SCENARIO" ] && [ -x "$TRACER" ] || { echo "pileup: build first (make)" >&2; exit 1; }

. "$BENCH/netns.sh"
NS=ttpile-$$
RUN=$(mktemp -d /tmp/tcptrace-pileup.XXXXXX)
TRACER_PID=""
cleanup() {
	[ -n "$TRACER_PID" ] && kill -INT "$TRACER_PID" 2>/dev/null && wait "$TRACER_PID" 2>/dev/null
	rm -f "$RUN/go"
	netns_remove "$NS"
	rm -rf "$RUN"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

in_ns() { ip netns exec "$NS" "$@"; }
held() { awk '$1 == "TCP:" { for (i = 2; i < NF; i++) if ($i == "tw") print $(i + 1) }' "$RUN/sockstat"; }
ticks() { awk '{ print $14 + $15 }' "/proc/$TRACER_PID/stat" 2>/dev/null || echo 0; }

ip netns add "$NS" && ip -n "$NS" link set lo up || exit 1
in_ns sysctl -qw net.ipv4.ip_local_port_range="1024 65535" \
	net.ipv4.tcp_max_tw_buckets=$((TARGET + TARGET / 2)) || exit 1
# The namespace's own sockstat, read without entering it each second.
ip netns exec "$NS" sleep 100000 &
KEEPER=$!
sleep 0.1
ln -s "/proc/$KEEPER/net/sockstat" "$RUN/sockstat"

"$TRACER" -p "$NAME" --csv "$RUN/t.csv" ${PILEUP_TRACER_OPTS:-} 1 >/dev/null 2>"$RUN/tracer.err" &
TRACER_PID=$!
for i in $(seq 300); do
	grep -q '^tcptrace: tracing' "$RUN/tracer.err" && break
	kill -0 "$TRACER_PID" 2>/dev/null || { echo "pileup: tracer exited: $(cat "$RUN/tracer.err")" >&2; exit 1; }
	sleep 0.1
done

# Each pair runs connections of 100,000 (tt-scenario's most) one after
# the other while $RUN/go exists.
: >"$RUN/go"
for p in $(seq 9001 $((9000 + PAIRS))); do
	(
		while [ -e "$RUN/go" ]; do
			in_ns "$SCENARIO" server --addr 127.0.0.1 --port "$p" --count 100000 \
				--mode fin-client >/dev/null 2>&1 &
			server=$!
			sleep 0.2
			in_ns "$SCENARIO" client --addr 127.0.0.1 --port "$p" --count 100000 \
				--mode fin-client --name "$NAME" >/dev/null 2>&1
			kill "$server" 2>/dev/null
			wait "$server" 2>/dev/null
		done
	) &
done
start=$SECONDS
last=$(ticks)
while [ "$(held)" -lt "$TARGET" ] && [ $((SECONDS - start)) -lt 120 ]; do
	sleep 1
	now=$(ticks)
	echo "$(held),$((now - last)),1" >>"$SAMPLES"
	last=$now
done
made_in=$((SECONDS - start))
rm -f "$RUN/go"
for pid in $(ip netns pids "$NS"); do [ "$pid" = "$KEEPER" ] || kill -TERM "$pid" 2>/dev/null; done
# The last connections' ends: nothing closing but what the kernel's race
# leaves in FIN-WAIT-2 (a FIN that met no socket), 5 s at most.
for i in $(seq 50); do
	[ -z "$(in_ns ss -tanH state fin-wait-1 state closing state last-ack state close-wait \
		state syn-sent)" ] && break
	sleep 0.1
done
# The clients' (the traced processes'): toward a server's port. A server
# stopped with connections open has closed those first.
ss=$(in_ns ss -tanH state time-wait "( dport >= :9001 and dport <= :$((9000 + PAIRS)) )" | wc -l)
# The second interval that ends after ss has read: one begun after it.
from=$(wc -l <"$RUN/t.csv")
for i in $(seq 100); do
	[ "$(awk -F, -v from="$from" 'NR > from && !($1 in t) { t[$1] = 1; n++ } END { print n + 0 }' \
		"$RUN/t.csv")" -ge 2 ] && break
	sleep 0.1
done
# No timewait socket of the pile-up has ended yet: the first was made
# after start, and lives 60 s.
checked=$(( SECONDS - start < 59 ? 1 : 0 ))
tw_now=$(awk -F, -v name="$NAME" -v from="$from" '
	NR == 1 { for (i = 1; i <= NF; i++) { if ($i == "tw_now") c = i; if ($i == "comm") n = i }; next }
	NR > from && !($1 in s) { t[++k] = $1; s[$1] = 0 }
	NR > from && $n == name { s[$1] += $c }
	END { print s[t[2]] + 0 }' "$RUN/t.csv")
count=$(held)
t0=$(ticks)
w0=$EPOCHREALTIME
sleep "$HOLD"
t1=$(ticks)
w1=$EPOCHREALTIME
echo "$count,$((t1 - t0)),$HOLD" >>"$SAMPLES"
after=$(held)
kill -INT "$TRACER_PID"
wait "$TRACER_PID"
TRACER_PID=""
awk -v held="$count" -v t="$((t1 - t0))" -v hz="$(getconf CLK_TCK)" -v w0="$w0" -v w1="$w1" \
	-v made="$made_in" -v ss="$ss" -v tw="$tw_now" -v checked="$checked" -v after="$after" 'BEGIN {
	printf "held=%d made_in_s=%d cpu_s_per_s=%.4f tw_now=%d ss=%d tw_now_checked=%d held_after=%d\n",
		held, made, t / hz / (w1 - w0), tw, ss, checked, after }'
# What the tracer said at its end of events it lost or could not count.
grep -i 'lost\|not counted\|not followed\|timewait sockets counted' "$RUN/tracer.err" | sed 's/^/  /'
