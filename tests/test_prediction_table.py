#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""The model check's summary against its own table, recomputed in Python.

prediction.md lists every 2-thread case with its measured and predicted
ns/op (three significant digits) and their ratio; its check line gives the
median |predicted / measured - 1|, how many cases are within 2x, how many
were fitted and the median of the rest. It lists the five worst
misses. This test reads the table as a reader does and recomputes each of
those with Python's statistics module from the printed columns:

  - every ratio is predicted / measured, and a **miss** line follows a
    case exactly when that ratio is below 0.5 or above 2;
  - the count of cases, the count within 2x, the fitted count, the median
    error over all and over the held-out cases;
  - the worst misses: the five largest |log(predicted / measured)|, in
    that order;
  - the seeds' table and prose: each gain from the figures it prints, the
    "within 2x" verdict (also on a corpus run with one variant's 1-thread
    cost scaled, to put a seed outside 2x on each side), and where a line
    is bound how often it served a visit (ns per page over threads and
    visits) and what a handoff serves; a seed's case measured once, in the
    file's first row, is found and predicted as any other.

The printed columns are rounded, so a value is compared within what the
rounding can move it, and a case that rounding could put on either side of
a 2x bound is left out of the count's check (none is, on these runs).

usage: test_prediction_table.py BOUNCELAB TESTS_DIR
"""
import json
import math
import os
import re
import statistics
import subprocess
import sys
import tempfile
import group_kill  # noqa: F401 (a timed-out test takes its children with it)

ROW = re.compile(r"^\| `([^`]+)`( \(fitted\))? \| (.*?) \| ([^|]+) \| ([^|]+) \| ([^|]+) \| ([^|]+) \| (.*) \|$")
CHECK = re.compile(r"median \|predicted / measured − 1\| = \*\*(\d+)%\*\* over (\d+) "
                   r"two-thread cases, (\d+) of them within 2x")
FITTED = re.compile(r"(?:those|the) (\d+) cases? (?:are|is) marked \*fitted\*; the (\d+) held out alone give (\d+)%")
WORST = re.compile(r"^\| `([^`]+)` \| (.*?) \| ([^|]+) \| ([^|]+) \| ([^|]+) \| (.*) \|$")

# three significant digits move a value by at most 0.05% of 1 in the third
# digit: 0.5 / 100 relative; a ratio of two such values by about twice that
REL = 0.011
RUNS = ["epyc-zen3-2026-12-01", "epyc-zen5-2026-12-02"]


def fail(msg):
    print(f"FAIL: {msg}")
    sys.exit(1)


def table(text):
    """(case, fitted, measured, predicted, ratio, followed by a miss line)."""
    lines = text.splitlines()
    rows = []
    for i, line in enumerate(lines):
        m = ROW.match(line)
        if not m or m.group(1) == "case":
            continue
        miss = i + 1 < len(lines) and lines[i + 1].startswith("| | **miss** (")
        rows.append((m.group(1), bool(m.group(2)), float(m.group(5)), float(m.group(6)),
                     float(m.group(7)), miss))
    return rows


def near(x, bound):
    return abs(x / bound - 1) <= REL


def check_run(bouncelab, folder, out):
    files = sorted(os.path.join(folder, f) for f in os.listdir(folder) if f.endswith(".json"))
    subprocess.run([bouncelab, "report", *files, "-o", out], check=True,
                   stdout=subprocess.DEVNULL)
    with open(os.path.join(out, "prediction.md"), encoding="utf-8") as f:
        text = f.read()
    rows = table(text)
    if len(rows) < 20:
        fail(f"{folder}: only {len(rows)} rows read from prediction.md")
    name = os.path.basename(folder)

    ambiguous = 0
    for case, _, measured, predicted, ratio, miss in rows:
        r = predicted / measured
        if abs(ratio - r) > 0.005 + REL * r:
            fail(f"{name}: {case}: pred / meas {ratio}, {predicted} / {measured} = {r:.4f}")
        if near(r, 0.5) or near(r, 2):
            ambiguous += 1
            continue
        if miss != (r < 0.5 or r > 2):
            fail(f"{name}: {case}: ratio {r:.3f}, miss line {'present' if miss else 'absent'}")

    m = CHECK.search(text)
    if not m:
        fail(f"{name}: no check line in prediction.md")
    median_pct, nr, within = int(m.group(1)), int(m.group(2)), int(m.group(3))
    if nr != len(rows):
        fail(f"{name}: the check line counts {nr} cases, the table has {len(rows)}")
    ratios = [p / me for _, _, me, p, _, _ in rows]
    inside = sum(1 for r in ratios if 0.5 <= r <= 2)
    if abs(within - inside) > ambiguous:
        fail(f"{name}: {within} within 2x, the table's ratios give {inside}")
    # exactly: the miss lines were checked against the ratios above
    unmissed = sum(1 for row in rows if not row[5])
    if within != unmissed:
        fail(f"{name}: {within} within 2x, but {unmissed} rows have no miss line")
    # the cold share quoted is one a file measured (else a cold miss is quoted)
    quoted = re.search(r"a line another CPU wrote last costs ([\d.]+) of a transfer, "
                       r"the cold share\)", text)
    measured = re.findall(r"cold share ([\d.]+) of a transfer \(measured on", text)
    if not measured:
        fail(f"{name}: no file's cold share is listed")
    elif not quoted or quoted.group(1) not in measured:
        fail(f"{name}: the check line quotes no cold share of {measured}")
    errs = [abs(r - 1) for r in ratios]
    median = 100 * statistics.median(errs)
    if abs(median - median_pct) > 1.5:
        fail(f"{name}: median error {median_pct}%, the table's give {median:.2f}%")

    m = FITTED.search(text)
    fitted = [r for r, row in zip(ratios, rows) if row[1]]
    held = [abs(r - 1) for r, row in zip(ratios, rows) if not row[1]]
    if not m or not fitted:
        fail(f"{name}: no fitted cases in prediction.md")
    if (int(m.group(1)), int(m.group(2))) != (len(fitted), len(held)):
        fail(f"{name}: {m.group(1)} fitted and {m.group(2)} held out, "
             f"the table marks {len(fitted)} and {len(held)}")
    # one fitted case is "the 1 case is", several "those N cases are"
    one = len(fitted) == 1
    if m.group(0).startswith("the ") != one or (" case is " in m.group(0)) != one:
        fail(f"{name}: '{m.group(0)[:40]}' for {len(fitted)} fitted cases")
    # On the first run every share fitted was found inside its range (the
    # tenure shares 0.033, 0.39 and 0.12, the cold shares 0.22 and 0.66 of
    # a transfer): a fitted case is then predicted at what it measured, by
    # the definition of the fit (model_doc.md).
    if name == RUNS[0]:
        for (case, fit, _, _, ratio, _) in rows:
            if fit and ratio != 1.0:
                fail(f"{name}: fitted {case} is predicted at {ratio} of what it measured")
        # the tenure's share is measured on false_sharing/same_line, locked
        # (its default update) and update=plain, and the cold share on
        # has_pinned/no_flag at already_set=0 (the check line says so)
        marked = {(m.group(1), m.group(3)) for m in map(ROW.match, text.splitlines())
                  if m and m.group(2)}
        for want in (("false_sharing/same_line", "defaults"),
                     ("false_sharing/same_line", "update=plain"),
                     ("has_pinned/no_flag", "already_set=0")):
            if want not in marked:
                fail(f"{name}: {want[0]} at {want[1]} is not marked fitted")
    held_median = 100 * statistics.median(held)
    if abs(held_median - int(m.group(3))) > 1.5:
        fail(f"{name}: held-out median {m.group(3)}%, the table's give {held_median:.2f}%")

    worst = []
    for line in text.split("| worst misses |", 1)[1].splitlines()[2:]:
        w = WORST.match(line)
        if not w:
            break
        worst.append(abs(math.log(float(w.group(4)) / float(w.group(3)))))
    misses = sorted((abs(math.log(r)) for r in ratios), reverse=True)
    if len(worst) != 5:
        fail(f"{name}: {len(worst)} worst misses, expected 5")
    for k, w in enumerate(worst):
        if abs(w - misses[k]) > 2 * REL:
            fail(f"{name}: worst miss {k + 1} has |log ratio| {w:.4f}, the table's "
                 f"{k + 1}th largest is {misses[k]:.4f}")
    check_seeds(name, text)
    print(f"ok: {name}: {nr} cases, {within} within 2x, median {median_pct}%, "
          f"held out {m.group(3)}%, worst {worst[0]:.3f}")


SEED_ROW = re.compile(r"^\| (.*?), (\d+) threads: ([\d.]+) → ([\d.]+) (us|ops/s) \| `[^`]+` \| "
                      r"([\d.]+)x \| ([\d.]+)x \((\d+) → (\d+) ns per page per thread; "
                      r"the seed's (\d+) → (\d+)\) \| (within 2x|\*\*miss\*\*: see below)")
SIDE = re.compile(r"(before,|after the fix,) (\d+) ns per page per thread against the seed's (\d+), "
                  r"bound by the .*? \((\d+)% busy; visits per page: ([\d.e+-]+)\): the seed's "
                  r"machine served a visit of it every (\d+) ns or less, machine-wide, the model "
                  r"every (\d+) ns\. A handoff keeps it (\d+) ns \(the transfer(?:,| and) the new "
                  r"owner's tenure[^)]*\) and serves ([\d.]+) visits")


def close(printed, value, digits_abs):
    """printed is value rounded: within half its last digit, and a little more."""
    return abs(printed - value) <= digits_abs + 1e-3 * abs(value)


def check_seeds(name, text):
    """The seeds' table and its prose, from the numbers they print:
    a gain is before / after (a time) or after / before (a rate), the
    prediction's is its before / after, within 2x means from half to
    twice the seed's gain; where a line is bound, the seed's machine
    served a visit every seed ns / (threads x visits), the model every
    model ns / (threads x visits), and a handoff of H ns serves H / that."""
    rows = [SEED_ROW.match(line) for line in text.splitlines()]
    rows = [m for m in rows if m]
    if len(rows) < 2:
        fail(f"{name}: {len(rows)} seed rows read")
    for m in rows:
        before, after = float(m.group(3)), float(m.group(4))
        gain = before / after if m.group(5) == "us" else after / before
        if not close(float(m.group(6)), gain, 0.5 * 10 ** (math.floor(math.log10(gain)) - 2)):
            fail(f"{name}: seed's gain {m.group(6)}x, {before} and {after} give {gain:.4f}")
        a, b = int(m.group(8)), int(m.group(9))
        ratio = float(m.group(7))
        if abs(ratio / (a / b) - 1) > 0.5 / b + 0.006:
            fail(f"{name}: predicted {ratio}x, {a} → {b} gives {a / b:.4f}")
        inside = gain / 2 <= ratio <= 2 * gain
        if inside != (m.group(12) == "within 2x"):
            fail(f"{name}: predicted {ratio}x against the seed's {gain:.3f}x: {m.group(12)}")
        seed_gain = int(m.group(10)) / int(m.group(11))
        if abs(seed_gain / gain - 1) > 0.5 / int(m.group(11)) + 0.005:
            fail(f"{name}: the seed's {m.group(10)} → {m.group(11)} ns per page, gain {gain:.3f}")
    # gup_test -m 512: 512 MiB of 4 KiB pages, the mean get time in us over them
    gup = [m for m in rows if m.group(1).startswith("gup_test -a -m 512")]
    if gup and int(gup[0].group(10)) != round(float(gup[0].group(3)) * 1e3 / (512 * 256)):
        fail(f"{name}: gup_test's {gup[0].group(3)} us over 131072 pages is not "
             f"{gup[0].group(10)} ns per page")
    sides = 0
    missed = {m.group(1) + ", " + m.group(2) + " threads" for m in rows
              if m.group(12) != "within 2x"}
    faster = slower = False
    for line in text.splitlines():
        if not line.startswith("- "):
            continue
        threads = re.search(r", (\d+) threads: ", line)
        miss = any(line.startswith("- " + f + ":") for f in missed)
        for s in SIDE.finditer(line):
            # a missed seed's bound side: is the model's line faster or slower?
            faster |= miss and int(s.group(7)) < int(s.group(6))
            slower |= miss and int(s.group(7)) > int(s.group(6))
            n = int(threads.group(1))
            model, seed, visits = int(s.group(2)), int(s.group(3)), float(s.group(5))
            every_seed, every_model = int(s.group(6)), int(s.group(7))
            handoff, serves = int(s.group(8)), float(s.group(9))
            if not 90 <= int(s.group(4)) <= 100:
                fail(f"{name}: a bound line {s.group(4)}% busy")
            if not close(every_seed, seed / (n * visits), 0.5 + 0.5 / (n * visits)):
                fail(f"{name}: the seed's visit every {every_seed} ns, "
                     f"{seed} / ({n} x {visits}) = {seed / (n * visits):.2f}")
            if not close(every_model, model / (n * visits), 0.5 + 0.5 / (n * visits)):
                fail(f"{name}: the model's visit every {every_model} ns, "
                     f"{model} / ({n} x {visits}) = {model / (n * visits):.2f}")
            if abs(serves - handoff / (model / (n * visits))) > 0.05 + 0.6 / (model / (n * visits)):
                fail(f"{name}: a handoff of {handoff} ns serves {serves} visits, "
                     f"not {handoff / (model / (n * visits)):.3f}")
            sides += 1
    if not sides:
        fail(f"{name}: no bound side read in the seeds' prose")
    # what the model lacks is said for the way its line missed, and only then
    for said, want, way in (("Where its line is slower than the seed's" in text, slower, "slower"),
                            ("Where its line is faster than the seed's" in text, faster, "faster")):
        if said != want:
            fail(f"{name}: the note on a line {way} than the seed's is "
                 f"{'there' if said else 'missing'}, a bound side of a missed seed says "
                 f"{'so' if want else 'otherwise'}")


def scaled(src, variant, k, path):
    """src with gup/VARIANT's 1-thread rows k times as slow."""
    with open(src, encoding="utf-8") as f:
        doc = json.load(f)
    for r in doc["benchmarks"]:
        b = r.get("bouncelab") or {}
        if b.get("family") == "gup" and b.get("variant") == variant and r.get("threads") == 1:
            for key in ("ns_per_op", "wall_ns", "real_time", "cpu_time"):
                if key in r:
                    r[key] *= k
    with open(path, "w", encoding="utf-8") as f:
        json.dump(doc, f)


