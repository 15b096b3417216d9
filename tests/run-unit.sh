#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# Runs each cmocka test program given, then one closing line for the lot.
passed=0
failed=0
for test in "$@"; do
	if "$test"; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
done
echo "unit: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
