#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Every number of the report's tables against independent values.

  test_report_numbers.py BOUNCELAB TESTS_DIR [RESULTS EXPECTED]

Runs `bouncelab report tests/data/results-fixed.json --full` (or RESULTS,
against EXPECTED: tests/data/results-rounds.json and rounds-expected.tsv,
a run whose rounds switched between a fast and a slow mode) and compares
each case's ns/op and Mops/s medians and 95% CIs, its CV, its noisy flag,
its ratio to the best variant and that p-value, the fixes' gains (the
summary, "Before and after" in the appendix details.md, "Other settings")
and the physical baseline's
one-way latencies with tests/data/report-expected.tsv, which
tests/oracles/report_expected.py computed from the same file with numpy
and scipy, not with bouncelab's code (its header says how to remake it).

A ratio the expected file calls paired must be marked "paired by round"
and its 95% CI must agree too; an unpaired one must not be marked.

A printed number agrees when it is the expected value rounded to the
digits printed: within half a unit of its last digit. Every expected case
must have its row, once, and every row its expected case.
"""
import os
import re
import subprocess
import sys
import tempfile
import group_kill  # noqa: F401 (a timed-out test takes its children with it)

bouncelab, tests = sys.argv[1], sys.argv[2]
results_name, expected_name = (sys.argv[3:5] if len(sys.argv) > 4 else
                               ("results-fixed.json", "report-expected.tsv"))
problems = []


def problem(msg):
    problems.append(msg)
    print("FAIL:", msg)


def load_expected():
    cases, gains, one_way, rounds = {}, {}, {}, {}
    with open(os.path.join(tests, "data", expected_name)) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            f_ = line.rstrip("\n").split("\t")
            if f_[0] == "case":
                _, family, setting, threads, variant, n, *rest = f_
                cases[(family, setting, int(threads), variant)] = {
                    "n": int(n), "ns": tuple(map(float, rest[0:3])),
                    "mops": tuple(map(float, rest[3:6])), "cv": float(rest[6]),
                    "noisy": rest[7] == "yes", "x_best": rest[8], "p": rest[9],
                    "x_ci": rest[10:12], "method": rest[12]}
            elif f_[0] == "gain":
                _, family, setting, threads, before, after, ratio, p, lo, hi, method = f_
                gains[(family, setting, int(threads))] = (before, after, float(ratio), float(p),
                                                          (lo, hi), method)
            elif f_[0] == "gain_round":
                _, family, setting, threads, before_ns, after_ns = f_
                rounds[(family, setting, int(threads))] = (float(before_ns), float(after_ns))
            elif f_[0] == "one_way":
                _, distance, variant, med, lo, hi, mn, n, noisy = f_
                one_way[(distance, variant)] = (float(med), float(lo), float(hi), float(mn),
                                                int(n), noisy == "yes")
    return cases, gains, one_way, rounds


def agrees(text, expected):
    """text is expected rounded to the digits it shows."""
    text = text.strip()
    try:
        value = float(text)
    except ValueError:
        return False
    decimals = len(text.split(".")[1]) if "." in text else 0
    return abs(value - expected) <= 0.5 * 10 ** -decimals + 1e-9 * abs(expected)


def check(what, text, expected):
    if not agrees(text, expected):
        problem(f"{what}: report says {text!r}, the independent value is {expected:.6g}")


def with_ci(what, text, expected):
    """'4.44 (4.38–4.50)' against (median, lo, hi)."""
    m = re.fullmatch(r"(\S+) \((\S+)–(\S+)\)", text.strip())
    if not m:
        problem(f"{what}: {text!r} is not 'median (lo–hi)'")
        return
    for part, value, name in zip(m.groups(), expected, ("median", "CI low", "CI high")):
        check(f"{what} {name}", part, value)


def ratio(what, text, expected, ci=None, method=None):
    """'1.57x (95% CI 1.54–1.62)...' or '1.57x': the point estimate; with
    method, the paired mark and a paired ratio's interval (ci: lo, hi)."""
    m = re.match(r"\s*([0-9.]+)x\b", text)
    if not m:
        problem(f"{what}: {text!r} does not start with a ratio")
        return
    check(what, m.group(1), expected)
    if method is None:
        return
    if ("paired by round" in text) != (method == "paired"):
        problem(f"{what}: {text!r} is {method}, expected {'' if method == 'paired' else 'no '}"
                "'paired by round'")
    if method == "paired":
        m = re.search(r"\(95% CI (\S+)–(\S+?), paired by round\)", text)
        if not m:
            problem(f"{what}: {text!r} has no paired 95% CI")
            return
        check(f"{what} CI low", m.group(1), float(ci[0]))
        check(f"{what} CI high", m.group(2), float(ci[1]))


