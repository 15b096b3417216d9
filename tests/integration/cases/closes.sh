# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# Connections that end with FINs: TIME_WAIT on the side that closes
# first, over IPv4 and IPv6, and the timewait sockets' owners (their peer's
# FIN awaited, their RSTs).
# Sourced by tests/integration/run.sh, which runs the cases.

case_server_closes_first() {
	ns_new && run_pair 127.0.0.1 fin-server || return 1
	local csv=$WORK/t.csv
	expect_eq "server conn_in = TcpPassiveOpens" "$(nstat_of TcpPassiveOpens)" "$(csv_sum "$csv" "$SRV" conn_in)"
	expect_eq "client conn_out = TcpActiveOpens" "$(nstat_of TcpActiveOpens)" "$(csv_sum "$csv" "$CLI" conn_out)"
	expect_eq "server fin_active_in" "$N" "$(csv_sum "$csv" "$SRV" fin_active_in)"
	expect_eq "client fin_passive_out" "$N" "$(csv_sum "$csv" "$CLI" fin_passive_out)"
	expect_eq "server tw_in = TcpExtTW" "$(nstat_of TcpExtTW)" "$(csv_sum "$csv" "$SRV" tw_in)"
	expect_eq "server tw_now = ss timewait on the server port" "$(tw_count sport "$PORT")" "$(csv_last "$csv" "$SRV" tw_now)"
	expect_eq "client tw_out" 0 "$(csv_sum "$csv" "$CLI" tw_out)"
	expect_eq "client tw_now" 0 "$(csv_last "$csv" "$CLI" tw_now)"
	expect_eq "client conn_in (nothing of the server's)" 0 "$(csv_sum "$csv" "$CLI" conn_in)"
}

case_client_closes_first() {
	ns_new && run_pair 127.0.0.1 fin-client || return 1
	local csv=$WORK/t.csv
	expect_eq "server conn_in" "$N" "$(csv_sum "$csv" "$SRV" conn_in)"
	expect_eq "server fin_passive_in" "$N" "$(csv_sum "$csv" "$SRV" fin_passive_in)"
	expect_eq "server tw_in" 0 "$(csv_sum "$csv" "$SRV" tw_in)"
	expect_eq "client fin_active_out" "$N" "$(csv_sum "$csv" "$CLI" fin_active_out)"
	expect_eq "client tw_out = TcpExtTW" "$(nstat_of TcpExtTW)" "$(csv_sum "$csv" "$CLI" tw_out)"
	expect_eq "client tw_now = ss timewait towards the server port" "$(tw_count dport "$PORT")" "$(csv_last "$csv" "$CLI" tw_now)"
	expect_eq "server tw_now" 0 "$(csv_last "$csv" "$SRV" tw_now)"
}

# --netns: a server and its client that start and end within one interval,
# so that no snapshot finds a process of the namespace alive; the client's
# timewait sockets are still listed (the namespace is opened from --netns),
# tw_now = ss at the last snapshot.
case_netns_processes_gone_between_snapshots() {
	ns_new || return 1
	local csv=$WORK/t.csv
	tracer_start "$csv" --netns "/run/netns/$NS" -p "$SCENARIO_NAME" -i 30 || return 1
	server_start 127.0.0.1 "$PORT" "$N" fin-client || return 1
	ip netns exec "$NS" "$SCENARIO" client --addr 127.0.0.1 --port "$PORT" --count "$N" \
		--mode fin-client >"$WORK/client.out" 2>&1 &
	CLI=$!
	wait "$CLI" || { log "client failed: $(cat "$WORK/client.out")"; return 1; }
	wait "$SRV" || { log "server failed: $(cat "$WORK/server.out")"; return 1; }
	expect_eq "no snapshot yet: the CSV has no row" 0 "$(tail -n +2 "$csv" | wc -l)"
	tracer_stop || return 1
	expect_eq "client tw_out = TcpExtTW" "$(nstat_of TcpExtTW)" "$(csv_sum "$csv" "$CLI" tw_out)"
	expect_eq "client tw_now = ss timewait towards the server port, the processes gone" \
		"$(tw_count dport "$PORT")" "$(csv_last "$csv" "$CLI" tw_now)"
}

case_ipv6_server_closes_first() {
	ns_new && run_pair ::1 fin-server || return 1
	local csv=$WORK/t.csv
	expect_eq "server conn_in" "$N" "$(csv_sum "$csv" "$SRV" conn_in)"
	expect_eq "server tw_in" "$N" "$(csv_sum "$csv" "$SRV" tw_in)"
	expect_eq "server tw_now = ss timewait on the server port" "$(tw_count sport "$PORT")" "$(csv_last "$csv" "$SRV" tw_now)"
	expect_eq "client fin_passive_out" "$N" "$(csv_sum "$csv" "$CLI" fin_passive_out)"
}

