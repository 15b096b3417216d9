#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# Overhead benchmark: what attaching a TCP tracer costs a proxy under load.
#
# Interleaved rounds; each round runs every variant once, in an order that
# rotates from round to round:
#   none          no tracer
#   tcptrace      ./tcptrace -p haproxy,nginx
#   tcptrace-haproxy ./tcptrace -p haproxy: the proxy alone (haproxy targets only)
#   tcptrace-all  ./tcptrace (every process)
#   tcptrace-nested ./tcptrace --catch-nested -p haproxy,nginx
#   tcptrace-base $TCPTRACE_BASE -p haproxy,nginx: another build (an older
#                 commit's), for before and after in one interleaved run
#   tcptrace-base-haproxy $TCPTRACE_BASE -p haproxy (haproxy targets only)
#   floor         build/hookcost floor: tcptrace's five raw tracepoints with
#                 empty programs, the least a tracer on them can cost
#   tcpstates     libbpf-tools tcpstates, output to /dev/null
#   bpftrace      bench/count-tcp-tracepoints.bt (counts into maps)
# against four targets: haproxy in front of nginx, and nginx alone, loaded by
# ab with a new connection per request, and the same two with kept-alive
# connections (ab -k; haproxy pools its upstream connections); and, asked
# for, pileup: bench/pileup.sh, timewait sockets piled up while tcptrace
# (and the base build) traces their owners, its own CPU against how many
# are held (no ab, no BPF statistics). Every run gets a fresh network
# namespace with its own servers, so no TIME_WAIT is left from the run before.
# Per run it records ab's req/s, the tracer's CPU time (utime+stime from
# /proc/PID/stat) and peak RSS (VmHWM) over the load window, and the run_cnt
# and run_time_ns of the tracer's BPF programs (kernel.bpf_stats_enabled=1).
# It prints figures; it asserts nothing.
#
#   bench/run.sh [--quick] [-r ROUNDS] [-n REQUESTS] [-k REQUESTS] [-c CONCURRENCY]
#                [--targets LIST] [--variants LIST] [--out DIR]
#                [--nice N] [--no-bpf-stats]
#
# Root only. See bench/README.md for the columns and the figures measured.
set -u
export LC_ALL=C

BENCH=$(cd "$(dirname "$0")" && pwd)
MEDIAN_AWK=$(cat "$BENCH/median.awk")
TOP=$(cd "$BENCH/.." && pwd)
TCPTRACE=${TCPTRACE:-$TOP/tcptrace}
TCPTRACE_BASE=${TCPTRACE_BASE:-}
HOOKCOST=${HOOKCOST:-$TOP/build/hookcost}
TCPSTATES=${TCPSTATES:-/usr/sbin/tcpstates}
BPFTRACE=${BPFTRACE:-bpftrace}
BT_SCRIPT=${BT_SCRIPT:-$BENCH/count-tcp-tracepoints.bt}
HAPROXY_CFG=$TOP/tools/scenarios/haproxy.cfg
HAPROXY_POOLED_CFG=$BENCH/haproxy-pooled.cfg
NGINX_CONF=$TOP/tools/scenarios/nginx-backend.conf

ROUNDS=5
REQUESTS=30000     # a new connection each
KA_REQUESTS=100000 # over kept-alive connections (the *-keepalive targets)
CONCURRENCY=50
TARGETS=haproxy,nginx,haproxy-keepalive,nginx-keepalive
VARIANTS=none,tcptrace,tcptrace-haproxy,tcptrace-all,floor,tcpstates,bpftrace
OUT=$BENCH/results
PILEUP_TARGET=${PILEUP_TARGET:-175000} # timewait sockets the pileup target piles up
LOAD_TIMEOUT=120 # seconds one ab run may take at most
SETTLE=1         # seconds between a tracer being loaded and the load starting
BPF_STATS=1      # 0: leave kernel.bpf_stats_enabled alone (--no-bpf-stats)
NICE=0

RUN=""             # scratch directory, removed at exit
NS=""              # the network namespace of the current run
TRACER_PID=""      # the tracer of the current run
LOAD_PID=""        # the current ab (its timeout wrapper)
STATS_BEFORE=""    # kernel.bpf_stats_enabled as found
MOUNTED_TRACEFS=0  # 1 if this script mounted tracefs
NS_SEQ=0

