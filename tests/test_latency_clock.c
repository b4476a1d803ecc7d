// SPDX-License-Identifier: GPL-2.0-only
/*
 * The latency probe's arithmetic with its clock scripted: the program is
 * linked with -Wl,--wrap=clock_gettime, so every time the probe reads is
 * one this test chose, and what it must compute from them is worked out
 * by hand. No time is measured, so no result depends on this machine's
 * speed or load; the threads still run and bind for real (two CPUs this
 * process may use, or the cases skip).
 *
 *   latency_measure_pair(): a stand-in family whose run does nothing;
 *   thread 0 of sample s (s = 0 is the warm-up), the one bound to the
 *   pair's first CPU, reads the clock (s + 1) x 100 us apart, every other
 *   thread 7777 ns apart. One-way ns is thread 0's time over the round
 *   trips over the family's divisor.
 *
 *   latency_measure_fetch(): the readers' clock calls are in turn (each
 *   round hands over before the next starts), three a round, 128 rounds a
 *   sample. Round r of sample s: the cold chase takes C(s) + 64 ns (r
 *   even, thread 1 reads) or C(s) - 64 ns (r odd, thread 0), the warm one
 *   320 ns (r % 4 < 2) or 640 ns, so each reader's fastest warm chase is
 *   320 ns and a sample's fetch, over both readers, is (C(s) - 320) / 32
 *   lines.
 *
 *   latency_measure_cpu_share(): each thread's wall clock moves 100 ms a
 *   call, its CPU clock a share of 500 ms; a thread spins until 500 ms
 *   have passed (5 calls), so its share is what the test gave its CPU.
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>
#include "float_assert.h"

#include "cases.h"
#include "latency.h"
#include "topo.h"

enum clock_script { REAL_CLOCK, PINGPONG_CLOCK, FETCH_CLOCK, SHARE_CLOCK };

static _Atomic int script = REAL_CLOCK;
static pthread_t main_thread;
static atomic_long fresh_threads;	/* PINGPONG: samples begun */
static atomic_long fetch_calls;		/* FETCH: the readers' calls so far */
static int64_t fetch_cold_ns[8];	/* FETCH: C(s) */
static int share_cpu[2];		/* SHARE: the CPUs, and their shares */
static double share_of_cpu[2];

static _Thread_local int64_t calls_monotonic, calls_cpu;
static _Thread_local long sample_of_thread = -1;

#define MAIN_STEP_NS 7777
#define FETCH_CALLS_PER_SAMPLE (3 * 128)
#define SHARE_WALL_STEP_NS 100000000
#define SHARE_SECONDS 0.5

int __real_clock_gettime(clockid_t clock, struct timespec *ts);

static int pingpong_first_cpu;

static int64_t pingpong_ns(void)
{
	/* thread 0 is bound to the first CPU before it reads the clock */
	if (pthread_equal(pthread_self(), main_thread) ||
	    sched_getcpu() != pingpong_first_cpu)
		return calls_monotonic++ * MAIN_STEP_NS;
	if (sample_of_thread < 0)
		sample_of_thread = atomic_fetch_add(&fresh_threads, 1);
	return calls_monotonic++ * (sample_of_thread + 1) * 100000;
}

static int64_t fetch_ns(void)
{
	long k = atomic_fetch_add(&fetch_calls, 1);
	long s = k / FETCH_CALLS_PER_SAMPLE, r = k % FETCH_CALLS_PER_SAMPLE / 3;
	int64_t base = (int64_t)s * 1000000000 + (int64_t)r * 1000000;
	int64_t warm = r % 4 < 2 ? 320 : 640;
	/* the two readers apart by 128 ns a chase, the same on average */
	int64_t cold = fetch_cold_ns[s] + (r % 2 ? -64 : 64);

	switch (k % 3) {
	case 0:
		return base;
	case 1:
		return base + cold;
	default:
		return base + cold + warm;
	}
}