def p_value(what, text, expected):
    text = text.strip()
    if expected < 0.001:
        if text != "< 0.001":
            problem(f"{what}: p is {text!r}, the independent value is {expected:.3g} (< 0.001)")
    elif text == "< 0.001" or not agrees(text, expected):
        problem(f"{what}: p is {text!r}, the independent value is {expected:.3g}")


def cells(line):
    return [c.strip() for c in line.strip().strip("|").split("|")]


def variant_name(cell):
    return re.sub(r" \((baseline|racy)\)$", "", cell.strip("` "))


def main():
    cases, gains, one_way, rounds = load_expected()
    out = tempfile.mkdtemp(prefix="bouncelab-numbers.")
    subprocess.run([bouncelab, "report", os.path.join(tests, "data", results_name),
                    "--full", "-o", out], check=True, stdout=subprocess.DEVNULL)
    lines = open(os.path.join(out, "report.md"), encoding="utf-8").read().split("\n")

    seen_one_way, seen_gains, defaults = set(), set(), {}

    def scan(lines, seen):
        family = setting = header = None
        for line in lines:
            if line.startswith("## "):
                family, setting, header = line[3:].split(" —")[0].strip(), None, None
                continue
            m = re.match(r"### Setting: (.*?)( \(defaults\))?$", line)
            if m:
                setting, header = m.group(1), None
                if m.group(2):
                    defaults[family] = setting
                continue
            if line.startswith("### "):
                setting, header = None, None
                continue
            if not line.startswith("|"):
                header = None
                continue
            row = cells(line)
            if header is None:
                header = row
                continue
            if set("".join(row)) <= set("-: "):
                continue

            if header[:4] == ["threads", "variant", "distance", "ns/op (95% CI)"] and setting:
                key = (family, setting, int(row[0]), variant_name(row[1]))
                what = "/".join(map(str, key))
                e = cases.get(key)
                if not e:
                    problem(f"{what}: a row with no independent value")
                    continue
                seen[key] = seen.get(key, 0) + 1
                with_ci(f"{what} ns/op", row[3], e["ns"])
                with_ci(f"{what} Mops/s", row[4], e["mops"])
                if e["x_best"] == "best":
                    if row[5] != "best":
                        problem(f"{what}: × best is {row[5]!r}, but it is the best variant")
                else:
                    ratio(f"{what} × best", row[5], float(e["x_best"]), e["x_ci"], e["method"])
                    p_value(f"{what} p vs best", row[6], float(e["p"]))
                if ("noisy" in row[7]) != e["noisy"]:
                    problem(f"{what}: flags {row[7]!r}, but its CV is {e['cv']:.1f}% "
                            f"({'above' if e['noisy'] else 'not above'} 10%)")
            elif header[:4] == ["threads", "variant", "CV", "n"] and setting:
                # The spread, in the appendix's table beside the main one.
                key = (family, setting, int(row[0]), variant_name(row[1]))
                e = cases.get(key)
                if not e:
                    problem(f"{'/'.join(map(str, key))}: a spread row with no independent value")
                    continue
                check(f"{'/'.join(map(str, key))} CV", row[2].rstrip("%"), e["cv"])
                if row[3] != str(e["n"]):
                    problem(f"{'/'.join(map(str, key))}: n is {row[3]}, expected {e['n']}")
            elif header[0] == "threads" and len(header) == 5 and header[3].endswith("faster by") and setting:
                before, after = header[1].split("`")[1], header[2].split("`")[1]
                g = gains.get((family, setting, int(row[0])))
                what = f"{family}/{setting}/{row[0]} before and after"
                if not g or g[:2] != (before, after):
                    problem(f"{what}: {before} over {after} has no independent value")
                    continue
                seen_gains.add((family, setting, int(row[0])))
                paired_round = rounds.get((family, setting, int(row[0])))
                if paired_round:
                    # paired: the median round's two times, marked
                    for text, value, name in zip(row[1:3], paired_round, (before, after)):
                        if not text.endswith("†"):
                            problem(f"{what} {name}: {text!r} is not marked as a round's time")
                        check(f"{what} {name} (median round)", text.rstrip("†"), value)
                else:
                    with_ci(f"{what} {before}", row[1], cases[(family, setting, int(row[0]), before)]["ns"])
                    with_ci(f"{what} {after}", row[2], cases[(family, setting, int(row[0]), after)]["ns"])
                ratio(what, row[3], g[2], g[4], g[5])
                p_value(what, row[4], g[3])
            elif header[:2] == ["changes", "threads"]:
                # Other settings: medians at the most threads, the fix's gain.
                names = [h.strip("`") for h in header]
                other = [s for (f, s, _, _) in cases if f == family and s != defaults.get(family)]
                changes = dict(w.split("=", 1) for w in row[0].split(", "))
                match = [s for s in set(other)
                         if all(f"{k}={v}" in s.split(", ") for k, v in changes.items())]
                if len(match) != 1:
                    problem(f"{family} other settings: {row[0]!r} names no one setting")
                    continue
                threads = int(row[1])
                for i, name in enumerate(names):
                    key = (family, match[0], threads, name)
                    if key in cases:
                        check(f"{'/'.join(map(str, key))} other settings median", row[i],
                              cases[key]["ns"][0])
                g = gains.get((family, match[0], threads))
                if "the fix faster by" not in header:
                    continue
                if g:
                    ratio(f"{family}/{match[0]}/{threads} other settings gain", row[-3], g[2])
                    p_value(f"{family}/{match[0]}/{threads} other settings gain", row[-2], g[3])
                else:
                    problem(f"{family} other settings: no independent gain at {threads} threads")
            elif header[:2] == ["distance", "variant"] and header[3].startswith("one-way ns"):
                key = (row[0], row[1])
                e = one_way.get(key)
                if not e:
                    problem(f"one-way {key}: a row with no independent value")
                    continue
                seen_one_way.add(key)
                with_ci(f"one-way {key}", row[3], e[:3])
                check(f"one-way {key} min", row[4], e[3])
                if row[5] != str(e[4]):
                    problem(f"one-way {key}: n is {row[5]}, expected {e[4]}")
                if ("noisy" in row[6]) != e[5]:
                    problem(f"one-way {key}: flags {row[6]!r}, noisy expected {e[5]}")
            elif header[:5] == ["family", "lesson", "fix (after over before)", "gain at 1 thread",
                                "gain at the most threads"]:
                fam = row[0].strip("`")
                if fam not in defaults or row[3] == "not measured":
                    continue
                at = sorted(t for (f, s, t) in gains if f == fam and s == defaults[fam])
                first, most = gains[(fam, defaults[fam], at[0])], gains[(fam, defaults[fam], at[-1])]
                ratio(f"{fam} summary gain at 1 thread", row[3], first[2], first[4], first[5])
                ratio(f"{fam} summary gain at the most threads", row[4], most[2], most[4], most[5])
                if f"at {at[-1]} threads" not in row[4]:
                    problem(f"{fam} summary: {row[4]!r} does not say 'at {at[-1]} threads'")

    # report.md (--full: every setting in full) and its appendix, which has
    # every setting in full too and the "Before and after" tables: each
    # case's row once in each.
    seen = {}
    scan(lines, seen)
    seen_details = {}
    scan(open(os.path.join(out, "details.md"), encoding="utf-8").read().split("\n"), seen_details)
    for key in cases:
        if key[0] != "pingpong" and seen_details.get(key) != 1:
            problem(f"{'/'.join(map(str, key))}: {seen_details.get(key, 0)} rows in details.md, expected 1")

    for key in cases:
        if key[0] != "pingpong" and seen.get(key) != 1:
            problem(f"{'/'.join(map(str, key))}: {seen.get(key, 0)} rows in the report, expected 1")
    for key in one_way:
        if key not in seen_one_way:
            problem(f"one-way {key}: no row in the physical baseline table")
    for key in gains:
        if key not in seen_gains:
            problem(f"{'/'.join(map(str, key))}: no 'Before and after' row")

    checked = sum(seen.values())
    print(f"{checked} case rows, {len(seen_gains)} gains, {len(seen_one_way)} one-way rows checked")
    if problems:
        print(f"{len(problems)} numbers disagree with tests/data/{expected_name}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
