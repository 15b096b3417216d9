#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# Runs programs under a memory checker; any report fails the case.
#   tests/memcheck.sh valgrind unit TEST...     cmocka tests under valgrind
#   tests/memcheck.sh valgrind tcptrace BINARY  tcptrace's run and bad-input paths
#   tests/memcheck.sh asan unit TEST...         tests built with ASan + UBSan
#   tests/memcheck.sh asan tcptrace BINARY      the same tcptrace cases, ASan + UBSan build
# The tcptrace cases load BPF, so they need root (as `make test` does).
# The cases run side by side, as many at once as there are CPUs
# (MEMCHECK_JOBS=N sets it), and are reported in order.
# Ends with one line: "memcheck TOOL WHAT: N passed, N failed".
set -u

usage() {
	echo "usage: $0 valgrind|asan unit TEST... | valgrind|asan tcptrace BINARY" >&2
	exit 2
}

[ $# -ge 3 ] || usage
tool=$1 what=$2
shift 2
case "$tool" in valgrind | asan) ;; *) usage ;; esac
case "$what" in unit | tcptrace) ;; *) usage ;; esac

here=$(cd "$(dirname "$0")" && pwd)
VALGRIND=${VALGRIND:-valgrind}
work=$(mktemp -d "${TMPDIR:-/tmp}/tcptrace-memcheck.XXXXXX")
pids=()
trap '[ ${#pids[@]} -eq 0 ] || kill "${pids[@]}" 2>/dev/null; wait; rm -rf "$work"' EXIT
# The unprivileged case runs as nobody, who must reach the binary and logs.
chmod 755 "$work"
# valgrind as nobody reads its suppressions too: a copy, not the tree's
# (a clone in a directory only root may enter, such as mktemp -d's).
cp "$here/valgrind.supp" "$work/valgrind.supp" && chmod 644 "$work/valgrind.supp"
# Every leak kind but "still reachable" is an error (exit status 1): memory
# still pointed to at exit is not lost, and libc keeps some (stdio buffers).
valgrind_flags=(
	--error-exitcode=1 --leak-check=full
	--errors-for-leak-kinds=definite,indirect,possible
	--show-leak-kinds=definite,indirect,possible
	--num-callers=30 --suppressions="$work/valgrind.supp"
	# Run mode forks a runner that execs COMMAND: only tcptrace is checked.
	--child-silent-after-fork=yes
	# No gdbserver: its FIFOs in /tmp outlive a process that dropped root.
	--vgdb=no
)

max_jobs=${MEMCHECK_JOBS:-$(nproc)}

passed=0
failed=0
case_no=0

# spawn COMMAND ARGS...: runs one case (run_case, or a function that calls
# it) in the background, at most max_jobs at once. Its report goes to
# $work/jobN.out, its exit status to $work/jobN.status.
spawn() {
	while [ "$(jobs -pr | wc -l)" -ge "$max_jobs" ]; do wait -n; done
	case_no=$((case_no + 1))
	(
		"$@" >"$work/job$case_no.out" 2>&1
		echo $? >"$work/job$case_no.status"
	) &
	pids+=($!)
}

# Every case's report, in the order the cases were given, and the counts.
collect() {
	local i
	wait
	pids=()
	for i in $(seq "$case_no"); do
		cat "$work/job$i.out"
		if [ "$(cat "$work/job$i.status" 2>/dev/null)" = 0 ]; then
			passed=$((passed + 1))
		else
			failed=$((failed + 1))
		fi
	done
}

