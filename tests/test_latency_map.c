// SPDX-License-Identifier: GPL-2.0-only
/*
 * The latency matrix the report's heatmap reads (latency_map.h), from
 * files written here: every spelling of a pair's keys, the CPUs sorted
 * and made distinct, the matrix filled both ways from one direction (a
 * direction given keeps its own value), the square shape with its
 * nulls, and each range at its ends: a CPU from 0 to 2^20 - 1, a
 * latency above 0 and at most 1e9 ns, two CPUs a pair, at most 4096 CPUs.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include "float_assert.h"
#include "test_util.h"

#include "latency_map.h"

static char path[] = "/tmp/bouncelab-latency-map-XXXXXX";
static char err[1024];

static int read_text(const char *text, struct latency_map *m)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	*err = '\0';
	return latency_map_read(path, m, err, sizeof(err));
}

static void read_ok(const char *text, struct latency_map *m)
{
	if (read_text(text, m))
		fail_msg("refused: %s: %s", text, err);
}

static void refused(const char *text, const char *want)
{
	struct latency_map m;

	assert_int_equal(read_text(text, &m), -1);
	if (!strstr(err, want))
		fail_msg("%s: '%s', expected '%s' in it", text, err, want);
	assert_null(m.cpus);
	assert_null(m.pairs);
}

static double at(const struct latency_map *m, size_t i, size_t j)
{
	return m->matrix[i * m->n + j];
}

/*
 * CPUs 64, 0, 130 in every spelling: sorted 0, 64, 130. 0-64 given as
 * 18.5 one way only: both cells. 64-130 given both ways, 61 and 63: each
 * keeps its own. 0-130 not given: NaN. The diagonal: NaN.
 */
static void pairs_in_every_spelling_fill_the_matrix(void **unused)
{
	struct latency_map m;

	(void)unused;
	read_ok("{\"latency\": {\"pairs\": ["
		"{\"cpus\": [64, 0], \"class\": \"smt\", \"one_way_ns\": 18.5},"
		"{\"a\": 64, \"b\": 130, \"distance_class\": \"l3\", \"median_ns\": 61},"
		"{\"cpu_a\": 130, \"cpu_b\": 64, \"widest_class\": \"l3\", \"median\": 63},"
		"{\"from\": 130, \"to\": 130, \"ns\": 1e9}]}}", &m);
	assert_int_equal(m.n, 3);
	assert_int_equal(m.cpus[0], 0);
	assert_int_equal(m.cpus[1], 64);
	assert_int_equal(m.cpus[2], 130);
	assert_int_equal(m.nr_pairs, 4);
	assert_int_equal(m.pairs[0].a, 64);
	assert_int_equal(m.pairs[0].b, 0);
	assert_string_equal(m.pairs[0].cls, "smt");
	assert_string_equal(m.pairs[1].cls, "l3");
	assert_string_equal(m.pairs[2].cls, "l3");
	assert_null(m.pairs[3].cls);
	assert_float_equal(m.pairs[1].ns, 61, 0);
	assert_float_equal(m.pairs[3].ns, 1e9, 0);
	assert_float_equal(at(&m, 1, 0), 18.5, 0);
	assert_float_equal(at(&m, 0, 1), 18.5, 0);
	assert_float_equal(at(&m, 1, 2), 61, 0);
	assert_float_equal(at(&m, 2, 1), 63, 0);
	assert_true(isnan(at(&m, 0, 2)));
	assert_true(isnan(at(&m, 2, 0)));
	assert_true(isnan(at(&m, 0, 0)));
	assert_true(isnan(at(&m, 1, 1)));
	assert_float_equal(at(&m, 2, 2), 1e9, 0);
	latency_map_free(&m);
	assert_null(m.cpus);
	assert_int_equal(m.n, 0);
}

