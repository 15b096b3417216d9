# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# The totals a report page must show for one tcptrace CSV, summed here from
# the CSV itself, one a line as tests/report/browser.py prints the page's:
#   table L COUNTER N|n/a       compare's tables: the totals and peaks of a
#                               column (n/a: not in a --by dest CSV, or one of
#                               an earlier version); those of the listen
#                               queues and open connections with -v queues=1,
#                               the failed connects by cause with -v
#                               connects=1, as compare shows those sections
#                               when any of the runs has their columns; the
#                               segments sent again and sent with -v
#                               retrans=1, when any run sent one again
#   chart L SERIES N            what the charts' data add up to: a close
#                               class adds both sides, as do the segments
#                               sent after a timeout (retrans_rto)
#   chart L peak LEVEL N        a level's largest value: its sum over the
#                               rows of one time, but the accept queue's,
#                               the deepest row of that time and its limit
#   chart L reason NAME N       rst_sent_reasons, per reason
#   dest L DEST COUNTER N       the destinations' table
#   chart L dest DEST fewest_free N
# L is the run's label (-v L=A). Fields are split at commas: the suite's
# CSVs hold none inside a field. Sums are printed with %.0f: mawk's %d
# stops at 2^31.
BEGIN {
	FS = ","
	# The connect_* buckets, in order, and their bounds in microseconds
	# (the last: above every bound).
	nb = split("10us 20us 50us 100us 200us 500us 1ms 2ms 5ms 10ms 20ms 50ms 100ms 200ms " \
		   "500ms 1s 2s 5s 10s 20s 50s over_50s", bucket, " ")
	split("10 20 50 100 200 500 1000 2000 5000 10000 20000 50000 100000 200000 500000 " \
	      "1000000 2000000 5000000 10000000 20000000 50000000 50000000", bound, " ")
}

NR == 1 {
	by_dest = $5 == "dest"
	for (i = 1; i <= NF; i++)
		col[$i] = i
	next
}

{
	for (name in col)
		if (name !~ /^(time|elapsed_s|pid|comm|dest|rst_sent_reasons|runout_s)$/)
			sum[name] += $col[name]
	held[$1] += $col["tw_now"]
	if ("connect_10us" in col)
		for (b = 1; b <= nb; b++)
			le[$1, b] += $col["connect_" bucket[b]]
	if ("open_in" in col) {
		open_in[$1] += $col["open_in"]
		open_out[$1] += $col["open_out"]
		deepest($1, $col["acceptq_peak"] + 0, $col["acceptq_limit"] + 0)
	}
	if (!by_dest && $NF != "") {
		n = split($NF, pairs, ";")
		for (i = 1; i <= n; i++) {
			split(pairs[i], kv, "=")
			reason[kv[1]] += kv[2]
		}
	}
	if (by_dest) {
		d = $5
		dests[d] = 1
		for (name in col)
			if (name ~ /^(conn_out|fin_active_out|rst_sent_out|tw_out|connfail_out|eaddrnotavail)$/)
				dsum[d, name] += $col[name]
		if (!(d in fewest) || $col["ports_free"] + 0 < fewest[d])
			fewest[d] = $col["ports_free"] + 0
	}
}

# The deepest accept queue of time t, and its limit: the larger among rows
# as deep.
function deepest(t, peak, limit) {
	if (!(t in qpeak) || peak > qpeak[t] || (peak == qpeak[t] && limit > qlimit[t])) {
		qpeak[t] = peak
		qlimit[t] = limit
	}
}

function most(values,    t, m) {
	m = 0
	for (t in values)
		if (values[t] > m)
			m = values[t]
	return m
}

# The bound of the bucket of time t's p99 (0: no connect), as the page
# takes it (common/connect_time.c).
function p99(t,    b, n, seen) {
	n = 0
	for (b = 1; b <= nb; b++)
		n += le[t, b]
	if (!n)
		return 0
	seen = 0
	for (b = 1; b <= nb; b++) {
		seen += le[t, b]
		if (le[t, b] && seen >= 0.99 * n)
			return bound[b]
	}
	return bound[nb]
}

function total(name) { return (name in col) ? sprintf("%.0f", sum[name]) : "n/a" }
function both(class) { return sprintf("%.0f", sum[class "_in"] + sum[class "_out"]) }

