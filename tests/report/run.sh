#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# tcptrace report in a real browser. The suite makes its own CSV files: real
# runs of tcptrace over tt-scenario in a private network namespace (the
# client closes first and holds the TIME_WAIT; the client resets and holds
# none; the server and its clients under two process names; a slow server
# whose full accept queue drops SYNs, which its clients send again while
# they hold their connections open; --by dest, one destination running out
# of local ports), one of them cut to the columns of an earlier version of
# tcptrace (beside the run it was cut from: a page without RSTs), and an hour of one-second rows for five processes of two
# names, made up by hour.awk. tcptrace report
# writes pages from them, and Debian's chromium, headless, in a network
# namespace of its own with loopback only, opens each page (browser.py): no
# console warning or error, no request but the page's own file, every chart
# drawn and inked but those folded into a line for being 0 throughout (the
# charts the CSV files' sums say are 0), the totals of its tables and of its
# charts' data equal to the sums that totals.awk takes from the CSV files,
# its tables equal to tcptrace compare's text on the same files, section for
# section (compare.awk reads the text), each line drawn per
# process name equal to the sums that names.awk takes per name, and after
# each click on the choice of names, only that name's lines come or go,
# the others kept as they were; the time the hour took to draw, and each
# redraw, printed (a figure to read: timing is no test, and a busy machine
# stretches it). Each page, its screenshots and what the browser said stay in
# build/report-test/. Then bad input, answered in one line as compare
# answers it, with no file left.
# A test that cannot run fails; none is skipped.
set -u
. "$(dirname "$0")/../lib/common.sh"
. "$(dirname "$0")/../lib/tracer.sh"

OUT=$TOP/build/report-test
HERE=$TOP/tests/report
CHART_LIB=/usr/share/javascript/chart.js/chart.min.js
PROCESS_CHARTS="tw_now conn open closes rst eaddrnotavail before_syn listen_drops acceptq syn_retrans retrans connect_p99 connects_slow"
# A CSV of an earlier version, or of --by dest, has no column of the others.
EARLIER_CHARTS="tw_now conn closes rst eaddrnotavail"
DEST_CHARTS="$EARLIER_CHARTS before_syn retrans connect_p99 connects_slow ports_free runout_s"
# The columns an earlier version did not write (csv_col_optional), and
# those of failed connects by cause, connect times, accept waits and
# segments sent again (NEW_PATTERN).
NEW_COLUMNS="eaddrinuse open_in open_out listen_drops acceptq_peak acceptq_limit syn_retrans_out synack_retrans_in"
NEW_PATTERN='^(connfail_(refused|timeout|unreach|abandoned|enetunreach|ehostunreach|eacces|einval|eperm|other)|(connect|accept_wait|handshake)_([0-9]+(us|ms|s)|over_50s|us)|retrans_(rto_)?(in|out)|segs_sent_(in|out))$'
# Limits of the real runs: bursts of connections 0.3 s apart.
BURSTS=5
PER_BURST=40

field() { tr ' ' '\n' <"$1" | awk -F= -v k="$2" '$1 == k { print $2 }'; }

# Sum of a CSV column over every row.
col_sum() { # csv column
	awk -F, -v col="$2" '
		NR == 1 { for (i = 1; i <= NF; i++) if ($i == col) c = i; next }
		{ s += $c }
		END { if (!c) { print "no-column-" col; exit } printf "%.0f\n", s }' "$1"
}

# Data segments sent again in a CSV, both sides (0 without the columns).
sent_again() { # csv
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i ~ /^retrans_(in|out)$/) c[i] = 1; next }
		{ for (i in c) s += $i }
		END { printf "%.0f\n", s }' "$1"
}

# The largest sum of a level column over the rows of one time (one interval)
# of one process name.
comm_peak() { # csv comm column
	awk -F, -v comm="$2" -v col="$3" '
		NR == 1 { for (i = 1; i <= NF; i++) if ($i == col) c = i; next }
		$4 == comm { at[$1] += $c }
		END { for (t in at) if (at[t] > m) m = at[t]; print m + 0 }' "$1"
}

# The CSV as a tcptrace of an earlier version would have written it:
# without the columns it did not have.
earlier_version() { # csv
	awk -F, -v drop="$NEW_COLUMNS" -v pattern="$NEW_PATTERN" '
		BEGIN { n = split(drop, d, " "); for (i = 1; i <= n; i++) gone[d[i]] = 1 }
		NR == 1 { for (i = 1; i <= NF; i++) keep[i] = !($i in gone) && $i !~ pattern }
		{
			line = ""
			for (i = 1; i <= NF; i++)
				if (keep[i])
					line = line (line == "" ? "" : ",") $i
			print line
		}' "$1"
}

# The clients' copy of tt-scenario: a process name of their own.
CLIENT_NAME=ttc$$