usage() {
	cat >&2 <<EOF
usage: $0 [--quick] [-r ROUNDS] [-n REQUESTS] [-k REQUESTS] [-c CONCURRENCY]
          [--targets LIST] [--variants LIST] [--out DIR] [--nice N] [--no-bpf-stats]
  --quick       5 rounds of 5000 requests, 20000 kept alive (about 5 minutes)
  -r ROUNDS     rounds, each running every variant once (default $ROUNDS)
  -n REQUESTS   requests per run, one connection each (default $REQUESTS)
  -k REQUESTS   requests per run of a keepalive target (default $KA_REQUESTS)
  -c N          ab concurrency (default $CONCURRENCY)
  --targets     from haproxy (haproxy in front of nginx), nginx, haproxy-keepalive,
                nginx-keepalive (default: all four), pileup (timewait sockets
                held: tcptrace's and tcptrace-base's CPU, PILEUP_TARGET of them)
  --variants    from none,tcptrace,tcptrace-haproxy,tcptrace-all,tcptrace-nested,
                tcptrace-base,tcptrace-base-haproxy,floor,tcpstates,bpftrace
                (default: all but tcptrace-nested and the base ones)
  --out DIR     where the CSV files go (default bench/results)
  --nice N      run servers, ab and tracers at this nice value (default 0)
  --no-bpf-stats  leave kernel.bpf_stats_enabled alone: no BPF columns, no
                cost of the statistics on the tracers
EOF
	exit 2
}

log() { echo "$*" >&2; }
fail() { log "bench: $*"; exit 1; }

. "$BENCH/netns.sh"

is_count() { [[ $1 =~ ^[1-9][0-9]{0,8}$ ]]; }

parse_args() {
	while [ $# -gt 0 ]; do
		case $1 in
		--quick) ROUNDS=5; REQUESTS=5000; KA_REQUESTS=20000; SETTLE=0.5; shift ;;
		-r|--rounds) [ $# -ge 2 ] && is_count "$2" || usage; ROUNDS=$2; shift 2 ;;
		-n|--requests) [ $# -ge 2 ] && is_count "$2" || usage; REQUESTS=$2; shift 2 ;;
		-k|--keepalive-requests) [ $# -ge 2 ] && is_count "$2" || usage; KA_REQUESTS=$2; shift 2 ;;
		-c|--concurrency) [ $# -ge 2 ] && is_count "$2" || usage; CONCURRENCY=$2; shift 2 ;;
		--targets) [ $# -ge 2 ] || usage; TARGETS=$2; shift 2 ;;
		--variants) [ $# -ge 2 ] || usage; VARIANTS=$2; shift 2 ;;
		--out) [ $# -ge 2 ] || usage; OUT=$2; shift 2 ;;
		--no-bpf-stats) BPF_STATS=0; shift ;;
		--nice) [ $# -ge 2 ] && [[ $2 =~ ^-?[0-9]{1,2}$ ]] && [ "$2" -ge -20 ] && [ "$2" -le 19 ] || usage
			NICE=$2; shift 2 ;;
		-h|--help) usage ;;
		*) log "bench: unknown option $1"; usage ;;
		esac
	done
	local t v
	for t in ${TARGETS//,/ }; do
		case $t in haproxy|nginx|haproxy-keepalive|nginx-keepalive|pileup) ;;
		*) log "bench: unknown target $t"; usage ;; esac
	done
	for v in ${VARIANTS//,/ }; do
		case $v in none|tcptrace|tcptrace-haproxy|tcptrace-all|tcptrace-nested|tcptrace-base|\
			tcptrace-base-haproxy|floor|tcpstates|bpftrace) ;;
		*) log "bench: unknown variant $v"; usage ;; esac
	done
	[[ ,$VARIANTS, == *,none,* || ,$TARGETS, == ,pileup, ]] ||
		fail "--variants must include none: ratios are taken against it"
	[ "$CONCURRENCY" -le "$REQUESTS" ] && [ "$CONCURRENCY" -le "$KA_REQUESTS" ] ||
		fail "-c must not exceed -n nor -k"
}

has_variant() { [[ ,$VARIANTS, == *,$1,* ]]; }

check_tools() {
	local tool
	for tool in ip ab haproxy nginx bpftool timeout ss; do
		command -v "$tool" >/dev/null || fail "missing $tool (tools/install-deps.sh installs it)"
	done
	if has_variant floor; then
		[ -x "$HOOKCOST" ] || fail "missing $HOOKCOST: run make hookcost first, or leave floor out of --variants"
	fi
	if has_variant tcptrace || has_variant tcptrace-haproxy || has_variant tcptrace-all ||
		has_variant tcptrace-nested; then
		[ -x "$TCPTRACE" ] || fail "missing $TCPTRACE: run make first"
	fi
	if has_variant tcptrace-base || has_variant tcptrace-base-haproxy; then
		[ -x "$TCPTRACE_BASE" ] || fail "tcptrace-base needs TCPTRACE_BASE, a tcptrace binary to compare with"
	fi
	if has_variant tcpstates; then
		[ -x "$TCPSTATES" ] || fail "missing $TCPSTATES (apt-get install libbpf-tools), or leave tcpstates out of --variants"
	fi
	if has_variant bpftrace; then
		command -v "$BPFTRACE" >/dev/null || fail "missing bpftrace (apt-get install bpftrace), or leave bpftrace out of --variants"
	fi
}

tracefs_mounted() { [ -d /sys/kernel/tracing/events/sock ]; }

