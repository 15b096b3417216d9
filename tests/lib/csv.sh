# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# tcptrace's CSV summed, last or largest per PID, its RST reasons, and the
# RSTs its summary put in no process row.

# Sum of a CSV column over every row of one PID.
csv_sum() { # csv pid column
	awk -F, -v pid="$2" -v col="$3" '
		NR == 1 { for (i = 1; i <= NF; i++) if ($i == col) c = i; next }
		$3 == pid { s += $c }
		END { if (!c) { print "no-column-" col; exit } print s + 0 }' "$1"
}

# Sum of the columns named NAME_B (NAME_10us ... NAME_over_50s), of the
# buckets above 1 s with "over_1s" as FROM, for one PID.
csv_buckets() { # csv pid name [over_1s]
	awk -F, -v pid="$2" -v name="$3" -v from="${4:-all}" '
		NR == 1 {
			for (i = 1; i <= NF; i++)
				if (index($i, name "_") == 1 && $i != name "_us") {
					b = substr($i, length(name) + 2)
					if (from == "all" || b ~ /^([2-9]|[1-9][0-9]+)s$/ || b == "over_50s")
						c[i] = 1
				}
			next
		}
		$3 == pid { for (i in c) s += $i }
		END { if (!length(c)) { print "no-column-" name; exit } print s + 0 }' "$1"
}

# The last value of a gauge column (tw_now) for one PID.
csv_last() { # csv pid column
	awk -F, -v pid="$2" -v col="$3" '
		NR == 1 { for (i = 1; i <= NF; i++) if ($i == col) c = i; next }
		$3 == pid { v = $c }
		END { print v + 0 }' "$1"
}

# The largest value of a column over one PID's rows.
csv_max() { # csv pid column
	awk -F, -v pid="$2" -v col="$3" '
		NR == 1 { for (i = 1; i <= NF; i++) if ($i == col) c = i; next }
		$3 == pid && $c > m { m = $c }
		END { print m + 0 }' "$1"
}

# The rst_sent_reasons field of every row of one PID, summed per reason.
csv_reasons() { # csv pid
	awk -F, -v pid="$2" '
		NR == 1 { next }
		$3 == pid && $NF != "" {
			n = split($NF, parts, ";")
			for (i = 1; i <= n; i++) { split(parts[i], kv, "="); sum[kv[1]] += kv[2] }
		}
		END { for (k in sum) printf "%s=%d\n", k, sum[k] }' "$1" | sort | paste -sd';'
}

# RSTs that tcptrace put in no process row, for one network namespace, from
# its summary line "RSTs in no process row, network namespace N: COUNT (...)";
# 0 when there is none.
other_rsts() { # tracer-stdout netns-inum
	awk -v ns="$2" '
		/^RSTs in no process row, network namespace / && $8 == ns ":" { n = $9 }
		END { print n + 0 }' "$1"
}

# The reasons of that line, as tcptrace prints them ("NO_SOCKET 5").
other_rst_reasons() { # tracer-stdout netns-inum
	awk -v ns="$2" '
		/^RSTs in no process row, network namespace / && $8 == ns ":" {
			sub(/^[^(]*\(/, ""); sub(/\)$/, ""); print
		}' "$1"
}
