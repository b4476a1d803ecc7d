// SPDX-License-Identifier: GPL-2.0-only
/*
 * Claim checks and the one verdict rule, against hand-computed cases.
 *
 * tests/data/results-claims.json (gen_results.py --claims) holds
 * false_sharing with seven hand-picked repetitions per case, no noise. At
 * update=locked and 2 threads, rounds 0 to 6: padded_128 5.0, 5.1, ...,
 * 5.6 (median 5.3); adjacent_lines 5.65, 5.55, ..., 5.05 (median 5.35,
 * interleaved with padded_128: paired by round, its ratios fall from 1.13
 * to 0.90, four above 1 and three below, sign test p = 1); same_line 6.0
 * ... 6.6 (median 6.3); separate_pages 20, 21, ..., 26 (median 23, above
 * padded_128 in every round: sign test p = 2 / 2^7). The file is a
 * `bouncelab run`'s, so ratios are paired: the median of the per-round
 * ratios (here the ratio of the medians, as the middle round holds both
 * medians). With 7 values the median's interval is the whole range
 * (coverage 1 - 2/128 >= 95%). update=plain has 1-thread cases only.
 *
 * Each claim below is one a wrong line of claims.c would mark wrongly: a
 * relation read backwards, a and b swapped, a CI across 1 taken as a
 * difference, a bound compared with the median instead of the CI's end.
 *
 * Usage: test_claims SOURCE_DIR/tests
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

struct fixture {
	struct results set;
	struct result_cases cases;
	struct analysis a;
	const struct family_view *f;
};

static int setup(void **state)
{
	static struct fixture fx;
	char path[PATH_MAX], err[512];

	memset(&fx, 0, sizeof(fx));
	snprintf(path, sizeof(path), "%s/data/results-claims.json", tests_dir);
	if (results_read(&fx.set, path, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		return -1;
	}
	if (result_cases_build(&fx.set, &fx.cases) ||
	    analysis_build(&fx.set, &fx.cases, &fx.a))
		return -1;
	for (size_t i = 0; i < fx.a.nr_families; i++)
		if (!strcmp(fx.a.families[i].name, "false_sharing"))
			fx.f = &fx.a.families[i];
	if (!fx.f)
		return -1;
	*state = &fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;

	analysis_free(&fx->a);
	result_cases_free(&fx->cases);
	results_free(&fx->set);
	return 0;
}

static struct claim_result check(struct fixture *fx, struct kernel_claim c)
{
	static struct kernel_claim keep;
	struct claim_result r;

	keep = c;
	claim_check(&fx->set, &fx->a, fx->f, &keep, &r);
	return r;
}

#define LOCKED_2(a_, b_, rel, x_) ((struct kernel_claim){			\
	.text = "t", .a = a_, .b = b_, .setting = "update=locked",		\
	.threads = CLAIM_MOST_THREADS, .relation = rel, .x = x_ })

static void test_at_least(void **state)
{
	struct fixture *fx = *state;
	struct claim_result r;

	/* 23 / 5.3, wholly separated: seen, at 2 threads, on distinct cores */
	r = check(fx, LOCKED_2("separate_pages", "padded_128", CLAIM_AT_LEAST, 2));
	assert_int_equal(r.mark, CLAIM_SEEN);
	assert_int_equal(r.threads, 2);
	assert_string_equal(r.distance, "package");
	assert_true(fabs(r.ratio.ratio - 23.0 / 5.3) < 1e-9);
	assert_int_equal(r.ratio.pairs, 7);
	assert_true(fabs(r.p - 2.0 / 128) < 1e-9);
	assert_true(fabs(r.a_median - 23) < 1e-9 && fabs(r.b_median - 5.3) < 1e-9);
	/* the same pair with a bound above the ratio: a relation misread */
	r = check(fx, LOCKED_2("separate_pages", "padded_128", CLAIM_AT_LEAST, 5));
	assert_int_equal(r.mark, CLAIM_NOT_SEEN);
	/* a and b swapped: 0.23x is not at least 2x */
	r = check(fx, LOCKED_2("padded_128", "separate_pages", CLAIM_AT_LEAST, 2));
	assert_int_equal(r.mark, CLAIM_NOT_SEEN);
	assert_true(fabs(r.ratio.ratio - 5.3 / 23.0) < 1e-9);
	/*
	 * median ratio 5.35 / 5.3 >= 1, but interleaved: the rule does not
	 * separate them, and the run cannot decide the claim either way
	 */
	r = check(fx, LOCKED_2("adjacent_lines", "padded_128", CLAIM_AT_LEAST, 1));
	assert_true(r.ratio.ratio >= 1);
	assert_true(r.ratio.lo < 1 || r.p >= 0.05);
	assert_int_equal(r.mark, CLAIM_NOT_TESTABLE);
	assert_non_null(strstr(r.why, "7 paired rounds cannot decide it"));
	/* the catalogue's own claim on this file: 6.3 / 5.3 = 1.19x, not 2x */
	r = check(fx, LOCKED_2("same_line", "padded_128", CLAIM_AT_LEAST, 2));
	assert_int_equal(r.mark, CLAIM_NOT_SEEN);
	assert_true(fabs(r.ratio.ratio - 6.3 / 5.3) < 1e-9);
}

static void test_within(void **state)
{
	struct fixture *fx = *state;

	assert_int_equal(check(fx, LOCKED_2("adjacent_lines", "padded_128", CLAIM_WITHIN, 1.5)).mark,
			 CLAIM_SEEN);
	/* 23 / 5.3 either way round is outside 1.5x */
	assert_int_equal(check(fx, LOCKED_2("separate_pages", "padded_128", CLAIM_WITHIN, 1.5)).mark,
			 CLAIM_NOT_SEEN);
	assert_int_equal(check(fx, LOCKED_2("padded_128", "separate_pages", CLAIM_WITHIN, 1.5)).mark,
			 CLAIM_NOT_SEEN);
}

