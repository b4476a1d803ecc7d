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
	if (fit->kappa <= 0 || fit->sigma >= 1)
		return INFINITY;
	return sqrt((1 - fit->sigma) / fit->kappa);
}

/* Sums over the points with n > 1 of x = n - 1 and y = n / C(n) - 1. */
struct usl_sums {
	double x2, x3, x4, xy, x2y;
};

/* Least squares of y = kappa * (x^2 + x) alone (sigma held at 0). */
static double kappa_only(const double *n, const double *x, size_t count,
			 double x1)
{
	double num = 0, den = 0;

	for (size_t i = 0; i < count; i++) {
		double dx = n[i] - 1, y = n[i] * x1 / x[i] - 1;
		double basis = dx * dx + dx;

		if (n[i] == 1)
			continue;
		num += basis * y;
		den += basis * basis;
	}
	return den > 0 && num > 0 ? num / den : 0;
}

static void solve(const struct usl_sums *s, const double *n, const double *x,
		  size_t count, struct usl_fit *fit)
{
	double det = s->x4 * s->x2 - s->x3 * s->x3;
	double a = 0, b = 0;

	if (det != 0) {
		a = (s->x2y * s->x2 - s->x3 * s->xy) / det;
		b = (s->x4 * s->xy - s->x3 * s->x2y) / det;
	}
	fit->kappa = a;
	fit->sigma = b - a;
	if (fit->kappa < 0) {
		/* y = sigma * x alone */
		fit->kappa = 0;
		fit->sigma = s->x2 > 0 ? s->xy / s->x2 : 0;
	}
	if (fit->sigma < 0) {
		fit->sigma = 0;
		fit->kappa = kappa_only(n, x, count, fit->x1);
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
