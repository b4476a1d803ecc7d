// SPDX-License-Identifier: GPL-2.0-only
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "catalog.h"
#include "cases.h"

struct keyed_row {
	const struct result_row *row;
	int family_order, variant_order;
	bool baseline, racy;
};

int natural_compare(const char *a, const char *b)
{
	/* The reader gives equal names one pointer (results_read.h). */
	if (a == b)
		return 0;
	a = a ? a : "";
	b = b ? b : "";
	while (*a && *b) {
		if (isdigit((unsigned char)*a) && isdigit((unsigned char)*b)) {
			size_t la, lb;
			int c;

			while (*a == '0' && isdigit((unsigned char)a[1]))
				a++;
			while (*b == '0' && isdigit((unsigned char)b[1]))
				b++;
			for (la = 0; isdigit((unsigned char)a[la]); la++)
				;
			for (lb = 0; isdigit((unsigned char)b[lb]); lb++)
				;
			if (la != lb)
				return la < lb ? -1 : 1;
			c = strncmp(a, b, la);
			if (c)
				return c;
			a += la;
			b += lb;
			continue;
		}
		if (*a != *b)
			return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
		a++;
		b++;
	}
	return (unsigned char)*a - (unsigned char)*b;
}

static int compare_strings(const char *a, const char *b)
{
	if (a == b)
		return 0;
	return strcmp(a ? a : "", b ? b : "");
}

static int compare_group_key(const struct keyed_row *x, const struct keyed_row *y)
{
	int c;

	if (x->row->file != y->row->file)
		return x->row->file < y->row->file ? -1 : 1;
	if (!x->row->family != !y->row->family)
		return x->row->family ? -1 : 1;	/* other tools' rows last */
	if (x->family_order != y->family_order)
		return x->family_order < y->family_order ? -1 : 1;
	c = compare_strings(x->row->family, y->row->family);
	if (c)
		return c;
	return natural_compare(x->row->setting, y->row->setting);
}

static int compare_case_key(const struct keyed_row *x, const struct keyed_row *y)
{
	int c = compare_group_key(x, y);

	if (c)
		return c;
	if (x->row->threads != y->row->threads)
		return x->row->threads < y->row->threads ? -1 : 1;
	if (x->variant_order != y->variant_order)
		return x->variant_order < y->variant_order ? -1 : 1;
	c = compare_strings(x->row->variant, y->row->variant);
	if (c || x->row->family)
		return c;
	return natural_compare(x->row->name, y->row->name);
}

static int compare_rows(const void *a, const void *b)
{
	return compare_case_key(a, b);
}

static void key_row(struct keyed_row *k, const struct result_row *row)
{
	const struct kernel_family *f = row->family ? catalog_find(row->family) : NULL;
	int v = f ? catalog_variant_index(f, row->variant) : -1;

	k->row = row;
	k->family_order = CASE_ORDER_UNKNOWN;
	k->variant_order = CASE_ORDER_UNKNOWN;
	k->baseline = false;
	k->racy = false;
	for (unsigned int i = 0; f && i < catalog_size; i++)
		if (catalog[i] == f)
			k->family_order = (int)i;
	if (v >= 0) {
		k->variant_order = v;
		k->baseline = f->variants[v].baseline;
		k->racy = f->variants[v].deliberately_racy;
	}
}

