// SPDX-License-Identifier: GPL-2.0-only
/*
 * lib/stats.c's random draws, which the bootstrap interval is built on,
 * against published and hand-computed values: splitmix64's first output
 * from state 0 (Steele, Lea and Flood's reference code, and Vigna's
 * splitmix64.c), and random_uniform() at the bottom of its range, where
 * "never 0" (its log is taken) is decided by the half added to the top 53
 * bits. The file is included so that its static functions can be called.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "../lib/stats.c"

/* From state 0: 0xe220a8397b1dcdaf, then 0x6e789e6aa1b965f4. */
static void test_splitmix64(void **state)
{
	uint64_t s = 0;

	(void)state;
	assert_true(next_random(&s) == 0xe220a8397b1dcdafULL);
	assert_true(s == 0x9e3779b97f4a7c15ULL);
	assert_true(next_random(&s) == 0x6e789e6aa1b965f4ULL);
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_splitmix64),
		cmocka_unit_test(test_uniform_ends),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
