# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# Processes: which are traced, renamed, a PID reused, process slots
# recycled, and the scope (--cgroup, --netns, --by cgroup) of two haproxy
# of one name.
# Sourced by tests/integration/run.sh, which runs the cases.

# Only the server is traced by PID: the client's connections must not
# land on it, and the client gets no row at all.
case_only_server_traced() {
	ns_new || return 1
	server_start 127.0.0.1 "$PORT" "$N" fin-server || return 1
	tracer_start "$WORK/t.csv" -p "$SRV" || return 1
	ip netns exec "$NS" "$SCENARIO" client --addr 127.0.0.1 --port "$PORT" --count "$N" --mode fin-server \
		>"$WORK/client.out" 2>&1 &
	CLI=$!
	wait "$CLI" && wait "$SRV" || return 1
	tracer_stop || return 1
	local csv=$WORK/t.csv
	expect_eq "server conn_in" "$N" "$(csv_sum "$csv" "$SRV" conn_in)"
	expect_eq "server conn_out" 0 "$(csv_sum "$csv" "$SRV" conn_out)"
	expect_eq "server fin_passive_out" 0 "$(csv_sum "$csv" "$SRV" fin_passive_out)"
	expect_eq "server tw_in" "$N" "$(csv_sum "$csv" "$SRV" tw_in)"
	expect_eq "rows of other processes" 0 "$(awk -F, -v p="$SRV" 'NR > 1 && $3 != p' "$csv" | wc -l)"
}

# Without --pid every process is traced; attribution must still be right.
case_every_process() {
	ns_new || return 1
	server_start 127.0.0.1 "$PORT" "$N" fin-server || return 1
	tracer_start "$WORK/t.csv" || return 1
	ip netns exec "$NS" "$SCENARIO" client --addr 127.0.0.1 --port "$PORT" --count "$N" --mode fin-server \
		>"$WORK/client.out" 2>&1 &
	CLI=$!
	wait "$CLI" && wait "$SRV" || return 1
	tracer_stop || return 1
	local csv=$WORK/t.csv
	expect_eq "server conn_in" "$N" "$(csv_sum "$csv" "$SRV" conn_in)"
	expect_eq "server tw_in" "$N" "$(csv_sum "$csv" "$SRV" tw_in)"
	expect_eq "client conn_out" "$N" "$(csv_sum "$csv" "$CLI" conn_out)"
	expect_eq "client tw_out" 0 "$(csv_sum "$csv" "$CLI" tw_out)"
	expect_eq "client fin_passive_out" "$N" "$(csv_sum "$csv" "$CLI" fin_passive_out)"
}

# --pid NAME follows names as they change: a process that renames itself
# (prctl PR_SET_NAME) to a traced name is followed from then on, and no
# longer once it takes another name. tcptrace keeps a verdict per process
# and must drop it at the rename.
case_renamed_process() {
	local name=ttr$$ out=$WORK/rename.out holder pid i
	ns_new || return 1
	cp /bin/sleep "$WORK/$name"
	in_ns "$WORK/$name" 60 & # --pid NAME wants a process of that name at start
	holder=$!
	for i in $(seq 100); do [ "$(cat "/proc/$holder/comm" 2>/dev/null)" = "$name" ] && break; sleep 0.05; done
	tracer_start "$WORK/t.csv" -p "$name" || return 1
	in_ns python3 - "$name" >"$out" 2>&1 <<'EOF'
import ctypes, os, socket, sys
libc = ctypes.CDLL(None)
srv = socket.socket()
srv.bind(("127.0.0.1", 0))
srv.listen(8)
def connect():
    c = socket.create_connection(srv.getsockname())
    a, _ = srv.accept()
    c.close()
    a.close()
connect()  # as python3: not traced, but its verdict is kept
libc.prctl(15, sys.argv[1].encode(), 0, 0, 0)  # PR_SET_NAME: this thread leads the group
connect()
connect()
libc.prctl(15, b"other", 0, 0, 0)
connect()
print("pid=%d" % os.getpid())
EOF
	pid=$(field "$out" pid)
	kill "$holder"
	wait "$holder" 2>/dev/null
	tracer_stop || return 1
	local csv=$WORK/t.csv
	expect_eq "python3 ran (pid=)" 1 "$([ -n "$pid" ] && echo 1 || echo 0)"
	expect_eq "conn_out while named $name" 2 "$(csv_sum "$csv" "$pid" conn_out)"
	expect_eq "fin_active_out while named $name" 2 "$(csv_sum "$csv" "$pid" fin_active_out)"
	expect_eq "conn_in (its listener was not traced)" 0 "$(csv_sum "$csv" "$pid" conn_in)"
}

