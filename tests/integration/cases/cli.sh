# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# The command line: bad input, a clean exit, run mode, two instances, and
# tcptrace without CAP_SYS_ADMIN.
# Sourced by tests/integration/run.sh, which runs the cases.

# Two tcptrace instances on the same connections: neither disturbs the other.
case_two_instances() {
	ns_new || return 1
	server_start 127.0.0.1 "$PORT" "$N" fin-client || return 1
	: >"$WORK/second.err"
	"$TCPTRACE" -p "$SCENARIO_NAME" -i 0.3 --csv "$WORK/second.csv" >/dev/null 2>"$WORK/second.err" &
	local second=$! i
	tracer_start "$WORK/t.csv" -p "$SCENARIO_NAME" || return 1
	for i in $(seq 600); do grep -q '^tcptrace: tracing' "$WORK/second.err" && break; sleep 0.05; done
	ip netns exec "$NS" "$SCENARIO" client --addr 127.0.0.1 --port "$PORT" --count "$N" \
		--mode fin-client >"$WORK/client.out" 2>&1 &
	CLI=$!
	wait "$CLI" && wait "$SRV" || return 1
	tracer_stop || return 1
	kill -INT "$second"
	wait "$second"
	expect_eq "second instance: exit status" 0 "$?"
	local col
	for col in conn_in conn_out fin_active_out fin_passive_in tw_out; do
		expect_eq "$col: first = second" "$(csv_sum "$WORK/t.csv" "$SRV" "$col")/$(csv_sum "$WORK/t.csv" "$CLI" "$col")" \
			"$(csv_sum "$WORK/second.csv" "$SRV" "$col")/$(csv_sum "$WORK/second.csv" "$CLI" "$col")"
	done
	expect_eq "client tw_out = TcpExtTW" "$(nstat_of TcpExtTW)" "$(csv_sum "$WORK/second.csv" "$CLI" tw_out)"
}

expect_refusal() { # what status stderr-pattern tcptrace-args...
	local what=$1 status=$2 pattern=$3 rc lines
	shift 3
	"$@" >"$WORK/out" 2>"$WORK/err"
	rc=$?
	lines=$(wc -l <"$WORK/err")
	expect_eq "$what: exit status" "$status" "$rc"
	expect_eq "$what: one line on stderr" 1 "$lines"
	grep -q -- "$pattern" "$WORK/err" || { log "    FAIL $what: stderr lacks '$pattern': $(cat "$WORK/err")"; CASE_FAILED=1; }
}

