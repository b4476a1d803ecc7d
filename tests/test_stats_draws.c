// SPDX-License-Identifier: GPL-2.0-only
/*
 * lib/stats.c's random draws, which the bootstrap interval is built on,
 * against published and hand-computed values: splitmix64's first outputs
 * from state 0 (Steele, Lea and Flood's reference code, and Vigna's
 * splitmix64.c), and random_uniform() at the bottom of its range, where
 * "never 0" (its log is taken) is decided by the half added to the top 53
 * bits. The file is included so that its static functions can be called,
 * and with its allocations counted, so that each can be made to fail in
 * turn: every function that allocates then says so, and uses no NULL.
 * Each allocation also ends where a page no access is allowed to begins
 * (its own mapping), so a read one element past an array faults in every
 * build, not only under AddressSanitizer.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>

/* 0: every allocation succeeds; n: the n-th from now fails (then none). */
static int fail_at;

static bool this_one_fails(void)
{
	return fail_at && !--fail_at;
}

/* Where a guarded allocation's mapping starts, and its length: before it. */
struct guard_header {
	void *base;
	size_t len;
};

/*
 * size bytes (8-aligned: stats.c's arrays are of doubles, 64-bit
 * integers and structs of them) ending 0-7 bytes before a PROT_NONE
 * page, zeroed, with their header just below them.
 */
static void *guarded_alloc(size_t size)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t body = (size + 7) / 8 * 8 + sizeof(struct guard_header);
	size_t len = (body + page - 1) / page * page + page;
	char *base = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct guard_header *h;

	if (base == MAP_FAILED)
		return NULL;
	if (mprotect(base + len - page, page, PROT_NONE)) {
		munmap(base, len);
		return NULL;
	}
	h = (struct guard_header *)(base + len - page - (size + 7) / 8 * 8) - 1;
	h->base = base;
	h->len = len;
	return h + 1;
}

static void guarded_free(void *p)
{
	struct guard_header *h = p;

	if (p)
		munmap(h[-1].base, h[-1].len);
}

static void *counted_malloc(size_t size)
{
	return this_one_fails() ? NULL : guarded_alloc(size);
}

static void *counted_calloc(size_t n, size_t size)
{
	return this_one_fails() || (n && size > SIZE_MAX / n) ? NULL : guarded_alloc(n * size);
}

#define malloc counted_malloc
#define calloc counted_calloc
#define free guarded_free
#include "../lib/stats.c"
#undef malloc
#undef calloc
#undef free

/*
 * lib/splitmix64.h, which the statistics, has_pinned's pattern and
 * longterm_check's layouts share. From state 0: 0xe220a8397b1dcdaf, then
 * 0x6e789e6aa1b965f4; the output function maps 0 to 0.
 */
static void test_splitmix64(void **state)
{
	uint64_t s = 0;

	(void)state;
	assert_true(splitmix64_next(&s) == 0xe220a8397b1dcdafULL);
	assert_true(s == 0x9e3779b97f4a7c15ULL);
	assert_true(splitmix64_next(&s) == 0x6e789e6aa1b965f4ULL);
	assert_true(splitmix64_finalize(0) == 0);
}

/*
 * The state one increment below 0 gives the output 0 (every step of the
 * mix maps 0 to 0): the smallest uniform, half of 2^-53, above 0. The
 * first output from state 0 gives (0xe220a8397b1dcdaf >> 11) + 0.5, over
 * 2^53, by hand.
 */
static void test_uniform_ends(void **state)
{
	uint64_t s = 0 - 0x9e3779b97f4a7c15ULL;
	double u;

	(void)state;
	u = random_uniform(&s);
	assert_true(u == 0x1.0p-54);
	assert_true(u > 0);
	s = 0;
	u = random_uniform(&s);
	assert_true(u == ((double)(0xe220a8397b1dcdafULL >> 11) + 0.5) / 9007199254740992.0);
	assert_true(u > 0.883 && u < 0.884);
}

/*
 * Each allocation of the U test failing in turn (the two arrays of the
 * pooled ranks, then exact_p()'s table of subset counts): NaN, no p-value,
 * and nothing read through a NULL. With all three there, 3 against 3
 * separated is p = 2/20 (test_stats.c works it out).
 */
