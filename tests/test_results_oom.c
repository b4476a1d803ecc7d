// SPDX-License-Identifier: GPL-2.0-only
/*
 * The reader when memory runs out while it stores a row's names: a file
 * of p rows of another tool, each with a name of its own, then one row
 * of ours (family, variant, policy and widest class, each a new name).
 * The set that holds every name once grows, from 256 slots to 512, when
 * it holds 128 names; that one allocation fails here (calloc() wrapped).
 * As p goes from 100 to 140, the growth falls on each of the row's names
 * in turn. Whichever it is, the read fails with "out of memory", or, when
 * the growth came before or after the row, reads the row whole: never a
 * row of ours with a name left out. And the list of failed rows, which
 * cannot grow (realloc() wrapped to fail once): the read fails, never
 * reads on without the failure.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "results_read.h"
#include "test_util.h"

/* The growth that fails: 512 slots of one pointer each, once. */
#define FAILING_SLOTS 512

static bool fail_next_growth;
static unsigned int nr_failed;

/* A realloc() of this many bytes fails, once; 0: none. */
static size_t failing_realloc;

void *__real_calloc(size_t nmemb, size_t size);
void *__wrap_calloc(size_t nmemb, size_t size);
void *__real_realloc(void *p, size_t size);
void *__wrap_realloc(void *p, size_t size);

void *__wrap_realloc(void *p, size_t size)
{
	if (failing_realloc && size == failing_realloc) {
		failing_realloc = 0;
		nr_failed++;
		return NULL;
	}
	return __real_realloc(p, size);
}

void *__wrap_calloc(size_t nmemb, size_t size)
{
	if (fail_next_growth && nmemb == FAILING_SLOTS && size == sizeof(const char *)) {
		fail_next_growth = false;
		nr_failed++;
		return NULL;
	}
	return __real_calloc(nmemb, size);
}

static json_t *foreign(int i)
{
	char name[64];

	snprintf(name, sizeof(name), "BM_other_%d", i);
	return json_pack("{s:s, s:s, s:s, s:i, s:i, s:i, s:i, s:f, s:f, s:s}",
			 "name", name, "run_name", name, "run_type", "iteration",
			 "repetitions", 1, "repetition_index", 0, "threads", 1,
			 "iterations", 10, "real_time", 5.0, "cpu_time", 5.0, "time_unit", "ns");
}

static json_t *ours(void)
{
	const char *name = "has_pinned/store_always/real_time/threads:1";

	return json_pack("{s:s, s:s, s:s, s:i, s:i, s:i, s:i, s:f, s:f, s:s, s:f, s:f, s:f,"
			 " s:{s:s, s:s, s:{s:i, s:s}, s:{s:s, s:[i], s:s, s:n}}}",
			 "name", name, "run_name", name, "run_type", "iteration",
			 "repetitions", 1, "repetition_index", 0, "threads", 1,
			 "iterations", 1000, "real_time", 7.0, "cpu_time", 7.0, "time_unit", "ns",
			 "ns_per_op", 7.0, "ops", 1000.0, "wall_ns", 7000.0,
			 "bouncelab", "family", "has_pinned", "variant", "store_always",
			 "params", "pin_work", 2, "flag_line", "shared",
			 "placement", "policy", "compact", "cpus", 0, "widest_class", "same_pu",
			 "numa_distance");
}

static void write_file(const char *path, int nr_foreign)
{
	json_t *rows = json_array(), *doc;

	for (int i = 0; i < nr_foreign; i++)
		json_array_append_new(rows, foreign(i));
	json_array_append_new(rows, ours());
	doc = json_pack("{s:{s:s, s:s, s:i}, s:o}",
			"context", "date", "2026-12-01T10:00:00+00:00", "host_name", "h",
			"num_cpus", 2, "benchmarks", rows);
	assert_int_equal(json_dump_file(doc, path, 0), 0);
	json_decref(doc);
}

static void expect_text(const char *got, const char *want, int p)
{
	if (!got || strcmp(got, want))
		fail_msg("%d rows before ours: '%s' read as '%s'", p, want, got ? got : "(none)");
}

/*
 * Catches unique_names()'s "||" between two names turned into "&&": a
 * failed family (or policy) is then taken back by the next name's
 * success, and the row is read with no family (or no policy).
 */
static void a_name_that_cannot_be_stored_fails_the_read(void **unused)
{
	char path[] = "/tmp/bouncelab-results-oom-XXXXXX";
	unsigned int nr_out_of_memory = 0;

	(void)unused;
	assert_int_equal(make_temp_file(path), 0);
	for (int p = 100; p <= 140; p++) {
		struct results set = { 0 };
		char err[1024] = "";
		int rc;

		write_file(path, p);
		fail_next_growth = true;
		nr_failed = 0;
		rc = results_read(&set, path, err, sizeof(err));
		fail_next_growth = false;
		if (rc) {
			if (!strstr(err, "out of memory reading"))
				fail_msg("%d rows before ours: %s", p, err);
			/* memory ran out: -2, not -1 for a bad file */
			assert_int_equal(rc, -2);
			assert_int_equal(nr_failed, 1);
			nr_out_of_memory++;
		} else {
			const struct result_row *r = &set.rows[set.nr_rows - 1];

			assert_int_equal(set.nr_rows, p + 1);
			expect_text(r->name, "has_pinned/store_always/real_time/threads:1", p);
			expect_text(r->family, "has_pinned", p);
			expect_text(r->variant, "store_always", p);
			expect_text(r->policy, "compact", p);
			expect_text(r->widest_class, "same_pu", p);
		}
		results_free(&set);
	}
	/* the growth fell inside the read for most p: it was tried */
	assert_true(nr_out_of_memory > 0);
	unlink(path);
}

/*
 * One failed row: the list of failures grows to its first 64 entries, and
 * that realloc() fails. Catches add_failure() returning 0 there ("return
 * -1" as "-0"): the read would go on and keep no failure.
 */
static void a_failure_that_cannot_be_listed_fails_the_read(void **unused)
{
	char path[] = "/tmp/bouncelab-results-oom-XXXXXX", err[1024] = "";
	struct results set = { 0 };
	json_t *row = foreign(0), *doc;

	(void)unused;
	assert_int_equal(make_temp_file(path), 0);
	json_object_set_new(row, "error_occurred", json_true());
	json_object_set_new(row, "error_message", json_string("verify failed"));
	doc = json_pack("{s:{s:s, s:s, s:i}, s:[o]}",
			"context", "date", "2026-12-01T10:00:00+00:00", "host_name", "h",
			"num_cpus", 2, "benchmarks", row);
	assert_int_equal(json_dump_file(doc, path, 0), 0);
	json_decref(doc);

	/* as it is: one failure listed */
	assert_int_equal(results_read(&set, path, err, sizeof(err)), 0);
	assert_int_equal(set.nr_failures, 1);
	results_free(&set);

	nr_failed = 0;
	failing_realloc = 64 * sizeof(struct result_failure);
	assert_int_equal(results_read(&set, path, err, sizeof(err)), -2);
	failing_realloc = 0;
	assert_int_equal(nr_failed, 1);
	assert_non_null(strstr(err, "out of memory reading"));
	results_free(&set);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_name_that_cannot_be_stored_fails_the_read),
		cmocka_unit_test(a_failure_that_cannot_be_listed_fails_the_read),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
