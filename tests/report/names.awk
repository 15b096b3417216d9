# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# The lines a report page draws per process name for one tcptrace CSV,
# summed here from the CSV itself, one a line as tests/report/browser.py
# prints the page's (without its "line "):
#   L CHART KEY TOTAL GROUP
# GROUP is "all" (every row) or "name=COMM" (the rows of that comm). A
# level (tw_now, open_in, open_out) adds up its values, a count its counts;
# the accept queue adds up, over the times, the group's deepest row of each
# time (acceptq_peak) and that row's acceptq_limit, the larger among rows as
# deep; the connect p99 adds up, in seconds and in time order, the bound of
# the bucket of the group's p99 of each time, rounded as the page rounds;
# a close class adds both sides; rst is per reason, with what no
# reason accounts for as "unrecorded", or rst_sent_out in a --by dest CSV.
# A column the CSV lacks (an earlier version's CSV) adds 0. Only totals
# other than 0 are printed: the page draws a line of 0 only beside others.
# L is the run's label (-v L=A). Fields are split at commas: the suite's
# CSVs hold none inside a field. Sums are printed with %.0f: mawk's %d
# stops at 2^31.
BEGIN {
	FS = ","
	n_classes = split("fin_active fin_passive rst_sent rst_recv timeout", classes, " ")
	n_before_syn = split("enetunreach ehostunreach eacces einval eperm other", before_syn, " ")
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
	add("all")
	add("name=" $4)
}

function v(name) { return (name in col) ? $col[name] : 0 }

function put(group, chart_key, n) { sum[group, chart_key] += n }

function add(group,    i, n, pairs, kv, named) {
	put(group, "tw_now tw_now", v("tw_now"))
	if (!by_dest)
		put(group, "conn conn_in", v("conn_in"))
	put(group, "conn conn_out", v("conn_out"))
	for (i = 1; i <= n_classes; i++)
		put(group, "closes " classes[i], v(classes[i] "_in") + v(classes[i] "_out"))
	put(group, "eaddrnotavail eaddrnotavail", v("eaddrnotavail"))
	put(group, "eaddrnotavail eaddrinuse", v("eaddrinuse"))
	for (i = 1; i <= n_before_syn; i++)
		put(group, "before_syn connfail_" before_syn[i], v("connfail_" before_syn[i]))
	put(group, "open open_in", v("open_in"))
	put(group, "open open_out", v("open_out"))
	put(group, "listen_drops listen_drops", v("listen_drops"))
	put(group, "syn_retrans syn_retrans_out", v("syn_retrans_out"))
	put(group, "syn_retrans synack_retrans_in", v("synack_retrans_in"))
	put(group, "retrans retrans_in", v("retrans_in"))
	put(group, "retrans retrans_out", v("retrans_out"))
	put(group, "retrans retrans_rto", v("retrans_rto_in") + v("retrans_rto_out"))
	deepest(group SUBSEP $1, v("acceptq_peak") + 0, v("acceptq_limit") + 0)
	if (!((group, $1) in seen)) {
		seen[group, $1] = 1
		times[group, ++n_times[group]] = $1
	}
	for (i = 1; i <= nb; i++) {
		le[group, $1, i] += v("connect_" bucket[i])
		if (i > 16)
			put(group, "connects_slow connects_over_1s", v("connect_" bucket[i]))
	}
	if (by_dest) {
		put(group, "rst rst_sent_out", v("rst_sent_out"))
		return
	}
	named = 0
	n = split($col["rst_sent_reasons"], pairs, ";")
	for (i = 1; i <= n; i++) {
		split(pairs[i], kv, "=")
		put(group, "rst " kv[1], kv[2])
		named += kv[2]
	}
	put(group, "rst unrecorded", v("rst_sent_in") + v("rst_sent_out") - named)
}

# The deepest accept queue of a group at a time, and its limit.
function deepest(at, peak, limit) {
	if (!(at in qpeak) || peak > qpeak[at] || (peak == qpeak[at] && limit > qlimit[at])) {
		qpeak[at] = peak
		qlimit[at] = limit
	}
}

# The bound of the bucket of the p99 of a group at a time; 0: no connect.
function p99(group, t,    i, n, count) {
	n = 0
	for (i = 1; i <= nb; i++)
		n += le[group, t, i]
	if (!n)
		return 0
	count = 0
	for (i = 1; i <= nb; i++) {
		count += le[group, t, i]
		if (le[group, t, i] && count >= 0.99 * n)
			return bound[i]
	}
	return bound[nb]
}

END {
	for (group in n_times) {
		total = 0
		for (k = 1; k <= n_times[group]; k++)
			total += p99(group, times[group, k]) / 1000000
		put(group, "connect_p99 connect_p99_us", int(total + 0.5))
	}
	for (at in qpeak) {
		split(at, part, SUBSEP)
		put(part[1], "acceptq acceptq_peak", qpeak[at])
		put(part[1], "acceptq acceptq_limit", qlimit[at])
	}
	for (k in sum) {
		if (sum[k] == 0)
			continue
		split(k, part, SUBSEP)
		printf "%s %s %.0f %s\n", L, part[2], sum[k], part[1]
	}
}
