// SPDX-License-Identifier: GPL-2.0-only
/*
 * The body of every benchmark: one case's run under Google Benchmark.
 *
 * Each Google Benchmark run starts fresh threads (iteration probing
 * included). Every thread binds itself to its CPU first; thread 0, the
 * main thread, also creates the family's shared state. The first
 * gbench_keep_running_batch() is a barrier of all threads, so the state is
 * ready (and published) before anyone starts the clock; the last one is a
 * barrier too, so when thread 0 leaves the loop every thread is done and
 * it can verify the state.
 */
#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "counters.h"
#include "drive.h"
#include "gbench.h"
#include "interrupt.h"
#include "suite.h"
#include "watchdog.h"

static double elapsed_ns(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) * 1e9 +
	       (double)(b->tv_nsec - a->tv_nsec);
}

static void case_destroy(struct bench_case *c);

static void *home_alloc(size_t size, void *arg)
{
	const struct bench_case *c = arg;

	return topo_home_alloc(c->topo, c->home_node,
			       c->home.kind == HOME_INTERLEAVE, size);
}

static void home_free(void *p, size_t size, void *arg)
{
	const struct bench_case *c = arg;

	topo_home_free(c->topo, p, size);
}

/*
 * Where the shared state landed, asked of the kernel: the first
 * allocation's node is the row's home. Bound to one node, every
 * allocation must be there; one elsewhere is an error, never a row
 * recorded with a home it did not have.
 */
static int check_home(struct bench_case *c, char *msg, size_t msglen)
{
	unsigned int nr = kernel_shared_count();

	c->home_found = nr ? topo_node_of_address(kernel_shared_at(0)) : -ENODATA;
	for (unsigned int i = 0; i < nr && c->home_node >= 0; i++) {
		int node = topo_node_of_address(kernel_shared_at(i));
		int policy_node = topo_node_of_address_policy(kernel_shared_at(i));

		if (node >= 0 && policy_node >= 0 && node != policy_node) {
			snprintf(msg, msglen,
				 "--home '%s': move_pages says node %d, get_mempolicy node %d for the shared state's allocation %u",
				 c->home.name, node, policy_node, i);
			return -1;
		}
		if (node != c->home_node) {
			snprintf(msg, msglen,
				 "--home '%s': asked for node %d, but the kernel says the shared state's allocation %u is on %s%d",
				 c->home.name, c->home_node, i,
				 node < 0 ? "error " : "node ", node < 0 ? -node : node);
			return -1;
		}
	}
	c->home_threads_away = c->home_found >= 0 ? 0 : -1;
	for (unsigned int t = 0; c->home_found >= 0 && t < c->placement.nr_cpus; t++) {
		int node = topo_os_node_of_cpu(c->topo, c->placement.cpus[t]);

		if (node < 0) {
			c->home_threads_away = -1;
			break;
		}
		c->home_threads_away += node != c->home_found;
	}
	return 0;
}

/*
 * Thread 0, bound to its CPU: the shared state, on its home. A case
 * without a home asked for allocates as before, placed by this thread's
 * first touch, and records where that put it.
 */
static int case_create(struct bench_case *c, char *msg, size_t msglen)
{
	static struct kernel_shared_allocator home = {
		.alloc = home_alloc, .free = home_free,
	};

	home.arg = c;
	kernel_set_shared_allocator(c->home.kind == HOME_DEFAULT ? NULL : &home);
	kernel_shared_begin();
	c->state = kernel_run_create(c->family, &c->cfg, msg, msglen);
	if (!c->state)
		return -1;
	if (check_home(c, msg, msglen)) {
		case_destroy(c);
		return -1;
	}
	return 0;
}

/* Freed by the allocator that made it (still installed: runs go one at a time). */
static void case_destroy(struct bench_case *c)
{
	c->family->destroy(c->state);
	c->state = NULL;
	kernel_set_shared_allocator(NULL);
}

/*
 * Thread 0, after every thread has finished: check the state and destroy
 * it (the driver's one path, kernels/drive.h), report extras.
 */
