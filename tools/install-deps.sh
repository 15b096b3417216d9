#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# Installs what tcptrace needs to build, test and run its demo on Debian 12
# (as root). Package daemons are kept from starting: the demo and the tests
# start their own haproxy and nginx in private network namespaces.
set -eu
export DEBIAN_FRONTEND=noninteractive

packages=(
	make gcc clang llvm pkg-config libbpf-dev libelf-dev zlib1g-dev bpftool libcmocka-dev
	iproute2 haproxy nginx-light apache2-utils wrk procps util-linux python3
	clang-19 libclang-rt-19-dev clang-tidy-19 cppcheck valgrind
	qemu-system-x86 busybox-static cpio
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

apt-get update -qq
apt-get install -y -qq --no-install-recommends "${packages[@]}" >/dev/null
echo "tcptrace: build and test dependencies installed"
