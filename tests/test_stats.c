// SPDX-License-Identifier: GPL-2.0-only
/*
 * The report's statistics against hand-computed cases: medians, their
 * order-statistic intervals, the U test, bootstrap ratios, the USL fit,
 * and the number formats the prose and tables share.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "float_assert.h"

#include "format.h"
#include "stats.h"
#include "usl.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static void test_median(void **state)
{
	const double odd[] = { 5, 1, 3 }, even[] = { 4, 1, 3, 2 }, one[] = { 7 };

	(void)state;
	assert_float_equal(stats_median(odd, 3), 3, 0);
	assert_float_equal(stats_median(even, 4), 2.5, 0);
	assert_float_equal(stats_median(one, 1), 7, 0);
	/* the input is left as it was */
	assert_float_equal(odd[0], 5, 0);
}

/*
 * Coverage of [x(k), x(n-k+1)] is 1 - 2 P(B <= k-1), B ~ binomial(n, 1/2).
 * n = 9: P(B <= 1) = 10/512, so k = 2 covers 1 - 20/512 = 0.9609375;
 * k = 3 would cover 1 - 2 * 46/512 = 0.82 < 0.95.
 * n = 20: P(B <= 5) = 21700/2^20 -> 0.958611; P(B <= 6) -> 0.88 < 0.95.
 * n = 3: only the range, 1 - 2/8 = 0.75. n = 6: the range, 1 - 2/64.
 */
static void test_median_ci_ranks(void **state)
{
	size_t lo, hi;
	double cover;

	(void)state;
	stats_median_ci_ranks(9, &lo, &hi, &cover);
	assert_int_equal(lo, 1);
	assert_int_equal(hi, 7);
	assert_float_equal(cover, 1 - 20.0 / 512, 1e-12);
	stats_median_ci_ranks(20, &lo, &hi, &cover);
	assert_int_equal(lo, 5);
	assert_int_equal(hi, 14);
	assert_float_equal(cover, 1 - 2 * 21700.0 / 1048576, 1e-12);
	stats_median_ci_ranks(3, &lo, &hi, &cover);
	assert_int_equal(lo, 0);
	assert_int_equal(hi, 2);
	assert_float_equal(cover, 0.75, 1e-12);
	stats_median_ci_ranks(6, &lo, &hi, &cover);
	assert_int_equal(lo, 0);
	assert_int_equal(hi, 5);
	assert_float_equal(cover, 1 - 2.0 / 64, 1e-12);
	/*
	 * A large sample, where the CDF is summed term by term: the ranks
	 * and coverage from exact integer binomials (Python's math.comb and
	 * fractions, 2^10000 in the denominator).
	 */
	stats_median_ci_ranks(10000, &lo, &hi, &cover);
	assert_int_equal(lo, 4901);
	assert_int_equal(hi, 5098);
	assert_float_equal(cover, 0.9511670501036181, 1e-9);
}

static void test_summary(void **state)
{
	const double v[] = { 9, 1, 8, 2, 7, 3, 6, 4, 5 };
	struct stats_summary s;

	(void)state;
	assert_int_equal(stats_summarize(v, N(v), &s), 0);
	assert_float_equal(s.median, 5, 0);
	assert_float_equal(s.ci_lo, 2, 0);	/* ranks 1 and 7 of 1..9 */
	assert_float_equal(s.ci_hi, 8, 0);
	assert_float_equal(s.min, 1, 0);
	assert_float_equal(s.max, 9, 0);
	/* mean 5, sample sd sqrt(60 / 8) */
	assert_float_equal(s.cv, sqrt(7.5) / 5, 1e-12);
	assert_true(s.noisy);
	assert_false(s.bimodal);
}

/*
 * Noisy means a CV above 10%, as the README says: two values 100 -+ d
 * have a sample sd of d * sqrt(2), so d = 7.5 is a CV of 10.6% (noisy)
 * and d = 7 one of 9.9% (not noisy).
 */
