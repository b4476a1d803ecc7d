// SPDX-License-Identifier: GPL-2.0-only
/*
 * The numbers the report reads from a results file's context: the CPUs the
 * run could use, the load other work put on them, the clock the model
 * scales private work by. Each against a value worked out by hand (the
 * build's decay, e^(-t/60), with Python's math.exp), including the edges
 * where a missing or nonsensical field must read as "unrecorded".
 */
#include <limits.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <cmocka.h>
#include "float_assert.h"

#include "results_read.h"

/*
 * The context read as the report reads it: a results file with no rows
 * through results_read(), into set->files[0].run. Returns what
 * results_read() returns (-1: the reader refused the context).
 */
static int read_context(const char *context, struct results *set)
{
	char path[] = "/tmp/bouncelab-context-XXXXXX", err[512];
	int fd = mkstemp(path), ret;
	FILE *f = fd < 0 ? NULL : fdopen(fd, "w");

	if (!f)
		fail_msg("cannot write a results file in /tmp");
	fprintf(f, "{\"context\": %s, \"benchmarks\": []}\n", context);
	fclose(f);
	*set = (struct results){ 0 };
	ret = results_read(set, path, err, sizeof(err));
	unlink(path);
	return ret;
}

/* The context of a file the reader takes, as struct run_context. */
static const struct run_context *run_of(const char *context, struct results *set)
{
	if (read_context(context, set))
		fail_msg("refused: %s", context);
	return &set->files[0].run;
}

static void refused(const char *context)
{
	struct results set;

	assert_int_equal(read_context(context, &set), -1);
	results_free(&set);
}

static long allowed(const char *context)
{
	struct results set;
	long n = run_of(context, &set)->allowed_cpus;

	results_free(&set);
	return n;
}

static void allowed_cpus_prefer_the_topologys_then_num_cpus(void **unused)
{
	(void)unused;
	assert_int_equal(allowed("{\"topology\": {\"nr_allowed_cpus\": 3}, \"num_cpus\": 8}"), 3);
	assert_int_equal(allowed("{\"topology\": {}, \"num_cpus\": 8}"), 8);
	assert_int_equal(allowed("{\"num_cpus\": 1}"), 1);
	assert_int_equal(allowed("{}"), 0);
	refused("{\"num_cpus\": -2}");
	refused("{\"num_cpus\": 2.5}");
	refused("{\"topology\": {\"nr_allowed_cpus\": 0}, \"num_cpus\": 8}");
}

static void num_cpus_is_the_machines_or_zero(void **unused)
{
	static const struct { const char *context; long n; } cases[] = {
		{ "{\"num_cpus\": 8, \"topology\": {\"nr_allowed_cpus\": 2}}", 8 },
		{ "{\"num_cpus\": 1}", 1 },
		{ "{}", 0 },
	};

	(void)unused;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct results set;

		assert_int_equal(run_of(cases[i].context, &set)->num_cpus, cases[i].n);
		results_free(&set);
	}
	refused("{\"num_cpus\": 0}");
	refused("{\"num_cpus\": -1}");
	refused("{\"num_cpus\": \"8\"}");
}

static void the_clock_is_mhz_over_a_thousand(void **unused)
{
	static const struct { const char *context; double ghz; } cases[] = {
		{ "{\"mhz_per_cpu\": 2500}", 2.5 },
		{ "{\"mhz_per_cpu\": 3000.5}", 3.0005 },
		{ "{\"mhz_per_cpu\": 1}", 0.001 },
		{ "{\"mhz_per_cpu\": 0}", 0 },
		{ "{}", 0 },
	};

	(void)unused;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct results set;

		assert_float_equal(run_context_clock_ghz(run_of(cases[i].context, &set)),
				   cases[i].ghz, 1e-12);
		results_free(&set);
	}
	refused("{\"mhz_per_cpu\": -2400}");
	refused("{\"mhz_per_cpu\": \"2400\"}");
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
		struct results set;

		assert_int_equal(run_of(cases[i].context, &set)->build_ended_s_before, cases[i].s);
		results_free(&set);
	}
}

static double other_load(const char *context)
{
	struct results set;
	double load = run_context_other_load_per_cpu(run_of(context, &set));

	results_free(&set);
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
	refused("{\"load_avg\": [1.0], \"num_cpus\": 0}");
}

