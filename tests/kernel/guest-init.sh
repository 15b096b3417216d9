#!/bin/busybox sh
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# /init of the kernel-matrix guest. Starts tcptrace on the scenario
# servers, runs one client per way a connection ends on loopback, and
# prints everything the host needs to judge the run on the console, as
# lines starting with "@tt ": tcptrace's CSV, stdout, stderr and exit
# status, the scenario's own summaries, the kernel's TCP counters before
# and after, the timewait sockets left per port, and the run counts of
# tcptrace's BPF programs around a kept-alive load. It judges nothing
# itself; run.sh does. Every wait is bounded; the guest always ends
# with "@tt done" and a reboot, which ends qemu (-no-reboot).
/bin/busybox --install -s /bin
export PATH=/bin
N=${tt_n:-} # connections per pair, from the kernel command line
HELD=5      # connections open before tcptrace starts
QUEUED=5    # connections waiting in the shared listener's queue at its fork
KA_CONNS=2  # kept-alive connections, and requests over each
KA_REQUESTS=2500
NAME=tt-scenario
PORT_RANGE_EXHAUST="40000 40003" # 4 ports: 4 of the exhaust client's 8 connects fail

say() { echo "@tt $*"; }
dump() { # tag file
	[ -e "$2" ] || return 0
	while IFS= read -r line || [ -n "$line" ]; do say "$1 $line"; done <"$2"
}
finish() {
	say done
	sync
	reboot -f
	sleep 60
}

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs dev /dev
mount -t tmpfs tmp /tmp
cd /tmp

say kernel "$(uname -r)"
[ -n "$N" ] || { say no tt_n on the kernel command line; finish; }
[ -r /sys/kernel/btf/vmlinux ] && say btf yes || say btf no
# Debian loads these on the first sock_diag request (modprobe); this guest
# has no modprobe configuration, so load them as the kernel would.
insmod /modules/inet_diag.ko && insmod /modules/tcp_diag.ko && say sock_diag loaded ||
	say sock_diag failed
ip link set lo up

# The kernel's own counters, as nstat names them: Tcp* from snmp, TcpExt*
# from netstat. Each file has a header line, then a value line, per group.
counters() { # label
	awk -v label="$1" '
		$1 == head { for (i = 2; i <= NF; i++) print "@tt counter", label, group names[i], $i; head = ""; next }
		{ head = $1; group = substr($1, 1, length($1) - 1); for (i = 2; i <= NF; i++) names[i] = $i }
	' /proc/net/snmp /proc/net/netstat |
		grep -E ' (TcpActiveOpens|TcpPassiveOpens|TcpOutRsts|TcpExtTW|TcpExtTWKilled|TcpExtTCPTimeWaitOverflow|TcpExtTCPAbortOnClose|TcpExtTCPAbortOnData|TcpExtListenDrops|TcpExtListenOverflows|TcpExtTCPSynRetrans|TcpExtTCPDeferAcceptDrop|TcpExtTCPFastOpenPassive|TcpRetransSegs|TcpExtTCPSlowStartRetrans|TcpExtTCPTimeouts) '
}

# Sockets in /proc/net/tcp{,6} whose state (hex) matches a pattern.
sockets_in() { # state-regexp [port-column port]
	cat /proc/net/tcp /proc/net/tcp6 | awk -v st="$1" -v col="${2:-}" -v port="${3:-}" '
		NR > 1 && $1 != "sl" && $4 ~ ("^(" st ")$") {
			if (col != "") { split($col, a, ":"); if (a[2] != sprintf("%04X", port)) next }
			n++
		}
		END { print n + 0 }'
}

# Wait until nothing is closing any more: SYN_SENT, FIN_WAIT1/2,
# CLOSE_WAIT, LAST_ACK, CLOSING.
settle() {
	i=0
	while [ "$(sockets_in '02|04|05|08|09|0B')" != 0 ] && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
}

