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
#include <malloc.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include <cmocka.h>

#include "catalog.h"
#include "drive.h"
#include "gup/gup_family.h"
#include "gup/gup_internal.h"
#include "gup/gup_test_driver.h"

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

/*
 * Where the stores of 1 to an int went: a small open-addressed table of
 * addresses and counts (has_pinned's shared mm and its 64 fresh ones fit).
 */
#define STORE_SLOTS 1024
static pthread_mutex_t store_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
	void *addr;
	unsigned long count;
} stores_at[STORE_SLOTS];
static bool store_table_full;

/* And the stores of a long: how many at each address, and their sum. */
static struct {
	void *addr;
	unsigned long count, sum;
} long_stores_at[STORE_SLOTS];

static void note_store_at(void *addr)
{
	size_t h = ((uintptr_t)addr >> 2) % STORE_SLOTS;

	pthread_mutex_lock(&store_lock);
	for (size_t i = 0; i < STORE_SLOTS; i++, h = (h + 1) % STORE_SLOTS) {
		if (stores_at[h].addr && stores_at[h].addr != addr)
			continue;
		stores_at[h].addr = addr;
		stores_at[h].count++;
		pthread_mutex_unlock(&store_lock);
		return;
	}
	store_table_full = true;
	pthread_mutex_unlock(&store_lock);
}

static void note_long_store_at(void *addr, unsigned long value)
{
	size_t h = ((uintptr_t)addr >> 3) % STORE_SLOTS;

	pthread_mutex_lock(&store_lock);
	for (size_t i = 0; i < STORE_SLOTS; i++, h = (h + 1) % STORE_SLOTS) {
		if (long_stores_at[h].addr && long_stores_at[h].addr != addr)
			continue;
		long_stores_at[h].addr = addr;
		long_stores_at[h].count++;
		long_stores_at[h].sum += value;
		pthread_mutex_unlock(&store_lock);
		return;
	}
	store_table_full = true;
	pthread_mutex_unlock(&store_lock);
}

/* Whether some address got exactly count stores of a long adding up to sum. */
static bool long_stores_seen(unsigned long count, unsigned long sum)
{
	bool seen = false;

	pthread_mutex_lock(&store_lock);
	for (size_t i = 0; i < STORE_SLOTS; i++)
		seen |= long_stores_at[i].addr && long_stores_at[i].count == count &&
			long_stores_at[i].sum == sum;
	pthread_mutex_unlock(&store_lock);
	return seen;
}

void atomic_hook(enum atomic_write kind, void *ptr, size_t size,
		 unsigned long value)
{
	if (kind == ATOMIC_STORE && size == sizeof(int) && value == 1) {
		atomic_fetch_add(&int_stores_of_one, 1);
		note_store_at(ptr);
	}
	if (kind == ATOMIC_STORE && size == sizeof(long))
		note_long_store_at(ptr, value);
	if (kind == ATOMIC_FETCH_OR && value == GUP_MMF_HAS_PINNED_BIT)
		atomic_fetch_add(&has_pinned_bit_sets, 1);
	atomic_fetch_add(&writes_of_kind[kind], 1);
}

static void reset_writes(void *arg)
{
	(void)arg;
	atomic_store(&int_stores_of_one, 0);
	atomic_store(&has_pinned_bit_sets, 0);
	pthread_mutex_lock(&store_lock);
	memset(stores_at, 0, sizeof(stores_at));
	memset(long_stores_at, 0, sizeof(long_stores_at));
	store_table_full = false;
	pthread_mutex_unlock(&store_lock);
	for (unsigned int k = 0; k < NR_ATOMIC_WRITES; k++)
		atomic_store(&writes_of_kind[k], 0);
}

struct writes_seen {
	unsigned long flag_stores;
	unsigned long flag_bit_sets;
	unsigned long of_kind[NR_ATOMIC_WRITES];
	/* the stores of 1: to how many addresses, and most at one */
	unsigned long store_addresses, most_stores_at_one;
};

