# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# /metrics' server: --max-comms, a daemon that outlives its target, IPv6,
# hostile clients, SIGTERM, clients that never read.
# Sourced by tests/integration/exporter.sh, which runs the cases.

# --max-comms 1 with two names (two servers, and the clients of both under
# the first name): one name gets series of its own, the other is added up
# under "(other processes)", and the sums over names stay exact.
case_series_cap() {
	local n=10 mport m=$WORK/metrics.txt other=ttc$$ i
	ns_new || return 1
	cp "$SCENARIO" "$WORK/$other"
	mport=$(free_port)
	server_start 127.0.0.1 8080 "$n" fin-client || return 1
	in_ns "$WORK/$other" server --addr 127.0.0.1 --port 8081 --count "$n" --mode fin-client \
		--ready "$WORK/ready.other" >"$WORK/server2.out" 2>&1 &
	local srv2=$!
	for i in $(seq 400); do [ -s "$WORK/ready.other" ] && break; sleep 0.05; done
	tracer_start "$WORK/t.csv" -p "$SCENARIO_NAME,$other" --listen "$mport" --max-comms 1 \
		|| return 1
	for port in 8080 8081; do
		in_ns "$SCENARIO" client --addr 127.0.0.1 --port "$port" --count "$n" --mode fin-client \
			>"$WORK/client.out" 2>&1 || { log "client: $(cat "$WORK/client.out")"; return 1; }
	done
	wait "$SRV" && wait "$srv2" || { log "a server failed"; return 1; }
	settle
	sleep 0.5
	curl -sf "http://127.0.0.1:$mport/metrics" >"$m" || { log "no answer from /metrics"; return 1; }
	expect_eq "names with series" "tcptrace_comms 1" "$(grep '^tcptrace_comms ' "$m")"
	expect_eq "the limit" "tcptrace_comms_limit 1" "$(grep '^tcptrace_comms_limit ' "$m")"
	expect_eq "overflow counted" 1 "$(awk '$1 == "tcptrace_comms_overflow_total" { print ($2 > 0) }' "$m")"
	expect_eq "an other series" 2 "$(grep -c '^tcptrace_connections_total{comm="(other processes)",side="' "$m")"
	expect_eq "connections, all names = TcpPassiveOpens + TcpActiveOpens" \
		"$(($(nstat_of TcpPassiveOpens) + $(nstat_of TcpActiveOpens)))" \
		"$(awk '/^tcptrace_connections_total\{/ { s += $NF } END { print s + 0 }' "$m")"
	"$PROMTOOL" check metrics <"$m" >"$WORK/promtool.out" 2>&1
	expect_eq "promtool check metrics" "0:" "$?:$(cat "$WORK/promtool.out")"
	tracer_stop
}