/* Counters of the case's rows: names first, then values into the pool. */
static void collect_counters(const struct results *set, struct result_case *c,
			     const struct keyed_row *rows, size_t nr,
			     struct case_counter **cpool, double **vpool)
{
	c->counters = *cpool;
	c->nr_counters = 0;
	for (size_t i = 0; i < nr; i++) {
		const struct result_row *row = rows[i].row;

		for (size_t k = 0; k < row->nr_counters; k++) {
			const char *name = set->counters[row->first_counter + k].name;
			size_t j;

			for (j = 0; j < c->nr_counters; j++)
				if (!strcmp(c->counters[j].name, name))
					break;
			if (j == c->nr_counters)
				c->counters[c->nr_counters++] =
					(struct case_counter){ .name = name };
			c->counters[j].n++;
		}
	}
	*cpool += c->nr_counters;
	for (size_t j = 0; j < c->nr_counters; j++) {
		c->counters[j].values = *vpool;
		*vpool += c->counters[j].n;
		c->counters[j].n = 0;
	}
	for (size_t i = 0; i < nr; i++) {
		const struct result_row *row = rows[i].row;

		for (size_t k = 0; k < row->nr_counters; k++) {
			const struct result_counter *rc = &set->counters[row->first_counter + k];
			struct case_counter *cc = (struct case_counter *)
				result_case_counter(c, rc->name);

			cc->values[cc->n++] = rc->value;
		}
	}
	for (size_t j = 0; j < c->nr_counters; j++)
		c->counters[j].median = stats_median(c->counters[j].values,
						     c->counters[j].n);
}

/* Every row of the case from one file run in rounds, with its round. */
static bool case_in_rounds(const struct results *set, const struct keyed_row *rows,
			   size_t nr)
{
	unsigned int file = rows[0].row->source_file;

	if (!set->files[file].rounds)
		return false;
	for (size_t i = 0; i < nr; i++)
		if (rows[i].row->source_file != file || rows[i].row->repetition_index < 0 ||
		    rows[i].row->aggregate)
			return false;
	return true;
}

static int fill_case(const struct results *set, struct result_case *c,
		     const struct keyed_row *rows, size_t nr, double **pool,
		     long **round_pool, struct case_counter **cpool, double **vpool)
{
	const struct result_row *first = rows[0].row;

	*c = (struct result_case){
		.file = first->file, .name = first->name, .family = first->family,
		.variant = first->variant, .setting = first->setting,
		.params = first->params, .policy = first->policy,
		.widest_class = first->widest_class,
		.family_order = rows[0].family_order,
		.variant_order = rows[0].variant_order,
		.baseline = rows[0].baseline, .racy = rows[0].racy,
		.threads = first->threads, .n = nr,
		.aggregate = first->aggregate, .repetitions = first->repetitions,
		.source_file = first->source_file,
	};
	if (case_in_rounds(set, rows, nr)) {
		for (size_t i = 0; i < nr; i++)
			(*round_pool)[i] = rows[i].row->repetition_index;
		c->rounds = *round_pool;
		*round_pool += nr;
	}
	c->ns = *pool;
	c->ops_per_s = *pool + nr;
	c->ops = *pool + 2 * nr;
	*pool += 3 * nr;
	for (size_t i = 0; i < nr; i++) {
		c->ns[i] = rows[i].row->ns_per_op;
		c->ops_per_s[i] = rows[i].row->ops_per_s;
		c->ops[i] = rows[i].row->ops;
	}
	collect_counters(set, c, rows, nr, cpool, vpool);
	if (stats_summarize(c->ns, nr, &c->ns_stats) ||
	    stats_summarize(c->ops_per_s, nr, &c->tput_stats))
		return -1;
	return 0;
}

