// SPDX-License-Identifier: GPL-2.0-only
/*
 * The claims' words and numbers at their edges, against values worked out
 * by hand: the condition and the expectation of each relation, the
 * numbers a claim prints (paired or not, against a case of another
 * family, by host mode), a claim decided on repetitions that are not
 * paired by round, the repetitions it needs, a 1-thread claim on a run
 * whose CPUs were taken, and every claim of a real run counted once.
 *
 * tests/data/results-claims.json (test_claims.c describes it): false_sharing
 * at update=locked, 2 threads, 7 repetitions a case, padded_128 5.0, 5.1,
 * ..., 5.6 and separate_pages 20, 21, ..., 26.
 *
 * Usage: test_claims_edges SOURCE_DIR/tests
 */
#include <limits.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "float_assert.h"

#include "analysis.h"
#include "cases.h"
#include "catalog.h"
#include "claims.h"
#include "results_read.h"
#include "verdict.h"

static const char *tests_dir;

struct run {
	struct results set;
	struct result_cases cases;
	struct analysis a;
};

static void read_run(struct run *run, const char *name)
{
	char path[PATH_MAX], err[512];

	memset(run, 0, sizeof(*run));
	snprintf(path, sizeof(path), "%s/%s", tests_dir, name);
	if (results_read(&run->set, path, err, sizeof(err)))
		fail_msg("%s", err);
	assert_int_equal(result_cases_build(&run->set, &run->cases), 0);
	assert_int_equal(analysis_build(&run->set, &run->cases, &run->a), 0);
}

static void free_run(struct run *run)
{
	analysis_free(&run->a);
	result_cases_free(&run->cases);
	results_free(&run->set);
}

static const struct family_view *family_of(const struct run *run, const char *name)
{
	for (size_t i = 0; i < run->a.nr_families; i++)
		if (!strcmp(run->a.families[i].name, name))
			return &run->a.families[i];
	fail_msg("no family %s", name);
	return NULL;
}

/* The case of a variant at a thread count in the family's default table. */
static struct result_case *case_of(const struct run *run, const char *family,
				   const char *variant, long threads)
{
	const struct family_view *f = family_of(run, family);
	const struct group_view *g = &run->a.groups[f->default_group];
	const struct case_view *v = group_view_find(&run->a, g, variant, threads);

	assert_non_null(v);
	return (struct result_case *)v->c;
}

/* The result keeps a pointer to its claim: the claim is kept until the next check. */
static struct claim_result check(const struct run *run, const char *family,
				 struct kernel_claim c)
{
	static struct kernel_claim keep;
	struct claim_result r;

	keep = c;
	claim_check(&run->set, &run->a, family_of(run, family), &keep, &r);
	return r;
}

#define LOCKED_2(a_, b_, rel, x_) ((struct kernel_claim){			\
	.text = "t", .a = a_, .b = b_, .setting = "update=locked",		\
	.threads = CLAIM_MOST_THREADS, .relation = rel, .x = x_ })


/* Each relation's expectation and each condition, in the words the report prints. */
static void test_condition_and_expectation_words(void **state)
{
	struct kernel_claim c = {
		.a = "same_line", .b = "padded_128", .relation = CLAIM_AT_LEAST, .x = 2,
		.threads = CLAIM_ONE_THREAD,
	};
	char buf[512];

	(void)state;
	claim_condition(buf, sizeof(buf), &c);
	assert_string_equal(buf, "defaults, 1 thread");
	c.setting = "update=locked";
	c.threads = CLAIM_MOST_THREADS;
	c.arch = CLAIM_X86;
	claim_condition(buf, sizeof(buf), &c);
	assert_string_equal(buf, "update=locked, most threads (2+ on distinct cores), x86 only");

	claim_expectation(buf, sizeof(buf), &c);
	assert_string_equal(buf, "same_line / padded_128 ≥ 2.00x (ns/op)");
	c.relation = CLAIM_AT_MOST;
	c.x = 0.5;
	c.metric = "retries_per_success";
	claim_expectation(buf, sizeof(buf), &c);
	assert_string_equal(buf, "same_line / padded_128 ≤ 0.50x (retries_per_success)");
	c.relation = CLAIM_WITHIN;
	c.x = 1.5;
	claim_expectation(buf, sizeof(buf), &c);
	assert_string_equal(buf, "same_line / padded_128 within 1.50x either way (retries_per_success)");
	c.relation = CLAIM_BELOW;
	c.x = 0.25;
	claim_expectation(buf, sizeof(buf), &c);
	assert_string_equal(buf, "retries_per_success of same_line < 0.250");
	c.relation = CLAIM_ABOVE;
	c.x = 1500;
	claim_expectation(buf, sizeof(buf), &c);
	assert_string_equal(buf, "retries_per_success of same_line > 1500");

	/* against a reference: another family's case, its metric, its threads */
	c = (struct kernel_claim){ .a = "shared_atomic", .b = "pingpong/store_load",
				   .b_metric = "one_way_ns", .b_threads = CLAIM_B_MOST_THREADS,
				   .relation = CLAIM_AT_LEAST, .x = 1 };
	claim_expectation(buf, sizeof(buf), &c);
	assert_string_equal(buf, "shared_atomic (ns/op) / pingpong/store_load (one_way_ns, "
			    "its most threads) ≥ 1.00x");
	c.relation = CLAIM_AT_MOST;
	c.b = "percpu_padded";
	c.b_metric = CLAIM_NS_PER_OP;
	c.metric = "cycles";
	c.b_threads = CLAIM_B_ONE_THREAD;
	claim_expectation(buf, sizeof(buf), &c);
	assert_string_equal(buf, "shared_atomic (cycles) / percpu_padded (ns/op, 1 thread) ≤ 1.00x");
	/* only b's thread count differs: still a reference, same metric */
	c.b_metric = NULL;
	claim_expectation(buf, sizeof(buf), &c);
	assert_string_equal(buf, "shared_atomic (cycles) / percpu_padded (cycles, 1 thread) ≤ 1.00x");
}

