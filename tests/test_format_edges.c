// SPDX-License-Identifier: GPL-2.0-only
/*
 * lib/format.c at each of its thresholds, the values decided by hand
 * from the rules its comments state: three significant digits (no more
 * decimals than that, none from 100 on, "%.3g" from 1e15 or below 1e-3,
 * a decimal dropped where rounding adds a digit), a ratio's precision by
 * its size (below 0.095, 9.995, 99.95, 1e15), p to 3 decimals below
 * 0.0095 and "< 0.001" below 0.001; and markdown's escapes: which bytes
 * get a backslash, which are shown as \xNN, and which paths are shortened.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "format.h"

static void test_significant_digits(void **state)
{
	char buf[FORMAT_LEN];

	(void)state;
	assert_string_equal(format_sig(buf, NAN), "n/a");
	assert_string_equal(format_sig(buf, -INFINITY), "n/a");
	assert_string_equal(format_sig(buf, 123.456), "123");
	assert_string_equal(format_sig(buf, 100), "100");
	assert_string_equal(format_sig(buf, 99.94), "99.9");
	/* 99.96 rounds to "100.0", a digit too many: one decimal fewer */
	assert_string_equal(format_sig(buf, 99.96), "100");
	assert_string_equal(format_sig(buf, 10), "10.0");
	assert_string_equal(format_sig(buf, 1), "1.00");
	assert_string_equal(format_sig(buf, 1.5), "1.50");
	assert_string_equal(format_sig(buf, -5.7), "-5.70");
	assert_string_equal(format_sig(buf, 0.5), "0.500");
	assert_string_equal(format_sig(buf, 0.99996), "1.00");
	assert_string_equal(format_sig(buf, -0.0123), "-0.0123");
	assert_string_equal(format_sig(buf, 0.00105), "0.00105");
	/* below 1e-3 and from 1e15 on, "%.3g" */
	assert_string_equal(format_sig(buf, 0.000999), "0.000999");
	assert_string_equal(format_sig(buf, 0.0001234), "0.000123");
	assert_string_equal(format_sig(buf, 0.00015), "0.00015");
	assert_string_equal(format_sig(buf, 1234.56), "1235");
	assert_string_equal(format_sig(buf, 1234567), "1234567");
	assert_string_equal(format_sig(buf, 123456789012345.0), "123456789012345");
	assert_string_equal(format_sig(buf, 1e15), "1e+15");
	assert_string_equal(format_sig(buf, 2.5e16), "2.5e+16");
}

static void test_ratio_precision(void **state)
{
	char buf[FORMAT_LEN];

	(void)state;
	assert_string_equal(format_ratio(buf, NAN), "n/a");
	assert_string_equal(format_ratio(buf, 0.0943), "0.094x");
	/* each threshold itself takes the next, coarser precision */
	assert_string_equal(format_ratio(buf, 0.095), "0.10x");
	assert_string_equal(format_ratio(buf, 9.994), "9.99x");
	assert_string_equal(format_ratio(buf, 9.995), "10.0x");
	assert_string_equal(format_ratio(buf, 99.94), "99.9x");
	assert_string_equal(format_ratio(buf, 99.95), "100x");
	assert_string_equal(format_ratio(buf, 999999999999999.0), "999999999999999x");
	assert_string_equal(format_ratio(buf, 1e15), "1e+15x");
}

static void test_p_and_percent(void **state)
{
	struct stats_summary one = { .n = 1, .median = 5, .ci_lo = 4, .ci_hi = 6 };
	struct stats_summary two = { .n = 2, .median = 5.25, .ci_lo = 5, .ci_hi = 5.5 };
	char buf[FORMAT_LEN];

	(void)state;
	assert_string_equal(format_p(buf, 0.000999), "< 0.001");
	assert_string_equal(format_p(buf, 0.001), "0.001");
	assert_string_equal(format_p(buf, 0.0094), "0.009");
	assert_string_equal(format_p(buf, 0.0095), "0.01");
	assert_string_equal(format_p(buf, 0.5), "0.50");
	assert_string_equal(format_p(buf, INFINITY), "n/a");
	assert_string_equal(format_percent(buf, 0.1234), "12.3%");
	assert_string_equal(format_percent(buf, 1), "100.0%");
	assert_string_equal(format_percent(buf, NAN), "n/a");
	/* one value has no interval; the scale applies to all three numbers */
	assert_string_equal(format_median_ci(buf, &one, 1e-3), "0.00500");
	assert_string_equal(format_median_ci(buf, &two, 2), "10.5 (10.0–11.0)");
	assert_string_equal(format_plural(1), "");
	assert_string_equal(format_plural(0), "s");
	assert_string_equal(format_plural(2), "s");
}

