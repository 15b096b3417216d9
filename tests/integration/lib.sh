# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# Shared helpers of the root integration tests: a private network namespace
# per test, tcptrace started from the root namespace (as a user runs it on
# the host of a containerised proxy), its CSV summed per process, and
# ground truth from ss, nstat and the scenario's own counts.

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
	# Cgroups a case made (run.sh's scope cases), once their processes are gone.
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

# Start a server in the namespace; sets SRV to its PID once it listens.
server_start() { # addr port count mode [scenario options...]
	local ready=$WORK/ready.$RANDOM i
	ip netns exec "$NS" "$SCENARIO" server --addr "$1" --port "$2" --count "$3" --mode "$4" \
		--ready "$ready" "${@:5}" >"$WORK/server.out" 2>&1 &
	SRV=$!
	for i in $(seq 400); do [ -s "$ready" ] && return 0; sleep 0.05; done
	log "server did not start: $(cat "$WORK/server.out")"
	return 1
}

# Start tcptrace with the given arguments; returns once its programs are attached.
tracer_start() { # csv [tcptrace args...]
	local csv=$1 i
	shift
	# Emptied here, not by the job's own redirection: under load the job may
	# start after the first look, which would then read the last case's line.
	: >"$WORK/tracer.err"
	"$TCPTRACE" --csv "$csv" -i 0.2 "$@" >"$WORK/tracer.out" 2>"$WORK/tracer.err" &
	TRACER_PID=$!
	tracer_wait_started
}

# Until tcptrace (TRACER_PID) says it is tracing, or has exited.
tracer_wait_started() {
	local i
	for i in $(seq 600); do # 30 s: a loaded machine parses BTF slowly
		grep -q '^tcptrace: tracing' "$WORK/tracer.err" && return 0
		kill -0 "$TRACER_PID" 2>/dev/null || break
		sleep 0.05
	done
	log "tcptrace did not start: $(cat "$WORK/tracer.err")"
	return 1
}

# How tcptrace names the process that accepts a connection, from its
# start-up line: "at accept()" where the kernel lets it trace accept()
# (fexit), "at their first read" where not (this project's machines).
acceptors_way() { # [tracer-stderr]
	sed -n 's/^tcptrace: tracing .* existing sockets found, acceptors named \([^;]*\);.*/\1/p' \
		"${1:-$WORK/tracer.err}"
}

# Whether tcptrace's read hook (tcp_rcv_space_adjust) is attached now: a
# link of its process's with that tracepoint.
read_hook_attached() { # [tracer-pid]
	grep -qs '^tp_name:[[:space:]]*tcp_rcv_space_adjust$' /proc/"${1:-$TRACER_PID}"/fdinfo/*
}

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

# Stop tcptrace as a user would (Ctrl-C) and require a clean exit.
tracer_stop() {
	local rc
	[ -n "$NS" ] && settle
	sleep 0.3 # one more interval, so the last closes are in the CSV
	kill -INT "$TRACER_PID"
	wait "$TRACER_PID"
	rc=$?
	TRACER_PID=""
	[ "$rc" -eq 0 ] || { log "tcptrace exited with $rc: $(cat "$WORK/tracer.err")"; return 1; }
}

# Sum of a CSV column over every row of one PID.
csv_sum() { # csv pid column
	awk -F, -v pid="$2" -v col="$3" '
		NR == 1 { for (i = 1; i <= NF; i++) if ($i == col) c = i; next }
		$3 == pid { s += $c }
		END { if (!c) { print "no-column-" col; exit } print s + 0 }' "$1"
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

# Sum of the columns named NAME_B (NAME_10us ... NAME_over_50s), of the
# buckets above 1 s with "over_1s" as FROM, for one PID.
csv_buckets() { # csv pid name [over_1s]
	awk -F, -v pid="$2" -v name="$3" -v from="${4:-all}" '
		NR == 1 {
			for (i = 1; i <= NF; i++)
				if (index($i, name "_") == 1 && $i != name "_us") {
					b = substr($i, length(name) + 2)
					if (from == "all" || b ~ /^([2-9]|[1-9][0-9]+)s$/ || b == "over_50s")
						c[i] = 1
				}
			next
		}
		$3 == pid { for (i in c) s += $i }
		END { if (!length(c)) { print "no-column-" name; exit } print s + 0 }' "$1"
}

# The last value of a gauge column (tw_now) for one PID.
csv_last() { # csv pid column
	awk -F, -v pid="$2" -v col="$3" '
		NR == 1 { for (i = 1; i <= NF; i++) if ($i == col) c = i; next }
		$3 == pid { v = $c }
		END { print v + 0 }' "$1"
}

# The largest value of a column over one PID's rows.
csv_max() { # csv pid column
	awk -F, -v pid="$2" -v col="$3" '
		NR == 1 { for (i = 1; i <= NF; i++) if ($i == col) c = i; next }
		$3 == pid && $c > m { m = $c }
		END { print m + 0 }' "$1"
}

# The rst_sent_reasons field of every row of one PID, summed per reason.
csv_reasons() { # csv pid
	awk -F, -v pid="$2" '
		NR == 1 { next }
		$3 == pid && $NF != "" {
			n = split($NF, parts, ";")
			for (i = 1; i <= n; i++) { split(parts[i], kv, "="); sum[kv[1]] += kv[2] }
		}
		END { for (k in sum) printf "%s=%d\n", k, sum[k] }' "$1" | sort | paste -sd';'
}

# A kernel counter of the test namespace (absolute: the namespace is new).
nstat_of() { in_ns nstat -az "$1" | awk -v k="$1" '$1 == k { print $2 }'; }

# Inode number of the test namespace, as tcptrace names it.
ns_inum() { stat -L -c %i "/run/netns/$NS"; }

# RSTs that tcptrace put in no process row, for one network namespace, from
# its summary line "RSTs in no process row, network namespace N: COUNT (...)";
# 0 when there is none.
other_rsts() { # tracer-stdout netns-inum
	awk -v ns="$2" '
		/^RSTs in no process row, network namespace / && $8 == ns ":" { n = $9 }
		END { print n + 0 }' "$1"
}

# The reasons of that line, as tcptrace prints them ("NO_SOCKET 5").
other_rst_reasons() { # tracer-stdout netns-inum
	awk -v ns="$2" '
		/^RSTs in no process row, network namespace / && $8 == ns ":" {
			sub(/^[^(]*\(/, ""); sub(/\)$/, ""); print
		}' "$1"
}

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
