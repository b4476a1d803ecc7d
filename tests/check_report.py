#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Checks a report directory written by `bouncelab report`.

  check_report.py DIR

- every number a sentence quotes matches the table it comes from: each
  ratio in a verdict is the "x best" cell of its variant at that thread
  count; each gain of "the fix" is the pair table's cell; the seeds'
  "ours" and the fleet rows are the pair table's cells of the setting
  they name (the pair tables are in the appendix, details.md, whose
  verdicts are checked the same way);
- every plot and CSV the report links exists, every SVG is well-formed
  XML with an <svg> root, every CSV has will-it-scale's header.

Exits 1 with one line per problem.
"""
import os
import re
import sys
import xml.etree.ElementTree as ET

RATIO = r"(?:\d[\d.e+-]*|n/a)x \((?:95% CI [^)]+|no CI: (?:1 repetition|a zero value))\)"
problems = []


def problem(msg):
    problems.append(msg)


def cells(line):
    """The cells of a markdown table row; escaped pipes stay in cells."""
    parts = re.split(r"(?<!\\)\|", line.strip())
    return [p.strip() for p in parts[1:-1]]


def tables(lines):
    """Each table: (header cells, list of row cells)."""
    out = []
    i = 0
    while i < len(lines):
        if lines[i].startswith("|") and i + 1 < len(lines) and re.match(r"^\|[-:|]+\|$", lines[i + 1]):
            header = cells(lines[i])
            rows = []
            i += 2
            while i < len(lines) and lines[i].startswith("|"):
                rows.append(cells(lines[i]))
                i += 1
            out.append((header, rows))
        else:
            i += 1
    return out


def code(cell):
    """`name` (baseline) -> name"""
    m = re.match(r"^`([^`]*)`", cell)
    return m.group(1) if m else cell


class Setting:
    def __init__(self, family, number, heading):
        self.family = family
        self.number = number
        self.heading = heading
        self.lines = []
        self.details = None     # the same setting in details.md


    def main_table(self):
        for header, rows in tables(self.lines):
            if header[:3] == ["threads", "variant", "distance"]:
                return header, rows
        return None, []

    def pair_table(self):
        for lines in (self.lines, self.details.lines if self.details else []):
            for header, rows in tables(lines):
                if any("faster by" in h for h in header):
                    return header, rows
        return None, []

    def pair_cell(self, threads):
        header, rows = self.pair_table()
        for row in rows:
            if row[0] == str(threads):
                return row[3], row[4]
        return None, None


def split_sections(text):
    """Families (## headings) holding settings (### Setting: ...), numbered here in order."""
    families = []
    family = None
    setting = None
    for line in text.splitlines():
        m = re.match(r"^## (.*)$", line)
        if m:
            # "## has_pinned — title", or another section's title
            name = m.group(1).split(" — ")[0].replace("\\_", "_")
            family = {"name": name, "lines": [], "settings": []}
            families.append(family)
            setting = None
            continue
        m = re.match(r"^### Setting: (.*)$", line)
        if m and family is not None:
            setting = Setting(family["name"], len(family["settings"]) + 1, m.group(1))
            family["settings"].append(setting)
            continue
        if line.startswith("### Other settings") and family is not None:
            setting = Setting(family["name"], 0, "other settings")
            family["settings"].append(setting)
            continue
        if setting is not None:
            setting.lines.append(line)
        elif family is not None:
            family["lines"].append(line)
    return families


def check_verdict(s):
    verdict = [l for l in s.lines if l.startswith("**Verdict.**")]
    if not verdict:
        return
    v = verdict[0]
    header, rows = s.main_table()
    m = re.search(r"At (\d+) threads?,", v)
    if not m or header is None:
        problem("%s at %s: verdict without thread count or table" % (s.family, s.heading))
        return
    threads = m.group(1)
    best_col = header.index("× best")
    best_part = v.split(" The fix,")[0]
    for rm in re.finditer(r"`([^`]+)` is (?:slower|faster|within noise|untested \(one repetition\)) \((%s), p " % RATIO,
                          best_part):
        variant, ratio = rm.group(1), rm.group(2)
        row = [r for r in rows if r[0] == threads and code(r[1]) == variant]
        if not row:
            problem("%s at %s: verdict names %s at %s threads, not in the table" %
                    (s.family, s.heading, variant, threads))
        elif row[0][best_col] != ratio:
            problem("%s at %s: verdict says %s for %s at %s threads, table says %s" %
                    (s.family, s.heading, ratio, variant, threads, row[0][best_col]))
    fm = re.search(r"The fix, .*", v)
    if not fm:
        return
    fix = fm.group(0)
    for gm in re.finditer(r"(%s) at (\d+) threads?" % RATIO, fix):
        cell, _ = s.pair_cell(gm.group(2))
        if cell != gm.group(1):
            problem("%s at %s: the fix's gain %s at %s threads, pair table says %s" %
                    (s.family, s.heading, gm.group(1), gm.group(2), cell))
    pm = re.search(r"(?:U|sign) test at (\d+) threads?: p (?:= )?([^)]+)\)", fix)
    if pm:
        _, p = s.pair_cell(pm.group(1))
        if p != pm.group(2):
            problem("%s at %s: p %s in the verdict, %s in the pair table" %
                    (s.family, s.heading, pm.group(2), p))





def check_summary(families):
    """The summary's gains are the pair table's cells of each family's default setting."""
    summary = [f for f in families if f["name"] == "Summary"]
    checked = 0
    if not summary:
        return checked
    for header, rows in tables(summary[0]["lines"]):
        if header[:2] != ["family", "lesson"]:
            continue
        for row in rows:
            family = code(row[0])
            defaults = [s for f in families if f["name"] == family
                        for s in f["settings"] if s.heading.endswith("(defaults)")]
            # No setting at the defaults: the report's summary takes the first.
            if not defaults:
                defaults = [f["settings"][0] for f in families
                            if f["name"] == family and f["settings"]][:1]
            # Several files: "`has_pinned` (file 2)" is the second file's.
            m = re.search(r"\(file (\d+)\)$", row[0])
            if m and int(m.group(1)) <= len(result_files(families)):
                name = result_files(families)[int(m.group(1)) - 1]
                defaults = [s for f in families if f["name"] == family
                            for s in f["settings"]
                            if s.heading.endswith("(defaults), `%s`" % name)]
            for col, at in ((3, "1"), (4, None)):
                m = re.match(r"(%s), [a-z ]+?(?: at (\d+) threads)?$" % RATIO, row[col])
                if not m:
                    continue
                threads = at or m.group(2)
                cell = defaults[0].pair_cell(threads)[0] if defaults else None
                checked += 1
                if cell != m.group(1):
                    problem("summary: %s gains %s at %s threads, pair table says %s" %
                            (family, m.group(1), threads, cell))
    return checked


def result_files(families):
    """The results files, in order, from the Environment table's header."""
    for f in families:
        if f["name"] == "Environment":
            for header, rows in tables(f["lines"]):
                return [code(h) for h in header[1:]]
    return []


def heading_matches(heading, changes):
    """Whether a fleet row's "changes" ("defaults", "placement spread",
    "k=v, k=v") names the setting of this heading: every change is an item
    of it, and a heading at the defaults is named by its placement alone."""
    items = setting_items(heading)
    placement = [i for i in items if i.startswith("placement ")]
    wanted = set() if changes == "defaults" else set(changes.split(", "))
    if not wanted <= items:
        return False
    if heading.split(", `")[0].endswith("(defaults)"):
        named = [w for w in wanted if w.startswith("placement ")]
        return named == placement or (not named and placement in ([], ["placement compact"]))
    return bool(wanted)


def find_setting(families, family, changes, file):
    """The setting of a family in file whose heading the fleet's changes name."""
    found = [s for f in families if f["name"] == family for s in f["settings"]
             if s.number and ("`%s`" % file) in s.heading and heading_matches(s.heading, changes)]
    return found[0] if len(found) == 1 else None


def setting_items(text):
    """ "k=v, k=v, placement P (defaults), `file`" -> {"k=v", ...}"""
    return set(re.sub(r"( \(defaults\))?(, `[^`]*`)?$", "", text).split(", "))


def check_seeds(families, details):
    """Each seed's "ours" is the pair table's cell of the setting it is modelled by."""
    for f in families:
        for header, rows in tables(f["lines"]):
            if "ours" not in header or "modelled by" not in header:
                continue
            col, by = header.index("ours"), header.index("modelled by")
            for row in rows:
                # the pair tables are of ns_per_op; a seed's own quantity (get time) is not
                m = re.match(r"(%s) at (\d+) threads?, by `ns_per_op`$" % RATIO, row[col])
                where = re.match(r"`%s` at (.*)$" % re.escape(f["name"]), row[by].replace("\\_", "_"))
                if not where:
                    problem("%s: seed row modelled by %r, not by this family" % (f["name"], row[by]))
                    continue
                if not m:
                    continue
                want = setting_items(where.group(1))
                found = [s for fam in families + details if fam["name"] == f["name"]
                         for s in fam["settings"] if s.number and want <= setting_items(s.heading)]
                cell = found[0].pair_cell(m.group(2))[0] if found else None
                if cell != m.group(1):
                    problem("%s: seeds table says %s at %s threads at %s, pair table says %s" %
                            (f["name"], m.group(1), m.group(2), where.group(1), cell))


def check_fleet(families):
    """Each fleet table cell is its machine's pair table cell."""
    for f in families:
        if not f["name"].startswith("Fleet"):
            continue
        for header, rows in tables(f["lines"]):
            for row in rows:
                where = re.match(r"(.+) in `([^`]*)`$", row[2])
                m = re.match(r"(%s) at (\d+) threads?$" % RATIO, row[3])
                fam = fleet_family(f["lines"], row)
                changes = where.group(1).replace("\\_", "_") if where else None
                s = find_setting(families, fam, changes, where.group(2)) if where else None
                cell = s.pair_cell(m.group(2))[0] if s and m else None
                if not s and where and m:
                    # A setting shown in one row of "Other settings".
                    cell = other_setting_cell(families, fam, changes, where.group(2), m.group(2))
                    if cell != m.group(1):
                        problem("fleet: %s on %s says %s, other settings' row says %s" %
                                (fam, row[0], row[3], cell))
                    continue
                if not m or cell != m.group(1):
                    problem("fleet: %s on %s says %s, pair table says %s" %
                            (fam, row[0], row[3], cell))
                    continue
                for col, h in enumerate(header):
                    t = re.match(r"at (\d+)$", h)
                    if not t:
                        continue
                    full = s.pair_cell(t.group(1))[0]
                    if not full or not full.startswith(row[col] + " "):
                        problem("fleet: %s on %s at %s threads says %s, pair table says %s" %
                                (fam, row[0], t.group(1), row[col], full))


def other_setting_cell(families, family, changes, file, threads):
    """The fix's cell of the setting changes names in the file's "Other settings" table."""
    for f in families:
        if f["name"] != family:
            continue
        current = None
        for st in f["settings"]:
            # "### Other settings" follows its file's "### Setting: ...".
            if st.number:
                current = st.heading
            if not current or not current.endswith("`%s`" % file):
                continue
            for header, rows in tables(st.lines):
                if header[:2] != ["changes", "threads"] or "the fix faster by" not in header:
                    continue
                for row in rows:
                    if row[0].replace("\\_", "_") == changes and row[1] == threads:
                        return row[header.index("the fix faster by")]
    return None


def fleet_family(lines, row):
    """The family of the fleet table holding row: the ### heading above it."""
    family = None
    target = "| " + " | ".join(row) + " |"
    for line in lines:
        m = re.match(r"^### `([^`]*)`: ", line)
        if m:
            family = m.group(1)
        if line.strip() == target:
            return family
    return family


def check_files(directory, text, seen=None):
    seen = set() if seen is None else seen
    for link in re.findall(r"\]\(([^)\s]+)\)", text):
        if "://" in link:
            continue
        path = os.path.join(directory, link)
        if not os.path.isfile(path):
            problem("linked file missing: %s" % link)
            continue
        # a page beside report.md (prediction.md): its links are checked too
        if link.endswith(".md") and link not in seen:
            seen.add(link)
            with open(path) as fp:
                check_files(directory, fp.read(), seen)
        if link.endswith(".svg"):
            try:
                root = ET.parse(path).getroot()
                if root.tag != "{http://www.w3.org/2000/svg}svg":
                    problem("%s: root element is %s, not svg" % (link, root.tag))
            except ET.ParseError as e:
                problem("%s: not well-formed XML: %s" % (link, e))
        if link.endswith(".csv"):
            with open(path) as fp:
                lines = fp.read().splitlines()
            # runtest.py's header and first row, the processes columns empty
            if lines[:2] != ["tasks,processes,processes_idle,threads,threads_idle,linear", "0,,,0,100,0"]:
                problem("%s: not will-it-scale's header" % link)
            if not os.path.exists(path[:-len(".csv")] + ".title"):
                problem("%s: no .title beside it (will-it-scale's postprocess.py needs one)" % link)
            for l in lines[2:]:
                if len(l.split(",")) != 6:
                    problem("%s: row %r has not 6 columns" % (link, l))


def attach_details(families, details):
    """Each report.md setting learns its twin in details.md (its pair table)."""
    twins = {(f["name"], s.heading): s for f in details for s in f["settings"] if s.number}
    for f in families:
        for s in f["settings"]:
            s.details = twins.get((f["name"], s.heading))
            if s.number and s.details is None and twins:
                problem("%s at %s: not in details.md" % (f["name"], s.heading))


def main():
    directory = sys.argv[1]
    with open(os.path.join(directory, "report.md")) as fp:
        text = fp.read()
    families = split_sections(text)
    details_text = ""
    details = []
    details_path = os.path.join(directory, "details.md")
    if os.path.exists(details_path):
        with open(details_path) as fp:
            details_text = fp.read()
        details = split_sections(details_text)
    elif "](details.md)" in text:
        problem("report.md links details.md, which is missing")
    attach_details(families, details)
    verdicts = 0
    for f in families + details:
        for s in f["settings"]:
            check_verdict(s)
            verdicts += any(l.startswith("**Verdict.**") for l in s.lines)
    check_seeds(families, details)
    check_fleet(families)
    gains = check_summary(families)
    check_files(directory, text, {"report.md"})
    for p in problems:
        print("check_report: " + p)
    print("check_report: %d verdicts and %d summary gains checked, %d problems" %
          (verdicts, gains, len(problems)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
