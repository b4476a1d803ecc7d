#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""--json of compare, list and topo, and compare's exit status for CI.

compare --json is read with Python's json module and checked two ways:
against tests/data/compare-expected.tsv (medians, B/A, CI and p computed
by numpy and scipy from the same files, tests/oracles/compare_expected.py)
and against compare's own text table, which must print the same numbers
rounded. --fail-on-regression: a copy of compare-a.json with every time
made twice as long must exit 1 with a line naming each benchmark at PCT 10
(every B/A is 2, and A against itself has no CI below 0.55 in this
fixture), and exit 0 at PCT 100 (a CI cannot lie wholly above its own
ratio, 2) and without the option; on compare-a/b the benchmarks named at
PCT 0 are those whose scipy CI lies above 1.

run --out -: stdout is the results file, byte for byte (the file is
still written, where the run says on stderr), and parses as JSON with the
run's rows; with --console (a second thing on stdout) it is refused.

list --json against list's text (names, titles, variants, defaults), and
topo --json on a synthetic topology against what the topology is (2
packages of 4 cores of 2 PUs: 16 CPUs, spread of 4 threads crosses the
packages) and against topo's text.

usage: test_json_output.py BOUNCELAB TESTS_DIR
"""
import json
import math
import os
import re
import subprocess
import sys
import tempfile
import group_kill  # noqa: F401 (a timed-out test takes its children with it)

bouncelab, tests = os.path.abspath(sys.argv[1]), sys.argv[2]
data = os.path.join(tests, "data")
bad = []


def check(ok, what):
    if not ok:
        bad.append(what)


def run(*args):
    return subprocess.run([bouncelab, *args], capture_output=True, text=True)


def sig3(text, value, what):
    """A printed number is the value to three significant digits."""
    printed = float(text)
    tol = 0.5 * 10 ** (math.floor(math.log10(abs(value))) - 2) if value else 0
    check(abs(printed - value) <= tol * 1.0001, f"{what}: text {text}, JSON {value!r}")


def expected(totals=False):
    """The oracle's benchmarks (or, with totals, its geomean and counts)."""
    want = {}
    for line in open(os.path.join(data, "compare-expected.tsv")):
        if not line.startswith("#"):
            f = line.rstrip("\n").split("\t")
            if (len(f) == 7) != totals:
                want[f[0]] = [float(x) for x in f[1:]]
    return want