static void test_noisy_starts_above_ten_percent(void **state)
{
	const double above[] = { 92.5, 107.5 }, below[] = { 93, 107 };
	struct stats_summary s;

	(void)state;
	assert_int_equal(stats_summarize(above, N(above), &s), 0);
	assert_float_equal(s.cv, 7.5 * sqrt(2) / 100, 1e-12);
	assert_true(s.noisy);
	assert_int_equal(stats_summarize(below, N(below), &s), 0);
	assert_float_equal(s.cv, 7 * sqrt(2) / 100, 1e-12);
	assert_false(s.noisy);
}

static void test_cv(void **state)
{
	const double v[] = { 1, 2, 3, 4, 5 }, flat[] = { 3, 3, 3 };

	(void)state;
	assert_float_equal(stats_cv(v, 5), sqrt(2.5) / 3, 1e-12);
	assert_float_equal(stats_cv(flat, 3), 0, 0);
	assert_float_equal(stats_cv(v, 1), 0, 0);
}

static void test_bimodal(void **state)
{
	/* a VM switching between 60 and 250 ns one-way */
	double modes[] = { 60, 61, 59, 62, 250, 251, 249, 60, 248 };
	double spread[] = { 10, 11, 12, 13, 14, 15, 16, 17, 18 };
	double outlier[] = { 60, 61, 59, 62, 60, 61, 60, 59, 250 };
	double few[] = { 60, 250, 60, 250 };
	/* 2 of 11 is less than a fifth: still an outlier pair */
	double pair[] = { 60, 61, 59, 62, 60, 61, 60, 59, 61, 250, 251 };
	/* 3 of 11 is more */
	double third[] = { 60, 61, 59, 62, 60, 61, 60, 59, 249, 250, 251 };

	(void)state;
	stats_sort(modes, N(modes));
	stats_sort(spread, N(spread));
	stats_sort(outlier, N(outlier));
	assert_true(stats_bimodal(modes, N(modes)));
	assert_false(stats_bimodal(spread, N(spread)));
	/* one stray value is an outlier, not a second mode */
	assert_false(stats_bimodal(outlier, N(outlier)));
	/* four values are too few to tell */
	stats_sort(few, N(few));
	assert_false(stats_bimodal(few, N(few)));
	stats_sort(pair, N(pair));
	assert_false(stats_bimodal(pair, N(pair)));
	stats_sort(third, N(third));
	assert_true(stats_bimodal(third, N(third)));
}

/*
 * The rule's thresholds at their edges, by hand: a mode needs ceil(n / 5)
 * values (n = 15: 3 are a mode, 2 are not; n = 10: 2 are), and the gap at
 * least 1.2x (10 to 12 is one, 10 to 11.9 is not).
 */
static void test_bimodal_edges(void **state)
{
	double fifteen[15], ten[10];

	(void)state;
	for (int i = 0; i < 15; i++)
		fifteen[i] = i < 12 ? 10 : 20;
	assert_true(stats_bimodal(fifteen, 15));
	fifteen[12] = 10;
	assert_false(stats_bimodal(fifteen, 15));
	for (int i = 0; i < 10; i++)
		ten[i] = i < 8 ? 10 : 12;
	assert_true(stats_bimodal(ten, 10));
	ten[8] = ten[9] = 11.9;
	assert_false(stats_bimodal(ten, 10));
	ten[8] = 10;
	ten[9] = 20;
	assert_false(stats_bimodal(ten, 10));
	/* five values are enough: two at 1 and three at 10, no spread on either side */
	assert_true(stats_bimodal((double[]){ 1, 1, 10, 10, 10 }, 5));
	/*
	 * Only the first n values are the sample: five at 10 and four at 20
	 * split at 2x with no spread on either side, whatever lies past the
	 * ninth (a right side reaching 1e6 would be spread enough to hide it:
	 * sorted[n] read for the right side's top, not sorted[n - 1]).
	 */
	assert_true(stats_bimodal((double[]){ 10, 10, 10, 10, 10, 20, 20, 20, 20, 1e6 }, 9));
	/*
	 * Times under a nanosecond are times (an empty loop's): 0.1 and 1 ns
	 * split at 10x like any other (only a smallest value of 0 or less has
	 * no log scale, not one of 1 or less).
	 */
	assert_true(stats_bimodal((double[]){ 0.1, 0.1, 1, 1, 1 }, 5));
	assert_false(stats_bimodal((double[]){ 0, 0, 1, 1, 1 }, 5));
}

