// SPDX-License-Identifier: GPL-2.0-only
/*
 * longterm_check's get_ns_per_page_median on a clock of this test's own
 * (kernel_now_ns() wrapped in this program only): a timed stretch is 4
 * calls of 512 pages, 2048 pages, read off the clock at its end, so a
 * stretch the clock makes last 2048 v ns is v ns a page (the pass's last,
 * of fewer calls, is as many ns a page more as it has fewer pages). Five stretches
 * of 50, 10, 40, 20 and 30 ns a page have the median 30; four of 10, 40,
 * 20 and 30, the mean of the middle two, 25.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "catalog.h"

#define PAGES_PER_STRETCH 2048

uint64_t __real_kernel_now_ns(void);
uint64_t __wrap_kernel_now_ns(void);

static bool faking;
static const unsigned int *per_page;	/* each stretch's ns a page */
static unsigned int nr_stretches, nr_reads;
static uint64_t now;

/*
 * The run reads the clock when a pass starts and at the end of each
 * stretch (then when the pass ends, and around the puts): read k, for k
 * from 1 to nr_stretches, is stretch k's end.
 */
uint64_t __wrap_kernel_now_ns(void)
{
	if (!faking)
		return __real_kernel_now_ns();
	if (nr_reads >= 1 && nr_reads <= nr_stretches)
		now += (uint64_t)per_page[nr_reads - 1] * PAGES_PER_STRETCH;
	else
		now += 1;
	nr_reads++;
	return now;
}

/*
 * longterm_check's median ns per page over nr_calls calls of 512 pages,
 * the clock giving stretch k v[k] ns a page (n stretches).
 */
static double median_of_run(const unsigned int *v, unsigned int n, uint64_t nr_calls)
{
	const struct kernel_family *f = catalog_find("longterm_check");
	struct kernel_metrics metrics = { 0 };
	struct kernel_config cfg;
	uint64_t ops[1] = { nr_calls };
	char err[256], msg[256];
	void *state;

	assert_non_null(f);
	kernel_config_defaults(f, &cfg);
	cfg.param[kernel_param_index(f, "nr_pages")] = 512;
	state = f->create(&cfg, err, sizeof(err));
	if (!state)
		fail_msg("%s", err);
	per_page = v;
	nr_stretches = n;
	nr_reads = 0;
	now = 1000000000;
	faking = true;
	f->variants[0].run(state, 0, ops[0]);
	faking = false;
	if (f->verify(state, &cfg, ops, &metrics, msg, sizeof(msg)))
		fail_msg("%s", msg);
	f->destroy(state);
	for (unsigned int i = 0; i < metrics.nr; i++)
		if (!strcmp(metrics.m[i].name, "get_ns_per_page_median"))
			return metrics.m[i].value;
	fail_msg("no get_ns_per_page_median");
	return 0;
}

/*
 * Six calls: a stretch of 4 calls (2048 pages) and, as the pass ends, one
 * of the 2 calls left (1024 pages). The clock makes the first last 10 x
 * 2048 ns, 10 ns a page, and the second 15 x 2048 ns, 30 ns a page: the
 * median of the two is 20. Catches the last stretch timed as t1 + ts (a
 * billion ns and more), or its calls counted as stretch_calls + left.
 */
static void a_partial_last_stretch_counts_its_own_calls(void **unused)
{
	static const unsigned int steps[] = { 10, 15 };

	(void)unused;
	/* read 1 ends the 4 calls' stretch, read 2 the last 2 calls' */
	assert_true(median_of_run(steps, 2, 6) == 20);
}

/*
 * Catches stretch_median()'s middle index (n / 2, n / 2 - 1) or its
 * halving moved: all[5 / 3] is 20, not 30.
 */
static void the_median_of_the_stretches(void **unused)
{
	static const unsigned int five[] = { 50, 10, 40, 20, 30 };
	static const unsigned int four[] = { 10, 40, 20, 30 };
	static const unsigned int one[] = { 7 };

	(void)unused;
	assert_true(median_of_run(five, 5, 4 * 5) == 30);
	assert_true(median_of_run(four, 4, 4 * 4) == 25);
	assert_true(median_of_run(one, 1, 4 * 1) == 7);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(the_median_of_the_stretches),
		cmocka_unit_test(a_partial_last_stretch_counts_its_own_calls),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
