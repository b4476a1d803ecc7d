// SPDX-License-Identifier: GPL-2.0-only
/*
 * The Google Benchmark C shim: thread index and count, counters summed
 * and averaged over threads, errors, and runs reported to the callback;
 * a thread Google Benchmark cannot create is an error, not an abort.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "gbench.h"
#include "sanitizers.h"

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
	/* Every thread stores it: a plain store would race (found by TSan). */
	__atomic_store_n(&ts->count, gbench_threads(st), __ATOMIC_RELAXED);
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

static void idle_body(struct gbench_state *st, void *arg)
{
	(void)arg;
	while (gbench_keep_running_batch(st, 1))
		;
}

/* The fatal hook of a child: says it ran by its exit status. */
static void fatal_in_child(const char *why)
{
	_exit(strstr(why, "cannot create a benchmark thread") ? 11 : 12);
}

/*
 * In a child whose address space has room for extra bytes more: a run of
 * 8 threads. Returns the child's exit status: 10 when gbench_run_all()
 * returned -1 and said why, 11 when the fatal hook ran with the reason
 * (the child is killed after 10 s: a wait on a thread is a failure too).
 */
static int run_with_room(size_t extra)
{
	pid_t pid = fork();
	int status;

	assert_true(pid >= 0);
	if (!pid) {
		struct gbench_run_callbacks cb = { NULL, NULL };
		struct gbench_benchmark *b;
		struct rlimit as;
		long pages = 0;
		FILE *f = fopen("/proc/self/statm", "r");

		if (!f || fscanf(f, "%ld", &pages) != 1)
			_exit(2);
		fclose(f);
		gbench_on_fatal(fatal_in_child);
		b = gbench_register("shim/no_room", idle_body, NULL);
		gbench_set_threads(b, 8);
		gbench_set_iterations(b, 1);
		as.rlim_cur = as.rlim_max = (rlim_t)pages * (rlim_t)sysconf(_SC_PAGESIZE) + extra;
		if (setrlimit(RLIMIT_AS, &as))
			_exit(3);
		alarm(10);
		if (gbench_run_all(&cb, false) == -1 &&
		    strstr(gbench_error(), "cannot create a benchmark thread"))
			_exit(10);
		_exit(4);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	return WEXITSTATUS(status);
}

/*
 * ulimit -v: a thread that cannot be created, the first of the pool or a
 * later one, is an error gbench_run_all() returns, never std::terminate's
 * abort (exit 134) or a wait for ever on the threads already made.
 */
static void a_thread_that_cannot_be_created_is_an_error(void **unused)
{
	pthread_attr_t attr;
	size_t stack = 0;

	(void)unused;
	if (BUILT_WITH_TSAN || getenv("ASAN_OPTIONS") || getenv("TSAN_OPTIONS"))
		skip();
	assert_int_equal(pthread_attr_init(&attr), 0);
	assert_int_equal(pthread_attr_getstacksize(&attr, &stack), 0);
	pthread_attr_destroy(&attr);
	assert_int_equal(run_with_room(64 * 1024), 10);
	assert_int_equal(run_with_room(stack + stack / 2), 10);
	assert_int_equal(run_with_room(3 * stack + stack / 2), 10);
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
		cmocka_unit_test(a_thread_that_cannot_be_created_is_an_error),
	};

	gbench_initialize(argc, argv);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
