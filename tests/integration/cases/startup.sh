# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# Start-up: connections made the moment tracing starts or before it, the
# seeds and the connections that end while they are written, servers that
# start with tcptrace or after it, the self-check, and ends no program saw.
# Sourced by tests/integration/run.sh, which runs the cases.

# "tracing" means counting: a client started the moment tcptrace's tracing
# line comes out (its stderr read line by line through a FIFO, not polled)
# has its connection counted on both ends, the first one's SYN included.
case_counted_from_the_tracing_line() {
	local csv=$WORK/t.csv fifo=$WORK/tracer.fifo line fd
	ns_new && server_start 127.0.0.1 "$PORT" 1 fin-client || return 1
	rm -f "$fifo"
	mkfifo "$fifo" || return 1
	: >"$WORK/tracer.err"
	"$TCPTRACE" --csv "$csv" -i 0.2 -p "$SCENARIO_NAME" >"$WORK/tracer.out" 2>"$fifo" &
	TRACER_PID=$!
	exec {fd}<"$fifo"
	CLI=""
	while IFS= read -r -u "$fd" line; do
		printf '%s\n' "$line" >>"$WORK/tracer.err"
		if [[ $line == "tcptrace: tracing"* ]]; then
			ip netns exec "$NS" "$SCENARIO" client --addr 127.0.0.1 --port "$PORT" --count 1 \
				--mode fin-client >"$WORK/client.out" 2>&1 &
			CLI=$!
			break
		fi
	done
	# The rest of tcptrace's stderr, to its end.
	cat <&"$fd" >>"$WORK/tracer.err" &
	exec {fd}<&-
	[ -n "$CLI" ] || { log "tcptrace did not start: $(cat "$WORK/tracer.err")"; return 1; }
	wait "$CLI" || { log "client failed: $(cat "$WORK/client.out")"; return 1; }
	wait "$SRV" || { log "server failed: $(cat "$WORK/server.out")"; return 1; }
	tracer_stop || return 1
	expect_eq "client's own count of connections" 1 "$(field "$WORK/client.out" connected)"
	expect_eq "client conn_out = TcpActiveOpens" "$(nstat_of TcpActiveOpens)" "$(csv_sum "$csv" "$CLI" conn_out)"
	expect_eq "client fin_active_out" 1 "$(csv_sum "$csv" "$CLI" fin_active_out)"
	expect_eq "client tw_out = TcpExtTW" "$(nstat_of TcpExtTW)" "$(csv_sum "$csv" "$CLI" tw_out)"
	expect_eq "server conn_in = TcpPassiveOpens" "$(nstat_of TcpPassiveOpens)" "$(csv_sum "$csv" "$SRV" conn_in)"
	expect_eq "server fin_passive_in" 1 "$(csv_sum "$csv" "$SRV" fin_passive_in)"
}

# Connections established before tcptrace started: found through
# sock_diag and /proc/PID/fd, then followed to their end.
case_connected_before_start() {
	local n=5 i held_file=$WORK/held.before-start
	rm -f "$held_file" # the case runs twice
	ns_new || return 1
	server_start 127.0.0.1 "$PORT" "$n" hold || return 1
	ip netns exec "$NS" "$SCENARIO" client --addr 127.0.0.1 --port "$PORT" --count "$n" --mode hold \
		--hold "$held_file" >"$WORK/client.out" 2>&1 &
	CLI=$!
	for i in $(seq 100); do [ -s "$held_file" ] && break; sleep 0.05; done
	local held established
	held=$(in_ns ss -tanH state established state listening | wc -l)
	established=$(in_ns ss -tanH state established | wc -l)
	tracer_start "$WORK/t.csv" -p "$SRV,$CLI" || return 1
	kill -USR1 "$CLI"
	wait "$CLI" || { log "client failed: $(cat "$WORK/client.out")"; return 1; }
	wait "$SRV" || { log "server failed: $(cat "$WORK/server.out")"; return 1; }
	tracer_stop || return 1
	local csv=$WORK/t.csv
	expect_eq "connections at start (both ends)" "$((2 * n))" "$established"
	expect_eq "sockets found at start = ss" "tcptrace: tracing the named processes, $held existing sockets found, acceptors named $(acceptors_way); Ctrl-C to stop" "$(grep '^tcptrace: tracing' "$WORK/tracer.err")"
	expect_eq "client conn_out (established before start)" 0 "$(csv_sum "$csv" "$CLI" conn_out)"
	expect_eq "client fin_active_out" "$n" "$(csv_sum "$csv" "$CLI" fin_active_out)"
	expect_eq "client tw_out" "$n" "$(csv_sum "$csv" "$CLI" tw_out)"
	expect_eq "client tw_now = ss" "$(tw_count dport "$PORT")" "$(csv_last "$csv" "$CLI" tw_now)"
	expect_eq "server fin_passive_in" "$n" "$(csv_sum "$csv" "$SRV" fin_passive_in)"
	expect_eq "server conn_in" 0 "$(csv_sum "$csv" "$SRV" conn_in)"
}