def seed_case_first(src, setting, path):
    """src with gup/store_always's 1-thread case in the gup_test seed's
    setting cut to its first repetition, moved to the top of the file."""
    with open(src, encoding="utf-8") as f:
        doc = json.load(f)
    rows = doc["benchmarks"]
    case = [r for r in rows if (r.get("bouncelab") or {}).get("family") == "gup"
            and r["bouncelab"]["variant"] == "store_always" and r.get("threads") == 1
            and all(r["bouncelab"]["params"].get(k) == v for k, v in setting.items())]
    if len(case) < 2:
        fail(f"{src}: {len(case)} repetitions of the seed's store_always case")
    doc["benchmarks"] = [case[0]] + [r for r in rows if not any(r is c for c in case)]
    with open(path, "w", encoding="utf-8") as f:
        json.dump(doc, f)


def main():
    bouncelab, tests = sys.argv[1], sys.argv[2]
    for run in RUNS:
        with tempfile.TemporaryDirectory() as out:
            check_run(bouncelab, os.path.join(tests, "data", "runs", run), out)
    # The seeds' verdict on both sides of 2x: the fix's 1-thread cost
    # 0.3 times (the gup seed's predicted gain above twice its 5.36x) and
    # the unfixed one's 0.2 times (pin_fast's below half its 46.6x).
    src = os.path.join(tests, "data", "runs", RUNS[0], "default.json")
    for variant, k, misses in (("read_then_set", 0.3, 1), ("store_always", 0.2, 1)):
        with tempfile.TemporaryDirectory() as out:
            path = os.path.join(out, "scaled.json")
            scaled(src, variant, k, path)
            subprocess.run([bouncelab, "report", path, "-o", out], check=True,
                           stdout=subprocess.DEVNULL)
            with open(os.path.join(out, "prediction.md"), encoding="utf-8") as f:
                text = f.read()
            check_seeds(f"{variant} x {k}", text)
            if text.count("| **miss**: see below") < misses:
                fail(f"{variant} x {k}: no seed is predicted outside 2x")
    # A seed's case measured once, in the file's first row: still found
    # (gup_test's setting: 1 page a call, 4k pages, shared, 512 MiB), as
    # a search of the rows from the second on would not.
    with tempfile.TemporaryDirectory() as out:
        path = os.path.join(out, "first.json")
        seed_case_first(src, {"pages_per_call": 1, "page_size": "4k", "mode": "shared",
                              "buffer_mib": 512}, path)
        subprocess.run([bouncelab, "report", path, "-o", out], check=True,
                       stdout=subprocess.DEVNULL)
        with open(os.path.join(out, "prediction.md"), encoding="utf-8") as f:
            text = f.read()
        if "not predicted" in text:
            fail("the seed's case in the file's first row, measured once: not predicted")
        check_seeds("the seed's case first", text)


if __name__ == "__main__":
    main()
