// SPDX-License-Identifier: GPL-2.0-only
/*
 * The results reader, field by field, on small files written here with
 * values chosen so that every number it keeps can be checked by hand:
 *
 *   ours     ns_per_op as given; ops/s = ops / wall_ns x 1e9 (3e6 ops in
 *            1.5e6 ns: 2e9/s); its counters; its setting in words
 *   foreign  real_time in ns whatever the unit (2.5 us: 2500 ns), no
 *            ops/s; a time of 0 is nothing to compare; counters may be
 *            negative
 *   aggregates  counted, and kept only for a benchmark without
 *            repetitions: its median, else its mean, standing for its
 *            repetitions
 *   failures the failed and skipped rows, with their messages
 *   files    two files in one set, each with its range of rows, the
 *            names they share stored once; a set freed is empty and
 *            reads again
 */
#include <limits.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include "float_assert.h"

#include "results_read.h"

static char dir[] = "/tmp/bouncelab-results-reader-XXXXXX";

static json_t *context(void)
{
	return json_pack("{s:s, s:s, s:i}", "date", "2026-12-01T10:00:00+00:00",
			 "host_name", "h", "num_cpus", 2);
}

static json_t *ours(const char *variant, int threads, int index, double ns,
		    double ops, double wall)
{
	char name[128];

	snprintf(name, sizeof(name), "has_pinned/%s/real_time/threads:%d", variant, threads);
	return json_pack("{s:s, s:s, s:s, s:i, s:i, s:i, s:i, s:f, s:f, s:s, s:f, s:f, s:f,"
			 " s:{s:s, s:s, s:{s:i, s:s}, s:{s:s, s:[i], s:s, s:n}}}",
			 "name", name, "run_name", name, "run_type", "iteration",
			 "repetitions", 3, "repetition_index", index, "threads", threads,
			 "iterations", 1000, "real_time", ns, "cpu_time", ns, "time_unit", "ns",
			 "ns_per_op", ns, "ops", ops, "wall_ns", wall,
			 "bouncelab", "family", "has_pinned", "variant", variant,
			 "params", "pin_work", 2, "flag_line", "shared",
			 "placement", "policy", "compact", "cpus", 0, "widest_class", "same_pu",
			 "numa_distance");
}

static json_t *foreign(const char *name, double t, const char *unit)
{
	return json_pack("{s:s, s:s, s:s, s:i, s:i, s:i, s:i, s:f, s:f, s:s}",
			 "name", name, "run_name", name, "run_type", "iteration",
			 "repetitions", 2, "repetition_index", 0, "threads", 2,
			 "iterations", 10, "real_time", t, "cpu_time", t, "time_unit", unit);
}

static json_t *aggregate(const char *name, const char *what, double t, int repetitions)
{
	char full[128];

	snprintf(full, sizeof(full), "%s_%s", name, what);
	return json_pack("{s:s, s:s, s:s, s:s, s:i, s:i, s:i, s:f, s:f, s:s}",
			 "name", full, "run_name", name, "run_type", "aggregate",
			 "aggregate_name", what, "repetitions", repetitions, "threads", 1,
			 "iterations", repetitions, "real_time", t, "cpu_time", t,
			 "time_unit", "ns");
}

static void write_file(const char *path, json_t *rows)
{
	json_t *doc = json_pack("{s:o, s:o}", "context", context(), "benchmarks", rows);

	assert_int_equal(json_dump_file(doc, path, 0), 0);
	json_decref(doc);
}

static void read_or_fail(struct results *set, const char *path)
{
	char err[1024];

	if (results_read(set, path, err, sizeof(err)))
		fail_msg("%s", err);
}

static const struct result_row *row_named(const struct results *set, const char *name,
					  long index)
{
	for (size_t i = 0; i < set->nr_rows; i++)
		if (!strcmp(set->rows[i].name, name) && set->rows[i].repetition_index == index)
			return &set->rows[i];
	fail_msg("no row %s #%ld", name, index);
	return NULL;
}

static double counter(const struct results *set, const struct result_row *row,
		      const char *name)
{
	for (size_t k = 0; k < row->nr_counters; k++)
		if (!strcmp(set->counters[row->first_counter + k].name, name))
			return set->counters[row->first_counter + k].value;
	fail_msg("no counter %s", name);
	return NAN;
}

