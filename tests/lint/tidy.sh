#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# clang-tidy over one file, for `make lint` (settings in .clang-tidy): its
# findings, without the count of warnings it hid in system headers that it
# prints on stderr for every file. The exit status is clang-tidy's.
# Usage: tests/lint/tidy.sh CLANG_TIDY FILE -- COMPILER FLAGS...
set -u
tidy=$1
shift
"$tidy" --quiet "$@" 2>&1 | grep -v '^[0-9]* warnings\( and [0-9]* errors\?\)\? generated\.$'
exit "${PIPESTATUS[0]}"