# A real run in a fresh namespace: a tt-scenario server of MODE, and its
# clients in BURSTS bursts of PER_BURST, traced by name in run mode every
# 0.2 s.
real_run() { # csv mode [tcptrace args...]
	local csv=$1 mode=$2
	shift 2
	cp "$SCENARIO" "$WORK/$CLIENT_NAME" || return 1
	ns_new net.ipv4.tcp_tw_reuse=0 || return 1
	server_start 127.0.0.1 8080 $((BURSTS * PER_BURST)) "$mode" || return 1
	: >"$WORK/client.out"
	"$TCPTRACE" -p "$SCENARIO_NAME,$CLIENT_NAME" -i 0.2 --csv "$csv" "$@" -- ip netns exec "$NS" sh -c "
		for i in \$(seq $BURSTS); do
			\"$WORK/$CLIENT_NAME\" client --addr 127.0.0.1 --port 8080 --count $PER_BURST --mode $mode \
				>>$WORK/client.out 2>&1 || exit 1
			sleep 0.3
		done" >"$WORK/tracer.out" 2>"$WORK/tracer.err" ||
		{ log "tcptrace or the client failed: $(tail -2 "$WORK/tracer.err" "$WORK/client.out")"; return 1; }
	wait "$SRV" || { log "server failed: $(cat "$WORK/server.out")"; return 1; }
}

case_real_runs() {
	local n=$((BURSTS * PER_BURST))
	real_run "$OUT/fin-client.csv" fin-client || return 1
	expect_eq "fin-client: tw_out = the client's connections" "$n" "$(col_sum "$OUT/fin-client.csv" tw_out)"
	expect_eq "fin-client: tw_out = TcpExtTW" "$(nstat_of TcpExtTW)" "$(col_sum "$OUT/fin-client.csv" tw_out)"
	cleanup
	real_run "$OUT/linger0-client.csv" linger0-client || return 1
	expect_eq "linger0-client: rst_sent_out = the client's connections" "$n" \
		"$(col_sum "$OUT/linger0-client.csv" rst_sent_out)"
	expect_eq "linger0-client: no TIME_WAIT" 0 "$(col_sum "$OUT/linger0-client.csv" tw_out)"
	earlier_version "$OUT/fin-client.csv" >"$OUT/earlier.csv" || return 1
	expect_eq "earlier.csv: the columns of an earlier version" "tw_rst,rst_sent_reasons" \
		"$(head -1 "$OUT/earlier.csv" | cut -d, -f23-)"
}

# A slow server (an accept() every 150 ms, a backlog of 2) in a namespace
# without SYN cookies, and clients that each send a burst of connects at
# once and hold them: the full accept queue drops SYNs, which go again. The
# clients hold every connection open until ss lists all of them established
# on both ends, for two intervals more, then close them.
case_real_queue_run() {
	local clients=3 per=4 n drops retrans
	n=$((clients * per))
	cp "$SCENARIO" "$WORK/$CLIENT_NAME" || return 1
	ns_new net.ipv4.tcp_syncookies=0 || return 1
	server_start 127.0.0.1 8080 "$n" hold --backlog 2 --accept-delay 150 --keep-listening || return 1
	"$TCPTRACE" -p "$SCENARIO_NAME,$CLIENT_NAME" -i 0.2 --csv "$OUT/queue.csv" -- ip netns exec "$NS" sh -c "
		pids=
		for i in \$(seq $clients); do
			\"$WORK/$CLIENT_NAME\" client --addr 127.0.0.1 --port 8080 --count $per --mode burst \
				--wait 30 --hold $WORK/hold.\$i >$WORK/client.\$i.out 2>&1 &
			pids=\"\$pids \$!\"
		done
		for t in \$(seq 600); do
			[ \$(cat $WORK/hold.* 2>/dev/null | wc -l) -eq $clients ] && break
			sleep 0.1
		done
		# The server's ends too: a last ACK dropped at the full queue
		# leaves its end waiting for a SYN-ACK sent again, seconds later.
		for t in \$(seq 300); do
			[ \$(ss -tnH state established '( sport = :8080 )' | wc -l) -eq $n ] && break
			sleep 0.1
		done
		sleep 0.5 # two intervals of 0.2 s
		kill -USR1 \$pids
		for pid in \$pids; do wait \$pid || exit 1; done" >"$WORK/tracer.out" 2>"$WORK/tracer.err" ||
		{ log "tcptrace or a client failed: $(tail -2 "$WORK/tracer.err" "$WORK"/client.*.out)"; return 1; }
	wait "$SRV" || { log "server failed: $(cat "$WORK/server.out")"; return 1; }
	drops=$(nstat_of TcpExtListenDrops)
	retrans=$(nstat_of TcpExtTCPSynRetrans)
	expect_eq "the queue dropped connection attempts, and SYNs went again" "1 1" \
		"$((drops > 0)) $((retrans > 0))"
	expect_eq "listen_drops = ListenDrops" "$drops" "$(col_sum "$OUT/queue.csv" listen_drops)"
	expect_eq "syn_retrans_out + synack_retrans_in = TCPSynRetrans" "$retrans" \
		"$(($(col_sum "$OUT/queue.csv" syn_retrans_out) + $(col_sum "$OUT/queue.csv" synack_retrans_in)))"
	expect_eq "the clients sent SYNs again" 1 "$(($(col_sum "$OUT/queue.csv" syn_retrans_out) > 0))"
	# The kernel checks the queue before it adds to it, on each CPU at once:
	# the deepest is the backlog and one, or up to one more per other CPU.
	expect_eq "the deepest accept queue (the backlog and one to the backlog and $(nproc)), its limit" \
		"yes 2" "$(awk -F, -v cpus="$(nproc)" '
			NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
			$c["acceptq_peak"] > p { p = $c["acceptq_peak"]; l = $c["acceptq_limit"] }
			END { print (p >= 3 && p <= 2 + cpus ? "yes" : "no " p), l + 0 }' "$OUT/queue.csv")"
	expect_eq "connections open at their peak, server and clients" "$n $n" \
		"$(comm_peak "$OUT/queue.csv" "$SCENARIO_NAME" open_in) $(comm_peak "$OUT/queue.csv" "$CLIENT_NAME" open_out)"
}