# A daemon: it outlives the process it traces, keeps answering while
# clients misbehave, serves IPv6 loopback, and ends on SIGTERM.
case_daemon_and_hostile_clients() {
	local mport i fd fds=() code
	sleep 300 &
	local target=$!
	mport=$(free_port)
	: >"$WORK/tracer.err"
	"$TCPTRACE" -p "$target" -i 0.2 --listen "[::1]:$mport" >"$WORK/tracer.out" 2>"$WORK/tracer.err" &
	TRACER_PID=$!
	for i in $(seq 600); do grep -q '^tcptrace: tracing' "$WORK/tracer.err" && break; sleep 0.05; done
	expect_eq "says where it serves" 1 "$(grep -c "^tcptrace: serving http://\[::1\]:$mport/metrics$" "$WORK/tracer.err")"
	kill -KILL "$target"
	for i in $(seq 100); do grep -q 'traced processes have exited' "$WORK/tracer.err" && break; sleep 0.05; done
	sleep 0.5
	expect_eq "still running after the traced process exited" 0 "$(kill -0 "$TRACER_PID"; echo $?)"
	expect_eq "says it keeps serving" 1 "$(grep -c '^tcptrace: the traced processes have exited; /metrics keeps their counts until tcptrace is stopped$' "$WORK/tracer.err")"
	# 24 clients that connect and say nothing: more than the server's 16
	# slots, so the oldest give way. The last two send half a request, and
	# garbage. A scraper must still get its answer at once.
	for i in $(seq 24); do
		exec {fd}<>"/dev/tcp/::1/$mport" || return 1
		fds+=("$fd")
	done
	# In subshells: a write to a connection the server closed is SIGPIPE.
	(printf 'GET /metr' >&"${fds[22]}") 2>/dev/null
	(printf '\x00\xff\r\n\r\n' >&"${fds[23]}") 2>/dev/null
	code=$(curl -sg -o "$WORK/m.txt" -m 3 -w '%{http_code}' "http://[::1]:$mport/metrics")
	expect_eq "served beside 24 idle connections" 200 "$code"
	expect_eq "the text names the process" 1 "$(grep -c '^tcptrace_timewait_sockets{comm="sleep"} 0$' "$WORK/m.txt")"
	local line
	read -r -t 3 line <&"${fds[23]}"
	expect_eq "garbage gets a 400" "HTTP/1.1 400 Bad Request" "${line%$'\r'}"
	read -r -t 3 line <&"${fds[0]}"
	expect_eq "the oldest idle connection was closed (EOF, no timeout)" 1 "$?"
	code=$(curl -sg -o /dev/null -m 3 -w '%{http_code}' \
		-H "X-Big: $(head -c 9000 /dev/zero | tr '\0' a)" "http://[::1]:$mport/metrics")
	expect_eq "oversized headers" 431 "$code"
	expect_eq "POST" 405 "$(curl -sg -o /dev/null -m 3 -w '%{http_code}' -d x "http://[::1]:$mport/metrics")"
	expect_eq "another path" 404 "$(curl -sg -o /dev/null -m 3 -w '%{http_code}' "http://[::1]:$mport/metrics.json")"
	expect_eq "Connection: close" 1 "$(curl -sgI -m 3 "http://[::1]:$mport/metrics" | grep -ci '^connection: close')"
	for fd in "${fds[@]}"; do exec {fd}>&-; done
	kill -TERM "$TRACER_PID"
	wait "$TRACER_PID"
	expect_eq "SIGTERM: exit status" 0 "$?"
	TRACER_PID=""
	expect_eq "summary on stderr" 1 "$(grep -c '^Totals over' "$WORK/tracer.err")"
	expect_eq "no table on stdout" "" "$(cat "$WORK/tracer.out")"
}

# Clients that ask for /metrics and never read it: each response is larger
# than what their socket and the server's hold (small segments keep the
# server's send buffer small), so it stalls half sent.
# From one address they may hold at most half of the 16 slots; once a
# response has taken nothing for a second its client gives way to a new
# one. A scraper from the same address must be answered while they wait.
case_clients_that_never_read() {
	local mport i n=16 code body
	ns_new || return 1
	mport=$(free_port)
	: >"$WORK/tracer.err"
	"$TCPTRACE" -p bash -i 0.2 --by dest --max-comms 1000 --listen "127.0.0.1:$mport" \
		>"$WORK/tracer.out" 2>"$WORK/tracer.err" &
	TRACER_PID=$!
	for i in $(seq 600); do grep -q '^tcptrace: tracing' "$WORK/tracer.err" && break; sleep 0.05; done
	# A large body: series for 200 destinations (refused connects).
	in_ns bash -c 'for p in $(seq 9000 9199); do (exec 3<>/dev/tcp/127.0.0.1/$p) 2>/dev/null; done'
	sleep 0.5
	body=$(curl -s -m 3 "http://127.0.0.1:$mport/metrics" | wc -c)
	expect_eq "the body is larger than the sockets hold (over 100 kB)" 1 "$((body > 100000))"
	python3 - "$mport" "$n" >"$WORK/stallers.out" 2>&1 <<'EOF' &
import socket, sys, time
port, n = int(sys.argv[1]), int(sys.argv[2])
held = []
for _ in range(n):
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    # Small segments keep the server's send buffer small (it grows with them).
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_MAXSEG, 536)
    s.connect(("127.0.0.1", port))
    s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
    held.append(s)
print("sent", len(held), flush=True)
time.sleep(8)
EOF
	local stallers=$!
	for i in $(seq 100); do grep -q '^sent' "$WORK/stallers.out" && break; sleep 0.05; done
	sleep 1.5
	code=$(curl -s -o "$WORK/m.txt" -m 3 -w '%{http_code}' "http://127.0.0.1:$mport/metrics")
	expect_eq "a scraper answered beside $n clients that never read" 200 "$code"
	expect_eq "and its body whole" 1 "$(grep -c '^tcptrace_build_info{' "$WORK/m.txt")"
	kill "$stallers" 2>/dev/null
	wait "$stallers" 2>/dev/null
	tracer_stop
}
