#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# The Debian package (make deb) in a fresh Debian 12 root made by
# debootstrap, where nothing is installed but what the package pulls:
# lintian's verdict, `apt install ./tcptrace-bpf_...deb`, tcptrace
# --version, the demo's tracing by the installed binary (a client and a
# server of the tree's scenario program, on loopback in a private network
# namespace, counted exactly), the man page's FINDINGS section, then a purge
# that leaves nothing behind.
#
# run.sh --prepare only makes the base root (build/package-base), which
# tests/run-all.sh does at the start, beside the other suites; run.sh uses
# a copy of it, and makes it first when it is missing.
set -u
cd "$(dirname "$0")/../.."
TOP=$PWD
BASE=$TOP/build/package-base
MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
PASSED=0
FAILED=0

ok() { echo "    ok   $1"; }
bad() { echo "    FAIL $1"; CASE_FAILED=1; }
expect_eq() { # what expected actual
	[ "$2" = "$3" ] && ok "$1 = $3" && return 0
	bad "$1: expected '$2', got '$3'"
	return 1
}

base_root() {
	[ -e "$BASE/.complete" ] && return 0
	rm -rf "$BASE"
	debootstrap --variant=minbase bookworm "$BASE" "$MIRROR" >"$TOP/build/package-base.log" 2>&1 ||
		{ echo "debootstrap failed: $(tail -3 "$TOP/build/package-base.log")"; return 1; }
	touch "$BASE/.complete"
}

if [ "${1:-}" = --prepare ]; then
	mkdir -p build
	base_root
	exit
fi

ROOT=$(mktemp -d /tmp/tcptrace-package.XXXXXX)
in_root() { chroot "$ROOT" "$@"; }
NS=""
cleanup() {
	[ -z "$NS" ] || ip netns del "$NS" 2>/dev/null
	for m in sys proc dev; do umount -l "$ROOT/$m" 2>/dev/null; done
	rm -rf "$ROOT"
}
trap cleanup EXIT

run_case() { # name function
	echo "== $1"
	CASE_FAILED=0
	if ! "$2" || [ "$CASE_FAILED" -ne 0 ]; then
		FAILED=$((FAILED + 1))
		echo "FAIL $1"
	else
		PASSED=$((PASSED + 1))
		echo "PASS $1"
	fi
}

DEB=""
case_build() {
	local tags unexplained
	DEB=$(make -s deb | tail -1)
	[ -f "$DEB" ] || { bad "make deb made no package: $DEB"; return 1; }
	ok "built $(basename "$DEB")"
	# The one tag lintian is left with: the changelog's first entry closes
	# no "intent to package" bug, which only an upload to Debian has.
	tags=$(lintian --tag-display-limit 0 "$DEB" 2>/dev/null)
	unexplained=$(grep -v '^W: tcptrace-bpf: initial-upload-closes-no-bugs ' <<<"$tags" | grep -E '^[EWI]:')
	expect_eq "lintian: no error or warning but the explained one" "" "$unexplained"
	expect_eq "Depends: what the binary links, libbpf linked in" \
		"libc6 libelf1 zlib1g" "$(dpkg-deb -f "$DEB" Depends | sed -E 's/ \([^)]*\)//g; s/,//g')"
}

case_install() {
	local before after
	base_root || return 1
	cp -a "$BASE/." "$ROOT/" || return 1
	for m in dev proc sys; do mount --bind "/$m" "$ROOT/$m" || return 1; done
	cp "$DEB" "$ROOT/tmp/"
	before=$(in_root dpkg-query -W -f='${Package}\n' | LC_ALL=C sort)
	in_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
		"/tmp/$(basename "$DEB")" >"$ROOT/tmp/apt.log" 2>&1 ||
		{ bad "apt install: $(tail -3 "$ROOT/tmp/apt.log")"; return 1; }
	after=$(in_root dpkg-query -W -f='${Package}\n' | LC_ALL=C sort)
	expect_eq "what apt installed: the package and libelf1 (libc6 and zlib1g are in every Debian)" \
		"libelf1 tcptrace-bpf" "$(comm -13 <(echo "$before") <(echo "$after") | tr '\n' ' ' | sed 's/ $//')"
	expect_eq "tcptrace --version" "tcptrace $(sed -n 's/^VERSION := //p' Makefile)" \
		"$(in_root tcptrace --version)"
	expect_eq "installed at /usr/sbin/tcptrace, not Debian's tcptrace's /usr/bin" "/usr/sbin/tcptrace" \
		"$(in_root sh -c 'command -v tcptrace')"
}

