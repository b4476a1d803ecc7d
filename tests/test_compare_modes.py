#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""bouncelab compare in every mode, against numbers computed here.

Results files with known times are written to a temporary directory and
compared as repetitions against repetitions, a side of Google Benchmark
aggregates only (--benchmark_report_aggregates_only: a median, or a mean
where there is no median) against repetitions and the other way round,
and aggregates on both sides; as text and as --json; with and without
--fail-on-regression; with bouncelab's counters, one of them a fixed
count over the op count.

The expected values are computed here from the definitions, not from
bouncelab: the median with Python's statistics module, B/A of the medians,
the geometric mean of the rows' B/A, and the two-sided Mann-Whitney U
p-value as an exact permutation test of A's rank sum (every way of
choosing A's ranks, mid-ranks for ties, twice the smaller tail, at most
1). The bootstrap CI is random, but every resampled median lies between
its side's smallest and largest value, so the CI lies within
[min B / max A, max B / min A]; where both sides are constant it is the
ratio exactly. A verdict is judged only where those bounds decide it.

usage: test_compare_modes.py BOUNCELAB
"""
import itertools
import json
import math
import os
import re
import statistics
import subprocess
import sys
import tempfile
import group_kill  # noqa: F401 (a timed-out test takes its children with it)

bouncelab = os.path.abspath(sys.argv[1])
bad = []


def check(ok, what):
    if not ok:
        bad.append(what)


def near(got, want, what, rel=1e-9):
    if got is None or want is None:
        check(got is None and want is None, f"{what}: {got!r}, expected {want!r}")
        return
    check(abs(got - want) <= rel * max(1.0, abs(want)), f"{what}: {got!r}, expected {want!r}")


# ---- the oracle --------------------------------------------------------


def mid_ranks(values):
    order = sorted(range(len(values)), key=lambda i: values[i])
    ranks = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            ranks[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return ranks


def mann_whitney_p(a, b):
    """Exact two-sided p of A's rank sum over every split of the pooled ranks."""
    if len(a) < 2 or len(b) < 2:
        return None
    ranks = mid_ranks(list(a) + list(b))
    observed = sum(ranks[:len(a)])
    low = high = total = 0
    for chosen in itertools.combinations(ranks, len(a)):
        s = sum(chosen)
        total += 1
        low += s <= observed + 1e-9
        high += s >= observed - 1e-9
    return min(1.0, 2 * min(low, high) / total)


def geomean(ratios):
    return math.exp(sum(math.log(r) for r in ratios) / len(ratios))


# ---- the files ---------------------------------------------------------


def foreign(name, times, unit="ns", counters=None):
    """Google Benchmark's repetitions of one benchmark, not bouncelab's."""
    rows = []
    for i, t in enumerate(times):
        row = {"name": name, "family_index": 0, "per_family_instance_index": 0,
               "run_name": name, "run_type": "iteration", "repetitions": len(times),
               "repetition_index": i, "threads": 1, "iterations": 1000,
               "real_time": t, "cpu_time": t, "time_unit": unit}
        for key, values in (counters or {}).items():
            row[key] = values[i]
        rows.append(row)
    return rows


def aggregates(name, median=None, mean=None, unit="ns"):
    """What --benchmark_report_aggregates_only keeps of a benchmark."""
    rows = []
    for what, value in (("mean", mean), ("median", median), ("stddev", 1.0), ("cv", 0.01)):
        if value is None:
            continue
        rows.append({"name": f"{name}_{what}", "family_index": 0,
                     "per_family_instance_index": 0, "run_name": name,
                     "run_type": "aggregate", "repetitions": 5, "threads": 1,
                     "aggregate_name": what,
                     "aggregate_unit": "percentage" if what == "cv" else "time",
                     "iterations": 5, "real_time": value, "cpu_time": value,
                     "time_unit": unit})
    return rows


