# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# What every root suite shares: the run's work folder and the programs it
# tests, a private network namespace per case and its kernel counters
# (nstat) and sockets (ss), the log, expect_eq, and run_case (ONLY=TEXT
# runs the cases whose name holds TEXT) with finish's count. Sourced by
# the integration, exporter, e2e, report and kernel suites; tracer.sh and
# csv.sh beside it are for those that start tcptrace or read its CSV.

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
TCPTRACE=${TCPTRACE:-$TOP/tcptrace}
WORK=$(mktemp -d /tmp/tcptrace-it.XXXXXX)
# Tests trace the scenario by name: a copy named for this run keeps other
# tt-scenario processes on the machine out of the counts.
SCENARIO_NAME=tts$$
SCENARIO=$WORK/$SCENARIO_NAME
[ -x "${TT_SCENARIO:-$TOP/build/tt-scenario}" ] && cp "${TT_SCENARIO:-$TOP/build/tt-scenario}" "$SCENARIO"
NS=""
NS_NOISE="" # a second namespace, for connections unrelated to the test's
SCOPE_CGROUPS=() # cgroups a case made, removed by cleanup
TRACER_PID=""
PASSED=0
FAILED=0
CASE_FAILED=0
export NSTAT_HISTORY=$WORK/nstat.history

cleanup() {
	[ -n "$TRACER_PID" ] && kill -INT "$TRACER_PID" 2>/dev/null && wait "$TRACER_PID" 2>/dev/null
	if [ -n "$NS" ]; then
		for pid in $(ip netns pids "$NS" 2>/dev/null); do kill -KILL "$pid" 2>/dev/null; done
		ip netns del "$NS" 2>/dev/null
	fi
	if [ -n "$NS_NOISE" ]; then
		for pid in $(ip netns pids "$NS_NOISE" 2>/dev/null); do kill -KILL "$pid" 2>/dev/null; done
		ip netns del "$NS_NOISE" 2>/dev/null
	fi
	NS=""
	NS_NOISE=""
	TRACER_PID=""
	# Cgroups a case made (integration's scope cases), once their processes are gone.
	local dir i
	for dir in "${SCOPE_CGROUPS[@]}"; do
		for i in $(seq 40); do rmdir "$dir" 2>/dev/null || [ ! -d "$dir" ] && break; sleep 0.05; done
	done
	SCOPE_CGROUPS=()
}

trap 'cleanup; [ -n "${KEEP:-}" ] && echo "kept $WORK" >&2 || rm -rf "$WORK"' EXIT

log() { printf '%s\n' "$*" >&2; }

# A fresh namespace with loopback up; extra arguments are sysctl settings.
ns_new() {
	NS=tt-it-$$-$RANDOM
	ip netns add "$NS" || return 1
	ip -n "$NS" link set lo up
	for setting in "$@"; do ip netns exec "$NS" sysctl -qw "$setting" || return 1; done
}

in_ns() { ip netns exec "$NS" "$@"; }

# Wait until no connection in the namespace is still closing, so that the
# kernel has destroyed every socket whose end tcptrace is to count.
settle() {
	local i
	for i in $(seq 100); do
		[ -z "$(in_ns ss -tanH state fin-wait-1 state fin-wait-2 state closing \
			state last-ack state close-wait state syn-sent 2>/dev/null)" ] && return 0
		sleep 0.05
	done
	log "    connections still closing after 5 s"
}

# A kernel counter of the test namespace (absolute: the namespace is new).
nstat_of() { in_ns nstat -az "$1" | awk -v k="$1" '$1 == k { print $2 }'; }

# Inode number of the test namespace, as tcptrace names it.
ns_inum() { stat -L -c %i "/run/netns/$NS"; }

# Timewait sockets in the namespace still in FIN-WAIT-2 (ss shows them with
# their timewait timer) once every peer has closed: each is a FIN that the
# kernel answered with an RST for no socket, having looked the connection
# up while its timewait socket was taking the full socket's place
# (docs/testing.md, "A FIN that meets no socket").
fin_lost_timewaits() {
	in_ns ss -tanoH state fin-wait-2 | grep -c 'timer:(timewait'
}

# Timewait sockets in the namespace whose local (sport) or remote (dport) port is given.
tw_count() { # sport|dport port
	in_ns ss -tanH state time-wait "( $1 = :$2 )" | wc -l
}

expect_eq() { # what expected actual
	if [ "$2" = "$3" ]; then
		log "    ok   $1 = $3"
	else
		log "    FAIL $1: expected $2, got $3"
		CASE_FAILED=1
	fi
}

# Every PID's counters with a non-zero sum ("PID comm: column N ..."), up
# to the times' buckets; levels (tw_now, open_*, acceptq_*) left out.
csv_nonzero() { # csv
	awk -F, '
		NR == 1 {
			for (i = 5; i <= NF && $i !~ /^connect_/; i++) name[i] = $i
			n = i - 1
			next
		}
		{ comm[$3] = $4; for (i = 5; i <= n; i++) s[$3, i] += $i }
		END {
			for (p in comm) {
				printf "%s %s:", p, comm[p]
				for (i = 5; i <= n; i++)
					if (s[p, i] && name[i] !~ /_now$|^open_|^acceptq_/)
						printf " %s %d", name[i], s[p, i]
				printf "; "
			}
		}' "$1"
}

# ONLY=text runs just the cases whose name holds that text.
run_case() { # name function [arguments of the function...]
	[ -n "${ONLY:-}" ] && [[ "$1" != *"$ONLY"* ]] && return 0
	local start=$SECONDS
	log "== $1"
	touch "$WORK/.case-start"
	CASE_FAILED=0
	if ! "$2" "${@:3}" || [ "$CASE_FAILED" -ne 0 ]; then
		FAILED=$((FAILED + 1))
		log "FAIL $1 ($((SECONDS - start)) s)"
		[ -s "$WORK/tracer.err" ] && log "  tcptrace stderr: $(tail -3 "$WORK/tracer.err")"
		# What the kernel counted, to tell a failure of the scenario's
		# from one of tcptrace's when it cannot be run again.
		[ -n "${NS:-}" ] && [ -e "/run/netns/$NS" ] &&
			log "  nstat, its non-zero counters: $(in_ns nstat -a 2>/dev/null |
				awk '!/^#/ { printf "%s %s ", $1, $2 }')" &&
			log "  ss, its sockets by state: $(in_ns ss -tanH |
				awk '{ n[$1]++ } END { for (s in n) printf "%s:%d ", s, n[s] }')"
		# tcptrace's own counts: each process's non-zero counters.
		[ "$WORK/t.csv" -nt "$WORK/.case-start" ] && log "  tcptrace's CSV, summed per PID: $(csv_nonzero "$WORK/t.csv")"
		for f in "$WORK/client.out" "$WORK/server.out"; do
			[ "$f" -nt "$WORK/.case-start" ] && log "  $(basename "$f"): $(tail -3 "$f" | tr '\n' ' ')"
		done
	else
		PASSED=$((PASSED + 1))
		log "PASS $1 ($((SECONDS - start)) s)"
	fi
	cleanup
}

finish() {
	echo "$PASSED passed, $FAILED failed"
	[ "$FAILED" -eq 0 ]
}
