// SPDX-License-Identifier: GPL-2.0-only
/*
 * Checking the lessons' claims against a run.
 *
 * A claim names two variants, a metric, a setting, a thread condition and
 * an architecture. The check finds the table of that setting, the two
 * cases at that thread count, and compares their repetitions with the
 * report's one rule (verdict.h). Whatever it cannot find becomes the
 * reason the claim is not testable here, in words a reader can act on.
 */
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "claims.h"
#include "format.h"
#include "verdict.h"

const char *claim_mark_word(enum claim_mark mark)
{
	switch (mark) {
	case CLAIM_SEEN:
		return "seen";
	case CLAIM_NOT_SEEN:
		return "NOT SEEN";
	default:
		return "not testable here";
	}
}

/* BELOW and ABOVE check one variant's metric; the others compare two. */
static bool single_variant(const struct kernel_claim *c)
{
	return c->relation == CLAIM_BELOW || c->relation == CLAIM_ABOVE;
}

static const char *metric_name(const struct kernel_claim *c)
{
	return c->metric ? c->metric : "ns/op";
}

void claim_condition(char *buf, size_t len, const struct kernel_claim *c)
{
	snprintf(buf, len, "%s, %s%s", c->setting ? c->setting : "defaults",
		 c->threads == CLAIM_ONE_THREAD ? "1 thread" :
						  "most threads (2+ on distinct cores)",
		 c->arch == CLAIM_X86 ? ", x86 only" : "");
}

void claim_expectation(char *buf, size_t len, const struct kernel_claim *c)
{
	char x[FORMAT_LEN];

	switch (c->relation) {
	case CLAIM_AT_LEAST:
		snprintf(buf, len, "%s / %s ≥ %s (%s)", c->a, c->b, format_ratio(x, c->x),
			 metric_name(c));
		break;
	case CLAIM_WITHIN:
		snprintf(buf, len, "%s / %s within %s either way (%s)", c->a, c->b,
			 format_ratio(x, c->x), metric_name(c));
		break;
	case CLAIM_AT_MOST:
		snprintf(buf, len, "%s / %s ≤ %s (%s)", c->a, c->b, format_ratio(x, c->x),
			 metric_name(c));
		break;
	case CLAIM_BELOW:
		snprintf(buf, len, "%s of %s < %s", metric_name(c), c->a, format_sig(x, c->x));
		break;
	default:
		snprintf(buf, len, "%s of %s > %s", metric_name(c), c->a, format_sig(x, c->x));
		break;
	}
}

void claim_numbers(char *buf, size_t len, const struct claim_result *r)
{
	char ratio[FORMAT_LEN], p[FORMAT_LEN], a[FORMAT_LEN], b[FORMAT_LEN];
	char where[96];

	if (r->mark == CLAIM_NOT_TESTABLE) {
		snprintf(buf, len, "%s", r->why);
		return;
	}
	snprintf(where, sizeof(where), "at %ld thread%s%s%s%s", r->threads,
		 r->threads == 1 ? "" : "s", r->distance ? " (" : "",
		 r->distance ? r->distance : "", r->distance ? ")" : "");
	if (single_variant(r->claim)) {
		snprintf(buf, len, "%s (95%% CI %s–%s) %s", format_sig(a, r->ratio.ratio),
			 format_sig(ratio, r->ratio.lo), format_sig(p, r->ratio.hi), where);
		return;
	}
	format_ratio_ci(ratio, &r->ratio);
	format_p(p, r->p);
	snprintf(buf, len, "%s vs %s %s: %s, p %s%s, %s", format_sig(a, r->a_median),
		 format_sig(b, r->b_median), metric_name(r->claim), ratio,
		 p[0] == '<' ? "" : "= ", p, where);
}

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

/* The value a setting "a=1,b=locked" gives parameter p, else its default. */
static long setting_value(const struct kernel_family *kf, const char *setting,
			  int p)
{
	const struct kernel_param *param = &kf->params[p];
	size_t name_len = strlen(param->name);
	char err[128], item[64];
	long v;

	for (const char *s = setting; s && *s; ) {
		size_t len = strcspn(s, ",");

		if (len > name_len && !strncmp(s, param->name, name_len) && s[name_len] == '=') {
			snprintf(item, sizeof(item), "%.*s", (int)(len - name_len - 1),
				 s + name_len + 1);
			if (!kernel_param_parse(param, item, &v, err, sizeof(err)))
				return v;
		}
		s += len;
		if (*s == ',')
			s++;
	}
	return param->def;
}

