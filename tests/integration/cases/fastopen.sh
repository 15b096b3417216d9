# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# TCP Fast Open: handshakes completed, children closed, aborted or reset
# in SYN_RECV, and a listener closed with children in SYN_RECV.
# Sourced by tests/integration/run.sh, which runs the cases.

# TCP Fast Open at both ends of a new namespace. The first connection
# fetches the server's cookie; each later one carries its ping in the SYN,
# and the kernel hands the server its socket at once, in SYN_RECV.
ns_fastopen() { ns_new net.ipv4.tcp_fastopen=3; }

# Drops every pure ACK sent to the port (nftables, in the namespace only):
# the handshake's last ACK never reaches the server, so a Fast Open child
# stays in SYN_RECV until the client's FIN or RST, whatever its process
# does with it meanwhile. The client sends data only in its SYN.
drop_acks_to() { # port
	in_ns nft -f - <<EOF
table inet tt_drop_acks {
	chain output {
		type filter hook output priority 0;
		tcp dport $1 tcp flags == ack drop
	}
}
EOF
}

# No RST but those of FINs that met no socket: each one's timewait socket
# never reached TIME-WAIT (it is left in FIN-WAIT-2, fin_lost_timewaits, or
# was seen gone within the second), and tcptrace puts its RST in the
# namespace's row of no process, for no socket. Without that race, none.
expect_fins_lost_only() {
	local rsts missed reasons=""
	rsts=$(nstat_of TcpOutRsts)
	missed=$(($(nstat_of TcpExtTW) - $(in_ns ss -tanH state time-wait | wc -l)))
	[ "$rsts" -gt 0 ] && reasons="NO_SOCKET $rsts"
	expect_eq "TcpOutRsts ($rsts) at most the timewait sockets that never reached TIME-WAIT ($missed, $(fin_lost_timewaits) of them in FIN-WAIT-2)" \
		1 "$((rsts <= missed))"
	expect_eq "RSTs in no process row of the namespace, by reason = TcpOutRsts" "$rsts${reasons:+ ($reasons)}" \
		"$(other_rsts "$WORK/tracer.out" "$(ns_inum)")${reasons:+ ($(other_rst_reasons "$WORK/tracer.out" "$(ns_inum)"))}"
}

# Fast Open, handshakes completed: the client closes first, and its FIN
# ends the handshake if the ACK before it has not.
case_fastopen_completed() {
	ns_fastopen && run_pair 127.0.0.1 fin-client "$N" --fastopen || return 1
	local csv=$WORK/t.csv
	expect_eq "Fast Open children = TcpExtTCPFastOpenPassive" $((N - 1)) "$(nstat_of TcpExtTCPFastOpenPassive)"
	expect_eq "server's own count of sockets closed in SYN_RECV" 0 "$(field "$WORK/server.out" closed_in_syn_recv)"
	expect_eq "server conn_in = TcpPassiveOpens" "$(nstat_of TcpPassiveOpens)" "$(csv_sum "$csv" "$SRV" conn_in)"
	expect_eq "client conn_out = TcpActiveOpens" "$(nstat_of TcpActiveOpens)" "$(csv_sum "$csv" "$CLI" conn_out)"
	expect_eq "server fin_passive_in" "$N" "$(csv_sum "$csv" "$SRV" fin_passive_in)"
	expect_eq "client fin_active_out" "$N" "$(csv_sum "$csv" "$CLI" fin_active_out)"
	expect_eq "client tw_out = TcpExtTW" "$(nstat_of TcpExtTW)" "$(csv_sum "$csv" "$CLI" tw_out)"
	expect_eq "client tw_now = ss timewait towards the server port" "$(tw_count dport "$PORT")" "$(csv_last "$csv" "$CLI" tw_now)"
	expect_eq "server tw_in" 0 "$(csv_sum "$csv" "$SRV" tw_in)"
	expect_fins_lost_only
}

