# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# Listen queues and handshakes: drops at the SYN and under overload, a
# listener closed between snapshots, SYN-ACKs sent again, TCP_DEFER_ACCEPT,
# and connections waiting in an accept queue at start.
# Sourced by tests/integration/run.sh, which runs the cases.

# Bad input: one line on stderr, the documented exit status, no CSV left.
# The two ends of an overflowing listen queue (listen-queue.py), run by a
# copy of Debian's python3 named for this run: tcptrace traces them by
# name, and no other python3 of the machine; SRV and CLI tell them apart.
LQ=$TOP/tests/integration/listen-queue.py
LQ_NAME=lq$$
cp /usr/bin/python3 "$WORK/$LQ_NAME"

# The listen-queue server in the namespace, on $PORT; sets SRV.
lq_server_start() { # backlog accept-every-ms count [options...]
	local ready=$WORK/lq.ready i
	rm -f "$ready"
	ip netns exec "$NS" "$WORK/$LQ_NAME" "$LQ" server --port "$PORT" --timeout 60 --backlog "$1" \
		--accept-every "$2" \
		--count "$3" --ready "$ready" "${@:4}" >"$WORK/server.out" 2>&1 &
	SRV=$!
	for i in $(seq 400); do [ -s "$ready" ] && return 0; sleep 0.05; done
	log "listen-queue server did not start: $(cat "$WORK/server.out")"
	return 1
}

# A burst of connects at once from one client process; sets CLI.
lq_burst() { # count timeout-s out-file [options...]
	ip netns exec "$NS" "$WORK/$LQ_NAME" "$LQ" burst --port "$PORT" --count "$1" --timeout "$2" "${@:4}" \
		>"$3" 2>&1 &
	CLI=$!
	wait "$CLI" || { log "burst failed: $(cat "$3")"; return 1; }
}

# ss -ltm's d: the listener's own drop count (sk_drops).
listener_d() { in_ns ss -ltmH "( sport = :$PORT )" | grep -o 'd[0-9]*)' | tr -dc 0-9; }

# Until the namespace's ListenDrops stays the same for a second (at most
# 15 s): a client's FIN sent again to a listener that dropped its cookie
# ACK is a connection attempt too, and dropped while the queue is full.
drops_settle() {
	local last=-1 now i
	for i in $(seq 75); do
		now=$(nstat_of TcpExtListenDrops)
		[ "$now" = "$last" ] && [ $((i % 5)) -eq 0 ] && return 0
		[ $((i % 5)) -eq 0 ] && last=$now
		sleep 0.2
	done
	log "    ListenDrops still moving after 15 s"
}

# What every listen-queue case checks against the namespace's counters:
# the listener's drops on its owner, SYN and SYN-ACK retransmissions each
# on its own process, connections on both.
expect_listen_queue_counts() { # csv backlog client-pid...
	local csv=$1 backlog=$2 drops syn=0 wrong=0 cli
	drops=$(csv_sum "$csv" "$SRV" listen_drops)
	for cli in "${@:3}"; do
		syn=$((syn + $(csv_sum "$csv" "$cli" syn_retrans_out)))
		wrong=$((wrong + $(csv_sum "$csv" "$cli" synack_retrans_in) + $(csv_sum "$csv" "$cli" listen_drops)))
	done
	expect_eq "server listen_drops = ListenDrops" "$(nstat_of TcpExtListenDrops)" "$drops"
	expect_eq "clients' syn_retrans_out + server synack_retrans_in = TCPSynRetrans" \
		"$(nstat_of TcpExtTCPSynRetrans)" "$((syn + $(csv_sum "$csv" "$SRV" synack_retrans_in)))"
	expect_eq "server syn_retrans_out, clients' synack_retrans_in and listen_drops" 0 \
		"$((wrong + $(csv_sum "$csv" "$SRV" syn_retrans_out)))"
	expect_eq "server conn_in = TcpPassiveOpens" "$(nstat_of TcpPassiveOpens)" \
		"$(csv_sum "$csv" "$SRV" conn_in)"
	expect_eq "server acceptq_limit = its backlog" "$backlog" "$(csv_max "$csv" "$SRV" acceptq_limit)"
	expect_eq "a finding names the listener and its drops, if any" "$((drops > 0))" \
		"$(grep -c "^finding: $LQ_NAME $SRV: its listener 127.0.0.1:$PORT dropped $drops connection attempts" "$WORK/tracer.out")"
	expect_handshakes "$csv" "${@:3}"
}

