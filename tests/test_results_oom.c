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
 * reads on without the failure. And every allocation of the reader's
 * own (malloc(), calloc(), realloc() and strdup() wrapped) failing in
 * turn, on files of each shape (ours in rounds, Google Benchmark's
 * repetitions, its aggregates alone, a corpus run): -2 and "out of
 * memory", or, where the reader has another way (a JSON region that
 * cannot be had: the tree in malloc()'s memory), the same set as read
 * with all the memory it wanted; never a set read short. The latency
 * matrix's reader likewise, in both its shapes: -2, "out of memory".
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

#include "latency_map.h"
#include "results_read.h"
#include "test_util.h"

/* The growth that fails: 512 slots of one pointer each, once. */
#define FAILING_SLOTS 512

static bool fail_next_growth;
static unsigned int nr_failed;

/* A realloc() of this many bytes fails, once; 0: none. */
static size_t failing_realloc;

/* While counting, the allocation (0-based) that fails; -1: none. */
static bool counting;
static long nr_allocations, failing_allocation = -1;

static bool this_one_fails(void)
{
	return counting && nr_allocations++ == failing_allocation;
}

/*
 * Which of a read's total allocations to fail: each of them where they
 * are few, as in the builds that parse into a region (29 allocations for
 * a corpus run). Under the sanitizers every node of the tree comes from
 * malloc() (json_region.c), 17,650 for the same file, and failing each
 * in turn rereads it 17,650 times (70 s under ASan, more than the test's
 * timeout): there, the first and last 128 and 256 spread evenly between.
 */
static long next_to_fail(long i, long total)
{
	long stride = total / 256, next;

	if (total <= 512 || i < 127 || i >= total - 129)
		return i + 1;
	next = (i / stride + 1) * stride;
	return next < total - 128 ? next : total - 128;
}

void *__real_malloc(size_t size);
void *__wrap_malloc(size_t size);
char *__real_strdup(const char *s);
char *__wrap_strdup(const char *s);

void *__wrap_malloc(size_t size)
{
	return this_one_fails() ? NULL : __real_malloc(size);
}

char *__wrap_strdup(const char *s)
{
	return this_one_fails() ? NULL : __real_strdup(s);
}

void *__real_calloc(size_t nmemb, size_t size);
void *__wrap_calloc(size_t nmemb, size_t size);
void *__real_realloc(void *p, size_t size);
void *__wrap_realloc(void *p, size_t size);

void *__wrap_realloc(void *p, size_t size)
{
	if (this_one_fails())
		return NULL;
	if (failing_realloc && size == failing_realloc) {
		failing_realloc = 0;
		nr_failed++;
		return NULL;
	}
	return __real_realloc(p, size);
}