# Classic tracepoints (tcpstates, bpftrace) need tracefs. It is checked
# before every such tracer: someone else may unmount it meanwhile.
ensure_tracefs() {
	tracefs_mounted && return 0
	mount -t tracefs nodev /sys/kernel/tracing || fail "cannot mount tracefs on /sys/kernel/tracing"
	MOUNTED_TRACEFS=1
}

setup_host() {
	if [ "$BPF_STATS" -eq 1 ]; then
		STATS_BEFORE=$(sysctl -n kernel.bpf_stats_enabled) || fail "cannot read kernel.bpf_stats_enabled"
		sysctl -qw kernel.bpf_stats_enabled=1 || fail "cannot set kernel.bpf_stats_enabled=1"
	elif [ "$(sysctl -n kernel.bpf_stats_enabled)" = 1 ]; then
		log "bench: warning: kernel.bpf_stats_enabled is 1 (someone else set it): the tracers pay for the statistics anyway"
	fi
	if has_variant tcpstates || has_variant bpftrace; then
		ensure_tracefs
	fi
	RUN=$(mktemp -d /tmp/tcptrace-bench.XXXXXX) || fail "cannot create a scratch directory"
}

stop_pid() {
	local pid=$1 signal=$2 i
	kill -"$signal" "$pid" 2>/dev/null || { wait "$pid" 2>/dev/null; return 0; }
	for i in $(seq 100); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	kill -KILL "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	return 0
}

stop_tracer() {
	[ -n "$TRACER_PID" ] || return 0
	stop_pid "$TRACER_PID" INT
	TRACER_PID=""
}

stop_namespace() {
	if [ -n "$LOAD_PID" ]; then
		kill -TERM "$LOAD_PID" 2>/dev/null
		wait "$LOAD_PID" 2>/dev/null
		LOAD_PID=""
	fi
	[ -n "$NS" ] || return 0
	netns_remove "$NS"
	NS=""
}

cleanup() {
	stop_tracer
	stop_namespace
	[ -n "$STATS_BEFORE" ] && sysctl -qw kernel.bpf_stats_enabled="$STATS_BEFORE"
	[ "$MOUNTED_TRACEFS" -eq 1 ] && umount /sys/kernel/tracing 2>/dev/null
	[ -n "$RUN" ] && rm -rf "$RUN"
}

in_ns() { ip netns exec "$NS" "$@"; }

wait_listening() {
	local i
	for i in $(seq 100); do
		in_ns ss -tlnH "( sport = :$1 )" | grep -q . && return 0
		sleep 0.05
	done
	fail "nothing listens on port $1: $(cat "$RUN"/srv/*.log 2>/dev/null)"
}

# A fresh namespace with its own servers: nginx on 8081, and for the
# haproxy target haproxy on 8080 in front of it. Returns the port to load.
start_servers() {
	local target=$1
	NS_SEQ=$((NS_SEQ + 1))
	NS=ttbench-$$-$NS_SEQ
	ip netns add "$NS" || fail "cannot create network namespace $NS"
	ip -n "$NS" link set lo up
	# Room for every connection of a run without reusing a local port.
	in_ns sysctl -qw net.ipv4.ip_local_port_range="1024 65535"
	rm -rf "$RUN/srv" && mkdir -p "$RUN/srv/tmp"
	in_ns nice -n "$NICE" nginx -p "$RUN/srv/" -c "$NGINX_CONF" -e "$RUN/srv/error.log" \
		-g 'daemon off;' >"$RUN/srv/nginx.log" 2>&1 &
	wait_listening 8081
	case $target in
	haproxy) in_ns nice -n "$NICE" haproxy -db -f "$HAPROXY_CFG" >"$RUN/srv/haproxy.log" 2>&1 & ;;
	haproxy-keepalive) in_ns nice -n "$NICE" haproxy -db -f "$HAPROXY_POOLED_CFG" \
		>"$RUN/srv/haproxy.log" 2>&1 & ;;
	*) return 0 ;;
	esac
	wait_listening 8080
}

target_port() { [[ $1 == haproxy* ]] && echo 8080 || echo 8081; }
keepalive_target() { [[ $1 == *-keepalive ]]; }
requests_of() { keepalive_target "$1" && echo "$KA_REQUESTS" || echo "$REQUESTS"; }
# A variant that traces the proxy alone has nothing to trace without it.
runs_on() { # target variant
	[[ $1 != pileup ]] || [[ $2 == tcptrace || $2 == tcptrace-base ]] || return 1
	[[ $2 != *-haproxy ]] || [[ $1 == haproxy* ]]
}

