// SPDX-License-Identifier: GPL-2.0-only
/*
 * The one driver of a kernel outside Google Benchmark's threads:
 * kernel_drive() (threads released together, each running its share,
 * then verify), kernel_drive_batches() (one thread's timed batches on one
 * state, then verify), and the two steps every driver takes, the
 * harness's included: kernel_run_create() and kernel_run_finish(), which
 * verifies before it destroys. A run whose check fails is an error,
 * never a number, whichever command drove it.
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "drive.h"

void *kernel_run_create(const struct kernel_family *f, const struct kernel_config *cfg,
			char *err, size_t errlen)
{
	if (cfg->variant >= f->nr_variants || !cfg->nr_threads ||
	    cfg->nr_threads > KERNEL_MAX_THREADS) {
		snprintf(err, errlen, "%s: variant %u of %u, %u threads: expected a variant of the family and 1 to %d threads",
			 f->name, cfg->variant, f->nr_variants, cfg->nr_threads, KERNEL_MAX_THREADS);
		return NULL;
	}
	return f->create(cfg, err, errlen);
}

int kernel_run_finish(const struct kernel_family *f, const struct kernel_config *cfg,
		      void *state, const uint64_t *ops, struct kernel_metrics *metrics,
		      char *err, size_t errlen)
{
	struct kernel_metrics unused = { 0 };
	unsigned int overruns = kernel_shared_overruns();
	int rc;

	if (!f->verify) {
		snprintf(err, errlen, "%s has no verify: a run that cannot be checked is never a number",
			 f->name);
		f->destroy(state);
		return -1;
	}
	rc = f->verify(state, cfg, ops, metrics ? metrics : &unused, err, errlen);
	f->destroy(state);
	if (!rc && kernel_shared_overruns() != overruns) {
		snprintf(err, errlen, "%s/%s wrote past the end of its shared state",
			 f->name, f->variants[cfg->variant].name);
		rc = -1;
	}
	return rc ? -1 : 0;
}

/*
 * Threads wait at a gate, not a barrier: a barrier for n holds the
 * threads already started for ever when a later one cannot start, where
 * a gate can be closed on them and they go home without running.
 */
struct gate {
	pthread_mutex_t lock;
	pthread_cond_t moved;
	enum { GATE_WAIT, GATE_OPEN, GATE_CLOSED } state;
	/*
	 * The threads through the open gate. A gate wakes its threads one by
	 * one, tens of microseconds apart on a VM, and a pingpong thread
	 * whose partner is still asleep times the wait: each spins here
	 * until all have arrived, and only then reads the clock. The
	 * compiler's builtins, not <stdatomic.h>: the instrumented builds
	 * count every stdatomic operation as the kernel's own.
	 */
	unsigned int through;
	unsigned int nr_threads;
};

struct drive_thread {
	pthread_t tid;
	const struct kernel_variant *variant;
	const struct kernel_drive_hooks *hooks;
	void *state;
	unsigned int thread;
	uint64_t nr_ops;
	struct gate *gate;
	int start_error;
	char why[160];
	double wall_ns;
};

static void *drive_thread_main(void *arg)
{
	struct drive_thread *t = arg;
	const struct kernel_drive_hooks *h = t->hooks;
	uint64_t a, b;
	bool open;

	/* e.g. bound to its CPU: a failure is reported, but the partners need it to run */
	if (h && h->thread_start)
		t->start_error = h->thread_start(h->arg, t->thread, t->why, sizeof(t->why));
	pthread_mutex_lock(&t->gate->lock);
	while (t->gate->state == GATE_WAIT)
		pthread_cond_wait(&t->gate->moved, &t->gate->lock);
	open = t->gate->state == GATE_OPEN;
	pthread_mutex_unlock(&t->gate->lock);
	if (!open)
		return NULL;
	__atomic_fetch_add(&t->gate->through, 1, __ATOMIC_SEQ_CST);
	for (unsigned int spins = 1;
	     __atomic_load_n(&t->gate->through, __ATOMIC_ACQUIRE) < t->gate->nr_threads; spins++)
		if (spins % 1024 == 0)
			sched_yield();	/* more threads than CPUs: let the others arrive */
	a = kernel_now_ns();
	t->variant->run(t->state, t->thread, t->nr_ops);
	b = kernel_now_ns();
	t->wall_ns = (double)(b - a);
	return NULL;
}

static void move_gate(struct gate *g, int state)
{
	pthread_mutex_lock(&g->lock);
	g->state = state;
	pthread_cond_broadcast(&g->moved);
	pthread_mutex_unlock(&g->lock);
}

