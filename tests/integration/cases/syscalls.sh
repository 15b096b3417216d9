# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# connect() and bind() as their syscalls return them (the syscall hooks):
# connects refused before any SYN, by errno, against the clients' own
# counts and haproxy's econ per server; bind()s to port 0 that found no
# free port, against the client's own count, and nginx's error 99 lines
# beside them.
# Sourced by tests/integration/run.sh, which runs the cases.

# The namespace's routes that refuse a connect() before its SYN, and a link
# where no neighbour answers (ns_link_to_nowhere): a SYN sent there ends in
# the kernel's own ICMP host unreachable, after the SYN.
#   10.78.1.0/24 unreachable: EHOSTUNREACH     2001:db8:1::/48 unreachable
#   10.78.2.0/24 prohibit:    EACCES           2001:db8:2::/48 prohibit
#   10.78.3.0/24 blackhole:   EINVAL
#   10.78.9.1, no route:      ENETUNREACH
ns_refusing_routes() {
	ns_new && ns_link_to_nowhere || return 1
	in_ns ip route add unreachable 10.78.1.0/24 && in_ns ip route add prohibit 10.78.2.0/24 &&
		in_ns ip route add blackhole 10.78.3.0/24 &&
		in_ns ip -6 route add unreachable 2001:db8:1::/48 &&
		in_ns ip -6 route add prohibit 2001:db8:2::/48
}

# The start-up line that says the syscall hooks are not attached: none.
expect_syscall_hooks_attached() {
	expect_eq "no start-up line says connect()'s and bind()'s own failures are not counted" "" \
		"$(grep 'refused before their SYN' "$WORK/tracer.err")"
}

# tcptrace started with its syscall hooks as this kernel has them, or with
# "kept" as before Linux 5.15: the entries hooked too, keeping the
# arguments the exits read (where this kernel's exits read the registers).
tracer_start_hooks() { # kept|now csv [tcptrace args...]
	local loaded
	if [ "$1" = kept ]; then
		TCPTRACE_TEST_ARGS_KEPT=1 tracer_start "${@:2}" --verbose || return 1
	else
		tracer_start "${@:2}" --verbose || return 1
	fi
	loaded=$(sed -n 's/^tcptrace: verifier: \(handle_\(connect\|bind\)_[a-z_]*\) .*/\1/p' "$WORK/tracer.err" |
		LC_ALL=C sort | paste -sd' ')
	if [ "$1" = kept ]; then
		expect_eq "the syscall hooks loaded: entries and exits" \
			"handle_bind_enter_kept handle_bind_exit_kept handle_connect_enter_kept handle_connect_exit_kept" \
			"$loaded"
	else
		expect_eq "the syscall hooks loaded: the exits, reading the registers" \
			"handle_bind_exit handle_connect_exit" "$loaded"
	fi
}

