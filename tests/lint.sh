#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# `make lint`: the shape of src/user (tests/lint/layers.sh: no cycle
# between modules, no folder using one above it), each BPF header compiled
# alone (tests/lint/bpf-headers.sh, with BPF_LINT: the BPF compiler and its
# flags), clang-tidy over src/user
# and tests/unit (settings in .clang-tidy), then cppcheck over src/user
# (suppressions, each with its reason, in tests/cppcheck.supp). Arguments:
# the compiler flags the sources are built with. Any finding fails; every
# tool always runs. clang-tidy runs as `make lint-tidy`, a file per job on
# every CPU, and only on the files changed since they last passed (the
# Makefile says when); cppcheck on every CPU too, and it reuses its results
# for the files that did not change.
set -u
cd "$(dirname "$0")/.."
CLANG_TIDY=${CLANG_TIDY:-clang-tidy-19}
CPPCHECK=${CPPCHECK:-cppcheck}
LINT_OUTPUT=${LINT_OUTPUT:-build/lint}
make=${MAKE:-make}
jobs=$(nproc)
# Under `make -jN lint`, the make below shares the caller's job slots.
jobflag=(-j"$jobs")
case " ${MAKEFLAGS:-} " in *--jobserver*) jobflag=() ;; esac
# cppcheck finds the slim skeleton before the real one.
includes=(-I"$LINT_OUTPUT/include")
for flag in "$@"; do
	case "$flag" in -I*) includes+=("$flag") ;; esac
done
mkdir -p "$LINT_OUTPUT/cppcheck"

passed=0
failed=0

step() {
	local name=$1
	shift
	echo "lint: $name"
	if "$@"; then
		passed=$((passed + 1))
	else
		echo "lint: $name FAILED"
		failed=$((failed + 1))
	fi
}

# The force-included headers correct what the analyzer cannot know about
# libbpf and cmocka; tests/lint/*.h say what and why.
step "layers src/user" tests/lint/layers.sh build/user
# shellcheck disable=SC2086 # BPF_LINT is a command line, split on purpose
step "BPF headers alone" tests/lint/bpf-headers.sh ${BPF_LINT:?BPF_LINT: the BPF compiler and flags}
step "clang-tidy src/user tests/unit" "$make" --no-print-directory -k -O "${jobflag[@]}" \
	CLANG_TIDY="$CLANG_TIDY" lint-tidy
step "cppcheck src/user" "$CPPCHECK" --enable=warning,performance,portability \
	--error-exitcode=1 --inline-suppr --library=posix --std=c11 --quiet -j"$jobs" \
	--cppcheck-build-dir="$LINT_OUTPUT/cppcheck" \
	--suppressions-list=tests/cppcheck.supp "${includes[@]}" src/user

echo "lint: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