/*
 * Rows of a Zen 3 guest's run whose host moved the vCPUs: a plain packed
 * update at 2-5 ns in three rounds and 16-27 ns in six, and the pingpong
 * at 31-85 ns one way in seven rounds and 235-440 in two. The old rule
 * (a gap twice the wider side's spread, linear) flagged neither.
 */
static void test_bimodal_host_modes(void **state)
{
	double packed[] = { 26.5, 17.3, 23.1, 16.2, 20.1, 4.4, 4.3, 25.0, 4.7 };
	double pingpong[] = { 43.2, 49.5, 40.6, 85.4, 42.5, 30.6, 439.8, 235.4, 41.4 };
	/* one placement's rounds within 1.6x of each other: one mode */
	double one[] = { 30.6, 40.6, 41.4, 42.5, 43.2, 49.5, 45.0, 38.0, 36.0 };

	(void)state;
	stats_sort(packed, N(packed));
	stats_sort(pingpong, N(pingpong));
	stats_sort(one, N(one));
	assert_true(stats_bimodal(packed, N(packed)));
	assert_true(stats_bimodal(pingpong, N(pingpong)));
	assert_false(stats_bimodal(one, N(one)));
}

/*
 * Exact: for 3 against 3 with no ties, U is distributed over 0..9 with
 * counts 1 1 2 3 3 3 3 2 1 1 (of 20). x = {1,2,3} below y = {4,5,6}:
 * U = 0, p = 2/20. x = {1,3,5}, y = {2,4,6}: U = 3, p = 2 * 7/20 = 0.7.
 * Five against five, separated: p = 2/252.
 *
 * Ties stay exact, over the C(6, 3) = 20 ways to give x three of the six
 * midranks. x = {1,1,1}, y = {2,2,2}: midranks 2,2,2,5,5,5; only x's own
 * choice sums to 6, p = 2/20 (the normal approximation says 0.047).
 * x = {1,2,2}, y = {2,3,4}: midranks 1,3,3,3,5,6, x's sum 7; the subsets
 * {1,3,3} (three of them) sum to 7 and none to less, p = 2 * 3/20 = 0.3.
 * All six equal: p = 1.
 */
static void test_mann_whitney_exact(void **state)
{
	const double a[] = { 1, 2, 3 }, b[] = { 4, 5, 6 };
	const double c[] = { 1, 3, 5 }, d[] = { 2, 4, 6 };
	const double e[] = { 1, 2, 3, 4, 5 }, f[] = { 6, 7, 8, 9, 10 };
	const double ones[] = { 1, 1, 1 }, twos[] = { 2, 2, 2 };
	const double g[] = { 1, 2, 2 }, h[] = { 2, 3, 4 };

	(void)state;
	assert_float_equal(stats_mann_whitney_p(a, 3, b, 3), 0.1, 1e-12);
	assert_float_equal(stats_mann_whitney_p(b, 3, a, 3), 0.1, 1e-12);
	assert_float_equal(stats_mann_whitney_p(c, 3, d, 3), 0.7, 1e-12);
	assert_float_equal(stats_mann_whitney_p(e, 5, f, 5), 2.0 / 252, 1e-12);
	assert_float_equal(stats_mann_whitney_p(a, 3, a, 3) , 1, 1e-12);
	assert_float_equal(stats_mann_whitney_p(ones, 3, twos, 3), 0.1, 1e-12);
	assert_float_equal(stats_mann_whitney_p(twos, 3, ones, 3), 0.1, 1e-12);
	assert_float_equal(stats_mann_whitney_p(g, 3, h, 3), 0.3, 1e-12);
	assert_float_equal(stats_mann_whitney_p(h, 3, g, 3), 0.3, 1e-12);
	assert_float_equal(stats_mann_whitney_p(ones, 3, ones, 3), 1, 1e-12);
	assert_true(isnan(stats_mann_whitney_p(a, 1, b, 3)));
}

