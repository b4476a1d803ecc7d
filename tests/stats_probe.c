// SPDX-License-Identifier: GPL-2.0-only
/*
 * lib/stats.c on the command line, for tests/test_stats_oracle.py, which
 * checks every answer against its own implementation of each statistic
 * from its definition. One request a line on stdin, one answer a line on
 * stdout, every number printed with 17 significant digits so that the
 * oracle can ask for exact equality where the statistic is exact:
 *
 *   median N V...             median
 *   ranks N                   lo hi coverage (stats_median_ci_ranks)
 *   spread N V...             mean stddev cv
 *   summary N V...            median ci_lo ci_hi coverage min max cv noisy bimodal
 *   bimodal N V...            0 or 1 (the values sorted first)
 *   mwu NA A... NB B...       two-sided p
 *   ratio NN N... ND D...     ratio lo hi one_repetition
 *   rounds NN (V R)... ND (V R)...
 *                             status, then ratio lo hi pairs median_num
 *                             median_den p when the status is 0
 *   sign N V...               sign test p
 *   geomean N V...            geometric mean
 *
 * A malformed request ends the program with status 2.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"

static void bad_request(const char *what)
{
	fprintf(stderr, "stats_probe: bad request: %s\n", what);
	exit(2);
}

static size_t read_count(void)
{
	long n;

	if (scanf("%ld", &n) != 1 || n < 0 || n > 10000000)
		bad_request("a count");
	return (size_t)n;
}

/* n doubles, read into a new array of at least one element */
static double *read_values(size_t n)
{
	double *v = malloc((n ? n : 1) * sizeof(*v));

	if (!v)
		bad_request("out of memory");
	for (size_t i = 0; i < n; i++)
		if (scanf("%lf", &v[i]) != 1)
			bad_request("a value");
	return v;
}

/* n pairs "value round" */
static double *read_rounds(size_t n, long **rounds)
{
	double *v = malloc((n ? n : 1) * sizeof(*v));

	*rounds = malloc((n ? n : 1) * sizeof(**rounds));
	if (!v || !*rounds)
		bad_request("out of memory");
	for (size_t i = 0; i < n; i++)
		if (scanf("%lf %ld", &v[i], &(*rounds)[i]) != 2)
			bad_request("a value and its round");
	return v;
}

static void answer_rounds(void)
{
	size_t nn = read_count(), nd;
	long *num_rounds, *den_rounds;
	double *num = read_rounds(nn, &num_rounds), *den, p = -1;
	struct stats_ratio r = { 0 };
	int status;

	nd = read_count();
	den = read_rounds(nd, &den_rounds);
	status = stats_ratio_by_round(num, num_rounds, nn, den, den_rounds, nd, &r, &p);
	if (status)
		printf("%d\n", status);
	else
		printf("0 %.17g %.17g %.17g %zu %.17g %.17g %.17g\n", r.ratio, r.lo, r.hi,
		       r.pairs, r.median_num, r.median_den, p);
	free(num);
	free(den);
	free(num_rounds);
	free(den_rounds);
}

static void answer_two_samples(const char *what)
{
	size_t na = read_count(), nb;
	double *a = read_values(na), *b;
	struct stats_ratio r;

	nb = read_count();
	b = read_values(nb);
	if (!strcmp(what, "mwu")) {
		printf("%.17g\n", stats_mann_whitney_p(a, na, b, nb));
	} else {
		if (stats_ratio_of_medians(a, na, b, nb, &r))
			bad_request("out of memory");
		printf("%.17g %.17g %.17g %d\n", r.ratio, r.lo, r.hi, r.one_repetition);
	}
	free(a);
	free(b);
}

static void answer_one_sample(const char *what)
{
	size_t n = read_count();
	double *v = read_values(n);
	struct stats_summary s;

	if (!strcmp(what, "median")) {
		printf("%.17g\n", stats_median(v, n));
	} else if (!strcmp(what, "spread")) {
		printf("%.17g %.17g %.17g\n", stats_mean(v, n), stats_stddev(v, n),
		       stats_cv(v, n));
	} else if (!strcmp(what, "summary")) {
		if (stats_summarize(v, n, &s))
			bad_request("out of memory");
		printf("%.17g %.17g %.17g %.17g %.17g %.17g %.17g %d %d\n", s.median, s.ci_lo,
		       s.ci_hi, s.ci_coverage, s.min, s.max, s.cv, s.noisy, s.bimodal);
	} else if (!strcmp(what, "bimodal")) {
		stats_sort(v, n);
		printf("%d\n", stats_bimodal(v, n));
	} else if (!strcmp(what, "sign")) {
		printf("%.17g\n", stats_sign_test_p(v, n));
	} else {
		printf("%.17g\n", stats_geomean(v, n));
	}
	free(v);
}

int main(void)
{
	char what[16];

	while (scanf("%15s", what) == 1) {
		if (!strcmp(what, "ranks")) {
			size_t lo, hi;
			double coverage;

			stats_median_ci_ranks(read_count(), &lo, &hi, &coverage);
			printf("%zu %zu %.17g\n", lo, hi, coverage);
		} else if (!strcmp(what, "mwu") || !strcmp(what, "ratio")) {
			answer_two_samples(what);
		} else if (!strcmp(what, "rounds")) {
			answer_rounds();
		} else if (!strcmp(what, "median") || !strcmp(what, "spread") ||
			   !strcmp(what, "summary") || !strcmp(what, "bimodal") ||
			   !strcmp(what, "sign") || !strcmp(what, "geomean")) {
			answer_one_sample(what);
		} else {
			bad_request(what);
		}
		fflush(stdout);
	}
	return 0;
}
