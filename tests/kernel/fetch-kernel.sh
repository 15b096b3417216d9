#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# Fetches Debian's stock kernel of one series (the newest ABI that apt knows
# of, cloud flavour) with `apt-get download`, and unpacks what the guest
# needs: vmlinuz and the sock_diag modules, which Debian builds as modules
# and tcptrace uses for tw_now and for sockets that existed before it
# started. Kept under CACHE, so a second run downloads nothing.
# Prints the folder that holds vmlinuz, inet_diag.ko and tcp_diag.ko.
set -eu
series=$1 # 6.1
cache=$2

pattern="^linux-image-${series//./\\.}\\.0-[0-9]+-cloud-amd64-unsigned\$"
package=$(apt-cache search --names-only "$pattern" | awk '{ print $1 }' | sort -V | tail -1)
if [ -z "$package" ]; then
	echo "fetch-kernel: apt knows no package matching $pattern (run apt-get update)" >&2
	exit 1
fi

out=$cache/$package
if [ ! -e "$out/.complete" ]; then
	rm -rf "$cache" # an older ABI of the series, or a half-finished run
	mkdir -p "$out"
	out=$(cd "$out" && pwd)
	cache=$(dirname "$out")
	tmp=$(mktemp -d "$cache/unpack.XXXXXX")
	echo "fetch-kernel: downloading $package" >&2
	# apt's download user cannot write to every folder; root's own files
	# then say so in a warning, which is noise here.
	(cd "$tmp" && apt-get download -q "$package" >/dev/null 2>"$tmp/apt.err") || {
		echo "fetch-kernel: apt-get download $package failed: $(cat "$tmp/apt.err")" >&2
		exit 1
	}
	dpkg-deb -x "$tmp"/"$package"_*.deb "$tmp/root"
	cp "$tmp"/root/boot/vmlinuz-* "$out/vmlinuz"
	cp "$tmp"/root/boot/config-* "$out/config"
	for module in inet_diag tcp_diag; do
		find "$tmp/root/lib/modules" -name "$module.ko" -exec cp {} "$out/" \;
		[ -s "$out/$module.ko" ] || {
			echo "fetch-kernel: $package holds no $module.ko" >&2
			exit 1
		}
	done
	rm -rf "$tmp"
	touch "$out/.complete"
fi
echo "$out"
