#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# Each BPF header of src/bpf/ includes what it uses: it compiles on its own
# after vmlinux.h, as the BPF object is built (the same clang and flags).
# Then the check proves it can fail: a header that calls a helper without
# including bpf_helpers.h must be refused.
# Usage: tests/lint/bpf-headers.sh CLANG BPF_CFLAGS...
set -u
cd "$(dirname "$0")/../.."
clang=$1
shift
# The object's flags, less those that write dependency files.
flags=()
for f in "$@"; do
	case "$f" in -MMD | -MP | -MD) ;; *) flags+=("$f") ;; esac
done
set -- "${flags[@]}"
status=0
n=0


for h in src/bpf/*.bpf.h; do
	n=$((n + 1))
	if ! out=$(printf '#include "vmlinux.h"\n#include "%s"\n' "${h#src/bpf/}" |
		"$clang" "$@" -x c -fsyntax-only -Isrc/bpf - 2>&1); then
		echo "bpf-headers: $h does not compile alone after vmlinux.h:"
		printf '%s\n' "$out" | head -5 | sed 's/^/  /'
		status=1
	fi
done
bad=$(mktemp -d)
trap 'rm -rf "$bad"' EXIT
cat >"$bad/lacks_helpers.bpf.h" <<'H'
static __always_inline void *lacks_helpers(void *map, const void *key)
{
	return bpf_map_lookup_elem(map, key);
}
H
if printf '#include "vmlinux.h"\n#include "lacks_helpers.bpf.h"\n' |
	"$clang" "$@" -x c -fsyntax-only -Isrc/bpf -I"$bad" - >/dev/null 2>&1; then
	echo "bpf-headers: a header that uses bpf_map_lookup_elem without bpf_helpers.h compiled:: the check cannot fail"
	status=1
fi
[ "$status" -eq 0 ] && echo "bpf-headers: $n headers each compile alone after vmlinux.h"
exit $status