/*
 * A two-variant claim's numbers: the medians (or the median round's two
 * values, paired), the ratio with its interval, p as format_p() words it,
 * the thread count and the distance; then each host mode.
 */
static void test_numbers_of_a_comparison(void **state)
{
	const struct kernel_claim pair = {
		.text = "t", .a = "store_always", .b = "read_then_set", .relation = CLAIM_AT_LEAST,
		.x = 2,
	};
	const struct kernel_claim reference = {
		.text = "t", .a = "same_line", .b = "pingpong/store_load", .b_metric = "one_way_ns",
		.b_threads = CLAIM_B_MOST_THREADS, .relation = CLAIM_AT_MOST, .x = 1,
	};
	const struct host_mode near = { .lo = 31, .hi = 49 }, far = { .lo = 96.2, .hi = 96.2 };
	struct claim_result r = {
		.claim = &pair, .mark = CLAIM_SEEN, .threads = 2, .distance = "l3",
		.a_median = 30.2, .b_median = 6.1, .p = 0.0002,
		.ratio = { .ratio = 4.95, .lo = 4.6, .hi = 5.3 },
	};
	char buf[1024];

	(void)state;
	claim_numbers(buf, sizeof(buf), &r);
	assert_string_equal(buf, "30.2 vs 6.10 ns/op: 4.95x (95% CI 4.60–5.30), p < 0.001, "
			    "at 2 threads (l3)");
	r.p = 0.0123;
	r.mark = CLAIM_NOT_SEEN;
	r.distance = NULL;
	r.threads = 1;
	claim_numbers(buf, sizeof(buf), &r);
	assert_string_equal(buf, "30.2 vs 6.10 ns/op: 4.95x (95% CI 4.60–5.30), p = 0.01, "
			    "at 1 thread");
	/* paired: the median round's values, not the medians */
	r.ratio.pairs = 9;
	r.ratio.median_num = 26.2;
	r.ratio.median_den = 5.5;
	r.p = 0.0039;
	r.threads = 4;
	r.distance = "package";
	claim_numbers(buf, sizeof(buf), &r);
	assert_string_equal(buf, "median round: 26.2 vs 5.50 ns/op: 4.95x (95% CI 4.60–5.30, "
			    "paired by round), p = 0.004, at 4 threads (package)");
	/* against another family's case: both sides named with their metrics */
	r.claim = &reference;
	r.ratio = (struct stats_ratio){ .ratio = 0.189, .lo = 0.12, .hi = 0.569 };
	r.a_median = 16.2;
	r.b_median = 85.4;
	claim_numbers(buf, sizeof(buf), &r);
	assert_string_equal(buf, "same_line 16.2 ns/op vs pingpong/store_load 85.4 one_way_ns: "
			    "0.19x (95% CI 0.12–0.57), p = 0.004, at 4 threads (package)");
	/*
	 * Sides named at length, 150 characters each (over 300 with the
	 * numbers, where 3 * FORMAT_LEN - 96 would cut them): whole.
	 */
	{
		char a_name[151], b_name[151], want[1024];
		struct kernel_claim longer = reference;

		memset(a_name, 'a', 150);
		memset(b_name, 'b', 150);
		a_name[150] = b_name[150] = '\0';
		longer.a = a_name;
		longer.b = b_name;
		r.claim = &longer;
		claim_numbers(buf, sizeof(buf), &r);
		snprintf(want, sizeof(want), "%s 16.2 ns/op vs %s 85.4 one_way_ns: 0.19x (95%% CI "
			 "0.12–0.57), p = 0.004, at 4 threads (package)", a_name, b_name);
		assert_string_equal(buf, want);
		r.claim = &reference;
	}
	/* by host mode: a mode with the rounds but no decision says so, with its ratio */
	r.nr_modes = 2;
	r.modes[0] = (struct claim_in_mode){ .mode = &near, .mark = CLAIM_NOT_TESTABLE,
					     .ratio = { .ratio = 1.2 }, .rounds = 7 };
	r.modes[1] = (struct claim_in_mode){ .mode = &far, .mark = CLAIM_SEEN,
					     .ratio = { .ratio = 0.35 }, .rounds = 6 };
	claim_numbers(buf, sizeof(buf), &r);
	assert_non_null(strstr(buf, "(package). By host mode: 31.0–49.0 ns one way (7 rounds): "
			       "not testable (undecided, 1.20x); 96.2 ns one way (6 rounds): "
			       "seen, 0.35x"));
	/* no mode with a decision: no modes at all */
	r.modes[1].mark = CLAIM_NOT_TESTABLE;
	r.modes[1].rounds = 5;
	claim_numbers(buf, sizeof(buf), &r);
	assert_null(strstr(buf, "By host mode"));
	/* a claim not testable prints its reason only */
	r.mark = CLAIM_NOT_TESTABLE;
	snprintf(r.why, sizeof(r.why), "the reason");
	claim_numbers(buf, sizeof(buf), &r);
	assert_string_equal(buf, "the reason");
}

