/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The figures the seed threads published (shared/seeds/), which the
 * report sets beside ours. Each is tied to the family and the pair of
 * variants that model the patch it measured.
 */
#ifndef BOUNCELAB_SEEDS_H
#define BOUNCELAB_SEEDS_H

#include <stdbool.h>

struct seed_figure {
	const char *family;
	const char *before_variant;
	const char *after_variant;
	const char *source;		/* seed file, message, author, date */
	const char *benchmark;		/* the command or test */
	const char *machine;
	unsigned int threads;		/* threads the benchmark ran */
	double before, after;
	const char *unit;
	bool higher_is_better;		/* ops/s: true; time: false */
	const char *published;		/* the thread's own words, or the spread */
	/*
	 * The counter our figure must be, when the seed timed a part of the
	 * operation (gup_test's get time: "get_ns_per_page"); NULL: the
	 * whole operation, ns_per_op (pin_fast's ioctls pin and unpin). A
	 * family without that counter (has_pinned has no put) uses ns_per_op.
	 */
	const char *quantity;
	/*
	 * Parameter values that make our setting match the seed's benchmark,
	 * as they appear in a setting ("mode=private"); NULL-terminated. The
	 * report compares with the first table whose setting has them all,
	 * else with the family's defaults.
	 */
	const char *const *setting;
};

extern const struct seed_figure seed_figures[];
extern const unsigned int nr_seed_figures;

/* How many times better "after" is: 5.36 for 477729.97 -> 89144.65 us. */
double seed_gain(const struct seed_figure *s);

#endif
