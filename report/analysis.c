// SPDX-License-Identifier: GPL-2.0-only
/*
 * The analysis every section reads: tables (groups) per family and
 * setting, each case's ratio to the best and its speedup, the fix's
 * pairs, the ping-pong's transfers per run and class. Each number the
 * report prints is computed here, once: one concern (about 710 lines).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "catalog.h"
#include "seeds.h"

static int compare_longs(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;

	return (x > y) - (x < y);
}

/* Distinct thread counts; cases are sorted by threads already. */
static int collect_threads(const struct analysis *a, struct group_view *g)
{
	const struct result_group *grp = g->group;

	g->threads = malloc(grp->nr * sizeof(long));
	if (!g->threads)
		return -1;
	for (size_t i = grp->first; i < grp->first + grp->nr; i++) {
		long t = a->cases->cases[i].threads;

		if (!g->nr_threads || g->threads[g->nr_threads - 1] != t)
			g->threads[g->nr_threads++] = t;
	}
	qsort(g->threads, g->nr_threads, sizeof(long), compare_longs);
	return 0;
}

static int compare_variant_cases(const void *x, const void *y)
{
	const struct result_case *a = *(const struct result_case *const *)x;
	const struct result_case *b = *(const struct result_case *const *)y;

	if (a->variant_order != b->variant_order)
		return a->variant_order < b->variant_order ? -1 : 1;
	return strcmp(a->variant, b->variant);
}

/* Distinct variants in catalogue order. */
static int collect_variants(const struct analysis *a, struct group_view *g,
			    const struct kernel_family *kf)
{
	const struct result_group *grp = g->group;
	const struct result_case **sorted = malloc(grp->nr * sizeof(*sorted));

	g->variants = calloc(grp->nr, sizeof(*g->variants));
	if (!sorted || !g->variants) {
		free(sorted);
		return -1;
	}
	for (size_t i = 0; i < grp->nr; i++)
		sorted[i] = &a->cases->cases[grp->first + i];
	qsort(sorted, grp->nr, sizeof(*sorted), compare_variant_cases);
	for (size_t i = 0; i < grp->nr; i++) {
		struct variant_view *v;
		int k;

		if (g->nr_variants &&
		    !strcmp(g->variants[g->nr_variants - 1].name, sorted[i]->variant))
			continue;
		v = &g->variants[g->nr_variants++];
		v->name = sorted[i]->variant;
		v->baseline = sorted[i]->baseline;
		k = kf ? catalog_variant_index(kf, v->name) : -1;
		v->models = k >= 0 ? kf->variants[k].models : NULL;
	}
	free(sorted);
	return 0;
}

static int collect_counters(const struct analysis *a, struct group_view *g)
{
	const struct result_group *grp = g->group;
	size_t total = 0;

	for (size_t i = grp->first; i < grp->first + grp->nr; i++)
		total += a->cases->cases[i].nr_counters;
	g->counter_names = malloc((total + 1) * sizeof(*g->counter_names));
	if (!g->counter_names)
		return -1;
	for (size_t i = grp->first; i < grp->first + grp->nr; i++) {
		const struct result_case *c = &a->cases->cases[i];

		for (size_t k = 0; k < c->nr_counters; k++) {
			size_t j;

			for (j = 0; j < g->nr_counter_names; j++)
				if (!strcmp(g->counter_names[j], c->counters[k].name))
					break;
			if (j == g->nr_counter_names)
				g->counter_names[g->nr_counter_names++] = c->counters[k].name;
			if (!strcmp(c->counters[k].name, "one_way_ns"))
				g->pingpong = true;
		}
	}
	return 0;
}

int analysis_compare(const struct result_case *a, const double *va, size_t na,
		     const struct result_case *b, const double *vb, size_t nb,
		     struct stats_ratio *r, double *p)
{
	if (a->rounds && b->rounds && a->source_file == b->source_file &&
	    na == a->n && nb == b->n) {
		int paired = stats_ratio_by_round(va, a->rounds, na, vb, b->rounds, nb, r, p);

		if (paired <= 0)
			return paired;
	}
	if (stats_ratio_of_medians(va, na, vb, nb, r))
		return -1;
	*p = stats_mann_whitney_p(va, na, vb, nb);
	return 0;
}

