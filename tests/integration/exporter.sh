#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# Root integration tests of tcptrace's outputs for other programs: a real
# Prometheus server (Debian's package) scrapes --listen, and its HTTP API
# must return the scenario's own counts, the namespace's kernel counters
# (ListenDrops and TCPSynRetrans among them), ss and the CSV's sums;
# --json must carry the CSV's rows field for field; every query of the
# Grafana dashboard (contrib/grafana) must return its series.
# Every server binds to loopback ports found free, or lives in a private
# network namespace. A test that cannot run fails; none is skipped.
set -u
. "$(dirname "$0")/../lib/common.sh"
. "$(dirname "$0")/../lib/tracer.sh"
. "$(dirname "$0")/../lib/csv.sh"

PROMETHEUS=${PROMETHEUS:-prometheus}
PROMTOOL=${PROMTOOL:-promtool}
PROM_PID=""
PPORT=""

# common.sh's cleanup, and the Prometheus server of the case.
eval "lib_$(declare -f cleanup)"
cleanup() {
	if [ -n "$PROM_PID" ]; then
		kill -TERM "$PROM_PID" 2>/dev/null
		wait "$PROM_PID" 2>/dev/null
	fi
	PROM_PID=""
	PROM_TIME=""
	lib_cleanup
}

field() { tr ' ' '\n' <"$1" | awk -F= -v k="$2" '$1 == k { print $2 }'; }

# A TCP port on 127.0.0.1 that nothing listens on now.
free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# Start Prometheus on a free loopback port, scraping tcptrace every second.
prom_start() { # target
	local i
	PPORT=$(free_port)
	# A store of its own: what an earlier case's server kept is not asked.
	rm -rf "$WORK/prom-data"
	mkdir -p "$WORK/prom-data"
	cat >"$WORK/prometheus.yml" <<-EOF
		global:
		  scrape_interval: 1s
		  scrape_timeout: 1s
		scrape_configs:
		  - job_name: tcptrace
		    static_configs:
		      - targets: ['$1']
	EOF
	"$PROMETHEUS" --config.file="$WORK/prometheus.yml" --storage.tsdb.path="$WORK/prom-data" \
		--web.listen-address="127.0.0.1:$PPORT" --log.level=warn >"$WORK/prometheus.log" 2>&1 &
	PROM_PID=$!
	for i in $(seq 600); do
		curl -sf "http://127.0.0.1:$PPORT/-/ready" >/dev/null 2>&1 && return 0
		kill -0 "$PROM_PID" 2>/dev/null || break
		sleep 0.1
	done
	log "prometheus did not start: $(tail -5 "$WORK/prometheus.log")"
	return 1
}

# The value of an instant query with exactly one result; "none" when it
# has none, "many" when more than one, "error" when the query failed.
# Evaluated now, or at PROM_TIME (seconds since the epoch) when set: the
# time of the scrape wait_for_scrape_after found. A later scrape that fails,
# or tcptrace's exit, makes Prometheus mark the series stale.
PROM_TIME=""
prom_query() { # promql
	curl -s -G --data-urlencode "query=$1" ${PROM_TIME:+--data-urlencode "time=$PROM_TIME"} \
		"http://127.0.0.1:$PPORT/api/v1/query" | python3 -c '
import json, sys
try:
    reply = json.load(sys.stdin)
except ValueError:
    print("error"); sys.exit()
if reply.get("status") != "success":
    print("error"); sys.exit()
result = reply["data"]["result"]
if reply["data"]["resultType"] == "scalar":
    result = [{"value": result}]
if not result:
    print("none")
elif len(result) > 1:
    print("many")
else:
    v = float(result[0]["value"][1])
    print(int(v) if v.is_integer() else result[0]["value"][1])'
}

# Wait until Prometheus holds a successful scrape taken after the moment
# given (seconds since the epoch): every count before it is then in. Later
# queries are evaluated at that scrape (PROM_TIME).
wait_for_scrape_after() { # epoch-seconds
	local i ts
	PROM_TIME=""
	for i in $(seq 120); do
		# timestamp() of a selector is its sample's time; of "up == 1" it
		# would be the time of the query.
		ts=$(prom_query 'timestamp(up{job="tcptrace"}) and up{job="tcptrace"} == 1')
		case "$ts" in none | many | error) ;;
		*) awk -v ts="$ts" -v t="$1" 'BEGIN { exit !(ts > t) }' && PROM_TIME=$ts && return 0 ;;
		esac
		sleep 0.5
	done
	log "no scrape after $1 within 60 s: $(prom_query 'up{job="tcptrace"}'), $(tail -3 "$WORK/prometheus.log")"
	return 1
}

# "ok" when the JSON lines hold the CSV's rows, field for field and in the
# same order, else what differs first.
json_equals_csv() { # csv json
	python3 - "$1" "$2" <<-'EOF'
		import csv, json, sys
		rows = list(csv.DictReader(open(sys.argv[1], newline="")))
		# The rows; the findings at the end are objects with a "finding" key.
		lines = [j for j in map(json.loads, open(sys.argv[2])) if "finding" not in j]
		if len(rows) != len(lines) or not rows:
		    sys.exit(print(f"{len(rows)} CSV rows, {len(lines)} JSON lines"))
		decimals = {"elapsed_s": 3, "runout_s": 1}
		for n, (r, j) in enumerate(zip(rows, lines), 2):
		    if list(j) != list(r):
		        sys.exit(print(f"line {n}: fields {list(j)} != {list(r)}"))
		    for k, v in r.items():
		        if k == "rst_sent_reasons":
		            got = ";".join(f"{a}={b}" for a, b in j[k].items())
		        elif k in decimals:
		            got = f"{j[k]:.{decimals[k]}f}"
		        else:
		            got = str(j[k])
		        if got != v:
		            sys.exit(print(f"line {n}: {k} {got!r} != {v!r}"))
		print("ok")
	EOF
}

# Sum of a CSV column over every row of a command name.
comm_sum() { # csv comm column
	awk -F, -v comm="$2" -v col="$3" '
		NR == 1 { for (i = 1; i <= NF; i++) if ($i == col) c = i; next }
		$4 == comm { s += $c }
		END { print s + 0 }' "$1"
}

