#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# Soak (make soak, root; not part of make test): the cases that failed once,
# and the listen-queue and handshake cases, run many times each beside the
# contention of make test's second lane: a second tcptrace of this build
# tracing every process (./tcptrace 0.5 >/dev/null) and a busy loop per
# CPU at nice 19. Each run is one case alone (the suite's ONLY= set to the
# case's whole name), one bench/held-at-once.sh, or one guest of the kernel
# matrix (tests/kernel/run.sh SERIES). The runs go in rounds, each case's
# runs spread evenly over them, so that a soak cut short has run every case.
#
#   SOAK_RUNS=100        runs of each short case
#   SOAK_SCALE_RUNS=5    runs of each scale case (1,000,000 connections, held at once)
#   SOAK_GUEST_RUNS=50   runs of each guest series
#   SOAK_KERNELS="5.10 6.1 6.12"  the guest series
#   SOAK_ONLY='a|b'      only the cases whose label holds one of these texts
#   SOAK_CONTENTION=0    no second tracer, no busy loops
#
# A failing run's whole output stays in build/soak/TIMESTAMP/; at the end, a
# table of runs and failures per case and "N passed, N failed" (runs). Exit
# 1 if any run failed, or if the second tracer did not start or did not
# last; 130 when interrupted. Everything it started is stopped on exit.
set -u
cd "$(dirname "$0")/.."

RUNS=${SOAK_RUNS:-100}
SCALE_RUNS=${SOAK_SCALE_RUNS:-5}
GUEST_RUNS=${SOAK_GUEST_RUNS:-50}
KERNELS=${SOAK_KERNELS:-5.10 6.1 6.12}
CONTENTION=${SOAK_CONTENTION:-1}
# Seconds a run may take before it is interrupted, by kind: beyond the
# harnesses' own limits, a bound on a hang of anything they do not time.
declare -A LIMIT=([short]=900 [scale]=2400 [guest]=900)

LOGS=build/soak/$(date -u +%Y%m%d-%H%M%S)
TRACER_PID=""
HOG_PIDS=()
RUN_PID=""

die() { echo "soak: $*" >&2; exit 1; }
for n in "$RUNS" "$SCALE_RUNS" "$GUEST_RUNS"; do
	[[ $n =~ ^[0-9]+$ ]] || die "SOAK_RUNS, SOAK_SCALE_RUNS and SOAK_GUEST_RUNS take a count, not '$n'"
done
[ "$(id -u)" -eq 0 ] || die "needs root (BPF, network namespaces)"
[ -x tcptrace ] && [ -x build/tt-scenario ] || die "run make and make build/tt-scenario first (make soak does)"