/* The square shape: rows per CPU, null where not measured. */
static void a_square_matrix_reads_as_its_pairs(void **unused)
{
	struct latency_map m;

	(void)unused;
	read_ok("{\"cpus\": [8, 2], \"matrix\": [[null, 40], [42, 7]]}", &m);
	assert_int_equal(m.n, 2);
	assert_int_equal(m.cpus[0], 2);
	assert_int_equal(m.cpus[1], 8);
	assert_int_equal(m.nr_pairs, 3);
	assert_int_equal(m.pairs[0].a, 8);
	assert_int_equal(m.pairs[0].b, 2);
	assert_float_equal(m.pairs[0].ns, 40, 0);
	assert_int_equal(m.pairs[2].a, 2);
	assert_int_equal(m.pairs[2].b, 2);
	/* row 8 -> 2 is 40, row 2 -> 8 is 42, 2 -> 2 is 7; 8 -> 8 not measured */
	assert_float_equal(at(&m, 1, 0), 40, 0);
	assert_float_equal(at(&m, 0, 1), 42, 0);
	assert_float_equal(at(&m, 0, 0), 7, 0);
	assert_true(isnan(at(&m, 1, 1)));
	latency_map_free(&m);

	refused("{\"cpus\": [0, 1], \"matrix\": [[null, 1]]}", "a \"matrix\" with one row per CPU");
	refused("{\"cpus\": [0, 1], \"matrix\": [[null, 1], [1]]}", "matrix[1]: expected 2 values");
	refused("{\"cpus\": [0, -1], \"matrix\": [[null, 1], [1, null]]}", "matrix[0][1]");
	refused("{\"cpus\": [0, 1], \"matrix\": [[null, 0], [1, null]]}", "matrix[0][1]");
	/* the square shape's range at its ends too: 1e9 taken, a little more refused */
	read_ok("{\"cpus\": [0, 1], \"matrix\": [[null, 1e9], [1e-9, null]]}", &m);
	assert_float_equal(at(&m, 0, 1), 1e9, 0);
	assert_float_equal(at(&m, 1, 0), 1e-9, 0);
	latency_map_free(&m);
	refused("{\"cpus\": [0, 1], \"matrix\": [[null, 1], [1000000000.5, null]]}",
		"matrix[1][0]: expected null or a latency in ns");
	refused("{\"cpus\": [0, 1], \"matrix\": [[null, 1], [1000000001, null]]}",
		"matrix[1][0]: expected null or a latency in ns");
	refused("{\"cpus\": [0, 1], \"matrix\": [[null, \"x\"], [1, null]]}", "matrix[0][1]");
	refused("{\"cpus\": 3, \"matrix\": []}", "expected \"cpus\"");
}

/* Each range at its ends, in the pair shape. */
static void ranges_at_their_ends(void **unused)
{
	struct latency_map m;

	(void)unused;
	read_ok("{\"pairs\": [{\"cpus\": [0, 1048575], \"one_way_ns\": 1e-9}]}", &m);
	assert_int_equal(m.cpus[1], 1048575);
	latency_map_free(&m);
	refused("{\"pairs\": [{\"cpus\": [0, 1048576], \"one_way_ns\": 5}]}",
		": pairs[0]: expected two CPU numbers");
	refused("{\"pairs\": [{\"cpus\": [0, 1], \"one_way_ns\": 5}, {\"cpus\": [-1, 1], \"one_way_ns\": 5}]}",
		": pairs[1]: expected two CPU numbers");
	refused("{\"pairs\": [{\"cpus\": [0, 1, 2], \"one_way_ns\": 5}]}", "two CPU numbers");
	refused("{\"pairs\": [{\"cpus\": [0], \"one_way_ns\": 5}]}", "two CPU numbers");
	refused("{\"pairs\": [{\"a\": 0, \"one_way_ns\": 5}]}", "two CPU numbers");
	refused("{\"pairs\": [{\"cpus\": [0, 1], \"one_way_ns\": 0}]}",
		"a one-way latency in ns (\"one_way_ns\"), more than 0 and at most 1e9");
	refused("{\"pairs\": [{\"cpus\": [0, 1], \"one_way_ns\": 1000000000.5}]}",
		"more than 0 and at most 1e9");
	refused("{\"pairs\": [{\"cpus\": [0, 1]}]}", "more than 0 and at most 1e9");
	refused("{\"pairs\": [{\"cpus\": [0, 1], \"one_way_ns\": 5, \"class\": 3}]}",
		"the distance class as a string");
	refused("{\"pairs\": [7]}", "pairs[0]: expected an object");
	refused("{\"latency\": {}}", "expected a latency matrix");
}

/* 2049 pairs of new CPUs are 4098 CPUs: more than a heatmap takes. */
static void at_most_4096_cpus(void **unused)
{
	size_t len = 64 + 2049 * 48;
	char *text = malloc(len), *p = text;

	(void)unused;
	assert_non_null(text);
	p += sprintf(p, "{\"pairs\": [");
	for (int i = 0; i < 2049; i++)
		p += sprintf(p, "%s{\"cpus\": [%d, %d], \"ns\": 5}", i ? "," : "", 2 * i, 2 * i + 1);
	sprintf(p, "]}");
	refused(text, "4098 CPUs: expected at most 4096 for a heatmap");
	free(text);
}

static int make_file(void **unused)
{
	(void)unused;
	return make_temp_file(path);
}

static int remove_file(void **unused)
{
	(void)unused;
	return unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(pairs_in_every_spelling_fill_the_matrix),
		cmocka_unit_test(a_square_matrix_reads_as_its_pairs),
		cmocka_unit_test(ranges_at_their_ends),
		cmocka_unit_test(at_most_4096_cpus),
	};

	return cmocka_run_group_tests(tests, make_file, remove_file);
}