def ours(variant, threads, ns, ops, counters, params=None):
    """bouncelab's repetitions of has_pinned/VARIANT at THREADS."""
    name = f"has_pinned/{variant}/real_time/threads:{threads}"
    rows = []
    for i, t in enumerate(ns):
        row = {"name": name, "family_index": 0, "per_family_instance_index": 0,
               "run_name": name, "run_type": "iteration", "repetitions": len(ns),
               "repetition_index": i, "threads": threads, "iterations": 1000,
               "real_time": t, "cpu_time": t, "time_unit": "ns", "ns_per_op": t,
               "ops": ops[i], "wall_ns": t * ops[i] / threads,
               "bouncelab": {"family": "has_pinned", "variant": variant, "params": params or {},
                             "placement": {"policy": "compact",
                                           "cpus": list(range(threads)),
                                           "widest_class": "same_pu" if threads == 1 else "smt",
                                           "numa_distance": None}}}
        for key, values in counters.items():
            row[key] = values[i]
        rows.append(row)
    return rows


def write(directory, name, rows, host):
    path = os.path.join(directory, name)
    context = {"date": "2026-12-01T10:00:00+00:00", "host_name": host,
               "executable": "./bench", "num_cpus": 2, "mhz_per_cpu": 2000,
               "cpu_scaling_enabled": False, "caches": [], "load_avg": [0, 0, 0],
               "library_build_type": "release"}
    with open(path, "w") as f:
        json.dump({"context": context, "benchmarks": rows}, f)
    return path


def run(*args):
    return subprocess.run([bouncelab, "compare", *args], capture_output=True, text=True)


# Repetitions of each benchmark, A and B, in ns (BM_us's A in microseconds).
REPS_A = {
    "BM_slow": [10, 11, 12, 13, 14],
    "BM_fast": [44, 40, 42, 41, 43],
    "BM_same": [10, 12, 14, 16, 18],
    "BM_three": [10, 11, 12],
    "BM_even": [1, 2, 3, 10],
    "BM_tied": [10, 10, 20, 20, 30],
    "BM_flat": [10, 10, 10, 10, 10],
    "BM_one": [10],
    "BM_us": [1, 2, 3],
    "BM_only_a": [5, 5],
}
REPS_B = {
    "BM_slow": [24, 20, 22, 21, 23],
    "BM_fast": [10, 10.5, 11, 11.5, 12],
    "BM_same": [11, 13, 15, 17, 19],
    "BM_three": [20, 21, 22],
    "BM_even": [5, 6, 7, 100],
    "BM_tied": [20, 20, 30, 30, 40],
    "BM_flat": [15, 15, 15, 15, 15],
    "BM_one": [30],
    "BM_us": [1500, 2500, 3500],
    "BM_only_b1": [5, 5],
    "BM_only_b2": [6, 6],
}
UNIT_A = {"BM_us": 1000}


def ns_a(name):
    return [t * UNIT_A.get(name, 1) for t in REPS_A[name]]


def reps_rows(reps, units):
    rows = []
    for name, times in reps.items():
        rows += foreign(name, times, "us" if units.get(name) == 1000 else "ns")
    return rows


def agg_rows(medians, means):
    rows = []
    for name in sorted(set(medians) | set(means)):
        rows += aggregates(name, medians.get(name), means.get(name))
    return rows


def judge_rows(doc, text, want, mode):
    """want: name -> (a, b, p or None, aggregate?, verdict or None)."""
    by_name = {r["benchmark"]: r for r in doc["benchmarks"]}
    check(set(by_name) == set(want), f"{mode}: benchmarks {sorted(by_name)}, expected {sorted(want)}")
    for name, (a, b, p, aggregate, verdict) in want.items():
        row = by_name.get(name)
        if not row:
            continue
        what = f"{mode} {name}"
        near(row["a"], a, f"{what} A")
        near(row["b"], b, f"{what} B")
        near(row["ratio"], b / a, f"{what} B/A")
        near(row["p"], p, f"{what} p")
        if aggregate:
            check(row["ci_low"] is None and row["ci_high"] is None, f"{what}: a CI from aggregates")
            check(row["verdict"] == "untested (aggregates only)", f"{what}: verdict {row['verdict']!r}")
            check(row["regression"] is False, f"{what}: an aggregate row counted as a regression")
            m = re.search(r"^\| %s \| ([\d.]+) \| ([\d.]+) \| ([\d.]+)x \(no CI: aggregates only\) "
                          r"\| n/a \| untested \(aggregates only\) \|$" % re.escape(name), text, re.M)
            check(m is not None, f"{what}: no aggregate row in the text")
            if m:
                near(float(m.group(3)), b / a, f"{what} B/A in the text", 0.006)
            continue
        if row["ci_low"] is not None:
            lo_bound = min(REPS_B[name]) / max(ns_a(name))
            hi_bound = max(REPS_B[name]) / min(ns_a(name))
            check(lo_bound - 1e-12 <= row["ci_low"] <= row["ci_high"] <= hi_bound + 1e-12,
                  f"{what}: CI {row['ci_low']}-{row['ci_high']} outside "
                  f"[{lo_bound}, {hi_bound}]")
        if verdict is not None:
            check(row["verdict"] == verdict, f"{what}: verdict {row['verdict']!r}, expected {verdict!r}")
            m = re.search(r"^\| %s \| .* \| ([^|]+) \|$" % re.escape(name), text, re.M)
            check(m is not None and m.group(1) == verdict,
                  f"{what}: the text's verdict {m and m.group(1)!r}, expected {verdict!r}")


