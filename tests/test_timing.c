// SPDX-License-Identifier: GPL-2.0-only
/*
 * The harness's times against a clock of the test's own. A family of this
 * test runs through the real harness (bench_case_run under Google
 * Benchmark): each operation busy-waits until CLOCK_MONOTONIC has moved
 * STEP_NS past its start, and the kernel notes, with its own clock reads,
 * when its batch began and ended. The harness starts its clock before it
 * calls the kernel and stops it after the kernel returns, so on the same
 * monotonic clock
 *
 *	n x STEP_NS  <=  kernel's own span  <=  harness's wall time
 *
 * and the harness's wall time exceeds the kernel's span only by two
 * function-call boundaries (well under a microsecond), or, rarely, by a
 * preemption at one of them (a scheduler slice, a few ms on a loaded VM).
 * Load and a slow VM stretch both times alike, never one of them alone.
 * So the ratio ns_per_op / (span / n) must lie in [1, 1.5]: with
 * n x STEP_NS = 20 ms, 1.5 allows a 10 ms stall between the two clocks,
 * and a harness that halves, doubles or divides its times by the thread
 * count falls outside. No timed assertion: the bound is on a ratio, and
 * a ratio above it is measured again (up to 3 tries), since a stall at a
 * boundary comes now and then and a wrong factor comes every time.
 *
 * Also here: the signal handling a user relies on to stop a run. After the
 * first SIGINT the default action is back, so a second one ends the
 * process at once.
 */
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "harness_case.h"
#include "interrupt.h"

#define STEP_NS 10000ULL
#define NR_OPS 2000
/* See the top: the harness's time over the kernel's own, at most. */
#define MAX_RATIO 1.5
/* Tries of a case whose ratio is above MAX_RATIO, the last one judged. */
#define TRIES 3

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

struct known_loop_state {
	uint64_t span_ns[2];		/* each thread's batch, by its own clock */
	uint64_t ops[2];
};

/* Every operation lasts at least STEP_NS of wall time, by construction. */
static void busy_steps(void *state, unsigned int thread, uint64_t nr_ops)
{
	struct known_loop_state *s = state;
	uint64_t start = now_ns(), op_start = start;

	for (uint64_t i = 0; i < nr_ops; i++) {
		while (now_ns() - op_start < STEP_NS)
			;
		op_start = now_ns();
	}
	s->span_ns[thread] = now_ns() - start;
	s->ops[thread] = nr_ops;
}

static const struct kernel_variant known_loop_variants[] = {
	{ .name = "busy_steps", .models = "an operation of at least STEP_NS", .run = busy_steps },
};

static void *known_loop_create(const struct kernel_config *cfg, char *err, size_t errlen)
{
	struct known_loop_state *s = kernel_alloc_padded(sizeof(*s));

	(void)cfg;
	if (!s)
		snprintf(err, errlen, "out of memory");
	return s;
}

static struct known_loop_state last_state;

static int known_loop_verify(void *state, const struct kernel_config *cfg,
			     const uint64_t *ops, struct kernel_metrics *metrics,
			     char *msg, size_t msglen)
{
	struct known_loop_state *s = state;

	(void)metrics;
	for (unsigned int t = 0; t < cfg->nr_threads; t++) {
		if (s->ops[t] != ops[t]) {
			snprintf(msg, msglen, "thread %u ran %llu of %llu operations", t,
				 (unsigned long long)s->ops[t], (unsigned long long)ops[t]);
			return -1;
		}
	}
	last_state = *s;
	return 0;
}

static const struct kernel_family known_loop_family = {
	.name = "known_loop",
	.title = "operations of a known least duration",
	.lesson = "test only",
	.source = "tests/test_timing.c",
	.variants = known_loop_variants,
	.nr_variants = 1,
	.ns_per_op_metric = "half_op_ns",
	.ns_per_op_divisor = 2,
	.create = known_loop_create,
	.verify = known_loop_verify,
	.destroy = free,
};

struct seen {
	unsigned int runs;
	bool error;
	double ns_per_op, half_op_ns, ops, wall_ns;
};

static void on_run(const struct gbench_run *run, void *arg)
{
	struct seen *s = arg;

	if (run->is_aggregate)
		return;
	s->runs++;
	s->error = run->error_occurred;
	for (unsigned int i = 0; i < run->nr_counters; i++) {
		if (!strcmp(run->counter_names[i], "ns_per_op"))
			s->ns_per_op = run->counter_values[i];
		else if (!strcmp(run->counter_names[i], "half_op_ns"))
			s->half_op_ns = run->counter_values[i];
		else if (!strcmp(run->counter_names[i], "ops"))
			s->ops = run->counter_values[i];
		else if (!strcmp(run->counter_names[i], "wall_ns"))
			s->wall_ns = run->counter_values[i];
	}
}

