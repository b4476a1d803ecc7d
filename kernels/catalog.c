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

const struct seed_figure *catalog_next_seed(const struct seed_figure *prev)
{
	unsigned int k = 0;

	if (prev) {
		const struct kernel_family *f = prev->family;

		if (prev + 1 < f->seeds + f->nr_seeds)
			return prev + 1;
		while (k < catalog_size && catalog[k] != f)
			k++;
		k++;
	}
	for (; k < catalog_size; k++)
		if (catalog[k]->nr_seeds)
			return catalog[k]->seeds;
	return NULL;
}

const struct kernel_family *catalog_transfer_probe(void)
{
	for (unsigned int i = 0; i < catalog_size; i++) {
		const struct kernel_family *f = catalog[i];

		if (f->ns_per_op_metric && !strcmp(f->ns_per_op_metric, "one_way_ns") &&
		    f->ns_per_op_divisor > 0 && f->nr_variants)
			return f;
	}
	return NULL;
}

bool catalog_is_transfer_probe(const char *family)
{
	const struct kernel_family *probe = catalog_transfer_probe();

	return family && probe && !strcmp(family, probe->name);
}

bool catalog_is_transfer_baseline(const char *family, const char *variant)
{
	const struct kernel_family *probe = catalog_transfer_probe();

	return catalog_is_transfer_probe(family) && variant &&
	       catalog_variant_index(probe, variant) == 0;
}