def judge_totals(doc, text, ratios, only_a, only_b, mode):
    g = geomean(ratios)
    near(doc["geomean"], g, f"{mode}: geomean")
    check(doc["only_in_a"] == only_a and doc["only_in_b"] == only_b,
          f"{mode}: only in A {doc['only_in_a']}, only in B {doc['only_in_b']}, "
          f"expected {only_a} and {only_b}")
    n = len(ratios)
    m = re.search(r"^Geometric mean of B/A over (\d+) benchmarks?: ([\d.]+)x$", text, re.M)
    check(m is not None and int(m.group(1)) == n and abs(float(m.group(2)) - g) <= 0.006,
          f"{mode}: the text's geometric mean {m and m.groups()}, expected {n} and {g:.4f}")
    if only_a or only_b:
        want = (f"Not compared: {only_a} benchmark{'' if only_a == 1 else 's'} only in A, "
                f"{only_b} only in B.")
        check(want in text, f"{mode}: no '{want}'")
    else:
        check("Not compared" not in text, f"{mode}: benchmarks said not compared")


def compare(a, b, mode):
    js, text = run("--json", a, b), run(a, b)
    check(js.returncode == 0 and text.returncode == 0,
          f"{mode}: exit {js.returncode} and {text.returncode}: {js.stderr}{text.stderr}")
    return json.loads(js.stdout), text.stdout


def repetitions_against_repetitions(tmp):
    a = write(tmp, "reps-a.json", reps_rows(REPS_A, UNIT_A), "host-a")
    b = write(tmp, "reps-b.json", reps_rows(REPS_B, {}), "host-b")
    doc, text = compare(a, b, "repetitions")
    verdicts = {
        "BM_slow": "B slower",		# CI within [20/14, 24/10], p 2/252
        "BM_fast": "B faster",		# CI within [10/44, 12/40]
        "BM_same": "within noise",	# p well above 0.05
        "BM_three": "within noise",	# CI above 1, but p is 2/20 = 0.1
        "BM_even": "within noise",
        "BM_tied": None,		# p at the edge of 0.05: not judged
        "BM_flat": "B slower",		# CI exactly 1.5, p 2/252
        "BM_one": None,
        "BM_us": None,
    }
    want = {}
    ratios = []
    for name, verdict in verdicts.items():
        ma, mb = statistics.median(ns_a(name)), statistics.median(REPS_B[name])
        want[name] = (ma, mb, mann_whitney_p(ns_a(name), REPS_B[name]), False, verdict)
        ratios.append(mb / ma)
    judge_rows(doc, text, want, "repetitions")
    judge_totals(doc, text, ratios, 1, 2, "repetitions")
    rows = {r["benchmark"]: r for r in doc["benchmarks"]}
    flat = rows.get("BM_flat", {})
    near(flat.get("ci_low"), 1.5, "BM_flat CI low")
    near(flat.get("ci_high"), 1.5, "BM_flat CI high")
    # one repetition a side: no test (p n/a in the text too)
    check(re.search(r"^\| BM_one \| 10\.0 \| 30\.0 \| [^|]* \| n/a \|", text, re.M) is not None,
          "BM_one: p is not n/a in the text")
    check(rows.get("BM_one", {}).get("p", 0) is None, "BM_one: a p-value from one repetition")
    check("has no per-repetition rows" not in text, "repetitions: said to be aggregates")
    check(doc["a"]["benchmarks_from_aggregates"] == 0 and doc["a"]["host_name"] == "host-a"
          and doc["b"]["host_name"] == "host-b", "repetitions: the sides' descriptions")
    return a, b


