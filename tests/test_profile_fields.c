// SPDX-License-Identifier: GPL-2.0-only
/*
 * A machine profile as profile_read() keeps it, from files written here:
 * every field and its source, the optional ones absent or present, and
 * each number at both ends of its range (read) and just past them
 * (refused, with the range in the message):
 *
 *   clock_ghz 0.1 to 10, store_buffer 0 to 1024 and whole, remote_home_ns
 *   0 to 10000, tenure_share 0.001 to 1, waiter_ns 0 to 1000, one_way_ns
 *   of each class 0.1 to 10000; name 1 to 63 characters, title to 159,
 *   topology to 255.
 *
 * And when memory runs out (malloc() wrapped in this program: each call
 * made while reading fails in turn): -2 and "out of memory", never -1,
 * a bad file.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include "float_assert.h"
#include "test_util.h"

#include "profile_read.h"

static char path[] = "/tmp/bouncelab-profile-XXXXXX";

/* The malloc() call (0-based) that fails while counting; -1: none. */
static long fail_malloc_at = -1, nr_mallocs;
static bool counting;

void *__real_malloc(size_t size);
void *__wrap_malloc(size_t size);

void *__wrap_malloc(size_t size)
{
	if (counting && nr_mallocs++ == fail_malloc_at)
		return NULL;
	return __real_malloc(size);
}
static char err[2048];

#define SOURCED(v) "{\"value\": " v ", \"source\": \"measured\"}"

static int read_with(const char *extra, const char *clock, const char *sb,
		     const char *one_way, struct profile_file *p)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fprintf(f, "{\"name\": \"m\", \"topology\": \"pack:1 core:2 pu:1\","
		" \"clock_ghz\": {\"value\": %s, \"source\": \"cpuinfo\"},"
		" \"store_buffer\": {\"value\": %s, \"source\": \"manual\"},"
		" \"one_way_ns\": %s%s}", clock, sb, one_way, extra);
	fclose(f);
	*err = '\0';
	return profile_read(path, 1 << 20, p, err, sizeof(err));
}

static void read_ok(const char *extra, const char *clock, const char *sb, const char *one_way,
		    struct profile_file *p)
{
	if (read_with(extra, clock, sb, one_way, p))
		fail_msg("refused: %s", err);
}

static void refused(const char *extra, const char *clock, const char *sb,
		    const char *one_way, const char *want)
{
	struct profile_file p;

	assert_int_equal(read_with(extra, clock, sb, one_way, &p), -1);
	if (!strstr(err, want))
		fail_msg("'%s', expected '%s' in it", err, want);
	assert_null(p.doc);
}

#define L3 "{\"l3\": " SOURCED("40") "}"

static void every_field_and_its_source(void **unused)
{
	struct profile_file p;

	(void)unused;
	read_ok(", \"title\": \"A test machine\", \"numa_distances\": \"10,32\","
		" \"remote_home_ns\": " SOURCED("120")
		", \"tenure_share\": " SOURCED("0.25") ", \"waiter_ns\": " SOURCED("0.5"),
		"2.5", "56",
		"{\"smt\": " SOURCED("12") ", \"cross_package\": " SOURCED("300") "}", &p);
	assert_string_equal(p.name, "m");
	assert_string_equal(p.title, "A test machine");
	assert_string_equal(p.topology, "pack:1 core:2 pu:1");
	assert_string_equal(p.numa_distances, "10,32");
	assert_float_equal(p.clock_ghz.value, 2.5, 0);
	assert_string_equal(p.clock_ghz.source, "cpuinfo");
	assert_float_equal(p.store_buffer.value, 56, 0);
	assert_string_equal(p.store_buffer.source, "manual");
	assert_true(p.has_remote_home);
	assert_float_equal(p.remote_home_ns.value, 120, 0);
	assert_true(p.has_tenure_share);
	assert_float_equal(p.tenure_share.value, 0.25, 0);
	assert_true(p.has_waiter_ns);
	assert_float_equal(p.waiter_ns.value, 0.5, 0);
	assert_true(p.has_one_way[DISTANCE_SMT]);
	assert_true(p.has_one_way[DISTANCE_CROSS_PACKAGE]);
	assert_false(p.has_one_way[DISTANCE_L3]);
	assert_float_equal(p.one_way_ns[DISTANCE_SMT].value, 12, 0);
	assert_float_equal(p.one_way_ns[DISTANCE_CROSS_PACKAGE].value, 300, 0);
	assert_string_equal(p.one_way_ns[DISTANCE_SMT].source, "measured");
	profile_free(&p);
	assert_null(p.doc);

	read_ok("", "2.5", "56", L3, &p);
	assert_string_equal(p.title, "");
	assert_null(p.numa_distances);
	assert_false(p.has_remote_home);
	assert_false(p.has_tenure_share);
	assert_false(p.has_waiter_ns);
	profile_free(&p);
}

