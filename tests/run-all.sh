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
# tools/scenarios, and tcptrace report's pages in a real browser (Debian's
# chromium). Each runs even when one before it failed; the last line counts
# the suites.
set -u
cd "$(dirname "$0")/.."
make=${MAKE:-make}
passed=0
failed=0
failures=""

suite() { # name command...
	local name=$1 start=$SECONDS
	shift
	echo "=== $name"
	if "$@"; then
		passed=$((passed + 1))
		echo "=== $name: passed ($((SECONDS - start)) s)"
	else
		failed=$((failed + 1))
		failures="$failures $name"
		echo "=== $name: FAILED ($((SECONDS - start)) s)"
	fi
}

suite unit tests/run-unit.sh build/test_*
suite checks tests/run-checks.sh
suite install tests/run-install.sh
suite fuzz "$make" --no-print-directory fuzz FUZZ_SECONDS="${FUZZ_SECONDS:-30}"
suite scenario tests/integration/check-scenario.sh
suite integration tests/integration/run.sh
suite kernels "$make" --no-print-directory kernel-test
suite exporter tests/integration/exporter.sh
suite e2e tests/e2e/run.sh
suite report tests/report/run.sh

[ "$failed" -eq 0 ] || echo "failed suites:$failures"
echo "all suites: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