def aggregates_on_one_side_or_both(tmp, reps_a, reps_b):
    medians = {"BM_slow": 12.5, "BM_fast": 40.0, "BM_three": 11.0}
    means = {"BM_slow": 13.0, "BM_fast": 41.0, "BM_mean_only": 8.0}
    agg_a = write(tmp, "agg-a.json", agg_rows(medians, means), "agg-a")
    b_medians = {"BM_slow": 30.0, "BM_fast": 10.0, "BM_mean_only": 20.0, "BM_three": 33.0}
    b_means = {"BM_slow": 29.0, "BM_mean_only": 32.0}
    agg_b = write(tmp, "agg-b.json", agg_rows(b_medians, b_means), "agg-b")

    # A of aggregates (median, else mean) against B's repetitions
    doc, text = compare(agg_a, reps_b, "aggregates against repetitions")
    want, ratios = {}, []
    for name in ("BM_slow", "BM_fast", "BM_three"):
        a_value = medians.get(name, means.get(name))
        b_value = statistics.median(REPS_B[name])
        want[name] = (a_value, b_value, None, True, None)
        ratios.append(b_value / a_value)
    judge_rows(doc, text, want, "aggregates against repetitions")
    judge_totals(doc, text, ratios, 1, len(REPS_B) - 3, "aggregates against repetitions")
    said = re.search(r"^   A has no per-repetition rows for (\d+) benchmarks", text, re.M)
    check(said is not None and int(said.group(1)) == 4,
          f"aggregates against repetitions: A's aggregates not said (4 benchmarks): {said}")
    check(doc["a"]["benchmarks_from_aggregates"] == 4 and doc["b"]["benchmarks_from_aggregates"] == 0,
          "aggregates against repetitions: benchmarks_from_aggregates")

    # A's repetitions against B of aggregates
    doc, text = compare(reps_a, agg_b, "repetitions against aggregates")
    want, ratios = {}, []
    for name in ("BM_slow", "BM_fast", "BM_three"):
        a_value = statistics.median(ns_a(name))
        b_value = b_medians[name]
        want[name] = (a_value, b_value, None, True, None)
        ratios.append(b_value / a_value)
    judge_rows(doc, text, want, "repetitions against aggregates")
    judge_totals(doc, text, ratios, len(REPS_A) - 3, 1, "repetitions against aggregates")
    check(re.search(r"^   B has no per-repetition rows for 4 benchmarks", text, re.M) is not None,
          "repetitions against aggregates: B's aggregates not said")

    # aggregates on both sides: 12.5 -> 30, 40 -> 10, 8 (a mean) -> 20, 11 -> 33
    doc, text = compare(agg_a, agg_b, "aggregates on both sides")
    want = {"BM_slow": (12.5, 30.0, None, True, None), "BM_fast": (40.0, 10.0, None, True, None),
            "BM_mean_only": (8.0, 20.0, None, True, None), "BM_three": (11.0, 33.0, None, True, None)}
    judge_rows(doc, text, want, "aggregates on both sides")
    # 2.4 x 0.25 x 2.5 x 3 = 4.5: the geometric mean is 4.5 ** (1/4)
    judge_totals(doc, text, [2.4, 0.25, 2.5, 3.0], 0, 0, "aggregates on both sides")
    near(doc["geomean"], 4.5 ** 0.25, "aggregates on both sides: geomean by hand")

    # A file of both: a benchmark with repetitions is compared on them (its
    # aggregates, far off, are not used); one with aggregates only on its
    # median, in microseconds (2 us), or its mean.
    mixed_rows = (foreign("BM_slow", REPS_A["BM_slow"]) + aggregates("BM_slow", 999.0, 998.0) +
                  aggregates("BM_us", 2.0, 2.5, "us") + aggregates("BM_fast", None, 80.0))
    mixed = write(tmp, "mixed-a.json", mixed_rows, "mixed")
    doc, text = compare(mixed, reps_b, "repetitions and aggregates in one file")
    want = {"BM_slow": (12.0, 22.0, mann_whitney_p(REPS_A["BM_slow"], REPS_B["BM_slow"]), False,
                        "B slower"),
            "BM_us": (2000.0, 2500.0, None, True, None),
            "BM_fast": (80.0, 11.0, None, True, None)}
    judge_rows(doc, text, want, "repetitions and aggregates in one file")
    judge_totals(doc, text, [22 / 12, 2500 / 2000, 11 / 80], 0, len(REPS_B) - 3,
                 "repetitions and aggregates in one file")
    check(doc["a"]["benchmarks_from_aggregates"] == 2,
          f"mixed: {doc['a']['benchmarks_from_aggregates']} benchmarks from aggregates, expected 2")
    check(re.search(r"^   A has no per-repetition rows for 2 benchmarks \(written with$", text, re.M)
          is not None, "mixed: A's two benchmarks from aggregates not said")

    # aggregates never regress: B/A of 2.4 and 3 are above every bound
    p = run("--fail-on-regression", "0", agg_a, agg_b)
    check(p.returncode == 0 and "regression" not in p.stderr,
          f"aggregates with --fail-on-regression 0: exit {p.returncode}: {p.stderr}")


