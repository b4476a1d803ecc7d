// SPDX-License-Identifier: GPL-2.0-only
/*
 * Every variant of every family, run on real threads with 1 and 2
 * threads, must pass its family's verify step; and a broken variant that
 * drops one operation must fail it.
 *
 * Threads are pinned, one per allowed CPU. A family whose threads spin on
 * each other (pingpong) runs short batches for a fixed time instead of a
 * fixed number of round trips: unpinned, or sharing a CPU with a busy
 * loop, each round trip can cost a scheduler tick, and 20,000 of them
 * took from 5 to over 150 s on a loaded 2-vCPU VM.
 */
#include <pthread.h>
#include <sched.h>
#include <time.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "catalog.h"
#include "sanitizers.h"

#define OPS_PER_THREAD 20000
/* Spinning families: batches of this many round trips, for this long. */
#define SPIN_OPS_PER_BATCH 256
#define SPIN_BUDGET_NS 100000000ULL

struct worker {
	pthread_t tid;
	const struct kernel_variant *variant;
	void *state;
	unsigned int thread;
	uint64_t nr_ops;
	pthread_barrier_t *start;
};

/* The CPUs this process may use, in order. */
static int allowed_cpus[CPU_SETSIZE];
static unsigned int nr_allowed_cpus;

static int find_allowed_cpus(void)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set))
		return -1;
	nr_allowed_cpus = 0;
	for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
		if (CPU_ISSET(cpu, &set))
			allowed_cpus[nr_allowed_cpus++] = cpu;
	return nr_allowed_cpus ? 0 : -1;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;

	pthread_barrier_wait(w->start);
	w->variant->run(w->state, w->thread, w->nr_ops);
	return NULL;
}

/*
 * Runs variant v of f on nr_threads threads, thread 0 doing `short_by`
 * fewer operations than it reports. Returns verify's result.
 */
static int run_batch(const struct kernel_family *f, unsigned int v,
		     unsigned int nr_threads, uint64_t nr_ops, uint64_t short_by,
		     char *msg, size_t msglen)
{
	struct worker w[2];
	struct kernel_config cfg;
	struct kernel_metrics metrics = { 0 };
	pthread_barrier_t start;
	uint64_t ops[2];
	char err[256];
	void *state;
	int ret;

	kernel_config_defaults(f, &cfg);
	cfg.variant = v;
	cfg.nr_threads = nr_threads;
	state = f->create(&cfg, err, sizeof(err));
	assert_non_null(state);
	pthread_barrier_init(&start, NULL, nr_threads);
	for (unsigned int t = 0; t < nr_threads; t++) {
		pthread_attr_t attr;
		cpu_set_t cpu;

		CPU_ZERO(&cpu);
		CPU_SET(allowed_cpus[t % nr_allowed_cpus], &cpu);
		pthread_attr_init(&attr);
		assert_int_equal(pthread_attr_setaffinity_np(&attr, sizeof(cpu), &cpu), 0);
		ops[t] = nr_ops;
		w[t] = (struct worker){ .variant = &f->variants[v], .state = state,
					.thread = t, .start = &start,
					.nr_ops = nr_ops - (t == 0 ? short_by : 0) };
		assert_int_equal(pthread_create(&w[t].tid, &attr, worker_main, &w[t]), 0);
		pthread_attr_destroy(&attr);
	}
	for (unsigned int t = 0; t < nr_threads; t++)
		pthread_join(w[t].tid, NULL);
	pthread_barrier_destroy(&start);
	msg[0] = '\0';
	ret = f->verify(state, &cfg, ops, &metrics, msg, msglen);
	f->destroy(state);
	return ret;
}

/*
 * Runs variant v of f on nr_threads pinned threads, thread 0 doing
 * `short_by` fewer operations than it reports. Returns verify's result.
 * A spinning family runs batches until its time is up (at least one);
 * every batch must verify.
 */
static int run_and_verify(const struct kernel_family *f, unsigned int v,
			  unsigned int nr_threads, uint64_t short_by,
			  char *msg, size_t msglen)
{
	uint64_t start = now_ns();
	int ret;

	if (!f->spins)
		return run_batch(f, v, nr_threads, OPS_PER_THREAD, short_by,
				 msg, msglen);
	do
		ret = run_batch(f, v, nr_threads, SPIN_OPS_PER_BATCH, short_by,
				msg, msglen);
	while (ret == 0 && now_ns() - start < SPIN_BUDGET_NS);
	return ret;
}

static void families_fit_the_thread_count(const struct kernel_family *f,
					  unsigned int nr_threads, bool *fits)
{
	*fits = (!f->min_threads || nr_threads >= f->min_threads) &&
		(!f->max_threads || nr_threads <= f->max_threads);
}

