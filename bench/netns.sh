# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# Sourced by the bench scripts: the end of a run's network namespace.

# Stop every process in namespace NS (TERM, then KILL after 2 s), reap
# those started in the background, delete NS.
netns_remove() { # ns
	local pid i
	for pid in $(ip netns pids "$1" 2>/dev/null); do kill -TERM "$pid" 2>/dev/null; done
	for i in $(seq 20); do
		[ -z "$(ip netns pids "$1" 2>/dev/null)" ] && break
		sleep 0.1
	done
	for pid in $(ip netns pids "$1" 2>/dev/null); do kill -KILL "$pid" 2>/dev/null; done
	wait 2>/dev/null
	ip netns del "$1" 2>/dev/null
}
