// SPDX-License-Identifier: GPL-2.0-only
/*
 * compare's exit status when a results file cannot be read: 1 (a runtime
 * error) when memory ran out reading it (results_read() returns -2), 2
 * (bad input) when the file is refused (-1), for either side.
 * results_read() is wrapped to answer as each case needs, so no file is
 * read at all.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

#include <cmocka.h>

#include "cli.h"
#include "results_read.h"

/* results_read()'s answer for the side (0: A, 1: B) that fails. */
static int failing_side, answer;
static int calls;

int __wrap_results_read(struct results *set, const char *path, char *err, size_t errlen);

int __wrap_results_read(struct results *set, const char *path, char *err, size_t errlen)
{
	(void)set;
	if (calls++ != failing_side) {
		/* an empty set: what an empty results file reads as */
		return 0;
	}
	snprintf(err, errlen, answer == -2 ? "out of memory reading %s" :
		 "%s: not a results file", path);
	return answer;
}

static void a_file_that_cannot_be_read_sets_the_status(void **unused)
{
	static const struct {
		int side, answer, status;
	} cases[] = {
		{ 0, -2, EXIT_RUNTIME }, { 1, -2, EXIT_RUNTIME },
		{ 0, -1, EXIT_USAGE }, { 1, -1, EXIT_USAGE },
	};

	(void)unused;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *argv[] = { "compare", "a.json", "b.json", NULL };

		failing_side = cases[i].side;
		answer = cases[i].answer;
		calls = 0;
		assert_int_equal(cmd_compare(3, argv), cases[i].status);
		assert_int_equal(calls, cases[i].side + 1);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_file_that_cannot_be_read_sets_the_status),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