static void note_writes(void *arg)
{
	struct writes_seen *seen = arg;

	seen->flag_stores = atomic_load(&int_stores_of_one);
	seen->flag_bit_sets = atomic_load(&has_pinned_bit_sets);
	for (unsigned int k = 0; k < NR_ATOMIC_WRITES; k++)
		seen->of_kind[k] = atomic_load(&writes_of_kind[k]);
	seen->store_addresses = 0;
	seen->most_stores_at_one = 0;
	pthread_mutex_lock(&store_lock);
	assert_false(store_table_full);
	for (size_t i = 0; i < STORE_SLOTS; i++) {
		if (!stores_at[i].addr)
			continue;
		seen->store_addresses++;
		if (stores_at[i].count > seen->most_stores_at_one)
			seen->most_stores_at_one = stores_at[i].count;
	}
	pthread_mutex_unlock(&store_lock);
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
static int verify_told_metrics(const char *family, const char *variant,
			       unsigned int nr_threads, const char *const *settings,
			       const uint64_t *ran, const uint64_t *told,
			       struct kernel_metrics *metrics, char *msg, size_t msglen)
{
	struct kernel_config cfg;
	const struct kernel_family *f = configure(family, &cfg, variant, nr_threads, settings);
	struct worker w[MAX_WORKERS];
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
	memset(metrics, 0, sizeof(*metrics));
	ret = f->verify(state, &cfg, told, metrics, msg, msglen);
	f->destroy(state);
	return ret;
}

static int verify_told(const char *family, const char *variant, unsigned int nr_threads,
		       const char *const *settings, const uint64_t *ran,
		       const uint64_t *told, char *msg, size_t msglen)
{
	struct kernel_metrics metrics;

	return verify_told_metrics(family, variant, nr_threads, settings, ran, told,
				   &metrics, msg, msglen);
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
 * the check runs. 256 4K folios at 30%: 76; two THPs at 50%: 1; 18 THPs
 * (36 MiB, their pageblocks' bits in two words of the section's bitmap)
 * at 50%: 9, the last the 18th. Without FOLL_LONGTERM nothing moves.
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
		{ "in_walk", "2m", "36", "50", 9 },
		{ "second_pass", "2m", "36", "50", 9 },
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
		/* a pass over the buffer or more: the second finds nothing left in CMA */
		drive("gup", "store_always", 1, settings, 18 * 512, &m, NULL);
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
 * One thread's right run of 300 gup calls at settings, then tamper(st,
 * arg) tells verify something else; returns verify's status, its message
 * in msg.
 */
static int verify_after(const char *const *settings,
			void (*tamper)(struct gup_family_state *st, long arg), long arg,
			char *msg, size_t len)
{
	struct kernel_config cfg;
	const struct kernel_family *f = configure("gup", &cfg, "store_always", 1, settings);
	struct gup_family_state *st;
	struct kernel_metrics m = { 0 };
	uint64_t ops = 300;
	char err[256];
	int ret;

	st = f->create(&cfg, err, sizeof(err));
	if (!st)
		fail_msg("%s", err);
	f->variants[cfg.variant].run(st, 0, ops);
	tamper(st, arg);
	msg[0] = '\0';
	ret = f->verify(st, &cfg, &ops, &m, msg, len);
	f->destroy(st);
	return ret;
}

static void add_cma_lookups_due(struct gup_family_state *st, long delta)
{
	st->threads[0].cma_lookups_due += (uint64_t)(int64_t)delta;
}

static void add_pins_acquired(struct gup_family_state *st, long delta)
{
	st->threads[0].task.node_stat_diff[GUP_NR_FOLL_PIN_ACQUIRED] += delta;
}

/*
 * gup's verify refuses a count of CMA lookups one off what the calls were
 * due: longterm=in_walk, no CMA and no writer, so the count must be
 * exact. The run is right; the lookups it was due are then told one more,
 * or one fewer. Catches gup_verify() going on (returning 0) after
 * check_longterm_checks() failed.
 */
static void gup_verify_refuses_cma_lookups_one_off(void **unused)
{
	static const char *const small[] = { "page_size=4k", "buffer_mib=1",
					     "longterm=in_walk", NULL };
	char msg[512];

	(void)unused;
	for (long delta = -1; delta <= 1; delta++) {
		int ret = verify_after(small, add_cma_lookups_due, delta, msg, sizeof(msg));

		if (delta) {
			assert_int_equal(ret, -1);
			assert_non_null(strstr(msg, "CMA checks for 300 pages"));
		} else if (ret) {
			fail_msg("the right lookups failed verify: %s", msg);
		}
	}
}

/*
 * The message of that refusal with longterm=none and CMA: no lookup is
 * due, one is told, and none is made. Without FOLL_LONGTERM the count is
 * exact whatever the CMA share: "expected 1", not "at least 1". Catches
 * the "at least" of check_longterm_checks()'s message given to
 * "longterm || !exact".
 */
static void gup_verify_says_exact_without_longterm(void **unused)
{
	static const char *const none[] = { "page_size=4k", "buffer_mib=1", "longterm=none",
					    "cma_percent=50", NULL };
	char msg[512];

	(void)unused;
	assert_int_equal(verify_after(none, add_cma_lookups_due, 1, msg, sizeof(msg)), -1);
	if (!strstr(msg, "0 CMA checks for 300 pages pinned with longterm=none, expected 1"))
		fail_msg("\"%s\"", msg);
}

/*
 * gup's verify refuses a node's pin counter one off the pins counted: a
 * right run whose thread's unfolded diff of NR_FOLL_PIN_ACQUIRED is then
 * told one more. Catches gup_verify() passing when check_node_stats()
 * alone fails ("||" after it as "&&").
 */
static void gup_verify_refuses_node_stats_one_off(void **unused)
{
	static const char *const small[] = { "page_size=4k", "buffer_mib=1", NULL };
	char msg[512];

	(void)unused;
	assert_int_equal(verify_after(small, add_pins_acquired, 1, msg, sizeof(msg)), -1);
	if (!strstr(msg, "nr_foll_pin_acquired"))
		fail_msg("\"%s\"", msg);
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

/*
 * writer=on starts the page-table writer with the state and stops it in
 * verify, which reports its changes; writer=off starts none. The writer
 * makes its first change as soon as its thread runs, so some run of a
 * few (at most 50) sees one, however busy the machine.
 */
static void gup_writer_runs_only_when_asked(void **unused)
{
	static const char *const on[] = { "writer=on", "page_size=4k", "buffer_mib=1",
					  "longterm=second_pass", NULL };
	static const char *const off[] = { "writer=off", "page_size=4k", "buffer_mib=1",
					   "longterm=second_pass", NULL };
	struct kernel_metrics m;
	double changes = 0;

	(void)unused;
	for (int tries = 0; tries < 50 && !changes; tries++) {
		drive("gup", "read_then_set", 1, on, 20000, &m, NULL);
		changes = metric(&m, "writer_changes");
		/* with a writer the lookups are only bounded below */
		assert_true(metric(&m, "longterm_checks") >= 20000);
	}
	assert_true(changes >= 1);
	drive("gup", "read_then_set", 1, off, 20000, &m, NULL);
	assert_int_equal(metric(&m, "writer_changes"), 0);
	assert_int_equal(metric(&m, "seq_retries"), 0);
	assert_int_equal(metric(&m, "recheck_failures"), 0);
	assert_int_equal(metric(&m, "longterm_checks"), 20000);
}

/*
 * gup's times per page are parts of the run: a thread's pins and unpins
 * take no longer than the whole run around them, so over two threads
 * get_ns_per_page + put_ns_per_page is at most twice the run's wall
 * time over the pages, and neither is negative.
 */
static void gup_times_fit_in_the_run(void **unused)
{
	static const char *const small[] = { "page_size=4k", "buffer_mib=1", NULL };
	struct kernel_metrics m;
	uint64_t t0, wall;
	double get, put;

	(void)unused;
	t0 = kernel_now_ns();
	drive("gup", "read_then_set", 2, small, 3000, &m, NULL);
	wall = kernel_now_ns() - t0;
	get = metric(&m, "get_ns_per_page");
	put = metric(&m, "put_ns_per_page");
	if (!(get > 0 && put > 0 && (get + put) * 2 * 3000 <= 2.0 * (double)wall))
		fail_msg("%g ns to pin and %g ns to unpin a page, 6000 pages in a run of %llu ns",
			 get, put, (unsigned long long)wall);
}

/*
 * The gup_test driver's samples, one thread over a buffer of 5000 4K
 * pages in calls of 128: the get loop closes a stretch once it holds
 * 2048 pages or more, after exactly 16 calls, again at 4096, and the
 * last 904 pages (7 calls and one of 8) at the end: three stretches,
 * which together span the whole get, so their ns per page weighted by
 * their pages add up to get_ns. The times in microseconds are the
 * nanoseconds truncated (ktime_us_delta()).
 */
struct driver_record {
	unsigned int samples;
	size_t stretches;
	double weighted_ns;
	bool bad;
	char why[256];
};

static struct driver_record driver_seen;

static double record_stretches(const double *values, size_t n)
{
	static const double pages[] = { 2048, 2048, 904 };

	driver_seen.stretches = n;
	driver_seen.weighted_ns = 0;
	for (size_t i = 0; i < n && i < 3; i++)
		driver_seen.weighted_ns += values[i] * pages[i];
	return 42.5;
}

static void check_sample(void *arg, unsigned int t, unsigned int combo,
			 const struct gup_test_sample *s)
{
	struct driver_record *r = arg;

	(void)combo;
	r->samples++;
	if (r->bad)
		return;
	r->bad = true;
	if (t != 0 || s->pages != 5000 || s->size != 5000 * 4096UL ||
	    s->full_size != 5000 * 4096UL)
		snprintf(r->why, sizeof(r->why), "thread %u: %lu pages, %lu of %lu bytes, expected 5000 pages of 4096",
			 t, s->pages, s->size, s->full_size);
	else if (s->get_usec != s->get_ns / 1000 || s->put_usec != s->put_ns / 1000)
		snprintf(r->why, sizeof(r->why), "get %llu us for %llu ns, put %llu us for %llu ns",
			 (unsigned long long)s->get_usec, (unsigned long long)s->get_ns,
			 (unsigned long long)s->put_usec, (unsigned long long)s->put_ns);
	else if (driver_seen.stretches != 3 ||
		 fabs(driver_seen.weighted_ns - (double)s->get_ns) > 1e-6 * (double)s->get_ns + 1)
		snprintf(r->why, sizeof(r->why), "%zu stretches whose ns x pages add up to %.1f, expected 3 adding up to get_ns %llu",
			 driver_seen.stretches, driver_seen.weighted_ns,
			 (unsigned long long)s->get_ns);
	else if (s->get_stretch_ns_per_page != 42.5)
		snprintf(r->why, sizeof(r->why), "the stretches' median is %g, not the median callback's",
			 s->get_stretch_ns_per_page);
	else
		r->bad = false;
}

static void gup_driver_samples_by_hand(void **unused)
{
	struct gup_test_ops ops = {
		.arg = &driver_seen, .median = record_stretches, .sample = check_sample,
	};
	struct gup_test_config cfg = {
		.cmd = PIN_FAST_BENCHMARK, .buffer_bytes = 5000 * 4096UL,
		.pages_per_call = 128, .repeats = 3, .threads = 1,
		.page_size = GUP_PAGES_4K, .gup_flags = FOLL_WRITE,
		.nr_combos = 1, .combos = { { .variant = GUP_READ_THEN_SET } },
	};
	struct gup_stats sum;
	uint64_t changes;
	char err[256];
	struct gup_test *t;

	(void)unused;
	memset(&driver_seen, 0, sizeof(driver_seen));
	t = gup_test_create(&cfg, &ops, err, sizeof(err));
	if (!t || gup_test_run(t, err, sizeof(err)))
		fail_msg("%s", err);
	if (driver_seen.bad)
		fail_msg("%s", driver_seen.why);
	assert_int_equal(driver_seen.samples, 3);
	assert_int_equal(gup_test_repeats(t), 3);
	gup_test_combo_paths(t, 0, &sum, &changes);
	/* 39 calls of 128 pages a repeat and one of 8 */
	assert_int_equal(sum.fast_calls, 3 * 40);
	assert_int_equal(sum.pins_acquired, 3 * 5000);
	assert_int_equal(changes, 0);
	gup_test_destroy(t);
}

/*
 * Where the walker's frames are, by hand (kernels/gup/mm.c: THPs first,
 * then the spare THPs, then movable 4K frames, then from a pageblock
 * boundary the 4K CMA frames), shown by DUMP_USER_PAGES_TEST's pfns.
 * 5 MiB of 2M pages: THPs at pfn 0 and 512, 4 spare THPs, so the tail's
 * 4K pages start at pfn 6 x 512 = 3072. 1 MiB of 4K pages all in CMA:
 * no movable folio, and as many spare 4K frames as CMA folios plus 64,
 * 320 frames before the CMA area, which starts at the next pageblock
 * boundary, pfn 512. At 30%, folio 3 is the first in CMA
 * (floor(4 x 0.3) > floor(3 x 0.3)), and folio 4 the fourth movable one.
 */
struct dumped {
	unsigned int n;
	unsigned long pfn[GUP_TEST_MAX_PAGES_TO_DUMP];
	unsigned int order[GUP_TEST_MAX_PAGES_TO_DUMP];
};

static void note_dump(void *arg, unsigned int t, const struct gup_test_page_dump *d)
{
	struct dumped *seen = arg;

	(void)t;
	if (d->slot < GUP_TEST_MAX_PAGES_TO_DUMP && !d->out_of_range) {
		seen->pfn[d->slot] = d->pfn;
		seen->order[d->slot] = d->order;
		seen->n++;
	}
}

static void gup_frames_where_the_layout_puts_them(void **unused)
{
	static const struct {
		enum gup_page_size size;
		unsigned long bytes;
		unsigned int cma_percent;
		unsigned int nr;
		unsigned int which[4];
		unsigned long pfn[4];
		unsigned int order[4];
	} rows[] = {
		{ GUP_PAGES_2M, 5UL << 20, 0, 4, { 1, 514, 1025, 1280 },
		  { 0, 513, 3072, 3072 + 255 }, { 9, 9, 0, 0 } },
		{ GUP_PAGES_4K, 1UL << 20, 100, 2, { 1, 256 }, { 512, 512 + 255 }, { 0, 0 } },
		{ GUP_PAGES_4K, 1UL << 20, 30, 3, { 1, 4, 5 }, { 0, 512, 3 }, { 0, 0, 0 } },
	};

	(void)unused;
	for (size_t r = 0; r < sizeof(rows) / sizeof(rows[0]); r++) {
		struct dumped seen = { 0 };
		struct gup_test_ops ops = { .arg = &seen, .dump_page = note_dump };
		struct gup_test_config cfg = {
			.cmd = DUMP_USER_PAGES_TEST, .buffer_bytes = rows[r].bytes,
			.pages_per_call = 64, .repeats = 1, .threads = 1,
			.page_size = rows[r].size, .gup_flags = FOLL_WRITE,
			.cma_percent = rows[r].cma_percent,
			.nr_combos = 1, .combos = { { .variant = GUP_READ_THEN_SET } },
		};
		char err[256];
		struct gup_test *t;

		for (unsigned int i = 0; i < rows[r].nr; i++)
			cfg.which_pages[i] = rows[r].which[i];
		t = gup_test_create(&cfg, &ops, err, sizeof(err));
		if (!t || gup_test_run(t, err, sizeof(err)))
			fail_msg("row %zu: %s", r, err);
		assert_int_equal(seen.n, rows[r].nr);
		for (unsigned int i = 0; i < rows[r].nr; i++)
			if (seen.pfn[i] != rows[r].pfn[i] || seen.order[i] != rows[r].order[i])
				fail_msg("row %zu: page %u is pfn %lu of order %u, expected pfn %lu of order %u",
					 r, rows[r].which[i], seen.pfn[i], seen.order[i],
					 rows[r].pfn[i], rows[r].order[i]);
		gup_test_destroy(t);
	}
}

/*
 * gup's check at rest names each way a folio or a frame can be left
 * wrong, one fault at a time, and passes again once it is undone: a
 * reference held (refcount 2), a THP's pin count, a folio mapped
 * elsewhere, a tail where a head should be, a free frame referenced,
 * an odd seqcount, a frame missing from the count.
 */
static struct gup_page *folio_at(struct gup_mm *mm, unsigned long addr)
{
	bool huge = false;
	gup_entry_t *ep = gup_leaf_entry(mm, addr, &huge);

	assert_non_null(ep);
	return pfn_to_page(mm, entry_pfn(atomic_load(ep)));
}

static void assert_at_rest_says(struct gup_mm *mm, const char *says)
{
	char msg[256] = "";

	if (!says) {
		if (gup_mm_check_at_rest(mm, msg, sizeof(msg)))
			fail_msg("at rest: %s", msg);
		return;
	}
	if (!gup_mm_check_at_rest(mm, msg, sizeof(msg)))
		fail_msg("the check at rest passed, expected \"%s\"", says);
	if (!strstr(msg, says))
		fail_msg("the check at rest said \"%s\", expected \"%s\"", msg, says);
}

static void gup_at_rest_names_each_fault(void **unused)
{
	const struct gup_layout layout = {
		.flag_update = GUP_READ_THEN_SET, .nr_buffers = 1,
		.buffer_bytes = 5UL << 20, .page_size = GUP_PAGES_2M,
	};
	char err[256];
	struct gup_mm *mm = gup_mm_create(&layout, err, sizeof(err));
	unsigned long start, small;
	struct gup_page *page, *thp, *free_frame;
	struct gup_task task;

	(void)unused;
	if (!mm)
		fail_msg("%s", err);
	start = gup_buffer_start(mm, 0);
	small = start + (4UL << 20) + 5 * GUP_PAGE_SIZE;
	gup_task_init(&task, mm);
	assert_at_rest_says(mm, NULL);

	/* a 4K page got and not put back */
	assert_int_equal(get_user_pages_fast(&task, small, 1, FOLL_WRITE, &page), 1);
	assert_at_rest_says(mm, "refcount 2, pincount 0");
	put_user_pages(&task, &page, 1);
	assert_at_rest_says(mm, NULL);

	/* a THP whose pin count alone is off */
	thp = folio_at(mm, start + GUP_HPAGE_SIZE);
	atomic_store(folio_pincount_ptr(thp), 1);
	assert_at_rest_says(mm, "refcount 1, pincount 1");
	atomic_store(folio_pincount_ptr(thp), 0);
	assert_at_rest_says(mm, NULL);

	/* a folio that says it is mapped elsewhere */
	page = folio_at(mm, small);
	atomic_store(&page->mapped_at, small + GUP_PAGE_SIZE);
	assert_at_rest_says(mm, "refcount 1, pincount 0, mapped at");
	atomic_store(&page->mapped_at, small);
	assert_at_rest_says(mm, NULL);

	/* a tail page where the mapping's head should be */
	page->head = thp;
	assert_at_rest_says(mm, "refcount 1, pincount 0");
	page->head = NULL;
	assert_at_rest_says(mm, NULL);

	/* a free frame someone still references */
	assert_true(mm->pools[POOL_SMALL].nr > 0);
	free_frame = pfn_to_page(mm, mm->pools[POOL_SMALL].pfns[0]);
	atomic_store(&free_frame->refcount, 1);
	assert_at_rest_says(mm, "free frame");
	atomic_store(&free_frame->refcount, 0);
	assert_at_rest_says(mm, NULL);

	/* a writer that never finished */
	atomic_fetch_add(&mm->write_protect_seq, 1);
	assert_at_rest_says(mm, "is odd");
	atomic_fetch_add(&mm->write_protect_seq, 1);
	assert_at_rest_says(mm, NULL);

	/* a frame neither mapped nor free */
	mm->nr_frames++;
	assert_at_rest_says(mm, "leaked");
	mm->nr_frames--;
	assert_at_rest_says(mm, NULL);
	gup_mm_destroy(mm);
}

/*
 * An address inside a page stands for its page, on the fast and on the
 * locked path alike: the buffer's last page asked for from its last
 * byte is that page, pinned and given back.
 */
static void gup_unaligned_start_is_its_page(void **unused)
{
	struct gup_layout layout = {
		.flag_update = GUP_READ_THEN_SET, .nr_buffers = 1,
		.buffer_bytes = 1UL << 20, .page_size = GUP_PAGES_4K,
	};
	char err[256];
	struct gup_mm *mm = gup_mm_create(&layout, err, sizeof(err));
	struct gup_page *got[2], *want;
	unsigned long last;
	struct gup_task task;

	(void)unused;
	if (!mm)
		fail_msg("%s", err);
	last = gup_buffer_start(mm, 0) + (1UL << 20) - GUP_PAGE_SIZE;
	want = folio_at(mm, last);
	gup_task_init(&task, mm);
	for (unsigned long off = 1; off < GUP_PAGE_SIZE; off = off * 3 + 1) {
		assert_int_equal(pin_user_pages(&task, last + off, 1, FOLL_WRITE, got), 1);
		assert_ptr_equal(got[0], want);
		unpin_user_pages(&task, got, 1);
		assert_int_equal(pin_user_pages_fast(&task, last + off, 1, FOLL_WRITE, got), 1);
		assert_ptr_equal(got[0], want);
		unpin_user_pages(&task, got, 1);
		assert_int_equal(get_user_pages(&task, last + off, 1, FOLL_WRITE, got), 1);
		assert_ptr_equal(got[0], want);
		put_user_pages(&task, got, 1);
	}
	/* two pages from there run past the buffer: only the last is taken */
	assert_int_equal(pin_user_pages(&task, last + 1, 2, FOLL_WRITE, got), 1);
	assert_ptr_equal(got[0], want);
	unpin_user_pages(&task, got, 1);
	assert_at_rest_says(mm, NULL);
	gup_mm_destroy(mm);

	/* a longterm pin moves the CMA folio of that page, and maps it there */
	layout.cma_percent = 100;
	mm = gup_mm_create(&layout, err, sizeof(err));
	if (!mm)
		fail_msg("%s", err);
	gup_task_init(&task, mm);
	last = gup_buffer_start(mm, 0) + (1UL << 20) - GUP_PAGE_SIZE;
	assert_int_equal(pin_user_pages(&task, last + 5, 1, FOLL_WRITE | FOLL_LONGTERM, got), 1);
	assert_true(gup_page_longterm_pinnable(got[0]));
	assert_ptr_equal(got[0], folio_at(mm, last));
	unpin_user_pages(&task, got, 1);
	assert_int_equal(task.stats.longterm_migrations, 1);
	assert_at_rest_says(mm, NULL);
	gup_mm_destroy(mm);
}

/*
 * The writer sweeps every buffer in turn: with two buffers of two THPs,
 * its third change replaces the second buffer's first THP (a folio from
 * the spares, at another pfn). Waited for, with a bound of 10 s that only
 * a writer stuck in the first buffer reaches.
 */
static void gup_writer_sweeps_every_buffer(void **unused)
{
	const struct gup_layout layout = {
		.flag_update = GUP_READ_THEN_SET, .nr_buffers = 2,
		.buffer_bytes = 4UL << 20, .page_size = GUP_PAGES_2M,
	};
	char err[256];
	struct gup_mm *mm = gup_mm_create(&layout, err, sizeof(err));
	unsigned long second, first_pfn;
	bool huge = false, moved = false;
	uint64_t deadline;

	(void)unused;
	if (!mm)
		fail_msg("%s", err);
	second = gup_buffer_start(mm, 1);
	first_pfn = entry_pfn(atomic_load(gup_leaf_entry(mm, second, &huge)));
	assert_true(huge);
	if (gup_writer_start(mm, 0, err, sizeof(err)))
		fail_msg("%s", err);
	deadline = kernel_now_ns() + 10000000000ULL;
	while (!moved && kernel_now_ns() < deadline) {
		/* NULL while the writer has the entry cleared, between frames */
		gup_entry_t *leaf = gup_leaf_entry(mm, second, &huge);
		uint64_t e = leaf ? atomic_load(leaf) : 0;

		moved = entry_present(e) && entry_pfn(e) != first_pfn;
		if (!moved)
			sched_yield();
	}
	assert_true(gup_writer_stop(mm) >= 1);
	if (!moved)
		fail_msg("the writer never replaced the second buffer's first THP");
	assert_at_rest_says(mm, NULL);
	gup_mm_destroy(mm);
}

/*
 * gup's mode is how many buffers its mm has: one every thread pins in
 * (shared, as gup_test -a without -t), or one per thread (private, as
 * will-it-scale's pin_fast). Three threads: buffers 0 only, or 0 to 2.
 */
static void gup_modes_make_their_buffers(void **unused)
{
	static const char *const shared[] = { "mode=shared", "buffer_mib=4", NULL };
	static const char *const private[] = { "mode=private", "buffer_mib=4", NULL };
	const char *const *modes[] = { shared, private };
	char err[256];

	(void)unused;
	for (unsigned int k = 0; k < 2; k++) {
		struct kernel_config cfg;
		const struct kernel_family *f = configure("gup", &cfg, "store_always", 3, modes[k]);
		struct gup_family_state *st = f->create(&cfg, err, sizeof(err));

		if (!st)
			fail_msg("%s", err);
		assert_true(gup_buffer_start(st->mm, 0) != 0);
		for (unsigned int b = 1; b < 4; b++)
			assert_int_equal(gup_buffer_start(st->mm, b) != 0, k == 1 && b < 3);
		f->destroy(st);
	}
}

/* ----------------------------------------------------------- has_pinned */

/*
 * already_set=25, one thread, 8192 calls: the pattern sets exactly
 * round(25% of 4096) = 1024 bits per 4096 calls, so 2048 calls go to the
 * shared mm and 6144 to fresh ones, 96 to each of the 64. Every fresh
 * call finds the flag clear (it is cleared when the mm goes back), and
 * the first shared call: 6145 of 8192. pin_work=3: three locked adds a
 * call.
 */
static void has_pinned_counts_at_a_quarter(void **unused)
{
	static const char *const quarter[] = { "already_set=25", "pin_work=3", NULL };
	static const char *const readers[] = { "read_then_set", "test_then_set_bit",
					       "test_and_set_bit" };
	struct kernel_metrics m;
	struct writes_seen seen;

	(void)unused;
	drive("has_pinned", "store_always", 1, quarter, 8192, &m, &seen);
	assert_int_equal(seen.flag_stores, 8192);
	assert_int_equal(seen.store_addresses, 1 + 64);
	assert_int_equal(seen.most_stores_at_one, 2048);
	assert_int_equal(seen.of_kind[ATOMIC_FETCH_ADD], 3 * 8192);

	drive("has_pinned", "read_then_set", 1, quarter, 8192, &m, &seen);
	assert_int_equal(seen.flag_stores, 6145);
	assert_int_equal(seen.store_addresses, 1 + 64);
	assert_int_equal(seen.most_stores_at_one, 96);

	drive("has_pinned", "test_then_set_bit", 1, quarter, 8192, &m, &seen);
	assert_int_equal(seen.flag_stores, 0);
	assert_int_equal(seen.flag_bit_sets, 6145);

	drive("has_pinned", "set_bit_always", 1, quarter, 8192, &m, &seen);
	assert_int_equal(seen.flag_bit_sets, 8192);
	drive("has_pinned", "test_and_set_bit", 1, quarter, 8192, &m, &seen);
	assert_int_equal(seen.flag_bit_sets, 8192);

	for (size_t i = 0; i < sizeof(readers) / sizeof(readers[0]); i++) {
		drive("has_pinned", readers[i], 1, quarter, 8192, &m, &seen);
		assert_near(metric(&m, "found_clear_fraction"), 6145.0 / 8192);
	}
	drive("has_pinned", "no_flag", 1, quarter, 8192, &m, &seen);
	assert_int_equal(seen.flag_stores + seen.flag_bit_sets, 0);
	assert_int_equal(seen.of_kind[ATOMIC_FETCH_ADD], 3 * 8192);
}

/*
 * A run that ends inside the pattern (4096 + 1000 calls at 50%): the
 * calls that went to the shared mm are the stores store_always made
 * there, counted by the hook; read_then_set in the same pattern finds
 * the flag clear on every other call and on its first shared one.
 */
static void has_pinned_found_clear_matches_the_stores(void **unused)
{
	static const char *const half[] = { "already_set=50", "flag_line=alone", NULL };
	static const char *const all_clear[] = { "already_set=0", NULL };
	static const char *const all_set[] = { "already_set=100", NULL };
	const uint64_t calls = 4096 + 1000;
	struct kernel_metrics m;
	struct writes_seen seen;
	unsigned long shared;

	(void)unused;
	drive("has_pinned", "store_always", 1, half, calls, &m, &seen);
	shared = seen.most_stores_at_one;
	/* 2048 of the first 4096; of the next 1000, about half */
	assert_in_range(shared, 2048 + 400, 2048 + 600);
	drive("has_pinned", "read_then_set", 1, half, calls, &m, &seen);
	assert_int_equal(seen.flag_stores, calls - shared + 1);
	assert_near(metric(&m, "found_clear_fraction"), (double)(calls - shared + 1) / calls);
	drive("has_pinned", "test_and_set_bit", 1, half, calls, &m, &seen);
	assert_near(metric(&m, "found_clear_fraction"), (double)(calls - shared + 1) / calls);

	/* every call in a fresh mm: each finds the flag clear */
	drive("has_pinned", "read_then_set", 1, all_clear, 700, &m, &seen);
	assert_near(metric(&m, "found_clear_fraction"), 1);
	assert_int_equal(seen.store_addresses, 64);
	/* every call in the shared mm: the first finds it clear */
	drive("has_pinned", "test_then_set_bit", 1, all_set, 700, &m, &seen);
	assert_near(metric(&m, "found_clear_fraction"), 1.0 / 700);
	assert_int_equal(seen.flag_bit_sets, 1);
	/* two threads: each may find the shared flag clear once, no more */
	drive("has_pinned", "read_then_set", 2, all_set, 700, &m, &seen);
	assert_in_range(seen.flag_stores, 1, 2);
	assert_true(metric(&m, "found_clear_fraction") <= 2.0 / 1400 + 1e-12);
}

static void has_pinned_verify_refuses_wrong_counts(void **unused)
{
	static const char *const quarter[] = { "already_set=25", NULL };
	static const char *const no_pins[] = { "pin_work=0", NULL };

	(void)unused;
	assert_verify_refuses("has_pinned", "read_then_set", 2, quarter, 1000, "expected");
	assert_verify_refuses("has_pinned", "store_always", 1, no_pins, 1000,
			      "two reads per call");
}

/* -------------------------------------------------- counter, last_nidpid */

/*
 * Every counter variant's verify refuses a count one off, alone and with
 * two threads (shared_plain only alone: with two, fewer counted than done
 * is its measurement, lost updates).
 */
static void counter_verify_refuses_wrong_counts(void **unused)
{
	static const char *const variants[] = { "shared_atomic", "percpu_padded",
						"percpu_packed", "percpu_padded_locked",
						"percpu_packed_locked", "percpu_batched" };
	static const char *const reading[] = { "read_every=7", "batch=32", NULL };

	(void)unused;
	for (size_t v = 0; v < sizeof(variants) / sizeof(variants[0]); v++) {
		assert_verify_refuses("counter", variants[v], 1, reading, 1000, "after");
		assert_verify_refuses("counter", variants[v], 2, reading, 1000, "after");
	}
	assert_verify_refuses("counter", "shared_plain", 1, reading, 1000, "after");
}

/*
 * What counter's readers read: a reader notes each total it reads that
 * is above the last one (the store of max_read). One thread reading
 * every 7th of 70 updates reads its own 7, 14, ... 70: ten stores adding
 * up to 385. percpu_batched reads the shared count alone, short by the
 * unfolded updates: with batch 32 it finds 0 four times, then 32 (folded
 * at the 32nd update), then 64 at the 70th: two stores, 96. Reading every
 * 8th of 64 updates, it reads right after each fold (the 32nd and the
 * 64th update fold, then read): 32 and 64 again.
 */
static void counter_reads_see_the_updates(void **unused)
{
	static const char *const exact[] = { "shared_atomic", "shared_plain", "percpu_padded",
					     "percpu_packed", "percpu_padded_locked",
					     "percpu_packed_locked" };
	static const char *const reading[] = { "read_every=7", "batch=32", NULL };
	static const char *const every_8th[] = { "read_every=8", "batch=32", NULL };
	struct kernel_metrics m;
	struct writes_seen seen;

	(void)unused;
	for (size_t v = 0; v < sizeof(exact) / sizeof(exact[0]); v++) {
		drive("counter", exact[v], 1, reading, 70, &m, &seen);
		if (!long_stores_seen(10, 385))
			fail_msg("counter/%s: no reader noted the totals 7, 14, ... 70", exact[v]);
	}
	drive("counter", "percpu_batched", 1, reading, 70, &m, &seen);
	if (!long_stores_seen(2, 32 + 64))
		fail_msg("counter/percpu_batched: no reader noted the totals 32 and 64");
	drive("counter", "percpu_batched", 1, every_8th, 64, &m, &seen);
	if (!long_stores_seen(2, 32 + 64))
		fail_msg("counter/percpu_batched: reading every 8th update, no reader noted the totals 32 and 64");
}

/*
 * shared_plain's lost updates, with no race at all: thread 0 makes 100
 * updates and thread 1 none, and verify is told thread 1 made 50: 50 of
 * 150 lost, a third. Told 100 and 0, nothing is lost; told fewer than
 * the counter holds, verify fails (an update invented).
 */
static void counter_lost_updates_by_hand(void **unused)
{
	const uint64_t ran[2] = { 100, 0 };
	uint64_t told[2] = { 100, 50 };
	struct kernel_metrics m;
	char msg[512];

	(void)unused;
	assert_int_equal(verify_told_metrics("counter", "shared_plain", 2, NULL, ran, told,
					     &m, msg, sizeof(msg)), 0);
	assert_near(metric(&m, "lost_updates"), 50);
	assert_near(metric(&m, "lost_fraction"), 50.0 / 150);
	told[1] = 0;
	assert_int_equal(verify_told_metrics("counter", "shared_plain", 2, NULL, ran, told,
					     &m, msg, sizeof(msg)), 0);
	assert_near(metric(&m, "lost_updates"), 0);
	assert_near(metric(&m, "lost_fraction"), 0);
	told[0] = 99;
	assert_int_not_equal(verify_told_metrics("counter", "shared_plain", 2, NULL, ran, told,
						 &m, msg, sizeof(msg)), 0);
	assert_non_null(strstr(msg, "reads 100 after 99 updates by 2 threads"));
}

/*
 * last_nidpid's plain_store with two writers, thread 1 running none of
 * its updates: verify told 30 of them counts 30 of 130 lost. The
 * cmpxchg loop alone never retries; told one update more or less, its
 * word and its chain of swaps disagree.
 */
static void last_nidpid_counts_by_hand(void **unused)
{
	const uint64_t ran[2] = { 100, 0 };
	const uint64_t told[2] = { 100, 30 };
	struct kernel_metrics m;
	char msg[512];

	(void)unused;
	assert_int_equal(verify_told_metrics("last_nidpid", "plain_store", 2, NULL, ran, told,
					     &m, msg, sizeof(msg)), 0);
	assert_near(metric(&m, "lost_updates"), 30);
	assert_near(metric(&m, "lost_fraction"), 30.0 / 130);

	drive("last_nidpid", "cmpxchg_loop", 1, NULL, 1000, &m, NULL);
	assert_near(metric(&m, "retries_per_success"), 0);
	assert_near(metric(&m, "success_share_min"), 1);
	assert_near(metric(&m, "success_share_max"), 1);
	drive("last_nidpid", "plain_store", 1, NULL, 1000, &m, NULL);
	assert_near(metric(&m, "lost_updates"), 0);
	assert_near(metric(&m, "lost_fraction"), 0);

	assert_verify_refuses("last_nidpid", "cmpxchg_loop", 1, NULL, 1000, "");
	{
		const uint64_t ran_one[1] = { 100 }, told_one[1] = { 101 };
		uint64_t told_two[2] = { 100, 1 };

		assert_int_not_equal(verify_told("last_nidpid", "cmpxchg_loop", 1, NULL, ran_one,
						 told_one, msg, sizeof(msg)), 0);
		assert_non_null(strstr(msg, "counts 100 updates of 101 done by 1 writer"));
		assert_null(strstr(msg, "writers"));
		assert_int_not_equal(verify_told("last_nidpid", "cmpxchg_loop", 2, NULL, ran,
						 told_two, msg, sizeof(msg)), 0);
		assert_non_null(strstr(msg, "counts 100 updates of 101 done by 2 writers"));
	}
	assert_verify_refuses("last_nidpid", "xchg", 2, NULL, 1000, "");
	assert_verify_refuses("last_nidpid", "plain_store", 1, NULL, 1000, "");
}

/*
 * Two writers' shares of the updates done when the first finished add
 * up to 1, one at most and one at least a half.
 */
static void last_nidpid_shares_add_up(void **unused)
{
	static const char *const variants[] = { "cmpxchg_loop", "xchg", "plain_store" };

	(void)unused;
	for (size_t v = 0; v < 3; v++) {
		struct kernel_metrics m;
		double lo, hi;

		drive("last_nidpid", variants[v], 2, NULL, 20000, &m, NULL);
		lo = metric(&m, "success_share_min");
		hi = metric(&m, "success_share_max");
		assert_near(lo + hi, 1);
		assert_true(lo <= 0.5 + 1e-12 && hi >= 0.5 - 1e-12);
		assert_true(lo >= 0);
	}
}

/*
 * Readers are floor(threads x readers% / 100) of the threads; the rest
 * write. 2 threads at 50%: 1 reader, half the threads write. 3 at 50%: 1
 * reader (1.5 rounded down). 4 at 25%: 1. 1 at 99%: none. 2 at 100%:
 * both read, and the threads are of one kind again.
 */
static void last_nidpid_readers_rounded_down(void **unused)
{
	static const struct {
		unsigned int threads;
		const char *readers;
		double writers;
		bool mixed;
	} rows[] = {
		{ 2, "readers=50", 0.5, true }, { 3, "readers=50", 2.0 / 3, true },
		{ 4, "readers=25", 0.75, true }, { 1, "readers=99", 1, false },
		{ 2, "readers=100", 0, false }, { 4, "readers=0", 1, false },
	};

	(void)unused;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const char *const settings[] = { rows[i].readers, NULL };
		const double w = rows[i].writers;
		struct access_profile p;

		profile_of("last_nidpid", "cmpxchg_loop", rows[i].threads, settings, &p);
		assert_near(p.lines[0].reads, 1);
		assert_near(p.lines[0].cas, w);
		assert_int_equal(p.mixed_kinds, rows[i].mixed);
		profile_of("last_nidpid", "xchg", rows[i].threads, settings, &p);
		assert_near(p.lines[0].reads, 1 - w);
		assert_near(p.lines[0].locked, w);
		profile_of("last_nidpid", "plain_store", rows[i].threads, settings, &p);
		assert_near(p.lines[0].reads, 1);
		assert_near(p.lines[0].stores, w);
		assert_near(p.lines[0].cas + p.lines[0].locked, 0);
	}
}

/* ------------------------------------------------------- longterm_check */

/*
 * A buffer of two pageblocks (1024 pages) half in CMA: round(2 x 50%) =
 * 1 block, either one (layout_seed picks it). Calls of 64 pages: 16 per
 * pass, 8 in each block. A call in the CMA block stops at its first
 * page (one lookup, nothing pinned); a call in the other pins all 64,
 * looking each up. A pass pins 512 pages with 8 x 64 + 8 = 520 lookups.
 * Five calls more (21) are the first five chunks again: in the CMA
 * block, 5 lookups; else 320 pages and lookups.
 */
static void longterm_counts_in_half_cma(void **unused)
{
	static const char *const half[] = { "buffer_pages=1024", "nr_pages=64",
					    "cma_percent=50", NULL };
	static const char *const seed2[] = { "buffer_pages=1024", "nr_pages=64",
					     "cma_percent=50", "layout_seed=2", NULL };
	static const char *const none[] = { "buffer_pages=1024", "nr_pages=64",
					    "cma_percent=0", NULL };
	static const char *const all[] = { "buffer_pages=1024", "nr_pages=64",
					   "cma_percent=100", NULL };
	const char *const *layouts[] = { half, seed2 };
	static const char *const checked[] = { "second_pass", "check_in_walk" };
	struct kernel_metrics m;

	(void)unused;
	for (size_t l = 0; l < 2; l++) {
		for (size_t v = 0; v < 2; v++) {
			double per_call, checks;

			drive("longterm_check", checked[v], 1, layouts[l], 16, &m, NULL);
			assert_near(metric(&m, "pages_per_call"), 512.0 / 16);
			assert_near(metric(&m, "cma_checks_per_call"), 520.0 / 16);
			drive("longterm_check", checked[v], 2, layouts[l], 21, &m, NULL);
			per_call = metric(&m, "pages_per_call");
			checks = metric(&m, "cma_checks_per_call");
			if (!(fabs(per_call - 512.0 / 21) < 1e-9 && fabs(checks - 525.0 / 21) < 1e-9) &&
			    !(fabs(per_call - 832.0 / 21) < 1e-9 && fabs(checks - 840.0 / 21) < 1e-9))
				fail_msg("%s, layout %zu, 21 calls: %g pages and %g lookups a call, expected 512/21 and 525/21, or 832/21 and 840/21",
					 checked[v], l, per_call, checks);
		}
		drive("longterm_check", "no_check", 1, layouts[l], 21, &m, NULL);
		assert_near(metric(&m, "pages_per_call"), 64);
		assert_near(metric(&m, "cma_checks_per_call"), 0);
	}
	drive("longterm_check", "check_in_walk", 1, none, 40, &m, NULL);
	assert_near(metric(&m, "pages_per_call"), 64);
	assert_near(metric(&m, "cma_checks_per_call"), 64);
	drive("longterm_check", "second_pass", 1, all, 40, &m, NULL);
	assert_near(metric(&m, "pages_per_call"), 0);
	assert_near(metric(&m, "cma_checks_per_call"), 1);
	/* no call at all: no pages a call, not 0/0 nor a made-up share */
	drive("longterm_check", "second_pass", 1, none, 0, &m, NULL);
	assert_near(metric(&m, "pages_per_call"), 0);
}

/*
 * Calls of 100 pages over 1024: 10 chunks a pass, the last 24 pages
 * never asked for. With block 0 in CMA, chunks 0-5 stop at their first
 * page (chunk 5, pages 500-599, starts in block 0) and 6-9 pin 100
 * each: 400 pages, 6 + 400 lookups. With block 1 in CMA, chunks 0-4 pin
 * 100 each, chunk 5 pins pages 500-511 and stops at 512 (13 lookups),
 * 6-9 stop at once: 512 pages, 500 + 13 + 4 lookups.
 */
static void longterm_counts_with_a_tail(void **unused)
{
	static const char *const hundred[] = { "buffer_pages=1024", "nr_pages=100",
					       "cma_percent=50", NULL };
	struct kernel_metrics m;

	(void)unused;
	for (unsigned int v = 0; v < 2; v++) {
		double per_call, checks;

		drive("longterm_check", v ? "check_in_walk" : "second_pass", 1, hundred, 10,
		      &m, NULL);
		per_call = metric(&m, "pages_per_call");
		checks = metric(&m, "cma_checks_per_call");
		if (!(fabs(per_call - 40) < 1e-9 && fabs(checks - 40.6) < 1e-9) &&
		    !(fabs(per_call - 51.2) < 1e-9 && fabs(checks - 51.7) < 1e-9))
			fail_msg("%g pages and %g lookups a call, expected 40 and 40.6, or 51.2 and 51.7",
				 per_call, checks);
	}
}

/*
 * get_ns_per_page_median is the median of stretches of 2048 pages (32
 * calls of 64), get_ns_per_page the whole get over every page. With one
 * stretch, or two of the same size, the two differ only by the time
 * between the last stretch's end and the get's, two clock reads with no
 * call between, by the definition of the median: 32 calls on one thread,
 * 64 calls on one thread (a pass of 4096 pages), 32 calls on each of two
 * threads. So the median is never above the mean, and within 5% of it
 * unless the thread was preempted right there (then the run is tried
 * again, up to 5 times).
 */
static void longterm_median_of_one_or_two_stretches(void **unused)
{
	static const char *const small[] = { "buffer_pages=4096", "nr_pages=64", NULL };
	static const struct {
		unsigned int threads;
		uint64_t calls;
	} rows[] = { { 1, 32 }, { 1, 64 }, { 2, 32 } };

	(void)unused;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		double mean = 0, median = 0;
		bool close = false;

		for (int tries = 0; tries < 5 && !close; tries++) {
			struct kernel_metrics m;

			drive("longterm_check", "second_pass", rows[i].threads, small,
			      rows[i].calls, &m, NULL);
			mean = metric(&m, "get_ns_per_page");
			median = metric(&m, "get_ns_per_page_median");
			if (median > mean * (1 + 1e-12))
				fail_msg("%u thread(s), %llu calls: the median of the stretches, %.6f ns a page, is above the whole get's %.6f",
					 rows[i].threads, (unsigned long long)rows[i].calls,
					 median, mean);
			close = median >= 0.95 * mean;
			assert_near(metric(&m, "pages_per_call"), 64);
		}
		if (!close)
			fail_msg("%u thread(s), %llu calls: the median of the stretches, %.6f ns a page, is far below the whole get's %.6f",
				 rows[i].threads, (unsigned long long)rows[i].calls, median, mean);
	}
}

