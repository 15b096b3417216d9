#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# Sockets held at once: in a private network namespace, K servers and K
# clients (tt-scenario, mode hold) hold N loopback connections each, K x N
# connections and twice as many sockets, while one tcptrace follows both
# ends. Its counts while every connection is held, and after all are
# released, must equal ss, nstat and the scenario's own counts exactly.
# It prints each check, tcptrace's map memory, the time taken and
# "N passed, N failed"; it exits 1 on any failure, 2 on bad usage.
#
#   bench/held-at-once.sh [-k PAIRS] [-n CONNECTIONS] [--max-sockets N] [--catch-nested]
#
# Root only, after make. A heavy run (by default 507,000 connections and
# 1,014,000 sockets): see bench/README.md.
set -u
export LC_ALL=C

BENCH=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$BENCH/.." && pwd)
TCPTRACE=${TCPTRACE:-$TOP/tcptrace}
TT_SCENARIO=${TT_SCENARIO:-$TOP/build/tt-scenario}

PAIRS=26
CONNS=19500
MAX_SOCKETS=1100000
CATCH_NESTED=()
BASE_PORT=9000
UP_LIMIT=900  # seconds the clients may take to connect everything
END_LIMIT=120 # seconds the scenario may take to end after the release

WORK=""
NS=""
TRACER_PID=""
SERVERS=()
CLIENTS=()
PASSED=0
FAILED=0

usage() {
	cat >&2 <<EOF
usage: $0 [-k PAIRS] [-n CONNECTIONS] [--max-sockets N] [--catch-nested]
  -k PAIRS         server and client processes, one pair per server port (default $PAIRS)
  -n CONNECTIONS   connections each client opens and holds (default $CONNS)
  --max-sockets N  tcptrace's --max-sockets (default $MAX_SOCKETS)
  --catch-nested   tcptrace's --catch-nested: the release ends every connection at once,
                   where the default loses the events a softirq nests in a program
EOF
	exit 2
}

log() { echo "$*" >&2; }
# A step that cannot go on: one failure more, the tally, exit 1.
die() {
	log "held-at-once: $*"
	echo "$PASSED passed, $((FAILED + 1)) failed"
	exit 1
}

. "$BENCH/netns.sh"

is_count() { [[ $1 =~ ^[1-9][0-9]{0,7}$ ]]; }

parse_args() {
	while [ $# -gt 0 ]; do
		case $1 in
		-k) [ $# -ge 2 ] && is_count "$2" || usage; PAIRS=$2; shift 2 ;;
		-n) [ $# -ge 2 ] && is_count "$2" || usage; CONNS=$2; shift 2 ;;
		--max-sockets) [ $# -ge 2 ] && is_count "$2" || usage; MAX_SOCKETS=$2; shift 2 ;;
		--catch-nested) CATCH_NESTED=(--catch-nested); shift ;;
		-h|--help) usage ;;
		*) log "held-at-once: unknown option $1"; usage ;;
		esac
	done
	[ "$PAIRS" -le 500 ] || { log "held-at-once: -k at most 500 (server ports $BASE_PORT up)"; usage; }
}

cleanup() {
	trap - EXIT INT TERM
	if [ -n "$TRACER_PID" ]; then
		kill -INT "$TRACER_PID" 2>/dev/null
		wait "$TRACER_PID" 2>/dev/null
	fi
	[ -n "$NS" ] && netns_remove "$NS"
	kernel_trace_stop
	[ -n "$WORK" ] && { [ -n "${KEEP:-}" ] && log "kept $WORK" || rm -rf "$WORK"; }
}