/*
 * Normal approximation, continuity-corrected. 21 against 21, no ties:
 * x = 1..21, y = 10.5..30.5, U = 1 + ... + 11 = 66, mean 220.5,
 * var = 21 * 21 * 43 / 12, z = 154 / sqrt(1580.25),
 * p = erfc(z / sqrt 2) = 1.0707045073714981e-04.
 * With ties (x = 0,0,1,1,...,12; y = 3,3,4,4,...,15; 25 each): U = 181,
 * sum(t^3 - t) = 594, p = 0.0108393213436.
 */
static void test_mann_whitney_normal(void **state)
{
	double x[25], y[25];

	(void)state;
	for (int i = 0; i < 21; i++) {
		x[i] = 1 + i;
		y[i] = 10.5 + i;
	}
	assert_float_equal(stats_mann_whitney_p(x, 21, y, 21), 1.0707045073714981e-04, 1e-15);
	for (int i = 0; i < 25; i++) {
		x[i] = i / 2;
		y[i] = i / 2 + 3;
	}
	assert_float_equal(stats_mann_whitney_p(x, 25, y, 25), 0.010839321343599726, 1e-12);
}

static void test_ratio(void **state)
{
	const double flat_num[] = { 4, 4, 4 }, flat_den[] = { 2, 2, 2 };
	const double num[] = { 10, 11, 12, 13, 14, 10.5, 12.5 };
	const double shuffled[] = { 12.5, 14, 10, 13, 10.5, 11, 12 };
	const double den[] = { 1, 1.1, 0.9, 1.05, 0.95, 1.02, 0.98 };
	struct stats_ratio r, again, order;

	(void)state;
	assert_int_equal(stats_ratio_of_medians(flat_num, 3, flat_den, 3, &r), 0);
	assert_float_equal(r.ratio, 2, 0);
	assert_float_equal(r.lo, 2, 0);
	assert_float_equal(r.hi, 2, 0);
	assert_int_equal(stats_ratio_of_medians(num, 7, den, 7, &r), 0);
	assert_float_equal(r.ratio, 12 / 1.0, 1e-12);
	assert_true(r.lo <= r.ratio && r.ratio <= r.hi);
	/* every resampled median lies within the data: 10/1.1 .. 14/0.9 */
	assert_true(r.lo >= 10 / 1.1 && r.hi <= 14 / 0.9);
	/* deterministic, and blind to the order of the repetitions */
	stats_ratio_of_medians(num, 7, den, 7, &again);
	stats_ratio_of_medians(shuffled, 7, den, 7, &order);
	assert_true(r.ratio == again.ratio && r.lo == again.lo && r.hi == again.hi);
	assert_true(r.ratio == order.ratio && r.lo == order.lo && r.hi == order.hi);
	assert_false(r.one_repetition);
	/* one repetition: a ratio, no interval */
	stats_ratio_of_medians(num, 1, den, 7, &r);
	assert_float_equal(r.ratio, 10, 1e-12);
	assert_true(isnan(r.lo) && isnan(r.hi));
	assert_true(r.one_repetition);
}

/*
 * From STATS_BOOTSTRAP_DIRECT_MIN values on, a resampled median is drawn
 * from its law; for an even count it is the mean of the two middle draws.
 * Every resample of constant data has that constant as its median, so the
 * interval of 3 (1000 values, even) over 1.5 (1001, odd) is exactly 2..2.
 */
