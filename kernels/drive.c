// SPDX-License-Identifier: GPL-2.0-only
/*
 * The driver behind kernel_drive(): threads unpinned, released by one
 * barrier, each running its share of the variant; then verify. Timing,
 * placement and rounds are the harness's (bench/), not this file's.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "drive.h"

struct drive_thread {
	pthread_t tid;
	const struct kernel_variant *variant;
	void *state;
	unsigned int thread;
	uint64_t nr_ops;
	pthread_barrier_t *start;
};

static void *drive_thread_main(void *arg)
{
	struct drive_thread *t = arg;

	pthread_barrier_wait(t->start);
	t->variant->run(t->state, t->thread, t->nr_ops);
	return NULL;
}

/*
 * Starts and joins the threads; -1 with err when there is no memory for
 * them. A thread that cannot start aborts the process: those started
 * wait at the barrier for all n and could never be released.
 */
static int run_threads(const struct kernel_family *f, const struct kernel_config *cfg,
		       void *state, uint64_t nr_ops, char *err, size_t errlen)
{
	unsigned int n = cfg->nr_threads;
	struct drive_thread *threads = calloc(n, sizeof(*threads));
	pthread_barrier_t start;

	if (!threads) {
		snprintf(err, errlen, "out of memory for %u threads", n);
		return -1;
	}
	pthread_barrier_init(&start, NULL, n);
	for (unsigned int t = 0; t < n; t++) {
		int rc;

		threads[t] = (struct drive_thread){
			.variant = &f->variants[cfg->variant], .state = state,
			.thread = t, .nr_ops = nr_ops, .start = &start,
		};
		rc = pthread_create(&threads[t].tid, NULL, drive_thread_main, &threads[t]);
		if (rc) {
			fprintf(stderr, "bouncelab: %s: cannot start thread %u of %u: %s\n",
				f->name, t + 1, n, strerror(rc));
			abort();
		}
	}
	for (unsigned int t = 0; t < n; t++)
		pthread_join(threads[t].tid, NULL);
	pthread_barrier_destroy(&start);
	free(threads);
	return 0;
}

int kernel_drive(const struct kernel_family *f, const struct kernel_config *cfg,
		 uint64_t nr_ops, const struct kernel_drive_hooks *hooks,
		 struct kernel_metrics *metrics, char *err, size_t errlen)
{
	struct kernel_metrics unused = { 0 };
	uint64_t *ops;
	char why[512];
	void *state;
	int rc = 0;

	if (cfg->variant >= f->nr_variants || !cfg->nr_threads ||
	    cfg->nr_threads > KERNEL_MAX_THREADS) {
		snprintf(err, errlen, "%s: variant %u of %u, %u threads: expected a variant of the family and 1 to %d threads",
			 f->name, cfg->variant, f->nr_variants, cfg->nr_threads, KERNEL_MAX_THREADS);
		return -1;
	}
	ops = calloc(cfg->nr_threads, sizeof(*ops));
	if (!ops) {
		snprintf(err, errlen, "out of memory for %u threads", cfg->nr_threads);
		return -1;
	}
	for (unsigned int t = 0; t < cfg->nr_threads; t++)
		ops[t] = nr_ops;
	state = f->create(cfg, why, sizeof(why));
	if (!state) {
		snprintf(err, errlen, "create: %s", why);
		free(ops);
		return -1;
	}
	if (hooks && hooks->before_threads)
		hooks->before_threads(hooks->arg);
	rc = run_threads(f, cfg, state, nr_ops, err, errlen);
	if (!rc && hooks && hooks->after_threads)
		hooks->after_threads(hooks->arg);
	if (!rc && f->verify &&
	    f->verify(state, cfg, ops, metrics ? metrics : &unused, why, sizeof(why))) {
		snprintf(err, errlen, "verify: %s", why);
		rc = -1;
	}
	f->destroy(state);
	free(ops);
	return rc;
}