# The ids of the BPF programs a process holds open, one a line. bpftool's
# "pids" column needs BPF iterators, which this kernel refuses.
prog_ids_of() {
	grep -h '^prog_id:' /proc/"$1"/fdinfo/* 2>/dev/null | awk '{ print $2 }' | sort -un
}

# "id type name run_cnt run_time_ns" for the given program ids (bpftool
# leaves both counters out while they are zero).
bpf_counters() {
	[ $# -gt 0 ] || return 0
	bpftool prog show | awk -v ids=" $* " '
		/^[0-9]+:/ {
			id = $1; sub(":", "", id)
			if (index(ids, " " id " ") == 0) next
			name = "-"; cnt = 0; ns = 0
			for (i = 2; i < NF; i++) {
				if ($i == "name") name = $(i + 1)
				if ($i == "run_cnt") cnt = $(i + 1)
				if ($i == "run_time_ns") ns = $(i + 1)
			}
			print id, $2, name, cnt, ns
		}'
}

# utime + stime of a process, in clock ticks.
cpu_ticks() {
	local stat
	stat=$(cat /proc/"$1"/stat 2>/dev/null) || { echo 0; return; }
	echo "${stat##*) }" | awk '{ print $12 + $13 }'
}

vmhwm_kb() { awk '/^VmHWM:/ { print $2 }' /proc/"$1"/status 2>/dev/null; }

# tcptrace -p wants every NAME to match a running process.
traced_names() { [[ $1 == haproxy* ]] && echo haproxy,nginx || echo nginx; }

start_tracer() {
	local variant=$1 target=$2
	case $variant in
	tcpstates|bpftrace) ensure_tracefs ;;
	esac
	case $variant in
	tcptrace) nice -n "$NICE" "$TCPTRACE" -p "$(traced_names "$target")" >/dev/null 2>"$RUN/tracer.err" & ;;
	tcptrace-haproxy) nice -n "$NICE" "$TCPTRACE" -p haproxy >/dev/null 2>"$RUN/tracer.err" & ;;
	tcptrace-all) nice -n "$NICE" "$TCPTRACE" >/dev/null 2>"$RUN/tracer.err" & ;;
	tcptrace-nested) nice -n "$NICE" "$TCPTRACE" --catch-nested -p "$(traced_names "$target")" \
		>/dev/null 2>"$RUN/tracer.err" & ;;
	tcptrace-base) nice -n "$NICE" "$TCPTRACE_BASE" -p "$(traced_names "$target")" >/dev/null 2>"$RUN/tracer.err" & ;;
	tcptrace-base-haproxy) nice -n "$NICE" "$TCPTRACE_BASE" -p haproxy >/dev/null 2>"$RUN/tracer.err" & ;;
	floor) nice -n "$NICE" "$HOOKCOST" floor >/dev/null 2>"$RUN/tracer.err" & ;;
	tcpstates) nice -n "$NICE" "$TCPSTATES" >/dev/null 2>"$RUN/tracer.err" & ;;
	bpftrace) nice -n "$NICE" "$BPFTRACE" "$BT_SCRIPT" >/dev/null 2>"$RUN/tracer.err" & ;;
	esac
	TRACER_PID=$!
	wait_tracer_loaded "$variant"
}

# Loaded means: the tracer holds BPF programs and their number has not
# changed for half a second. SETTLE more seconds let it attach and finish
# its start-up (tcptrace seeds existing sockets) before the load begins.
wait_tracer_loaded() {
	local i n last=0 stable=0 said=1
	# tcptrace says when it is attached: its programs load one after the
	# other, and one that takes the verifier long would pass for the last.
	case $1 in tcptrace*) said=0 ;; esac
	for i in $(seq 300); do
		kill -0 "$TRACER_PID" 2>/dev/null ||
			fail "$1 exited at start: $(tail -5 "$RUN/tracer.err")"
		[ "$said" -eq 1 ] || grep -q '^tcptrace: tracing' "$RUN/tracer.err" && said=1
		n=$(prog_ids_of "$TRACER_PID" | wc -l)
		if [ "$said" -eq 1 ] && [ "$n" -gt 0 ] && [ "$n" -eq "$last" ]; then
			stable=$((stable + 1))
			[ "$stable" -ge 5 ] && break
		else
			stable=0
		fi
		last=$n
		sleep 0.1
	done
	[ "$n" -gt 0 ] || fail "$1 loaded no BPF program in 30 s: $(tail -5 "$RUN/tracer.err")"
	sleep "$SETTLE"
	kill -0 "$TRACER_PID" 2>/dev/null || fail "$1 exited at start: $(tail -5 "$RUN/tracer.err")"
}

# Runs ab in the background and waits for it, so that Ctrl-C reaches the
# trap at once. Bounded by -n and by LOAD_TIMEOUT.
run_load() {
	local target=$1 keep=()
	keepalive_target "$target" && keep=(-k)
	timeout -k 5 "$LOAD_TIMEOUT" ip netns exec "$NS" nice -n "$NICE" \
		ab -q -r "${keep[@]}" -n "$(requests_of "$target")" -c "$CONCURRENCY" -s 10 \
		"http://127.0.0.1:$(target_port "$target")/" >"$RUN/ab.out" 2>&1 &
	LOAD_PID=$!
	wait "$LOAD_PID"
	local rc=$?
	LOAD_PID=""
	return $rc
}

ab_field() { awk -v k="$1" 'index($0, k) == 1 { sub(/^[^:]*:[ \t]*/, ""); print $1 }' "$RUN/ab.out"; }

