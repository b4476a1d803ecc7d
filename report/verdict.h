/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The one rule that words a comparison, everywhere (report verdicts,
 * claims, the summary, bouncelab compare): A is "faster" or "slower" than
 * B only when the 95% CI of the ratio of their medians excludes 1 AND the
 * Mann-Whitney U test gives p < 0.05. Otherwise the two are "within
 * noise", and the text quotes both numbers. Either test alone is not
 * enough: with few repetitions the bootstrap interval can exclude 1 while
 * the U test cannot reach 0.05, and a tiny but consistent shift can give
 * a small p with an interval that still covers 1.
 */
#ifndef BOUNCELAB_VERDICT_H
#define BOUNCELAB_VERDICT_H

#include <stdbool.h>

#include "stats.h"

#define VERDICT_ALPHA 0.05

enum verdict {
	VERDICT_FASTER,		/* A takes less time than B */
	VERDICT_SLOWER,		/* A takes more time than B */
	VERDICT_NOISE,		/* not separated by the rule */
	VERDICT_UNTESTED,	/* no interval or no p (a single repetition) */
};

/*
 * time_ratio is A's ns per op over B's (below 1: A faster); p the U test's
 * p-value of the same two samples.
 */
enum verdict verdict_of(const struct stats_ratio *time_ratio, double p);

/* "faster", "slower", "within noise", "untested (one repetition)" */
const char *verdict_word(enum verdict v);

/* A clear difference by the rule: faster or slower. */
static inline bool verdict_separated(enum verdict v)
{
	return v == VERDICT_FASTER || v == VERDICT_SLOWER;
}

#endif
