// SPDX-License-Identifier: GPL-2.0-only
#include <jansson.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "input_file.h"
#include "latency_map.h"

#define MAX_CPU (1L << 20)
#define MAX_CPUS 4096		/* a matrix larger than this is not a heatmap */
#define MAX_ONE_WAY_NS 1e9
/* A full MAX_CPUS matrix, numbers of 16 characters: 256 MB. */
#define LATENCY_MAX_BYTES (256UL << 20)

static json_t *first_of(json_t *obj, const char *const *keys)
{
	for (; *keys; keys++)
		if (json_object_get(obj, *keys))
			return json_object_get(obj, *keys);
	return NULL;
}

static int bad_pair(const char *path, size_t i, const char *what, char *err,
		    size_t errlen)
{
	snprintf(err, errlen, "%s: pairs[%zu]: expected %s", path, i, what);
	return -1;
}

static bool valid_cpu(json_t *v)
{
	return json_is_integer(v) && json_integer_value(v) >= 0 &&
	       json_integer_value(v) < MAX_CPU;
}

static int read_pair(const char *path, size_t i, json_t *p,
		     struct latency_map_pair *out, char *err, size_t errlen)
{
	static const char *const a_keys[] = { "a", "cpu_a", "from", NULL };
	static const char *const b_keys[] = { "b", "cpu_b", "to", NULL };
	static const char *const value_keys[] = { "one_way_ns", "median_ns", "median", "ns", NULL };
	static const char *const class_keys[] = { "class", "distance_class", "widest_class", NULL };
	json_t *cpus = json_object_get(p, "cpus"), *a, *b, *v, *cls;

	if (!json_is_object(p))
		return bad_pair(path, i, "an object", err, errlen);
	a = json_is_array(cpus) ? json_array_get(cpus, 0) : first_of(p, a_keys);
	b = json_is_array(cpus) ? json_array_get(cpus, 1) : first_of(p, b_keys);
	if (!valid_cpu(a) || !valid_cpu(b) || (json_is_array(cpus) && json_array_size(cpus) != 2))
		return bad_pair(path, i, "two CPU numbers (\"cpus\": [a, b])", err, errlen);
	v = first_of(p, value_keys);
	if (!json_is_number(v) || !(json_number_value(v) > 0) ||
	    json_number_value(v) > MAX_ONE_WAY_NS)
		return bad_pair(path, i, "a one-way latency in ns (\"one_way_ns\"), more than 0 and at most 1e9",
				err, errlen);
	cls = first_of(p, class_keys);
	if (cls && !json_is_string(cls))
		return bad_pair(path, i, "the distance class as a string", err, errlen);
	*out = (struct latency_map_pair){
		(long)json_integer_value(a), (long)json_integer_value(b),
		cls ? json_string_value(cls) : NULL, json_number_value(v),
	};
	return 0;
}

static int compare_longs(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;

	return (x > y) - (x < y);
}

static size_t cpu_index(const struct latency_map *m, long cpu)
{
	const long *p = bsearch(&cpu, m->cpus, m->n, sizeof(long), compare_longs);

	return (size_t)(p - m->cpus);
}

/* The distinct CPUs of the pairs, then the matrix, symmetric. */
static int build_matrix(struct latency_map *m, const char *path, char *err,
			size_t errlen)
{
	size_t k = 0;

	m->cpus = malloc((2 * m->nr_pairs + 1) * sizeof(long));
	if (!m->cpus)
		goto oom;
	for (size_t i = 0; i < m->nr_pairs; i++) {
		m->cpus[k++] = m->pairs[i].a;
		m->cpus[k++] = m->pairs[i].b;
	}
	qsort(m->cpus, k, sizeof(long), compare_longs);
	for (size_t i = 0; i < k; i++)
		if (!m->n || m->cpus[m->n - 1] != m->cpus[i])
			m->cpus[m->n++] = m->cpus[i];
	if (m->n > MAX_CPUS) {
		snprintf(err, errlen, "%s: %zu CPUs: expected at most %d for a heatmap",
			 path, m->n, MAX_CPUS);
		return -1;
	}
	m->matrix = malloc((m->n * m->n + 1) * sizeof(double));
	if (!m->matrix)
		goto oom;
	for (size_t i = 0; i < m->n * m->n; i++)
		m->matrix[i] = NAN;
	for (size_t i = 0; i < m->nr_pairs; i++) {
		size_t a = cpu_index(m, m->pairs[i].a), b = cpu_index(m, m->pairs[i].b);

		m->matrix[a * m->n + b] = m->pairs[i].ns;
		if (isnan(m->matrix[b * m->n + a]))
			m->matrix[b * m->n + a] = m->pairs[i].ns;
	}
	return 0;
oom:
	snprintf(err, errlen, "out of memory reading %s", path);
	return -2;
}