/* A single variant's undecided mode quotes its value as a number, not a ratio. */
static void test_numbers_of_a_bound(void **state)
{
	const struct kernel_claim below = {
		.text = "t", .a = "shared_atomic", .metric = "retries_per_success",
		.relation = CLAIM_BELOW, .x = 1,
	};
	const struct host_mode near = { .lo = 40, .hi = 60 };
	struct claim_result r = {
		.claim = &below, .mark = CLAIM_SEEN, .threads = 2, .distance = "l3",
		.ratio = { .ratio = 0.5, .lo = 0.25, .hi = 0.75 }, .nr_modes = 2,
	};
	char buf[1024];

	(void)state;
	r.modes[0] = (struct claim_in_mode){ .mode = &near, .mark = CLAIM_NOT_TESTABLE,
					     .ratio = { .ratio = 1.25 }, .rounds = 6 };
	r.modes[1] = (struct claim_in_mode){ .mode = &near, .mark = CLAIM_NOT_SEEN,
					     .ratio = { .ratio = 2.5 }, .rounds = 8 };
	claim_numbers(buf, sizeof(buf), &r);
	assert_string_equal(buf, "0.500 (95% CI 0.250–0.750) at 2 threads (l3). By host mode: "
			    "40.0–60.0 ns one way (6 rounds): not testable (undecided, 1.25); "
			    "40.0–60.0 ns one way (8 rounds): NOT SEEN, 2.50");
}

/*
 * The same file's cases as if they had no rounds (results of another
 * tool): not paired, so the ratio is of the medians, its interval the
 * bootstrap's, p the U test's. separate_pages 20..26 against padded_128
 * 5.0..5.6: 23 / 5.3 = 4.34, every value of one above every value of the
 * other, so the exact U test's p is 2 / C(14, 7) = 2 / 3432. The bootstrap
 * interval was computed apart, by test_stats_oracle.py's bootstrap_ratio():
 * 3.8888888888888889 to 4.8076923076923075, that is 21 / 5.4 to 25 / 5.2.
 */
