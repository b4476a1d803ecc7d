// SPDX-License-Identifier: GPL-2.0-only
/*
 * The aggregate rows results.json carries beside the repetitions, as
 * Google Benchmark's --benchmark_repetitions writes them, against values
 * computed by hand and checked with Python's statistics module (mean,
 * median, stdev: the sample standard deviation, n - 1; cv = stdev / mean):
 *
 *   real_time 10 20 30 60      mean 30   median 25   stdev 21.602468994692867
 *                              cv 0.7200822998230956
 *   ns_per_op 1.5 2.5 9.5 4.5  mean 4.5  median 3.5  stdev 3.559026084010437
 *                              cv 0.7908946853356527
 *   real_time 7 9              mean 8    median 8    stdev 1.4142135623730951
 *                              cv 0.1767766952966369
 *
 * Rows that are not good repetitions (a failed one, an aggregate already
 * there, one that is not bouncelab's) carry values far away, so counting
 * one of them moves every statistic.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>
#include "float_assert.h"

#include "aggregates.h"

static json_t *repetition(const char *case_name, int index, double real_time,
			  json_int_t iterations)
{
	return json_pack("{s:s, s:i, s:i, s:s, s:s, s:i, s:i, s:i, s:I, s:f, s:f, s:s, s:{s:s}}",
			 "name", case_name, "family_index", 3, "per_family_instance_index", 1,
			 "run_name", case_name, "run_type", "iteration", "repetitions", 4,
			 "repetition_index", index, "threads", 2, "iterations", iterations,
			 "real_time", real_time, "cpu_time", real_time, "time_unit", "ns",
			 "bouncelab", "placement", "pair:smt");
}

static void add(json_t *rows, json_t *row)
{
	assert_non_null(row);
	assert_int_equal(json_array_append_new(rows, row), 0);
}

/* Case A: four good repetitions and three rows that must not count. */
static json_t *rows_of_three_cases(void)
{
	static const double a_time[] = { 10, 20, 30, 60 };
	static const double a_ns[] = { 1.5, 2.5, 9.5, 4.5 };
	json_t *rows = json_array(), *row;

	assert_non_null(rows);
	for (int i = 0; i < 4; i++) {
		row = repetition("A", i, a_time[i], 1000 * (i + 1));
		json_object_set_new(row, "ns_per_op", json_real(a_ns[i]));
		/* a counter one repetition lacks has no aggregate */
		if (i < 3)
			json_object_set_new(row, "partial", json_real(5));
		/* a string that is not a fixed key is not aggregated either */
		json_object_set_new(row, "note", json_string("x"));
		/* each repetition's own facts: the aggregate carries the first's */
		json_object_set_new(json_object_get(row, "bouncelab"), "round", json_integer(i));
		add(rows, row);
		if (i == 0) {
			add(rows, repetition("B", 0, 7, 500));
			add(rows, repetition("C", 0, 100, 500));
		}
		if (i == 1)
			add(rows, repetition("B", 1, 9, 700));
	}
	row = repetition("A", 4, 1e6, 1);
	json_object_set_new(row, "error_occurred", json_true());
	json_object_set_new(row, "ns_per_op", json_real(1e6));
	add(rows, row);
	row = repetition("A", 0, 2e6, 1);
	json_object_set_new(row, "aggregate_name", json_string("mean"));
	json_object_set_new(row, "ns_per_op", json_real(2e6));
	add(rows, row);
	row = repetition("A", 5, 3e6, 1);
	json_object_del(row, "bouncelab");
	json_object_set_new(row, "ns_per_op", json_real(3e6));
	add(rows, row);
	return rows;
}

static double number(json_t *row, const char *key)
{
	json_t *v = json_object_get(row, key);

	if (!json_is_number(v))
		fail_msg("%s: no number %s", json_string_value(json_object_get(row, "name")), key);
	return json_number_value(v);
}

static void check_row(json_t *row, const char *name, const char *statistic, const char *unit,
		      json_int_t iterations)
{
	assert_non_null(row);
	assert_string_equal(json_string_value(json_object_get(row, "name")), name);
	assert_string_equal(json_string_value(json_object_get(row, "run_type")), "aggregate");
	assert_string_equal(json_string_value(json_object_get(row, "aggregate_name")), statistic);
	assert_string_equal(json_string_value(json_object_get(row, "aggregate_unit")), unit);
	assert_string_equal(json_string_value(json_object_get(row, "time_unit")), "ns");
	/* the repetitions counted, not a statistic of their iterations */
	assert_true(json_is_integer(json_object_get(row, "iterations")));
	assert_int_equal(json_integer_value(json_object_get(row, "iterations")), iterations);
	/* the case's identity is copied as it is, never averaged */
	assert_true(json_is_integer(json_object_get(row, "family_index")));
	assert_int_equal(json_integer_value(json_object_get(row, "family_index")), 3);
	assert_int_equal(json_integer_value(json_object_get(row, "per_family_instance_index")), 1);
	assert_int_equal(json_integer_value(json_object_get(row, "repetitions")), 4);
	assert_true(json_is_integer(json_object_get(row, "threads")));
	assert_int_equal(json_integer_value(json_object_get(row, "threads")), 2);
	assert_string_equal(json_string_value(json_object_get(row, "run_name")),
			    strncmp(name, "A_", 2) ? "B" : "A");
	assert_null(json_object_get(row, "repetition_index"));
	assert_null(json_object_get(row, "partial"));
	assert_null(json_object_get(row, "note"));
	assert_true(json_is_object(json_object_get(row, "bouncelab")));
	if (!strncmp(name, "A_", 2))
		assert_int_equal(json_integer_value(json_object_get(json_object_get(row, "bouncelab"),
								    "round")), 0);
}