/*
 * Three repetitions of ours: 3e6 ops in 1.5e6 ns is 2e9 ops/s; 1e6 in
 * 4e6 ns, 2.5e8. Their counters as given, in their order.
 */
static void our_rows_keep_their_numbers(void **unused)
{
	char path[PATH_MAX];
	struct results set = { 0 };
	json_t *rows = json_array(), *row;
	const struct result_row *r;

	(void)unused;
	snprintf(path, sizeof(path), "%s/ours.json", dir);
	row = ours("store_always", 2, 0, 1.5, 3e6, 1.5e6);
	json_object_set_new(row, "misses_per_op", json_real(0.25));
	json_object_set_new(row, "one_way_ns", json_real(0));
	json_array_append_new(rows, row);
	json_array_append_new(rows, ours("store_always", 2, 1, 8, 1e6, 4e6));
	json_array_append_new(rows, ours("read_then_set", 1, 0, 3, 1, 1));
	write_file(path, rows);
	read_or_fail(&set, path);
	assert_int_equal(set.nr_files, 1);
	assert_int_equal(set.nr_rows, 3);
	assert_int_equal(set.files[0].nr_rows, 3);
	assert_int_equal(set.files[0].nr_foreign, 0);
	assert_int_equal(set.files[0].first_row, 0);
	assert_int_equal(set.files[0].end_row, 3);
	assert_int_equal(set.files[0].run.num_cpus, 2);
	assert_int_equal(set.files[0].run.repetitions, 3);

	r = row_named(&set, "has_pinned/store_always/real_time/threads:2", 0);
	assert_string_equal(r->family, "has_pinned");
	assert_string_equal(r->variant, "store_always");
	assert_string_equal(r->policy, "compact");
	assert_string_equal(r->widest_class, "same_pu");
	assert_string_equal(r->setting, "pin_work=2, flag_line=shared, placement compact");
	assert_int_equal(r->threads, 2);
	assert_float_equal(r->ns_per_op, 1.5, 0);
	assert_float_equal(r->ops, 3e6, 0);
	assert_float_equal(r->ops_per_s, 2e9, 1e-3);
	assert_null(r->aggregate);
	assert_int_equal(r->nr_counters, 2);
	assert_float_equal(counter(&set, r, "misses_per_op"), 0.25, 0);
	assert_float_equal(counter(&set, r, "one_way_ns"), 0, 0);
	r = row_named(&set, "has_pinned/store_always/real_time/threads:2", 1);
	assert_float_equal(r->ops_per_s, 2.5e8, 1e-6);
	assert_int_equal(r->nr_counters, 0);
	r = row_named(&set, "has_pinned/read_then_set/real_time/threads:1", 0);
	assert_float_equal(r->ops_per_s, 1e9, 1e-6);
	assert_int_equal(r->threads, 1);
	/* the repetitions of a case share one name, one setting */
	assert_ptr_equal(set.rows[0].name, set.rows[1].name);
	assert_ptr_equal(set.rows[0].setting, set.rows[2].setting);
	assert_ptr_not_equal(set.rows[0].name, set.rows[2].name);
	results_free(&set);
	assert_int_equal(set.nr_rows, 0);
	assert_int_equal(set.nr_files, 0);
	assert_null(set.rows);
	assert_null(set.files);
	assert_null(set.unique);
	/* freed, the set reads again */
	read_or_fail(&set, path);
	assert_int_equal(set.nr_rows, 3);
	results_free(&set);
}

/*
 * Another tool's rows: 2.5 us is 2500 ns, 0.005 ms 5000 ns, 2 s 2e9 ns,
 * 7 ns 7 ns; a time of 0 is counted as theirs but not kept; a counter of
 * -5 is theirs to have.
 */
