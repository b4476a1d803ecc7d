/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Statistics over repetitions: medians with distribution-free confidence
 * intervals, spread, the Mann-Whitney U test and bootstrap ratios.
 *
 * Benchmark repetitions on a shared VM are not normal: they have long
 * tails and, when the hypervisor moves a vCPU, two modes. Everything here
 * is therefore rank-based (medians, order statistics, U test) or
 * resampled, never a mean +- t * sd. Everything is deterministic: the
 * bootstrap draws from a generator seeded by the data themselves, so the
 * same input gives the same report byte for byte.
 */
#ifndef BOUNCELAB_STATS_H
#define BOUNCELAB_STATS_H

#include <stdbool.h>
#include <stddef.h>

/* Confidence level of every interval in the report. */
#define STATS_CONFIDENCE 0.95
/* A result whose coefficient of variation exceeds this is flagged noisy. */
#define STATS_NOISY_CV 0.10
/* Bootstrap resamples per ratio: enough for stable 2.5% tails. */
#define STATS_BOOTSTRAP_RESAMPLES 2000
/*
 * From this many values on, a bootstrap median is drawn from its exact
 * law in O(1) rather than by counting n draws (stats.c).
 */
#define STATS_BOOTSTRAP_DIRECT_MIN 1000

/* The median of n values (n > 0); the values are left unchanged. */
double stats_median(const double *values, size_t n);

/* The median of n sorted values (n > 0). */
double stats_median_sorted(const double *sorted, size_t n);

/* Sorts n doubles in place, ascending. */
void stats_sort(double *values, size_t n);

/*
 * The confidence interval of the median by order statistics: the sorted
 * values at ranks lo and hi (0-based) cover the population median with
 * probability *coverage, from the binomial(n, 1/2) distribution of the
 * number of values below it. This is the narrowest such interval with
 * coverage >= STATS_CONFIDENCE; below 6 values none reaches 95%, and the
 * whole range is returned with its lower coverage (75% for 3 values).
 */
void stats_median_ci_ranks(size_t n, size_t *lo, size_t *hi, double *coverage);

/* The arithmetic mean; NaN for no values. */
double stats_mean(const double *values, size_t n);

/* Sample standard deviation (n - 1); 0 for fewer than 2 values. */
double stats_stddev(const double *values, size_t n);

/* Sample standard deviation (n - 1) over the mean; 0 for fewer than 2. */
double stats_cv(const double *values, size_t n);

/*
 * Two clusters with a clear gap between them, as when a VM switches a
 * vCPU between two latency modes (60 or 250 ns one-way between the same
 * two vCPUs). Needs at least 5 values. Each cluster must hold at least 2
 * values and a fifth of them, the gap must be at least twice the range of
 * either cluster, and the upper cluster must start at least 20% above
 * the lower one.
 */
bool stats_bimodal(const double *sorted, size_t n);

struct stats_summary {
	size_t n;
	double median;
	double ci_lo, ci_hi;	/* interval of the median */
	double ci_coverage;	/* what the interval really covers */
	double min, max;
	double cv;
	bool noisy;		/* cv > STATS_NOISY_CV */
	bool bimodal;
};

/* Summarises n > 0 values (left unchanged). Returns 0, or -1 without memory. */
int stats_summarize(const double *values, size_t n, struct stats_summary *out);

/* Samples of up to this many values each get an exact U test. */
#define STATS_EXACT_U_MAX 20

/*
 * Two-sided p-value of the Mann-Whitney U test that a and b come from the
 * same distribution: exact (the permutation distribution of the midranks,
 * ties included) when neither sample exceeds STATS_EXACT_U_MAX, the
 * normal approximation with tie and continuity corrections otherwise (as
 * scipy.stats.mannwhitneyu, which Google Benchmark's compare.py uses).
 * Ties are common in compare's counters (a count that is 0 in every
 * repetition), and with few repetitions the approximation is far off.
 * NaN when either sample has fewer than 2 values.
 */
double stats_mann_whitney_p(const double *a, size_t na, const double *b,
			    size_t nb);

struct stats_ratio {
	double ratio;		/* median(num) / median(den), or of the pairs' ratios */
	double lo, hi;		/* bootstrap percentile interval; NaN if none */
	bool one_repetition;	/* no interval because a side has 1 value */
	/*
	 * 0: unpaired (as above). Otherwise the number of rounds paired
	 * (stats_ratio_by_round()): ratio is the median of the per-round
	 * ratios, lo and hi its order-statistic interval.
	 */
	size_t pairs;
	/*
	 * Paired: the two values of the round whose ratio is the median (the
	 * lower of the middle two when the pairs are even), so that prose
	 * quoting "a vs b" beside the ratio shows numbers that agree with
	 * it; the medians of each side need not. NaN when unpaired.
	 */
	double median_num, median_den;
};

/*
 * The ratio of two medians with a 95% percentile-bootstrap interval,
 * resampling both samples independently. The interval is NaN when either
 * sample has fewer than 2 values. Returns 0, or -1 without memory.
 */
int stats_ratio_of_medians(const double *num, size_t nn, const double *den,
			   size_t nd, struct stats_ratio *out);

/*
 * Fewest rounds for a paired ratio: below 6 no order-statistic interval
 * of a median reaches 95%, and no sign test reaches p < 0.05.
 */
#define STATS_MIN_PAIRS 6

/*
 * Two cases measured side by side in rounds (every round runs each case
 * once, so a VM's mode in a round falls on both): num[i] of round
 * num_rounds[i] is divided by den[j] of the same round. The ratio is the
 * median of those per-round ratios with its order-statistic interval
 * (stats_median_ci_ranks()), and *p the exact two-sided sign test of the
 * ratios against 1 (ties dropped: binomial(m, 1/2) over the m others).
 * Only rounds present on both sides count. Returns 0; 1 when the data
 * cannot be paired (fewer than STATS_MIN_PAIRS common rounds, a round
 * twice on one side, a value not above 0), out then unchanged; -1
 * without memory.
 */
int stats_ratio_by_round(const double *num, const long *num_rounds, size_t nn,
			 const double *den, const long *den_rounds, size_t nd,
			 struct stats_ratio *out, double *p);

/* Exact two-sided sign test p of n ratios against 1, ties dropped; 1 if all tie. */
double stats_sign_test_p(const double *ratios, size_t n);

/* The geometric mean of n > 0 positive values. */
double stats_geomean(const double *values, size_t n);

#endif
