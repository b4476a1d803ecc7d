#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""The lessons' claims on every real run of the corpus (tests/data/runs/).

For each machine's folder (found by listing the directory, so a new
machine's runs are checked without editing this test), `bouncelab report`
runs on each results file alone and on default.json with sweep.json
together. It fails when report exits non-zero (old files must stay
readable), when a claim is marked NOT SEEN, when a claim marked "not
testable here" gives no reason, when a report has no claims table, or
when the corpus README has no row naming the folder's CPU.

usage: test_corpus_claims.py BOUNCELAB TESTS_DIR
"""
import json
import os
import re
import subprocess
import sys
import tempfile
import group_kill  # noqa: F401 (a timed-out test takes its children with it)


def unescape(cell):
    """A markdown cell as text: no emphasis, code marks, escapes or entities."""
    cell = re.sub(r"\\(.)", r"\1", cell.replace("**", "").replace("`", ""))
    for entity, char in (("&lt;", "<"), ("&gt;", ">"), ("&amp;", "&")):
        cell = cell.replace(entity, char)
    return cell.strip()


def cells(line):
    """The cells of a table row, split at pipes that are not escaped."""
    parts = re.split(r"(?<!\\)\|", line.strip())
    return [p.strip() for p in parts[1:-1]]


def claims_tables(markdown):
    """Every row of every table whose header names a claim and a mark."""
    rows, header = [], None
    for line in markdown.splitlines():
        if not line.startswith("|"):
            header = None
            continue
        row = cells(line)
        if header is None:
            names = [unescape(c).lower() for c in row]
            header = names if "claim" in names and "mark" in names else []
            continue
        if not header or all(set(c) <= set("-: ") for c in row):
            continue
        rows.append(dict(zip(header, row)))
    return rows


def judge(row):
    """None when the claim passes, else why it does not."""
    mark = unescape(row.get("mark", ""))
    if "not seen" in mark.lower():
        return "NOT SEEN"
    if mark.lower().startswith("not testable"):
        reason = re.sub(r"^not testable( here)?[\s:;,.()—-]*", "", mark, flags=re.I)
        if not (reason.strip(" ()") or unescape(row.get("measured", ""))):
            return "not testable here, with no reason given"
    return None


def readme_identity(run):
    """The corpus README's row for a run folder, for files without context.cpu."""
    path = os.path.join(os.path.dirname(run), "README.md")
    if not os.path.exists(path):
        return None
    header = None
    with open(path, encoding="utf-8") as f:
        for line in f:
            if not line.startswith("|"):
                header = None
                continue
            row = [unescape(c) for c in cells(line)]
            if header is None:
                header = [c.lower() for c in row]
                continue
            fields = dict(zip(header, row))
            if fields.get("folder", "").rstrip("/") == os.path.basename(run):
                return (f"{fields.get('vendor', '?').split(' ')[0]} family "
                        f"{fields.get('family', '?')} model {fields.get('model', '?')} "
                        f"({fields.get('microarchitecture', '?')}), from the corpus README")
    return None


def machine(path):
    """The CPU a results file names, for the failure message."""
    try:
        with open(path, encoding="utf-8") as f:
            ctx = json.load(f).get("context", {})
    except (OSError, ValueError, AttributeError) as e:
        return f"not JSON here either: {e}"
    cpu = ctx.get("cpu")
    if not isinstance(cpu, dict):
        known = readme_identity(os.path.dirname(path))
        return f"{ctx.get('cpu_model', '?')}, {known or 'CPU family not recorded'}"
    return (f"{ctx.get('cpu_model', '?')}, {cpu.get('vendor')} family {cpu.get('family')} "
            f"model {cpu.get('model')} ({cpu.get('microarchitecture')})")


def check(bouncelab, run, files, outdir):
    """The failures of one report over files of one run folder."""
    label = f"{os.path.basename(run)}/{'+'.join(os.path.basename(f) for f in files)}"
    cpu = machine(files[0])
    proc = subprocess.run([bouncelab, "report", *files, "-o", outdir],
                          capture_output=True, text=True)
    if proc.returncode:
        return [f"{label} ({cpu}): report exited {proc.returncode}: {proc.stderr.strip()}"]
    with open(os.path.join(outdir, "report.md"), encoding="utf-8") as f:
        rows = claims_tables(f.read())
    if not rows:
        return [f"{label} ({cpu}): report.md has no claims table"]
    failures = []
    for row in rows:
        why = judge(row)
        if why:
            failures.append(f"{label} ({cpu}): {unescape(row.get('family', '?'))}: {why}: "
                            f"\"{unescape(row.get('claim', '?'))}\" "
                            f"(measured: {unescape(row.get('measured', ''))})")
    print(f"{label}: {len(rows)} claims, {len(failures)} failing")
    return failures


def reports(run):
    """The file sets to report on: each file alone, default with sweep."""
    names = sorted(n for n in os.listdir(run) if n.endswith(".json"))
    sets = [[n] for n in names]
    if "default.json" in names and "sweep.json" in names:
        sets.append(["default.json", "sweep.json"])
    return [[os.path.join(run, n) for n in s] for s in sets]


def main():
    bouncelab, tests = sys.argv[1], sys.argv[2]
    corpus = os.path.join(tests, "data", "runs")
    runs = sorted(os.path.join(corpus, d) for d in os.listdir(corpus)
                  if os.path.isdir(os.path.join(corpus, d)))
    failures = [] if runs else [f"{corpus}: no run folders"]
    with tempfile.TemporaryDirectory() as tmp:
        for run in runs:
            if not readme_identity(run):
                failures.append(f"{os.path.basename(run)}: no row in {corpus}/README.md "
                                "naming its CPU")
            sets = reports(run)
            if not sets:
                failures.append(f"{os.path.basename(run)}: no results files")
            for i, files in enumerate(sets):
                out = os.path.join(tmp, f"{os.path.basename(run)}-{i}")
                failures += check(bouncelab, run, files, out)
    for failure in failures:
        print("FAIL", failure)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