static void foreign_rows_are_in_ns(void **unused)
{
	char path[PATH_MAX];
	struct results set = { 0 };
	json_t *rows = json_array(), *row;
	const struct result_row *r;

	(void)unused;
	snprintf(path, sizeof(path), "%s/foreign.json", dir);
	row = foreign("BM_us", 2.5, "us");
	json_object_set_new(row, "items", json_real(-5));
	json_array_append_new(rows, row);
	json_array_append_new(rows, foreign("BM_ms", 0.005, "ms"));
	json_array_append_new(rows, foreign("BM_s", 2, "s"));
	json_array_append_new(rows, foreign("BM_ns", 7, "ns"));
	json_array_append_new(rows, foreign("BM_zero", 0, "ns"));
	write_file(path, rows);
	read_or_fail(&set, path);
	assert_int_equal(set.nr_rows, 4);
	assert_int_equal(set.files[0].nr_foreign, 5);
	assert_int_equal(set.files[0].nr_rows, 0);
	r = row_named(&set, "BM_us", 0);
	assert_float_equal(r->ns_per_op, 2500, 1e-9);
	assert_true(isnan(r->ops_per_s));
	assert_true(isnan(r->ops));
	assert_null(r->family);
	assert_int_equal(r->threads, 2);
	assert_int_equal(r->nr_counters, 1);
	assert_float_equal(counter(&set, r, "items"), -5, 0);
	assert_float_equal(row_named(&set, "BM_ms", 0)->ns_per_op, 5000, 1e-9);
	assert_float_equal(row_named(&set, "BM_s", 0)->ns_per_op, 2e9, 1e-3);
	assert_float_equal(row_named(&set, "BM_ns", 0)->ns_per_op, 7, 0);
	results_free(&set);
}

/*
 * Aggregates: every one counted (8 here); kept only for a benchmark with
 * no repetition, its median (10 of 5 repetitions), else its mean (30 of
 * 4). BM_rep has repetitions: its aggregates stand for nothing.
 */
static void aggregates_stand_in_only_where_nothing_else_is(void **unused)
{
	char path[PATH_MAX];
	struct results set = { 0 };
	json_t *rows = json_array();
	const struct result_row *r;

	(void)unused;
	snprintf(path, sizeof(path), "%s/aggregates.json", dir);
	json_array_append_new(rows, foreign("BM_rep", 4, "ns"));
	json_array_append_new(rows, aggregate("BM_rep", "median", 400, 2));
	json_array_append_new(rows, aggregate("BM_rep", "mean", 500, 2));
	json_array_append_new(rows, aggregate("BM_both", "mean", 11, 5));
	json_array_append_new(rows, aggregate("BM_both", "median", 10, 5));
	json_array_append_new(rows, aggregate("BM_both", "stddev", 1, 5));
	json_array_append_new(rows, aggregate("BM_mean", "mean", 30, 4));
	json_array_append_new(rows, aggregate("BM_mean", "cv", 0.1, 4));
	json_array_append_new(rows, aggregate("BM_rep", "stddev", 9, 2));
	write_file(path, rows);
	read_or_fail(&set, path);
	assert_int_equal(set.files[0].nr_aggregates, 8);
	assert_int_equal(set.files[0].nr_from_aggregates, 2);
	assert_int_equal(set.files[0].nr_foreign, 1);
	assert_int_equal(set.nr_rows, 3);
	r = row_named(&set, "BM_rep", 0);
	assert_float_equal(r->ns_per_op, 4, 0);
	assert_null(r->aggregate);
	r = row_named(&set, "BM_both", -1);
	assert_string_equal(r->aggregate, "median");
	assert_float_equal(r->ns_per_op, 10, 0);
	assert_int_equal(r->repetitions, 5);
	r = row_named(&set, "BM_mean", -1);
	assert_string_equal(r->aggregate, "mean");
	assert_float_equal(r->ns_per_op, 30, 0);
	assert_int_equal(r->repetitions, 4);
	assert_int_equal(set.files[0].run.repetitions, 5);
	results_free(&set);
}

/*
 * A benchmark's repetitions after another's row: its aggregates still
 * stand for nothing (3 rows, none an aggregate), and the benchmark with
 * aggregates alone gets its median (7 of 2 repetitions).
 */
