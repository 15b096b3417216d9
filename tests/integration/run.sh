#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# Root integration tests: real sockets in a private network namespace,
# server and client as separate processes, tcptrace's CSV compared with
# ss, nstat and the scenario's own counts. Exact wherever the kernel
# counts the same thing. A test that cannot run fails; none is skipped.
# The cases live in cases/, a file per topic; this runner runs them in
# one order. ONLY=TEXT runs the cases whose name holds TEXT.
set -u
here=$(dirname "$0")
. "$here/../lib/common.sh"
. "$here/../lib/tracer.sh"
. "$here/../lib/csv.sh"
. "$here/lib.sh"
for topic in closes rsts fastopen connects syscalls retrans listen startup processes proxies scale cli filter; do
	. "$here/cases/$topic.sh"
done

[ "$(id -u)" -eq 0 ] || { echo "integration tests need root"; echo "0 passed, 1 failed"; exit 1; }
for bin in "$TCPTRACE" "$SCENARIO" "$STALL"; do
	[ -x "$bin" ] || { echo "missing $bin: run make first"; echo "0 passed, 1 failed"; exit 1; }
done

run_case "server closes first: TIME_WAIT on the server" case_server_closes_first
run_case "client closes first: TIME_WAIT on the client" case_client_closes_first
run_case "--netns, the processes gone before the first snapshot: tw_now = ss" \
	case_netns_processes_gone_between_snapshots
run_case "a connection made the moment tracing starts is counted" case_counted_from_the_tracing_line
run_case "IPv6: server closes first" case_ipv6_server_closes_first
run_case "SO_LINGER 0 abort: RST sent, reason shown" case_linger0_server
run_case "close with unread data: RST sent" case_close_with_unread_data
run_case "FIN, then SO_LINGER 0 abort: RST sent once, the kernel's reason" case_halfclose_then_linger0
run_case "RST received" case_rst_received
run_case "TCP Fast Open, handshakes completed" case_fastopen_completed
run_case "TCP Fast Open, closed in SYN_RECV: FIN" case_fastopen_closed_in_syn_recv 127.0.0.1
run_case "TCP Fast Open, IPv6: closed in SYN_RECV: FIN" case_fastopen_closed_in_syn_recv ::1
run_case "TCP Fast Open, closed in SYN_RECV with data unread: RST sent" case_fastopen_aborted_in_syn_recv
run_case "TCP Fast Open, RST received in SYN_RECV" case_fastopen_reset_in_syn_recv
run_case "TCP Fast Open, listener closed with children in SYN_RECV" case_fastopen_listener_closed
run_case "abort on data after the socket's end: RST counted once" case_abort_after_destroy
run_case "port exhaustion: exact EADDRNOTAVAIL" case_port_exhaustion
run_case "connection refused" case_connection_refused
run_case "connect(): every cause of failure and the time to connect, against the clients' own counts" case_connect_causes_and_times
run_case "wrk's Socket errors: connect, against tcptrace's" case_wrk_connect_errors
run_case "nginx's error log: failed upstream connects by worker, cause and destination" case_nginx_upstream_failures
run_case "--by dest: per destination, port headroom from the namespace's range" case_by_dest
run_case "data segments sent again, the server's lost: each side's = its own tcp_info, both = TcpRetransSegs - TCPSynRetrans" \
	case_retrans_server_side
run_case "data segments sent again, the client's lost: on its side out, the server's its own" case_retrans_client_side
run_case "data segments sent again, a third of their events unseen: counted from the socket's own count" \
	case_retrans_events_unseen
run_case "data segments sent again --by dest: each destination's = its client's, the finding names the lossy one" \
	case_retrans_by_dest
run_case "wrk against haproxy at maxconn: the load_client finding = wrk's connections, TCPSynRetrans" \
	case_load_generator_own_figures
run_case "connect() refused before any SYN: each route's errno, per process and destination, none twice" \
	case_connect_refused_before_syn now
run_case "haproxy's econ per server = connect()s refused before any SYN, per destination and cause" \
	case_haproxy_econ_before_syn now
run_case "bind() to port 0 out of ports: EADDRINUSE = the client's, nginx's error 99 at connect(), a fixed port not counted" \
	case_bind_port_zero_eaddrinuse now
run_case "as before 5.15, the arguments kept at entry: connect() refused before any SYN" \
	case_connect_refused_before_syn kept
run_case "as before 5.15, the arguments kept at entry: haproxy's econ per server" \
	case_haproxy_econ_before_syn kept
run_case "as before 5.15, the arguments kept at entry: bind() to port 0 out of ports" \
	case_bind_port_zero_eaddrinuse kept
run_case "no tracefs mounted: the syscall hooks from a tracefs of its own; without CAP_SYS_ADMIN, said" \
	case_syscall_hooks_without_tracefs