/*
 * Layouts whose pageblock bits sit past the first bitmap word, past the
 * first section, or in a pageblock of one page, by hand:
 * - all CMA: every call stops at its first page, one lookup, none
 *   pinned; none CMA: every page pinned and looked up; whatever the
 *   buffer. 32768 + 512 pages are two sections (32768 pages each) of 65
 *   pageblocks; 513 pages two pageblocks, the second of one page.
 * - 90% CMA over 64 pageblocks (32768 pages, one section, 4 bitmap
 *   words): round(64 x 90%) = 58 blocks; calls of 512 pages are one
 *   block each, so a pass of 64 calls pins 6 x 512 pages with
 *   6 x 512 + 58 lookups.
 */
static void longterm_counts_over_big_layouts(void **unused)
{
	static const struct {
		const char *buffer, *nr_pages, *cma;
		uint64_t calls;
		double pages_per_call, checks_per_call;
	} rows[] = {
		{ "buffer_pages=33280", "nr_pages=512", "cma_percent=100", 65, 0, 1 },
		{ "buffer_pages=513", "nr_pages=1", "cma_percent=100", 513, 0, 1 },
		{ "buffer_pages=513", "nr_pages=1", "cma_percent=0", 513, 1, 1 },
		{ "buffer_pages=32768", "nr_pages=512", "cma_percent=90", 64,
		  6.0 * 512 / 64, (6.0 * 512 + 58) / 64 },
	};
	static const char *const checked[] = { "second_pass", "check_in_walk" };

	(void)unused;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const char *const settings[] = { rows[i].buffer, rows[i].nr_pages, rows[i].cma, NULL };

		for (size_t v = 0; v < 2; v++) {
			struct kernel_metrics m;

			drive("longterm_check", checked[v], 1, settings, rows[i].calls, &m, NULL);
			if (fabs(metric(&m, "pages_per_call") - rows[i].pages_per_call) > 1e-9 ||
			    fabs(metric(&m, "cma_checks_per_call") - rows[i].checks_per_call) > 1e-9)
				fail_msg("%s, %s, %s, %s: %g pages and %g lookups a call, expected %g and %g",
					 checked[v], rows[i].buffer, rows[i].nr_pages, rows[i].cma,
					 metric(&m, "pages_per_call"),
					 metric(&m, "cma_checks_per_call"),
					 rows[i].pages_per_call, rows[i].checks_per_call);
		}
	}
}

