#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""The contention model against published many-CPU curves.

  test_model_published.py BOUNCELAB TESTS_DIR [--table]

Each file of tests/data/published/ is one published curve (its citation,
machine, the numbers as published) with the machine profile, family,
variant and placement that stand for it. `bouncelab model --json` predicts
every published thread count from the profile and the curve's 1-thread
cost (--private-ns: the model's input, so N = 1 is not scored). A curve
passes when the prediction is within 2x of the measured value at every
published N > 1, the slope over the upper half of its thread range
(least squares over N >= N_max / 2) is within 50% of the measured slope,
and where the measured throughput falls over that half (N / ns at its
last point below its first) the predicted one falls too.

A curve is "held_out" (no rule was derived from it) or "informs": then
its "informs" says what was fitted on it ("what"), at which thread counts
("fitted_threads") and whether on its upper-half slope ("fitted_slope");
the table marks those points. Every other point of it is a prediction.

The report's prediction appendix (prediction.md, "Published many-CPU
curves", of `bouncelab report` on tests/data/results-seeds.json) must give
every curve with the same predictions as `bouncelab model`, its role,
and its fitted points marked.

A curve that misses today carries "known_miss": the worst predicted /
measured ratio and the slope ratio as they stand. The test then checks
that mark: if either moves by more than 10%, or the curve passes, it
fails and says so, so that an improvement or a regression shows rather
than passing silently. --table prints the validation table (markdown)
that model/model_doc.md carries.
"""
import glob
import json
import os
import re
import subprocess
import sys
import tempfile
import group_kill  # noqa: F401 (a timed-out test takes its children with it)

bouncelab, tests = sys.argv[1], sys.argv[2]
table = "--table" in sys.argv[3:]
problems = []
CHUNK = 32		# bouncelab model takes at most 32 thread counts


def problem(msg):
    problems.append(msg)
    print("FAIL:", msg)


def predict(curve, threads):
    ns = {}
    for i in range(0, len(threads), CHUNK):
        part = threads[i:i + CHUNK]
        done = subprocess.run(
            [bouncelab, "model", "--profile", curve["profile"],
             "--family", curve["family"], "--variant", curve["variant"],
             "--placement", curve["placement"],
             "--private-ns", repr(curve["private_ns"]["value"]),
             "--threads", ",".join(str(n) for n in part), "--json"],
            capture_output=True, text=True)
        if done.returncode:
            raise RuntimeError(done.stderr.strip())
        doc = json.loads(done.stdout)
        for p in doc["families"][0]["variants"][0]["predictions"]:
            ns[p["threads"]] = p["ns_per_op"]
    return ns


def slope(xs, ys):
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    sxx = sum((x - mx) ** 2 for x in xs)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx


def throughput_word(falls):
    return "falls" if falls else "does not fall"


def check(path):
    with open(path) as f:
        curve = json.load(f)
    name = os.path.basename(path)
    for key in ("citation", "machine", "profile", "family", "variant",
                "placement", "private_ns", "role", "points"):
        if key not in curve:
            problem(f"{name}: no '{key}'")
            return None
    if curve["role"] not in ("held_out", "informs"):
        problem(f"{name}: role '{curve['role']}': expected held_out or informs")
    if curve["role"] == "informs" and not curve.get("informs", {}).get("what"):
        problem(f"{name}: role informs: expected an \"informs\" object saying what was fitted on it")
    threads = [p[0] for p in curve["points"]]
    measured = {p[0]: p[1] for p in curve["points"]}
    try:
        pred = predict(curve, threads)
    except RuntimeError as e:
        problem(f"{name}: bouncelab model failed: {e}")
        return None
    scored = [n for n in threads if n > 1]
    ratio = {n: pred[n] / measured[n] for n in scored}
    worst = max(scored, key=lambda n: max(ratio[n], 1 / ratio[n]))
    upper = [n for n in threads if n >= max(threads) / 2]
    s_meas = slope(upper, [measured[n] for n in upper])
    s_pred = slope(upper, [pred[n] for n in upper])
    s_ratio = s_pred / s_meas
    lo, hi = upper[0], upper[-1]
    falls_meas = hi / measured[hi] < lo / measured[lo]
    falls_pred = hi / pred[hi] < lo / pred[lo]
    passes = (all(0.5 <= ratio[n] <= 2 for n in scored) and 0.5 <= s_ratio <= 1.5 and
              (falls_pred or not falls_meas))
    mark = curve.get("known_miss")
    print(f"{name} ({curve['role']}): worst {ratio[worst]:.2f}x at {worst}, "
          f"upper-half slope {s_pred:.2f} vs {s_meas:.2f} ns/thread ({s_ratio:.2f}x), "
          f"throughput from {lo} to {hi} threads: measured {throughput_word(falls_meas)}, "
          f"predicted {throughput_word(falls_pred)}")
    if passes and mark:
        problem(f"{name}: passes now (worst {ratio[worst]:.2f}x, slope {s_ratio:.2f}x): "
                "remove its known_miss mark")
    elif not passes and not mark:
        problem(f"{name}: leaves 2x or the slope's 50%: worst {ratio[worst]:.2f}x at {worst} "
                f"threads, slope {s_ratio:.2f}x, and carries no known_miss mark")
    elif mark:
        for key, now in (("worst_ratio", ratio[worst]), ("slope_ratio", s_ratio)):
            if abs(now / mark[key] - 1) > 0.10:
                problem(f"{name}: known_miss {key} {mark[key]} moved to {now:.3f} "
                        "(an improvement or a regression): update the mark")
    return curve, threads, measured, pred, ratio, s_meas, s_pred, falls_meas, falls_pred


results = [r for r in (check(p) for p in
                       sorted(glob.glob(os.path.join(tests, "data", "published", "*.json"))))
           if r]
if not results:
    problem("no published curve checked")


def check_report(results):
    """prediction.md gives each curve as bouncelab model predicts it."""
    with tempfile.TemporaryDirectory() as tmp:
        done = subprocess.run([bouncelab, "report", os.path.join(tests, "data", "results-seeds.json"),
                               "-o", tmp], capture_output=True, text=True)
        if done.returncode:
            problem(f"bouncelab report failed: {done.stderr.strip()}")
            return
        with open(os.path.join(tmp, "prediction.md")) as f:
            md = f.read()
    if "## Published many-CPU curves" not in md:
        problem("prediction.md has no 'Published many-CPU curves' section")
        return
    md = md.split("## Published many-CPU curves", 1)[1].split("\n## ", 1)[0]
    for curve, threads, measured, pred, *_ in results:
        head = f"### {curve['curve']}\n"
        if head not in md:
            problem(f"prediction.md: no section for '{curve['curve']}'")
            continue
        part = md.split(head, 1)[1].split("\n### ", 1)[0]
        want = "**Held out**" if curve["role"] == "held_out" else "**Informed a rule**"
        if want not in part:
            problem(f"prediction.md, {curve['curve']}: not marked {want}")
        fitted = set(curve.get("informs", {}).get("fitted_threads", []))
        rows = {int(m.group(1)): (float(m.group(2)), m.group(3))
                for m in re.finditer(r"^\| (\d+) \| [\d.]+ \| ([\d.]+) \| ([^|]*)\|$", part, re.M)}
        for n in threads:
            if n not in rows:
                problem(f"prediction.md, {curve['curve']}: no row for {n} threads")
            elif abs(rows[n][0] - pred[n]) > 0.051 + 1e-6 * pred[n]:
                problem(f"prediction.md, {curve['curve']}, {n} threads: {rows[n][0]} predicted, "
                        f"bouncelab model says {pred[n]:.2f}")
            elif (n in fitted) != ("(fitted)" in rows[n][1]):
                problem(f"prediction.md, {curve['curve']}, {n} threads: the fitted mark is wrong")


def check_bad_curves():
    """A curve file the report cannot use is named with what was wrong,
    and the good curves beside it are still predicted."""
    src = os.path.dirname(os.path.abspath(tests))
    good = os.path.join(tests, "data", "published", "perfbook-count-atomic-epyc-milan.json")
    with open(good) as f:
        curve = json.load(f)
    def without(key):
        return json.dumps({k: v for k, v in curve.items() if k != key})

    # Each field the reader needs, left out or out of range on its own, so
    # that one missing field is enough to refuse the file; and the points'
    # bounds at their edges: 0 threads, 0 ns, a repeated thread count,
    # none, and one more than the 128 a curve may have (128 are read).
    fields = "not read: expected profile, family, variant, placement, private_ns and 1 to 128 points"
    bad = {
        "a-not-json.json": "{ not json",
        "b-no-profile.json": without("profile"),
        "c-falling.json": json.dumps(dict(curve, points=[[1, 5.0], [4, 9.0], [2, 7.0]])),
        "d-unknown-variant.json": json.dumps(dict(curve, variant="no_such_variant")),
        "e-half-thread.json": json.dumps(dict(curve, points=[[1, 5.0], [2.5, 9.0]])),
        "f-no-family.json": without("family"),
        "g-no-variant.json": without("variant"),
        "h-no-placement.json": without("placement"),
        "i-zero-private.json": json.dumps(dict(curve, private_ns={"value": 0, "source": "x"})),
        "j-no-points.json": json.dumps(dict(curve, points=[])),
        "k-points-not-a-list.json": json.dumps(dict(curve, points="1 5.0")),
        "l-129-points.json": json.dumps(dict(curve, points=[[n, 5.0 * n] for n in range(1, 130)])),
        "m-zero-threads.json": json.dumps(dict(curve, points=[[0, 5.0], [1, 6.0]])),
        "n-zero-ns.json": json.dumps(dict(curve, points=[[1, 5.0], [2, 0]])),
        "o-repeated-threads.json": json.dumps(dict(curve, points=[[1, 5.0], [2, 7.0], [2, 8.0]])),
    }
    want = {
        "a-not-json.json": "not read: not a curve file.",
        "b-no-profile.json": fields,
        "c-falling.json": "not read: point 2: expected a rising whole thread count",
        "d-unknown-variant.json": "not predicted: expected a family and variant of the catalogue, "
                                  "found counter/no_such_variant",
        "e-half-thread.json": "not read: point 1: expected a rising whole thread count",
        "f-no-family.json": fields,
        "g-no-variant.json": fields,
        "h-no-placement.json": fields,
        "i-zero-private.json": fields,
        "j-no-points.json": fields,
        "k-points-not-a-list.json": fields,
        "l-129-points.json": fields,
        "m-zero-threads.json": "not read: point 0: expected a rising whole thread count and a positive ns/op",
        "n-zero-ns.json": "not read: point 1: expected a rising whole thread count and a positive ns/op",
        "o-repeated-threads.json": "not read: point 2: expected a rising whole thread count",
    }
    # the most points a curve may have: read and predicted in full
    full = dict(curve, curve="128 points", points=[[n, 5.0 * n] for n in range(1, 129)])
    # any positive private cost is an input, below 1 ns too (a harness's
    # empty call costs 0.3 ns): the curve is predicted, its first row the input
    cheap = dict(curve, curve="a 0.5 ns private cost", private_ns={"value": 0.5, "source": "x"},
                 points=[[1, 0.5], [2, 9.0]])
    with tempfile.TemporaryDirectory() as tmp:
        data = os.path.join(tmp, "data")
        os.makedirs(os.path.join(data, "published"))
        os.symlink(os.path.join(src, "model", "profiles"), os.path.join(data, "profiles"))
        for name, text in bad.items():
            with open(os.path.join(data, "published", name), "w") as f:
                f.write(text)
        with open(os.path.join(data, "published", "z-good.json"), "w") as f:
            json.dump(curve, f)
        with open(os.path.join(data, "published", "z-full.json"), "w") as f:
            json.dump(full, f)
        with open(os.path.join(data, "published", "z-cheap.json"), "w") as f:
            json.dump(cheap, f)
        done = subprocess.run([bouncelab, "report", os.path.join(tests, "data", "results-seeds.json"),
                               "-o", os.path.join(tmp, "out")], capture_output=True, text=True,
                              env=dict(os.environ, BOUNCELAB_DATADIR=data))
        if done.returncode:
            problem(f"bouncelab report with bad curve files failed: {done.stderr.strip()}")
            return
        with open(os.path.join(tmp, "out", "prediction.md")) as f:
            md = f.read()
    for name, message in want.items():
        if f"`{name}`: {message}" not in md:
            problem(f"prediction.md does not say '`{name}`: {message}'")
    if f"### {curve['curve']}\n" not in md:
        problem("prediction.md: a good curve beside bad ones is not predicted")
    part = md.split("### 128 points\n", 1)[-1].split("\n### ", 1)[0]
    rows = re.findall(r"^\| (\d+) \| [\d.]+ \| [\d.]+ \|", part, re.M)
    if "### a 0.5 ns private cost\n\n" not in md or "| 1 | 0.5 | 0.5 | the input |" not in md:
        problem("prediction.md: a curve whose private cost is 0.5 ns is not predicted from it")
    if "### 128 points\n" not in md or len(rows) != 128:
        problem(f"prediction.md: a curve of 128 points, the most a curve may have, "
                f"is not predicted at each ({len(rows)} rows)")


check_bad_curves()

if results:
    check_report(results)
if table:
    for curve, threads, measured, pred, ratio, s_meas, s_pred, falls_meas, falls_pred in results:
        informs = curve.get("informs", {})
        fitted = set(informs.get("fitted_threads", []))
        role = "held out" if curve["role"] == "held_out" else "informed a rule: " + informs["what"]
        print(f"\n{curve['curve']} ({role}; profile {curve['profile']}, "
              f"{curve['family']}/{curve['variant']}, placement {curve['placement']})\n")
        print("| N | measured ns/op | predicted | pred/meas |")
        print("|---|---|---|---|")
        for n in threads:
            r = "input" if n == 1 else f"{ratio[n]:.2f}" + (" (fitted)" if n in fitted else "")
            print(f"| {n} | {measured[n]:.1f} | {pred[n]:.1f} | {r} |")
        print(f"\nslope over N >= {max(threads) / 2:g}: measured {s_meas:.2f}, "
              f"predicted {s_pred:.2f} ns per added thread ({s_pred / s_meas:.2f}x"
              f"{', fitted' if informs.get('fitted_slope') else ''}); throughput over that half: "
              f"measured {throughput_word(falls_meas)}, predicted {throughput_word(falls_pred)}")
sys.exit(1 if problems else 0)