static void test_at_most(void **state)
{
	struct fixture *fx = *state;

	struct claim_result r;

	/*
	 * 23 / 5.3 = 4.34, bootstrap CI about 3.9-4.8: at most 5, not at most
	 * 4; swapped, 0.23 is at most 1.
	 */
	r = check(fx, LOCKED_2("separate_pages", "padded_128", CLAIM_AT_MOST, 5));
	assert_int_equal(r.mark, CLAIM_SEEN);
	assert_true(r.ratio.hi > 4.5 && r.ratio.hi <= 5);
	assert_int_equal(check(fx, LOCKED_2("separate_pages", "padded_128", CLAIM_AT_MOST, 4)).mark,
			 CLAIM_NOT_SEEN);
	/* the median (4.34) is at most 4.5, but the CI's upper end is not: undecided */
	assert_int_equal(check(fx, LOCKED_2("separate_pages", "padded_128", CLAIM_AT_MOST, 4.5)).mark,
			 CLAIM_NOT_TESTABLE);
	assert_int_equal(check(fx, LOCKED_2("padded_128", "separate_pages", CLAIM_AT_MOST, 1)).mark,
			 CLAIM_SEEN);
}

static void test_bounds(void **state)
{
	struct fixture *fx = *state;
	struct claim_result r;

	/* padded_128 at 2 threads: median 5.3, interval 5.0-5.6 */
	r = check(fx, LOCKED_2("padded_128", NULL, CLAIM_BELOW, 10));
	assert_int_equal(r.mark, CLAIM_SEEN);
	assert_true(fabs(r.ratio.lo - 5.0) < 1e-9 && fabs(r.ratio.hi - 5.6) < 1e-9);
	/* the median is below 5.5 but the interval is not: undecided */
	assert_int_equal(check(fx, LOCKED_2("padded_128", NULL, CLAIM_BELOW, 5.5)).mark,
			 CLAIM_NOT_TESTABLE);
	/* the median above the bound contradicts it */
	assert_int_equal(check(fx, LOCKED_2("padded_128", NULL, CLAIM_BELOW, 5.2)).mark,
			 CLAIM_NOT_SEEN);
	assert_int_equal(check(fx, LOCKED_2("padded_128", NULL, CLAIM_ABOVE, 4.9)).mark,
			 CLAIM_SEEN);
	/* above 5.0: the median (5.3) is, the interval's lower end (5.0) is not */
	assert_int_equal(check(fx, LOCKED_2("padded_128", NULL, CLAIM_ABOVE, 5.0)).mark,
			 CLAIM_NOT_TESTABLE);
	assert_int_equal(check(fx, LOCKED_2("padded_128", NULL, CLAIM_ABOVE, 5.4)).mark,
			 CLAIM_NOT_SEEN);
}

/*
 * Each relation with its bound exactly on the measured median or on an end
 * of the interval: "at most x" holds at x, "below x" does not, "within x"
 * holds with an end at x; a median on the bound agrees with "at least" and
 * "at most" and with neither "above" nor "below". The file's padded_128
 * has median 5.3 and interval 5.0-5.6 (test_bounds).
 */
static void test_relations_at_their_bounds(void **state)
{
	struct fixture *fx = *state;
	struct claim_result r;
	double hi, ratio, x;

	assert_int_equal(check(fx, LOCKED_2("padded_128", NULL, CLAIM_BELOW, 5.6)).mark,
			 CLAIM_NOT_TESTABLE);
	assert_int_equal(check(fx, LOCKED_2("padded_128", NULL, CLAIM_BELOW, 5.3)).mark,
			 CLAIM_NOT_SEEN);
	assert_int_equal(check(fx, LOCKED_2("padded_128", NULL, CLAIM_ABOVE, 5.3)).mark,
			 CLAIM_NOT_SEEN);
	assert_int_equal(check(fx, LOCKED_2("padded_128", NULL, CLAIM_BELOW, 5.6000001)).mark,
			 CLAIM_SEEN);
	assert_int_equal(check(fx, LOCKED_2("padded_128", NULL, CLAIM_ABOVE, 4.9999999)).mark,
			 CLAIM_SEEN);

	r = check(fx, LOCKED_2("separate_pages", "padded_128", CLAIM_AT_MOST, 5));
	hi = r.ratio.hi;
	ratio = r.ratio.ratio;
	assert_int_equal(check(fx, LOCKED_2("separate_pages", "padded_128", CLAIM_AT_MOST, hi)).mark,
			 CLAIM_SEEN);
	assert_int_equal(check(fx, LOCKED_2("separate_pages", "padded_128", CLAIM_AT_MOST,
					    ratio)).mark, CLAIM_NOT_TESTABLE);
	assert_int_equal(check(fx, LOCKED_2("separate_pages", "padded_128", CLAIM_AT_MOST,
					    ratio * (1 - 1e-9))).mark, CLAIM_NOT_SEEN);
	assert_int_equal(check(fx, LOCKED_2("separate_pages", "padded_128", CLAIM_AT_LEAST,
					    ratio)).mark, CLAIM_SEEN);
	assert_int_equal(check(fx, LOCKED_2("separate_pages", "padded_128", CLAIM_AT_LEAST,
					    ratio * (1 + 1e-9))).mark, CLAIM_NOT_SEEN);

	/* within x: x at the interval's far end (the upper one, or 1 / lower) */
	r = check(fx, LOCKED_2("adjacent_lines", "padded_128", CLAIM_WITHIN, 1.5));
	assert_int_equal(r.mark, CLAIM_SEEN);
	x = r.ratio.hi;
	if (1 / r.ratio.lo > x)
		x = 1 / r.ratio.lo * (1 + 1e-12);
	assert_int_equal(check(fx, LOCKED_2("adjacent_lines", "padded_128", CLAIM_WITHIN, x)).mark,
			 CLAIM_SEEN);
	assert_int_equal(check(fx, LOCKED_2("adjacent_lines", "padded_128", CLAIM_WITHIN,
					    x * (1 - 1e-9))).mark, CLAIM_NOT_TESTABLE);
}