static int64_t share_ns(clockid_t clock)
{
	int cpu = sched_getcpu();

	if (clock == CLOCK_MONOTONIC)
		return calls_monotonic++ * SHARE_WALL_STEP_NS;
	for (int i = 0; i < 2; i++)
		if (cpu == share_cpu[i])
			return calls_cpu++ * (int64_t)(share_of_cpu[i] * SHARE_SECONDS * 1e9);
	return 0;
}

int __wrap_clock_gettime(clockid_t clock, struct timespec *ts);
int __wrap_clock_gettime(clockid_t clock, struct timespec *ts)
{
	int64_t ns;

	switch (atomic_load(&script)) {
	case PINGPONG_CLOCK:
		if (clock != CLOCK_MONOTONIC)
			return __real_clock_gettime(clock, ts);
		ns = pingpong_ns();
		break;
	case FETCH_CLOCK:
		if (clock != CLOCK_MONOTONIC)
			return __real_clock_gettime(clock, ts);
		ns = fetch_ns();
		break;
	case SHARE_CLOCK:
		ns = share_ns(clock);
		break;
	default:
		return __real_clock_gettime(clock, ts);
	}
	ts->tv_sec = ns / 1000000000;
	ts->tv_nsec = ns % 1000000000;
	return 0;
}

/* ---- a stand-in for the ping-pong family: it runs nothing ---- */

static atomic_ulong ops_run[2];
static int verify_fails;

static void *stand_in_create(const struct kernel_config *cfg, char *err, size_t errlen)
{
	(void)cfg;
	(void)err;
	(void)errlen;
	return calloc(1, 64);
}

static void stand_in_run(void *state, unsigned int thread, uint64_t nr_ops)
{
	(void)state;
	atomic_fetch_add(&ops_run[thread & 1], nr_ops);
}

static int stand_in_verify(void *state, const struct kernel_config *cfg,
			   const uint64_t *ops, struct kernel_metrics *metrics,
			   char *msg, size_t msglen)
{
	(void)state;
	(void)metrics;
	if (cfg->nr_threads != 2 || ops[0] != ops[1]) {
		snprintf(msg, msglen, "%u threads, ops %llu and %llu", cfg->nr_threads,
			 (unsigned long long)ops[0], (unsigned long long)ops[1]);
		return -1;
	}
	if (verify_fails) {
		snprintf(msg, msglen, "the ball was dropped");
		return -1;
	}
	return 0;
}

static void stand_in_destroy(void *state)
{
	free(state);
}

static const struct kernel_variant stand_in_variants[] = {
	{ .name = "round_trip", .run = stand_in_run },
};

static struct kernel_family stand_in = {
	.name = "stand_in", .variants = stand_in_variants, .nr_variants = 1,
	.create = stand_in_create, .verify = stand_in_verify,
	.destroy = stand_in_destroy, .ns_per_op_divisor = 2,
};

/* ---- the cases ---- */

static struct topo *this_machine(int cpus[2])
{
	char err[256];
	struct topo *topo = topo_open(NULL, err, sizeof(err));

	if (!topo)
		return NULL;
	if (topo_nr_allowed_cpus(topo) < 2) {
		topo_close(topo);
		return NULL;
	}
	cpus[0] = topo_allowed_cpu(topo, 0);
	cpus[1] = topo_allowed_cpu(topo, 1);
	return topo;
}

static bool same_affinity(const cpu_set_t *before)
{
	cpu_set_t now;

	assert_int_equal(sched_getaffinity(0, sizeof(now), &now), 0);
	return CPU_EQUAL(before, &now);
}

static int measure_pair(struct topo *topo, const int cpus[2], unsigned int nr_samples,
			unsigned int round_trips, struct latency_pair *pair, char *err,
			size_t errlen)
{
	int ret;

	*pair = (struct latency_pair){ .cpu_a = cpus[0], .cpu_b = cpus[1] };
	pingpong_first_cpu = cpus[0];
	atomic_store(&fresh_threads, 0);
	atomic_store(&ops_run[0], 0);
	atomic_store(&ops_run[1], 0);
	atomic_store(&script, PINGPONG_CLOCK);
	ret = latency_measure_pair(topo, &stand_in, 0, nr_samples, round_trips, pair,
				   err, errlen);
	atomic_store(&script, REAL_CLOCK);
	return ret;
}

