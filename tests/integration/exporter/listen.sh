# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# Listen queues through Prometheus: drops = ListenDrops, SYNs sent again =
# TCPSynRetrans, open connections = ss, per process in the CSV.
# Sourced by tests/integration/exporter.sh, which runs the cases.

# A listener with a small backlog that accepts slowly (tt-scenario hold
# --backlog --accept-delay --keep-listening) and clients that each send a
# burst of connects and hold them, separate processes of the traced name
# (ip netns exec runs each as itself: its PID is $!),
# in a namespace without SYN cookies: a connection attempt the full queue
# drops waits for its SYN to go again. While the clients hold, Prometheus
# gets the kernel's own counts: tcptrace_listen_drops_total and the
# listener's series = ListenDrops, the SYNs and SYN-ACKs sent again =
# TCPSynRetrans, tcptrace_open_connections = ss state established of the
# server (in) and of the clients (out); the accept queue's limit is the
# backlog, its deepest one more (the kernel drops beyond it; CPUs that
# admit at once may each add one). The CSV says
# which process each count is on.
case_listen_queues() {
	local s=$SCENARIO_NAME mport n=4 clients=3 backlog=2 total i t_ready srv idle
	local q l cpids=() held j
	# SYN cookies off: a full queue drops the SYN, never a cookie's ACK.
	ns_new net.ipv4.tcp_syncookies=0 || return 1
	# A process of the name in the namespace from the start: tcptrace
	# opens the namespaces of the processes it traces at start-up, while
	# it is still root, and reads the listeners in them.
	mkdir -p "$WORK/idle" && cp "$(command -v sleep)" "$WORK/idle/$s"
	in_ns "$WORK/idle/$s" 300 &
	idle=$!
	for i in $(seq 100); do pgrep -x "$s" >/dev/null && break; sleep 0.05; done
	mport=$(free_port)
	tracer_start "$WORK/t.csv" -p "$s" -i 1 --listen "127.0.0.1:$mport" || return 1
	prom_start "127.0.0.1:$mport" || return 1
	total=$((n * clients))
	server_start 127.0.0.1 8080 "$total" hold --backlog "$backlog" --accept-delay 150 \
		--keep-listening || return 1
	srv=$SRV
	q="comm=\"$s\""
	l="$q,listener=\"127.0.0.1:8080\""
	# At once: the server's first accept() waits 10 s at most.
	for i in $(seq "$clients"); do
		ip netns exec "$NS" "$SCENARIO" client --addr 127.0.0.1 --port 8080 --count "$n" \
			--mode burst --wait 30 --hold "$WORK/hold.$i" >"$WORK/client$i.out" 2>&1 &
		cpids+=($!)
	done
	for i in $(seq 600); do
		held=0
		for j in $(seq "$clients"); do [ -s "$WORK/hold.$j" ] && held=$((held + 1)); done
		[ "$held" = "$clients" ] && break
		sleep 0.1
	done
	expect_eq "clients holding their connections" "$clients" "$held"
	wait_accepted "$srv" "$total" || return 1
	sleep 2.2 # two intervals of tcptrace after the last accept
	t_ready=$(date +%s.%N)
	wait_for_scrape_after "$t_ready" || return 1

	local drops retrans
	drops=$(nstat_of TcpExtListenDrops)
	retrans=$(nstat_of TcpExtTCPSynRetrans)
	expect_eq "scenario: the queue dropped connection attempts" 1 "$((drops > 0))"
	expect_eq "scenario: SYNs were sent again" 1 "$((retrans > 0))"
	expect_eq "tcptrace_listen_drops_total = ListenDrops" "$drops" \
		"$(prom_query "tcptrace_listen_drops_total{$q}")"
	expect_eq "tcptrace_listener_drops_total = ListenDrops" "$drops" \
		"$(prom_query "tcptrace_listener_drops_total{$l}")"
	expect_eq "tcptrace_syn_retransmits_total, both sides = TCPSynRetrans" "$retrans" \
		"$(prom_query "sum(tcptrace_syn_retransmits_total{$q})")"
	expect_eq "open connections, side in = ss state established of the server" \
		"$(established_of "$srv")" "$(prom_query "tcptrace_open_connections{$q,side=\"in\"}")"
	local out=0 pid
	for pid in "${cpids[@]}"; do out=$((out + $(established_of "$pid"))); done
	expect_eq "scenario: every connection held" "$total $total" "$(established_of "$srv") $out"
	expect_eq "open connections, side out = ss state established of the clients" "$out" \
		"$(prom_query "tcptrace_open_connections{$q,side=\"out\"}")"
	expect_eq "the listener's limit = its backlog" "$backlog" \
		"$(prom_query "tcptrace_listener_acceptq_limit{$l}")"
	# The kernel admits a connection while the queue holds no more than
	# the backlog, and checks before it adds, on each CPU at once: the
	# deepest is the backlog and one, or up to one more per other CPU.
	local deepest
	deepest=$(prom_query "tcptrace_listener_acceptq_deepest{$l}")
	expect_eq "the listener's deepest queue: the backlog and one to the backlog and $(nproc)" 1 \
		"$((deepest >= backlog + 1 && deepest <= backlog + $(nproc)))"
	expect_eq "its queue now" 0 "$(prom_query "tcptrace_listener_acceptq_peak{$l}")"
	expect_eq "somaxconn of its namespace" "$(in_ns sysctl -n net.core.somaxconn)" \
		"$(prom_query "tcptrace_listener_somaxconn{$l}")"
	expect_eq "listener pairs with series" 1 "$(prom_query 'tcptrace_listeners')"
	# Per process, from the CSV: each count on the process it belongs to.
	local csv=$WORK/t.csv
	expect_eq "CSV: open_in of the server, its last row = ss" "$(established_of "$srv")" \
		"$(csv_last "$csv" "$srv" open_in)"
	for pid in "${cpids[@]}"; do
		expect_eq "CSV: open_out of client $pid, its last row = ss" "$(established_of "$pid")" \
			"$(csv_last "$csv" "$pid" open_out)"
		expect_eq "CSV: client $pid has no SYN-ACK sent again, no drop" "0 0" \
			"$(csv_sum "$csv" "$pid" synack_retrans_in) $(csv_sum "$csv" "$pid" listen_drops)"
	done
	expect_eq "CSV: the server's drops = ListenDrops" "$drops" "$(csv_sum "$csv" "$srv" listen_drops)"
	expect_eq "CSV: the server sent no SYN again" 0 "$(csv_sum "$csv" "$srv" syn_retrans_out)"
	expect_eq "Prometheus = CSV: SYNs of the clients (out)" "$(comm_sum "$csv" "$s" syn_retrans_out)" \
		"$(prom_query "tcptrace_syn_retransmits_total{$q,side=\"out\"}")"
	expect_eq "Prometheus = CSV: SYN-ACKs of the server (in)" "$(comm_sum "$csv" "$s" synack_retrans_in)" \
		"$(prom_query "tcptrace_syn_retransmits_total{$q,side=\"in\"}")"
	expect_eq "CSV: the server's deepest queue = the listener's" "$deepest $backlog" \
		"$(awk -F, -v pid="$srv" '
			NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
			$3 == pid && $c["acceptq_peak"] + 0 > p { p = $c["acceptq_peak"]; l = $c["acceptq_limit"] }
			END { print p + 0, l + 0 }' "$csv")"
	curl -sf "http://127.0.0.1:$mport/metrics" >"$WORK/m.txt"
	"$PROMTOOL" check metrics <"$WORK/m.txt" >"$WORK/promtool.out" 2>&1
	expect_eq "promtool check metrics, listener families included" "0:" \
		"$?:$(cat "$WORK/promtool.out")"

	kill -USR1 "${cpids[@]}" 2>/dev/null
	for i in "${cpids[@]}"; do wait "$i" || { log "a client failed: $(cat "$WORK"/client*.out)"; return 1; }; done
	wait "$srv" || { log "the server failed: $(cat "$WORK/server.out")"; return 1; }
	kill "$idle" && wait "$idle" 2>/dev/null
	tracer_stop
}