static int read_pairs(const char *path, json_t *pairs, struct latency_map *m,
		      char *err, size_t errlen)
{
	json_t *p;
	size_t i;

	m->pairs = malloc((json_array_size(pairs) + 1) * sizeof(*m->pairs));
	if (!m->pairs) {
		snprintf(err, errlen, "out of memory reading %s", path);
		return -2;
	}
	json_array_foreach(pairs, i, p) {
		if (read_pair(path, i, p, &m->pairs[m->nr_pairs], err, errlen))
			return -1;
		m->nr_pairs++;
	}
	return 0;
}

/* "cpus" + "matrix" (rows of numbers or null) become pairs. */
static int read_square(const char *path, json_t *cpus, json_t *matrix,
		       struct latency_map *m, char *err, size_t errlen)
{
	size_t n = json_array_size(cpus), i, j;
	json_t *row, *v;

	if (!json_is_array(cpus) || !json_is_array(matrix) ||
	    json_array_size(matrix) != n || n > MAX_CPUS) {
		snprintf(err, errlen, "%s: expected \"cpus\" (at most %d CPU numbers) and a \"matrix\" with one row per CPU",
			 path, MAX_CPUS);
		return -1;
	}
	m->pairs = malloc((n * n + 1) * sizeof(*m->pairs));
	if (!m->pairs) {
		snprintf(err, errlen, "out of memory reading %s", path);
		return -2;
	}
	json_array_foreach(matrix, i, row) {
		if (!json_is_array(row) || json_array_size(row) != n ||
		    !valid_cpu(json_array_get(cpus, i))) {
			snprintf(err, errlen, "%s: matrix[%zu]: expected %zu values and a CPU number for the row",
				 path, i, n);
			return -1;
		}
		json_array_foreach(row, j, v) {
			if (json_is_null(v))
				continue;
			if (!json_is_number(v) || !(json_number_value(v) > 0) ||
			    json_number_value(v) > MAX_ONE_WAY_NS || !valid_cpu(json_array_get(cpus, j))) {
				snprintf(err, errlen, "%s: matrix[%zu][%zu]: expected null or a latency in ns, more than 0 and at most 1e9",
					 path, i, j);
				return -1;
			}
			m->pairs[m->nr_pairs++] = (struct latency_map_pair){
				(long)json_integer_value(json_array_get(cpus, i)),
				(long)json_integer_value(json_array_get(cpus, j)),
				NULL, json_number_value(v),
			};
		}
	}
	return 0;
}

int latency_map_read(const char *path, struct latency_map *m, char *err,
		 size_t errlen)
{
	json_t *doc, *top, *pairs;
	int ret, status;

	memset(m, 0, sizeof(*m));
	doc = input_file_json(path, LATENCY_MAX_BYTES, &status, err, errlen);
	top = doc;
	if (!doc)
		return status == 1 ? -2 : -1;
	m->doc = doc;
	if (json_is_object(json_object_get(doc, "latency")))
		top = json_object_get(doc, "latency");
	pairs = json_object_get(top, "pairs");
	if (json_is_array(pairs))
		ret = read_pairs(path, pairs, m, err, errlen);
	else if (json_object_get(top, "matrix"))
		ret = read_square(path, json_object_get(top, "cpus"),
				  json_object_get(top, "matrix"), m, err, errlen);
	else {
		snprintf(err, errlen, "%s: expected a latency matrix: an object with \"pairs\" or \"cpus\" and \"matrix\"",
			 path);
		ret = -1;
	}
	if (!ret)
		ret = build_matrix(m, path, err, errlen);
	if (ret)
		latency_map_free(m);
	return ret;
}

void latency_map_free(struct latency_map *m)
{
	free(m->cpus);
	free(m->matrix);
	free(m->pairs);
	json_decref(m->doc);
	memset(m, 0, sizeof(*m));
}
