// SPDX-License-Identifier: GPL-2.0-only
/*
 * The memory of a set of results (struct results): its arrays' growth,
 * the strings it keeps for its lifetime, and the set of distinct strings
 * (an open-addressing set) that gives equal names, families, variants,
 * settings and placements one pointer, so that the repetitions of a case
 * share them and sorting compares pointers, not texts; and results_free(),
 * which gives all of it back. Apart from the rows' reading, because every
 * part of the reader (a row of ours, another tool's, the whole file)
 * stores through it.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_region.h"
#include "results_read_internal.h"

int grow(void **array, size_t *cap, size_t need, size_t size)
{
	size_t cap_new;
	void *p;

	if (need <= *cap)
		return 0;
	cap_new = *cap ? *cap * 2 : 64;
	while (cap_new < need)
		cap_new *= 2;
	p = realloc(*array, cap_new * size);
	if (!p)
		return -1;
	*array = p;
	*cap = cap_new;
	return 0;
}

static size_t string_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;	/* FNV-1a */

	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 0x100000001b3ULL;
	}
	return (size_t)h;
}

/* The set's slot for s: the equal string's, or the empty one to fill. */
static const char **unique_slot(struct results *set, const char *s)
{
	size_t mask = set->cap_unique - 1, i = string_hash(s) & mask;

	while (set->unique[i] && strcmp(set->unique[i], s))
		i = (i + 1) & mask;
	return &set->unique[i];
}

/*
 * The one pointer for text equal to s: an earlier equal string, or s
 * itself (which must live as long as the set); NULL when out of memory.
 */
const char *unique_string(struct results *set, const char *s)
{
	const char **slot;

	if (!s)
		return NULL;
	if (2 * (set->nr_unique + 1) > set->cap_unique) {
		size_t cap = set->cap_unique ? 2 * set->cap_unique : 256;
		const char **old = set->unique, **grown = calloc(cap, sizeof(*grown));
		size_t old_cap = set->cap_unique;

		if (!grown)
			return NULL;
		set->unique = grown;
		set->cap_unique = cap;
		for (size_t i = 0; i < old_cap; i++)
			if (old[i])
				*unique_slot(set, old[i]) = old[i];
		free(old);
	}
	slot = unique_slot(set, s);
	if (!*slot) {
		*slot = s;
		set->nr_unique++;
	}
	return *slot;
}

char *reader_keep_string(struct results *set, char *s)
{
	if (!s || grow((void **)&set->strings, &set->cap_strings,
		       set->nr_strings + 1, sizeof(char *))) {
		free(s);
		return NULL;
	}
	set->strings[set->nr_strings++] = s;
	return s;
}

/* Most rows repeat an earlier row's setting: one copy each. */
const char *kept_text(struct reader *r, const char *text)
{
	const char *kept = r->set->cap_unique ? *unique_slot(r->set, text) : NULL;

	if (!kept)
		kept = unique_string(r->set, reader_keep_string(r->set, strdup(text)));
	if (!kept)
		reader_out_of_memory(r);
	return kept;
}

void results_free(struct results *set)
{
	for (unsigned int i = 0; i < set->nr_files; i++)
		json_decref(set->files[i].doc);
	/* After every tree: one may hold another's parts (none do today). */
	for (unsigned int i = 0; i < set->nr_files; i++)
		json_region_close(set->files[i].region);
	for (size_t i = 0; i < set->nr_strings; i++)
		free(set->strings[i]);
	free(set->files);
	free(set->rows);
	free(set->counters);
	free(set->failures);
	free(set->strings);
	free(set->unique);
	memset(set, 0, sizeof(*set));
}