case_bad_input() {
	local dir
	dir=$(mktemp -d /tmp/tcptrace-cli.XXXXXX) # reachable by nobody, unlike $WORK
	chmod 777 "$dir"
	expect_refusal "bad interval" 2 "invalid --interval 'abc'" "$TCPTRACE" -i abc
	expect_refusal "interval too short" 2 "invalid --interval '0.01'" "$TCPTRACE" -i 0.01
	expect_refusal "bad count" 2 "invalid --count" "$TCPTRACE" -c -3
	expect_refusal "unknown option" 2 "unknown option '--frobnicate'" "$TCPTRACE" --frobnicate
	expect_refusal "a name where the interval goes" 2 "invalid interval 'haproxy'" "$TCPTRACE" haproxy
	expect_refusal "a third argument" 2 "unexpected argument 'haproxy'" "$TCPTRACE" 1 2 haproxy
	expect_refusal "unknown process name, --strict" 2 "no process named 'no-such-proc'" \
		"$TCPTRACE" --strict -p no-such-proc --csv "$dir/a.csv"
	expect_eq "no CSV after an unknown name" "" "$(ls "$dir")"
	"$TCPTRACE" -p no-such-proc 0.2 2 >"$WORK/out" 2>"$WORK/err"
	expect_eq "a name not running yet: waited for, said once, 2 intervals at 0.2 s" \
		"0 1 2" "$? $(grep -c "^tcptrace: no process named 'no-such-proc' yet: counted from its start" \
			"$WORK/err") $(grep -c '^[0-9:]\{8\} ' "$WORK/out")"
	expect_refusal "absent PID" 2 "no process with PID 4194304" "$TCPTRACE" -p 4194304
	expect_refusal "a --cgroup that does not exist" 2 "invalid --cgroup '/nonexistent': No such file or directory" \
		"$TCPTRACE" --cgroup /nonexistent --csv "$dir/c.csv"
	expect_refusal "a --cgroup that is no cgroup v2 directory" 2 \
		"invalid --cgroup '/proc': not a directory of a cgroup v2 hierarchy" "$TCPTRACE" --cgroup /proc
	expect_refusal "a --netns that is no namespace" 2 "invalid --netns '/etc/hostname': not a network namespace" \
		"$TCPTRACE" --netns /etc/hostname
	expect_refusal "a --netns PID that does not exist" 2 "invalid --netns '4194304': no process 4194304" \
		"$TCPTRACE" --netns 4194304
	expect_refusal "--cgroup and --unit at once" 2 "--cgroup and --unit both name a cgroup" \
		"$TCPTRACE" --cgroup /sys/fs/cgroup --unit a.service
	if [ -d /run/systemd/system ]; then
		expect_refusal "a --unit systemd does not know" 2 "invalid --unit 'tt-no-such-$$.service': systemd knows no cgroup" \
			"$TCPTRACE" --unit "tt-no-such-$$.service"
	else
		expect_refusal "--unit where systemd is not running" 2 "invalid --unit 'haproxy.service': systemd is not running here" \
			"$TCPTRACE" --unit haproxy.service
	fi
	expect_eq "no CSV after a refused scope" "" "$(ls "$dir")"
	expect_refusal "unwritable CSV path" 2 "cannot write CSV file '$dir/none/x.csv'" "$TCPTRACE" --csv "$dir/none/x.csv" -c 1
	expect_refusal "not root" 2 "cannot load BPF programs: Operation not permitted (tcptrace needs root)" \
		setpriv --reuid=65534 --regid=65534 --clear-groups "$TCPTRACE" --csv "$dir/b.csv" -c 1
	expect_eq "no CSV left by a run that could not load" "" "$(ls "$dir")"
	# A CSV destination that fills up: exit 1, and whole rows only.
	local full=$WORK/full pids=() p
	mkdir -p "$full" && mount -t tmpfs -o size=8k tmpfs "$full" || return 1
	for p in $(seq 20); do sleep 60 & pids+=($!); done # 20 rows an interval
	timeout 60 "$TCPTRACE" -i 0.1 --csv "$full/t.csv" -p "$(IFS=,; echo "${pids[*]}")" \
		>/dev/null 2>"$WORK/err"
	expect_eq "full CSV destination: exit status" 1 "$?"
	expect_eq "full CSV destination: the error, once" \
		"tcptrace: cannot write CSV file '$full/t.csv': No space left on device" \
		"$(grep -v '^tcptrace: tracing' "$WORK/err")"
	expect_eq "full CSV destination: every line a whole row (the header's fields)" \
		"$(head -1 "$full/t.csv" | awk -F, '{ print NF }')" \
		"$(awk -F, '{ print NF }' "$full/t.csv" | sort -u | paste -sd' ')"
	kill "${pids[@]}"
	umount "$full"
	"$TCPTRACE" --help >"$WORK/out" 2>&1
	expect_eq "--help exits 0" 0 "$?"
	expect_eq "--help prints the usage" 1 "$(grep -c '^Usage: tcptrace' "$WORK/out")"
	rm -rf "$dir"
}