static void longterm_verify_refuses_wrong_counts(void **unused)
{
	static const char *const small[] = { "buffer_pages=1024", "nr_pages=64", NULL };

	(void)unused;
	assert_verify_refuses("longterm_check", "check_in_walk", 2, small, 20, "expected");
	assert_verify_refuses("longterm_check", "no_check", 1, small, 20, "expected");
}

/* A call of nr_pages pages: 3 locked RMWs a page (grab, referenced, put). */
static void longterm_access_by_hand(void **unused)
{
	static const char *const one[] = { "nr_pages=1", NULL };
	static const char *const many[] = { "nr_pages=512", NULL };
	struct access_profile p;

	(void)unused;
	profile_of("longterm_check", "second_pass", 4, one, &p);
	assert_near(p.private_locked, 3);
	assert_int_equal(p.nr_lines, 0);
	profile_of("longterm_check", "no_check", 1, many, &p);
	assert_near(p.private_locked, 3 * 512);
}

/* --------------------------------------------- pingpong and false_sharing */

/*
 * The ping-pong's two sides run the same round trips, and the sequence
 * number counts both: 2 per round trip. No round trip is run (on a busy
 * machine each handoff may wait for the other thread to be scheduled):
 * verify is told of some that never happened.
 */
static void pingpong_verify_refuses_wrong_counts(void **unused)
{
	static const char *const variants[] = { "store_load", "cas" };

	(void)unused;
	for (size_t v = 0; v < 2; v++) {
		uint64_t ran[2] = { 0, 0 }, told[2] = { 0, 0 };
		char msg[512];

		if (verify_told("pingpong", variants[v], 2, NULL, ran, told, msg, sizeof(msg)))
			fail_msg("pingpong/%s: no round trips failed verify: %s", variants[v], msg);
		told[1] = 1;
		assert_int_not_equal(verify_told("pingpong", variants[v], 2, NULL, ran, told,
						 msg, sizeof(msg)), 0);
		assert_non_null(strstr(msg, "same number"));
		told[0] = told[1] = 3;
		assert_int_not_equal(verify_told("pingpong", variants[v], 2, NULL, ran, told,
						 msg, sizeof(msg)), 0);
		assert_non_null(strstr(msg, "is 0 after 3 round trips, expected 6"));
	}
}