# Connections open now (ESTABLISHED) per process at the end of an interval,
# those made before tcptrace started included: as ss counts them by owner.
established_of() { # pid
	in_ns ss -tanpH state established | grep -c "pid=$1,"
}

case_open_connections() {
	local csv=$WORK/t.csv before=$WORK/held.before after=$WORK/held.after srv1 cli1 i pid
	ns_new || return 1
	server_start 127.0.0.1 "$PORT" 5 hold || return 1
	srv1=$SRV
	ip netns exec "$NS" "$SCENARIO" client --addr 127.0.0.1 --port "$PORT" --count 5 --mode hold \
		--hold "$before" >"$WORK/client1.out" 2>&1 &
	cli1=$!
	for i in $(seq 100); do [ -s "$before" ] && break; sleep 0.05; done
	tracer_start "$csv" -p "$SCENARIO_NAME" || return 1
	server_start 127.0.0.1 $((PORT + 1)) 7 hold || return 1
	ip netns exec "$NS" "$SCENARIO" client --addr 127.0.0.1 --port $((PORT + 1)) --count 7 \
		--mode hold --hold "$after" >"$WORK/client.out" 2>&1 &
	CLI=$!
	for i in $(seq 100); do [ -s "$after" ] && break; sleep 0.05; done
	sleep 0.5 # two intervals of 0.2 s
	for pid in "$srv1" "$SRV"; do
		expect_eq "server $pid open_in = ss established" "$(established_of "$pid")" "$(csv_last "$csv" "$pid" open_in)"
		expect_eq "server $pid open_out" 0 "$(csv_last "$csv" "$pid" open_out)"
	done
	for pid in "$cli1" "$CLI"; do
		expect_eq "client $pid open_out = ss established" "$(established_of "$pid")" "$(csv_last "$csv" "$pid" open_out)"
		expect_eq "client $pid open_in" 0 "$(csv_last "$csv" "$pid" open_in)"
	done
	expect_eq "connections held: 5 from before start, 7 made after" "5 7" \
		"$(established_of "$cli1") $(established_of "$CLI")"
	kill -USR1 "$cli1" "$CLI"
	for pid in "$cli1" "$CLI" "$srv1" "$SRV"; do
		wait "$pid" || { log "a scenario process failed: $(cat "$WORK"/*.out)"; return 1; }
	done
	tracer_stop || return 1
	for pid in "$srv1" "$SRV" "$cli1" "$CLI"; do
		expect_eq "$pid: none open once all ended" 0 \
			"$(($(csv_last "$csv" "$pid" open_in) + $(csv_last "$csv" "$pid" open_out)))"
	done
}

# Connections from before start that end between the seeding's dump and
# the write of their seeds (TCPTRACE_TEST_SEED_GATE holds the writes until
# they have ended): no seed is left for them, and none stays open on its
# process, which lives on. A seed left would never be adopted.
case_ended_while_seeding() {
	local csv=$WORK/t.csv gate=$WORK/seed.gate go=$WORK/close.go stop=$WORK/stop.es
	local ready=$WORK/ready.es held=$WORK/held.es sclosed=$WORK/closed.es.server
	local cclosed=$WORK/closed.es.client srv cli i pid
	ns_new || return 1
	rm -f "$gate" "$gate.dumped"
	ip netns exec "$NS" python3 - "$PORT" "$ready" "$sclosed" "$stop" >"$WORK/server.out" 2>&1 <<'EOF' &
import os, socket, sys, time
port, ready, closed, stop = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", port))
s.listen(16)
open(ready, "w").write("ok")
conns = [s.accept()[0] for _ in range(5)]
for c in conns:
    c.recv(1)  # b"" at the client's close
    c.close()
open(closed, "w").write("ok")
deadline = time.time() + 60
while not os.path.exists(stop) and time.time() < deadline:
    time.sleep(0.05)
EOF
	srv=$!
	for i in $(seq 200); do [ -s "$ready" ] && break; sleep 0.05; done
	ip netns exec "$NS" python3 - "$PORT" "$held" "$go" "$cclosed" "$stop" >"$WORK/client.out" 2>&1 <<'EOF' &
import os, socket, sys, time
port, held, go, closed, stop = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5]
conns = [socket.create_connection(("127.0.0.1", port)) for _ in range(5)]
open(held, "w").write("ok")
deadline = time.time() + 60
while not os.path.exists(go) and time.time() < deadline:
    time.sleep(0.01)
