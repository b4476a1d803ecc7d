// SPDX-License-Identifier: GPL-2.0-only
/* The one rule behind every "faster", "slower" and "within noise". */
#include <math.h>

#include "verdict.h"

enum verdict verdict_of(const struct stats_ratio *time_ratio, double p)
{
	if (!isfinite(time_ratio->lo) || !isfinite(time_ratio->hi) || !isfinite(p))
		return VERDICT_UNTESTED;
	if (p >= VERDICT_ALPHA)
		return VERDICT_NOISE;
	if (time_ratio->hi < 1)
		return VERDICT_FASTER;
	if (time_ratio->lo > 1)
		return VERDICT_SLOWER;
	return VERDICT_NOISE;
}

const char *verdict_word(enum verdict v)
{
	switch (v) {
	case VERDICT_FASTER:
		return "faster";
	case VERDICT_SLOWER:
		return "slower";
	case VERDICT_NOISE:
		return "within noise";
	default:
		return "untested (one repetition)";
	}
}
