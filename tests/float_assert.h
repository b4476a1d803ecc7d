/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cmocka's assert_float_equal() passes when the value is NaN (it fails
 * only when |a - b| > epsilon, which is false for NaN): a p-value that
 * came back NaN for 3 samples against 3 passed "p = 0.1". This one fails
 * unless |a - b| <= epsilon, and says both values. Include after cmocka.h.
 */
#ifndef BOUNCELAB_FLOAT_ASSERT_H
#define BOUNCELAB_FLOAT_ASSERT_H

#include <math.h>

#undef assert_float_equal
#define assert_float_equal(a, b, epsilon) do {					\
	double fa_ = (a), fb_ = (b), fe_ = (epsilon);				\
	if (!(fabs(fa_ - fb_) <= fe_))						\
		fail_msg("%s = %.17g, expected %.17g within %g", #a, fa_, fb_, fe_); \
} while (0)

#endif
