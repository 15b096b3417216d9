# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# connect(): port exhaustion, refused connections, every cause of failure
# and the time to connect, wrk's and nginx's own counts of failed
# connects, and --by dest.
# Sourced by tests/integration/run.sh, which runs the cases.

case_port_exhaustion() {
	ns_new "net.ipv4.ip_local_port_range=40000 40003" || return 1
	server_start 127.0.0.1 "$PORT" 4 hold || return 1
	tracer_start "$WORK/t.csv" -p "$SCENARIO_NAME" || return 1
	ip netns exec "$NS" "$SCENARIO" client --addr 127.0.0.1 --port "$PORT" --count 8 --mode exhaust \
		>"$WORK/client.out" 2>&1 &
	CLI=$!
	wait "$CLI" || { log "client failed: $(cat "$WORK/client.out")"; return 1; }
	kill -USR1 "$SRV" 2>/dev/null
	wait "$SRV"
	tracer_stop || return 1
	local csv=$WORK/t.csv
	expect_eq "client's own EADDRNOTAVAIL count" 4 "$(field "$WORK/client.out" eaddrnotavail)"
	expect_eq "client eaddrnotavail" "$(field "$WORK/client.out" eaddrnotavail)" "$(csv_sum "$csv" "$CLI" eaddrnotavail)"
	expect_eq "client conn_out" "$(field "$WORK/client.out" connected)" "$(csv_sum "$csv" "$CLI" conn_out)"
	expect_eq "client connfail_out" 0 "$(csv_sum "$csv" "$CLI" connfail_out)"
	expect_eq "server eaddrnotavail" 0 "$(csv_sum "$csv" "$SRV" eaddrnotavail)"
}

# Connects of a destination in the latency buckets.
dest_connects() { # csv dest
	awk -F, -v dest="$2" '
		NR == 1 { for (i = 1; i <= NF; i++) if ($i ~ /^connect_([0-9]+(us|ms|s)|over_50s)$/) c[i] = 1; next }
		$5 == dest { for (i in c) s += $i }
		END { print s + 0 }' "$1"
}

dest_last() { # csv dest column
	awk -F, -v dest="$2" -v col="$3" '
		NR == 1 { for (i = 1; i <= NF; i++) if ($i == col) c = i; next }
		$5 == dest { v = $c }
		END { print v + 0 }' "$1"
}

# Sockets of the namespace toward a destination holding a port of the range.
ports_held_toward() { # port lo hi
	in_ns ss -tanH state all "( dport = :$1 )" |
		awk -v lo="$2" -v hi="$3" '{ n = split($4, a, ":"); p = a[n] + 0 } p >= lo && p <= hi { c++ } END { print c + 0 }'
}