# --by dest: 12 local ports and no timewait reuse. One client, a copy of
# bash named for this run (comm is the file's name), connects every 0.1 s toward :8080 and keeps each
# connection, so its ports run out within an interval's forecast; 2 of its
# 14 connect() calls find no port. Then 2 toward :8081. It closes them all
# first as it exits: their TIME_WAIT keeps the ports.
case_real_dest_run() {
	local client=ttb$$
	cp "$(command -v bash)" "$WORK/$client" || return 1
	ns_new "net.ipv4.ip_local_port_range=40000 40011" net.ipv4.tcp_tw_reuse=0 || return 1
	server_start 127.0.0.1 8080 12 hold || return 1
	local srv_a=$SRV
	server_start 127.0.0.1 8081 2 hold || return 1
	# The servers are named too: tcptrace reads the port range and the
	# timewait sockets of namespaces its processes are in at start-up.
	"$TCPTRACE" -p "$client,$SCENARIO_NAME" --by dest -i 0.2 --csv "$OUT/by-dest.csv" -- \
		ip netns exec "$NS" "$WORK/$client" -c '
		failed=0
		for i in $(seq 14); do
			exec {fd}<>/dev/tcp/127.0.0.1/8080 || failed=$((failed + 1))
			sleep 0.1
		done
		exec {fd}<>/dev/tcp/127.0.0.1/8081 && exec {fd}<>/dev/tcp/127.0.0.1/8081 &&
			echo "eaddrnotavail=$failed"' >"$WORK/client.out" 2>"$WORK/tracer.err" ||
		{ log "tcptrace or the client failed: $(tail -3 "$WORK/tracer.err")"; return 1; }
	wait "$srv_a" "$SRV" || { log "a server failed: $(cat "$WORK/server.out")"; return 1; }
	expect_eq "the client's own EADDRNOTAVAIL count" 2 "$(field "$WORK/client.out" eaddrnotavail)"
	expect_eq "eaddrnotavail in the CSV" 2 "$(col_sum "$OUT/by-dest.csv" eaddrnotavail)"
	# The ports still held toward :8080 at the end, by the kernel's own
	# table: all 12, but for timewait sockets an RST ended (once in a fresh
	# clone's run, under the checks suite's load: 3 RSTs, 3 ports free).
	local held
	held=$(in_ns ss -tanH 'dst 127.0.0.1:8080' | wc -l)
	expect_eq "ports_free toward :8080 at the end = 12 - ss's sockets toward it" $((12 - held)) \
		"$(awk -F, '$5 == "127.0.0.1:8080" { v = $17 } END { print v }' "$OUT/by-dest.csv")"
	expect_eq "intervals with a runout_s forecast" yes \
		"$(awk -F, 'NR > 1 && $18 > 0 { n++ } END { print n ? "yes" : "no" }' "$OUT/by-dest.csv")"
}

case_made_up_hour() {
	awk -v run=default -f "$HERE/hour.awk" >"$OUT/hour-default.csv" &&
		awk -v run=keepalive -f "$HERE/hour.awk" >"$OUT/hour-keepalive.csv" || return 1
	expect_eq "rows of hour-default.csv" $((3600 * 5 + 1)) "$(wc -l <"$OUT/hour-default.csv")"
	expect_eq "rows of hour-keepalive.csv" $((3600 * 5 + 1)) "$(wc -l <"$OUT/hour-keepalive.csv")"
}

# tcptrace report PAGE CSV...; the page is written whole, so it ends the HTML.
report() { # page csv...
	local page=$1
	shift
	"$TCPTRACE" report "$@" -o "$page" 2>"$WORK/report.err" ||
		{ log "tcptrace report failed: $(cat "$WORK/report.err")"; return 1; }
	expect_eq "$(basename "$page") ends the HTML" "</html>" "$(tail -1 "$page")"
}