static void test_unpaired_repetitions(void **state)
{
	struct run run;
	struct result_case *pages, *padded;
	struct claim_result r;
	const long *saved_pages, *saved_padded;

	(void)state;
	read_run(&run, "data/results-claims.json");
	pages = case_of(&run, "false_sharing", "separate_pages", 2);
	padded = case_of(&run, "false_sharing", "padded_128", 2);
	saved_pages = pages->rounds;
	saved_padded = padded->rounds;
	pages->rounds = padded->rounds = NULL;

	r = check(&run, "false_sharing", LOCKED_2("separate_pages", "padded_128", CLAIM_AT_LEAST, 4));
	assert_int_equal(r.mark, CLAIM_SEEN);
	assert_int_equal(r.ratio.pairs, 0);
	assert_float_equal(r.ratio.ratio, 23 / 5.3, 1e-12);
	assert_float_equal(r.p, 2.0 / 3432, 1e-12);
	assert_float_equal(r.ratio.lo, 21 / 5.4, 1e-12);
	assert_float_equal(r.ratio.hi, 25 / 5.2, 1e-12);
	assert_float_equal(r.a_median, 23, 1e-12);
	assert_float_equal(r.b_median, 5.3, 1e-12);
	/* at least: the median at x exactly agrees, the rule separates them from 1 */
	r = check(&run, "false_sharing", LOCKED_2("separate_pages", "padded_128", CLAIM_AT_LEAST,
						 23 / 5.3));
	assert_int_equal(r.mark, CLAIM_SEEN);
	r = check(&run, "false_sharing", LOCKED_2("separate_pages", "padded_128", CLAIM_AT_LEAST, 4.4));
	assert_int_equal(r.mark, CLAIM_NOT_SEEN);
	/* at most: the upper end decides, exactly at it is enough */
	r = check(&run, "false_sharing", LOCKED_2("separate_pages", "padded_128", CLAIM_AT_MOST,
						 25 / 5.2));
	assert_int_equal(r.mark, CLAIM_SEEN);
	r = check(&run, "false_sharing", LOCKED_2("separate_pages", "padded_128", CLAIM_AT_MOST, 4.5));
	assert_int_equal(r.mark, CLAIM_NOT_TESTABLE);
	assert_non_null(strstr(r.why, "7 repetitions cannot decide it"));
	/* within: both ends inside 1 / x and x */
	r = check(&run, "false_sharing", LOCKED_2("separate_pages", "padded_128", CLAIM_WITHIN,
						 25 / 5.2));
	assert_int_equal(r.mark, CLAIM_SEEN);
	r = check(&run, "false_sharing", LOCKED_2("separate_pages", "padded_128", CLAIM_WITHIN, 4.8));
	assert_int_equal(r.mark, CLAIM_NOT_TESTABLE);
	/* swapped, 0.208 to 0.257: the lower end against 1 / x */
	r = check(&run, "false_sharing", LOCKED_2("padded_128", "separate_pages", CLAIM_WITHIN, 4.81));
	assert_int_equal(r.mark, CLAIM_SEEN);
	r = check(&run, "false_sharing", LOCKED_2("padded_128", "separate_pages", CLAIM_WITHIN, 4.8));
	assert_int_equal(r.mark, CLAIM_NOT_TESTABLE);
	r = check(&run, "false_sharing", LOCKED_2("padded_128", "separate_pages", CLAIM_WITHIN, 4.3));
	assert_int_equal(r.mark, CLAIM_NOT_SEEN);

	/*
	 * Five repetitions of one side: unpaired, each side needs 6; the
	 * reason names the fewer, whichever side it is.
	 */
	pages->n = 5;
	r = check(&run, "false_sharing", LOCKED_2("separate_pages", "padded_128", CLAIM_AT_LEAST, 2));
	assert_int_equal(r.mark, CLAIM_NOT_TESTABLE);
	assert_non_null(strstr(r.why, "5 repetitions; this test needs at least 6"));
	r = check(&run, "false_sharing", LOCKED_2("padded_128", "separate_pages", CLAIM_AT_MOST, 1));
	assert_non_null(strstr(r.why, "5 repetitions; this test needs at least 6"));
	pages->n = 6;
	r = check(&run, "false_sharing", LOCKED_2("padded_128", "separate_pages", CLAIM_AT_MOST, 1));
	assert_int_equal(r.mark, CLAIM_SEEN);
	/*
	 * Exactly 6 on the first side, 7 on the other, unpaired: enough, and
	 * decided. The first six of separate_pages are 20..25 ns, median 22.5
	 * (the file's values), over padded_128's median 5.3: 22.5 / 5.3, well
	 * above 2, and the rank test's p (6 against 7, all apart) is
	 * 2 / C(13, 6) = 2 / 1716.
	 */
	r = check(&run, "false_sharing", LOCKED_2("separate_pages", "padded_128", CLAIM_AT_LEAST, 2));
	assert_int_equal(r.mark, CLAIM_SEEN);
	assert_int_equal(r.ratio.pairs, 0);
	assert_float_equal(r.a_median, 22.5, 1e-12);
	assert_float_equal(r.ratio.ratio, 22.5 / 5.3, 1e-12);
	assert_float_equal(r.p, 2.0 / 1716, 1e-12);
	/* 7 on the first side and 6 on the second: the same */
	r = check(&run, "false_sharing", LOCKED_2("padded_128", "separate_pages", CLAIM_AT_MOST, 0.5));
	assert_int_equal(r.mark, CLAIM_SEEN);
	assert_int_equal(r.ratio.pairs, 0);
	/* both 6: still enough */
	padded->n = 6;
	r = check(&run, "false_sharing", LOCKED_2("separate_pages", "padded_128", CLAIM_AT_LEAST, 2));
	assert_int_equal(r.mark, CLAIM_SEEN);
	assert_float_equal(r.p, 2.0 / 924, 1e-12);
	padded->n = 7;
	/* paired again, 6 rounds are enough */
	pages->rounds = saved_pages;
	padded->rounds = saved_padded;
	r = check(&run, "false_sharing", LOCKED_2("separate_pages", "padded_128", CLAIM_AT_LEAST, 2));
	assert_int_equal(r.mark, CLAIM_SEEN);
	assert_int_equal(r.ratio.pairs, 6);
	pages->n = 7;
	free_run(&run);
}

/*
 * A bound on one variant needs 6 repetitions too, and a side with one
 * has no interval at all; a zero median on b leaves no ratio.
 */
static void test_repetitions_a_claim_needs(void **state)
{
	static double zeros[7];
	struct run run;
	struct result_case *padded;
	double *saved;
	struct claim_result r;

	(void)state;
	read_run(&run, "data/results-claims.json");
	padded = case_of(&run, "false_sharing", "padded_128", 2);
	padded->n = 5;
	r = check(&run, "false_sharing", LOCKED_2("padded_128", NULL, CLAIM_BELOW, 10));
	assert_int_equal(r.mark, CLAIM_NOT_TESTABLE);
	assert_non_null(strstr(r.why, "5 repetitions; this test needs at least 6"));
	padded->n = 6;
	r = check(&run, "false_sharing", LOCKED_2("padded_128", NULL, CLAIM_BELOW, 10));
	assert_int_equal(r.mark, CLAIM_SEEN);
	/* six values 5.0..5.5: median 5.25, interval the whole range */
	assert_float_equal(r.ratio.ratio, 5.25, 1e-12);
	assert_float_equal(r.ratio.lo, 5.0, 1e-12);
	assert_float_equal(r.ratio.hi, 5.5, 1e-12);
	assert_float_equal(r.a_median, 5.25, 1e-12);
	padded->n = 1;
	r = check(&run, "false_sharing", LOCKED_2("padded_128", NULL, CLAIM_ABOVE, 1));
	assert_int_equal(r.mark, CLAIM_NOT_TESTABLE);
	assert_non_null(strstr(r.why, "one repetition: no interval"));
	r = check(&run, "false_sharing", LOCKED_2("separate_pages", "padded_128", CLAIM_AT_LEAST, 2));
	assert_non_null(strstr(r.why, "one repetition: no interval"));
	padded->n = 7;
	saved = padded->ns;
	padded->ns = zeros;
	r = check(&run, "false_sharing", LOCKED_2("separate_pages", "padded_128", CLAIM_AT_LEAST, 2));
	assert_int_equal(r.mark, CLAIM_NOT_TESTABLE);
	assert_non_null(strstr(r.why, "ns/op of padded_128 is 0: no ratio"));
	padded->ns = saved;
	free_run(&run);
}

