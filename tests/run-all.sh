#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# Every test suite in turn (root; `make` first): cmocka unit tests, the
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
# Three things run alongside the suites, from the start:
# - the checks suite (ASan, valgrind, clang-tidy and cppcheck), at the
#   lowest CPU priority (nice 19). It measures no time and uses no network
#   namespace, and the other suites leave a CPU idle most of the time (one
#   tcptrace start is one CPU's BPF verifier for seconds); there it runs,
#   and it yields that CPU whenever a suite wants both. Its output is kept
#   in build/test-logs/checks.log and printed after the suite during which
#   it ended. CHECKS_ALONGSIDE=0 runs it in turn instead.
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

# A suite started now in the background, at the lowest CPU priority; its
# output goes to $logs/NAME.log, its exit status and time to NAME.status.
alongside() { # name command...
	local name=$1
	shift
	(
		start=$SECONDS
		nice -n 19 "$@" >"$logs/$name.log" 2>&1 </dev/null
		rc=$?
		cpu_now
		echo "$rc $((SECONDS - start)) $CPU" >"$logs/$name.status"
	) &
	alongside_pids+=($!)
	alongside_names+=("$name")
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
			wait "${alongside_pids[i]}"
		elif [ ! -e "$logs/$name.status" ]; then
			continue
		fi
		read -r rc secs cpu <"$logs/$name.status" || { rc=1 secs=0 cpu=0; }
		echo "=== $name (alongside the suites above, at nice 19)"
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

[ "${CHECKS_ALONGSIDE:-1}" = 0 ] || alongside checks tests/run-checks.sh
suite unit tests/run-unit.sh build/test_*
[ "${CHECKS_ALONGSIDE:-1}" != 0 ] || suite checks tests/run-checks.sh
suite install tests/run-install.sh
suite fuzz "$make" --no-print-directory "${jobflag[@]}" fuzz FUZZ_SECONDS="${FUZZ_SECONDS:-30}"
suite scenario tests/integration/check-scenario.sh
suite integration tests/integration/run.sh
suite kernels "$make" --no-print-directory kernel-test
suite exporter tests/integration/exporter.sh
suite e2e tests/e2e/run.sh
suite report tests/report/run.sh
wait "$rooter"
suite package tests/package/run.sh
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
