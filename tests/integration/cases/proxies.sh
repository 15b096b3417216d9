# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# Proxies and shared listeners: haproxy and nginx under ab, their reloads,
# listeners shared by a fork or by nginx's workers, kept-alive connections.
# Sourced by tests/integration/run.sh, which runs the cases.

case_haproxy_nginx_under_ab() { proxy_under_ab 2000 10 120; }

# nginx -s reload replaces the workers: traced by name, the new ones are
# followed, tcptrace goes on, and the totals stay those of the kernel.
case_nginx_reload() {
	local prefix=$WORK/nginx old_workers new_workers i p
	ns_new || return 1
	nginx_start "$prefix" "$TOP/tools/scenarios/nginx-backend.conf" -e "$prefix/error.log"
	old_workers=$(pgrep -P "$SRV" | sort | paste -sd,)
	tracer_start "$WORK/t.csv" -p nginx || return 1
	in_ns ab -q -n 500 -c 5 -s 10 http://127.0.0.1:8081/ >"$WORK/ab1.out" 2>&1 || return 1
	ip netns exec "$NS" nginx -p "$prefix/" -c "$TOP/tools/scenarios/nginx-backend.conf" \
		-e "$prefix/error.log" -s reload || return 1
	for i in $(seq 200); do
		new_workers=$(pgrep -P "$SRV" | sort | paste -sd,)
		[ -n "$new_workers" ] && [ "$new_workers" != "$old_workers" ] &&
			! pgrep -P "$SRV" | grep -qxF -f <(tr , '\n' <<<"$old_workers") && break
		sleep 0.05
	done
	in_ns ab -q -n 500 -c 5 -s 10 http://127.0.0.1:8081/ >"$WORK/ab2.out" 2>&1 || return 1
	kill -0 "$TRACER_PID" || { log "tcptrace ended at the reload"; return 1; }
	tracer_stop || return 1
	local csv=$WORK/t.csv
	expect_eq "nginx conn_in, old and new workers = TcpPassiveOpens" "$(nstat_of TcpPassiveOpens)" \
		"$(awk -F, -v pids="$SRV,$old_workers,$new_workers" '
			BEGIN { n = split(pids, p, ","); for (i = 1; i <= n; i++) ours[p[i]] = 1 }
			NR > 1 && ($3 in ours) { s += $5 } END { print s + 0 }' "$csv")"
	local after=0
	for p in ${new_workers//,/ }; do after=$((after + $(csv_sum "$csv" "$p" conn_in))); done
	expect_eq "the new workers served the second run" 1 "$((after >= 500))"
	expect_eq "master accepted nothing" 0 "$(csv_sum "$csv" "$SRV" conn_in)"
	expect_eq "summary written" 1 "$(grep -c '^Totals over' "$WORK/tracer.out")"
}

# A listener nginx's processes share: each connection is counted on the
# worker that accepted it, known when a syscall of that worker first
# touches the socket. A connection the client aborts (RST) after its
# request was read is touched by that read; one aborted before any data
# only by nginx's close(), which finds it ended and destroys it. Each
# worker's share comes from nginx's own logs, by PID.
# nginx with two workers on 127.0.0.1:8081 that logs each request's
# worker PID (access.log) and each connection error with it (error.log).
write_nginx_conf_by_pid() { # prefix
	# A fresh prefix: no access log or pid file of a case before.
	rm -rf "$1" && mkdir -p "$1/tmp"
	cat >"$1/nginx.conf" <<-EOF
		worker_processes 2;
		pid nginx.pid;
		error_log error.log info;
		events { worker_connections 1024; }
		http {
			log_format by_pid \$pid;
			access_log access.log by_pid;
			client_body_temp_path tmp;
			server { listen 127.0.0.1:8081; location / { return 200 "ok\\n"; } }
		}
	EOF
}

case_nginx_shared_listener_client_aborts() {
	local prefix=$WORK/nginx n=40 i pid workers expected total=0
	ns_new || return 1
	write_nginx_conf_by_pid "$prefix"
	nginx_start "$prefix" "$prefix/nginx.conf"
	workers=$(pgrep -P "$SRV" | paste -sd' ')
	tracer_start "$WORK/t.csv" -p nginx || return 1
	in_ns python3 - "$n" >"$WORK/client.out" 2>&1 <<-'EOF' || { log "client: $(cat "$WORK/client.out")"; return 1; }
		import socket, struct, sys
		def abort(s):
		    s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
		    s.close()
		for _ in range(int(sys.argv[1])):
		    s = socket.create_connection(("127.0.0.1", 8081), timeout=10)
		    s.sendall(b"GET / HTTP/1.1\r\nHost: t\r\n\r\n")
		    data = b""
		    while not data.endswith(b"ok\n"):
		        data += s.recv(4096)
		    abort(s)
		for _ in range(int(sys.argv[1])):
		    abort(socket.create_connection(("127.0.0.1", 8081), timeout=10))
	EOF
	for i in $(seq 200); do
		[ "$(grep -c 'recv() failed (104' "$prefix/error.log")" -ge "$n" ] && break
		sleep 0.05
	done
	tracer_stop || return 1
	local csv=$WORK/t.csv
	expect_eq "requests logged" "$n" "$(wc -l <"$prefix/access.log")"
	expect_eq "connections reset before a request, logged" "$n" "$(grep -c 'recv() failed (104' "$prefix/error.log")"
	expect_eq "TcpPassiveOpens = connections opened" "$((2 * n))" "$(nstat_of TcpPassiveOpens)"
	for pid in $workers; do
		expected=$(($(grep -cx "$pid" "$prefix/access.log") + $(grep -c " $pid#[0-9]*: .*recv() failed (104" "$prefix/error.log")))
		expect_eq "worker $pid: conn_in = its connections in nginx's logs" "$expected" \
			"$(csv_sum "$csv" "$pid" conn_in)"
		expect_eq "worker $pid: rst_recv_in = conn_in" "$expected" "$(csv_sum "$csv" "$pid" rst_recv_in)"
		total=$((total + $(csv_sum "$csv" "$pid" conn_in)))
	done
	expect_eq "workers' conn_in = connections opened" "$((2 * n))" "$total"
	expect_eq "master accepted nothing" 0 "$(csv_sum "$csv" "$SRV" conn_in)"
}

# A haproxy reload (-sf): a new process takes the port over and the old one
# leaves. Traced by name, both are followed and the totals are the kernel's.
case_haproxy_reload() {
	local prefix=$WORK/nginx old new i cfg=$TOP/tools/scenarios/haproxy.cfg
	ns_new || return 1
	mkdir -p "$prefix/tmp"
	ip netns exec "$NS" nginx -p "$prefix/" -c "$TOP/tools/scenarios/nginx-backend.conf" \
		-e "$prefix/error.log" -g 'daemon off;' >"$WORK/nginx.out" 2>&1 &
	ip netns exec "$NS" haproxy -db -f "$cfg" >"$WORK/haproxy-old.out" 2>&1 &
	old=$!
	for i in $(seq 200); do # both listening
		[ "$(in_ns ss -tlnH '( sport = :8080 or sport = :8081 )' | wc -l)" -ge 2 ] && break
		sleep 0.05
	done
	tracer_start "$WORK/t.csv" -p haproxy,nginx || return 1
	in_ns ab -q -n 500 -c 5 -s 10 http://127.0.0.1:8080/ >"$WORK/ab1.out" 2>&1 || return 1
	ip netns exec "$NS" haproxy -db -f "$cfg" -sf "$old" >"$WORK/haproxy-new.out" 2>&1 &
	new=$!
	for i in $(seq 200); do kill -0 "$old" 2>/dev/null || break; sleep 0.05; done
	expect_eq "the old haproxy has left" 1 "$(kill -0 "$old" 2>/dev/null && echo 0 || echo 1)"
	in_ns ab -q -n 500 -c 5 -s 10 http://127.0.0.1:8080/ >"$WORK/ab2.out" 2>&1 || return 1
	kill -0 "$TRACER_PID" || { log "tcptrace ended at the reload"; return 1; }
	tracer_stop || return 1
	local csv=$WORK/t.csv
	local ours="$old,$new,$(ip netns pids "$NS" | paste -sd,)"
	expect_eq "conn_in of both haproxys and nginx = TcpPassiveOpens" "$(nstat_of TcpPassiveOpens)" \
		"$(awk -F, -v pids="$ours" '
			BEGIN { n = split(pids, p, ","); for (i = 1; i <= n; i++) keep[p[i]] = 1 }
			NR > 1 && ($3 in keep) { s += $5 } END { print s + 0 }' "$csv")"
	expect_eq "the old haproxy served the first run" 1 "$(($(csv_sum "$csv" "$old" conn_in) >= 500))"
	expect_eq "the new haproxy served the second run" 1 "$(($(csv_sum "$csv" "$new" conn_in) >= 500))"
	expect_eq "summary written" 1 "$(grep -c '^Totals over' "$WORK/tracer.out")"
}

# Runs COMMAND under tcptrace (run mode: it traces NAME from before
# COMMAND starts) in the background; TRACER_PID is tcptrace's. COMMAND
# waits for $WORK/go, and at its end for $WORK/stop (20 s at most), so
# that the test can watch tcptrace meanwhile.
run_mode_start() { # csv name command...
	local csv=$1 name=$2 i
	shift 2
	: >"$WORK/tracer.err"
	rm -f "$WORK/go" "$WORK/ran" "$WORK/stop"
	"$TCPTRACE" -p "$name" -i 0.2 --csv "$csv" -- bash -c '
		for i in $(seq 600); do [ -e "$0/go" ] && break; sleep 0.05; done
		"$@"; rc=$?
		touch "$0/ran"
		for i in $(seq 400); do [ -e "$0/stop" ] && break; sleep 0.05; done
		exit $rc' "$WORK" "$@" >"$WORK/tracer.out" 2>>"$WORK/tracer.err" &
	TRACER_PID=$!
	tracer_wait_started
}

# Lets COMMAND start, notes whether the read hook was attached at any look
# while it ran (READ_HOOK_SEEN 1 or 0), waits up to 10 s after COMMAND's
# end for the read hook to be detached (READ_HOOK_AFTER: attached or
# detached), then ends tcptrace; fails if tcptrace does not exit 0.
run_mode_watch() {
	local i rc
	READ_HOOK_SEEN=0
	touch "$WORK/go"
	for i in $(seq 1200); do
		read_hook_attached && READ_HOOK_SEEN=1
		[ -e "$WORK/ran" ] && break
		sleep 0.05
	done
	for i in $(seq 200); do read_hook_attached || break; sleep 0.05; done
	read_hook_attached && READ_HOOK_AFTER=attached || READ_HOOK_AFTER=detached
	touch "$WORK/stop"
	wait "$TRACER_PID"
	rc=$?
	TRACER_PID=""
	[ "$rc" -eq 0 ] || { log "tcptrace exited with $rc: $(cat "$WORK/tracer.err")"; return 1; }
}

# A listener shared after tcptrace started: a server that forks two
# workers after listen(), as nginx does, with 5 connections waiting in its
# accept queue at the fork (the client opens them before it uses any),
# which the workers accept. Where accept() is traced, each connection is
# its acceptor's. Where it is not, the fork marks the listener shared and
# attaches the read hook: every later connection is its worker's, named
# at its first read; the 5 were counted at their handshake, while the
# server alone held the listener, and stay the server's
# (docs/reliability.md). The read hook goes once the listener is closed.
case_listener_shared_by_fork() {
	local csv=$WORK/fork.csv n=40 queued=5 way pid accepted early total=0 ready=$WORK/ready.fork
	ns_new || return 1
	run_mode_start "$csv" "$SCENARIO_NAME" bash -c '
		ip netns exec "$0" "$1" server --addr 127.0.0.1 --port "$2" --count "$3" --mode fin-server \
			--workers 2 --queued "$4" --ready "$5" >"$6/server.out" 2>&1 &
		srv=$!
		for i in $(seq 400); do [ -s "$5" ] && break; sleep 0.05; done
		ip netns exec "$0" "$1" client --addr 127.0.0.1 --port "$2" --count "$3" --mode fin-server \
			--preopen "$4" >"$6/client.out" 2>&1 && wait "$srv"' \
		"$NS" "$SCENARIO" "$PORT" "$n" "$queued" "$ready" "$WORK" || return 1
	expect_eq "read hook attached before the server starts" 0 "$(read_hook_attached && echo 1 || echo 0)"
	run_mode_watch || return 1
	way=$(acceptors_way)
	expect_eq "server and workers as expected" 0 "$(grep -c 'not as expected' "$WORK/server.out")"
	expect_eq "client as expected" "$n 0" "$(field "$WORK/client.out" connected) $(field "$WORK/client.out" other_errors)"
	expect_eq "connections made before the fork, in the workers' counts" "$queued" \
		"$(grep '^role=server' "$WORK/server.out" | tr ' ' '\n' | awk -F= '$1 == "queued" { print $2 }')"
	expect_eq "conn_in, server and workers = TcpPassiveOpens" "$(nstat_of TcpPassiveOpens)" \
		"$(awk -F, 'NR > 1 { s += $5 } END { print s + 0 }' "$csv")"
	SRV=$(grep '^role=server' "$WORK/server.out" | tr ' ' '\n' | awk -F= '$1 == "pid" { print $2 }')
	while read -r pid accepted early; do
		if [ "$way" = "at accept()" ]; then
			early=0
		fi
		expect_eq "worker $pid: conn_in = its accepts$([ "$early" -gt 0 ] && echo " - the $early made before the fork")" \
			"$((accepted - early))" "$(csv_sum "$csv" "$pid" conn_in)"
		expect_eq "worker $pid: fin_active_in = conn_in" "$((accepted - early))" "$(csv_sum "$csv" "$pid" fin_active_in)"
		total=$((total + accepted))
	done < <(grep '^role=worker' "$WORK/server.out" | tr ' ' '\n' |
		awk -F= '$1 == "accepted" { a = $2 } $1 == "queued" { q = $2 } $1 == "pid" { print $2, a, q }')
	expect_eq "the workers accepted every connection" "$n" "$total"
	if [ "$way" = "at accept()" ]; then
		expect_eq "server (it accepted none) conn_in" 0 "$(csv_sum "$csv" "$SRV" conn_in)"
		expect_eq "the read hook never attached" 0 "$READ_HOOK_SEEN"
	else
		expect_eq "acceptors named at their first read" "at their first read" "$way"
		expect_eq "server conn_in = the connections made before the fork" "$queued" "$(csv_sum "$csv" "$SRV" conn_in)"
		expect_eq "server fin_active_in = the same" "$queued" "$(csv_sum "$csv" "$SRV" fin_active_in)"
		expect_eq "the read hook attached after the fork" 1 "$READ_HOOK_SEEN"
	fi
	expect_eq "the read hook once the listener is closed" detached "$READ_HOOK_AFTER"
}

# A listener that two workers share, as nginx's, with connections its
# workers have read and keep open: each connection is its worker's at the
# next interval, not only at its close. Where accept() is not traced the
# read names the worker; tcptrace's read hook leaves at once for sockets
# that carry no accept-queue limit (connect()ed ones), and a listener with
# a backlog of 0 gives its children none: from its first child on, every
# read is looked at (socks.bpf.h).
case_shared_listener_open_connections() { # backlog
	local csv=$WORK/open-shared.csv n=6 ready=$WORK/ready.os go=$WORK/go.os cready=$WORK/ready.osc
	local accepted=$WORK/accepted.os i pid total=0
	ns_new || return 1
	rm -f "$ready" "$go" "$cready" # the case runs twice
	: >"$accepted"
	tracer_start "$csv" --netns "/run/netns/$NS" || return 1
	ip netns exec "$NS" python3 - "$PORT" "$1" "$ready" "$go" "$accepted" >"$WORK/server.out" 2>&1 <<'EOF' &
import os, socket, sys, time
port, backlog, ready, go, accepted = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
s = socket.socket()
s.bind(("127.0.0.1", port))
s.listen(backlog)
s.settimeout(0.1)
workers = []
for _ in range(2):
    pid = os.fork()
    if pid == 0:
        conns, deadline = [], time.time() + 60
        while not os.path.exists(go) and time.time() < deadline:
            try:
                c, _ = s.accept()
            except socket.timeout:
                continue
            c.settimeout(10)
            if c.recv(4) != b"ping":
                os._exit(1)
            c.sendall(b"k")
            conns.append(c)
            with open(accepted, "a") as f:
                f.write("%d\n" % os.getpid())
        for c in conns:
            c.close()
        os._exit(0)
    workers.append(pid)
open(ready, "w").write("listening")
sys.exit(max(os.waitpid(p, 0)[1] for p in workers) != 0)
EOF
	SRV=$!
	for i in $(seq 200); do [ -s "$ready" ] && break; sleep 0.05; done
	if [ "$(acceptors_way)" != "at accept()" ]; then
		for i in $(seq 200); do read_hook_attached && break; sleep 0.05; done
		expect_eq "the read hook attached once the listener is shared" 0 "$(read_hook_attached; echo $?)"
	fi
	ip netns exec "$NS" python3 - "$PORT" "$n" "$cready" "$go" >"$WORK/client.out" 2>&1 <<'EOF' &
import os, socket, sys, time
port, n, ready, go = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
socks = []
for _ in range(n):  # one at a time: a backlog of 0 queues one connection
    c = socket.create_connection(("127.0.0.1", port), timeout=10)
    c.sendall(b"ping")
    if c.recv(1) != b"k":
        sys.exit(1)
    socks.append(c)
open(ready, "w").write("connected")
deadline = time.time() + 60
while not os.path.exists(go) and time.time() < deadline:
    time.sleep(0.05)
for c in socks:
    c.close()
EOF
	CLI=$!
	for i in $(seq 400); do [ -s "$cready" ] && break; sleep 0.05; done
	sleep 0.5 # two intervals of 0.2 s
	expect_eq "connections held open" "$n" "$(in_ns ss -tanH state established "( sport = :$PORT )" | wc -l)"
	while read -r i pid; do
		expect_eq "worker $pid, its $i connections open: conn_in" "$i" "$(csv_sum "$csv" "$pid" conn_in)"
		total=$((total + i))
	done < <(sort "$accepted" | uniq -c)
	expect_eq "the workers accepted every connection" "$n" "$total"
	touch "$go"
	wait "$CLI" || { log "client failed: $(cat "$WORK/client.out")"; return 1; }
	wait "$SRV" || { log "server failed: $(cat "$WORK/server.out")"; return 1; }
	tracer_stop || return 1
	expect_eq "server conn_in (its workers accepted all)" 0 "$(csv_sum "$csv" "$SRV" conn_in)"
	expect_eq "conn_in, every process = TcpPassiveOpens" "$(nstat_of TcpPassiveOpens)" \
		"$(awk -F, 'NR > 1 && $5 > 0 { s += $5 } END { print s + 0 }' "$csv")"
}

# Kept-alive connections of a listener no other process holds: the
# acceptor is the listener's owner, and no program runs for the requests:
# the read hook is never attached.
case_keepalive_unshared_listener() {
	local csv=$WORK/ka.csv n=10 requests=300 ready=$WORK/ready.ka
	ns_new || return 1
	run_mode_start "$csv" "$SCENARIO_NAME" bash -c '
		ip netns exec "$0" "$1" server --addr 127.0.0.1 --port "$2" --count "$3" --mode keepalive \
			--requests "$4" --ready "$5" >"$6/server.out" 2>&1 &
		srv=$!
		for i in $(seq 400); do [ -s "$5" ] && break; sleep 0.05; done
		ip netns exec "$0" "$1" client --addr 127.0.0.1 --port "$2" --count "$3" --mode keepalive \
			--requests "$4" >"$6/client.out" 2>&1 && wait "$srv"' \
		"$NS" "$SCENARIO" "$PORT" "$n" "$requests" "$ready" "$WORK" || return 1
	run_mode_watch || return 1
	SRV=$(field "$WORK/server.out" pid)
	CLI=$(field "$WORK/client.out" pid)
	expect_eq "requests answered (the server's own count)" "$((n * requests))" "$(field "$WORK/server.out" requests)"
	expect_eq "server conn_in = TcpPassiveOpens" "$(nstat_of TcpPassiveOpens)" "$(csv_sum "$csv" "$SRV" conn_in)"
	expect_eq "server fin_passive_in" "$n" "$(csv_sum "$csv" "$SRV" fin_passive_in)"
	expect_eq "client conn_out" "$n" "$(csv_sum "$csv" "$CLI" conn_out)"
	expect_eq "client tw_out = TcpExtTW" "$(nstat_of TcpExtTW)" "$(csv_sum "$csv" "$CLI" tw_out)"
	expect_eq "the read hook never attached" 0 "$READ_HOOK_SEEN"
}

# nginx started after tcptrace: its master listens, then forks its
# workers. Each connection is counted on the worker that accepted it, none
# on the master; tcptrace's of issue 20's start counted the first ones on
# the master, the listener being its alone until a worker touched one.
case_nginx_started_after_tcptrace() {
	local csv=$WORK/ngx.csv prefix=$WORK/nginx n=60 pid total=0 workers master
	ns_new || return 1
	write_nginx_conf_by_pid "$prefix"
	run_mode_start "$csv" nginx bash -c '
		ip netns exec "$0" nginx -p "$1/" -c "$1/nginx.conf" -g "daemon off;" >"$1/nginx.out" 2>&1 &
		master=$!
		echo "$master" >"$1/master"
		for i in $(seq 200); do [ -s "$1/nginx.pid" ] && [ "$(pgrep -c -P "$master")" -ge 2 ] && break; sleep 0.05; done
		pgrep -P "$master" | paste -sd" " >"$1/workers"
		ip netns exec "$0" python3 -c "
import socket, sys
for _ in range(int(sys.argv[1])):
    s = socket.create_connection((\"127.0.0.1\", 8081), timeout=10)
    s.sendall(b\"GET / HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n\")
    while s.recv(4096): pass
    s.close()
" "$2" >"$1/client.out" 2>&1; rc=$?
		kill -QUIT "$master"; wait "$master"; exit $rc' "$NS" "$prefix" "$n" || return 1
	run_mode_watch || return 1
	master=$(cat "$prefix/master")
	workers=$(cat "$prefix/workers")
	expect_eq "requests logged" "$n" "$(wc -l <"$prefix/access.log")"
	expect_eq "TcpPassiveOpens = connections opened" "$n" "$(nstat_of TcpPassiveOpens)"
	for pid in $workers; do
		expect_eq "worker $pid: conn_in = its requests in nginx's log" "$(grep -cx "$pid" "$prefix/access.log")" \
			"$(csv_sum "$csv" "$pid" conn_in)"
		total=$((total + $(csv_sum "$csv" "$pid" conn_in)))
	done
	expect_eq "workers' conn_in = connections opened" "$n" "$total"
	expect_eq "master accepted nothing" 0 "$(csv_sum "$csv" "$master" conn_in)"
	[ "$(acceptors_way)" = "at accept()" ] ||
		expect_eq "the read hook attached while nginx ran" 1 "$READ_HOOK_SEEN"
	expect_eq "the read hook once nginx is gone" detached "$READ_HOOK_AFTER"
}