static void test_ratio_direct_constant(void **state)
{
	static double num[STATS_BOOTSTRAP_DIRECT_MIN], den[STATS_BOOTSTRAP_DIRECT_MIN + 1];
	struct stats_ratio r;

	(void)state;
	for (size_t i = 0; i < N(num); i++)
		num[i] = 3;
	for (size_t i = 0; i < N(den); i++)
		den[i] = 1.5;
	assert_int_equal(stats_ratio_of_medians(num, N(num), den, N(den), &r), 0);
	assert_float_equal(r.ratio, 2, 0);
	assert_float_equal(r.lo, 2, 0);
	assert_float_equal(r.hi, 2, 0);
	/* and the other way round: an odd count over an even one */
	assert_int_equal(stats_ratio_of_medians(den, N(den), num, N(num), &r), 0);
	assert_float_equal(r.lo, 0.5, 0);
	assert_float_equal(r.hi, 0.5, 0);
	/*
	 * Over a constant, the interval is the numerator median's alone:
	 * values evenly over [1, 2] (density 1) have median 1.5 with standard
	 * error 1 / (2 sqrt 1000), so 1.5 +- 1.96 / (2 sqrt 1000) = +- 0.031
	 * (within a quarter of that: 2000 resamples' noise on a 2.5% tail).
	 * A draw of another rank than the middle's would miss it entirely.
	 */
	for (size_t i = 0; i < N(num); i++)
		num[i] = 1 + (double)i / (N(num) - 1);
	for (size_t i = 0; i < N(den); i++)
		den[i] = 1;
	assert_int_equal(stats_ratio_of_medians(num, N(num), den, N(den), &r), 0);
	assert_float_equal(r.ratio, 1.5, 1e-12);
	assert_float_equal(r.lo, 1.5 - 1.96 / (2 * sqrt(1000)), 0.25 * 1.96 / (2 * sqrt(1000)));
	assert_float_equal(r.hi, 1.5 + 1.96 / (2 * sqrt(1000)), 0.25 * 1.96 / (2 * sqrt(1000)));
}

/*
 * Many repetitions: the bootstrap interval against the median's normal
 * law. Values evenly spread over [1, 2] (density 1) and over [2, 4]
 * (density 1/2): the medians 1.5 and 3 have standard errors 1/(2 sqrt n)
 * and 1/sqrt n, so the ratio 0.5 has relative error sqrt(2)/(3 sqrt n)
 * and a 95% interval of 0.5 +- 1.96 * 0.5 * sqrt(2)/(3 sqrt n). Below
 * STATS_BOOTSTRAP_DIRECT_MIN the resamples are counted, from it on the
 * median is drawn from its law: both must give that interval (within 15%
 * of its half-width: 2000 resamples put about 3% of noise on a 2.5% tail).
 */
static void test_ratio_many_repetitions(void **state)
{
	const size_t sizes[] = { 999, 1000, 4000, 4001, 60000 };

	(void)state;
	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		size_t n = sizes[s];
		double *num = malloc(n * sizeof(double)), *den = malloc(n * sizeof(double));
		double half = 1.96 * 0.5 * sqrt(2) / (3 * sqrt((double)n));
		struct stats_ratio r;

		assert_non_null(num);
		assert_non_null(den);
		for (size_t i = 0; i < n; i++) {
			num[i] = 1 + ((double)i + 0.5) / (double)n;
			den[i] = 2 + 2 * ((double)i + 0.5) / (double)n;
		}
		assert_int_equal(stats_ratio_of_medians(num, n, den, n, &r), 0);
		print_message("n %zu: ratio %.6f, CI %.6f-%.6f, expected half-width %.6f\n",
			      n, r.ratio, r.lo, r.hi, half);
		assert_float_equal(r.ratio, 0.5, 1e-12);
		assert_float_equal((r.hi - r.lo) / 2, half, 0.15 * half);
		assert_float_equal((r.hi + r.lo) / 2, 0.5, 0.15 * half);
		free(num);
		free(den);
	}
}

