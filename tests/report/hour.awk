# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# A made-up hour of one-second rows for five processes, as tcptrace --csv
# writes them: a proxy (pid 100) in front of four backend workers, its load
# in waves, a burst of EADDRNOTAVAIL every ten minutes, one of connects
# refused before their SYN (EINVAL, a blackhole route) every fifteen, and
# RSTs of two reasons. The proxy's listener (backlog 100) fills at the top of each wave;
# each worker has a listener of its own (backlogs 16 and 32 in turn), whose
# queue runs past its limit now and then: the proxy's SYNs to it go again.
# -v run=default: a new upstream connection per request, whose TIME_WAIT
# the proxy holds; -v run=keepalive: a handful of pooled upstream
# connections, open throughout, which the workers never queue. The figures
# follow from a fixed seed, so every run of the suite draws the same page.
BEGIN {
	print "time,elapsed_s,pid,comm,conn_in,conn_out,fin_active_in,fin_active_out," \
	      "fin_passive_in,fin_passive_out,rst_sent_in,rst_sent_out,rst_recv_in,rst_recv_out," \
	      "tw_in,tw_out,tw_now,eaddrnotavail,eaddrinuse,timeout_in,timeout_out,connfail_out," \
	      "untracked,tw_rst,open_in,open_out,listen_drops,acceptq_peak,acceptq_limit," \
	      "syn_retrans_out,synack_retrans_in,connfail_refused,connfail_timeout,connfail_unreach," \
	      "connfail_abandoned,connfail_enetunreach,connfail_ehostunreach,connfail_eacces," \
	      "connfail_einval,connfail_eperm,connfail_other,connect_10us,connect_20us,connect_50us,connect_100us," \
	      "connect_200us,connect_500us,connect_1ms,connect_2ms,connect_5ms,connect_10ms," \
	      "connect_20ms,connect_50ms,connect_100ms,connect_200ms,connect_500ms,connect_1s," \
	      "connect_2s,connect_5s,connect_10s,connect_20s,connect_50s,connect_over_50s," \
	      "connect_us,retrans_in,retrans_out,retrans_rto_in,retrans_rto_out,segs_sent_in," \
	      "segs_sent_out,rst_sent_reasons"
	none = connects(0, 0, 0)
	seed = run == "keepalive" ? 7 : 3
	pi = atan2(0, -1)
	for (s = 1; s <= 3600; s++) {
		time = sprintf("2026-11-22T%02d:%02d:%02d.000Z", 10 + int(s / 3600), int(s % 3600 / 60), s % 60)
		rate = int(800 + 250 * sin(2 * pi * s / 900) + next_random() % 60)
		keep = run == "keepalive"
		out = keep ? (s <= 2 ? 4 : 0) : rate
		state = next_random() % 9 == 0 ? next_random() % 4 + 1 : 0
		on_data = next_random() % 40 == 0 ? 1 : 0
		port_fail = !keep && s % 600 >= 300 && s % 600 < 310 ? next_random() % 15 + 5 : 0
		blackhole = !keep && s % 900 >= 450 && s % 900 < 455 ? 2 : 0
		tw_in = rate - state
		tw_out = keep ? 0 : out
		# Timewait sockets live 60 s: the proxy holds the last minute's.
		window[s % 60] = tw_in + tw_out
		held = 0
		for (k in window)
			held += window[k]
		reasons = (state ? "TCP_STATE=" state : "") (state && on_data ? ";" : "") \
			  (on_data ? "TCP_ABORT_ON_DATA=" on_data : "")
		syn_out = 0
		for (w = 0; w < 4; w++) {
			share[w] = int(out / 4) + (w < out % 4)
			peak[w] = keep ? 0 : (s * (w + 1) + int(share[w] / 50)) % 23
			limit[w] = peak[w] ? 16 + 16 * (w % 2) : 0
			drops[w] = peak[w] > limit[w] ? peak[w] - limit[w] : 0
			syn_out += drops[w]
		}
		queue = rate < 1010 ? int(rate / 10) : 101
		dropped = rate > 1010 ? int((rate - 1010) / 4) : 0
		# Its upstream connects: each SYN sent again a connect of at most
		# 2 s, the others of at most 50 us.
		slow = syn_out < out ? syn_out : out
		# Segments sent again upstream for 5 s in every 2 minutes, one
		# in five of them after a timeout.
		retrans = s % 120 < 5 ? s % 7 + 1 : 0
		printf "%s,%d.000,100,haproxy,%d,%d,%d,%d,0,0,%d,%d,0,0,%d,%d,%d,%d,0,0,0,%d,0,0," \
		       "%d,%d,%d,%d,100,%d,%d,%s,0,%d,0,%d,%d,%d,%s\n",
			time, s, rate, out, tw_in, tw_out, state, on_data, tw_in, tw_out, held, port_fail,
			blackhole, int(rate / 4), (keep ? 4 : int(out / 8)), dropped, queue, syn_out,
			int(dropped / 3), connects(out - slow, slow, blackhole), retrans, int(retrans / 5),
			3 * rate, 2 * out, reasons
		for (w = 0; w < 4; w++)
			printf "%s,%d.000,%d,nginx,%d,0,0,0,%d,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,%d,0,%d,%d,%d,0,%d," \
			       "%s,0,0,0,0,%d,0,\n",
				time, s, 101 + w, share[w], share[w], (keep ? 1 : int(share[w] / 8)), drops[w],
				peak[w], limit[w], (drops[w] > 3), none, 2 * share[w]
	}
}

# The columns of failed connects (those refused before the SYN with
# EINVAL) and connect times: fast ones at most 50 us, slow ones at most
# 2 s, and their times added up.
function connects(fast, slow, einval,    b, text) {
	text = "0,0,0,0,0,0,0," einval ",0,0"
	for (b = 0; b < 22; b++)
		text = text "," (b == 2 ? fast : b == 16 ? slow : 0)
	return text "," (fast * 40 + slow * 1000040)
}

# Park and Miller's generator: exact in a double.
function next_random() {
	seed = seed * 16807 % 2147483647
	return seed
}
