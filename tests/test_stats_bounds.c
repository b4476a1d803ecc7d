// SPDX-License-Identifier: GPL-2.0-only
/*
 * Every statistic reads and writes only inside its arrays: each array the
 * test hands over, and each one lib/stats.c allocates, lies against an
 * inaccessible page (guard_pages.h), once ending where the page begins
 * and once starting where it ends. A read one slot past either end stops
 * the test with the function and the size named. Release builds see no
 * such read otherwise: the byte past a buffer is whatever malloc() left
 * there, and a selection that scans one value too far (a "<" become "<="
 * in select_kth()) mostly comes back with the right answer, or never
 * stops (10 s at most here). The sizes: 1 to 40 values, and around the
 * bootstrap's switch to its direct law (STATS_BOOTSTRAP_DIRECT_MIN); the
 * values: ascending, descending, all equal, and drawn with ties.
 */
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "guard_pages.h"
#include "stats.h"

static char where[160];

static void on_fault(int signo)
{
	static const char past[] = "stats_bounds: a read or write past an array in ";
	static const char stuck[] = "stats_bounds: no end within 10 s in ";
	const char *head = signo == SIGALRM ? stuck : past;
	ssize_t n;

	n = write(STDERR_FILENO, head, strlen(head));
	n = write(STDERR_FILENO, where, strlen(where));
	n = write(STDERR_FILENO, "\n", 1);
	(void)n;
	_exit(1);
}

/* A copy of values[0..n) against the guard page. */
static double *guarded_copy(const double *values, size_t n)
{
	double *p = guard_alloc(n * sizeof(*p));

	if (!p)
		abort();
	memcpy(p, values, n * sizeof(*p));
	return p;
}

enum pattern { ASCENDING, DESCENDING, ALL_EQUAL, WITH_TIES, NR_PATTERNS };
static const char *const pattern_names[] = { "ascending", "descending", "all equal", "ties" };

static void fill(double *v, size_t n, enum pattern pattern, uint64_t *state)
{
	for (size_t i = 0; i < n; i++) {
		*state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
		switch (pattern) {
		case ASCENDING:
			v[i] = 10 + (double)i;
			break;
		case DESCENDING:
			v[i] = 10 + (double)(n - i);
			break;
		case ALL_EQUAL:
			v[i] = 42;
			break;
		default:
			v[i] = 10 + (double)(*state >> 61);	/* 8 values: many ties */
			break;
		}
	}
}

/* Every statistic of lib/stats.c on a and b (n values each). */
static void every_statistic(const double *a_in, const double *b_in, size_t n)
{
	double *a = guarded_copy(a_in, n), *b = guarded_copy(b_in, n);
	long *rounds = guard_alloc(n * sizeof(*rounds));
	struct stats_summary sum;
	struct stats_ratio ratio;
	size_t lo, hi;
	double coverage, p;

	for (size_t i = 0; i < n; i++)
		rounds[i] = (long)i;
	stats_median(a, n);
	stats_mean(a, n);
	stats_stddev(a, n);
	stats_cv(a, n);
	stats_geomean(a, n);
	stats_median_ci_ranks(n, &lo, &hi, &coverage);
	if (stats_summarize(a, n, &sum))
		abort();
	stats_sign_test_p(a, n);
	stats_mann_whitney_p(a, n, b, n);
	if (stats_ratio_of_medians(a, n, b, n, &ratio) < 0)
		abort();
	if (stats_ratio_by_round(a, rounds, n, b, rounds, n, &ratio, &p) < 0)
		abort();
	/* sorted last: the functions above take the values as given */
	stats_sort(a, n);
	stats_median_sorted(a, n);
	stats_bimodal(a, n);
	guard_free(a);
	guard_free(b);
	guard_free(rounds);
}

int main(void)
{
	static const size_t sizes[] = {
		1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20,
		21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38,
		39, 40, STATS_BOOTSTRAP_DIRECT_MIN - 1, STATS_BOOTSTRAP_DIRECT_MIN,
	};
	static double a[STATS_BOOTSTRAP_DIRECT_MIN], b[STATS_BOOTSTRAP_DIRECT_MIN];
	uint64_t state = 1;
	unsigned int calls = 0;

	signal(SIGSEGV, on_fault);
	signal(SIGBUS, on_fault);
	signal(SIGALRM, on_fault);
	for (guard_side = GUARD_AFTER; guard_side <= GUARD_BEFORE; guard_side++) {
		for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
			for (int pa = 0; pa < NR_PATTERNS; pa++) {
				size_t n = sizes[s];

				fill(a, n, pa, &state);
				fill(b, n, (pa + 1) % NR_PATTERNS, &state);
				snprintf(where, sizeof(where), "lib/stats.c: %zu values, %s, guard %s",
					 n, pattern_names[pa],
					 guard_side == GUARD_AFTER ? "after" : "before");
				guard_pages_on = true;
				/* a scan that never stops past its end, as one that does */
				alarm(10);
				every_statistic(a, b, n);
				alarm(0);
				guard_pages_on = false;
				calls++;
			}
		}
	}
	printf("stats_bounds: %u sets of values, every statistic, each array against a guard page\n",
	       calls);
	return 0;
}
