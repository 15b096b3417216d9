#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# `make lint`: the shape of src/user (tests/lint/layers.sh: no cycle
# between modules, no folder using one above it), clang-tidy over src/user
# and tests/unit (settings in .clang-tidy), then cppcheck over src/user
# (suppressions, each with its reason, in tests/cppcheck.supp). Arguments:
# the compiler flags the sources are built with. Any finding fails; every
# tool always runs.
set -u
cd "$(dirname "$0")/.."
CLANG_TIDY=${CLANG_TIDY:-clang-tidy-19}
CPPCHECK=${CPPCHECK:-cppcheck}
cflags=("$@")
includes=()
for flag in "$@"; do
	case "$flag" in -I*) includes+=("$flag") ;; esac
done

passed=0
failed=0
# clang-tidy counts on stderr the warnings it hid in system headers.
quiet() {
	"$@" 2>&1 | grep -v '^[0-9]* warnings\( and [0-9]* errors\?\)\? generated\.$'
	return "${PIPESTATUS[0]}"
}

step() {
	local name=$1
	shift
	echo "lint: $name"
	if quiet "$@"; then
		passed=$((passed + 1))
	else
		echo "lint: $name FAILED"
		failed=$((failed + 1))
	fi
}

# The force-included headers correct what the analyzer cannot know about
# libbpf and cmocka; tests/lint/*.h say what and why.
step "layers src/user" tests/lint/layers.sh build/user
step "clang-tidy src/user" "$CLANG_TIDY" --quiet src/user/*/*.c -- "${cflags[@]}" \
	-include tests/lint/libbpf-ownership.h
step "clang-tidy tests/unit" "$CLANG_TIDY" --quiet tests/unit/*.c -- "${cflags[@]}" \
	-include tests/lint/cmocka-noreturn.h
step "cppcheck src/user" "$CPPCHECK" --enable=warning,performance,portability \
	--error-exitcode=1 --inline-suppr --library=posix --std=c11 --quiet \
	--suppressions-list=tests/cppcheck.supp "${includes[@]}" src/user

echo "lint: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
