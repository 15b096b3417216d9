#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# Every test suite (root; `make` first): cmocka unit tests, the
# memory and static checks, the installed files (make install, the man page,
# the bash completion, the systemd unit example), the fuzzers for a bounded
# time, the scenario program against the kernel, tcptrace's integration
# tests, the kernel matrix (tcptrace in Debian's 5.10, 6.1 and 6.12 kernels
# under qemu; KERNELS="..." narrows it),
# tcptrace's outputs read by other programs (a Prometheus server, JSON
# parsers), the end-to-end tests over the proxy scenarios of
# tools/scenarios, tcptrace report's pages in a real browser (Debian's
# chromium), and the Debian package in a fresh Debian 12 root. Each runs even when one before it failed.
#
# Two lanes. The suites that run processes by name in network namespaces
# (integration, exporter, e2e, report: each would count the others'
# haproxy, nginx and ab) run in turn in the first. The second runs, one
# after another, the suites that see nothing of those: the checks suite
# (ASan, valgrind, clang-tidy and cppcheck; no time measured, no network
# namespace) at the lowest CPU priority (nice 19), for the first lane
# leaves a CPU idle most of the time; then the kernel matrix (its guests
# share nothing with the host's suites); then the Debian package (its own
# root and namespace); then the unit tests, the installed files and the
# fuzzers (at nice 19: they run for a time, not a count), which run
# nothing by name either. The make test of one lane could not go below the
# CPU time of the whole (about 1,000 CPU-seconds on 2 CPUs): the second
# lane's suites take the CPU the first leaves idle. Their output is kept in
# build/test-logs/NAME.log and printed after the suite of the first lane
# during which they ended. ALONGSIDE=0 runs every suite in turn instead.
# From the start, in the background too:
# - the Debian 12 root the package suite installs the .deb into
#   (debootstrap, its log in build/test-logs/package-base.log);
# - the download of the matrix's kernels (`make kernel-fetch`, its log in
#   build/test-logs/kernel-fetch.log), so that the kernels suite finds them;
#   what that download could not fetch, the suite fetches itself, and fails
#   on.
# At the end, a table of each suite's time and the CPU time it used (its
# processes', all CPUs); the last line counts the suites.
set -u
cd "$(dirname "$0")/.."
make=${MAKE:-make}
# The builds of the suites use every CPU, or the caller's job slots under
# `make -jN test`.
jobflag=(-j"$(nproc)")
case " ${MAKEFLAGS:-} " in *--jobserver*) jobflag=() ;; esac
passed=0
failed=0
failures=""
table=""
begin=$SECONDS
logs=build/test-logs
alongside_pids=()
alongside_names=()

# A suite's verdict counted, said, and put in the table of times.
verdict() { # name exit-status seconds cpu-seconds [", alongside"]
	local verdict=passed
	if [ "$2" -eq 0 ]; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
		failures="$failures $1"
		verdict=FAILED
	fi
	echo "=== $1: $verdict ($3 s, $4 s of CPU${5:-})"
	table+=$(printf '%-12s %5d s %6d s  %s' "$1" "$3" "$4" "$verdict${5:-}")$'\n'
}

# CPU: the CPU seconds (user and system) of this shell's children that
# have ended and been waited for, with theirs: bash's times, which must
# run in the shell itself (a subshell, as $(...) is, starts from zero).
cpu_now() {
	local file=$logs/.times.$BASHPID
	times >"$file"
	CPU=$(awk 'NR == 2 {
		for (i = 1; i <= 2; i++) { split($i, t, "m"); s += t[1] * 60 + t[2] }
		printf "%d\n", s }' "$file")
	rm -f "$file"
}

suite() { # name command...
	local name=$1 start=$SECONDS rc=0 cpu=0
	shift
	echo "=== $name"
	rm -f "$logs/.cpu"
	# In a subshell, whose children are the suite's alone: this shell's
	# also take in the jobs alongside that it reaps meanwhile.
	(
		"$@"
		rc=$?
		cpu_now
		echo "$CPU" >"$logs/.cpu"
		exit "$rc"
	) || rc=$?
	read -r cpu 2>/dev/null <"$logs/.cpu" || cpu=0
	verdict "$name" "$rc" $((SECONDS - start)) "${cpu:-0}"
	alongside_report
}