/* Starts, releases and joins the threads; -1 with err if one could not start. */
static int run_threads(const struct kernel_family *f, const struct kernel_config *cfg,
		       void *state, uint64_t nr_ops, const struct kernel_drive_hooks *hooks,
		       char *err, size_t errlen)
{
	unsigned int n = cfg->nr_threads, started;
	struct drive_thread *threads = calloc(n, sizeof(*threads));
	struct gate gate = {
		PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, GATE_WAIT, 0, n
	};
	int rc = 0;

	if (!threads) {
		snprintf(err, errlen, "out of memory for %u threads", n);
		return -1;
	}
	for (started = 0; started < n; started++) {
		threads[started] = (struct drive_thread){
			.variant = &f->variants[cfg->variant], .hooks = hooks,
			.state = state, .thread = started, .nr_ops = nr_ops, .gate = &gate,
		};
		rc = pthread_create(&threads[started].tid, NULL, drive_thread_main,
				    &threads[started]);
		if (rc) {
			/* pthread_create() returns its error; errno is left as it was */
			snprintf(err, errlen, "%s: cannot start thread %u of %u: %s",
				 f->name, started + 1, n, strerror(rc));
			break;
		}
	}
	move_gate(&gate, rc ? GATE_CLOSED : GATE_OPEN);
	for (unsigned int t = 0; t < started; t++)
		pthread_join(threads[t].tid, NULL);
	for (unsigned int t = 0; t < started && !rc; t++) {
		if (threads[t].start_error) {
			snprintf(err, errlen, "thread %u: %s", t, threads[t].why);
			rc = -1;
		}
	}
	for (unsigned int t = 0; t < n && hooks && hooks->thread_ns; t++)
		hooks->thread_ns[t] = threads[t].wall_ns;
	pthread_cond_destroy(&gate.moved);
	pthread_mutex_destroy(&gate.lock);
	free(threads);
	return rc ? -1 : 0;
}

int kernel_drive(const struct kernel_family *f, const struct kernel_config *cfg,
		 uint64_t nr_ops, const struct kernel_drive_hooks *hooks,
		 struct kernel_metrics *metrics, char *err, size_t errlen)
{
	uint64_t *ops;
	char why[512];
	void *state;
	int rc = 0;

	state = kernel_run_create(f, cfg, why, sizeof(why));
	if (!state) {
		snprintf(err, errlen, "create: %s", why);
		return -1;
	}
	ops = calloc(cfg->nr_threads, sizeof(*ops));
	if (!ops) {
		snprintf(err, errlen, "out of memory for %u threads", cfg->nr_threads);
		f->destroy(state);
		return -1;
	}
	for (unsigned int t = 0; t < cfg->nr_threads; t++)
		ops[t] = nr_ops;
	if (hooks && hooks->before_threads)
		hooks->before_threads(hooks->arg);
	rc = run_threads(f, cfg, state, nr_ops, hooks, err, errlen);
	if (rc) {
		/* threads that did not run, or ran unbound: nothing to check */
		f->destroy(state);
	} else {
		if (hooks && hooks->after_threads)
			hooks->after_threads(hooks->arg);
		if (kernel_run_finish(f, cfg, state, ops, metrics, why, sizeof(why))) {
			snprintf(err, errlen, "verify: %s", why);
			rc = -1;
		}
	}
	free(ops);
	return rc;
}

int kernel_drive_batches(const struct kernel_family *f, const struct kernel_config *cfg,
			 unsigned int nr_batches, double min_batch_ns, double *batch_ns,
			 char *err, size_t errlen)
{
	struct kernel_config one = *cfg;
	uint64_t nr_ops = 64, total = 0;
	char why[512];
	void *state;

	one.nr_threads = 1;
	state = kernel_run_create(f, &one, why, sizeof(why));
	if (!state) {
		snprintf(err, errlen, "create: %s", why);
		return -1;
	}
	for (unsigned int b = 0; b < nr_batches;) {
		uint64_t t0 = kernel_now_ns();
		double t;

		f->variants[one.variant].run(state, 0, nr_ops);
		t = (double)(kernel_now_ns() - t0);
		total += nr_ops;
		/* a batch too short to time is a calibration step, not a sample */
		if (t < min_batch_ns && nr_ops < (1ULL << 40)) {
			nr_ops *= 4;
			continue;
		}
		batch_ns[b++] = t / (double)nr_ops;
	}
	if (kernel_run_finish(f, &one, state, &total, NULL, why, sizeof(why))) {
		snprintf(err, errlen, "verify: %s", why);
		return -1;
	}
	return 0;
}