# What the machine must allow before anything starts: the scenario's open
# files per process, the system's open files, the root user.
check_machine() {
	local hard need files_max tool
	[ "$(id -u)" -eq 0 ] || die "run as root (network namespaces, BPF)"
	[ -x "$TCPTRACE" ] || die "no $TCPTRACE: run make first"
	[ -x "$TT_SCENARIO" ] || die "no $TT_SCENARIO: run make first"
	for tool in ip ss nstat bpftool jq; do
		command -v "$tool" >/dev/null || die "$tool not found (tools/install-deps.sh installs it)"
	done
	need=$((CONNS + 16))
	hard=$(ulimit -Hn)
	[ "$hard" = unlimited ] || [ "$hard" -ge "$need" ] ||
		die "-n $CONNS needs $need open files per process; this machine allows $hard"
	ulimit -Sn "$hard" || die "cannot raise the open file limit to $hard"
	files_max=$(cat /proc/sys/fs/file-max)
	[ "$files_max" -ge $((2 * PAIRS * CONNS + 10000)) ] ||
		die "$((2 * PAIRS * CONNS)) sockets exceed fs.file-max ($files_max)"
	[ "$CONNS" -le 60000 ] || die "-n at most 60000: one client's connections share a server port"
}

expect_eq() { # what expected actual
	if [ "$2" = "$3" ]; then
		log "    ok   $1 = $3"
		PASSED=$((PASSED + 1))
	else
		log "    FAIL $1: expected $2, got $3"
		FAILED=$((FAILED + 1))
	fi
}

field() { tr ' ' '\n' <"$1" | awk -F= -v k="$2" '$1 == k { print $2 }'; }

nstat_of() { ip netns exec "$NS" nstat -az "$1" | awk -v k="$1" '$1 == k { print $2 }'; }

# Intervals tcptrace has reported: its table prints one header per interval.
intervals() { grep -c '^ *PID COMM' "$WORK/tracer.out"; }

# Returns once tcptrace has written two more intervals than now: the first
# of them then began at or before this call and is complete in the CSV.
next_intervals() {
	local from i
	from=$(intervals)
	for i in $(seq 300); do
		[ "$(intervals)" -ge $((from + 2)) ] && return 0
		kill -0 "$TRACER_PID" 2>/dev/null || break
		sleep 0.1
	done
	die "tcptrace reported no interval in 30 s: $(tail -3 "$WORK/tracer.err")"
}

# Column sums of the CSV per PID: "pid conn_in conn_out ..." lines, COLUMNS in
# the order given, for rows written so far.
csv_sums() { # column...
	awk -F, -v cols="$*" '
		NR == 1 { for (i = 1; i <= NF; i++) at[$i] = i; n = split(cols, want, " "); next }
		{ pids[$3] = 1; for (j = 1; j <= n; j++) s[$3, j] += $(at[want[j]]) }
		END {
			for (p in pids) {
				line = p
				for (j = 1; j <= n; j++) line = line " " s[p, j] + 0
				print line
			}
		}' "$WORK/t.csv"
}

# The sum of one CSV column over every row.
csv_total() { # column
	awk -F, -v col="$1" '
		NR == 1 { for (i = 1; i <= NF; i++) if ($i == col) c = i; next }
		{ s += $c } END { if (!c) { print "no-column-" col; exit } print s + 0 }' "$WORK/t.csv"
}

# How many processes of a role have a CSV sum equal to their expected
# count; "PID expected" lines on stdin, the sums as csv_sums prints them.
matching() { # sums-file column-index
	awk -v sums="$1" -v col="$2" '
		BEGIN { while ((getline line < sums) > 0) { split(line, f, " "); got[f[1]] = f[col] } }
		{ if (($1 in got ? got[$1] : 0) == $2) ok++; else printf "      pid %s: expected %s, got %s\n", $1, $2, ($1 in got ? got[$1] : 0) > "/dev/stderr" }
		END { print ok + 0 }'
}

# RSTs tcptrace put in no process row for the namespace, from its summary
# line "RSTs in no process row, network namespace N: COUNT (...)".
other_rsts() {
	awk -v ns="$NS_INUM" '
		/^RSTs in no process row, network namespace / && $8 == ns ":" { n = $9 }
		END { print n + 0 }' "$WORK/tracer.out"
}

