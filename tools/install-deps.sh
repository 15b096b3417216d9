#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# Installs what tcptrace needs to build, test and run its demo on Debian 12
# (as root). Package daemons are kept from starting: the demo, the scenarios
# and the tests start their own haproxy, nginx, apache2, hitch and prometheus,
# in private network namespaces or on loopback ports of their own.
set -eu
export DEBIAN_FRONTEND=noninteractive

packages=(
	make gcc clang llvm pkg-config libbpf-dev libelf-dev zlib1g-dev bpftool libcmocka-dev
	iproute2 haproxy nginx-light apache2-utils wrk procps util-linux python3
	apache2 hitch openssl
	clang-19 libclang-rt-19-dev clang-tidy-19 cppcheck valgrind
	qemu-system-x86 busybox-static cpio
	prometheus jq curl
	groff-base man-db mandoc bash-completion systemd
	libjs-chart.js chromium
)

# policy-rc.d exit 101 tells Debian's maintainer scripts not to start services.
policy=/usr/sbin/policy-rc.d
created_policy=0
if [ ! -e "$policy" ]; then
	printf '#!/bin/sh\nexit 101\n' >"$policy"
	chmod +x "$policy"
	created_policy=1
fi
trap '[ "$created_policy" -eq 1 ] && rm -f "$policy"' EXIT

# Whether prometheus was there before: only a service this script brought
# in is disabled below, never one the machine already ran.
had_prometheus=0
dpkg-query -W -f='${Status}' prometheus 2>/dev/null | grep -q 'ok installed' && had_prometheus=1

apt-get update -qq
apt-get install -y -qq --no-install-recommends "${packages[@]}" >/dev/null

# policy-rc.d only stops the start during installation; under systemd the
# unit is still enabled and would hold port 9090 from the next boot on. The
# Prometheus test starts its own server on a free loopback port.
if [ "$had_prometheus" -eq 0 ] && [ -d /run/systemd/system ]; then
	systemctl disable --now --quiet prometheus.service
fi
echo "tcptrace: build and test dependencies installed"