static void verify_and_destroy(struct gbench_state *st, struct bench_case *c)
{
	struct kernel_metrics metrics = { 0 };
	char msg[256];
	int rc;

	rc = kernel_run_finish(c->family, &c->cfg, c->state, c->ops_done, &metrics,
			       msg, sizeof(msg));
	/* freed by the allocator that made it, still installed until now */
	c->state = NULL;
	kernel_set_shared_allocator(NULL);
	if (rc) {
		/* An interrupt stops spinning kernels early: not a wrong result. */
		if (interrupt_signal())
			snprintf(c->error, sizeof(c->error), "%s", SUITE_INTERRUPTED);
		else
			snprintf(c->error, sizeof(c->error), "verify failed: %s", msg);
		gbench_skip_with_error(st, c->error);
	} else {
		for (unsigned int i = 0; i < metrics.nr; i++)
			gbench_set_counter(st, metrics.m[i].name,
					   metrics.m[i].value, GBENCH_SUM);
	}
}

/* Thread 0, when the watchdog ended the run: no number, a clear message. */
static void stop_and_destroy(struct gbench_state *st, struct bench_case *c)
{
	if (interrupt_signal())
		snprintf(c->error, sizeof(c->error), "%s", SUITE_INTERRUPTED);
	else
		snprintf(c->error, sizeof(c->error),
			 "stopped by watchdog after %g s: a thread spun on a descheduled one or the run hung (see --watchdog)",
			 watchdog_limit());
	gbench_skip_with_error(st, c->error);
	case_destroy(c);
}

/*
 * The clocks start together. Google Benchmark's start barrier wakes the
 * threads one by one, tens of microseconds apart on a VM, and a thread
 * that starts late makes its partners' first operations wait: a two-
 * iteration pingpong run measured 2587 ns "one-way" instead of ~50. The
 * spin yields now and then for placements that put threads on one CPU,
 * and gives up on a stop request (watchdog, interrupt): the run is then
 * reported as stopped, never as a number.
 */
static void wait_at_start_line(struct bench_case *c)
{
	unsigned int spins = 0;

	atomic_fetch_add(&c->at_start_line, 1);
	while (atomic_load(&c->at_start_line) < c->cfg.nr_threads &&
	       !kernel_should_stop())
		if (++spins % 1024 == 0)
			sched_yield();
}

/*
 * This thread cannot run: it says why, and no thread runs, because a
 * spinning kernel would wait for it for ever. Called before the opening
 * barrier, so every thread sees the flag once it is past it.
 */
static void abandon_run(struct gbench_state *st, struct bench_case *c,
			const char *why)
{
	gbench_skip_with_error(st, why);
	atomic_store(&c->abandoned, true);
}

/*
 * Before the opening barrier: bind to the case's CPU and, in thread 0,
 * create the shared state. Returns thread 0's affinity as it was, to be
 * given back after the run (NULL in other threads).
 */
static struct topo_binding *prepare_thread(struct gbench_state *st,
					   struct bench_case *c, int t)
{
	struct topo_binding *saved = NULL;
	char msg[256];
	int ret;

	c->ops_done[t] = 0;
	/*
	 * After SIGINT or SIGTERM, Google Benchmark still calls every
	 * remaining run: each ends here at once and its row is dropped.
	 */
	if (interrupt_signal()) {
		abandon_run(st, c, SUITE_INTERRUPTED);
		return NULL;
	}
	/* Bound with no way back, the main thread would keep one CPU for good. */
	if (t == 0) {
		saved = topo_save_binding(c->topo);
		if (!saved) {
			abandon_run(st, c, "cannot save the main thread's CPU affinity, so it is not bound");
			return NULL;
		}
	}
	ret = topo_bind_self(c->topo, c->placement.cpus[t]);
	if (ret) {
		snprintf(msg, sizeof(msg), "cannot bind thread %d to CPU %d: %s",
			 t, c->placement.cpus[t], strerror(-ret));
		abandon_run(st, c, msg);
		return saved;
	}
	if (t == 0 && case_create(c, msg, sizeof(msg)))
		abandon_run(st, c, msg);
	return saved;
}

