// SPDX-License-Identifier: GPL-2.0-only
/*
 * Statistics of repetitions: medians with order-statistic intervals,
 * bootstrap ratios, ratios paired by round with a sign test, the exact
 * and approximate Mann-Whitney U test, bimodality, spreads. One concern
 * (about 600 lines), each function checked against scipy or a hand
 * computation in tests/test_stats.c.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "splitmix64.h"
#include "stats.h"

static int compare_doubles(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

void stats_sort(double *values, size_t n)
{
	qsort(values, n, sizeof(*values), compare_doubles);
}

double stats_median_sorted(const double *sorted, size_t n)
{
	return n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
}

double stats_median(const double *values, size_t n)
{
	double *sorted = malloc(n * sizeof(*sorted));
	double median;

	if (!sorted)
		return NAN;
	memcpy(sorted, values, n * sizeof(*sorted));
	stats_sort(sorted, n);
	median = stats_median_sorted(sorted, n);
	free(sorted);
	return median;
}

/* P(B = i) for B ~ binomial(n, 1/2), in log space for large n. */
static double binomial_half_pmf(size_t n, size_t i)
{
	return exp(lgamma((double)n + 1) - lgamma((double)i + 1) -
		   lgamma((double)(n - i) + 1) - (double)n * M_LN2);
}

/*
 * The CDF is summed as k moves inward, one term per step: O(n), where
 * summing it afresh for every k took 60,000 repetitions of one case
 * tens of seconds. The terms are added in the same order as before.
 */
void stats_median_ci_ranks(size_t n, size_t *lo, size_t *hi, double *coverage)
{
	size_t k = 1;	/* 1-based rank of the lower end */
	double cdf = n ? binomial_half_pmf(n, 0) : 0;	/* P(B <= k - 1) */
	double cover = n ? 1 - 2 * cdf : 0;

	/* Move inward while the next interval still covers 95%. */
	while (k + 1 <= (n + 1) / 2) {
		double next;

		cdf += binomial_half_pmf(n, k);
		next = 1 - 2 * cdf;
		if (next < STATS_CONFIDENCE)
			break;
		cover = next;
		k++;
	}
	*lo = k - 1;
	*hi = n ? n - k : 0;
	*coverage = cover;
}

double stats_mean(const double *values, size_t n)
{
	double sum = 0;

	if (!n)
		return NAN;
	for (size_t i = 0; i < n; i++)
		sum += values[i];
	return sum / (double)n;
}

double stats_stddev(const double *values, size_t n)
{
	double mean, ss = 0;

	if (n < 2)
		return 0;
	mean = stats_mean(values, n);
	for (size_t i = 0; i < n; i++)
		ss += (values[i] - mean) * (values[i] - mean);
	return sqrt(ss / (double)(n - 1));
}

double stats_cv(const double *values, size_t n)
{
	double mean = stats_mean(values, n);

	if (n < 2 || mean == 0)
		return 0;
	return stats_stddev(values, n) / fabs(mean);
}

/*
 * Two clusters: a gap between two sides of at least a fifth of the values
 * each that is wider than their mean spread, all on a log scale, since a
 * host's placements multiply a transfer's cost (2-4 ns in some rounds and
 * 16-27 ns in others, or 31-85 and 235-440 ns): the wider side must not
 * hide the gap, as it would if the gap had to beat the wider spread.
 */
bool stats_bimodal(const double *sorted, size_t n)
{
	size_t min_side = (n + 4) / 5 > 2 ? (n + 4) / 5 : 2;	/* ceil(n / 5) */

	if (n < 5 || !(sorted[0] > 0))
		return false;
	for (size_t i = min_side; i + min_side <= n; i++) {
		double gap = log(sorted[i] / sorted[i - 1]);
		double left = log(sorted[i - 1] / sorted[0]);
		double right = log(sorted[n - 1] / sorted[i]);

		if (sorted[i] >= 1.2 * sorted[i - 1] && gap >= (left + right) / 2)
			return true;
	}
	return false;
}

