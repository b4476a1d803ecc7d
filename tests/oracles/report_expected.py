#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""The numbers `bouncelab report results-fixed.json --full` must print,
computed independently of bouncelab's code from the repetitions in the
file: medians with numpy; the median's 95% confidence interval by order
statistics (the widest symmetric pair of ranks whose binomial(n, 1/2)
coverage, from scipy, is still at least 95%); Mops/s as threads * 1000 /
ns_per_op per repetition; the coefficient of variation as the sample
standard deviation over the mean (numpy, ddof=1), noisy above 10%; each
variant's median over the best variant's at the same thread count (the
lowest median among variants that are neither baselines nor racy); the
two-sided Mann-Whitney U p-value (scipy: an exact permutation test of
the rank sum up to 20 values a side, ties kept; the normal approximation
with continuity correction above); and the fix's
gain, the before variant's median over the after variant's.

Paired by round: a file whose context says `bouncelab run` ran every case
once per round, repetition_index the round. Two of its cases with at
least 6 rounds in common (failed repetitions left out) are compared round
by round instead: the ratio is numpy's median of the per-round ratios,
its 95% interval the same order statistics of those ratios, and p the
exact two-sided sign test of the ratios against 1 (scipy's binomtest,
ties dropped). Those rows say "paired" and give the interval; the others
say "unpaired" and leave it out (a bootstrap has no independent value).

Needs scipy (apt-get install python3-scipy) only when the numbers are
made, never when the test runs:

  /usr/bin/python3 tests/oracles/report_expected.py tests/data/results-fixed.json > tests/data/report-expected.tsv
  /usr/bin/python3 tests/oracles/report_expected.py tests/data/results-rounds.json > tests/data/rounds-expected.tsv
"""
import json
import sys

import numpy as np
from scipy import stats

EXACT_MAX = 20          # sizes up to which the U test's p-value is exact
NOISY_CV = 0.10         # the README's and the report's "noisy": CV above 10%
CONFIDENCE = 0.95

# Which variants are never "best", from the catalogue's descriptions:
# the harness's empty loop and the like-for-like control are baselines,
# a plain ++ on a shared counter loses updates on purpose.
NEVER_BEST = {("has_pinned", "nop"), ("has_pinned", "no_flag"), ("counter", "shared_plain")}

# Each family's fix (before, after), from the lessons.
FIX = {"has_pinned": ("store_always", "read_then_set"),
       "counter": ("shared_atomic", "percpu_padded_locked")}


def setting_of(b):
    """The same words the report's "Setting N:" line uses."""
    words = [f"{k}={v}" for k, v in b["params"].items()]
    words.append(f"placement {b['placement']['policy']}")
    return ", ".join(words)