# Opens the page in chromium, in a namespace of its own, and clicks the
# choices of the groups given in turn; FACTS is what browser.py said.
# Checks what every page must do.
browser_check() { # page charts [group...]
	local page=$1 charts=$2 name shot
	name=$(basename "$page" .html)
	shot=$OUT/$name.png
	FACTS=$OUT/$name.facts
	rm -rf "$WORK/profile" "$shot" && mkdir -p "$WORK/profile" || return 1
	ns_new || return 1
	in_ns python3 "$HERE/browser.py" "$page" "$shot" "$WORK/profile" "${@:3}" >"$FACTS" 2>"$WORK/browser.err" ||
		{ log "browser.py: $(tail -3 "$WORK/browser.err")"; return 1; }
	expect_eq "requests: the page's own file only" "file://$page" \
		"$(awk '$1 == "request" { print $2 }' "$FACTS" | paste -sd' ')"
	expect_eq "console warnings and errors" "" "$(grep '^console ' "$FACTS")"
	# The charts the page says it folded are not drawn: each is a line
	# under the charts, seen; every other chart is drawn.
	local folded drawn c
	folded=$(awk '$1 == "folded" { print $2 }' "$FACTS" | paste -sd' ')
	drawn=$(for c in $charts; do case " $folded " in *" $c "*) ;; *) echo "$c" ;; esac; done | paste -sd' ')
	expect_eq "charts folded, of the charts expected (in their order)" "$folded" \
		"$(for c in $charts; do case " $folded " in *" $c "*) echo "$c" ;; esac; done | paste -sd' ')"
	expect_eq "folded charts: a line each, seen" "" \
		"$(awk '$1 == "folded" && $3 != "shown"' "$FACTS")"
	expect_eq "charts drawn, as the page says" "$drawn" \
		"$(awk '$1 == "chart" && $3 == "drawn" && $4 == 1 { print $2 }' "$FACTS" | paste -sd' ')"
	expect_eq "charts with ink in their plot area (getImageData)" "$drawn" \
		"$(awk '$1 == "chart" && $3 == "drawn" && $9 == "inked" && $10 > 0 { print $2 }' "$FACTS" | paste -sd' ')"
	expect_eq "canvases: the charts drawn, none for a folded one" "$drawn" \
		"$(awk '$1 == "canvas" { print $2 }' "$FACTS" | paste -sd' ')"
	expect_eq "all drawn" true "$(awk '$1 == "all_drawn" { print $2 }' "$FACTS")"
	expect_eq "img, iframe, object or embed elements" 0 "$(awk '$1 == "elements" { print $3 }' "$FACTS")"
	expect_eq "screenshot is a PNG" "PNG" "$(head -c 4 "$shot" 2>/dev/null | tail -c 3)"
	expect_eq "print screenshot is a PNG" "PNG" "$(head -c 4 "${shot%.png}-print.png" 2>/dev/null | tail -c 3)"
	log "    screenshot $shot ($(awk '$1 == "screenshot" { print $3 }' "$FACTS")), drawn in" \
		"$(awk '$1 == "draw_ms" { print $2 }' "$FACTS") ms from the script's start," \
		"$(awk '$1 == "ready_ms" { print $2 }' "$FACTS") ms from navigation"
}

# The page's totals (tables and charts' data) against totals.awk's sums of
# the CSV files, which are labelled A, B... in order.
totals_check() { # csv...
	local label=A csv diff queues=0 connects=0 retrans=0
	# compare's sections of the listen queues and of the connect times are
	# there when any run has a column of a later version, or the connect
	# times' columns; that of the segments sent again when a run sent any.
	for csv in "$@"; do
		head -1 "$csv" | tr , '\n' | grep -Eq "^($(echo "$NEW_COLUMNS" | tr ' ' '|'))\$" && queues=1
		head -1 "$csv" | tr , '\n' | grep -Eq "$NEW_PATTERN" && queues=1
		head -1 "$csv" | tr , '\n' | grep -qx connect_10us && connects=1
		[ "$(sent_again "$csv")" -gt 0 ] && retrans=1
	done
	for csv in "$@"; do
		awk -v L=$label -v queues=$queues -v connects=$connects -v retrans=$retrans \
			-f "$HERE/totals.awk" "$csv"
		label=$(echo "$label" | tr A-Y B-Z)
	done | LC_ALL=C sort >"$WORK/expected.totals"
	awk '$1 == "table" || $1 == "dest" || ($1 == "chart" && $2 ~ /^[A-Z]+$/)' "$FACTS" |
		LC_ALL=C sort >"$WORK/page.totals"
	diff=$(diff "$WORK/expected.totals" "$WORK/page.totals")
	expect_eq "totals in the page = the CSV's sums ($(wc -l <"$WORK/expected.totals") figures)" "" "$diff"
	[ -s "$WORK/expected.totals" ] || { log "    no totals computed"; CASE_FAILED=1; }
}

