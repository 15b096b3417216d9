#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# The installed files: `make install` and `make uninstall` under DESTDIR, the
# man page (it renders without a warning, and it names every option of
# --help, every CSV column and table heading tcptrace really writes, every
# metric of src/user/output/metrics_text.c), the reference pages under docs/ (the same
# options, columns and metrics), the bash completion sourced in bash, the
# systemd unit example under systemd-analyze verify, and the docs' output
# blocks, whose table headings must be those the code writes. The CSV headers
# come from a real run, so this needs root, like `make test`. Run `make`
# first. The last line counts the cases.
set -u
cd "$(dirname "$0")/.."
TOP=$PWD
make=${MAKE:-make}
WORK=$(mktemp -d /tmp/tcptrace-install.XXXXXX)
SLEEPERS=()
PASSED=0
FAILED=0
CASE_FAILED=0

cleanup() {
	local pid
	for pid in "${SLEEPERS[@]}"; do kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null; done
	rm -rf "$WORK"
}
trap cleanup EXIT

ok() { echo "    ok   $*"; }
bad() {
	echo "    FAIL $*"
	CASE_FAILED=1
}
expect_eq() { # what expected actual
	if [ "$2" = "$3" ]; then ok "$1"; else bad "$1: expected '$2', got '$3'"; fi
}

run_case() { # name function
	echo "== $1"
	CASE_FAILED=0
	if ! "$2" || [ "$CASE_FAILED" -ne 0 ]; then
		FAILED=$((FAILED + 1))
		echo "FAIL $1"
	else
		PASSED=$((PASSED + 1))
		echo "PASS $1"
	fi
}

# The page as a reader sees it, one line per paragraph (no line breaks, so no
# hyphenation inside a name), in plain ASCII.
render() { groff -man -Tascii -rLL=10000n -P-cbou docs/tcptrace.8 2>/dev/null; }

# One section of the rendered page, from its heading to the next.
section() { render | awk -v h="$1" '/^[A-Z]/ { on = ($0 == h) } on'; }

squeeze() { tr -s ' \t' ' ' | sed 's/^ //; s/ $//'; }

# Options that --help defines ("  -p, --pid ...", "      --csv FILE"), one a line.
help_long() { "$@" --help | sed -nE 's/^ +(-[A-Za-z], )?(--[a-z][a-z-]*).*/\2/p'; }
help_short() { "$@" --help | sed -nE 's/^ +(-[A-Za-z]), --.*/\1/p'; }

case_install() {
	local dest=$WORK/dest expected actual unit doc cited
	"$make" --no-print-directory -s install DESTDIR="$dest" PREFIX=/usr >"$WORK/install.out" 2>&1 ||
		{ bad "make install: $(tail -3 "$WORK/install.out")"; return 1; }
	expected="644 usr/share/bash-completion/completions/tcptrace
644 usr/share/doc/tcptrace-bpf/README.md
644 usr/share/doc/tcptrace-bpf/columns.md
644 usr/share/doc/tcptrace-bpf/diagnosing.md
644 usr/share/doc/tcptrace-bpf/examples/tcptrace-exporter.service
644 usr/share/doc/tcptrace-bpf/install.md
644 usr/share/doc/tcptrace-bpf/kernels.md
644 usr/share/doc/tcptrace-bpf/metrics.md
644 usr/share/doc/tcptrace-bpf/usage.md
644 usr/share/man/man8/tcptrace.8
755 usr/sbin/tcptrace"
	actual=$(cd "$dest" && find . ! -type d -printf '%m %P\n' | LC_ALL=C sort)
	expect_eq "files and modes" "$expected" "$actual"
	expect_eq "folders made by install -D, all 755" "" \
		"$(cd "$dest" && find . -type d ! -perm 755 -printf '%m %P ')"
	cmp -s tcptrace "$dest/usr/sbin/tcptrace" && ok "the binary is ./tcptrace" ||
		bad "the installed binary differs from ./tcptrace"
	cmp -s docs/tcptrace.8 "$dest/usr/share/man/man8/tcptrace.8" && ok "the page is docs/tcptrace.8" ||
		bad "the installed page differs from docs/tcptrace.8"
	for doc in README.md docs/diagnosing.md docs/columns.md docs/metrics.md docs/usage.md \
		docs/kernels.md docs/install.md; do
		cmp -s "$doc" "$dest/usr/share/doc/tcptrace-bpf/${doc##*/}" || bad "the installed ${doc##*/} differs from $doc"
	done
	# The page the findings cite (TT_FINDINGS_DOC, under the prefix) is installed.
	cited=$(sed -n 's/^#define TT_FINDINGS_DOC "\(.*\)"$/\1/p' src/user/output/findings.h)
	[ -n "$cited" ] && [ -f "$dest/usr/$cited" ] && ok "the findings' page is installed: /usr/$cited" ||
		bad "the findings cite '$cited', not installed under /usr"
	unit=$dest/usr/share/doc/tcptrace-bpf/examples/tcptrace-exporter.service
	expect_eq "the unit's ExecStart" \
		"ExecStart=/usr/sbin/tcptrace --listen 127.0.0.1:9477 --pid haproxy" \
		"$(grep '^ExecStart=' "$unit")"
}