# How many of tcptrace's BPF programs are loaded with no process holding
# them: what a tcptrace that exited would have left behind (another
# tcptrace running meanwhile holds its own). Holders are found through
# prog_id in /proc/*/fdinfo: bpftool's pids column needs BPF iterators,
# which this kernel refuses. The kernel frees a released program a moment
# later, so only programs found unheld in two looks a second apart count:
# another tcptrace exiting meanwhile must not fail this one's test.
tcptrace_programs() {
	python3 -c '
import glob, json, subprocess, time
names = ("handle_set_state", "handle_send_reset", "handle_receive_reset", "handle_rcv_space_adjust",
         "handle_destroy_sock", "handle_send_reset_noreason", "handle_task_rename",
         "handle_task_newtask")
def unheld():
    progs = json.loads(subprocess.run(["bpftool", "prog", "show", "-j"], capture_output=True,
                                      text=True).stdout or "[]")
    held = set()
    for info in glob.glob("/proc/[0-9]*/fdinfo/*"):
        try:
            for line in open(info):
                if line.startswith("prog_id:"):
                    held.add(int(line.split()[1]))
        except OSError:
            pass
    return {p["id"] for p in progs if p.get("name", "") in names and p["id"] not in held}
first = unheld()
time.sleep(1)
print(len(first & unheld()) if first else 0)'
}

# Every way a run ends: rows complete, summary written, nothing attached.
case_clean_exit() {
	local rc i
	ns_new || return 1
	ip netns exec "$NS" sleep 120 & # any process will do as the one traced
	SRV=$!
	expect_eq "no orphaned tcptrace program before" 0 "$(tcptrace_programs)"
	"$TCPTRACE" -p "$SRV" -i 0.2 -c 3 --csv "$WORK/c.csv" >"$WORK/out" 2>"$WORK/err"
	expect_eq "--count 3: exit status" 0 "$?"
	expect_eq "--count 3: rows of the named process" 3 "$(grep -c ",$SRV,sleep," "$WORK/c.csv")"
	expect_eq "--count 3: summary" 1 "$(grep -c '^Totals over' "$WORK/out")"
	"$TCPTRACE" -p "$SRV" -i 0.2 -d 0.5 >"$WORK/out" 2>"$WORK/err"
	expect_eq "--duration: exit status" 0 "$?"
	for sig in INT TERM HUP; do
		: >"$WORK/err"
		"$TCPTRACE" -p "$SRV" -i 0.2 --csv "$WORK/s.csv" >"$WORK/out" 2>"$WORK/err" &
		local pid=$!
		for i in $(seq 600); do grep -q '^tcptrace: tracing' "$WORK/err" && break; sleep 0.05; done
		if [ "$sig" = INT ]; then
			expect_eq "while tracing: runs as nobody" "65534 65534" \
				"$(awk '/^Uid:/ { print $2, $3 }' "/proc/$pid/status")"
			expect_eq "while tracing: no capability left" 0000000000000000 \
				"$(awk '/^CapEff:/ { print $2 }' "/proc/$pid/status")"
		fi
		kill -"$sig" "$pid"
		wait "$pid"
		rc=$?
		expect_eq "SIG$sig: exit status" 0 "$rc"
		expect_eq "SIG$sig: summary" 1 "$(grep -c '^Totals over' "$WORK/out")"
		expect_eq "SIG$sig: CSV ends with a whole row" "$(head -1 "$WORK/s.csv" | awk -F, '{ print NF }')" \
			"$(tail -1 "$WORK/s.csv" | awk -F, '{ print NF }')"
	done
	# Behind: each snapshot takes longer than the interval (a test hook
	# makes it, as a large pile-up of timewait sockets does). A signal must
	# still end it, not wait for a catch-up that never comes.
	: >"$WORK/err"
	TCPTRACE_TEST_LISTENERS_LATE_MS=300 "$TCPTRACE" -p "$SRV" -i 0.1 >"$WORK/out" 2>"$WORK/err" &
	pid=$!
	for i in $(seq 600); do grep -q '^tcptrace: tracing' "$WORK/err" && break; sleep 0.05; done
	sleep 1 # several intervals late
	kill -INT "$pid"
	for i in $(seq 200); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
	expect_eq "behind its interval, SIGINT: ended within 10 s" gone \
		"$(kill -0 "$pid" 2>/dev/null && echo running || echo gone)"
	kill -KILL "$pid" 2>/dev/null
	wait "$pid"
	expect_eq "behind its interval, SIGINT: exit status" 0 "$?"
	timeout 10 "$TCPTRACE" -p "$SRV" -i 0.1 2>"$WORK/err" | head -1 >/dev/null
	expect_eq "stdout closed early (| head): exit status" "0 0" "${PIPESTATUS[*]}"
	# Emptied first: under load the job may start after the first look,
	# which would then find the line of the run before and kill too early.
	: >"$WORK/err"
	"$TCPTRACE" -p "$SRV" -i 0.2 >"$WORK/out" 2>"$WORK/err" &
	local tracer=$!
	for i in $(seq 600); do grep -q '^tcptrace: tracing' "$WORK/err" && break; sleep 0.05; done
	kill -KILL "$SRV"
	wait "$tracer"
	expect_eq "traced process exits: tcptrace ends, exit status" 0 "$?"
	expect_eq "traced process exits: says so" 1 "$(grep -c '^tcptrace: the traced processes have exited' "$WORK/err")"
	expect_eq "traced process exits: summary" 1 "$(grep -c '^Totals over' "$WORK/out")"
	: >"$WORK/err"
	"$TCPTRACE" -i 0.2 >/dev/null 2>"$WORK/err" &
	tracer=$!
	for i in $(seq 600); do grep -q '^tcptrace: tracing' "$WORK/err" && break; sleep 0.05; done
	kill -KILL "$tracer"
	wait "$tracer" 2>/dev/null
	sleep 0.5 # program release is deferred by the kernel
	expect_eq "no orphaned tcptrace program left, SIGKILL included" 0 "$(tcptrace_programs)"
}