/* Both the wait and the handoff go to one line: a store or a cmpxchg. */
static void pingpong_access_by_hand(void **unused)
{
	struct access_profile p;

	(void)unused;
	profile_of("pingpong", "store_load", 2, NULL, &p);
	assert_int_equal(p.nr_lines, 1);
	assert_near(p.lines[0].reads, 1);
	assert_near(p.lines[0].stores, 1);
	assert_near(p.lines[0].cas, 0);
	assert_true(p.fenced);
	profile_of("pingpong", "cas", 2, NULL, &p);
	assert_near(p.lines[0].stores, 0);
	assert_near(p.lines[0].cas, 1);
	assert_near(p.lines[0].locked, 0);
}

/*
 * same_line puts 8-byte variables 8 to a 64-byte line; every other
 * variant gives each its own line (64, 128 or 4096 bytes apart), so only
 * a locked update's own cost is left.
 */
static void false_sharing_access_by_hand(void **unused)
{
	static const char *const locked[] = { "update=locked", NULL };
	static const char *const plain[] = { "update=plain", NULL };
	static const char *const apart[] = { "adjacent_lines", "padded_128", "separate_pages" };
	struct access_profile p;

	(void)unused;
	profile_of("false_sharing", "same_line", 4, locked, &p);
	assert_int_equal(p.nr_lines, 1);
	assert_int_equal(p.lines[0].shared_by, LINE_SHARED_BY_GROUP);
	assert_int_equal(p.lines[0].group_size, 8);
	assert_near(p.lines[0].reads, 1);
	assert_near(p.lines[0].locked, 1);
	assert_near(p.lines[0].stores, 0);
	assert_near(p.private_locked, 0);
	profile_of("false_sharing", "same_line", 4, plain, &p);
	assert_near(p.lines[0].stores, 1);
	assert_near(p.lines[0].locked, 0);
	for (size_t v = 0; v < 3; v++) {
		profile_of("false_sharing", apart[v], 4, locked, &p);
		assert_int_equal(p.nr_lines, 0);
		assert_near(p.private_locked, 1);
		profile_of("false_sharing", apart[v], 4, plain, &p);
		assert_int_equal(p.nr_lines, 0);
		assert_near(p.private_locked, 0);
	}
}