END {
	n = split("tw_in tw_out conn_in conn_out fin_active_in fin_active_out fin_passive_in " \
		  "fin_passive_out rst_sent_in rst_sent_out rst_recv_in rst_recv_out eaddrnotavail " \
		  "eaddrinuse timeout_in timeout_out connfail_out untracked tw_rst", counters, " ")
	for (i = 1; i <= n; i++)
		printf "table %s %s %s\n", L, counters[i], total(counters[i])
	peak = most(held)
	printf "table %s tw_now_peak %.0f\nchart %s peak tw_now %.0f\n", L, peak, L, peak
	if (queues) {
		n = split("listen_drops syn_retrans_out synack_retrans_in", counts, " ")
		for (i = 1; i <= n; i++)
			printf "table %s %s %s\n", L, counts[i], total(counts[i])
		printf "table %s open_in_peak %s\n", L, ("open_in" in col) ? sprintf("%.0f", most(open_in)) : "n/a"
		printf "table %s open_out_peak %s\n", L, ("open_out" in col) ? sprintf("%.0f", most(open_out)) : "n/a"
	}
	if (retrans) {
		n = split("retrans_in retrans_out retrans_rto_in retrans_rto_out segs_sent_in segs_sent_out",
			  counts, " ")
		for (i = 1; i <= n; i++)
			printf "table %s %s %s\n", L, counts[i], total(counts[i])
	}
	if (connects) {
		n = split("connfail_refused connfail_timeout connfail_unreach connfail_abandoned " \
			  "connfail_enetunreach connfail_ehostunreach connfail_eacces connfail_einval " \
			  "connfail_eperm connfail_other", counts, " ")
		for (i = 1; i <= n; i++)
			printf "table %s %s %s\n", L, counts[i], total(counts[i])
	}
	if ("open_in" in col) {
		printf "chart %s peak open_in %.0f\nchart %s peak open_out %.0f\n", L, most(open_in), L,
			most(open_out)
		printf "chart %s peak acceptq_peak %.0f\nchart %s peak acceptq_limit %.0f\n", L,
			most(qpeak), L, most(qlimit)
		n = split("listen_drops syn_retrans_out synack_retrans_in", counts, " ")
		for (i = 1; i <= n; i++)
			printf "chart %s %s %s\n", L, counts[i], total(counts[i])
	}
	if ("retrans_in" in col)
		printf "chart %s retrans_in %s\n", L, total("retrans_in")
	if ("retrans_out" in col)
		printf "chart %s retrans_out %s\nchart %s retrans_rto %.0f\n", L, total("retrans_out"),
			L, sum["retrans_rto_in"] + sum["retrans_rto_out"]
	if (!by_dest)
		printf "chart %s conn_in %s\n", L, total("conn_in")
	printf "chart %s conn_out %s\n", L, total("conn_out")
	n = split("fin_active fin_passive rst_sent rst_recv timeout", classes, " ")
	for (i = 1; i <= n; i++)
		printf "chart %s %s %s\n", L, classes[i], both(classes[i])
	printf "chart %s eaddrnotavail %s\n", L, total("eaddrnotavail")
	n = split("eaddrinuse connfail_enetunreach connfail_ehostunreach connfail_eacces " \
		  "connfail_einval connfail_eperm connfail_other", counts, " ")
	for (i = 1; i <= n; i++)
		if (counts[i] in col)
			printf "chart %s %s %s\n", L, counts[i], total(counts[i])
	if ("connect_10us" in col) {
		all = 0
		over = 0
		worst = 0
		for (t in held) {
			for (b = 1; b <= nb; b++) {
				all += le[t, b]
				if (b > 16)
					over += le[t, b]
			}
			if (p99(t) > worst)
				worst = p99(t)
		}
		printf "chart %s connects %.0f\nchart %s connects_over_1s %.0f\n", L, all, L, over
		printf "chart %s peak connect_p99_us %.0f\n", L, worst
	}
	for (r in reason)
		printf "chart %s reason %s %.0f\n", L, r, reason[r]
	n = split("conn_out fin_active_out rst_sent_out tw_out connfail_out eaddrnotavail", dcols, " ")
	for (d in dests) {
		for (i = 1; i <= n; i++)
			printf "dest %s %s %s %.0f\n", L, d, dcols[i], dsum[d, dcols[i]]
		printf "dest %s %s fewest_ports_free %.0f\n", L, d, fewest[d]
		printf "chart %s dest %s fewest_free %.0f\n", L, d, fewest[d]
	}
}