# run_case NAME EXPECTED_STATUS [--as-nobody] PROGRAM ARGS... (in a job of
# its own: its folder is named after the job, case_no there). A case that
# has not ended in CASE_LIMIT seconds is stopped, exit status 124.
CASE_LIMIT=${CASE_LIMIT:-300}
run_case() {
	local name=$1 expected=$2 status reports log dir prefix=() start=$SECONDS
	shift 2
	if [ "$1" = --as-nobody ]; then
		prefix=(setpriv --reuid=65534 --regid=65534 --clear-groups)
		shift
	fi
	dir="$work/case$case_no"
	mkdir -p "$dir"
	chmod 777 "$dir"
	log="$dir/output"
	if [ "$tool" = valgrind ]; then
		timeout -k 10 "$CASE_LIMIT" "${prefix[@]}" "$VALGRIND" "${valgrind_flags[@]}" \
			--log-file="$dir/valgrind.%p" "$@" >"$log" 2>&1 </dev/null
		status=$?
		# Each process writes its own log; any with errors fails the case,
		# and so does no log at all (valgrind did not run).
		reports=$(grep -L 'ERROR SUMMARY: 0 errors' "$dir"/valgrind.* 2>/dev/null)
		compgen -G "$dir/valgrind.*" >/dev/null || reports="(no valgrind log)"
	else
		ASAN_OPTIONS="detect_leaks=1:halt_on_error=1:detect_stack_use_after_return=1:log_path=$dir/asan" \
			UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:log_path=$dir/asan" \
			timeout -k 10 "$CASE_LIMIT" "${prefix[@]}" "$@" >"$log" 2>&1 </dev/null
		status=$?
		# The sanitizers write a log file only when they report something.
		reports=$(ls "$dir"/asan.* 2>/dev/null)
	fi
	if [ "$status" -eq "$expected" ] && [ -z "$reports" ]; then
		printf '  ok    %s (%ss)\n' "$name" $((SECONDS - start))
		return 0
	fi
	printf '  FAIL  %s (%ss): exit status %s (expected %s)%s\n' "$name" $((SECONDS - start)) \
		"$status" "$expected" "${reports:+, $tool reported errors}"
	printf '        command: %s\n' "$*"
	sed 's/^/        | /' "$log"
	for report in $reports; do
		[ -f "$report" ] || continue
		printf '        %s:\n' "$(basename "$report")"
		sed 's/^/        | /' "$report"
	done
	return 1
}

# The header and at least PID 1's row, which a named PID always gets.
case_csv_file() { # csv
	run_case "trace PID 1 into a CSV file" 0 "$bin" -p 1 -c 1 -i 0.2 --csv "$1" || return 1
	[ "$(wc -l <"$1" 2>/dev/null || echo 0)" -ge 2 ] && return 0
	printf '  FAIL  the CSV file has no row: %s\n' "$1"
	return 1
}

# The tcptrace of case_listen on port: not the timeout around it, which
# would pass the signal on to its whole process group.
stop_listening_tcptrace() { # port
	local pid
	for pid in $(pgrep -f -- "--listen $1"); do
		[ "$(cat "/proc/$pid/comm" 2>/dev/null)" = timeout ] || kill -INT "$pid" 2>/dev/null
	done
}