/* Each thread's variable holds its own updates, no other's. */
static void false_sharing_verify_refuses_wrong_counts(void **unused)
{
	static const char *const locked[] = { "update=locked", NULL };

	(void)unused;
	assert_verify_refuses("false_sharing", "same_line", 2, locked, 1000, "after");
	assert_verify_refuses("false_sharing", "separate_pages", 1, NULL, 1000, "after");
}

/* ------------------------------------------------------------ all of them */

/* Bytes the C library's allocator holds for the program: arenas and mmaps. */
static size_t bytes_allocated(void)
{
	struct mallinfo2 mi = mallinfo2();

	return mi.uordblks + mi.hblkhd;
}

/*
 * Whether bytes_allocated() sees this program's allocations: not under a
 * sanitizer, whose allocator the C library's counters know nothing of.
 */
static bool allocations_visible(void)
{
	size_t before = bytes_allocated();
	char *volatile probe = malloc(4096);
	bool seen = probe && bytes_allocated() >= before + 4096;

	free(probe);
	return seen;
}

struct quiet_run {
	const char *family, *variant;
	const char *const *settings;
	uint64_t nr_ops;
	struct gup_test_config *driver;
};

static void *run_quietly(void *arg)
{
	struct quiet_run *r = arg;

	if (r->driver) {
		struct gup_test_ops ops = { 0 };
		char err[256];
		struct gup_test *t = gup_test_create(r->driver, &ops, err, sizeof(err));

		if (!t || gup_test_run(t, err, sizeof(err)))
			fail_msg("%s", err);
		gup_test_destroy(t);
	} else {
		struct kernel_metrics m;

		drive(r->family, r->variant, 2, r->settings, r->nr_ops, &m, NULL);
	}
	return NULL;
}