# The charts of CHARTS whose lines are all 0 over the CSV files (for the
# charts per destination, that have no value), from the CSVs' own sums: those
# the page folds. A chart whose columns no CSV has is not one of CHARTS.
zero_charts() { # charts csv...
	local charts=$1
	shift
	awk -F, -v charts="$charts" '
		BEGIN {
			cols["tw_now"] = "tw_now"
			cols["conn"] = "conn_in conn_out"
			cols["open"] = "open_in open_out"
			cols["closes"] = "fin_active_in fin_active_out fin_passive_in fin_passive_out " \
				"rst_sent_in rst_sent_out rst_recv_in rst_recv_out timeout_in timeout_out"
			cols["rst"] = "rst_sent_in rst_sent_out"
			cols["eaddrnotavail"] = "eaddrnotavail eaddrinuse"
			cols["before_syn"] = "connfail_enetunreach connfail_ehostunreach connfail_eacces " \
				"connfail_einval connfail_eperm connfail_other"
			cols["listen_drops"] = "listen_drops"
			cols["acceptq"] = "acceptq_peak acceptq_limit"
			cols["syn_retrans"] = "syn_retrans_out synack_retrans_in"
			cols["retrans"] = "retrans_in retrans_out retrans_rto_in retrans_rto_out"
			cols["connect_p99"] = "connect_10us connect_20us connect_50us connect_100us " \
				"connect_200us connect_500us connect_1ms connect_2ms connect_5ms " \
				"connect_10ms connect_20ms connect_50ms connect_100ms connect_200ms " \
				"connect_500ms connect_1s connect_2s connect_5s connect_10s connect_20s " \
				"connect_50s connect_over_50s"
			cols["connects_slow"] = "connect_2s connect_5s connect_10s connect_20s " \
				"connect_50s connect_over_50s"
			cols["ports_free"] = "ports_free"
			cols["runout_s"] = "runout_s"
			n = split(charts, chart, " ")
		}
		FNR == 1 { delete at; for (i = 1; i <= NF; i++) at[$i] = i; next }
		{
			for (c = 1; c <= n; c++) {
				k = split(cols[chart[c]], list, " ")
				for (j = 1; j <= k; j++)
					if (list[j] in at)
						# ports_free counts as a value even at 0.
						sum[chart[c]] += chart[c] == "ports_free" ? 1 : $at[list[j]]
			}
		}
		END {
			for (c = 1; c <= n; c++)
				if (!sum[chart[c]])
					{ printf "%s%s", sep, chart[c]; sep = " " }
			print ""
		}' "$@"
}

# The charts the page folded are those whose lines the CSV files say are
# all 0 (zero_charts).
folded_check() { # charts csv...
	local charts=$1
	shift
	expect_eq "charts folded: those whose lines are 0 throughout, by the CSV files' sums" \
		"$(zero_charts "$charts" "$@" | tr ' ' '\n' | grep . | paste -sd' ')" \
		"$(awk '$1 == "folded" { print $2 }' "$FACTS" | paste -sd' ')"
}

# The page's tables against tcptrace compare's text on the same CSV files,
# section for section, row for row, each cell as compare writes it
# (compare.awk reads the text as browser.py reads the page), and the
# sections in compare's order.
compare_check() { # csv...
	local diff
	"$TCPTRACE" compare "$@" >"$WORK/compare.txt" 2>"$WORK/compare.err" ||
		{ log "tcptrace compare failed: $(cat "$WORK/compare.err")"; CASE_FAILED=1; return; }
	awk -f "$HERE/compare.awk" "$WORK/compare.txt" >"$WORK/expected.compare"
	awk '$1 == "compare" || $1 == "verdict"' "$FACTS" >"$WORK/page.compare"
	expect_eq "sections in the page = compare's, in its order" \
		"$(grep '^compare ' "$WORK/expected.compare" | cut -d'|' -f1 | uniq | paste -sd',')" \
		"$(grep '^compare ' "$WORK/page.compare" | cut -d'|' -f1 | uniq | paste -sd',')"
	diff=$(diff "$WORK/expected.compare" "$WORK/page.compare")
	expect_eq "tables in the page = compare's text ($(wc -l <"$WORK/expected.compare") cells' rows)" "" "$diff"
	[ "$(grep -c '^compare ' "$WORK/expected.compare")" -gt 0 ] ||
		{ log "    compare's text gave no row"; CASE_FAILED=1; }
}

# FACTS' lines that start with PREFIX, without it, sorted.
facts_of() { # prefix
	awk -v p="$1" 'index($0, p) == 1 { print substr($0, length(p) + 1) }' "$FACTS" | LC_ALL=C sort
}

