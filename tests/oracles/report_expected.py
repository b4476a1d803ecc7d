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

Needs scipy (apt-get install python3-scipy) only when the numbers are
made, never when the test runs:

  /usr/bin/python3 tests/oracles/report_expected.py tests/data/results-fixed.json > tests/data/report-expected.tsv
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
       "counter": ("shared_atomic", "percpu_padded")}


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


def main():
    with open(sys.argv[1]) as f:
        rows = json.load(f)["benchmarks"]
    cases = {}
    for r in rows:
        if r.get("run_type") != "iteration" or r.get("error_occurred") or "bouncelab" not in r:
            continue
        b = r["bouncelab"]
        key = (b["family"], setting_of(b), r["threads"], b["variant"])
        cases.setdefault(key, []).append(r)

    print("# Expected numbers of: bouncelab report results-fixed.json --full")
    print("# Made by: /usr/bin/python3 tests/oracles/report_expected.py tests/data/results-fixed.json"
          f" (scipy {__import__('scipy').__version__}, numpy {np.__version__})")
    print("# case\tfamily\tsetting\tthreads\tvariant\tn\tns_median\tns_lo\tns_hi\t"
          "mops_median\tmops_lo\tmops_hi\tcv_percent\tnoisy\tx_best\tp_vs_best")
    print("# gain\tfamily\tsetting\tthreads\tbefore\tafter\tratio\tp")
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
            x_best, p = "best", "n/a"
        else:
            x_best = repr(medians[key] / medians[best])
            p = repr(p_value(ns, ns_of[best]))
        print(f"case\t{family}\t{setting}\t{threads}\t{variant}\t{len(ns)}\t"
              f"{medians[key]!r}\t{lo!r}\t{hi!r}\t{float(np.median(mops))!r}\t{mlo!r}\t{mhi!r}\t"
              f"{100 * cv!r}\t{'yes' if cv > NOISY_CV else 'no'}\t{x_best}\t{p}")

    for family, (before, after) in FIX.items():
        for (fam, setting, threads, variant) in cases:
            if fam != family or variant != before or (fam, setting, threads, after) not in cases:
                continue
            a, b = ns_of[(fam, setting, threads, before)], ns_of[(fam, setting, threads, after)]
            print(f"gain\t{family}\t{setting}\t{threads}\t{before}\t{after}\t"
                  f"{float(np.median(a)) / float(np.median(b))!r}\t{p_value(a, b)!r}")

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
