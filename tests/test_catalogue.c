// SPDX-License-Identifier: GPL-2.0-only
/*
 * The catalogue families beyond the generic checks of test_kernels.c:
 * their parameters away from the defaults, the metrics they report, and
 * the racy variants' verify catching damage where none is possible (one
 * thread). Nothing here depends on timing: only facts that hold for every
 * interleaving are asserted.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "float_assert.h"

#include "catalog.h"

/* four whole has_pinned patterns of 4096 calls */
#define OPS_PER_THREAD 16384

struct worker {
	pthread_t tid;
	const struct kernel_variant *variant;
	void *state;
	unsigned int thread;
	uint64_t nr_ops;
	pthread_barrier_t *start;
};

struct outcome {
	char what[128];
	int ret;
	char msg[256];
	struct kernel_metrics metrics;
};

static void *worker_main(void *arg)
{
	struct worker *w = arg;

	pthread_barrier_wait(w->start);
	w->variant->run(w->state, w->thread, w->nr_ops);
	return NULL;
}

/* "name=value" pairs, NULL-terminated, over the family's defaults. */
static void configure(const struct kernel_family *f, struct kernel_config *cfg,
		      const char *variant, unsigned int nr_threads,
		      const char *const *settings)
{
	int v = catalog_variant_index(f, variant);

	assert_true(v >= 0);
	kernel_config_defaults(f, cfg);
	cfg->variant = (unsigned int)v;
	cfg->nr_threads = nr_threads;
	for (unsigned int i = 0; settings && settings[i]; i++) {
		char name[64], err[256];
		const char *eq = strchr(settings[i], '=');
		int p;

		assert_non_null(eq);
		snprintf(name, sizeof(name), "%.*s", (int)(eq - settings[i]), settings[i]);
		p = kernel_param_index(f, name);
		assert_true(p >= 0);
		assert_int_equal(kernel_param_parse(&f->params[p], eq + 1,
						    &cfg->param[p], err, sizeof(err)), 0);
	}
}

/* Thread 0 runs short_by fewer operations than verify is told. */
static struct outcome run(const char *family, const char *variant,
			  unsigned int nr_threads, uint64_t short_by,
			  const char *const *settings)
{
	const struct kernel_family *f = catalog_find(family);
	struct outcome out = { 0 };
	struct kernel_config cfg;
	struct worker w[2];
	pthread_barrier_t start;
	uint64_t ops[2];
	char err[256];
	void *state;

	assert_non_null(f);
	configure(f, &cfg, variant, nr_threads, settings);
	state = f->create(&cfg, err, sizeof(err));
	assert_non_null(state);
	pthread_barrier_init(&start, NULL, nr_threads);
	for (unsigned int t = 0; t < nr_threads; t++) {
		ops[t] = OPS_PER_THREAD;
		w[t] = (struct worker){ .variant = &f->variants[cfg.variant],
					.state = state, .thread = t, .start = &start,
					.nr_ops = OPS_PER_THREAD - (t == 0 ? short_by : 0) };
		assert_int_equal(pthread_create(&w[t].tid, NULL, worker_main, &w[t]), 0);
	}
	for (unsigned int t = 0; t < nr_threads; t++)
		pthread_join(w[t].tid, NULL);
	pthread_barrier_destroy(&start);
	out.ret = f->verify(state, &cfg, ops, &out.metrics, out.msg, sizeof(out.msg));
	f->destroy(state);
	snprintf(out.what, sizeof(out.what), "%s/%s with %u thread%s", family,
		 variant, nr_threads, nr_threads == 1 ? "" : "s");
	return out;
}

static void assert_verified(const struct outcome *out)
{
	if (out->ret)
		fail_msg("%s: %s", out->what, out->msg);
}

static double metric(const struct outcome *out, const char *name)
{
	for (unsigned int i = 0; i < out->metrics.nr; i++)
		if (!strcmp(out->metrics.m[i].name, name))
			return out->metrics.m[i].value;
	fail_msg("no metric %s", name);
	return -1;
}