# The lines the page draws per name (those of FACTS that start with PREFIX)
# against names.awk's sums per name of the CSV files, labelled A, B... in
# order, for the groups chosen (all, name=COMM; joined with '|').
lines_check() { # what prefix groups csv...
	local what=$1 prefix=$2 groups=$3 label=A csv diff
	shift 3
	for csv in "$@"; do
		awk -v L=$label -f "$HERE/names.awk" "$csv"
		label=$(echo "$label" | tr A-Y B-Z)
	done | awk -v groups="$groups" '
		BEGIN { n = split(groups, g, "|"); for (i = 1; i <= n; i++) chosen[g[i]] = 1 }
		{ group = $5; for (i = 6; i <= NF; i++) group = group " " $i }
		group in chosen' | LC_ALL=C sort >"$WORK/expected.lines"
	facts_of "$prefix" >"$WORK/page.lines"
	diff=$(diff "$WORK/expected.lines" "$WORK/page.lines")
	expect_eq "$what: lines per name = the CSV's sums per name ($(wc -l <"$WORK/expected.lines") lines)" \
		"" "$diff"
	[ -s "$WORK/expected.lines" ] || { log "    no lines expected"; CASE_FAILED=1; }
}

# Step N of browser.py clicked GROUP's choice: it is now on or off, only
# GROUP's lines came (on) or went (off), no line was given other data, and
# the lines drawn are the CSV's for the groups now chosen; the redraw's time
# printed.
step_check() { # n group on|off groups csv...
	local n=$1 group=$2 state=$3 groups=$4 ms
	shift 4
	expect_eq "step $n: $group's choice clicked, now" "$state $group" \
		"$(facts_of "step $n toggled " | awk '{ print $1, $4 }')"
	expect_eq "step $n: the lines that came or went, or were redrawn with other data" \
		"$([ "$state" = on ] && echo added || echo removed) $group" \
		"$(facts_of "step $n " | awk '$1 ~ /^(added|removed|redrawn)$/ { print $1, $NF }' | sort -u)"
	ms=$(facts_of "step $n toggled " | awk '{ print $3 }')
	log "    step $n: redrawn in ${ms:-?} ms"
	lines_check "step $n" "step $n line " "$groups" "$@"
}

case_page_per_process() {
	local page=$OUT/per-process.html
	local csvs=("$OUT/fin-client.csv" "$OUT/linger0-client.csv")
	local client=name=$CLIENT_NAME server=name=$SCENARIO_NAME
	report "$page" "${csvs[@]}" || return 1
	browser_check "$page" "$PROCESS_CHARTS" all "$client" || return 1
	totals_check "${csvs[@]}"
	compare_check "${csvs[@]}"
	folded_check "$PROCESS_CHARTS" "${csvs[@]}"
	expect_eq "run names: the files" "run A $OUT/fin-client.csv|run B $OUT/linger0-client.csv" \
		"$(grep '^run ' "$FACTS" | paste -sd'|')"
	expect_eq "choices at first: every name, not the sum" "all off|$client on|$server on" \
		"$(facts_of 'choice ' | paste -sd'|')"
	lines_check "at first" "line " "$client|$server" "${csvs[@]}"
	step_check 1 all on "all|$client|$server" "${csvs[@]}"
	step_check 2 "$client" off "all|$server" "${csvs[@]}"
}

# Beside a per-process CSV of an earlier version: neither has the columns
# of open connections, listen queues and SYNs, whose charts are not drawn.
case_page_per_destination() {
	local page=$OUT/per-destination.html
	local csvs=("$OUT/by-dest.csv" "$OUT/earlier.csv") dest_client
	local client=name=$CLIENT_NAME server=name=$SCENARIO_NAME
	dest_client=name=$(awk -F, 'NR == 2 { print $4 }' "$OUT/by-dest.csv")
	report "$page" "${csvs[@]}" || return 1
	browser_check "$page" "$DEST_CHARTS" "$dest_client" || return 1
	totals_check "${csvs[@]}"
	folded_check "$DEST_CHARTS" "${csvs[@]}"
	expect_eq "destinations in the page" "127.0.0.1:8080 127.0.0.1:8081" \
		"$(awk '$1 == "dest" && $4 == "conn_out" { print $3 }' "$FACTS" | LC_ALL=C sort | paste -sd' ')"
	lines_check "at first" "line " "$dest_client|$client|$server" "${csvs[@]}"
	# The charts per destination are of every process: not redrawn.
	step_check 1 "$dest_client" off "$client|$server" "${csvs[@]}"
}

# The slow server's run beside one of an earlier version, which has no line
# in the charts of the columns it lacks.
case_page_of_listen_queues() {
	local page=$OUT/listen-queues.html
	local csvs=("$OUT/queue.csv" "$OUT/earlier.csv")
	local client=name=$CLIENT_NAME server=name=$SCENARIO_NAME
	report "$page" "${csvs[@]}" || return 1
	browser_check "$page" "$PROCESS_CHARTS" "$client" all || return 1
	totals_check "${csvs[@]}"
	compare_check "${csvs[@]}"
	folded_check "$PROCESS_CHARTS" "${csvs[@]}"
	expect_eq "lines of the charts run B's CSV has no column of" "" \
		"$(awk '$1 == "line" && $2 == "B" && $3 ~ /^(open|listen_drops|acceptq|syn_retrans|retrans)$/' "$FACTS")"
	lines_check "at first" "line " "$client|$server" "${csvs[@]}"
	step_check 1 "$client" off "$server" "${csvs[@]}"
	step_check 2 all on "all|$server" "${csvs[@]}"
}