/* The best contending variant at each thread count, and ratios to it. */
static int compare_to_best(const struct analysis *a, struct group_view *g)
{
	const struct result_group *grp = g->group;

	for (size_t i = 0; i < grp->nr; i++) {
		const struct result_case *c = &a->cases->cases[grp->first + i];
		struct case_view *v = &g->cases[i];

		v->c = c;
		for (size_t k = 0; k < grp->nr; k++) {
			const struct result_case *o = &a->cases->cases[grp->first + k];

			if (o->threads != c->threads || !result_case_contends(o))
				continue;
			if (!v->best || o->ns_stats.median < v->best->ns_stats.median)
				v->best = o;
		}
		v->p_vs_best = NAN;
		v->vs_best = (struct stats_ratio){ .ratio = NAN, .lo = NAN, .hi = NAN };
		if (!v->best)
			continue;
		if (v->best == c) {
			v->vs_best = (struct stats_ratio){ .ratio = 1, .lo = NAN, .hi = NAN };
			continue;
		}
		if (analysis_compare(c, c->ns, c->n, v->best, v->best->ns, v->best->n,
				     &v->vs_best, &v->p_vs_best))
			return -1;
	}
	return 0;
}

static int speedups(const struct analysis *a, struct group_view *g)
{
	for (size_t i = 0; !g->mix_param && i < g->group->nr; i++) {
		struct case_view *v = &g->cases[i];
		const struct result_case *one =
			result_group_find(a->cases, g->group, v->c->variant, 1);

		if (!one)
			continue;
		v->has_speedup = true;
		if (one == v->c) {	/* the reference itself */
			v->speedup = (struct stats_ratio){ .ratio = 1, .lo = NAN, .hi = NAN };
			continue;
		}
		if (stats_ratio_of_medians(v->c->ops_per_s, v->c->n, one->ops_per_s,
					   one->n, &v->speedup))
			return -1;
	}
	return 0;
}

static void fit_scaling(const struct analysis *a, struct group_view *g)
{
	double n[64], x[64];

	for (size_t k = 0; k < g->nr_variants; k++) {
		struct variant_view *v = &g->variants[k];
		size_t count = 0;

		if (v->baseline)
			continue;
		for (size_t t = 0; t < g->nr_threads && count < 64; t++) {
			const struct result_case *c =
				result_group_find(a->cases, g->group, v->name, g->threads[t]);

			if (!c)
				continue;
			n[count] = (double)c->threads;
			x[count++] = c->tput_stats.median;
		}
		v->fitted = !usl_fit(n, x, count, &v->fit);
	}
}

/* The family's own pair, else its first seed figure's (longterm_check's). */
static void pair_names(const struct kernel_family *kf, const char **before,
		       const char **after)
{
	*before = *after = NULL;
	if (kf && kf->before_variant && kf->after_variant) {
		*before = kf->before_variant;
		*after = kf->after_variant;
	} else if (kf && kf->nr_seeds) {
		*before = kf->seeds[0].before_variant;
		*after = kf->seeds[0].after_variant;
	}
}

static int compare_pair(const struct analysis *a, struct group_view *g,
			const struct kernel_family *kf)
{
	pair_names(kf, &g->before, &g->after);
	if (!g->before)
		return 0;
	g->pairs = calloc(g->nr_threads, sizeof(*g->pairs));
	if (!g->pairs)
		return -1;
	for (size_t t = 0; t < g->nr_threads; t++) {
		struct pair_view *p = &g->pairs[g->nr_pairs];

		p->threads = g->threads[t];
		p->before = result_group_find(a->cases, g->group, g->before, p->threads);
		p->after = result_group_find(a->cases, g->group, g->after, p->threads);
		if (!p->before || !p->after)
			continue;
		if (analysis_compare(p->before, p->before->ns, p->before->n, p->after,
				     p->after->ns, p->after->n, &p->gain, &p->p))
			return -1;
		g->nr_pairs++;
	}
	return 0;
}

/*
 * A parameter that splits the threads into roles (readers and writers),
 * at a value other than its default: each thread count then runs another
 * mix of work, and comparing thread counts is not a scaling measurement.
 */
static const char *mix_param_of(const struct setting *params)
{
	const struct kernel_family *kf = params->family;

	for (unsigned int p = 0; kf && p < kf->nr_params; p++)
		if (kf->params[p].splits_roles && !(params->unreadable & (1u << p)) &&
		    !setting_param_is_default(params, p))
			return kf->params[p].name;
	return NULL;
}