def fail_on_regression(tmp):
    """Constant sides make the CI exact: B/A of 1.5, 0.5 and 1, CI the same."""
    a = write(tmp, "flat-a.json", foreign("BM_up", [10] * 5) + foreign("BM_down", [10] * 5) +
              foreign("BM_level", [10] * 5), "flat-a")
    b = write(tmp, "flat-b.json", foreign("BM_up", [15] * 5) + foreign("BM_down", [5] * 5) +
              foreign("BM_level", [10] * 5), "flat-b")
    for pct, regressed in (("49.9", ["BM_up"]), ("50", []), ("0", ["BM_up"]), ("100", [])):
        js = run("--json", "--fail-on-regression", pct, a, b)
        text = run("--fail-on-regression", pct, a, b)
        what = f"--fail-on-regression {pct}"
        want_exit = 1 if regressed else 0
        check(js.returncode == want_exit and text.returncode == want_exit,
              f"{what}: exit {js.returncode} and {text.returncode}, expected {want_exit}")
        try:
            doc = json.loads(js.stdout)
        except ValueError:
            bad.append(f"{what}: no JSON")
            continue
        near(doc["fail_on_regression_above"], 1 + float(pct) / 100, f"{what}: the bound")
        check(doc["regressions"] == len(regressed), f"{what}: {doc['regressions']} regressions")
        for r in doc["benchmarks"]:
            check(r["regression"] == (r["benchmark"] in regressed),
                  f"{what}: {r['benchmark']} regression {r['regression']}")
        for name in ("BM_up", "BM_down", "BM_level"):
            named = f"regression: {name}:" in text.stderr
            check(named == (name in regressed), f"{what}: {name} named on stderr: {named}")
        if regressed:
            check(f"1 benchmark slower than --fail-on-regression {pct} allows" in text.stderr,
                  f"{what}: no count on stderr: {text.stderr}")
    doc = json.loads(run("--json", a, b).stdout)
    rows = {r["benchmark"]: r for r in doc["benchmarks"]}
    check(doc["fail_on_regression_above"] is None and doc["regressions"] == 0,
          "without --fail-on-regression: a bound or a regression")
    for name, ratio, verdict in (("BM_up", 1.5, "B slower"), ("BM_down", 0.5, "B faster"),
                                 ("BM_level", 1.0, "within noise")):
        r = rows.get(name, {})
        near(r.get("ratio"), ratio, f"{name} B/A")
        near(r.get("ci_low"), ratio, f"{name} CI low")
        near(r.get("ci_high"), ratio, f"{name} CI high")
        check(r.get("verdict") == verdict, f"{name}: verdict {r.get('verdict')!r}, expected {verdict}")
    near(rows["BM_level"]["p"], 1.0, "BM_level p (every rank tied)")
    near(doc["geomean"], geomean([1.5, 0.5, 1.0]), "constant sides: geomean")
    for pct in ("-1", "x", "", "nan"):
        p = run("--fail-on-regression", pct, a, b)
        check(p.returncode == 2, f"--fail-on-regression '{pct}': exit {p.returncode}, expected 2")