/*
 * has_pinned at already_set=0, 2 threads, from a run whose last three
 * rounds fell in the VM's slow mode (tests/data/results-rounds.json):
 * each side in its own order of rounds, read_then_set without round 4.
 * Expected values from numpy and scipy (tests/data/rounds-expected.tsv):
 * the median of the 8 per-round ratios, its order-statistic interval (the
 * whole range at 8 pairs) and binomtest(1, 8, 0.5).
 */
static void test_ratio_by_round(void **state)
{
	const double store[] = { 119.3, 51.52, 43.45, 52.56, 108.9, 48.16, 47.81, 114.6, 44.44 };
	const long store_rounds[] = { 6, 0, 4, 1, 8, 2, 5, 7, 3 };
	const double rts[] = { 47.50, 98.33, 48.43, 93.94, 41.57, 96.41, 49.31, 47.35 };
	const long rts_rounds[] = { 0, 8, 1, 7, 2, 6, 3, 5 };
	const long twice[] = { 0, 8, 1, 7, 2, 6, 3, 3 };
	const double ties[] = { 1, 1, 2, 2, 2, 2, 2, 2 }, nine_up[] = { 2, 2, 2, 2, 2, 2, 2, 2, 2 };
	const double seven_of_nine[] = { 2, 2, 2, 2, 2, 2, 2, 0.5, 0.5 };
	const double zero[] = { 47.50, 98.33, 48.43, 93.94, 0, 96.41, 49.31, 47.35 };
	struct stats_ratio r, unpaired;
	double p = -1;
	char buf[FORMAT_LEN];

	(void)state;
	assert_int_equal(stats_ratio_by_round(store, store_rounds, N(store), rts, rts_rounds,
					      N(rts), &r, &p), 0);
	assert_int_equal(r.pairs, 8);
	assert_float_equal(r.ratio, 1.0963864448745002, 1e-12);
	assert_float_equal(r.lo, 0.9012370715879131, 1e-12);
	assert_float_equal(r.hi, 1.2374235037859143, 1e-12);
	assert_float_equal(p, 0.0703125, 1e-12);
	assert_string_equal(format_ratio_ci(buf, &r), "1.10x (95% CI 0.90–1.24, paired by round)");
	/* unpaired, the modes make the same data look anything from 0.5x to 2.3x */
	assert_int_equal(stats_ratio_of_medians(store, N(store), rts, N(rts), &unpaired), 0);
	assert_int_equal(unpaired.pairs, 0);
	assert_true(unpaired.lo < 0.6 && unpaired.hi > 2);
	assert_true(r.hi - r.lo < (unpaired.hi - unpaired.lo) / 4);
	/*
	 * Seven rounds of one ratio, 2, whose values differ: the median
	 * round is the one with the middle numerator (8 over 4), whichever
	 * order the rounds came in.
	 */
	{
		const double nums[] = { 14, 2, 10, 6, 8, 12, 4 };
		const double dens[] = { 7, 1, 5, 3, 4, 6, 2 };
		const long rounds[] = { 0, 1, 2, 3, 4, 5, 6 };
		const long reversed[] = { 6, 5, 4, 3, 2, 1, 0 };

		assert_int_equal(stats_ratio_by_round(nums, rounds, 7, dens, rounds, 7, &r, &p), 0);
		assert_float_equal(r.ratio, 2, 0);
		assert_float_equal(r.median_num, 8, 0);
		assert_float_equal(r.median_den, 4, 0);
		assert_int_equal(stats_ratio_by_round(nums, reversed, 7, dens, reversed, 7, &r, &p), 0);
		assert_float_equal(r.median_num, 8, 0);
		assert_float_equal(r.median_den, 4, 0);
	}
	/* not pairs: a round twice, too few rounds in common, a zero */
	assert_int_equal(stats_ratio_by_round(store, store_rounds, N(store), rts, twice,
					      N(rts), &r, &p), 1);
	assert_int_equal(stats_ratio_by_round(store, store_rounds, N(store), rts, rts_rounds,
					      5, &r, &p), 1);
	assert_int_equal(stats_ratio_by_round(store, store_rounds, N(store), zero, rts_rounds,
					      N(zero), &r, &p), 1);
	/* the exact sign test (scipy.stats.binomtest), ties dropped */
	assert_float_equal(stats_sign_test_p(nine_up, 9), 2.0 / 512, 1e-15);
	assert_float_equal(stats_sign_test_p(seven_of_nine, 9), 0.1796875, 1e-15);
	assert_float_equal(stats_sign_test_p(ties, 8), 0.03125, 1e-15);
	assert_float_equal(stats_sign_test_p(ties, 2), 1, 0);
#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
	/*
	 * 2^50 rounds on one side: no memory for them (2^54 bytes), -1, not 1.
	 * The sanitizers' allocators stop the program at such a request
	 * instead of returning NULL.
	 */
	assert_int_equal(stats_ratio_by_round(store, store_rounds, (size_t)1 << 50, rts, rts_rounds,
					      N(rts), &r, &p), -1);
#endif
}