static void test_mann_whitney_out_of_memory(void **state)
{
	const double a[] = { 1, 2, 3 }, b[] = { 4, 5, 6 };

	(void)state;
	for (int k = 1; k <= 3; k++) {
		fail_at = k;
		assert_true(isnan(stats_mann_whitney_p(a, 3, b, 3)));
		assert_int_equal(fail_at, 0);
	}
	fail_at = 4;
	assert_true(fabs(stats_mann_whitney_p(a, 3, b, 3) - 0.1) < 1e-12);
	fail_at = 0;
}

/*
 * Every other function of stats.h that allocates, each allocation failing
 * in turn: the median is NaN, the others return -1 (stats.h), and each
 * still gives its value once every allocation succeeds. The values are
 * test_stats.c's: 1..9 have median 5; 4, 4, 4 over 2, 2, 2 is 2 with the
 * interval 2..2; seven rounds of 14, 2, 10, ... over 7, 1, 5, ... are 2
 * in every round.
 */
static void test_out_of_memory(void **state)
{
	const double v[] = { 9, 1, 8, 2, 7, 3, 6, 4, 5 };
	const double fours[] = { 4, 4, 4 }, twos[] = { 2, 2, 2 };
	const double nums[] = { 14, 2, 10, 6, 8, 12, 4 }, dens[] = { 7, 1, 5, 3, 4, 6, 2 };
	const long rounds[] = { 0, 1, 2, 3, 4, 5, 6 };
	struct stats_summary s;
	struct stats_ratio r;
	double p;

	(void)state;
	fail_at = 1;
	assert_true(isnan(stats_median(v, 9)));
	assert_true(stats_median(v, 9) == 5);
	fail_at = 1;
	assert_int_equal(stats_summarize(v, 9, &s), -1);
	assert_int_equal(stats_summarize(v, 9, &s), 0);
	assert_true(s.median == 5);
	/* the two sorted copies, the draws' counts, the 2000 ratios */
	for (int k = 1; k <= 4; k++) {
		fail_at = k;
		assert_int_equal(stats_ratio_of_medians(fours, 3, twos, 3, &r), -1);
		assert_int_equal(fail_at, 0);
	}
	assert_int_equal(stats_ratio_of_medians(fours, 3, twos, 3, &r), 0);
	assert_true(r.ratio == 2 && r.lo == 2 && r.hi == 2);
	/* each side by round, the pairs, their ratios */
	for (int k = 1; k <= 4; k++) {
		fail_at = k;
		assert_int_equal(stats_ratio_by_round(nums, rounds, 7, dens, rounds, 7, &r, &p), -1);
		assert_int_equal(fail_at, 0);
	}
	assert_int_equal(stats_ratio_by_round(nums, rounds, 7, dens, rounds, 7, &r, &p), 0);
	assert_true(r.ratio == 2 && r.pairs == 7);
}

/*
 * Rounds paired where the two sides' lists end apart: the numerator has
 * rounds 0-9, the denominator 0-7 and then nothing, so the walk reaches
 * the denominator's end while numerator rounds remain (and the other way
 * round). 8 pairs of ratio 3, in either order. Catches the walk reading
 * one round past the shorter side (the guard page faults there).
 */
static void test_rounds_paired_up_to_the_shorter_side(void **state)
{
	const double num[] = { 3, 6, 9, 12, 15, 18, 21, 24, 27, 30 };
	const double den[] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	const long rounds[] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9 };
	struct stats_ratio r = { 0 };
	double p = 0;

	(void)state;
	assert_int_equal(stats_ratio_by_round(num, rounds, 10, den, rounds, 8, &r, &p), 0);
	assert_true(r.ratio == 3 && r.pairs == 8);
	assert_int_equal(stats_ratio_by_round(den, rounds, 8, num, rounds, 10, &r, &p), 0);
	assert_true(fabs(r.ratio - 1.0 / 3) < 1e-15 && r.pairs == 8);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_splitmix64),
		cmocka_unit_test(test_rounds_paired_up_to_the_shorter_side),
		cmocka_unit_test(test_uniform_ends),
		cmocka_unit_test(test_mann_whitney_out_of_memory),
		cmocka_unit_test(test_out_of_memory),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