int result_cases_build(const struct results *set, struct result_cases *out)
{
	size_t n = set->nr_rows;
	struct keyed_row *rows = malloc((n ? n : 1) * sizeof(*rows));
	struct case_counter *cpool;
	double *pool, *vpool;
	long *round_pool;

	memset(out, 0, sizeof(*out));
	out->cases = malloc((n ? n : 1) * sizeof(*out->cases));
	out->groups = malloc((n ? n : 1) * sizeof(*out->groups));
	out->pool = malloc((3 * n + set->nr_counters + 1) * sizeof(double));
	out->round_pool = malloc((n ? n : 1) * sizeof(*out->round_pool));
	out->counter_pool = malloc((set->nr_counters + 1) * sizeof(*out->counter_pool));
	if (!rows || !out->cases || !out->groups || !out->pool || !out->round_pool ||
	    !out->counter_pool)
		goto fail;
	for (size_t i = 0; i < n; i++)
		key_row(&rows[i], &set->rows[i]);
	qsort(rows, n, sizeof(*rows), compare_rows);
	pool = out->pool;
	round_pool = out->round_pool;
	vpool = out->pool + 3 * n;
	cpool = out->counter_pool;
	for (size_t i = 0; i < n;) {
		size_t j = i + 1;

		while (j < n && !compare_case_key(&rows[i], &rows[j]))
			j++;
		/* A new table where the group key changes. */
		if (i == 0 || compare_group_key(&rows[i - 1], &rows[i])) {
			out->groups[out->nr_groups++] = (struct result_group){
				.file = rows[i].row->file, .family = rows[i].row->family,
				.setting = rows[i].row->setting,
				.params = rows[i].row->params,
				.params_text = rows[i].row->params_text,
				.policy = rows[i].row->policy,
				.home_policy = rows[i].row->home_policy,
				.home_node = rows[i].row->home_node,
				.family_order = rows[i].family_order,
				.first = out->nr,
			};
		}
		if (fill_case(set, &out->cases[out->nr], rows + i, j - i, &pool,
			      &round_pool, &cpool, &vpool))
			goto fail;
		out->nr++;
		out->groups[out->nr_groups - 1].nr++;
		i = j;
	}
	free(rows);
	return 0;
fail:
	free(rows);
	result_cases_free(out);
	return -1;
}

int result_case_compare(const struct result_case *a, const struct result_case *b)
{
	int c;

	if (!a->family != !b->family)
		return a->family ? -1 : 1;
	if (a->family_order != b->family_order)
		return a->family_order < b->family_order ? -1 : 1;
	c = compare_strings(a->family, b->family);
	if (!c)
		c = natural_compare(a->setting, b->setting);
	if (c)
		return c;
	if (a->threads != b->threads)
		return a->threads < b->threads ? -1 : 1;
	if (a->variant_order != b->variant_order)
		return a->variant_order < b->variant_order ? -1 : 1;
	c = compare_strings(a->variant, b->variant);
	if (c || a->family)
		return c;
	return natural_compare(a->name, b->name);
}

void result_cases_free(struct result_cases *cases)
{
	free(cases->cases);
	free(cases->groups);
	free(cases->pool);
	free(cases->round_pool);
	free(cases->counter_pool);
	memset(cases, 0, sizeof(*cases));
}

const struct result_case *result_group_find(const struct result_cases *cases,
					    const struct result_group *group,
					    const char *variant, long threads)
{
	for (size_t i = group->first; i < group->first + group->nr; i++) {
		const struct result_case *c = &cases->cases[i];

		if (c->threads == threads && !compare_strings(c->variant, variant))
			return c;
	}
	return NULL;
}

const struct case_counter *result_case_counter(const struct result_case *c,
					       const char *name)
{
	for (size_t i = 0; i < c->nr_counters; i++)
		if (!strcmp(c->counters[i].name, name))
			return &c->counters[i];
	return NULL;
}

/* The counter times the op count, if it is the same in every repetition; else NaN. */
static double fixed_count(const struct result_case *c, const struct case_counter *cc)
{
	double first;

	if (cc->n != c->n || !c->n || !isfinite(c->ops[0]))
		return NAN;
	first = cc->values[0] * c->ops[0];
	for (size_t i = 1; i < c->n; i++)
		if (fabs(cc->values[i] * c->ops[i] - first) > 1e-6 * fmax(1, fabs(first)))
			return NAN;
	return first;
}

bool case_counters_are_count_over_ops(const struct result_case *a,
				      const struct case_counter *ca,
				      const struct result_case *b,
				      const struct case_counter *cb)
{
	double count_a = fixed_count(a, ca), count_b = fixed_count(b, cb);

	return isfinite(count_a) && isfinite(count_b) &&
	       fabs(count_a - count_b) <= 1e-6 * fmax(1, fabs(count_a)) &&
	       stats_median(ca->values, ca->n) != stats_median(cb->values, cb->n);
}