static void aggregates_of_later_rows_stand_for_nothing(void **unused)
{
	char path[PATH_MAX];
	struct results set = { 0 };
	json_t *rows = json_array(), *row;

	(void)unused;
	snprintf(path, sizeof(path), "%s/later.json", dir);
	json_array_append_new(rows, foreign("BM_first", 4, "ns"));
	for (int k = 0; k < 2; k++) {
		row = foreign("BM_rep", 5 + k, "ns");
		json_object_set_new(row, "repetition_index", json_integer(k));
		json_array_append_new(rows, row);
	}
	json_array_append_new(rows, aggregate("BM_rep", "median", 400, 2));
	json_array_append_new(rows, aggregate("BM_rep", "mean", 500, 2));
	json_array_append_new(rows, aggregate("BM_only", "median", 7, 2));
	write_file(path, rows);
	read_or_fail(&set, path);
	assert_int_equal(set.files[0].nr_aggregates, 3);
	assert_int_equal(set.files[0].nr_from_aggregates, 1);
	assert_int_equal(set.nr_rows, 4);
	for (size_t i = 0; i < set.nr_rows; i++)
		if (!strcmp(set.rows[i].name, "BM_rep"))
			assert_null(set.rows[i].aggregate);
	assert_float_equal(row_named(&set, "BM_rep", 1)->ns_per_op, 6, 0);
	assert_float_equal(row_named(&set, "BM_only", -1)->ns_per_op, 7, 0);
	results_free(&set);
}

/* Failed and skipped rows are listed with their messages, not read. */
static void failures_are_listed(void **unused)
{
	char path[PATH_MAX];
	struct results set = { 0 };
	json_t *rows = json_array(), *row;

	(void)unused;
	snprintf(path, sizeof(path), "%s/failures.json", dir);
	json_array_append_new(rows, ours("store_always", 1, 0, 2, 10, 20));
	row = ours("store_always", 1, 1, 2, 10, 20);
	json_object_set_new(row, "error_occurred", json_true());
	json_object_set_new(row, "error_message", json_string("verify failed: 3 pins left"));
	json_array_append_new(rows, row);
	row = foreign("BM_skip", 1, "ns");
	json_object_set_new(row, "skipped", json_true());
	json_object_set_new(row, "skip_message", json_string("no PMU"));
	json_array_append_new(rows, row);
	row = foreign("BM_quiet", 1, "ns");
	json_object_set_new(row, "error_occurred", json_true());
	json_array_append_new(rows, row);
	write_file(path, rows);
	read_or_fail(&set, path);
	assert_int_equal(set.nr_rows, 1);
	assert_int_equal(set.nr_failures, 3);
	assert_int_equal(set.files[0].nr_failed, 3);
	assert_string_equal(set.failures[0].message, "verify failed: 3 pins left");
	assert_string_equal(set.failures[1].message, "no PMU");
	assert_string_equal(set.failures[1].name, "BM_skip");
	assert_string_equal(set.failures[2].message, "no message");
	assert_int_equal(set.failures[2].file, 0);
	results_free(&set);
}

/*
 * Two files, one set: each file's rows in its range, rows of the second
 * marked file 1, the names both have stored once. 300 distinct names
 * make the set of names grow past its first size.
 */
static void two_files_in_one_set_share_their_names(void **unused)
{
	char first[PATH_MAX], second[PATH_MAX], name[64];
	struct results set = { 0 };
	json_t *rows = json_array();

	(void)unused;
	snprintf(first, sizeof(first), "%s/first.json", dir);
	snprintf(second, sizeof(second), "%s/second.json", dir);
	json_array_append_new(rows, ours("store_always", 1, 0, 2, 10, 20));
	json_array_append_new(rows, foreign("BM_common", 3, "ns"));
	write_file(first, rows);
	rows = json_array();
	for (int i = 0; i < 300; i++) {
		snprintf(name, sizeof(name), "BM_many/%d", i);
		json_array_append_new(rows, foreign(name, 100 + i, "ns"));
	}
	json_array_append_new(rows, foreign("BM_common", 6, "ns"));
	json_array_append_new(rows, ours("store_always", 1, 0, 4, 10, 20));
	write_file(second, rows);
	read_or_fail(&set, first);
	read_or_fail(&set, second);
	assert_int_equal(set.nr_files, 2);
	assert_int_equal(set.nr_rows, 2 + 302);
	assert_int_equal(set.files[0].first_row, 0);
	assert_int_equal(set.files[0].end_row, 2);
	assert_int_equal(set.files[1].first_row, 2);
	assert_int_equal(set.files[1].end_row, 304);
	assert_int_equal(set.files[1].nr_foreign, 301);
	assert_int_equal(set.files[1].nr_rows, 1);
	assert_int_equal(set.rows[1].file, 0);
	assert_int_equal(set.rows[2].file, 1);
	assert_int_equal(set.rows[303].source_file, 1);
	assert_ptr_equal(set.rows[0].name, set.rows[303].name);
	assert_ptr_equal(set.rows[0].setting, set.rows[303].setting);
	assert_ptr_equal(set.rows[1].name, set.rows[302].name);
	assert_float_equal(set.rows[303].ns_per_op, 4, 0);
	for (int i = 0; i < 300; i++) {
		snprintf(name, sizeof(name), "BM_many/%d", i);
		assert_string_equal(set.rows[2 + i].name, name);
		assert_float_equal(set.rows[2 + i].ns_per_op, 100 + i, 0);
		if (i)
			assert_ptr_not_equal(set.rows[2 + i].name, set.rows[1 + i].name);
	}
	results_free(&set);
}