run_case "connected before tcptrace started" case_connected_before_start
run_case "open connections = ss established per process, those from before start included" case_open_connections
run_case "connections that end while the seeds are written: none left open" case_ended_while_seeding
run_case "listen drops at the SYN: = ListenDrops = ss -ltm's d, SYN retries = TCPSynRetrans" case_listen_drops_syn_time
run_case "listen drops under overload, no SYN cookies: = ListenDrops" case_listen_drops_overload 0
run_case "listen drops under overload, SYN cookies: = ListenDrops" case_listen_drops_overload 1
run_case "listen drops of a listener closed between two snapshots: none lost" case_listen_drops_listener_closed
run_case "handshakes: last ACKs dropped at a full accept queue, SYN-ACKs sent again" case_handshakes_synack_again
run_case "handshakes with --netns: the listener from before the start seeded, its SYN-ACKs sent again counted" \
	case_handshakes_synack_again_netns
run_case "handshakes at a full accept queue, the listeners' extra drops read late" \
	case_handshakes_synack_again_read_late
run_case "listen drops under TCP_DEFER_ACCEPT: its bare ACKs dropped are none" case_listen_drops_defer_accept
run_case "connections in an accept queue at start: the listener's" case_unaccepted_before_start
run_case "servers that start while tcptrace starts are counted" case_servers_starting_with_tcptrace
run_case "-p NAME not running yet: waited for, counted from its start" case_name_not_running_yet
run_case "self-check: refuses when its programs see nothing, shows nowhere otherwise" case_self_check
run_case "ends no program saw: each connection counted once, ended, said not counted, or left" case_ends_unseen_counted
run_case "ends no program saw, swept at exit without bpf_loop (before 5.17)" case_ends_unseen_swept_unrolled
run_case "without CAP_SYS_ADMIN: another namespace said, its own read" case_without_sys_admin
run_case "timewait sockets awaiting the peer's FIN keep their owner" case_timewait_awaiting_peer_fin
run_case "a timewait socket's RST: its owner's tw_rst" case_timewait_rst owner
run_case "a timewait socket's RST, owner not traced: no process row" case_timewait_rst other
run_case "only the server traced" case_only_server_traced
run_case "every process traced" case_every_process
run_case "a process renamed to a traced name is followed, then not" case_renamed_process
run_case "a pid reused by another process: a row of its own, under its own name" case_pid_reused
run_case "process slots of exited processes are recycled (--max-procs 16)" case_process_slots_recycled
run_case "socket map full: counted, and the limit named" case_socket_map_full
run_case "102,000 concurrent connections, exact" case_102k_concurrent_connections
run_case "--catch-nested: a mass release loses no event" case_nested_events_caught
run_case "two instances at once" case_two_instances
run_case "nginx -s reload: new workers followed, totals exact" case_nginx_reload
run_case "nginx, shared listener: connections the client aborts land on their worker" case_nginx_shared_listener_client_aborts
run_case "haproxy reload (-sf): both followed, totals exact" case_haproxy_reload
run_case "a listener shared by a fork after tcptrace started, with connections queued before it" case_listener_shared_by_fork
run_case "a shared listener's open connections on their workers at the next interval" \
	case_shared_listener_open_connections 16
run_case "a shared listener's open connections, with a backlog of 0: children with no accept-queue limit" \
	case_shared_listener_open_connections 0
run_case "kept-alive connections of an unshared listener: no read hook" case_keepalive_unshared_listener
run_case "nginx started after tcptrace: each connection on its worker" case_nginx_started_after_tcptrace
run_case "run mode: -- COMMAND, exact, its exit status" case_run_mode
run_case "scope --cgroup: two haproxy of one name side by side, the one in the cgroup counted exactly" \
	case_scope_two_haproxy cgroup
run_case "scope --netns: two haproxy of one name side by side, the one in the namespace counted exactly" \
	case_scope_two_haproxy netns
run_case "--by cgroup: two haproxy of one name, a /metrics series per cgroup, each exact" \
	case_by_cgroup_two_haproxy
run_case "bad input is refused in one line" case_bad_input
# Before Linux 5.12 no tracing program may make a socket's cookie: a
# counting filter marks the followed sockets instead (socks.bpf.h).
run_case "counting filter: haproxy -> nginx under ab" case_with_counting_filter \
	case_haproxy_nginx_under_ab
run_case "counting filter: connected before tcptrace started" case_with_counting_filter \
	case_connected_before_start
run_case "counting filter: servers that start while tcptrace starts" case_with_counting_filter \
	case_servers_starting_with_tcptrace
run_case "counting filter: a shared listener's open connections" case_with_counting_filter \
	case_shared_listener_open_connections 16
run_case "clean exit: count, duration, signals, closed stdout, traced process gone, SIGKILL" case_clean_exit
run_case "haproxy -> nginx under ab: totals = nstat and ss" case_haproxy_nginx_under_ab
run_case "1,000,000 connections through haproxy: totals = nstat and ss" case_one_million_connections
finish
