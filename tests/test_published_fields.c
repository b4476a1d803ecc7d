// SPDX-License-Identifier: GPL-2.0-only
/*
 * A published curve file as published_curve_read() keeps it, from files
 * written here: its strings, the points with the thread counts a rule
 * was fitted on marked, and each point refused where it is not a rising
 * whole thread count from 1 with a positive ns/op; at least one point
 * and at most PUBLISHED_MAX_POINTS.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include "float_assert.h"
#include "test_util.h"

#include "published_read.h"

static char path[] = "/tmp/bouncelab-curve-XXXXXX";
static char why[512];

#define HEAD "{\"curve\": \"c\", \"citation\": \"a book\", \"profile\": \"p\", \"family\": \"counter\"," \
	" \"variant\": \"shared_atomic\", \"placement\": \"spread\", \"role\": \"informs\"," \
	" \"private_ns\": {\"value\": 2.5}, "

static int read_text(const char *text, struct published_curve *c)
{
	FILE *f = fopen(path, "w");
	int ret;

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	*why = '\0';
	ret = published_curve_read(path, c, why, sizeof(why));
	return ret;
}

static void refused(const char *text, const char *want)
{
	struct published_curve c;

	assert_int_equal(read_text(text, &c), -1);
	if (!strstr(why, want))
		fail_msg("%s: '%s', expected '%s' in it", text, why, want);
	published_curve_free(&c);
}

static void a_curve_and_its_fitted_points(void **unused)
{
	struct published_curve c;

	(void)unused;
	if (read_text(HEAD "\"informs\": {\"what\": \"the waiters' cost\", \"fitted_slope\": true,"
		      " \"fitted_threads\": [2, 8]}, \"points\": [[1, 3.5], [2, 10], [4, 20.5], [8, 41]]}",
		      &c))
		fail_msg("%s", why);
	assert_string_equal(c.title, "c");
	assert_string_equal(c.citation, "a book");
	assert_string_equal(c.profile, "p");
	assert_string_equal(c.family, "counter");
	assert_string_equal(c.variant, "shared_atomic");
	assert_string_equal(c.placement, "spread");
	assert_string_equal(c.role, "informs");
	assert_string_equal(c.informs_what, "the waiters' cost");
	assert_true(c.slope_fitted);
	assert_float_equal(c.private_ns, 2.5, 0);
	assert_int_equal(c.nr_points, 4);
	assert_float_equal(c.threads[0], 1, 0);
	assert_float_equal(c.threads[3], 8, 0);
	assert_float_equal(c.measured[0], 3.5, 0);
	assert_float_equal(c.measured[2], 20.5, 0);
	assert_false(c.fitted[0]);
	assert_true(c.fitted[1]);
	assert_false(c.fitted[2]);
	assert_true(c.fitted[3]);
	published_curve_free(&c);
	assert_null(c.title);

	/* held out: nothing fitted, one point is enough */
	if (read_text(HEAD "\"points\": [[3, 0.001]]}", &c))
		fail_msg("%s", why);
	assert_null(c.informs_what);
	assert_false(c.slope_fitted);
	assert_int_equal(c.nr_points, 1);
	assert_false(c.fitted[0]);
	published_curve_free(&c);
}

static void points_are_rising_whole_and_positive(void **unused)
{
	char text[8192];
	int n;

	(void)unused;
	refused(HEAD "\"points\": [[1, 2], [2, 0]]}", "point 1: expected a rising whole thread count and a positive ns/op");
	refused(HEAD "\"points\": [[0, 2]]}", "point 0: expected a rising whole");
	refused(HEAD "\"points\": [[1.5, 2]]}", "point 0: expected a rising whole");
	refused(HEAD "\"points\": [[2, 2], [2, 3]]}", "point 1: expected a rising whole");
	refused(HEAD "\"points\": [[4, 2], [2, 3]]}", "point 1: expected a rising whole");
	refused(HEAD "\"points\": [[1, -1]]}", "point 0");
	refused(HEAD "\"points\": []}", "expected profile, family, variant, placement, private_ns and 1 to");
	refused("{\"profile\": \"p\", \"family\": \"f\", \"variant\": \"v\", \"placement\": \"x\","
		" \"private_ns\": {\"value\": 0}, \"points\": [[1, 2]]}", "private_ns");
	refused("{\"family\": \"f\", \"variant\": \"v\", \"placement\": \"x\","
		" \"private_ns\": {\"value\": 1}, \"points\": [[1, 2]]}", "expected profile");
	refused("not json", "not a curve file");
	/* PUBLISHED_MAX_POINTS points are read, one more is not */
	n = snprintf(text, sizeof(text), HEAD "\"points\": [");
	for (int i = 1; i <= PUBLISHED_MAX_POINTS; i++)
		n += snprintf(text + n, sizeof(text) - (size_t)n, "%s[%d, 1]", i > 1 ? ", " : "", i);
	snprintf(text + n, sizeof(text) - (size_t)n, "]}");
	{
		struct published_curve c;

		if (read_text(text, &c))
			fail_msg("%d points refused: %s", PUBLISHED_MAX_POINTS, why);
		assert_int_equal(c.nr_points, PUBLISHED_MAX_POINTS);
		published_curve_free(&c);
	}
	snprintf(text + n, sizeof(text) - (size_t)n, ", [%d, 1]]}", PUBLISHED_MAX_POINTS + 1);
	refused(text, "points");
}

static int make_file(void **unused)
{
	(void)unused;
	return make_temp_file(path);
}

static int remove_file(void **unused)
{
	(void)unused;
	return unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_curve_and_its_fitted_points),
		cmocka_unit_test(points_are_rising_whole_and_positive),
	};

	return cmocka_run_group_tests(tests, make_file, remove_file);
}
