// SPDX-License-Identifier: GPL-2.0-only
#include <math.h>

#include "usl.h"

double usl_throughput(const struct usl_fit *fit, double n)
{
	return fit->x1 * n /
	       (1 + fit->sigma * (n - 1) + fit->kappa * n * (n - 1));
}

double usl_peak(const struct usl_fit *fit)
{
	if (fit->sigma >= 1)
		return 1;	/* every thread added slows the whole down */
	if (fit->kappa <= 0)
		return INFINITY;
	return fmax(1, sqrt((1 - fit->sigma) / fit->kappa));
}

/* Sums over the points with n > 1 of x = n - 1 and y = n / C(n) - 1. */
struct usl_sums {
	double x2, x3, x4, xy, x2y;
};

/* Squared error of the linearised model over the points with n > 1. */
static double linear_sse(const double *n, const double *x, size_t count,
			 double x1, double sigma, double kappa)
{
	double sse = 0;

	for (size_t i = 0; i < count; i++) {
		double dx = n[i] - 1, y = n[i] * x1 / x[i] - 1;
		double e = y - kappa * dx * dx - (sigma + kappa) * dx;

		if (n[i] != 1)
			sse += e * e;
	}
	return sse;
}

/* kappa >= 0 by least squares with sigma held fixed. */
static double kappa_given_sigma(const double *n, const double *x, size_t count,
				double x1, double sigma)
{
	double num = 0, den = 0;

	for (size_t i = 0; i < count; i++) {
		double dx = n[i] - 1, y = n[i] * x1 / x[i] - 1;
		double basis = dx * dx + dx;

		if (n[i] == 1)
			continue;
		num += basis * (y - sigma * dx);
		den += basis * basis;
	}
	return den > 0 && num > 0 ? num / den : 0;
}

/*
 * Least squares with sigma in [0, 1] and kappa >= 0: the unconstrained
 * optimum if it lies in that box, else the best point on its edges
 * (sigma = 0, sigma = 1 or kappa = 0), each a one-parameter fit. sigma is
 * the serialised share of the work and cannot exceed all of it; a slower
 * second thread is coherency (kappa), not more than total contention.
 */
static void solve(const struct usl_sums *s, const double *n, const double *x,
		  size_t count, struct usl_fit *fit)
{
	double det = s->x4 * s->x2 - s->x3 * s->x3;
	double cand[4][2];
	double best = INFINITY;
	int nr = 0;

	if (det != 0) {
		double a = (s->x2y * s->x2 - s->x3 * s->xy) / det;
		double b = (s->x4 * s->xy - s->x3 * s->x2y) / det;

		if (a >= 0 && b - a >= 0 && b - a <= 1) {
			cand[nr][0] = b - a;
			cand[nr++][1] = a;
		}
	}
	cand[nr][0] = s->x2 > 0 ? fmin(fmax(s->xy / s->x2, 0), 1) : 0;	/* kappa = 0 */
	cand[nr++][1] = 0;
	for (int edge = 0; edge <= 1; edge++) {		/* sigma = 0, sigma = 1 */
		cand[nr][0] = edge;
		cand[nr][1] = kappa_given_sigma(n, x, count, fit->x1, edge);
		nr++;
	}
	for (int i = 0; i < nr; i++) {
		double sse = linear_sse(n, x, count, fit->x1, cand[i][0], cand[i][1]);

		if (sse < best) {
			best = sse;
			fit->sigma = cand[i][0];
			fit->kappa = cand[i][1];
		}
	}
}

static double r_squared(const struct usl_fit *fit, const double *n,
			const double *x, size_t count)
{
	double mean = 0, ss_res = 0, ss_tot = 0;

	for (size_t i = 0; i < count; i++)
		mean += x[i];
	mean /= (double)count;
	for (size_t i = 0; i < count; i++) {
		double e = x[i] - usl_throughput(fit, n[i]);

		ss_res += e * e;
		ss_tot += (x[i] - mean) * (x[i] - mean);
	}
	return ss_tot > 0 ? 1 - ss_res / ss_tot : 1;
}

int usl_fit(const double *n, const double *x, size_t count, struct usl_fit *fit)
{
	struct usl_sums s = { 0 };
	bool have_one = false;

	if (count < USL_MIN_POINTS)
		return -1;
	for (size_t i = 0; i < count; i++) {
		if (!(n[i] >= 1) || !(x[i] > 0) || !isfinite(x[i]))
			return -1;
		if (n[i] == 1) {
			if (have_one)
				return -1;
			have_one = true;
			fit->x1 = x[i];
		}
	}
	if (!have_one)
		return -1;
	for (size_t i = 0; i < count; i++) {
		double dx = n[i] - 1, y;

		if (n[i] == 1)
			continue;
		y = n[i] * fit->x1 / x[i] - 1;
		s.x2 += dx * dx;
		s.x3 += dx * dx * dx;
		s.x4 += dx * dx * dx * dx;
		s.xy += dx * y;
		s.x2y += dx * dx * y;
	}
	solve(&s, n, x, count, fit);
	fit->nr_points = count;
	fit->r2 = r_squared(fit, n, x, count);
	return 0;
}