for c in conns:
    c.close()
open(closed, "w").write("ok")
while not os.path.exists(stop) and time.time() < deadline:
    time.sleep(0.05)
EOF
	cli=$!
	for i in $(seq 200); do [ -s "$held" ] && break; sleep 0.05; done
	: >"$WORK/tracer.err"
	TCPTRACE_TEST_SEED_GATE=$gate "$TCPTRACE" --csv "$csv" -i 0.2 -p "$srv,$cli" \
		>"$WORK/tracer.out" 2>"$WORK/tracer.err" &
	TRACER_PID=$!
	for i in $(seq 600); do [ -e "$gate.dumped" ] && break; sleep 0.05; done
	touch "$go"
	for i in $(seq 200); do [ -s "$sclosed" ] && [ -s "$cclosed" ] && break; sleep 0.05; done
	expect_eq "both ends closed their 5 connections before the seeds were written" "okok" \
		"$(cat "$sclosed" "$cclosed" 2>/dev/null)"
	touch "$gate"
	tracer_wait_started || { touch "$stop"; return 1; }
	expect_eq "only the listener is left seeded" \
		"tcptrace: tracing the named processes, 1 existing sockets found" \
		"$(grep -o '^tcptrace: tracing [^,]*, [0-9]* existing sockets found' "$WORK/tracer.err")"
	sleep 0.5 # two intervals of 0.2 s
	for pid in "$srv" "$cli"; do
		expect_eq "$pid, alive: none open" 0 \
			"$(($(csv_last "$csv" "$pid" open_in) + $(csv_last "$csv" "$pid" open_out)))"
	done
	touch "$stop"
	for pid in "$srv" "$cli"; do
		wait "$pid" || { log "a scenario process failed: $(cat "$WORK/server.out" "$WORK/client.out")"; return 1; }
	done
	tracer_stop
}

# -p NAME with no such process yet: tcptrace says so and counts the one
# that starts later; its peer, under another name, is not counted.
case_name_not_running_yet() {
	local csv=$WORK/late.csv name=ttlate$$ n=5
	ns_new || return 1
	tracer_start "$csv" -p "$name" || return 1
	expect_eq "said on stderr that the name is waited for" 1 \
		"$(grep -c "^tcptrace: no process named '$name' yet: counted from its start" "$WORK/tracer.err")"
	server_start 127.0.0.1 "$PORT" "$n" fin-client --name "$name" || return 1
	ip netns exec "$NS" "$SCENARIO" client --addr 127.0.0.1 --port "$PORT" --count "$n" \
		--mode fin-client >"$WORK/client.out" 2>&1 || { log "client failed: $(cat "$WORK/client.out")"; return 1; }
	wait "$SRV" || { log "server failed: $(cat "$WORK/server.out")"; return 1; }
	tracer_stop || return 1
	expect_eq "the server that started later: conn_in = TcpPassiveOpens" "$(nstat_of TcpPassiveOpens)" \
		"$(csv_sum "$csv" "$SRV" conn_in)"
	expect_eq "its peer, not named, has no row" 0 "$(awk -F, -v n="$name" 'NR > 1 && $4 != n' "$csv" | wc -l)"
}