static void every_variant_verifies(void **unused)
{
	char msg[256];
	bool fits;

	(void)unused;
	for (unsigned int i = 0; i < catalog_size; i++) {
		const struct kernel_family *f = catalog[i];

		for (unsigned int t = 1; t <= 2; t++) {
			families_fit_the_thread_count(f, t, &fits);
			if (!fits)
				continue;
			for (unsigned int v = 0; v < f->nr_variants; v++) {
				int ret;

				/*
				 * A racy variant (shared_plain, plain_store)
				 * exists to lose updates: the race is its
				 * result. Written with relaxed atomics today,
				 * but a plain-access version would be the race
				 * ThreadSanitizer exists to report, so TSan
				 * builds leave it out and judge the rest.
				 */
				if (BUILT_WITH_TSAN && f->variants[v].deliberately_racy)
					continue;
				ret = run_and_verify(f, v, t, 0, msg, sizeof(msg));

				if (ret)
					print_error("%s/%s with %u threads: %s\n", f->name,
						    f->variants[v].name, t, msg);
				assert_int_equal(ret, 0);
			}
		}
	}
}

static void a_dropped_operation_fails_verify(void **unused)
{
	char msg[256];
	bool fits;

	(void)unused;
	for (unsigned int i = 0; i < catalog_size; i++) {
		const struct kernel_family *f = catalog[i];
		unsigned int tested = 0;

		for (unsigned int t = 1; t <= 2; t++) {
			families_fit_the_thread_count(f, t, &fits);
			if (!fits)
				continue;
			for (unsigned int v = 0; v < f->nr_variants; v++) {
				if (f->variants[v].baseline ||
				    f->variants[v].deliberately_racy)
					continue;
				if (run_and_verify(f, v, t, 1, msg, sizeof(msg)) == 0)
					fail_msg("%s/%s with %u threads: verify missed a dropped operation",
						 f->name, f->variants[v].name, t);
				assert_true(msg[0] != '\0');
				tested++;
			}
		}
		assert_true(tested > 0);
	}
}

/*
 * A pingpong side that gave up is named by verify, whichever it is. The
 * partner has returned first (0 round trips, so it is done); the other
 * then waits for a number that can never come: thread 0 for 2 after its
 * first round trip (the sequence at 1), thread 1 for 1 at once (at 0).
 * Run one after the other in this thread. Catches pingpong_verify()'s
 * look at the sides starting at thread 1.
 */
static void a_pingpong_side_that_gave_up_is_named(void **unused)
{
	const struct kernel_family *f = catalog_find("pingpong");
	static const char *const want[2] = {
		"thread 0 gave up waiting for sequence number 2: its partner stopped at 1",
		"thread 1 gave up waiting for sequence number 1: its partner stopped at 0",
	};

	(void)unused;
	assert_non_null(f);
	for (unsigned int v = 0; v < f->nr_variants; v++) {
		for (unsigned int waiter = 0; waiter < 2; waiter++) {
			struct kernel_metrics metrics = { 0 };
			struct kernel_config cfg;
			uint64_t ops[2];
			char err[256], msg[256] = "";
			void *state;

			kernel_config_defaults(f, &cfg);
			cfg.variant = v;
			cfg.nr_threads = 2;
			state = f->create(&cfg, err, sizeof(err));
			assert_non_null(state);
			ops[!waiter] = 0;
			ops[waiter] = 2;
			f->variants[v].run(state, !waiter, 0);
			f->variants[v].run(state, waiter, ops[waiter]);
			assert_int_equal(f->verify(state, &cfg, ops, &metrics, msg, sizeof(msg)), -1);
			if (strcmp(msg, want[waiter]))
				fail_msg("%s: \"%s\", expected \"%s\"", f->variants[v].name, msg,
					 want[waiter]);
			f->destroy(state);
		}
	}
}

/*
 * last_nidpid's shares: each writer's updates when the first writer
 * finished, over all of them. Run one after the other, thread 0 makes
 * all its 1000 updates before thread 1 starts, and thread 1 finds it
 * finished before its first: 1000 and 0, shares 1 and 0. Catches
 * sample_share() noting again at later looks ("% SHARE_CHECK_EVERY ||
 * share_recorded" as "&&": 960 at the last look, 1000 / 1960).
 */
