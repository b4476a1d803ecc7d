// SPDX-License-Identifier: GPL-2.0-only
/*
 * The kernels' numbers against counts worked out by hand from each
 * kernel's definition, never from its code: the writes a variant makes
 * (seen by the hooked atomics of tests/instrumented/), the metrics verify
 * reports, the access profiles the model reads, and verify itself told a
 * wrong count. Each expected value says in its comment how it was
 * counted. A survivor of the generated mutants here is a number the
 * report or the model prints that nothing checked.
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

#include "catalog.h"
#include "drive.h"

#define HOOKED_ATOMICS_DEFINITIONS
#include "instrumented/atomics.h"

/* gup's flag, as the mm keeps it (kernels/gup/gup_internal.h) */
#define GUP_MMF_HAS_PINNED_BIT (1UL << 28)

/*
 * The writes the threads make, by what they write: a store of 1 to an
 * int is the has-pinned flag's atomic_set(), an or of MMF_HAS_PINNED its
 * set_bit(); every other write is counted by kind only.
 */
static atomic_ulong int_stores_of_one, has_pinned_bit_sets;
static atomic_ulong writes_of_kind[NR_ATOMIC_WRITES];

void atomic_hook(enum atomic_write kind, void *ptr, size_t size,
		 unsigned long value)
{
	(void)ptr;
	if (kind == ATOMIC_STORE && size == sizeof(int) && value == 1)
		atomic_fetch_add(&int_stores_of_one, 1);
	if (kind == ATOMIC_FETCH_OR && value == GUP_MMF_HAS_PINNED_BIT)
		atomic_fetch_add(&has_pinned_bit_sets, 1);
	atomic_fetch_add(&writes_of_kind[kind], 1);
}

static void reset_writes(void *arg)
{
	(void)arg;
	atomic_store(&int_stores_of_one, 0);
	atomic_store(&has_pinned_bit_sets, 0);
	for (unsigned int k = 0; k < NR_ATOMIC_WRITES; k++)
		atomic_store(&writes_of_kind[k], 0);
}

struct writes_seen {
	unsigned long flag_stores;
	unsigned long flag_bit_sets;
	unsigned long of_kind[NR_ATOMIC_WRITES];
};

static void note_writes(void *arg)
{
	struct writes_seen *seen = arg;

	seen->flag_stores = atomic_load(&int_stores_of_one);
	seen->flag_bit_sets = atomic_load(&has_pinned_bit_sets);
	for (unsigned int k = 0; k < NR_ATOMIC_WRITES; k++)
		seen->of_kind[k] = atomic_load(&writes_of_kind[k]);
}

/* "name=value" pairs, NULL-terminated, over the family's defaults. */
static const struct kernel_family *configure(const char *family, struct kernel_config *cfg,
					     const char *variant, unsigned int nr_threads,
					     const char *const *settings)
{
	const struct kernel_family *f = catalog_find(family);
	int v;

	assert_non_null(f);
	v = catalog_variant_index(f, variant);
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
		if (kernel_param_parse(&f->params[p], eq + 1, &cfg->param[p], err, sizeof(err)))
			fail_msg("%s: %s", settings[i], err);
	}
	return f;
}

static double metric(const struct kernel_metrics *m, const char *name)
{
	for (unsigned int i = 0; i < m->nr; i++)
		if (!strcmp(m->m[i].name, name))
			return m->m[i].value;
	fail_msg("no metric %s", name);
	return -1;
}

/* One run through the driver, which verifies; it must pass. */
static void drive(const char *family, const char *variant, unsigned int nr_threads,
		  const char *const *settings, uint64_t nr_ops,
		  struct kernel_metrics *metrics, struct writes_seen *seen)
{
	struct kernel_drive_hooks hooks = {
		.before_threads = reset_writes, .after_threads = note_writes, .arg = seen,
	};
	struct kernel_config cfg;
	const struct kernel_family *f = configure(family, &cfg, variant, nr_threads, settings);
	char err[512];