# Each client by itself, its own count of each errno against tcptrace's, per
# process and per destination: non-blocking connect()s refused at once by each
# route; blocking ones, refused before the SYN by a route (counted here) or
# failed after it (no neighbour: the kernel's ICMP, counted in unreach, not
# twice); a non-blocking connect() asked again for its result (the errno of a
# failure after the SYN comes back from connect() itself: counted once, in
# unreach).
case_connect_refused_before_syn() { # kept|now
	local csv=$WORK/t.csv pids=() outs=() o p i
	ns_refusing_routes || return 1
	server_start 127.0.0.1 9 1 hold || return 1 # a process of the name, for -p
	tracer_start_hooks "$1" "$csv" -p "$SCENARIO_NAME" --by dest || return 1
	expect_syscall_hooks_attached
	connects_client noroute 10.78.9.1 80 3 & pids+=($!) outs+=(noroute)
	connects_client unreach 10.78.1.1 80 4 & pids+=($!) outs+=(unreach)
	connects_client prohibit 10.78.2.1 80 5 & pids+=($!) outs+=(prohibit)
	connects_client blackhole 10.78.3.1 80 2 & pids+=($!) outs+=(blackhole)
	connects_client prohibit6 2001:db8:2::1 443 3 & pids+=($!) outs+=(prohibit6)
	connects_client unreach6 2001:db8:1::1 443 2 & pids+=($!) outs+=(unreach6)
	connects_client blocking_unreach 10.78.1.1 81 2 --blocking & pids+=($!) outs+=(blocking_unreach)
	connects_client blocking_arp 10.77.0.4 80 2 --blocking & pids+=($!) outs+=(blocking_arp)
	connects_client asked_again_arp 10.77.0.5 80 2 --ask-again & pids+=($!) outs+=(asked_again_arp)
	for i in "${!pids[@]}"; do
		wait "${pids[$i]}" || { log "client ${outs[$i]} failed: $(cat "$WORK/${outs[$i]}")"; return 1; }
	done
	tracer_stop || return 1
	for o in "${outs[@]}"; do
		p=$(field "$WORK/$o" pid)
		log "    $o client (pid $p): $(cut -d' ' -f3- "$WORK/$o")"
		eval "pid_$o=$p"
	done
	expect_eq "the clients were refused as the routes say" "3 4 5 2 3 2 2 2 2" \
		"$(field "$WORK/noroute" enetunreach) $(field "$WORK/unreach" ehostunreach) $(field "$WORK/prohibit" eacces) $(field "$WORK/blackhole" einval) $(field "$WORK/prohibit6" eacces) $(field "$WORK/unreach6" ehostunreach) $(field "$WORK/blocking_unreach" ehostunreach) $(field "$WORK/blocking_arp" ehostunreach) $(field "$WORK/asked_again_arp" unreachable)"
	expect_eq "no route: connfail_enetunreach = the client's ENETUNREACH" \
		"$(field "$WORK/noroute" enetunreach)" "$(csv_sum "$csv" "$pid_noroute" connfail_enetunreach)"
	expect_eq "no route: = the namespace's IpOutNoRoutes" "$(nstat_of IpOutNoRoutes)" \
		"$(csv_sum "$csv" "$pid_noroute" connfail_enetunreach)"
	expect_eq "unreachable route: connfail_ehostunreach = the client's EHOSTUNREACH" \
		"$(field "$WORK/unreach" ehostunreach)" "$(csv_sum "$csv" "$pid_unreach" connfail_ehostunreach)"
	expect_eq "prohibit route: connfail_eacces = the client's EACCES" \
		"$(field "$WORK/prohibit" eacces)" "$(csv_sum "$csv" "$pid_prohibit" connfail_eacces)"
	expect_eq "blackhole route: connfail_einval = the client's EINVAL" \
		"$(field "$WORK/blackhole" einval)" "$(csv_sum "$csv" "$pid_blackhole" connfail_einval)"
	expect_eq "IPv6 prohibit route: connfail_eacces = the client's EACCES" \
		"$(field "$WORK/prohibit6" eacces)" "$(csv_sum "$csv" "$pid_prohibit6" connfail_eacces)"
	expect_eq "IPv6 unreachable route: connfail_ehostunreach = the client's EHOSTUNREACH" \
		"$(field "$WORK/unreach6" ehostunreach)" "$(csv_sum "$csv" "$pid_unreach6" connfail_ehostunreach)"
	expect_eq "blocking, refused by the route: connfail_ehostunreach = the client's EHOSTUNREACH" \
		"$(field "$WORK/blocking_unreach" ehostunreach)" \
		"$(csv_sum "$csv" "$pid_blocking_unreach" connfail_ehostunreach)"
	expect_eq "blocking, unreachable after the SYN: connfail_unreach = the client's EHOSTUNREACH, none before the SYN" \
		"$(field "$WORK/blocking_arp" ehostunreach) 0" \
		"$(csv_sum "$csv" "$pid_blocking_arp" connfail_unreach) $(csv_sum "$csv" "$pid_blocking_arp" connfail_ehostunreach)"
	expect_eq "asked again, unreachable after the SYN: connfail_unreach = the client's, none before the SYN" \
		"$(field "$WORK/asked_again_arp" unreachable) 0" \
		"$(csv_sum "$csv" "$pid_asked_again_arp" connfail_unreach) $(csv_sum "$csv" "$pid_asked_again_arp" connfail_ehostunreach)"
	for o in "${outs[@]}"; do
		p=$(eval echo "\$pid_$o")
		expect_eq "$o: connfail_out = the client's failures; no connection, no port missing" \
			"$(($(field "$WORK/$o" enetunreach) + $(field "$WORK/$o" ehostunreach) + $(field "$WORK/$o" eacces) + $(field "$WORK/$o" einval) + $(field "$WORK/$o" unreachable))) 0 0" \
			"$(csv_sum "$csv" "$p" connfail_out) $(csv_sum "$csv" "$p" conn_out) $(csv_sum "$csv" "$p" eaddrnotavail)"
	done
	expect_eq "SYNs sent (TcpActiveOpens): the connects that failed after theirs" 4 "$(nstat_of TcpActiveOpens)"
	# Per destination: each route's count on its address.
	expect_eq "per destination: ENETUNREACH, EHOSTUNREACH, EACCES, EINVAL, EACCES (IPv6)" \
		"3 4 5 2 3" \
		"$(dest_sum "$csv" 10.78.9.1:80 connfail_enetunreach) $(dest_sum "$csv" 10.78.1.1:80 connfail_ehostunreach) $(dest_sum "$csv" 10.78.2.1:80 connfail_eacces) $(dest_sum "$csv" 10.78.3.1:80 connfail_einval) $(dest_sum "$csv" '[2001:db8:2::1]:443' connfail_eacces)"
	expect_eq "per destination: the blocking ones, before and after the SYN" "2 0 2" \
		"$(dest_sum "$csv" 10.78.1.1:81 connfail_ehostunreach) $(dest_sum "$csv" 10.77.0.4:80 connfail_ehostunreach) $(dest_sum "$csv" 10.77.0.4:80 connfail_unreach)"
	expect_eq "the summary's block of connects refused before any SYN: the prohibit client's row" \
		"0 0 5 0 0 0" \
		"$(awk -v p="$pid_prohibit" '/^Totals over/ { t = 1 } t && /connect failed before any SYN/ { on = 1 }
			on && $1 == p { print $3, $4, $5, $6, $7, $8; exit }' "$WORK/tracer.out")"
	# The clients are one name: one finding, their counts added up.
	expect_eq "the finding: each errno, the destinations with the most" 1 \
		"$(grep -c "finding: $SCENARIO_NAME .*: 21 connect()s failed before any SYN left.*: 3 ENETUNREACH (.*; 8 EHOSTUNREACH (.*; 8 EACCES (.*; 2 EINVAL (.* Toward 10\.78\.2\.1:80: 5 EACCES; 10\.78\.1\.1:80: 4 EHOSTUNREACH;" "$WORK/tracer.out")"
}

# haproxy with retries 0 and a backend behind each refusing route: each
# request's connect() fails at once, and haproxy counts it in its server's
# econ (show stat, on its stats socket), which must equal tcptrace's
# failures toward that server's address, each of its cause. One more
# backend has no neighbour: its SYN leaves and the kernel's ICMP ends the
# connect, which haproxy learns from connect() asked again (EHOSTUNREACH):
# counted once, after the SYN (unreach).
case_haproxy_econ_before_syn() { # kept|now
	local cfg=$WORK/haproxy.cfg sock=$WORK/haproxy.sock csv=$WORK/h.csv b n path dest cause
	local -A servers=([noroute]=10.78.9.1:80 [unreach]=10.78.1.1:80 [prohibit]=10.78.2.1:80
		[blackhole]=10.78.3.1:80 [noarp]=10.77.0.4:80)
	local -A causes=([noroute]=enetunreach [unreach]=ehostunreach [prohibit]=eacces [blackhole]=einval
		[noarp]=unreach)
	local -A requests=([noroute]=7 [unreach]=5 [prohibit]=4 [blackhole]=3 [noarp]=2)
	ns_refusing_routes || return 1
	{
		printf 'global\n\tstats socket %s mode 600 level admin\n' "$sock"
		printf 'defaults\n\tmode http\n\tretries 0\n\ttimeout connect 2s\n\ttimeout client 10s\n\ttimeout server 10s\n'
		printf 'frontend fe\n\tbind 127.0.0.1:8080\n'
		for b in "${!servers[@]}"; do printf '\tuse_backend %s if { path_beg /%s/ }\n' "$b" "$b"; done
		for b in "${!servers[@]}"; do printf 'backend %s\n\tserver %s %s\n' "$b" "$b" "${servers[$b]}"; done
	} >"$cfg"
	ip netns exec "$NS" haproxy -db -f "$cfg" >"$WORK/haproxy.out" 2>&1 &
	SRV=$!
	for i in $(seq 200); do in_ns ss -tlnH 'sport = :8080' | grep -q . && [ -S "$sock" ] && break; sleep 0.05; done
	tracer_start_hooks "$1" "$csv" -p haproxy --by dest || return 1
	expect_syscall_hooks_attached
	for b in "${!servers[@]}"; do
		in_ns ab -q -n "${requests[$b]}" -c 1 -s 10 "http://127.0.0.1:8080/$b/" >"$WORK/ab.$b" 2>&1
	done
	in_ns python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
s.sendall(b"show stat\n")
out = b""
while True:
    d = s.recv(65536)
    if not d:
        break
    out += d
sys.stdout.write(out.decode())' "$sock" >"$WORK/stat.csv" || { log "show stat failed"; return 1; }
	kill "$SRV"
	wait "$SRV" 2>/dev/null
	tracer_stop || return 1
	for b in "${!servers[@]}"; do
		n=$(awk -F, -v b="$b" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "econ") c = i; next }
			$1 == b && $2 == b { print $c }' "$WORK/stat.csv")
		dest=${servers[$b]} cause=${causes[$b]}
		log "    $b: haproxy's econ $n, ab: $(grep -E 'Non-2xx|Complete' "$WORK/ab.$b" | tr -s ' ' | tr '\n' ';')"
		expect_eq "$b: haproxy's econ = its requests" "${requests[$b]}" "$n"
		expect_eq "$b: connfail_$cause toward $dest = haproxy's econ, all of connfail_out" "$n $n" \
			"$(dest_sum "$csv" "$dest" "connfail_$cause") $(dest_sum "$csv" "$dest" connfail_out)"
	done
	expect_eq "toward the backend with no neighbour: none before the SYN" 0 \
		"$(dest_sum "$csv" 10.77.0.4:80 connfail_ehostunreach)"
	# By its PID: other suites may run a haproxy of their own beside it.
	expect_eq "haproxy's connfail_out = its econ added up, no connection out" "$((7 + 5 + 4 + 3 + 2)) 0" \
		"$(csv_sum "$csv" "$SRV" connfail_out) $(csv_sum "$csv" "$SRV" conn_out)"
	expect_eq "the finding says haproxy's econ" 1 \
		"$(grep -c "finding: haproxy $SRV: 19 connect()s failed before any SYN left.*haproxy counts each in its server.s econ" "$WORK/tracer.out")"
}

# A narrow port range (4 ports, no timewait reuse): nginx with proxy_bind
# (IP_BIND_ADDRESS_NO_PORT: its port is taken at connect()) runs out at
# connect(), error 99 in its log; then a client that binds port 0 before
# connect() runs out at bind(), EADDRINUSE, the ports held by nginx's
# TIME_WAIT; a client that binds a listener's port, and one that binds a port
# of the range, get EADDRINUSE too, which is not counted: no exhaustion.
case_bind_port_zero_eaddrinuse() { # kept|now
	local prefix=$WORK/proxy backend=$WORK/backend csv=$WORK/b.csv w logged ours=0 workers backend_pid
	ns_new 'net.ipv4.ip_local_port_range=40000 40003' net.ipv4.tcp_tw_reuse=0 || return 1
	mkdir -p "$prefix/tmp"
	cat >"$prefix/nginx.conf" <<-'EOF'
		worker_processes 2;
		pid nginx.pid;
		error_log error.log error;
		events { worker_connections 1024; }
		http {
			access_log off;
			client_body_temp_path tmp;
			proxy_temp_path tmp;
			upstream backend { server 127.0.0.1:8081 max_fails=0; }
			server {
				listen 127.0.0.1:8080;
				location / {
					proxy_pass http://backend;
					proxy_bind 127.0.0.1;
					proxy_http_version 1.1;
					proxy_set_header Connection "";
				}
			}
		}
	EOF
	nginx_start "$backend" "$TOP/tools/scenarios/nginx-backend.conf" -e "$backend/error.log"
	backend_pid=$SRV
	nginx_start "$prefix" "$prefix/nginx.conf" -e "$prefix/error.log"
	workers=$(pgrep -P "$SRV" | paste -sd' ')
	tracer_start_hooks "$1" "$csv" -p "nginx,$SCENARIO_NAME" || return 1
	expect_syscall_hooks_attached
	in_ns ab -q -n 10 -c 1 -s 10 http://127.0.0.1:8080/ >"$WORK/ab.out" 2>&1
	connects_client port_zero 127.0.0.1 8082 5 --bind-port 0
	connects_client listeners_port 127.0.0.1 8082 3 --bind-port 8081
	connects_client port_in_range 127.0.0.1 8082 2 --bind-port 40001
	kill "$SRV" "$backend_pid"
	wait "$SRV" "$backend_pid"
	tracer_stop || return 1
	log "    ab: $(grep -E 'Complete|Non-2xx' "$WORK/ab.out" | tr -s ' ' | tr '\n' ';')"
	log "    nginx's log: $(grep -c '(99: ' "$prefix/error.log") lines of error 99, $(grep -c '(98: ' "$prefix/error.log") of error 98"
	for w in $workers; do
		logged=$(grep -c " $w#[0-9]*: .*connect() to 127.0.0.1:8081 failed (99: " "$prefix/error.log")
		expect_eq "nginx worker $w: eaddrnotavail = its error 99 lines" "$logged" "$(csv_sum "$csv" "$w" eaddrnotavail)"
		expect_eq "nginx worker $w: eaddrinuse = its bind() error 98 lines" \
			"$(grep -c " $w#[0-9]*: .*bind(127.0.0.1) failed (98: " "$prefix/error.log")" \
			"$(csv_sum "$csv" "$w" eaddrinuse)"
		ours=$((ours + logged))
	done
	expect_eq "nginx ran out: 4 connections, 6 error 99 lines (IP_BIND_ADDRESS_NO_PORT: at connect())" "6" "$ours"
	expect_eq "port 0: the client's own EADDRINUSE, every bind()" "5 0" \
		"$(field "$WORK/port_zero" eaddrinuse) $(field "$WORK/port_zero" connected)"
	expect_eq "port 0: eaddrinuse = the client's EADDRINUSE" "$(field "$WORK/port_zero" eaddrinuse)" \
		"$(csv_sum "$csv" "$(field "$WORK/port_zero" pid)" eaddrinuse)"
	expect_eq "a listener's port, a port of the range: EADDRINUSE each, not counted" "3 2 0 0" \
		"$(field "$WORK/listeners_port" eaddrinuse) $(field "$WORK/port_in_range" eaddrinuse) $(csv_sum "$csv" "$(field "$WORK/listeners_port" pid)" eaddrinuse) $(csv_sum "$csv" "$(field "$WORK/port_in_range" pid)" eaddrinuse)"
	expect_eq "the summary's inuse cell: the port-0 client's row (noport, inuse)" "0 5" \
		"$(awk -v p="$(field "$WORK/port_zero" pid)" '/^Totals over/ { t = 1 } t && /connect failed/ { on = 1 }
			on && $1 == p { print $8, $9; exit }' "$WORK/tracer.out")"
	expect_eq "the port run-out finding names bind()'s EADDRINUSE and IP_BIND_ADDRESS_NO_PORT" 1 \
		"$(grep -c "finding: $SCENARIO_NAME .*: 5 bind()s to port 0 failed with EADDRINUSE.*IP_BIND_ADDRESS_NO_PORT" "$WORK/tracer.out")"
}

# No tracefs mounted (tcptrace run inside the test's network namespace, in a
# mount namespace of its own where tracefs is unmounted): tcptrace reads the
# tracepoints' ids from a tracefs its child mounts in a mount namespace of
# the child's own, which leaves none in tcptrace's, and counts a client
# refused by a prohibit route. Without CAP_SYS_ADMIN it cannot: one line says
# so, and it carries on and exits 0.
case_syscall_hooks_without_tracefs() {
	local csv=$WORK/t.csv csv2=$WORK/t2.csv client
	ns_new && in_ns ip route add prohibit 10.78.2.0/24 || return 1
	cat >"$WORK/no-tracefs.sh" <<-'EOS'
		# $1 tcptrace, $2 csv, $3 "drop" to run it without CAP_SYS_ADMIN, then its command
		tt=$1 csv=$2 drop=$3
		shift 3
		grep -o ' /sys/kernel/[a-z/]*tracing ' /proc/self/mountinfo | while read -r m; do umount "$m"; done
		echo "tracefs mounts before: $(grep -c ' - tracefs ' /proc/self/mountinfo)"
		if [ "$drop" = drop ]; then
			setpriv --bounding-set -sys_admin --inh-caps -sys_admin "$tt" --csv "$csv" -i 0.2 -- "$@"
		else
			"$tt" --csv "$csv" -i 0.2 -- "$@"
		fi
		echo "tcptrace exit status: $?"
		echo "tracefs mounts after: $(grep -c ' - tracefs ' /proc/self/mountinfo)"
	EOS
	in_ns unshare -m --propagation private sh "$WORK/no-tracefs.sh" "$TCPTRACE" "$csv" keep \
		"$SCENARIO" client --addr 10.78.2.1 --port 80 --count 3 --mode connects \
		>"$WORK/tracer.out" 2>"$WORK/tracer.err"
	client=$(field "$WORK/tracer.out" pid)
	expect_eq "no tracefs: none mounted before or after, exit 0" \
		"tracefs mounts before: 0;tcptrace exit status: 0;tracefs mounts after: 0" \
		"$(grep -E '^(tracefs mounts|tcptrace exit)' "$WORK/tracer.out" | paste -sd';')"
	expect_syscall_hooks_attached
	expect_eq "no tracefs: connfail_eacces = the client's EACCES" "3 3" \
		"$(field "$WORK/tracer.out" eacces) $(csv_sum "$csv" "$client" connfail_eacces)"
	in_ns unshare -m --propagation private sh "$WORK/no-tracefs.sh" "$TCPTRACE" "$csv2" drop \
		"$SCENARIO" client --addr 10.78.2.1 --port 80 --count 3 --mode connects \
		>"$WORK/tracer2.out" 2>"$WORK/tracer2.err"
	client=$(field "$WORK/tracer2.out" pid)
	expect_eq "no tracefs, no CAP_SYS_ADMIN: none mounted, exit 0" \
		"tracefs mounts before: 0;tcptrace exit status: 0;tracefs mounts after: 0" \
		"$(grep -E '^(tracefs mounts|tcptrace exit)' "$WORK/tracer2.out" | paste -sd';')"
	expect_eq "no tracefs, no CAP_SYS_ADMIN: the one line that says so" \
		"tcptrace: connect()s refused before their SYN and bind()s that found no free port are not counted: tracefs is not mounted, and tcptrace could not mount one in a mount namespace of its own (unshare: Operation not permitted)" \
		"$(grep 'refused before their SYN' "$WORK/tracer2.err")"
	expect_eq "no tracefs, no CAP_SYS_ADMIN: the client refused, its row without that count" "3 0" \
		"$(field "$WORK/tracer2.out" eacces) $(csv_sum "$csv2" "$client" connfail_eacces)"
}
