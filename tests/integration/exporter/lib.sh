# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# The exporter cases' own helpers: a Prometheus server started on a free
# loopback port and asked, the JSON lines held against the CSV, and
# common.sh's cleanup, which stops the case's Prometheus too.

PROMETHEUS=${PROMETHEUS:-prometheus}
PROMTOOL=${PROMTOOL:-promtool}
PROM_PID=""
PPORT=""

# common.sh's cleanup, and the Prometheus server of the case.
eval "lib_$(declare -f cleanup)"

cleanup() {
	if [ -n "$PROM_PID" ]; then
		kill -TERM "$PROM_PID" 2>/dev/null
		wait "$PROM_PID" 2>/dev/null
	fi
	PROM_PID=""
	PROM_TIME=""
	lib_cleanup
}

field() { tr ' ' '\n' <"$1" | awk -F= -v k="$2" '$1 == k { print $2 }'; }

# A TCP port on 127.0.0.1 that nothing listens on now.
free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# Start Prometheus on a free loopback port, scraping tcptrace every second.
prom_start() { # target
	local i
	PPORT=$(free_port)
	# A store of its own: what an earlier case's server kept is not asked.
	rm -rf "$WORK/prom-data"
	mkdir -p "$WORK/prom-data"
	cat >"$WORK/prometheus.yml" <<-EOF
		global:
		  scrape_interval: 1s
		  scrape_timeout: 1s
		scrape_configs:
		  - job_name: tcptrace
		    static_configs:
		      - targets: ['$1']
	EOF
	"$PROMETHEUS" --config.file="$WORK/prometheus.yml" --storage.tsdb.path="$WORK/prom-data" \
		--web.listen-address="127.0.0.1:$PPORT" --log.level=warn >"$WORK/prometheus.log" 2>&1 &
	PROM_PID=$!
	for i in $(seq 600); do
		curl -sf "http://127.0.0.1:$PPORT/-/ready" >/dev/null 2>&1 && return 0
		kill -0 "$PROM_PID" 2>/dev/null || break
		sleep 0.1
	done
	log "prometheus did not start: $(tail -5 "$WORK/prometheus.log")"
	return 1
}

# The value of an instant query with exactly one result; "none" when it
# has none, "many" when more than one, "error" when the query failed.
# Evaluated now, or at PROM_TIME (seconds since the epoch) when set: the
# time of the scrape wait_for_scrape_after found. A later scrape that fails,
# or tcptrace's exit, makes Prometheus mark the series stale.
PROM_TIME=""

prom_query() { # promql
	curl -s -G --data-urlencode "query=$1" ${PROM_TIME:+--data-urlencode "time=$PROM_TIME"} \
		"http://127.0.0.1:$PPORT/api/v1/query" | python3 -c '
import json, sys
try:
    reply = json.load(sys.stdin)
except ValueError:
    print("error"); sys.exit()
if reply.get("status") != "success":
    print("error"); sys.exit()
result = reply["data"]["result"]
if reply["data"]["resultType"] == "scalar":
    result = [{"value": result}]
if not result:
    print("none")
elif len(result) > 1:
    print("many")
else:
    v = float(result[0]["value"][1])
    print(int(v) if v.is_integer() else result[0]["value"][1])'
}

# Wait until Prometheus holds a successful scrape taken after the moment
# given (seconds since the epoch): every count before it is then in. Later
# queries are evaluated at that scrape (PROM_TIME).
wait_for_scrape_after() { # epoch-seconds
	local i ts
	PROM_TIME=""
	for i in $(seq 120); do
		# timestamp() of a selector is its sample's time; of "up == 1" it
		# would be the time of the query.
		ts=$(prom_query 'timestamp(up{job="tcptrace"}) and up{job="tcptrace"} == 1')
		case "$ts" in none | many | error) ;;
		*) awk -v ts="$ts" -v t="$1" 'BEGIN { exit !(ts > t) }' && PROM_TIME=$ts && return 0 ;;
		esac
		sleep 0.5
	done
	log "no scrape after $1 within 60 s: $(prom_query 'up{job="tcptrace"}'), $(tail -3 "$WORK/prometheus.log")"
	return 1
}

# Sum of a CSV column over every row of a command name.
comm_sum() { # csv comm column
	awk -F, -v comm="$2" -v col="$3" '
		NR == 1 { for (i = 1; i <= NF; i++) if ($i == col) c = i; next }
		$4 == comm { s += $c }
		END { print s + 0 }' "$1"
}

# The established sockets in the namespace that process pid holds, as ss
# counts them: ss state established, per process.
established_of() { # pid
	in_ns ss -tanpH state established | grep -c "pid=$1,"
}

# Wait until the server (pid) holds n established sockets: it has accepted
# every connection of the burst.
wait_accepted() { # pid n
	local i
	for i in $(seq 600); do
		[ "$(established_of "$1")" -ge "$2" ] && return 0
		sleep 0.1
	done
	log "the server holds $(established_of "$1") of $2 connections after 60 s"
	return 1
}