/*
 * The CPU share a run measured is about threads running together: it
 * leaves a 1-thread claim decided, and only a load average above 2 per
 * allowed CPU makes that one not testable.
 */
static void test_busy_machine_and_one_thread(void **state)
{
	struct kernel_claim c = LOCKED_2("same_line", "padded_128", CLAIM_WITHIN, 1.5);
	struct run run;
	struct run_context *context;
	struct claim_result r;

	(void)state;
	c.threads = CLAIM_ONE_THREAD;
	read_run(&run, "data/results-claims.json");
	context = &run.set.files[0].run;
	context->cpu_share = 0.1;
	r = check(&run, "false_sharing", c);
	assert_int_equal(r.mark, CLAIM_SEEN);
	assert_int_equal(r.threads, 1);
	/* at 2 threads the share decides, and the reason says it and the limit */
	c.threads = CLAIM_MOST_THREADS;
	context->cpu_share = 0.6;
	r = check(&run, "false_sharing", c);
	assert_int_equal(r.mark, CLAIM_NOT_TESTABLE);
	assert_non_null(strstr(r.why, "busy machine (other work: a thread spinning on each CPU "
			       "got 60% of its time as the run started, 80% needed)"));
	c.threads = CLAIM_ONE_THREAD;
	context->cpu_share = NAN;
	/* 2 CPUs allowed: a 1-minute load of 4.2 is 2.1 per CPU, above the limit */
	context->allowed_cpus = 2;
	context->build_ended_s_before = -1;
	context->load_avg[0] = 4.2;
	r = check(&run, "false_sharing", c);
	assert_int_equal(r.mark, CLAIM_NOT_TESTABLE);
	assert_non_null(strstr(r.why, "a load average of 2.1 per CPU"));
	assert_non_null(strstr(r.why, "at 1 thread"));
	/* the same load on 4 allowed CPUs is 1.05 per CPU: decided */
	context->allowed_cpus = 4;
	r = check(&run, "false_sharing", c);
	assert_int_equal(r.mark, CLAIM_SEEN);
	free_run(&run);
}

/*
 * Every claim of every family in a real run, counted once: the counts add
 * up to the catalogue's claims of the families the run has, and each
 * result is the one claim_check() gives for that claim alone. On this
 * corpus run no claim is NOT SEEN (tests/data/runs/README.md).
 */
static void test_every_claim_counted(void **state)
{
	struct run run;
	struct claim_report report;
	size_t expected = 0, k = 0, seen = 0, untested = 0;

	(void)state;
	read_run(&run, "data/runs/epyc-zen3-2026-12-01/default.json");
	assert_int_equal(claims_evaluate(&run.set, &run.a, &report), 0);
	for (size_t i = 0; i < run.a.nr_families; i++)
		if (run.a.families[i].kf)
			expected += run.a.families[i].kf->nr_claims;
	assert_true(expected >= 10);
	assert_int_equal(report.nr, expected);
	for (size_t i = 0; i < run.a.nr_families; i++) {
		const struct family_view *f = &run.a.families[i];

		for (unsigned int c = 0; f->kf && c < f->kf->nr_claims; c++, k++) {
			struct claim_result alone;

			claim_check(&run.set, &run.a, f, &f->kf->claims[c], &alone);
			assert_ptr_equal(report.results[k].claim, &f->kf->claims[c]);
			assert_int_equal(report.results[k].mark, alone.mark);
			seen += alone.mark == CLAIM_SEEN;
			untested += alone.mark == CLAIM_NOT_TESTABLE;
		}
	}
	assert_int_equal(report.nr_seen, seen);
	assert_int_equal(report.nr_not_testable, untested);
	assert_int_equal(report.nr_not_seen, 0);
	assert_true(seen > 0);
	assert_int_equal(report.nr_seen + report.nr_not_seen + report.nr_not_testable, report.nr);
	claims_free(&report);
	assert_int_equal(report.nr, 0);
	assert_null(report.results);
	free_run(&run);
}

/*
 * What a claim cannot find, named: a setting the run lacks with the
 * --param options that would add it, a counter missing on either side, b
 * at its own most threads where b ran at 1 thread only, a family of the
 * catalogue the run left out, and a placement with no distance class
 * (which only a claim at 2 or more threads needs).
 */