/*
 * 3 samples of 10 round trips after the warm-up: the new thread's
 * 200, 300 and 400 us over 10 trips over 2 are 10, 15 and 20 us one-way;
 * with no divisor (0), over 1: 20, 30 and 40 us. Each of the 4 samples
 * ran 10 ops on each thread.
 */
static void one_way_is_the_new_threads_time_per_trip_over_the_divisor(void **unused)
{
	struct latency_pair pair;
	cpu_set_t before;
	char err[256];
	int cpus[2] = { -1, -1 };
	struct topo *topo = this_machine(cpus);

	(void)unused;
	if (!topo)
		skip_because("needs two CPUs this process may use");
	assert_int_equal(sched_getaffinity(0, sizeof(before), &before), 0);
	stand_in.ns_per_op_divisor = 2;
	if (measure_pair(topo, cpus, 3, 10, &pair, err, sizeof(err)))
		fail_msg("%s", err);
	assert_int_equal(pair.nr_samples, 3);
	assert_float_equal(pair.samples[0], 10000, 0);
	assert_float_equal(pair.samples[1], 15000, 0);
	assert_float_equal(pair.samples[2], 20000, 0);
	assert_int_equal(atomic_load(&ops_run[0]), 40);
	assert_int_equal(atomic_load(&ops_run[1]), 40);
	assert_true(same_affinity(&before));
	free(pair.samples);

	stand_in.ns_per_op_divisor = 0;
	if (measure_pair(topo, cpus, 2, 10, &pair, err, sizeof(err)))
		fail_msg("%s", err);
	assert_int_equal(pair.nr_samples, 2);
	assert_float_equal(pair.samples[0], 20000, 0);
	assert_float_equal(pair.samples[1], 30000, 0);
	free(pair.samples);

	/* a divisor under 1 divides too: 200 us / 10 / 0.5 */
	stand_in.ns_per_op_divisor = 0.5;
	if (measure_pair(topo, cpus, 1, 10, &pair, err, sizeof(err)))
		fail_msg("%s", err);
	assert_int_equal(pair.nr_samples, 1);
	assert_float_equal(pair.samples[0], 40000, 0);
	free(pair.samples);
	stand_in.ns_per_op_divisor = 2;

	/* none asked: the warm-up alone, no sample kept */
	if (measure_pair(topo, cpus, 0, 10, &pair, err, sizeof(err)))
		fail_msg("%s", err);
	assert_int_equal(pair.nr_samples, 0);
	assert_int_equal(atomic_load(&ops_run[0]), 10);
	free(pair.samples);
	topo_close(topo);
}

/* A failed verify is an error naming the CPUs, and stops the samples. */
static void a_failed_verify_is_an_error(void **unused)
{
	struct latency_pair pair;
	char err[256], want[128];
	int cpus[2] = { -1, -1 };
	struct topo *topo = this_machine(cpus);

	(void)unused;
	if (!topo)
		skip_because("needs two CPUs this process may use");
	verify_fails = 1;
	assert_int_equal(measure_pair(topo, cpus, 3, 10, &pair, err, sizeof(err)), -1);
	verify_fails = 0;
	snprintf(want, sizeof(want), "CPUs %d and %d: verify: the ball was dropped",
		 cpus[0], cpus[1]);
	assert_string_equal(err, want);
	assert_int_equal(pair.nr_samples, 0);
	assert_int_equal(atomic_load(&fresh_threads), 1);
	free(pair.samples);
	topo_close(topo);
}