/* A b side the run lacks names the thread count the claim looks for. */
static void test_missing_b_says_where_it_looked(void **state)
{
	struct fixture *fx = *state;
	struct kernel_claim c = LOCKED_2("padded_128", "no_such_variant", CLAIM_AT_LEAST, 2);
	struct claim_result r;

	c.b_threads = CLAIM_B_ONE_THREAD;
	r = check(fx, c);
	assert_int_equal(r.mark, CLAIM_NOT_TESTABLE);
	assert_non_null(strstr(r.why, "no case of no_such_variant at 1 thread in the run"));
	c.b_threads = CLAIM_B_MOST_THREADS;
	r = check(fx, c);
	assert_non_null(strstr(r.why, "no case of no_such_variant at 2 or more threads in the run"));
}

static void test_one_thread(void **state)
{
	struct fixture *fx = *state;
	struct kernel_claim c = LOCKED_2("same_line", "padded_128", CLAIM_WITHIN, 1.5);
	struct claim_result r;

	c.threads = CLAIM_ONE_THREAD;
	r = check(fx, c);
	assert_int_equal(r.mark, CLAIM_SEEN);
	assert_int_equal(r.threads, 1);
	/* 1-thread medians: same_line 5.3, padded_128 5.4 */
	assert_true(fabs(r.ratio.ratio - 5.3 / 5.4) < 1e-9);
}

static void test_not_testable(void **state)
{
	struct fixture *fx = *state;
	struct kernel_claim c = LOCKED_2("same_line", "padded_128", CLAIM_AT_LEAST, 2);
	struct run_context *ctx = &fx->set.files[0].run;
	struct claim_result r;

	/* update=plain ran at 1 thread only */
	c.setting = "update=plain";
	r = check(fx, c);
	assert_int_equal(r.mark, CLAIM_NOT_TESTABLE);
	assert_non_null(strstr(r.why, "only 1 thread was measured"));
	/* a variant with no case at 2 threads in a table that has 2 threads */
	c = LOCKED_2("same_line", "no_such_variant", CLAIM_AT_LEAST, 2);
	r = check(fx, c);
	assert_int_equal(r.mark, CLAIM_NOT_TESTABLE);
	assert_non_null(strstr(r.why, "no case of same_line and no_such_variant"));
	/* a setting the run did not sweep: hide the plain table's value */
	for (size_t k = fx->f->first_group; k < fx->f->first_group + fx->f->nr_groups; k++) {
		struct setting *params = (struct setting *)&fx->a.groups[k].group->params;
		int u = kernel_param_index(fx->f->kf, "update");
		char text[64];

		/* as a file whose value the catalogue does not take reads */
		if (u >= 0 && !strcmp(setting_value_text(params, (unsigned int)u, text,
							 sizeof(text)), "plain"))
			params->unreadable |= 1u << u;
	}
	c = LOCKED_2("same_line", "padded_128", CLAIM_AT_LEAST, 2);
	c.setting = "update=plain";
	r = check(fx, c);
	assert_int_equal(r.mark, CLAIM_NOT_TESTABLE);
	/* with the option that adds it, as run takes it */
	assert_string_equal(r.why, "no case at update=plain in the run "
			    "(add --param false_sharing.update=plain)");
	/* an x86 claim on another architecture */
	c = LOCKED_2("separate_pages", "padded_128", CLAIM_AT_LEAST, 2);
	c.arch = CLAIM_X86;
	assert_int_equal(check(fx, c).mark, CLAIM_SEEN);
	ctx->arch = "aarch64";
	r = check(fx, c);
	assert_int_equal(r.mark, CLAIM_NOT_TESTABLE);
	assert_non_null(strstr(r.why, "other architecture (aarch64)"));
	ctx->arch = NULL;
	r = check(fx, c);
	assert_int_equal(r.mark, CLAIM_NOT_TESTABLE);
	assert_non_null(strstr(r.why, "do not record the architecture"));
	ctx->arch = "x86_64";
	/* a busy machine: 10 runnable tasks on 2 CPUs */
	assert_true(ctx->nr_load_avg > 0);
	ctx->load_avg[0] = 10.0;
	r = check(fx, c);
	assert_int_equal(r.mark, CLAIM_NOT_TESTABLE);
	assert_non_null(strstr(r.why, "busy machine (other work: a load average of 5.0 per CPU"));
	assert_non_null(strstr(r.why, "4.34x"));	/* the numbers, measured anyway */
	ctx->load_avg[0] = 0.5;
	/* a counter the run did not record */
	c.metric = "retries_per_success";
	r = check(fx, c);
	assert_int_equal(r.mark, CLAIM_NOT_TESTABLE);
	assert_non_null(strstr(r.why, "counter retries_per_success"));
}

/* Two threads on one core do not test a claim about distinct cores. */
static void test_shared_core(void **state)
{
	struct fixture *fx = *state;
	const struct group_view *g = &fx->a.groups[fx->f->default_group];
	struct result_case *c = (struct result_case *)group_view_find(&fx->a, g, "separate_pages", 2)->c;
	const char *saved = c->widest_class;
	struct claim_result r;

	c->widest_class = "smt";
	r = check(fx, LOCKED_2("separate_pages", "padded_128", CLAIM_AT_LEAST, 2));
	c->widest_class = saved;
	assert_int_equal(r.mark, CLAIM_NOT_TESTABLE);
	assert_non_null(strstr(r.why, "shared a core (distance smt)"));
}