# Fast Open children that the server reads, answers and closes before the
# handshake's last ACK: SYN_RECV -> FIN_WAIT1, never ESTABLISHED.
case_fastopen_closed_in_syn_recv() { # addr
	ns_fastopen && drop_acks_to "$PORT" && run_pair "$1" fin-server "$N" --fastopen || return 1
	local csv=$WORK/t.csv
	expect_eq "Fast Open children" $((N - 1)) "$(nstat_of TcpExtTCPFastOpenPassive)"
	expect_eq "server's own count of sockets closed in SYN_RECV = TcpExtTCPFastOpenPassive" \
		"$(nstat_of TcpExtTCPFastOpenPassive)" "$(field "$WORK/server.out" closed_in_syn_recv)"
	expect_eq "server conn_in = TcpPassiveOpens" "$(nstat_of TcpPassiveOpens)" "$(csv_sum "$csv" "$SRV" conn_in)"
	expect_eq "server fin_active_in" "$N" "$(csv_sum "$csv" "$SRV" fin_active_in)"
	expect_eq "server tw_in = TcpExtTW" "$(nstat_of TcpExtTW)" "$(csv_sum "$csv" "$SRV" tw_in)"
	expect_eq "server tw_now = ss timewait on the server port" "$(tw_count sport "$PORT")" "$(csv_last "$csv" "$SRV" tw_now)"
	expect_eq "server timeout_in" 0 "$(csv_sum "$csv" "$SRV" timeout_in)"
	expect_eq "client fin_passive_out" "$N" "$(csv_sum "$csv" "$CLI" fin_passive_out)"
	expect_fins_lost_only
	expect_eq "server rst_sent_in" 0 "$(csv_sum "$csv" "$SRV" rst_sent_in)"
}

# Fast Open children closed in SYN_RECV with their SYN's data unread:
# SYN_RECV -> CLOSE, then the RST (TCP_ABORT_ON_CLOSE).
case_fastopen_aborted_in_syn_recv() {
	ns_fastopen && drop_acks_to "$PORT" && run_pair 127.0.0.1 unread-server "$N" --fastopen || return 1
	local csv=$WORK/t.csv
	expect_eq "Fast Open children" $((N - 1)) "$(nstat_of TcpExtTCPFastOpenPassive)"
	expect_eq "server's own count of sockets closed in SYN_RECV = TcpExtTCPFastOpenPassive" \
		"$(nstat_of TcpExtTCPFastOpenPassive)" "$(field "$WORK/server.out" closed_in_syn_recv)"
	expect_eq "server conn_in = TcpPassiveOpens" "$(nstat_of TcpPassiveOpens)" "$(csv_sum "$csv" "$SRV" conn_in)"
	expect_eq "server rst_sent_in = TcpOutRsts" "$(nstat_of TcpOutRsts)" "$(csv_sum "$csv" "$SRV" rst_sent_in)"
	expect_eq "server rst_sent_in = TcpExtTCPAbortOnClose" "$(nstat_of TcpExtTCPAbortOnClose)" "$(csv_sum "$csv" "$SRV" rst_sent_in)"
	expect_eq "server RST reasons" "TCP_ABORT_ON_CLOSE=$N" "$(csv_reasons "$csv" "$SRV")"
	expect_eq "client rst_recv_out" "$N" "$(csv_sum "$csv" "$CLI" rst_recv_out)"
	expect_eq "RSTs in no process row of the namespace" 0 "$(other_rsts "$WORK/tracer.out" "$(ns_inum)")"
}

# Fast Open children reset by the client in SYN_RECV: the RST comes before
# the move to CLOSE, while the socket is not followed yet.
case_fastopen_reset_in_syn_recv() {
	ns_fastopen && drop_acks_to "$PORT" && run_pair 127.0.0.1 linger0-client "$N" --fastopen || return 1
	local csv=$WORK/t.csv
	expect_eq "Fast Open children" $((N - 1)) "$(nstat_of TcpExtTCPFastOpenPassive)"
	# An RST that meets a child in SYN_RECV counts twice (tcp_check_req,
	# then tcp_done); nothing else in this scenario counts there.
	expect_eq "TcpAttemptFails = 2 x Fast Open children" $((2 * (N - 1))) "$(nstat_of TcpAttemptFails)"
	expect_eq "server conn_in = TcpPassiveOpens" "$(nstat_of TcpPassiveOpens)" "$(csv_sum "$csv" "$SRV" conn_in)"
	expect_eq "server rst_recv_in" "$N" "$(csv_sum "$csv" "$SRV" rst_recv_in)"
	expect_eq "server saw resets" "$N" "$(field "$WORK/server.out" rst_seen)"
	expect_eq "server timeout_in" 0 "$(csv_sum "$csv" "$SRV" timeout_in)"
	expect_eq "client rst_sent_out = TcpOutRsts" "$(nstat_of TcpOutRsts)" "$(csv_sum "$csv" "$CLI" rst_sent_out)"
	expect_eq "client rst_sent_out" "$N" "$(csv_sum "$csv" "$CLI" rst_sent_out)"
	expect_eq "server rst_sent_in" 0 "$(csv_sum "$csv" "$SRV" rst_sent_in)"
}

