/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef BOUNCELAB_AGGREGATES_H
#define BOUNCELAB_AGGREGATES_H

#include <jansson.h>

/*
 * A new array: rows, then Google Benchmark's mean, median, stddev and cv
 * rows of every case with two or more good repetitions, in the order the
 * cases first appear. NULL without memory.
 */
json_t *results_with_aggregates(json_t *rows);

#endif