# The handshakes as the server's listener saw them: each connection it
# completed timed; those over 1 s the ones the server itself found slow
# among those it accepted (tcp_info: a SYN-ACK sent again, or an RTT from
# the SYN-ACK above 1 s), and at most those it did not accept.
expect_handshakes() { # csv client-pid...
	local csv=$1 conn_in accepted slow over cli clients=0
	conn_in=$(csv_sum "$csv" "$SRV" conn_in)
	accepted=$(field "$WORK/server.out" accepted)
	slow=$(field "$WORK/server.out" slow_handshakes)
	over=$(csv_buckets "$csv" "$SRV" handshake over_1s)
	expect_eq "server: its connections' handshakes timed = its conn_in" "$conn_in" \
		"$(csv_buckets "$csv" "$SRV" handshake)"
	if [ "$accepted" -eq "$conn_in" ]; then
		expect_eq "server: handshakes over 1 s = those it accepted and found slow (tcp_info)" \
			"$slow" "$over"
	else
		expect_eq "server: handshakes over 1 s ($over): its $slow accepted and found slow (tcp_info), and at most the $((conn_in - accepted)) it did not accept" \
			1 "$((over >= slow && over <= slow + conn_in - accepted))"
	fi
	for cli in "${@:2}"; do
		clients=$((clients + $(csv_buckets "$csv" "$cli" handshake)))
	done
	expect_eq "clients: no handshake of a listener" 0 "$clients"
}

# Only SYN-time drops, as every kernel sees them: a server that never
# accepts, its queue filled first, then a burst whose SYNs all find it
# full. Each listener's drop count then equals ListenDrops.
case_listen_drops_syn_time() {
	local csv=$WORK/t.csv d fill
	ns_new net.ipv4.tcp_syncookies=0 || return 1
	lq_server_start 4 0 0 --hold 60 || return 1
	tracer_start "$csv" -p "$LQ_NAME" || return 1
	lq_burst 5 5 "$WORK/fill.out" || return 1
	fill=$CLI
	lq_burst 10 3 "$WORK/client.out" || return 1
	d=$(listener_d)
	kill -USR1 "$SRV"
	wait "$SRV"
	tracer_stop || return 1
	expect_eq "the queue's 5 (backlog 4, + 1) filled it" 5 "$(field "$WORK/fill.out" connected)"
	expect_eq "server listen_drops = ss -ltm's d" "$d" "$(csv_sum "$csv" "$SRV" listen_drops)"
	expect_eq "server acceptq_peak = limit + 1" 5 "$(csv_max "$csv" "$SRV" acceptq_peak)"
	expect_listen_queue_counts "$csv" 4 "$fill" "$CLI"
	expect_eq "conn_out of the client that filled the queue" 5 "$(csv_sum "$csv" "$fill" conn_out)"
	expect_eq "conn_out of the client whose SYNs were dropped" 0 "$(csv_sum "$csv" "$CLI" conn_out)"
}

# A server that accepts slowly under a burst: drops at the SYN and at the
# third ACK (counted twice in the listener's sk_drops), with SYN cookies or
# without; its close then ends the drops. Exact where the kernel says which
# packet a listener dropped (6.11+).
case_listen_drops_overload() { # syncookies
	local csv=$WORK/t.csv d
	ns_new "net.ipv4.tcp_syncookies=$1" || return 1
	lq_server_start 4 100 1000 --close-after 60 || return 1
	tracer_start "$csv" -p "$LQ_NAME" || return 1
	lq_burst 40 4 "$WORK/client.out" || return 1
	d=$(listener_d)
	kill -USR1 "$SRV"
	wait "$SRV"
	tracer_stop || return 1
	log "    (ss -ltm's d $d, ListenDrops $(nstat_of TcpExtListenDrops), SyncookiesSent $(nstat_of TcpExtSyncookiesSent))"
	expect_eq "client conn_out = the connections it made" "$(field "$WORK/client.out" connected)" \
		"$(csv_sum "$csv" "$CLI" conn_out)"
	expect_listen_queue_counts "$csv" 4 "$CLI"
}