/* A group's parameter p as a number (choices by index); missing: the default. */
static long group_value(const struct kernel_family *kf, json_t *params, int p)
{
	const struct kernel_param *param = &kf->params[p];
	json_t *v = json_object_get(params, param->name);
	char err[128];
	long out;

	if (json_is_integer(v))
		return (long)json_integer_value(v);
	if (json_is_string(v) && !kernel_param_parse(param, json_string_value(v), &out,
						     err, sizeof(err)))
		return out;
	return v ? LONG_MIN : param->def;
}

static const struct group_view *find_setting(const struct analysis *a,
					     const struct family_view *f,
					     const struct kernel_claim *c)
{
	const struct kernel_family *kf = f->kf;

	for (size_t k = f->first_group; k < f->first_group + f->nr_groups; k++) {
		const struct group_view *g = &a->groups[k];
		unsigned int p;

		for (p = 0; p < kf->nr_params; p++)
			if (group_value(kf, g->group->params, (int)p) !=
			    setting_value(kf, c->setting, (int)p))
				break;
		if (p == kf->nr_params)
			return g;
	}
	return NULL;
}

/* The metric's repetitions in a case, or NULL. */
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
	if (c->threads == CLAIM_ONE_THREAD) {
		if (group_view_find(a, g, c->a, 1) &&
		    (single_variant(c) || group_view_find(a, g, c->b, 1)))
			return 1;
		not_testable(r, "no 1-thread case of %s%s%s in the run", c->a,
			     single_variant(c) ? "" : " and ",
			     single_variant(c) ? "" : c->b);
		return 0;
	}
	for (size_t i = g->nr_threads; i-- > 0;) {
		long t = g->threads[i];

		if (t < 2)
			break;
		if (group_view_find(a, g, c->a, t) &&
		    (single_variant(c) || group_view_find(a, g, c->b, t)))
			return t;
	}
	if (g->threads[g->nr_threads - 1] >= 2)
		not_testable(r, "no case of %s%s%s at 2 or more threads in the run (a --filter left "
			     "it out, or the results predate the variant)", c->a,
			     single_variant(c) ? "" : " and ", single_variant(c) ? "" : c->b);
	else
		not_testable(r, "only 1 thread was measured: the claim needs 2 or more on distinct "
			     "cores (run with --threads 1,2 on a machine with 2 or more CPUs)");
	return 0;
}

static bool distinct_cores(const char *cls)
{
	return distance_rank(cls) > distance_rank("smt");
}

/* Why a counter is missing: the file's context.counters.na, if it says. */
static const char *counter_na_reason(const struct results *set, unsigned int file,
				     const char *metric)
{
	json_t *na = json_object_get(json_object_get(set->files[file].context, "counters"), "na");
	json_t *why = json_object_get(na, metric);

	return json_is_string(why) ? json_string_value(why) : "not recorded in these results";
}

static void compare_cases(const struct results *set, const struct family_view *f,
			  const struct result_case *ca, const struct result_case *cb,
			  struct claim_result *r)
{
	const struct kernel_claim *c = r->claim;
	const double *va, *vb = NULL;
	size_t na = 0, nb = 0;
	struct stats_summary s;