# --by dest: per destination, exhaustion and headroom from the namespace's
# own range (4 ports, no timewait reuse): one client runs out toward :8080,
# a second still has ports toward :8081, since a port is taken per
# destination.
case_by_dest() {
	local csv=$WORK/d.csv rc
	ns_new "net.ipv4.ip_local_port_range=40000 40003" net.ipv4.tcp_tw_reuse=0 || return 1
	server_start 127.0.0.1 8080 4 hold || return 1
	local srv_a=$SRV
	server_start 127.0.0.1 8081 3 hold || return 1
	: >"$WORK/tracer.err"
	"$TCPTRACE" -p "$SCENARIO_NAME" --by dest -i 0.2 --csv "$csv" -- ip netns exec "$NS" sh -c "
		\"$SCENARIO\" client --addr 127.0.0.1 --port 8080 --count 8 --mode exhaust >$WORK/a.out 2>&1 &&
		\"$SCENARIO\" client --addr 127.0.0.1 --port 8081 --count 3 --mode exhaust >$WORK/b.out 2>&1" \
		>"$WORK/tracer.out" 2>"$WORK/tracer.err"
	rc=$?
	wait "$srv_a" "$SRV"
	expect_eq "both clients as expected (run mode status)" 0 "$rc"
	expect_eq "client A's own EADDRNOTAVAIL count" 4 "$(field "$WORK/a.out" eaddrnotavail)"
	expect_eq "header" "time,elapsed_s,pid,comm,dest,conn_out" "$(head -1 "$csv" | cut -d, -f1-6)"
	local a=127.0.0.1:8080 b=127.0.0.1:8081
	expect_eq "$a conn_out = client A's connected" "$(field "$WORK/a.out" connected)" "$(dest_sum "$csv" $a conn_out)"
	expect_eq "$a eaddrnotavail = client A's own count" "$(field "$WORK/a.out" eaddrnotavail)" "$(dest_sum "$csv" $a eaddrnotavail)"
	expect_eq "$a fin_active_out" 4 "$(dest_sum "$csv" $a fin_active_out)"
	expect_eq "$a tw_out = ss timewait toward it" "$(tw_count dport 8080)" "$(dest_sum "$csv" $a tw_out)"
	expect_eq "$a tw_now = ss timewait toward it" "$(tw_count dport 8080)" "$(dest_last "$csv" $a tw_now)"
	expect_eq "$a ports_held = ss sockets toward it in the range" "$(ports_held_toward 8080 40000 40003)" "$(dest_last "$csv" $a ports_held)"
	expect_eq "$a ports_free" 0 "$(dest_last "$csv" $a ports_free)"
	expect_eq "$a connects timed = its conn_out, no failed connect" "$(dest_sum "$csv" $a conn_out) 0" \
		"$(dest_connects "$csv" $a) $(dest_sum "$csv" $a connfail_out)"
	expect_eq "$b conn_out = client B's connected" "$(field "$WORK/b.out" connected)" "$(dest_sum "$csv" $b conn_out)"
	expect_eq "$b connects timed = its conn_out" "$(dest_sum "$csv" $b conn_out)" "$(dest_connects "$csv" $b)"
	expect_eq "$b eaddrnotavail" 0 "$(dest_sum "$csv" $b eaddrnotavail)"
	expect_eq "$b tw_out = ss timewait toward it" "$(tw_count dport 8081)" "$(dest_sum "$csv" $b tw_out)"
	expect_eq "$b ports_held = ss sockets toward it in the range" "$(ports_held_toward 8081 40000 40003)" "$(dest_last "$csv" $b ports_held)"
	expect_eq "$b ports_free = 4 - held" $((4 - $(ports_held_toward 8081 40000 40003))) "$(dest_last "$csv" $b ports_free)"
	expect_eq "all connections = TcpActiveOpens" "$(nstat_of TcpActiveOpens)" \
		$(($(dest_sum "$csv" $a conn_out) + $(dest_sum "$csv" $b conn_out)))
	expect_eq "table: destination rows in the summary" 2 \
		"$(awk '/^Totals by destination/ { on = 1 } on && $1 ~ /^[0-9]+$/ && / 127\.0\.0\.1:808[01] /' "$WORK/tracer.out" | wc -l)"
}

case_connection_refused() {
	ns_new || return 1
	# Nothing listens on $PORT. tcptrace needs a running process of the
	# name to accept it: a placeholder server on another port.
	server_start 127.0.0.1 9 1 hold || return 1
	tracer_start "$WORK/t.csv" -p "$SCENARIO_NAME" || return 1
	ip netns exec "$NS" "$SCENARIO" client --addr 127.0.0.1 --port "$PORT" --count 5 --mode refused \
		>"$WORK/client.out" 2>&1 &
	CLI=$!
	wait "$CLI" || { log "client failed: $(cat "$WORK/client.out")"; return 1; }
	tracer_stop || return 1
	local csv=$WORK/t.csv
	expect_eq "client's own refused count" 5 "$(field "$WORK/client.out" refused)"
	expect_eq "client connfail_out" 5 "$(csv_sum "$csv" "$CLI" connfail_out)"
	expect_eq "client conn_out" 0 "$(csv_sum "$csv" "$CLI" conn_out)"
	expect_eq "client rst_recv_out (no connection ended)" 0 "$(csv_sum "$csv" "$CLI" rst_recv_out)"
	expect_eq "client eaddrnotavail" 0 "$(csv_sum "$csv" "$CLI" eaddrnotavail)"
	# The kernel answers each SYN with an RST that has no socket: in no
	# process row, but in the namespace's own line of the summary.
	expect_eq "RSTs in no process row of the namespace = TcpOutRsts" "$(nstat_of TcpOutRsts)" \
		"$(other_rsts "$WORK/tracer.out" "$(ns_inum)")"
	expect_eq "their reasons" "NO_SOCKET 5" "$(other_rst_reasons "$WORK/tracer.out" "$(ns_inum)")"
}

