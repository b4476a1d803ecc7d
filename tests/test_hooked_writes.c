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
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "catalog.h"
#include "drive.h"

#define HOOKED_ATOMICS_DEFINITIONS
#include "instrumented/atomics.h"

#define OPS 64

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

/* The writes the threads made: counted from their start, not the state's creation. */
static void reset_writes(void *arg)
{
	(void)arg;
	atomic_store(&hooked_writes, 0);
}

static void count_writes(void *arg)
{
	*(unsigned long *)arg = atomic_load(&hooked_writes);
}

static void every_declared_write_reaches_the_hook(void **unused)
{
	unsigned int tested = 0;

	(void)unused;
	for (unsigned int i = 0; i < catalog_size; i++) {
		const struct kernel_family *f = catalog[i];

		for (unsigned int v = 0; v < f->nr_variants; v++) {
			struct kernel_drive_hooks hooks = {
				.before_threads = reset_writes, .after_threads = count_writes,
			};
			struct kernel_config cfg;
			unsigned long seen = 0;
			char err[512];

			if (!declares_a_write(&f->variants[v]))
				continue;
			kernel_config_defaults(f, &cfg);
			cfg.variant = v;
			cfg.nr_threads = f->min_threads > 1 ? f->min_threads : 1;
			hooks.arg = &seen;
			if (kernel_drive(f, &cfg, OPS, &hooks, NULL, err, sizeof(err)))
				fail_msg("%s/%s: %s", f->name, f->variants[v].name, err);
			tested++;
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
