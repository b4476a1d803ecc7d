// SPDX-License-Identifier: GPL-2.0-only
/*
 * What a results file says of the machine and of a row's case: the
 * context's NUMA distance matrix as the topology's XML file gives it (or
 * null where it gives none); a row's placement, the case's CPUs in
 * thread order, one per thread, and its NUMA distance, null when unknown.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#include "catalog.h"
#include "config.h"
#include "harness_case.h"
#include "results.h"
#include "test_util.h"

/* The topology of an XML file of tests/data/topo, its latencies replaced. */
static struct topo *open_xml(const char *name, const char *latencies, const char *into)
{
	const char *dir = getenv("BOUNCELAB_TOPO_DATA");
	char path[1024], tmp[] = "/tmp/bouncelab-row-facts-XXXXXX", err[256];
	char *text, *at;
	struct topo *t;
	long len;
	FILE *f;

	if (!dir)
		fail_msg("BOUNCELAB_TOPO_DATA is unset: run this through meson test");
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "r");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	rewind(f);
	text = calloc(1, (size_t)len + 1);
	assert_non_null(text);
	assert_int_equal(fread(text, 1, (size_t)len, f), len);
	fclose(f);
	if (latencies) {
		at = strstr(text, latencies);
		assert_non_null(at);
		assert_int_equal(strlen(into), strlen(latencies));
		memcpy(at, into, strlen(into));
	}
	assert_int_equal(make_temp_file(tmp), 0);
	f = fopen(tmp, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	free(text);
	t = topo_open(tmp, err, sizeof(err));
	unlink(tmp);
	if (!t)
		fail_msg("%s: %s", name, err);
	return t;
}

static void expect_matrix(struct topo *t, const long *want, size_t nodes)
{
	json_t *obj = results_topology(t), *matrix = json_object_get(obj, "numa_distances");

	assert_int_equal(json_integer_value(json_object_get(obj, "numa_nodes")), nodes);
	if (!want) {
		assert_true(json_is_null(matrix));
	} else {
		assert_int_equal(json_array_size(matrix), nodes);
		for (size_t i = 0; i < nodes; i++) {
			json_t *row = json_array_get(matrix, i);

			assert_int_equal(json_array_size(row), nodes);
			for (size_t j = 0; j < nodes; j++)
				assert_int_equal(json_integer_value(json_array_get(row, j)),
						 want[i * nodes + j]);
		}
	}
	json_decref(obj);
	topo_close(t);
}

/*
 * The context's NUMA distances as the topology gives them: numa-1based.xml
 * says "1 3 3 1" for its two nodes; with "0 3 3 0" instead, a local
 * distance of 0, still a matrix; numa-bandwidth.xml has bandwidths and no
 * latencies: null. Catches results_topology() taking a local distance of
 * 0 for none ("distance(0, 0) >= 0" as ">= 1").
 */
static void the_numa_distances_are_the_topologys(void **unused)
{
	static const long one_based[] = { 1, 3, 3, 1 }, zero_based[] = { 0, 3, 3, 0 };

	(void)unused;
	if (!HAVE_HWLOC)
		skip();
	expect_matrix(open_xml("numa-1based.xml", NULL, NULL), one_based, 2);
	expect_matrix(open_xml("numa-1based.xml", ">1 3 3 1 <", ">0 3 3 0 <"), zero_based, 2);
	expect_matrix(open_xml("numa-bandwidth.xml", NULL, NULL), NULL, 2);
}

/*
 * Catches placement_object() writing one CPU more than the case has
 * ("i <= nr_cpus"): thread t's CPU, for each thread, and no more.
 */
static void a_rows_placement_lists_one_cpu_a_thread(void **unused)
{
	const struct kernel_family *f = catalog_find("has_pinned");
	struct gbench_run run = {
		.name = "x", .run_name = "x", .function_name = "x", .aggregate_name = "",
		.repetitions = 1, .threads = 1, .iterations = 1, .time_unit = "ns",
	};

	(void)unused;
	assert_non_null(f);
	for (unsigned int threads = 1; threads <= 2 && threads <= topo_nr_allowed_cpus(topo);
	     threads++) {
		struct bench_case c;
		json_t *row, *cpus;

		harness_case_init(&c, f, 0, threads);
		run.threads = threads;
		row = results_row(&run, &c);
		cpus = json_object_get(json_object_get(json_object_get(row, "bouncelab"),
						       "placement"), "cpus");
		assert_int_equal(json_array_size(cpus), threads);
		for (unsigned int t = 0; t < threads; t++)
			assert_int_equal(json_integer_value(json_array_get(cpus, t)),
					 c.placement.cpus[t]);
		json_decref(row);
	}
}