start_servers() {
	local i j ready
	for i in $(seq 0 $((PAIRS - 1))); do
		ready=$WORK/ready$i
		ip netns exec "$NS" "$WORK/$NAME" server --addr 127.0.0.1 --port $((BASE_PORT + i)) \
			--count "$CONNS" --mode hold --ready "$ready" >"$WORK/server$i.out" 2>&1 &
		SERVERS+=($!)
	done
	for i in $(seq 0 $((PAIRS - 1))); do
		for j in $(seq 200); do [ -s "$WORK/ready$i" ] && break; sleep 0.05; done
		[ -s "$WORK/ready$i" ] || die "server $i did not start: $(cat "$WORK/server$i.out")"
	done
}

start_tracer() {
	local i
	"$TCPTRACE" --max-sockets "$MAX_SOCKETS" "${CATCH_NESTED[@]}" -p "$NAME" -i 1 --csv "$WORK/t.csv" \
		>"$WORK/tracer.out" 2>"$WORK/tracer.err" &
	TRACER_PID=$!
	for i in $(seq 1200); do
		grep -q '^tcptrace: tracing' "$WORK/tracer.err" && return 0
		kill -0 "$TRACER_PID" 2>/dev/null || break
		sleep 0.05
	done
	die "tcptrace did not start: $(cat "$WORK/tracer.err")"
}

# Starts every client at once and returns when each holds all its
# connections; a client that gives up ends without its hold file.
hold_everything() {
	local i left deadline=$((SECONDS + UP_LIMIT))
	for i in $(seq 0 $((PAIRS - 1))); do
		ip netns exec "$NS" "$WORK/$NAME" client --addr 127.0.0.1 --port $((BASE_PORT + i)) \
			--count "$CONNS" --mode hold --hold "$WORK/held$i" >"$WORK/client$i.out" 2>&1 &
		CLIENTS+=($!)
	done
	while :; do
		left=0
		for i in $(seq 0 $((PAIRS - 1))); do
			[ -s "$WORK/held$i" ] && continue
			kill -0 "${CLIENTS[$i]}" 2>/dev/null ||
				die "client $i ended before holding everything: $(cat "$WORK/client$i.out")"
			left=$((left + 1))
		done
		if [ "$left" -eq 0 ]; then
			log "    the first client held everything $(hold_spread) s before the last"
			return 0
		fi
		[ "$SECONDS" -lt "$deadline" ] || die "$left clients still connecting after $UP_LIMIT s"
		sleep 0.5
	done
}

# Seconds between the first and the last hold file: a client waits at
# most tt-scenario's hold limit for its release.
hold_spread() {
	stat -c %Y "$WORK"/held[0-9]* | sort -n | awk 'NR == 1 { a = $1 } { b = $1 } END { print b - a }'
}

# Established connections by server port, both ends: "port server-side
# client-side" lines.
held_by_port() {
	ip netns exec "$NS" ss -tanH state established |
		awk -v lo="$BASE_PORT" -v hi=$((BASE_PORT + PAIRS - 1)) '
			function port(a) { sub(/.*:/, "", a); return a + 0 }
			{ l = port($3); r = port($4)
			  if (l >= lo && l <= hi) srv[l]++
			  if (r >= lo && r <= hi) cli[r]++ }
			END { for (p = lo; p <= hi; p++) print p, srv[p] + 0, cli[p] + 0 }'
}