static void numbers_at_their_ends(void **unused)
{
	struct profile_file p;

	(void)unused;
	read_ok("", "0.1", "0", L3, &p);
	profile_free(&p);
	read_ok("", "10", "1024", L3, &p);
	profile_free(&p);
	refused("", "0.099", "4", L3, "clock_ghz: expected {\"value\": a number from 0.1 to 10,");
	refused("", "10.01", "4", L3, "clock_ghz: expected {\"value\": a number from 0.1 to 10,");
	refused("", "2", "-1", L3, "store_buffer: expected {\"value\": a number from 0 to 1024,");
	refused("", "2", "1025", L3, "from 0 to 1024");
	refused("", "2", "4.5", L3, "store_buffer: 4.5: expected a whole number of entries from 0 to 1024");

	read_ok(", \"remote_home_ns\": " SOURCED("0") ", \"tenure_share\": " SOURCED("0.001")
		", \"waiter_ns\": " SOURCED("0"), "2", "4", L3, &p);
	assert_float_equal(p.tenure_share.value, 0.001, 0);
	profile_free(&p);
	read_ok(", \"remote_home_ns\": " SOURCED("10000") ", \"tenure_share\": " SOURCED("1")
		", \"waiter_ns\": " SOURCED("1000"), "2", "4", L3, &p);
	assert_float_equal(p.remote_home_ns.value, 10000, 0);
	assert_float_equal(p.waiter_ns.value, 1000, 0);
	profile_free(&p);
	refused(", \"remote_home_ns\": " SOURCED("10000.5"), "2", "4", L3,
		"remote_home_ns: expected {\"value\": a number from 0 to 10000,");
	refused(", \"remote_home_ns\": " SOURCED("-0.5"), "2", "4", L3, "remote_home_ns");
	refused(", \"tenure_share\": " SOURCED("0.0009"), "2", "4", L3,
		"tenure_share: expected {\"value\": a number from 0.001 to 1,");
	refused(", \"tenure_share\": " SOURCED("1.01"), "2", "4", L3, "tenure_share");
	refused(", \"waiter_ns\": " SOURCED("1000.5"), "2", "4", L3,
		"waiter_ns: expected {\"value\": a number from 0 to 1000,");
	refused(", \"waiter_ns\": " SOURCED("-1"), "2", "4", L3, "waiter_ns");

	read_ok("", "2", "4", "{\"l2\": " SOURCED("0.1") ", \"numa\": " SOURCED("10000") "}", &p);
	assert_float_equal(p.one_way_ns[DISTANCE_L2].value, 0.1, 0);
	assert_float_equal(p.one_way_ns[DISTANCE_NUMA].value, 10000, 0);
	profile_free(&p);
	refused("", "2", "4", "{\"l3\": " SOURCED("0.09") "}",
		"one_way_ns.l3: expected {\"value\": a number from 0.1 to 10000,");
	refused("", "2", "4", "{\"package\": " SOURCED("10001") "}", "one_way_ns.package");
	refused("", "2", "4", "{\"same_pu\": " SOURCED("10") "}", "unknown class 'same_pu'");
	refused("", "2", "4", "{\"far\": " SOURCED("10") "}", "unknown class 'far'");
	refused("", "2", "4", "{}", "\"one_way_ns\": expected an object of distance classes");
	refused("", "2", "4", "{\"l3\": {\"value\": 4}}", "one_way_ns.l3: expected a \"source\"");
	refused("", "2", "4", "{\"l3\": {\"value\": 4, \"source\": \"\"}}", "expected a \"source\"");
	refused(", \"numa_distances\": [10, 32]", "2", "4", L3,
		"\"numa_distances\": expected a string");
}