def median_ci(values):
    """Ranks k and n+1-k (1-based) of the sorted values, k as large as
    the coverage 1 - 2 P(B <= k-1), B ~ binomial(n, 1/2), allows."""
    s = sorted(values)
    n = len(s)
    best = 1
    for k in range(1, (n + 1) // 2 + 1):
        if 1 - 2 * stats.binom.cdf(k - 1, n, 0.5) >= CONFIDENCE:
            best = k
    return s[best - 1], s[n - best]


def p_value(a, b):
    if len(a) <= EXACT_MAX and len(b) <= EXACT_MAX:
        # scipy's exact U test assumes no ties; a permutation test of the
        # rank sum over every split is exact with ties too.
        def rank_sum(x, y):
            return np.sum(stats.rankdata(np.concatenate([x, y]))[:len(x)])
        return float(stats.permutation_test((a, b), rank_sum, permutation_type="independent",
                                            alternative="two-sided", n_resamples=np.inf,
                                            vectorized=False).pvalue)
    return float(stats.mannwhitneyu(a, b, alternative="two-sided", method="asymptotic",
                                    use_continuity=True).pvalue)


MIN_PAIRS = 6           # below this no order-statistic interval reaches 95%


def ran_in_rounds(context):
    command = context.get("command", "")
    return "bouncelab_version" in context and (command == "bouncelab run" or
                                               command.startswith("bouncelab run "))


def compare(a_reps, b_reps, rounds):
    """(ratio, p, lo, hi, method) of a's ns_per_op over b's."""
    a = [r["ns_per_op"] for r in a_reps]
    b = [r["ns_per_op"] for r in b_reps]
    if rounds:
        by_round = {r["repetition_index"]: r["ns_per_op"] for r in b_reps}
        ratios = np.array([r["ns_per_op"] / by_round[r["repetition_index"]]
                           for r in a_reps if r["repetition_index"] in by_round])
        if len(ratios) >= MIN_PAIRS:
            above, below = int(np.sum(ratios > 1)), int(np.sum(ratios < 1))
            p = float(stats.binomtest(above, above + below, 0.5).pvalue) if above + below else 1.0
            lo, hi = median_ci(ratios)
            return float(np.median(ratios)), p, repr(float(lo)), repr(float(hi)), "paired"
    return float(np.median(a)) / float(np.median(b)), p_value(a, b), "n/a", "n/a", "unpaired"


def median_round(a_reps, b_reps):
    """The (a, b) ns_per_op of the round whose a/b is the median of the
    paired rounds' ratios: the lower of the middle two when they are even."""
    by_round = {r["repetition_index"]: r["ns_per_op"] for r in b_reps}
    pairs = sorted((r["ns_per_op"] / by_round[r["repetition_index"]], r["ns_per_op"],
                    by_round[r["repetition_index"]])
                   for r in a_reps if r["repetition_index"] in by_round)
    _, a, b = pairs[(len(pairs) - 1) // 2]
    return a, b


def main():
    with open(sys.argv[1]) as f:
        doc = json.load(f)
    rows = doc["benchmarks"]
    rounds = ran_in_rounds(doc["context"])
    cases = {}
    for r in rows:
        if r.get("run_type") != "iteration" or r.get("error_occurred") or "bouncelab" not in r:
            continue
        b = r["bouncelab"]
        key = (b["family"], setting_of(b), r["threads"], b["variant"])
        cases.setdefault(key, []).append(r)

    name = sys.argv[1].split("/")[-1]
    print(f"# Expected numbers of: bouncelab report {name} --full")
    print(f"# Made by: /usr/bin/python3 tests/oracles/report_expected.py tests/data/{name}"
          f" (scipy {__import__('scipy').__version__}, numpy {np.__version__})")
    print("# case\tfamily\tsetting\tthreads\tvariant\tn\tns_median\tns_lo\tns_hi\t"
          "mops_median\tmops_lo\tmops_hi\tcv_percent\tnoisy\tx_best\tp_vs_best\tx_lo\tx_hi\tmethod")
    print("# gain\tfamily\tsetting\tthreads\tbefore\tafter\tratio\tp\tlo\thi\tmethod")
    print("# gain_round\tfamily\tsetting\tthreads\tbefore_ns\tafter_ns (a paired gain's median round)")
    print("# one_way\tdistance\tvariant\tmedian\tlo\thi\tmin\tn\tnoisy")
    medians, ns_of = {}, {}
    for key, reps in cases.items():
        ns = [r["ns_per_op"] for r in reps]
        ns_of[key] = ns
        medians[key] = float(np.median(ns))

    for (family, setting, threads, variant), reps in cases.items():
        key = (family, setting, threads, variant)
        if family == "pingpong":
            continue
        ns = ns_of[key]
        mops = [threads * 1000.0 / x for x in ns]
        lo, hi = median_ci(ns)
        mlo, mhi = median_ci(mops)
        cv = float(np.std(ns, ddof=1) / np.mean(ns))
        rivals = [k for k in cases if k[:3] == key[:3] and (family, k[3]) not in NEVER_BEST]
        best = min(rivals, key=lambda k: medians[k])
        if best == key:
            x_best, p, x_lo, x_hi, method = "best", "n/a", "n/a", "n/a", "n/a"
        else:
            x_best, p, x_lo, x_hi, method = compare(reps, cases[best], rounds)
            x_best, p = repr(x_best), repr(p)
        print(f"case\t{family}\t{setting}\t{threads}\t{variant}\t{len(ns)}\t"
              f"{medians[key]!r}\t{lo!r}\t{hi!r}\t{float(np.median(mops))!r}\t{mlo!r}\t{mhi!r}\t"
              f"{100 * cv!r}\t{'yes' if cv > NOISY_CV else 'no'}\t{x_best}\t{p}\t{x_lo}\t{x_hi}\t{method}")

    for family, (before, after) in FIX.items():
        for (fam, setting, threads, variant) in cases:
            if fam != family or variant != before or (fam, setting, threads, after) not in cases:
                continue
            ratio, p, lo, hi, method = compare(cases[(fam, setting, threads, before)],
                                               cases[(fam, setting, threads, after)], rounds)
            print(f"gain\t{family}\t{setting}\t{threads}\t{before}\t{after}\t"
                  f"{ratio!r}\t{p!r}\t{lo}\t{hi}\t{method}")
            if method == "paired":
                a, b = median_round(cases[(fam, setting, threads, before)],
                                    cases[(fam, setting, threads, after)])
                print(f"gain_round\t{family}\t{setting}\t{threads}\t{a!r}\t{b!r}")

    for (family, setting, threads, variant), reps in cases.items():
        if family != "pingpong":
            continue
        ow = [r["one_way_ns"] for r in reps]
        lo, hi = median_ci(ow)
        cv = float(np.std(ow, ddof=1) / np.mean(ow))
        distance = reps[0]["bouncelab"]["placement"]["widest_class"]
        print(f"one_way\t{distance}\t{variant}\t{float(np.median(ow))!r}\t{lo!r}\t{hi!r}\t"
              f"{min(ow)!r}\t{len(ow)}\t{'yes' if cv > NOISY_CV else 'no'}")


if __name__ == "__main__":
    main()