# tcptrace's sockets_spilled (its .bss): the sockets held outside their
# home bucket, which was full.
spilled() {
	local id
	for id in $(grep -h '^map_id:' /proc/"$TRACER_PID"/fdinfo/* 2>/dev/null | awk '{ print $2 }' | sort -un); do
		if bpftool -j map show id "$id" | jq -e '.name == "tcptrace.bss"' >/dev/null; then
			bpftool -j map dump id "$id" |
				jq '.[0].formatted.value[".bss"][] | select(.sockets_spilled != null) | .sockets_spilled'
			return
		fi
	done
	echo "?"
}

check_while_held() {
	local i held_srv held_cli expected
	held_by_port >"$WORK/held-by-port"
	held_srv=$(awk '{ s += $2 } END { print s + 0 }' "$WORK/held-by-port")
	held_cli=$(awk '{ s += $3 } END { print s + 0 }' "$WORK/held-by-port")
	next_intervals
	log "== while held ($(date -u +%T), $((SECONDS - START)) s after the start)"
	expect_eq "connections held at once, server side (ss)" $((PAIRS * CONNS)) "$held_srv"
	expect_eq "connections held at once, client side (ss)" $((PAIRS * CONNS)) "$held_cli"
	expect_eq "conn_in summed = connections held (ss)" "$held_srv" "$(csv_total conn_in)"
	expect_eq "conn_out summed = connections held (ss)" "$held_cli" "$(csv_total conn_out)"
	csv_sums conn_in conn_out >"$WORK/held-sums"
	expected=$(for i in $(seq 0 $((PAIRS - 1))); do
		echo "${SERVERS[$i]} $(awk -v p=$((BASE_PORT + i)) '$1 == p { print $2 }' "$WORK/held-by-port")"
	done | matching "$WORK/held-sums" 2)
	expect_eq "servers whose conn_in = their connections held (ss, by port)" "$PAIRS" "$expected"
	expected=$(for i in $(seq 0 $((PAIRS - 1))); do
		echo "${CLIENTS[$i]} $(awk -v p=$((BASE_PORT + i)) '$1 == p { print $3 }' "$WORK/held-by-port")"
	done | matching "$WORK/held-sums" 3)
	expect_eq "clients whose conn_out = their connections held (ss, by port)" "$PAIRS" "$expected"
	expect_eq "untracked while held" 0 "$(csv_total untracked)"
	log "    (sockets held outside their home bucket: $(spilled))"
}

# Connections in the namespace still closing (a FIN lost on the way is
# sent again after a timeout): tcptrace counts a connection's end when its
# socket is destroyed, so the totals are final only when this is 0.
closing() {
	ip netns exec "$NS" ss -tanH state syn-sent state syn-recv state fin-wait-1 \
		state fin-wait-2 state closing state last-ack state close-wait | wc -l
}

settle() {
	local from=$SECONDS left
	while :; do
		left=$(closing)
		[ "$left" -eq 0 ] && break
		[ $((SECONDS - from)) -lt "$END_LIMIT" ] || break
		sleep 0.2
	done
	expect_eq "connections still closing $((SECONDS - from)) s after the scenario ended" 0 "$left"
}

# Packets the machine's CPUs dropped from their input queues
# (netdev_max_backlog, not a namespace setting): a dropped FIN or ACK is
# sent again after a retransmission timeout.
backlog_drops() {
	local total=0 a b rest
	while read -r a b rest; do total=$((total + 16#$b)); done </proc/net/softnet_stat
	echo "$total"
}

# The kernel's own trace event tcp_destroy_sock, recorded for the
# clients' sockets (those whose remote port is a server port) in a tracefs
# instance of this run: how many connection ends there were for tcptrace
# to see. A figure, not a check; "unknown" where tracefs is not at hand.
TRACEFS=/sys/kernel/tracing
KTRACE=""
MOUNTED_TRACEFS=0

kernel_trace_start() {
	local per_cpu_kb=$((PAIRS * CONNS * 128 / 1024 + 1024))
	if ! mountpoint -q "$TRACEFS"; then
		mount -t tracefs nodev "$TRACEFS" 2>/dev/null || return 0
		MOUNTED_TRACEFS=1
	fi
	KTRACE=$TRACEFS/instances/tt-held-$$
	mkdir "$KTRACE" 2>/dev/null || { KTRACE=""; return 0; }
	echo "$per_cpu_kb" >"$KTRACE/buffer_size_kb" &&
		echo "dport >= $BASE_PORT && dport < $((BASE_PORT + PAIRS))" \
			>"$KTRACE/events/tcp/tcp_destroy_sock/filter" &&
		echo 1 >"$KTRACE/events/tcp/tcp_destroy_sock/enable" || kernel_trace_stop
}

kernel_trace_count() {
	local overrun
	[ -n "$KTRACE" ] || { echo unknown; return; }
	echo 0 >"$KTRACE/tracing_on"
	overrun=$(awk '/^overrun:/ { s += $2 } END { print s + 0 }' "$KTRACE"/per_cpu/cpu*/stats)
	[ "$overrun" -eq 0 ] || { echo "unknown ($overrun events overwritten)"; return; }
	grep -c 'tcp_destroy_sock:' "$KTRACE/trace"
}

