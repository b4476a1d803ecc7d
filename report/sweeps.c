// SPDX-License-Identifier: GPL-2.0-only
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog.h"
#include "sweeps.h"

/* A setting is "k=v, k=v, placement P": items split at ", ". */
#define MAX_ITEMS 24

struct items {
	size_t n;
	char item[MAX_ITEMS][96];
};

static void split_setting(const char *setting, struct items *it)
{
	const char *p = setting ? setting : "";

	it->n = 0;
	while (*p && it->n < MAX_ITEMS) {
		const char *end = strstr(p, ", ");
		size_t n = end ? (size_t)(end - p) : strlen(p);

		snprintf(it->item[it->n++], sizeof(it->item[0]), "%.*s", (int)n, p);
		p += n + (end ? 2 : 0);
	}
}

/* "k=v" where v is k's default in the catalogue, or the default placement. */
static bool is_default_item(const struct kernel_family *kf, const char *item)
{
	const char *eq = strchr(item, '=');
	char name[64];
	int p;

	if (!eq)
		return !strcmp(item, "placement compact");
	snprintf(name, sizeof(name), "%.*s", (int)(eq - item), item);
	p = kf ? kernel_param_index(kf, name) : -1;
	return p >= 0 && kernel_param_text_is_default(&kf->params[p], eq + 1);
}

static void join_changes(char *buf, size_t len, const struct kernel_family *kf,
			 const struct items *it, size_t skip)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < it->n; i++) {
		if (i == skip || is_default_item(kf, it->item[i]))
			continue;
		used += (size_t)snprintf(buf + used, used < len ? len - used : 0, "%s%s",
					 used ? ", " : "", it->item[i]);
		if (used >= len)
			break;
	}
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

	return full || !f || f->nr_groups == 1 || &a->groups[f->default_group] == g;
}

void setting_changes(char *buf, size_t len, const struct analysis *a,
		     const struct group_view *g)
{
	const struct family_view *f = family_of(a, g);
	struct items it;

	split_setting(g->group->setting, &it);
	join_changes(buf, len, f ? f->kf : NULL, &it, (size_t)-1);
}

/* The index of the item named name ("k=..."), or -1. */
static int item_index(const struct items *it, const char *name)
{
	size_t n = strlen(name);

	for (size_t i = 0; i < it->n; i++)
		if (!strncmp(it->item[i], name, n) && it->item[i][n] == '=')
			return (int)i;
	return -1;
}

/* g's setting without the item of param: what a sweep along it keeps equal. */
static bool rest_of_setting(const struct group_view *g, const char *param,
			    char *rest, size_t len, char *value, size_t vlen)
{
	struct items it;
	size_t used = 0;
	int at;

	split_setting(g->group->setting, &it);
	at = item_index(&it, param);
	if (at < 0)
		return false;
	snprintf(value, vlen, "%s", strchr(it.item[at], '=') + 1);
	rest[0] = '\0';
	for (size_t i = 0; i < it.n; i++)
		if ((int)i != at)
			used += (size_t)snprintf(rest + used, used < len ? len - used : 0,
						 "%s|", it.item[i]);
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
			 const char *param, struct sweep *s)
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
	const struct group_view *def = &a->groups[f->default_group];
	size_t nr = 0;
	struct items it;

	if (f->nr_groups < 2)
		return 0;
	split_setting(def->group->setting, &it);
	for (size_t i = 0; i < it.n && nr < max; i++) {
		const char *eq = strchr(it.item[i], '=');
		struct sweep best = { .nr = 0 };
		struct items bi;

		if (!eq)
			continue;
		snprintf(best.param, sizeof(best.param), "%.*s", (int)(eq - it.item[i]), it.item[i]);
		if (best_sweep(a, f, best.param, &best) < 2)
			continue;
		split_setting(best.groups[0]->group->setting, &bi);
		join_changes(best.fixed, sizeof(best.fixed), f->kf, &bi, (size_t)item_index(&bi, best.param));
		out[nr++] = best;
	}
	return nr;
}
