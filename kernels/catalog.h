/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef BOUNCELAB_CATALOG_H
#define BOUNCELAB_CATALOG_H

#include "kernel.h"

/*
 * The families, in the order the suite and the report present them: those
 * KERNEL_FAMILY_REGISTER() put in the catalogue, sorted by reading_order,
 * then by name, before main() runs.
 */
extern const struct kernel_family *const *catalog;
extern unsigned int catalog_size;

const struct kernel_family *catalog_find(const char *name);
/* A variant's index in its family, or -1. */
int catalog_variant_index(const struct kernel_family *family, const char *name);

#endif