# Client and server run on one CPU: the guest's loopback then handles the
# segments of a connection there, one at a time (a segment is handled on
# the CPU that sent it). On two CPUs the two ends race in ways the kernel
# counts but 6.1 does not report: a second child socket made for one
# connection and thrown away (TcpPassiveOpens; tcp_check_req's req_stolen),
# an RST sent by a timewait socket (TcpOutRsts; reported from 6.10).
server_start() { # port count mode [server options]
	port=$1 count=$2 mode=$3
	shift 3
	taskset 1 "$NAME" server --addr 127.0.0.1 --port "$port" --count "$count" --mode "$mode" \
		--ready "ready.$port" "$@" >"server.$port" 2>&1 &
	spid=$!
	wait_for "ready.$port" || say "server $mode did not start: $(cat "server.$port")"
}
client_start() { # port count mode [client options]
	port=$1 count=$2 mode=$3
	shift 3
	taskset 1 "$NAME" client --addr 127.0.0.1 --port "$port" --count "$count" --mode "$mode" \
		"$@" >"client.$port" 2>&1 &
	cpid=$!
}

wait_for() { # file: up to 30 s
	i=0
	while [ ! -s "$1" ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
	[ -s "$1" ]
}

# Both ends are done: print the pair and both results.
pair_end() { # name port
	wait "$cpid"
	crc=$?
	wait "$spid"
	src=$?
	say pair "$1" port="$2" server="$spid" client="$cpid" server_rc=$src client_rc=$crc \
		uptime="$(cut -d' ' -f1 /proc/uptime)"
	dump "scenario $1 server" "server.$2"
	dump "scenario $1 client" "client.$2"
}

# A server, then its client, each ending its connections one way; the
# pair is named by its mode unless a name is given.
pair() { # port mode count [name]
	server_start "$1" "$3" "$2"
	client_start "$1" "$3" "$2"
	pair_end "${4:-$2}" "$1"
}

# Connections made before tcptrace starts, held until after: it must find
# them (sock_diag, /proc/PID/fd) and count how they end. tcptrace needs a
# process of the traced name at start; these are it. The client lets go on
# SIGUSR1, or by itself after 60 s.
server_start 8080 "$HELD" hold
held_spid=$spid
client_start 8080 "$HELD" hold --hold held.8080
held_cpid=$cpid
wait_for held.8080 || say held connections not made: "$(cat client.8080)"
# A server of one connection, listening before tcptrace starts, whose client
# starts the moment tcptrace says it is tracing: "tracing" means counting.
server_start 8093 1 fin-client
moment_spid=$spid
# The held server's listener gone (it closes it after its last accept);
# the moment's stays, and is found at start too.
i=0
while [ "$(sockets_in 0A 2 8080)" != 0 ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
say existing "$(sockets_in '01|0A')"
say uptime tcptrace-starting "$(cut -d' ' -f1 /proc/uptime)"

# The kernel's run counts of every BPF program (tcptrace's are the only
# ones here): "@tt progs LABEL NAME RUN_CNT" per program.
prog_counts() { # label
	bpftool prog show | awk -v label="$1" '
		/^[0-9]+:/ {
			name = "-"; cnt = 0
			for (i = 2; i < NF; i++) { if ($i == "name") name = $(i + 1); if ($i == "run_cnt") cnt = $(i + 1) }
			print "@tt progs", label, name, cnt
		}'
}
echo 1 >/proc/sys/kernel/bpf_stats_enabled && say bpf_stats on || say bpf_stats off

# With the twins of --catch-nested: every kernel must load them too, and
# the counts below must come out the same with them attached.
# Before tcptrace starts: the moment's client may connect before a later
# look. tcptrace's own connection (its self-check) is made in a network
# namespace of its own, and counts in none of these.
counters before
started=$(date +%s)
/opt/tt/tcptrace -p "$NAME" --csv t.csv -i 0.5 --catch-nested --verbose >tracer.out 2>tracer.err &
tracer=$!
i=0
while ! grep -q '^tcptrace: tracing' tracer.err && kill -0 $tracer 2>/dev/null && [ $i -lt 6000 ]; do
	sleep 0.02
	i=$((i + 1))
done
grep -q '^tcptrace: tracing' tracer.err && client_start 8093 1 fin-client
moment_cpid=$cpid
if ! grep -q '^tcptrace: tracing' tracer.err; then
	say tcptrace did not start
	kill -KILL $tracer 2>/dev/null
	wait $tracer
	say tcptrace-exit $?
	dump stderr tracer.err
	finish
fi
say tcptrace started in $(($(date +%s) - started)) s

spid=$held_spid cpid=$held_cpid
sleep 1 # two intervals with the connections from before start still open
kill -USR1 "$cpid"
pair_end held 8080
spid=$moment_spid cpid=$moment_cpid
pair_end moment 8093
pair 8081 fin-server "$N"
pair 8082 fin-client "$N"
pair 8083 linger0-server "$N"
pair 8084 linger0-client "$N"
pair 8087 linger2-server "$N"
# Past tcp_max_tw_buckets the kernel leaves no timewait socket
# (TcpExtTCPTimeWaitOverflow): tcptrace must count no timewait and no RST.
max_tw=$(cat /proc/sys/net/ipv4/tcp_max_tw_buckets)
echo 0 >/proc/sys/net/ipv4/tcp_max_tw_buckets
pair 8086 halfclose-server "$N" tw-overflow
echo "$max_tw" >/proc/sys/net/ipv4/tcp_max_tw_buckets
# A listen queue that overflows at the SYN: a server with a backlog of 4
# that accepts nothing, its queue filled by 5 connections a client holds,
# then a burst of 10 connects whose SYNs, sent again for 3 s, find it full.
# Its queue (the listener's rx_queue in /proc/net/tcp) is read before it
# closes; its close resets the 5, which their client then closes.
taskset 1 "$NAME" server --addr 127.0.0.1 --port 8088 --count 5 --mode noaccept --backlog 4 \
	--ready ready.8088 >server.8088 2>&1 &
spid=$!
wait_for ready.8088 || say "server noaccept did not start: $(cat server.8088)"
taskset 1 "$NAME" client --addr 127.0.0.1 --port 8088 --count 5 --mode hold --hold held.8088 \
	>fill.8088 2>&1 &
fill=$!
wait_for held.8088 || say "the listen queue was not filled: $(cat fill.8088)"
taskset 1 "$NAME" client --addr 127.0.0.1 --port 8088 --count 10 --mode burst --wait 3 \
	>client.8088 2>&1 &
cpid=$!
wait "$cpid"
crc=$?
say listen queue 8088 "$(awk '$4 == "0A" && $2 ~ /:1F98$/ { split($5, q, ":"); print q[2] + 0 }' /proc/net/tcp)"
kill -USR1 "$spid"
wait "$spid"
src=$?
kill -USR1 "$fill"
wait "$fill"
say pair listen-queue port=8088 server="$spid" client="$cpid" fill="$fill" server_rc=$src \
	client_rc=$crc fill_rc=$?
dump "scenario listen-queue server" server.8088
dump "scenario listen-queue client" client.8088
dump "scenario fill client" fill.8088
# TCP_DEFER_ACCEPT (nginx's deferred): the handshake's last ACK, bare,
# is dropped and bumps the listener's sk_drops without ListenDrops; the
# clients' FINs then complete the connections, which the server accepts
# and closes. Which of a listener's drops were connection attempts the
# kernel tells only from 6.11 on.
taskset 1 "$NAME" server --addr 127.0.0.1 --port 8089 --count 3 --mode hold --backlog 4 \
	--defer 5 --ready ready.8089 >server.8089 2>&1 &
spid=$!
wait_for ready.8089 || say "server defer did not start: $(cat server.8089)"
client_start 8089 3 burst --wait 2
pair_end defer 8089
# A slow server: 200 ms before each accept() (--accept-delay), counted
# from the moment its 5 connections wait in its queue (--queued: an
# emulated guest on a busy host may start the client late): the k-th it
# takes has waited k x 200 ms or more. Timed where accept() is traced.
server_start 8095 5 hold --accept-delay 200 --queued 5
client_start 8095 5 burst --wait 3
pair_end accept-wait 8095
max_port_range=$(cat /proc/sys/net/ipv4/ip_local_port_range)
echo "$PORT_RANGE_EXHAUST" >/proc/sys/net/ipv4/ip_local_port_range
server_start 8085 4 hold
client_start 8085 8 exhaust
pair_end exhaust 8085
# The exhaust client's TIME_WAIT holds the 4 ports: a bind() to port 0
# finds none (EADDRINUSE), and its connect() never runs.
taskset 1 "$NAME" client --addr 127.0.0.1 --port 8085 --count 3 --mode connects --bind-port 0 \
	>client.bind 2>&1
say pair bind-port-zero client_rc=$?
dump "scenario bind-port-zero client" client.bind
echo "$max_port_range" >/proc/sys/net/ipv4/ip_local_port_range
# Connects refused before any SYN, each by a route: none (ENETUNREACH),
# unreachable (EHOSTUNREACH), prohibit (EACCES), blackhole (EINVAL).
ip route add unreachable 10.78.1.0/24 && ip route add prohibit 10.78.2.0/24 &&
	ip route add blackhole 10.78.3.0/24 && say routes made || say routes failed
for refused in noroute:10.78.9.1:2 unreach:10.78.1.1:3 prohibit:10.78.2.1:4 blackhole:10.78.3.1:1; do
	what=${refused%%:*} rest=${refused#*:}
	addr=${rest%:*} count=${rest##*:}
	taskset 1 "$NAME" client --addr "$addr" --port 80 --count "$count" --mode connects \
		>"client.$what" 2>&1
	say pair "before-syn-$what" client_rc=$?
	dump "scenario before-syn-$what client" "client.$what"
done
# Connects refused: nothing listens on 8094; the kernel answers each SYN
# with an RST of no socket.
taskset 1 "$NAME" client --addr 127.0.0.1 --port 8094 --count 3 --mode connects >client.8094 2>&1 &
cpid=$!
wait "$cpid"
say pair refused port=8094 client="$cpid" client_rc=$?
dump "scenario refused client" client.8094
# A listener shared by a fork after tcptrace started, as nginx's: the
# server forks 2 workers once QUEUED connections wait in its accept queue
# (the client opens them before it uses any); the workers accept them all.
server_start 8091 "$N" fin-server --workers 2 --queued "$QUEUED"
client_start 8091 "$N" fin-server --preopen "$QUEUED"
pair_end shared 8091
# TCP Fast Open: after the first connection (which fetches the cookie),
# the kernel queues each child at its SYN, and accept() may return it in
# SYN_RECV, before the handshake's last ACK.
echo 3 >/proc/sys/net/ipv4/tcp_fastopen
server_start 8090 "$N" fin-client --fastopen
client_start 8090 "$N" fin-client --fastopen
pair_end fastopen 8090
# Data segments lost after they were sent (this guest has no nft): the
# loss program (tt_loss.bpf.c) drops one in 20 of port 8096's data
# segments at the receiving socket's filter, and the server sends them
# again. Segments of 1448 bytes on the loopback: GSO packets hold several,
# and one dropped takes them all. The kernel's counters around the pair
# alone; the program gone after it.
mount -t cgroup2 none /sys/fs/cgroup && mount -t bpf bpf /sys/fs/bpf &&
	bpftool prog load /opt/tt/tt_loss.bpf.o /sys/fs/bpf/tt_loss type cgroup/skb &&
	bpftool cgroup attach /sys/fs/cgroup ingress pinned /sys/fs/bpf/tt_loss && say loss attached ||
	say loss failed
ip link set lo mtu 1500
counters retrans-before
server_start 8096 4 keepalive --requests 3 --bytes 200000
client_start 8096 4 keepalive --requests 3 --bytes 200000
pair_end retrans 8096
settle
counters retrans-after
say dropped-by-loss "$(bpftool map dump name tt_loss.bss | tr -d ' \n' | sed -n 's/.*"dropped":\([0-9]*\).*/\1/p')"
bpftool cgroup detach /sys/fs/cgroup ingress pinned /sys/fs/bpf/tt_loss
rm -f /sys/fs/bpf/tt_loss
ip link set lo mtu 65536
# Kept-alive connections to a shared listener, both ends traced: the
# programs' runs around it.
prog_counts before
server_start 8092 "$KA_CONNS" keepalive --requests "$KA_REQUESTS" --workers 2
client_start 8092 "$KA_CONNS" keepalive --requests "$KA_REQUESTS"
pair_end keepalive 8092
prog_counts after
settle
counters after
say timewait local 8081 "$(sockets_in 06 2 8081)"
say timewait remote 8082 "$(sockets_in 06 3 8082)"
say timewait remote 8080 "$(sockets_in 06 3 8080)"
say timewait all "$(sockets_in 06)"

sleep 1 # two more intervals, so the last closes are in the CSV
kill -INT $tracer
wait $tracer
say tcptrace-exit $?
dump csv t.csv
dump stdout tracer.out
dump stderr tracer.err
finish