static void each_case_with_repetitions_gets_four_rows_by_hand(void **unused)
{
	json_t *rows = rows_of_three_cases(), *out, *row;
	size_t nr_rows = json_array_size(rows);

	(void)unused;
	out = results_with_aggregates(rows);
	assert_non_null(out);
	/* the rows as they were, then 4 for A and 4 for B; C ran once */
	assert_int_equal(json_array_size(out), nr_rows + 8);
	for (size_t i = 0; i < nr_rows; i++)
		assert_ptr_equal(json_array_get(out, i), json_array_get(rows, i));

	row = json_array_get(out, nr_rows);
	check_row(row, "A_mean", "mean", "time", 4);
	assert_float_equal(number(row, "real_time"), 30, 1e-12);
	assert_float_equal(number(row, "cpu_time"), 30, 1e-12);
	assert_float_equal(number(row, "ns_per_op"), 4.5, 1e-12);

	row = json_array_get(out, nr_rows + 1);
	check_row(row, "A_median", "median", "time", 4);
	assert_float_equal(number(row, "real_time"), 25, 1e-12);
	assert_float_equal(number(row, "ns_per_op"), 3.5, 1e-12);

	row = json_array_get(out, nr_rows + 2);
	check_row(row, "A_stddev", "stddev", "time", 4);
	assert_float_equal(number(row, "real_time"), 21.602468994692867, 1e-9);
	assert_float_equal(number(row, "ns_per_op"), 3.559026084010437, 1e-9);

	/* Google Benchmark's cv is a fraction it marks as a percentage */
	row = json_array_get(out, nr_rows + 3);
	check_row(row, "A_cv", "cv", "percentage", 4);
	assert_float_equal(number(row, "real_time"), 0.7200822998230956, 1e-9);
	assert_float_equal(number(row, "ns_per_op"), 0.7908946853356527, 1e-9);

	/* two repetitions are enough for aggregates */
	row = json_array_get(out, nr_rows + 4);
	check_row(row, "B_mean", "mean", "time", 2);
	assert_float_equal(number(row, "real_time"), 8, 1e-12);
	row = json_array_get(out, nr_rows + 5);
	check_row(row, "B_median", "median", "time", 2);
	assert_float_equal(number(row, "real_time"), 8, 1e-12);
	row = json_array_get(out, nr_rows + 6);
	check_row(row, "B_stddev", "stddev", "time", 2);
	assert_float_equal(number(row, "real_time"), 1.4142135623730951, 1e-9);
	row = json_array_get(out, nr_rows + 7);
	check_row(row, "B_cv", "cv", "percentage", 2);
	assert_float_equal(number(row, "real_time"), 0.1767766952966369, 1e-9);

	json_decref(out);
	json_decref(rows);
}

/* One case, every row a good repetition: the values buffer is full. */
static void a_file_of_one_case_fills_the_buffer_exactly(void **unused)
{
	json_t *rows = json_array(), *out;

	(void)unused;
	assert_non_null(rows);
	add(rows, repetition("A", 0, 10, 1));
	add(rows, repetition("A", 1, 20, 1));
	add(rows, repetition("A", 2, 60, 1));
	out = results_with_aggregates(rows);
	assert_non_null(out);
	assert_int_equal(json_array_size(out), 3 + 4);
	assert_float_equal(number(json_array_get(out, 3), "real_time"), 30, 1e-12);
	assert_float_equal(number(json_array_get(out, 4), "real_time"), 20, 1e-12);
	json_decref(out);
	json_decref(rows);
}

/* A run that finished no case: no rows in, none out, and no failure. */
static void no_rows_give_no_rows(void **unused)
{
	json_t *rows = json_array(), *out;

	(void)unused;
	out = results_with_aggregates(rows);
	assert_non_null(out);
	assert_int_equal(json_array_size(out), 0);
	json_decref(out);
	json_decref(rows);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(each_case_with_repetitions_gets_four_rows_by_hand),
		cmocka_unit_test(a_file_of_one_case_fills_the_buffer_exactly),
		cmocka_unit_test(no_rows_give_no_rows),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