static void every_variant_verifies_with(const char *family,
					const char *const *settings)
{
	const struct kernel_family *f = catalog_find(family);

	assert_non_null(f);
	for (unsigned int t = 1; t <= 2; t++) {
		for (unsigned int v = 0; v < f->nr_variants; v++) {
			struct outcome out = run(family, f->variants[v].name, t, 0,
						 settings);

			assert_verified(&out);
		}
	}
}

/* Any mix of set and clear flags keeps the family's verify exact. */
static void has_pinned_already_set_sweep_verifies(void **unused)
{
	static const char *const sweep[][3] = {
		{ "already_set=0", NULL }, { "already_set=37", "flag_line=alone", NULL },
		{ "already_set=90", "pin_work=0", NULL }, { "already_set=100", NULL },
	};

	(void)unused;
	for (unsigned int i = 0; i < sizeof(sweep) / sizeof(sweep[0]); i++)
		every_variant_verifies_with("has_pinned", sweep[i]);
}

/*
 * With one thread the pattern decides alone: exactly already_set% of
 * each 4096 calls go to the shared mm, whose flag is found clear once;
 * every other call finds a fresh mm's flag clear. test_and_set_bit()
 * finds it the same way, through the bit it returns.
 */
static void has_pinned_one_thread_finds_the_flag_clear_as_planned(void **unused)
{
	static const char *const half[] = { "already_set=50", NULL };
	static const char *const none[] = { "already_set=0", NULL };
	static const char *const all[] = { "already_set=100", NULL };
	struct outcome out;

	(void)unused;
	out = run("has_pinned", "read_then_set", 1, 0, half);
	assert_verified(&out);
	assert_true(metric(&out, "found_clear_fraction") ==
		    (OPS_PER_THREAD / 2 + 1.0) / OPS_PER_THREAD);
	out = run("has_pinned", "test_then_set_bit", 1, 0, none);
	assert_verified(&out);
	assert_true(metric(&out, "found_clear_fraction") == 1.0);
	out = run("has_pinned", "read_then_set", 1, 0, all);
	assert_verified(&out);
	assert_true(metric(&out, "found_clear_fraction") == 1.0 / OPS_PER_THREAD);
	out = run("has_pinned", "test_and_set_bit", 1, 0, half);
	assert_verified(&out);
	assert_true(metric(&out, "found_clear_fraction") ==
		    (OPS_PER_THREAD / 2 + 1.0) / OPS_PER_THREAD);
}

static void has_pinned_dropped_call_fails_at_any_already_set(void **unused)
{
	static const char *const none[] = { "already_set=0", NULL };

	(void)unused;
	assert_int_equal(run("has_pinned", "store_always", 2, 1, none).ret, -1);
	assert_int_equal(run("has_pinned", "read_then_set", 1, 1, none).ret, -1);
}

/* One writer never retries, with or without a reader beside it. */
static void last_nidpid_one_writer_never_retries(void **unused)
{
	static const char *const one_reader[] = { "readers=50", NULL };
	struct outcome out;

	(void)unused;
	out = run("last_nidpid", "cmpxchg_loop", 1, 0, NULL);
	assert_verified(&out);
	assert_true(metric(&out, "retries_per_success") == 0);
	assert_true(metric(&out, "success_share_min") == 1);
	out = run("last_nidpid", "cmpxchg_loop", 2, 0, one_reader);
	assert_verified(&out);
	assert_true(metric(&out, "retries_per_success") == 0);
}

static void last_nidpid_readers_verify(void **unused)
{
	static const char *const half[] = { "readers=50", NULL };
	static const char *const all[] = { "readers=100", NULL };

	(void)unused;
	every_variant_verifies_with("last_nidpid", half);
	every_variant_verifies_with("last_nidpid", all);
	/* a reader that skipped a read is caught too */
	assert_int_equal(run("last_nidpid", "xchg", 1, 1, all).ret, -1);
}

