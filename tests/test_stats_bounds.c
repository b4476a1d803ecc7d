// SPDX-License-Identifier: GPL-2.0-only
/*
 * Every statistic reads and writes only inside its arrays: each array the
 * test hands over, and each one lib/stats.c allocates (malloc(), calloc()
 * and free() wrapped), lies against an inaccessible page, once ending
 * where the page begins and once starting where it ends. A read one slot
 * past either end stops the test with the function and the size named.
 * Release builds see no such read otherwise: the byte past a buffer is
 * whatever malloc() left there, and a selection that scans one value too
 * far (a "<" become "<=" in select_kth()) mostly comes back with the
 * right answer, or never stops (10 s at most here). The sizes: 1 to 40 values, and around the bootstrap's
 * switch to its direct law (STATS_BOOTSTRAP_DIRECT_MIN); the values:
 * ascending, descending, all equal, and drawn with ties.
 */
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "stats.h"

/* Where the data lies against its guard page. */
enum side { GUARD_AFTER, GUARD_BEFORE };

struct guarded {
	void *data, *map;
	size_t map_len;
};

#define MAX_GUARDED 64

static struct guarded live[MAX_GUARDED];
static enum side side;
static bool guarding;
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

/* The alignment malloc() would owe the data, as far as its size allows. */
static size_t alignment_of(size_t size)
{
	return size % 16 == 0 ? 16 : size % 8 == 0 ? 8 : size % 4 == 0 ? 4 : 1;
}

static void *guarded_alloc(size_t size)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t data_pages = (size + page - 1) / page + 1, len = (data_pages + 1) * page;
	char *map, *data;
	int slot;

	for (slot = 0; slot < MAX_GUARDED && live[slot].data; slot++)
		;
	if (slot == MAX_GUARDED) {
		fprintf(stderr, "stats_bounds: more than %d arrays at once\n", MAX_GUARDED);
		abort();
	}
	map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (map == MAP_FAILED)
		return NULL;
	if (side == GUARD_AFTER) {
		mprotect(map + data_pages * page, page, PROT_NONE);
		data = map + data_pages * page - size;
		data -= (uintptr_t)data % alignment_of(size);
	} else {
		mprotect(map, page, PROT_NONE);
		data = map + page;
	}
	/* not zero: a value read before it is written shows as garbage */
	memset(data, 0x7f, size);
	live[slot] = (struct guarded){ data, map, len };
	return data;
}

static bool guarded_free(void *p)
{
	for (int slot = 0; slot < MAX_GUARDED; slot++) {
		if (live[slot].data == p) {
			munmap(live[slot].map, live[slot].map_len);
			live[slot] = (struct guarded){ 0 };
			return true;
		}
	}
	return false;
}

void *__real_malloc(size_t size);
void *__wrap_malloc(size_t size);
void *__real_calloc(size_t nmemb, size_t size);
void *__wrap_calloc(size_t nmemb, size_t size);
void __real_free(void *p);
void __wrap_free(void *p);

void *__wrap_malloc(size_t size)
{
	return guarding && size ? guarded_alloc(size) : __real_malloc(size);
}

void *__wrap_calloc(size_t nmemb, size_t size)
{
	void *p;

	if (!guarding || !nmemb || !size)
		return __real_calloc(nmemb, size);
	p = guarded_alloc(nmemb * size);
	if (p)
		memset(p, 0, nmemb * size);
	return p;
}

void __wrap_free(void *p)
{
	if (p && !guarded_free(p))
		__real_free(p);
}

/* A copy of values[0..n) against the guard page. */
static double *guarded_copy(const double *values, size_t n)
{
	double *p = guarded_alloc(n * sizeof(*p));

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
	long *rounds = guarded_alloc(n * sizeof(*rounds));
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
	guarded_free(a);
	guarded_free(b);
	guarded_free(rounds);
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
	for (side = GUARD_AFTER; side <= GUARD_BEFORE; side++) {
		for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
			for (int pa = 0; pa < NR_PATTERNS; pa++) {
				size_t n = sizes[s];

				fill(a, n, pa, &state);
				fill(b, n, (pa + 1) % NR_PATTERNS, &state);
				snprintf(where, sizeof(where), "lib/stats.c: %zu values, %s, guard %s",
					 n, pattern_names[pa],
					 side == GUARD_AFTER ? "after" : "before");
				guarding = true;
				/* a scan that never stops past its end, as one that does */
				alarm(10);
				every_statistic(a, b, n);
				alarm(0);
				guarding = false;
				calls++;
			}
		}
	}
	printf("stats_bounds: %u sets of values, every statistic, each array against a guard page\n",
	       calls);
	return 0;
}