static void test_geomean(void **state)
{
	const double v[] = { 1, 4, 16 };

	(void)state;
	assert_float_equal(stats_geomean(v, 3), 4, 1e-12);
}

/* X(N) = 100 N / (1 + 0.05 (N - 1) + 0.002 N (N - 1)) at N = 1, 2, 4, 8, 16. */
static void test_usl_exact(void **state)
{
	double n[] = { 1, 2, 4, 8, 16 }, x[5];
	struct usl_fit fit;

	(void)state;
	for (int i = 0; i < 5; i++)
		x[i] = 100 * n[i] / (1 + 0.05 * (n[i] - 1) + 0.002 * n[i] * (n[i] - 1));
	assert_int_equal(usl_fit(n, x, 5, &fit), 0);
	assert_float_equal(fit.sigma, 0.05, 1e-9);
	assert_float_equal(fit.kappa, 0.002, 1e-9);
	assert_float_equal(fit.x1, 100, 0);
	assert_float_equal(fit.r2, 1, 1e-9);
	/* peak at sqrt((1 - 0.05) / 0.002) = 21.79 threads */
	assert_float_equal(usl_peak(&fit), sqrt(0.95 / 0.002), 1e-6);
	assert_float_equal(usl_throughput(&fit, 40),
			   100 * 40 / (1 + 0.05 * 39 + 0.002 * 40 * 39), 1e-6);
}

/*
 * Hand-computed least squares through the origin with N = 1, 2, 3:
 * x = N - 1 = 1, 2 and y = N / C(N) - 1 = 0.25, 1 (C = 1.6, 1.5).
 * y = a x^2 + b x: sums x^2 = 5, x^3 = 9, x^4 = 17, xy = 2.25, x^2y = 4.25;
 * det = 17 * 5 - 81 = 4, a = (4.25 * 5 - 9 * 2.25) / 4 = 0.25,
 * b = (17 * 2.25 - 9 * 4.25) / 4 = 0: kappa = 0.25, sigma = -0.25 < 0.
 * The constrained optimum is on an edge: sigma = 0 gives kappa =
 * (2 * 0.25 + 6 * 1) / (4 + 36) = 0.1625, the least squared error.
 */
static void test_usl_constrained(void **state)
{
	/* a fourth point past the count, which a loop to i <= count would fit too */
	double n[] = { 1, 2, 3, 5 }, x[] = { 10, 16, 15, 1 };
	double linear[] = { 10, 20, 30 };
	struct usl_fit fit;

	(void)state;
	assert_int_equal(usl_fit(n, x, 3, &fit), 0);
	assert_float_equal(fit.sigma, 0, 0);
	assert_float_equal(fit.kappa, 0.1625, 1e-12);
	assert_int_equal(fit.nr_points, 3);
	/*
	 * r^2 by its definition over the three points: the curve
	 * 10 N / (1 + 0.1625 N (N - 1)) misses N = 2 and 3 by 16 - 20 / 1.325
	 * and 15 - 30 / 1.975; the values' squares about their mean 41/3 sum
	 * to (121 + 49 + 16) / 9.
	 */
	{
		double e2 = 16 - 20 / 1.325, e3 = 15 - 30 / 1.975;

		assert_float_equal(fit.r2, 1 - (e2 * e2 + e3 * e3) / (186.0 / 9), 1e-12);
	}
	/* perfectly linear: no contention, no coherency */
	assert_int_equal(usl_fit(n, linear, 3, &fit), 0);
	assert_float_equal(fit.sigma, 0, 1e-12);
	assert_float_equal(fit.kappa, 0, 1e-12);
	assert_true(isinf(usl_peak(&fit)));
}