# Servers that name themselves and listen while tcptrace is still starting
# (maps for 1,100,000 sockets take about a second to make): tcptrace
# attaches first and reads what is there afterwards, so each listener is
# seen by its programs or by that scan, and every connection is counted.
case_servers_starting_with_tcptrace() {
	local csv=$WORK/start.csv name=ttsrv$$ servers=8 n=200 i rc tracer pids="" early
	# Started under a name tcptrace is not told, then named one it is.
	cp "$SCENARIO" "$WORK/ttpre$$"
	rm -f "$WORK"/start-ready.* # the case runs twice
	ns_new || return 1
	cat >"$WORK/clients.sh" <<-EOF
		for i in \$(seq 0 $((servers - 1))); do
			for t in \$(seq 600); do [ -s "$WORK/start-ready.\$i" ] && break; sleep 0.05; done
		done
		clients=""
		for i in \$(seq 0 $((servers - 1))); do
			ip netns exec "$NS" "$SCENARIO" client --addr 127.0.0.1 --port \$(($PORT + i)) \\
				--count $n --mode fin-client >"$WORK/client.\$i" 2>&1 &
			clients="\$clients \$!"
		done
		status=0
		for client in \$clients; do wait "\$client" || status=1; done
		exit \$status
	EOF
	: >"$WORK/tracer.err"
	"$TCPTRACE" -p "$name,$SCENARIO_NAME" --max-sockets 1100000 -i 0.2 --csv "$csv" \
		-- sh "$WORK/clients.sh" >"$WORK/tracer.out" 2>"$WORK/tracer.err" &
	tracer=$!
	for i in $(seq 0 $((servers - 1))); do
		ip netns exec "$NS" "$WORK/ttpre$$" server --addr 127.0.0.1 --port $((PORT + i)) --count "$n" \
			--mode fin-client --name "$name" --ready "$WORK/start-ready.$i" >"$WORK/server.$i" 2>&1 &
		pids="$pids $!"
		sleep 0.1
	done
	for i in $(seq 600); do grep -q '^tcptrace: tracing' "$WORK/tracer.err" && break; sleep 0.05; done
	early=$(find "$WORK" -maxdepth 1 -name 'start-ready.*' ! -newer "$WORK/tracer.err" | wc -l)
	wait "$tracer"
	rc=$?
	for i in $pids; do wait "$i" || log "    server $i failed: $(cat "$WORK"/server.*)"; done
	log "    servers listening before tcptrace said it was tracing: $early of $servers"
	expect_eq "exit status (the clients')" 0 "$rc"
	[ "$early" -gt 0 ] || { log "    FAIL no server started during tcptrace's start-up"; CASE_FAILED=1; }
	i=0
	for srv in $pids; do
		expect_eq "server $i conn_in" "$n" "$(csv_sum "$csv" "$srv" conn_in)"
		expect_eq "server $i fin_passive_in" "$n" "$(csv_sum "$csv" "$srv" fin_passive_in)"
		i=$((i + 1))
	done
	expect_eq "every process's conn_in = TcpPassiveOpens" "$(nstat_of TcpPassiveOpens)" \
		"$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "conn_in") c = i; next } { s += $c } END { print s }' "$csv")"
	expect_eq "every process's conn_out = TcpActiveOpens" "$(nstat_of TcpActiveOpens)" \
		"$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "conn_out") c = i; next } { s += $c } END { print s }' "$csv")"
	expect_eq "TcpPassiveOpens = the servers' connections" "$((servers * n))" "$(nstat_of TcpPassiveOpens)"
	expect_eq "servers' rows under their new name" "$servers" "$(awk -F, -v name="$name" 'NR > 1 && $4 == name { print $3 }' "$csv" | sort -u | wc -l)"
}

# The self-check makes one connection of tcptrace's own at start: if its
# programs do not see it, tcptrace refuses in one line (exit 3) rather
# than print zeros; when they do, it shows nowhere.
case_self_check() {
	local csv=$WORK/self.csv
	TCPTRACE_TEST_SKIP_PROGRAM=handle_set_state "$TCPTRACE" -c 1 -i 0.2 --csv "$csv" \
		>"$WORK/tracer.out" 2>"$WORK/tracer.err"
	expect_eq "state changes not seen: exit status" 3 "$?"
	expect_eq "state changes not seen: one line, what was not seen and the kernel release" \
		"tcptrace: self-check failed on Linux $(uname -r): its own loopback connection was not counted (connecting end conn_out 0 fin_active_out 0 tw_out 0, accepting end conn_in 0 fin_passive_in 0; 1 each expected)" \
		"$(cat "$WORK/tracer.err")"
	expect_eq "state changes not seen: no CSV left" 0 "$(ls "$csv" 2>/dev/null | wc -l)"
	# Its processes stay until their counters are read: read half a second
	# late, as by a tcptrace starved of CPU, they are still found (the
	# connecting end, once reaped at its exit, was read as all zeros).
	TCPTRACE_TEST_SELFCHECK_LATE_MS=500 "$TCPTRACE" -c 1 -i 0.2 >"$WORK/tracer.out" 2>"$WORK/tracer.err"
	expect_eq "counters read late: exit status" 0 "$?"
	expect_eq "counters read late: no self-check line" 0 "$(grep -c 'self-check' "$WORK/tracer.err")"
	# Passed: its connection was made in a namespace of its own, not in
	# the one tcptrace runs in (here the test's), whose counters and
	# sockets the other tests take as ground truth.
	ns_new || return 1
	in_ns "$TCPTRACE" -c 2 -i 0.2 --csv "$csv" >"$WORK/tracer.out" 2>"$WORK/tracer.err"
	expect_eq "passed: exit status" 0 "$?"
	expect_eq "no connection made in tcptrace's namespace" 0 "$(nstat_of TcpActiveOpens)"
	expect_eq "no timewait socket left in tcptrace's namespace" 0 "$(in_ns ss -tanH state time-wait | wc -l)"
}

