/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the rows' reader's files share: the set's memory
 * (results_strings.c), a row of ours and what every kept row goes through
 * (results_row.c), other tools' rows and aggregates (results_foreign.c),
 * each called by the whole file's reader (results_read.c). The checks
 * the context's reader shares too are reader.h's. Not for use outside
 * resultfile/.
 */
#ifndef BOUNCELAB_RESULTS_READ_INTERNAL_H
#define BOUNCELAB_RESULTS_READ_INTERNAL_H

#include <stddef.h>

#include <jansson.h>

#include "reader.h"
#include "results_read.h"

/* *array holds at least need items of size: 0, or -1 out of memory. */
int grow(void **array, size_t *cap, size_t need, size_t size);
/*
 * The one pointer for text equal to s: an earlier equal string, or s
 * itself (which must live as long as the set); NULL when out of memory.
 */
const char *unique_string(struct results *set, const char *s);
/* Most rows repeat an earlier row's setting: one copy each. */
const char *kept_text(struct reader *r, const char *text);

/* The row's user counters into the set, each from min to MAX_COUNTER. */
int read_counters(struct reader *r, json_t *row, double min,
		  struct result_row *out);
/* The row into the set: 0, or -1 out of memory. */
int add_row(struct reader *r, const struct result_row *row);
/* The row's names as the set's one pointer for each. */
int unique_names(struct reader *r, struct result_row *row);
/* A row with bouncelab facts; 0, or -1 with r->err. */
int read_ours(struct reader *r, json_t *row, json_t *facts,
	      struct result_row *out);

/* Another tool's repetition: kept for compare, with real_time as ns/op. */
int read_foreign(struct reader *r, json_t *row, struct result_row *out);
/* An aggregate row: counted, another tool's median or mean kept aside. */
int keep_aggregate(struct reader *r, json_t *row);
/* The file's benchmarks with aggregates and no repetition: one row each. */
int add_missing_aggregates(struct reader *r, size_t first_row);

#endif
