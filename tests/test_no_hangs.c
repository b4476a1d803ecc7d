// SPDX-License-Identifier: GPL-2.0-only
/*
 * The kernel contract: every spin-wait is bounded or checks the stop flag,
 * so a thread whose partners never run cannot hang the suite. Each variant
 * of every family whose threads spin on each other runs here as thread 0
 * of a two-thread (or min_threads) configuration, alone, with the stop
 * flag raised: it must return. A kernel that ignores the flag hangs this
 * test until meson's timeout fails it. And a run cut short must then
 * fail its verify step, so that it is reported as an error, never as a
 * number.
 *
 * Skipped (exit 77) when no family in the catalogue spins.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "catalog.h"
#include "sanitizers.h"

#define SKIPPED 77
/* Enough operations that a kernel waiting per operation would hang. */
#define NR_OPS 100000

static unsigned int threads_for(const struct kernel_family *f)
{
	return f->min_threads > 2 ? f->min_threads : 2;
}

static int run_alone(const struct kernel_family *f, unsigned int v)
{
	static uint64_t ops[KERNEL_MAX_THREADS];
	struct kernel_metrics metrics = { 0 };
	struct kernel_config cfg;
	char err[256], msg[256];
	void *state;
	int verified;

	kernel_config_defaults(f, &cfg);
	cfg.variant = v;
	cfg.nr_threads = threads_for(f);
	state = f->create(&cfg, err, sizeof(err));
	if (!state) {
		fprintf(stderr, "%s: %s\n", f->name, err);
		return -1;
	}
	f->variants[v].run(state, 0, NR_OPS);
	/* What the harness would report: every thread ran all its operations. */
	for (unsigned int t = 0; t < cfg.nr_threads; t++)
		ops[t] = NR_OPS;
	verified = f->verify(state, &cfg, ops, &metrics, msg, sizeof(msg));
	f->destroy(state);
	if (!verified) {
		fprintf(stderr, "%s/%s: verify passed a run whose partners never ran\n",
			f->name, f->variants[v].name);
		return -1;
	}
	printf("returned, verify failed as it must (%s)\n", msg);
	return 0;
}

int main(void)
{
	unsigned int tested = 0;

	atomic_store(&kernel_stop_requested, true);
	for (unsigned int i = 0; i < catalog_size; i++) {
		const struct kernel_family *f = catalog[i];

		if (!f->spins)
			continue;
		for (unsigned int v = 0; v < f->nr_variants; v++) {
			/* See tests/test_kernels.c: the race is the point. */
			if (BUILT_WITH_TSAN && f->variants[v].deliberately_racy)
				continue;
			printf("%s/%s, thread 0 of %u alone: ", f->name,
			       f->variants[v].name, threads_for(f));
			fflush(stdout);
			if (run_alone(f, v))
				return 1;
			tested++;
		}
	}
	if (!tested) {
		printf("no family spins: nothing to test\n");
		return SKIPPED;
	}
	return 0;
}