static void load_avg_is_the_first_of_three(void **unused)
{
	struct results set;
	const struct run_context *run = run_of("{\"load_avg\": [1.25, 2, 3]}", &set);

	(void)unused;
	assert_int_equal(run->nr_load_avg, 3);
	assert_float_equal(run->load_avg[0], 1.25, 0);
	assert_float_equal(run->load_avg[2], 3, 0);
	results_free(&set);
	/* a load the report would print and compare: a number, or the file is refused */
	refused("{\"load_avg\": [\"1.25\"]}");
	refused("{\"load_avg\": [-1]}");
	refused("{\"load_avg\": 1.25}");
}

/*
 * Everything the report, the fleet table and the claims read of a
 * context, read once into struct run_context: each field against the
 * value written by hand in the context below, and "not recorded" (NULL,
 * -1, NAN) where the context leaves a key out.
 */
static void the_context_is_read_once_into_its_struct(void **unused)
{
	static const char context[] =
		"{\"host_name\": \"vm\", \"cpu_model\": \"AMD EPYC 7763\", \"arch\": \"x86_64\","
		" \"bouncelab_revision\": \"772d4aa\", \"run_id\": \"r1\", \"hypervisor\": true,"
		" \"mhz_per_cpu\": 2445.5, \"cold_miss_ns\": 40.5, \"incomplete\": true,"
		" \"topology\": {\"source\": \"hwloc\", \"nr_allowed_cpus\": 4, \"numa_nodes\": 1,"
		"   \"classes\": {\"smt\": [0, 1], \"l3\": [0, 2], \"odd\": 7}},"
		" \"caches\": [{\"type\": \"Data\", \"level\": 1, \"size\": 32768},"
		"   {\"type\": \"Unified\", \"level\": 3, \"size\": 33554432, \"num_sharing\": 4}],"
		" \"counters\": {\"core_pmu\": \"amd64_fam19h_zen3\", \"perf_event_paranoid\": -1,"
		"   \"sets\": {\"coherence\": {\"title\": \"cache-to-cache fills\", \"summary\": \"n/a\"},"
		"     \"sw\": {\"label\": \"software\", \"title\": \"not this\", \"summary\": \"ok\"}},"
		"   \"na\": {\"hitm_per_op\": \"n/a (no hardware PMU)\", \"c2c_fills_per_op\": 3}}}";
	struct results set;
	const struct run_context *run = run_of(context, &set);

	(void)unused;
	assert_string_equal(run->host_name, "vm");
	assert_string_equal(run->cpu_model, "AMD EPYC 7763");
	assert_string_equal(run->arch, "x86_64");
	assert_string_equal(run->bouncelab_revision, "772d4aa");
	assert_null(run->date);
	assert_int_equal(run->hypervisor, 1);
	assert_float_equal(run->mhz_per_cpu, 2445.5, 0);
	assert_float_equal(run->cold_miss_ns, 40.5, 0);
	assert_true(isnan(run->cpu_share));
	assert_string_equal(run->incomplete, "");
	assert_int_equal(run->allowed_cpus, 4);
	assert_int_equal(run->topology.numa_nodes, 1);
	assert_int_equal(run->topology.nr_classes, 3);
	assert_string_equal(run->topology.classes[1].name, "l3");
	assert_int_equal(run->topology.classes[1].cpu_b, 2);
	assert_int_equal(run->topology.classes[2].cpu_a, -1);	/* no pair given */
	assert_ptr_equal(run_context_class(run, "smt"), &run->topology.classes[0]);
	assert_null(run_context_class(run, "cross_package"));
	assert_int_equal(run->nr_caches, 2);
	assert_int_equal(run->caches[0].num_sharing, -1);
	assert_int_equal(run->caches[1].size, 33554432);
	assert_int_equal(run->counters.perf_event_paranoid, -1);
	assert_int_equal(run->counters.nr_sets, 2);
	assert_string_equal(run->counters.sets[0].label, "cache-to-cache fills");	/* the title */
	assert_string_equal(run->counters.sets[1].label, "software");	/* the label first */
	assert_string_equal(run_context_counter_na(run, "hitm_per_op"), "n/a (no hardware PMU)");
	assert_null(run_context_counter_na(run, "c2c_fills_per_op"));	/* not a reason */
	assert_null(run_context_counter_na(run, "cycles_per_op"));
	assert_int_equal(run->build_ended_s_before, -1);
	assert_int_equal(run->hypervisor, 1);
	results_free(&set);

	run = run_of("{}", &set);
	assert_int_equal(run->hypervisor, -1);
	assert_null(run->incomplete);
	assert_true(isnan(run->mhz_per_cpu));
	assert_false(run->topology.recorded);
	assert_int_equal(run->counters.perf_event_paranoid, LONG_MIN);
	assert_false(run->load_avg_recorded);
	results_free(&set);
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
		cmocka_unit_test(the_context_is_read_once_into_its_struct),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