void *__wrap_calloc(size_t nmemb, size_t size)
{
	if (this_one_fails())
		return NULL;
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

/* What a read kept, row by row, in one line per row. */
static void describe(const struct results *set, char *out, size_t len)
{
	size_t used = (size_t)snprintf(out, len, "%zu rows, %zu failures, %u files\n",
				       set->nr_rows, set->nr_failures, set->nr_files);

	for (size_t i = 0; i < set->nr_rows && used < len; i++) {
		const struct result_row *r = &set->rows[i];

		used += (size_t)snprintf(out + used, len - used,
					 "%s %s %s %s %ld %ld %.17g %.17g %zu %s\n", r->name,
					 r->family ? r->family : "-", r->variant ? r->variant : "-",
					 r->setting ? r->setting : "-", r->threads,
					 r->repetition_index, r->ns_per_op, r->ops, r->nr_counters,
					 r->aggregate ? r->aggregate : "-");
	}
	assert_true(used < len);
}

/* Reads name with each of the reader's allocations failing in turn. */
static void each_allocation_fails(const char *name)
{
	static char whole[1 << 20], got[1 << 20];
	char path[512], err[1024];
	struct results set = { 0 };
	long total, short_of_memory = 0;

	snprintf(path, sizeof(path), "%s/data/%s", TESTS_DIR, name);
	counting = true;
	nr_allocations = 0;
	failing_allocation = -1;
	if (results_read(&set, path, err, sizeof(err)))
		fail_msg("%s: %s", name, err);
	total = nr_allocations;
	assert_true(total >= 3 && set.nr_rows > 0);
	describe(&set, whole, sizeof(whole));
	results_free(&set);
	for (failing_allocation = 0; failing_allocation < total;
	     failing_allocation = next_to_fail(failing_allocation, total)) {
		int rc;

		nr_allocations = 0;
		err[0] = '\0';
		rc = results_read(&set, path, err, sizeof(err));
		if (rc == 0) {
			describe(&set, got, sizeof(got));
			if (strcmp(got, whole))
				fail_msg("%s: allocation %ld of %ld failed, and the read went on short",
					 name, failing_allocation + 1, total);
		} else if (rc != -2 || !strstr(err, "out of memory")) {
			fail_msg("%s: allocation %ld of %ld failed: %d, \"%s\"", name,
				 failing_allocation + 1, total, rc, err);
		} else {
			short_of_memory++;
		}
		results_free(&set);
	}
	counting = false;
	failing_allocation = -1;
	print_message("%s: %ld allocations, %ld failing the read\n", name, total,
		      short_of_memory);
	assert_true(short_of_memory > 0);
}

static void every_allocation_of_the_reader_fails_in_turn(void **unused)
{
	(void)unused;
	each_allocation_fails("results-rounds.json");
	each_allocation_fails("gbench-repetitions.json");
	each_allocation_fails("gbench-aggregates-only.json");
	each_allocation_fails("runs/epyc-zen3-2026-12-01/quick.json");
}

static void latency_allocations_fail(const char *path)
{
	struct latency_map m;
	char err[1024];
	long total;

	counting = true;
	nr_allocations = 0;
	failing_allocation = -1;
	if (latency_map_read(path, &m, err, sizeof(err)))
		fail_msg("%s", err);
	total = nr_allocations;
	assert_true(total >= 3 && m.n > 0);
	latency_map_free(&m);
	for (failing_allocation = 0; failing_allocation < total;
	     failing_allocation = next_to_fail(failing_allocation, total)) {
		int rc;

		nr_allocations = 0;
		err[0] = '\0';
		rc = latency_map_read(path, &m, err, sizeof(err));
		if (rc != -2 || !strstr(err, "out of memory"))
			fail_msg("%s: allocation %ld of %ld failed: %d, \"%s\"", path,
				 failing_allocation + 1, total, rc, err);
	}
	counting = false;
	failing_allocation = -1;
}

static void every_allocation_of_the_latency_reader_fails_in_turn(void **unused)
{
	char pairs[512], square[] = "/tmp/bouncelab-latency-oom-XXXXXX";
	FILE *f;

	(void)unused;
	snprintf(pairs, sizeof(pairs), "%s/data/latency-fixed.json", TESTS_DIR);
	latency_allocations_fail(pairs);
	assert_int_equal(make_temp_file(square), 0);
	f = fopen(square, "w");
	assert_non_null(f);
	fputs("{\"cpus\": [8, 2], \"matrix\": [[null, 40], [42, 7]]}", f);
	assert_int_equal(fclose(f), 0);
	latency_allocations_fail(square);
	unlink(square);
}

/*
 * A journal's context that cannot be read is named as the context, not as
 * a row of "benchmarks": --resume keeps the readable rows of a journal
 * (results_keep_readable_rows()), and the context comes before any row.
 */
static void a_bad_context_is_not_a_row(void **unused)
{
	json_t *context = json_pack("{s:s, s:s, s:s}", "date", "2026-12-01T10:00:00+00:00",
				    "host_name", "h", "num_cpus", "two");
	json_t *rows = json_array();
	char err[512] = "";
	size_t refused = 0;

	(void)unused;
	assert_int_equal(results_keep_readable_rows(context, rows, "run.journal", &refused, err,
						    sizeof(err)), -1);
	print_message("%s\n", err);
	if (!strstr(err, "run.journal: ") || !strstr(err, "num_cpus") || strstr(err, "benchmarks["))
		fail_msg("a context whose num_cpus is a string: \"%s\"", err);
	json_decref(context);
	json_decref(rows);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_name_that_cannot_be_stored_fails_the_read),
		cmocka_unit_test(a_failure_that_cannot_be_listed_fails_the_read),
		cmocka_unit_test(every_allocation_of_the_reader_fails_in_turn),
		cmocka_unit_test(every_allocation_of_the_latency_reader_fails_in_turn),
		cmocka_unit_test(a_bad_context_is_not_a_row),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
