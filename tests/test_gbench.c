// SPDX-License-Identifier: GPL-2.0-only
/*
 * The Google Benchmark C shim: thread index and count, counters summed
 * and averaged over threads, errors, and runs reported to the callback.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "gbench.h"

#define ITERATIONS 1000

struct seen {
	unsigned int runs;
	unsigned int aggregates;
	double sum, avg, ops;
	int64_t threads, iterations;
	bool error;
	char error_message[128];
	char name[128];
};

struct threads_seen {
	int index_mask;
	int count;
	uint64_t batches;
};

static void on_run(const struct gbench_run *run, void *arg)
{
	struct seen *s = arg;

	if (run->is_aggregate) {
		s->aggregates++;
		return;
	}
	s->runs++;
	s->threads = run->threads;
	s->iterations = run->iterations;
	s->error = run->error_occurred;
	snprintf(s->error_message, sizeof(s->error_message), "%s", run->error_message);
	snprintf(s->name, sizeof(s->name), "%s", run->function_name);
	for (unsigned int i = 0; i < run->nr_counters; i++) {
		if (!strcmp(run->counter_names[i], "sum"))
			s->sum = run->counter_values[i];
		else if (!strcmp(run->counter_names[i], "avg"))
			s->avg = run->counter_values[i];
		else if (!strcmp(run->counter_names[i], "ops"))
			s->ops = run->counter_values[i];
	}
}

/* Thread t sets sum = avg = t + 1, and records what the state says. */
static void counting_body(struct gbench_state *st, void *arg)
{
	struct threads_seen *ts = arg;
	int t = gbench_thread_index(st);
	uint64_t n = gbench_max_iterations(st);
	uint64_t done = 0;

	while (gbench_keep_running_batch(st, n))
		done += n;
	__atomic_or_fetch(&ts->index_mask, 1 << t, __ATOMIC_RELAXED);
	ts->count = gbench_threads(st);
	__atomic_add_fetch(&ts->batches, done, __ATOMIC_RELAXED);
	gbench_set_counter(st, "sum", t + 1, GBENCH_SUM);
	gbench_set_counter(st, "avg", t + 1, GBENCH_AVG_THREADS);
	gbench_set_counter(st, "ops", (double)done, GBENCH_SUM);
}

static void failing_body(struct gbench_state *st, void *arg)
{
	(void)arg;
	gbench_skip_with_error(st, "deliberate failure");
	while (gbench_keep_running_batch(st, 1))
		;
	assert_true(gbench_error_occurred(st));
}

static struct seen run_one(const char *name, gbench_fn fn, void *arg,
			   int threads, int repetitions)
{
	struct seen s = { 0 };
	struct gbench_run_callbacks cb = { on_run, &s };
	struct gbench_benchmark *b = gbench_register(name, fn, arg);

	gbench_set_threads(b, threads);
	gbench_set_iterations(b, ITERATIONS);
	gbench_set_repetitions(b, repetitions);
	assert_int_equal(gbench_run_all(&cb, false), 1);
	gbench_clear();
	return s;
}

static void counters_sum_and_average_over_threads(void **unused)
{
	struct threads_seen ts = { 0 };
	struct seen s = run_one("shim/two_threads", counting_body, &ts, 2, 1);

	(void)unused;
	assert_int_equal(s.runs, 1);
	assert_string_equal(s.name, "shim/two_threads");
	assert_int_equal(s.threads, 2);
	assert_int_equal(ts.index_mask, 0x3);
	assert_int_equal(ts.count, 2);
	/* 1 + 2 summed; (1 + 2) / 2 averaged. */
	assert_true(s.sum == 3.0);
	assert_true(s.avg == 1.5);
	/* Each thread runs the whole iteration count. */
	assert_true(s.ops == 2.0 * ITERATIONS);
	assert_int_equal(ts.batches, 2 * ITERATIONS);
}

static void one_thread_counts_plainly(void **unused)
{
	struct threads_seen ts = { 0 };
	struct seen s = run_one("shim/one_thread", counting_body, &ts, 1, 1);

	(void)unused;
	assert_int_equal(ts.index_mask, 0x1);
	assert_true(s.sum == 1.0);
	assert_true(s.avg == 1.0);
	assert_int_equal(s.iterations, ITERATIONS);
}

static void repetitions_report_each_run_and_aggregates(void **unused)
{
	struct threads_seen ts = { 0 };
	struct seen s = run_one("shim/repeated", counting_body, &ts, 1, 3);

	(void)unused;
	assert_int_equal(s.runs, 3);
	/* mean, median, stddev, cv */
	assert_int_equal(s.aggregates, 4);
}

static void errors_reach_the_report(void **unused)
{
	struct seen s = run_one("shim/failing", failing_body, NULL, 1, 1);

	(void)unused;
	assert_true(s.error);
	assert_string_equal(s.error_message, "deliberate failure");
}

static void context_is_google_benchmark_json(void **unused)
{
	char *json = gbench_context_json();

	(void)unused;
	assert_non_null(json);
	assert_non_null(strstr(json, "\"context\""));
	assert_non_null(strstr(json, "\"num_cpus\""));
	assert_non_null(strstr(json, "\"library_build_type\""));
	free(json);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(counters_sum_and_average_over_threads),
		cmocka_unit_test(one_thread_counts_plainly),
		cmocka_unit_test(repetitions_report_each_run_and_aggregates),
		cmocka_unit_test(errors_reach_the_report),
		cmocka_unit_test(context_is_google_benchmark_json),
	};

	gbench_initialize(argc, argv);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