/*
 * Whether the harness's time over the kernel's own lies within [1,
 * MAX_RATIO]. Below 1 fails at once: no stall can make the harness's time
 * shorter. Above MAX_RATIO is a stall between the two clocks (a loaded
 * guest, or the host descheduling the vCPU for tens of ms) or a harness
 * that multiplies its times: it fails only on the last try, since a stall
 * comes now and then and a wrong factor in every try.
 */
static bool ratio_within(const char *what, double harness, double own,
			 unsigned int threads, bool last_try)
{
	double ratio = harness / own;

	print_message("%u thread%s: %s %.1f ns by the harness, %.1f ns by the kernel's own clock: ratio %.4f\n",
		      threads, threads > 1 ? "s" : "", what, harness, own, ratio);
	if (ratio >= 1 - 1e-9 && ratio <= MAX_RATIO)
		return true;
	if (ratio < 1 - 1e-9 || last_try)
		fail_msg("%s: the harness says %.1f ns, the kernel's own clock %.1f ns: ratio %.4f, expected 1 to %.2f",
			 what, harness, own, ratio, MAX_RATIO);
	return false;
}

/* One run of the known loop on THREADS threads: whether its ratios held. */
static bool harness_time_within_bounds(unsigned int threads, bool last_try)
{
	static struct bench_case c;
	struct seen s = { 0 };
	double own = 0;
	bool within = true;

	memset(&last_state, 0, sizeof(last_state));
	harness_case_init(&c, &known_loop_family, 0, threads);
	harness_run(&c, 1, NR_OPS, on_run, &s);

	assert_int_equal(s.runs, 1);
	assert_false(s.error);
	assert_true(s.ops == (double)NR_OPS * threads);
	for (unsigned int t = 0; t < threads; t++) {
		assert_true(last_state.span_ns[t] >= NR_OPS * STEP_NS);
		own += (double)last_state.span_ns[t] / NR_OPS / threads;
	}
	/* By construction, whatever the load. */
	assert_true(s.ns_per_op >= STEP_NS);
	within &= ratio_within("ns_per_op", s.ns_per_op, own, threads, last_try);
	within &= ratio_within("wall_ns", s.wall_ns, own * NR_OPS, threads, last_try);
	within &= ratio_within("half_op_ns (ns_per_op_divisor 2)", s.half_op_ns, own / 2,
			       threads, last_try);
	return within;
}

static void harness_time_agrees_with_the_kernels_own_clock(void **unused)
{
	unsigned int cpus = topo_nr_allowed_cpus(topo);

	(void)unused;
	for (unsigned int threads = 1; threads <= 2 && threads <= cpus; threads++) {
		for (unsigned int try = 1; try <= TRIES; try++) {
			if (harness_time_within_bounds(threads, try == TRIES))
				break;
			print_message("a stall, or a wrong factor: try %u of %u, measured again\n",
				      try, TRIES);
		}
	}
}

/* ---- a second Ctrl-C quits at once ------------------------------------ */

static void second_signal_ends_the_process(int signo)
{
	struct sigaction now;
	int status;
	pid_t pid;

	interrupt_reset();
	assert_int_equal(interrupt_catch("the current benchmark"), 0);
	/* The first: caught, noted, and the run asked to stop. */
	assert_int_equal(raise(signo), 0);
	assert_int_equal(interrupt_signal(), signo);
	assert_true(kernel_should_stop());
	/* The second finds the default action: the process ends. */
	assert_int_equal(sigaction(signo, NULL, &now), 0);
	assert_true(now.sa_handler == SIG_DFL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		raise(signo);
		_exit(0);	/* still alive: the signal was caught again */
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	if (!WIFSIGNALED(status) || WTERMSIG(status) != signo)
		fail_msg("after one %s, a second one did not end the process (status %#x)",
			 interrupt_signal_name(signo), status);
	interrupt_release();
	interrupt_reset();
}

static void a_second_ctrl_c_quits_at_once(void **unused)
{
	(void)unused;
	second_signal_ends_the_process(SIGINT);
	second_signal_ends_the_process(SIGTERM);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(harness_time_agrees_with_the_kernels_own_clock),
		cmocka_unit_test(a_second_ctrl_c_quits_at_once),
	};

	return harness_main(tests);
}