static int measure_fetch(struct topo *topo, const int cpus[2], unsigned int nr_samples,
			 double *ns, char *err, size_t errlen)
{
	int ret;

	atomic_store(&fetch_calls, 0);
	atomic_store(&script, FETCH_CLOCK);
	ret = latency_measure_fetch(topo, cpus[0], cpus[1], nr_samples, ns, err, errlen);
	atomic_store(&script, REAL_CLOCK);
	return ret;
}

static void set_cold(const int64_t *fetch, unsigned int n)
{
	for (unsigned int s = 0; s < n; s++)
		fetch_cold_ns[s] = 320 + 32 * fetch[s];
}

/*
 * Samples of 5 (the warm-up), 30, 20 and 40 ns a line: the fetch is the
 * fastest of the three after the warm-up, 20. All below zero (the warm
 * chase slower than the cold one): 0, not a negative time.
 */
static void the_fetch_is_the_fastest_sample_after_the_first(void **unused)
{
	static const int64_t samples[] = { 5, 30, 20, 40 }, negative[] = { -3, -10, -7 };
	cpu_set_t before;
	char err[256];
	double ns = -1;
	int cpus[2] = { -1, -1 };
	struct topo *topo = this_machine(cpus);

	(void)unused;
	if (!topo)
		skip_because("needs two CPUs this process may use");
	assert_int_equal(sched_getaffinity(0, sizeof(before), &before), 0);
	set_cold(samples, 4);
	if (measure_fetch(topo, cpus, 3, &ns, err, sizeof(err)))
		fail_msg("%s", err);
	assert_float_equal(ns, 20, 1e-9);
	assert_int_equal(atomic_load(&fetch_calls), 4 * FETCH_CALLS_PER_SAMPLE);
	assert_true(same_affinity(&before));

	/* one sample after the warm-up: 30 */
	if (measure_fetch(topo, cpus, 1, &ns, err, sizeof(err)))
		fail_msg("%s", err);
	assert_float_equal(ns, 30, 1e-9);

	set_cold(negative, 3);
	if (measure_fetch(topo, cpus, 2, &ns, err, sizeof(err)))
		fail_msg("%s", err);
	assert_float_equal(ns, 0, 0);
	topo_close(topo);
}

static int measure_share(struct topo *topo, const int *cpus, unsigned int n,
			 double *share, char *err, size_t errlen)
{
	int ret;

	atomic_store(&script, SHARE_CLOCK);
	ret = latency_measure_cpu_share(topo, cpus, n, SHARE_SECONDS, share, err, errlen);
	atomic_store(&script, REAL_CLOCK);
	return ret;
}

/*
 * CPU shares of 0.75 and 0.5: the least, 0.5. Of 1.25 and 1 (the two
 * clocks a hair apart): 1, never above. One CPU alone: its own share.
 */
static void the_share_is_the_least_any_cpu_got(void **unused)
{
	cpu_set_t before;
	char err[256];
	double share = -1;
	int cpus[2] = { -1, -1 };
	struct topo *topo = this_machine(cpus);

	(void)unused;
	if (!topo)
		skip_because("needs two CPUs this process may use");
	assert_int_equal(sched_getaffinity(0, sizeof(before), &before), 0);
	share_cpu[0] = cpus[0];
	share_cpu[1] = cpus[1];
	share_of_cpu[0] = 0.75;
	share_of_cpu[1] = 0.5;
	if (measure_share(topo, cpus, 2, &share, err, sizeof(err)))
		fail_msg("%s", err);
	assert_float_equal(share, 0.5, 0);
	assert_true(same_affinity(&before));

	share_of_cpu[0] = 0.5;
	share_of_cpu[1] = 0.75;
	if (measure_share(topo, cpus, 2, &share, err, sizeof(err)))
		fail_msg("%s", err);
	assert_float_equal(share, 0.5, 0);

	share_of_cpu[0] = 1.25;
	share_of_cpu[1] = 1;
	if (measure_share(topo, cpus, 2, &share, err, sizeof(err)))
		fail_msg("%s", err);
	assert_float_equal(share, 1, 0);

	share_of_cpu[1] = 0.25;
	if (measure_share(topo, cpus + 1, 1, &share, err, sizeof(err)))
		fail_msg("%s", err);
	assert_float_equal(share, 0.25, 0);

	assert_int_equal(measure_share(topo, cpus, 0, &share, err, sizeof(err)), -1);
	assert_string_equal(err, "no CPU to measure");
	topo_close(topo);
}

