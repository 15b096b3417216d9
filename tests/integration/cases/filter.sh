# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# The counting filter (before Linux 5.12): other cases run with it.
# Sourced by tests/integration/run.sh, which runs the cases.

case_with_counting_filter() { # case [arguments]
	local marks
	marks=$(TCPTRACE_TEST_NO_COOKIES=1 "$TCPTRACE" --verbose -c 1 -i 0.2 2>&1 >/dev/null |
		grep '^tcptrace: followed sockets')
	expect_eq "the filter is used" "tcptrace: followed sockets marked by a counting filter" "$marks"
	TCPTRACE_TEST_NO_COOKIES=1 "$@"
}
