// SPDX-License-Identifier: GPL-2.0-only
/*
 * longterm_check, property test: for random layouts of CMA pageblocks,
 * random call sizes and buffer sizes, the second pass over pages[] and
 * the check inside the walk pin exactly the same pages, and every variant
 * releases every pin. Verify computes the pages each call must pin from
 * the layout alone and compares count and identity (a hash sum); the
 * test compares the variants with each other through pages_per_call.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "catalog.h"

#define NR_LAYOUTS 40

struct layout {
	long nr_pages, cma_percent, buffer_pages, seed;
	unsigned int nr_threads;
	uint64_t calls;
};

struct worker {
	pthread_t tid;
	const struct kernel_variant *variant;
	void *state;
	unsigned int thread;
	uint64_t nr_ops;
};

static void *worker_main(void *arg)
{
	struct worker *w = arg;

	w->variant->run(w->state, w->thread, w->nr_ops);
	return NULL;
}

/* A small deterministic generator: the same layouts on every run. */
static uint64_t next_random(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

static long random_in(uint64_t *x, long lo, long hi)
{
	return lo + (long)(next_random(x) % (uint64_t)(hi - lo + 1));
}

static const struct kernel_family *family(void)
{
	const struct kernel_family *f = catalog_find("longterm_check");

	assert_non_null(f);
	return f;
}

static void set_param(const struct kernel_family *f, struct kernel_config *cfg,
		      const char *name, long value)
{
	int p = kernel_param_index(f, name);

	assert_true(p >= 0);
	cfg->param[p] = value;
}

/*
 * Runs one variant on the layout; returns verify's result and the mean
 * pages pinned per call.
 */
static int run_variant(const struct layout *l, const char *variant,
		       double *pages_per_call, char *msg, size_t msglen)
{
	const struct kernel_family *f = family();
	struct kernel_metrics metrics = { 0 };
	struct kernel_config cfg;
	struct worker w[2];
	uint64_t ops[2];
	char err[256];
	void *state;
	int v = catalog_variant_index(f, variant);
	int ret;

	assert_true(v >= 0);
	kernel_config_defaults(f, &cfg);
	cfg.variant = (unsigned int)v;
	cfg.nr_threads = l->nr_threads;
	set_param(f, &cfg, "nr_pages", l->nr_pages);
	set_param(f, &cfg, "cma_percent", l->cma_percent);
	set_param(f, &cfg, "buffer_pages", l->buffer_pages);
	set_param(f, &cfg, "layout_seed", l->seed);
	state = f->create(&cfg, err, sizeof(err));
	assert_non_null(state);
	for (unsigned int t = 0; t < l->nr_threads; t++) {
		/* Different call counts per thread: partial passes too. */
		ops[t] = l->calls + t * 7;
		w[t] = (struct worker){ .variant = &f->variants[v], .state = state,
					.thread = t, .nr_ops = ops[t] };
		assert_int_equal(pthread_create(&w[t].tid, NULL, worker_main, &w[t]), 0);
	}
	for (unsigned int t = 0; t < l->nr_threads; t++)
		pthread_join(w[t].tid, NULL);
	msg[0] = '\0';
	ret = f->verify(state, &cfg, ops, &metrics, msg, msglen);
	f->destroy(state);
	*pages_per_call = -1;
	for (unsigned int i = 0; i < metrics.nr; i++)
		if (!strcmp(metrics.m[i].name, "pages_per_call"))
			*pages_per_call = metrics.m[i].value;
	return ret;
}

static void describe(const struct layout *l, char *buf, size_t len)
{
	snprintf(buf, len, "nr_pages=%ld cma_percent=%ld buffer_pages=%ld seed=%ld threads=%u calls=%llu",
		 l->nr_pages, l->cma_percent, l->buffer_pages, l->seed,
		 l->nr_threads, (unsigned long long)l->calls);
}

static void check_layout(const struct layout *l)
{
	static const char *const variants[] = { "no_check", "second_pass", "check_in_walk" };
	double per_call[3];
	char msg[256], what[256];

	describe(l, what, sizeof(what));
	for (unsigned int i = 0; i < 3; i++) {
		if (run_variant(l, variants[i], &per_call[i], msg, sizeof(msg)))
			fail_msg("%s, %s: %s", variants[i], what, msg);
		assert_true(per_call[i] >= 0);
	}
	/* Without FOLL_LONGTERM every call pins all it asks for. */
	if (per_call[0] != (double)l->nr_pages)
		fail_msg("no_check pinned %g pages per call, expected %ld (%s)",
			 per_call[0], l->nr_pages, what);
	if (per_call[1] != per_call[2])
		fail_msg("second_pass pinned %g pages per call, check_in_walk %g (%s)",
			 per_call[1], per_call[2], what);
	if (l->cma_percent == 0)
		assert_true(per_call[1] == per_call[0]);
	if (l->cma_percent == 100)
		assert_true(per_call[1] == 0);
}

static void random_layouts_pin_the_same_pages(void **unused)
{
	uint64_t x = 0x2019060719ULL;

	(void)unused;
	for (unsigned int i = 0; i < NR_LAYOUTS; i++) {
		struct layout l = {
			.nr_pages = random_in(&x, 1, 512),
			.cma_percent = i % 5 == 0 ? 0 : i % 5 == 1 ? 100 : random_in(&x, 1, 99),
			.buffer_pages = random_in(&x, 512, 40000),
			.seed = random_in(&x, 0, 2147483647),
			.nr_threads = 1 + i % 2,
			.calls = (uint64_t)random_in(&x, 1, 400),
		};

		check_layout(&l);
	}
}

/*
 * splitmix64's output function (Steele, Lea and Flood, "Fast splittable
 * pseudorandom number generators", 2014; the constants of Vigna's
 * splitmix64.c): the state plus the golden gamma, then two xor-shift
 * multiplies and a last xor-shift by 31.
 */
static uint64_t splitmix64_next(uint64_t x)
{
	uint64_t z = x + 0x9e3779b97f4a7c15ULL;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/*
 * Which of 4 pageblocks is the one CMA block (cma_percent=25) for a
 * seed, as the family's help says it is chosen: the first 1 of 4 marked,
 * then shuffled (Fisher-Yates from the last, each draw the seed run
 * through splitmix64 once more, taken modulo i + 1). One check_in_walk
 * call of 512 pages covers block 0 only: it pins all 512 pages, or none
 * when block 0 is the CMA one. 64 seeds. Catches mix64() mixed other
 * than splitmix64 (its last shift 32 instead of 31, say): another shuffle.
 */
static void the_seed_chooses_the_cma_block_by_splitmix64(void **unused)
{
	unsigned int nr_first = 0;

	(void)unused;
	for (long seed = 1; seed <= 64; seed++) {
		unsigned char cma[4] = { 1, 0, 0, 0 };
		uint64_t x = (uint64_t)seed;
		struct layout l = {
			.nr_pages = 512, .cma_percent = 25, .buffer_pages = 4 * 512,
			.seed = seed, .nr_threads = 1, .calls = 1,
		};
		double per_call;
		char msg[256];

		for (unsigned int i = 3; i > 0; i--) {
			unsigned int k = (unsigned int)((x = splitmix64_next(x)) % (i + 1));
			unsigned char tmp = cma[i];

			cma[i] = cma[k];
			cma[k] = tmp;
		}
		nr_first += cma[0];
		if (run_variant(&l, "check_in_walk", &per_call, msg, sizeof(msg)))
			fail_msg("seed %ld: %s", seed, msg);
		if (per_call != (cma[0] ? 0 : 512))
			fail_msg("seed %ld: %g pages pinned by the first call, expected %d",
				 seed, per_call, cma[0] ? 0 : 512);
	}
	/* both outcomes were seen: about a quarter of the seeds start in CMA */
	assert_true(nr_first > 0 && nr_first < 64);
}

/* A layout where some calls must stop part way: the counts must differ. */
static void cma_pageblocks_stop_the_longterm_calls(void **unused)
{
	struct layout l = { .nr_pages = 100, .cma_percent = 50,
			    .buffer_pages = 32768, .seed = 7, .nr_threads = 1,
			    .calls = 327 };
	double fast, walk, second;
	char msg[256];

	(void)unused;
	assert_int_equal(run_variant(&l, "no_check", &fast, msg, sizeof(msg)), 0);
	assert_int_equal(run_variant(&l, "check_in_walk", &walk, msg, sizeof(msg)), 0);
	assert_int_equal(run_variant(&l, "second_pass", &second, msg, sizeof(msg)), 0);
	assert_true(fast == 100);
	assert_true(walk > 0 && walk < fast);
	assert_true(second == walk);
}

/*
 * CMA areas are whole pageblocks, round(cma_percent% of them), half up:
 * of 2 pageblocks (1024 pages), 25% is 0.5 -> 1 CMA block and 75% is
 * 1.5 -> 2. With calls of 512 pages, one a pageblock, 4 calls cover
 * each block twice, and a longterm call on a CMA block pins nothing (its
 * first page is CMA): 1 block gives (2 x 512 + 2 x 0) / 4 = 256 pages a
 * call, 2 blocks 0; 10% (0.2 -> none) 512.
 */
static void cma_pageblocks_are_rounded_half_up(void **unused)
{
	static const long percent[] = { 10, 25, 75 };
	static const double want[] = { 512, 256, 0 };
	char msg[256];

	(void)unused;
	for (int i = 0; i < 3; i++) {
		struct layout l = { .nr_pages = 512, .cma_percent = percent[i],
				    .buffer_pages = 1024, .seed = 3, .nr_threads = 1,
				    .calls = 4 };
		double walk, second;

		assert_int_equal(run_variant(&l, "check_in_walk", &walk, msg, sizeof(msg)), 0);
		assert_int_equal(run_variant(&l, "second_pass", &second, msg, sizeof(msg)), 0);
		if (walk != want[i] || second != want[i])
			fail_msg("cma_percent=%ld of 2 pageblocks: %g and %g pages a call, expected %g",
				 percent[i], walk, second, want[i]);
	}
}

/* Verify knows which calls were made: a miscount is an error. */
static void verify_catches_a_call_not_made(void **unused)
{
	const struct kernel_family *f = family();
	struct kernel_metrics metrics = { 0 };
	struct kernel_config cfg;
	uint64_t ops[1] = { 10 };
	char err[256], msg[256];
	void *state;

	(void)unused;
	kernel_config_defaults(f, &cfg);
	cfg.variant = (unsigned int)catalog_variant_index(f, "check_in_walk");
	state = f->create(&cfg, err, sizeof(err));
	assert_non_null(state);
	f->variants[cfg.variant].run(state, 0, 9);
	assert_int_equal(f->verify(state, &cfg, ops, &metrics, msg, sizeof(msg)), -1);
	assert_non_null(strstr(msg, "pinned"));
	f->destroy(state);
}

static double metric(const struct kernel_metrics *m, const char *name)
{
	for (unsigned int i = 0; i < m->nr; i++)
		if (!strcmp(m->m[i].name, name))
			return m->m[i].value;
	return -1;
}

/*
 * get_ns_per_page is the gets' whole time over the pages (gup_test's and
 * gup_benchmark's mean, and the walker's): the gets are part of the run,
 * so it is positive and at most the wall time per page asked for.
 * get_ns_per_page_median is the median of the gets' timed stretches: at
 * least half of them take that long per page or more, and they all fit
 * in the run's wall time, so it is at most twice that. Whole passes (64
 * calls of 512 pages at buffer_pages=32768) and a partial one (the 10
 * calls after them), in every variant.
 */
static void get_ns_per_page_fits_the_wall_time(void **unused)
{
	const struct kernel_family *f = family();

	(void)unused;
	for (unsigned int v = 0; v < f->nr_variants; v++) {
		struct kernel_metrics metrics = { 0 };
		struct kernel_config cfg;
		uint64_t ops[1] = { 2 * 64 + 10 };
		struct timespec t0, t1;
		char err[256], msg[256];
		double wall, get;
		void *state;

		kernel_config_defaults(f, &cfg);
		cfg.variant = v;
		set_param(f, &cfg, "nr_pages", 512);
		state = f->create(&cfg, err, sizeof(err));
		assert_non_null(state);
		clock_gettime(CLOCK_MONOTONIC, &t0);
		f->variants[v].run(state, 0, ops[0]);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		assert_int_equal(f->verify(state, &cfg, ops, &metrics, msg, sizeof(msg)), 0);
		f->destroy(state);
		wall = (double)(t1.tv_sec - t0.tv_sec) * 1e9 + (double)(t1.tv_nsec - t0.tv_nsec);
		get = metric(&metrics, "get_ns_per_page");
		if (!(get > 0 && get <= wall / (double)(ops[0] * 512)))
			fail_msg("%s: get_ns_per_page %.3f, expected above 0 and at most %.3f (the wall time per page)",
				 f->variants[v].name, get, wall / (double)(ops[0] * 512));
		get = metric(&metrics, "get_ns_per_page_median");
		if (!(get > 0 && get <= 2 * wall / (double)(ops[0] * 512)))
			fail_msg("%s: get_ns_per_page_median %.3f, expected above 0 and at most %.3f (twice the wall time per page)",
				 f->variants[v].name, get, 2 * wall / (double)(ops[0] * 512));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(random_layouts_pin_the_same_pages),
		cmocka_unit_test(cma_pageblocks_stop_the_longterm_calls),
		cmocka_unit_test(the_seed_chooses_the_cma_block_by_splitmix64),
		cmocka_unit_test(cma_pageblocks_are_rounded_half_up),
		cmocka_unit_test(verify_catches_a_call_not_made),
		cmocka_unit_test(get_ns_per_page_fits_the_wall_time),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