/*
 * A CPU this process may not use: each measurement fails naming it, the
 * pair keeps no sample, the fetch is NaN, and the caller's affinity is
 * given back.
 */
static void a_cpu_that_cannot_be_bound_is_an_error(void **unused)
{
	struct latency_pair pair;
	cpu_set_t before;
	char err[256];
	double ns = 0, share = 0;
	int cpus[2] = { -1, -1 }, bad[2];
	struct topo *topo = this_machine(cpus);

	(void)unused;
	if (!topo)
		skip_because("needs two CPUs this process may use");
	assert_int_equal(sched_getaffinity(0, sizeof(before), &before), 0);
	bad[0] = cpus[0];
	bad[1] = CPU_SETSIZE - 1;
	if (CPU_ISSET(bad[1], &before))
		skip_because("every CPU number may be used here");
	*err = '\0';
	assert_int_equal(measure_pair(topo, bad, 2, 10, &pair, err, sizeof(err)), -1);
	assert_int_equal(pair.nr_samples, 0);
	assert_non_null(strstr(err, "cannot bind a thread to CPU 1023"));
	free(pair.samples);
	*err = '\0';
	set_cold((const int64_t[]){ 5, 5, 5 }, 3);
	assert_int_equal(measure_fetch(topo, bad, 2, &ns, err, sizeof(err)), -1);
	assert_true(isnan(ns));
	assert_non_null(strstr(err, "cannot bind a thread to CPU 1023"));
	*err = '\0';
	share_cpu[0] = cpus[0];
	share_of_cpu[0] = 0.5;
	assert_int_equal(measure_share(topo, bad, 2, &share, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "cannot bind a thread to CPU 1023"));
	assert_true(same_affinity(&before));
	topo_close(topo);
}

/*
 * On another machine's topology nothing can be bound: each measurement
 * says so, and the fetch is NaN, not a number.
 */
static void another_machine_is_not_measured(void **unused)
{
	struct latency_pair pair = { .cpu_a = 0, .cpu_b = 1 };
	char err[256];
	double ns = 0, share = 0;
	int cpus[2] = { 0, 1 };
	struct topo *topo = topo_open("pack:1 core:2 pu:1", err, sizeof(err));

	(void)unused;
	if (!topo)
		skip_because("needs hwloc for a synthetic topology");
	assert_int_equal(latency_measure_fetch(topo, 0, 1, 2, &ns, err, sizeof(err)), -1);
	assert_true(isnan(ns));
	assert_non_null(strstr(err, "cannot save this thread's CPU affinity"));
	assert_int_equal(latency_measure_pair(topo, &stand_in, 0, 2, 10, &pair, err,
					      sizeof(err)), -1);
	assert_int_equal(pair.nr_samples, 0);
	assert_non_null(strstr(err, "the topology is not this machine's"));
	free(pair.samples);
	assert_int_equal(latency_measure_cpu_share(topo, cpus, 2, 0.01, &share, err,
						   sizeof(err)), -1);
	assert_non_null(strstr(err, "cannot save this thread's CPU affinity"));
	topo_close(topo);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(one_way_is_the_new_threads_time_per_trip_over_the_divisor),
		cmocka_unit_test(a_failed_verify_is_an_error),
		cmocka_unit_test(the_fetch_is_the_fastest_sample_after_the_first),
		cmocka_unit_test(the_share_is_the_least_any_cpu_got),
		cmocka_unit_test(a_cpu_that_cannot_be_bound_is_an_error),
		cmocka_unit_test(another_machine_is_not_measured),
	};

	main_thread = pthread_self();
	return run_cases("latency_clock", tests, argc, argv);
}