# The tree's scenario program, copied in under a name of its own: a server
# and a client on loopback in a namespace of their own, the client run by
# the installed tcptrace.
case_demo() {
	local n=20 out
	[ -x "$ROOT/usr/sbin/tcptrace" ] || { bad "not installed"; return 1; }
	cp build/tt-scenario "$ROOT/tmp/ttdemo"
	NS=tt-package-$$
	ip netns add "$NS" && ip -n "$NS" link set lo up || { bad "no network namespace"; return 1; }
	out=$(ip netns exec "$NS" chroot "$ROOT" sh -c "
		/tmp/ttdemo server --addr 127.0.0.1 --port 8080 --count $n --mode fin-client \
			--ready /tmp/ready >/tmp/server.out 2>&1 &
		tcptrace -p ttdemo -i 0.2 --csv /tmp/demo.csv -- sh -c '
			for i in \$(seq 100); do [ -s /tmp/ready ] && break; sleep 0.05; done
			/tmp/ttdemo client --addr 127.0.0.1 --port 8080 --count $n --mode fin-client' \
			>/tmp/tracer.out 2>/tmp/tracer.err
		echo rc=\$?
		wait" 2>&1)
	expect_eq "the installed tcptrace ran the demo" "rc=0" "$(grep -o 'rc=[0-9]*' <<<"$out")" ||
		echo "    tcptrace said: $(tr '\n' ' ' <"$ROOT/tmp/tracer.err"); $out; the server: $(cat "$ROOT/tmp/server.out")"
	[ -s "$ROOT/tmp/demo.csv" ] || { bad "no CSV: $(cat "$ROOT/tmp/tracer.err")"; return 1; }
	expect_eq "conn_in and conn_out of the demo's two processes" "$n $n" \
		"$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
			{ in_ += $c["conn_in"]; out += $c["conn_out"] } END { print in_ + 0, out + 0 }' "$ROOT/tmp/demo.csv")"
	expect_eq "the summary was written" 1 "$(grep -c '^Totals over' "$ROOT/tmp/tracer.out")"
}

case_man() {
	in_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq man-db >"$ROOT/tmp/apt-man.log" 2>&1 ||
		{ bad "apt install man-db: $(tail -2 "$ROOT/tmp/apt-man.log")"; return 1; }
	expect_eq "man 8 tcptrace has its FINDINGS section" 1 \
		"$(in_root env MANWIDTH=80 man 8 tcptrace 2>/dev/null | grep -c '^FINDINGS$')"
	expect_eq "each finding's doc is installed" 1 \
		"$(in_root test -f /usr/share/doc/tcptrace-bpf/diagnosing.md && echo 1)"
}

case_purge() {
	local files left
	files=$(in_root dpkg -L tcptrace-bpf | while read -r f; do [ -d "$ROOT$f" ] || echo "$f"; done)
	expect_eq "the package's files as dpkg lists them = the .deb's" \
		"$(dpkg-deb -c "$DEB" | awk '$1 ~ /^-/ { sub(/^\./, "", $6); print $6 }' | LC_ALL=C sort | tr '\n' ' ')" \
		"$(LC_ALL=C sort <<<"$files" | tr '\n' ' ')"
	in_root env DEBIAN_FRONTEND=noninteractive apt-get purge -y -qq tcptrace-bpf >"$ROOT/tmp/purge.log" 2>&1 ||
		{ bad "apt purge: $(tail -2 "$ROOT/tmp/purge.log")"; return 1; }
	left=$(for f in $files /usr/share/doc/tcptrace-bpf; do [ ! -e "$ROOT$f" ] || echo "$f"; done)
	expect_eq "none of them left after the purge, nor the doc folder" "" "$left"
	expect_eq "dpkg knows it no more" "" "$(in_root dpkg-query -W -f='${Status}' tcptrace-bpf 2>/dev/null)"
}

run_case "make deb: the package, lintian, its Depends" case_build
run_case "apt install ./tcptrace-bpf_*.deb in a fresh Debian 12 root: nothing more than it pulls" case_install
run_case "the demo's tracing with the installed tcptrace" case_demo
run_case "man 8 tcptrace: FINDINGS; the docs the findings name" case_man
run_case "apt purge: nothing left" case_purge
echo "package: $PASSED passed, $FAILED failed"
[ "$FAILED" -eq 0 ]