int stats_summarize(const double *values, size_t n, struct stats_summary *out)
{
	double *sorted = malloc(n * sizeof(*sorted));
	size_t lo, hi;

	if (!sorted)
		return -1;
	memcpy(sorted, values, n * sizeof(*sorted));
	stats_sort(sorted, n);
	stats_median_ci_ranks(n, &lo, &hi, &out->ci_coverage);
	out->n = n;
	out->median = stats_median_sorted(sorted, n);
	out->ci_lo = sorted[lo];
	out->ci_hi = sorted[hi];
	out->min = sorted[0];
	out->max = sorted[n - 1];
	out->cv = stats_cv(values, n);
	out->noisy = out->cv > STATS_NOISY_CV;
	out->bimodal = stats_bimodal(sorted, n);
	free(sorted);
	return 0;
}

struct ranked {
	double value;
	bool from_a;
};

static int compare_ranked(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;

	return (x->value > y->value) - (x->value < y->value);
}

/*
 * Exact two-sided p-value of a's rank sum, over all C(n, na) equally
 * likely ways to choose which na of the n ranks are a's, the ties kept as
 * observed (the permutation test). Ranks are doubled so that midranks
 * such as 2.5 stay integers, and counts[k][s] is the number of k-subsets
 * of the ranks seen so far summing to s. Without ties this is the
 * classical exact U distribution; with them it stays exact where the
 * normal approximation is not: 3 against 3 split by value but tied
 * within (1,1,1 and 2,2,2) has p = 2/20, where the approximation says
 * 0.047.
 */
static double exact_p(const size_t *rank2, size_t n, size_t na, size_t observed)
{
	size_t width = n * (n + 1) + 1;	/* doubled ranks sum to n(n+1) */
	double *counts = calloc((na + 1) * width, sizeof(double));
	double total = 0, below = 0, above = 0, p;

	if (!counts)
		return NAN;
	counts[0] = 1;
	for (size_t i = 0, reach = 0; i < n; i++) {
		reach += rank2[i];	/* no subset of the first i + 1 sums higher */
		for (size_t k = i + 1 < na ? i + 1 : na; k >= 1; k--)
			for (size_t s = reach; s >= rank2[i]; s--)
				counts[k * width + s] += counts[(k - 1) * width + s - rank2[i]];
	}
	for (size_t s = 0; s < width; s++) {
		double c = counts[na * width + s];

		total += c;
		if (s <= observed)
			below += c;
		if (s >= observed)
			above += c;
	}
	free(counts);
	p = 2 * (below < above ? below : above) / total;
	return p > 1 ? 1 : p;
}

/* Normal approximation with tie and continuity corrections, as scipy's. */
static double normal_p(double u, size_t na, size_t nb, double tie_term)
{
	double n = (double)(na + nb);
	double mean = (double)na * (double)nb / 2;
	double var = (double)na * (double)nb / 12 * (n + 1 - tie_term / (n * (n - 1)));
	double z;

	if (var <= 0)
		return 1;
	z = (fabs(u - mean) - 0.5) / sqrt(var);
	return erfc(fmax(z, 0) / M_SQRT2);
}

double stats_mann_whitney_p(const double *a, size_t na, const double *b,
			    size_t nb)
{
	size_t n = na + nb, rank2_sum_a = 0;
	struct ranked *all;
	size_t *rank2;
	double tie_term = 0, p;

	if (na < 2 || nb < 2)
		return NAN;
	all = malloc(n * sizeof(*all));
	rank2 = malloc(n * sizeof(*rank2));
	if (!all || !rank2) {
		free(all);
		free(rank2);
		return NAN;
	}
	for (size_t i = 0; i < na; i++)
		all[i] = (struct ranked){ a[i], true };
	for (size_t i = 0; i < nb; i++)
		all[na + i] = (struct ranked){ b[i], false };
	qsort(all, n, sizeof(*all), compare_ranked);
	for (size_t i = 0; i < n;) {
		size_t j = i;
		double t;

		while (j < n && all[j].value == all[i].value)
			j++;
		t = (double)(j - i);
		tie_term += t * t * t - t;
		for (size_t k = i; k < j; k++) {
			rank2[k] = i + 1 + j;	/* twice the mean of ranks i+1..j */
			if (all[k].from_a)
				rank2_sum_a += rank2[k];
		}
		i = j;
	}
	if (na <= STATS_EXACT_U_MAX && nb <= STATS_EXACT_U_MAX)
		p = exact_p(rank2, n, na, rank2_sum_a);
	else
		p = normal_p((double)rank2_sum_a / 2 - (double)na * ((double)na + 1) / 2,
			     na, nb, tie_term);
	free(all);
	free(rank2);
	return p;
}

