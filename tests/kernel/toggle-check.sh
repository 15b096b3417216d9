#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# Why the kernel matrix's guests have one CPU, checked again: boots
# Debian's kernel of SERIES under qemu (software emulation) with CPUS
# CPUs and busybox alone, no tcptrace and no BPF. Its /init runs two
# `dd bs=1` loops (a syscall a byte) and enables and disables the
# syscalls:sys_enter_connect and sys_exit_connect events through tracefs,
# ROUNDS times: each change makes the kernel patch the syscall
# tracepoints' jumps. Prints the rounds the guest finished, and whether it
# hung (a soft lockup, or no end within the timeout). Run it after a qemu
# upgrade before giving the guests two CPUs again (docs/testing.md).
#
# Usage: tests/kernel/toggle-check.sh SERIES [CPUS [ROUNDS]]
# Exit 0 if every round ended, 1 if the guest hung, 2 if it checked
# nothing (a missing tool, a guest that never ran its /init or could not
# switch the events). KEEP=1 keeps the guest's console.
set -u
SERIES=${1:?usage: tests/kernel/toggle-check.sh SERIES [CPUS [ROUNDS]]}
CPUS=${2:-2}
ROUNDS=${3:-100}
TOP=$(cd "$(dirname "$0")/../.." && pwd)
for tool in qemu-system-x86_64 busybox cpio; do
	command -v "$tool" >/dev/null || { echo "toggle-check: $tool not found" >&2; exit 2; }
done
if ldd "$(command -v busybox)" >/dev/null 2>&1; then
	echo "toggle-check: busybox is not static (install busybox-static)" >&2
	exit 2
fi
kernel=$("$TOP/tests/kernel/fetch-kernel.sh" "$SERIES" "$TOP/build/kernel") || exit 2
work=$(mktemp -d /tmp/tcptrace-toggle.XXXXXX)
trap '[ -n "${KEEP:-}" ] && echo "toggle-check: kept $work" >&2 || rm -rf "$work"' EXIT
mkdir -p "$work"/root/{bin,dev,proc,sys,tmp}
cp "$(command -v busybox)" "$work/root/bin/busybox"
cat >"$work/root/init" <<'EOF'
#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs dev /dev
mount -t tracefs nodev /sys/kernel/tracing
echo "@tt init"
rounds=$(sed -n 's/.*tt_rounds=\([0-9]*\).*/\1/p' /proc/cmdline)
for _ in 1 2; do
	(while :; do dd if=/dev/zero of=/dev/null bs=1 count=20000 2>/dev/null; done) &
done
events=/sys/kernel/tracing/events/syscalls
i=0
while [ "$i" -lt "$rounds" ]; do
	for on in 1 0; do
		echo $on >$events/sys_exit_connect/enable && echo $on >$events/sys_enter_connect/enable ||
			{ echo "@tt cannot switch"; reboot -f; }
		sleep 0.2
	done
	i=$((i + 1))
	echo "@tt round $i"
done
echo "@tt done"
reboot -f
EOF
chmod 755 "$work/root/init"
(cd "$work/root" && find . | cpio -o -H newc -R 0:0 --quiet) | gzip -1 >"$work/initramfs.gz"
timeout -k 10 $((60 + ROUNDS * 3)) qemu-system-x86_64 -accel tcg -cpu max -smp "$CPUS" -m 512 \
	-display none -monitor none -serial stdio -nic none -no-reboot \
	-kernel "$kernel/vmlinuz" -initrd "$work/initramfs.gz" \
	-append "console=ttyS0 panic=-1 loglevel=5 no_timer_check tt_rounds=$ROUNDS" \
	</dev/null 2>&1 | tr -d '\r' >"$work/console.log"
done_rounds=$(grep -c '^@tt round' "$work/console.log")
if ! grep -q '^@tt init' "$work/console.log" || grep -q '^@tt cannot switch' "$work/console.log"; then
	echo "toggle-check: $SERIES: the guest checked nothing (no /init run, or the events not switched):" \
		"$(tail -3 "$work/console.log" | tr '\n' ' ')"
	exit 2
fi
if grep -q '^@tt done' "$work/console.log" && ! grep -q 'soft lockup' "$work/console.log"; then
	echo "toggle-check: $SERIES on $CPUS emulated CPU(s): $done_rounds of $ROUNDS rounds, no hang"
	exit 0
fi
echo "toggle-check: $SERIES on $CPUS emulated CPU(s): hung after $done_rounds of $ROUNDS rounds:" \
	"$(grep -m1 -A4 'soft lockup' "$work/console.log" | grep -E 'soft lockup|RIP' | tr '\n' ' ')"
exit 1
