/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * One configuration of a family run to its verdict, outside the timing
 * harness: the tests' contract checks and instrumented builds. Like the
 * harness it always verifies: a run whose check fails is an error.
 */
#ifndef BOUNCELAB_DRIVE_H
#define BOUNCELAB_DRIVE_H

#include <stddef.h>
#include <stdint.h>

#include "kernel.h"

/*
 * Optional calls around the threads' work: after the state is created
 * and before any thread starts, and after every thread has finished and
 * before verify (e.g. a count of the writes the threads made, which the
 * state's creation must not add to).
 */
struct kernel_drive_hooks {
	void (*before_threads)(void *arg);
	void (*after_threads)(void *arg);
	void *arg;
};

/*
 * Creates cfg's state, runs cfg->nr_threads threads of cfg's variant at
 * once (released together: a pingpong needs both), nr_ops operations
 * each, joins them, verifies with the family's verify and destroys the
 * state. hooks and metrics may be NULL. Returns 0, or -1 with err saying
 * which step failed and why.
 */
int kernel_drive(const struct kernel_family *f, const struct kernel_config *cfg,
		 uint64_t nr_ops, const struct kernel_drive_hooks *hooks,
		 struct kernel_metrics *metrics, char *err, size_t errlen);

#endif