# Sum of a CSV column over the rows of one PID under one name.
pid_comm_sum() { # csv pid comm column
	awk -F, -v pid="$2" -v comm="$3" -v col="$4" '
		NR == 1 { for (i = 1; i <= NF; i++) if ($i == col) c = i; next }
		$3 == pid && $4 == comm { s += $c }
		END { if (!c) { print "no-column-" col; exit } print s + 0 }' "$1"
}

# Conn out and fin pasv ("OUT/PASV") of the summary's rows of one PID under
# one name, of which the table shows 9 bytes.
summary_out_pasv() { # tracer-stdout pid comm
	awk -v pid="$2" -v comm="${3:0:9}" '
		/^Totals over/ { on = 1; next }
		/listen queue|connect failed|time, at most/ { on = 0 }
		on && $1 == pid && $2 == comm && $3 ~ /^[0-9]+$/ { out += $4; pasv += $7 }
		END { print out + 0 "/" pasv + 0 }' "$1"
}

# A PID the kernel hands out again names another process: its counts go to
# a row of their own under its own name, not into the old process's row.
# Process A makes n1 connections and exits; B, another binary, is made to
# get A's PID by writing PID-1 to ns_last_pid just before forking it.
# Another fork on the machine may take the PID first: B's shell then exits
# before it connects, and the fork is tried again, a bounded number of times.
case_pid_reused() {
	local a=$SCENARIO_NAME b=ttb$$ n1=5 n2=3 holder p i try rc=1
	ns_new || return 1
	cp "$SCENARIO" "$WORK/$b" || return 1
	mkdir -p "$WORK/hold"
	cp /bin/sleep "$WORK/hold/$b" || return 1
	in_ns "$WORK/hold/$b" 60 & # --pid NAME wants a process of that name at start
	holder=$!
	for i in $(seq 100); do [ "$(cat "/proc/$holder/comm" 2>/dev/null)" = "$b" ] && break; sleep 0.05; done
	server_start 127.0.0.1 "$PORT" $((n1 + n2)) fin-server || return 1
	tracer_start "$WORK/t.csv" -p "$a,$b" || return 1
	in_ns "$SCENARIO" client --addr 127.0.0.1 --port "$PORT" --count "$n1" --mode fin-server \
		>"$WORK/a.out" 2>&1 || { log "A failed: $(cat "$WORK/a.out")"; return 1; }
	p=$(field "$WORK/a.out" pid)
	[ -n "$p" ] || { log "A printed no pid: $(cat "$WORK/a.out")"; return 1; }
	for try in $(seq 20); do
		: >"$WORK/b.out"
		echo $((p - 1)) >/proc/sys/kernel/ns_last_pid
		# ip netns exec execs the scenario: B keeps the subshell's PID.
		( [ "$BASHPID" = "$p" ] && exec ip netns exec "$NS" "$WORK/$b" client --addr 127.0.0.1 \
			--port "$PORT" --count "$n2" --mode fin-server ) >"$WORK/b.out" 2>&1
		rc=$?
		[ -s "$WORK/b.out" ] && break
	done
	[ -s "$WORK/b.out" ] || { log "no fork got PID $p in $try tries"; return 1; }
	[ "$rc" -eq 0 ] || { log "B failed: $(cat "$WORK/b.out")"; return 1; }
	kill "$holder"
	wait "$holder" 2>/dev/null
	wait "$SRV" || { log "server failed: $(cat "$WORK/server.out")"; return 1; }
	tracer_stop || return 1
	local csv=$WORK/t.csv
	expect_eq "B ($b) has A's PID, by its own count (fork $try of at most 20)" "$p" "$(field "$WORK/b.out" pid)"
	expect_eq "pid $p as $a: conn_out" "$n1" "$(pid_comm_sum "$csv" "$p" "$a" conn_out)"
	expect_eq "pid $p as $a: fin_passive_out" "$n1" "$(pid_comm_sum "$csv" "$p" "$a" fin_passive_out)"
	expect_eq "pid $p as $b: conn_out" "$n2" "$(pid_comm_sum "$csv" "$p" "$b" conn_out)"
	expect_eq "pid $p as $b: fin_passive_out" "$n2" "$(pid_comm_sum "$csv" "$p" "$b" fin_passive_out)"
	# The CSV's rows are per interval, so they part A from B even today
	# when the two fall into different intervals; the summary's cannot.
	expect_eq "summary, pid $p as $a: conn out/fin pasv" "$n1/$n1" "$(summary_out_pasv "$WORK/tracer.out" "$p" "$a")"
	expect_eq "summary, pid $p as $b: conn out/fin pasv" "$n2/$n2" "$(summary_out_pasv "$WORK/tracer.out" "$p" "$b")"
	expect_eq "server conn_in = its accepts" "$(field "$WORK/server.out" accepted)" "$(csv_sum "$csv" "$SRV" conn_in)"
}