kernel_trace_stop() {
	if [ -n "$KTRACE" ]; then
		echo 0 >"$KTRACE/events/tcp/tcp_destroy_sock/enable" 2>/dev/null
		rmdir "$KTRACE" 2>/dev/null
		KTRACE=""
	fi
	[ "$MOUNTED_TRACEFS" -eq 1 ] && umount "$TRACEFS" 2>/dev/null
	MOUNTED_TRACEFS=0
}

# Every scenario process must end as its mode expects: tt-scenario
# exits 1 otherwise, with the reason in its output.
release_everything() {
	local pid i rc deadline=$((SECONDS + END_LIMIT))
	kill -USR1 "${CLIENTS[@]}"
	for pid in "${CLIENTS[@]}" "${SERVERS[@]}"; do
		while kill -0 "$pid" 2>/dev/null; do
			[ "$SECONDS" -lt "$deadline" ] || die "scenario process $pid still running $END_LIMIT s after the release"
			sleep 0.2
		done
	done
	rc=0
	for i in $(seq 0 $((PAIRS - 1))); do
		wait "${CLIENTS[$i]}" || { log "    client $i: $(cat "$WORK/client$i.out")"; rc=1; }
		wait "${SERVERS[$i]}" || { log "    server $i: $(cat "$WORK/server$i.out")"; rc=1; }
	done
	expect_eq "every scenario process ended as its mode expects" 0 "$rc"
	# tt-scenario's client lets go by itself when no SIGUSR1 comes in time.
	expect_eq "clients that let go before the release" 0 \
		"$(grep -l 'no SIGUSR1 within' "$WORK"/client*.out | wc -l)"
	settle
	next_intervals
	kill -INT "$TRACER_PID"
	wait "$TRACER_PID"
	rc=$?
	TRACER_PID=""
	expect_eq "tcptrace exit status" 0 "$rc"
}

own_counts() { # role-prefix key pids...
	local prefix=$1 key=$2 i=0 pid
	shift 2
	for pid in "$@"; do
		echo "$pid $(field "$WORK/$prefix$i.out" "$key")"
		i=$((i + 1))
	done
}

check_after_release() {
	local accepted connected eofs i
	log "== after the release ($((SECONDS - START)) s after the start)"
	csv_sums conn_in conn_out >"$WORK/end-sums"
	own_counts server accepted "${SERVERS[@]}" >"$WORK/accepted"
	own_counts client connected "${CLIENTS[@]}" >"$WORK/connected"
	accepted=$(awk '{ s += $2 } END { print s + 0 }' "$WORK/accepted")
	connected=$(awk '{ s += $2 } END { print s + 0 }' "$WORK/connected")
	eofs=$(for i in $(seq 0 $((PAIRS - 1))); do field "$WORK/server$i.out" eof; done |
		awk '{ s += $1 } END { print s + 0 }')
	expect_eq "servers whose conn_in = their own accepted count" "$PAIRS" \
		"$(matching "$WORK/end-sums" 2 <"$WORK/accepted")"
	expect_eq "clients whose conn_out = their own connected count" "$PAIRS" \
		"$(matching "$WORK/end-sums" 3 <"$WORK/connected")"
	expect_eq "conn_in = the servers' accepted = TcpPassiveOpens" "$accepted/$accepted" \
		"$(csv_total conn_in)/$(nstat_of TcpPassiveOpens)"
	expect_eq "conn_out = the clients' connected = TcpActiveOpens" "$connected/$connected" \
		"$(csv_total conn_out)/$(nstat_of TcpActiveOpens)"
	expect_eq "fin_passive_in = the servers' EOFs" "$eofs" "$(csv_total fin_passive_in)"
	expect_eq "fin_active_out = the clients' connections, each closed first by the client" \
		"$connected" "$(csv_total fin_active_out)"
	expect_eq "tw_out = TcpExtTW + TcpExtTWKilled = the clients' connections" "$connected/$connected" \
		"$(csv_total tw_out)/$(($(nstat_of TcpExtTW) + $(nstat_of TcpExtTWKilled)))"
	expect_eq "RSTs sent, tw_rst and RSTs in no process row = TcpOutRsts" "$(nstat_of TcpOutRsts)" \
		"$(($(csv_total rst_sent_in) + $(csv_total rst_sent_out) + $(csv_total tw_rst) + $(other_rsts)))"
	expect_eq "RSTs received, timeouts" 0/0 "$(($(csv_total rst_recv_in) + $(csv_total rst_recv_out)))/$((
		$(csv_total timeout_in) + $(csv_total timeout_out)))"
	expect_eq "untracked over the run" 0 "$(csv_total untracked)"
	# Every summary line that counts something, but the twins' own (events
	# caught and counted, under --catch-nested).
	expect_eq "sockets not followed, events lost, ends not counted (tcptrace's summary)" 0 \
		"$(grep -E '^tcptrace: [0-9]+ ' "$WORK/tracer.err" | grep -cvE '^tcptrace: [0-9]+ events nested in a running program, counted by its twin')"
	grep -E '^tcptrace: [0-9]+ ' "$WORK/tracer.err" >&2
	log "    CSV totals: $(awk -F, 'NR == 1 { for (i = 5; i <= 23; i++) h[i] = $i; next }
		{ for (i = 5; i <= 23; i++) s[i] += $i }
		END { for (i = 5; i <= 23; i++) if (s[i]) printf "%s %d, ", h[i], s[i] }' "$WORK/t.csv")"
}