static void test_what_a_claim_cannot_find(void **state)
{
	struct kernel_claim c = LOCKED_2("same_line", "padded_128", CLAIM_WITHIN, 1000);
	struct run run;
	struct claim_result r;
	struct result_case *one, *two;
	const char *saved_one, *saved_two;

	(void)state;
	read_run(&run, "data/results-claims.json");
	c.setting = "update=sideways,pad=3";
	r = check(&run, "false_sharing", c);
	assert_int_equal(r.mark, CLAIM_NOT_TESTABLE);
	/* a setting no run can add: the catalogue's words for why */
	assert_string_equal(r.why, "no case at update=sideways,pad=3 in the run "
			    "(update='sideways': expected one of plain|locked)");
	c.setting = "update=plain,pad=3";
	r = check(&run, "false_sharing", c);
	assert_string_equal(r.why, "no case at update=plain,pad=3 in the run "
			    "(family false_sharing has no parameter 'pad' (see 'bouncelab list'))");

	/* a's counter, then b's, missing: each named */
	c = LOCKED_2("same_line", "padded_128", CLAIM_WITHIN, 1000);
	c.metric = "one_way_ns";
	c.b_metric = CLAIM_NS_PER_OP;
	r = check(&run, "false_sharing", c);
	assert_int_equal(r.mark, CLAIM_NOT_TESTABLE);
	assert_string_equal(r.why, "counter one_way_ns: not recorded in these results");
	c.metric = NULL;
	c.b_metric = "cycles";
	r = check(&run, "false_sharing", c);
	assert_int_equal(r.mark, CLAIM_NOT_TESTABLE);
	assert_string_equal(r.why, "counter cycles: not recorded in these results");

	/* update=plain ran at 1 thread only: b at its most threads is not there */
	c = LOCKED_2("same_line", "padded_128", CLAIM_WITHIN, 1000);
	c.setting = "update=plain";
	c.threads = CLAIM_ONE_THREAD;
	r = check(&run, "false_sharing", c);
	assert_int_equal(r.mark, CLAIM_SEEN);
	c.b_threads = CLAIM_B_MOST_THREADS;
	r = check(&run, "false_sharing", c);
	assert_int_equal(r.mark, CLAIM_NOT_TESTABLE);
	assert_string_equal(r.why, "no case of padded_128 at 2 or more threads in the run, which "
			    "the claim compares with");

	/* a case of another family that this run did not measure */
	c = LOCKED_2("same_line", "pingpong/store_load", CLAIM_WITHIN, 1000);
	c.b_threads = CLAIM_B_MOST_THREADS;
	r = check(&run, "false_sharing", c);
	assert_int_equal(r.mark, CLAIM_NOT_TESTABLE);
	assert_string_equal(r.why, "no case of pingpong at its default setting in the run, which "
			    "the claim compares with (leave it in --filter)");

	/* no distance class: a 1-thread claim is decided, a 2-thread one is not */
	one = case_of(&run, "false_sharing", "same_line", 1);
	two = case_of(&run, "false_sharing", "same_line", 2);
	saved_one = one->widest_class;
	saved_two = two->widest_class;
	one->widest_class = two->widest_class = NULL;
	c = LOCKED_2("same_line", "padded_128", CLAIM_WITHIN, 1000);
	r = check(&run, "false_sharing", c);
	assert_int_equal(r.mark, CLAIM_NOT_TESTABLE);
	assert_string_equal(r.why, "the placement's distance class was not recorded");
	c.threads = CLAIM_ONE_THREAD;
	r = check(&run, "false_sharing", c);
	assert_int_equal(r.mark, CLAIM_SEEN);
	assert_null(r.distance);
	one->widest_class = saved_one;
	two->widest_class = saved_two;
	free_run(&run);
}

/*
 * Two repetitions are not one: the reason is the repetitions the test
 * needs. One repetition on either side of a comparison has no interval.
 */
static void test_one_and_two_repetitions(void **state)
{
	struct run run;
	struct result_case *padded;
	struct claim_result r;

	(void)state;
	read_run(&run, "data/results-claims.json");
	padded = case_of(&run, "false_sharing", "padded_128", 2);
	padded->n = 2;
	r = check(&run, "false_sharing", LOCKED_2("padded_128", NULL, CLAIM_BELOW, 10));
	assert_int_equal(r.mark, CLAIM_NOT_TESTABLE);
	assert_non_null(strstr(r.why, "2 repetitions; this test needs at least 6"));
	/* two on b's side, a comparison: not paired, and 2 is the fewer */
	r = check(&run, "false_sharing", LOCKED_2("separate_pages", "padded_128", CLAIM_AT_LEAST, 2));
	assert_int_equal(r.mark, CLAIM_NOT_TESTABLE);
	assert_non_null(strstr(r.why, "2 repetitions; this test needs at least 6"));
	padded->n = 1;
	r = check(&run, "false_sharing", LOCKED_2("padded_128", "separate_pages", CLAIM_AT_MOST, 1));
	assert_int_equal(r.mark, CLAIM_NOT_TESTABLE);
	assert_string_equal(r.why, "one repetition: no interval to check against (run with "
			    "--repetitions 6 or more)");
	padded->n = 7;
	free_run(&run);
}

/*
 * The host's modes (test_claims.c reads this Zen 3 run's two by hand):
 * a claim is judged per mode only when it was decided at 2 or more
 * threads, on both sides' rounds; a 1-thread claim, an undecided one and
 * one whose b has no rounds get no modes.
 */