# Every way a connect() ends, each by a client process of its own, against
# the clients' own errno counts: refused (nothing listens), timed out (its
# SYNs dropped by nftables, the namespace's tcp_syn_retries 1: about 3 s),
# unreachable (no neighbour answers ARP on a veth: the kernel's own ICMP
# host unreachable, after 200 ms), abandoned (closed after 300 ms while its
# SYNs go nowhere); and connected, at once or after
# a SYN sent again (nftables drops every other SYN toward one port), the
# client's clock and TCP_INFO against tcptrace's latency buckets.
connects_client() { # out-file addr port count [options...]
	ip netns exec "$NS" "$SCENARIO" client --addr "$2" --port "$3" --count "$4" --mode connects \
		"${@:5}" >"$WORK/$1" 2>&1
}

# Connects timed: every latency bucket of one PID's rows; those of more
# than a second with "over".
connect_buckets_sum() { # csv pid [over]
	awk -F, -v pid="$2" -v over="${3:-}" '
		NR == 1 {
			for (i = 1; i <= NF; i++)
				if ($i ~ /^connect_([0-9]+(us|ms|s)|over_50s)$/ &&
				    (!over || $i ~ /^connect_([2-9]|[1-9][0-9]+)s$|^connect_over_50s$/))
					c[i] = 1
			next
		}
		$3 == pid { for (i in c) s += $i }
		END { print s + 0 }' "$1"
}

# A veth in the namespace whose peer holds no address: 10.77.0.0/24 is
# routed through it, and no neighbour there ever answers ARP.
ns_link_to_nowhere() {
	in_ns ip link add tt0 type veth peer name tt1 && in_ns ip link set tt0 up &&
		in_ns ip link set tt1 up && in_ns ip addr add 10.77.0.1/24 dev tt0 &&
		in_ns sysctl -qw net.ipv4.neigh.tt0.mcast_solicit=1 \
			net.ipv4.neigh.tt0.retrans_time_ms=200
}

# A namespace where a connect() times out after one SYN sent again (3 s):
# nothing answers 10.77.0.2, whose SYNs nftables drops, and 10.77.0.3 and
# up are unreachable (ns_link_to_nowhere); an extra nft rule may be given.
ns_syn_black_hole() { # [nft rule]
	ns_new net.ipv4.tcp_syn_retries=1 && ns_link_to_nowhere || return 1
	in_ns nft -f - <<EOF
table inet tt_black_hole {
	chain output {
		type filter hook output priority 0;
		ip daddr 10.77.0.2 tcp flags == syn drop
		${1:-}
	}
}
EOF
}

