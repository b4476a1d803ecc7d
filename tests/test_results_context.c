// SPDX-License-Identifier: GPL-2.0-only
/*
 * The numbers the report reads from a results file's context: the CPUs the
 * run could use, the load other work put on them, the clock the model
 * scales private work by. Each against a value worked out by hand (the
 * build's decay, e^(-t/60), with Python's math.exp), including the edges
 * where a missing or nonsensical field must read as "unrecorded".
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

#include <cmocka.h>
#include "float_assert.h"

#include "results_read.h"

static struct result_file file_of(const char *context)
{
	json_error_t e;
	struct result_file f = { .path = "test" };

	f.context = json_loads(context, 0, &e);
	if (!f.context)
		fail_msg("%s: %s", context, e.text);
	return f;
}

static void done(struct result_file *f)
{
	json_decref(f->context);
}

static long allowed(const char *context)
{
	struct result_file f = file_of(context);
	long n = results_allowed_cpus(&f);

	done(&f);
	return n;
}

static void allowed_cpus_prefer_the_topologys_then_num_cpus(void **unused)
{
	(void)unused;
	assert_int_equal(allowed("{\"topology\": {\"nr_allowed_cpus\": 3}, \"num_cpus\": 8}"), 3);
	assert_int_equal(allowed("{\"topology\": {}, \"num_cpus\": 8}"), 8);
	assert_int_equal(allowed("{\"num_cpus\": 1}"), 1);
	assert_int_equal(allowed("{\"num_cpus\": -2}"), 0);
	assert_int_equal(allowed("{\"num_cpus\": 2.5}"), 0);
	assert_int_equal(allowed("{}"), 0);
}

static void num_cpus_is_the_machines_or_zero(void **unused)
{
	static const struct { const char *context; long n; } cases[] = {
		{ "{\"num_cpus\": 8, \"topology\": {\"nr_allowed_cpus\": 2}}", 8 },
		{ "{\"num_cpus\": 1}", 1 },
		{ "{\"num_cpus\": 0}", 0 },
		{ "{\"num_cpus\": -1}", 0 },
		{ "{\"num_cpus\": \"8\"}", 0 },
	};

	(void)unused;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct result_file f = file_of(cases[i].context);

		assert_int_equal(results_num_cpus(&f), cases[i].n);
		done(&f);
	}
}

static void the_clock_is_mhz_over_a_thousand(void **unused)
{
	static const struct { const char *context; double ghz; } cases[] = {
		{ "{\"mhz_per_cpu\": 2500}", 2.5 },
		{ "{\"mhz_per_cpu\": 3000.5}", 3.0005 },
		{ "{\"mhz_per_cpu\": 1}", 0.001 },
		{ "{\"mhz_per_cpu\": 0}", 0 },
		{ "{\"mhz_per_cpu\": -2400}", 0 },
		{ "{\"mhz_per_cpu\": \"2400\"}", 0 },
		{ "{}", 0 },
	};

	(void)unused;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct result_file f = file_of(cases[i].context);

		assert_float_equal(results_clock_ghz(&f), cases[i].ghz, 1e-12);
		done(&f);
	}
}

static void build_ended_is_seconds_or_minus_one(void **unused)
{
	static const struct { const char *context; long s; } cases[] = {
		{ "{\"build_ended_s_before\": 90}", 90 },
		{ "{\"build_ended_s_before\": 0}", 0 },
		{ "{\"build_ended_s_before\": -3}", -1 },
		{ "{\"build_ended_s_before\": 1.5}", -1 },
		{ "{}", -1 },
	};

	(void)unused;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct result_file f = file_of(cases[i].context);

		assert_int_equal(results_build_ended_s_before(&f), cases[i].s);
		done(&f);
	}
}

static double other_load(const char *context)
{
	struct result_file f = file_of(context);
	double load = results_other_load_per_cpu(&f);

	done(&f);
	return load;
}

/*
 * load_avg[0] less cpus x e^(-build/60) of our own build, floored at 0,
 * per CPU. Values by hand, the exponentials from Python's math.exp.
 */
static void other_load_leaves_out_what_the_build_still_holds(void **unused)
{
	(void)unused;
	/* (3.5 - 2 e^-1) / 2 */
	assert_float_equal(other_load("{\"load_avg\": [3.5, 9, 9], \"num_cpus\": 2, "
				      "\"build_ended_s_before\": 60}"),
			   1.3821205588285577, 1e-12);
	/* (3.5 - 4 e^-0.5) / 4, the topology's 4 CPUs, not num_cpus */
	assert_float_equal(other_load("{\"load_avg\": [3.5], \"num_cpus\": 16, "
				      "\"topology\": {\"nr_allowed_cpus\": 4}, "
				      "\"build_ended_s_before\": 30}"),
			   0.2684693402873666, 1e-12);
	/* (1 - e^-5) / 1: one CPU is enough to say */
	assert_float_equal(other_load("{\"load_avg\": [1.0], \"num_cpus\": 1, "
				      "\"build_ended_s_before\": 300}"),
			   0.9932620530009145, 1e-12);
	/* a build that just ended holds every CPU: (3.5 - 2) / 2 */
	assert_float_equal(other_load("{\"load_avg\": [3.5], \"num_cpus\": 2, "
				      "\"build_ended_s_before\": 0}"), 0.75, 1e-12);
	/* no build recorded: all of it is other work */
	assert_float_equal(other_load("{\"load_avg\": [3.5], \"num_cpus\": 2}"), 1.75, 1e-12);
	/* the build explains more than the load: none is other work */
	assert_float_equal(other_load("{\"load_avg\": [1.0], \"num_cpus\": 2, "
				      "\"build_ended_s_before\": 0}"), 0, 0);
	/* unrecorded */
	assert_true(isnan(other_load("{\"num_cpus\": 2}")));
	assert_true(isnan(other_load("{\"load_avg\": [1.0]}")));
	assert_true(isnan(other_load("{\"load_avg\": [1.0], \"num_cpus\": 0}")));
}

static void load_avg_is_the_first_of_three(void **unused)
{
	struct result_file f = file_of("{\"load_avg\": [1.25, 2, 3]}");

	(void)unused;
	assert_float_equal(results_load_avg(&f), 1.25, 0);
	done(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(allowed_cpus_prefer_the_topologys_then_num_cpus),
		cmocka_unit_test(num_cpus_is_the_machines_or_zero),
		cmocka_unit_test(the_clock_is_mhz_over_a_thousand),
		cmocka_unit_test(build_ended_is_seconds_or_minus_one),
		cmocka_unit_test(other_load_leaves_out_what_the_build_still_holds),
		cmocka_unit_test(load_avg_is_the_first_of_three),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
