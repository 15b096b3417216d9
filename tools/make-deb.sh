#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# Builds the Debian package of the tree: make-deb.sh VERSION OUTPUT-DIR.
# The package is tcptrace-bpf: Debian's own tcptrace package (the tcpdump
# analyser) owns the name and /usr/bin/tcptrace with a section-1 page, and
# this one installs /usr/sbin/tcptrace and a section-8 page beside it, so
# both can be installed without a Conflicts. Built with dpkg-deb from what
# `make install` puts in a staging root; its Depends are what dpkg-shlibdeps
# reads off the binary (libbpf is linked in, as libbpf-tools' package does).
set -eu

version=$1
out=$2
name=tcptrace-bpf
arch=$(dpkg --print-architecture)
docdir=/usr/share/doc/$name
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
stage=$work/root

# make install puts the docs the findings cite in $docdir, as here.
make -s install DESTDIR="$stage" PREFIX=/usr >/dev/null
[ -f "$stage$docdir/diagnosing.md" ] || { echo "make-deb.sh: make install put no $docdir/diagnosing.md" >&2; exit 1; }
strip --strip-unneeded --remove-section=.comment --remove-section=.note "$stage/usr/sbin/tcptrace"
install -m 0644 contrib/grafana/tcptrace.json "$stage$docdir/examples/grafana-dashboard.json"
gzip -9n "$stage/usr/share/man/man8/tcptrace.8"
printf '%s (%s-1) unstable; urgency=medium\n\n  * Built from the tree at %s.\n\n -- tcptrace developers <tcptrace@example.org>  %s\n' \
	"$name" "$version" "$(git rev-parse --short HEAD 2>/dev/null || echo unknown)" \
	"$(date -R -d "@${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || date +%s)}")" |
	gzip -9n >"$stage$docdir/changelog.Debian.gz"
chmod 0644 "$stage$docdir/changelog.Debian.gz"
cat >"$stage$docdir/copyright" <<'COPYRIGHT'
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: tcptrace

Files: *
Copyright: 2026 the tcptrace developers
License: LGPL-2.1 or BSD-2-Clause

License: LGPL-2.1
 On Debian systems, the complete text of the GNU Lesser General Public
 License version 2.1 can be found in /usr/share/common-licenses/LGPL-2.1.

License: BSD-2-Clause
 Redistribution and use in source and binary forms, with or without
 modification, are permitted provided that the following conditions are met:
 .
 1. Redistributions of source code must retain the above copyright notice,
    this list of conditions and the following disclaimer.
 2. Redistributions in binary form must reproduce the above copyright notice,
    this list of conditions and the following disclaimer in the documentation
    and/or other materials provided with the distribution.
 .
 THIS SOFTWARE IS PROVIDED BY THE COPYRIGHT HOLDERS AND CONTRIBUTORS "AS IS"
 AND ANY EXPRESS OR IMPLIED WARRANTIES, INCLUDING, BUT NOT LIMITED TO, THE
 IMPLIED WARRANTIES OF MERCHANTABILITY AND FITNESS FOR A PARTICULAR PURPOSE
 ARE DISCLAIMED. IN NO EVENT SHALL THE COPYRIGHT HOLDER OR CONTRIBUTORS BE
 LIABLE FOR ANY DIRECT, INDIRECT, INCIDENTAL, SPECIAL, EXEMPLARY, OR
 CONSEQUENTIAL DAMAGES (INCLUDING, BUT NOT LIMITED TO, PROCUREMENT OF
 SUBSTITUTE GOODS OR SERVICES; LOSS OF USE, DATA, OR PROFITS; OR BUSINESS
 INTERRUPTION) HOWEVER CAUSED AND ON ANY THEORY OF LIABILITY, WHETHER IN
 CONTRACT, STRICT LIABILITY, OR TORT (INCLUDING NEGLIGENCE OR OTHERWISE)
 ARISING IN ANY WAY OUT OF THE USE OF THIS SOFTWARE, EVEN IF ADVISED OF THE
 POSSIBILITY OF SUCH DAMAGE.
COPYRIGHT
chmod 0644 "$stage$docdir/copyright"

# dpkg-shlibdeps wants a debian/control to read the package list from.
mkdir -p "$work/src/debian"
printf 'Source: %s\n\nPackage: %s\nArchitecture: any\n' "$name" "$name" >"$work/src/debian/control"
depends=$(cd "$work/src" && dpkg-shlibdeps -O "$stage/usr/sbin/tcptrace" 2>/dev/null |
	sed -n 's/^shlibs:Depends=//p')
[ -n "$depends" ] || { echo "make-deb.sh: dpkg-shlibdeps gave no Depends" >&2; exit 1; }

mkdir -p "$stage/DEBIAN"
cat >"$stage/DEBIAN/control" <<CONTROL
Package: $name
Version: $version-1
Architecture: $arch
Maintainer: tcptrace developers <tcptrace@example.org>
Installed-Size: $(du -sk --exclude=DEBIAN "$stage" | cut -f1)
Depends: $depends
Section: net
Priority: optional
Description: per-process TCP closes, RSTs, TIME_WAIT, failed connects, listen drops
 tcptrace attaches to a running reverse proxy (haproxy, nginx, envoy...)
 during a load run and shows, every second and per process and side, how
 its TCP connections open and end: FIN or RST with the kernel's reason, the
 TIME_WAIT sockets it holds, connect() failures by cause and for lack of a
 local port, connect times, and the connection attempts its listeners
 dropped. Each run ends with findings that name the setting to change.
 .
 It counts in the kernel with BPF (libbpf, CO-RE) and needs root and a
 kernel with BTF. Not to be confused with the tcptrace package, which
 analyses tcpdump files: this one installs /usr/sbin/tcptrace and
 tcptrace(8).
CONTROL
(cd "$stage" && find usr -type f -print0 | LC_ALL=C sort -z | xargs -0 md5sum) >"$stage/DEBIAN/md5sums"
chmod 0644 "$stage/DEBIAN/control" "$stage/DEBIAN/md5sums"
find "$stage" -type d -exec chmod 0755 {} +
mkdir -p "$out"
dpkg-deb --root-owner-group -Zxz --build "$stage" "$out/${name}_${version}-1_${arch}.deb" >/dev/null
echo "$out/${name}_${version}-1_${arch}.deb"