static void test_verdict_rule(void **state)
{
	struct stats_ratio slower = { .ratio = 2, .lo = 1.5, .hi = 2.5 };
	struct stats_ratio across = { .ratio = 1.1, .lo = 0.9, .hi = 1.2 };
	struct stats_ratio faster = { .ratio = 0.5, .lo = 0.4, .hi = 0.8 };
	struct stats_ratio none = { .ratio = 2, .lo = NAN, .hi = NAN, .one_repetition = true };

	(void)state;
	assert_int_equal(verdict_of(&slower, 0.01), VERDICT_SLOWER);
	assert_int_equal(verdict_of(&faster, 0.01), VERDICT_FASTER);
	/* a CI that excludes 1 with p = 0.10: "is faster: 4.46x ... p = 0.10" was wrong */
	assert_int_equal(verdict_of(&slower, 0.10), VERDICT_NOISE);
	assert_int_equal(verdict_of(&faster, 0.05), VERDICT_NOISE);
	/* p = 0.01 with a CI across 1: "within noise ... p = 0.01" is right by the rule */
	assert_int_equal(verdict_of(&across, 0.01), VERDICT_NOISE);
	assert_int_equal(verdict_of(&none, 0.01), VERDICT_UNTESTED);
	assert_int_equal(verdict_of(&slower, NAN), VERDICT_UNTESTED);
	assert_string_equal(verdict_word(VERDICT_NOISE), "within noise");
}

/*
 * The rule at its edges, decided by hand from verdict.h's words: an interval
 * that reaches 1 exactly does not exclude 1; p at alpha exactly is not below
 * it; one end unknown leaves nothing to decide.
 */
static void test_verdict_edges(void **state)
{
	struct stats_ratio hi_at_1 = { .ratio = 0.9, .lo = 0.8, .hi = 1 };
	struct stats_ratio lo_at_1 = { .ratio = 1.1, .lo = 1, .hi = 1.2 };
	struct stats_ratio faster = { .ratio = 0.9, .lo = 0.8, .hi = 0.99 };
	struct stats_ratio slower = { .ratio = 1.1, .lo = 1.01, .hi = 1.2 };
	struct stats_ratio lo_unknown = { .ratio = 1.1, .lo = NAN, .hi = 1.2 };
	struct stats_ratio hi_unknown = { .ratio = 0.9, .lo = 0.8, .hi = INFINITY };

	(void)state;
	assert_int_equal(verdict_of(&hi_at_1, 0.001), VERDICT_NOISE);
	assert_int_equal(verdict_of(&lo_at_1, 0.001), VERDICT_NOISE);
	assert_int_equal(verdict_of(&faster, 0.0499), VERDICT_FASTER);
	assert_int_equal(verdict_of(&slower, 0.0499), VERDICT_SLOWER);
	assert_int_equal(verdict_of(&slower, 0.05), VERDICT_NOISE);
	assert_int_equal(verdict_of(&lo_unknown, 0.001), VERDICT_UNTESTED);
	assert_int_equal(verdict_of(&hi_unknown, 0.001), VERDICT_UNTESTED);
	assert_int_equal(verdict_of(&faster, INFINITY), VERDICT_UNTESTED);
	assert_string_equal(verdict_word(VERDICT_FASTER), "faster");
	assert_string_equal(verdict_word(VERDICT_SLOWER), "slower");
}

/* found_clear_fraction when one call in the run finds the flag clear: 2 / ops. */
static void test_count_over_ops(void **state)
{
	double ops_a[3] = { 1e6, 2e6, 4e6 }, ops_b[3] = { 5e5, 1e6, 1e6 };
	double val_a[3] = { 2e-6, 1e-6, 5e-7 }, val_b[3] = { 4e-6, 2e-6, 2e-6 };
	double val_c[3] = { 3e-6, 1.5e-6, 1.5e-6 };	/* 3 calls: another count */
	double ones[3] = { 1, 1, 1 };
	struct case_counter ca = { "f", 3, val_a, 1e-6 }, cb = { "f", 3, val_b, 2e-6 };
	struct case_counter cc = { "f", 3, val_c, 1.5e-6 };
	struct case_counter one_a = { "f", 3, ones, 1 }, one_b = { "f", 3, ones, 1 };
	struct result_case a = { .n = 3, .ops = ops_a }, b = { .n = 3, .ops = ops_b };

	(void)state;
	assert_true(case_counters_are_count_over_ops(&a, &ca, &b, &cb));
	assert_false(case_counters_are_count_over_ops(&a, &ca, &b, &cc));
	/* the fraction 1 in every call is a measurement, tested as usual */
	assert_false(case_counters_are_count_over_ops(&a, &one_a, &b, &one_b));
}

/* b: a variant of kf, or "FAMILY/VARIANT" of a family in the catalogue. */
static bool claim_b_exists(const struct kernel_family *kf, const char *b)
{
	const char *slash = b ? strchr(b, '/') : NULL;
	char family[64];

	if (!slash)
		return b && catalog_variant_index(kf, b) >= 0;
	snprintf(family, sizeof(family), "%.*s", (int)(slash - b), b);
	kf = catalog_find(family);
	return kf && catalog_variant_index(kf, slash + 1) >= 0;
}

/* A counter that is a count or a fraction, not a time (one_way_ns, ns/op) */
static bool counts_not_time(const char *metric)
{
	size_t len = metric ? strlen(metric) : 0;

	return metric && !strstr(metric, "ns_per") && !(len > 3 && !strcmp(metric + len - 3, "_ns"));
}

