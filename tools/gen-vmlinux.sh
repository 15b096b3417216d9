#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# Regenerates the pinned vmlinux.h from the running kernel's BTF. CO-RE
# relocations make the pinned copy work on other kernels, so this is only
# needed to use types or fields that the pinned copy lacks.
set -eu
cd "$(dirname "$0")/.."
bpftool btf dump file "${1:-/sys/kernel/btf/vmlinux}" format c >vmlinux.h.new
mv vmlinux.h.new vmlinux.h
echo "vmlinux.h regenerated from ${1:-/sys/kernel/btf/vmlinux} ($(uname -r))"