static void strings_at_their_lengths(void **unused)
{
	char name[80], extra[512];
	struct profile_file p;
	FILE *f;

	(void)unused;
	memset(name, 'n', sizeof(name));
	name[64] = '\0';
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "{\"name\": \"%s\", \"topology\": \"t\", \"clock_ghz\": " SOURCED("2")
		", \"store_buffer\": " SOURCED("4") ", \"one_way_ns\": " L3 "}", name);
	fclose(f);
	assert_int_equal(profile_read(path, 1 << 20, &p, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "\"name\": expected a string of 1 to 63 characters"));
	name[63] = '\0';
	f = fopen(path, "w");
	fprintf(f, "{\"name\": \"%s\", \"topology\": \"t\", \"clock_ghz\": " SOURCED("2")
		", \"store_buffer\": " SOURCED("4") ", \"one_way_ns\": " L3 "}", name);
	fclose(f);
	if (profile_read(path, 1 << 20, &p, err, sizeof(err)))
		fail_msg("%s", err);
	assert_int_equal(strlen(p.name), 63);
	profile_free(&p);
	snprintf(extra, sizeof(extra), ", \"title\": \"\"");
	refused(extra, "2", "4", L3, "\"title\": expected a string of 1 to 159 characters");
	f = fopen(path, "w");
	fprintf(f, "{\"topology\": \"t\", \"clock_ghz\": " SOURCED("2")
		", \"store_buffer\": " SOURCED("4") ", \"one_way_ns\": " L3 "}");
	fclose(f);
	assert_int_equal(profile_read(path, 1 << 20, &p, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "\"name\": expected a string of 1 to 63 characters"));
	f = fopen(path, "w");
	fprintf(f, "[1]");
	fclose(f);
	assert_int_equal(profile_read(path, 1 << 20, &p, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "expected a JSON object (a machine profile)"));
}

static int make_file(void **unused)
{
	(void)unused;
	return make_temp_file(path);
}

/*
 * A file that is not JSON, or not there, is a bad file: -1 and why.
 * Catches profile_read() returning 0 (as "-0") for it.
 */
static void a_file_that_is_not_json_is_refused(void **unused)
{
	struct profile_file p;
	FILE *f = fopen(path, "w");

	(void)unused;
	assert_non_null(f);
	fputs("{\"name\": ", f);
	fclose(f);
	err[0] = '\0';
	assert_int_equal(profile_read(path, 1 << 20, &p, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "not valid JSON"));
	err[0] = '\0';
	assert_int_equal(profile_read("/nonexistent/profile.json", 1 << 20, &p, err,
				      sizeof(err)), -1);
	assert_true(err[0] != '\0');
}

/*
 * Catches profile_read()'s out of memory told apart from a bad file by
 * the wrong status ("status == 1" as "== 0"): each allocation the read
 * makes (the file's text, jansson's tree) fails in turn.
 */
static void out_of_memory_is_not_a_bad_file(void **unused)
{
	struct profile_file p;
	long nr;

	(void)unused;
	counting = true;
	nr_mallocs = 0;
	fail_malloc_at = -1;
	read_ok("", "2.5", "56", L3, &p);
	nr = nr_mallocs;
	counting = false;
	profile_free(&p);
	assert_true(nr > 1);
	for (long k = 0; k < nr; k++) {
		int rc;

		counting = true;
		nr_mallocs = 0;
		fail_malloc_at = k;
		rc = read_with("", "2.5", "56", L3, &p);
		counting = false;
		if (rc != -2 || !strstr(err, "out of memory"))
			fail_msg("allocation %ld of %ld failing: %d, '%s'", k, nr, rc, err);
	}
}

static int remove_file(void **unused)
{
	(void)unused;
	return unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_field_and_its_source),
		cmocka_unit_test(numbers_at_their_ends),
		cmocka_unit_test(strings_at_their_lengths),
		cmocka_unit_test(a_file_that_is_not_json_is_refused),
		cmocka_unit_test(out_of_memory_is_not_a_bad_file),
	};

	return cmocka_run_group_tests(tests, make_file, remove_file);
}
