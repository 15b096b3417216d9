#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# The kernel matrix: tests/kernel/run.sh for each series named (default:
# every series Debian serves that tcptrace supports), KERNEL_JOBS of them
# at once (default 2: a guest has one CPU, emulated by one host thread).
# Each series' output is printed once it has ended, in the order named.
# Each series runs even when one before it failed; the last line counts
# them.
set -u
cd "$(dirname "$0")/../.."
[ $# -gt 0 ] || set -- 5.10 6.1 6.12
jobs=${KERNEL_JOBS:-2}
work=$(mktemp -d /tmp/tcptrace-matrix.XXXXXX)
pids=()
trap '[ ${#pids[@]} -eq 0 ] || kill "${pids[@]}" 2>/dev/null; wait; rm -rf "$work"' EXIT

i=0
for series in "$@"; do
	while [ "$(jobs -pr | wc -l)" -ge "$jobs" ]; do wait -n; done
	i=$((i + 1))
	(
		tests/kernel/run.sh "$series" >"$work/$i.out" 2>&1 </dev/null
		echo $? >"$work/$i.status"
	) &
	pids+=($!)
done
wait
pids=()

passed=0
failed=0
failures=""
i=0
for series in "$@"; do
	i=$((i + 1))
	echo "--- kernel $series"
	cat "$work/$i.out"
	if [ "$(cat "$work/$i.status" 2>/dev/null)" = 0 ]; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
		failures="$failures $series"
	fi
done
[ "$failed" -eq 0 ] || echo "kernel series failed:$failures"
echo "kernels: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