# Clients that send nothing after connecting, to a server whose accept
# queue is full when their last ACKs come: the kernel drops those ACKs and
# sends the SYN-ACKs again a second later, then again after two more, and
# each connection comes into being at an ACK that answers one. Its
# handshake, as the listener saw it, is over a second.
case_handshakes_synack_again() {
	local csv=$WORK/t.csv scope=()
	ns_new net.ipv4.tcp_syncookies=0 || return 1
	lq_server_start 4 250 20 --hold 60 || return 1
	[ -n "${HANDSHAKES_IN_NETNS:-}" ] && scope=(--netns "/run/netns/$NS")
	tracer_start "$csv" -p "$LQ_NAME" "${scope[@]}" || return 1
	expect_eq "the listener, there before tcptrace, found" 1 \
		"$(sed -n 's/^tcptrace: tracing .*, \([0-9]*\) existing sockets found.*/\1/p' "$WORK/tracer.err")"
	lq_burst 20 12 "$WORK/client.out" --silent || return 1
	kill -USR1 "$SRV"
	wait "$SRV"
	tracer_stop || return 1
	expect_eq "every connection made, accepted and ended" "20 20 20" \
		"$(field "$WORK/client.out" connected) $(field "$WORK/server.out" accepted) $(field "$WORK/client.out" ended)"
	expect_eq "the server sent SYN-ACKs again" 1 "$(($(csv_sum "$csv" "$SRV" synack_retrans_in) > 0))"
	expect_eq "the server found handshakes over 1 s (tcp_info)" 1 "$(($(field "$WORK/server.out" slow_handshakes) > 0))"
	# A SYN-ACK sent again is in the child's own count (total_retrans),
	# and is not data.
	expect_eq "data segments sent again, both ends = TcpRetransSegs - TCPSynRetrans" \
		"$(($(nstat_of TcpRetransSegs) - $(nstat_of TcpExtTCPSynRetrans)))" \
		"$(($(csv_sum "$csv" "$SRV" retrans_in) + $(csv_sum "$csv" "$CLI" retrans_out)))"
	expect_listen_queue_counts "$csv" 4 "$CLI"
}

# The same, scoped to the namespace with --netns: its listener from before
# the start is seeded as without the scope (0 found once, so its SYN-ACKs
# sent again went uncounted).
case_handshakes_synack_again_netns() {
	local HANDSHAKES_IN_NETNS=1
	case_handshakes_synack_again
}

# The same, with tcptrace losing the CPU between the listeners' dump and
# the read of their extra drops (issue 38): a last ACK dropped at the full
# accept queue meanwhile is taken off before sk_drops holds it, and the
# drops must not read as a counter gone back and be counted again.
case_handshakes_synack_again_read_late() {
	local -x TCPTRACE_TEST_LISTENERS_LATE_MS=150
	case_handshakes_synack_again
}

# Under TCP_DEFER_ACCEPT (nginx's deferred, haproxy's defer-accept) the
# handshake's last ACK, which carries no data, is dropped and bumps the
# listener's sk_drops: it is no connection attempt dropped, and ListenDrops
# does not count it. Told apart where the kernel says which packet a
# listener dropped (6.11+).
case_listen_drops_defer_accept() {
	local csv=$WORK/t.csv d drops
	ns_new || return 1
	lq_server_start 16 0 20 --defer 5 --hold 60 || return 1
	tracer_start "$csv" -p "$LQ_NAME" || return 1
	lq_burst 20 5 "$WORK/client.out" || return 1
	d=$(listener_d)
	drops=$(nstat_of TcpExtListenDrops)
	kill -USR1 "$SRV"
	wait "$SRV"
	tracer_stop || return 1
	expect_eq "every connection made and ended" "connected=20 ended=20" \
		"connected=$(field "$WORK/client.out" connected) ended=$(field "$WORK/client.out" ended)"
	expect_eq "ss -ltm's d is above ListenDrops: bare ACKs dropped" 1 "$((d > drops))"
	expect_listen_queue_counts "$csv" 16 "$CLI"
}

