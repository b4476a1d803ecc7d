// SPDX-License-Identifier: GPL-2.0-only
/*
 * A row as run --console shows it (results_row_view()): Google
 * Benchmark's and bouncelab's own keys are not counters, every other key
 * is, in the row's order, with its value as written here.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "results.h"

static void own_keys_are_not_counters(void **unused)
{
	json_t *row = json_pack("{s:s, s:s, s:i, s:s, s:f, s:I, s:b, s:f, s:f, s:f, s:{}}",
				"name", "counter/atomic_add/real_time/threads:2",
				"run_name", "counter/atomic_add/real_time/threads:2",
				"threads", 2, "time_unit", "ns", "real_time", 12.5,
				"iterations", (json_int_t)1000, "error_occurred", 0,
				"ops", 2000.0, "wall_ns", 25000.0, "one_way_ns", 40.5,
				"bouncelab");
	struct results_row_view v;

	(void)unused;
	assert_non_null(row);
	assert_int_equal(results_row_view(row, &v), 0);
	assert_string_equal(v.name, "counter/atomic_add/real_time/threads:2");
	assert_false(v.failed);
	assert_true(v.real_time == 12.5);
	assert_int_equal(v.iterations, 1000);
	assert_int_equal(v.nr_counters, 3);
	assert_string_equal(v.counters[0].name, "ops");
	assert_true(v.counters[0].value == 2000);
	assert_string_equal(v.counters[1].name, "wall_ns");
	assert_true(v.counters[1].value == 25000);
	assert_string_equal(v.counters[2].name, "one_way_ns");
	assert_true(v.counters[2].value == 40.5);
	results_row_view_free(&v);
	json_decref(row);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(own_keys_are_not_counters),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