static int view_group(const struct analysis *a, struct group_view *g,
		      const struct kernel_family *kf)
{
	g->mix_param = mix_param_of(&g->group->params);
	g->cases = calloc(g->group->nr, sizeof(*g->cases));
	if (!g->cases || collect_threads(a, g) || collect_variants(a, g, kf) ||
	    collect_counters(a, g) || compare_to_best(a, g) || speedups(a, g) ||
	    compare_pair(a, g, kf))
		return -1;
	if (!g->mix_param)
		fit_scaling(a, g);
	g->is_default = kf && setting_is_default(&g->group->params);
	return 0;
}

static int catalogue_position(const struct kernel_family *kf)
{
	for (unsigned int i = 0; kf && i < catalog_size; i++)
		if (catalog[i] == kf)
			return (int)i;
	return CASE_ORDER_UNKNOWN;
}

static int compare_families(const void *x, const void *y)
{
	const struct family_view *a = x, *b = y;
	int pa = catalogue_position(a->kf), pb = catalogue_position(b->kf);
	int c = strcmp(a->name, b->name);

	if (pa != pb)
		return pa < pb ? -1 : 1;
	if (c)
		return c;
	return (a->file > b->file) - (a->file < b->file);
}

/* Consecutive groups of one family on one file form a family view. */
static int view_families(struct analysis *a)
{
	a->families = calloc(a->nr_groups + 1, sizeof(*a->families));
	if (!a->families)
		return -1;
	for (size_t i = 0; i < a->nr_groups; i++) {
		struct group_view *g = &a->groups[i];
		struct family_view *f = a->nr_families ? &a->families[a->nr_families - 1] : NULL;

		if (!f || f->file != g->group->file || strcmp(f->name, g->group->family)) {
			f = &a->families[a->nr_families++];
			f->name = g->group->family;
			f->kf = catalog_find(f->name);
			f->file = g->group->file;
			f->first_group = i;
			f->default_group = i;
		}
		g->number = (unsigned int)++f->nr_groups;
		if (g->pingpong)
			f->pingpong = true;
		if (g->is_default && !a->groups[f->default_group].is_default)
			f->default_group = i;
	}
	qsort(a->families, a->nr_families, sizeof(*a->families), compare_families);
	return 0;
}

/*
 * The file's transfer in each round: its pingpong on distinct cores at the
 * nearest class measured there, the catalogue's first variant first.
 */
static const struct result_case *modes_pingpong(const struct analysis *a,
						const struct family_view *f)
{
	const struct result_case **cases = malloc((a->cases->nr + 1) * sizeof(*cases));
	const struct result_case *pick = NULL;
	size_t nr;

	if (!cases)
		return NULL;
	nr = analysis_one_way_cases(a, f, cases);
	for (size_t i = 0; i < nr && !pick; i++)
		if (cases[i]->rounds && distance_rank(cases[i]->widest_class) > distance_rank("smt"))
			pick = cases[i];
	free(cases);
	return pick;
}

static int find_transfers(struct analysis *a);

static int find_modes(struct analysis *a)
{
	a->modes = calloc(a->set->nr_files + 1, sizeof(*a->modes));
	if (!a->modes)
		return -1;
	for (size_t i = 0; i < a->nr_families; i++) {
		const struct family_view *f = &a->families[i];

		if (!f->pingpong || a->modes[f->file].pingpong)
			continue;
		if (host_modes_find(modes_pingpong(a, f), &a->modes[f->file]))
			return -1;
	}
	return 0;
}

int analysis_build(const struct results *set, const struct result_cases *cases,
		   struct analysis *out)
{
	memset(out, 0, sizeof(*out));
	out->set = set;
	out->cases = cases;
	out->groups = calloc(cases->nr_groups + 1, sizeof(*out->groups));
	if (!out->groups)
		return -1;
	for (size_t i = 0; i < cases->nr_groups; i++) {
		const struct result_group *grp = &cases->groups[i];
		struct group_view *g;

		if (!grp->family)
			continue;	/* other tools' rows: for compare only */
		g = &out->groups[out->nr_groups++];
		g->group = grp;
		if (view_group(out, g, catalog_find(grp->family))) {
			analysis_free(out);
			return -1;
		}
	}
	if (view_families(out) || find_modes(out) || find_transfers(out)) {
		analysis_free(out);
		return -1;
	}
	return 0;
}

