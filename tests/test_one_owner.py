#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""One number, one owner: the one-way transfer of a run, as the report's
prediction and its fleet table print it, against the median computed
here from the raw results files.

Two corpus runs from guests of one host name and brand string ("vm",
"AMD EPYC") but different CPUs (Zen 3 and Zen 5, context.cpu): the fleet
table must show them as two machines, not pool their rows, and each
machine's one-way floor at l3 must be the median of its pingpong
store_load one_way_ns, which is also the one-way the prediction quotes
for that file, and the one-way `bouncelab model --results FILE` builds
its machine on. A variant's 1-thread cost is one number too: the median
of its 1-thread rows at the catalogue's defaults, computed here, is the
prediction table's "1 thread" and the private cost `bouncelab model
--results` adds contention to.

usage: test_one_owner.py BOUNCELAB TESTS_DIR
"""
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import group_kill  # noqa: F401 (a timed-out test takes its children with it)

bouncelab, tests = sys.argv[1], sys.argv[2]
runs = os.path.join(tests, "data", "runs")
files = [os.path.join(runs, "epyc-zen3-2026-12-02-late", "default.json"),
         os.path.join(runs, "epyc-zen5-2026-12-02", "default.json")]
problems = []


def one_way_median(path):
    """The median one-way of the first pingpong variant at 2 threads."""
    with open(path, encoding="utf-8") as f:
        rows = json.load(f)["benchmarks"]
    values = [r["one_way_ns"] for r in rows
              if r.get("bouncelab", {}).get("family") == "pingpong"
              and r["bouncelab"].get("variant") == "store_load" and r.get("threads") == 2]
    return statistics.median(values)


with tempfile.TemporaryDirectory() as out:
    subprocess.run([bouncelab, "report", *files, "-o", out], check=True,
                   stdout=subprocess.DEVNULL)
    with open(os.path.join(out, "report.md"), encoding="utf-8") as f:
        report = f.read()
    with open(os.path.join(out, "prediction.md"), encoding="utf-8") as f:
        prediction = f.read()

table = report.split("one-way floor by distance, ns |", 1)
rows = [l for l in table[1].splitlines()[2:] if l.startswith("| `")] if len(table) > 1 else []
if len(rows) < 2:
    problems.append(f"the fleet table has {len(rows)} machines, expected 2 (Zen 3 and Zen 5)")
for path, row in zip(files, rows):
    want = one_way_median(path)
    m = re.search(r"l3 ([0-9.]+) \|$", row)
    if not m or abs(float(m.group(1)) - want) > 0.05 + 0.001 * want:
        problems.append(f"{os.path.basename(os.path.dirname(path))}: fleet floor "
                        f"{m.group(1) if m else None}, the pingpong's median is {want:.2f}")
    # Both files are default.json: the report names each by its folder too.
    name = os.path.join(os.path.basename(os.path.dirname(path)), os.path.basename(path))
    m = re.search(r"; " + re.escape(name) + r": one-way ([0-9.]+) ns", prediction)
    if not m or abs(float(m.group(1)) - want) > 0.05 + 0.001 * want:
        problems.append(f"{os.path.basename(os.path.dirname(path))}: prediction's one-way "
                        f"{m.group(1) if m else None}, the pingpong's median is {want:.2f}")


def one_thread_median(path, family, variant, defaults):
    """The median ns/op of a case's 1-thread rows at the given parameters."""
    with open(path, encoding="utf-8") as f:
        rows = json.load(f)["benchmarks"]
    values = [r["ns_per_op"] for r in rows
              if r.get("bouncelab", {}).get("family") == family and r.get("threads") == 1
              and r.get("run_type") != "aggregate"
              and r["bouncelab"].get("variant") == variant
              and r["bouncelab"].get("params") == defaults]
    return statistics.median(values)


def close(got, want):
    return got is not None and abs(got - want) <= 0.05 + 0.001 * want


# has_pinned at the catalogue's defaults (`bouncelab list has_pinned`)
HAS_PINNED_DEFAULTS = {"pin_work": 1, "flag_line": "shared", "already_set": 100}
for path in files:
    name = os.path.basename(os.path.dirname(path))
    p = subprocess.run([bouncelab, "model", "--results", path, "--family", "has_pinned",
                        "--threads", "1,2", "--json"], capture_output=True, text=True)
    if p.returncode:
        problems.append(f"{name}: model --results exited {p.returncode}: {p.stderr.strip()}")
        continue
    model = json.loads(p.stdout)
    want = one_way_median(path)
    got = model["machine"]["one_way_ns"].get("l3")
    if not close(got, want):
        problems.append(f"{name}: model --results builds its machine on one-way {got} at l3, "
                        f"the pingpong's median is {want:.2f}")
    # AMD's optimization guide for family 19h: a 64-entry store queue; the
    # Zen 5 guest's family 1Ah is not in the table and takes the latest
    sb = model["machine"].get("store_buffer")
    if sb != 64 or "AMD family" not in model["machine"].get("store_buffer_source", ""):
        problems.append(f"{name}: model --results takes a store buffer of {sb} "
                        f"({model['machine'].get('store_buffer_source')}), the AMD guide's is 64")
    variants = {v["variant"]: v["private_ns"] for v in model["families"][0]["variants"]}
    for variant in ("store_always", "read_then_set"):
        want = one_thread_median(path, "has_pinned", variant, HAS_PINNED_DEFAULTS)
        got = variants.get(variant)
        if not close(got, want):
            problems.append(f"{name}: model --results takes {variant}'s 1-thread cost as {got}, "
                            f"its 1-thread median is {want:.3f}")
        # prediction.md's tables, one row per file in the order given, three digits
        ones = re.findall(r"^\| `has_pinned/" + variant + r"` \| defaults \| ([0-9.]+) \|",
                          prediction, re.M)
        one = float(ones[files.index(path)]) if len(ones) == len(files) else None
        if one is None or abs(one / want - 1) > 0.006:
            problems.append(f"{name}: prediction.md's 1-thread cost of has_pinned/{variant} is "
                            f"{one}, its 1-thread median is {want:.3f}")


def predicted(family, variant):
    """prediction.md's predicted ns/op of a case at its defaults, per file."""
    return [float(m) for m in re.findall(
        r"^\| `" + family + "/" + variant + r"` \| defaults \| [^|]+ \| [^|]+ \| ([0-9.e+]+) \|",
        prediction, re.M)]


for family, before, after in (("gup", "store_always", "read_then_set"),
                              ("has_pinned", "store_always", "read_then_set")):
    block = report.split(f"### `{family}`: `{after}` over `{before}` on each machine", 1)
    fleet = [] if len(block) < 2 else [
        float(l.split("|")[5].strip().rstrip("x")) for l in block[1].split("\n\n", 2)[1].splitlines()
        if l.startswith("| `")]
    ratios = [b / a for b, a in zip(predicted(family, before), predicted(family, after))]
    if len(fleet) != len(files) or len(ratios) != len(files):
        problems.append(f"{family}: fleet gains {fleet}, prediction ratios {ratios}")
        continue
    for path, got, want in zip(files, fleet, ratios):
        if abs(got / want - 1) > 0.03:
            problems.append(f"{family} on {os.path.basename(os.path.dirname(path))}: the fleet "
                            f"table's model gives {got}x, prediction.md's cases {want:.3g}x")
for p in problems:
    print("FAIL:", p)
print(f"{len(files)} files checked")
sys.exit(1 if problems else 0)