def counters(tmp):
    """
    misses_per_op: 1..5 against 6..10, B/A 8/3 and p 2/252, "B higher".
    pins_per_op: 2 per op of 1,000,000 ops in A, 1 per op of 2,000,000 in
    B: the same 2,000,000 pins, a fixed count over the op count (no test).
    only_a: a counter B lacks has no row.
    """
    a_rows = ours("store_always", 1, [10, 11, 12, 13, 14], [1e6] * 5,
                  {"misses_per_op": [3, 1, 2, 5, 4], "pins_per_op": [2] * 5, "only_a": [1] * 5})
    b_rows = ours("store_always", 1, [10, 11, 12, 13, 14], [2e6] * 5,
                  {"misses_per_op": [6, 7, 8, 9, 10], "pins_per_op": [1] * 5})
    a = write(tmp, "ours-a.json", a_rows, "ours-a")
    b = write(tmp, "ours-b.json", b_rows, "ours-b")
    doc, text = compare(a, b, "counters")
    check(len(doc["benchmarks"]) == 1, "counters: one benchmark")
    row = doc["benchmarks"][0]
    near(row["ratio"], 1.0, "counters: B/A of ns per op")
    near(row["p"], mann_whitney_p([10, 11, 12, 13, 14], [10, 11, 12, 13, 14]), "counters: p of ns")
    check(row["verdict"] == "within noise", f"counters: ns verdict {row['verdict']!r}")
    by_name = {c["counter"]: c for c in row["counters"]}
    check(set(by_name) == {"misses_per_op", "pins_per_op"}, f"counters: rows {sorted(by_name)}")
    m = by_name.get("misses_per_op", {})
    near(m.get("a"), 3, "misses_per_op A")
    near(m.get("b"), 8, "misses_per_op B")
    near(m.get("ratio"), 8 / 3, "misses_per_op B/A")
    near(m.get("p"), mann_whitney_p([3, 1, 2, 5, 4], [6, 7, 8, 9, 10]), "misses_per_op p")
    check(m.get("verdict") == "B higher", f"misses_per_op: verdict {m.get('verdict')!r}")
    f = by_name.get("pins_per_op", {})
    near(f.get("ratio"), 0.5, "pins_per_op B/A")
    check(f.get("p", 0) is None, "pins_per_op: tested")
    check(f.get("verdict") == "not tested: a fixed count over the op count",
          f"pins_per_op: verdict {f.get('verdict')!r}")
    check(re.search(r"^\|     counter misses_per_op \| 3\.00 \| 8\.00 \| 2\.67x .*\| B higher \|$",
                    text, re.M) is not None, f"counters: the misses row in the text:\n{text}")
    check(re.search(r"^\|     counter pins_per_op \| 2\.00 \| 1\.00 \| 0\.50x [^|]*\| n/a \| "
                    r"not tested: a fixed count over the op count \|$", text, re.M) is not None,
          "counters: the fixed count's row in the text")
    # the same counts over the same ops are tested: 2 and 2 per op
    b2 = write(tmp, "ours-b2.json",
               ours("store_always", 1, [20, 21, 22, 23, 24], [1e6] * 5,
                    {"misses_per_op": [1, 2, 3, 4, 5], "pins_per_op": [2] * 5}), "ours-b2")
    doc, _ = compare(a, b2, "counters, same ops")
    row = doc["benchmarks"][0]
    check(row["verdict"] == "B slower", f"counters, same ops: verdict {row['verdict']!r}")
    by_name = {c["counter"]: c for c in row["counters"]}
    pins = by_name.get("pins_per_op", {})
    near(pins.get("p"), 1.0, "pins_per_op p at the same count per op")
    check(pins.get("verdict") == "within noise", f"pins_per_op verdict {pins.get('verdict')!r}")
    near(doc["geomean"], 22 / 12, "counters, same ops: geomean")


