// SPDX-License-Identifier: GPL-2.0-only
/* The host's modes: clusters of rounds by the pingpong's one-way transfer. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "host_modes.h"
#include "stats.h"

struct round_value {
	double value;
	long round;
};

static int by_value(const void *a, const void *b)
{
	double x = ((const struct round_value *)a)->value;
	double y = ((const struct round_value *)b)->value;

	return (x > y) - (x < y);
}

static int by_round(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;

	return (x > y) - (x < y);
}

static int by_index(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	return (x > y) - (x < y);
}

/* The factor between sorted value i and the one below it. */
static double gap_before(const struct round_value *v, size_t i)
{
	return v[i].value / v[i - 1].value;
}

/* Indexes where a new mode starts: the widest gaps of a factor or more. */
static size_t mode_starts(const struct round_value *v, size_t n, size_t *starts)
{
	size_t nr = 0, narrowest;

	for (size_t i = 1; i < n; i++) {
		double gap = gap_before(v, i);

		if (gap < HOST_MODE_FACTOR)
			continue;
		if (nr < HOST_MODES_MAX - 1) {
			starts[nr++] = i;
			continue;
		}
		/*
		 * More modes than a report can show: keep the widest gaps.
		 * The new gap replaces the narrowest one kept, if it is
		 * wider; replacing the first narrower one found could drop
		 * a wide gap and keep a narrow one. Of equal gaps the lower
		 * one kept goes, and a new gap equal to it does not replace
		 * it: the same rounds give the same modes in any order.
		 */
		narrowest = 0;
		for (size_t k = 1; k < nr; k++)
			if (gap_before(v, starts[k]) < gap_before(v, starts[narrowest]))
				narrowest = k;
		if (gap > gap_before(v, starts[narrowest]))
			starts[narrowest] = i;
	}
	qsort(starts, nr, sizeof(*starts), by_index);
	return nr;
}

static int fill_mode(struct host_mode *m, const struct round_value *v, size_t n)
{
	double *values = malloc(n * sizeof(*values));

	m->rounds = malloc(n * sizeof(*m->rounds));
	if (!values || !m->rounds) {
		free(values);
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		values[i] = v[i].value;
		m->rounds[i] = v[i].round;
	}
	qsort(m->rounds, n, sizeof(*m->rounds), by_round);
	m->nr_rounds = n;
	m->lo = v[0].value;
	m->hi = v[n - 1].value;
	m->median = stats_median(values, n);
	free(values);
	return 0;
}

int host_modes_find(const struct result_case *pingpong, struct host_modes *out)
{
	const struct case_counter *cc;
	struct round_value *v;
	size_t starts[HOST_MODES_MAX], nr_starts, n = 0, first = 0;

	memset(out, 0, sizeof(*out));
	if (!pingpong || !pingpong->rounds)
		return 0;
	cc = result_case_counter(pingpong, "one_way_ns");
	if (!cc || cc->n != pingpong->n || cc->n < 2)
		return 0;
	v = malloc(cc->n * sizeof(*v));
	if (!v)
		return -1;
	for (size_t i = 0; i < cc->n; i++)
		if (cc->values[i] > 0)
			v[n++] = (struct round_value){ cc->values[i], pingpong->rounds[i] };
	qsort(v, n, sizeof(*v), by_value);
	nr_starts = n ? mode_starts(v, n, starts) : 0;
	out->pingpong = pingpong;
	for (size_t k = 0; n && k <= nr_starts; k++) {
		size_t end = k < nr_starts ? starts[k] : n;

		if (fill_mode(&out->modes[out->nr], v + first, end - first)) {
			free(v);
			host_modes_free(out);
			return -1;
		}
		out->nr++;
		first = end;
	}
	free(v);
	return 0;
}

void host_modes_free(struct host_modes *m)
{
	for (size_t i = 0; i < m->nr; i++)
		free(m->modes[i].rounds);
	memset(m, 0, sizeof(*m));
}

/* A case's ns per op in a round, or NaN. */
static double in_round(const struct result_case *c, long round)
{
	for (size_t i = 0; c->rounds && i < c->n; i++)
		if (c->rounds[i] == round)
			return c->ns[i];
	return NAN;
}

double host_mode_ratio(const struct host_mode *m, const struct result_case *a,
		       const struct result_case *b)
{
	double *ratios = malloc((m->nr_rounds + 1) * sizeof(*ratios)), median;
	size_t n = 0;

	if (!ratios)
		return NAN;
	for (size_t i = 0; i < m->nr_rounds; i++) {
		double x = in_round(a, m->rounds[i]), y = in_round(b, m->rounds[i]);

		if (x > 0 && y > 0)
			ratios[n++] = x / y;
	}
	median = n ? stats_median(ratios, n) : NAN;
	free(ratios);
	return median;
}

bool host_mode_has(const struct host_mode *m, long round)
{
	return bsearch(&round, m->rounds, m->nr_rounds, sizeof(round), by_round) != NULL;
}

size_t host_mode_filter(const struct host_mode *m, const double *values,
			const long *rounds, size_t n, double *out_values,
			long *out_rounds)
{
	size_t kept = 0;

	for (size_t i = 0; i < n; i++) {
		if (!host_mode_has(m, rounds[i]))
			continue;
		out_values[kept] = values[i];
		out_rounds[kept++] = rounds[i];
	}
	return kept;
}
