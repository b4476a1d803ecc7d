#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""lib/stats.c against a second implementation of each statistic, written
here from its definition (stats.h, and the papers it names), on hand-picked
edge cases and on random samples of many sizes, with ties and without:

  median            the middle value, or the mean of the two middle ones
  interval ranks    the narrowest [x(k), x(n+1-k)] whose coverage
                    1 - 2 P(B <= k-1), B ~ binomial(n, 1/2), reaches 95%,
                    summed in exact fractions
  spread            mean, sample standard deviation, their ratio (Python's
                    statistics module)
  bimodality        the rule as stats.h words it, tried at every split
  U test            exact: every way to give sample a its share of the
                    pooled midranks, counted in fractions; large samples:
                    the normal approximation with tie and continuity
                    corrections as scipy.stats.mannwhitneyu defines it
  sign test         binomial(m, 1/2) tails from math.comb
  paired ratio      rounds matched by dict, the median ratio, its ranks
  geometric mean    the n-th root of the product
  bootstrap ratio   splitmix64 (Steele, Lea and Flood, OOPSLA 2014) seeded
                    by FNV-1a over the sorted values' bytes, the resample's
                    median found from its counts (or, from 1000 values, from
                    its Beta law by Marsaglia and Tsang's gamma method), and
                    the type-7 quantile of the 2000 ratios (numpy's
                    "linear"): the report must print these intervals to the
                    last digit, since the same input gives the same report.

usage: test_stats_oracle.py STATS_PROBE
"""
import itertools
import math
import random
import statistics
import struct
import subprocess
import sys
from fractions import Fraction
import group_kill  # noqa: F401 (a timed-out test takes its children with it)

MASK = (1 << 64) - 1
failures = []


def check(what, got, want, tol=0.0):
    """got == want (floats within tol relative to want, or exactly)."""
    if isinstance(want, float) and math.isnan(want):
        ok = isinstance(got, float) and math.isnan(got)
    elif isinstance(want, float) or isinstance(got, float):
        ok = abs(got - want) <= tol * max(1.0, abs(want))
    else:
        ok = got == want
    if not ok:
        failures.append(f"{what}: got {got!r}, expected {want!r}")


class Probe:
    def __init__(self, path):
        self.proc = subprocess.Popen([path], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     text=True)

    def ask(self, *words):
        line = " ".join(fmt(w) for w in words)
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()
        out = self.proc.stdout.readline()
        if not out:
            sys.exit(f"stats_probe gave no answer to: {line[:200]}")
        return [parse(w) for w in out.split()]

    def close(self):
        self.proc.stdin.close()
        if self.proc.wait():
            failures.append(f"stats_probe exited with {self.proc.returncode}")


def fmt(w):
    if isinstance(w, float):
        return repr(w)
    if isinstance(w, (list, tuple)):
        return " ".join(fmt(x) for x in w)
    return str(w)


def parse(w):
    try:
        return int(w)
    except ValueError:
        return float(w)


def sample_words(values):
    return [len(values), list(values)]


# --- medians and their intervals -------------------------------------------

def median(values):
    s = sorted(values)
    n = len(s)
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2


def ranks(n):
    """(lo, hi, coverage) of the narrowest order-statistic interval of the
    median with coverage >= 95%, or the whole range with its coverage."""
    if n == 0:
        return 0, 0, 0.0
    total = 2 ** n
    best = 1
    below = Fraction(0)			# P(B <= k - 1)
    for k in range(1, (n + 1) // 2 + 1):
        below += Fraction(math.comb(n, k - 1), total)
        if 1 - 2 * below >= Fraction(95, 100):
            best = k
        else:
            break
    cover = 1 - 2 * sum(Fraction(math.comb(n, i), total) for i in range(best))
    return best - 1, n - best, float(cover)


def bimodal(values):
    """stats.h: at least 5 values, two clusters each of at least 2 values
    and a fifth of them, the gap on a log scale at least the mean of the
    two clusters' log ranges, the upper starting 20% above the lower."""
    s = sorted(values)
    n = len(s)
    if n < 5 or not s[0] > 0:
        return 0
    least = max(2, -(-n // 5))
    for i in range(least, n - least + 1):
        lower, upper = s[:i], s[i:]
        gap = math.log(upper[0] / lower[-1])
        spread = (math.log(lower[-1] / lower[0]) + math.log(upper[-1] / upper[0])) / 2
        if upper[0] >= 1.2 * lower[-1] and gap >= spread:
            return 1
    return 0


def check_medians(probe, rng):
    for n in list(range(1, 13)) + [20, 21, 99, 100]:
        for _ in range(3):
            v = [rng.choice([1.0, 2.0, 2.5, 3.0]) if rng.random() < 0.3 else
                 round(rng.uniform(0.5, 900), 3) for _ in range(n)]
            check(f"median of {v}", probe.ask("median", *sample_words(v))[0], median(v))
    for n in list(range(0, 80)) + [99, 100, 101, 250, 1000, 1001]:
        lo, hi, cover = ranks(n)
        got = probe.ask("ranks", n)
        check(f"interval ranks of {n}", got[:2], [lo, hi])
        check(f"interval coverage of {n}", got[2], cover, 1e-12)


def check_summaries(probe, rng):
    cases = [
        [9, 1, 8, 2, 7, 3, 6, 4, 5],
        [100.0, 100.0, 100.0],
        [92.5, 107.5], [93.0, 107.0],
        [10.0, 10.0, 12.0, 12.0, 12.0], [10.0, 10.0, 11.9, 12.0, 12.0],
        [60, 61, 59, 62, 250, 251, 249, 60, 248],
        [1, 1, 1, 1, 1, 1, 1, 1, 1.3, 1.3],	# 2 of 10 is a fifth
        [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1.3, 1.3],	# 2 of 12 is less
        [1, 1, 1, 1, 1, 1, 1, 1, 1, 1.2],		# 1.2x exactly, but one value
        [5, 5, 6, 6, 7.2, 7.2],			# gap 1.2x exactly, both sides ranged
        [5, 5.9, 7.2, 7.3, 8.7, 8.8, 9.9],
        [-1, 5, 5, 50, 50, 50], [0, 5, 5, 50, 50, 50],
    ]
    for n in (2, 3, 5, 6, 7, 9, 10, 11, 15, 16, 25, 40):
        for _ in range(6):
            base = rng.uniform(1, 100)
            if rng.random() < 0.5:
                v = [base * rng.uniform(1, 1.3) for _ in range(n)]
            else:
                cut = rng.randrange(1, n)
                far = rng.uniform(1.1, 4)
                v = [base * rng.uniform(1, 1.15) * (far if i >= cut else 1) for i in range(n)]
            if rng.random() < 0.3:
                v = [round(x, 1) for x in v]
            cases.append(v)
    for v in cases:
        v = [float(x) for x in v]
        s = sorted(v)
        n = len(v)
        lo, hi, cover = ranks(n)
        mean = statistics.fmean(v)
        sd = statistics.stdev(v) if n > 1 else 0.0
        cv = sd / abs(mean) if n > 1 and mean != 0 else 0.0
        got = probe.ask("summary", *sample_words(v))
        check(f"summary median of {v}", got[0], median(v))
        check(f"summary interval of {v}", got[1:3], [s[lo], s[hi]])
        check(f"summary coverage of {v}", got[3], cover, 1e-12)
        check(f"summary range of {v}", got[4:6], [s[0], s[-1]])
        check(f"summary cv of {v}", got[6], cv, 1e-9)
        check(f"summary noisy of {v}", got[7], int(cv > 0.10))
        check(f"summary bimodal of {v}", got[8], bimodal(v))
        check(f"bimodal of {v}", probe.ask("bimodal", *sample_words(v))[0], bimodal(v))
        got = probe.ask("spread", *sample_words(v))
        check(f"mean of {v}", got[0], mean, 1e-12)
        check(f"stddev of {v}", got[1], sd, 1e-9)
        check(f"cv of {v}", got[2], cv, 1e-9)
    check("mean of nothing", probe.ask("spread", 0)[0], float("nan"))
    # one value: no spread at all (fewer than 2 values have no sample sd)
    check("spread of one value", probe.ask("spread", 1, 7.0), [7.0, 0.0, 0.0])


# --- the U test --------------------------------------------------------------

def midranks(pooled):
    """1-based midranks of the pooled values, in the order given."""
    order = sorted(range(len(pooled)), key=lambda i: pooled[i])
    rank = [0.0] * len(pooled)
    i = 0
    while i < len(order):
        j = i
        while j < len(order) and pooled[order[j]] == pooled[order[i]]:
            j += 1
        for k in range(i, j):
            rank[order[k]] = (i + 1 + j) / 2
        i = j
    return rank


def mann_whitney_exact(a, b):
    """Two-sided p of a's rank sum over every choice of len(a) of the
    pooled midranks (the ties as observed)."""
    rank = midranks(a + b)
    observed = sum(rank[:len(a)])
    below = above = total = 0
    for pick in itertools.combinations(rank, len(a)):
        s = sum(pick)
        total += 1
        below += s <= observed
        above += s >= observed
    return min(1.0, float(Fraction(2 * min(below, above), total)))


def mann_whitney_normal(a, b):
    """scipy.stats.mannwhitneyu(a, b, method="asymptotic") as its
    documentation defines it: U with midranks, continuity 0.5, the tie
    term in the variance."""
    na, nb = len(a), len(b)
    n = na + nb
    rank = midranks(a + b)
    u = sum(rank[:na]) - na * (na + 1) / 2
    counts = {}
    for x in a + b:
        counts[x] = counts.get(x, 0) + 1
    ties = sum(t ** 3 - t for t in counts.values())
    var = na * nb / 12 * ((n + 1) - ties / (n * (n - 1)))
    if var <= 0:
        return 1.0
    z = (abs(u - na * nb / 2) - 0.5) / math.sqrt(var)
    return min(1.0, math.erfc(max(z, 0) / math.sqrt(2)))


def check_mann_whitney(probe, rng):
    pairs = [([1, 2, 3], [4, 5, 6]), ([1, 3, 5], [2, 4, 6]), ([1, 1, 1], [2, 2, 2]),
             ([1, 2, 2], [2, 3, 4]), ([5, 5], [5, 5]), ([1, 2], [3, 4]),
             ([7, 1], [3, 9, 2, 8]), ([1, 2, 3, 4, 5, 6], [3.5])]
    for na, nb in [(2, 2), (2, 5), (3, 4), (4, 4), (5, 5), (6, 3), (7, 7), (2, 10), (8, 6)]:
        for _ in range(3):
            shift = rng.choice([0, 0.5, 2])
            ties = rng.random() < 0.5
            draw = (lambda: float(rng.randrange(6))) if ties else (lambda: rng.uniform(0, 5))
            pairs.append(([draw() for _ in range(na)], [draw() + shift for _ in range(nb)]))
    for a, b in pairs:
        a, b = [float(x) for x in a], [float(x) for x in b]
        want = mann_whitney_exact(a, b) if len(a) > 1 and len(b) > 1 else float("nan")
        check(f"exact U test p of {a} against {b}",
              probe.ask("mwu", *sample_words(a), *sample_words(b))[0], want, 1e-12)
    # 20 a side is still exact: the two ends of each sample apart, the
    # middles interleaved (C(40, 20) subsets: counted by the law of the sum)
    a = [float(i) for i in range(20)]
    b = [float(i) + 0.5 for i in range(3, 23)]
    check("exact U test p of 20 against 20", probe.ask("mwu", *sample_words(a), *sample_words(b))[0],
          rank_sum_law_p(a, b), 1e-12)
    for na, nb in [(21, 21), (20, 21), (21, 3), (30, 25), (2, 40), (60, 60)]:
        for ties in (False, True):
            shift = rng.choice([0.3, 1.0])
            draw = (lambda: float(rng.randrange(12))) if ties else (lambda: rng.uniform(0, 10))
            a = [draw() for _ in range(na)]
            b = [draw() + shift for _ in range(nb)]
            check(f"normal U test p of {a} against {b}",
                  probe.ask("mwu", *sample_words(a), *sample_words(b))[0],
                  mann_whitney_normal(a, b), 1e-9)
    # every value tied: no variance, no evidence
    a = [3.0] * 21
    check("normal U test p, all tied", probe.ask("mwu", *sample_words(a), *sample_words(a))[0], 1.0)


def rank_sum_law_p(a, b):
    """The exact two-sided p by the distribution of the sum of len(a) of
    the doubled midranks, counted with a dictionary per subset size."""
    rank = [int(2 * r) for r in midranks(a + b)]
    observed = sum(rank[:len(a)])
    law = [dict() for _ in range(len(a) + 1)]
    law[0][0] = 1
    for r in rank:
        for k in range(len(a), 0, -1):
            for s, c in law[k - 1].items():
                law[k][s + r] = law[k].get(s + r, 0) + c
    total = sum(law[len(a)].values())
    below = sum(c for s, c in law[len(a)].items() if s <= observed)
    above = sum(c for s, c in law[len(a)].items() if s >= observed)
    return min(1.0, float(Fraction(2 * min(below, above), total)))


# --- rounds, the sign test and the geometric mean ----------------------------

def sign_test(ratios):
    above = sum(r > 1 for r in ratios)
    below = sum(r < 1 for r in ratios)
    m = above + below
    if not m:
        return 1.0
    tail = sum(Fraction(math.comb(m, i), 2 ** m) for i in range(min(above, below) + 1))
    return float(min(Fraction(1), 2 * tail))


def by_round(num, den):
    """(status, ratio, lo, hi, pairs, median_num, median_den, p)."""
    for side in (num, den):
        rounds = [r for _, r in side]
        if len(set(rounds)) != len(rounds):
            return (1,)
    den_of = {r: v for v, r in den}
    common = [(v, den_of[r]) for v, r in num if r in den_of]
    if len(common) < 6 or any(not (n > 0 and d > 0) for n, d in common):
        return (1,)
    pairs = [(n / d, n, d) for n, d in common]
    pairs.sort()
    ratios = [p[0] for p in pairs]
    lo, hi, _ = ranks(len(pairs))
    mid = pairs[(len(pairs) - 1) // 2]
    return (0, median(ratios), ratios[lo], ratios[hi], len(pairs), mid[1], mid[2],
            sign_test(ratios))


def check_rounds(probe, rng):
    cases = []
    for m in (5, 6, 7, 8, 9, 12, 17, 30):
        for _ in range(3):
            rounds = rng.sample(range(3 * m), m)
            extra = rng.sample([r for r in range(3 * m) if r not in rounds], 2)
            num = [(rng.uniform(1, 100), r) for r in rounds + extra[:1]]
            den = [(rng.uniform(1, 100), r) for r in rounds + extra[1:]]
            if rng.random() < 0.4:		# a clear shift: the sign test decides
                slower = {r: v * rng.uniform(1.1, 3) for v, r in num}
                den = [(slower[r] if r in rounds else v, r) for v, r in den]
            rng.shuffle(num)
            rng.shuffle(den)
            cases.append((num, den))
    ties = [(2.0, r) for r in range(8)]
    cases.append((ties, [(2.0 if r < 3 else 1.0, r) for r in range(8)]))	# 3 ties dropped
    cases.append((ties, [(2.0, r) for r in range(8)]))			# all tied: p = 1
    base = [(float(10 + r), r) for r in range(9)]
    cases.append((base, [(5.0, r) for r in range(9)] + [(5.0, 3)]))	# a round twice
    cases.append((base[:1] + base, [(5.0, r) for r in range(9)]))		# round 0 twice
    cases.append((base, [(0.0 if r == 4 else 5.0, r) for r in range(9)]))	# a zero
    cases.append(([(0.0 if r == 2 else v, r) for v, r in base], [(5.0, r) for r in range(9)]))
    cases.append(([(-1.0 if r == 2 else v, r) for v, r in base], [(5.0, r) for r in range(9)]))
    cases.append(([(0.0, 20)] + base, [(5.0, r) for r in range(9)]))	# unpaired: no matter
    cases.append((base, [(5.0, r) for r in range(4, 13)]))			# 5 in common
    cases.append((base, [(5.0, r) for r in range(3, 12)]))			# 6 in common
    cases.append((base + [(1.0, 20), (2.0, 20)], [(5.0, r) for r in range(9)]))	# twice, last
    cases.append((base, [(5.0, r) for r in range(9)] + [(1.0, 20), (2.0, 20)]))
    for num, den in cases:
        got = probe.ask("rounds", len(num), [[v, r] for v, r in num],
                        len(den), [[v, r] for v, r in den])
        want = by_round(num, den)
        check(f"paired status of {num} over {den}", got[0], want[0])
        if want[0] == 0 and got[0] == 0:
            names = ["ratio", "lo", "hi", "pairs", "median round's num", "median round's den", "p"]
            for name, g, w in zip(names, got[1:], want[1:]):
                check(f"paired {name} of {num} over {den}", g, w, 1e-12)
    for v in ([2.0] * 9, [2.0] * 7 + [0.5] * 2, [1.0, 1.0] + [2.0] * 6, [1.0, 1.0],
              [0.5, 2.0], [0.9] * 6, [1.1] * 5 + [0.9], [3.0, 0.2, 1.0, 5.0, 1.0, 0.1, 0.3]):
        check(f"sign test of {v}", probe.ask("sign", *sample_words(v))[0], sign_test(v), 1e-15)
    for v in ([1.0, 4.0, 16.0], [2.0], [0.5, 8.0], [3.0, 3.0, 3.0, 3.0], [1.5, 2.5, 10.0, 0.1]):
        check(f"geometric mean of {v}", probe.ask("geomean", *sample_words(v))[0],
              math.prod(v) ** (1 / len(v)), 1e-12)


# --- the bootstrap ratio -----------------------------------------------------

class Splitmix64:
    def __init__(self, state):
        self.state = state

    def next(self):
        self.state = (self.state + 0x9e3779b97f4a7c15) & MASK
        z = self.state
        z = ((z ^ (z >> 30)) * 0xbf58476d1ce4e5b9) & MASK
        z = ((z ^ (z >> 27)) * 0x94d049bb133111eb) & MASK
        return z ^ (z >> 31)

    def uniform(self):
        """In (0, 1): the top 53 bits and a half, times 2^-53."""
        return (float(self.next() >> 11) + 0.5) * 2.0 ** -53

    def normal(self):
        u, v = self.uniform(), self.uniform()
        return math.sqrt(-2 * math.log(u)) * math.cos(2 * math.pi * v)

    def gamma(self, shape):
        """Marsaglia and Tsang (2000), shape >= 1."""
        d = shape - 1.0 / 3
        c = 1 / math.sqrt(9 * d)
        while True:
            x = self.normal()
            v = 1 + c * x
            if v <= 0:
                continue
            v = v * v * v
            u = self.uniform()
            if math.log(u) < 0.5 * x * x + d - d * v + d * math.log(v):
                return d * v


def fnv1a(h, values):
    for byte in b"".join(struct.pack("<d", x) for x in values):
        h = ((h ^ byte) * 0x100000001b3) & MASK
    return h


def resampled_median(s, gen):
    """n draws with replacement, each index (32 random bits * n) >> 32, two
    draws per 64-bit number (low half first); the median from the counts."""
    n = len(s)
    counts = [0] * n
    for _ in range(n // 2):
        r = gen.next()
        counts[((r & 0xffffffff) * n) >> 32] += 1
        counts[((r >> 32) * n) >> 32] += 1
    if n % 2:
        counts[((gen.next() & 0xffffffff) * n) >> 32] += 1
    drawn = []
    for i, c in enumerate(counts):
        drawn.extend([s[i]] * c)
    return (drawn[(n - 1) // 2] + drawn[n // 2]) / 2


def resampled_median_from_its_law(s, gen):
    """The j-th smallest of n uniforms is Beta(j, n + 1 - j), a ratio of
    gammas; for even n the next one above it is the least of the n - j
    uniforms above, so 1 - (1 - U) V^(1 / (n - j))."""
    n = len(s)
    j = (n + 1) // 2
    x = gen.gamma(float(j))
    u = x / (x + gen.gamma(float(n + 1 - j)))
    lower = min(int(u * n), n - 1)
    if n % 2:
        return s[lower]
    above = u + (1 - u) * (1 - math.pow(gen.uniform(), 1.0 / (n - j)))
    upper = min(int(above * n), n - 1)
    return (s[lower] + s[upper]) / 2


def quantile7(values, q):
    s = sorted(values)
    h = (len(s) - 1) * q
    i = math.floor(h)
    if i + 1 >= len(s):
        return s[i]
    return s[i] + (h - i) * (s[i + 1] - s[i])


def bootstrap_ratio(num, den):
    a, b = sorted(num), sorted(den)
    ratio = median(a) / median(b)
    if len(a) < 2 or len(b) < 2:
        return ratio, float("nan"), float("nan"), 1
    gen = Splitmix64(fnv1a(fnv1a(0xcbf29ce484222325, a), b))
    draw = lambda s: (resampled_median_from_its_law(s, gen) if len(s) >= 1000
                      else resampled_median(s, gen))
    ratios = []
    for _ in range(2000):
        top = draw(a)
        ratios.append(top / draw(b))
    return (ratio, quantile7(ratios, (1 - 0.95) / 2), quantile7(ratios, (1 + 0.95) / 2), 0)


def check_bootstrap(probe, rng):
    cases = [([4.0, 4.0, 4.0], [2.0, 2.0, 2.0]), ([10.0], [1.0, 2.0]), ([1.0, 3.0], [2.0]),
             ([1.0, 2.0], [3.0, 4.0])]
    for nn, nd in [(2, 3), (3, 3), (4, 5), (6, 6), (7, 7), (8, 9), (9, 9), (12, 10), (15, 20),
                   (31, 32)]:
        num = [round(rng.uniform(5, 50), 2) for _ in range(nn)]
        den = [round(rng.uniform(1, 30), 2) for _ in range(nd)]
        cases.append((num, den))
    # from 1000 values on, each resample's median is drawn from its law
    cases.append(([1 + i / 1000 for i in range(1000)], [2 + i / 500 for i in range(1001)]))
    # an even count that is not a multiple of 4: the two middle draws averaged
    cases.append(([1 + (i * 389 % 1002) / 1002 for i in range(1002)],
                  [2 + (i * 17 % 1006) / 503 for i in range(1006)]))
    cases.append(([1 + (i * 7919 % 3001) / 3001 for i in range(3001)],
                  [3 + (i * 104729 % 2000) / 1000 for i in range(2000)]))
    # Marsaglia and Tsang's test rejects about 1 draw in 20000 at these
    # shapes, and one rejection moves every draw after it: enough samples
    # that a rejection (or a test that rejects otherwise) shows
    for k in range(12):
        n = 1000 + k % 2
        cases.append(([10 + rng.uniform(0, 1) for _ in range(n)],
                      [5 + rng.uniform(0, 2) for _ in range(1000 + (k + 1) % 2)]))
    for num, den in cases:
        want = bootstrap_ratio(num, den)
        got = probe.ask("ratio", *sample_words(num), *sample_words(den))
        what = f"bootstrap ratio of {len(num)} over {len(den)} values ({num[:4]}... / {den[:4]}...)"
        check(what + ": ratio", got[0], want[0], 1e-15)
        check(what + ": interval's lower end", got[1], want[1])
        check(what + ": interval's upper end", got[2], want[2])
        check(what + ": one repetition", got[3], want[3])


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: test_stats_oracle.py STATS_PROBE")
    probe = Probe(sys.argv[1])
    rng = random.Random(20261207)
    check_medians(probe, rng)
    check_summaries(probe, rng)
    check_mann_whitney(probe, rng)
    check_rounds(probe, rng)
    check_bootstrap(probe, rng)
    probe.close()
    for f in failures[:40]:
        print("FAIL", f)
    if failures:
        print(f"{len(failures)} check(s) failed")
        return 1
    print("every statistic agrees with the oracle")
    return 0


if __name__ == "__main__":
    sys.exit(main())
