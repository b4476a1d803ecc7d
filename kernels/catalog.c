// SPDX-License-Identifier: GPL-2.0-only
/*
 * The catalogue: every family that registered itself with
 * KERNEL_FAMILY_REGISTER() (kernel.h). The linker gathers their entries
 * into the section bouncelab_families, between __start_ and __stop_
 * symbols; the order it gathers them in is the link order, so they are
 * sorted once at startup (by reading_order, then by name) for the suite
 * and the report to present them the same way on every build.
 */
#include <stdlib.h>
#include <string.h>

#include "catalog.h"

extern const struct kernel_family *__start_bouncelab_families[];
extern const struct kernel_family *__stop_bouncelab_families[];

const struct kernel_family *const *catalog;
unsigned int catalog_size;

/* A family without a reading_order (0) comes after those with one. */
static int family_cmp(const void *x, const void *y)
{
	const struct kernel_family *a = *(const struct kernel_family *const *)x;
	const struct kernel_family *b = *(const struct kernel_family *const *)y;
	unsigned int ra = a->reading_order ? a->reading_order : ~0u;
	unsigned int rb = b->reading_order ? b->reading_order : ~0u;

	if (ra != rb)
		return ra < rb ? -1 : 1;
	return strcmp(a->name, b->name);
}

/*
 * Before main() and before C++ static constructors (the harness's
 * registrations have the default priority), so that no reader of the
 * catalogue sees it unsorted.
 */
__attribute__((constructor(101))) static void catalog_sort(void)
{
	size_t n = (size_t)(__stop_bouncelab_families - __start_bouncelab_families);

	qsort(__start_bouncelab_families, n, sizeof(__start_bouncelab_families[0]),
	      family_cmp);
	catalog = __start_bouncelab_families;
	catalog_size = (unsigned int)n;
}

const struct kernel_family *catalog_find(const char *name)
{
	for (unsigned int i = 0; i < catalog_size; i++)
		if (!strcmp(catalog[i]->name, name))
			return catalog[i];
	return NULL;
}

int catalog_variant_index(const struct kernel_family *family, const char *name)
{
	for (unsigned int i = 0; i < family->nr_variants; i++)
		if (!strcmp(family->variants[i].name, name))
			return (int)i;
	return -1;
}
