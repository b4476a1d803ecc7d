// SPDX-License-Identifier: GPL-2.0-only
/*
 * Checking the lessons' claims against a run.
 *
 * A claim names two variants, a metric, a setting, a thread condition and
 * an architecture. The check finds the table of that setting, the two
 * cases at that thread count, and compares their repetitions with the
 * report's one rule (verdict.h). Whatever it cannot find becomes the
 * reason the claim is not testable here, in words a reader can act on.
 * A claim's words and numbers in the report are claim_text.c's.
 */
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "claims.h"
#include "claims_internal.h"
#include "run_checks.h"
#include "setting.h"
#include "verdict.h"

__attribute__((format(printf, 2, 3)))
static void not_testable(struct claim_result *r, const char *fmt, ...)
{
	va_list ap;

	r->mark = CLAIM_NOT_TESTABLE;
	va_start(ap, fmt);
	vsnprintf(r->why, sizeof(r->why), fmt, ap);
	va_end(ap);
}

static bool is_x86(const char *arch)
{
	return !strcmp(arch, "x86_64") || !strcmp(arch, "i386") ||
	       !strcmp(arch, "i686");
}

/* The metric's repetitions in a case (NULL metric: ns per op), or NULL. */
static const double *metric_values(const struct result_case *c, const char *metric,
				   size_t *n)
{
	const struct case_counter *cc;

	if (!metric) {
		*n = c->n;
		return c->ns;
	}
	cc = result_case_counter(c, metric);
	if (!cc)
		return NULL;
	*n = cc->n;
	return cc->values;
}

/* The thread count the claim is checked at, or 0 with the reason. */
static long pick_threads(const struct analysis *a, const struct group_view *g,
			 const struct kernel_claim *c, struct claim_result *r)
{
	bool needs_b = !single_variant(c) && !b_elsewhere(c) &&
		       c->b_threads == CLAIM_B_SAME_THREADS;

	if (c->threads == CLAIM_ONE_THREAD) {
		if (group_view_find(a, g, c->a, 1) && (!needs_b || group_view_find(a, g, c->b, 1)))
			return 1;
		not_testable(r, "no 1-thread case of %s%s%s in the run", c->a,
			     needs_b ? " and " : "", needs_b ? c->b : "");
		return 0;
	}
	for (size_t i = g->nr_threads; i-- > 0;) {
		long t = g->threads[i];

		if (t < 2)
			break;
		if (group_view_find(a, g, c->a, t) && (!needs_b || group_view_find(a, g, c->b, t)))
			return t;
	}
	if (g->threads[g->nr_threads - 1] >= 2)
		not_testable(r, "no case of %s%s%s at 2 or more threads in the run (a --filter left "
			     "it out, or the results predate the variant)", c->a,
			     needs_b ? " and " : "", needs_b ? c->b : "");
	else
		not_testable(r, "only 1 thread was measured: the claim needs 2 or more on distinct "
			     "cores (run with --threads 1,2 on a machine with 2 or more CPUs)");
	return 0;
}

/* The default table of a family of the same file, by name, or NULL. */
static const struct group_view *default_group_of(const struct analysis *a, unsigned int file,
						 const char *family, size_t len)
{
	for (size_t i = 0; i < a->nr_families; i++) {
		const struct family_view *f = &a->families[i];

		if (f->file == file && f->nr_groups && strlen(f->name) == len &&
		    !strncmp(f->name, family, len) && a->groups[f->default_group].is_default)
			return &a->groups[f->default_group];
	}
	return NULL;
}

/* The case b stands for, or NULL with the reason. */
static const struct result_case *find_b(const struct analysis *a, const struct family_view *f,
					const struct group_view *g, long t, struct claim_result *r)
{
	const struct kernel_claim *c = r->claim;
	const char *slash = b_elsewhere(c);
	const char *variant = slash ? slash + 1 : c->b;
	const struct case_view *v = NULL;

	if (slash) {
		g = default_group_of(a, f->file, c->b, (size_t)(slash - c->b));
		if (!g) {
			not_testable(r, "no case of %.*s at its default setting in the run, which the "
				     "claim compares with (leave it in --filter)", (int)(slash - c->b), c->b);
			return NULL;
		}
	}
	switch (c->b_threads) {
	case CLAIM_B_SAME_THREADS:
		v = group_view_find(a, g, variant, t);
		break;
	case CLAIM_B_ONE_THREAD:
		v = group_view_find(a, g, variant, 1);
		break;
	default:
		for (size_t i = g->nr_threads; i-- > 0 && !v && g->threads[i] >= 2;)
			v = group_view_find(a, g, variant, g->threads[i]);
	}
	if (!v)
		not_testable(r, "no case of %s %s in the run, which the claim compares with", c->b,
			     c->b_threads == CLAIM_B_ONE_THREAD ? "at 1 thread" :
			     c->b_threads == CLAIM_B_MOST_THREADS ? "at 2 or more threads" :
								    "at the same thread count");
	return v ? v->c : NULL;
}