# A suite of the second lane: its output goes to $logs/NAME.log, its exit
# status, time and CPU time to NAME.status.
lane_suite() { # name niceness command...
	local name=$1 niceness=$2 start=$SECONDS
	shift 2
	(
		nice -n "$niceness" "$@" >"$logs/$name.log" 2>&1 </dev/null
		rc=$?
		cpu_now
		echo "$rc $((SECONDS - start)) $CPU" >"$logs/$name.status"
	)
}

# Until a process of the first lane's shell (not this one's child) ends.
await() { # pid
	while kill -0 "$1" 2>/dev/null; do sleep 1; done
}

second_lane() {
	lane_suite checks 19 tests/run-checks.sh
	await "$fetcher"
	lane_suite kernels 0 "$make" --no-print-directory kernel-test
	await "$rooter"
	lane_suite package 0 tests/package/run.sh
	lane_suite unit 0 tests/run-unit.sh build/test_*
	lane_suite install 0 tests/run-install.sh
	lane_suite fuzz 19 "$make" --no-print-directory fuzz FUZZ_SECONDS="${FUZZ_SECONDS:-30}"
}

# A process and all its descendants back at nice 0, parents first, so that
# a child forked meanwhile inherits 0 from its parent.
unnice() { # pid
	local child
	renice -n 0 -p "$1" >/dev/null 2>&1
	for child in $(pgrep -P "$1"); do unnice "$child"; done
}

# The output and verdict of each suite run alongside that has ended (of
# every one, waiting for them, with --wait), once.
alongside_report() { # [--wait]
	local i name rc secs cpu
	for i in "${!alongside_names[@]}"; do
		name=${alongside_names[i]}
		if [ "${1:-}" = --wait ]; then
			wait "${alongside_pids[i]}" 2>/dev/null
		elif [ ! -e "$logs/$name.status" ]; then
			continue
		fi
		read -r rc secs cpu <"$logs/$name.status" || { rc=1 secs=0 cpu=0; }
		echo "=== $name (alongside the suites above)"
		cat "$logs/$name.log"
		verdict "$name" "$rc" "$secs" "${cpu:-0}" ", alongside"
		unset 'alongside_names[i]' 'alongside_pids[i]'
	done
}

# Every program the suites run is built first, on every CPU: the suites
# alongside then build nothing that another make could be building too.
mkdir -p "$logs"
"$make" --no-print-directory "${jobflag[@]}" test-programs || {
	echo "the build failed: no suite was run"
	echo "all suites: 0 passed, 1 failed"
	exit 1
}
cpu_now
table+=$(printf '%-12s %5d s %6d s' build $((SECONDS - begin)) "$CPU")$'\n'
rm -f "$logs"/*.status
"$make" --no-print-directory kernel-fetch >"$logs/kernel-fetch.log" 2>&1 </dev/null &
fetcher=$!
nice -n 19 tests/package/run.sh --prepare >"$logs/package-base.log" 2>&1 </dev/null &
rooter=$!
trap 'kill "$fetcher" "$rooter" "${alongside_pids[@]}" 2>/dev/null' EXIT

if [ "${ALONGSIDE:-1}" != 0 ]; then
	second_lane &
	alongside_pids=($! $! $! $! $! $!)
	alongside_names=(checks kernels package unit install fuzz)
else
	suite unit tests/run-unit.sh build/test_*
	suite checks tests/run-checks.sh
	suite install tests/run-install.sh
	suite fuzz "$make" --no-print-directory "${jobflag[@]}" fuzz FUZZ_SECONDS="${FUZZ_SECONDS:-30}"
fi
suite scenario tests/integration/check-scenario.sh
suite integration tests/integration/run.sh
[ "${ALONGSIDE:-1}" != 0 ] || suite kernels "$make" --no-print-directory kernel-test
suite exporter tests/integration/exporter.sh
suite e2e tests/e2e/run.sh
suite report tests/report/run.sh
if [ "${ALONGSIDE:-1}" = 0 ]; then
	wait "$rooter"
	suite package tests/package/run.sh
fi
# Nothing else runs now: what is left of a suite alongside gets a whole
# share of the CPUs again (a busy machine may have left it none so far).
for pid in "${alongside_pids[@]}"; do unnice "$pid"; done
alongside_report --wait

echo "=== time per suite"
printf '%s' "$table"
cpu_now
printf '%-12s %5d s %6d s  (of %d s on %d CPUs)\n' total $((SECONDS - begin)) "$CPU" \
	$(((SECONDS - begin) * $(nproc))) "$(nproc)"
[ "$failed" -eq 0 ] || echo "failed suites:$failures"
echo "all suites: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