ROUNDS_HEADER=round,target,variant,order,requests,concurrency,complete,failed,non_2xx,ab_time_s,req_per_s,ratio_to_none,load_wall_s,tracer_cpu_s,cpu_s_per_s,vmhwm_kb,bpf_progs,bpf_run_cnt,bpf_run_time_ns,events_per_s,events_per_request,ns_per_event,other_tracing_progs,bpf_ns_per_request
PROGS_HEADER=round,target,variant,prog_id,prog_type,prog_name,run_cnt,run_time_ns,ns_per_event

# One run of the pileup target: bench/pileup.sh's figures into
# PILEUP_CSV, its samples (held, CPU ticks, seconds) into PILEUP_SAMPLES.
run_pileup() {
	local round=$1 variant=$2 tracer=$TCPTRACE out line
	[ "$variant" = tcptrace-base ] && tracer=$TCPTRACE_BASE
	out=$("$BENCH/pileup.sh" "$tracer" "$RUN/samples" --target "$PILEUP_TARGET")
	line=$(head -1 <<<"$out")
	log "round $round/$ROUNDS  pileup            $variant  $line"
	# What the tracer said of events it lost or could not count.
	tail -n +2 <<<"$out" | while read -r said; do log "$said"; done
	awk -v r="$round" -v v="$variant" '{ print r "," v "," $0 }' "$RUN/samples" >>"$PILEUP_SAMPLES"
	rm -f "$RUN/samples"
	echo "$round,$variant,$(tr ' ' '\n' <<<"$line" | cut -d= -f2 | paste -sd,)" >>"$PILEUP_CSV"
}

# The pileup target's table: per variant, the median CPU while the
# timewait sockets are held, and its CPU per second by how many were held
# as they piled up, all rounds together.
summarize_pileup() {
	local hz
	hz=$(getconf CLK_TCK)
	echo
	echo "Pile-up of timewait sockets ($PILEUP_TARGET), the tracer's CPU while they are held, median over the rounds:"
	awk -F, "$MEDIAN_AWK"'
		NR > 1 { k = $2; n[k]++; c[k] = c[k] " " $5; h[k] = h[k] " " $3; m[k] += $8
			ok[k] += ($8 == 1 && $6 == $7) }
		END {
			for (k in n)
				printf "  %-14s held %d  cpu %.4f s/s  tw_now = ss in %d of %d rounds checked (%d)\n",
					k, median(h[k]), median(c[k]), ok[k], m[k], n[k]
		}' "$PILEUP_CSV"
	echo "  and as they piled up, cpu s/s by timewait sockets held (all rounds):"
	awk -F, -v hz="$hz" '
		$5 == 1 { b = int($3 / 25000) * 25; t[$2, b] += $4; s[$2, b] += $5; v[$2] = 1 }
		END {
			for (x in v) {
				line = sprintf("  %-14s", x)
				for (b = 0; b <= 300; b += 25)
					if ((x, b) in t) line = line sprintf(" %dk+ %.3f", b, t[x, b] / hz / s[x, b])
				print line
			}
		}' "$PILEUP_SAMPLES"
	echo "Pile-up runs: $PILEUP_CSV"
}

