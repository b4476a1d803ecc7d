#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""The report's "same cases in two results files" row, against the two
files read here with Python's json and statistics: the cases both files
measured, the median and range of the second file's median ns/op over the
first's, and the farthest case. Aggregate and failed rows are not cases.

usage: test_run_distance.py BOUNCELAB FIRST.json SECOND.json
"""
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import group_kill  # noqa: F401 (a timed-out test takes its children with it)


def medians(path):
    """Median ns/op of each of our cases, in the order the file names them."""
    values = {}
    for row in json.load(open(path))["benchmarks"]:
        if ("bouncelab" not in row or row.get("error_occurred") or
                row.get("run_type") == "aggregate"):
            continue
        values.setdefault(row.get("run_name", row["name"]), []).append(row["ns_per_op"])
    return {name: statistics.median(v) for name, v in values.items()}


def ratio_text(v):
    """lib/format.c's ratio precision: two decimals between 0.095 and 9.995."""
    if v < 0.095:
        return "%.2gx" % v
    if v < 9.995:
        return "%.2fx" % v
    if v < 99.95:
        return "%.1fx" % v
    return "%.0fx" % v


def main():
    bouncelab, first, second = sys.argv[1:4]
    a, b = medians(first), medians(second)
    ratios, far, far_name = [], 0, None
    for name, ma in a.items():
        mb = b.get(name)
        if not mb or not (ma > 0) or not (mb > 0):
            continue
        r = mb / ma
        ratios.append(r)
        if max(r, 1 / r) > far:
            far, far_name = max(r, 1 / r), name
    tmp = tempfile.mkdtemp(prefix="bouncelab-distance.")
    try:
        subprocess.run([bouncelab, "report", first, second, "-o", tmp + "/r"], check=True,
                       stdout=subprocess.DEVNULL)
        text = open(os.path.join(tmp, "r", "report.md")).read()
    finally:
        shutil.rmtree(tmp)
    rows = [line for line in text.splitlines() if line.startswith("| `") and
            os.path.basename(second) in line and "ns/op (" in line]
    if len(rows) != 1:
        print("FAIL: no single row for the second file in the report's two-file table")
        return 1
    cells = [c.strip() for c in rows[0].strip("|").split("|")]
    want = [str(len(ratios)), ratio_text(statistics.median(ratios)),
            "%s – %s" % (ratio_text(min(ratios)), ratio_text(max(ratios)))]
    failures = 0
    for what, got, expect in zip(("cases in both", "median ratio", "range"), cells[1:4], want):
        ok = got == expect
        failures += not ok
        print(("ok" if ok else "FAIL") + f": {what}: report {got!r}, Python {expect!r}")
    ok = cells[5].startswith("`%s`" % far_name) and cells[5].endswith("(%s)" % ratio_text(far))
    failures += not ok
    print(("ok" if ok else "FAIL") + f": farthest case: report {cells[5]!r}, "
          f"Python {far_name} ({ratio_text(far)})")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