/*
 * A placement's NUMA distance as the row writes it: -1 (unknown) as null,
 * any other as it is, 0 included (a topology file may say 0 for a node
 * to itself). Catches "numa_distance < 0" as "<= 0".
 */
static void a_rows_numa_distance_is_null_only_when_unknown(void **unused)
{
	static const int distances[] = { -1, 0, 1, 21 };
	const struct kernel_family *f = catalog_find("has_pinned");
	struct gbench_run run = {
		.name = "x", .run_name = "x", .function_name = "x", .aggregate_name = "",
		.repetitions = 1, .threads = 1, .iterations = 1, .time_unit = "ns",
	};
	struct bench_case c;

	(void)unused;
	assert_non_null(f);
	harness_case_init(&c, f, 0, 1);
	for (size_t i = 0; i < sizeof(distances) / sizeof(distances[0]); i++) {
		json_t *row, *d;

		c.placement.numa_distance = distances[i];
		row = results_row(&run, &c);
		d = json_object_get(json_object_get(json_object_get(row, "bouncelab"),
						    "placement"), "numa_distance");
		if (distances[i] < 0)
			assert_true(json_is_null(d));
		else
			assert_int_equal(json_integer_value(d), distances[i]);
		assert_true(distances[i] < 0 || json_is_integer(d));
		json_decref(row);
	}
}

/*
 * A row's real_time and cpu_time are per operation in one thread, and
 * divided by the family's ns_per_op_divisor only where it names a
 * metric of its own (pingpong: a round trip is two one-way transfers).
 * A divisor without a metric, or a metric with no divisor, leaves the
 * figures as measured. Catches either condition dropped ("||" for "&&").
 */
static void a_rows_times_are_divided_only_for_a_metric_of_its_own(void **unused)
{
	static const char *const names[] = { "ns_per_op" };
	static const double values[] = { 10 };
	static const struct {
		const char *metric;
		double divisor, real_time, cpu_time;
	} cases[] = {
		{ "one_way_ns", 2, 5, 3 },
		{ "one_way_ns", 0, 10, 6 },
		{ NULL, 2, 10, 6 },
		{ NULL, 0, 10, 6 },
	};
	struct kernel_family f = *catalog_find("has_pinned");
	struct gbench_run run = {
		.name = "x", .run_name = "x", .function_name = "x", .aggregate_name = "",
		.repetitions = 1, .threads = 1, .iterations = 1, .time_unit = "ns",
		.real_time = 7, .cpu_time = 6,
		.nr_counters = 1, .counter_names = names, .counter_values = values,
	};
	struct bench_case c;

	(void)unused;
	harness_case_init(&c, &f, 0, 1);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		json_t *row;

		f.ns_per_op_metric = cases[i].metric;
		f.ns_per_op_divisor = cases[i].divisor;
		row = results_row(&run, &c);
		assert_float_equal(json_real_value(json_object_get(row, "real_time")),
				   cases[i].real_time, 0);
		assert_float_equal(json_real_value(json_object_get(row, "cpu_time")),
				   cases[i].cpu_time, 0);
		json_decref(row);
	}
	/* no case: Google Benchmark's own figure */
	{
		json_t *row = results_row(&run, NULL);

		assert_float_equal(json_real_value(json_object_get(row, "real_time")), 7, 0);
		json_decref(row);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(the_numa_distances_are_the_topologys),
		cmocka_unit_test(a_rows_placement_lists_one_cpu_a_thread),
		cmocka_unit_test(a_rows_numa_distance_is_null_only_when_unknown),
		cmocka_unit_test(a_rows_times_are_divided_only_for_a_metric_of_its_own),
	};

	(void)harness_run;	/* nothing is run here */
	return harness_main(tests);
}