/*
 * The low bit of a name's FNV-1a hash, the reader's hash: the offset basis
 * is odd and the prime is odd, so each byte flips the bit exactly when it
 * is odd. A name with an odd count of odd bytes hashes even.
 */
static bool hashes_even(const char *s)
{
	unsigned int odd = 0;

	for (; *s; s++)
		odd += (unsigned char)*s & 1;
	return odd & 1;
}

/*
 * The reader keeps one copy of each distinct string in an open-addressing
 * set that doubles when half full, from 256 slots. 128 names that all hash
 * even take every even slot of 256 and none of the odd ones, so a probe
 * that stepped two slots at a time, or not at all, would go round the even
 * slots for ever looking for the next row's setting (which hashes even
 * too: "pin_work=2, flag_line=shared, placement compact" has 25 odd
 * bytes). Each row keeps its own name, and the setting is found again.
 */
static void names_that_hash_alike_keep_their_rows(void **unused)
{
	static const char setting[] = "pin_work=2, flag_line=shared, placement compact";
	char path[PATH_MAX], name[64], names[128][64];
	struct results set = { 0 };
	json_t *rows = json_array();
	int n = 0;

	(void)unused;
	assert_true(hashes_even(setting));
	for (int i = 0; n < 128; i++) {
		snprintf(name, sizeof(name), "BM_even/%d", i);
		if (!hashes_even(name))
			continue;
		snprintf(names[n++], sizeof(names[0]), "%s", name);
		json_array_append_new(rows, foreign(name, 100 + i, "ns"));
	}
	json_array_append_new(rows, ours("store_always", 1, 0, 2, 10, 20));
	json_array_append_new(rows, ours("store_always", 1, 1, 3, 10, 30));
	snprintf(path, sizeof(path), "%s/alike.json", dir);
	write_file(path, rows);
	read_or_fail(&set, path);
	assert_int_equal(set.nr_rows, 130);
	for (int i = 0; i < 128; i++)
		assert_string_equal(set.rows[i].name, names[i]);
	assert_string_equal(set.rows[128].name, "has_pinned/store_always/real_time/threads:1");
	assert_string_equal(set.rows[128].setting, setting);
	assert_ptr_equal(set.rows[128].setting, set.rows[129].setting);
	assert_ptr_equal(set.rows[128].name, set.rows[129].name);
	assert_float_equal(set.rows[129].ns_per_op, 3, 0);
	results_free(&set);
}

/* A placement's CPU numbers run from 0 to 2^20 - 1; NUMA distances to 10000. */
static void placement_numbers_at_their_ends(void **unused)
{
	static const struct {
		const char *key;
		json_int_t value;
		bool read;
	} probes[] = {
		{ "cpus", 0, true }, { "cpus", (1 << 20) - 1, true }, { "cpus", 1 << 20, false },
		{ "cpus", -1, false }, { "numa_distance", 0, true },
		{ "numa_distance", 10000, true }, { "numa_distance", 10001, false },
		{ "numa_distance", -1, false },
	};
	char path[PATH_MAX], err[1024];

	(void)unused;
	snprintf(path, sizeof(path), "%s/placement.json", dir);
	for (size_t i = 0; i < sizeof(probes) / sizeof(probes[0]); i++) {
		struct results set = { 0 };
		json_t *rows = json_array(), *row = ours("store_always", 1, 0, 2, 10, 20);
		json_t *pl = json_object_get(json_object_get(row, "bouncelab"), "placement");
		int ret;

		if (!strcmp(probes[i].key, "cpus"))
			json_object_set_new(pl, "cpus", json_pack("[I]", probes[i].value));
		else
			json_object_set_new(pl, "numa_distance", json_integer(probes[i].value));
		json_array_append_new(rows, row);
		write_file(path, rows);
		*err = '\0';
		ret = results_read(&set, path, err, sizeof(err));
		if (probes[i].read && ret)
			fail_msg("%s %lld refused: %s", probes[i].key, (long long)probes[i].value, err);
		if (!probes[i].read && (!ret || !strstr(err, probes[i].key)))
			fail_msg("%s %lld: read, or refused without its name: %s", probes[i].key,
				 (long long)probes[i].value, err);
		results_free(&set);
	}
}

