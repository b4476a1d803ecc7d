// SPDX-License-Identifier: GPL-2.0-only
/*
 * The one list of kernel families. Adding a family is one file plus one
 * line here (and one in kernels/meson.build).
 */
#include <string.h>

#include "catalog.h"

extern const struct kernel_family has_pinned_family;
extern const struct kernel_family gup_family;
extern const struct kernel_family pingpong_family;
extern const struct kernel_family counter_family;
extern const struct kernel_family last_nidpid_family;
extern const struct kernel_family longterm_check_family;
extern const struct kernel_family false_sharing_family;

const struct kernel_family *const catalog[] = {
	&has_pinned_family,
	&gup_family,
	&pingpong_family,
	&counter_family,
	&last_nidpid_family,
	&longterm_check_family,
	&false_sharing_family,
};

const unsigned int catalog_size = sizeof(catalog) / sizeof(catalog[0]);

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