/* What one of the markdown writers makes of s. */
static char *written(void (*write)(FILE *, const char *), const char *s)
{
	static char text[512];
	FILE *out;

	memset(text, 0, sizeof(text));
	out = fmemopen(text, sizeof(text), "w");
	assert_non_null(out);
	write(out, s);
	fclose(out);
	return text;
}

static void test_markdown_escapes(void **state)
{
	(void)state;
	assert_string_equal(written(md_escape, "has_pinned"), "has_pinned");
	assert_string_equal(written(md_escape, "_x x_ a|b `c` *d* [e] f\\g"),
			    "\\_x x\\_ a\\|b \\`c\\` \\*d\\* \\[e\\] f\\\\g");
	assert_string_equal(written(md_escape, ">q a>b <tag>"), "\\>q a>b \\<tag>");
	assert_string_equal(written(md_escape, "&amp; &#62; &#x3e; &mm->x &; &a"),
			    "\\&amp; \\&#62; \\&#x3e; &mm->x &; &a");
	/* a one-letter name is a reference too, and "&#;" is none */
	assert_string_equal(written(md_escape, "&a; &#; &#x;"), "\\&a; &#; &#x;");
	assert_string_equal(written(md_escape, "&#6; &#X7;"), "\\&#6; \\&#X7;");
	assert_string_equal(written(md_escape, "a\tb\nc\rd"), "a b c d");
	/* control bytes as text; the space and '~' are printable, DEL is not */
	assert_string_equal(written(md_escape, "\x1f \x7e\x7f\x01"), "\\x1f ~\\x7f\\x01");
	assert_string_equal(written(md_escape, NULL), "");
	assert_string_equal(written(md_code, "a`b|c\nd\re\x02 \x7f~"), "`abcde\\x02 \\x7f~`");
	assert_string_equal(written(md_code, "\x1b[0m\x1f"), "`\\x1b[0m\\x1f`");
	assert_string_equal(written(md_name, "has_pinned"), "has_pinned");
	assert_string_equal(written(md_name, "a=1,b"), "a=1,b");
	assert_string_equal(written(md_name, "_x"), "\\_x");
	assert_string_equal(written(md_name, "x_"), "x\\_");
	assert_string_equal(written(md_name, "a*b"), "a\\*b");
	assert_string_equal(written(md_name, "pin/v1.2:x+y-z"), "pin/v1.2:x+y-z");
	assert_string_equal(written(md_name, ""), "");
}

/* A path after a space, a parenthesis, a quote or '=' is shown by its last part. */
static void test_short_paths(void **state)
{
	(void)state;
	assert_string_equal(written(md_escape_short_paths, "see /usr/lib/x_y.so here"),
			    "see x_y.so here");
	assert_string_equal(written(md_escape_short_paths, "(/a/b) '/c/d' \"/e/f\" k=/g/h;"),
			    "(b) 'd' \"f\" k=h;");
	assert_string_equal(written(md_escape_short_paths, "a/b/c"), "a/b/c");
	assert_string_equal(written(md_escape_short_paths, "/trailing/"), "trailing/");
	assert_string_equal(written(md_escape_short_paths, "/top"), "top");
	assert_string_equal(written(md_escape_short_paths, NULL), "");
}

static void test_alnum(void **state)
{
	const char yes[] = "azAZ09mM5", no[] = "`{@[/:\x7f -";

	(void)state;
	for (const char *c = yes; *c; c++)
		assert_true(ascii_alnum(*c));
	for (const char *c = no; *c; c++)
		assert_false(ascii_alnum(*c));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_significant_digits),
		cmocka_unit_test(test_ratio_precision),
		cmocka_unit_test(test_p_and_percent),
		cmocka_unit_test(test_markdown_escapes),
		cmocka_unit_test(test_short_paths),
		cmocka_unit_test(test_alnum),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