static void test_which_claims_get_host_modes(void **state)
{
	struct kernel_claim wide = {
		.text = "t", .a = "shared_atomic", .b = "percpu_padded",
		.threads = CLAIM_MOST_THREADS, .relation = CLAIM_WITHIN, .x = 1000,
	};
	struct run run;
	struct result_case *b;
	const long *saved;
	struct claim_result r;

	(void)state;
	read_run(&run, "data/runs/epyc-zen3-2026-12-01/default.json");
	assert_int_equal(run.a.modes[0].nr, 2);
	r = check(&run, "counter", wide);
	assert_int_equal(r.mark, CLAIM_SEEN);
	assert_int_equal(r.threads, 2);
	assert_int_equal(r.nr_modes, 2);
	assert_int_equal(r.modes[0].rounds + r.modes[1].rounds, 9);
	wide.threads = CLAIM_ONE_THREAD;
	r = check(&run, "counter", wide);
	assert_int_equal(r.mark, CLAIM_SEEN);
	assert_int_equal(r.nr_modes, 0);
	/* undecided (test_claims.c: the interval 0.659-1.10 is not within 1.5x) */
	r = check(&run, "has_pinned", (struct kernel_claim){
		.text = "t", .a = "store_always", .b = "read_then_set", .setting = "already_set=0",
		.threads = CLAIM_MOST_THREADS, .relation = CLAIM_WITHIN, .x = 1.5 });
	assert_int_equal(r.mark, CLAIM_NOT_TESTABLE);
	assert_int_equal(r.threads, 2);
	assert_int_equal(r.nr_modes, 0);
	/* b without rounds: nothing to split by mode */
	wide.threads = CLAIM_MOST_THREADS;
	b = case_of(&run, "counter", "percpu_padded", 2);
	saved = b->rounds;
	b->rounds = NULL;
	r = check(&run, "counter", wide);
	assert_int_equal(r.mark, CLAIM_SEEN);
	assert_int_equal(r.nr_modes, 0);
	b->rounds = saved;
	/* a without rounds, likewise */
	b = case_of(&run, "counter", "shared_atomic", 2);
	saved = b->rounds;
	b->rounds = NULL;
	r = check(&run, "counter", wide);
	assert_int_equal(r.mark, CLAIM_SEEN);
	assert_int_equal(r.nr_modes, 0);
	b->rounds = saved;

	/* b in the run's first family (has_pinned) is found as well as in any other */
	assert_string_equal(run.a.families[0].name, "has_pinned");
	r = check(&run, "counter", (struct kernel_claim){
		.text = "t", .a = "shared_atomic", .b = "has_pinned/store_always",
		.b_threads = CLAIM_B_MOST_THREADS, .threads = CLAIM_MOST_THREADS,
		.relation = CLAIM_WITHIN, .x = 1000 });
	assert_int_equal(r.mark, CLAIM_SEEN);
	free_run(&run);

	/* a Zen 4 guest's run in one mode: one mode is no split */
	read_run(&run, "data/runs/epyc-zen4-2026-12-02/default.json");
	assert_int_equal(run.a.modes[0].nr, 1);
	r = check(&run, "counter", wide);
	assert_int_equal(r.mark, CLAIM_SEEN);
	assert_int_equal(r.threads, 2);
	assert_int_equal(r.nr_modes, 0);
	free_run(&run);
}

/*
 * Ratios exactly at a bound, every round alike: separate_pages at 1 ns
 * and padded_128 at 4 ns in each of the 7 rounds make 0.25 (and 4 the
 * other way) in every round, so the median and both ends of the interval
 * are 0.25 exactly, and 1 / 4 is exactly 0.25 too. "Within 4x" holds at
 * both ends, "at most 4x" at its upper end; a hair inside, they do not.
 */
static void test_ratio_exactly_at_the_bound(void **state)
{
	static double ones[7] = { 1, 1, 1, 1, 1, 1, 1 }, fours[7] = { 4, 4, 4, 4, 4, 4, 4 };
	struct run run;
	struct result_case *pages, *padded;
	struct claim_result r;
	double *saved_pages, *saved_padded;

	(void)state;
	read_run(&run, "data/results-claims.json");
	pages = case_of(&run, "false_sharing", "separate_pages", 2);
	padded = case_of(&run, "false_sharing", "padded_128", 2);
	saved_pages = pages->ns;
	saved_padded = padded->ns;
	pages->ns = ones;
	padded->ns = fours;
	r = check(&run, "false_sharing", LOCKED_2("separate_pages", "padded_128", CLAIM_WITHIN, 4));
	assert_float_equal(r.ratio.ratio, 0.25, 0);
	assert_float_equal(r.ratio.lo, 0.25, 0);
	assert_float_equal(r.ratio.hi, 0.25, 0);
	assert_int_equal(r.mark, CLAIM_SEEN);
	r = check(&run, "false_sharing", LOCKED_2("padded_128", "separate_pages", CLAIM_WITHIN, 4));
	assert_float_equal(r.ratio.ratio, 4, 0);
	assert_int_equal(r.mark, CLAIM_SEEN);
	r = check(&run, "false_sharing", LOCKED_2("padded_128", "separate_pages", CLAIM_AT_MOST, 4));
	assert_int_equal(r.mark, CLAIM_SEEN);
	r = check(&run, "false_sharing", LOCKED_2("padded_128", "separate_pages", CLAIM_AT_LEAST, 4));
	assert_int_equal(r.mark, CLAIM_SEEN);
	r = check(&run, "false_sharing", LOCKED_2("separate_pages", "padded_128", CLAIM_WITHIN, 3.999));
	assert_int_equal(r.mark, CLAIM_NOT_SEEN);
	r = check(&run, "false_sharing", LOCKED_2("padded_128", "separate_pages", CLAIM_AT_MOST, 3.999));
	assert_int_equal(r.mark, CLAIM_NOT_SEEN);
	pages->ns = saved_pages;
	padded->ns = saved_padded;
	free_run(&run);
}