# /metrics scraped while tcptrace runs: a loop of well-formed, OpenMetrics,
# refused and malformed requests, counting the answers it got. The scraper
# ends tcptrace (Ctrl-C) once it has been answered for 3 s (10 intervals)
# and has had a 405: under valgrind and a busy machine tcptrace's start
# takes seconds, and a run of a fixed count of intervals once ended after
# one answer. tcptrace traces this namespace's processes only: tracing
# every process, it read the timewait sockets of the suites running beside
# it (the 1,000,000-connection case holds hundreds of thousands) at every
# interval, which under ASan and valgrind took longer than curl's 2 s, and
# no scrape was answered in 300 s (a fresh clone's run of 2026-12-07).
case_listen() { # [name-suffix tcptrace-options...]
	local port url scraper status=0 suffix=${1:-}
	shift $(($# > 0))
	port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	url=http://127.0.0.1:$port
	(
		local first=
		for i in $(seq 1200); do
			curl -s -m 2 -o /dev/null -w '%{http_code}\n' "$url/metrics"
			curl -s -m 2 -o /dev/null -w '%{http_code}\n' \
				-H 'Accept: application/openmetrics-text;version=1.0.0' "$url/metrics"
			curl -s -m 2 -o /dev/null -w '%{http_code}\n' -d x "$url/metrics"
			printf 'GET /\x00 HTTP/1.1\r\n\r\n' | timeout 2 bash -c "cat >/dev/tcp/127.0.0.1/$port" 2>/dev/null
			sleep 0.1
			[ -z "$first" ] && grep -qx 200 "$work/scrapes.$port" && first=$SECONDS
			[ -n "$first" ] && [ $((SECONDS - first)) -ge 3 ] && grep -qx 405 "$work/scrapes.$port" && break
		done >>"$work/scrapes.$port"
		stop_listening_tcptrace "$port"
	) &
	scraper=$!
	run_case "--listen$suffix, scraped while it runs" 0 "$bin" -c 600 -i 0.3 --netns "$$" \
		--listen "$port" "$@" ||
		status=1
	kill "$scraper" 2>/dev/null
	wait "$scraper" 2>/dev/null
	if ! grep -qx 200 "$work/scrapes.$port" || ! grep -qx 405 "$work/scrapes.$port"; then
		printf '  FAIL  no scrape was answered while tcptrace ran (%s)\n' \
			"$(sort "$work/scrapes.$port" | uniq -c | paste -sd' ')"
		status=1
	fi
	return "$status"
}

if [ "$what" = unit ]; then
	for test in "$@"; do
		spawn run_case "$(basename "$test")" 0 "$test"
	done
else
	[ $# -eq 1 ] || usage
	# A copy the user nobody may run: the unprivileged case then needs no access
	# to the tree (a clone under /root, say).
	bin="$work/tcptrace"
	cp "$1" "$bin"
	chmod 755 "$bin"
	if [ "$(id -u)" -ne 0 ]; then
		echo "memcheck: the tcptrace cases load BPF programs: run them as root" >&2
	fi
	csv="$work/case-csv.csv"
	spawn run_case "trace every process for 2 intervals" 0 "$bin" -c 2 -i 0.2
	spawn case_csv_file "$csv"
	spawn run_case "CSV on stdout" 0 "$bin" -p 1 -c 1 -i 0.2 --csv -
	spawn run_case "per destination (--by dest) into a CSV file" 0 "$bin" --by dest -c 2 -i 0.2 \
		--csv "$work/dest.csv"
	spawn run_case "JSON lines on stdout" 0 "$bin" -p 1 -c 1 -i 0.2 --json -
	spawn run_case "JSON lines and CSV into files" 0 "$bin" -p 1 -c 2 -i 0.2 --json "$work/j.json" \
		--csv "$work/j.csv"
	spawn run_case "JSON lines per destination" 0 "$bin" --by dest -c 2 -i 0.2 --json "$work/d.json"
	spawn case_listen
	spawn case_listen " --by cgroup" --by cgroup
	spawn run_case "bad interval (-i abc)" 2 "$bin" -i abc
	spawn run_case "no such process (--strict -p no-such-proc)" 2 "$bin" --strict -p no-such-proc
	spawn run_case "a name not running yet, waited for (-p no-such-proc 0.2 2)" 0 "$bin" -p no-such-proc 0.2 2
	spawn run_case "unwritable CSV path" 2 "$bin" -c 1 --csv "$work/no/such/dir/x.csv"
	spawn run_case "without privilege (load fails, cleanup runs)" 2 --as-nobody "$bin" -c 1 -i 0.2
	spawn run_case "run mode: COMMAND's exit status" 3 "$bin" -i 0.2 -- sh -c 'sleep 0.3; exit 3'
	spawn run_case "run mode: COMMAND not found" 127 "$bin" -i 0.2 -- /no/such/cmd
	spawn run_case "--help" 0 "$bin" --help
	spawn run_case "--version" 0 "$bin" --version
fi
collect

echo "memcheck $tool $what: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