/* Two writers: shares add up to one, whatever the interleaving. */
static void last_nidpid_shares_are_fractions(void **unused)
{
	struct outcome out = run("last_nidpid", "xchg", 2, 0, NULL);
	double lo, hi;

	(void)unused;
	assert_verified(&out);
	lo = metric(&out, "success_share_min");
	hi = metric(&out, "success_share_max");
	assert_true(lo >= 0 && lo <= 0.5 && hi >= 0.5 && hi <= 1);
	assert_true(lo + hi > 0.999 && lo + hi < 1.001);
}

/*
 * The racy variants measure lost updates, but with one thread there is
 * nobody to lose them to: a missing update is then an error.
 */
static void racy_variants_catch_a_missing_update_alone(void **unused)
{
	struct outcome out;

	(void)unused;
	out = run("counter", "shared_plain", 1, 0, NULL);
	assert_verified(&out);
	assert_true(metric(&out, "lost_updates") == 0);
	assert_int_equal(run("counter", "shared_plain", 1, 1, NULL).ret, -1);
	out = run("last_nidpid", "plain_store", 1, 0, NULL);
	assert_verified(&out);
	assert_true(metric(&out, "lost_updates") == 0);
	assert_int_equal(run("last_nidpid", "plain_store", 1, 1, NULL).ret, -1);
	/* two threads: whatever was lost, it is a measurement in [0, 1] */
	out = run("counter", "shared_plain", 2, 0, NULL);
	assert_verified(&out);
	assert_true(metric(&out, "lost_fraction") >= 0 &&
		    metric(&out, "lost_fraction") < 1);
}

/* Reading the total on every update exercises each variant's read side. */
static void counter_reads_verify(void **unused)
{
	static const char *const every[] = { "read_every=1", "batch=1", NULL };
	static const char *const big_batch[] = { "read_every=7", "batch=100000", NULL };

	(void)unused;
	every_variant_verifies_with("counter", every);
	every_variant_verifies_with("counter", big_batch);
}

static void false_sharing_locked_update_verifies(void **unused)
{
	static const char *const locked[] = { "update=locked", NULL };

	(void)unused;
	every_variant_verifies_with("false_sharing", locked);
	assert_int_equal(run("false_sharing", "separate_pages", 2, 1, locked).ret, -1);
}

/* The value's name of a parameter at its default, as the suite names it. */
static const char *default_choice(const struct kernel_family *f, const char *name)
{
	int p = kernel_param_index(f, name);

	assert_true(p >= 0);
	return kernel_param_choice(&f->params[p], f->params[p].def);
}

/*
 * gup's defaults are will-it-scale pin_fast's (seeds/000, v1 2/3): each
 * task pins its own 1024-page MADV_HUGEPAGE buffer (4 MiB, two THPs), one
 * page per ioctl. There the flag is the only line every call shares, so
 * that is where the fix must show: the claim at 2+ threads is in private
 * mode, and the suite still sweeps shared mode (gup_test -j).
 */
static void gup_defaults_are_pin_fasts(void **unused)
{
	const struct kernel_family *f = catalog_find("gup");
	bool private_claim = false;
	int mode;

	(void)unused;
	assert_non_null(f);
	assert_string_equal(default_choice(f, "mode"), "private");
	assert_string_equal(default_choice(f, "page_size"), "2m");
	assert_int_equal(f->params[kernel_param_index(f, "buffer_mib")].def, 4);
	assert_int_equal(f->params[kernel_param_index(f, "pages_per_call")].def, 1);
	mode = kernel_param_index(f, "mode");
	assert_non_null(f->params[mode].suite);
	assert_non_null(strstr(f->params[mode].suite, "shared"));
	for (unsigned int k = 0; k < f->nr_claims; k++) {
		const struct kernel_claim *c = &f->claims[k];

		private_claim |= c->threads == CLAIM_MOST_THREADS && c->relation == CLAIM_AT_LEAST &&
				 c->x > 1 && !strcmp(c->a, "store_always") &&
				 !strcmp(c->b, "read_then_set") && c->setting &&
				 strstr(c->setting, "mode=private");
	}
	assert_true(private_claim);
}