/*
 * A setting in words: each parameter as given (a string, a whole number,
 * a real as %g, a boolean), the placement, and a home asked for with the
 * node it landed on; the default home is no setting of its own.
 */
static void settings_in_words(void **unused)
{
	char path[PATH_MAX];
	struct results set = { 0 };
	json_t *rows = json_array(), *row, *facts;

	(void)unused;
	snprintf(path, sizeof(path), "%s/settings.json", dir);
	row = ours("store_always", 1, 0, 2, 10, 20);
	facts = json_object_get(row, "bouncelab");
	json_object_set_new(facts, "params", json_pack("{s:b, s:f, s:s, s:i}", "on", 1,
						       "share", 0.5, "mode", "shared", "n", -3));
	json_object_set_new(facts, "home", json_pack("{s:s, s:i, s:i}", "policy", "local",
						     "node", 1, "threads_away", 2));
	json_array_append_new(rows, row);
	row = ours("store_always", 1, 1, 2, 10, 20);
	facts = json_object_get(row, "bouncelab");
	json_object_set_new(facts, "params", json_object());
	json_object_set_new(facts, "home", json_pack("{s:s, s:n, s:n}", "policy", "remote",
						     "node", "threads_away"));
	json_array_append_new(rows, row);
	row = ours("store_always", 1, 2, 2, 10, 20);
	facts = json_object_get(row, "bouncelab");
	json_object_set_new(facts, "params", json_pack("{s:b}", "off", 0));
	json_object_del(facts, "placement");
	json_object_set_new(facts, "home", json_pack("{s:s, s:i, s:i}", "policy", "default",
						     "node", 0, "threads_away", 0));
	json_array_append_new(rows, row);
	write_file(path, rows);
	read_or_fail(&set, path);
	assert_int_equal(set.nr_rows, 3);
	assert_string_equal(set.rows[0].setting,
			    "on=true, share=0.5, mode=shared, n=-3, placement compact, home local (node 1)");
	assert_string_equal(set.rows[0].home_policy, "local");
	assert_int_equal(set.rows[0].home_node, 1);
	assert_int_equal(set.rows[0].home_threads_away, 2);
	assert_string_equal(set.rows[1].setting, "placement compact, home remote");
	assert_int_equal(set.rows[1].home_node, -1);
	assert_int_equal(set.rows[1].home_threads_away, -1);
	assert_string_equal(set.rows[2].setting, "off=false");
	assert_null(set.rows[2].policy);
	assert_int_equal(set.rows[2].home_node, 0);
	results_free(&set);
	unlink(path);
}

/*
 * A setting longer than its 1023 characters is cut there: "on=true,
 * placement " (19), a policy of 990 letters, ", home local" (12) and
 * " (node 1)" (9) make 1030 characters, so the cut falls inside the
 * node, which starts at 1021. Catches results_place_items() giving that last part the room
 * "len + used" (it would run past the buffer, whole).
 */