/* Every claim in the catalogue names real variants, parameters and values. */
static void test_catalogue_claims(void **state)
{
	(void)state;
	for (unsigned int i = 0; i < catalog_size; i++) {
		const struct kernel_family *kf = catalog[i];

		for (unsigned int k = 0; k < kf->nr_claims; k++) {
			const struct kernel_claim *c = &kf->claims[k];
			bool one = c->relation == CLAIM_BELOW || c->relation == CLAIM_ABOVE;

			if (!c->text || !*c->text)
				fail_msg("%s: claim %u has no text: say the expectation in words",
					 kf->name, k);
			if (!c->a || catalog_variant_index(kf, c->a) < 0)
				fail_msg("%s: claim \"%s\": a = %s is no variant of %s: name one",
					 kf->name, c->text, c->a ? c->a : "NULL", kf->name);
			if (!one && !claim_b_exists(kf, c->b))
				fail_msg("%s: claim \"%s\": b = %s is no variant of %s nor FAMILY/VARIANT "
					 "of the catalogue: a ratio is bounded against a case the same "
					 "run measures", kf->name, c->text, c->b ? c->b : "NULL", kf->name);
			/*
			 * A bound on a time is a fact about one CPU: times are
			 * compared with a time of the same run, never a number.
			 */
			if (one && !counts_not_time(c->metric))
				fail_msg("%s: claim \"%s\" bounds a time by a constant: compare it "
					 "with a case of the same run (b, b_metric, b_threads)",
					 kf->name, c->text);
			assert_true(c->relation != CLAIM_AT_LEAST || c->x >= 1);
			assert_true(c->relation != CLAIM_WITHIN || c->x > 1);
			assert_true(c->relation != CLAIM_AT_MOST || c->x > 0);
			/*
			 * What the store buffer hides, or a locked update owning
			 * the line, is x86's (TSO, the lock prefix): such a claim
			 * says "x86 only", or it is checked where it does not hold.
			 */
			if (strstr(c->text, "store buffer") || strstr(c->text, "locked update"))
				assert_int_equal(c->arch, CLAIM_X86);
			for (const char *s = c->setting; s && *s;) {
				size_t len = strcspn(s, ",");
				char item[64], err[256];
				char *eq;
				long v;
				int p;

				snprintf(item, sizeof(item), "%.*s", (int)len, s);
				eq = strchr(item, '=');
				assert_non_null(eq);
				*eq = '\0';
				p = kernel_param_index(kf, item);
				assert_true(p >= 0);
				assert_int_equal(kernel_param_parse(&kf->params[p], eq + 1, &v, err,
								    sizeof(err)), 0);
				s += len + (s[len] == ',');
			}
		}
		if (kf->nr_claims && !(kf->lesson_line && *kf->lesson_line))
			fail_msg("%s: claims but no lesson line: add the lesson in one line",
				 kf->name);
		if (kf->nr_claims && !(kf->exercise_question && *kf->exercise_question &&
				       kf->exercise_command && *kf->exercise_command &&
				       kf->exercise_reading && *kf->exercise_reading))
			fail_msg("%s: claims but no whole exercise: add its question, command "
				 "and reading", kf->name);
	}
}

/*
 * The load of other work: a build that ended t s before the run weighs at
 * most cpus * e^(-t/60) in the 1-minute average. 2.44 on 2 CPUs a second
 * after a build is (2.44 - 2 e^(-1/60)) / 2 = 0.2365 per CPU; without a
 * build, or ten minutes after one, 1.22.
 */
static void test_load_of_other_work(void **state)
{
	struct run_context run = { .nr_load_avg = 3, .load_avg = { 2.44, 1.0, 0.5 },
				   .allowed_cpus = 2, .build_ended_s_before = 1 };

	(void)state;
	assert_float_equal(run_context_other_load_per_cpu(&run), (2.44 - 2 * exp(-1.0 / 60)) / 2, 1e-12);
	run.build_ended_s_before = 600;
	assert_float_equal(run_context_other_load_per_cpu(&run), (2.44 - 2 * exp(-10.0)) / 2, 1e-12);
	run.build_ended_s_before = -1;
	assert_float_equal(run_context_other_load_per_cpu(&run), 1.22, 1e-12);
	/* the CPUs the run was allowed (the reader's allowed_cpus), not the machine's */
	run.num_cpus = 64;
	assert_float_equal(run_context_other_load_per_cpu(&run), 1.22, 1e-12);
	run.allowed_cpus = 64;
	assert_float_equal(run_context_other_load_per_cpu(&run), 2.44 / 64, 1e-12);
	run.nr_load_avg = 0;
	assert_true(isnan(run_context_other_load_per_cpu(&run)));
}

/* A real run read and analysed, for the tests below. */
struct real_run {
	struct results set;
	struct result_cases cases;
	struct analysis a;
};

/* The run's rows only, for a test that changes them before the analysis. */
static void read_rows(struct real_run *run, const char *name)
{
	char path[PATH_MAX], err[512];

	memset(run, 0, sizeof(*run));
	snprintf(path, sizeof(path), "%s/data/runs/epyc-zen3-2026-12-01/%s", tests_dir, name);
	if (results_read(&run->set, path, err, sizeof(err)))
		fail_msg("%s", err);
}

static void analyse_run(struct real_run *run)
{
	assert_int_equal(result_cases_build(&run->set, &run->cases), 0);
	assert_int_equal(analysis_build(&run->set, &run->cases, &run->a), 0);
}

static void read_run(struct real_run *run, const char *name)
{
	read_rows(run, name);
	analyse_run(run);
}

static void free_run(struct real_run *run)
{
	analysis_free(&run->a);
	result_cases_free(&run->cases);
	results_free(&run->set);
}

static const struct family_view *family_of(const struct real_run *run, const char *name)
{
	for (size_t i = 0; i < run->a.nr_families; i++)
		if (!strcmp(run->a.families[i].name, name))
			return &run->a.families[i];
	fail_msg("no family %s", name);
	return NULL;
}