# The cases: kind, suite, the case's whole name (or the held-at-once
# options, or the kernel series). Why each is here is in docs/testing.md.
CASES=$(
	cat <<'EOF'
short|integration|listen drops at the SYN: = ListenDrops = ss -ltm's d, SYN retries = TCPSynRetrans
short|integration|listen drops under overload, no SYN cookies: = ListenDrops
short|integration|listen drops under overload, SYN cookies: = ListenDrops
short|integration|listen drops of a listener closed between two snapshots: none lost
short|integration|listen drops under TCP_DEFER_ACCEPT: its bare ACKs dropped are none
short|integration|handshakes: last ACKs dropped at a full accept queue, SYN-ACKs sent again
short|integration|handshakes with --netns: the listener from before the start seeded, its SYN-ACKs sent again counted
short|integration|TCP Fast Open, handshakes completed
short|integration|TCP Fast Open, closed in SYN_RECV: FIN
short|integration|TCP Fast Open, IPv6: closed in SYN_RECV: FIN
short|integration|TCP Fast Open, closed in SYN_RECV with data unread: RST sent
short|integration|TCP Fast Open, RST received in SYN_RECV
short|integration|TCP Fast Open, listener closed with children in SYN_RECV
short|integration|timewait sockets awaiting the peer's FIN keep their owner
short|integration|without CAP_SYS_ADMIN: another namespace said, its own read
short|integration|data segments sent again --by dest: each destination's = its client's, the finding names the lossy one
short|integration|clean exit: count, duration, signals, closed stdout, traced process gone, SIGKILL
short|integration|wrk against haproxy at maxconn: the load_client finding = wrk's connections, TCPSynRetrans
short|integration|ends no program saw: each connection counted once, ended, said not counted, or left
short|e2e|L4 nginx stream, ab: the backend's FIN passed on, TIME_WAIT where each hop accepted
short|e2e|vegeta at a constant rate, nginx without an upstream pool: its upstream TIME_WAIT grows by the rate
short|e2e|listen queue: haproxy maxconn 20 backlog 16, ab -c 300: drops = ListenDrops, SYN retries
short|e2e|listen queue: haproxy maxconn 20 backlog 16, wrk -c 300: drops = ListenDrops, SYN retries
short|e2e|listen queue: nginx listen backlog=16 out of descriptors, ab -c 300: drops = ListenDrops, SYN retries
short|e2e|listen queue: nginx listen backlog=16 out of descriptors, wrk -c 300: drops = ListenDrops, SYN retries
short|exporter|listen queues: drops = ListenDrops, SYNs sent again = TCPSynRetrans, open = ss, per process in the CSV
short|exporter|the Grafana dashboard: every query returns its series, exact where the scenario makes it
short|report|real run: a full accept queue drops SYNs, which go again
short|report|real run --by dest: one destination runs out of local ports
scale|integration|102,000 concurrent connections, exact
scale|integration|1,000,000 connections through haproxy: totals = nstat and ss
scale|held|-k 13 -n 3750 --max-sockets 100000 --catch-nested
scale|held|--catch-nested
EOF
	for series in $KERNELS; do echo "guest|kernel|$series"; done
)

KINDS=() SUITES=() ARGS=() LABELS=() COUNTS=() DONE=() FAILS=() SECS=()
while IFS='|' read -r kind suite arg; do
	case $suite in
	held)
		label="held-at-once $arg"
		[[ $arg == *-k* ]] || label+=" (default: 1,014,000 sockets)"
		;;
	kernel) label="kernel $arg (tests/kernel/run.sh)" ;;
	*) label="$suite: $arg" ;;
	esac
	if [ -n "${SOAK_ONLY:-}" ]; then
		IFS='|' read -ra wanted <<<"$SOAK_ONLY"
		hit=0
		for w in "${wanted[@]}"; do [ -n "$w" ] && [[ $label == *"$w"* ]] && hit=1; done
		[ "$hit" -eq 1 ] || continue
	fi
	case $kind in short) n=$RUNS ;; scale) n=$SCALE_RUNS ;; guest) n=$GUEST_RUNS ;; esac
	KINDS+=("$kind") SUITES+=("$suite") ARGS+=("$arg") LABELS+=("$label")
	COUNTS+=("$n") DONE+=(0) FAILS+=(0) SECS+=(0)