# Run mode: tcptrace -- COMMAND traces exactly COMMAND's run, with no
# settling or stopping by the test, and exits with COMMAND's status.
case_run_mode() {
	local csv=$WORK/r.csv rc
	ns_new && server_start 127.0.0.1 "$PORT" "$N" fin-server || return 1
	: >"$WORK/tracer.err"
	"$TCPTRACE" -p "$SCENARIO_NAME" -i 0.2 --csv "$csv" -- ip netns exec "$NS" "$SCENARIO" \
		client --addr 127.0.0.1 --port "$PORT" --count "$N" --mode fin-server \
		>"$WORK/tracer.out" 2>"$WORK/tracer.err"
	rc=$?
	wait "$SRV" || { log "server failed: $(cat "$WORK/server.out")"; return 1; }
	expect_eq "exit status = the client's" 0 "$rc"
	CLI=$(awk -F, -v srv="$SRV" 'NR > 1 && $3 != srv { print $3; exit }' "$csv")
	expect_eq "server conn_in = TcpPassiveOpens" "$(nstat_of TcpPassiveOpens)" "$(csv_sum "$csv" "$SRV" conn_in)"
	expect_eq "client conn_out = TcpActiveOpens" "$(nstat_of TcpActiveOpens)" "$(csv_sum "$csv" "$CLI" conn_out)"
	expect_eq "server fin_active_in" "$N" "$(csv_sum "$csv" "$SRV" fin_active_in)"
	expect_eq "client fin_passive_out (its closes, counted after it exited)" "$N" \
		"$(csv_sum "$csv" "$CLI" fin_passive_out)"
	expect_eq "server tw_in = TcpExtTW" "$(nstat_of TcpExtTW)" "$(csv_sum "$csv" "$SRV" tw_in)"
	expect_eq "summary written" 1 "$(grep -c '^Totals over' "$WORK/tracer.out")"

	"$TCPTRACE" -i 0.2 -- sh -c "id -u >$WORK/uid; exit 7" >/dev/null 2>"$WORK/err"
	expect_eq "COMMAND's exit code passed on" 7 "$?"
	expect_eq "COMMAND runs with tcptrace's original privileges (root)" 0 "$(cat "$WORK/uid")"
	"$TCPTRACE" -i 0.2 -- sh -c 'kill -TERM $$' >/dev/null 2>"$WORK/err"
	expect_eq "COMMAND killed by SIGTERM: 128+15" 143 "$?"
	"$TCPTRACE" --csv "$WORK/none.csv" -- /no/such/cmd >/dev/null 2>"$WORK/err"
	expect_eq "COMMAND not found: 127" 127 "$?"
	expect_eq "COMMAND not found: one line says so" \
		"tcptrace: cannot run '/no/such/cmd': No such file or directory" \
		"$(grep -v '^tcptrace: tracing' "$WORK/err")"
	expect_eq "no CSV left when COMMAND could not run" 0 "$(ls "$WORK"/none.csv 2>/dev/null | wc -l)"

	# Tracing ends first (--duration): COMMAND gets SIGTERM.
	"$TCPTRACE" -d 0.5 -- sleep 31.4159 >/dev/null 2>"$WORK/err"
	expect_eq "--duration ends first: COMMAND's SIGTERM status" 143 "$?"
	expect_eq "--duration ends first: COMMAND gone" 0 "$(pgrep -fc 'sleep 31.4159')"
	# tcptrace killed: the runner stops COMMAND, nothing stays attached.
	: >"$WORK/err"
	"$TCPTRACE" -i 0.2 -- sleep 32.1828 >/dev/null 2>"$WORK/err" &
	local tracer=$! i
	for i in $(seq 600); do pgrep -f 'sleep 32.1828' >/dev/null && break; sleep 0.05; done
	kill -KILL "$tracer"
	wait "$tracer" 2>/dev/null
	for i in $(seq 100); do pgrep -f 'sleep 32.1828' >/dev/null || break; sleep 0.05; done
	expect_eq "tcptrace SIGKILLed: COMMAND stopped" 0 "$(pgrep -fc 'sleep 32.1828')"
	sleep 0.5 # program release is deferred by the kernel
	expect_eq "tcptrace SIGKILLed in run mode: no program left" 0 "$(tcptrace_programs)"
}

