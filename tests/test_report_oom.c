// SPDX-License-Identifier: GPL-2.0-only
/*
 * The analysis when a ratio cannot be had for want of memory: each call
 * the analysis makes to stats_ratio_of_medians() and stats_ratio_by_round()
 * is made to fail in turn, answering -1 as each does when malloc() fails
 * (both wrapped in this program only, -Wl,--wrap), and analysis_build()
 * must then fail with -1, not go on with a table whose ratio, gain or
 * interval was never computed. tests/data/results-rounds.json: has_pinned
 * at already_set=0 in rounds, its before and after variants at 1 and 2
 * threads, paired by round. Likewise a family's sweeps when the second of
 * each sweep's three tables cannot be had (calloc() wrapped): none, and
 * no table used that is not there; and the cases when each of the six
 * arrays result_cases_build() first asks for cannot be had (malloc()
 * wrapped): -1. And a claim checked on each host mode, each of its
 * allocations failing in turn: a mark, never a NULL used.
 *
 * Usage: test_report_oom SOURCE_DIR/tests
 */
#include <limits.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "analysis.h"
#include "cases.h"
#include "claims.h"
#include "results_read.h"
#include "stats.h"
#include "sweeps.h"

static const char *tests_dir;
static int fail_at = -1;	/* the call (0-based) that fails; -1: none */
static int calls;
/* while armed, every third calloc() from the second on fails */
static bool calloc_armed;
static int callocs;

/* the malloc() (0-based, counted from arming) that fails; -1: none */
static int malloc_fails_at = -1;
static int mallocs;

void *__real_malloc(size_t size);
void *__wrap_malloc(size_t size);

void *__wrap_malloc(size_t size)
{
	if (malloc_fails_at >= 0 && mallocs++ == malloc_fails_at)
		return NULL;
	return __real_malloc(size);
}

void *__real_calloc(size_t n, size_t size);
void *__wrap_calloc(size_t n, size_t size);

void *__wrap_calloc(size_t n, size_t size)
{
	if (calloc_armed && callocs++ % 3 == 1)
		return NULL;
	return __real_calloc(n, size);
}

int __real_stats_ratio_of_medians(const double *num, size_t nn, const double *den, size_t nd,
				  struct stats_ratio *out);
int __wrap_stats_ratio_of_medians(const double *num, size_t nn, const double *den, size_t nd,
				  struct stats_ratio *out);
int __real_stats_ratio_by_round(const double *num, const long *num_rounds, size_t nn,
				const double *den, const long *den_rounds, size_t nd,
				struct stats_ratio *out, double *p);
int __wrap_stats_ratio_by_round(const double *num, const long *num_rounds, size_t nn,
				const double *den, const long *den_rounds, size_t nd,
				struct stats_ratio *out, double *p);

int __wrap_stats_ratio_of_medians(const double *num, size_t nn, const double *den, size_t nd,
				  struct stats_ratio *out)
{
	return calls++ == fail_at ? -1 : __real_stats_ratio_of_medians(num, nn, den, nd, out);
}

int __wrap_stats_ratio_by_round(const double *num, const long *num_rounds, size_t nn,
				const double *den, const long *den_rounds, size_t nd,
				struct stats_ratio *out, double *p)
{
	return calls++ == fail_at ? -1 :
	       __real_stats_ratio_by_round(num, num_rounds, nn, den, den_rounds, nd, out, p);
}

static void test_each_ratio_out_of_memory(void **state)
{
	char path[PATH_MAX], err[512];
	struct results set = { 0 };
	struct result_cases cases;
	struct analysis a;
	int total;

	(void)state;
	snprintf(path, sizeof(path), "%s/data/results-rounds.json", tests_dir);
	if (results_read(&set, path, err, sizeof(err)))
		fail_msg("%s", err);
	assert_int_equal(result_cases_build(&set, &cases), 0);
	fail_at = -1;
	calls = 0;
	assert_int_equal(analysis_build(&set, &cases, &a), 0);
	analysis_free(&a);
	total = calls;
	/* the best variant's ratios, the speedups and the before/after gains */
	print_message("%d ratio calls\n", total);
	assert_true(total >= 3);
	for (fail_at = 0; fail_at < total; fail_at++) {
		calls = 0;
		if (analysis_build(&set, &cases, &a) != -1)
			fail_msg("ratio call %d of %d failed, the analysis went on", fail_at + 1, total);
	}
	fail_at = -1;
	result_cases_free(&cases);
	results_free(&set);
}

/*
 * best_sweep() asks for three tables (keys, their order, their counts) per
 * parameter; the second failing each time leaves every parameter without
 * a sweep. The default run's sweep file has sweeps once memory is there.
 */