# One run: fresh namespace and servers, the tracer, the load, and the
# counters read just before and just after the load.
run_one() {
	local round=$1 target=$2 variant=$3 order=$4
	if [ "$target" = pileup ]; then
		run_pileup "$round" "$variant"
		return
	fi
	local ids=() t0 t1 ticks0=0 ticks1=0 hwm="" rc others
	local clk_tck
	clk_tck=$(getconf CLK_TCK)

	start_servers "$target"
	if [ "$variant" = none ]; then
		sleep "$SETTLE"
	else
		start_tracer "$variant" "$target"
		mapfile -t ids < <(prog_ids_of "$TRACER_PID")
	fi

	[ "$BPF_STATS" -eq 1 ] && ensure_bpf_stats
	others=$(count_other_tracing_progs "${ids[@]}")
	bpf_counters "${ids[@]}" >"$RUN/bpf.before"
	[ -n "$TRACER_PID" ] && ticks0=$(cpu_ticks "$TRACER_PID")
	t0=$EPOCHREALTIME
	run_load "$target"
	rc=$?
	t1=$EPOCHREALTIME
	if [ -n "$TRACER_PID" ]; then
		ticks1=$(cpu_ticks "$TRACER_PID")
		hwm=$(vmhwm_kb "$TRACER_PID")
		kill -0 "$TRACER_PID" 2>/dev/null || log "bench: warning: $variant died during the load"
	fi
	bpf_counters "${ids[@]}" >"$RUN/bpf.after"
	# Someone may have switched the stats off meanwhile: then the counters
	# of this run mean nothing.
	if [ "$BPF_STATS" -eq 0 ]; then
		: >"$RUN/bpf.before"; : >"$RUN/bpf.after"
	elif [ "$(sysctl -n kernel.bpf_stats_enabled)" != 1 ]; then
		log "bench: warning: kernel.bpf_stats_enabled was reset during the load; no BPF figures for this run"
		: >"$RUN/bpf.before"; : >"$RUN/bpf.after"
	fi
	[ "$rc" -eq 0 ] || log "bench: warning: ab exited with $rc in round $round ($target, $variant): $(tail -2 "$RUN/ab.out" | tr '\n' ' ')"

	stop_tracer
	stop_namespace

	# Per program, then the row for the whole run.
	awk -v r="$round" -v t="$target" -v v="$variant" '
		NR == FNR { cnt[$1] = $4; ns[$1] = $5; next }
		{
			dc = $4 - cnt[$1]; dn = $5 - ns[$1]
			printf "%s,%s,%s,%s,%s,%s,%d,%d,%s\n", r, t, v, $1, $2, $3, dc, dn,
				(dc > 0 ? sprintf("%.1f", dn / dc) : "")
		}' "$RUN/bpf.before" "$RUN/bpf.after" >>"$PROGS_CSV"

	awk -v r="$round" -v t="$target" -v v="$variant" -v o="$order" \
		-v n="$(requests_of "$target")" -v c="$CONCURRENCY" -v t0="$t0" -v t1="$t1" \
		-v complete="$(ab_field 'Complete requests:')" -v failed="$(ab_field 'Failed requests:')" \
		-v non2xx="$(ab_field 'Non-2xx responses:')" -v abtime="$(ab_field 'Time taken for tests:')" \
		-v rps="$(ab_field 'Requests per second:')" -v tracer="${ids[*]:+1}" \
		-v ticks="$((ticks1 - ticks0))" -v hz="$clk_tck" -v hwm="$hwm" -v nprogs="${#ids[@]}" \
		-v others="$others" '
		NR == FNR { cnt[$1] = $4; ns[$1] = $5; next }
		{ dc += $4 - cnt[$1]; dn += $5 - ns[$1]; seen = 1 }
		END {
			wall = t1 - t0
			cpu = ""; cps = ""; evs = ""; evr = ""; nse = ""; dcs = ""; dns = ""; nsr = ""
			if (tracer) {
				cpu = sprintf("%.2f", ticks / hz)
				cps = sprintf("%.4f", ticks / hz / wall)
			}
			if (tracer && seen) {
				dcs = dc + 0; dns = dn + 0
				evs = sprintf("%.0f", dc / wall)
				if (complete > 0) evr = sprintf("%.3f", dc / complete)
				if (complete > 0) nsr = sprintf("%.1f", dn / complete)
				if (dc > 0) nse = sprintf("%.1f", dn / dc)
			}
			printf "%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,,%.3f,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s\n",
				r, t, v, o, n, c, complete, failed, non2xx + 0, abtime, rps, wall,
				cpu, cps, hwm, (tracer ? nprogs : ""), dcs, dns, evs, evr, nse, others, nsr
		}' "$RUN/bpf.before" "$RUN/bpf.after" >>"$ROUNDS_CSV"

	log "$(tail -1 "$ROUNDS_CSV" | awk -F, -v R="$ROUNDS" '{
		line = sprintf("round %s/%s  %-17s %-21s %9s req/s", $1, R, $2, $3, $11)
		if ($14 != "") line = line sprintf("  cpu %.3f s/s  hwm %.1f MB  %8s ev/s  %6s ev/req  %6s ns/ev  %7s ns/req",
			$15, $16 / 1024, $20, $21, $22, $24)
		print line }')"
}