/*
 * The bytes a run leaves allocated. It runs on a thread of its own: the
 * C library keeps a thread's freed blocks in its cache (and counts them
 * as in use) until the thread exits, which every thread of the run has
 * then done. The library may still keep a block for a new thread's
 * stack now and then, so a run that leaves bytes is run again, up to 4
 * times: a leak leaves them every time.
 */
static ssize_t bytes_left_by(struct quiet_run *r)
{
	ssize_t left = 0;

	for (int tries = 0; tries < 4; tries++) {
		size_t before = bytes_allocated();
		pthread_t tid;

		assert_int_equal(pthread_create(&tid, NULL, run_quietly, r), 0);
		assert_int_equal(pthread_join(tid, NULL), 0);
		left = (ssize_t)(bytes_allocated() - before);
		if (!left)
			break;
	}
	return left;
}

/*
 * Every family gives back all it allocated: after a first run of a
 * setting (which may leave the C library's own state behind), a second
 * ends with the allocator holding what it held before. So does the
 * gup_test driver, with its writer.
 */
static void nothing_is_left_allocated(void **unused)
{
	static const char *const gup_writer[] = { "writer=on", "mode=private", "buffer_mib=1",
						  "page_size=4k", NULL };
	static const char *const longterm_small[] = { "buffer_pages=1024", "nr_pages=64", NULL };
	static const char *const readers[] = { "readers=50", NULL };
	struct gup_test_config cfg = {
		.cmd = PIN_FAST_BENCHMARK, .buffer_bytes = 1UL << 20, .pages_per_call = 64,
		.repeats = 2, .threads = 2, .page_size = GUP_PAGES_4K, .gup_flags = FOLL_WRITE,
		.writer = true, .writer_pace_ns = 1000,
		.nr_combos = 2, .combos = { { .variant = GUP_READ_THEN_SET },
					    { .variant = GUP_STORE_ALWAYS, .private_buffers = true } },
	};
	struct quiet_run driver = { .driver = &cfg };
	ssize_t left;

	(void)unused;
	if (!allocations_visible())
		skip();
	for (unsigned int i = 0; i < catalog_size; i++) {
		const struct kernel_family *f = catalog[i];

		for (unsigned int v = 0; v < f->nr_variants; v++) {
			struct quiet_run r = {
				.family = f->name, .variant = f->variants[v].name, .nr_ops = 100,
			};

			if (!strcmp(f->name, "pingpong"))
				r.nr_ops = 0;	/* no handoff to wait for */
			else if (!strcmp(f->name, "gup"))
				r.settings = gup_writer;
			else if (!strcmp(f->name, "longterm_check"))
				r.settings = longterm_small;
			else if (!strcmp(f->name, "last_nidpid"))
				r.settings = readers;
			bytes_left_by(&r);
			left = bytes_left_by(&r);
			if (left)
				fail_msg("%s/%s: %zd bytes more allocated after a run", f->name,
					 f->variants[v].name, left);
		}
	}
	bytes_left_by(&driver);
	left = bytes_left_by(&driver);
	if (left)
		fail_msg("the gup_test driver: %zd bytes more allocated after a run", left);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(gup_flag_writes_per_call),
		cmocka_unit_test(gup_flag_writes_with_two_pinners),
		cmocka_unit_test(gup_longterm_lookups_by_hand),
		cmocka_unit_test(gup_cma_folios_move_once),
		cmocka_unit_test(gup_verify_refuses_wrong_counts),
		cmocka_unit_test(gup_verify_refuses_cma_lookups_one_off),
		cmocka_unit_test(gup_verify_says_exact_without_longterm),
		cmocka_unit_test(gup_verify_refuses_node_stats_one_off),
		cmocka_unit_test(gup_access_by_hand),
		cmocka_unit_test(gup_writer_runs_only_when_asked),
		cmocka_unit_test(gup_times_fit_in_the_run),
		cmocka_unit_test(gup_driver_samples_by_hand),
		cmocka_unit_test(gup_frames_where_the_layout_puts_them),
		cmocka_unit_test(gup_at_rest_names_each_fault),
		cmocka_unit_test(gup_unaligned_start_is_its_page),
		cmocka_unit_test(gup_writer_sweeps_every_buffer),
		cmocka_unit_test(has_pinned_counts_at_a_quarter),
		cmocka_unit_test(has_pinned_found_clear_matches_the_stores),
		cmocka_unit_test(has_pinned_verify_refuses_wrong_counts),
		cmocka_unit_test(counter_verify_refuses_wrong_counts),
		cmocka_unit_test(counter_lost_updates_by_hand),
		cmocka_unit_test(counter_reads_see_the_updates),
		cmocka_unit_test(last_nidpid_counts_by_hand),
		cmocka_unit_test(last_nidpid_shares_add_up),
		cmocka_unit_test(last_nidpid_readers_rounded_down),
		cmocka_unit_test(longterm_counts_in_half_cma),
		cmocka_unit_test(longterm_counts_with_a_tail),
		cmocka_unit_test(longterm_verify_refuses_wrong_counts),
		cmocka_unit_test(longterm_counts_over_big_layouts),
		cmocka_unit_test(longterm_median_of_one_or_two_stretches),
		cmocka_unit_test(longterm_access_by_hand),
		cmocka_unit_test(pingpong_verify_refuses_wrong_counts),
		cmocka_unit_test(pingpong_access_by_hand),
		cmocka_unit_test(false_sharing_access_by_hand),
		cmocka_unit_test(false_sharing_verify_refuses_wrong_counts),
		cmocka_unit_test(gup_modes_make_their_buffers),
		cmocka_unit_test(nothing_is_left_allocated),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
