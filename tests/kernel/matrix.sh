#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# The kernel matrix: tests/kernel/run.sh for each series named (default:
# every series Debian serves that tcptrace supports), one after the other.
# Each series runs even when one before it failed; the last line counts
# them.
set -u
cd "$(dirname "$0")/../.."
[ $# -gt 0 ] || set -- 5.10 6.1 6.12
passed=0
failed=0
failures=""
for series in "$@"; do
	echo "--- kernel $series"
	if tests/kernel/run.sh "$series"; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
		failures="$failures $series"
	fi
done
[ "$failed" -eq 0 ] || echo "kernel series failed:$failures"
echo "kernels: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