case_connect_causes_and_times() {
	local csv=$WORK/t.csv srv_slow srv_fast pids=() outs=(refused timeout unreach abandoned slow fast)
	local p o i sum
	ns_syn_black_hole 'tcp dport 8099 tcp flags == syn numgen inc mod 2 == 0 drop' || return 1
	server_start 127.0.0.1 8099 1 noaccept || return 1
	srv_slow=$SRV
	server_start 127.0.0.1 8098 1 noaccept || return 1
	srv_fast=$SRV
	tracer_start "$csv" -p "$SCENARIO_NAME" || return 1
	connects_client refused 127.0.0.1 9 3 & pids+=($!)
	connects_client timeout 10.77.0.2 80 2 & pids+=($!)
	connects_client unreach 10.77.0.4 80 3 & pids+=($!)
	connects_client abandoned 10.77.0.2 81 2 --give-up 300 & pids+=($!)
	connects_client slow 127.0.0.1 8099 3 & pids+=($!)
	connects_client fast 127.0.0.1 8098 5 & pids+=($!)
	for i in "${!pids[@]}"; do
		wait "${pids[$i]}" || { log "client ${outs[$i]} failed: $(cat "$WORK/${outs[$i]}")"; return 1; }
	done
	kill -USR1 "$srv_slow" "$srv_fast"
	wait "$srv_slow" "$srv_fast"
	tracer_stop || return 1
	for o in "${outs[@]}"; do
		p=$(field "$WORK/$o" pid)
		log "    $o client (pid $p): $(cut -d' ' -f3- "$WORK/$o")"
		eval "pid_$o=$p"
	done
	expect_eq "refused: connfail_refused = the client's ECONNREFUSED" \
		"$(field "$WORK/refused" refused)" "$(csv_sum "$csv" "$pid_refused" connfail_refused)"
	expect_eq "timed out: connfail_timeout = the client's ETIMEDOUT" \
		"$(field "$WORK/timeout" etimedout)" "$(csv_sum "$csv" "$pid_timeout" connfail_timeout)"
	expect_eq "unreachable: connfail_unreach = the client's EHOSTUNREACH" \
		"$(field "$WORK/unreach" unreachable)" "$(csv_sum "$csv" "$pid_unreach" connfail_unreach)"
	expect_eq "abandoned: connfail_abandoned = the connects the client gave up" \
		"$(field "$WORK/abandoned" abandoned)" "$(csv_sum "$csv" "$pid_abandoned" connfail_abandoned)"
	for o in refused timeout unreach abandoned; do
		p=$(eval echo "\$pid_$o")
		sum=0
		for i in refused timeout unreach abandoned; do
			sum=$((sum + $(csv_sum "$csv" "$p" "connfail_$i")))
		done
		expect_eq "$o: connfail_out = its causes' sum = the client's failures, no connection" \
			"$(($(field "$WORK/$o" refused) + $(field "$WORK/$o" etimedout) + $(field "$WORK/$o" unreachable) + $(field "$WORK/$o" abandoned))) 0" \
			"$(csv_sum "$csv" "$p" connfail_out) $((sum - $(csv_sum "$csv" "$p" connfail_out) + $(csv_sum "$csv" "$p" conn_out)))"
	done
	expect_eq "failed attempts the kernel ended (TcpAttemptFails): all but the abandoned" \
		"$(nstat_of TcpAttemptFails)" \
		"$(($(csv_sum "$csv" "$pid_refused" connfail_out) + $(csv_sum "$csv" "$pid_timeout" connfail_out) + $(csv_sum "$csv" "$pid_unreach" connfail_out)))"
	for o in slow fast; do
		p=$(eval echo "\$pid_$o")
		expect_eq "$o: connects timed = conn_out = the client's connected" \
			"$(field "$WORK/$o" connected) $(field "$WORK/$o" connected)" \
			"$(csv_sum "$csv" "$p" conn_out) $(connect_buckets_sum "$csv" "$p")"
		expect_eq "$o: connects of more than 1 s = the client's by its clock = its SYNs sent again (TCP_INFO)" \
			"$(field "$WORK/$o" slow) $(field "$WORK/$o" syn_again)" \
			"$(connect_buckets_sum "$csv" "$p" over) $(connect_buckets_sum "$csv" "$p" over)"
		expect_eq "$o: syn_retrans_out = the connects that sent a SYN again" \
			"$(field "$WORK/$o" syn_again)" "$(csv_sum "$csv" "$p" syn_retrans_out)"
	done
	expect_eq "the slow client's connects all took more than 1 s, the fast one's none" "3 0" \
		"$(field "$WORK/slow" slow) $(field "$WORK/fast" slow)"
	expect_eq "the summary's connect times block: the slow client's row (all, >1s)" "3 3" \
		"$(awk -v p="$pid_slow" '/^Totals over/ { t = 1 } t && /time, at most/ { on = 1 }
			on && $1 == p { print $3, $4; exit }' "$WORK/tracer.out")"
}

# wrk's own count of connect errors is of connect() calls that failed at
# once: with the namespace's 4 ports, those of its 8 connections that
# found no free port (EADDRNOTAVAIL), over and over for a second.
case_wrk_connect_errors() {
	local csv=$WORK/w.csv srv errors
	ns_new 'net.ipv4.ip_local_port_range=40000 40003' || return 1
	in_ns python3 -m http.server 8000 --bind 127.0.0.1 >"$WORK/http.out" 2>&1 &
	srv=$!
	for i in $(seq 100); do in_ns ss -ltnH 'sport = :8000' | grep -q . && break; sleep 0.05; done
	"$TCPTRACE" -i 0.2 --csv "$csv" -- ip netns exec "$NS" wrk -t1 -c8 -d1 http://127.0.0.1:8000/ \
		>"$WORK/tracer.out" 2>"$WORK/tracer.err" || { log "wrk failed: $(tail -3 "$WORK/tracer.out")"; return 1; }
	kill "$srv"
	wait "$srv" 2>/dev/null
	errors=$(sed -n 's/^ *Socket errors: connect \([0-9]*\),.*/\1/p' "$WORK/tracer.out")
	log "    wrk: $(grep -E 'requests in|Socket errors' "$WORK/tracer.out" | tr -s ' ' | tr '\n' ';')"
	expect_eq "wrk said it had connect errors" 1 "$((${errors:-0} > 0))"
	expect_eq "wrk's Socket errors: connect = tcptrace's eaddrnotavail on wrk" "$errors" \
		"$(comm_sum "$csv" wrk eaddrnotavail)"
	expect_eq "wrk's connects that got a port: connected, none failed" "$(nstat_of TcpActiveOpens) 0" \
		"$(comm_sum "$csv" wrk conn_out) $(comm_sum "$csv" wrk connfail_out)"
}

