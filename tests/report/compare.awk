# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# tcptrace compare's text, section for section, one line per row and run as
# tests/report/browser.py prints the page's tables:
#   compare TITLE|ROW|L|TOTAL|RATE[|RATIO]    a count's row (RATIO for a
#                                             later run; blank cells empty)
#   compare TITLE|NAME|L|DROPS|PEAK|LIMIT     a row per process name
#   verdict TEXT                              the verdict under TIME_WAIT
# The columns are read where compare puts them (compare.c: a name of 16, a
# total of 12, a rate of 11, a ratio of 9; per name, drops of 12, peak and
# limit of 8), each after a space; a name longer than 16 takes room from the
# first total. The run lines, up to the first blank line, are skipped.
function trim(s) {
	sub(/^ +/, "", s)
	sub(/ +$/, "", s)
	return s
}

function label(i) { return substr("ABCDEFGHIJKLMNOPQRSTUVWXYZ", i + 1, 1) }

function cell(start, width) { return trim(substr($0, start, width)) }

BEGIN { runs_done = 0 }

!runs_done { if ($0 == "") runs_done = 1; next }

$0 == "" { title = ""; next }

# A header: the section's title, then "A total" (or "A drops") and the
# other runs' heads.
/ A (total|drops)( |$)/ {
	per_name = index($0, " A drops") > 0
	title = trim(substr($0, 1, index($0, per_name ? " A drops" : " A total")))
	# (A regex constant in ?: would be a match against $0.)
	if (per_name)
		n = gsub(/ [A-Z]+ drops/, "&")
	else
		n = gsub(/ [A-Z]+ total/, "&")
	verdict_next = 0
	next
}

title == "TIME_WAIT" && verdict_next { print "verdict " $0; next }

per_name {
	name = trim(substr($0, 1, 16))
	for (i = 0; i < n; i++) {
		base = 16 + i * 31
		printf "compare %s|%s|%s|%s|%s|%s\n", title, name, label(i), cell(base + 2, 12),
			cell(base + 15, 8), cell(base + 24, 8)
	}
	next
}

{
	# The name and the first total share the first 29 columns.
	k = split(substr($0, 1, 29), w, " ")
	row = w[1]
	for (j = 2; j < k; j++)
		row = row " " w[j]
	printf "compare %s|%s|A|%s|%s\n", title, row, w[k], cell(31, 11)
	for (i = 1; i < n; i++) {
		base = 41 + (i - 1) * 35
		printf "compare %s|%s|%s|%s|%s|%s\n", title, row, label(i), cell(base + 2, 12),
			cell(base + 15, 11), cell(base + 27, 9)
	}
	if (row == "tw_now peak")
		verdict_next = 1
}