static bool distinct_cores(const char *cls)
{
	return distance_rank(cls) > distance_rank("smt");
}

/* Why a counter is missing: the file's context.counters.na, if it says. */
static const char *counter_na_reason(const struct results *set, unsigned int file,
				     const char *metric)
{
	const char *why = run_context_counter_na(&set->files[file].run, metric);

	return why ? why : "not recorded in these results";
}

/*
 * The mark from where the median falls and what the interval (or the test)
 * confirms. A median on the claim's side that the interval does not
 * confirm is not a contradiction: those repetitions cannot decide it, and
 * the claim is not testable here with the numbers, never NOT SEEN.
 */
static void mark(struct claim_result *r, bool median_agrees, bool confirmed, size_t n)
{
	char numbers[512];

	r->mark = confirmed && median_agrees ? CLAIM_SEEN :
		  median_agrees ? CLAIM_NOT_TESTABLE : CLAIM_NOT_SEEN;
	if (r->mark != CLAIM_NOT_TESTABLE)
		return;
	r->mark = CLAIM_SEEN;	/* for the numbers only */
	claim_numbers(numbers, sizeof(numbers), r);
	not_testable(r, "%zu %s cannot decide it: the median is on the claim's side, its 95%% "
		     "interval (or the test) is not (rerun with more --repetitions). Measured: %s",
		     n, r->ratio.pairs ? "paired rounds" : "repetitions", numbers);
}

/* One side of a claim: a case and its values of the claim's metric for it. */
struct claim_side {
	const struct result_case *c;
	const double *v;
	size_t n;
};

/*
 * The mark of a claim on two sides' values (b.c NULL: one variant). Sets
 * r's mark, ratio, p and medians; too few values to decide it is not
 * testable, with the repetitions the test needs.
 */
static void judge(struct claim_side sa, struct claim_side sb, struct claim_result *r)
{
	const struct kernel_claim *c = r->claim;
	struct stats_summary s;

	r->a_median = stats_median(sa.v, sa.n);
	if (single_variant(c)) {
		if (sa.n < CLAIM_MIN_REPETITIONS) {
			not_testable(r, "%zu repetitions; this test needs at least %d (run with "
				     "--repetitions %d or more)", sa.n, CLAIM_MIN_REPETITIONS,
				     CLAIM_MIN_REPETITIONS);
			return;
		}
		if (stats_summarize(sa.v, sa.n, &s)) {
			not_testable(r, "out of memory checking the claim");
			return;
		}
		r->ratio = (struct stats_ratio){ .ratio = s.median, .lo = s.ci_lo, .hi = s.ci_hi };
		r->p = NAN;
		if (c->relation == CLAIM_BELOW)
			mark(r, s.median < c->x, s.ci_hi < c->x, sa.n);
		else
			mark(r, s.median > c->x, s.ci_lo > c->x, sa.n);
		return;
	}
	r->b_median = stats_median(sb.v, sb.n);
	if (r->b_median == 0 ||
	    analysis_compare(sa.c, sa.v, sa.n, sb.c, sb.v, sb.n, &r->ratio, &r->p)) {
		not_testable(r, "%s of %s is 0: no ratio", b_metric_name(c), c->b);
		return;
	}
	/* paired rounds decide with 6; unpaired, each side needs as many */
	if (!r->ratio.pairs && (sa.n < CLAIM_MIN_REPETITIONS || sb.n < CLAIM_MIN_REPETITIONS)) {
		not_testable(r, "%zu repetitions; this test needs at least %d (run with "
			     "--repetitions %d or more)", sa.n < sb.n ? sa.n : sb.n,
			     CLAIM_MIN_REPETITIONS, CLAIM_MIN_REPETITIONS);
		return;
	}
	if (c->relation == CLAIM_AT_LEAST)
		mark(r, r->ratio.ratio >= c->x,
		     verdict_of(&r->ratio, r->p) == VERDICT_SLOWER, r->ratio.pairs ? r->ratio.pairs : sa.n);
	else if (c->relation == CLAIM_AT_MOST)
		/* the whole CI at or below x: a median below x could be luck */
		mark(r, r->ratio.ratio <= c->x, isfinite(r->ratio.hi) && r->ratio.hi <= c->x,
		     r->ratio.pairs ? r->ratio.pairs : sa.n);
	else
		mark(r, r->ratio.ratio >= 1 / c->x && r->ratio.ratio <= c->x,
		     isfinite(r->ratio.lo) && r->ratio.lo >= 1 / c->x && r->ratio.hi <= c->x,
		     r->ratio.pairs ? r->ratio.pairs : sa.n);
}