/* x86 is x86_64, i386 or i686; an x86 claim elsewhere is not testable. */
static void test_x86_names(void **state)
{
	const char *x86[] = { "x86_64", "i386", "i686" }, *other[] = { "aarch64", "i586", "x86" };
	struct kernel_claim c = LOCKED_2("separate_pages", "padded_128", CLAIM_AT_LEAST, 2);
	struct run run;
	struct claim_result r;

	(void)state;
	c.arch = CLAIM_X86;
	read_run(&run, "data/results-claims.json");
	for (size_t i = 0; i < 3; i++) {
		run.set.files[0].run.arch = x86[i];
		r = check(&run, "false_sharing", c);
		assert_int_equal(r.mark, CLAIM_SEEN);
		run.set.files[0].run.arch = other[i];
		r = check(&run, "false_sharing", c);
		assert_int_equal(r.mark, CLAIM_NOT_TESTABLE);
		assert_non_null(strstr(r.why, "other architecture"));
	}
	run.set.files[0].run.arch = "x86_64";
	free_run(&run);
}

/*
 * b in another family is looked for in a's own file only: a report of two
 * runs (results-claims.json, whose false_sharing has no pingpong beside it,
 * then the Zen 3 guest's default run, which has one) must not compare
 * false_sharing with the other machine's pingpong (as default_group_of()
 * would if it matched a family of another file by name alone). The Zen 3
 * run's own counter claim against its pingpong still finds it in its file.
 */
static void test_b_elsewhere_in_its_own_file(void **state)
{
	struct kernel_claim c = LOCKED_2("same_line", "pingpong/store_load", CLAIM_WITHIN, 1000);
	struct run run;
	struct claim_result r;
	const struct family_view *f = NULL;
	char path[PATH_MAX], err[512];

	(void)state;
	memset(&run, 0, sizeof(run));
	snprintf(path, sizeof(path), "%s/data/results-claims.json", tests_dir);
	if (results_read(&run.set, path, err, sizeof(err)))
		fail_msg("%s", err);
	snprintf(path, sizeof(path), "%s/data/runs/epyc-zen3-2026-12-01/default.json", tests_dir);
	if (results_read(&run.set, path, err, sizeof(err)))
		fail_msg("%s", err);
	assert_int_equal(run.set.nr_files, 2);
	assert_int_equal(result_cases_build(&run.set, &run.cases), 0);
	assert_int_equal(analysis_build(&run.set, &run.cases, &run.a), 0);
	c.b_metric = "one_way_ns";
	c.b_threads = CLAIM_B_MOST_THREADS;
	r = check(&run, "false_sharing", c);
	assert_int_equal(r.mark, CLAIM_NOT_TESTABLE);
	assert_string_equal(r.why, "no case of pingpong at its default setting in the run, which "
			    "the claim compares with (leave it in --filter)");
	/* the counter family of file 1 finds file 1's pingpong */
	for (size_t i = 0; i < run.a.nr_families; i++)
		if (!strcmp(run.a.families[i].name, "counter"))
			f = &run.a.families[i];
	assert_non_null(f);
	assert_int_equal(f->file, 1);
	c = (struct kernel_claim){
		.text = "t", .a = "shared_atomic", .b = "pingpong/store_load", .b_metric = "one_way_ns",
		.b_threads = CLAIM_B_MOST_THREADS, .threads = CLAIM_MOST_THREADS,
		.relation = CLAIM_WITHIN, .x = 1000 };
	claim_check(&run.set, &run.a, f, &c, &r);
	assert_int_equal(r.mark, CLAIM_SEEN);
	free_run(&run);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_condition_and_expectation_words),
		cmocka_unit_test(test_numbers_of_a_comparison),
		cmocka_unit_test(test_numbers_of_a_bound),
		cmocka_unit_test(test_unpaired_repetitions),
		cmocka_unit_test(test_repetitions_a_claim_needs),
		cmocka_unit_test(test_busy_machine_and_one_thread),
		cmocka_unit_test(test_every_claim_counted),
		cmocka_unit_test(test_what_a_claim_cannot_find),
		cmocka_unit_test(test_one_and_two_repetitions),
		cmocka_unit_test(test_which_claims_get_host_modes),
		cmocka_unit_test(test_x86_names),
		cmocka_unit_test(test_ratio_exactly_at_the_bound),
		cmocka_unit_test(test_b_elsewhere_in_its_own_file),
	};

	if (argc != 2) {
		fprintf(stderr, "usage: test_claims_edges SOURCE_DIR/tests\n");
		return 2;
	}
	tests_dir = argv[1];
	return cmocka_run_group_tests(tests, NULL, NULL);
}
