#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# The shape of src/user/, checked from the built objects and the sources:
# a module (folder/name: name.c with name.h) depends on another when its
# object uses a symbol the other's object defines (nm), or when its files
# include the other's header. The check fails on a cycle between modules
# (tsort) and on a folder that uses one it may not (FOLDERS below: each
# folder may use itself and those before it in its line). Then it proves
# it can fail: the real graph with one edge added that closes a cycle, and
# one that crosses folders upward, must both be refused.
# Usage: tests/lint/layers.sh OBJDIR (build/user, as make builds it).
# LAYERS_SHOW="user used" adds one dependency and shows the verdict.
set -u
cd "$(dirname "$0")/../.."
objdir=${1:-build/user}

# folder: the folders it may use besides itself.
declare -A FOLDERS=(
	[common]=""
	[tracer]="common"
	[output]="common"
	[offline]="common output"
	[cli]="common tracer output offline"
)

# Every module of src/user/, one per .c file.
modules() {
	for c in src/user/*/*.c; do
		m=${c#src/user/}
		echo "${m%.c}"
	done
}

# "user used" pairs: from the objects' symbols, then from includes.
edges() {
	local defs
	defs=$(mktemp)
	for m in $(modules); do
		o="$objdir/$m.o"
		[ -f "$o" ] || { echo "layers: $o missing: run make first" >&2; rm -f "$defs"; return 1; }
		nm --defined-only -g "$o" | awk -v m="$m" 'NF == 3 { print $3, m }'
	done | sort -u >"$defs"
	for m in $(modules); do
		nm -u "$objdir/$m.o" | awk '{ print $NF }' | sort -u |
			join -o 2.2 - "$defs" | awk -v m="$m" '$1 != m { print m, $1 }'
	done
	for f in src/user/*/*.[ch]; do
		m=${f#src/user/}
		m=${m%.[ch]}
		grep -o '^#include "[a-z_]*/[a-z_0-9]*\.h"' "$f" | sed 's/.*"\(.*\)\.h"/\1/' |
			awk -v m="$m" '$1 != m { print m, $1 }'
	done
	rm -f "$defs"
}

# Reads "user used" pairs; prints what is wrong and fails, or says nothing.
judge() {
	local pairs bad=0 folder used allowed
	pairs=$(sort -u)
	while read -r user target; do
		[ -n "$user" ] || continue
		folder=${user%%/*}
		used=${target%%/*}
		allowed=" $folder ${FOLDERS[$folder]-} "
		if [ -z "${FOLDERS[$folder]+set}" ] || [[ "$allowed" != *" $used "* ]]; then
			echo "layers: $user uses $target: $folder/ may use only$allowed"
			bad=1
		fi
	done <<<"$pairs"
	if ! loop=$(printf '%s\n' "$pairs" | tsort 2>&1 >/dev/null); then
		echo "layers: a cycle between modules:"
		printf '%s\n' "$loop" | sed -n 's/^tsort: /  /p'
		bad=1
	fi
	return $bad
}

[ "${LAYERS_SHOW:-}" ] && { judge <<<"$(edges)"$'\n'"$LAYERS_SHOW"; exit; }
graph=$(edges) || exit 1
status=0
if judge <<<"$graph"; then
	echo "layers: $(modules | wc -l) modules in ${#FOLDERS[@]} folders, $(sort -u <<<"$graph" | wc -l) dependencies, no cycle, no upward use"
else
	status=1
fi
# The check must be able to fail.
if judge >/dev/null <<<"$graph"$'\n'"tracer/counters tracer/snapshot"; then
	echo "layers: a cycle added on purpose (tracer/counters uses tracer/snapshot) was not found"
	status=1
fi
if judge >/dev/null <<<"$graph"$'\n'"common/stats output/table"; then
	echo "layers: an upward use added on purpose (common/stats uses output/table) was not found"
	status=1
fi
exit $status