/* Locked RMWs of one operation, on shared lines and on the thread's own. */
static double locked_per_op(const struct kernel_family *f, const char *variant)
{
	struct kernel_config cfg;
	struct access_profile p = { 0 };
	double locked;

	configure(f, &cfg, variant, 2, NULL);
	f->access(&cfg, &p);
	locked = p.private_locked;
	for (unsigned int i = 0; i < p.nr_lines; i++)
		locked += p.lines[i].locked + p.lines[i].cas;
	return locked;
}

/*
 * A family's before and after variants differ in the fix only: both use
 * locked instructions, or neither does, by their access profiles (the
 * model's reading of each variant's code). A pair that also drops the lock
 * prefix shows a gain where nothing is shared (counter's shared_atomic
 * against plain per-CPU slots gained 2x at 1 thread).
 */
static void before_and_after_are_both_locked_or_both_plain(void **state)
{
	(void)state;
	for (unsigned int i = 0; i < catalog_size; i++) {
		const struct kernel_family *f = catalog[i];
		double before, after;

		if (!f->before_variant || !f->access)
			continue;
		before = locked_per_op(f, f->before_variant);
		after = locked_per_op(f, f->after_variant);
		if ((before > 0) != (after > 0))
			fail_msg("%s: before %s makes %g locked RMWs per op, after %s %g: the pair "
				 "also changes the lock prefix", f->name, f->before_variant, before,
				 f->after_variant, after);
	}
}

/* The allocator a harness installs: it counts what it is asked for. */
struct counting_allocator {
	unsigned int allocs, frees;
	size_t bytes_made, bytes_freed;
};

static void *counting_alloc(size_t size, void *arg)
{
	struct counting_allocator *c = arg;
	void *p = aligned_alloc(4096, size);

	assert_non_null(p);
	memset(p, 0, size);
	c->allocs++;
	c->bytes_made += size;
	return p;
}

static void counting_free(void *p, size_t size, void *arg)
{
	struct counting_allocator *c = arg;

	c->frees++;
	c->bytes_freed += size;
	free(p);
}

/*
 * Every family allocates its shared state through the one hook, so that
 * --home places all of it: create asks the harness's allocator at least
 * once, each allocation is page-aligned, and destroy gives back exactly
 * what create took.
 */
static void every_family_allocates_its_shared_state_through_the_hook(void **unused)
{
	(void)unused;
	for (unsigned int i = 0; i < catalog_size; i++) {
		const struct kernel_family *f = catalog[i];
		struct counting_allocator count = { 0 };
		struct kernel_shared_allocator hook = {
			.alloc = counting_alloc, .free = counting_free, .arg = &count,
		};
		struct kernel_config cfg;
		char err[256];
		void *state;

		kernel_config_defaults(f, &cfg);
		cfg.nr_threads = f->min_threads > 2 ? f->min_threads : 2;
		kernel_set_shared_allocator(&hook);
		kernel_shared_begin();
		state = f->create(&cfg, err, sizeof(err));
		if (!state)
			fail_msg("%s: create failed: %s", f->name, err);
		if (!count.allocs || kernel_shared_count() != count.allocs)
			fail_msg("%s: %u allocations through the hook, %u recorded",
				 f->name, count.allocs, kernel_shared_count());
		for (unsigned int k = 0; k < kernel_shared_count(); k++)
			assert_int_equal((uintptr_t)kernel_shared_at(k) % 4096, 0);
		f->destroy(state);
		kernel_set_shared_allocator(NULL);
		if (count.frees != count.allocs || count.bytes_freed != count.bytes_made)
			fail_msg("%s: %u of %u shared allocations freed (%zu of %zu bytes)",
				 f->name, count.frees, count.allocs, count.bytes_freed,
				 count.bytes_made);
	}
}

/*
 * has_pinned's access profile between 0 and 100, by hand from its header
 * comment: a call that finds the flag set (a share a = already_set / 100)
 * reads the seqcount line twice around the walk and does its variant's
 * flag access once (a load first, a plain store, or a locked op); one that
 * finds it clear pays one cold transfer (a fresh mm another CPU retired)
 * when there is another CPU; pin_work is locked ops on its own line.
 * Only 0 and 100 were tested before: an integer division passed.
 */
