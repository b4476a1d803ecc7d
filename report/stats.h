/* SPDX-License-Identifier: GPL-2.0-only */
/* Statistics over repetitions. */
#ifndef BOUNCELAB_STATS_H
#define BOUNCELAB_STATS_H

#include <stddef.h>

/* The median of n values (n > 0); the values are left unchanged. */
double stats_median(const double *values, size_t n);

#endif