# A listener closed with Fast Open children still in SYN_RECV in its
# accept queue: the kernel resets them in its close(), after tcptrace
# has forgotten the listener. They stay its owner's, as accepted ones do.
case_fastopen_listener_closed() {
	local n=5 i ready=$WORK/ready.tfo go=$WORK/go.tfo cready=$WORK/ready.tfo-clients
	ns_fastopen && drop_acks_to "$PORT" || return 1
	ip netns exec "$NS" python3 - "$PORT" "$ready" "$go" >"$WORK/server.out" 2>&1 <<'EOF' &
import os, socket, sys, time
port, ready, go = int(sys.argv[1]), sys.argv[2], sys.argv[3]
s = socket.socket()
s.setsockopt(socket.IPPROTO_TCP, socket.TCP_FASTOPEN, 64)
s.bind(("127.0.0.1", port))
s.listen(64)
open(ready, "w").write("listening")
for _ in range(600):
    if os.path.exists(go): break
    time.sleep(0.05)
s.close()  # nothing accepted
for _ in range(600):  # kept until tcptrace has stopped, which it would at its exit
    if os.path.exists(go + ".end"): break
    time.sleep(0.05)
EOF
	SRV=$!
	for i in $(seq 200); do [ -s "$ready" ] && break; sleep 0.05; done
	tracer_start "$WORK/t.csv" -p "$SRV" || return 1
	ip netns exec "$NS" python3 - "$PORT" "$n" "$cready" >"$WORK/client.out" 2>&1 <<'EOF' &
import socket, sys
TCP_FASTOPEN_CONNECT = 30
port, n, ready = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
socks = []
for _ in range(n):
    c = socket.socket()
    c.setsockopt(socket.IPPROTO_TCP, TCP_FASTOPEN_CONNECT, 1)
    c.connect(("127.0.0.1", port))
    c.sendall(b"ping")  # in the SYN once the first connection has the cookie
    socks.append(c)
open(ready, "w").write("connected")
resets = 0
for c in socks:
    try:
        while c.recv(1): pass
    except ConnectionResetError:
        resets += 1
print("resets=%d" % resets)
EOF
	CLI=$!
	for i in $(seq 200); do [ -s "$cready" ] && break; sleep 0.05; done
	expect_eq "connections in the accept queue, in SYN_RECV" $((n - 1)) "$(in_ns ss -tanH state syn-recv "( sport = :$PORT )" | wc -l)"
	touch "$go"
	wait "$CLI" || { log "client failed: $(cat "$WORK/client.out")"; return 1; }
	tracer_stop || return 1
	touch "$go.end"
	wait "$SRV" || { log "server failed: $(cat "$WORK/server.out")"; return 1; }
	local csv=$WORK/t.csv
	expect_eq "Fast Open children" $((n - 1)) "$(nstat_of TcpExtTCPFastOpenPassive)"
	expect_eq "client saw resets" "resets=$n" "$(cat "$WORK/client.out")"
	expect_eq "server conn_in = TcpPassiveOpens" "$(nstat_of TcpPassiveOpens)" "$(csv_sum "$csv" "$SRV" conn_in)"
	expect_eq "server rst_sent_in = TcpOutRsts" "$(nstat_of TcpOutRsts)" "$(csv_sum "$csv" "$SRV" rst_sent_in)"
	expect_eq "server rst_sent_in" "$n" "$(csv_sum "$csv" "$SRV" rst_sent_in)"
	expect_eq "RSTs in no process row of the namespace" 0 "$(other_rsts "$WORK/tracer.out" "$(ns_inum)")"
}