static void has_pinned_access_at_any_already_set(void **state)
{
	static const struct {
		const char *variant;
		double reads, stores, locked;	/* on the flag, per call that finds it set */
	} flag[] = {
		{ "store_always", 0, 1, 0 }, { "read_then_set", 1, 0, 0 },
		{ "set_bit_always", 0, 0, 1 }, { "test_then_set_bit", 1, 0, 0 },
		{ "test_and_set_bit", 0, 0, 1 },
	};
	const struct kernel_family *f = catalog_find("has_pinned");
	static const char *const quarter[] = { "already_set=25", "flag_line=alone", "pin_work=3", NULL };
	static const char *const shared[] = { "already_set=50", "flag_line=shared", NULL };
	static const char *const clear[] = { "already_set=75", NULL };

	(void)state;
	assert_non_null(f);
	for (size_t i = 0; i < sizeof(flag) / sizeof(flag[0]); i++) {
		struct kernel_config cfg;
		struct access_profile p = { 0 };

		configure(f, &cfg, flag[i].variant, 2, quarter);
		f->access(&cfg, &p);
		assert_int_equal(p.nr_lines, 2);
		assert_float_equal(p.lines[0].reads, 0.5, 1e-12);
		assert_float_equal(p.lines[1].reads, 0.25 * flag[i].reads, 1e-12);
		assert_float_equal(p.lines[1].stores, 0.25 * flag[i].stores, 1e-12);
		assert_float_equal(p.lines[1].locked, 0.25 * flag[i].locked, 1e-12);
		assert_float_equal(p.cold_transfers, 0.75, 1e-12);
		assert_float_equal(p.private_locked, 3, 1e-12);

		memset(&p, 0, sizeof(p));
		configure(f, &cfg, flag[i].variant, 2, shared);
		f->access(&cfg, &p);
		assert_int_equal(p.nr_lines, 1);
		assert_float_equal(p.lines[0].reads, 1 + 0.5 * flag[i].reads, 1e-12);
		assert_float_equal(p.lines[0].stores, 0.5 * flag[i].stores, 1e-12);
		assert_float_equal(p.lines[0].locked, 0.5 * flag[i].locked, 1e-12);
		assert_float_equal(p.cold_transfers, 0.5, 1e-12);

		memset(&p, 0, sizeof(p));
		configure(f, &cfg, flag[i].variant, 1, clear);
		f->access(&cfg, &p);
		assert_float_equal(p.cold_transfers, 0, 1e-12);	/* one CPU: nothing moves */
		assert_float_equal(p.lines[0].reads, 1.5 + 0.75 * flag[i].reads, 1e-12);
	}
	{
		struct kernel_config cfg;
		struct access_profile p = { 0 };

		configure(f, &cfg, "no_flag", 2, quarter);
		f->access(&cfg, &p);
		assert_int_equal(p.nr_lines, 1);
		assert_float_equal(p.lines[0].reads, 0.5, 1e-12);
		assert_float_equal(p.cold_transfers, 0.75, 1e-12);
		assert_float_equal(p.private_locked, 3, 1e-12);
	}
}

/*
 * last_nidpid's access profile with readers among the threads, by hand:
 * readers = floor(threads x readers% / 100) only load the field once per
 * operation; each writer (a share w of the threads) loads and cmpxchgs,
 * xchgs, or loads and stores. 4 threads at 30%: 1 reader, w = 3/4.
 */