void analysis_free(struct analysis *a)
{
	for (size_t i = 0; i < a->nr_groups; i++) {
		free(a->groups[i].threads);
		free(a->groups[i].variants);
		free(a->groups[i].cases);
		free(a->groups[i].pairs);
		free(a->groups[i].counter_names);
	}
	free(a->groups);
	free(a->families);
	for (unsigned int i = 0; a->modes && i < a->set->nr_files; i++)
		host_modes_free(&a->modes[i]);
	free(a->modes);
	free(a->transfers);
	memset(a, 0, sizeof(*a));
}

const struct case_view *group_view_find(const struct analysis *a,
					const struct group_view *g,
					const char *variant, long threads)
{
	const struct result_case *c = result_group_find(a->cases, g->group,
							variant, threads);

	return c ? &g->cases[c - &a->cases->cases[g->group->first]] : NULL;
}

const struct group_view *analysis_find_setting(const struct analysis *a,
					       const struct family_view *f,
					       const char *setting)
{
	struct setting want;
	char err[160];

	if (!f->kf || setting_parse(&want, f->kf, setting, err, sizeof(err)))
		return NULL;
	/* what the text does not name is asked for at its default */
	want.named = ~0u;
	for (size_t k = f->first_group; k < f->first_group + f->nr_groups; k++)
		if (setting_matches(&want, &a->groups[k].group->params))
			return &a->groups[k];
	return NULL;
}

const struct pair_view *group_view_pair(const struct group_view *g,
					long threads)
{
	for (size_t i = 0; i < g->nr_pairs; i++)
		if (g->pairs[i].threads == threads)
			return &g->pairs[i];
	return NULL;
}

const struct pair_view *group_view_widest_pair(const struct group_view *g)
{
	return g->nr_pairs ? &g->pairs[g->nr_pairs - 1] : NULL;
}

int distance_rank(const char *cls)
{
	static const char *const order[] = {
		"same_pu", "smt", "l2", "l3", "package", "numa", "cross_package",
	};

	for (size_t i = 0; cls && i < sizeof(order) / sizeof(order[0]); i++)
		if (!strcmp(cls, order[i]))
			return (int)i;
	return (int)(sizeof(order) / sizeof(order[0]));	/* unknown: last */
}

static int compare_by_distance(const void *x, const void *y)
{
	const struct result_case *a = *(const struct result_case *const *)x;
	const struct result_case *b = *(const struct result_case *const *)y;
	int ra = distance_rank(a->widest_class), rb = distance_rank(b->widest_class);

	if (ra != rb)
		return ra < rb ? -1 : 1;
	return result_case_compare(a, b);
}

size_t analysis_one_way_cases(const struct analysis *a,
			      const struct family_view *f,
			      const struct result_case **out)
{
	size_t nr = 0;

	for (size_t k = f->first_group; k < f->first_group + f->nr_groups; k++) {
		const struct result_group *grp = a->groups[k].group;

		for (size_t i = grp->first; i < grp->first + grp->nr; i++)
			if (result_case_counter(&a->cases->cases[i], "one_way_ns"))
				out[nr++] = &a->cases->cases[i];
	}
	qsort(out, nr, sizeof(*out), compare_by_distance);
	return nr;
}

/* Whether r is a repetition of the catalogue's physical baseline. */
static bool is_transfer_row(const struct result_row *r)
{
	return catalog_is_transfer_baseline(r->family, r->variant) &&
	       r->threads == 2 && r->ns_per_op > 0;
}

static int find_transfers(struct analysis *a)
{
	a->transfers = calloc(a->set->nr_rows + 1, sizeof(*a->transfers));
	if (!a->transfers)
		return -1;
	for (size_t i = 0; i < a->set->nr_rows; i++) {
		const struct result_row *r = &a->set->rows[i];

		if (!is_transfer_row(r))
			continue;
		a->transfers[a->nr_transfers++] = (struct transfer_sample){
			.file = r->file, .source_file = r->source_file,
			.cls = r->widest_class, .round = r->repetition_index,
			.one_way_ns = r->ns_per_op / catalog_find(r->family)->ns_per_op_divisor,
		};
	}
	return 0;
}