main() {
	parse_args "$@"
	check_machine
	trap cleanup EXIT
	trap 'die interrupted' INT TERM
	WORK=$(mktemp -d /tmp/tcptrace-held.XXXXXX)
	export NSTAT_HISTORY=$WORK/nstat.history
	# A copy named for this run: -p names it, so that both ends are traced
	# (every name of -p must match a process at start, and only the servers
	# run then), and no other tt-scenario on the machine is counted.
	NAME=tth$$
	cp "$TT_SCENARIO" "$WORK/$NAME"
	START=$SECONDS
	log "held-at-once: $PAIRS servers and $PAIRS clients, $CONNS connections each:" \
		"$((PAIRS * CONNS)) connections, $((2 * PAIRS * CONNS)) sockets, --max-sockets $MAX_SOCKETS"

	NS=tt-held-$$
	ip netns add "$NS" || die "cannot create network namespace $NS"
	ip -n "$NS" link set lo up
	NS_INUM=$(stat -L -c %i "/run/netns/$NS")
	# Every TIME_WAIT the clients leave must exist: none skipped at tcp_max_tw_buckets.
	ip netns exec "$NS" sysctl -qw net.ipv4.ip_local_port_range="1024 65535" \
		net.ipv4.tcp_max_tw_buckets=$((2 * PAIRS * CONNS)) || die "cannot set the namespace's sysctls"

	DROPS_BEFORE=$(backlog_drops)
	kernel_trace_start
	start_servers
	start_tracer
	log "    tcptrace started after $((SECONDS - START)) s"
	local up=$SECONDS
	hold_everything
	log "    every connection up after $((SECONDS - up)) s"
	check_while_held
	local released=$SECONDS
	release_everything
	log "    released and ended in $((SECONDS - released)) s"
	check_after_release
	log "    clients' sockets destroyed, by the kernel's trace event: $(kernel_trace_count);" \
		"their ends counted by tcptrace: $(($(csv_total fin_active_out) + $(csv_total fin_passive_out) + \
		$(csv_total rst_sent_out) + $(csv_total rst_recv_out) + $(csv_total timeout_out)))"
	kernel_trace_stop
	log "    $(grep '^tcptrace: BPF maps' "$WORK/tracer.err")"
	log "    retransmitted segments in the namespace: $(nstat_of TcpRetransSegs);" \
		"packets dropped from the CPUs' input queues, machine-wide: $(($(backlog_drops) - DROPS_BEFORE))"
	log "    $((SECONDS - START)) s in all"
	echo "$PASSED passed, $FAILED failed"
	[ "$FAILED" -eq 0 ]
}

main "$@"