/* A side restricted to the rounds of one mode, in buffers of the side's size. */
static struct claim_side side_in_mode(struct claim_side s, const struct host_mode *m,
				      struct result_case *copy, double *v, long *rounds)
{
	*copy = *s.c;
	copy->rounds = rounds;
	copy->n = host_mode_filter(m, s.v, s.c->rounds, s.n, v, rounds);
	return (struct claim_side){ copy, v, copy->n };
}

/*
 * The claim on each host mode's rounds, when the file has several and both
 * sides ran in them: a transfer's cost is the mode's.
 */
static void judge_modes(const struct analysis *a, unsigned int file, struct claim_side sa,
			struct claim_side sb, struct claim_result *r)
{
	const struct host_modes *modes = &a->modes[file];
	size_t room = sa.n > sb.n ? sa.n : sb.n;
	double *va = malloc((room + 1) * sizeof(*va)), *vb = malloc((room + 1) * sizeof(*vb));
	long *ra = malloc((room + 1) * sizeof(*ra)), *rb = malloc((room + 1) * sizeof(*rb));
	struct result_case ca, cb;
	struct claim_result in_mode;

	if (modes->nr < 2 || !sa.c->rounds || sa.n != sa.c->n ||
	    (sb.c && (!sb.c->rounds || sb.n != sb.c->n)) || !va || !vb || !ra || !rb)
		goto out;
	for (size_t i = 0; i < modes->nr; i++) {
		struct claim_side ma = side_in_mode(sa, &modes->modes[i], &ca, va, ra);
		struct claim_side mb = sb.c ? side_in_mode(sb, &modes->modes[i], &cb, vb, rb) : sb;

		memset(&in_mode, 0, sizeof(in_mode));
		in_mode.claim = r->claim;
		in_mode.p = NAN;
		if (!ma.n || (sb.c && !mb.n))
			continue;
		judge(ma, mb, &in_mode);
		r->modes[r->nr_modes++] = (struct claim_in_mode){
			.mode = &modes->modes[i], .mark = in_mode.mark, .ratio = in_mode.ratio,
			.p = in_mode.p, .rounds = ma.n,
		};
	}
out:
	free(va);
	free(vb);
	free(ra);
	free(rb);
}

static void compare_cases(const struct analysis *a, const struct family_view *f,
			  const struct result_case *ca, const struct result_case *cb,
			  struct claim_result *r)
{
	const struct kernel_claim *c = r->claim;
	struct claim_side sa = { .c = ca }, sb = { .c = cb };

	sa.v = metric_values(ca, c->metric, &sa.n);
	if (cb)
		sb.v = metric_values(cb, b_metric(c), &sb.n);
	if (!sa.v || (cb && !sb.v)) {
		const char *missing = sa.v ? b_metric(c) : c->metric;

		not_testable(r, "counter %s: %s", missing,
			     counter_na_reason(a->set, f->file, missing));
		return;
	}
	if (sa.n < 2 || (cb && sb.n < 2)) {
		not_testable(r, "one repetition: no interval to check against "
			     "(run with --repetitions %d or more)", CLAIM_MIN_REPETITIONS);
		return;
	}
	judge(sa, sb, r);
	if (r->mark != CLAIM_NOT_TESTABLE && r->threads >= 2)
		judge_modes(a, f->file, sa, sb, r);
}

/*
 * Load average per CPU above which a run is too busy to test a claim:
 * with more than two other runnable tasks per CPU, each of our threads
 * ran less than half the time and rarely beside the others, so neither a
 * contention effect nor its absence can be read from the times. (The
 * report warns of a busy machine from RUN_BUSY_LOAD, a quarter of this.)
 */
#define CLAIM_MAX_LOAD_PER_CPU 2.0