def compare_json_against_scipy_and_text():
    a, b = os.path.join(data, "compare-a.json"), os.path.join(data, "compare-b.json")
    js, text = run("compare", "--json", a, b), run("compare", a, b)
    check(js.returncode == 0 and text.returncode == 0,
          f"compare exits 0: {js.stderr}{text.stderr}")
    doc = json.loads(js.stdout)
    check(js.stdout.lstrip().startswith("{"), "compare --json prints nothing but the JSON")
    rows = {f"{r['family']}/{r['variant']}/{r['threads']}": r for r in doc["benchmarks"]}
    for case, (ma, mb, ratio, lo, hi, p) in expected().items():
        r = rows.get(case)
        if not r:
            bad.append(f"compare --json: no benchmark {case}")
            continue
        check(abs(r["a"] - ma) <= 1e-9 * ma, f"{case} a {r['a']}, numpy {ma}")
        check(abs(r["b"] - mb) <= 1e-9 * mb, f"{case} b {r['b']}, numpy {mb}")
        check(abs(r["ratio"] - ratio) <= 1e-9 * ratio, f"{case} ratio {r['ratio']}, numpy {ratio}")
        # 2000 resamples here against 200,000 there: a little spread
        check(abs(r["ci_low"] - lo) <= 0.02, f"{case} ci_low {r['ci_low']}, scipy {lo}")
        check(abs(r["ci_high"] - hi) <= 0.02, f"{case} ci_high {r['ci_high']}, scipy {hi}")
        check(abs(r["p"] - p) <= 0.0005, f"{case} p {r['p']}, scipy {p}")
    # The text table prints the same rows: label, rounded numbers, verdict.
    printed = {}
    for m in re.finditer(r"^\| (\S[^|]*?) \| ([\d.e+-]+) \| ([\d.e+-]+) \| ([\d.]+)x \(95% CI "
                         r"([\d.]+)–([\d.]+)[^|]*\| ([^|]+) \| ([^|]+) \|$", text.stdout, re.M):
        printed[m.group(1)] = m.groups()[1:]
    nr_rows = 0
    for r in doc["benchmarks"]:
        got = printed.get(r["benchmark"])
        if not got:
            bad.append(f"text has no row for {r['benchmark']}")
            continue
        nr_rows += 1
        sig3(got[0], r["a"], r["benchmark"] + " A")
        sig3(got[1], r["b"], r["benchmark"] + " B")
        check(abs(float(got[2]) - r["ratio"]) <= 0.0051, f"{r['benchmark']}: B/A text {got[2]}, JSON {r['ratio']}")
        check(abs(float(got[3]) - r["ci_low"]) <= 0.0051, f"{r['benchmark']}: CI low text {got[3]}")
        check(abs(float(got[4]) - r["ci_high"]) <= 0.0051, f"{r['benchmark']}: CI high text {got[4]}")
        check(got[6].strip() == r["verdict"], f"{r['benchmark']}: verdict text {got[6]!r}, JSON {r['verdict']!r}")
        for c in r["counters"]:
            line = re.search(r"^\|     counter %s \| ([^|]+) \| ([^|]+) \|.*\| ([^|]+) \|$"
                             % re.escape(c["counter"]), text.stdout, re.M)
            check(line is not None, f"{r['benchmark']}: no text row for counter {c['counter']}")
    check(nr_rows == len(doc["benchmarks"]) and nr_rows >= 3, f"{nr_rows} rows matched")
    g = re.search(r"^Geometric mean of B/A over (\d+) benchmarks?: ([\d.]+)x$", text.stdout, re.M)
    ratios = [r["a"] and r["b"] / r["a"] for r in doc["benchmarks"]]
    geomean = math.exp(sum(math.log(x) for x in ratios) / len(ratios))
    check(g and int(g.group(1)) == len(ratios), "geometric mean over every benchmark")
    check(abs(doc["geomean"] - geomean) <= 1e-9 * geomean, f"geomean {doc['geomean']}, Python {geomean}")
    totals = expected(totals=True)
    check(abs(doc["geomean"] - totals["geomean"][0]) <= 1e-9, f"geomean {doc['geomean']}, numpy {totals['geomean']}")
    check(len(doc["benchmarks"]) == totals["compared"][0] and doc["only_in_a"] == totals["only_in_a"][0]
          and doc["only_in_b"] == totals["only_in_b"][0], "benchmarks compared, only in A, only in B")
    check(g and abs(float(g.group(2)) - doc["geomean"]) <= 0.0051, "geomean text against JSON")
    # At PCT 0 the regressions are the benchmarks whose CI lies above 1
    # (those scipy puts within 0.02 of 1 are not judged).
    slow = run("compare", "--json", "--fail-on-regression", "0", a, b)
    doc = json.loads(slow.stdout)
    named = set(re.findall(r"^bouncelab: regression: (.*?): B/A", slow.stderr, re.M))
    for case, (ma, mb, ratio, lo, hi, p) in expected().items():
        r = rows[case]
        if abs(lo - 1) > 0.02:
            check((r["benchmark"] in named) == (lo > 1),
                  f"--fail-on-regression 0: {case} (scipy CI {lo:.3f}-{hi:.3f}) named: {r['benchmark'] in named}")
    check(slow.returncode == (1 if named else 0), f"exit {slow.returncode} with {len(named)} named")
    check(sum(r["regression"] for r in doc["benchmarks"]) == len(named) == doc["regressions"],
          "the JSON's regressions are the lines on stderr")


def slowed_copy(path, factor, out):
    doc = json.load(open(path))
    for row in doc["benchmarks"]:
        for key in ("real_time", "cpu_time", "ns_per_op", "wall_ns"):
            if key in row:
                row[key] *= factor
    json.dump(doc, open(out, "w"), indent=1)


def regression_exit_status(tmp):
    a = os.path.join(data, "compare-a.json")
    slow = os.path.join(tmp, "slow.json")
    slowed_copy(a, 2.0, slow)
    p = run("compare", "--fail-on-regression", "10", a, slow)
    named = re.findall(r"^bouncelab: regression: (.*?): B/A", p.stderr, re.M)
    total = len(json.loads(run("compare", "--json", a, slow).stdout)["benchmarks"])
    check(p.returncode == 1, f"2x slower at PCT 10: exit {p.returncode}, expected 1: {p.stderr}")
    check(len(named) == total, f"2x slower at PCT 10: {len(named)} of {total} named")
    check("|" in p.stdout, "the table is still printed")
    p = run("compare", "--fail-on-regression", "100", a, slow)
    check(p.returncode == 0 and "regression" not in p.stderr,
          f"2x slower at PCT 100: exit {p.returncode}, {p.stderr}")
    p = run("compare", a, slow)
    check(p.returncode == 0, f"without --fail-on-regression: exit {p.returncode}")
    # B faster is never a regression.
    p = run("compare", "--fail-on-regression", "0", slow, a)
    check(p.returncode == 0, f"B 2x faster at PCT 0: exit {p.returncode}: {p.stderr}")
    for value in ("-1", "ten", "", "nan"):
        p = run("compare", "--fail-on-regression", value, a, slow)
        check(p.returncode == 2 and p.stderr.count("\n") == 1 and "--fail-on-regression" in p.stderr,
              f"--fail-on-regression {value!r}: exit {p.returncode}, {p.stderr!r}")