static void last_nidpid_access_with_readers(void **state)
{
	static const struct {
		const char *variant;
		double reads_by_writer, cas, locked, stores;
	} v[] = {
		{ "cmpxchg_loop", 1, 1, 0, 0 }, { "xchg", 0, 0, 1, 0 },
		{ "plain_store", 1, 0, 0, 1 },
	};
	static const char *const thirty[] = { "readers=30", NULL };
	static const char *const all[] = { "readers=100", NULL };
	const struct kernel_family *f = catalog_find("last_nidpid");

	(void)state;
	assert_non_null(f);
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		struct kernel_config cfg;
		struct access_profile p = { 0 };
		const double w = 0.75;

		configure(f, &cfg, v[i].variant, 4, thirty);
		f->access(&cfg, &p);
		assert_int_equal(p.nr_lines, 1);
		assert_float_equal(p.lines[0].reads, (1 - w) + w * v[i].reads_by_writer, 1e-12);
		assert_float_equal(p.lines[0].cas, w * v[i].cas, 1e-12);
		assert_float_equal(p.lines[0].locked, w * v[i].locked, 1e-12);
		assert_float_equal(p.lines[0].stores, w * v[i].stores, 1e-12);
		assert_true(p.mixed_kinds);

		memset(&p, 0, sizeof(p));
		configure(f, &cfg, v[i].variant, 4, all);
		f->access(&cfg, &p);
		assert_float_equal(p.lines[0].reads, 1, 1e-12);
		assert_float_equal(p.lines[0].cas + p.lines[0].locked + p.lines[0].stores, 0, 1e-12);
		assert_false(p.mixed_kinds);
	}
}

/*
 * counter's access profile by hand (its comment: one update and
 * 1/read_every of a read; per-thread slots 16 to a line when packed; a
 * reader fetches every other thread's slot line). 4 threads reading
 * every 4th update: read = 1/4, 3 other threads, 3/16 of a packed line
 * each; percpu_batched folds into the shared count once in 32 (batch).
 */
static void counter_access_by_hand(void **state)
{
	static const struct {
		const char *variant;
		unsigned int nr_lines;
		enum line_sharing shared_by;
		unsigned int group_size;
		double reads, stores, locked, cold, private_locked;
	} v[] = {
		{ "shared_atomic", 1, LINE_SHARED_BY_ALL, 0, 1.25, 0, 1, 0, 0 },
		{ "shared_plain", 1, LINE_SHARED_BY_ALL, 0, 1.25, 1, 0, 0, 0 },
		{ "percpu_padded", 0, 0, 0, 0, 0, 0, 0.25 * 3, 0 },
		{ "percpu_packed", 1, LINE_SHARED_BY_GROUP, 16, 1.25, 1, 0, 0.25 * 3 / 16, 0 },
		{ "percpu_padded_locked", 0, 0, 0, 0, 0, 0, 2 * 0.25 * 3, 1 },
		{ "percpu_packed_locked", 1, LINE_SHARED_BY_GROUP, 16, 1.25, 0, 1, 0.25 * 3 / 16, 0 },
		{ "percpu_batched", 1, LINE_SHARED_BY_ALL, 0, 0.25, 0, 1.0 / 32, 0, 0 },
	};
	static const char *const every_4th[] = { "read_every=4", NULL };
	static const char *const never[] = { "read_every=0", "batch=64", NULL };
	const struct kernel_family *f = catalog_find("counter");

	(void)state;
	assert_non_null(f);
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		struct kernel_config cfg;
		struct access_profile p = { 0 };

		configure(f, &cfg, v[i].variant, 4, every_4th);
		f->access(&cfg, &p);
		assert_int_equal(p.nr_lines, v[i].nr_lines);
		assert_float_equal(p.cold_transfers, v[i].cold, 1e-12);
		assert_float_equal(p.private_locked, v[i].private_locked, 1e-12);
		if (v[i].nr_lines) {
			assert_int_equal(p.lines[0].shared_by, v[i].shared_by);
			if (v[i].shared_by == LINE_SHARED_BY_GROUP)
				assert_int_equal(p.lines[0].group_size, v[i].group_size);
			assert_float_equal(p.lines[0].reads, v[i].reads, 1e-12);
			assert_float_equal(p.lines[0].stores, v[i].stores, 1e-12);
			assert_float_equal(p.lines[0].locked, v[i].locked, 1e-12);
			assert_float_equal(p.lines[0].cas, 0, 0);
		}

		/* no reads of the total: nothing of other threads' slots moves */
		memset(&p, 0, sizeof(p));
		configure(f, &cfg, v[i].variant, 4, never);
		f->access(&cfg, &p);
		assert_float_equal(p.cold_transfers, 0, 0);
		if (v[i].nr_lines)
			assert_float_equal(p.lines[0].reads, v[i].reads - 0.25, 1e-12);
	}
	/* percpu_batched at batch=64 folds half as often */
	{
		struct kernel_config cfg;
		struct access_profile p = { 0 };

		configure(f, &cfg, "percpu_batched", 4, never);
		f->access(&cfg, &p);
		assert_float_equal(p.lines[0].locked, 1.0 / 64, 1e-15);
	}
}

