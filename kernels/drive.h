/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The one driver of a kernel: a configuration run to its verdict outside
 * Google Benchmark's threads (the tests' contract checks, instrumented
 * builds, the latency probe, `bouncelab model`'s private cost), and the
 * create and finish steps the harness takes around its own threads. Every
 * path verifies: a run whose check fails is an error, never a number.
 */
#ifndef BOUNCELAB_DRIVE_H
#define BOUNCELAB_DRIVE_H

#include <stddef.h>
#include <stdint.h>

#include "kernel.h"

/*
 * A run's state: cfg checked (a variant of the family, 1 to
 * KERNEL_MAX_THREADS threads), then the family's create. NULL with err.
 */
void *kernel_run_create(const struct kernel_family *f, const struct kernel_config *cfg,
			char *err, size_t errlen);

/*
 * Verifies the state against each thread's operations (ops[t]), then
 * destroys it, whatever the verdict. metrics may be NULL. Returns 0, or
 * -1 with err the family's reason.
 */
int kernel_run_finish(const struct kernel_family *f, const struct kernel_config *cfg,
		      void *state, const uint64_t *ops, struct kernel_metrics *metrics,
		      char *err, size_t errlen);

/*
 * Optional calls around the threads' work: after the state is created
 * and before any thread starts, and after every thread has finished and
 * before verify (e.g. a count of the writes the threads made, which the
 * state's creation must not add to); in each thread before it is released
 * (e.g. binding it to its CPU: a nonzero return, with why, fails the run
 * after the threads have run, since a partner may need it to); and where
 * each thread's wall time of its share goes (thread_ns[nr_threads]).
 */
struct kernel_drive_hooks {
	void (*before_threads)(void *arg);
	void (*after_threads)(void *arg);
	int (*thread_start)(void *arg, unsigned int thread, char *why, size_t whylen);
	void *arg;
	double *thread_ns;
};

/*
 * Creates cfg's state, runs cfg->nr_threads threads of cfg's variant at
 * once (released together: a pingpong needs both), nr_ops operations
 * each, joins them, verifies with the family's verify and destroys the
 * state. hooks and metrics may be NULL. Returns 0, or -1 with err saying
 * which step failed and why (a thread that cannot start included: the
 * others are then sent home unrun).
 */
int kernel_drive(const struct kernel_family *f, const struct kernel_config *cfg,
		 uint64_t nr_ops, const struct kernel_drive_hooks *hooks,
		 struct kernel_metrics *metrics, char *err, size_t errlen);

/*
 * One thread of cfg's variant timed in nr_batches batches on one state,
 * each of at least min_batch_ns (the operations grow fourfold until a
 * batch is that long), batch_ns[b] its ns per operation; then verify.
 * Returns 0, or -1 with err.
 */
int kernel_drive_batches(const struct kernel_family *f, const struct kernel_config *cfg,
			 unsigned int nr_batches, double min_batch_ns, double *batch_ns,
			 char *err, size_t errlen);

#endif