# Fills ratio_to_none (each run over its round's none, same target), then
# writes the summary CSV and prints the table.
summarize() {
	awk -F, -v OFS=, '
		NR == FNR { if (FNR > 1 && $3 == "none") base[$1 "," $2] = $11; next }
		FNR == 1 { print; next }
		{ b = base[$1 "," $2]; $12 = (b > 0 && $11 != "") ? sprintf("%.4f", $11 / b) : ""; print }
	' "$ROUNDS_CSV" "$ROUNDS_CSV" >"$RUN/rounds.csv" && cat "$RUN/rounds.csv" >"$ROUNDS_CSV"

	awk -F, -v targets="$TARGETS" -v variants="$VARIANTS" "$MEDIAN_AWK"'
		function add(k, f, v) { if (v != "") L[k, f] = L[k, f] " " v }
		function fmt(f, k, name) { return L[k, name] == "" ? "" : sprintf(f, median(L[k, name])) }
		FNR == 1 { next }
		{
			k = $2 "," $3
			add(k, "rps", $11); add(k, "ratio", $12); add(k, "cps", $15)
			add(k, "evs", $20); add(k, "evr", $21); add(k, "nse", $22); add(k, "nsr", $24)
			runs[k]++; failed[k] += $8
			if ($16 != "" && $16 + 0 > hwm[k]) hwm[k] = $16 + 0
			if ($12 != "") {
				if (!(k in lo) || $12 + 0 < lo[k]) lo[k] = $12 + 0
				if (!(k in hi) || $12 + 0 > hi[k]) hi[k] = $12 + 0
			}
		}
		END {
			nt = split(targets, T, ","); nv = split(variants, V, ",")
			print "target,variant,rounds,median_req_per_s,ratio,ratio_paired,ratio_min,ratio_max,cpu_s_per_s,vmhwm_kb,events_per_s,events_per_request,ns_per_event,failed_requests,bpf_ns_per_request"
			for (i = 1; i <= nt; i++) {
				none = median(L[T[i] ",none", "rps"])
				for (j = 1; j <= nv; j++) {
					k = T[i] "," V[j]
					if (!(k in runs)) continue
					m = median(L[k, "rps"])
					printf "%s,%s,%d,%.0f,%s,%s,%s,%s,%s,%s,%s,%s,%s,%d,%s\n", T[i], V[j], runs[k], m,
						(none > 0 ? sprintf("%.4f", m / none) : ""), fmt("%.4f", k, "ratio"),
						((k in lo) ? sprintf("%.4f", lo[k]) : ""), ((k in hi) ? sprintf("%.4f", hi[k]) : ""),
						fmt("%.4f", k, "cps"), ((k in hwm) ? hwm[k] : ""),
						fmt("%.0f", k, "evs"), fmt("%.3f", k, "evr"), fmt("%.1f", k, "nse"), failed[k],
						fmt("%.1f", k, "nsr")
				}
			}
		}' "$ROUNDS_CSV" >"$SUMMARY_CSV"

	echo
	echo "Median over $ROUNDS rounds (ab -c $CONCURRENCY; $REQUESTS requests, a new connection each;" \
		"the *-keepalive targets $KA_REQUESTS requests over kept-alive connections, ab -k):"
	awk -F, '
		function or_dash(v) { return v == "" ? "-" : v }
		NR == 1 {
			printf "%-17s %-21s %6s %8s %6s %6s %13s %8s %6s %8s %7s %8s %8s %6s\n", "target", "variant",
				"rounds", "req/s", "ratio", "paired", "ratio min-max", "cpu s/s", "RSS MB", "events/s",
				"ev/req", "ns/event", "ns/req", "failed"
			next
		}
		{
			printf "%-17s %-21s %6s %8s %6.3f %6.3f %6.3f-%-6.3f %8s %6s %8s %7s %8s %8s %6s\n", $1, $2, $3, $4,
				$5, $6, $7, $8, or_dash($9), ($10 == "" ? "-" : sprintf("%.1f", $10 / 1024)),
				or_dash($11), or_dash($12), or_dash($13), or_dash($15), $14
		}' "$SUMMARY_CSV"

	if [ "$BPF_STATS" -eq 1 ]; then
		# Program runs and BPF time per request: every round's run_cnt and
		# run_time_ns over every round's completed requests.
		echo
		echo "BPF per request, all rounds together:"
		awk -F, '
			FNR == 1 { next }
			$18 != "" { k = $2 "," $3; c[k] += $18; t[k] += $19; n[k] += $7; if (!(k in seen)) { seen[k] = 1; order[++m] = k } }
			END {
				printf "%-17s %-21s %12s %10s %10s\n", "target", "variant", "requests", "runs/req", "ns/req"
				for (i = 1; i <= m; i++) {
					split(order[i], f, ",")
					printf "%-17s %-21s %12d %10.3f %10.1f\n", f[1], f[2], n[order[i]],
						(n[order[i]] ? c[order[i]] / n[order[i]] : 0), (n[order[i]] ? t[order[i]] / n[order[i]] : 0)
				}
			}' "$ROUNDS_CSV"
	fi

	awk -F, 'FNR > 1 && $23 != "" { if (n++ == 0 || $23 < lo) lo = $23; if ($23 > hi) hi = $23 }
		END { if (n) printf "Tracing BPF programs of other processes loaded during the runs: %d to %d%s\n",
			lo, hi, (hi > 0 ? " (they slow every variant, none included)" : "") }' "$ROUNDS_CSV"

	if [ "$BPF_STATS" -eq 1 ]; then
		# Where a tracer's BPF time goes, program by program, over all rounds.
		echo
		echo "BPF programs, all rounds together:"
		awk -F, '
			FNR == 1 { next }
			{ k = $2 "," $3 "," $6 "," $5; c[k] += $7; t[k] += $8; if (!(k in seen)) { seen[k] = 1; order[++n] = k } }
			END {
				printf "%-17s %-21s %-24s %-15s %12s %14s %8s\n", "target", "variant", "program", "type", "run_cnt", "run_time_ms", "ns/run"
				for (i = 1; i <= n; i++) {
					split(order[i], f, ",")
					printf "%-17s %-21s %-24s %-15s %12d %14.1f %8s\n", f[1], f[2], f[3], f[4], c[order[i]],
						t[order[i]] / 1e6, (c[order[i]] > 0 ? sprintf("%.1f", t[order[i]] / c[order[i]]) : "-")
				}
			}' "$PROGS_CSV"
	fi
	echo
	echo "Rounds: $ROUNDS_CSV"
	echo "Summary: $SUMMARY_CSV"
	echo "Programs: $PROGS_CSV"
}

