#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# `make fuzz`: runs each libFuzzer harness given for SECONDS, all at once,
# starting from its seed corpus in tests/fuzz/corpus/NAME (and NAME.dict
# when present).
# Inputs it finds go to a temporary folder that is removed afterwards, so
# the committed corpus stays small; a crashing input is kept next to the
# harness binary as crash-*, and its path printed. Any crash, leak or
# timeout fails.
#   tests/fuzz/run.sh SECONDS build/fuzz/fuzz_NAME...
set -u
[ $# -ge 2 ] || { echo "usage: $0 SECONDS HARNESS..." >&2; exit 2; }
seconds=$1
shift
case "$seconds" in '' | *[!0-9]*) echo "$0: SECONDS must be a whole number" >&2; exit 2 ;; esac
here=$(cd "$(dirname "$0")" && pwd)

# The harnesses run side by side, each for SECONDS; their reports are
# printed afterwards, one harness after the other, in the order given.
work=$(mktemp -d "${TMPDIR:-/tmp}/tcptrace-fuzz.XXXXXX")
pids=()
trap 'kill "${pids[@]}" 2>/dev/null; rm -rf "$work"' EXIT

# One harness: its new inputs in its own folder under $work, its report
# in $work/NAME.log, its exit status that of libFuzzer.
fuzz_one() { # harness
	local harness=$1 name=${1##*/fuzz_} args
	args=(-max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1
	      -artifact_prefix="$(dirname "$harness")/$name-")
	[ -f "$here/$name.dict" ] && args+=(-dict="$here/$name.dict")
	mkdir -p "$work/$name"
	# The first folder receives new inputs; the seed corpus is only read.
	"$harness" "${args[@]}" "$work/$name" "$here/corpus/$name" 2>"$work/$name.log"
}

for harness in "$@"; do
	fuzz_one "$harness" &
	pids+=($!)
done

passed=0
failed=0
for i in "${!pids[@]}"; do
	harness=${*:i+1:1}
	name=${harness##*/fuzz_}
	echo "fuzz: $name for ${seconds}s"
	if wait "${pids[i]}"; then
		grep -E '^(#[0-9]+.*DONE|stat::number_of_executed_units|stat::peak_rss_mb)' "$work/$name.log"
		passed=$((passed + 1))
	else
		# libFuzzer's report, from the first sanitizer line on.
		sed -n '/^==[0-9]*==\|runtime error\|^ERROR: libFuzzer\|deadly signal/,$p' "$work/$name.log"
		echo "fuzz: $name FAILED; reproduce with: $harness $(dirname "$harness")/$name-crash-*"
		failed=$((failed + 1))
	fi
	rm -rf "${work:?}/$name"
done
pids=()
echo "fuzz: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
