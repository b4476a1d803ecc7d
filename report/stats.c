// SPDX-License-Identifier: GPL-2.0-only
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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

/* P(B <= j) for B ~ binomial(n, 1/2), summed in log space for large n. */
static double binomial_half_cdf(size_t n, size_t j)
{
	double sum = 0;

	for (size_t i = 0; i <= j && i <= n; i++)
		sum += exp(lgamma((double)n + 1) - lgamma((double)i + 1) -
			   lgamma((double)(n - i) + 1) - (double)n * M_LN2);
	return sum;
}

void stats_median_ci_ranks(size_t n, size_t *lo, size_t *hi, double *coverage)
{
	size_t k = 1;	/* 1-based rank of the lower end */
	double cover = n ? 1 - 2 * binomial_half_cdf(n, 0) : 0;

	/* Move inward while the next interval still covers 95%. */
	while (k + 1 <= (n + 1) / 2) {
		double next = 1 - 2 * binomial_half_cdf(n, k);

		if (next < STATS_CONFIDENCE)
			break;
		cover = next;
		k++;
	}
	*lo = k - 1;
	*hi = n ? n - k : 0;
	*coverage = cover;
}

double stats_cv(const double *values, size_t n)
{
	double mean = 0, ss = 0;

	if (n < 2)
		return 0;
	for (size_t i = 0; i < n; i++)
		mean += values[i];
	mean /= (double)n;
	for (size_t i = 0; i < n; i++)
		ss += (values[i] - mean) * (values[i] - mean);
	if (mean == 0)
		return 0;
	return sqrt(ss / (double)(n - 1)) / fabs(mean);
}

bool stats_bimodal(const double *sorted, size_t n)
{
	size_t min_side = n / 5 > 2 ? (n + 4) / 5 : 2;

	if (n < 5)
		return false;
	for (size_t i = min_side; i + min_side <= n; i++) {
		double gap = sorted[i] - sorted[i - 1];
		double left = sorted[i - 1] - sorted[0];
		double right = sorted[n - 1] - sorted[i];
		double spread = left > right ? left : right;

		if (gap > 0 && gap >= 2 * spread &&
		    sorted[i] >= 1.2 * sorted[i - 1])
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
 * Number of orderings of na + nb distinct values in which the statistic U
 * (pairs with the a-value above the b-value) takes each value 0..na*nb,
 * over all C(na + nb, na) equally likely orderings. The largest value is
 * either an a, above all nb b-values, or a b: counts[i][j][u] =
 * counts[i-1][j][u-j] + counts[i][j-1][u], kept one row of i at a time.
 */
static double *exact_u_counts(size_t na, size_t nb)
{
	size_t width = na * nb + 1;
	double *prev = calloc((nb + 1) * width, sizeof(double));
	double *cur = calloc((nb + 1) * width, sizeof(double));
	double *tmp;

	if (!prev || !cur) {
		free(prev);
		free(cur);
		return NULL;
	}
	for (size_t j = 0; j <= nb; j++)
		prev[j * width] = 1;	/* no a-values: U = 0 */
	for (size_t i = 1; i <= na; i++) {
		memset(cur, 0, (nb + 1) * width * sizeof(double));
		cur[0] = 1;		/* no b-values: U = 0 */
		for (size_t j = 1; j <= nb; j++)
			for (size_t u = 0; u <= i * j; u++)
				cur[j * width + u] =
					(u >= j ? prev[j * width + u - j] : 0) +
					cur[(j - 1) * width + u];
		tmp = prev;
		prev = cur;
		cur = tmp;
	}
	free(cur);
	/* The answer is row nb of the last computed i: move it to the front. */
	memmove(prev, prev + nb * width, width * sizeof(double));
	return prev;
}

static double exact_p(size_t na, size_t nb, double u)
{
	double *counts = exact_u_counts(na, nb);
	double total = 0, below = 0, above = 0, p;

	if (!counts)
		return NAN;
	for (size_t k = 0; k <= na * nb; k++) {
		total += counts[k];
		if ((double)k <= u)
			below += counts[k];
		if ((double)k >= u)
			above += counts[k];
	}
	free(counts);
	p = 2 * (below < above ? below : above) / total;
	return p > 1 ? 1 : p;
}

double stats_mann_whitney_p(const double *a, size_t na, const double *b,
			    size_t nb)
{
	size_t n = na + nb;
	struct ranked *all;
	double rank_sum_a = 0, tie_term = 0, u, mean, var, z;
	bool ties = false;

	if (na < 2 || nb < 2)
		return NAN;
	all = malloc(n * sizeof(*all));
	if (!all)
		return NAN;
	for (size_t i = 0; i < na; i++)
		all[i] = (struct ranked){ a[i], true };
	for (size_t i = 0; i < nb; i++)
		all[na + i] = (struct ranked){ b[i], false };
	qsort(all, n, sizeof(*all), compare_ranked);
	for (size_t i = 0; i < n;) {
		size_t j = i;
		double rank, t;

		while (j < n && all[j].value == all[i].value)
			j++;
		rank = ((double)i + 1 + (double)j) / 2;	/* average of i+1..j */
		t = (double)(j - i);
		if (t > 1) {
			ties = true;
			tie_term += t * t * t - t;
		}
		for (size_t k = i; k < j; k++)
			if (all[k].from_a)
				rank_sum_a += rank;
		i = j;
	}
	free(all);
	u = rank_sum_a - (double)na * ((double)na + 1) / 2;
	if (!ties && na <= 20 && nb <= 20)
		return exact_p(na, nb, u);
	mean = (double)na * (double)nb / 2;
	var = (double)na * (double)nb / 12 *
	      ((double)n + 1 - tie_term / ((double)n * ((double)n - 1)));
	if (var <= 0)
		return 1;
	z = (fabs(u - mean) - 0.5) / sqrt(var);
	if (z < 0)
		z = 0;
	return erfc(z / M_SQRT2);
}

/* splitmix64: small, fast and good enough to draw resampling indices. */
static uint64_t next_random(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
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
		uint64_t r = next_random(state);

		counts[random_index((uint32_t)r, n)]++;
		counts[random_index((uint32_t)(r >> 32), n)]++;
	}
	if (i < n)
		counts[random_index((uint32_t)next_random(state), n)]++;
	for (size_t k = 0; k < n; k++) {
		seen += counts[k];
		if (isnan(lower) && seen > lower_rank)
			lower = sorted[k];
		if (seen > upper_rank)
			return (lower + sorted[k]) / 2;
	}
	return sorted[n - 1];	/* not reached: the counts sum to n */
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
	ret = 0;
	if (nn < 2 || nd < 2)
		goto out;
	state = hash_values(hash_values(state, a, nn), b, nd);
	for (size_t r = 0; r < STATS_BOOTSTRAP_RESAMPLES; r++) {
		double top = resampled_median(a, nn, counts, &state);

		ratios[r] = top / resampled_median(b, nd, counts, &state);
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

double stats_geomean(const double *values, size_t n)
{
	double sum = 0;

	for (size_t i = 0; i < n; i++)
		sum += log(values[i]);
	return exp(sum / (double)n);
}
