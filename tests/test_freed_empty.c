// SPDX-License-Identifier: GPL-2.0-only
/*
 * What each free function of the results and the report leaves: an empty
 * structure, every byte zero, which a second free leaves as it is (the
 * error paths free what they may already have freed). A free that left
 * its counts behind, or wrote anything else there, would walk freed
 * arrays the second time. On the Zen 3 guest's default run (two host
 * modes, every family) and the fixed latency matrix: results_free(),
 * result_cases_free(), analysis_free() (its host modes with it),
 * claims_free() and latency_map_free().
 *
 * Usage: test_freed_empty SOURCE_DIR/tests
 */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "analysis.h"
#include "cases.h"
#include "claims.h"
#include "latency_map.h"
#include "results_read.h"

static const char *tests_dir;

static bool all_zero(const void *p, size_t len)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < len; i++)
		if (b[i])
			return false;
	return true;
}

#define assert_empty(x) \
	do { \
		if (!all_zero(&(x), sizeof(x))) \
			fail_msg("%s is not empty after its free", #x); \
	} while (0)

static void test_results_and_report(void **state)
{
	char path[PATH_MAX], err[512];
	struct results set = { 0 };
	struct result_cases cases;
	struct analysis a;
	struct claim_report claims;

	(void)state;
	snprintf(path, sizeof(path), "%s/data/runs/epyc-zen3-2026-12-01/default.json", tests_dir);
	if (results_read(&set, path, err, sizeof(err)))
		fail_msg("%s", err);
	assert_int_equal(result_cases_build(&set, &cases), 0);
	assert_int_equal(analysis_build(&set, &cases, &a), 0);
	assert_int_equal(claims_evaluate(&set, &a, &claims), 0);
	assert_true(set.nr_rows > 0 && cases.nr > 0 && a.nr_groups > 0 && claims.nr > 0);
	assert_non_null(a.modes);

	claims_free(&claims);
	assert_empty(claims);
	claims_free(&claims);
	assert_empty(claims);
	analysis_free(&a);
	assert_empty(a);
	analysis_free(&a);
	assert_empty(a);
	result_cases_free(&cases);
	assert_empty(cases);
	result_cases_free(&cases);
	assert_empty(cases);
	results_free(&set);
	assert_empty(set);
	results_free(&set);
	assert_empty(set);
}

static void test_latency_map(void **state)
{
	char path[PATH_MAX], err[512];
	struct latency_map m;

	(void)state;
	snprintf(path, sizeof(path), "%s/data/latency-fixed.json", tests_dir);
	if (latency_map_read(path, &m, err, sizeof(err)))
		fail_msg("%s", err);
	assert_true(m.n > 0);
	latency_map_free(&m);
	assert_empty(m);
	latency_map_free(&m);
	assert_empty(m);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_results_and_report),
		cmocka_unit_test(test_latency_map),
	};

	if (argc != 2) {
		fprintf(stderr, "usage: %s SOURCE_DIR/tests\n", argv[0]);
		return 2;
	}
	tests_dir = argv[1];
	return cmocka_run_group_tests(tests, NULL, NULL);
}