case_uninstall() {
	local dest=$WORK/dest
	[ -e "$dest/usr/sbin/tcptrace" ] || { bad "nothing installed to remove"; return 1; }
	"$make" --no-print-directory -s uninstall DESTDIR="$dest" PREFIX=/usr >"$WORK/uninstall.out" 2>&1 ||
		{ bad "make uninstall: $(tail -3 "$WORK/uninstall.out")"; return 1; }
	expect_eq "files left" "" "$(cd "$dest" && find . ! -type d -printf '%P ')"
	[ ! -e "$dest/usr/share/doc/tcptrace-bpf" ] && ok "share/doc/tcptrace-bpf removed" ||
		bad "share/doc/tcptrace-bpf is still there"
	"$make" --no-print-directory -s uninstall DESTDIR="$dest" PREFIX=/usr >/dev/null 2>&1 &&
		ok "a second uninstall finds nothing to do" || bad "a second uninstall failed"
}

case_directory_variables() {
	local dest=$WORK/vars
	"$make" --no-print-directory -s install DESTDIR="$dest" PREFIX=/opt/tt SBINDIR=/usr/bin \
		MANDIR=/usr/share/man BASHCOMPDIR=/etc/bash_completion.d >"$WORK/vars.out" 2>&1 ||
		{ bad "make install: $(tail -3 "$WORK/vars.out")"; return 1; }
	expect_eq "files" "etc/bash_completion.d/tcptrace
opt/tt/share/doc/tcptrace-bpf/README.md
opt/tt/share/doc/tcptrace-bpf/columns.md
opt/tt/share/doc/tcptrace-bpf/diagnosing.md
opt/tt/share/doc/tcptrace-bpf/examples/tcptrace-exporter.service
opt/tt/share/doc/tcptrace-bpf/install.md
opt/tt/share/doc/tcptrace-bpf/kernels.md
opt/tt/share/doc/tcptrace-bpf/metrics.md
opt/tt/share/doc/tcptrace-bpf/usage.md
usr/bin/tcptrace
usr/share/man/man8/tcptrace.8" "$(cd "$dest" && find . ! -type d -printf '%P\n' | LC_ALL=C sort)"
	expect_eq "the unit's ExecStart follows SBINDIR" "/usr/bin/tcptrace" \
		"$(sed -n 's/^ExecStart=\([^ ]*\).*/\1/p' \
			"$dest/opt/tt/share/doc/tcptrace-bpf/examples/tcptrace-exporter.service")"
}

case_man_renders() {
	local out
	out=$(groff -man -Tutf8 -ww -z docs/tcptrace.8 2>&1) && [ -z "$out" ] &&
		ok "groff -man -ww: no warning" || bad "groff -man -ww: $out"
	out=$(mandoc -Tlint docs/tcptrace.8 2>&1) && [ -z "$out" ] &&
		ok "mandoc -Tlint: nothing to say" || bad "mandoc -Tlint: $out"
	out=$(MANWIDTH=80 man -l docs/tcptrace.8 2>&1)
	[[ $out == "TCPTRACE(8)"* && $out == *"EXIT STATUS"* ]] && ok "man -l shows the page" ||
		bad "man -l: $(head -3 <<<"$out")"
	expect_eq "the page's version" "$(./tcptrace --version)" \
		"$(sed -n 's/^\.TH [^"]*"\([^"]*\)".*/\1/p' docs/tcptrace.8)"
}

