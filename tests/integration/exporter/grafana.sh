# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# The Grafana dashboard (contrib/grafana): every query and variable, taken
# from its JSON, returns its series, exact where the scenario makes it.
# Sourced by tests/integration/exporter.sh, which runs the cases.

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
# free), and one binding port 0 then finds every port held (EADDRINUSE), one
# is refused (a connect() never established, a NO_SOCKET RST in no process
# row), one is refused before its SYN by a prohibit route (EACCES), and a
# slow server with a backlog of 2 gets two bursts of
# connects at once (SYN cookies off: its full queue drops SYNs, which go
# again) and holds them, its clients too, while the dashboard is asked
# (connections open). An idle process of the name is there from the start,
# so every series of the name starts at 0; tcptrace opens the namespace
# through it at start-up, and reads the listeners in it.
case_grafana_dashboard() {
	local s=$SCENARIO_NAME mport t0 i n1=20 n2=15 n3=10 n4=14 n5=3 n6=4 n7=2 n8=3 tw missing
	local q="comm=\"$s\"" target
	local dests="10.78.2.1:80 127.0.0.1:8080 127.0.0.1:8081 127.0.0.1:8082 127.0.0.1:8083 127.0.0.1:8084"
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
	# tcp_rfc1337: the exhausting client's timewait sockets must hold their
	# ports until the port-0 binds. On a busy machine the server's port
	# once answered the end of such a connection with an RST (NO_SOCKET,
	# seen by tcp:tcp_send_reset), which ends a timewait socket unless
	# RFC 1337 is followed: a port came free and the binds succeeded.
	ns_new "net.ipv4.ip_local_port_range=40000 40009" net.ipv4.tcp_tw_reuse=0 \
		net.ipv4.tcp_syncookies=0 net.ipv4.tcp_rfc1337=1 &&
		in_ns ip route add prohibit 10.78.2.0/24 || return 1
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
	# Every port of the range is held by client 3's TIME_WAIT: bind() finds none.
	in_ns "$SCENARIO" client --addr 127.0.0.1 --port 8083 --count "$n8" --mode connects --bind-port 0 \
		>"$WORK/c8.out" 2>&1 || { log "client 8: $(cat "$WORK/c8.out")"; return 1; }
	in_ns "$SCENARIO" client --addr 127.0.0.1 --port 8083 --count "$n5" --mode refused \
		>"$WORK/c4.out" 2>&1 || { log "client 4: $(cat "$WORK/c4.out")"; return 1; }
	in_ns "$SCENARIO" client --addr 10.78.2.1 --port 80 --count "$n7" --mode connects \
		>"$WORK/c7.out" 2>&1 || { log "client 7: $(cat "$WORK/c7.out")"; return 1; }
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
	expect_eq "scenario: port 0's binds all refused, the prohibit route's connects all" \
		"eaddrinuse=$n8 eacces=$n7" \
		"eaddrinuse=$(field "$WORK/c8.out" eaddrinuse) eacces=$(field "$WORK/c7.out" eacces)"
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
	# Data segments sent again: the panels' counts are the series', whose
	# sum is the namespace's TcpRetransSegs less TCPSynRetrans (loopback
	# loses none, but a data segment that met the full queue goes again);
	# a share where the side sent data, 0 when none went again.
	local again side a sent port
	again=$(($(nstat_of TcpRetransSegs) - retrans))
	expect_eq "data segments sent again, both sides = TcpRetransSegs - TCPSynRetrans" "$again" \
		"$(prom_query "sum(tcptrace_segments_retransmitted_total{$q})")"
	local panel_again=() panel_rto=() panel_share=()
	for side in in out; do
		a=$(prom_query "tcptrace_segments_retransmitted_total{$q,side=\"$side\"}")
		sent=$(prom_query "tcptrace_segments_sent_total{$q,side=\"$side\"}")
		panel_again+=("$c,side=$side $a")
		panel_rto+=("$c,side=$side $(prom_query "tcptrace_segments_retransmitted_rto_total{$q,side=\"$side\"}")")
		[ "$sent" -gt 0 ] && panel_share+=("$c,side=$side $([ "$a" = 0 ] && echo 0 || echo '*')")
	done
	expect_eq "scenario: data segments sent on both sides" 2 "${#panel_share[@]}"
	expect_panel "Data segments sent again per second, by process name and side" A "${panel_again[@]}"
	expect_panel "Data segments sent again per second, by process name and side" B "${panel_rto[@]}"
	expect_panel "Share of the data segments sent again, by process name and side" A "${panel_share[@]}"
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

	expect_panel "Local ports run out: connect() EADDRNOTAVAIL, bind() EADDRINUSE" A "$c $((n4 - n3))"
	expect_panel "Local ports run out: connect() EADDRNOTAVAIL, bind() EADDRINUSE" B "$c $n8"
	# The exhausting client's ports stay held by its timewait sockets, as
	# many as ss still shows toward 8082 in TIME-WAIT: all of them, since an
	# RST no longer ends one there (tcp_rfc1337 above).
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
	expect_panel "connect() and bind() failures per second" A " $(field "$WORK/c3.out" eaddrnotavail)"
	expect_panel "connect() and bind() failures per second" B "cause=abandoned 0" \
		"cause=refused $(field "$WORK/c4.out" refused)" "cause=timeout 0" "cause=unreach 0" \
		"cause=enetunreach 0" "cause=ehostunreach 0" "cause=eacces $(field "$WORK/c7.out" eacces)" \
		"cause=einval 0" "cause=eperm 0" "cause=other 0"
	expect_panel "connect() and bind() failures per second" C " $(field "$WORK/c8.out" eaddrinuse)"
	expect_panel "RSTs from TIME_WAIT sockets, and sockets not followed, per second" A " 0"
	expect_panel "RSTs from TIME_WAIT sockets, and sockets not followed, per second" B " 0"

	d="$c,dest=127.0.0.1"
	local p="$c,dest=10.78.2.1:80"
	expect_panel "Local ports free per destination" A "$d:8080,$in 10" "$d:8081,$in 10" \
		"$d:8082,$in $free82" "$d:8083,$in 10" "$d:8084,$in $((10 - 2 * n6))" "$p,$in 10"
	expect_panel "TIME_WAIT sockets held per destination" A "$d:8080 $(tw_count dport 8080)" \
		"$d:8081 $(tw_count dport 8081)" "$d:8082 $(tw_count dport 8082)" "$d:8083 0" "$d:8084 0" \
		"$p 0"
	expect_panel "New connections per second per destination" A "$d:8080 *" "$d:8081 *" \
		"$d:8082 *" "$d:8083 0" "$d:8084 *" "$p 0"
	expect_panel "EADDRNOTAVAIL per second per destination" A "$d:8080 0" "$d:8081 0" \
		"$d:8082 *" "$d:8083 0" "$d:8084 0" "$p 0"
	# The prohibit route's destination sent no segment: sent again 0, and no share.
	panel_again=("$p $(prom_query "tcptrace_dest_segments_retransmitted_total{$q,dest=\"10.78.2.1:80\"}")")
	panel_share=()
	for port in 8080 8081 8082 8083 8084; do
		a=$(prom_query "tcptrace_dest_segments_retransmitted_total{$q,dest=\"127.0.0.1:$port\"}")
		# A destination's series starts at its first count: the share is
		# there only where the segments sent grew after it.
		sent=$(prom_query "rate(tcptrace_dest_segments_sent_total{$q,dest=\"127.0.0.1:$port\"}[${DASH_WINDOW}s]) > bool 0")
		panel_again+=("$d:$port $a")
		[ "$sent" = 1 ] && panel_share+=("$d:$port $([ "$a" = 0 ] && echo 0 || echo '*')")
	done
	expect_eq "per destination, sent again = the out side's" \
		"$(prom_query "tcptrace_segments_retransmitted_total{$q,side=\"out\"}")" \
		"$(prom_query "sum(tcptrace_dest_segments_retransmitted_total{$q})")"
	expect_panel "Data segments sent again per second per destination" A "${panel_again[@]}"
	expect_panel "Share of the data segments sent again per destination" A "${panel_share[@]}"
	# Only the causes a destination has had: the refused ones, and the
	# prohibit route's EACCES.
	expect_panel "connect() failures per second per destination, by cause" A \
		"cause=refused,$d:8083 *" "cause=eacces,$p *"

	expect_panel "Events lost per second" A "$in *"
	expect_panel "Label overflow per second" A "$in 0"
	expect_panel "Label overflow per second" B "$in 0"
	expect_panel "Label overflow per second" C "$in 0"
	expect_panel "Names with series, and the limit" A "$in 1"
	expect_panel "Names with series, and the limit" B "$in 6"
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
