# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# RSTs sent and received: SO_LINGER 0 aborts, a close with unread data, a
# FIN then an abort, and an abort on data after the socket's end.
# Sourced by tests/integration/run.sh, which runs the cases.

case_linger0_server() {
	ns_new && run_pair 127.0.0.1 linger0-server || return 1
	local csv=$WORK/t.csv
	expect_eq "server rst_sent_in = TcpOutRsts" "$(nstat_of TcpOutRsts)" "$(csv_sum "$csv" "$SRV" rst_sent_in)"
	expect_eq "server rst_sent_in" "$N" "$(csv_sum "$csv" "$SRV" rst_sent_in)"
	expect_eq "client rst_recv_out" "$N" "$(csv_sum "$csv" "$CLI" rst_recv_out)"
	expect_eq "client saw resets" "$N" "$(field "$WORK/client.out" rst_seen)"
	expect_eq "server tw_in" 0 "$(csv_sum "$csv" "$SRV" tw_in)"
	expect_eq "server fin_active_in" 0 "$(csv_sum "$csv" "$SRV" fin_active_in)"
	# SO_LINGER {1, 0} goes through tcp_disconnect: the kernel says TCP_STATE.
	expect_eq "server RST reasons" "TCP_STATE=$N" "$(csv_reasons "$csv" "$SRV")"
}

# FIN first, then SO_LINGER 0: the RST comes from tcp_disconnect on a
# FIN_WAIT2 socket (kernel reason TCP_STATE), after the move to CLOSE.
# tcptrace expects an RST there ahead of time; the real one must neither
# be counted twice nor lose the kernel's reason.
case_halfclose_then_linger0() {
	ns_new && run_pair 127.0.0.1 halfclose-linger0-server || return 1
	local csv=$WORK/t.csv
	expect_eq "server rst_sent_in = TcpOutRsts" "$(nstat_of TcpOutRsts)" "$(csv_sum "$csv" "$SRV" rst_sent_in)"
	expect_eq "server rst_sent_in" "$N" "$(csv_sum "$csv" "$SRV" rst_sent_in)"
	expect_eq "server fin_active_in" 0 "$(csv_sum "$csv" "$SRV" fin_active_in)"
	expect_eq "server tw_in" 0 "$(csv_sum "$csv" "$SRV" tw_in)"
	expect_eq "client saw the FIN, then the reset" "$N" "$(field "$WORK/client.out" rst_seen)"
	expect_eq "client rst_recv_out" "$N" "$(csv_sum "$csv" "$CLI" rst_recv_out)"
	expect_eq "RSTs in no process row of the namespace" 0 "$(other_rsts "$WORK/tracer.out" "$(ns_inum)")"
	expect_eq "server RST reasons" "TCP_STATE=$N" "$(csv_reasons "$csv" "$SRV")"
}

# Connections in a second namespace, each opened and closed by one process
# on CPU $2 and handled on CPU $1 (RPS on that namespace's loopback): their
# ends interrupt whatever runs on CPU $1. Until noise_stop, 120 s at most.
noise_start() { # handling-cpu running-cpu
	NS_NOISE=tt-it-noise-$$-$RANDOM
	ip netns add "$NS_NOISE" && ip -n "$NS_NOISE" link set lo up || return 1
	ip netns exec "$NS_NOISE" sh -c "printf %x $((1 << $1)) >/sys/class/net/lo/queues/rx-0/rps_cpus" ||
		return 1
	ip netns exec "$NS_NOISE" taskset -c "$2" python3 -c '
import os, socket, sys, time
stop, deadline, n = sys.argv[1], time.monotonic() + 120, 0
listener = socket.create_server(("127.0.0.1", 0))
while not os.path.exists(stop) and time.monotonic() < deadline:
    client = socket.create_connection(listener.getsockname(), timeout=10)
    accepted, _ = listener.accept()
    accepted.close()
    client.close()
    n += 1
    time.sleep(0.0005)
print(n)' "$WORK/noise.stop" >"$WORK/noise.out" 2>&1 &
	NOISE=$!
}

noise_stop() {
	touch "$WORK/noise.stop"
	wait "$NOISE"
}