static void test_usl_refuses(void **state)
{
	double two_n[] = { 1, 2 }, two_x[] = { 10, 15 };
	double no_one_n[] = { 2, 4, 8 }, no_one_x[] = { 10, 15, 18 };
	double bad_x[] = { 10, 0, 15 }, n[] = { 1, 2, 4 };
	struct usl_fit fit;

	(void)state;
	assert_int_equal(usl_fit(two_n, two_x, 2, &fit), -1);
	assert_int_equal(usl_fit(no_one_n, no_one_x, 3, &fit), -1);
	assert_int_equal(usl_fit(n, bad_x, 3, &fit), -1);
}

static void test_formats(void **state)
{
	char buf[FORMAT_LEN];
	struct stats_ratio r = { .ratio = 7.83, .lo = 6.91, .hi = 8.42 };
	struct stats_ratio none = { .ratio = 2.5, .lo = NAN, .hi = NAN, .one_repetition = true };
	struct stats_ratio zero = { .ratio = 2.5, .lo = 0.5, .hi = INFINITY };

	(void)state;
	assert_string_equal(format_sig(buf, 14.27), "14.3");
	assert_string_equal(format_sig(buf, 5.7), "5.70");
	assert_string_equal(format_sig(buf, 9.996), "10.0");
	assert_string_equal(format_sig(buf, 0.0123456), "0.0123");
	assert_string_equal(format_sig(buf, 477729.97), "477730");
	assert_string_equal(format_sig(buf, 0), "0");
	assert_string_equal(format_ratio(buf, 7.83), "7.83x");
	assert_string_equal(format_ratio(buf, 46.64), "46.6x");
	assert_string_equal(format_ratio(buf, 466.4), "466x");
	assert_string_equal(format_ratio(buf, 0.0043), "0.0043x");
	assert_string_equal(format_ratio_ci(buf, &r), "7.83x (95% CI 6.91–8.42)");
	assert_string_equal(format_ratio_ci(buf, &none), "2.50x (no CI: 1 repetition)");
	assert_string_equal(format_ratio_ci(buf, &zero), "2.50x (no CI: a zero value)");
	assert_string_equal(format_p(buf, 0.1), "0.10");
	assert_string_equal(format_p(buf, 0.0079365), "0.008");
	assert_string_equal(format_p(buf, 0.00001), "< 0.001");
	assert_string_equal(format_p(buf, NAN), "n/a");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_median),
		cmocka_unit_test(test_median_ci_ranks),
		cmocka_unit_test(test_summary),
		cmocka_unit_test(test_cv),
		cmocka_unit_test(test_noisy_starts_above_ten_percent),
		cmocka_unit_test(test_bimodal),
		cmocka_unit_test(test_bimodal_host_modes),
		cmocka_unit_test(test_bimodal_edges),
		cmocka_unit_test(test_mann_whitney_exact),
		cmocka_unit_test(test_mann_whitney_normal),
		cmocka_unit_test(test_ratio),
		cmocka_unit_test(test_ratio_many_repetitions),
		cmocka_unit_test(test_ratio_direct_constant),
		cmocka_unit_test(test_ratio_by_round),
		cmocka_unit_test(test_geomean),
		cmocka_unit_test(test_usl_exact),
		cmocka_unit_test(test_usl_constrained),
		cmocka_unit_test(test_usl_refuses),
		cmocka_unit_test(test_formats),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
