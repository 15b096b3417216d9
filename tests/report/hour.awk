# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# A made-up hour of one-second rows for five processes, as tcptrace --csv
# writes them: a proxy (pid 100) in front of four backend workers, its load
# in waves, a burst of EADDRNOTAVAIL every ten minutes and RSTs of two
# reasons. -v run=default: a new upstream connection per request, whose
# TIME_WAIT the proxy holds; -v run=keepalive: a handful of pooled upstream
# connections. The figures follow from a fixed seed, so every run of the
# suite draws the same page.
BEGIN {
	print "time,elapsed_s,pid,comm,conn_in,conn_out,fin_active_in,fin_active_out," \
	      "fin_passive_in,fin_passive_out,rst_sent_in,rst_sent_out,rst_recv_in,rst_recv_out," \
	      "tw_in,tw_out,tw_now,eaddrnotavail,timeout_in,timeout_out,connfail_out,untracked," \
	      "tw_rst,rst_sent_reasons"
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
		tw_in = rate - state
		tw_out = keep ? 0 : out
		# Timewait sockets live 60 s: the proxy holds the last minute's.
		window[s % 60] = tw_in + tw_out
		held = 0
		for (k in window)
			held += window[k]
		reasons = (state ? "TCP_STATE=" state : "") (state && on_data ? ";" : "") \
			  (on_data ? "TCP_ABORT_ON_DATA=" on_data : "")
		printf "%s,%d.000,100,haproxy,%d,%d,%d,%d,0,0,%d,%d,0,0,%d,%d,%d,%d,0,0,0,0,0,%s\n",
			time, s, rate, out, tw_in, tw_out, state, on_data, tw_in, tw_out, held, port_fail,
			reasons
		for (w = 0; w < 4; w++) {
			share = int(out / 4) + (w < out % 4)
			printf "%s,%d.000,%d,nginx,%d,0,0,0,%d,0,0,0,0,0,0,0,0,0,0,0,0,0,0,\n",
				time, s, 101 + w, share, share
		}
	}
}

# Park and Miller's generator: exact in a double.
function next_random() {
	seed = seed * 16807 % 2147483647
	return seed
}