# Processes come and go on a long run: once a traced process has exited
# and its sockets are gone, its counter slot must serve another process.
# Three times as many short-lived clients as slots, one after another,
# each followed by a pause of a few intervals.
case_process_slots_recycled() {
	local slots=16 clients=48 count=5 i out pid got drops good=0 bad=()
	ns_new || return 1
	server_start 127.0.0.1 "$PORT" $((clients * count)) fin-server || return 1
	tracer_start "$WORK/t.csv" --max-procs "$slots" -p "$SCENARIO_NAME" -i 0.1 || return 1
	: >"$WORK/client.pids"
	for i in $(seq "$clients"); do
		out=$WORK/client.$i.out
		in_ns "$SCENARIO" client --addr 127.0.0.1 --port "$PORT" --count "$count" --mode fin-server \
			>"$out" 2>&1 || { log "client $i failed: $(cat "$out")"; return 1; }
		field "$out" pid >>"$WORK/client.pids"
		sleep 0.25 # two and a half intervals: the gone slot is seen, then given back
	done
	wait "$SRV" || { log "server failed: $(cat "$WORK/server.out")"; return 1; }
	tracer_stop || return 1
	local csv=$WORK/t.csv
	for pid in $(cat "$WORK/client.pids"); do
		got="$(csv_sum "$csv" "$pid" conn_out)/$(csv_sum "$csv" "$pid" fin_passive_out)"
		if [ "$got" = "$count/$count" ]; then good=$((good + 1)); else bad+=("$pid:$got"); fi
	done
	expect_eq "clients with conn_out/fin_passive_out $count/$count${bad:+ (not: ${bad[*]:0:4}${bad[4]:+ ...})}" \
		"$clients" "$good"
	expect_eq "server conn_in = its accepts" "$(field "$WORK/server.out" accepted)" "$(csv_sum "$csv" "$SRV" conn_in)"
	drops=$(grep -E '^tcptrace: [0-9]+ ' "$WORK/tracer.err")
	expect_eq "what tcptrace says it dropped or lost" none "${drops:-none}"
}

# Scoped runs (--cgroup, --netns): two haproxy of one name, each in a
# network namespace (NS, NS_NOISE) and a cgroup (v2) of its own, each
# loaded by an ab of its own, side by side. The run is scoped to the
# first: its counts are that namespace's own counters and ss, exactly, and
# the second has no row. The first haproxy starts after tcptrace (a
# container started later, inside the scope), the second before.
cgroup2_root() { awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts; }

# sh -c "$IN_SCOPE_OF" sh DIR NS-NAME COMMAND...: COMMAND in namespace
# NS-NAME, in cgroup DIR from its start, under sh's own PID (as $! gives
# it when started in the background).
IN_SCOPE_OF='echo $$ >"$1/cgroup.procs" && shift && exec ip netns exec "$@"'

# haproxy answering every request itself on 127.0.0.1:8080, in a
# namespace and cgroup; sets HAPROXY_PID once it listens.
scope_haproxy_start() { # dir ns-name tag
	local cfg=$WORK/haproxy-$3.cfg i
	printf '%s\n' global "    maxconn 400" defaults "    mode http" "    timeout connect 1s" \
		"    timeout client 5s" "    timeout server 5s" "frontend fe" "    bind 127.0.0.1:8080" \
		"    http-request return status 200 content-type text/plain string ok" >"$cfg"
	sh -c "$IN_SCOPE_OF" sh "$1" "$2" haproxy -db -f "$cfg" >"$WORK/haproxy-$3.out" 2>&1 &
	HAPROXY_PID=$!
	for i in $(seq 200); do
		ip netns exec "$2" ss -ltnH "( sport = :8080 )" | grep -q . && return 0
		sleep 0.05
	done
	log "haproxy $3 did not listen: $(cat "$WORK/haproxy-$3.out")"
	return 1
}

