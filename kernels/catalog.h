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

/*
 * The transfer probe: the family whose ns/op is a round trip of one line
 * between two CPUs (its metric one_way_ns, ns/op over a divisor: the
 * ping-pong). Its first variant is the physical baseline that every
 * one-way transfer of a run is read from. NULL without one.
 */
const struct kernel_family *catalog_transfer_probe(void);

/*
 * The seeds' published figures of every family, in catalogue order and
 * each family's own order: the one after prev (NULL: the first), or NULL
 * after the last.
 */
const struct seed_figure *catalog_next_seed(const struct seed_figure *prev);

/* Whether family (a name, or NULL) is the transfer probe. */
bool catalog_is_transfer_probe(const char *family);

/* Whether family and variant are the physical baseline: the probe's first variant. */
bool catalog_is_transfer_baseline(const char *family, const char *variant);

#endif
