# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# Shared code of the scenario scripts (sourced, never run): their options, a
# private network namespace, the scenario's servers started in it on
# loopback, one load run bounded in requests and time while tcptrace traces
# the servers from the host, and what the kernel counted in the namespace
# over the same run. Whatever a script starts stops when it ends, also on
# Ctrl-C or failure.
#
# A script sets the defaults it wants, then:
#   sc_init "$@"                    options, namespace, run directory
#   sc_nginx backend nginx-backend.conf 8081
#   sc_nginx proxy nginx-default.conf 8080
#   sc_run http://127.0.0.1:8080/   tcptrace over the load; CSV and truth
# What went wrong is tcptrace's to say: its summary ends with its findings.

SC_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SC_TOP=$(cd "$SC_DIR/../.." && pwd)
TCPTRACE=${TCPTRACE:-$SC_TOP/tcptrace}
SC_NAME=$(basename "$0" .sh)

# Defaults; a script may change them before sc_init, options after.
REQUESTS=2000
CONCURRENCY=10
TIME_LIMIT=60 # seconds the load run may take at most
MIN_TIME=0    # seconds wrk runs at least, its requests done or not
LOAD=ab       # ab: a new connection per request; wrk: keep-alive connections;
              # vegeta: a new connection per request at a constant rate
RATE=200      # requests per second of vegeta
KEEPALIVE=0   # 1: ab keeps its connections open (ab -k)
POST_BYTES=0  # > 0: every request is a POST with a body of this many bytes
CSV=""
JSON=""
TRUTH=""
SHOW_LOAD=0   # 1: print the load generator's own report after tcptrace's
PROXY_CONF="" # the proxy's configuration, a file in tools/scenarios or a path
# Settings of the scenario's namespace. tcp_tw_reuse is off, as for traffic
# between two hosts: its default, 2, lets a connect() on loopback take over
# a timewait socket older than a second, which traffic to another host
# never sees. A script adds its own settings after these.
SYSCTLS=(net.ipv4.tcp_tw_reuse=0)

SC_NS=""
SC_RUN=""
SC_ROLES=()         # role names, in start order
declare -A SC_ROOT  # role -> PID of its first process
declare -A SC_PIDS  # role -> its PIDs, comma-separated (set by sc_run)
declare -A SC_PORT  # role -> the port it listens on

sc_usage() {
	cat >&2 <<EOF
usage: $0 [-n REQUESTS] [-c CONCURRENCY] [-t SECONDS] [--load ab|wrk|vegeta]
          [-r RATE] [-k] [--post BYTES] [--csv FILE] [--json FILE] [--conf FILE]
          [--sysctl NAME=VALUE] [--truth FILE] [--min-time SECONDS]
  -n REQUESTS    requests of the load run (default $REQUESTS)
  -c N           concurrent connections of ab and wrk (default $CONCURRENCY)
  -t SECONDS     the load run is stopped after this long (default $TIME_LIMIT)
  --load ab|wrk|vegeta
                 ab opens a connection per request, wrk keeps $CONCURRENCY open,
                 vegeta opens a connection per request at a constant rate (default $LOAD)
  -r RATE        vegeta's requests per second (default $RATE); it runs for REQUESTS / RATE
                 seconds, which must be a whole number of milliseconds
  -k             ab keeps its connections open between requests (ab -k)
  --post BYTES   every request is a POST with a body of BYTES bytes (ab and vegeta)
  --csv FILE     tcptrace's CSV (default ./$SC_NAME.csv)
  --json FILE    also tcptrace's JSON lines: its rows and its findings
  --conf FILE    the proxy's configuration instead of $PROXY_CONF
  --sysctl NAME=VALUE
                 set NAME in the namespace, after the scenario's own settings
                 (${SYSCTLS[*]}); repeatable
  --truth FILE   also write what the kernel counted in the namespace over the
                 run (nstat, ss), the load generator's counts and each role's PIDs
  --min-time SECONDS
                 wrk is stopped no earlier than this (default $MIN_TIME): its
                 connects that a full listen queue dropped send their SYN again
                 a second later, and a wrk done with its requests before that
                 closes them unanswered
EOF
	exit 2
}

