#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""The model check predicts each case in each of its rounds, at that round's
transfer, and takes the median of those predictions (model_doc.md,
"Checking it"): the host can move the vCPUs between rounds, and a round
measured in the near placement must not be predicted at the far one's
transfer, nor both at a transfer neither round saw.

A run of two rounds, cut from a corpus run: counter/shared_atomic at 1 and
2 threads and the ping-pong, its transfer 30 ns in round 0 and 300 ns in
round 1, the 1-thread cost the same 150 ns in both. The same rounds as
runs of their own give the model's prediction at each transfer, p30 and
p300; the two-round run must give their median, (p30 + p300) / 2. A run of
one round at the median transfer, 165 ns, gives what predicting every
round there would: the test first checks that it lies well apart from
that median (the model bends between the two transfers), or it could not
tell the two apart.

Usage: test_prediction_rounds.py BOUNCELAB SOURCE_DIR/tests
"""
import copy
import json
import os
import re
import subprocess
import sys
import tempfile
import group_kill  # noqa: F401 (a timed-out test takes its children with it)

bouncelab, tests = sys.argv[1], sys.argv[2]
CASE = "counter/shared_atomic"
PRIVATE_NS = 150.0


def cut(doc, rounds):
    """The run's ping-pong and CASE, rounds {index in the run: one-way ns}."""
    out = copy.deepcopy(doc)
    rows = []
    for r in doc["benchmarks"]:
        b = r.get("bouncelab", {})
        name = "%s/%s" % (b.get("family"), b.get("variant"))
        if b.get("family") != "pingpong" and name != CASE:
            continue
        if r.get("run_type") != "iteration" or r["repetition_index"] not in (0, 1):
            continue
        src = r["repetition_index"]
        for new, (old, one_way) in enumerate(sorted(rounds.items())):
            if old != src:
                continue
            r = copy.deepcopy(r)
            r["repetition_index"] = new
            r["repetitions"] = len(rounds)
            if b["family"] == "pingpong":
                r["one_way_ns"] = r["real_time"] = r["cpu_time"] = one_way
                r["ns_per_op"] = 2 * one_way
            elif r["threads"] == 1:
                r["ns_per_op"] = r["real_time"] = r["cpu_time"] = PRIVATE_NS
            else:
                r["ns_per_op"] = r["real_time"] = r["cpu_time"] = 400.0
            r["wall_ns"] = r["ns_per_op"] * r["ops"] / r["threads"]
            rows.append(r)
    out["benchmarks"] = rows
    return out


def predicted(doc, work, name):
    path = os.path.join(work, name + ".json")
    with open(path, "w") as f:
        json.dump(doc, f)
    outdir = os.path.join(work, name)
    p = subprocess.run([bouncelab, "report", "-o", outdir, path],
                       capture_output=True, text=True)
    if p.returncode:
        sys.exit("report of %s: exit %d: %s" % (name, p.returncode, p.stderr))
    with open(os.path.join(outdir, "prediction.md")) as f:
        for line in f:
            # the full table: case, setting, 1 thread, 2 threads, predicted, ...
            cells = [c.strip() for c in line.split("|")]
            if len(cells) == 9 and cells[1] == "`%s`" % CASE:
                return float(cells[5])
    sys.exit("%s: no row for %s in prediction.md" % (name, CASE))


def main():
    with open(os.path.join(tests, "data/runs/epyc-zen4-2026-12-07/quick.json")) as f:
        doc = json.load(f)
    with tempfile.TemporaryDirectory() as work:
        p30 = predicted(cut(doc, {0: 30.0}), work, "near")
        p300 = predicted(cut(doc, {1: 300.0}), work, "far")
        p_mid = predicted(cut(doc, {0: 165.0}), work, "middle")
        both = predicted(cut(doc, {0: 30.0, 1: 300.0}), work, "both")
    median = (p30 + p300) / 2
    print("predicted: %.4g at 30 ns, %.4g at 300 ns, median %.4g; %.4g at 165 ns; "
          "the two-round run %.4g" % (p30, p300, median, p_mid, both))
    if abs(p_mid / median - 1) < 0.05:
        sys.exit("the model at the median transfer (%.4g) lies within 5%% of the rounds' "
                 "median (%.4g): this test can no longer tell them apart" % (p_mid, median))
    # prediction.md prints three significant digits
    if abs(both / median - 1) > 0.01:
        sys.exit("the two-round run predicted %.4g, expected the median of its rounds' "
                 "predictions, %.4g (at the median transfer it would be %.4g)"
                 % (both, median, p_mid))


if __name__ == "__main__":
    main()