static struct claim_result check_run(const struct real_run *run, const char *family,
				     const char *text)
{
	const struct family_view *f = family_of(run, family);
	struct claim_result r;

	for (unsigned int k = 0; k < f->kf->nr_claims; k++) {
		if (strstr(f->kf->claims[k].text, text)) {
			claim_check(&run->set, &run->a, f, &f->kf->claims[k], &r);
			return r;
		}
	}
	fail_msg("%s has no claim \"%s\"", family, text);
	return r;
}

/*
 * A Zen 3 guest's default run, its values read off the file by hand: the
 * pingpong's one-way transfer per round 43.2, 49.5, 40.6, 85.4, 42.5,
 * 30.6, 440, 235, 41.4 ns (rounds 0-8), so the host's modes are rounds
 * {0,1,2,3,4,5,8} (30.6-85.4 ns) and {6,7} (235-440 ns).
 */
static void test_host_modes_of_a_real_run(void **state)
{
	const long near[] = { 0, 1, 2, 3, 4, 5, 8 }, far[] = { 6, 7 };
	struct real_run run;
	const struct host_modes *m;

	(void)state;
	read_run(&run, "default.json");
	m = &run.a.modes[0];
	assert_int_equal(m->nr, 2);
	assert_int_equal(m->modes[0].nr_rounds, 7);
	assert_int_equal(m->modes[1].nr_rounds, 2);
	assert_memory_equal(m->modes[0].rounds, near, sizeof(near));
	assert_memory_equal(m->modes[1].rounds, far, sizeof(far));
	assert_float_equal(m->modes[0].lo, 30.649684895021586, 1e-9);
	assert_float_equal(m->modes[0].hi, 85.44191004231233, 1e-9);
	assert_float_equal(m->modes[0].median, 42.458470799551876, 1e-9);
	assert_float_equal(m->modes[1].median, (235.41857807721152 + 439.76543890944663) / 2, 1e-9);
	free_run(&run);
}

/*
 * The same run as if --filter had kept the pingpong alone: the pingpong is
 * then the run's first family, and its rounds still give the host's two
 * modes, {0,1,2,3,4,5,8} and {6,7} (a search for it from the second
 * family on would find none).
 */
static void test_host_modes_of_the_pingpong_alone(void **state)
{
	const long near[] = { 0, 1, 2, 3, 4, 5, 8 }, far[] = { 6, 7 };
	struct real_run run;
	const struct host_modes *m;
	size_t kept = 0, all;

	(void)state;
	read_rows(&run, "default.json");
	/* the pingpong's rows first, in their order; the others set aside */
	for (size_t i = 0; i < run.set.nr_rows; i++) {
		if (run.set.rows[i].family && !strcmp(run.set.rows[i].family, "pingpong")) {
			struct result_row row = run.set.rows[kept];

			run.set.rows[kept++] = run.set.rows[i];
			run.set.rows[i] = row;
		}
	}
	assert_true(kept > 0);
	all = run.set.nr_rows;
	run.set.nr_rows = run.set.files[0].end_row = kept;
	analyse_run(&run);
	assert_string_equal(run.a.families[0].name, "pingpong");
	m = &run.a.modes[0];
	assert_int_equal(m->nr, 2);
	assert_int_equal(m->modes[0].nr_rounds, 7);
	assert_int_equal(m->modes[1].nr_rounds, 2);
	assert_memory_equal(m->modes[0].rounds, near, sizeof(near));
	assert_memory_equal(m->modes[1].rounds, far, sizeof(far));
	run.set.nr_rows = run.set.files[0].end_row = all;
	free_run(&run);
}

/* A row of the transfer baseline: pingpong/store_load at 2 threads. */
static bool is_store_load_pair(const struct result_row *r)
{
	return r->family && !strcmp(r->family, "pingpong") && !strcmp(r->variant, "store_load") &&
	       r->threads == 2;
}

/*
 * Every row of the transfer baseline (pingpong/store_load at 2 threads)
 * with a time above zero is a transfer, however short: a real run's
 * rows scaled down 1000 times (a round trip under 1 ns) are all still
 * found, each one way its row's ns/op over 2. Catches "ns_per_op > 0"
 * taken as "> 1".
 */
static void test_transfers_below_a_nanosecond(void **state)
{
	struct real_run run;
	size_t nr = 0;

	(void)state;
	read_rows(&run, "default.json");
	for (size_t i = 0; i < run.set.nr_rows; i++) {
		struct result_row *r = &run.set.rows[i];

		if (is_store_load_pair(r)) {
			r->ns_per_op /= 1000;
			assert_true(r->ns_per_op > 0 && r->ns_per_op < 1);
			nr++;
		}
	}
	assert_true(nr >= 9);
	analyse_run(&run);
	assert_int_equal(run.a.nr_transfers, nr);
	for (size_t i = 0, k = 0; i < run.set.nr_rows; i++) {
		const struct result_row *r = &run.set.rows[i];

		if (is_store_load_pair(r))
			assert_float_equal(run.a.transfers[k++].one_way_ns, r->ns_per_op / 2, 0);
	}
	free_run(&run);
}

/*
 * The plain packed update against the same round's one-way transfer: per
 * round 26.5/43.2, 17.3/49.5, 23.1/40.6, 16.2/85.4, 20.1/42.5, 4.44/30.6,
 * 4.34/440, 25.0/235, 4.71/41.4; their median is round 3's 0.189, the
 * interval's upper end (the 8th of 9) round 2's 0.569, below 1: seen. In the near mode's 7 rounds the
 * median is round 1's 0.349; the far mode's 2 rounds cannot test it.
 */
