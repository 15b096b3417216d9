# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# The integration cases' own helpers, those of more than one file of
# cases/: the scenario's pair of processes, its summary line, nginx, and
# haproxy -> nginx under ab with its totals checked against nstat and ss.
# tests/lib/ has what other suites use too.

N=20
PORT=8080
STALL=${TT_STALL:-$TOP/build/tt-stall}

# Field of the scenario's own summary line (key=value pairs).
field() { tr ' ' '\n' <"$1" | awk -F= -v k="$2" '$1 == k { print $2 }'; }

# Server and client of one mode, both traced by name; sets SRV and CLI.
# Scenario options after the count go to both.
run_pair() { # addr mode [count [scenario options...]]
	local count=${3:-$N}
	server_start "$1" "$PORT" "$count" "$2" "${@:4}" || return 1
	tracer_start "$WORK/t.csv" -p "$SCENARIO_NAME" || return 1
	ip netns exec "$NS" "$SCENARIO" client --addr "$1" --port "$PORT" --count "$count" --mode "$2" \
		"${@:4}" >"$WORK/client.out" 2>&1 &
	CLI=$!
	wait "$CLI" || { log "client failed: $(cat "$WORK/client.out")"; return 1; }
	wait "$SRV" || { log "server failed: $(cat "$WORK/server.out")"; return 1; }
	tracer_stop
}

# nginx in the namespace with a config and a prefix of its own, in the
# foreground (daemon off); SRV is its master once its 2 workers are up.
nginx_start() { # prefix conf [nginx options...]
	local prefix=$1 conf=$2 i
	shift 2
	mkdir -p "$prefix/tmp"
	ip netns exec "$NS" nginx -p "$prefix/" -c "$conf" "$@" -g 'daemon off;' >"$WORK/nginx.out" 2>&1 &
	SRV=$!
	for i in $(seq 100); do [ -s "$prefix/nginx.pid" ] && [ "$(pgrep -c -P "$SRV")" -ge 2 ] && break; sleep 0.05; done
}

# Sum of a column over every row of a command name.
comm_sum() { # csv comm column
	awk -F, -v comm="$2" -v col="$3" '
		NR == 1 { for (i = 1; i <= NF; i++) if ($i == col) c = i; next }
		$4 == comm { s += $c }
		END { print s + 0 }' "$1"
}

# Sum of a column of a --by dest CSV over one destination's rows.
dest_sum() { # csv dest column
	awk -F, -v dest="$2" -v col="$3" '
		NR == 1 { for (i = 1; i <= NF; i++) if ($i == col) c = i; next }
		$5 == dest { s += $c }
		END { if (!c) { print "no-column-" col; exit } print s + 0 }' "$1"
}

# Sum over every process of the last value of a gauge column.
gauge_total() { # csv column
	awk -F, -v col="$2" '
		NR == 1 { for (i = 1; i <= NF; i++) if ($i == col) c = i; next }
		{ last[$3] = $c }
		END { for (p in last) s += last[p]; print s + 0 }' "$1"
}

# A kernel counter read just before tcptrace stopped and just after: what
# tcptrace counted lies between, the one number when nothing ended while
# it stopped (the usual case).
expect_between() { # what before after got
	if [ "$2" -eq "$3" ]; then
		expect_eq "$1" "$2" "$4"
	else
		expect_eq "$1, within $2..$3 (it moved while tcptrace stopped)" 1 "$(($4 >= $2 && $4 <= $3))"
	fi
}

# The entries tcptrace's socket table still held at its end
# (TCPTRACE_TEST_SOCKETS_LEFT), counted by process, side and flags
# (TT_SK_* in include/tcptrace.h): a process that has exited holds none
# unless a socket's end went unseen.
sockets_left() { # pids
	awk -v pids="$1" '
		BEGIN { n = split(pids, p, ","); for (i = 1; i <= n; i++) keep[p[i]] = 1 }
		/^tcptrace: socket left:/ && ($5 in keep) { left[$5 " side " $7 " flags " $9]++ }
		END { printf "socket table entries left:"; for (k in left) printf " tgid %s: %d;", k, left[k] }' \
		"$WORK/tracer.err"
}

# What tcptrace said it lost or could not count, and where its sockets
# stood when it stopped: logged when a figure of proxy_under_ab differs.
ends_unaccounted() { # pids
	echo "$(grep -i 'lost\|dropped\|not counted' "$WORK/tracer.err" | paste -sd';')" \
		"sockets closing when tcptrace stopped: $closing_left; $(sockets_left "$1")"
}