# A socket's destruction that no program ran for, as the kernel sometimes
# gives no BPF program the event (docs/reliability.md): here every one,
# the destruction's program detached before tcptrace says it is tracing. Each
# connection is then counted once: its end counted another way (a
# connect() that finds its entry), among the ends tcptrace says it could
# not count (found by a new socket at its address, or by the sweep at
# exit: its entry left, its socket gone), or left in the table with a live
# socket at its address. Sockets' memory is the machine's: how many ends
# go which way depends on what else runs, so only the whole is checked.
case_ends_unseen_counted() {
	ends_unseen_counted
}

# The same, the sweep run as on kernels without bpf_loop (before 5.17).
case_ends_unseen_swept_unrolled() {
	TCPTRACE_TEST_SWEEP_UNROLLED=1 ends_unseen_counted
}

ends_unseen_counted() {
	local csv=$WORK/t.csv n=200 ends unseen gone live conns col
	ns_new || return 1
	export TCPTRACE_TEST_DETACH_AFTER_START=handle_destroy_sock TCPTRACE_TEST_SOCKETS_LEFT=1
	run_pair 127.0.0.1 fin-server "$n"
	local rc=$?
	unset TCPTRACE_TEST_DETACH_AFTER_START TCPTRACE_TEST_SOCKETS_LEFT
	[ "$rc" -eq 0 ] || return 1
	conns=$(($(csv_sum "$csv" "$SRV" conn_in) + $(csv_sum "$csv" "$CLI" conn_out)))
	expect_eq "connections = TcpPassiveOpens + TcpActiveOpens" \
		"$(($(nstat_of TcpPassiveOpens) + $(nstat_of TcpActiveOpens)))" "$conns"
	expect_eq "no end counted at a destruction (the server's FINs first)" 0 \
		"$(csv_sum "$csv" "$SRV" fin_active_in)"
	ends=0
	for col in fin_active_in fin_passive_in rst_sent_in rst_recv_in timeout_in; do
		ends=$((ends + $(csv_sum "$csv" "$SRV" "$col")))
	done
	for col in fin_active_out fin_passive_out rst_sent_out rst_recv_out timeout_out; do
		ends=$((ends + $(csv_sum "$csv" "$CLI" "$col")))
	done
	unseen=$(sed -n "s/^tcptrace: \([0-9]*\) connections' ends not counted: no program ran for their sockets' destruction$/\1/p" \
		"$WORK/tracer.err")
	# Entries of a connection (TT_SK_ESTABLISHED, bit 0 of the flags).
	gone=$(awk -v a="$SRV" -v b="$CLI" '/^tcptrace: socket left:/ && ($5 == a || $5 == b) &&
		$9 ~ /[13579bdf]$/ && / \(gone\)$/' "$WORK/tracer.err" | wc -l)
	live=$(awk -v a="$SRV" -v b="$CLI" '/^tcptrace: socket left:/ && ($5 == a || $5 == b) &&
		$9 ~ /[13579bdf]$/ && !/ \(gone\)$/' "$WORK/tracer.err" | wc -l)
	unseen=${unseen:-0}
	log "    ends counted $ends, said not counted $unseen ($gone found gone at exit), entries of live sockets left $live"
	expect_eq "socket table swept at exit (no line saying it could not be)" 0 \
		"$(grep -c '^tcptrace: cannot look for connections whose end no program saw' "$WORK/tracer.err")"
	expect_eq "some ends said not counted" 1 "$((unseen > 0))"
	expect_eq "entries found gone at exit, among the ends said not counted" 1 "$((gone <= unseen))"
	# A broken sweep would leave the entries of sockets gone as live ones.
	# A live one is a socket of the machine's that took a freed address
	# without a connect() or an accept() (which drop the entry: a listener),
	# and got a cookie (a sock_diag dump makes one): seldom.
	expect_eq "entries of live sockets left, no more than those found gone" 1 "$((live <= gone))"
	expect_eq "ends counted + ends not counted + entries of live sockets left = connections" "$conns" \
		"$((ends + unseen + live))"
}