def run_out_dash(tmp):
    p = subprocess.run([bouncelab, "run", "--quick", "--threads", "1", "--filter", "^has_pinned/nop$",
                        "--counters", "none", "--out", "-"], capture_output=True, cwd=tmp)
    check(p.returncode == 0, f"run --out -: exit {p.returncode}: {p.stderr[-300:]!r}")
    m = re.search(rb"^bouncelab: results in (\S+) \(", p.stderr, re.M)
    if not m:
        bad.append(f"run --out -: no 'results in' line: {p.stderr[-300:]!r}")
        return
    with open(os.path.join(tmp, m.group(1).decode()), "rb") as f:
        check(f.read() == p.stdout, "run --out -: stdout is not the results file")
    doc = json.loads(p.stdout)
    check([r["name"] for r in doc["benchmarks"]] and
          all(r["bouncelab"]["variant"] == "nop" for r in doc["benchmarks"]),
          "run --out -: the run's rows")
    p = run("run", "--quick", "--console", "--out", "-")
    check(p.returncode == 2 and p.stderr.count("\n") == 1 and "--out -" in p.stderr,
          f"run --out - --console: exit {p.returncode}, {p.stderr!r}")


def list_json():
    js, text = run("list", "--json"), run("list")
    check(js.returncode == 0, f"list --json: {js.stderr}")
    doc = json.loads(js.stdout)
    heads = re.findall(r"^(\w+): (.*)$", text.stdout, re.M)
    check([(f["family"], f["title"]) for f in doc["families"]] == heads,
          "list --json families and titles are the text's")
    for f in doc["families"]:
        block = text.stdout.split(f"{f['family']}: {f['title']}\n", 1)[1].split("\n\n", 1)[0]
        names = re.findall(r"^    (\w+) ", block.split("parameters", 1)[0], re.M)
        check([v["variant"] for v in f["variants"]] == names, f"{f['family']}: variants {names}")
        for prm in f["parameters"]:
            m = re.search(r"^    %s\s+default (\S+?),? " % re.escape(prm["name"]), block, re.M)
            check(m and m.group(1) == str(prm["default"]),
                  f"{f['family']}.{prm['name']}: default {prm['default']} against the text")
    one = json.loads(run("list", "--json", "counter").stdout)
    check([f["family"] for f in one["families"]] == ["counter"], "list --json FAMILY")
    ev = run("list", "--events", "--json")
    check(ev.returncode == 0 and "sets" in json.loads(ev.stdout), f"list --events --json: {ev.stderr}")


def topo_json():
    spec = "pack:2 core:4 pu:2"
    args = ["topo", "--topology", spec, "--policy", "spread", "--threads", "4",
            "--policy", "compact"]
    js, text = run(*args, "--json"), run(*args)
    if js.returncode == 2 and "no hwloc" in js.stderr:
        print("topo --json: skipped, this build has no hwloc to read a synthetic topology")
        return
    check(js.returncode == 0, f"topo --json: {js.stderr}")
    doc = json.loads(js.stdout)
    check(doc["topology"]["nr_allowed_cpus"] == 16, f"2 x 4 x 2 PUs: {doc['topology']['nr_allowed_cpus']}")
    check(not doc["this_system"], "a synthetic topology is not this system")
    spread, compact = doc["placements"]
    check(spread["threads"] == 4 and len(set(spread["cpus"])) == 4, f"spread: {spread}")
    check(spread["widest_class"] == "cross_package", f"spread of 4 over 2 packages: {spread['widest_class']}")
    for pl in doc["placements"]:
        m = re.search(r"^Placement %s, (\d+) threads?:\n  CPUs (\S+)\n  widest class (\w+)"
                      % re.escape(pl["policy"]), text.stdout, re.M)
        check(m and int(m.group(1)) == pl["threads"] and m.group(2) == ",".join(map(str, pl["cpus"]))
              and m.group(3) == pl["widest_class"], f"placement {pl['policy']} against the text")
    for c in doc["classes"]:
        check(re.search(r"^  %s\s+%d and %d " % (c["class"], c["cpus"][0], c["cpus"][1]),
                        text.stdout, re.M), f"class {c['class']} against the text")
    check(all(line in text.stdout for line in doc["tree"]) and len(doc["tree"]) > 3, "the tree's lines")


compare_json_against_scipy_and_text()
with tempfile.TemporaryDirectory(prefix="bouncelab-json.") as tmp:
    regression_exit_status(tmp)
    run_out_dash(tmp)
list_json()
topo_json()
for b in bad:
    print("FAIL:", b)
sys.exit(1 if bad else 0)
