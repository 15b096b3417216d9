#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# Fetches Debian's stock kernel of one series (the newest ABI that Debian's
# suites serve, cloud flavour) and unpacks what the guest needs: vmlinuz and
# the sock_diag modules, which Debian builds as modules and tcptrace uses
# for tw_now and for sockets that existed before it started.
#
# apt runs with a private configuration under CACHE/apt (its own sources,
# lists and package cache): the machine's apt sources, which name one Debian
# release, stay as they were. Debian 11's kernel comes from bullseye, 6.1
# and 6.12 from bookworm and its security suite. A series already unpacked
# is used as it is: a second run downloads nothing. One fetch at a time
# per CACHE (a lock there): the kernels suite waits for the download that
# tests/run-all.sh started in the background. The package lists are
# fetched again when they are more than an hour old, so the series after
# the first one of a run do not download them again.
# Prints the folder that holds vmlinuz, inet_diag.ko and tcp_diag.ko.
set -eu
series=$1 # 5.10, 6.1, 6.12
cache=$2  # build/kernel: one folder per series, and apt's

case $series in
5.10 | 6.1 | 6.12) ;;
*)
	echo "fetch-kernel: no Debian suite is known to serve kernel series $series (5.10, 6.1 or 6.12)" >&2
	exit 1
	;;
esac
suites="debian:bullseye debian:bookworm debian:bookworm-updates debian-security:bookworm-security"

# Debian names 5.10 and 6.1 images linux-image-5.10.0-32-cloud-amd64-unsigned,
# and 6.12 ones linux-image-6.12.117+deb12-cloud-amd64-unsigned.
pattern="^linux-image-${series//./\\.}\\.[0-9]+(-[0-9]+|\\+deb[0-9]+)-cloud-amd64-unsigned\$"
out_series=$cache/$series
mkdir -p "$cache"
exec 9>"$cache/.lock"
flock 9
if [ -e "$out_series/.complete" ]; then
	cat "$out_series/.complete"
	exit 0
fi

mkdir -p "$cache/apt/lists/partial" "$cache/apt/archives/partial" "$cache/apt/preferences.d"
apt_dir=$(cd "$cache/apt" && pwd)
: >"$apt_dir/sources.list.new"
for suite in $suites; do
	echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg]" \
		"http://deb.debian.org/${suite%%:*} ${suite#*:} main" >>"$apt_dir/sources.list.new"
done
apt_opts=(
	-o "Dir::Etc::SourceList=$apt_dir/sources.list"
	-o Dir::Etc::SourceParts=/dev/null
	-o "Dir::State::Lists=$apt_dir/lists"
	-o "Dir::Cache=$apt_dir"
	-o "Dir::Cache::Archives=$apt_dir/archives"
	-o "Dir::Etc::PreferencesParts=$apt_dir/preferences.d"
	-o Dir::Etc::Preferences=/dev/null
	-o Debug::NoLocking=1
	-o APT::Sandbox::User=root
)
# Lists of other suites than these are fetched again.
cmp -s "$apt_dir/sources.list.new" "$apt_dir/sources.list" || rm -f "$apt_dir/updated"
mv "$apt_dir/sources.list.new" "$apt_dir/sources.list"
if [ -z "$(find "$apt_dir/updated" -mmin -60 2>/dev/null)" ]; then
	apt-get -q "${apt_opts[@]}" update >"$apt_dir/update.log" 2>&1 || {
		echo "fetch-kernel: apt-get update of Debian's suites failed: $(tail -3 "$apt_dir/update.log")" >&2
		exit 1
	}
	touch "$apt_dir/updated"
fi
package=$(apt-cache "${apt_opts[@]}" search --names-only "$pattern" | awk '{ print $1 }' | sort -V | tail -1)
if [ -z "$package" ]; then
	echo "fetch-kernel: Debian's suites ($suites) serve no package matching $pattern" >&2
	exit 1
fi

rm -rf "$out_series" # an older ABI of the series, or a half-finished run
out=$out_series/$package
mkdir -p "$out"
out=$(cd "$out" && pwd)
tmp=$(mktemp -d "$(dirname "$out")/unpack.XXXXXX")
echo "fetch-kernel: downloading $package" >&2
(cd "$tmp" && apt-get -q "${apt_opts[@]}" download "$package" >/dev/null 2>"$tmp/apt.err") || {
	echo "fetch-kernel: apt-get download $package failed: $(cat "$tmp/apt.err")" >&2
	exit 1
}
dpkg-deb -x "$tmp"/"$package"_*.deb "$tmp/root"
cp "$tmp"/root/boot/vmlinuz-* "$out/vmlinuz"
cp "$tmp"/root/boot/config-* "$out/config"
# 6.12's packages compress their modules; the guest's insmod takes them plain.
for module in inet_diag tcp_diag; do
	found=$(find "$tmp/root/lib/modules" "$tmp/root/usr/lib/modules" \
		\( -name "$module.ko" -o -name "$module.ko.xz" \) 2>/dev/null | head -1)
	case $found in
	*.xz) xz -dc "$found" >"$out/$module.ko" ;;
	?*) cp "$found" "$out/$module.ko" ;;
	esac
	[ -s "$out/$module.ko" ] || {
		echo "fetch-kernel: $package holds no $module.ko" >&2
		exit 1
	}
done
rm -rf "$tmp"
echo "$out" >"$out_series/.complete"
echo "$out"
