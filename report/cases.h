/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Repetitions grouped into cases (one family, setting, variant and thread
 * count on one machine) and cases into groups (one table: a family's
 * setting on one machine). Grouping sorts once, so a file of any size
 * costs n log n, never a scan per row.
 *
 * Order: files as given; families and variants in catalogue order (those
 * the catalogue does not know after, by name); settings in natural order
 * (pin_work=2 before pin_work=10); thread counts ascending.
 */
#ifndef BOUNCELAB_CASES_H
#define BOUNCELAB_CASES_H

#include <jansson.h>
#include <limits.h>

#include "results_read.h"
#include "stats.h"

/* Catalogue position of a family or variant the catalogue does not know. */
#define CASE_ORDER_UNKNOWN INT_MAX

struct case_counter {
	const char *name;
	size_t n;		/* repetitions that have it */
	double *values;
	double median;
};

struct result_case {
	unsigned int file;
	const char *name;	/* another tool's benchmark name */
	const char *family;	/* NULL for another tool's benchmark */
	const char *variant;
	const char *setting;
	struct setting params;	/* the setting as the catalogue reads it */
	const char *policy;	/* placement policy, or NULL */
	const char *widest_class;
	int family_order, variant_order;
	bool baseline;		/* the catalogue's baseline (e.g. nop) */
	bool racy;		/* deliberately racy (e.g. a plain increment) */
	long threads;
	size_t n;		/* repetitions */
	double *ns;		/* ns per op of each repetition */
	double *ops_per_s;	/* all threads */
	double *ops;		/* operations of all threads; NaN: another tool's */
	/*
	 * The round of each repetition (parallel to ns) when all come from
	 * one file run in rounds (results_read.h); else NULL. Two such cases
	 * of one file measured side by side in each round: analysis.h pairs
	 * them by it.
	 */
	const long *rounds;
	unsigned int source_file;
	struct stats_summary ns_stats, tput_stats;
	size_t nr_counters;
	struct case_counter *counters;
	/* NULL, or the aggregate standing for the repetitions (results_read.h) */
	const char *aggregate;
	long repetitions;
};

/* One table: cases[first..first + nr), ordered by threads, then variant. */
struct result_group {
	unsigned int file;
	const char *family;
	const char *setting;
	struct setting params;	/* the setting as the catalogue reads it */
	const char *params_text;	/* as the file spells them (results_read.h) */
	const char *policy;	/* placement policy (part of the setting), or NULL */
	/* the home asked for and its node, as in results_read.h */
	const char *home_policy;
	int home_node;
	int family_order;
	size_t first, nr;
};

struct result_cases {
	size_t nr;
	struct result_case *cases;
	size_t nr_groups;
	struct result_group *groups;
	/* private */
	double *pool;
	long *round_pool;
	struct case_counter *counter_pool;
};

/* Returns 0, or -1 without memory. Foreign rows become cases too (family NULL). */
int result_cases_build(const struct results *set, struct result_cases *out);
void result_cases_free(struct result_cases *cases);

/* The case of a variant at a thread count in a group, or NULL. */
const struct result_case *result_group_find(const struct result_cases *cases,
					    const struct result_group *group,
					    const char *variant, long threads);

/* A counter of a case by name, or NULL. */
const struct case_counter *result_case_counter(const struct result_case *c,
					       const char *name);

/*
 * The order cases are sorted in, ignoring the file: two files' case
 * arrays can then be matched by one merge walk.
 */
int result_case_compare(const struct result_case *a, const struct result_case *b);

/*
 * A case that may be called the best: neither a baseline (an empty loop
 * is always fastest) nor deliberately racy (losing updates is no way to
 * be fast).
 */
static inline bool result_case_contends(const struct result_case *c)
{
	return !c->baseline && !c->racy;
}

/*
 * Two cases' counter is a fixed count over the op count
 * (found_clear_fraction when only the first call finds the flag clear:
 * threads / ops): the value times ops is the same in every repetition of
 * both, so the values differ only because the op counts do, and a
 * significance test on them would test the op count.
 */
bool case_counters_are_count_over_ops(const struct result_case *a,
				      const struct case_counter *ca,
				      const struct result_case *b,
				      const struct case_counter *cb);

/* strcmp, but runs of digits compare as numbers. */
int natural_compare(const char *a, const char *b);

#endif
