// SPDX-License-Identifier: GPL-2.0-only
/*
 * The results files' fast parser (report/results_json.h) against jansson,
 * its oracle: whatever it accepts, jansson must accept as the same value
 * (type for type: an integer is not a real); whatever is not plain or not
 * valid, it must decline. And it must take the plain files bouncelab
 * writes, or `report` on a long run is slow again without a word.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "results_json.h"

/* The fast parser declines or agrees with jansson; returns its answer. */
static json_t *parse_both(const char *text)
{
	size_t len = strlen(text);
	json_t *plain = results_json_parse_plain(text, len);
	json_t *ref = json_loadb(text, len, JSON_REJECT_DUPLICATES, NULL);

	if (plain) {
		if (!ref || !json_equal(plain, ref))
			fail_msg("the fast parser took %s as jansson did not", text);
	}
	json_decref(ref);
	return plain;
}

static void test_plain_accepted(void **state)
{
	static const char *const plain[] = {
		"{}", "[]", " \t\r\n{ } \n",
		"{\"a\": 1, \"b\": -0, \"c\": 2.5, \"d\": -1e-3, \"e\": 1E+2}",
		"{\"a\": [true, false, null, \"x y\", {}], \"\": \"\"}",
		"[0, 10, 123456789012345678, 0.1, 17168510.0, 23.748969451499207]",
		"{\"context\": {\"num_cpus\": 2}, \"benchmarks\": [{\"name\": \"a/b\","
		" \"bouncelab\": {\"params\": {\"pin_work\": 1}}}]}",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(plain) / sizeof(plain[0]); i++) {
		json_t *v = parse_both(plain[i]);

		if (!v)
			fail_msg("the fast parser declined plain %s", plain[i]);
		json_decref(v);
	}
}

static void test_declined(void **state)
{
	static const char *const other[] = {
		/* not plain: jansson's to decode */
		"{\"a\": \"tab\\there\"}", "{\"a\\u0041\": 1}", "{\"\xc3\xa9\": 1}",
		"[1e400]", "[1e-400]", "[99999999999999999999]",
		"\"top-level string\"", "3",
		/* not valid: jansson's to explain */
		"", "   ", "{", "[1,]", "[,1]", "{\"a\" 1}", "{\"a\": 1,}", "{a: 1}",
		"{\"a\": 1, \"a\": 2}", "[01]", "[1.]", "[.5]", "[-]", "[1e]", "[+1]",
		"[NaN]", "[Infinity]", "[tru]", "[truex]", "[nul]", "{} {}", "{}x",
		"[\"a\nb\"]", "[\"unterminated]", "[1 2]", "{\"a\": 1 \"b\": 2}",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(other) / sizeof(other[0]); i++) {
		json_t *v = parse_both(other[i]);

		if (v)
			fail_msg("the fast parser took %s, which it should leave to jansson",
				 other[i]);
	}
}

/* Nesting past its bound goes to jansson, which allows deeper. */
static void test_deep(void **state)
{
	char text[2 * 100 + 1];
	json_t *v;

	(void)state;
	memset(text, '[', 100);
	memset(text + 100, ']', 100);
	text[200] = '\0';
	v = parse_both(text);
	assert_null(v);
	memset(text, '[', 10);
	memcpy(text + 10, "]]]]]]]]]]", 11);
	v = parse_both(text);
	assert_non_null(v);
	json_decref(v);
}

/* The seed files of the results fuzz target: all plain, all agree. */
static void test_files(void **state)
{
	const char *dir = *(const char **)*state;
	static const char *const names[] = {
		"errors.json", "foreign_gbench.json", "incomplete.json", "minimal.json",
		"quick_run.json",
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char path[4096];
		FILE *f;
		char *text;
		long len;
		json_t *v;

		snprintf(path, sizeof(path), "%s/fuzz/results/seeds/%s", dir, names[i]);
		f = fopen(path, "rb");
		assert_non_null(f);
		fseek(f, 0, SEEK_END);
		len = ftell(f);
		rewind(f);
		text = calloc(1, (size_t)len + 1);
		assert_non_null(text);
		assert_int_equal(fread(text, 1, (size_t)len, f), (size_t)len);
		fclose(f);
		v = parse_both(text);
		if (!v)
			fail_msg("the fast parser declined %s", path);
		json_decref(v);
		free(text);
	}
}

int main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : "tests";
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain_accepted),
		cmocka_unit_test(test_declined),
		cmocka_unit_test(test_deep),
		cmocka_unit_test_prestate(test_files, &dir),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