# A python3 server in the namespace that, once $go exists, takes n
# connections of its own and closes its end of each first, so that each
# becomes a timewait socket still in FIN_WAIT2 for a few snapshots; then its
# peers either close (close: TIME_WAIT) or send data (send: the timewait
# socket answers with an RST). It writes its PID to $ready when listening;
# PY_PID is that PID.
start_fin_wait2_server() { # ready go n close|send
	local i
	rm -f "$1" "$2"
	ip netns exec "$NS" python3 - "$1" "$2" "$3" "$PORT" "$4" >"$WORK/py.out" 2>&1 <<'EOF' &
import os, socket, sys, time
ready, go, n, port, last = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
srv = socket.socket()
srv.bind(("127.0.0.1", port))
srv.listen(64)
with open(ready + ".tmp", "w") as f:
    f.write("%d\n" % os.getpid())
os.rename(ready + ".tmp", ready)
while not os.path.exists(go):
    time.sleep(0.05)
peers = []
for _ in range(n):
    peers.append(socket.create_connection(("127.0.0.1", port)))
    accepted, _ = srv.accept()
    accepted.close()  # first FIN: this end becomes a timewait socket in FIN_WAIT2
time.sleep(1.5)       # several snapshots at -i 0.2
for p in peers:
    if last == "close":
        p.close()     # the peers' FINs: TIME_WAIT
    else:
        p.send(b"x")  # data after its close: the timewait socket answers with an RST
time.sleep(0.5)
EOF
	PY_PID=$!
	for i in $(seq 100); do [ -s "$1" ] && break; sleep 0.05; done
	expect_eq "python3 runs as the job started" "$PY_PID" "$(cat "$1" 2>/dev/null)"
}

# The server closes first and its peers keep their end open: each
# timewait socket sits in substate FIN_WAIT2 (not in `ss state time-wait`)
# through several intervals, then moves to TIME_WAIT when the peer closes.
# tcptrace must keep its owner all along to count it in tw_now.
case_timewait_awaiting_peer_fin() {
	local n=10 go=$WORK/go.tw pid
	ns_new || return 1
	start_fin_wait2_server "$WORK/ready.tw" "$go" "$n" close
	pid=$PY_PID
	tracer_start "$WORK/t.csv" -p "$pid" || return 1
	: >"$go"
	wait "$pid" || { log "python failed: $(cat "$WORK/py.out")"; return 1; }
	tracer_stop || return 1
	local csv=$WORK/t.csv
	expect_eq "tw_in" "$n" "$(csv_sum "$csv" "$pid" tw_in)"
	expect_eq "tw_now = ss timewait on the server port" "$(tw_count sport "$PORT")" "$(csv_last "$csv" "$pid" tw_now)"
	expect_eq "ss timewait on the server port" "$n" "$(tw_count sport "$PORT")"
}

# Data reaching a timewait socket still awaiting the peer's FIN draws an
# RST from it: its owner's tw_rst when the owner is traced (owner), else an
# RST in no process row of the namespace (other). Several snapshots pass
# between the owner's close and the RSTs.
case_timewait_rst() { # owner|other
	local n=10 go=$WORK/go.twr.$1 pid sleeper traced i
	ns_new || return 1
	start_fin_wait2_server "$WORK/ready.twr.$1" "$go" "$n" send
	pid=$PY_PID
	# A traced process that outlives python3, so that tcptrace waits for
	# tracer_stop rather than ending with its last named PID.
	sleep 30 &
	sleeper=$!
	traced=$sleeper
	[ "$1" = owner ] && traced=$pid,$sleeper
	tracer_start "$WORK/t.csv" -p "$traced" || { kill "$sleeper"; return 1; }
	: >"$go"
	wait "$pid" || { log "python failed: $(cat "$WORK/py.out")"; CASE_FAILED=1; }
	tracer_stop
	i=$?
	kill "$sleeper"
	wait "$sleeper" 2>/dev/null
	[ "$i" -eq 0 ] || return 1
	local csv=$WORK/t.csv other
	other=$(other_rsts "$WORK/tracer.out" "$(ns_inum)")
	expect_eq "TcpOutRsts" "$n" "$(nstat_of TcpOutRsts)"
	if [ "$1" = owner ]; then
		expect_eq "tw_in" "$n" "$(csv_sum "$csv" "$pid" tw_in)"
		expect_eq "tw_rst = TcpOutRsts" "$(nstat_of TcpOutRsts)" "$(csv_sum "$csv" "$pid" tw_rst)"
		expect_eq "RSTs in no process row of the namespace" 0 "$other"
	else
		expect_eq "rows of the untraced owner" 0 "$(awk -F, -v p="$pid" '$3 == p' "$csv" | wc -l)"
		expect_eq "RSTs in no process row of the namespace = TcpOutRsts" \
			"$(nstat_of TcpOutRsts)" "$other"
		expect_eq "their reason" "TCP_TIMEWAIT_SOCKET $n" \
			"$(other_rst_reasons "$WORK/tracer.out" "$(ns_inum)")"
	fi
}
