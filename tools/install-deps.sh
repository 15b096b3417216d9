#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# Installs what tcptrace needs on Debian 12 (as root), by need:
#   install-deps.sh build   to build tcptrace and make install or make deb
#   install-deps.sh demo    that, and what tools/haproxy-demo.sh runs
#   install-deps.sh [test]  all of it: what every test suite runs (the default)
# Package daemons are kept from starting: the demo, the scenarios and the
# tests start their own haproxy, nginx, apache2, hitch and prometheus, in
# private network namespaces or on loopback ports of their own. vegeta,
# which Debian does not package, is built (for the tests only) from its Go
# module at a pinned version with Debian's Go.
set -eu
export DEBIAN_FRONTEND=noninteractive

need=${1:-test}
build=(make gcc clang llvm pkg-config libbpf-dev libelf-dev zlib1g-dev bpftool dpkg-dev)
demo=(iproute2 haproxy nginx-light apache2-utils procps)
tests=(
	libcmocka-dev nftables libnginx-mod-stream wrk util-linux python3
	apache2 hitch openssl
	clang-19 libclang-rt-19-dev clang-tidy-19 cppcheck valgrind
	qemu-system-x86 busybox-static cpio xz-utils
	prometheus jq curl linux-perf
	groff-base man-db mandoc bash-completion systemd
	golang-go
	libjs-chart.js chromium
	debootstrap lintian
)
case $need in
build) packages=("${build[@]}") ;;
demo) packages=("${build[@]}" "${demo[@]}") ;;
test) packages=("${build[@]}" "${demo[@]}" "${tests[@]}") ;;
*)
	echo "usage: install-deps.sh [build|demo|test]" >&2
	exit 2
	;;
esac

# vegeta's releases after this one need a newer Go than Debian 12's 1.19.
VEGETA_MODULE=github.com/tsenart/vegeta/v12
VEGETA_VERSION=v12.8.4
VEGETA=/usr/local/bin/vegeta
# Debian's Go by its path: another Go earlier in PATH, or a GOROOT, GOFLAGS
# or go env file of the machine's, must not take over the build.
DEBIAN_GO=/usr/lib/go/bin/go

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
if [ "$need" != test ]; then
	echo "tcptrace: the dependencies to $need installed"
	exit 0
fi

# policy-rc.d only stops the start during installation; under systemd the
# unit is still enabled and would hold port 9090 from the next boot on. The
# Prometheus test starts its own server on a free loopback port.
if [ "$had_prometheus" -eq 0 ] && [ -d /run/systemd/system ]; then
	systemctl disable --now --quiet prometheus.service
fi

# The module version a Go binary was built from ("v12.8.4"), and the Go
# that built it ("go1.19.8").
go_module_version() { "$DEBIAN_GO" version -m "$1" 2>/dev/null | awk '$1 == "mod" { print $3 }'; }
go_built_with() { "$DEBIAN_GO" version "$1" 2>/dev/null | awk '{ print $2 }'; }

if [ "$(go_module_version "$VEGETA")" = "$VEGETA_VERSION" ]; then
	echo "tcptrace: vegeta $VEGETA_VERSION already installed"
else
	gowork=$(mktemp -d)
	env -u GOROOT GOENV=off GOFLAGS=-mod=mod GOTOOLCHAIN=local GOPATH="$gowork/path" \
		GOCACHE="$gowork/cache" GOBIN="$(dirname "$VEGETA")" \
		"$DEBIAN_GO" install "$VEGETA_MODULE@$VEGETA_VERSION"
	rm -rf "$gowork"
	built_with=$(go_built_with "$VEGETA")
	debian_go_version=$("$DEBIAN_GO" env GOVERSION)
	if [ "$(go_module_version "$VEGETA")" != "$VEGETA_VERSION" ] ||
		[ "$built_with" != "$debian_go_version" ]; then
		echo "tcptrace: $VEGETA is not vegeta $VEGETA_VERSION built with $debian_go_version" \
			"($(go_module_version "$VEGETA") built with $built_with)" >&2
		exit 1
	fi
	echo "tcptrace: vegeta $VEGETA_VERSION built with Debian's $built_with"
fi
echo "tcptrace: the dependencies to build, run the demo and test installed"