case_page_of_an_hour() {
	local page=$OUT/hour.html ready draw
	local csvs=("$OUT/hour-default.csv" "$OUT/hour-keepalive.csv")
	report "$page" "${csvs[@]}" || return 1
	browser_check "$page" "$PROCESS_CHARTS" name=nginx all name=nginx || return 1
	totals_check "${csvs[@]}"
	compare_check "${csvs[@]}"
	folded_check "$PROCESS_CHARTS" "${csvs[@]}"
	expect_eq "choices at first" "all off|name=haproxy on|name=nginx on" "$(facts_of 'choice ' | paste -sd'|')"
	lines_check "at first" "line " "name=haproxy|name=nginx" "${csvs[@]}"
	step_check 1 name=nginx off "name=haproxy" "${csvs[@]}"
	step_check 2 all on "all|name=haproxy" "${csvs[@]}"
	step_check 3 name=nginx on "all|name=haproxy|name=nginx" "${csvs[@]}"
	draw=$(awk '$1 == "draw_ms" { print $2 }' "$FACTS")
	ready=$(awk '$1 == "ready_ms" { print $2 }' "$FACTS")
	expect_eq "the page says it is drawn" yes "$([ -n "$ready" ] && [ "$ready" != none ] && echo yes || echo no)"
	log "    drawn in $ready ms from navigation, $draw ms from the script's start"
}

# The client that closes first, beside the same run cut to an earlier
# version: no RST in either, so the chart of RSTs by reason is not drawn but
# folded into one line that says so; the tables are compare's, with n/a
# where the earlier CSV lacks the columns.
case_page_without_rsts() {
	local page=$OUT/no-rsts.html
	local csvs=("$OUT/fin-client.csv" "$OUT/earlier.csv")
	expect_eq "no RST in the CSV files (rst_sent_in, rst_sent_out)" "0 0 0 0" \
		"$(for c in "${csvs[@]}"; do col_sum "$c" rst_sent_in; col_sum "$c" rst_sent_out; done | paste -sd' ')"
	report "$page" "${csvs[@]}" || return 1
	browser_check "$page" "$PROCESS_CHARTS" || return 1
	expect_eq "the RST chart: one line, seen" \
		"folded rst shown RSTs sent per second, by reason: none in these runs, 0 throughout for every process; not drawn." \
		"$(grep '^folded rst ' "$FACTS")"
	expect_eq "the RST chart: not drawn, no canvas" "" \
		"$(awk '($1 == "chart" && $2 == "rst") || ($1 == "canvas" && $2 == "rst")' "$FACTS")"
	folded_check "$PROCESS_CHARTS" "${csvs[@]}"
	totals_check "${csvs[@]}"
	compare_check "${csvs[@]}"
}

# A folder and a process named to be markup: the page shows them as text.
case_hostile_names() {
	local dir="$OUT/hostile/<"/'script>&<img src=x onerror=alert(1)>' page=$OUT/hostile.html csv
	rm -rf "$OUT/hostile" && mkdir -p "$dir" || return 1
	csv=$dir/'"it'"'"'s".csv'
	sed '2,$ s/^\([^,]*,[^,]*,[^,]*,\)[^,]*/\1<\/script><b>x/' "$OUT/fin-client.csv" >"$csv" || return 1
	report "$page" "$csv" || return 1
	browser_check "$page" "$PROCESS_CHARTS" || return 1
	expect_eq "the file, shown as text" "run A $csv" "$(grep '^run ' "$FACTS")"
	expect_eq "the process names, shown as text" "</script><b>x" \
		"$(grep '^processes A ' "$FACTS" | grep -oF '</script><b>x' | sort -u)"
	expect_eq "the name's choice" "all off|name=</script><b>x on" "$(facts_of 'choice ' | paste -sd'|')"
	totals_check "$csv"
	folded_check "$PROCESS_CHARTS" "$csv"
	lines_check "at first" "line " "name=</script><b>x" "$csv"
}