	va = metric_values(ca, c->metric, &na);
	if (cb)
		vb = metric_values(cb, c->metric, &nb);
	if (!va || (cb && !vb)) {
		not_testable(r, "counter %s: %s", c->metric,
			     counter_na_reason(set, f->file, c->metric));
		return;
	}
	if (na < 2 || (cb && nb < 2)) {
		not_testable(r, "one repetition: no interval to check against "
			     "(run with --repetitions 5 or more)");
		return;
	}
	r->a_median = stats_median(va, na);
	if (single_variant(c)) {
		if (stats_summarize(va, na, &s))
			goto oom;
		r->ratio = (struct stats_ratio){ .ratio = s.median, .lo = s.ci_lo, .hi = s.ci_hi };
		r->p = NAN;
		if (c->relation == CLAIM_BELOW)
			r->mark = s.ci_hi < c->x ? CLAIM_SEEN : CLAIM_NOT_SEEN;
		else
			r->mark = s.ci_lo > c->x ? CLAIM_SEEN : CLAIM_NOT_SEEN;
		return;
	}
	r->b_median = stats_median(vb, nb);
	if (r->b_median == 0 || analysis_compare(ca, va, na, cb, vb, nb, &r->ratio, &r->p)) {
		not_testable(r, "%s of %s is 0: no ratio", metric_name(c), c->b);
		return;
	}
	if (c->relation == CLAIM_AT_LEAST)
		r->mark = r->ratio.ratio >= c->x &&
			  verdict_of(&r->ratio, r->p) == VERDICT_SLOWER ? CLAIM_SEEN : CLAIM_NOT_SEEN;
	else if (c->relation == CLAIM_AT_MOST)
		/* the whole CI at or below x: a median below x could be luck */
		r->mark = isfinite(r->ratio.hi) && r->ratio.hi <= c->x ? CLAIM_SEEN :
									 CLAIM_NOT_SEEN;
	else
		r->mark = isfinite(r->ratio.lo) && r->ratio.lo >= 1 / c->x &&
			  r->ratio.hi <= c->x ? CLAIM_SEEN : CLAIM_NOT_SEEN;
	return;
oom:
	not_testable(r, "out of memory checking the claim");
}

/*
 * Load average per CPU above which a run is too busy to test a claim:
 * with more than two other runnable tasks per CPU, each of our threads
 * ran less than half the time and rarely beside the others, so neither a
 * contention effect nor its absence can be read from the times. (The
 * report warns of a busy machine from RUN_BUSY_LOAD, a quarter of this.)
 */
#define CLAIM_MAX_LOAD_PER_CPU 2.0

/* The load average per CPU when the run started, or NaN. */
static double load_per_cpu(const struct results *set, unsigned int file)
{
	json_t *ctx = set->files[file].context;
	json_t *load = json_array_get(json_object_get(ctx, "load_avg"), 0);
	json_t *cpus = json_object_get(json_object_get(ctx, "topology"), "nr_allowed_cpus");

	/* the CPUs the run could use, as the run-level warning counts them */
	if (!json_is_integer(cpus))
		cpus = json_object_get(ctx, "num_cpus");

	if (!json_is_number(load) || !json_is_integer(cpus) || json_integer_value(cpus) < 1)
		return NAN;
	return json_number_value(load) / (double)json_integer_value(cpus);
}

void claim_check(const struct results *set, const struct analysis *a,
		 const struct family_view *f, const struct kernel_claim *c,
		 struct claim_result *r)
{
	const char *arch = results_context_string(&set->files[f->file], "arch");
	const struct group_view *g;
	const struct case_view *va, *vb = NULL;
	double load;
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
	g = find_setting(a, f, c);
	if (!g) {
		char hint[160] = "";
		size_t used = 0;

		/* "a=1,b=2" -> "--param fam.a=1 --param fam.b=2" */
		for (const char *s = c->setting; s && *s && used < sizeof(hint);) {
			size_t len = strcspn(s, ",");

			used += (size_t)snprintf(hint + used, sizeof(hint) - used, "%s--param %s.%.*s",
						 used ? " " : "", f->kf->name, (int)len, s);
			s += len + (s[len] == ',');
		}
		not_testable(r, "no case at %s in the run%s%s%s",
			     c->setting ? c->setting : "the default setting", used ? " (add " : "",
			     hint, used ? ")" : "");
		return;
	}
	t = pick_threads(a, g, c, r);
	if (!t)
		return;
	r->threads = t;
	va = group_view_find(a, g, c->a, t);
	if (!single_variant(c))
		vb = group_view_find(a, g, c->b, t);
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
	compare_cases(set, f, va->c, vb ? vb->c : NULL, r);
	load = load_per_cpu(set, f->file);
	if (r->mark != CLAIM_NOT_TESTABLE && load > CLAIM_MAX_LOAD_PER_CPU) {
		char numbers[256];

		claim_numbers(numbers, sizeof(numbers), r);
		not_testable(r, "busy machine (load average %.1f per CPU at the start): threads took "
			     "turns with other work; rerun on an idle machine. Measured anyway: %s",
			     load, numbers);
	}
}

int claims_evaluate(const struct results *set, const struct analysis *a,
		    struct claim_report *out)
{
	size_t nr = 0;

	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < a->nr_families; i++)
		if (a->families[i].kf)
			nr += a->families[i].kf->nr_claims;
	out->results = calloc(nr + 1, sizeof(*out->results));
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
