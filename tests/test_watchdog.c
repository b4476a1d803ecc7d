// SPDX-License-Identifier: GPL-2.0-only
/*
 * No hangs: a kernel stuck in a spin-wait is ended by the watchdog, its
 * run reports "stopped by watchdog" and the next benchmark runs normally;
 * an interrupt also ends a stuck kernel. The stuck kernel is a family of
 * this test, run through the real harness (bench_case_run under Google
 * Benchmark); it waits for a partner thread that never comes.
 */
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "harness_case.h"
#include "interrupt.h"
#include "watchdog.h"

/* Far beyond any run here; a slow sanitizer build must not reach it. */
#define WATCHDOG_SECONDS 1.0

/* Set when a thread starts waiting, for the test that interrupts it. */
static atomic_bool stuck_spinning;

struct stuck_state {
	atomic_bool partner_arrived;	/* nobody ever sets it */
	atomic_ulong ops;
};

/* Waits for a partner, checking the stop flag as the contract asks. */
static void wait_for_partner(void *state, unsigned int thread, uint64_t nr_ops)
{
	struct stuck_state *s = state;

	(void)thread;
	atomic_store(&stuck_spinning, true);
	for (uint64_t i = 0; i < nr_ops; i++) {
		while (!atomic_load(&s->partner_arrived)) {
			if (kernel_should_stop())
				return;
			sched_yield();
		}
		atomic_fetch_add(&s->ops, 1);
	}
}

static void count_alone(void *state, unsigned int thread, uint64_t nr_ops)
{
	struct stuck_state *s = state;

	(void)thread;
	atomic_fetch_add(&s->ops, nr_ops);
}

static const struct kernel_variant stuck_variants[] = {
	{ .name = "wait_for_partner", .models = "a spin-wait on a thread that never runs",
	  .run = wait_for_partner },
	{ .name = "count_alone", .models = "a kernel that finishes", .run = count_alone },
};

static void *stuck_create(const struct kernel_config *cfg, char *err, size_t errlen)
{
	struct stuck_state *s = kernel_alloc_padded(sizeof(*s));

	(void)cfg;
	if (!s)
		snprintf(err, errlen, "out of memory");
	return s;
}

static int stuck_verify(void *state, const struct kernel_config *cfg,
			const uint64_t *ops, struct kernel_metrics *metrics,
			char *msg, size_t msglen)
{
	struct stuck_state *s = state;

	(void)metrics;
	if (atomic_load(&s->ops) != ops[0] * cfg->nr_threads) {
		snprintf(msg, msglen, "counted %lu of %llu operations",
			 atomic_load(&s->ops), (unsigned long long)ops[0]);
		return -1;
	}
	return 0;
}

static const struct kernel_family stuck_family = {
	.name = "stuck",
	.title = "a spin-wait that needs a stop flag",
	.lesson = "test only",
	.source = "tests/test_watchdog.c",
	.variants = stuck_variants,
	.nr_variants = 2,
	.spins = true,
	.create = stuck_create,
	.verify = stuck_verify,
	.destroy = free,
};

struct outcome {
	unsigned int nr;
	char name[4][128];
	bool error[4];
	char message[4][320];
};

static void on_run(const struct gbench_run *run, void *arg)
{
	struct outcome *o = arg;

	if (run->is_aggregate || o->nr == 4)
		return;
	snprintf(o->name[o->nr], sizeof(o->name[0]), "%s", run->function_name);
	o->error[o->nr] = run->error_occurred;
	snprintf(o->message[o->nr], sizeof(o->message[0]), "%s", run->error_message);
	o->nr++;
}

static struct bench_case cases[2];

/* Runs the cases, in order, once each with one iteration. */
static void run_cases(unsigned int nr, struct outcome *o)
{
	memset(o, 0, sizeof(*o));
	harness_run(cases, nr, 1, on_run, o);
}

static void watchdog_ends_a_stuck_run_and_goes_on(void **unused)
{
	struct outcome o;
	char err[256];

	(void)unused;
	harness_case_init(&cases[0], &stuck_family, 0, 1);
	harness_case_init(&cases[1], &stuck_family, 1, 1);
	assert_int_equal(watchdog_start(WATCHDOG_SECONDS, err, sizeof(err)), 0);
	run_cases(2, &o);
	watchdog_stop();

	assert_int_equal(o.nr, 2);
	assert_string_equal(o.name[0], "stuck/wait_for_partner");
	assert_true(o.error[0]);
	assert_non_null(strstr(o.message[0], "stopped by watchdog after 1 s"));
	/* The flag was cleared: the next benchmark ran and verified. */
	assert_string_equal(o.name[1], "stuck/count_alone");
	assert_false(o.error[1]);
	assert_false(kernel_should_stop());
}

/* Interrupts the run once the stuck kernel is spinning. */
static void *interrupt_when_spinning(void *unused)
{
	(void)unused;
	while (!atomic_load(&stuck_spinning))
		sched_yield();
	interrupt_request(SIGINT);
	return NULL;
}

static void interrupt_ends_a_stuck_run_and_skips_the_rest(void **unused)
{
	pthread_t interrupter;
	struct outcome o;

	(void)unused;
	harness_case_init(&cases[0], &stuck_family, 0, 1);
	harness_case_init(&cases[1], &stuck_family, 1, 1);
	atomic_store(&stuck_spinning, false);
	assert_int_equal(pthread_create(&interrupter, NULL, interrupt_when_spinning,
					NULL), 0);
	run_cases(2, &o);
	pthread_join(interrupter, NULL);
	interrupt_reset();

	assert_int_equal(o.nr, 2);
	assert_true(o.error[0]);
	assert_string_equal(o.message[0], SUITE_INTERRUPTED);
	assert_true(o.error[1]);
	assert_string_equal(o.message[1], SUITE_INTERRUPTED);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(watchdog_ends_a_stuck_run_and_goes_on),
		cmocka_unit_test(interrupt_ends_a_stuck_run_and_skips_the_rest),
	};

	return harness_main(tests);
}