	memset(metrics, 0, sizeof(*metrics));
	if (kernel_drive(f, &cfg, nr_ops, seen ? &hooks : NULL, metrics, err, sizeof(err)))
		fail_msg("%s/%s, %u threads, %llu ops: %s", family, variant, nr_threads,
			 (unsigned long long)nr_ops, err);
}

struct worker {
	pthread_t tid;
	const struct kernel_variant *variant;
	void *state;
	unsigned int thread;
	uint64_t nr_ops;
	pthread_barrier_t *start;
};

static void *worker_main(void *arg)
{
	struct worker *w = arg;

	pthread_barrier_wait(w->start);
	w->variant->run(w->state, w->thread, w->nr_ops);
	return NULL;
}

#define MAX_WORKERS 4

/*
 * Runs ran[t] operations on thread t, then verify told told[t]: returns
 * verify's answer and its message in msg.
 */
static int verify_told(const char *family, const char *variant, unsigned int nr_threads,
		       const char *const *settings, const uint64_t *ran,
		       const uint64_t *told, char *msg, size_t msglen)
{
	struct kernel_config cfg;
	const struct kernel_family *f = configure(family, &cfg, variant, nr_threads, settings);
	struct worker w[MAX_WORKERS];
	struct kernel_metrics metrics = { 0 };
	pthread_barrier_t start;
	char err[256];
	void *state;
	int ret;

	assert_true(nr_threads <= MAX_WORKERS);
	state = f->create(&cfg, err, sizeof(err));
	if (!state)
		fail_msg("%s: create: %s", family, err);
	pthread_barrier_init(&start, NULL, nr_threads);
	for (unsigned int t = 0; t < nr_threads; t++) {
		w[t] = (struct worker){ .variant = &f->variants[cfg.variant], .state = state,
					.thread = t, .nr_ops = ran[t], .start = &start };
		assert_int_equal(pthread_create(&w[t].tid, NULL, worker_main, &w[t]), 0);
	}
	for (unsigned int t = 0; t < nr_threads; t++)
		pthread_join(w[t].tid, NULL);
	pthread_barrier_destroy(&start);
	msg[0] = 0;
	ret = f->verify(state, &cfg, told, &metrics, msg, msglen);
	f->destroy(state);
	return ret;
}

/* verify told one operation more, or one less, than ran fails, saying why. */
static void assert_verify_refuses(const char *family, const char *variant,
				  unsigned int nr_threads, const char *const *settings,
				  uint64_t nr_ops, const char *says)
{
	uint64_t ran[MAX_WORKERS], told[MAX_WORKERS];
	char msg[512];

	for (unsigned int t = 0; t < nr_threads; t++)
		ran[t] = told[t] = nr_ops;
	if (verify_told(family, variant, nr_threads, settings, ran, told, msg, sizeof(msg)))
		fail_msg("%s/%s: the right counts failed verify: %s", family, variant, msg);
	for (int delta = -1; delta <= 1; delta += 2) {
		for (unsigned int wrong = 0; wrong < nr_threads; wrong++) {
			for (unsigned int t = 0; t < nr_threads; t++)
				told[t] = nr_ops + (t == wrong ? (uint64_t)(int64_t)delta : 0);
			if (!verify_told(family, variant, nr_threads, settings, ran, told,
					 msg, sizeof(msg)))
				fail_msg("%s/%s: verify passed thread %u told %+d operation",
					 family, variant, wrong, delta);
			if (!strstr(msg, says))
				fail_msg("%s/%s: verify's message \"%s\" does not say \"%s\"",
					 family, variant, msg, says);
		}
	}
}

static void profile_of(const char *family, const char *variant, unsigned int nr_threads,
		       const char *const *settings, struct access_profile *p)
{
	struct kernel_config cfg;
	const struct kernel_family *f = configure(family, &cfg, variant, nr_threads, settings);

	memset(p, 0, sizeof(*p));
	assert_non_null(f->access);
	f->access(&cfg, p);
}