static void test_sweeps_out_of_memory(void **state)
{
	char path[PATH_MAX], err[512];
	struct results set = { 0 };
	struct result_cases cases;
	struct analysis a;
	struct sweep sweeps[8];
	const struct family_view *f = NULL;

	(void)state;
	snprintf(path, sizeof(path), "%s/data/runs/epyc-zen3-2026-12-01/sweep.json", tests_dir);
	if (results_read(&set, path, err, sizeof(err)))
		fail_msg("%s", err);
	assert_int_equal(result_cases_build(&set, &cases), 0);
	assert_int_equal(analysis_build(&set, &cases, &a), 0);
	for (size_t i = 0; i < a.nr_families && !f; i++)
		if (family_sweeps(&a, &a.families[i], sweeps, 8))
			f = &a.families[i];
	assert_non_null(f);
	callocs = 0;
	calloc_armed = true;
	assert_int_equal(family_sweeps(&a, f, sweeps, 8), 0);
	calloc_armed = false;
	assert_true(callocs >= 3);
	assert_true(family_sweeps(&a, f, sweeps, 8) > 0);
	analysis_free(&a);
	result_cases_free(&cases);
	results_free(&set);
}

/*
 * result_cases_build() first asks for the rows' keys, the cases, the
 * tables, the values' pool, the rounds' pool and the counters' pool: each
 * failing in turn is -1 (and the set is left as it was read).
 */
static void test_cases_out_of_memory(void **state)
{
	char path[PATH_MAX], err[512];
	struct results set = { 0 };
	struct result_cases cases;

	(void)state;
	snprintf(path, sizeof(path), "%s/data/results-rounds.json", tests_dir);
	if (results_read(&set, path, err, sizeof(err)))
		fail_msg("%s", err);
	for (int k = 0; k < 6; k++) {
		mallocs = 0;
		malloc_fails_at = k;
		if (result_cases_build(&set, &cases) != -1)
			fail_msg("allocation %d of result_cases_build() failed, it went on", k + 1);
		malloc_fails_at = -1;
		result_cases_free(&cases);
	}
	assert_int_equal(result_cases_build(&set, &cases), 0);
	assert_true(cases.nr > 0);
	result_cases_free(&cases);
	results_free(&set);
}

/*
 * The Zen 3 guest's default run (two host modes): counter's claim that
 * plain updates cost less than a line transfer is seen overall and in
 * one mode. Each allocation of its check failing in turn (the statistics'
 * and judge_modes()' four arrays among them) still gives a mark: the same
 * one, or not testable; no mode judged on an array that is not there.
 */
static void test_claim_out_of_memory(void **state)
{
	char path[PATH_MAX], err[512];
	struct results set = { 0 };
	struct result_cases cases;
	struct analysis a;
	const struct family_view *f = NULL;
	const struct kernel_claim *c = NULL;
	struct claim_result r, whole;
	int total;

	(void)state;
	snprintf(path, sizeof(path), "%s/data/runs/epyc-zen3-2026-12-01/default.json", tests_dir);
	if (results_read(&set, path, err, sizeof(err)))
		fail_msg("%s", err);
	assert_int_equal(result_cases_build(&set, &cases), 0);
	assert_int_equal(analysis_build(&set, &cases, &a), 0);
	for (size_t i = 0; i < a.nr_families && !f; i++)
		if (!strcmp(a.families[i].name, "counter"))
			f = &a.families[i];
	assert_non_null(f);
	for (unsigned int k = 0; k < f->kf->nr_claims && !c; k++)
		if (strstr(f->kf->claims[k].text, "plain updates cost less than a line transfer"))
			c = &f->kf->claims[k];
	assert_non_null(c);
	mallocs = 0;
	malloc_fails_at = INT_MAX;	/* count them */
	claim_check(&set, &a, f, c, &whole);
	total = mallocs;
	malloc_fails_at = -1;
	assert_int_equal(whole.mark, CLAIM_SEEN);
	assert_int_equal(whole.nr_modes, 2);
	for (int k = 0; k < total; k++) {
		mallocs = 0;
		malloc_fails_at = k;
		claim_check(&set, &a, f, c, &r);
		malloc_fails_at = -1;
		if (r.mark != whole.mark && r.mark != CLAIM_NOT_TESTABLE)
			fail_msg("allocation %d of %d failed: mark %d", k + 1, total, r.mark);
	}
	analysis_free(&a);
	result_cases_free(&cases);
	results_free(&set);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_each_ratio_out_of_memory),
		cmocka_unit_test(test_sweeps_out_of_memory),
		cmocka_unit_test(test_cases_out_of_memory),
		cmocka_unit_test(test_claim_out_of_memory),
	};

	if (argc != 2) {
		fprintf(stderr, "usage: test_report_oom SOURCE_DIR/tests\n");
		return 2;
	}
	tests_dir = argv[1];
	return cmocka_run_group_tests(tests, NULL, NULL);
}