void claim_check(const struct results *set, const struct analysis *a,
		 const struct family_view *f, const struct kernel_claim *c,
		 struct claim_result *r)
{
	const char *arch = set->files[f->file].run.arch;
	const struct group_view *g;
	const struct case_view *va;
	const struct result_case *cb = NULL;
	char other[160], numbers[512];
	double load, share;
	long t;

	memset(r, 0, sizeof(*r));
	r->family = f;
	r->claim = c;
	r->p = NAN;
	r->a_median = r->b_median = NAN;
	r->ratio = (struct stats_ratio){ .ratio = NAN, .lo = NAN, .hi = NAN };
	if (c->arch == CLAIM_X86 && !arch) {
		not_testable(r, "the results do not record the architecture, and the claim is "
			     "about x86 (rerun with this bouncelab)");
		return;
	}
	if (c->arch == CLAIM_X86 && !is_x86(arch)) {
		not_testable(r, "other architecture (%s): the claim relies on x86 (its store buffer or its lock prefix)",
			     arch);
		return;
	}
	g = analysis_find_setting(a, f, c->setting);
	if (!g) {
		char hint[160] = "", err[160];
		struct setting want;

		if (setting_parse(&want, f->kf, c->setting, err, sizeof(err))) {
			/* no run can add it: say what the catalogue does not take */
			not_testable(r, "no case at %s in the run (%s)", c->setting, err);
			return;
		}
		setting_format(&want, SETTING_OPTIONS, hint, sizeof(hint));
		not_testable(r, "no case at %s in the run%s%s%s",
			     c->setting ? c->setting : "the default setting", hint[0] ? " (add " : "",
			     hint, hint[0] ? ")" : "");
		return;
	}
	t = pick_threads(a, g, c, r);
	if (!t)
		return;
	r->threads = t;
	va = group_view_find(a, g, c->a, t);
	if (!single_variant(c)) {
		cb = find_b(a, f, g, t, r);
		if (!cb)
			return;
	}
	r->distance = va->c->widest_class;
	if (t >= 2 && !r->distance) {
		not_testable(r, "the placement's distance class was not recorded");
		return;
	}
	if (t >= 2 && !distinct_cores(r->distance)) {
		not_testable(r, "the threads shared a core (distance %s): the claim needs distinct cores",
			     r->distance);
		return;
	}
	compare_cases(a, f, va->c, cb, r);
	if (r->mark == CLAIM_NOT_TESTABLE)
		return;
	share = set->files[f->file].run.cpu_share;
	load = run_context_other_load_per_cpu(&set->files[f->file].run);
	if (t >= 2 && share < RUN_MIN_CPU_SHARE)
		snprintf(other, sizeof(other), "a thread spinning on each CPU got %.0f%% of its "
			 "time as the run started, %.0f%% needed", 100 * share,
			 100 * RUN_MIN_CPU_SHARE);
	else if (load > CLAIM_MAX_LOAD_PER_CPU)
		snprintf(other, sizeof(other), "a load average of %.1f per CPU at the start, "
			 "our own build's share taken off", load);
	else
		return;
	/* the numbers stay, but no per-mode marks: they would read as decided */
	claim_numbers(numbers, sizeof(numbers), r);
	r->nr_modes = 0;
	not_testable(r, "busy machine (other work: %s): threads took turns with other work; "
		     "rerun on an idle machine. Measured anyway: %s", other, numbers);
}

int claims_evaluate(const struct results *set, const struct analysis *a,
		    struct claim_report *out)
{
	size_t nr = 0;

	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < a->nr_families; i++)
		if (a->families[i].kf)
			nr += a->families[i].kf->nr_claims;
	/* exactly nr: a reader that runs one past its end meets no spare slot */
	out->results = calloc(nr ? nr : 1, sizeof(*out->results));
	if (!out->results)
		return -1;
	for (size_t i = 0; i < a->nr_families; i++) {
		const struct family_view *f = &a->families[i];

		for (unsigned int k = 0; f->kf && k < f->kf->nr_claims; k++) {
			struct claim_result *r = &out->results[out->nr++];

			claim_check(set, a, f, &f->kf->claims[k], r);
			if (r->mark == CLAIM_SEEN)
				out->nr_seen++;
			else if (r->mark == CLAIM_NOT_SEEN)
				out->nr_not_seen++;
			else
				out->nr_not_testable++;
		}
	}
	return 0;
}

void claims_free(struct claim_report *r)
{
	free(r->results);
	memset(r, 0, sizeof(*r));
}