/* The line whose name starts with prefix; it must be there, once. */
static const struct line_access *line_named(const struct access_profile *p,
					    const char *prefix)
{
	const struct line_access *found = NULL;

	for (unsigned int i = 0; i < p->nr_lines; i++) {
		if (strncmp(p->lines[i].line, prefix, strlen(prefix)))
			continue;
		if (found)
			fail_msg("two lines named \"%s...\"", prefix);
		found = &p->lines[i];
	}
	if (!found)
		fail_msg("no line named \"%s...\"", prefix);
	return found;
}

#define assert_near(got, want) assert_float_equal((got), (want), 1e-12)

/* ------------------------------------------------------------------ gup */

/*
 * The has-pinned flag's writes, one thread pinning its own 1 MiB buffer
 * of 4K pages (256 pages) 600 times: passes of 256, 256 and 88 pages.
 * store_always stores the flag on every call: 600 calls a page at a
 * time; 4 + 4 + 2 = 10 calls of 64; 3 calls of the whole buffer.
 * read_then_set stores it once, on the first call, which finds it clear;
 * test_then_set_bit never stores it and sets its bit once.
 */
static void gup_flag_writes_per_call(void **unused)
{
	static const struct {
		const char *pages_per_call;
		unsigned long calls;
	} calls[] = { { "pages_per_call=1", 600 }, { "pages_per_call=64", 10 },
		      { "pages_per_call=0", 3 } };

	(void)unused;
	for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]); i++) {
		const char *const settings[] = { "page_size=4k", "buffer_mib=1",
						 calls[i].pages_per_call, NULL };
		struct kernel_metrics m;
		struct writes_seen seen;

		drive("gup", "store_always", 1, settings, 600, &m, &seen);
		if (seen.flag_stores != calls[i].calls || seen.flag_bit_sets)
			fail_msg("store_always, %s: %lu flag stores and %lu bit sets, expected %lu and 0",
				 calls[i].pages_per_call, seen.flag_stores, seen.flag_bit_sets,
				 calls[i].calls);
		drive("gup", "read_then_set", 1, settings, 600, &m, &seen);
		if (seen.flag_stores != 1 || seen.flag_bit_sets)
			fail_msg("read_then_set, %s: %lu flag stores and %lu bit sets, expected 1 and 0",
				 calls[i].pages_per_call, seen.flag_stores, seen.flag_bit_sets);
		drive("gup", "test_then_set_bit", 1, settings, 600, &m, &seen);
		if (seen.flag_stores || seen.flag_bit_sets != 1)
			fail_msg("test_then_set_bit, %s: %lu flag stores and %lu bit sets, expected 0 and 1",
				 calls[i].pages_per_call, seen.flag_stores, seen.flag_bit_sets);
	}
}

/*
 * Two threads with private buffers: store_always stores on each of both
 * threads' calls; the readers store at most once each (both may find the
 * flag clear at their first call), never on a later call.
 */
static void gup_flag_writes_with_two_pinners(void **unused)
{
	const char *const settings[] = { "page_size=4k", "buffer_mib=1", "mode=private", NULL };
	struct kernel_metrics m;
	struct writes_seen seen;

	(void)unused;
	drive("gup", "store_always", 2, settings, 300, &m, &seen);
	assert_int_equal(seen.flag_stores, 2 * 300);
	drive("gup", "read_then_set", 2, settings, 300, &m, &seen);
	assert_in_range(seen.flag_stores, 1, 2);
	drive("gup", "test_then_set_bit", 2, settings, 300, &m, &seen);
	assert_int_equal(seen.flag_stores, 0);
	assert_in_range(seen.flag_bit_sets, 1, 2);
}

/*
 * The CMA lookups gup's verify expects and reports (longterm_checks),
 * counted by hand. A 4 MiB buffer of 2M pages is two THPs (pages 0-511,
 * 512-1023); 5 MiB adds 256 4K pages (1024-1279). The second pass looks
 * up every page handed out; the walk looks up a 4K page once and a THP
 * once per call that grabs it, however many of its pages the call takes.
 */