done <<<"$CASES"
[ ${#LABELS[@]} -gt 0 ] || die "SOAK_ONLY='${SOAK_ONLY:-}' names no case"

# Stops every process the soak started: the run in progress (its whole
# process group: its harness cleans up on SIGINT as on Ctrl-C), the busy
# loops, the second tracer.
stop_all() {
	local pid i
	if [ -n "$RUN_PID" ]; then
		kill -INT -- -"$RUN_PID" 2>/dev/null
		for i in $(seq 120); do kill -0 "$RUN_PID" 2>/dev/null || break; sleep 0.5; done
		kill -KILL -- -"$RUN_PID" 2>/dev/null
		wait "$RUN_PID" 2>/dev/null
		RUN_PID=""
	fi
	for pid in "${HOG_PIDS[@]}"; do kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; done
	HOG_PIDS=()
	stop_tracer
}

# The second tracer stopped as a user stops it; its exit status is kept.
TRACER_RC=""
stop_tracer() {
	local i
	[ -n "$TRACER_PID" ] || return 0
	kill -INT "$TRACER_PID" 2>/dev/null
	for i in $(seq 100); do kill -0 "$TRACER_PID" 2>/dev/null || break; sleep 0.1; done
	kill -KILL "$TRACER_PID" 2>/dev/null
	wait "$TRACER_PID" 2>/dev/null
	TRACER_RC=$?
	TRACER_PID=""
}

# Jobs in process groups of their own: a run's group is signalled whole,
# and the harnesses' processes keep SIGINT (a script's background jobs
# would ignore it without job control).
set -m
trap stop_all EXIT
trap 'INTERRUPTED=1' INT TERM
INTERRUPTED=0
mkdir -p "$LOGS" || die "cannot make $LOGS"
TRACER_LOG=$LOGS/contention-tracer.log

start_contention() {
	local i cpu
	./tcptrace 0.5 >/dev/null 2>"$TRACER_LOG" </dev/null &
	TRACER_PID=$!
	for i in $(seq 600); do
		grep -q '^tcptrace: tracing' "$TRACER_LOG" && break
		kill -0 "$TRACER_PID" 2>/dev/null || break
		sleep 0.1
	done
	grep -q '^tcptrace: tracing' "$TRACER_LOG" && kill -0 "$TRACER_PID" 2>/dev/null ||
		die "FAILED: the contention tracer (./tcptrace 0.5) did not start: $(tail -3 "$TRACER_LOG")"
	for cpu in $(seq "$(nproc)"); do
		nice -n 19 bash -c 'while :; do :; done' </dev/null >/dev/null 2>&1 &
		HOG_PIDS+=($!)
	done
	echo "soak: beside a second tcptrace (pid $TRACER_PID, tracing every process) and $(nproc) busy loops at nice 19"
}

# One run of case I, its output in FILE; its exit status, 0 only when the
# harness passed (and, for a case of a suite, ran that case and no other).
run_one() { # i file
	local i=$1 file=$2 suite=${SUITES[$1]} arg=${ARGS[$1]} rc cmd=()
	case $suite in
	integration) cmd=(env ONLY="$arg" tests/integration/run.sh) ;;
	e2e) cmd=(env ONLY="$arg" tests/e2e/run.sh) ;;
	exporter) cmd=(env ONLY="$arg" tests/integration/exporter.sh) ;;
	report) cmd=(env ONLY="$arg" tests/report/run.sh) ;;
	held) read -ra cmd <<<"env -u ONLY bench/held-at-once.sh $arg" ;;
	kernel) cmd=(env -u ONLY tests/kernel/run.sh "$arg") ;;
	esac
	timeout -s INT -k 60 "${LIMIT[${KINDS[$i]}]}" "${cmd[@]}" >"$file" 2>&1 </dev/null &
	RUN_PID=$!
	wait "$RUN_PID"
	rc=$?
	# A signal to the soak ends wait early: the run is then stopped by stop_all.
	[ "$INTERRUPTED" -eq 0 ] || return 130
	RUN_PID=""
	[ "$rc" -ne 124 ] || echo "soak: the run took over ${LIMIT[${KINDS[$i]}]} s and was interrupted" >>"$file"
	case $suite in
	held | kernel) ;;
	*)
		# ONLY= takes a substring: exactly this case, once, and passed.
		local ran
		ran=$(awk -v name="$arg" '/^(PASS|FAIL) .* \([0-9]+ s\)$/ {
				all++; sub(/^(PASS|FAIL) /, ""); sub(/ \([0-9]+ s\)$/, ""); if ($0 == name) n++ }
			END { print n + 0, all + 0 }' "$file")
		if [ "$ran" != "1 1" ] && [ "$rc" -eq 0 ]; then
			echo "soak: expected this case alone to run, got (this case, all cases) = ($ran)" >>"$file"
			rc=1
		fi
		;;
	esac
	return "$rc"
}