scope_counter() { ip netns exec "$1" nstat -az "$2" | awk -v k="$2" '$1 == k { print $2 }'; }

# Sum of a column over the rows of the PIDs given (comma-separated).
pids_sum() { # csv pids column
	awk -F, -v pids="$2" -v col="$3" '
		BEGIN { n = split(pids, p, ","); for (i = 1; i <= n; i++) keep[p[i]] = 1 }
		NR == 1 { for (i = 1; i <= NF; i++) if ($i == col) c = i; next }
		$3 in keep { s += $c }
		END { print s + 0 }' "$1"
}

# The two cgroups (CG_A, CG_B, named TAG-a and TAG-b) and namespaces (NS,
# NS_NOISE) of the two-haproxy cases; haproxy b already runs in the second
# (HA_B), before tcptrace starts.
two_haproxy_prepare() { # tag
	local root
	root=$(cgroup2_root)
	[ -n "$root" ] || { log "no cgroup2 mount"; return 1; }
	CG_A=$root/$1-a CG_B=$root/$1-b
	mkdir -p "$CG_A" "$CG_B" || return 1
	SCOPE_CGROUPS=("$CG_A" "$CG_B")
	ns_new || return 1
	NS_NOISE=tt-it-noise-$$-$RANDOM
	ip netns add "$NS_NOISE" && ip -n "$NS_NOISE" link set lo up || return 1
	scope_haproxy_start "$CG_B" "$NS_NOISE" b || return 1
	HA_B=$HAPROXY_PID
}

# haproxy a started in the first (HA_A), then an ab of N requests in the
# first and of N_B (N unless given) in the second side by side (AB_A,
# AB_B), both waited for.
two_haproxy_load() { # n [n_b]
	scope_haproxy_start "$CG_A" "$NS" a || return 1
	HA_A=$HAPROXY_PID
	sh -c "$IN_SCOPE_OF" sh "$CG_A" "$NS" ab -q -n "$1" -c 4 http://127.0.0.1:8080/ \
		>"$WORK/ab-a.out" 2>&1 &
	AB_A=$!
	sh -c "$IN_SCOPE_OF" sh "$CG_B" "$NS_NOISE" ab -q -n "${2:-$1}" -c 4 http://127.0.0.1:8080/ \
		>"$WORK/ab-b.out" 2>&1 &
	AB_B=$!
	wait "$AB_A" && wait "$AB_B" || { log "ab failed: $(tail -2 "$WORK"/ab-*.out)"; return 1; }
}

case_scope_two_haproxy() { # cgroup|netns
	local how=$1 csv=$WORK/t.csv in_a out_b n=300 ab_a ha_a ha_b
	local scope=() rows tw_a label
	two_haproxy_prepare "tt-it-$$" || return 1
	ha_b=$HA_B
	case $how in
	cgroup) scope=(--cgroup "$CG_A") label="cgroup $CG_A" ;;
	netns) scope=(--netns "/run/netns/$NS" -p haproxy,ab) label="netns /run/netns/$NS" ;;
	esac
	tracer_start "$csv" "${scope[@]}" --json "$WORK/t.json" || return 1
	expect_eq "the tracing line names the scope" 1 \
		"$(grep -c "^tcptrace: tracing .* in $how " "$WORK/tracer.err")"
	two_haproxy_load "$n" || return 1
	ha_a=$HA_A ab_a=$AB_A
	tracer_stop || return 1
	kill "$ha_a" "$ha_b"
	wait "$ha_a" "$ha_b" 2>/dev/null
	tw_a=$(in_ns ss -tanH state time-wait "( sport = :8080 )" | wc -l)
	expect_eq "both loads done: ab's complete requests" "$n $n" \
		"$(awk '/^Complete requests:/ { print $3 }' "$WORK/ab-a.out" "$WORK/ab-b.out" | paste -sd' ')"
	rows=$(awk -F, 'NR > 1 { print $3 }' "$csv" | sort -u | paste -sd,)
	expect_eq "rows: the scoped haproxy and its ab, no other process" \
		"$(printf '%s\n' "$ha_a" "$ab_a" | sort | paste -sd,)" "$rows"
	expect_eq "the other haproxy, same name, has no row" 0 "$(awk -F, -v p="$ha_b" 'NR > 1 && $3 == p' "$csv" | wc -l)"
	expect_eq "the CSV's last column is scope, every row's the run's" "scope|$label" \
		"$(awk -F, 'NR <= 2 || $NF != last { print $NF; last = $NF }' "$csv" | paste -sd'|')"
	expect_eq "every JSON line of a process row names the scope" \
		"$(grep -c '"conn_in":' "$WORK/t.json")" "$(grep -cF "\"scope\":\"$label\"}" "$WORK/t.json")"
	# ab may open a few connections more than its requests (up to -c).
	in_a=$(scope_counter "$NS" TcpPassiveOpens)
	expect_eq "haproxy conn_in = its namespace's TcpPassiveOpens ($in_a for $n requests)" "$in_a" \
		"$(pids_sum "$csv" "$ha_a" conn_in)"
	expect_eq "conn_out, every row = its namespace's TcpActiveOpens" "$(scope_counter "$NS" TcpActiveOpens)" \
		"$(pids_sum "$csv" "$ha_a,$ab_a" conn_out)"
	expect_eq "tw_in + tw_out, every row = its namespace's TcpExtTW" "$(scope_counter "$NS" TcpExtTW)" \
		"$(($(pids_sum "$csv" "$ha_a,$ab_a" tw_in) + $(pids_sum "$csv" "$ha_a,$ab_a" tw_out)))"
	expect_eq "haproxy tw_now at the end = ss state time-wait from :8080 in its namespace" "$tw_a" \
		"$(csv_last "$csv" "$ha_a" tw_now)"
	out_b=$(scope_counter "$NS_NOISE" TcpPassiveOpens)
	expect_eq "the other namespace's haproxy served its ab too ($out_b connections), none counted" 1 \
		"$((out_b >= n))"
}