def names_and_usage(tmp):
    """
    An old file whose name is the same for two settings: each row is told
    apart by its setting. Files with no benchmark in common, or one file,
    are refused (exit 2) before any table.
    """
    rows = (ours("store_always", 1, [10, 10, 10], [1e6] * 3, {}, {"pin_work": 0}) +
            ours("store_always", 1, [20, 20, 20], [1e6] * 3, {}, {"pin_work": 1}))
    a = write(tmp, "same-name-a.json", rows, "a")
    rows = (ours("store_always", 1, [30, 30, 30], [1e6] * 3, {}, {"pin_work": 0}) +
            ours("store_always", 1, [40, 40, 40], [1e6] * 3, {}, {"pin_work": 1}))
    b = write(tmp, "same-name-b.json", rows, "b")
    doc, text = compare(a, b, "one name, two settings")
    name = "has_pinned/store_always/real_time/threads:1"
    by_label = {r["benchmark"]: r for r in doc["benchmarks"]}
    for setting, ratio in (("pin_work=0, placement compact", 3.0), ("pin_work=1, placement compact", 2.0)):
        label = f"{name} [{setting}]"
        check(label in by_label, f"one name, two settings: no row {label!r} in {sorted(by_label)}")
        near(by_label.get(label, {}).get("ratio"), ratio, f"{label} B/A")
        check(f"| {label} |" in text, f"one name, two settings: no row {label!r} in the text")
    near(doc["geomean"], 6 ** 0.5, "one name, two settings: geomean")

    # one benchmark of aggregates only is said in the singular
    one = write(tmp, "one-aggregate.json", aggregates("BM_x", 2.0), "one")
    reps = write(tmp, "reps-x.json", foreign("BM_x", [4, 4, 4]), "reps")
    doc, text = compare(one, reps, "one benchmark of aggregates")
    check("   A has no per-repetition rows for 1 benchmark (written with\n" in text and
          "aggregates_only): it is compared on the median" in text,
          f"one benchmark of aggregates: not said in the singular:\n{text}")
    near(doc["geomean"], 2.0, "one benchmark of aggregates: geomean")
    check(re.search(r"^Geometric mean of B/A over 1 benchmark: 2\.00x$", text, re.M) is not None,
          "one benchmark of aggregates: the geometric mean's line")
    doc, text = compare(reps, reps, "a file against itself")
    check("has no per-repetition rows" not in text, "a file against itself: aggregates said")
    # a file name that is not UTF-8 is shown with '?' in the JSON
    odd = os.path.join(os.fsencode(tmp), b"odd-\xff.json")
    with open(odd, "wb") as f, open(reps, "rb") as src:
        f.write(src.read())
    p = subprocess.run([os.fsencode(bouncelab), b"compare", b"--json", odd, os.fsencode(reps)],
                       capture_output=True)
    check(p.returncode == 0 and json.loads(p.stdout)["a"]["path"].endswith("odd-?.json"),
          f"a file name not in UTF-8: exit {p.returncode}, {p.stdout[:300]!r}")

    x = write(tmp, "only-x.json", foreign("BM_x", [1, 2, 3]), "x")
    y = write(tmp, "only-y.json", foreign("BM_y", [1, 2, 3]), "y")
    p = run(x, y)
    check(p.returncode == 2 and "have no benchmark in common" in p.stderr and not p.stdout,
          f"no benchmark in common: exit {p.returncode}, {p.stderr!r}, {p.stdout[:80]!r}")
    p = run("--json", x, y)
    check(p.returncode == 2 and not p.stdout, f"no benchmark in common, --json: exit {p.returncode}")
    p = run(x)
    check(p.returncode == 2 and "expected two results files, A.json B.json, got 1" in p.stderr,
          f"one file: exit {p.returncode}, {p.stderr!r}")
    p = run(x, y, x)
    check(p.returncode == 2 and "got 3" in p.stderr, f"three files: exit {p.returncode}")


def main():
    with tempfile.TemporaryDirectory(prefix="bouncelab-compare-") as tmp:
        names_and_usage(tmp)
        reps_a, reps_b = repetitions_against_repetitions(tmp)
        aggregates_on_one_side_or_both(tmp, reps_a, reps_b)
        fail_on_regression(tmp)
        counters(tmp)
    if bad:
        print("\n".join(bad))
        return 1
    print("compare: every mode agrees with the numbers computed here")
    return 0


if __name__ == "__main__":
    sys.exit(main())
