#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# The reliability checks, in sequence: make asan (ASan + UBSan), make
# valgrind, make lint, each building on every CPU (or in the caller's job
# slots under `make -jN`) and running its cases side by side. Every step
# runs even when one before it failed; the last line counts the steps. The asan and valgrind steps run ./tcptrace,
# which loads BPF, so this needs root, like `make test`. Run `make` first.
set -u
cd "$(dirname "$0")/.."
make=${MAKE:-make}
jobflag=(-j"$(nproc)")
case " ${MAKEFLAGS:-} " in *--jobserver*) jobflag=() ;; esac

passed=0
failed=0
for step in asan valgrind lint; do
	start=$SECONDS
	echo "checks: make $step"
	if "$make" --no-print-directory "${jobflag[@]}" "$step"; then
		echo "checks: make $step passed ($((SECONDS - start))s)"
		passed=$((passed + 1))
	else
		echo "checks: make $step FAILED ($((SECONDS - start))s)"
		failed=$((failed + 1))
	fi
done
echo "checks: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
