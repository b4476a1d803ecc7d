// SPDX-License-Identifier: GPL-2.0-only
/*
 * The whole catalogue built with every atomic write hooked
 * (tests/instrumented/atomics.h, force-included into each family file):
 * a family that spells a write another way (x++ on an _Atomic, a
 * __atomic builtin, a volatile store) is invisible to the instrumented
 * tests, whose counts and scripted interleavings then say nothing about
 * it. Here every variant that declares a write in its loop must show the
 * hook at least one write per operation. The build itself is the other
 * half: an atomic type atomics.h does not list fails to compile.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "catalog.h"
#define HOOKED_ATOMICS_DEFINITIONS
#include "instrumented/atomics.h"

#define OPS 64
#define MAX_THREADS 2

static atomic_ulong hooked_writes;

void atomic_hook(enum atomic_write kind, void *ptr, size_t size,
		 unsigned long value)
{
	(void)kind;
	(void)ptr;
	(void)size;
	(void)value;
	atomic_fetch_add(&hooked_writes, 1);
}

/* The classes that write memory; an INSN_LOCKED or a call may not. */
static bool declares_a_write(const struct kernel_variant *v)
{
	for (unsigned int i = 0; i < KERNEL_MAX_INSNS && v->instructions[i].insn != INSN_END; i++) {
		const struct insn_rule *r = &v->instructions[i];

		if (r->where != INSN_IN_LOOP && r->where != INSN_ANYWHERE)
			continue;
		if (r->insn != INSN_SEQ_PAIR && r->insn != INSN_CALL && r->insn != INSN_LOCKED)
			return true;
	}
	return false;
}

struct worker {
	pthread_t tid;
	const struct kernel_variant *variant;
	void *state;
	unsigned int thread;
	pthread_barrier_t *start;
};

static void *worker_main(void *arg)
{
	struct worker *w = arg;

	pthread_barrier_wait(w->start);
	w->variant->run(w->state, w->thread, OPS);
	return NULL;
}

static void every_declared_write_reaches_the_hook(void **unused)
{
	unsigned int tested = 0;

	(void)unused;
	for (unsigned int i = 0; i < catalog_size; i++) {
		const struct kernel_family *f = catalog[i];

		for (unsigned int v = 0; v < f->nr_variants; v++) {
			struct worker w[MAX_THREADS];
			pthread_barrier_t start;
			struct kernel_config cfg;
			unsigned long seen;
			char err[256];
			void *state;

			if (!declares_a_write(&f->variants[v]))
				continue;
			kernel_config_defaults(f, &cfg);
			cfg.variant = v;
			cfg.nr_threads = f->min_threads > 1 ? f->min_threads : 1;
			assert_true(cfg.nr_threads <= MAX_THREADS);
			state = f->create(&cfg, err, sizeof(err));
			if (!state)
				fail_msg("%s/%s: create: %s", f->name, f->variants[v].name, err);
			atomic_store(&hooked_writes, 0);
			pthread_barrier_init(&start, NULL, cfg.nr_threads);
			for (unsigned int t = 0; t < cfg.nr_threads; t++) {
				w[t] = (struct worker){ .variant = &f->variants[v], .state = state,
							.thread = t, .start = &start };
				assert_int_equal(pthread_create(&w[t].tid, NULL, worker_main, &w[t]), 0);
			}
			for (unsigned int t = 0; t < cfg.nr_threads; t++)
				pthread_join(w[t].tid, NULL);
			pthread_barrier_destroy(&start);
			seen = atomic_load(&hooked_writes);
			tested++;
			f->destroy(state);
			if (seen < OPS * cfg.nr_threads)
				fail_msg("%s/%s: %u operations on %u thread%s made %lu writes the "
					 "instrumented build saw: write shared state with <stdatomic.h>'s "
					 "calls (atomic_store_explicit, atomic_fetch_add_explicit, ...), "
					 "which tests/instrumented/atomics.h hooks", f->name,
					 f->variants[v].name, OPS, cfg.nr_threads,
					 cfg.nr_threads == 1 ? "" : "s", seen);
		}
	}
	if (tested < 2)
		fail_msg("%u variants tested: the hooked catalogue must be linked whole "
			 "(link_whole), or its families do not register", tested);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_declared_write_reaches_the_hook),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