/*
 * The transfer probe, which the report, the run's cold-miss measurement,
 * `bouncelab model --profile this` and `topo --latency` read every one-way
 * transfer from: the ping-pong, whose baseline is store_load (DESIGN.md:
 * "pingpong's store_load, which the claims compare with"), not its cas
 * variant and no other family.
 */
static void the_transfer_probe_is_the_ping_pongs_store_load(void **unused)
{
	const struct kernel_family *probe = catalog_transfer_probe();

	(void)unused;
	assert_non_null(probe);
	assert_string_equal(probe->name, "pingpong");
	assert_true(catalog_is_transfer_probe("pingpong"));
	assert_false(catalog_is_transfer_probe("counter"));
	assert_false(catalog_is_transfer_probe(NULL));
	assert_true(catalog_is_transfer_baseline("pingpong", "store_load"));
	assert_false(catalog_is_transfer_baseline("pingpong", "cas"));
	assert_false(catalog_is_transfer_baseline("has_pinned", "store_always"));
	assert_false(catalog_is_transfer_baseline("pingpong", NULL));
}

/*
 * The tenure probe the report measures the owner's tenure share on: one
 * variant in the catalogue, and its access profile at 2 threads is what
 * model_doc.md says the share is measured on, one line the two threads
 * share and nothing else (false_sharing's same_line; padded_128 shares none).
 */
static void the_tenure_probe_is_one_shared_line(void **unused)
{
	const struct kernel_family *probe = NULL;
	unsigned int nr = 0, index = 0;
	struct access_profile p = { 0 };
	struct kernel_config cfg;

	(void)unused;
	for (unsigned int i = 0; i < catalog_size; i++)
		for (unsigned int v = 0; v < catalog[i]->nr_variants; v++)
			if (catalog[i]->variants[v].tenure_probe) {
				probe = catalog[i];
				index = v;
				nr++;
			}
	assert_int_equal(nr, 1);
	assert_string_equal(probe->name, "false_sharing");
	assert_string_equal(probe->variants[index].name, "same_line");
	kernel_config_defaults(probe, &cfg);
	cfg.variant = index;
	cfg.nr_threads = 2;
	probe->access(&cfg, &p);
	assert_int_equal(p.nr_lines, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(has_pinned_already_set_sweep_verifies),
		cmocka_unit_test(counter_access_by_hand),
		cmocka_unit_test(has_pinned_one_thread_finds_the_flag_clear_as_planned),
		cmocka_unit_test(has_pinned_dropped_call_fails_at_any_already_set),
		cmocka_unit_test(last_nidpid_one_writer_never_retries),
		cmocka_unit_test(last_nidpid_readers_verify),
		cmocka_unit_test(last_nidpid_shares_are_fractions),
		cmocka_unit_test(racy_variants_catch_a_missing_update_alone),
		cmocka_unit_test(counter_reads_verify),
		cmocka_unit_test(false_sharing_locked_update_verifies),
		cmocka_unit_test(gup_defaults_are_pin_fasts),
		cmocka_unit_test(before_and_after_are_both_locked_or_both_plain),
		cmocka_unit_test(every_family_allocates_its_shared_state_through_the_hook),
		cmocka_unit_test(has_pinned_access_at_any_already_set),
		cmocka_unit_test(last_nidpid_access_with_readers),
		cmocka_unit_test(the_transfer_probe_is_the_ping_pongs_store_load),
		cmocka_unit_test(the_tenure_probe_is_one_shared_line),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
