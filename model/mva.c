// SPDX-License-Identifier: GPL-2.0-only
/*
 * Exact Mean Value Analysis of a closed queueing network with one delay
 * centre and load-independent queueing centres (Lazowska, Zahorjan,
 * Graham, Sevcik, Quantitative System Performance, 1984, section 6.4).
 *
 * The recursion over the population i = 1..n rests on the arrival
 * theorem: a customer arriving at a centre finds there the mean queue of
 * the same network with one customer fewer. So
 *   R_k(i) = D_k (1 + Q_k(i - 1))		residence time at centre k
 *   X(i)   = i / (Z + sum_k R_k(i))		throughput (Little's law)
 *   Q_k(i) = X(i) R_k(i)			queue length
 * With copies, each copy takes D_k / c_k and holds Q_k / c_k customers.
 */
#include <math.h>

#include "model.h"

static bool bad_number(double x)
{
	return !isfinite(x) || x < 0;
}

int mva_solve(double think, const double *demand, const double *copies,
	      unsigned int nr, unsigned int n, struct mva_result *out)
{
	double queue[MVA_MAX_CENTRES] = { 0 };
	double x = 0, cycle = think;

	if (!n || nr > MVA_MAX_CENTRES || bad_number(think))
		return -1;
	for (unsigned int k = 0; k < nr; k++)
		if (bad_number(demand[k]) || !isfinite(copies[k]) || copies[k] < 1)
			return -1;
	*out = (struct mva_result){ 0 };
	for (unsigned int i = 1; i <= n; i++) {
		cycle = think;
		for (unsigned int k = 0; k < nr; k++) {
			out->residence[k] = demand[k] * (1 + queue[k] / copies[k]);
			cycle += out->residence[k];
		}
		if (cycle <= 0)
			return -1;	/* no work at all: throughput is unbounded */
		x = i / cycle;
		for (unsigned int k = 0; k < nr; k++)
			queue[k] = x * out->residence[k];
	}
	out->throughput = x;
	out->cycle = cycle;
	for (unsigned int k = 0; k < nr; k++)
		out->utilisation[k] = x * demand[k] / copies[k];
	return 0;
}