# nginx's error log names each upstream connect that failed, with its worker
# and upstream; tcptrace's causes per worker and destination must match it
# line for line: "connect() failed (111: Connection refused)" is refused,
# "connect() failed (110: Connection timed out)" the kernel's SYNs sent
# again running out (timed out), and "upstream timed out (110: ...) while
# connecting" proxy_connect_timeout closing the socket first (abandoned).
case_nginx_upstream_failures() {
	local prefix=$WORK/nginx csv=$WORK/n.csv i path logged counted abs=()
	ns_syn_black_hole || return 1
	nginx_start "$prefix" "$TOP/tools/scenarios/nginx-upstream-failures.conf" -e "$prefix/error.log"
	tracer_start "$csv" --by dest -p nginx || return 1
	for path in down silent slow; do
		in_ns ab -q -n 6 -c 3 -s 15 "http://127.0.0.1:8080/$path/" >"$WORK/ab.$path" 2>&1 & abs+=($!)
	done
	wait "${abs[@]}"
	kill "$SRV"
	wait "$SRV"
	tracer_stop || return 1
	for path in down silent slow; do
		log "    ab /$path/: $(grep -E 'Complete requests|Non-2xx' "$WORK/ab.$path" | tr -s ' ' | tr '\n' ';')"
	done
	# "PID CAUSE DEST COUNT" lines, sorted: from the log, then from tcptrace.
	logged=$(sed -nE '
		s|.* ([0-9]+)#[0-9]+: .*connect\(\) failed \(111: .*upstream: "http://([^/]+)/.*|\1 refused \2|p
		s|.* ([0-9]+)#[0-9]+: .*connect\(\) failed \(110: .*upstream: "http://([^/]+)/.*|\1 timeout \2|p
		s|.* ([0-9]+)#[0-9]+: .*upstream timed out \(110: .* while connecting to upstream, .*upstream: "http://([^/]+)/.*|\1 abandoned \2|p' \
		"$prefix/error.log" | sort | uniq -c | awk '{ printf "%s %s %s %s; ", $2, $3, $4, $1 }')
	counted=$(awk -F, '
		BEGIN { split("refused timeout abandoned", w, " ") }
		NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		{ for (k = 1; k <= 3; k++) n[$3 " " w[k] " " $5] += $c["connfail_" w[k]] }
		END { for (x in n) if (n[x]) print x, n[x] }' "$csv" | sort | awk '{ printf "%s; ", $0 }')
	expect_eq "each cause has its lines in nginx's log: 6 refused, 6 timed out, 6 abandoned" "6 6 6" \
		"$(tr ';' '\n' <<<"$logged" | awk '{ n[$2] += $4 } END { print n["refused"] + 0, n["timeout"] + 0, n["abandoned"] + 0 }')"
	expect_eq "failed connects per worker, cause and destination = nginx's error log" "$logged" "$counted"
	expect_eq "the workers' connfail_out = the lines of nginx's log, none connected" "18 0" \
		"$(comm_sum "$csv" nginx connfail_out) $(comm_sum "$csv" nginx conn_out)"
	expect_eq "the finding names each destination with its cause" \
		"127.0.0.1:9: 6 refused;10.77.0.2:80: 6 timed out;10.77.0.2:81: 6 abandoned;" \
		"$(f=$(grep 'nginx .*connect()s got a local port but no connection' "$WORK/tracer.out")
		for x in '127.0.0.1:9: 6 refused' '10.77.0.2:80: 6 timed out' '10.77.0.2:81: 6 abandoned'; do
			grep -oF "$x" <<<"$f"; done | tr '\n' ';')"
}