/* ns_per_op is one operation in one thread: the wall time over its n. */
static void set_timing_counters(struct gbench_state *st,
				const struct bench_case *c, uint64_t n,
				double wall)
{
	const struct kernel_family *f = c->family;

	gbench_set_counter(st, "ops", (double)n, GBENCH_SUM);
	gbench_set_counter(st, "wall_ns", wall, GBENCH_AVG_THREADS);
	gbench_set_counter(st, "ns_per_op", wall / (double)n, GBENCH_AVG_THREADS);
	if (f->ns_per_op_metric)
		gbench_set_counter(st, f->ns_per_op_metric,
				   wall / (double)n / f->ns_per_op_divisor,
				   GBENCH_AVG_THREADS);
}

/*
 * The fastest and the slowest thread's ns per operation, from thread 0
 * once every thread is past the closing barrier: ns_per_op is their mean,
 * and a mean hides a thread that ran its last operations alone after the
 * others had finished (an unfair line, a thread descheduled). Only
 * where several threads ran, each its n operations.
 */
static void set_thread_spread(struct gbench_state *st, const struct bench_case *c,
			      uint64_t n)
{
	double fastest = INFINITY, slowest = 0;

	if (c->cfg.nr_threads < 2)
		return;
	for (unsigned int t = 0; t < c->cfg.nr_threads; t++) {
		if (c->ops_done[t] != n)
			return;
		fastest = fmin(fastest, c->thread_ns[t] / (double)n);
		slowest = fmax(slowest, c->thread_ns[t] / (double)n);
	}
	/* thread 0 alone sets them: Google Benchmark sums a counter over threads */
	gbench_set_counter(st, "fastest_thread_ns_per_op", fastest, GBENCH_SUM);
	gbench_set_counter(st, "slowest_thread_ns_per_op", slowest, GBENCH_SUM);
}

void bench_case_run(struct gbench_state *st, void *arg)
{
	struct bench_case *c = arg;
	const struct kernel_variant *v = &c->family->variants[c->cfg.variant];
	int t = gbench_thread_index(st);
	uint64_t n = gbench_max_iterations(st);
	struct topo_binding *saved;
	struct counters_thread *counters;
	struct timespec start = { 0 }, end = { 0 };
	bool ran = false, stopped = false;

	saved = prepare_thread(st, c, t);
	/* Opened before the opening barrier, enabled outside the timed span. */
	counters = counters_thread_open();
	if (t == 0)
		watchdog_arm();

	/*
	 * Not a loop over operations: the kernel runs all n in one call. A
	 * thread in error never enters the loop, so the others do not run
	 * either: spinning kernels would wait for it for ever.
	 */
	while (gbench_keep_running_batch(st, n)) {
		if (atomic_load(&c->abandoned))
			continue;
		counters_thread_enable(counters);
		/* After the enable syscall, which would skew the start again. */
		wait_at_start_line(c);
		clock_gettime(CLOCK_MONOTONIC, &start);
		v->run(c->state, (unsigned int)t, n);
		clock_gettime(CLOCK_MONOTONIC, &end);
		counters_thread_disable(counters);
		c->thread_ns[t] = elapsed_ns(&start, &end);
		c->ops_done[t] = n;	/* both published by the closing barrier */
		ran = true;
	}
	if (t == 0)
		stopped = watchdog_disarm();

	if (ran)
		set_timing_counters(st, c, n, elapsed_ns(&start, &end));
	if (ran && t == 0)
		set_thread_spread(st, c, n);
	counters_thread_finish(counters, st, ran ? n : 0);
	if (t == 0) {
		if (c->state && stopped)
			stop_and_destroy(st, c);
		else if (c->state)
			verify_and_destroy(st, c);
		topo_restore_binding(c->topo, saved);
		/* Every thread is past the closing barrier: reset for the next run. */
		atomic_store(&c->at_start_line, 0);
		atomic_store(&c->abandoned, false);
	}
}