static void gup_longterm_lookups_by_hand(void **unused)
{
	static const struct {
		const char *longterm, *page_size, *buffer_mib, *pages_per_call;
		uint64_t ops;
		double lookups;
	} rows[] = {
		/* 1024 + 300 pages: 16 calls of 64, each in one THP; then 5 calls */
		{ "in_walk", "2m", "4", "64", 1024 + 300, 16 + 5 },
		/* [0, 1000) grabs both THPs, [1000, 1024) the second again */
		{ "in_walk", "2m", "4", "1000", 1024, 2 + 1 },
		/* the whole buffer per call: one grab per THP, 3 passes */
		{ "in_walk", "2m", "4", "0", 3 * 1024, 3 * 2 },
		/* a page per call: every page is a grab of its own */
		{ "in_walk", "2m", "4", "1", 700, 700 },
		/* [0, 1000): 2; [1000, 1280): the second THP, then 256 4K pages */
		{ "in_walk", "2m", "5", "1000", 1280, 2 + 1 + 256 },
		/* calls of 768: [0, 768) 2, [768, 1280) 1 + 256; [0, 720) 2 */
		{ "in_walk", "2m", "5", "768", 1280 + 720, 2 + 257 + 2 },
		{ "in_walk", "4k", "4", "64", 1500, 1500 },
		{ "second_pass", "2m", "4", "64", 1500, 1500 },
		{ "second_pass", "2m", "5", "1000", 1280, 1280 },
		{ "none", "2m", "4", "64", 1500, 0 },
		{ "none", "4k", "4", "1", 700, 0 },
	};

	(void)unused;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		char longterm[64], page_size[64], buffer[64], per_call[64];
		const char *const settings[] = { longterm, page_size, buffer, per_call, NULL };
		struct kernel_metrics m;
		double got;

		snprintf(longterm, sizeof(longterm), "longterm=%s", rows[i].longterm);
		snprintf(page_size, sizeof(page_size), "page_size=%s", rows[i].page_size);
		snprintf(buffer, sizeof(buffer), "buffer_mib=%s", rows[i].buffer_mib);
		snprintf(per_call, sizeof(per_call), "pages_per_call=%s", rows[i].pages_per_call);
		drive("gup", "read_then_set", 1, settings, rows[i].ops, &m, NULL);
		got = metric(&m, "longterm_checks");
		if (got != rows[i].lookups)
			fail_msg("row %zu (%s, %s, %s MiB, %s a call, %llu pages): %g CMA lookups, expected %g",
				 i, rows[i].longterm, rows[i].page_size, rows[i].buffer_mib,
				 rows[i].pages_per_call, (unsigned long long)rows[i].ops, got,
				 rows[i].lookups);
		assert_int_equal(metric(&m, "longterm_rejects"), 0);
		assert_int_equal(metric(&m, "longterm_migrations"), 0);
		assert_int_equal(metric(&m, "seq_retries"), 0);
		assert_int_equal(metric(&m, "recheck_failures"), 0);
		assert_int_equal(metric(&m, "slow_path_calls"), 0);
		assert_int_equal(metric(&m, "writer_changes"), 0);
	}
}

/*
 * cma_percent puts floor(n x percent / 100) of n folios in CMA, spread
 * evenly; a longterm pin moves each of them out once, in either place
 * the check runs. 256 4K folios at 30%: 76; two THPs at 50%: 1. Without
 * FOLL_LONGTERM nothing moves.
 */
