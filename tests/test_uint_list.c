// SPDX-License-Identifier: GPL-2.0-only
/*
 * --threads as parse_uint_list() reads it: decimal integers from 1 to
 * the maximum, comma-separated, each once, at most SUITE_MAX_VALUES of
 * them; anything else refused with one message naming the option, the
 * text and what was expected.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "suite.h"

static unsigned int values[SUITE_MAX_VALUES + 8], nr;
static char err[512];

static void parsed(const char *text, unsigned int max, const unsigned int *want, unsigned int n)
{
	*err = '\0';
	if (parse_uint_list("--threads", text, max, values, &nr, err, sizeof(err)))
		fail_msg("'%s' refused: %s", text, err);
	assert_int_equal(nr, n);
	for (unsigned int i = 0; i < n; i++)
		assert_int_equal(values[i], want[i]);
}

static void refused(const char *text, unsigned int max, const char *want)
{
	*err = '\0';
	assert_int_equal(parse_uint_list("--threads", text, max, values, &nr, err, sizeof(err)), -1);
	if (!strstr(err, want))
		fail_msg("'%s': '%s', expected '%s' in it", text, err, want);
}

static void lists_of_whole_numbers(void **unused)
{
	(void)unused;
	parsed("1", 8, (const unsigned int[]){ 1 }, 1);
	parsed("8", 8, (const unsigned int[]){ 8 }, 1);
	parsed("3,1,8", 8, (const unsigned int[]){ 3, 1, 8 }, 3);
	/* decimal, never octal */
	parsed("010,9", 16, (const unsigned int[]){ 10, 9 }, 2);
	parsed("4294967295", 4294967295u, (const unsigned int[]){ 4294967295u }, 1);
}

static void everything_else_refused(void **unused)
{
	(void)unused;
	refused("0", 8, "--threads '0': expected a comma-separated list of integers from 1 to 8");
	refused("9", 8, "from 1 to 8");
	refused("1,9", 8, "--threads '1,9'");
	refused("-1", 8, "from 1 to 8");
	refused("+1", 8, "from 1 to 8");
	refused("", 8, "from 1 to 8");
	refused("1,", 8, "from 1 to 8");
	refused(",1", 8, "from 1 to 8");
	refused("1,,2", 8, "from 1 to 8");
	refused("1;2", 8, "from 1 to 8");
	refused("2x", 8, "from 1 to 8");
	refused("0x10", 64, "from 1 to 64");
	refused("99999999999999999999", 8, "from 1 to 8");
	refused("1,2,1", 8, "--threads '1,2,1': 1 is listed twice: expected each value once");
	refused("2,3,3", 8, "3 is listed twice");
}

/* SUITE_MAX_VALUES values are taken; one more is refused. */
static void at_most_sixty_four_values(void **unused)
{
	char text[1024];
	unsigned int want[SUITE_MAX_VALUES];
	int n = 0;

	(void)unused;
	for (unsigned int i = 1; i <= SUITE_MAX_VALUES; i++) {
		n += snprintf(text + n, sizeof(text) - (size_t)n, "%s%u", i > 1 ? "," : "", i);
		want[i - 1] = i;
	}
	parsed(text, 1000, want, SUITE_MAX_VALUES);
	snprintf(text + n, sizeof(text) - (size_t)n, ",%u", SUITE_MAX_VALUES + 1);
	refused(text, 1000, "expected at most 64 values");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(lists_of_whole_numbers),
		cmocka_unit_test(everything_else_refused),
		cmocka_unit_test(at_most_sixty_four_values),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