static void test_claim_against_the_transfer(void **state)
{
	struct real_run run;
	struct claim_result r;

	(void)state;
	read_run(&run, "default.json");
	r = check_run(&run, "counter", "plain updates cost less than a line transfer");
	assert_int_equal(r.mark, CLAIM_SEEN);
	assert_int_equal(r.ratio.pairs, 9);
	assert_float_equal(r.ratio.ratio, 16.169240535720462 / 85.44191004231233, 1e-12);
	assert_float_equal(r.ratio.median_num, 16.169240535720462, 1e-12);
	assert_float_equal(r.ratio.median_den, 85.44191004231233, 1e-12);
	assert_float_equal(r.ratio.hi, 23.069087882066405 / 40.55711316311698, 1e-12);
	assert_int_equal(r.nr_modes, 2);
	assert_int_equal(r.modes[0].mark, CLAIM_SEEN);
	assert_int_equal(r.modes[0].rounds, 7);
	assert_float_equal(r.modes[0].ratio.ratio, 17.257440260054636 / 49.459966082235916, 1e-12);
	assert_int_equal(r.modes[1].mark, CLAIM_NOT_TESTABLE);
	assert_int_equal(r.modes[1].rounds, 2);
	/*
	 * The pingpong against the run's 1-thread cache hit (counter's
	 * percpu_padded): per-round ratios 28.9, 33.7, 34.3, 59.0, 61.4,
	 * 21.2, 579, 167, 30.3; median round 2's 40.6 / 1.18 = 34.3x.
	 */
	r = check_run(&run, "pingpong", "far more than a cache hit");
	assert_int_equal(r.mark, CLAIM_SEEN);
	assert_float_equal(r.ratio.ratio, 40.55711316311698 / 1.1814028031328418, 1e-9);
	assert_float_equal(r.ratio.lo, 43.15428879170666 / 1.4937626879165566, 1e-9);
	assert_float_equal(r.ratio.hi, 235.41857807721152 / 1.408393596095547, 1e-9);
	free_run(&run);
}

/*
 * The same run as if the machine had been busy: a load average of 10 on
 * its 2 allowed CPUs is 5 per CPU, above the claims' limit. The claim is
 * not testable, says the load, keeps its numbers, and keeps no host mode
 * (its per-mode marks would be read as decided). At 2.0 per CPU, the
 * limit, it is decided.
 */
static void test_claim_on_a_busy_machine(void **state)
{
	struct real_run run;
	struct claim_result r;
	struct run_context *context;

	(void)state;
	read_run(&run, "default.json");
	context = &run.set.files[0].run;
	context->nr_load_avg = 3;
	context->load_avg[0] = context->load_avg[1] = context->load_avg[2] = 10.0;
	context->build_ended_s_before = -1;
	r = check_run(&run, "counter", "plain updates cost less than a line transfer");
	assert_int_equal(r.mark, CLAIM_NOT_TESTABLE);
	assert_int_equal(r.nr_modes, 0);
	assert_non_null(strstr(r.why, "a load average of 5.0 per CPU"));
	assert_non_null(strstr(r.why, "Measured anyway: median round"));
	assert_float_equal(r.ratio.ratio, 16.169240535720462 / 85.44191004231233, 1e-12);
	/* 4 on 2 CPUs is 2.0 per CPU, the limit itself: still decided */
	context->load_avg[0] = context->load_avg[1] = context->load_avg[2] = 4.0;
	r = check_run(&run, "counter", "plain updates cost less than a line transfer");
	assert_int_equal(r.mark, CLAIM_SEEN);
	assert_int_equal(r.nr_modes, 2);
	free_run(&run);
}

/*
 * The same run as if a thread spinning on each CPU had got half its time
 * as the run started (context.cpu_share 0.5): its 2-thread claims are not
 * testable, say the share, keep their numbers and no host mode. At 0.8,
 * the limit, and where the run did not measure it, they are decided.
 */
static void test_claim_when_the_cpus_were_taken(void **state)
{
	struct real_run run;
	struct claim_result r;

	(void)state;
	read_run(&run, "default.json");
	run.set.files[0].run.cpu_share = 0.5;
	r = check_run(&run, "counter", "plain updates cost less than a line transfer");
	assert_int_equal(r.mark, CLAIM_NOT_TESTABLE);
	assert_int_equal(r.nr_modes, 0);
	assert_non_null(strstr(r.why, "a thread spinning on each CPU got 50% of its time"));
	/* and the share it needed, RUN_MIN_CPU_SHARE (0.8), in percent (not 100 / 0.8) */
	assert_non_null(strstr(r.why, "as the run started, 80% needed"));
	assert_non_null(strstr(r.why, "Measured anyway: median round"));
	run.set.files[0].run.cpu_share = 0.8;
	r = check_run(&run, "counter", "plain updates cost less than a line transfer");
	assert_int_equal(r.mark, CLAIM_SEEN);
	run.set.files[0].run.cpu_share = 0.79;
	assert_int_equal(check_run(&run, "counter", "plain updates cost less than a line transfer").mark,
			 CLAIM_NOT_TESTABLE);
	run.set.files[0].run.cpu_share = NAN;
	r = check_run(&run, "counter", "plain updates cost less than a line transfer");
	assert_int_equal(r.mark, CLAIM_SEEN);
	free_run(&run);
}

/*
 * "Within x" needs both ends of the interval: has_pinned at already_set=0,
 * store_always over read_then_set per round 0.559, 0.659, 0.739, 0.775,
 * 0.951, 0.952, 1.05, 1.10, 1.32 (rounds 2, 7, 4, 1, 8, 3, 6, 0, 5): the
 * median 0.951 is within 1.5x either way, the interval 0.659-1.10 (the 2nd
 * and 8th of 9) is not, since 0.659 < 1 / 1.5, so it is undecided; within
 * 1.6x (0.625) it is seen, and within 1.04x the median is outside: not seen.
 */
