#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Every CSV the report writes is readable by will-it-scale's tooling.

The format is read from will-it-scale itself (antonblanchard/will-it-scale;
it is not packaged by Debian and not copied here):

- runtest.py prints the header 'tasks,processes,processes_idle,threads,
  threads_idle,linear', then '0,0,100,0,100,0', then one row a task count,
  '%d,%d,%0.2f,%d,%0.2f,%d'; linear is the 1-task rate times the tasks.
- postprocess.py (commit b8639aa) walks only the directory it is run in,
  takes each NAME.csv, cuts NAME at its first '.' (f.split('.', 1)[0]) and
  opens BASE.csv and BASE.title: so a name has one dot, and a .title
  beside it, whose first line (stripped) is put between single quotes in
  JavaScript ("createPlot(data, '$title')"), so it holds no quote or
  backslash. The rows go to plot.js as read by csv.reader(dialect='excel').
- plot.js plots column 1 (processes) and 3 (threads) against 0 (tasks), 2
  and 4 (idle) on a second axis: a 0 in a column we did not measure draws
  a line at zero; an empty field is no point.

Reports of every results file in tests/data and of every corpus run
(alone, each machine's together, and two machines side by side) are
written; for every CSV the steps above are
taken, and its numbers checked against medians (Python's statistics module) of ops / wall_ns of
the rows its .title names (family/variant and setting).

usage: test_wis_csv.py BOUNCELAB TESTS_DIR
"""
import csv
import json
import os
import re
import string
import subprocess
import sys
import tempfile

import statistics
import group_kill  # noqa: F401 (a timed-out test takes its children with it)

HEADER = ["tasks", "processes", "processes_idle", "threads", "threads_idle", "linear"]
bouncelab, tests = sys.argv[1], sys.argv[2]
data = os.path.join(tests, "data")
bad = []


def check(ok, what):
    if not ok:
        bad.append(what)


def value_text(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return "%g" % v
    return str(v)


# The README's Fleet section: files of the same host and build are one
# machine, pooled under the first of them (and context.cpu, where recorded).
MACHINE_KEYS = ("host_name", "cpu_model", "num_cpus", "bouncelab_version", "compiler",
                "build_type", "gbench_version", "cpu")


def machine_numbers(paths):
    first, numbers = {}, []
    for n, path in enumerate(paths, 1):
        ctx = json.load(open(path))["context"]
        key = json.dumps([ctx.get(k) for k in MACHINE_KEYS], sort_keys=True)
        numbers.append(first.setdefault(key, n) if "host_name" in ctx else n)
    return numbers


def rows_by_title(paths):
    """(machine number, family/variant, setting) -> {threads: [ops per second]}"""
    out = {}
    for n, path in zip(machine_numbers(paths), paths):
        doc = json.load(open(path))
        for row in doc["benchmarks"]:
            b = row.get("bouncelab")
            if (not b or row.get("run_type") == "aggregate" or row.get("error_occurred")
                    or row.get("skipped") or "ops" not in row):
                continue
            items = ["%s=%s" % (k, value_text(v)) for k, v in b.get("params", {}).items()]
            if b.get("placement", {}).get("policy"):
                items.append("placement " + b["placement"]["policy"])
            home = b.get("home", {})
            if home.get("policy") and home["policy"] != "default":
                items.append("home %s%s" % (home["policy"], " (node %d)" % home["node"]
                                            if home.get("node", -1) >= 0 else ""))
            key = (n if len(paths) > 1 else 0, b["family"] + "/" + b["variant"], ", ".join(items))
            out.setdefault(key, {}).setdefault(row["threads"], []).append(
                row["ops"] / row["wall_ns"] * 1e9)
    return out


def postprocess(directory):
    """will-it-scale's postprocess.py's reading, step by step (see above)."""
    read = {}
    for f in os.listdir(directory):
        if not f.endswith(".csv"):
            continue
        base = f.split(".", 1)[0]
        check(base + ".csv" == f, f"{f}: postprocess.py would look for {base}.csv")
        title_file = os.path.join(directory, base + ".title")
        if not os.path.exists(title_file):
            bad.append(f"{f}: no {base}.title beside it")
            continue
        title = open(title_file).readline().strip()
        check(title and "'" not in title and "\\" not in title and "\n" not in title,
              f"{base}.title: {title!r} does not fit in '$title'")
        with open(os.path.join(directory, f)) as fp:
            rows = list(csv.reader(fp, dialect="excel"))
        # What postprocess.py does with them; it must not raise.
        string.Template("var data = $data; createPlot(data, '$title');").substitute(
            data=rows, title=title)
        read[base] = (title, rows)
    return read


def check_report(paths, outdir, expect_csv=True):
    p = subprocess.run([bouncelab, "report", *paths, "-o", outdir], capture_output=True, text=True)
    if p.returncode:
        bad.append(f"report {paths}: {p.stderr}")
        return
    wis = os.path.join(outdir, "will-it-scale")
    names = sorted(os.listdir(wis)) if os.path.isdir(wis) else []
    check(all(n.endswith((".csv", ".title")) for n in names), f"only CSVs and titles: {names}")
    check(sum(n.endswith(".csv") for n in names) == sum(n.endswith(".title") for n in names),
          "one .title a .csv")
    read = postprocess(wis) if os.path.isdir(wis) else {}
    check(read or not expect_csv, f"no CSV in {wis}")
    want = rows_by_title(paths)
    cpus = [json.load(open(p))["context"]["num_cpus"] for p in paths]
    for base, (title, rows) in read.items():
        check(rows[0] == HEADER, f"{base}: header {rows[0]}")
        check(rows[1] == ["0", "", "", "0", "100", "0"], f"{base}: first row {rows[1]}")
        m = re.match(r"^(\S+?/\S+?)(?:, (.*?))?(?:, machine m(\d+))?(?:: .*)?$", title)
        if not m:
            bad.append(f"{base}: title {title!r} does not name the case")
            continue
        setting = m.group(2) or ""
        if ": " in setting:  # the family's title after the setting
            setting = setting.split(": ", 1)[0]
        n = int(m.group(3)) if m.group(3) else 0
        check(base.startswith(("m%d-" % n if n else "") + m.group(1).replace("/", "-")),
              f"{base}: not named family-variant as its title {title!r}")
        check(re.fullmatch(r"[A-Za-z0-9_-]+", base) is not None, f"{base}: a character beside [A-Za-z0-9_-]")
        by_threads = want.get((n, m.group(1), setting))
        if not by_threads:
            bad.append(f"{base}: no rows in the results for {title!r}")
            continue
        one = statistics.median(by_threads[1]) if 1 in by_threads else None
        seen = set()
        for r in rows[2:]:
            check(len(r) == 6 and r[1] == "" and r[2] == "",
                  f"{base}: row {r}: processes columns not empty (plot.js draws 0 as data)")
            t = int(r[0])
            seen.add(t)
            med = statistics.median(by_threads.get(t, [float("nan")]))
            check(abs(float(r[3]) - med) <= 0.5 + 1e-9 * med, f"{base} {t} threads: {r[3]}, Python {med:.1f}")
            c = cpus[max(n - 1, 0)]
            check(abs(float(r[4]) - 100.0 * (c - t) / c) <= 0.005 if c >= t else r[4] == "0.00",
                  f"{base} {t} threads: idle {r[4]} of {c} CPUs")
            if one is not None:
                check(abs(float(r[5]) - one * t) <= 0.5 + 1e-9 * one * t,
                      f"{base} {t} threads: linear {r[5]}, Python {one * t:.1f}")
        check(seen == set(by_threads), f"{base}: thread counts {sorted(seen)}, results {sorted(by_threads)}")
    return read


with tempfile.TemporaryDirectory(prefix="bouncelab-wis.") as tmp:
    fixed = check_report([os.path.join(data, "results-fixed.json")], os.path.join(tmp, "fixed"))
    # Two settings of one family, each its own file, named by the setting.
    check(any("pin_work_0" in b for b in fixed or {}) and any("pin_work_1" in b for b in fixed or {}),
          f"the setting in the names: {sorted(fixed or {})}")
    # Every results file of tests/data (another tool's alone gives no CSV),
    # every corpus run alone, and each machine's runs in one report.
    for name in sorted(os.listdir(data)):
        if name.endswith(".json") and name not in ("results-fixed.json", "latency-fixed.json"):
            check_report([os.path.join(data, name)], os.path.join(tmp, name),
                         expect_csv=not name.startswith("gbench-"))
    runs = os.path.join(data, "runs")
    for machine in sorted(os.listdir(runs)):
        if not os.path.isdir(os.path.join(runs, machine)):
            continue
        files = sorted(os.path.join(runs, machine, f) for f in os.listdir(os.path.join(runs, machine))
                       if f.endswith(".json"))
        for f in files:
            check_report([f], os.path.join(tmp, machine + "-" + os.path.basename(f)))
        check_report(files, os.path.join(tmp, machine))
    # A parameter value with a dot (a family this catalogue does not know
    # takes any): postprocess.py would cut the name there.
    doc = json.load(open(os.path.join(data, "results-fixed.json")))
    for row in doc["benchmarks"]:
        if row.get("bouncelab", {}).get("family") == "zz_future_family":
            row["bouncelab"]["params"]["scale"] = "0.5"
    dotted = os.path.join(tmp, "dotted.json")
    json.dump(doc, open(dotted, "w"))
    read = check_report([dotted], os.path.join(tmp, "dotted"))
    check(any("scale_0_5" in b for b in read or {}), f"scale=0.5 in the names: {sorted(read or {})}")
    check_report([os.path.join(runs, "epyc-zen3-2026-12-01", "default.json"),
                  os.path.join(runs, "epyc-zen5-2026-12-02", "default.json")], os.path.join(tmp, "two"))
for b in bad:
    print("FAIL:", b)
sys.exit(1 if bad else 0)