# One line as compare answers it, exit 2, and no file: neither the page
# nor a temporary one beside it; a page there before stays as it was.
case_bad_input() {
	local dir=$WORK/bad out err rc
	mkdir -p "$dir" && cp "$OUT/fin-client.csv" "$dir/good.csv" || return 1
	awk -F, -v OFS=, 'NR == 3 { NF-- } 1' "$dir/good.csv" >"$dir/short.csv"
	"$TCPTRACE" report "$dir/good.csv" "$dir/short.csv" -o "$dir/page.html" 2>"$dir/err"
	rc=$?
	expect_eq "a short row: exit" 2 "$rc"
	expect_eq "a short row: one line, as compare's" \
		"$("$TCPTRACE" compare "$dir/good.csv" "$dir/short.csv" 2>&1 >/dev/null |
			sed 's/^tcptrace compare:/tcptrace report:/')" "$(cat "$dir/err")"
	local fields
	fields=$(head -n1 "$dir/good.csv" | awk -F, '{ print NF }')
	expect_eq "a short row: the line" \
		"tcptrace report: $dir/short.csv:3: expected $fields fields, found $((fields - 1))" \
		"$(cat "$dir/err")"
	expect_eq "a short row: no file" "err good.csv short.csv" "$(LC_ALL=C ls -A "$dir" | paste -sd' ')"

	"$TCPTRACE" report "$dir/good.csv" -o "$dir/page.html" 2>"$dir/err" || { log "$(cat "$dir/err")"; return 1; }
	cp "$dir/page.html" "$dir/before.html"
	"$TCPTRACE" report "$dir/short.csv" -o "$dir/page.html" 2>/dev/null
	cmp -s "$dir/page.html" "$dir/before.html" && log "    ok   a page there before is kept as it was" ||
		{ log "    FAIL the page there before was changed"; CASE_FAILED=1; }

	err=$("$TCPTRACE" report "$dir/good.csv" 2>&1 >/dev/null)
	expect_eq "no -o: exit 2 and one line" \
		"2 tcptrace report: missing -o FILE.html, where to write the page (see tcptrace report --help)" \
		"$? $err"
	err=$("$TCPTRACE" report "$dir/good.csv" -o "$dir/no/such/page.html" 2>&1 >/dev/null)
	expect_eq "-o in a missing folder: exit 2 and one line" \
		"2 tcptrace report: cannot write $dir/no/such/page.html: No such file or directory" "$? $err"
	mkdir -p "$dir/folder.html"
	err=$("$TCPTRACE" report "$dir/good.csv" -o "$dir/folder.html" 2>&1 >/dev/null)
	expect_eq "-o a folder: exit 2 and one line" \
		"2 tcptrace report: cannot write $dir/folder.html: Is a directory" "$? $err"
	err=$("$TCPTRACE" report "$dir/missing.csv" -o "$dir/x.html" 2>&1 >/dev/null)
	expect_eq "a missing CSV: exit 1 and one line" \
		"1 tcptrace report: cannot open $dir/missing.csv: No such file or directory" "$? $err"

	# The chart library hidden by an empty tmpfs in a mount namespace of its own.
	out=$(unshare -m sh -c 'mount -t tmpfs none "$(dirname "$1")" && "$2" report "$3" -o "$4"' \
		sh "$CHART_LIB" "$TCPTRACE" "$dir/good.csv" "$dir/nolib.html" 2>&1)
	rc=$?
	err="tcptrace report: cannot read the chart library $CHART_LIB: No such file or directory"
	expect_eq "no chart library: exit 1 and one line naming the package" \
		"1 $err (it comes with the package libjs-chart.js)" "$rc $out"
	expect_eq "files left" "before.html err folder.html good.csv page.html short.csv" \
		"$(LC_ALL=C ls -A "$dir" | paste -sd' ')"
}

fail_early() { echo "report: $*"; echo "report: 0 passed, 1 failed"; exit 1; }
[ "$(id -u)" -eq 0 ] || fail_early "needs root (real runs of tcptrace, network namespaces)"
[ -x "$TCPTRACE" ] && [ -x "$SCENARIO" ] ||
	fail_early "missing $TCPTRACE or build/tt-scenario: run make first"
command -v chromium >/dev/null || fail_early "chromium is not installed: run tools/install-deps.sh"
[ -r "$CHART_LIB" ] || fail_early "$CHART_LIB is missing (libjs-chart.js): run tools/install-deps.sh"
command -v python3 >/dev/null || fail_early "python3 is not installed: run tools/install-deps.sh"
rm -rf "$OUT" && mkdir -p "$OUT" || fail_early "cannot make $OUT"

run_case "real runs: the client closes first (TIME_WAIT), the client resets (none)" case_real_runs
run_case "real run: a full accept queue drops SYNs, which go again" case_real_queue_run
run_case "real run --by dest: one destination runs out of local ports" case_real_dest_run
run_case "an hour of one-second rows for five processes, made up" case_made_up_hour
run_case "page of two per-process runs, in chromium: lines per process name, as chosen" case_page_per_process
run_case "page of a --by dest run beside a per-process one of an earlier version, in chromium" \
	case_page_per_destination
run_case "page of listen queues and open connections, in chromium: lines per process name" \
	case_page_of_listen_queues
run_case "page of an hour: drawn, lines per process name as chosen, in chromium" case_page_of_an_hour
run_case "page of runs without RSTs: their chart folded into one line; compare's tables, n/a" \
	case_page_without_rsts
run_case "names that look like markup are shown as text" case_hostile_names
run_case "bad input: one line, as compare says it, and no file" case_bad_input
echo "report: $PASSED passed, $FAILED failed (pages and screenshots in $OUT)"
[ "$FAILED" -eq 0 ]