/* FNV-1a over the values' bytes: the seed depends on the data only. */
static uint64_t hash_values(uint64_t h, const double *values, size_t n)
{
	const unsigned char *p = (const unsigned char *)values;

	for (size_t i = 0; i < n * sizeof(double); i++) {
		h ^= p[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

/*
 * The k-th smallest of v[0..n) (0-based), reordering v so that every
 * value before index k is <= v[k] (Wirth's selection; signed indices,
 * since j steps below the left end).
 */
static double select_kth(double *v, size_t n, size_t k)
{
	long left = 0, right = (long)n - 1, target = (long)k;

	while (left < right) {
		double pivot = v[target];
		long i = left, j = right;

		do {
			while (v[i] < pivot)
				i++;
			while (pivot < v[j])
				j--;
			if (i <= j) {
				double t = v[i];

				v[i] = v[j];
				v[j] = t;
				i++;
				j--;
			}
		} while (i <= j);
		if (j < target)
			left = i;
		if (target < i)
			right = j;
	}
	return v[k];
}

/*
 * An index below n from 32 random bits, by multiplication rather than a
 * division (this loop is most of the report's run time).
 */
static size_t random_index(uint32_t bits, size_t n)
{
	return (size_t)(((uint64_t)bits * n) >> 32);
}

/*
 * The median of n values drawn with replacement from sorted[]: count how
 * often each position is drawn, then walk the counts to the middle. The
 * resample is never built or sorted, so this is O(n) with no data moves.
 */
static double resampled_median(const double *sorted, size_t n,
			       uint32_t *counts, uint64_t *state)
{
	size_t lower_rank = (n - 1) / 2, upper_rank = n / 2, seen = 0, i = 0;
	double lower = NAN;

	memset(counts, 0, n * sizeof(*counts));
	for (; i + 1 < n; i += 2) {
		uint64_t r = splitmix64_next(state);

		counts[random_index((uint32_t)r, n)]++;
		counts[random_index((uint32_t)(r >> 32), n)]++;
	}
	if (i < n)
		counts[random_index((uint32_t)splitmix64_next(state), n)]++;
	for (size_t k = 0; k < n; k++) {
		seen += counts[k];
		if (isnan(lower) && seen > lower_rank)
			lower = sorted[k];
		if (seen > upper_rank)
			return (lower + sorted[k]) / 2;
	}
	return sorted[n - 1];	/* not reached: the counts sum to n */
}

/* A uniform number in (0, 1), never 0 (its log is taken). */
static double random_uniform(uint64_t *state)
{
	return ((double)(splitmix64_next(state) >> 11) + 0.5) * 0x1.0p-53;
}

/* A standard normal number (Box-Muller, one of the pair). */
static double random_normal(uint64_t *state)
{
	double u = random_uniform(state), v = random_uniform(state);

	return sqrt(-2 * log(u)) * cos(2 * M_PI * v);
}

/*
 * A Gamma(shape, 1) number for shape >= 1: Marsaglia and Tsang, "A simple
 * method for generating gamma variables" (ACM TOMS 26(3), 2000).
 */
static double random_gamma(double shape, uint64_t *state)
{
	double d = shape - 1.0 / 3, c = 1 / sqrt(9 * d);

	for (;;) {
		double x = random_normal(state), v = 1 + c * x, u;

		if (v <= 0)
			continue;
		v = v * v * v;
		u = random_uniform(state);
		if (log(u) < 0.5 * x * x + d - d * v + d * log(v))
			return d * v;
	}
}

/*
 * The same draw as resampled_median(), in O(1) instead of O(n). The
 * resample's j-th smallest index is floor(n * U(j)), where U(j) is the
 * j-th smallest of n uniform numbers and has the Beta(j, n + 1 - j) law;
 * for even n, the next one above it is the smallest of the n - j uniform
 * numbers above U(j). So the bootstrap median is drawn from its exact law,
 * not an approximation of it.
 */
static double resampled_median_direct(const double *sorted, size_t n,
				      uint64_t *state)
{
	size_t j = (n + 1) / 2;	/* 1-based rank of the lower middle */
	double x = random_gamma((double)j, state);
	double u = x / (x + random_gamma((double)(n + 1 - j), state)), next;
	size_t lower = (size_t)(u * (double)n), upper;

	if (lower >= n)
		lower = n - 1;
	if (n % 2)
		return sorted[lower];
	next = u + (1 - u) * (1 - pow(random_uniform(state), 1.0 / (double)(n - j)));
	upper = (size_t)(next * (double)n);
	if (upper >= n)
		upper = n - 1;
	return (sorted[lower] + sorted[upper]) / 2;
}

/*
 * A bootstrap median: by counting draws for small n (cheap there), from
 * its law past STATS_BOOTSTRAP_DIRECT_MIN values, where 2000 resamples of
 * O(n) draws each made a 60,000-repetition comparison take seconds.
 */
static double bootstrap_median(const double *sorted, size_t n,
			       uint32_t *counts, uint64_t *state)
{
	if (n >= STATS_BOOTSTRAP_DIRECT_MIN)
		return resampled_median_direct(sorted, n, state);
	return resampled_median(sorted, n, counts, state);
}

/*
 * Type-7 quantile (linear interpolation) of n values, by selection: the
 * values are reordered, not sorted.
 */
static double quantile_select(double *v, size_t n, double q)
{
	double h = (double)(n - 1) * q, low, next;
	size_t i = (size_t)floor(h);

	low = select_kth(v, n, i);
	if (i + 1 >= n)
		return low;
	next = v[i + 1];	/* the smallest value above index i */
	for (size_t k = i + 2; k < n; k++)
		if (v[k] < next)
			next = v[k];
	return low + (h - (double)i) * (next - low);
}

int stats_ratio_of_medians(const double *num, size_t nn, const double *den,
			   size_t nd, struct stats_ratio *out)
{
	double *a = malloc(nn * sizeof(double));
	double *b = malloc(nd * sizeof(double));
	uint32_t *counts = malloc((nn > nd ? nn : nd) * sizeof(uint32_t));
	double *ratios = malloc(STATS_BOOTSTRAP_RESAMPLES * sizeof(double));
	uint64_t state = 0xcbf29ce484222325ULL;
	int ret = -1;

	if (!a || !b || !counts || !ratios)
		goto out;
	memcpy(a, num, nn * sizeof(double));
	memcpy(b, den, nd * sizeof(double));
	stats_sort(a, nn);
	stats_sort(b, nd);
	out->ratio = stats_median_sorted(a, nn) / stats_median_sorted(b, nd);
	out->lo = out->hi = NAN;
	out->one_repetition = nn < 2 || nd < 2;
	out->pairs = 0;
	ret = 0;
	if (out->one_repetition)
		goto out;
	state = hash_values(hash_values(state, a, nn), b, nd);
	for (size_t r = 0; r < STATS_BOOTSTRAP_RESAMPLES; r++) {
		double top = bootstrap_median(a, nn, counts, &state);

		ratios[r] = top / bootstrap_median(b, nd, counts, &state);
	}
	out->lo = quantile_select(ratios, STATS_BOOTSTRAP_RESAMPLES,
				  (1 - STATS_CONFIDENCE) / 2);
	out->hi = quantile_select(ratios, STATS_BOOTSTRAP_RESAMPLES,
				  (1 + STATS_CONFIDENCE) / 2);
out:
	free(a);
	free(b);
	free(counts);
	free(ratios);
	return ret;
}

double stats_sign_test_p(const double *ratios, size_t n)
{
	size_t above = 0, below = 0, m, fewer;
	double tail = 0;

	for (size_t i = 0; i < n; i++) {
		above += ratios[i] > 1;
		below += ratios[i] < 1;
	}
	m = above + below;
	if (!m)
		return 1;	/* every round tied: no sign of a difference */
	fewer = above < below ? above : below;
	for (size_t i = 0; i <= fewer; i++)
		tail += binomial_half_pmf(m, i);
	/* binomial(m, 1/2) is symmetric: both tails are alike */
	return 2 * tail > 1 ? 1 : 2 * tail;
}

struct in_round {
	long round;
	double value;
};

static int compare_rounds(const void *a, const void *b)
{
	const struct in_round *x = a, *y = b;

	return (x->round > y->round) - (x->round < y->round);
}

/* Whether a side sorted by round holds some round twice: then it is not rounds. */
static bool round_twice(const struct in_round *r, size_t n)
{
	for (size_t i = 1; i < n; i++)
		if (r[i].round == r[i - 1].round)
			return true;
	return false;
}

static struct in_round *sorted_by_round(const double *values, const long *rounds,
					size_t n)
{
	struct in_round *r = malloc((n ? n : 1) * sizeof(*r));

	if (!r)
		return NULL;
	for (size_t i = 0; i < n; i++)
		r[i] = (struct in_round){ rounds[i], values[i] };
	qsort(r, n, sizeof(*r), compare_rounds);
	return r;
}

struct round_pair {
	double ratio, num, den;
};

/*
 * By ratio, then by numerator: rounds of one ratio but other values (2/1
 * and 4/2) come in one order whatever the C library's qsort() does with
 * ties (glibc's merge sort keeps them, an introsort need not), so the
 * median round's values are the same everywhere.
 */
static int compare_pairs(const void *a, const void *b)
{
	const struct round_pair *x = a, *y = b;

	if (x->ratio != y->ratio)
		return x->ratio > y->ratio ? 1 : -1;
	return (x->num > y->num) - (x->num < y->num);
}

int stats_ratio_by_round(const double *num, const long *num_rounds, size_t nn,
			 const double *den, const long *den_rounds, size_t nd,
			 struct stats_ratio *out, double *p)
{
	struct in_round *a = sorted_by_round(num, num_rounds, nn);
	struct in_round *b = sorted_by_round(den, den_rounds, nd);
	size_t room = (nn < nd ? nn : nd) + 1;
	struct round_pair *pairs = malloc(room * sizeof(*pairs));
	double *ratios = malloc(room * sizeof(*ratios));
	size_t i = 0, j = 0, m = 0, lo, hi, mid;
	double coverage;
	int ret = -1;

	if (!a || !b || !pairs || !ratios)
		goto out;
	ret = 1;
	/*
	 * Every round of each side, not only those the walk below reaches:
	 * it stops at the end of the shorter side, past which a round twice
	 * went unseen and the rest was paired as if it were rounds.
	 */
	if (round_twice(a, nn) || round_twice(b, nd))
		goto out;
	/* merge walk: the rounds both sides have */
	while (i < nn && j < nd) {
		if (a[i].round < b[j].round) {
			i++;
		} else if (b[j].round < a[i].round) {
			j++;
		} else {
			if (!(a[i].value > 0) || !(b[j].value > 0))
				goto out;
			pairs[m++] = (struct round_pair){ a[i].value / b[j].value, a[i].value,
							  b[j].value };
			i++;
			j++;
		}
	}
	if (m < STATS_MIN_PAIRS)
		goto out;
	qsort(pairs, m, sizeof(*pairs), compare_pairs);
	for (i = 0; i < m; i++)
		ratios[i] = pairs[i].ratio;
	*p = stats_sign_test_p(ratios, m);
	stats_median_ci_ranks(m, &lo, &hi, &coverage);
	mid = (m - 1) / 2;
	*out = (struct stats_ratio){
		.ratio = stats_median_sorted(ratios, m),
		.lo = ratios[lo], .hi = ratios[hi], .pairs = m,
		.median_num = pairs[mid].num, .median_den = pairs[mid].den,
	};
	ret = 0;
out:
	free(a);
	free(b);
	free(pairs);
	free(ratios);
	return ret;
}

double stats_geomean(const double *values, size_t n)
{
	double sum = 0;

	for (size_t i = 0; i < n; i++)
		sum += log(values[i]);
	return exp(sum / (double)n);
}