# An orphan aborted at the client's ACK of its FIN (TCP_LINGER2 -1): the
# kernel destroys it, then sends the RST that tcptrace counted at the
# destruction. A quickack route makes the client ACK the FIN at once,
# within the server's close(): the ACK waits in the socket's backlog and
# the abort runs in the server's task, which softirqs can interrupt.
# tt-stall holds the server's CPU at each move to CLOSE while connections
# of another namespace end on that CPU. The RST must be counted once: a
# slot per CPU, cleared by any other socket's end, counted it twice.
case_abort_after_destroy() {
	local n=200 hold_us=1000 stall i held interleaved
	[ "$(nproc)" -ge 2 ] || { log "    needs 2 CPUs, has $(nproc)"; return 1; }
	ns_new || return 1
	in_ns ip route replace local 127.0.0.1 dev lo table local proto kernel scope host \
		src 127.0.0.1 quickack 1 || return 1
	noise_start 0 1 || return 1
	server_start 127.0.0.1 "$PORT" "$n" linger2-server || return 1
	taskset -pc 0 "$SRV" >/dev/null || return 1
	tracer_start "$WORK/t.csv" -p "$SCENARIO_NAME" || return 1
	# Attached after tcptrace, so it holds the CPU once tcptrace has seen the move.
	ip netns exec "$NS" "$STALL" "$(ns_inum)" "$PORT" "$hold_us" "$WORK/stall.ready" >"$WORK/stall.out" 2>&1 &
	stall=$!
	for i in $(seq 600); do [ -s "$WORK/stall.ready" ] || ! kill -0 "$stall" 2>/dev/null && break; sleep 0.05; done
	[ -s "$WORK/stall.ready" ] || { log "tt-stall did not start: $(cat "$WORK/stall.out")"; return 1; }
	ip netns exec "$NS" taskset -c 1 "$SCENARIO" client --addr 127.0.0.1 --port "$PORT" --count "$n" \
		--mode linger2-server >"$WORK/client.out" 2>&1 &
	CLI=$!
	wait "$CLI" || { log "client failed: $(cat "$WORK/client.out")"; return 1; }
	wait "$SRV" || { log "server failed: $(cat "$WORK/server.out")"; return 1; }
	kill -TERM "$stall"
	wait "$stall"
	noise_stop
	tracer_stop || return 1
	local csv=$WORK/t.csv rsts other
	held=$(field "$WORK/stall.out" held)
	interleaved=$(field "$WORK/stall.out" interleaved)
	log "    during the holds, $interleaved sockets of the other namespace ended on the held CPU ($(cat "$WORK/noise.out") connections made there)"
	expect_eq "moves to CLOSE held" "$n" "$held"
	expect_eq "other sockets ended on the held CPU meanwhile" 1 "$((interleaved > 0))"
	expect_eq "server aborts (TcpExtTCPAbortOnData)" "$n" "$(nstat_of TcpExtTCPAbortOnData)"
	rsts=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		{ s += $c["rst_sent_in"] + $c["rst_sent_out"] + $c["tw_rst"] } END { print s + 0 }' "$csv")
	other=$(other_rsts "$WORK/tracer.out" "$(ns_inum)")
	expect_eq "rst_sent + tw_rst + RSTs in no process row of the namespace = TcpOutRsts" \
		"$(nstat_of TcpOutRsts)" "$((rsts + other))"
	expect_eq "server rst_sent_in" "$n" "$(csv_sum "$csv" "$SRV" rst_sent_in)"
	expect_eq "RSTs in no process row of the namespace" 0 "$other"
	expect_eq "server RST reasons" "TCP_ABORT_ON_DATA=$n" "$(csv_reasons "$csv" "$SRV")"
	expect_eq "client saw the FIN, then the reset" "$n" "$(field "$WORK/client.out" rst_seen)"
	expect_eq "client rst_recv_out" "$n" "$(csv_sum "$csv" "$CLI" rst_recv_out)"
}

case_close_with_unread_data() {
	ns_new && run_pair 127.0.0.1 unread-server || return 1
	local csv=$WORK/t.csv
	expect_eq "server rst_sent_in = TcpExtTCPAbortOnClose" "$(nstat_of TcpExtTCPAbortOnClose)" "$(csv_sum "$csv" "$SRV" rst_sent_in)"
	expect_eq "server rst_sent_in" "$N" "$(csv_sum "$csv" "$SRV" rst_sent_in)"
	expect_eq "client rst_recv_out" "$N" "$(csv_sum "$csv" "$CLI" rst_recv_out)"
	expect_eq "server RST reasons" "TCP_ABORT_ON_CLOSE=$N" "$(csv_reasons "$csv" "$SRV")"
}

case_rst_received() {
	ns_new && run_pair 127.0.0.1 linger0-client || return 1
	local csv=$WORK/t.csv
	expect_eq "server rst_recv_in" "$N" "$(csv_sum "$csv" "$SRV" rst_recv_in)"
	expect_eq "server saw resets or EOF" "$N" "$(( $(field "$WORK/server.out" rst_seen) + $(field "$WORK/server.out" eof) ))"
	expect_eq "client rst_sent_out = TcpOutRsts" "$(nstat_of TcpOutRsts)" "$(csv_sum "$csv" "$CLI" rst_sent_out)"
	expect_eq "client rst_sent_out" "$N" "$(csv_sum "$csv" "$CLI" rst_sent_out)"
	expect_eq "server rst_sent_in" 0 "$(csv_sum "$csv" "$SRV" rst_sent_in)"
}