static void gup_cma_folios_move_once(void **unused)
{
	static const struct {
		const char *longterm, *page_size, *buffer_mib, *cma_percent;
		double migrations;
	} rows[] = {
		{ "in_walk", "4k", "1", "30", 76 },
		{ "second_pass", "4k", "1", "30", 76 },
		{ "second_pass", "4k", "1", "100", 256 },
		{ "in_walk", "2m", "4", "50", 1 },
		{ "second_pass", "2m", "4", "100", 2 },
		{ "none", "4k", "1", "30", 0 },
	};

	(void)unused;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		char longterm[64], page_size[64], buffer[64], cma[64];
		const char *const settings[] = { longterm, page_size, buffer, cma,
						 "pages_per_call=64", NULL };
		struct kernel_metrics m;

		snprintf(longterm, sizeof(longterm), "longterm=%s", rows[i].longterm);
		snprintf(page_size, sizeof(page_size), "page_size=%s", rows[i].page_size);
		snprintf(buffer, sizeof(buffer), "buffer_mib=%s", rows[i].buffer_mib);
		snprintf(cma, sizeof(cma), "cma_percent=%s", rows[i].cma_percent);
		/* two passes over the buffer: the second finds nothing left in CMA */
		drive("gup", "store_always", 1, settings, 2 * 1024, &m, NULL);
		if (metric(&m, "longterm_migrations") != rows[i].migrations)
			fail_msg("row %zu (%s, %s, %s%% CMA): %g folios moved, expected %g", i,
				 rows[i].longterm, rows[i].page_size, rows[i].cma_percent,
				 metric(&m, "longterm_migrations"), rows[i].migrations);
		if (rows[i].migrations)
			assert_true(metric(&m, "slow_path_calls") >= 1);
		else
			assert_int_equal(metric(&m, "longterm_rejects"), 0);
	}
}

/* gup's verify told one page more or less than a thread pinned fails. */
static void gup_verify_refuses_wrong_counts(void **unused)
{
	static const char *const thp[] = { "pages_per_call=64", NULL };
	static const char *const small[] = { "page_size=4k", "mode=shared", "buffer_mib=1",
					     "longterm=in_walk", NULL };

	(void)unused;
	assert_verify_refuses("gup", "read_then_set", 1, thp, 700, "expected");
	assert_verify_refuses("gup", "store_always", 2, small, 300, "expected");
}

/*
 * gup's access profile per page, from its definition (the comment above
 * gup_access()): a call's flag update and two seqcount reads on the mm's
 * line; per 4K page 3 locked RMWs to grab and 2 to put on its own line;
 * per THP grab 3 and per THP put (all 512 pages at once) 3; each CPU's
 * NR_FOLL_PIN_* diff folds into the two shared stat lines when it passes
 * 125, i.e. every 126 pins of one page (1/126 per page), every 2 grabs
 * of 64 (1/128), and on every THP put of 512 (1/512).
 */