ensure_bpf_stats() {
	[ "$(sysctl -n kernel.bpf_stats_enabled)" = 1 ] && return 0
	log "bench: warning: kernel.bpf_stats_enabled was reset by someone else; setting it to 1 again"
	sysctl -qw kernel.bpf_stats_enabled=1
}

# Tracing programs loaded by others than the given ids: noise every
# variant of the run pays for.
count_other_tracing_progs() {
	bpftool prog show | awk -v ids=" $* " '/^[0-9]+:/ {
		id = $1; sub(":", "", id)
		if (index(ids, " " id " ") == 0 && ($2 == "tracepoint" || $2 == "raw_tracepoint" || $2 == "kprobe" || $2 == "perf_event")) n++
	} END { print n + 0 }'
}

# BPF tracing programs other processes hold: every variant pays for them.
foreign_tracers() {
	bpftool prog show | awk '/^[0-9]+:/ && ($2 == "tracepoint" || $2 == "raw_tracepoint" || $2 == "kprobe" || $2 == "perf_event") {
		name = "-"; for (i = 2; i < NF; i++) if ($i == "name") name = $(i + 1); print $2 "/" name }' |
		sort | uniq -c | awk '{ printf "%s%s x%s", sep, $2, $1; sep = ", " }'
}

main() {
	parse_args "$@"
	check_tools
	mkdir -p "$OUT" || fail "cannot create $OUT"
	local stamp
	stamp=$(date -u +%Y%m%dT%H%M%SZ)
	ROUNDS_CSV=$OUT/$stamp-rounds.csv
	SUMMARY_CSV=$OUT/$stamp-summary.csv
	PROGS_CSV=$OUT/$stamp-progs.csv
	PILEUP_CSV=$OUT/$stamp-pileup.csv
	PILEUP_SAMPLES=$OUT/$stamp-pileup-samples.csv
	echo "round,variant,held,made_in_s,cpu_s_per_s,tw_now,ss,tw_now_checked,held_after" >"$PILEUP_CSV"
	: >"$PILEUP_SAMPLES"
	echo "$ROUNDS_HEADER" >"$ROUNDS_CSV" || fail "cannot write $ROUNDS_CSV"
	echo "$PROGS_HEADER" >"$PROGS_CSV" || fail "cannot write $PROGS_CSV"

	trap cleanup EXIT
	trap 'log "bench: interrupted; the rounds done so far are in $ROUNDS_CSV"; exit 130' INT TERM HUP
	setup_host

	local others load1 cmd
	others=$(foreign_tracers)
	load1=$(cut -d' ' -f1 /proc/loadavg)
	cmd="$0${*:+ $*}"
	{
		echo "tcptrace overhead bench: $(date -u '+%Y-%m-%d %H:%M UTC'), Linux $(uname -r), $(nproc) CPUs"
		echo "command: $cmd"
		echo "$ROUNDS rounds x targets {$TARGETS} x variants {$VARIANTS}, ab -n $REQUESTS (-k: $KA_REQUESTS) -c $CONCURRENCY"
		echo "load average at start: $load1"
		[ -n "$others" ] && echo "note: BPF tracing programs of other processes are loaded, every variant pays for them: $others"
	} | tee "$OUT/$stamp-notes.txt" >&2

	local -a targets variants
	IFS=, read -ra targets <<<"$TARGETS"
	IFS=, read -ra variants <<<"$VARIANTS"
	local nt=${#targets[@]} nv=${#variants[@]} r i j target variant saved=$REQUESTS saved_ka=$KA_REQUESTS

	# One short unrecorded run per target: page cache, first-run costs.
	REQUESTS=$(( saved / 5 > CONCURRENCY ? saved / 5 : CONCURRENCY ))
	KA_REQUESTS=$(( saved_ka / 5 > CONCURRENCY ? saved_ka / 5 : CONCURRENCY ))
	for target in "${targets[@]}"; do
		[ "$target" = pileup ] && continue
		start_servers "$target"
		run_load "$target" >/dev/null
		stop_namespace
	done
	REQUESTS=$saved
	KA_REQUESTS=$saved_ka

	local start=$SECONDS
	for r in $(seq 1 "$ROUNDS"); do
		for i in $(seq 0 $((nt - 1))); do
			target=${targets[$(( (i + r - 1) % nt ))]}
			for j in $(seq 0 $((nv - 1))); do
				variant=${variants[$(( (j + r - 1) % nv ))]}
				runs_on "$target" "$variant" && run_one "$r" "$target" "$variant" $((j + 1))
			done
		done
	done
	log "bench: $ROUNDS rounds took $((SECONDS - start)) s"
	[[ ,$TARGETS, == *,pileup,* ]] && summarize_pileup
	[[ ,$TARGETS, == ,pileup, ]] || summarize
}

main "$@"