case_man_options() {
	local page opt man_opts help_opts
	page=$(render)
	help_opts=$( (help_long ./tcptrace; help_long ./tcptrace compare; help_long ./tcptrace report) |
		LC_ALL=C sort -u)
	[ "$(wc -l <<<"$help_opts")" -ge 10 ] || { bad "too few options read from --help: $help_opts"; return 1; }
	for opt in $help_opts; do
		grep -q -- "$opt\b" <<<"$page" || bad "$opt is not in the page"
	done
	# As the page has it: "-p, --pid".
	while read -r opt; do
		grep -qE -- "(^| )$opt, --" <<<"$page" || bad "$opt is not in the page"
	done < <(help_short ./tcptrace; help_short ./tcptrace compare; help_short ./tcptrace report)
	man_opts=$(grep -oE -- '(^|[^a-z-])--[a-z][a-z-]*' <<<"$page" | sed 's/^[^-]*//' | LC_ALL=C sort -u)
	expect_eq "long options in the page, as in --help" "$(echo $help_opts)" "$(echo $man_opts)"
}

# What the code defines, read from the code itself, against --help and the
# page: the long options of each option table, the programs tcptrace.bpf.c
# attaches, the columns that are levels, and the findings.
case_man_tied_to_code() {
	local page code help prog name levels
	page=$(render | squeeze)
	code=$(sed -n '/^static const struct option [a-z_]*\[\] = {/,/^};/p' src/user/cli/options.c \
		src/user/offline/*.c | sed -nE 's/^\t\{ "([a-z][a-z-]*)",.*/--\1/p' | LC_ALL=C sort -u)
	help=$( (help_long ./tcptrace; help_long ./tcptrace compare; help_long ./tcptrace report) |
		LC_ALL=C sort -u)
	[ "$(wc -l <<<"$code")" -ge 10 ] || { bad "too few options read from the code: $code"; return 1; }
	expect_eq "long options in the code's tables, as in --help" "$(echo $code)" "$(echo $help)"
	for prog in $(sed -nE 's/^SEC\("(tp_btf|fexit|iter)\/([a-z_0-9]+)"\)$/\2/p' src/bpf/tcptrace.bpf.c |
		LC_ALL=C sort -u); do
		grep -qw -- "$prog" <<<"$(section NOTES)" || bad "program on $prog is not in NOTES"
	done
	levels=$(tr -d '\n' <src/user/common/columns.h | grep -oE '"[a-z_0-9]+", TT_COL_LEVEL' |
		cut -d'"' -f2)
	[ -n "$levels" ] || { bad "no level column read from columns.h"; return 1; }
	for name in $levels; do
		grep -qE -- "(^| )$name(,| and| are levels)" <<<"$(grep -o '[^.]*are levels' <<<"$page")" ||
			bad "level $name is not named where the page lists the levels"
	done
	for name in $(sed -nE 's/^\t\[TT_FINDING_[A-Z_]+\] = \{ "([a-z_]+)",.*/\1/p' src/user/output/findings.c); do
		section FINDINGS | grep -qE "^ {7}$name$" || bad "finding $name has no entry in FINDINGS"
	done
	[ "$CASE_FAILED" -ne 0 ] || ok "options, programs, levels and findings of the code are in --help and the page"
}

# A real run, one interval, of this shell's own PID (named by --pid, so it
# has a row): the CSV header, the JSON fields and the table's headings.
trace_once() { # name [tcptrace args...]
	local name=$1
	shift
	timeout 60 ./tcptrace -p $$ -c 1 -i 0.1 --csv "$WORK/$name.csv" --json "$WORK/$name.json" "$@" \
		>"$WORK/$name.table" 2>"$WORK/$name.err" ||
		{ bad "tcptrace $*: $(tail -2 "$WORK/$name.err")"; return 1; }
}

check_columns() { # csv heading
	local columns=$1 col text
	text=$(section "$2")
	[ -n "$text" ] || { bad "no section $2 in the page"; return 1; }
	for col in ${columns//,/ }; do
		grep -qw -- "$col" <<<"$text" || bad "CSV column $col is not in $2"
	done
	ok "$(wc -w <<<"${columns//,/ }") columns in $2"
}

# The table's two heading lines, less the time that starts the first, must
# be in the page as they are printed.
check_table() { # table-output
	local page groups names
	page=$(render | squeeze)
	groups=$(sed -n '2p' "$1" | squeeze | cut -d' ' -f2-)
	names=$(sed -n '3p' "$1" | squeeze)
	[[ $names == "PID COMM "* ]] || { bad "no table heading in the output: $names"; return 1; }
	grep -qF -- "$groups" <<<"$page" && ok "table heading: $groups" || bad "not in the page: $groups"
	grep -qF -- "$names" <<<"$page" && ok "table heading: $names" || bad "not in the page: $names"
}

case_man_columns() {
	local header fields
	trace_once proc || return 1
	header=$(head -1 "$WORK/proc.csv")
	[[ $header == time,* ]] || { bad "no CSV header: $header"; return 1; }
	check_columns "$header" "CSV COLUMNS"
	# The page says the JSON lines have the CSV's columns, in the same order.
	fields=$(head -1 "$WORK/proc.json" |
		python3 -c 'import json, sys; print(",".join(json.loads(sys.stdin.readline())))')
	expect_eq "JSON fields = CSV columns" "$header" "$fields"
	check_table "$WORK/proc.table"

	trace_once dest --by dest || return 1
	header=$(head -1 "$WORK/dest.csv")
	[[ $header == time,*,dest,* ]] || { bad "no --by dest CSV header: $header"; return 1; }
	check_columns "$header" "PER DESTINATION"
	check_table "$WORK/dest.table"
}

case_man_metrics() {
	local page served name documented
	page=$(section "PROMETHEUS METRICS")
	served=$(grep -ohE '"tcptrace_[a-z_]+' src/user/output/metrics_text.c | tr -d '"' | LC_ALL=C sort -u)
	[ "$(wc -l <<<"$served")" -ge 20 ] || { bad "too few metrics in metrics_text.c: $served"; return 1; }
	for name in $served; do
		grep -qw -- "$name" <<<"$page" || bad "metric $name is not in the page"
	done
	documented=$(grep -oE 'tcptrace_[a-z_]+' <<<"$page" | LC_ALL=C sort -u)
	expect_eq "metrics in the page, as in metrics_text.c" "$(echo $served)" "$(echo $documented)"
}

# The reference pages the README links say what the man page says: every
# option of --help (docs/usage.md), every CSV column of the real runs of
# case_man_columns (docs/columns.md), every metric of metrics_text.c and no
# other (docs/metrics.md).
case_doc_pages() {
	local opt col served documented
	for opt in $( (help_long ./tcptrace; help_long ./tcptrace compare) | LC_ALL=C sort -u); do
		grep -qE -- "(^|[^a-z-])$opt\b" docs/usage.md || bad "$opt is not in docs/usage.md"
	done
	[ -s "$WORK/proc.csv" ] && [ -s "$WORK/dest.csv" ] ||
		{ bad "no CSV of a real run: the man page's column case did not run"; return 1; }
	for col in $(head -qn1 "$WORK/proc.csv" "$WORK/dest.csv" | tr , '\n' | LC_ALL=C sort -u); do
		grep -qw -- "$col" docs/columns.md || bad "CSV column $col is not in docs/columns.md"
	done
	served=$(grep -ohE '"tcptrace_[a-z_]+' src/user/output/metrics_text.c | tr -d '"' | LC_ALL=C sort -u)
	documented=$(grep -oE 'tcptrace_[a-z_]+' docs/metrics.md | LC_ALL=C sort -u)
	expect_eq "metrics in docs/metrics.md, as in metrics_text.c" "$(echo $served)" "$(echo $documented)"
}

# Every output block of the docs shows headings tcptrace writes today: each
# "    PID COMM" line of README.md, docs/*.md and the man page, and its group
# line above it, must be one that build/tt-headings prints from the table's
# and the summary's own code (tests/docs/check-docs.py); and every such line
# in those files must be one the check read, inside an output block. The
# same script checks the Markdown pages' links: each #anchor, in the page or
# in another, and each diagnosing.md#anchor a finding cites, must exist.
case_doc_headings() {
	local files=(README.md docs/*.md docs/tcptrace.8) out in_files
	"$make" --no-print-directory -s build/tt-headings >"$WORK/headings.out" 2>&1 ||
		{ bad "make build/tt-headings: $(tail -3 "$WORK/headings.out")"; return 1; }
	build/tt-headings >"$WORK/headings" || { bad "build/tt-headings failed"; return 1; }
	out=$(tests/docs/check-docs.py "$WORK/headings" "${files[@]}")
	[ $? -eq 0 ] && ok "every heading line of the docs is tcptrace's, every link's anchor exists" ||
		bad "$out"
	in_files=$(cat "${files[@]}" | grep -c '^    PID COMM')
	expect_eq "heading lines checked, of those in the files" "$in_files heading lines checked, 0 not tcptrace's" \
		"$(tail -1 <<<"$out")"
}

# COMPREPLY for a command line, the cursor at its end, as bash-completion
# would be asked: words split as bash splits them (COMP_WORDBREAKS).
complete_line() { # line
	bash -c '
		source /usr/share/bash-completion/bash_completion || exit 1
		source "$1" || exit 1
		line=$2
		COMP_LINE=$line
		COMP_POINT=${#line}
		read -ra COMP_WORDS <<<"$line"
		[[ $line == *" " ]] && COMP_WORDS+=("")
		# "--by=d" is three words to bash: --by, =, d.
		words=()
		for w in "${COMP_WORDS[@]}"; do
			if [[ $w == --*=* ]]; then words+=("${w%%=*}" "=" "${w#*=}"); else words+=("$w"); fi
		done
		COMP_WORDS=("${words[@]}")
		COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
		COMPREPLY=()
		_tcptrace tcptrace "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}" 2>/dev/null
		printf "%s\n" "${COMPREPLY[@]}" | LC_ALL=C sort -u | tr "\n" " " | sed "s/ $//"
	' complete_line "$TOP/contrib/bash-completion/tcptrace" "$1"
}

expect_completion() { # line expected
	expect_eq "'$1'" "$2" "$(complete_line "$1")"
}

case_completion() {
	local opts sleeper name hostile dir=$WORK/files
	[ -r /usr/share/bash-completion/bash_completion ] ||
		{ bad "bash-completion is not installed: run tools/install-deps.sh"; return 1; }
	expect_completion "tcptrace --b" "--by"
	expect_completion "tcptrace --by " "cgroup dest process"
	expect_completion "tcptrace --by=d" "dest"
	expect_completion "tcptrace -p x --max-" "--max-comms --max-procs --max-sockets"
	expect_completion "tcptrace -i " ""
	expect_completion "tcptrace compare --" "--csv --help"
	# Every option --help defines, and nothing else but "--".
	opts=$( (help_long ./tcptrace; help_short ./tcptrace; echo --) | LC_ALL=C sort -u | tr '\n' ' ')
	expect_completion "tcptrace -" "${opts% }"
	opts=$( (help_long ./tcptrace compare; help_short ./tcptrace compare) | LC_ALL=C sort -u | tr '\n' ' ')
	expect_completion "tcptrace compare -" "${opts% }"
	[[ " $(complete_line "tcptrace ") " == *" compare "* ]] && ok "'tcptrace ' offers compare" ||
		bad "'tcptrace ' does not offer compare"
	expect_completion "tcptrace report --" "--help --output"
	opts=$( (help_long ./tcptrace report; help_short ./tcptrace report) | LC_ALL=C sort -u | tr '\n' ' ')
	expect_completion "tcptrace report -" "${opts% }"
	[[ " $(complete_line "tcptrace ") " == *" report "* ]] && ok "'tcptrace ' offers report" ||
		bad "'tcptrace ' does not offer report"
	mkdir -p "$WORK/pages/sub" && touch "$WORK/pages/a.csv" "$WORK/pages/old.html" "$WORK/pages/notes.txt"
	expect_eq "'tcptrace report ' in a folder" "a.csv sub" \
		"$(cd "$WORK/pages" && complete_line "tcptrace report ")"
	expect_eq "'tcptrace report a.csv -o ' in a folder" "old.html sub" \
		"$(cd "$WORK/pages" && complete_line "tcptrace report a.csv -o ")"
	expect_eq "'tcptrace report a.csv --output=' in a folder" "old.html sub" \
		"$(cd "$WORK/pages" && complete_line "tcptrace report a.csv --output=")"

	mkdir -p "$dir/sub" && touch "$dir/a.csv" "$dir/b.csv" "$dir/notes.txt"
	expect_eq "'tcptrace compare a.csv ' in a folder" "a.csv b.csv sub" \
		"$(cd "$dir" && complete_line "tcptrace compare a.csv ")"
	expect_eq "'tcptrace --csv ' in a folder" "a.csv b.csv notes.txt sub" \
		"$(cd "$dir" && complete_line "tcptrace --csv ")"
	expect_eq "'tcptrace --json n' in a folder" "notes.txt" \
		"$(cd "$dir" && complete_line "tcptrace --json n")"
	# After "--": the command, then its own arguments; "--csv --" is a file.
	[[ " $(complete_line "tcptrace -p x -- ech") " == *" echo "* ]] &&
		ok "'tcptrace -p x -- ech' offers echo" || bad "'tcptrace -p x -- ech' does not offer echo"
	expect_eq "'tcptrace -- wrk -- n' in a folder" "notes.txt" \
		"$(cd "$dir" && complete_line "tcptrace -- wrk -- n")"
	expect_completion "tcptrace --csv -- --by" "--by"

	# Process names, from /proc/PID/comm: a sleeper of a name of its own.
	name=ttc$$
	cp "$(command -v sleep)" "$WORK/$name"
	"$WORK/$name" 60 &
	SLEEPERS+=($!)
	# Any user can name a process: a name must come back quoted, never run.
	hostile='tt$(touch z)'
	cp "$(command -v sleep)" "$WORK/$hostile"
	"$WORK/$hostile" 60 &
	SLEEPERS+=($!)
	# Both names are in /proc once each sleeper has run exec.
	for _ in $(seq 100); do
		[ "$(cat "/proc/${SLEEPERS[0]}/comm" "/proc/${SLEEPERS[1]}/comm" 2>/dev/null)" = \
			"$name"$'\n'"$hostile" ] && break
		sleep 0.05
	done
	# In the scratch folder: a completion that ran the name would touch z there.
	cd "$dir" || return 1
	expect_completion "tcptrace -p ttc" "$name"
	expect_completion "tcptrace --pid=ttc" "$name"
	expect_completion "tcptrace -p nginx,ttc" "nginx,$name"
	expect_completion 'tcptrace -p tt$' 'tt\$\(touch\ z\)'
	cd "$TOP" || return 1
	[ ! -e "$dir/z" ] && ok "the name was not run" || bad "completing the name ran it"
}

case_unit() {
	local prefix=$WORK/prefix unit out
	command -v systemd-analyze >/dev/null ||
		{ bad "systemd-analyze is not installed: run tools/install-deps.sh"; return 1; }
	# Installed without DESTDIR, so ExecStart names a binary that exists.
	"$make" --no-print-directory -s install PREFIX="$prefix" >"$WORK/unit.out" 2>&1 ||
		{ bad "make install: $(tail -3 "$WORK/unit.out")"; return 1; }
	unit=$prefix/share/doc/tcptrace-bpf/examples/tcptrace-exporter.service
	# verify also runs `man tcptrace(8)` for Documentation=; it exits 0 on
	# warnings, so any output fails.
	out=$(cd "$WORK" && MANPATH=$prefix/share/man: systemd-analyze verify "$unit" 2>&1) &&
		[ -z "$out" ] && ok "systemd-analyze verify: nothing to say" ||
		bad "systemd-analyze verify: $out"
	"$make" --no-print-directory -s uninstall PREFIX="$prefix" >/dev/null 2>&1
}

[ "$(id -u)" -eq 0 ] || { echo "install: needs root (a real run writes the CSV headers)"; echo "install: 0 passed, 1 failed"; exit 1; }
[ -x tcptrace ] || { echo "install: missing ./tcptrace: run make first"; echo "install: 0 passed, 1 failed"; exit 1; }
for tool in groff mandoc man python3; do
	command -v "$tool" >/dev/null ||
		{ echo "install: missing $tool: run tools/install-deps.sh"; echo "install: 0 passed, 1 failed"; exit 1; }
done

run_case "make install DESTDIR PREFIX=/usr: exactly these files, these modes" case_install
run_case "make uninstall DESTDIR PREFIX=/usr: every file removed" case_uninstall
run_case "SBINDIR, MANDIR, BASHCOMPDIR each on its own" case_directory_variables
run_case "the man page renders without a warning" case_man_renders
run_case "the man page: every option of --help, and no other" case_man_options
run_case "the man page and --help: the code's options, programs, levels and findings" case_man_tied_to_code
run_case "the man page: every CSV column and table heading of a real run" case_man_columns
run_case "the man page: every metric of metrics_text.c, and no other" case_man_metrics
run_case "the doc pages: every option, CSV column and metric" case_doc_pages
run_case "the docs' output blocks and links: every table heading is one tcptrace writes, every anchor exists" case_doc_headings
run_case "bash completion: options, --by, --pid names, files, after --, compare, report" case_completion
run_case "the systemd unit example passes systemd-analyze verify" case_unit
echo "install: $PASSED passed, $FAILED failed"
[ "$FAILED" -eq 0 ]