static void gup_access_by_hand(void **unused)
{
	static const char *const defaults[] = { NULL };
	static const char *const small_private_64[] = { "page_size=4k", "pages_per_call=64", NULL };
	static const char *const small_shared[] = { "page_size=4k", "mode=shared", NULL };
	static const char *const thp_shared_64[] = { "mode=shared", "pages_per_call=64", NULL };
	static const char *const thp_shared_whole[] = { "mode=shared", "pages_per_call=0", NULL };
	static const char *const thp_private_1000[] = { "pages_per_call=1000", NULL };
	static const char *const thp_shared_big[] = { "mode=shared", "buffer_mib=512", NULL };
	struct access_profile p;

	(void)unused;
	/* pin_fast: 2M pages, private, a page per call */
	profile_of("gup", "store_always", 2, defaults, &p);
	assert_int_equal(p.nr_lines, 3);
	assert_near(line_named(&p, "mm line")->reads, 2);
	assert_near(line_named(&p, "mm line")->stores, 1);
	assert_near(line_named(&p, "mm line")->locked, 0);
	assert_near(line_named(&p, "vm_node_stat")->locked, 1.0 / 126 + 1.0 / 512);
	assert_near(line_named(&p, "node vm_stat")->locked, 1.0 / 126 + 1.0 / 512);
	assert_near(p.private_locked, 3 + 3.0 / 512);
	assert_near(p.cold_transfers, 0);
	assert_int_equal(line_named(&p, "vm_node_stat")->shared_by, LINE_SHARED_BY_ALL);

	/* read_then_set reads the flag instead: 3 reads per call, no store */
	profile_of("gup", "read_then_set", 2, small_private_64, &p);
	assert_int_equal(p.nr_lines, 3);
	assert_near(line_named(&p, "mm line")->reads, 3.0 / 64);
	assert_near(line_named(&p, "mm line")->stores, 0);
	assert_near(line_named(&p, "vm_node_stat")->locked, 2.0 / 126);
	assert_near(line_named(&p, "node vm_stat")->locked, 2.0 / 126);
	assert_near(p.private_locked, 5);
	assert_near(p.cold_transfers, 0);

	/*
	 * test_then_set_bit reads mm->flags, a line of its own. Shared 4K
	 * pages: the previous pinner of a page was one of the 3 others with
	 * probability 3/4, a transfer to grab it and one to put it.
	 */
	profile_of("gup", "test_then_set_bit", 4, small_shared, &p);
	assert_int_equal(p.nr_lines, 4);
	assert_near(line_named(&p, "mm line")->reads, 2);
	assert_near(line_named(&p, "mm line")->stores, 0);
	assert_near(line_named(&p, "mm->flags")->reads, 1);
	assert_near(line_named(&p, "mm->flags")->stores + line_named(&p, "mm->flags")->locked, 0);
	assert_near(p.cold_transfers, 2 * 3.0 / 4);
	assert_near(p.private_locked, 5);
	profile_of("gup", "test_then_set_bit", 1, small_shared, &p);
	assert_near(p.cold_transfers, 0);

	/*
	 * Shared THPs, 2 threads in 2 THPs (4 MiB): the other thread is in
	 * this THP half the time. Calls of 64 pages: a grab per 64 pages, a
	 * put per 512; the head's line takes the grab's cmpxchg and
	 * referenced bit and the put's two, the pincount line one of each.
	 */
	profile_of("gup", "store_always", 2, thp_shared_64, &p);
	assert_int_equal(p.nr_lines, 5);
	assert_near(line_named(&p, "mm line")->reads, 2.0 / 64);
	assert_near(line_named(&p, "mm line")->stores, 1.0 / 64);
	assert_near(line_named(&p, "vm_node_stat")->locked, 1.0 / 128 + 1.0 / 512);
	assert_near(line_named(&p, "THP head")->cas, 0.5 / 64);
	assert_near(line_named(&p, "THP head")->locked, 0.5 * (1.0 / 64 + 2.0 / 512));
	assert_near(line_named(&p, "THP pincount")->locked, 0.5 * (1.0 / 64 + 1.0 / 512));
	assert_near(line_named(&p, "THP pincount")->cas, 0);
	assert_near(p.private_locked, 0);
	assert_near(p.cold_transfers, 0);

	/*
	 * 4 threads in 2 THPs: always company. The whole buffer per call
	 * (1024 pages): a grab takes all 512 pages of a THP.
	 */
	profile_of("gup", "read_then_set", 4, thp_shared_whole, &p);
	assert_near(line_named(&p, "mm line")->reads, 3.0 / 1024);
	assert_near(line_named(&p, "vm_node_stat")->locked, 2.0 / 512);
	assert_near(line_named(&p, "THP head")->cas, 1.0 / 512);
	assert_near(line_named(&p, "THP head")->locked, 3.0 / 512);
	assert_near(line_named(&p, "THP pincount")->locked, 2.0 / 512);

	/* 2 threads in 256 THPs (512 MiB), a page per call: company 1/256 */
	profile_of("gup", "read_then_set", 2, thp_shared_big, &p);
	assert_near(line_named(&p, "THP head")->cas, 1.0 / 256);
	assert_near(line_named(&p, "THP head")->locked, (1 + 2.0 / 512) / 256);
	assert_near(line_named(&p, "THP pincount")->locked, (1 + 1.0 / 512) / 256);

	/* private THPs in calls of 1000 pages: a grab takes at most 512 */
	profile_of("gup", "store_always", 2, thp_private_1000, &p);
	assert_near(line_named(&p, "mm line")->stores, 1.0 / 1000);
	assert_near(p.private_locked, 3.0 / 512 + 3.0 / 512);
	assert_near(line_named(&p, "vm_node_stat")->locked, 2.0 / 512);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(gup_flag_writes_per_call),
		cmocka_unit_test(gup_flag_writes_with_two_pinners),
		cmocka_unit_test(gup_longterm_lookups_by_hand),
		cmocka_unit_test(gup_cma_folios_move_once),
		cmocka_unit_test(gup_verify_refuses_wrong_counts),
		cmocka_unit_test(gup_access_by_hand),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