static void a_writer_that_starts_after_the_first_finished_has_no_share(void **unused)
{
	const struct kernel_family *f = catalog_find("last_nidpid");
	static const char *const writers[] = { "cmpxchg_loop", "xchg", "plain_store" };

	(void)unused;
	assert_non_null(f);
	for (size_t w = 0; w < sizeof(writers) / sizeof(writers[0]); w++) {
		struct kernel_metrics metrics = { 0 };
		struct kernel_config cfg;
		uint64_t ops[2] = { 1000, 1000 };
		char err[256], msg[256] = "";
		double lo = -1, hi = -1;
		void *state;
		int v = catalog_variant_index(f, writers[w]);

		assert_true(v >= 0);
		kernel_config_defaults(f, &cfg);
		cfg.variant = (unsigned int)v;
		cfg.nr_threads = 2;
		state = f->create(&cfg, err, sizeof(err));
		assert_non_null(state);
		f->variants[v].run(state, 0, ops[0]);
		f->variants[v].run(state, 1, ops[1]);
		if (f->verify(state, &cfg, ops, &metrics, msg, sizeof(msg)))
			fail_msg("%s: %s", writers[w], msg);
		f->destroy(state);
		for (unsigned int i = 0; i < metrics.nr; i++) {
			if (!strcmp(metrics.m[i].name, "success_share_min"))
				lo = metrics.m[i].value;
			if (!strcmp(metrics.m[i].name, "success_share_max"))
				hi = metrics.m[i].value;
		}
		if (lo != 0 || hi != 1)
			fail_msg("%s: shares %g to %g, expected 0 to 1", writers[w], lo, hi);
	}
}

static void parameters_parse_and_refuse(void **unused)
{
	const struct kernel_family *f = catalog_find("has_pinned");
	const struct kernel_param *pin_work, *flag_line;
	char err[256];
	long v;

	(void)unused;
	assert_non_null(f);
	pin_work = &f->params[kernel_param_index(f, "pin_work")];
	flag_line = &f->params[kernel_param_index(f, "flag_line")];
	assert_int_equal(kernel_param_parse(pin_work, "4", &v, err, sizeof(err)), 0);
	assert_int_equal(v, 4);
	assert_int_equal(kernel_param_parse(pin_work, "65", &v, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "0 to 64"));
	assert_int_equal(kernel_param_parse(pin_work, "x", &v, err, sizeof(err)), -1);
	assert_int_equal(kernel_param_parse(flag_line, "alone", &v, err, sizeof(err)), 0);
	assert_string_equal(kernel_param_choice(flag_line, v), "alone");
	assert_int_equal(kernel_param_parse(flag_line, "nowhere", &v, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "shared|alone"));
}

/* Aligned and zeroed, the slack not; a size that would wrap when rounded up is refused. */
static void padded_allocation_is_aligned_and_refuses_wrapping_sizes(void **unused)
{
	unsigned char *p = kernel_alloc_padded(1);

	(void)unused;
	assert_non_null(p);
	assert_int_equal((uintptr_t)p % CACHE_PAD, 0);
	/* the byte asked for zeroed, the rest of the line slack */
	assert_int_equal(p[0], 0);
	for (unsigned int i = 1; i < CACHE_PAD; i++)
		assert_int_equal(p[i], KERNEL_SLACK_BYTE);
	free(p);
	p = kernel_alloc_padded(CACHE_PAD);
	assert_non_null(p);
	for (unsigned int i = 0; i < CACHE_PAD; i++)
		assert_int_equal(p[i], 0);
	free(p);
	assert_null(kernel_alloc_padded(SIZE_MAX));
	assert_null(kernel_alloc_padded(SIZE_MAX - CACHE_PAD / 2));
}

/* Every family's suite sweep lists only valid values and has a lesson. */
static void catalogue_is_well_formed(void **unused)
{
	char err[256], item[64];
	long v;

	(void)unused;
	for (unsigned int i = 0; i < catalog_size; i++) {
		const struct kernel_family *f = catalog[i];

		assert_non_null(f->lesson);
		assert_non_null(f->source);
		assert_true(f->nr_params <= KERNEL_MAX_PARAMS);
		assert_ptr_equal(catalog_find(f->name), f);
		for (unsigned int p = 0; p < f->nr_params; p++) {
			const char *s = f->params[p].suite;

			assert_true(f->params[p].def >= f->params[p].min);
			assert_true(f->params[p].def <= f->params[p].max);
			while (s && *s) {
				size_t len = strcspn(s, ",");

				snprintf(item, sizeof(item), "%.*s", (int)len, s);
				if (kernel_param_parse(&f->params[p], item, &v, err, sizeof(err)))
					fail_msg("%s: %s", f->name, err);
				s += len + (s[len] == ',');
			}
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_variant_verifies),
		cmocka_unit_test(a_pingpong_side_that_gave_up_is_named),
		cmocka_unit_test(a_writer_that_starts_after_the_first_finished_has_no_share),
		cmocka_unit_test(a_dropped_operation_fails_verify),
		cmocka_unit_test(parameters_parse_and_refuse),
		cmocka_unit_test(catalogue_is_well_formed),
		cmocka_unit_test(padded_allocation_is_aligned_and_refuses_wrapping_sizes),
	};

	if (find_allowed_cpus()) {
		perror("sched_getaffinity");
		return 1;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
