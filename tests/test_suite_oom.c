// SPDX-License-Identifier: GPL-2.0-only
/*
 * Planning a suite when memory runs out: the list of cases grows by
 * realloc() from 64 cases, doubling; the growth to 64 (the first) or to
 * 128 (the second) fails here (realloc() wrapped). The plan then fails
 * with "out of memory planning the suite" and status 1 (runtime, not a
 * usage error), and leaves no cases behind: never a plan that goes on
 * writing cases past what it holds.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "config.h"
#include "suite.h"
#include "topo.h"

/* The realloc() of this many bytes fails; 0: none. */
static size_t failing_size;
static unsigned int nr_failed;

void *__real_realloc(void *p, size_t size);
void *__wrap_realloc(void *p, size_t size);

void *__wrap_realloc(void *p, size_t size)
{
	if (failing_size && size == failing_size) {
		nr_failed++;
		return NULL;
	}
	return __real_realloc(p, size);
}

static void a_growth_that_fails_fails_the_plan(void **unused)
{
	/* 8 CPUs: 1, 2, 4 and 8 threads of every case, hundreds of them */
	struct topo *topo;
	struct suite_options opts = { .repetitions = 1, .min_time = 0.01 };
	struct suite suite;
	char err[256];
	int ret;

	(void)unused;
	topo = topo_open(HAVE_HWLOC ? "pack:1 core:8 pu:1" : NULL, err, sizeof(err));
	if (!topo)
		fail_msg("%s", err);
	/* unwrapped, the plan is more than 128 cases */
	assert_int_equal(suite_plan(&opts, topo, &suite, err, sizeof(err)), 0);
	assert_true(suite.nr_cases > (HAVE_HWLOC ? 128 : 64));
	suite_free(&suite);

	for (unsigned int growth = 64; growth <= (HAVE_HWLOC ? 128 : 64); growth *= 2) {
		failing_size = growth * sizeof(struct bench_case);
		nr_failed = 0;
		memset(&suite, 0x55, sizeof(suite));
		err[0] = '\0';
		ret = suite_plan(&opts, topo, &suite, err, sizeof(err));
		failing_size = 0;
		assert_int_equal(nr_failed, 1);
		assert_int_equal(ret, 1);
		assert_string_equal(err, "out of memory planning the suite");
		assert_int_equal(suite.nr_cases, 0);
		assert_null(suite.cases);
	}
	topo_close(topo);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_growth_that_fails_fails_the_plan),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
