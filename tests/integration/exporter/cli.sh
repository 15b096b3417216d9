# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# The command line of the outputs: --listen in run mode, --json on stdout,
# bad --listen and --json input.
# Sourced by tests/integration/exporter.sh, which runs the cases.

# Run mode: COMMAND scrapes tcptrace itself while it runs, and tcptrace
# ends with COMMAND and its status, without waiting for the interval.
case_run_mode() {
	local mport start
	mport=$(free_port)
	start=$SECONDS
	"$TCPTRACE" -i 30 --listen "$mport" -- sh -c "curl -sf http://127.0.0.1:$mport/metrics |
		grep -c '^tcptrace_build_info{'; exit 7" >"$WORK/out" 2>"$WORK/err"
	expect_eq "COMMAND's exit status" 7 "$?"
	expect_eq "COMMAND was answered" 1 "$(cat "$WORK/out")"
	expect_eq "ended with COMMAND, not at the 30 s interval" 1 "$((SECONDS - start < 20))"
}

# --json - puts JSON lines alone on stdout.
case_json_on_stdout() {
	local n
	sleep 60 &
	local target=$!
	"$TCPTRACE" -p "$target" -i 0.2 -c 3 --json - >"$WORK/out" 2>"$WORK/err"
	expect_eq "exit status" 0 "$?"
	n=$(python3 -c '
import json, sys
print(sum(1 for line in open(sys.argv[1]) if json.loads(line)["pid"] == int(sys.argv[2])))' \
		"$WORK/out" "$target" 2>&1)
	expect_eq "one JSON line per interval, and nothing else" 3 "$n"
	expect_eq "summary on stderr" 1 "$(grep -c '^Totals over' "$WORK/err")"
	kill "$target"
}

expect_refusal() { # what status stderr-line tcptrace-args...
	local what=$1 status=$2 line=$3
	shift 3
	"$TCPTRACE" "$@" >"$WORK/out" 2>"$WORK/err"
	expect_eq "$what: exit status" "$status" "$?"
	expect_eq "$what: the one line on stderr" "$line" "$(cat "$WORK/err")"
}

case_bad_input() {
	local busy dir i
	dir=$(mktemp -d /tmp/tcptrace-cli.XXXXXX)
	python3 -c 'import socket, sys, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen()
print(s.getsockname()[1], flush=True); time.sleep(60)' >"$WORK/busy" &
	local holder=$!
	for i in $(seq 100); do [ -s "$WORK/busy" ] && break; sleep 0.05; done
	busy=$(cat "$WORK/busy")
	expect_refusal "port in use" 2 "tcptrace: cannot listen on 127.0.0.1:$busy: Address already in use" \
		--listen "$busy" -c 1 --csv "$dir/a.csv"
	expect_eq "no CSV left after a port in use" "" "$(ls "$dir")"
	kill "$holder"
	expect_refusal "malformed address" 2 "tcptrace: invalid --listen '1.2.3.4.5:80': expected PORT or ADDR:PORT, ADDR an IPv4 address or [IPv6 address], PORT from 1 to 65535 (see tcptrace --help)" \
		--listen 1.2.3.4.5:80
	expect_refusal "address of no interface here" 2 "tcptrace: cannot listen on 192.0.2.1:9477: Cannot assign requested address" \
		--listen 192.0.2.1:9477 -c 1
	expect_refusal "CSV and JSON both on stdout" 2 "tcptrace: --csv - and --json - cannot both write to stdout (see tcptrace --help)" \
		--csv - --json -
	expect_refusal "unwritable JSON path" 2 "tcptrace: cannot write JSON file '$dir/none/x.json': No such file or directory" \
		--csv "$dir/b.csv" --json "$dir/none/x.json" -c 1
	expect_eq "no CSV left after an unwritable JSON path" "" "$(ls "$dir")"
	rm -rf "$dir"
}
