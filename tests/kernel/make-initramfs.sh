#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# Builds the guest's initramfs: busybox, and tcptrace, tt-scenario and
# bpftool with the exact shared libraries and loader they were linked
# against on this host,
# the kernel's sock_diag modules, the loss program (tt_loss.bpf.o), and
# guest-init.sh as /init.
set -eu
out=$1     # initramfs file to write (gzip'd cpio)
modules=$2 # folder with inet_diag.ko and tcp_diag.ko
tcptrace=$3
scenario=$4
bpftool=$5 # reads the programs' run counts in the guest, loads the loss program
loss=$6    # tt_loss.bpf.o: segments lost after they were sent
here=$(cd "$(dirname "$0")" && pwd)

busybox=$(command -v busybox) || {
	echo "make-initramfs: busybox not found (Debian package busybox-static)" >&2
	exit 1
}
# A dynamically linked busybox would need its libraries too: refuse it.
if ldd "$busybox" >/dev/null 2>&1; then
	echo "make-initramfs: $busybox is not static (install busybox-static)" >&2
	exit 1
fi

root=$(mktemp -d "${out}.root.XXXXXX")
trap 'rm -rf "$root"' EXIT
chmod 755 "$root" # it becomes /: tcptrace, once it is nobody, must get through
mkdir -p "$root"/{bin,dev,proc,sys,tmp,modules,opt/tt}
cp "$busybox" "$root/bin/busybox"
cp "$here/guest-init.sh" "$root/init"
cp "$tcptrace" "$root/opt/tt/tcptrace"
cp "$scenario" "$root/bin/tt-scenario" # traced by that name
cp "$bpftool" "$root/bin/bpftool"
cp "$loss" "$root/opt/tt/tt_loss.bpf.o"
cp "$modules/inet_diag.ko" "$modules/tcp_diag.ko" "$root/modules/"

# Each library at the path ldd resolved it to, the loader at the path
# the binaries name (PT_INTERP).
for lib in $(for bin in "$tcptrace" "$scenario" "$bpftool"; do ldd "$bin"; done |
	awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// && $2 ~ /^\(/ { print $1 }' | sort -u); do
	mkdir -p "$root$(dirname "$lib")"
	cp -L "$lib" "$root$lib"
done

(cd "$root" && find . | cpio -o -H newc -R 0:0 --quiet) | gzip -1 >"$out"