sc_log() { printf '%s: %s\n' "$SC_NAME" "$*" >&2; }
sc_fail() { sc_log "$*"; exit 1; }
sc_bad_usage() { sc_log "$*"; exit 2; }
sc_in_ns() { ip netns exec "$SC_NS" "$@"; }
sc_is_count() { [[ $1 =~ ^[1-9][0-9]{0,7}$ ]]; }

sc_parse_args() {
	while [ $# -gt 0 ]; do
		case $1 in
		-n) [ $# -ge 2 ] && sc_is_count "$2" || sc_usage; REQUESTS=$2; shift 2 ;;
		-c) [ $# -ge 2 ] && sc_is_count "$2" || sc_usage; CONCURRENCY=$2; shift 2 ;;
		-t) [ $# -ge 2 ] && sc_is_count "$2" || sc_usage; TIME_LIMIT=$2; shift 2 ;;
		--load) [ $# -ge 2 ] && [[ $2 == ab || $2 == wrk || $2 == vegeta ]] || sc_usage; LOAD=$2; shift 2 ;;
		-r) [ $# -ge 2 ] && sc_is_count "$2" || sc_usage; RATE=$2; shift 2 ;;
		-k) KEEPALIVE=1; shift ;;
		--post) [ $# -ge 2 ] && sc_is_count "$2" || sc_usage; POST_BYTES=$2; shift 2 ;;
		--csv) [ $# -ge 2 ] || sc_usage; CSV=$2; shift 2 ;;
		--json) [ $# -ge 2 ] || sc_usage; JSON=$2; shift 2 ;;
		--conf) [ $# -ge 2 ] || sc_usage; PROXY_CONF=$2; shift 2 ;;
		--sysctl) [ $# -ge 2 ] && [[ $2 == ?*=* ]] || sc_usage; SYSCTLS+=("$2"); shift 2 ;;
		--truth) [ $# -ge 2 ] || sc_usage; TRUTH=$2; shift 2 ;;
		--min-time) [ $# -ge 2 ] && sc_is_count "$2" || sc_usage; MIN_TIME=$2; shift 2 ;;
		*) sc_usage ;;
		esac
	done
	[ "$CONCURRENCY" -le "$REQUESTS" ] || sc_fail "-c must not exceed -n"
	[ "$KEEPALIVE" -eq 0 ] || [ "$LOAD" = ab ] || sc_bad_usage "-k is for ab only"
	[ "$MIN_TIME" -eq 0 ] || [ "$LOAD" = wrk ] || sc_bad_usage "--min-time is for wrk only"
	[ "$MIN_TIME" -lt "$TIME_LIMIT" ] || sc_bad_usage "--min-time must be below -t"
	[ "$POST_BYTES" -eq 0 ] || [ "$LOAD" != wrk ] || sc_bad_usage "--post is for ab and vegeta only"
	if [ "$LOAD" = vegeta ]; then
		[ $((REQUESTS * 1000 % RATE)) -eq 0 ] ||
			sc_bad_usage "-n $REQUESTS at -r $RATE is not a whole number of milliseconds"
		[ $((REQUESTS * 1000 / RATE)) -le $((TIME_LIMIT * 1000)) ] ||
			sc_bad_usage "-n $REQUESTS at -r $RATE takes longer than -t $TIME_LIMIT"
	fi
	CSV=${CSV:-$PWD/$SC_NAME.csv}
}

# Stop every process in the namespace (servers, a load generator cut
# short), then remove the namespace and the run directory. tcptrace ends
# with its load run, in the foreground.
sc_cleanup() {
	local pid i
	if [ -n "$SC_NS" ]; then
		for pid in $(ip netns pids "$SC_NS" 2>/dev/null); do kill -TERM "$pid" 2>/dev/null; done
		for i in $(seq 40); do [ -z "$(ip netns pids "$SC_NS" 2>/dev/null)" ] && break; sleep 0.05; done
		for pid in $(ip netns pids "$SC_NS" 2>/dev/null); do kill -KILL "$pid" 2>/dev/null; done
		ip netns del "$SC_NS" 2>/dev/null
		SC_NS=""
	fi
	[ -n "$SC_RUN" ] && rm -rf "$SC_RUN"
	SC_RUN=""
}