# A listener that closes between two snapshots (an interval of 30 s): its
# drops come from its close, none lost.
case_listen_drops_listener_closed() {
	local csv=$WORK/t.csv
	ns_new net.ipv4.tcp_syncookies=0 || return 1
	lq_server_start 4 100 1000 --close-after 1 --linger 1 || return 1
	tracer_start "$csv" -i 30 -p "$LQ_NAME" || return 1
	lq_burst 40 3 "$WORK/client.out" || return 1
	wait "$SRV"
	tracer_stop || return 1
	expect_eq "no snapshot while the listener lived: the rows of one interval" 1 \
		"$(awk -F, 'NR > 1 { print $2 }' "$csv" | sort -u | wc -l)"
	expect_listen_queue_counts "$csv" 4 "$CLI"
}

# Connections in a listener's accept queue when tcptrace starts: no
# process holds them yet, so /proc/PID/fd cannot name their owner; they
# are its listener's, and how they end is counted.
case_unaccepted_before_start() {
	local n=5 i go=$WORK/go ready=$WORK/ready.queue cready=$WORK/ready.clients
	ns_new || return 1
	ip netns exec "$NS" python3 -c '
import os, socket, sys, time
port, n, ready, go = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
s = socket.socket()
s.bind(("127.0.0.1", port))
s.listen(64)
open(ready, "w").write("listening")
for _ in range(600):
    if os.path.exists(go): break
    time.sleep(0.05)
for _ in range(n):
    c, _ = s.accept()
    c.close()
' "$PORT" "$n" "$ready" "$go" >"$WORK/server.out" 2>&1 &
	SRV=$!
	for i in $(seq 200); do [ -s "$ready" ] && break; sleep 0.05; done
	ip netns exec "$NS" python3 -c '
import socket, sys
port, n, ready = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
socks = [socket.create_connection(("127.0.0.1", port)) for _ in range(n)]
open(ready, "w").write("connected")
for c in socks:
    while c.recv(1): pass
    c.close()
' "$PORT" "$n" "$cready" >"$WORK/client.out" 2>&1 &
	CLI=$!
	for i in $(seq 200); do [ -s "$cready" ] && break; sleep 0.05; done
	expect_eq "connections waiting in the accept queue" "$n" "$(in_ns ss -tanH state established "( sport = :$PORT )" | wc -l)"
	tracer_start "$WORK/t.csv" -p "$SRV" || return 1
	touch "$go"
	wait "$SRV" || { log "server failed: $(cat "$WORK/server.out")"; return 1; }
	wait "$CLI" || { log "client failed: $(cat "$WORK/client.out")"; return 1; }
	tracer_stop || return 1
	local csv=$WORK/t.csv
	expect_eq "sockets found at start: the listener and its queue" \
		"tcptrace: tracing the named processes, $((n + 1)) existing sockets found, acceptors named $(acceptors_way); Ctrl-C to stop" \
		"$(grep '^tcptrace: tracing' "$WORK/tracer.err")"
	expect_eq "server conn_in (established before start)" 0 "$(csv_sum "$csv" "$SRV" conn_in)"
	expect_eq "server fin_active_in" "$n" "$(csv_sum "$csv" "$SRV" fin_active_in)"
	expect_eq "server tw_in = TcpExtTW" "$(nstat_of TcpExtTW)" "$(csv_sum "$csv" "$SRV" tw_in)"
	expect_eq "server tw_in" "$n" "$(csv_sum "$csv" "$SRV" tw_in)"
}
