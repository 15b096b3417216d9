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
how many heading lines were checked.

It also checks the links of each Markdown FILE: every "](#anchor)" and
"](page.md#anchor)", and every "diagnosing.md#anchor" a finding cites in an
output block, must name a heading of that page (as GitHub makes its
anchor) or an <a id="..."> in it."""
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


def slug(heading):
    """The anchor GitHub gives a heading."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def anchors(path):
    found, fence = set(), False
    for line in open(path, encoding="utf-8").read().splitlines():
        if re.match(r"^\s*```", line):
            fence = not fence
            continue
        if fence:
            continue
        m = re.match(r"^#+ (.*)", line)
        if m:
            a = slug(m.group(1))
            n = 1
            base = a
            while a in found:
                a = f"{base}-{n}"
                n += 1
            found.add(a)
        found.update(re.findall(r'<a id="([^"]+)"></a>', line))
    return found


def check_links(path):
    """(broken links, links checked) of one Markdown file."""
    import os
    bad = checked = 0
    here = os.path.dirname(path)
    for n, line in enumerate(open(path, encoding="utf-8").read().splitlines(), 1):
        links = re.findall(r"\]\(([^)#\s]*)#([^)\s]+)\)", line)
        links += [("diagnosing.md", a) for a in re.findall(r"\bdiagnosing\.md#([a-z0-9_-]+)", line)
                  if not re.search(r"\]\([^)]*diagnosing\.md#" + re.escape(a), line)]
        for page, anchor in links:
            target = os.path.join(here, page) if page else path
            if page == "diagnosing.md" and not os.path.exists(target):
                target = os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../docs/diagnosing.md")
            checked += 1
            if not os.path.exists(target):
                print(f"{path}:{n}: link to a missing page: {page}#{anchor}")
                bad += 1
            elif anchor not in anchors(target):
                print(f"{path}:{n}: no anchor #{anchor} in {page or os.path.basename(path)}")
                bad += 1
    return bad, checked


def main():
    if len(sys.argv) < 3:
        sys.exit("usage: check-docs.py HEADINGS FILE...")
    headings = read_headings(sys.argv[1])
    results = [check(path, headings) for path in sys.argv[2:]]
    links = [check_links(path) for path in sys.argv[2:] if path.endswith(".md")]
    bad = sum(r[0] for r in results)
    broken = sum(r[0] for r in links)
    print(f"{sum(r[1] for r in links)} links checked, {broken} broken")
    print(f"{sum(r[1] for r in results)} heading lines checked, {bad} not tcptrace's")
    sys.exit(1 if bad or broken else 0)


if __name__ == "__main__":
    main()
