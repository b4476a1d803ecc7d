/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Gunther's Universal Scalability Law: the throughput of N threads is
 *
 *	X(N) = X(1) * N / (1 + sigma * (N - 1) + kappa * N * (N - 1))
 *
 * sigma is contention (the serialised share of the work: queueing on one
 * line) and kappa coherency (the cost of keeping copies consistent, which
 * grows with every pair of threads: the bouncing line itself). kappa > 0
 * gives a peak at N* = sqrt((1 - sigma) / kappa), after which adding
 * threads lowers throughput, as the seeds' unconditional store did.
 *
 * A model fitted to a few thread counts on one machine: its values at 40
 * or 256 CPUs are extrapolations, never measurements.
 */
#ifndef BOUNCELAB_USL_H
#define BOUNCELAB_USL_H

#include <stdbool.h>
#include <stddef.h>

/* Thread counts a fit needs, one of them 1 (the throughput it scales). */
#define USL_MIN_POINTS 3

struct usl_fit {
	double sigma;
	double kappa;
	double x1;		/* throughput of one thread */
	double r2;		/* of the fitted throughputs against the measured */
	size_t nr_points;
};

/*
 * Fits sigma and kappa to throughputs x[i] measured at thread counts n[i]
 * (distinct, one of them 1). Linear least squares on the deviation from
 * linear scaling, N / C(N) - 1 = kappa * (N - 1)^2 + (sigma + kappa) * (N - 1)
 * with C(N) = X(N) / X(1), constrained to 0 <= sigma <= 1 and kappa >= 0
 * (a negative value would mean faster than linear, which these kernels
 * cannot be: noise).
 * Returns 0, or -1 when there are fewer than USL_MIN_POINTS counts, no
 * count of 1, or a value that is not positive.
 */
int usl_fit(const double *n, const double *x, size_t count, struct usl_fit *fit);

/* The model's throughput at n threads. */
double usl_throughput(const struct usl_fit *fit, double n);

/* The thread count of peak throughput (1 when sigma is 1); INFINITY when kappa is 0. */
double usl_peak(const struct usl_fit *fit);

#endif
