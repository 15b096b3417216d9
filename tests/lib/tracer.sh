# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# tcptrace and the scenario's server started and stopped for a case:
# tcptrace from the root namespace (as a user runs it on the host of a
# containerised proxy), its start-up line read. Needs common.sh.

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