print_table() {
	local i passed=0 failed=0 secs
	echo "=== soak: runs per case ($LOGS)"
	printf '%5s %6s %7s  %s\n' runs failed s/run case
	for i in "${!LABELS[@]}"; do
		secs=0
		[ "${DONE[i]}" -eq 0 ] || secs=$((SECS[i] / DONE[i]))
		printf '%5d %6d %7d  %s\n' "${DONE[i]}" "${FAILS[i]}" "$secs" "${LABELS[i]}"
		passed=$((passed + DONE[i] - FAILS[i]))
		failed=$((failed + FAILS[i]))
	done
	[ "$CONTENTION" = 0 ] || echo "second tracer: exit status ${TRACER_RC:-?}, its last lines in $TRACER_LOG"
	[ "$failed" -eq 0 ] || echo "failing runs' logs: $(ls "$LOGS"/*.log | grep -v contention-tracer | paste -sd' ')"
	[ "$INTERRUPTED" -eq 0 ] || echo "soak interrupted: the counts are of the runs that ended"
	[ "$TRACER_BAD" -eq 0 ] ||
		echo "soak: FAILED: the second tracer did not last the soak (exit status ${TRACER_RC:-?})"
	echo "$passed passed, $failed failed"
	TOTAL_FAILED=$failed
}

echo "soak: ${#LABELS[@]} cases, $RUNS runs of each short one, $SCALE_RUNS of each scale one," \
	"$GUEST_RUNS of each guest series; failing runs' logs in $LOGS"
[ "$CONTENTION" = 0 ] && echo "soak: alone (SOAK_CONTENTION=0)" || start_contention

# Rounds: case I runs in round R when COUNTS[I] * R / ROUNDS passes a whole number.
ROUNDS=0
for n in "${COUNTS[@]}"; do [ "$n" -le "$ROUNDS" ] || ROUNDS=$n; done
TRACER_LOST=0
for round in $(seq "$ROUNDS"); do
	for i in "${!LABELS[@]}"; do
		n=${COUNTS[i]}
		[ $((n * round / ROUNDS)) -gt $((n * (round - 1) / ROUNDS)) ] || continue
		[ "$INTERRUPTED" -eq 0 ] || break 2
		run=$((DONE[i] + 1))
		slug=$(printf '%02d-%s' "$i" "${LABELS[i]}" | tr -cs 'A-Za-z0-9.' '-' | cut -c1-60 | sed 's/-*$//')
		file=$LOGS/$slug-$run.log
		start=$SECONDS
		run_one "$i" "$file"
		rc=$?
		# A run cut short is not counted; its log stays, named so.
		[ "$INTERRUPTED" -eq 0 ] || { mv "$file" "$file.interrupted"; break 2; }
		DONE[i]=$run
		SECS[i]=$((SECS[i] + SECONDS - start))
		if [ "$rc" -eq 0 ]; then
			verdict=pass
			rm -f "$file"
		else
			verdict="FAIL (exit $rc, log $file)"
			FAILS[i]=$((FAILS[i] + 1))
		fi
		printf '[round %d/%d] %s, run %d of %d: %s (%d s)\n' "$round" "$ROUNDS" "${LABELS[i]}" \
			"$run" "$n" "$verdict" $((SECONDS - start))
		if [ -n "$TRACER_PID" ] && ! kill -0 "$TRACER_PID" 2>/dev/null; then
			echo "soak: the second tracer has ended: $(tail -3 "$TRACER_LOG")" >&2
			TRACER_LOST=1
			break 2
		fi
	done
done

stop_all
TRACER_BAD=0
[ "$CONTENTION" = 0 ] || { [ "$TRACER_LOST" -eq 0 ] && [ "$TRACER_RC" = 0 ]; } || TRACER_BAD=1
print_table
[ "$TRACER_BAD" -eq 0 ] || exit 1
[ "$INTERRUPTED" -eq 0 ] || exit 130
[ "$TOTAL_FAILED" -eq 0 ]