static void test_within_needs_both_ends(void **state)
{
	struct kernel_claim c = {
		.text = "t", .a = "store_always", .b = "read_then_set", .setting = "already_set=0",
		.threads = CLAIM_MOST_THREADS, .relation = CLAIM_WITHIN, .x = 1.5,
	};
	const struct family_view *f;
	struct real_run run;
	struct claim_result r;

	(void)state;
	read_run(&run, "default.json");
	f = family_of(&run, "has_pinned");
	claim_check(&run.set, &run.a, f, &c, &r);
	assert_float_equal(r.ratio.lo, 0.6585325852256989, 1e-12);
	assert_float_equal(r.ratio.hi, 1.1016062638184443, 1e-12);
	assert_int_equal(r.mark, CLAIM_NOT_TESTABLE);
	c.x = 1.6;
	claim_check(&run.set, &run.a, f, &c, &r);
	assert_int_equal(r.mark, CLAIM_SEEN);
	c.x = 1.04;
	claim_check(&run.set, &run.a, f, &c, &r);
	assert_int_equal(r.mark, CLAIM_NOT_SEEN);
	free_run(&run);
}

/*
 * Three repetitions cannot decide a claim: not testable, with the
 * repetitions it needs, never NOT SEEN (the same guest's --quick run
 * before --quick ran 6 rounds: store_always 26.2, 24.2, 21.6 against
 * read_then_set 4.41, 4.32, 4.54 ns).
 */
static void test_too_few_repetitions(void **state)
{
	struct real_run run;
	struct claim_result r;

	(void)state;
	read_run(&run, "quick.json");
	r = check_run(&run, "has_pinned", "reading it first beats storing");
	assert_int_equal(r.mark, CLAIM_NOT_TESTABLE);
	assert_non_null(strstr(r.why, "3 repetitions; this test needs at least 6"));
	r = check_run(&run, "counter", "loses updates");
	assert_int_equal(r.mark, CLAIM_NOT_TESTABLE);
	assert_non_null(strstr(r.why, "needs at least 6"));
	free_run(&run);
}

/*
 * The numbers' words agree with their counts: "at 1 thread" and "at 2
 * threads", "(1 round)" and "(2 rounds)", in a result built by hand.
 */
static void numbers_agree_in_number(void **state)
{
	const struct kernel_claim below = {
		.text = "stays below", .a = "shared_atomic", .relation = CLAIM_BELOW, .x = 10,
	};
	const struct host_mode near = { .lo = 31.5, .hi = 49.5 }, mid = { .lo = 80.5, .hi = 90.5 },
			       far = { .lo = 235, .hi = 235 };
	struct claim_result r = {
		.claim = &below, .mark = CLAIM_SEEN, .threads = 1,
		.ratio = { .ratio = 5.12, .lo = 4.93, .hi = 5.31 },
	};
	char buf[1024], want[512];

	(void)state;
	claim_numbers(buf, sizeof(buf), &r);
	assert_string_equal(buf, "5.12 (95% CI 4.93–5.31) at 1 thread");
	r.threads = 2;
	claim_numbers(buf, sizeof(buf), &r);
	assert_string_equal(buf, "5.12 (95% CI 4.93–5.31) at 2 threads");
	r.nr_modes = 3;
	r.modes[0] = (struct claim_in_mode){ .mode = &near, .mark = CLAIM_SEEN,
					     .ratio = { .ratio = 5.12 }, .rounds = 1 };
	r.modes[1] = (struct claim_in_mode){ .mode = &mid, .mark = CLAIM_NOT_TESTABLE,
					     .rounds = 2 };
	r.modes[2] = (struct claim_in_mode){ .mode = &far, .mark = CLAIM_NOT_SEEN,
					     .ratio = { .ratio = 12.5 }, .rounds = 7 };
	claim_numbers(buf, sizeof(buf), &r);
	snprintf(want, sizeof(want), "5.12 (95%% CI 4.93–5.31) at 2 threads. By host mode: "
		 "31.5–49.5 ns one way (1 round): seen, 5.12; 80.5–90.5 ns one way (2 rounds): "
		 "not testable (needs %d); 235 ns one way (7 rounds): NOT SEEN, 12.5",
		 CLAIM_MIN_REPETITIONS);
	assert_string_equal(buf, want);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_at_least),
		cmocka_unit_test(test_within),
		cmocka_unit_test(test_at_most),
		cmocka_unit_test(test_bounds),
		cmocka_unit_test(test_one_thread),
		cmocka_unit_test(test_not_testable),
		cmocka_unit_test(test_shared_core),
		cmocka_unit_test(test_verdict_rule),
		cmocka_unit_test(test_verdict_edges),
		cmocka_unit_test(test_relations_at_their_bounds),
		cmocka_unit_test(test_claim_on_a_busy_machine),
		cmocka_unit_test(test_claim_when_the_cpus_were_taken),
		cmocka_unit_test(test_missing_b_says_where_it_looked),
		cmocka_unit_test(test_count_over_ops),
		cmocka_unit_test(test_catalogue_claims),
		cmocka_unit_test(test_load_of_other_work),
		cmocka_unit_test(test_host_modes_of_a_real_run),
		cmocka_unit_test(test_host_modes_of_the_pingpong_alone),
		cmocka_unit_test(test_transfers_below_a_nanosecond),
		cmocka_unit_test(test_claim_against_the_transfer),
		cmocka_unit_test(test_too_few_repetitions),
		cmocka_unit_test(test_within_needs_both_ends),
		cmocka_unit_test(numbers_agree_in_number),
	};

	if (argc != 2) {
		fprintf(stderr, "usage: test_claims SOURCE_DIR/tests\n");
		return 2;
	}
	tests_dir = argv[1];
	return cmocka_run_group_tests(tests, setup, teardown);
}
