#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# The BPF skeleton as cppcheck reads it: bpftool's header with the BPF
# object's bytes (the string literal of <name>__elf_bytes(), 700 KB spread
# over 27,000 continued lines) left out; every type, function and statement
# stays. cppcheck 2.10 spends minutes on that one literal in each file that
# includes the skeleton (224 s for tracer/counters.c alone, 0.13 s without
# it) and checks nothing in it. Fails when the literal is not where bpftool
# puts it, so a new bpftool cannot make lint slow again unnoticed.
# Usage: tests/lint/slim-skel.sh SKELETON >SLIM
set -eu
awk '
	/^\treturn \(const void \*\)"\\$/ { print "\treturn (const void *)\"\";"; skip = 1; found = 1; next }
	skip { if (/";$/) skip = 0; next }
	{ print }
	END { if (!found || skip) { print "slim-skel: no ELF bytes literal in " FILENAME > "/dev/stderr"; exit 1 } }
' "$1"