sc_init() {
	sc_parse_args "$@"
	local tool
	local tools=(ip ss nstat timeout "$LOAD")
	[ "$LOAD" = vegeta ] && tools+=(jq)
	for tool in "${tools[@]}"; do
		command -v "$tool" >/dev/null || sc_fail "missing $tool (tools/install-deps.sh installs it)"
	done
	[ -x "$TCPTRACE" ] || sc_fail "missing $TCPTRACE: run make first"
	trap sc_cleanup EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
	SC_RUN=$(mktemp -d "/tmp/tcptrace-$SC_NAME.XXXXXX") || sc_fail "cannot make a run directory"
	export NSTAT_HISTORY=$SC_RUN/nstat.history
	SC_NS=tt-$SC_NAME-$$
	ip netns add "$SC_NS" || { SC_NS=""; sc_fail "cannot create a network namespace"; }
	ip -n "$SC_NS" link set lo up
	local setting
	for setting in "${SYSCTLS[@]}"; do
		sc_in_ns sysctl -qw "$setting" || sc_fail "cannot set $setting in the namespace"
	done
}

# A configuration file: a path as given, else a name in tools/scenarios.
sc_conf() {
	if [[ $1 == */* ]]; then
		[ -f "$1" ] || sc_fail "no configuration file $1"
		realpath "$1"
	else
		[ -f "$SC_DIR/$1" ] || sc_fail "no configuration file $SC_DIR/$1"
		echo "$SC_DIR/$1"
	fi
}

sc_listening() { sc_in_ns ss -tlnH "( sport = :$1 )" | grep -q .; }

# The PID and every descendant of it, one a line.
sc_tree() {
	local child
	echo "$1"
	for child in $(pgrep -P "$1"); do sc_tree "$child"; done
}

# Start a server in the namespace as ROLE; returns once it listens on PORT
# and has its full set of processes (workers are forked after the bind).
sc_start() { # role port processes command...
	local role=$1 port=$2 procs=$3 pid i
	shift 3
	# ip netns exec execs the server: $! is the server itself.
	ip netns exec "$SC_NS" "$@" >"$SC_RUN/$role.out" 2>&1 &
	pid=$!
	SC_ROLES+=("$role")
	SC_ROOT[$role]=$pid
	SC_PORT[$role]=$port
	for i in $(seq 400); do # 20 s: a loaded machine starts servers slowly
		kill -0 "$pid" 2>/dev/null || break
		sc_listening "$port" && [ "$(sc_tree "$pid" | wc -l)" -ge "$procs" ] && return 0
		sleep 0.05
	done
	sc_fail "$role ($1) did not start: $(tail -n 5 "$SC_RUN/$role.out" "$SC_RUN/$role"/*.log 2>/dev/null)"
}

# nginx from CONF under tools/scenarios, its prefix (logs, pid) private to ROLE.
sc_nginx() { # role conf port
	local conf
	conf=$(sc_conf "$2") || exit 1
	mkdir -p "$SC_RUN/$1/tmp"
	sc_start "$1" "$3" 3 nginx -p "$SC_RUN/$1/" -c "$conf" -e "$SC_RUN/$1/error.log" -g 'daemon off;'
}

sc_haproxy() { # role conf port
	local conf
	conf=$(sc_conf "$2") || exit 1
	sc_start "$1" "$3" 1 haproxy -db -f "$conf"
}

# The slow backend (slow-backend.py): every answer after DELAY_MS.
sc_slow_backend() { # role port delay-ms
	command -v python3 >/dev/null || sc_fail "missing python3"
	sc_start "$1" "$2" 1 python3 "$SC_DIR/slow-backend.py" "$2" "$3"
}

# Apache httpd with its ServerRoot (pid file, error log) private to ROLE.
sc_apache() { # role conf port
	local conf
	command -v apache2 >/dev/null || sc_fail "missing apache2 (tools/install-deps.sh installs it)"
	conf=$(sc_conf "$2") || exit 1
	mkdir -p "$SC_RUN/$1"
	sc_start "$1" "$3" 3 apache2 -d "$SC_RUN/$1" -f "$conf" -DFOREGROUND
}

# hitch with a throwaway self-signed certificate (EC P-256, one day).
sc_hitch() { # role conf port
	command -v hitch >/dev/null || sc_fail "missing hitch (tools/install-deps.sh installs it)"
	command -v openssl >/dev/null || sc_fail "missing openssl (tools/install-deps.sh installs it)"
	local dir=$SC_RUN/$1 conf
	conf=$(sc_conf "$2") || exit 1
	mkdir -p "$dir"
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 1 \
		-subj /CN=127.0.0.1 -keyout "$dir/key.pem" -out "$dir/cert.pem" >"$dir/openssl.log" 2>&1 ||
		sc_fail "openssl could not make a certificate: $(tail -n 3 "$dir/openssl.log")"
	cat "$dir/key.pem" "$dir/cert.pem" >"$dir/hitch.pem"
	sc_start "$1" "$3" 2 hitch --config="$conf" "$dir/hitch.pem"
}

# The load command, run in the namespace, bounded in requests and time;
# timeout ends it if it hangs. A wrapper writes the load generator's PID to
# load.pid. vegeta sends exactly RATE x its duration requests. wrk stops
# sending after REQUESTS responses (wrk-requests.lua), but its main thread
# sleeps for all of -d: SIGINT, sent until wrk has gone (not before
# --min-time), ends that sleep.
# From the wrapper, not from wrk's Lua: a process wrk started would hold
# wrk's sockets open after it exits. Once the load generator is gone, the
# wrapper waits (10 s at most) until no listener of the namespace has a
# connection waiting in its accept queue: a server that had stopped
# accepting (haproxy at maxconn, nginx out of descriptors) takes and closes
# the ones the load left there while tcptrace still traces it. Then (10 s
# at most) until no socket is connecting or closing and the timewait
# sockets stay as many for 0.2 s: tcptrace's last look at them comes after
# the last close. A proxy that takes the last queued connections late then
# connects upstream for them, each connect a second or more when the
# backend's queue is full too: ending before those ended left them to the
# kernel's counters and not to tcptrace's (17 of 2169 once, on a busy
# machine).
sc_load_cmd() { # url
	local done_file=$SC_RUN/wrk.done
	SC_LOAD=(timeout -k 5 "$((TIME_LIMIT + 10))" bash -c '
		pid_file=$1 done_file=$2 min_time=$3
		shift 3
		"$@" &
		load=$!
		echo "$load" >"$pid_file"
		while kill -0 "$load" 2>/dev/null; do
			[ -e "$done_file" ] && [ "$SECONDS" -ge "$min_time" ] && kill -INT "$load"
			sleep 0.1
		done
		wait "$load"
		rc=$?
		for i in $(seq 100); do
			ss -ltnH | awk "\$2 > 0 { q = 1 } END { exit !q }" || break
			[ "$i" -lt 100 ] || echo "load-bounded: connections still queued after 10 s" >&2
			sleep 0.1
		done
		tw=-1
		for i in $(seq 50); do
			now=$(ss -tanH state time-wait | wc -l)
			busy=$(ss -tanH state syn-sent state syn-recv state fin-wait-1 state closing \
				state last-ack | awk "{ n[\$1]++ } END { for (s in n) printf \"%s %d \", s, n[s] }")
			[ "$now" = "$tw" ] && [ -z "$busy" ] && break
			[ "$i" -lt 50 ] || echo "load-bounded: sockets still busy after 10 s: $busy" >&2
			tw=$now
			sleep 0.2
		done
		exit "$rc"' load-bounded "$SC_RUN/load.pid" "$done_file" "$MIN_TIME")
	# The load generator runs under a name of its own, ab.PID or wrk.PID of
	# this script (a link's name is the command name), so that tracing it
	# by name catches no other ab or wrk on the host.
	SC_LOAD_NAME=$LOAD.$$
	mkdir -p "$SC_RUN/bin"
	ln -sf "$(command -v "$LOAD")" "$SC_RUN/bin/$SC_LOAD_NAME"
	local body=$SC_RUN/body
	[ "$POST_BYTES" -gt 0 ] && head -c "$POST_BYTES" /dev/zero | tr '\0' x >"$body"
	case $LOAD in
	ab)
		# -t before -n: -t alone would mean 50000 requests.
		# -g: each request's times, its connect's among them (ctime, ms).
		SC_LOAD+=("$SC_RUN/bin/$SC_LOAD_NAME" -q -r -t "$TIME_LIMIT" -n "$REQUESTS" -c "$CONCURRENCY" -s 10
			-g "$SC_RUN/ab-requests.tsv")
		[ "$KEEPALIVE" -eq 1 ] && SC_LOAD+=(-k)
		[ "$POST_BYTES" -gt 0 ] && SC_LOAD+=(-p "$body" -T application/octet-stream)
		SC_LOAD+=("$1") ;;
	wrk)
		SC_LOAD+=("$SC_RUN/bin/$SC_LOAD_NAME" -t1 -c "$CONCURRENCY" -d "${TIME_LIMIT}s" --timeout 10s
			-s "$SC_DIR/wrk-requests.lua" "$1" -- "$REQUESTS" "$done_file") ;;
	vegeta)
		if [ "$POST_BYTES" -gt 0 ]; then
			printf 'POST %s\nContent-Type: application/octet-stream\n@%s\n' "$1" "$body"
		else
			printf 'GET %s\n' "$1"
		fi >"$SC_RUN/targets"
		SC_LOAD+=("$SC_RUN/bin/$SC_LOAD_NAME" attack -targets "$SC_RUN/targets" -rate "$RATE/1s"
			-duration "$((REQUESTS * 1000 / RATE))ms" -keepalive=false -timeout 10s
			-output "$SC_RUN/vegeta.results") ;;
	esac
}

# tcptrace over one load run, in run mode: it starts the load generator in
# the namespace once tracing is attached and ends when the closes the load
# caused have settled. Every process of every role is traced by PID (a
# name would also catch other nginx or haproxy processes on the host), and
# the load generator by its own name (sc_load_cmd): its PID is not known
# before it starts, and only with its side counted too (a timewait socket
# of its own that a late RST removes, for one) do the totals match the
# kernel's.
sc_run() { # url
	local role pids="" rc json=()
	for role in "${SC_ROLES[@]}"; do
		SC_PIDS[$role]=$(sc_tree "${SC_ROOT[$role]}" | paste -sd,)
		pids=${pids:+$pids,}${SC_PIDS[$role]}
		sc_log "$role: $(sed -n 1p "/proc/${SC_ROOT[$role]}/comm") PIDs ${SC_PIDS[$role]}"
	done
	sc_load_cmd "$1"
	[ -n "$JSON" ] && json=(--json "$JSON")
	"$TCPTRACE" -p "$pids,$SC_LOAD_NAME" --csv "$CSV" "${json[@]}" -- \
		bash -c 'out=$1; shift; exec "$@" >"$out" 2>&1' load "$SC_RUN/load.out" \
		ip netns exec "$SC_NS" "${SC_LOAD[@]}" | tee "$SC_RUN/tracer.out"
	rc=${PIPESTATUS[0]}
	sc_load_summary
	[ "$SHOW_LOAD" -eq 1 ] && sc_show_load
	# Also after a failed load: what the kernel counted says why.
	[ -n "$TRUTH" ] && sc_write_truth
	[ "$rc" -eq 0 ] || sc_fail "tcptrace -- $LOAD exited with $rc: $(tail -n 3 "$SC_RUN/load.out")"
	sc_log "CSV written to $CSV"
}

# The load generator's own report, as it printed it: ab's connection
# times (its Connect: row is the wait for the handshake), wrk's latency and
# socket errors (connect, read, write, timeout).
sc_show_load() {
	echo
	case $LOAD in
	ab) sed -n '/^Time taken/p; /^Complete requests:/p; /^Failed requests:/p; /^   (Connect:/p
		/^Non-2xx/p; /^Connection Times/,/^Total:/p' "$SC_RUN/load.out" ;;
	wrk) sed -n '/^Running /,$p' "$SC_RUN/load.out" ;;
	vegeta) vegeta report "$SC_RUN/vegeta.results" ;;
	esac
}

# What the load generator says it did: LOAD_REQUESTS and LOAD_NON2XX.
sc_load_summary() {
	case $LOAD in
	ab)
		LOAD_REQUESTS=$(awk '/^Complete requests:/ { print $3 }' "$SC_RUN/load.out")
		LOAD_NON2XX=$(awk '/^Non-2xx responses:/ { print $3 }' "$SC_RUN/load.out")
		# Connect: min mean [+/-sd] median max, in ms.
		LOAD_CONNECT_MAX=$(awk '$1 == "Connect:" { print $NF }' "$SC_RUN/load.out")
		# The connections it timed (a row each after a header: starttime,
		# seconds, ctime, dtime, ttime, wait), and those whose connect
		# took a second or more. It times the first -n it closes; one
		# still open when those are done is not among them.
		# And those just under a second (990 to 999 ms), which a
		# comparison with the kernel's own times may want to see.
		read -r LOAD_TIMED_CONNECTS LOAD_SLOW_CONNECTS LOAD_NEAR_SECOND_CONNECTS < <(awk -F'\t' \
			'NR > 1 { n++; if ($3 >= 1000) slow++; else if ($3 >= 990) near++ }
			END { print n + 0, slow + 0, near + 0 }' "$SC_RUN/ab-requests.tsv" 2>/dev/null) ;;
	wrk)
		LOAD_REQUESTS=$(awk '/ requests in / { print $1 }' "$SC_RUN/load.out")
		LOAD_NON2XX=$(awk '/^  Non-2xx or 3xx responses:/ { print $5 }' "$SC_RUN/load.out")
		# Socket errors: connect C, read R, write W, timeout T
		LOAD_TIMEOUTS=$(sed -n 's/.*Socket errors:.* timeout \([0-9]*\).*/\1/p' "$SC_RUN/load.out")
		LOAD_CONNECT_ERRORS=$(sed -n 's/.*Socket errors: connect \([0-9]*\),.*/\1/p' "$SC_RUN/load.out") ;;
	vegeta)
		# Status 0 counts the requests that got no response.
		vegeta report -type=json "$SC_RUN/vegeta.results" >"$SC_RUN/vegeta.json" ||
			sc_fail "vegeta report could not read vegeta's results"
		LOAD_REQUESTS=$(jq '.requests' "$SC_RUN/vegeta.json")
		LOAD_NON2XX=$(jq '[.status_codes | to_entries[] | select(.key | test("^2") | not) | .value] | add // 0' \
			"$SC_RUN/vegeta.json") ;;
	esac
	LOAD_REQUESTS=${LOAD_REQUESTS:-0}
	LOAD_NON2XX=${LOAD_NON2XX:-0}
	LOAD_CONNECT_MAX=${LOAD_CONNECT_MAX:-0}
	LOAD_SLOW_CONNECTS=${LOAD_SLOW_CONNECTS:-0}
	LOAD_TIMED_CONNECTS=${LOAD_TIMED_CONNECTS:-0}
	LOAD_NEAR_SECOND_CONNECTS=${LOAD_NEAR_SECOND_CONNECTS:-0}
	LOAD_TIMEOUTS=${LOAD_TIMEOUTS:-0}
	LOAD_CONNECT_ERRORS=${LOAD_CONNECT_ERRORS:-0}
	sc_log "$LOAD: $LOAD_REQUESTS requests, $LOAD_NON2XX answered with an error status"
}

# Lines of ROLE's logs that report errno 99 (EADDRNOTAVAIL), in nginx's form
# "(99: Cannot assign requested address)" or Apache's "(99)Cannot assign".
sc_errno99_lines() { # role
	cat "$SC_RUN/$1"/*.log "$SC_RUN/$1.out" 2>/dev/null | grep -cE '\(99(: |\))'
}

# Lines of ROLE's logs that report errno 24 (EMFILE, out of file
# descriptors): all of them, or those of accept() only (nginx's
# "accept4() failed (24: Too many open files)").
sc_errno24_lines() { # role [accept]
	cat "$SC_RUN/$1"/*.log "$SC_RUN/$1.out" 2>/dev/null | grep '(24: ' |
		if [ "${2:-}" = accept ]; then grep -c 'accept4\?() failed'; else grep -c .; fi
}

# The HTTP statuses ROLE logged, if it logs requests (haproxy's option
# httplog): "200:995 503:5".
sc_http_statuses() { # role
	sed -n 's/.*\] [^ ]* [^ ]* [-0-9]*\/[-0-9]*\/[-0-9]*\/[-0-9]*\/+\?[0-9]* \([0-9][0-9][0-9]\) .*/\1/p' \
		"$SC_RUN/$1.out" 2>/dev/null | sort | uniq -c | awk '{ printf "%s%s:%s", (NR > 1 ? " " : ""), $2, $1 }'
}

# Timewait sockets held now in the namespace whose local (sport) or
# remote (dport) port is PORT.
sc_tw_held() { # sport|dport port
	sc_in_ns ss -tanH state time-wait "( $1 = :$2 )" | wc -l
}

# Timewait sockets still in FIN-WAIT-2 (ss shows their timewait timer)
# once every peer has closed: the peer's FIN came while the kernel was
# putting the timewait socket in the full socket's place, found neither,
# and was answered with an RST for no socket (docs/testing.md).
sc_tw_fin_lost() { # sport|dport port
	sc_in_ns ss -tanoH state fin-wait-2 "( $1 = :$2 )" | grep -c 'timer:(timewait'
}

# What ss -ltm shows of the listeners on PORT: their drops (skmem's d, the
# listeners' own sk_drops), summed, and their accept queue's limit (Send-Q).
sc_listen_drops() { # port
	sc_in_ns ss -ltmnH "( sport = :$1 )" | sed -n 's/.*skmem:(.*,d\([0-9]*\)).*/\1/p' |
		awk '{ s += $1 } END { print s + 0 }'
}

# Connections in its accept queue now, that no process took (Recv-Q).
sc_listen_queued() { # port
	sc_in_ns ss -ltnH "( sport = :$1 )" | awk '{ s += $2 } END { print s + 0 }'
}

sc_listen_limit() { # port
	sc_in_ns ss -ltnH "( sport = :$1 )" | awk 'NR == 1 { print $3 }'
}

# Processes in the namespace that are no role's, as "PID:comm".
sc_strays() {
	local pid all=",${SC_PIDS[*]},"
	all=${all// /,}
	for pid in $(ip netns pids "$SC_NS"); do
		[[ $all == *",$pid,"* ]] || printf '%s:%s ' "$pid" "$(cat "/proc/$pid/comm" 2>/dev/null)"
	done
}

# key=value lines a test can source: kernel counters of the namespace (it
# is new, so they count this run only), ss, the load generator, the roles.
sc_write_truth() {
	local role netns
	netns=$(stat -L -c %i "/run/netns/$SC_NS")
	{
		# One nstat call: all counters read at one moment.
		sc_in_ns nstat -az TcpActiveOpens TcpPassiveOpens TcpAttemptFails TcpOutRsts TcpExtTW \
			TcpExtTWKilled TcpExtTWRecycled TcpExtTCPTimeWaitOverflow TcpExtTCPAbortOnClose \
			TcpExtTCPAbortOnData TcpExtListenDrops TcpExtListenOverflows TcpExtTCPSynRetrans \
			TcpExtSyncookiesSent TcpExtSyncookiesRecv TcpExtSyncookiesFailed \
			TcpExtTCPReqQFullDrop TcpExtTCPReqQFullDoCookies |
			awk '$1 ~ /^Tcp/ { print $1 "=" $2 }'
		echo "somaxconn=$(sc_in_ns sysctl -n net.core.somaxconn)"
		echo "syncookies=$(sc_in_ns sysctl -n net.ipv4.tcp_syncookies)"
		echo "ss_timewait=$(sc_in_ns ss -tanH state time-wait | wc -l)"
		# RSTs no traced process sent (those of no socket, mostly), as
		# tcptrace reports them for this namespace at exit.
		echo "rsts_no_process=$(awk -v ns="$netns:" '$1 == "RSTs" && $8 == ns { s = $9 } END { print s + 0 }' "$SC_RUN/tracer.out")"
		# Processes of the namespace that belong to no role: the load
		# generator should have ended before tcptrace did.
		echo "strays=\"$(sc_strays)\""
		# The run's end came before the namespace settled (see sc_load_cmd).
		echo "unsettled=\"$(grep '^load-bounded:' "$SC_RUN/load.out" | tr '\n' ' ')\""
		echo "load=$LOAD"
		echo "load_requests=$LOAD_REQUESTS"
		echo "load_non2xx=$LOAD_NON2XX"
		echo "load_connect_max=$LOAD_CONNECT_MAX"
		echo "load_slow_connects=$LOAD_SLOW_CONNECTS"
		echo "load_timed_connects=$LOAD_TIMED_CONNECTS"
		echo "load_near_second_connects=$LOAD_NEAR_SECOND_CONNECTS"
		echo "load_timeouts=$LOAD_TIMEOUTS"
		echo "load_connect_errors=$LOAD_CONNECT_ERRORS"
		echo "requests=$REQUESTS"
		echo "roles=\"${SC_ROLES[*]}\""
		local load_pid all
		load_pid=$(cat "$SC_RUN/load.pid" 2>/dev/null)
		echo "pids_load=$load_pid"
		all=$load_pid
		[ "$LOAD" = vegeta ] && echo "rate=$RATE"
		for role in "${SC_ROLES[@]}"; do
			echo "pids_$role=${SC_PIDS[$role]}"
			# TIME_WAIT held now on ROLE's accepted side (its port is
			# the local one), and on the side of those that connect to it.
			echo "ss_tw_accepted_$role=$(sc_tw_held sport "${SC_PORT[$role]}")"
			echo "ss_tw_toward_$role=$(sc_tw_held dport "${SC_PORT[$role]}")"
			# Timewait sockets toward it still in FIN-WAIT-2: their
			# peer's FIN met no socket (sc_tw_fin_lost).
			echo "ss_tw_fin_lost_toward_$role=$(sc_tw_fin_lost dport "${SC_PORT[$role]}")"
			# Every state ss shows toward it (a timewait socket whose
			# peer's FIN never came shows as FIN-WAIT-2).
			echo "ss_states_toward_$role=\"$(sc_in_ns ss -tanH "( dport = :${SC_PORT[$role]} )" |
				awk '{ n[$1]++ } END { for (s in n) printf "%s:%d ", s, n[s] }')\""
			echo "errno99_$role=$(sc_errno99_lines "$role")"
			echo "errno24_$role=$(sc_errno24_lines "$role")"
			echo "statuses_$role=\"$(sc_http_statuses "$role")\""
			echo "errno24_accept_$role=$(sc_errno24_lines "$role" accept)"
			echo "ss_drops_$role=$(sc_listen_drops "${SC_PORT[$role]}")"
			echo "ss_limit_$role=$(sc_listen_limit "${SC_PORT[$role]}")"
			echo "ss_queued_$role=$(sc_listen_queued "${SC_PORT[$role]}")"
			echo "ss_states_$role=\"$(sc_in_ns ss -tanH "( sport = :${SC_PORT[$role]} )" | awk '{ n[$1]++ } END { for (s in n) printf "%s:%d ", s, n[s] }')\""
			all=$all,${SC_PIDS[$role]}
		done
		echo "pids_all=$all"
	} >"$TRUTH"
}
