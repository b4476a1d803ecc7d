// SPDX-License-Identifier: GPL-2.0-only
#include <stdio.h>
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
	if (p < 0)
		return false;
	{
		const struct kernel_param *param = &kf->params[p];
		const char *choice = kernel_param_choice(param, param->def);
		char def[64];

		if (choice)
			snprintf(def, sizeof(def), "%s", choice);
		else
			snprintf(def, sizeof(def), "%ld", param->def);
		return !strcmp(eq + 1, def);
	}
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

/* The tables of f that equal base's setting but for param, in table order. */
static size_t collect_sweep(const struct analysis *a, const struct family_view *f,
			    const struct group_view *base, const char *param,
			    struct sweep *s)
{
	char want[1024], rest[1024], value[64];

	if (!rest_of_setting(base, param, want, sizeof(want), value, sizeof(value)))
		return 0;
	s->nr = 0;
	for (size_t k = f->first_group; k < f->first_group + f->nr_groups; k++) {
		const struct group_view *g = &a->groups[k];

		if (s->nr == SWEEP_MAX_POINTS || g->pingpong ||
		    !rest_of_setting(g, param, rest, sizeof(rest), value, sizeof(value)) ||
		    strcmp(rest, want))
			continue;
		snprintf(s->values[s->nr], sizeof(s->values[0]), "%s", value);
		s->groups[s->nr++] = g;
	}
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
		struct sweep best = { .nr = 0 }, s;
		struct items bi;

		if (!eq)
			continue;
		snprintf(s.param, sizeof(s.param), "%.*s", (int)(eq - it.item[i]), it.item[i]);
		/* Every table as the base: the default's first, so it wins ties. */
		collect_sweep(a, f, def, s.param, &best);
		for (size_t k = f->first_group; k < f->first_group + f->nr_groups; k++)
			if (collect_sweep(a, f, &a->groups[k], s.param, &s) > best.nr)
				best = s;
		if (best.nr < 2)
			continue;
		snprintf(best.param, sizeof(best.param), "%s", s.param);
		split_setting(best.groups[0]->group->setting, &bi);
		join_changes(best.fixed, sizeof(best.fixed), f->kf, &bi, (size_t)item_index(&bi, best.param));
		out[nr++] = best;
	}
	return nr;
}
