#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# Root integration tests of tcptrace's outputs for other programs: a real
# Prometheus server (Debian's package) scrapes --listen, and its HTTP API
# must return the scenario's own counts, the namespace's kernel counters
# (ListenDrops and TCPSynRetrans among them), ss and the CSV's sums;
# --json must carry the CSV's rows field for field; every query of the
# Grafana dashboard (contrib/grafana) must return its series.
# Every server binds to loopback ports found free, or lives in a private
# network namespace. A test that cannot run fails; none is skipped.
# The cases live in exporter/, a file per topic; this runner runs them in
# one order. ONLY=TEXT runs the cases whose name holds TEXT.
set -u
here=$(dirname "$0")
. "$here/../lib/common.sh"
. "$here/../lib/tracer.sh"
. "$here/../lib/csv.sh"
. "$here/exporter/lib.sh"
for topic in prometheus listen grafana server cli; do
	. "$here/exporter/$topic.sh"
done

[ "$(id -u)" -eq 0 ] || { echo "integration tests need root"; echo "0 passed, 1 failed"; exit 1; }
for bin in "$TCPTRACE" "$SCENARIO"; do
	[ -x "$bin" ] || { echo "missing $bin: run make first"; echo "0 passed, 1 failed"; exit 1; }
done
for tool in "$PROMETHEUS" "$PROMTOOL" curl jq python3; do
	command -v "$tool" >/dev/null || { echo "missing $tool: run tools/install-deps.sh"; echo "0 passed, 1 failed"; exit 1; }
done

run_case "Prometheus scrapes --listen: counts = scenario, nstat, ss and the CSV; JSON = CSV" case_prometheus_scrape
run_case "--by dest: series per name and destination = scenario, ss and the CSV; JSON = CSV" case_prometheus_by_dest
run_case "listen queues: drops = ListenDrops, SYNs sent again = TCPSynRetrans, open = ss, per process in the CSV" case_listen_queues
run_case "the Grafana dashboard: every query returns its series, exact where the scenario makes it" case_grafana_dashboard
run_case "--max-comms: names past the limit added up, sums exact" case_series_cap
run_case "--listen as a daemon: outlives its target, IPv6, hostile clients, SIGTERM" case_daemon_and_hostile_clients
run_case "--listen: clients that never read their response cannot keep a scraper out" case_clients_that_never_read
run_case "--listen in run mode: ends with COMMAND" case_run_mode
run_case "--json - on stdout" case_json_on_stdout
run_case "bad --listen and --json input is refused in one line" case_bad_input
finish