static void a_long_setting_is_cut_at_1023_characters(void **unused)
{
	char path[PATH_MAX], policy[991], whole[2048];
	struct results set = { 0 };
	json_t *rows = json_array(), *row, *facts;

	(void)unused;
	snprintf(path, sizeof(path), "%s/long-setting.json", dir);
	memset(policy, 'p', sizeof(policy) - 1);
	policy[sizeof(policy) - 1] = '\0';
	row = ours("store_always", 1, 0, 2, 10, 20);
	facts = json_object_get(row, "bouncelab");
	json_object_set_new(facts, "params", json_pack("{s:b}", "on", 1));
	json_object_set_new(json_object_get(facts, "placement"), "policy", json_string(policy));
	json_object_set_new(facts, "home", json_pack("{s:s, s:i, s:i}", "policy", "local",
						     "node", 1, "threads_away", 0));
	json_array_append_new(rows, row);
	write_file(path, rows);
	read_or_fail(&set, path);
	snprintf(whole, sizeof(whole), "on=true, placement %s, home local (node 1)", policy);
	assert_int_equal(strlen(whole), 19 + 990 + 12 + 9);
	whole[1023] = '\0';
	assert_string_equal(set.rows[0].setting, whole);
	results_free(&set);
	unlink(path);
}

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/*
 * A UTF-8 byte order mark is skipped (a part of one is not); a journal
 * reads as the rows it kept, marked incomplete; the same run given twice
 * (one run_id) is refused; a file that is not JSON says where.
 */
static void boms_journals_and_runs_given_twice(void **unused)
{
	char path[PATH_MAX], other[PATH_MAX], err[1024];
	struct results set = { 0 };
	const char *doc = "{\"context\": {\"run_id\": \"r1\"}, \"benchmarks\": ["
			  "{\"name\": \"BM_a\", \"real_time\": 5, \"time_unit\": \"ns\"}]}";
	char text[512];

	(void)unused;
	snprintf(path, sizeof(path), "%s/bom.json", dir);
	snprintf(other, sizeof(other), "%s/copy.json", dir);
	snprintf(text, sizeof(text), "\xef\xbb\xbf%s", doc);
	write_text(path, text);
	read_or_fail(&set, path);
	assert_int_equal(set.nr_rows, 1);
	assert_float_equal(set.rows[0].ns_per_op, 5, 0);
	assert_string_equal(set.files[0].run.run_id, "r1");
	/* the same run again, as a copy: refused */
	write_text(other, doc);
	assert_int_equal(results_read(&set, other, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "the same run as"));
	assert_non_null(strstr(err, "context.run_id r1"));
	results_free(&set);

	snprintf(text, sizeof(text), "\xef\xbb%s", doc);
	write_text(path, text);
	assert_int_equal(results_read(&set, path, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "bom.json:1:0: not valid JSON: unable to decode byte 0xef"));
	results_free(&set);

	write_text(path, "{\"bouncelab_journal\": 1, \"total\": 4, \"context\": {}}\n"
		   "{\"name\": \"BM_j\", \"real_time\": 7, \"time_unit\": \"ns\"}\n"
		   "{\"name\": \"BM_j\", \"real_time\": 9, \"time_unit\": \"ns\"}\n");
	read_or_fail(&set, path);
	assert_int_equal(set.nr_rows, 2);
	assert_float_equal(set.rows[1].ns_per_op, 9, 0);
	assert_string_equal(set.files[0].run.incomplete,
			    "recovered from the journal: 2 of 4 repetitions finished before the run stopped");
	results_free(&set);
	unlink(path);
	unlink(other);
}

static int make_dir(void **unused)
{
	(void)unused;
	return mkdtemp(dir) ? 0 : -1;
}

static int remove_dir(void **unused)
{
	static const char *const names[] = {
		"ours.json", "foreign.json", "aggregates.json", "failures.json",
		"first.json", "second.json", "placement.json", "later.json", "alike.json",
		"settings.json", "bom.json", "copy.json",
	};
	char path[PATH_MAX];

	(void)unused;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		unlink(path);
	}
	return rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(our_rows_keep_their_numbers),
		cmocka_unit_test(foreign_rows_are_in_ns),
		cmocka_unit_test(aggregates_stand_in_only_where_nothing_else_is),
		cmocka_unit_test(aggregates_of_later_rows_stand_for_nothing),
		cmocka_unit_test(failures_are_listed),
		cmocka_unit_test(two_files_in_one_set_share_their_names),
		cmocka_unit_test(names_that_hash_alike_keep_their_rows),
		cmocka_unit_test(placement_numbers_at_their_ends),
		cmocka_unit_test(settings_in_words),
		cmocka_unit_test(a_long_setting_is_cut_at_1023_characters),
		cmocka_unit_test(boms_journals_and_runs_given_twice),
	};

	return cmocka_run_group_tests(tests, make_dir, remove_dir);
}