# Without CAP_SYS_ADMIN tcptrace cannot enter another network namespace:
# it says so in one line and goes on; in its own namespace it needs no
# entering and still finds the sockets made before it started.
case_without_sys_admin() {
	local ready=$WORK/ready.own own rc free i
	ns_new || return 1
	server_start 127.0.0.1 "$PORT" 1 hold || return 1
	setpriv --bounding-set -sys_admin --inh-caps -sys_admin "$TCPTRACE" -p "$SRV" -c 1 -i 0.2 \
		>"$WORK/other.out" 2>"$WORK/other.err"
	rc=$?
	expect_eq "another namespace: exit status" 0 "$rc"
	expect_eq "another namespace: the one line that says so" \
		"tcptrace: cannot open the network namespace of PID $SRV: Operation not permitted; its sockets from before the start and its port settings are not read" \
		"$(grep 'network namespace' "$WORK/other.err")"
	# A listener of this test's own namespace, on a free loopback port.
	free=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	"$SCENARIO" server --addr 127.0.0.1 --port "$free" --count 1 --mode hold --ready "$ready" \
		>"$WORK/own.out" 2>&1 &
	own=$!
	for i in $(seq 400); do [ -s "$ready" ] && break; sleep 0.05; done
	setpriv --bounding-set -sys_admin --inh-caps -sys_admin "$TCPTRACE" -p "$own" -c 1 -i 0.2 \
		>"$WORK/own.out" 2>"$WORK/own.err"
	rc=$?
	kill "$own" 2>/dev/null
	wait "$own" 2>/dev/null
	expect_eq "own namespace: exit status" 0 "$rc"
	expect_eq "own namespace: its listener found" \
		"tcptrace: tracing the named processes, 1 existing sockets found, acceptors named $(acceptors_way "$WORK/own.err"); Ctrl-C to stop" \
		"$(grep '^tcptrace: tracing' "$WORK/own.err")"
	expect_eq "own namespace: nothing said about namespaces" "" "$(grep 'network namespace' "$WORK/own.err")"
}
