#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# Checks tt-scenario against the kernel: each mode runs in a private network
# namespace, and the scenario's own counts are compared with what the kernel
# itself reports there (ss TIME_WAIT sockets, nstat counter deltas).
# Needs root (ip netns). Prints one line per case and "N passed, N failed";
# exits 1 if any case failed.
#
# TT_SCENARIO: the binary (default build/tt-scenario, else
# tests/integration/tt-scenario, both relative to the repository root).

set -u

root=$(cd "$(dirname "$0")/../.." && pwd)
if [[ -n ${TT_SCENARIO:-} ]]; then
	bin=$TT_SCENARIO
elif [[ -x $root/build/tt-scenario ]]; then
	bin=$root/build/tt-scenario
else
	bin=$root/tests/integration/tt-scenario
fi
if [[ ! -x $bin ]]; then
	echo "check-scenario: no tt-scenario binary at $bin (set TT_SCENARIO)" >&2
	exit 1
fi

ns=tt-scn-$$
port=5000
closed_port=5001
tmp=$(mktemp -d /tmp/tt-scn.XXXXXX)
export NSTAT_HISTORY=$tmp/nstat.history
passed=0
failed=0

ns_down() {
	local pid

	if ip netns list | grep -qw "^$ns"; then
		# Whatever still runs in the namespace was started by this script.
		for pid in $(ip netns pids "$ns"); do
			kill -KILL "$pid" 2>/dev/null
		done
		ip netns del "$ns"
	fi
}