/*
 * The transfers to look at for a file: a results file's own, found by
 * halving (they are taken in the set's row order, and a file's rows come
 * together), or every one for a machine pooled from several files.
 */
static void transfer_range(const struct analysis *a, unsigned int file, bool pooled,
			   size_t *first, size_t *end)
{
	size_t lo = 0, hi = a->nr_transfers;

	*first = 0;
	*end = a->nr_transfers;
	if (pooled)
		return;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (a->transfers[mid].source_file < file)
			lo = mid + 1;
		else
			hi = mid;
	}
	*first = lo;
	for (hi = a->nr_transfers; lo < hi;) {
		size_t mid = lo + (hi - lo) / 2;

		if (a->transfers[mid].source_file <= file)
			lo = mid + 1;
		else
			hi = mid;
	}
	*end = lo;
}

/*
 * The class whose samples stand for cls among those that match (pooled:
 * by file, else by source_file): cls itself, else the nearest beyond SMT
 * siblings, else the nearest. NULL with *found false: no sample at all.
 */
static const char *transfer_class(const struct analysis *a, unsigned int file, bool pooled,
				  const char *cls, bool *found)
{
	const char *beyond_smt = NULL, *nearest = NULL;
	size_t first, end;

	*found = false;
	transfer_range(a, file, pooled, &first, &end);
	for (size_t i = first; i < end; i++) {
		const struct transfer_sample *t = &a->transfers[i];
		int rank;

		if ((pooled ? t->file : t->source_file) != file)
			continue;
		rank = distance_rank(t->cls);
		*found = true;
		if (cls && t->cls && !strcmp(t->cls, cls))
			return t->cls;
		if (!nearest || rank < distance_rank(nearest))
			nearest = t->cls;
		if (rank > distance_rank("smt") &&
		    (!beyond_smt || rank < distance_rank(beyond_smt)))
			beyond_smt = t->cls;
	}
	return beyond_smt ? beyond_smt : nearest;
}

static bool same_class(const char *x, const char *y)
{
	return x == y || (x && y && !strcmp(x, y));
}

/* The median over the samples of file (pooled) or source_file at cls. */
static double one_way_median(const struct analysis *a, unsigned int file, bool pooled,
			     const char *cls)
{
	double *v, m = NAN;
	bool found;
	size_t n = 0, first, end;

	cls = transfer_class(a, file, pooled, cls, &found);
	if (!found)
		return NAN;
	transfer_range(a, file, pooled, &first, &end);
	v = malloc((end - first + 1) * sizeof(*v));
	if (!v)
		return NAN;
	for (size_t i = first; i < end; i++) {
		const struct transfer_sample *t = &a->transfers[i];

		if ((pooled ? t->file : t->source_file) == file && same_class(t->cls, cls))
			v[n++] = t->one_way_ns;
	}
	if (n)
		m = stats_median(v, n);
	free(v);
	return m;
}

double analysis_one_way_ns(const struct analysis *a, unsigned int source_file,
			   const char *cls)
{
	return one_way_median(a, source_file, false, cls);
}

double analysis_machine_one_way_ns(const struct analysis *a, unsigned int file,
				   const char *cls)
{
	return one_way_median(a, file, true, cls);
}

double analysis_one_way_in_round(const struct analysis *a, unsigned int source_file,
				 const char *cls, long round)
{
	size_t first, end;
	bool found;

	cls = transfer_class(a, source_file, false, cls, &found);
	transfer_range(a, source_file, false, &first, &end);
	for (size_t i = first; found && round >= 0 && i < end; i++) {
		const struct transfer_sample *t = &a->transfers[i];

		if (t->source_file == source_file && t->round == round && same_class(t->cls, cls))
			return t->one_way_ns;
	}
	return NAN;
}

double analysis_one_thread_ns(const struct analysis *a, const struct group_view *g,
			      const char *variant)
{
	const struct result_case *one = result_group_find(a->cases, g->group, variant, 1);

	return one ? one->ns_stats.median : NAN;
}

double analysis_cold_miss_ns(const struct analysis *a, unsigned int source_file,
			     double one_way)
{
	double cold = a->set->files[source_file].run.cold_miss_ns;

	return cold > 0 && cold <= 2 * one_way && cold >= one_way / 2 ? cold : one_way;
}
