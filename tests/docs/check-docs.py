#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""Holds the docs' output blocks against the headings tcptrace writes.

check-docs.py HEADINGS FILE...: HEADINGS is what build/tt-headings prints
(every heading block of the table and the summary, from their own code).
In each FILE (Markdown, or a man page), every line of an output block
(a ``` fence, or .EX/.EE) that starts "    PID COMM", and the line above
it, its group line, must be one of those headings exactly (trailing
blanks aside); a group line that starts with the interval's clock or
"total" matches a heading printed without it. Each mismatch is printed
as FILE:LINE; the exit status is 1 when there is one. The last line says
how many heading lines were checked."""
import re
import sys

LABEL = re.compile(r"^(\d\d:\d\d:\d\d|total)")


def read_headings(path):
    """[(labelled, group line, names line)] of tt-headings' output."""
    blocks, cur = [], None
    for line in open(path, encoding="utf-8").read().splitlines():
        m = re.match(r"^# (\S+) (labelled|plain)$", line)
        if m:
            cur = [m.group(2) == "labelled"]
            blocks.append(cur)
        elif cur is not None:
            cur.append(line.rstrip())
    for b in blocks:
        if len(b) != 3 or not b[2].startswith("    PID COMM"):
            sys.exit(f"check-docs: a heading block of {path} is not two lines: {b}")
    return [tuple(b) for b in blocks]


def output_lines(path):
    """(number, line) of the lines inside the file's output blocks."""
    inside, fence = False, None
    for n, line in enumerate(open(path, encoding="utf-8").read().splitlines(), 1):
        if path.endswith(".8"):
            if line.startswith(".EX"):
                inside = True
                continue
            if line.startswith(".EE"):
                inside = False
                continue
            # The page's escapes that a heading may hold.
            line = line.replace("\\-", "-").replace("\\e", "\\")
        else:
            m = re.match(r"^\s*(```+)", line)
            if m:
                if not inside:
                    inside, fence = True, m.group(1)
                elif m.group(1) == fence:
                    inside = False
                continue
        yield n, line.rstrip(), inside


def group_matches(doc, tool, labelled):
    if doc == tool:
        return True
    m = LABEL.match(doc)
    if not labelled or not m:
        return False
    n = len(m.group(1))
    return tool[:n].strip() == "" and doc[n:] == tool[n:]


def check(path, headings):
    """(mismatches, heading lines checked) of one file."""
    bad = checked = 0
    prev = None
    for n, line, inside in output_lines(path):
        if inside and line.startswith("    PID COMM"):
            checked += 1
            found = [h for h in headings if h[2] == line]
            if not found:
                print(f"{path}:{n}: not a heading tcptrace writes: {line.strip()}")
                bad += 1
            elif prev is None or not any(group_matches(prev[1], h[1], h[0]) for h in found):
                shown = prev[1].strip() if prev else "(nothing)"
                print(f"{path}:{n - 1}: not the group line over '{line.strip()}': {shown}")
                bad += 1
        prev = (n, line) if inside else None
    return bad, checked


def main():
    if len(sys.argv) < 3:
        sys.exit("usage: check-docs.py HEADINGS FILE...")
    headings = read_headings(sys.argv[1])
    results = [check(path, headings) for path in sys.argv[2:]]
    bad = sum(r[0] for r in results)
    print(f"{sum(r[1] for r in results)} heading lines checked, {bad} not tcptrace's")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