# haproxy in front of nginx (two workers) under ab, every process traced:
# tcptrace's totals must equal the namespace's own kernel counters.
proxy_under_ab() { # requests concurrency time-limit
	local csv=$WORK/proxy.csv truth=$WORK/truth requests=$1
	TCPTRACE_TEST_SOCKETS_LEFT=1 "$TOP/tools/haproxy-demo.sh" --all -n "$requests" -c "$2" -t "$3" \
		--csv "$csv" --truth "$truth" >"$WORK/tracer.out" 2>"$WORK/tracer.err" || return 1
	. "$truth"
	# The namespace holds haproxy, nginx and ab only; other rows are the host's.
	awk -F, -v pids="$haproxy_pids,$nginx_pids,$ab_pid" '
		BEGIN { n = split(pids, p, ","); for (i = 1; i <= n; i++) keep[p[i]] = 1 }
		NR == 1 || ($3 in keep)' "$csv" >"$WORK/scenario.csv"
	csv=$WORK/scenario.csv
	local all_in all_out all_rst all_tw
	all_in=$(awk -F, 'NR > 1 { s += $5 } END { print s + 0 }' "$csv")
	all_out=$(awk -F, 'NR > 1 { s += $6 } END { print s + 0 }' "$csv")
	all_rst=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		{ s += $c["rst_sent_in"] + $c["rst_sent_out"] + $c["tw_rst"] } END { print s + 0 }' "$csv")
	local other_rst
	other_rst=$(other_rsts "$WORK/tracer.out" "$netns_inum")
	all_rst=$((all_rst + other_rst))
	all_tw=$(awk -F, 'NR > 1 { s += $15 + $16 } END { print s + 0 }' "$csv")
	expect_eq "ab completed its requests" "$requests 0" "$ab_complete $ab_failed"
	expect_between "conn_in, haproxy+nginx+ab = TcpPassiveOpens" "$TcpPassiveOpens_before" "$TcpPassiveOpens" "$all_in"
	expect_between "conn_out, haproxy+nginx+ab = TcpActiveOpens" "$TcpActiveOpens_before" "$TcpActiveOpens" "$all_out"
	# Exact. Every RST the kernel counts in TcpOutRsts fires tcp_send_reset,
	# except one that tcp_send_active_reset cannot allocate: that one also
	# counts TcpExtTCPAbortFailed, which besides counts a traced RST that
	# failed to transmit (not seen on loopback). With no failure, the usual
	# case, the range is the one number TcpOutRsts (see docs/reliability.md).
	log "    RSTs: TcpOutRsts $TcpOutRsts, TcpExtTCPAbortFailed $TcpExtTCPAbortFailed; tcptrace $all_rst, of which $other_rst in no process row ($(other_rst_reasons "$WORK/tracer.out" "$netns_inum"))"
	local what="rst_sent + tw_rst of haproxy+nginx+ab, + RSTs in no process row of the namespace"
	if [ "$TcpExtTCPAbortFailed" -eq 0 ]; then
		expect_between "$what = TcpOutRsts" "$TcpOutRsts_before" "$TcpOutRsts" "$all_rst"
		# Once seen one short under the other suites' load: where every RST went.
		[ "$all_rst" -ge "$TcpOutRsts_before" ] && [ "$all_rst" -le "$TcpOutRsts" ] || log "    RSTs by process (every row): $(awk -F, '
			NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
			{ r[$3 " " $4] += $c["rst_sent_in"] + $c["rst_sent_out"] + $c["tw_rst"] }
			END { for (k in r) if (r[k]) printf "%s %d; ", k, r[k] }' "$WORK/proxy.csv")" \
			"RSTs in no process row: $(grep '^RSTs in no process row' "$WORK/tracer.out" | paste -sd';')" \
			"$(ends_unaccounted "$haproxy_pids,$nginx_pids,$ab_pid")"
	else
		expect_eq "$what within TcpOutRsts - TcpExtTCPAbortFailed .. TcpOutRsts" 1 \
			"$((all_rst <= TcpOutRsts && all_rst >= TcpOutRsts_before - TcpExtTCPAbortFailed))"
	fi
	local tw_before=$((TcpExtTW_before + TcpExtTWKilled_before)) tw_after=$((TcpExtTW + TcpExtTWKilled))
	# A timewait socket is counted at its full socket's destruction. The
	# kernel gives BPF programs not quite every event on this machine
	# (docs/reliability.md): perf, which counts the destructions without
	# BPF, is the witness of those withheld, if any, and each may take one
	# timewait socket from the count.
	local withheld=$((destroys_counted_by_perf - destroys_run_by_tcptrace))
	[ "$withheld" -gt 0 ] || withheld=0
	log "    socket destructions over the load: the kernel's (perf) $destroys_counted_by_perf, tcptrace's program ran for $destroys_run_by_tcptrace"
	local tw_what="tw, haproxy+nginx+ab = TcpExtTW + TcpExtTWKilled"
	[ "$withheld" -eq 0 ] || tw_what="$tw_what, less at most the $withheld destructions withheld from BPF"
	expect_between "$tw_what" "$((tw_before - withheld))" "$tw_after" "$all_tw"
	# Once seen one short under the other suites' load: how every end was
	# counted, and what the kernel says of its timewait sockets and aborts.
	[ "$all_tw" -ge "$((tw_before - withheld))" ] && [ "$all_tw" -le "$tw_after" ] || log "    ends by process (every row): $(awk -F, \
		-v cols=conn_in,conn_out,fin_active_in,fin_active_out,fin_passive_in,fin_passive_out,tw_in,tw_out,rst_sent_in,rst_sent_out,rst_recv_in,rst_recv_out,timeout_in,timeout_out '
		BEGIN { n = split(cols, col, ",") }
		NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		{ k = $3 " " $4; keys[k] = 1; for (j = 1; j <= n; j++) v[k, j] += $c[col[j]] }
		END { for (k in keys) { printf "%s:", k; for (j = 1; j <= n; j++) if (v[k, j]) printf " %s %d", col[j], v[k, j]; printf "; " } }' \
		"$WORK/proxy.csv")" \
		"kernel: $(awk '$1 ~ /TW|Abort|Reset|TimeWait|Recycle/ && $2 != 0 { printf "%s %s ", $1, $2 }' "$truth.nstat")" \
		"$(ends_unaccounted "$haproxy_pids,$nginx_pids,$ab_pid")"
	local tw_now
	tw_now=$(gauge_total "$csv" tw_now)
	expect_eq "tw_now, haproxy+nginx+ab, within ss timewait before and after ($ss_timewait_before..$ss_timewait)" 1 \
		"$((tw_now <= ss_timewait_before && tw_now >= ss_timewait))"
	expect_eq "haproxy conn_in = ab's connections" "$(comm_sum "$csv" ab conn_out)" "$(comm_sum "$csv" haproxy conn_in)"
	expect_eq "haproxy conn_out = nginx conn_in" "$(comm_sum "$csv" haproxy conn_out)" "$(comm_sum "$csv" nginx conn_in)"
	expect_eq "nginx master accepted nothing (its workers did)" 0 "$(csv_sum "$csv" "$nginx_master" conn_in)"
	# Left behind vs still there: a new SYN from ab can take over a
	# timewait socket, so tw_in may exceed what ss shows at the end.
	local haproxy_tw_now
	haproxy_tw_now=$(csv_last "$csv" "$haproxy_pids" tw_now)
	expect_eq "haproxy tw_now within ss timewait on :8080 before and after ($ss_timewait_from_8080_before..$ss_timewait_from_8080)" 1 \
		"$((haproxy_tw_now <= ss_timewait_from_8080_before && haproxy_tw_now >= ss_timewait_from_8080))"
	expect_eq "haproxy tw_out" 0 "$(comm_sum "$csv" haproxy tw_out)"
	expect_eq "haproxy RSTs upstream = RSTs nginx received" "$(comm_sum "$csv" haproxy rst_sent_out)" "$(comm_sum "$csv" nginx rst_recv_in)"
	expect_eq "haproxy's RST reasons" "TCP_STATE=$(comm_sum "$csv" haproxy rst_sent_out)" "$(csv_reasons "$csv" "$haproxy_pids")"
	log "    kernel: TcpPassiveOpens $TcpPassiveOpens, TcpActiveOpens $TcpActiveOpens, TcpOutRsts $TcpOutRsts, TcpExtTW $TcpExtTW, TcpExtTWKilled $TcpExtTWKilled, TcpExtTCPTimeWaitOverflow $TcpExtTCPTimeWaitOverflow, timewait held at the end $ss_timewait"
}
