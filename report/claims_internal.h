/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the claims' two files share: a claim's sides as claim_text.c reads
 * them, which the check (claims.c) reads the same way.
 */
#ifndef BOUNCELAB_CLAIMS_INTERNAL_H
#define BOUNCELAB_CLAIMS_INTERNAL_H

#include <stdbool.h>

#include "kernel.h"

/* BELOW and ABOVE check one variant's metric; the others compare two. */
bool single_variant(const struct kernel_claim *c);

/* b's metric as a counter name, NULL for ns per op */
const char *b_metric(const struct kernel_claim *c);

/* b's metric as the report names it: the counter, or ns per op */
const char *b_metric_name(const struct kernel_claim *c);

/* b is a case of another family of the run: "pingpong/store_load" */
const char *b_elsewhere(const struct kernel_claim *c);

#endif
