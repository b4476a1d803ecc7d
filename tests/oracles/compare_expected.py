#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""What `bouncelab compare compare-a.json compare-b.json` must print,
computed independently of bouncelab's code: medians with numpy, the
two-sided Mann-Whitney U p-value with scipy (an exact permutation test of
the rank sum up to 20 values a side, ties kept; scipy's normal
approximation with tie and continuity corrections above), a percentile
bootstrap 95% CI of the ratio of medians with numpy (200,000 resamples,
fixed seed), and the geometric mean of the ratios.

Needs scipy (apt-get install python3-scipy) only when the numbers are
made, never when the test runs:

  /usr/bin/python3 tests/oracles/compare_expected.py tests/data > tests/data/compare-expected.tsv
"""
import json
import math
import sys

import numpy as np
from scipy import stats

EXACT_MAX = 20   # the sizes up to which an exact p-value is the right one


def load(path):
    with open(path) as f:
        rows = json.load(f)["benchmarks"]
    cases = {}
    for r in rows:
        b = r["bouncelab"]
        key = f"{b['family']}/{b['variant']}/{r['threads']}"
        cases.setdefault(key, []).append(r["ns_per_op"])
    return cases


def p_value(a, b):
    if len(a) <= EXACT_MAX and len(b) <= EXACT_MAX:
        def rank_sum(x, y):
            return np.sum(stats.rankdata(np.concatenate([x, y]))[:len(x)])
        res = stats.permutation_test((a, b), rank_sum, permutation_type="independent",
                                     alternative="two-sided", n_resamples=np.inf,
                                     vectorized=False)
        return float(res.pvalue)
    return float(stats.mannwhitneyu(a, b, alternative="two-sided", method="asymptotic",
                                    use_continuity=True).pvalue)


def bootstrap_ci(num, den, rng, resamples=200000):
    num, den = np.asarray(num), np.asarray(den)
    top = np.median(rng.choice(num, (resamples, len(num))), axis=1)
    bottom = np.median(rng.choice(den, (resamples, len(den))), axis=1)
    return [float(q) for q in np.percentile(top / bottom, [2.5, 97.5])]


def main():
    data = sys.argv[1]
    a, b = load(f"{data}/compare-a.json"), load(f"{data}/compare-b.json")
    rng = np.random.default_rng(16)
    print("# Expected output of: bouncelab compare compare-a.json compare-b.json")
    print("# Made by: /usr/bin/python3 tests/oracles/compare_expected.py tests/data"
          f" (scipy {__import__('scipy').__version__},"
          f" numpy {np.__version__})")
    print("# case\tmedian_a\tmedian_b\tratio_b_over_a\tci_lo\tci_hi\tp")
    ratios = []
    for key in a:
        if key not in b:
            continue
        ma, mb = float(np.median(a[key])), float(np.median(b[key]))
        lo, hi = bootstrap_ci(b[key], a[key], rng)
        ratios.append(mb / ma)
        print(f"{key}\t{ma!r}\t{mb!r}\t{mb / ma!r}\t{lo!r}\t{hi!r}\t{p_value(a[key], b[key])!r}")
    print(f"geomean\t{math.exp(sum(math.log(r) for r in ratios) / len(ratios))!r}")
    print(f"compared\t{len(ratios)}")
    print(f"only_in_a\t{sum(1 for k in a if k not in b)}")
    print(f"only_in_b\t{sum(1 for k in b if k not in a)}")


if __name__ == "__main__":
    main()
