/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A core-to-core latency matrix for the report's heatmap, as written by
 * `bouncelab topo --latency`. Sampled pairs, not all n^2: a few per
 * distance class. Accepted shapes (optionally inside a "latency" object):
 *
 *	{"pairs": [{"cpus": [0, 1], "class": "l3", "one_way_ns": 61.2}, ...]}
 *	{"cpus": [0, 1, ...], "matrix": [[null, 61.2, ...], ...]}
 *
 * In a pair, the CPUs may also be "a"/"b", "cpu_a"/"cpu_b" or
 * "from"/"to"; the value "one_way_ns", "median_ns", "median" or "ns"; the
 * class "class", "distance_class" or "widest_class". Other keys are
 * ignored.
 */
#ifndef BOUNCELAB_LATENCY_MAP_H
#define BOUNCELAB_LATENCY_MAP_H

#include <stddef.h>

struct latency_map_pair {
	long a, b;		/* OS CPU numbers */
	const char *cls;	/* distance class, or NULL */
	double ns;		/* one-way */
};

struct latency_map {
	size_t n;		/* distinct CPUs, ascending */
	long *cpus;
	double *matrix;		/* n * n; NaN: not measured */
	size_t nr_pairs;
	struct latency_map_pair *pairs;
	void *doc;		/* private: the JSON document */
};

/*
 * Returns 0, or -1 with err naming the file and the place, or -2 when
 * memory ran out (err says so).
 */
int latency_map_read(const char *path, struct latency_map *map, char *err,
		 size_t errlen);
void latency_map_free(struct latency_map *map);

#endif
