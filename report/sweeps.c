// SPDX-License-Identifier: GPL-2.0-only
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog.h"
#include "sweeps.h"

/*
 * Whether the catalogue reads every parameter of a table's setting: a
 * family it lacks, or a parameter it does not know or a value it does not
 * take (a file of another version), is shown as the file spells it.
 */
static bool setting_read(const struct result_group *gr)
{
	return gr->params.family && !gr->params.foreign && !gr->params.unreadable;
}

/*
 * What a table's setting changes from the defaults, but for parameter
 * skip (-1: none): "pin_work=0, placement spread", or "defaults".
 */
static void changes_but(char *buf, size_t len, const struct result_group *gr, int skip)
{
	struct setting s = gr->params;
	size_t used;

	if (!setting_read(gr)) {
		/* every parameter: which is the default, the catalogue cannot say */
		used = (size_t)snprintf(buf, len, "%s", gr->params_text ? gr->params_text : "");
	} else {
		if (skip >= 0)
			s.value[skip] = s.family->params[skip].def;
		used = setting_format(&s, SETTING_CHANGES, buf, len);
	}
	if (used < len)
		results_place_items(gr->policy, gr->home_policy, gr->home_node, false,
				    used ? ", " : "", buf + used, len - used);
	if (!buf[0])
		snprintf(buf, len, "defaults");
}

const struct family_view *family_of(const struct analysis *a,
				    const struct group_view *g)
{
	size_t k = (size_t)(g - a->groups);

	for (size_t i = 0; i < a->nr_families; i++)
		if (k >= a->families[i].first_group &&
		    k < a->families[i].first_group + a->families[i].nr_groups)
			return &a->families[i];
	return NULL;
}

bool group_detailed(const struct analysis *a, const struct group_view *g, bool full)
{
	const struct family_view *f = family_of(a, g);

	/* a family's only table is its default (analysis_build()) */
	return full || !f || &a->groups[f->default_group] == g;
}

void setting_changes(char *buf, size_t len, const struct group_view *g)
{
	changes_but(buf, len, g->group, -1);
}

/*
 * g's setting without parameter p, placement and home included: what a
 * sweep along p keeps equal. False when the catalogue cannot read it.
 */
static bool rest_of_setting(const struct group_view *g, unsigned int p,
			    char *rest, size_t len, char *value, size_t vlen)
{
	const struct result_group *gr = g->group;
	size_t used = 0;

	if (!setting_read(gr))
		return false;
	setting_value_text(&gr->params, p, value, vlen);
	rest[0] = '\0';
	for (unsigned int q = 0; q < gr->params.family->nr_params; q++) {
		char text[64];

		if (q == p)
			continue;
		used += (size_t)snprintf(rest + used, used < len ? len - used : 0, "%s=%s|",
					 gr->params.family->params[q].name,
					 setting_value_text(&gr->params, q, text, sizeof(text)));
	}
	if (used < len)
		used += results_place_items(gr->policy, gr->home_policy, gr->home_node, true,
					    "", rest + used, len - used);
	return used < len;
}

/* Each table of a family with its setting but for one parameter: a sweep's key. */
struct rest_key {
	size_t group;		/* into a->groups */
	char rest[1024];	/* "" : no such parameter, or the physical baseline */
	char value[64];
};

static int compare_rest_keys(const void *x, const void *y)
{
	const struct rest_key *a = *(const struct rest_key *const *)x;
	const struct rest_key *b = *(const struct rest_key *const *)y;
	int c = strcmp(a->rest, b->rest);

	return c ? c : (a->group > b->group) - (a->group < b->group);
}

/*
 * The sweep along param with the most points (at most SWEEP_MAX_POINTS):
 * the tables that equal one another's setting but for param, in table
 * order. The default table's sweep wins ties; then the first table's, in
 * table order. Each table's key is made once and the keys sorted, so a
 * family of G settings costs G log G, where comparing every table with
 * every other cost G^2 (4000 settings: most of half a minute).
 */
static size_t best_sweep(const struct analysis *a, const struct family_view *f,
			 unsigned int param, struct sweep *s)
{
	size_t n = f->nr_groups, def = f->default_group, best_count = 0;
	struct rest_key *keys = calloc(n + 1, sizeof(*keys));
	struct rest_key **sorted = calloc(n + 1, sizeof(*sorted));
	size_t *count = calloc(n + 1, sizeof(*count));
	const char *best = NULL;

	s->nr = 0;
	if (!keys || !sorted || !count)
		goto out;
	for (size_t i = 0; i < n; i++) {
		const struct group_view *g = &a->groups[f->first_group + i];

		keys[i].group = f->first_group + i;
		if (g->pingpong || !rest_of_setting(g, param, keys[i].rest, sizeof(keys[i].rest),
						    keys[i].value, sizeof(keys[i].value)))
			keys[i].rest[0] = '\0';
		sorted[i] = &keys[i];
	}
	qsort(sorted, n, sizeof(*sorted), compare_rest_keys);
	/* how many tables share each key, capped as a sweep is */
	for (size_t i = 0, j; i < n; i = j) {
		for (j = i + 1; j < n && !strcmp(sorted[j]->rest, sorted[i]->rest); j++)
			;
		for (size_t k = i; k < j; k++)
			count[sorted[k] - keys] = j - i < SWEEP_MAX_POINTS ? j - i : SWEEP_MAX_POINTS;
	}
	if (def >= f->first_group && def < f->first_group + n &&
	    keys[def - f->first_group].rest[0]) {
		best = keys[def - f->first_group].rest;
		best_count = count[def - f->first_group];
	}
	for (size_t i = 0; i < n; i++) {
		if (keys[i].rest[0] && count[i] > best_count) {
			best = keys[i].rest;
			best_count = count[i];
		}
	}
	for (size_t i = 0; best && i < n && s->nr < SWEEP_MAX_POINTS; i++) {
		if (!keys[i].rest[0] || strcmp(keys[i].rest, best))
			continue;
		snprintf(s->values[s->nr], sizeof(s->values[0]), "%s", keys[i].value);
		s->groups[s->nr++] = &a->groups[keys[i].group];
	}
out:
	free(keys);
	free(sorted);
	free(count);
	return s->nr;
}

size_t family_sweeps(const struct analysis *a, const struct family_view *f,
		     struct sweep *out, size_t max)
{
	size_t nr = 0;

	if (f->nr_groups < 2 || !f->kf)
		return 0;
	for (unsigned int p = 0; p < f->kf->nr_params && nr < max; p++) {
		struct sweep best = { .nr = 0 };

		snprintf(best.param, sizeof(best.param), "%s", f->kf->params[p].name);
		if (best_sweep(a, f, p, &best) < 2)
			continue;
		changes_but(best.fixed, sizeof(best.fixed), best.groups[0]->group, (int)p);
		out[nr++] = best;
	}
	return nr;
}