cleanup() {
	ns_down
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

ns_up() {
	ns_down
	ip netns add "$ns" && ip -n "$ns" link set lo up
}

in_ns() {
	ip netns exec "$ns" "$@"
}

# Absolute counters of the namespace into the associative array named $1.
nstat_read() {
	local -n out=$1
	local name value rest

	out=()
	while read -r name value rest; do
		[[ $name == \#* ]] && continue
		out[$name]=$value
	done < <(in_ns nstat -asz)
}

# Waits up to $2 seconds for pid $1 to end; its exit status, 124 if it had
# to be killed.
wait_bounded() {
	local pid=$1 i

	for ((i = 0; i < $2 * 20; i++)); do
		if ! kill -0 "$pid" 2>/dev/null; then
			wait "$pid"
			return
		fi
		sleep 0.05
	done
	kill -KILL "$pid" 2>/dev/null
	wait "$pid"
	return 124
}

wait_file() {
	local i

	for ((i = 0; i < 200; i++)); do
		[[ -s $1 ]] && return 0
		sleep 0.05
	done
	return 1
}

# Value of key $2 in the key=value summary line of file $1.
field() {
	sed -n "s/.*\\b$2=\\([^ ]*\\).*/\\1/p" "$1" | head -n1
}

# TIME_WAIT sockets in the namespace: tw_srv with the server port as local
# port, tw_other the rest.
count_tw() {
	local line

	tw_srv=0
	tw_other=0
	while read -r line; do
		[[ -z $line ]] && continue
		set -- $line
		if [[ ${3##*:} == "$port" ]]; then
			tw_srv=$((tw_srv + 1))
		else
			tw_other=$((tw_other + 1))
		fi
	done < <(in_ns ss -tanH state time-wait)
}

# Reads the final counters and sockets. A segment still queued on the
# loopback can change them while they are read, so read until two counter
# snapshots around the socket count agree.
settle() {
	local i
	declare -A again

	for ((i = 0; i < 20; i++)); do
		nstat_read after
		count_tw
		nstat_read again
		[[ ${after[TcpOutRsts]:-0} == "${again[TcpOutRsts]:-0}" &&
			${after[TcpExtTW]:-0} == "${again[TcpExtTW]:-0}" &&
			${after[TcpInSegs]:-0} == "${again[TcpInSegs]:-0}" ]] && return
		sleep 0.1
	done
	problems+=("counters never settled")
}

# State of one case, filled by run_case, read by the expect_* helpers.
declare -A before after
problems=()
notes=()
srv_out= cli_out= srv_rc= cli_rc=

delta() {
	echo $((${after[$1]:-0} - ${before[$1]:-0}))
}

expect_eq() { # what actual expected
	[[ $2 == "$3" ]] || problems+=("$1=$2 (expected $3)")
}

expect_ge() { # what actual minimum
	[[ -n $2 ]] && (($2 >= $3)) || problems+=("$1=$2 (expected >= $3)")
}

expect_counter() { # counter op value
	local d

	d=$(delta "$1")
	if [[ $2 == "=" ]]; then
		expect_eq "$1" "$d" "$3"
	else
		expect_ge "$1" "$d" "$3"
	fi
}

expect_field() { # out-file role key value
	expect_eq "$2.$3" "$(field "$1" "$3")" "$4"
}

# run_case NAME ADDR MODE SERVER_MODE SERVER_COUNT CLIENT_COUNT [SYSCTL]
# SERVER_MODE "-" runs no server. Leaves outputs and nstat snapshots behind.
run_case() {
	local name=$1 addr=$2 mode=$3 smode=$4 scount=$5 ccount=$6 sysctl=${7:-}
	local srv_pid=

	problems=()
	notes=()
	srv_out=$tmp/$name.server cli_out=$tmp/$name.client
	srv_rc=0 cli_rc=0
	: >"$srv_out"
	if ! ns_up; then
		problems+=("cannot create network namespace $ns")
		return 1
	fi
	if [[ -n $sysctl ]] && ! in_ns sysctl -qw "$sysctl"; then
		problems+=("cannot set $sysctl")
		return 1
	fi
	nstat_read before

	if [[ $smode != - ]]; then
		rm -f "$tmp/ready"
		# Not through in_ns: $! must be tt-scenario itself, not a subshell.
		ip netns exec "$ns" "$bin" server --addr "$addr" --port "$port" --count "$scount" \
			--mode "$smode" --ready "$tmp/ready" >"$srv_out" 2>&1 &
		srv_pid=$!
		if ! wait_file "$tmp/ready"; then
			problems+=("server never became ready")
			wait_bounded "$srv_pid" 1
			return 1
		fi
	fi

	if [[ $mode == hold ]]; then
		run_hold_client "$addr" "$ccount"
	else
		in_ns "$bin" client --addr "$addr" \
			--port "$([[ $mode == refused ]] && echo $closed_port || echo $port)" \
			--count "$ccount" --mode "$mode" >"$cli_out" 2>&1
		cli_rc=$?
	fi

	if [[ -n $srv_pid ]]; then
		wait_bounded "$srv_pid" 90
		srv_rc=$?
	fi
	settle
	expect_eq client.exit "$cli_rc" 0
	[[ -n $srv_pid ]] && expect_eq server.exit "$srv_rc" 0
	return 0
}

# hold: the connections must all be ESTABLISHED while the client holds them,
# and close only after SIGUSR1.
run_hold_client() {
	local addr=$1 count=$2 cli_pid estab

	rm -f "$tmp/hold"
	ip netns exec "$ns" "$bin" client --addr "$addr" --port "$port" --count "$count" \
		--mode hold --hold "$tmp/hold" >"$cli_out" 2>&1 &
	cli_pid=$!
	if ! wait_file "$tmp/hold"; then
		problems+=("hold client never wrote its hold file")
	fi
	sleep 0.5
	estab=$(in_ns ss -tanH state established | wc -l)
	expect_eq established_while_held "$estab" $((2 * count))
	expect_eq hold_client_comm "$(cat /proc/"$cli_pid"/comm 2>/dev/null)" tt-scenario
	kill -USR1 "$cli_pid"
	wait_bounded "$cli_pid" 30
	cli_rc=$?
}

report() { # name summary
	local name=$1 summary=$2

	if ((${#notes[@]} > 0)); then
		summary+=" (note: ${notes[*]})"
	fi
	if ((${#problems[@]} == 0)); then
		passed=$((passed + 1))
		echo "PASS $name: $summary"
	else
		failed=$((failed + 1))
		echo "FAIL $name: $summary"
		local p
		for p in "${problems[@]}"; do
			echo "     $p"
		done
		[[ -s $cli_out ]] && sed 's/^/     client> /' "$cli_out"
		[[ -s $srv_out ]] && sed 's/^/     server> /' "$srv_out"
		# What is left in the namespace, timewait sockets by substate.
		echo "     sockets left: $(in_ns ss -tanH | awk '{ print $1 }' | sort | uniq -c |
			awk '{ printf "%s=%s ", $2, $1 }')"
	fi
}

kernel_summary() {
	echo "tw_server_port=$tw_srv tw_other=$tw_other" \
		"ActiveOpens=$(delta TcpActiveOpens) PassiveOpens=$(delta TcpPassiveOpens)" \
		"OutRsts=$(delta TcpOutRsts) EstabResets=$(delta TcpEstabResets)" \
		"AttemptFails=$(delta TcpAttemptFails) ExtTW=$(delta TcpExtTW)"
}

scenario_summary() {
	local s=

	[[ -s $cli_out ]] && s+="client[$(grep -o 'connected=.*' "$cli_out" | head -n1)] "
	[[ -s $srv_out ]] && s+="server[$(grep -o 'accepted=.*' "$srv_out" | head -n1)] "
	echo "$s"
}

# TIME_WAIT accounting for a case where one side closes first on every
# connection: TcpExtTW counts timewait sockets as the kernel creates them
# (__inet_twsk_schedule), exactly one per connection, all on the closing
# side. ss shows those still alive. They can be fewer: under load, loopback
# can deliver the passive closer's delayed ACK (sent from one CPU's backlog)
# after its FIN (sent from the other's); the timewait socket answers that
# stale ACK with an ACK, the peer port has no socket any more and answers
# with an RST, and with net.ipv4.tcp_rfc1337=0 that RST kills the timewait
# socket (RFC 1337 "TIME-WAIT assassination"). Such an RST is the only RST
# in these cases, so each missing TIME_WAIT must be matched by exactly one.
expect_tw() { # closing-side count, other side count, created
	local killed

	killed=$(delta TcpOutRsts)
	expect_counter TcpExtTW = "$3"
	expect_eq "TIME_WAIT left + killed by RST" $(($1 + killed)) "$3"
	expect_eq "TIME_WAIT on the side that did not close first" "$2" 0
	((killed > 0)) && notes+=("$killed TIME_WAIT killed by RST after loopback reordering")
}

# Every connection opens once on each side; TcpExtTW counts timewait sockets
# as the kernel creates them (__inet_twsk_schedule), not when they expire.
expect_opens() { # client-side server-side
	expect_counter TcpActiveOpens = "$1"
	expect_counter TcpPassiveOpens = "$2"
}

check_fin_server() { # name addr
	local n=20

	run_case "$1" "$2" fin-server fin-server $n $n
	expect_field "$cli_out" client connected $n
	expect_field "$cli_out" client rst_seen 0
	expect_field "$srv_out" server accepted $n
	expect_opens $n $n
	expect_tw "$tw_srv" "$tw_other" $n
	expect_counter TcpEstabResets = 0
	report "$1" "$(scenario_summary)$(kernel_summary)"
}

check_fin_client() { # name addr
	local n=20

	run_case "$1" "$2" fin-client fin-client $n $n
	expect_field "$cli_out" client connected $n
	expect_field "$srv_out" server eof $n
	expect_opens $n $n
	expect_tw "$tw_other" "$tw_srv" $n
	expect_counter TcpEstabResets = 0
	report "$1" "$(scenario_summary)$(kernel_summary)"
}

# The aborting side sends one RST per connection and both sides go straight
# from ESTABLISHED to CLOSE (TcpEstabResets counts both), leaving no TIME_WAIT.
check_abort() { # name addr mode
	local n=20

	run_case "$1" "$2" "$3" "$3" $n $n
	expect_field "$cli_out" client connected $n
	if [[ $3 == linger0-client ]]; then
		expect_field "$srv_out" server rst_seen $n
		expect_field "$cli_out" client rst_seen 0
	else
		expect_field "$cli_out" client rst_seen $n
		expect_field "$srv_out" server rst_seen 0
	fi
	expect_opens $n $n
	expect_counter TcpOutRsts '>=' $n
	expect_counter TcpEstabResets = $((2 * n))
	expect_eq tw_total $((tw_srv + tw_other)) 0
	expect_counter TcpExtTW = 0
	report "$1" "$(scenario_summary)$(kernel_summary)"
}

# The server's FIN, acknowledged (FIN_WAIT2), then close() with SO_LINGER 0:
# tcp_disconnect sends one RST per connection (the SO_LINGER 0 close counts
# TcpExtTCPAbortOnData), the client goes from CLOSE_WAIT to CLOSE
# (TcpEstabResets), and no TIME_WAIT is left.
check_halfclose_abort() {
	local n=20

	run_case halfclose-linger0-server 127.0.0.1 halfclose-linger0-server \
		halfclose-linger0-server $n $n
	expect_field "$cli_out" client connected $n
	expect_field "$cli_out" client rst_seen $n
	expect_field "$srv_out" server accepted $n
	expect_opens $n $n
	expect_counter TcpOutRsts = $n
	expect_counter TcpExtTCPAbortOnData = $n
	expect_counter TcpEstabResets = $n
	expect_eq tw_total $((tw_srv + tw_other)) 0
	expect_counter TcpExtTW = 0
	report halfclose-linger0-server "$(scenario_summary)$(kernel_summary)"
}

# TCP_LINGER2 -1 on the server's socket: the client's ACK of the server's
# FIN aborts the orphan (TcpExtTCPAbortOnData) with one RST per connection,
# which moves the client from CLOSE_WAIT to CLOSE (TcpEstabResets); no
# TIME_WAIT is left.
check_linger2_abort() {
	local n=20

	run_case linger2-server 127.0.0.1 linger2-server linger2-server $n $n
	expect_field "$cli_out" client connected $n
	expect_field "$cli_out" client rst_seen $n
	expect_field "$srv_out" server accepted $n
	expect_opens $n $n
	expect_counter TcpOutRsts = $n
	expect_counter TcpExtTCPAbortOnData = $n
	expect_counter TcpEstabResets = $n
	expect_eq tw_total $((tw_srv + tw_other)) 0
	expect_counter TcpExtTW = 0
	report linger2-server "$(scenario_summary)$(kernel_summary)"
}

# 4 local ports for one destination: 4 connects succeed, 4 find no port and
# never send a SYN (TcpActiveOpens counts only the 4).
check_exhaust() {
	local n=8 ports=4

	run_case exhaust 127.0.0.1 exhaust hold $ports $n \
		"net.ipv4.ip_local_port_range=40000 40003"
	expect_field "$cli_out" client connected $ports
	expect_field "$cli_out" client eaddrnotavail $((n - ports))
	expect_field "$srv_out" server accepted $ports
	expect_field "$srv_out" server eof $ports
	expect_opens $ports $ports
	expect_tw "$tw_other" "$tw_srv" $ports
	report exhaust "$(scenario_summary)$(kernel_summary)"
}

# A SYN to a closed port is answered by an RST; the connect is an active open
# that fails (TcpAttemptFails).
check_refused() {
	local n=5

	run_case refused 127.0.0.1 refused - 0 $n
	expect_field "$cli_out" client refused $n
	expect_field "$cli_out" client connected 0
	expect_counter TcpActiveOpens = $n
	expect_counter TcpAttemptFails = $n
	expect_counter TcpOutRsts '>=' $n
	expect_eq tw_total $((tw_srv + tw_other)) 0
	report refused "$(scenario_summary)$(kernel_summary)"
}

# connects mode against a route of type prohibit: each connect() fails at
# once with EACCES and sends no SYN (no active open); asked of a blocking
# connect() toward an unreachable route, EHOSTUNREACH.
check_refused_before_syn() {
	local n=4 blocking=$tmp/before-syn.blocking

	problems=() notes=()
	srv_out=/dev/null cli_out=$tmp/before-syn.client
	ns_up && in_ns ip route add prohibit 10.78.2.0/24 && in_ns ip route add unreachable 10.78.1.0/24 ||
		problems+=("cannot make the namespace's routes")
	nstat_read before
	in_ns "$bin" client --addr 10.78.2.1 --port 80 --count $n --mode connects >"$cli_out" 2>&1
	expect_eq client.exit $? 0
	in_ns "$bin" client --addr 10.78.1.1 --port 80 --count $n --mode connects --blocking \
		>"$blocking" 2>&1
	expect_eq blocking_client.exit $? 0
	settle
	expect_field "$cli_out" client eacces $n
	expect_field "$cli_out" client connected 0
	expect_field "$blocking" blocking_client ehostunreach $n
	expect_counter TcpActiveOpens = 0
	report refused-before-syn "$(scenario_summary)$(kernel_summary)"
}

# --bind-port 0 with 4 local ports: 4 binds and connects succeed, and the
# client closes each first, its TIME_WAIT keeping the port; the other 4
# binds find no port (EADDRINUSE) and never connect.
check_bind_port_zero() {
	local n=8 ports=4

	problems=() notes=()
	srv_out=$tmp/bind.server cli_out=$tmp/bind.client
	ns_up && in_ns sysctl -qw "net.ipv4.ip_local_port_range=40000 40003" ||
		problems+=("cannot set the port range")
	nstat_read before
	rm -f "$tmp/ready"
	ip netns exec "$ns" "$bin" server --addr 127.0.0.1 --port "$port" --count $ports --mode hold \
		--ready "$tmp/ready" >"$srv_out" 2>&1 &
	local srv_pid=$!
	wait_file "$tmp/ready" || problems+=("server never became ready")
	in_ns "$bin" client --addr 127.0.0.1 --port "$port" --count $n --mode connects --bind-port 0 \
		>"$cli_out" 2>&1
	expect_eq client.exit $? 0
	kill -USR1 "$srv_pid"
	wait_bounded "$srv_pid" 30
	settle
	expect_field "$cli_out" client connected $ports
	expect_field "$cli_out" client eaddrinuse $((n - ports))
	expect_counter TcpActiveOpens = $ports
	report bind-port-zero "$(scenario_summary)$(kernel_summary)"
}

check_hold() {
	local n=20

	run_case hold 127.0.0.1 hold hold $n $n
	expect_field "$cli_out" client connected $n
	expect_field "$srv_out" server accepted $n
	expect_field "$srv_out" server eof $n
	expect_opens $n $n
	expect_tw "$tw_other" "$tw_srv" $n
	report hold "$(scenario_summary)$(kernel_summary)"
}

check_fin_server fin-server 127.0.0.1
check_fin_client fin-client 127.0.0.1
check_abort linger0-server 127.0.0.1 linger0-server
check_abort unread-server 127.0.0.1 unread-server
check_abort linger0-client 127.0.0.1 linger0-client
check_halfclose_abort
check_linger2_abort
check_exhaust
check_refused
check_refused_before_syn
check_bind_port_zero
check_hold
check_fin_server fin-server-v6 ::1
check_fin_client fin-client-v6 ::1
check_abort linger0-server-v6 ::1 linger0-server
ns_down

echo "$passed passed, $failed failed"
((failed == 0))