# --by cgroup: the same two haproxy and their ab, each pair in a cgroup of
# its own, traced by name; /metrics has a series per name and cgroup,
# labelled with the cgroup's name, each equal to its namespace's counters.
# haproxy b is older than tcptrace (its name read from /proc), haproxy a
# and both ab newer (read by the BPF side when their slot is given). The
# two ab make 200 and 320 requests: a series under the other's cgroup
# would show.
case_by_cgroup_two_haproxy() {
	local n=200 n_b=320 mport m=$WORK/metrics.txt tag=tt-it-$$
	two_haproxy_prepare "$tag" || return 1
	mport=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	tracer_start "$WORK/t.csv" -p haproxy,ab --by cgroup --listen "$mport" || return 1
	two_haproxy_load "$n" "$n_b" || return 1
	settle
	sleep 0.5 # two intervals: the last closes are in /metrics
	curl -sf "http://127.0.0.1:$mport/metrics" >"$m" || { log "no /metrics"; return 1; }
	tracer_stop || return 1
	kill "$HA_A" "$HA_B"
	wait "$HA_A" "$HA_B" 2>/dev/null
	metric() { # comm cgroup side
		awk -v want="tcptrace_connections_total{comm=\"$1\",cgroup=\"$2\",side=\"$3\"}" \
			'$1 == want { print $2; found = 1 } END { if (!found) print "none" }' "$m"
	}
	expect_eq "haproxy in cgroup $tag-a: connections in = its namespace's TcpPassiveOpens" \
		"$(scope_counter "$NS" TcpPassiveOpens)" "$(metric haproxy "$tag-a" in)"
	expect_eq "haproxy in cgroup $tag-b (started before tcptrace): connections in = TcpPassiveOpens" \
		"$(scope_counter "$NS_NOISE" TcpPassiveOpens)" "$(metric haproxy "$tag-b" in)"
	expect_eq "ab in cgroup $tag-a: connections out = its namespace's TcpActiveOpens" \
		"$(scope_counter "$NS" TcpActiveOpens)" "$(metric ab "$tag-a" out)"
	expect_eq "ab in cgroup $tag-b: connections out = TcpActiveOpens" \
		"$(scope_counter "$NS_NOISE" TcpActiveOpens)" "$(metric ab "$tag-b" out)"
	expect_eq "the two namespaces' connections differ (a label swapped would show)" 1 \
		"$(($(scope_counter "$NS" TcpPassiveOpens) < n_b && $(scope_counter "$NS_NOISE" TcpPassiveOpens) >= n_b))"
	expect_eq "series of connections: the four pairs of name and cgroup, each side" 8 \
		"$(grep -c '^tcptrace_connections_total{comm="[a-z]*",cgroup="'"$tag"'-[ab]",side=' "$m")"
	expect_eq "no process series without its cgroup" "" \
		"$(grep '^tcptrace_connections_total{' "$m" | grep -v ',cgroup=' | paste -sd'|')"
}