# A fin-server and a linger0-server run, each a server and a client of the
# traced name, one after the other: they have all exited when Prometheus is
# asked, so what it returns comes from processes that are gone.
case_prometheus_scrape() {
	local n1=20 n2=15 mport m=$WORK/metrics.txt s=$SCENARIO_NAME t_ready
	ns_new || return 1
	mport=$(free_port)
	server_start 127.0.0.1 8080 "$n1" fin-server || return 1
	mv "$WORK/server.out" "$WORK/server1.out"
	local srv1=$SRV srv2
	# -i 1, as an exporter runs: the server waits while a snapshot is read.
	tracer_start "$WORK/t.csv" -p "$s" -i 1 --listen "127.0.0.1:$mport" --json "$WORK/t.json" \
		|| return 1
	prom_start "127.0.0.1:$mport" || return 1
	local q="comm=\"$s\""
	# A scrape before any connection, one after the first run (its server
	# and client gone), one after the second: the name's counters carry the
	# counts of processes that have exited, and only grow.
	wait_for_scrape_after "$(date +%s.%N)" || return 1
	expect_eq "before the runs: connections in" 0 \
		"$(prom_query "tcptrace_connections_total{$q,side=\"in\"}")"
	in_ns "$SCENARIO" client --addr 127.0.0.1 --port 8080 --count "$n1" --mode fin-server \
		>"$WORK/client1.out" 2>&1 || { log "client 1: $(cat "$WORK/client1.out")"; return 1; }
	wait "$srv1" || { log "server 1 failed"; return 1; }
	settle
	sleep 2.2 # two intervals of tcptrace after the last close
	wait_for_scrape_after "$(date +%s.%N)" || return 1
	expect_eq "after the first run, its processes gone: connections in" "$n1" \
		"$(prom_query "tcptrace_connections_total{$q,side=\"in\"}")"
	# The second server starts now (its accept() waits 10 s at most); traced
	# by name, it is followed like the first.
	server_start 127.0.0.1 8081 "$n2" linger0-server || return 1
	mv "$WORK/server.out" "$WORK/server2.out"
	srv2=$SRV
	in_ns "$SCENARIO" client --addr 127.0.0.1 --port 8081 --count "$n2" --mode linger0-server \
		>"$WORK/client2.out" 2>&1 || { log "client 2: $(cat "$WORK/client2.out")"; return 1; }
	wait "$srv2" || { log "server 2 failed"; return 1; }
	settle
	sleep 2.2
	t_ready=$(date +%s.%N)
	wait_for_scrape_after "$t_ready" || return 1
	expect_eq "scrapes over the runs, three at least" 1 \
		"$(prom_query "count_over_time(tcptrace_connections_total{$q,side=\"in\"}[5m]) >= bool 3")"

	local accepted=$(( $(field "$WORK/server1.out" accepted) + $(field "$WORK/server2.out" accepted) ))
	local connected=$(( $(field "$WORK/client1.out" connected) + $(field "$WORK/client2.out" connected) ))
	expect_eq "scenario: connections accepted" $((n1 + n2)) "$accepted"
	expect_eq "up" 1 "$(prom_query 'up{job="tcptrace"}')"
	expect_eq "connections in = the servers' accepts" "$accepted" \
		"$(prom_query "tcptrace_connections_total{$q,side=\"in\"}")"
	expect_eq "connections out = the clients' connects" "$connected" \
		"$(prom_query "tcptrace_connections_total{$q,side=\"out\"}")"
	expect_eq "connections in = TcpPassiveOpens" "$(nstat_of TcpPassiveOpens)" \
		"$(prom_query "tcptrace_connections_total{$q,side=\"in\"}")"
	expect_eq "closed in, fin_active (fin-server)" "$n1" \
		"$(prom_query "tcptrace_connections_closed_total{$q,side=\"in\",how=\"fin_active\"}")"
	expect_eq "closed out, fin_passive (fin-server)" "$n1" \
		"$(prom_query "tcptrace_connections_closed_total{$q,side=\"out\",how=\"fin_passive\"}")"
	expect_eq "closed in, rst_sent (linger0-server) = TcpOutRsts" "$(nstat_of TcpOutRsts)" \
		"$(prom_query "tcptrace_connections_closed_total{$q,side=\"in\",how=\"rst_sent\"}")"
	expect_eq "closed out, rst_recv = the clients' resets seen" \
		"$(field "$WORK/client2.out" rst_seen)" \
		"$(prom_query "tcptrace_connections_closed_total{$q,side=\"out\",how=\"rst_recv\"}")"
	expect_eq "rst sent in, reason TCP_STATE (SO_LINGER 0)" "$n2" \
		"$(prom_query "tcptrace_rst_sent_total{$q,side=\"in\",reason=\"TCP_STATE\"}")"
	expect_eq "rst sent, summed over reasons and sides" "$n2" \
		"$(prom_query "sum(tcptrace_rst_sent_total{$q})")"
	expect_eq "every connection closed once, both sides" $((2 * accepted)) \
		"$(prom_query "sum(tcptrace_connections_closed_total{$q})")"
	expect_eq "timewait in = TcpExtTW" "$(nstat_of TcpExtTW)" \
		"$(prom_query "tcptrace_timewait_total{$q,side=\"in\"}")"
	expect_eq "timewait sockets now = ss" "$(tw_count sport 8080)" \
		"$(prom_query "tcptrace_timewait_sockets{$q}")"
	local family
	for family in connections connections_closed rst_sent timewait timewait_rst connect_failed \
		connect_failures connect_eaddrnotavail untracked_sockets; do
		expect_eq "no counter went back: tcptrace_${family}_total (resets)" 0 \
			"$(prom_query "sum(resets(tcptrace_${family}_total{$q}[5m]))")"
	done
	expect_eq "drops" 0 "$(prom_query 'sum(tcptrace_drops_total)')"
	expect_eq "events lost: one series" 1 "$(prom_query 'count(tcptrace_events_lost_total)')"
	expect_eq "process names with series" 1 "$(prom_query 'tcptrace_comms')"
	expect_eq "build info" 1 "$(prom_query 'count(tcptrace_build_info{version!=""})')"
	expect_eq "while scraped: tcptrace runs as nobody" "65534 65534" \
		"$(awk '/^Uid:/ { print $2, $3 }' "/proc/$TRACER_PID/status")"

	# The same text as Prometheus gets, checked by its own linter; and the
	# OpenMetrics form Prometheus asks for ends as it must.
	curl -sf "http://127.0.0.1:$mport/metrics" >"$m"
	"$PROMTOOL" check metrics <"$m" >"$WORK/promtool.out" 2>&1
	expect_eq "promtool check metrics: exit status" 0 "$?"
	expect_eq "promtool check metrics: no finding" "" "$(cat "$WORK/promtool.out")"
	expect_eq "text format: content type" "text/plain; version=0.0.4; charset=utf-8" \
		"$(curl -s -o /dev/null -w '%{content_type}' "http://127.0.0.1:$mport/metrics")"
	local om_type
	om_type=$(curl -s -o "$WORK/om.txt" -w '%{content_type}' -H \
		'Accept: application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5' \
		"http://127.0.0.1:$mport/metrics")
	expect_eq "OpenMetrics: content type" "application/openmetrics-text; version=1.0.0; charset=utf-8" "$om_type"
	expect_eq "OpenMetrics: ends with # EOF" "# EOF" "$(tail -1 "$WORK/om.txt")"
	# Scrapes time out after 1 s (the interval). On this shared machine,
	# when other suites load it, some do while Prometheus or tcptrace waits
	# for a CPU; the counts above come from one that succeeded. Said, not
	# judged: the server's own limits are tested on their own.
	log "    $(prom_query 'count_over_time(up{job="tcptrace"}[5m])') scrapes, $(prom_query \
		'count_over_time(up{job="tcptrace"}[5m]) - sum_over_time(up{job="tcptrace"}[5m])') failed, the slowest took $(prom_query \
		'max_over_time(scrape_duration_seconds{job="tcptrace"}[5m])') s; load $(cut -d' ' -f1-3 /proc/loadavg)"

	tracer_stop || return 1
	local csv=$WORK/t.csv col metric side
	for side in in out; do
		expect_eq "Prometheus = CSV: conn_$side" "$(comm_sum "$csv" "$s" "conn_$side")" \
			"$(prom_query "tcptrace_connections_total{$q,side=\"$side\"}")"
		for col in fin_active fin_passive rst_sent rst_recv timeout; do
			expect_eq "Prometheus = CSV: ${col}_$side" "$(comm_sum "$csv" "$s" "${col}_$side")" \
				"$(prom_query "tcptrace_connections_closed_total{$q,side=\"$side\",how=\"$col\"}")"
		done
		expect_eq "Prometheus = CSV: tw_$side" "$(comm_sum "$csv" "$s" "tw_$side")" \
			"$(prom_query "tcptrace_timewait_total{$q,side=\"$side\"}")"
	done
	for metric in connect_failed:connfail_out connect_eaddrnotavail:eaddrnotavail \
		untracked_sockets:untracked timewait_rst:tw_rst; do
		expect_eq "Prometheus = CSV: ${metric#*:}" "$(comm_sum "$csv" "$s" "${metric#*:}")" \
			"$(prom_query "tcptrace_${metric%%:*}_total{$q}")"
	done
	local cause
	for cause in refused timeout unreach abandoned; do
		expect_eq "Prometheus = CSV: connfail_$cause" "$(comm_sum "$csv" "$s" "connfail_$cause")" \
			"$(prom_query "tcptrace_connect_failures_total{$q,cause=\"$cause\"}")"
	done
	expect_eq "Prometheus = CSV: connects timed, all and at most 1 s (histogram)" \
		"$(comm_connects "$csv" "$s") $(comm_connects "$csv" "$s" 1000000)" \
		"$(prom_query "tcptrace_connect_duration_seconds_count{$q}") $(prom_query "tcptrace_connect_duration_seconds_bucket{$q,le=\"1\"}")"

	# The JSON lines of the same run: the CSV's rows, field for field.
	expect_eq "JSON lines = CSV rows" "ok" "$(json_equals_csv "$csv" "$WORK/t.json")"
	PROM_TIME=""
	expect_eq "JSON (jq): conn_in of the name = CSV" "$(comm_sum "$csv" "$s" conn_in)" \
		"$(jq -s --arg c "$s" 'map(select(.comm == $c and .finding == null) | .conn_in) | add' "$WORK/t.json")"
	expect_eq "JSON (jq): the RST reasons" "{\"TCP_STATE\":$n2}" \
		"$(jq -sc --arg c "$s" 'map(select(.comm == $c and .finding == null) | .rst_sent_reasons | to_entries) | add
			| group_by(.key) | map({(.[0].key): (map(.value) | add)}) | add' "$WORK/t.json")"
	expect_eq "JSON (jq): the RST finding, after the rows" "rst_sent in $n2 {\"TCP_STATE\":$n2}" \
		"$(jq -rc --arg c "$s" 'select(.finding != null and .comm == $c)
			| "\(.finding) \(.side) \(.count) \(.reasons | tojson)"' "$WORK/t.json")"
}

# --by dest: a client of the traced name connects to two servers and
# closes first. Prometheus gets a series per name and destination, equal to
# the client's own counts, to ss and to the destination CSV; the JSON lines
# carry the destination rows of the CSV.
case_prometheus_by_dest() {
	local n1=12 n2=7 mport s=$SCENARIO_NAME t_ready d1 d2
	ns_new "net.ipv4.ip_local_port_range=40000 40999" || return 1
	mport=$(free_port)
	server_start 127.0.0.1 8080 "$n1" fin-client || return 1
	local srv1=$SRV
	server_start 127.0.0.1 8081 "$n2" fin-client || return 1
	local srv2=$SRV
	tracer_start "$WORK/t.csv" -p "$s" -i 1 --by dest --listen "$mport" --json "$WORK/t.json" \
		|| return 1
	prom_start "127.0.0.1:$mport" || return 1
	in_ns "$SCENARIO" client --addr 127.0.0.1 --port 8080 --count "$n1" --mode fin-client \
		>"$WORK/client1.out" 2>&1 || { log "client 1: $(cat "$WORK/client1.out")"; return 1; }
	in_ns "$SCENARIO" client --addr 127.0.0.1 --port 8081 --count "$n2" --mode fin-client \
		>"$WORK/client2.out" 2>&1 || { log "client 2: $(cat "$WORK/client2.out")"; return 1; }
	wait "$srv1" && wait "$srv2" || { log "a server failed"; return 1; }
	settle
	# Timewait sockets older than a second leave their ports free (loopback,
	# tcp_tw_reuse 2): after that, and an interval, every port is free again.
	sleep 2.5
	t_ready=$(date +%s.%N)
	wait_for_scrape_after "$t_ready" || return 1
	d1="comm=\"$s\",dest=\"127.0.0.1:8080\""
	d2="comm=\"$s\",dest=\"127.0.0.1:8081\""
	expect_eq "8080: connections = the client's connects" "$(field "$WORK/client1.out" connected)" \
		"$(prom_query "tcptrace_dest_connections_total{$d1}")"
	expect_eq "8081: connections = the client's connects" "$(field "$WORK/client2.out" connected)" \
		"$(prom_query "tcptrace_dest_connections_total{$d2}")"
	expect_eq "8080: closed first by the client" "$n1" \
		"$(prom_query "tcptrace_dest_connections_closed_total{$d1,how=\"fin_active\"}")"
	expect_eq "8081: timewait left" "$n2" "$(prom_query "tcptrace_dest_timewait_total{$d2}")"
	expect_eq "8080: timewait sockets now = ss" "$(tw_count dport 8080)" \
		"$(prom_query "tcptrace_dest_timewait_sockets{$d1}")"
	expect_eq "8081: ports free, the whole range again" 1000 \
		"$(prom_query "tcptrace_dest_ports_free{$d2}")"
	expect_eq "destinations with series" 2 "$(prom_query 'tcptrace_dests')"
	expect_eq "out connections of the name = the sum over destinations" \
		"$(prom_query "tcptrace_connections_total{comm=\"$s\",side=\"out\"}")" \
		"$(prom_query "sum(tcptrace_dest_connections_total{comm=\"$s\"})")"
	curl -sf "http://127.0.0.1:$mport/metrics" >"$WORK/m.txt"
	"$PROMTOOL" check metrics <"$WORK/m.txt" >"$WORK/promtool.out" 2>&1
	expect_eq "promtool check metrics, destination families included" "0:" \
		"$?:$(cat "$WORK/promtool.out")"
	tracer_stop || return 1
	local csv=$WORK/t.csv
	expect_eq "Prometheus = destination CSV: 8080 conn_out" \
		"$(awk -F, 'NR > 1 && $5 == "127.0.0.1:8080" { s += $6 } END { print s + 0 }' "$csv")" \
		"$(prom_query "tcptrace_dest_connections_total{$d1}")"
	expect_eq "Prometheus = destination CSV: 8081 tw_out" \
		"$(awk -F, 'NR > 1 && $5 == "127.0.0.1:8081" { s += $12 } END { print s + 0 }' "$csv")" \
		"$(prom_query "tcptrace_dest_timewait_total{$d2}")"
	expect_eq "JSON lines = destination CSV rows" "ok" "$(json_equals_csv "$csv" "$WORK/t.json")"
}

# The established sockets in the namespace that process pid holds, as ss
# counts them: ss state established, per process.
established_of() { # pid
	in_ns ss -tanpH state established | grep -c "pid=$1,"
}

# Wait until the server (pid) holds n established sockets: it has accepted
# every connection of the burst.
wait_accepted() { # pid n
	local i
	for i in $(seq 600); do
		[ "$(established_of "$1")" -ge "$2" ] && return 0
		sleep 0.1
	done
	log "the server holds $(established_of "$1") of $2 connections after 60 s"
	return 1
}

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

# The Grafana dashboard of contrib/grafana: every query in it, taken from
# the JSON with jq, is evaluated by Prometheus at one scrape, with the
# dashboard's variables replaced as Grafana would for one selection:
#   $job, $instance, $comm  the case's job, target and process name
#   $dest                   .* (the variable's All)
#   $__rate_interval, $__range  the case's whole window, W seconds, from
#       before tcptrace started to the scrape: each series starts at 0
#       inside it and the last sample is at the evaluation time, so
#       Prometheus extrapolates nothing: increase() is the exact count, and
#       a rate() times W as well (rounded only past the sixth decimal).
# A result is its series, one "LABELS VALUE" each (labels name=value, by
# name, joined by ","), sorted and joined by ";".
DASHBOARD=$TOP/contrib/grafana/tcptrace.json
DASH_VARS=()
DASH_WINDOW=""
DASH_CHECKED=()

# Connects of a name in the CSV's latency buckets: all, or those of at
# most MAX_US microseconds (the buckets' bounds in their names).
comm_connects() { # csv comm [max-us]
	awk -F, -v comm="$2" -v max="${3:-}" '
		function us(name,   n) {
			if (name == "over_50s") return -1
			n = name + 0
			if (name ~ /us$/) return n
			if (name ~ /ms$/) return n * 1000
			return n * 1000000
		}
		NR == 1 {
			for (i = 1; i <= NF; i++)
				if ($i ~ /^connect_([0-9]+(us|ms|s)|over_50s)$/) {
					b = substr($i, 9)
					if (max == "" || (us(b) >= 0 && us(b) <= max)) c[i] = 1
				}
			next
		}
		$4 == comm { for (i in c) s += $i }
		END { print s + 0 }' "$1"
}

dashboard_queries() { # → title<TAB>refId<TAB>expr, one per query
	jq -r '.panels[] | select(.targets) | .title as $t | .targets[] | [$t, .refId, .expr] | @tsv' \
		"$DASHBOARD"
}

dashboard_substitute() { # text → the text with the variables replaced
	local text=$1 pair
	text=${text//'$__rate_interval'/${DASH_WINDOW}s}
	text=${text//'$__range'/${DASH_WINDOW}s}
	for pair in "${DASH_VARS[@]}"; do text=${text//"\$${pair%%=*}"/${pair#*=}}; done
	printf '%s' "$text"
}

dashboard_result() { # title refId → its result, or why there is none
	local expr rate=0
	expr=$(dashboard_queries | awk -F'\t' -v t="$1" -v r="$2" '$1 == t && $2 == r { print $3 }')
	[ -n "$expr" ] || { echo "no such query in $DASHBOARD"; return; }
	[[ $expr == *"rate("* ]] && rate=1
	expr=$(dashboard_substitute "$expr")
	[[ $expr == *'$'* ]] && { echo "a variable left in: $expr"; return; }
	curl -s -G --data-urlencode "query=$expr" --data-urlencode "time=$PROM_TIME" \
		"http://127.0.0.1:$PPORT/api/v1/query" | jq -r --argjson w "$DASH_WINDOW" --arg rate "$rate" '
		if .status != "success" then "error: \(.error)" else
		.data.result | map(
			(.metric | to_entries | sort_by(.key) | map("\(.key)=\(.value)") | join(",")) + " " +
			((.value[1] | tonumber) | if $rate == "1" then . * $w else . end
				| . as $x | ($x | round) as $r
				| if (($x - $r) | fabs) < 1e-6 then ($r | tostring) else ($x | tostring) end))
		| sort | join(";") end'
}

# The query must return exactly these series ("LABELS VALUE"); a value "*"
# takes any value for that label set (a series that starts at its first
# count, so its rate misses that count).
expect_panel() { # title refId series...
	local title=$1 ref=$2 got want series s out=()
	shift 2
	DASH_CHECKED+=("$title/$ref")
	want=$(printf '%s\n' "$@" | LC_ALL=C sort | paste -sd';')
	got=$(dashboard_result "$title" "$ref")
	IFS=';' read -ra series <<<"$got"
	for s in "${series[@]}"; do
		[[ ";$want;" == *";${s% *} *;"* ]] && s="${s% *} *"
		out+=("$s")
	done
	[ "${#out[@]}" -gt 0 ] && [[ $got != error* && $got != no\ * && $got != a\ variable* ]] &&
		got=$(IFS=';'; echo "${out[*]}")
	expect_eq "dashboard: $title ($ref)" "$want" "$got"
}

# The query's result must hold this label set, with whatever else the
# machine adds (series that count every process on it).
expect_panel_has() { # title refId labels
	local got
	DASH_CHECKED+=("$1/$2")
	got=$(dashboard_result "$1" "$2")
	expect_eq "dashboard: $1 ($2) has {$3}" 1 \
		"$(tr ';' '\n' <<<"$got" | awk -v l="$3" '$1 == l || (l == "" && NF == 1) { f = 1 } END { print f + 0 }')"
}

# A label_values(SELECTOR, LABEL) variable: the values Prometheus has for
# LABEL on SELECTOR's series, as Grafana asks for them, space-separated.
expect_variable() { # name values
	local query selector label got
	query=$(jq -r --arg n "$1" '.templating.list[] | select(.name == $n) | .query.query // .query' \
		"$DASHBOARD")
	DASH_CHECKED+=("variable $1")
	[[ $query =~ ^label_values\((.*),\ *([a-z_]+)\)$ ]] ||
		{ expect_eq "dashboard variable $1: a label_values() query" "label_values(...)" "$query"; return; }
	selector=$(dashboard_substitute "${BASH_REMATCH[1]}")
	label=${BASH_REMATCH[2]}
	got=$(curl -s -G --data-urlencode "match[]=$selector" --data-urlencode "end=$PROM_TIME" \
		"http://127.0.0.1:$PPORT/api/v1/label/$label/values" | jq -r '.data | sort | join(" ")')
	expect_eq "dashboard variable $1: $query" "$2" "$got"
}

# One name does everything the dashboard draws: a server closes first
# (TIME_WAIT in), one resets (RST, TCP_STATE), a client runs out of its 10
# local ports toward one destination (TIME_WAIT out, EADDRNOTAVAIL, no port
# free), one is refused (a connect() never established, a NO_SOCKET RST in
# no process row), and a slow server with a backlog of 2 gets two bursts of
# connects at once (SYN cookies off: its full queue drops SYNs, which go
# again) and holds them, its clients too, while the dashboard is asked
# (connections open). An idle process of the name is there from the start,
# so every series of the name starts at 0; tcptrace opens the namespace
# through it at start-up, and reads the listeners in it.
case_grafana_dashboard() {
	local s=$SCENARIO_NAME mport t0 i n1=20 n2=15 n3=10 n4=14 n5=3 n6=4 tw missing
	local q="comm=\"$s\"" target dests="127.0.0.1:8080 127.0.0.1:8081 127.0.0.1:8082 127.0.0.1:8083 127.0.0.1:8084"
	local srv6 c6=() held
	[ -r "$DASHBOARD" ] || { log "missing $DASHBOARD"; return 1; }
	jq -e . "$DASHBOARD" >/dev/null || { log "$DASHBOARD is not JSON"; return 1; }
	# What an import needs: no data source of this machine written in (every
	# query and variable goes through the datasource variable), panel ids
	# unique, a place on the grid for each.
	expect_eq "dashboard: a Prometheus datasource variable" "datasource prometheus" \
		"$(jq -r '.templating.list[] | select(.type == "datasource") | "\(.name) \(.query)"' "$DASHBOARD")"
	expect_eq "dashboard: queries and variables not through \${datasource}" "" \
		"$(jq -r '[.panels[] | select(.type != "row") | .datasource, .targets[].datasource] +
			[.templating.list[] | select(.type == "query") | .datasource] | .[] |
			select(.uid != "${datasource}") | tostring' "$DASHBOARD")"
	expect_eq "dashboard: panel ids unique" "$(jq '.panels | length' "$DASHBOARD")" \
		"$(jq '[.panels[].id] | unique | length' "$DASHBOARD")"
	expect_eq "dashboard: panels without gridPos" 0 "$(jq '[.panels[] | select(.gridPos.w == null)] | length' "$DASHBOARD")"
	t0=$(date +%s)
	ns_new "net.ipv4.ip_local_port_range=40000 40009" net.ipv4.tcp_tw_reuse=0 \
		net.ipv4.tcp_syncookies=0 || return 1
	mkdir -p "$WORK/idle" && cp "$(command -v sleep)" "$WORK/idle/$s"
	in_ns "$WORK/idle/$s" 300 &
	local idle=$!
	for i in $(seq 100); do pgrep -x "$s" >/dev/null && break; sleep 0.05; done
	mport=$(free_port)
	target=127.0.0.1:$mport
	tracer_start "$WORK/t.csv" -p "$s" -i 1 --by dest --listen "$target" || return 1
	prom_start "$target" || return 1
	# The name's series exist, at 0, before the first connection.
	for i in $(seq 60); do
		wait_for_scrape_after "$(date +%s.%N)" || return 1
		[ "$(prom_query "tcptrace_connections_total{$q,side=\"in\"}")" = 0 ] && break
	done
	expect_eq "before the runs: connections in" 0 "$(prom_query "tcptrace_connections_total{$q,side=\"in\"}")"

	server_start 127.0.0.1 8080 "$n1" fin-server || return 1
	in_ns "$SCENARIO" client --addr 127.0.0.1 --port 8080 --count "$n1" --mode fin-server \
		>"$WORK/c1.out" 2>&1 || { log "client 1: $(cat "$WORK/c1.out")"; return 1; }
	wait "$SRV" || { log "server 1 failed"; return 1; }
	server_start 127.0.0.1 8081 "$n2" linger0-server || return 1
	in_ns "$SCENARIO" client --addr 127.0.0.1 --port 8081 --count "$n2" --mode linger0-server \
		>"$WORK/c2.out" 2>&1 || { log "client 2: $(cat "$WORK/c2.out")"; return 1; }
	wait "$SRV" || { log "server 2 failed"; return 1; }
	server_start 127.0.0.1 8082 "$n3" hold || return 1
	in_ns "$SCENARIO" client --addr 127.0.0.1 --port 8082 --count "$n4" --mode exhaust \
		>"$WORK/c3.out" 2>&1 || { log "client 3: $(cat "$WORK/c3.out")"; return 1; }
	wait "$SRV" || { log "server 3 failed"; return 1; }
	in_ns "$SCENARIO" client --addr 127.0.0.1 --port 8083 --count "$n5" --mode refused \
		>"$WORK/c4.out" 2>&1 || { log "client 4: $(cat "$WORK/c4.out")"; return 1; }
	server_start 127.0.0.1 8084 $((2 * n6)) hold --backlog 2 --accept-delay 150 --keep-listening \
		|| return 1
	srv6=$SRV
	# The listener's series scraped at 0 before the bursts: the panel's
	# rate needs a sample from before the drops (once, in a fresh clone's
	# run, the series' first sample held them all, and the panel was empty).
	for i in $(seq 60); do
		wait_for_scrape_after "$(date +%s.%N)" || return 1
		[ "$(prom_query "tcptrace_listener_drops_total{$q,listener=\"127.0.0.1:8084\"}")" = 0 ] && break
	done
	expect_eq "before the bursts: 8084's drops" 0 \
		"$(prom_query "tcptrace_listener_drops_total{$q,listener=\"127.0.0.1:8084\"}")"
	PROM_TIME=""
	for i in 1 2; do
		ip netns exec "$NS" "$SCENARIO" client --addr 127.0.0.1 --port 8084 --count "$n6" \
			--mode burst --wait 30 --hold "$WORK/hold.$i" >"$WORK/c6.$i.out" 2>&1 &
		c6+=($!)
	done
	for i in $(seq 600); do
		[ -s "$WORK/hold.1" ] && [ -s "$WORK/hold.2" ] && break
		sleep 0.1
	done
	held=$(( $([ -s "$WORK/hold.1" ] && echo 1 || echo 0) + $([ -s "$WORK/hold.2" ] && echo 1 || echo 0) ))
	expect_eq "scenario: both bursts connected and held" 2 "$held"
	wait_accepted "$srv6" $((2 * n6)) || return 1
	settle
	sleep 2.2 # two intervals of tcptrace after the last close
	wait_for_scrape_after "$(date +%s.%N)" || return 1
	tw=$(in_ns ss -tanH state time-wait | wc -l)

	expect_eq "scenario: the exhausting client's own counts" "connected=$n3 eaddrnotavail=$((n4 - n3))" \
		"connected=$(field "$WORK/c3.out" connected) eaddrnotavail=$(field "$WORK/c3.out" eaddrnotavail)"
	local conn_in=$((n1 + n2 + n3 + 2 * n6)) conn_out=$(( $(field "$WORK/c1.out" connected) +
		$(field "$WORK/c2.out" connected) + $(field "$WORK/c3.out" connected) + 2 * n6 ))
	expect_eq "scenario: connections in = TcpPassiveOpens" "$conn_in" "$(nstat_of TcpPassiveOpens)"
	expect_eq "scenario: TIME_WAIT created = TcpExtTW" $((n1 + n3)) "$(nstat_of TcpExtTW)"

	DASH_WINDOW=$(awk -v now="$PROM_TIME" -v t0="$t0" 'BEGIN { printf "%d", now - t0 + 2 }')
	DASH_VARS=("job=tcptrace" "instance=$target" "comm=$s" "dest=.*")
	local c="comm=$s" in="instance=$target" d
	expect_variable job "tcptrace"
	expect_variable instance "$target"
	expect_variable comm "$s"
	expect_variable dest "$dests"

	local drops retrans open_out=0
	drops=$(nstat_of TcpExtListenDrops)
	retrans=$(nstat_of TcpExtTCPSynRetrans)
	for i in "${c6[@]}"; do open_out=$((open_out + $(established_of "$i"))); done
	expect_eq "scenario: 8084's queue dropped, SYNs went again" "1 1" "$((drops > 0)) $((retrans > 0))"
	expect_eq "scenario: the bursts' connections held, both ends" "$((2 * n6)) $((2 * n6))" \
		"$(established_of "$srv6") $open_out"
	expect_panel "Listen drops per second, by process name" A "$c $drops"
	expect_panel "Listeners that dropped connection attempts, per second" A \
		"$c,listener=127.0.0.1:8084 *"
	# Which side sent how many the kernel does not say (its counter adds
	# both): each side's rate is its whole count, and the two add up.
	expect_panel "SYN retransmits per second, by process name and side" A \
		"$c,side=in $(prom_query "tcptrace_syn_retransmits_total{$q,side=\"in\"}")" \
		"$c,side=out $(prom_query "tcptrace_syn_retransmits_total{$q,side=\"out\"}")"
	expect_eq "SYNs and SYN-ACKs sent again, both sides = TCPSynRetrans" "$retrans" \
		"$(prom_query "sum(tcptrace_syn_retransmits_total{$q})")"
	expect_panel "Accept queue per listener: deepest, and its limit" A "$c,listener=127.0.0.1:8084 0"
	# Its deepest: the backlog and one, or more when CPUs admitted at once
	# (case_listen_queues checks the bounds); here the panel's = the series'.
	expect_panel "Accept queue per listener: deepest, and its limit" B \
		"$c,listener=127.0.0.1:8084 $(prom_query "tcptrace_listener_acceptq_deepest{$q,listener=\"127.0.0.1:8084\"}")"
	expect_panel "Accept queue per listener: deepest, and its limit" C "$c,listener=127.0.0.1:8084 2"
	# Connect times: the bursts' connects that waited for a SYN sent again
	# are the integration suite's to count exactly (case_connect_causes_and_times);
	# here, a series of the name from each query.
	expect_panel "Connect time p99, by process name" A "$c *"
	expect_panel "Connects that took more than 1 s per second, by process name" A "$c *"
	# Every connection the servers completed is a handshake timed, on the
	# listener's owner: the rate times the window is their count.
	expect_panel "Handshake time p99 as the listeners saw it, by process name" A "$c *"
	expect_panel "Handshakes per second as the listeners saw them: all, and over 1 s" A "$c $conn_in"
	expect_panel "Handshakes per second as the listeners saw them: all, and over 1 s" B "$c *"
	expect_panel "Open connections, by process name and side" A \
		"$c,side=in $(established_of "$srv6")" "$c,side=out $open_out"

	expect_panel "connect() failed with EADDRNOTAVAIL" A "$c $((n4 - n3))"
	# The exhausting client's ports stay held by its timewait sockets, as
	# many as ss still shows toward 8082: all of them, unless an RST ended
	# one early (a late segment of a busy machine; once in a fresh run).
	local free82 fewest
	free82=$((10 - $(tw_count dport 8082)))
	log "    timewait toward 8082: $((10 - free82)) of $n3, TcpExtTWKilled $(nstat_of TcpExtTWKilled)"
	fewest=$((free82 < 10 - 2 * n6 ? free82 : 10 - 2 * n6))
	expect_panel "Fewest local ports free toward a destination" A " $fewest"
	expect_panel "Events lost" A " *"
	expect_panel "Label overflow" A " 0"
	expect_panel "Label overflow" B " 0"
	expect_panel "Label overflow" C " 0"
	expect_panel "New connections per second, by process name and side" A \
		"$c,side=in $conn_in" "$c,side=out $conn_out"
	expect_panel "TIME_WAIT sockets held, by process name" A "$c $tw"

	expect_panel "New connections per second, by side" A "side=in $conn_in" "side=out $conn_out"
	expect_panel "Closes per second by class, side in (accepted)" A "how=fin_active $n1" \
		"how=fin_passive $n3" "how=rst_recv 0" "how=rst_sent $n2" "how=timeout 0"
	expect_panel "Closes per second by class, side out (upstream)" A "how=fin_active $n3" \
		"how=fin_passive $n1" "how=rst_recv $(field "$WORK/c2.out" rst_seen)" "how=rst_sent 0" "how=timeout 0"
	expect_panel "RSTs sent per second, by side and reason" A "reason=TCP_STATE,side=in *"
	expect_panel "TIME_WAIT sockets held, by instance" A "$in $tw"
	expect_panel "TIME_WAIT left per second, by side" A "side=in $n1" "side=out $n3"
	expect_panel "connect() failures per second" A " $(field "$WORK/c3.out" eaddrnotavail)"
	expect_panel "connect() failures per second" B "cause=abandoned 0" \
		"cause=refused $(field "$WORK/c4.out" refused)" "cause=timeout 0" "cause=unreach 0"
	expect_panel "RSTs from TIME_WAIT sockets, and sockets not followed, per second" A " 0"
	expect_panel "RSTs from TIME_WAIT sockets, and sockets not followed, per second" B " 0"

	d="$c,dest=127.0.0.1"
	expect_panel "Local ports free per destination" A "$d:8080,$in 10" "$d:8081,$in 10" \
		"$d:8082,$in $free82" "$d:8083,$in 10" "$d:8084,$in $((10 - 2 * n6))"
	expect_panel "TIME_WAIT sockets held per destination" A "$d:8080 $(tw_count dport 8080)" \
		"$d:8081 $(tw_count dport 8081)" "$d:8082 $(tw_count dport 8082)" "$d:8083 0" "$d:8084 0"
	expect_panel "New connections per second per destination" A "$d:8080 *" "$d:8081 *" \
		"$d:8082 *" "$d:8083 0" "$d:8084 *"
	expect_panel "EADDRNOTAVAIL per second per destination" A "$d:8080 0" "$d:8081 0" \
		"$d:8082 *" "$d:8083 0" "$d:8084 0"

	expect_panel "Events lost per second" A "$in *"
	expect_panel "Label overflow per second" A "$in 0"
	expect_panel "Label overflow per second" B "$in 0"
	expect_panel "Label overflow per second" C "$in 0"
	expect_panel "Names with series, and the limit" A "$in 1"
	expect_panel "Names with series, and the limit" B "$in 5"
	expect_panel "Names with series, and the limit" C "$in 256"
	# Listeners that closed between two snapshots, having queued nothing
	# tcptrace saw, have no series: how many of the first four had one
	# varies.
	expect_panel "Names with series, and the limit" D "$in *"
	expect_panel "Map-full drops per second, by map" A "what=dest_map_full 0" "what=listener_ring_full 0" "what=proc_map_full 0" \
		"what=reason_map_full 0" "what=sock_map_full 0" "what=tw_map_full 0"
	expect_panel_has "RSTs in no process row per second, by reason" A "reason=NO_SOCKET"

	# Every query and variable of the dashboard was asked above.
	missing=$( (dashboard_queries | cut -f1,2 | tr '\t' /
		jq -r '.templating.list[] | select(.type == "query") | "variable \(.name)"' "$DASHBOARD") |
		while IFS= read -r title; do
			printf '%s\n' "${DASH_CHECKED[@]}" | grep -qxF -- "$title" || echo "$title"
		done | paste -sd';')
	expect_eq "dashboard: every query checked ($(dashboard_queries | wc -l) queries)" "" "$missing"
	log "    window W = $DASH_WINDOW s"
	kill -USR1 "${c6[@]}"
	for i in "${c6[@]}"; do wait "$i" || { log "a burst client failed: $(cat "$WORK"/c6.*.out)"; return 1; }; done
	wait "$srv6" || { log "server 6 failed: $(cat "$WORK/server.out")"; return 1; }
	kill "$idle" && wait "$idle" 2>/dev/null
	tracer_stop
}

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

# Run mode: COMMAND scrapes tcptrace itself while it runs, and tcptrace
# ends with COMMAND and its status, without waiting for the interval.
case_run_mode() {
	local mport start
	mport=$(free_port)
	start=$SECONDS
	"$TCPTRACE" -i 30 --listen "$mport" -- sh -c "curl -sf http://127.0.0.1:$mport/metrics |
		grep -c '^tcptrace_build_info{'; exit 7" >"$WORK/out" 2>"$WORK/err"
	expect_eq "COMMAND's exit status" 7 "$?"
	expect_eq "COMMAND was answered" 1 "$(cat "$WORK/out")"
	expect_eq "ended with COMMAND, not at the 30 s interval" 1 "$((SECONDS - start < 20))"
}

# --json - puts JSON lines alone on stdout.
case_json_on_stdout() {
	local n
	sleep 60 &
	local target=$!
	"$TCPTRACE" -p "$target" -i 0.2 -c 3 --json - >"$WORK/out" 2>"$WORK/err"
	expect_eq "exit status" 0 "$?"
	n=$(python3 -c '
import json, sys
print(sum(1 for line in open(sys.argv[1]) if json.loads(line)["pid"] == int(sys.argv[2])))' \
		"$WORK/out" "$target" 2>&1)
	expect_eq "one JSON line per interval, and nothing else" 3 "$n"
	expect_eq "summary on stderr" 1 "$(grep -c '^Totals over' "$WORK/err")"
	kill "$target"
}

expect_refusal() { # what status stderr-line tcptrace-args...
	local what=$1 status=$2 line=$3
	shift 3
	"$TCPTRACE" "$@" >"$WORK/out" 2>"$WORK/err"
	expect_eq "$what: exit status" "$status" "$?"
	expect_eq "$what: the one line on stderr" "$line" "$(cat "$WORK/err")"
}

case_bad_input() {
	local busy dir i
	dir=$(mktemp -d /tmp/tcptrace-cli.XXXXXX)
	python3 -c 'import socket, sys, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen()
print(s.getsockname()[1], flush=True); time.sleep(60)' >"$WORK/busy" &
	local holder=$!
	for i in $(seq 100); do [ -s "$WORK/busy" ] && break; sleep 0.05; done
	busy=$(cat "$WORK/busy")
	expect_refusal "port in use" 2 "tcptrace: cannot listen on 127.0.0.1:$busy: Address already in use" \
		--listen "$busy" -c 1 --csv "$dir/a.csv"
	expect_eq "no CSV left after a port in use" "" "$(ls "$dir")"
	kill "$holder"
	expect_refusal "malformed address" 2 "tcptrace: invalid --listen '1.2.3.4.5:80': expected PORT or ADDR:PORT, ADDR an IPv4 address or [IPv6 address], PORT from 1 to 65535 (see tcptrace --help)" \
		--listen 1.2.3.4.5:80
	expect_refusal "address of no interface here" 2 "tcptrace: cannot listen on 192.0.2.1:9477: Cannot assign requested address" \
		--listen 192.0.2.1:9477 -c 1
	expect_refusal "CSV and JSON both on stdout" 2 "tcptrace: --csv - and --json - cannot both write to stdout (see tcptrace --help)" \
		--csv - --json -
	expect_refusal "unwritable JSON path" 2 "tcptrace: cannot write JSON file '$dir/none/x.json': No such file or directory" \
		--csv "$dir/b.csv" --json "$dir/none/x.json" -c 1
	expect_eq "no CSV left after an unwritable JSON path" "" "$(ls "$dir")"
	rm -rf "$dir"
}

[ "$(id -u)" -eq 0 ] || { echo "integration tests need root"; echo "0 passed, 1 failed"; exit 1; }
for bin in "$TCPTRACE" "$SCENARIO"; do
	[ -x "$bin" ] || { echo "missing $bin: run make first"; echo "0 passed, 1 failed"; exit 1; }
done
for tool in "$PROMETHEUS" "$PROMTOOL" curl jq python3; do
	command -v "$tool" >/dev/null || { echo "missing $tool: run tools/install-deps.sh"; echo "0 passed, 1 failed"; exit 1; }
done

run_case "Prometheus scrapes --listen: counts = scenario, nstat, ss and the CSV; JSON = CSV" case_prometheus_scrape
run_case "--by dest: series per name and destination = scenario, ss and the CSV; JSON = CSV" case_prometheus_by_dest
run_case "listen queues: drops = ListenDrops, SYNs sent again = TCPSynRetrans, open = ss, per process in the CSV" case_listen_queues
run_case "the Grafana dashboard: every query returns its series, exact where the scenario makes it" case_grafana_dashboard
run_case "--max-comms: names past the limit added up, sums exact" case_series_cap
run_case "--listen as a daemon: outlives its target, IPv6, hostile clients, SIGTERM" case_daemon_and_hostile_clients
run_case "--listen: clients that never read their response cannot keep a scraper out" case_clients_that_never_read
run_case "--listen in run mode: ends with COMMAND" case_run_mode
run_case "--json - on stdout" case_json_on_stdout
run_case "bad --listen and --json input is refused in one line" case_bad_input
finish
