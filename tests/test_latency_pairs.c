// SPDX-License-Identifier: GPL-2.0-only
/*
 * The latency probe's numbers without timing anything: which pairs of
 * CPUs it measures for each class, in what order, and the statistics
 * `bouncelab topo --latency` prints and writes from their samples
 * (median, minimum, nearest-rank 10th and 90th percentiles, the two
 * modes). Every expected value is worked out by hand in the comments.
 *
 * The pairs are picked on a synthetic machine, "pack:2 l3:1 core:2 pu:2":
 * CPUs 0-3 in package 0 (cores {0,1} and {2,3}), 4-7 in package 1. The
 * pairs i < j, in the order the probe walks them, per class:
 *
 *   smt (4)             (0,1) (2,3) (4,5) (6,7)
 *   l3 (8)              (0,2) (0,3) (1,2) (1,3) (4,6) (4,7) (5,6) (5,7)
 *   cross_package (16)  (0,4) (0,5) (0,6) (0,7) (1,4) (1,5) (1,6) (1,7)
 *                       (2,4) ... (3,7)
 *
 * K pairs of a class of N are the ranks k * N / K (integer division),
 * k = 0 .. K-1, and every pair when N <= K.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include "float_assert.h"

#include "cases.h"
#include "config.h"
#include "latency.h"
#include "topo.h"

#define EIGHT_CPUS "pack:2 l3:1 core:2 pu:2"

struct want_pair {
	enum distance_class cls;
	int a, b;
};

static struct topo *open_eight_cpus(void)
{
	char err[256];
	struct topo *topo = topo_open(EIGHT_CPUS, err, sizeof(err));

	if (!topo)
		fail_msg("topo_open(%s): %s", EIGHT_CPUS, err);
	return topo;
}

static void expect_pairs(const struct topo *topo, unsigned int per_class,
			 const struct want_pair *want, unsigned int nr_want)
{
	struct latency_pair *pairs;
	unsigned int n = latency_pick_pairs(topo, per_class, &pairs);

	for (unsigned int i = 0; i < n && i < nr_want; i++) {
		if (pairs[i].cls != want[i].cls || pairs[i].cpu_a != want[i].a ||
		    pairs[i].cpu_b != want[i].b)
			fail_msg("per class %u, pair %u: %s (%d,%d), expected %s (%d,%d)",
				 per_class, i, distance_class_name(pairs[i].cls),
				 pairs[i].cpu_a, pairs[i].cpu_b,
				 distance_class_name(want[i].cls), want[i].a, want[i].b);
		assert_int_equal(pairs[i].nr_samples, 0);
		/* no NUMA distances on this machine */
		assert_int_equal(pairs[i].numa_distance, -1);
	}
	assert_int_equal(n, nr_want);
	free(pairs);
}

/*
 * Three of each class, sorted by class, then CPU: smt ranks 0, 1, 2
 * (k * 4 / 3), l3 ranks 0, 2, 5 (k * 8 / 3), cross_package 0, 5, 10.
 */
static void three_per_class_are_evenly_spaced(void **unused)
{
	static const struct want_pair want[] = {
		{ DISTANCE_SMT, 0, 1 }, { DISTANCE_SMT, 2, 3 }, { DISTANCE_SMT, 4, 5 },
		{ DISTANCE_L3, 0, 2 }, { DISTANCE_L3, 1, 2 }, { DISTANCE_L3, 4, 7 },
		{ DISTANCE_CROSS_PACKAGE, 0, 4 }, { DISTANCE_CROSS_PACKAGE, 1, 5 },
		{ DISTANCE_CROSS_PACKAGE, 2, 6 },
	};
	struct topo *topo = open_eight_cpus();

	(void)unused;
	expect_pairs(topo, 3, want, 9);
	topo_close(topo);
}

/*
 * Six asked: smt has only 4, all taken; l3 ranks k * 8 / 6 = 0, 1, 2, 4,
 * 5, 6; cross_package k * 16 / 6 = 0, 2, 5, 8, 10, 13.
 */
static void a_class_with_fewer_pairs_gives_all_of_them(void **unused)
{
	static const struct want_pair want[] = {
		{ DISTANCE_SMT, 0, 1 }, { DISTANCE_SMT, 2, 3 }, { DISTANCE_SMT, 4, 5 },
		{ DISTANCE_SMT, 6, 7 },
		{ DISTANCE_L3, 0, 2 }, { DISTANCE_L3, 0, 3 }, { DISTANCE_L3, 1, 2 },
		{ DISTANCE_L3, 4, 6 }, { DISTANCE_L3, 4, 7 }, { DISTANCE_L3, 5, 6 },
		{ DISTANCE_CROSS_PACKAGE, 0, 4 }, { DISTANCE_CROSS_PACKAGE, 0, 6 },
		{ DISTANCE_CROSS_PACKAGE, 1, 5 }, { DISTANCE_CROSS_PACKAGE, 2, 4 },
		{ DISTANCE_CROSS_PACKAGE, 2, 6 }, { DISTANCE_CROSS_PACKAGE, 3, 5 },
	};
	struct topo *topo = open_eight_cpus();

	(void)unused;
	expect_pairs(topo, 6, want, 16);
	topo_close(topo);
}

/* Asked for more than any class has: every pair, each once, 4 + 8 + 16. */
static void many_per_class_is_every_pair_once(void **unused)
{
	struct want_pair want[28];
	unsigned int n = 0;
	struct topo *topo = open_eight_cpus();

	(void)unused;
	for (int a = 0; a < 8; a += 2)
		want[n++] = (struct want_pair){ DISTANCE_SMT, a, a + 1 };
	for (int pkg = 0; pkg < 8; pkg += 4)
		for (int a = pkg; a < pkg + 2; a++)
			for (int b = pkg + 2; b < pkg + 4; b++)
				want[n++] = (struct want_pair){ DISTANCE_L3, a, b };
	for (int a = 0; a < 4; a++)
		for (int b = 4; b < 8; b++)
			want[n++] = (struct want_pair){ DISTANCE_CROSS_PACKAGE, a, b };
	expect_pairs(topo, 16, want, n);
	expect_pairs(topo, 1000, want, n);
	topo_close(topo);
}

/* One per class is each class's first pair; none asked is none given. */
static void one_and_none_per_class(void **unused)
{
	static const struct want_pair want[] = {
		{ DISTANCE_SMT, 0, 1 }, { DISTANCE_L3, 0, 2 },
		{ DISTANCE_CROSS_PACKAGE, 0, 4 },
	};
	struct topo *topo = open_eight_cpus();
	struct latency_pair *pairs = (void *)1;

	(void)unused;
	expect_pairs(topo, 1, want, 3);
	assert_int_equal(latency_pick_pairs(topo, 0, &pairs), 0);
	assert_null(pairs);
	topo_close(topo);
}

/* Two nodes 10/21 apart: each cross-node pair carries 21. */
static void pairs_carry_their_numa_distance(void **unused)
{
	static const uint64_t slit[] = { 10, 21, 21, 10 };
	struct latency_pair *pairs;
	char err[256];
	struct topo *topo = topo_open("pack:2 numa:1 core:2 pu:1", err, sizeof(err));
	unsigned int n;

	(void)unused;
	assert_non_null(topo);
	assert_int_equal(topo_set_numa_distances(topo, 4, slit, err, sizeof(err)), 0);
	/* CPUs 0,1 | 2,3: one same-node pair per node, four across */
	n = latency_pick_pairs(topo, 8, &pairs);
	assert_int_equal(n, 6);
	for (unsigned int i = 0; i < n; i++)
		assert_int_equal(pairs[i].numa_distance,
				 pairs[i].cls == DISTANCE_CROSS_PACKAGE ? 21 : 10);
	assert_int_equal(pairs[5].cls, DISTANCE_CROSS_PACKAGE);
	assert_int_equal(pairs[5].cpu_a, 1);
	assert_int_equal(pairs[5].cpu_b, 3);
	free(pairs);
	topo_close(topo);
}

static void summarize(const double *v, size_t n, struct latency_summary *s)
{
	/* poisoned first: every field must be written */
	memset(s, 0x55, sizeof(*s));
	latency_summarize(v, n, s);
}

/*
 * 101 .. 125 shuffled: median 113; p10 the 3rd (25 * 10 / 100 = 2.5, up
 * to 3), p90 the 23rd (22.5 up to 23). 101 .. 110: p10 exactly the 1st,
 * p90 the 9th, median 105.5. One sample is every statistic. The input is
 * not reordered.
 */
static void percentiles_are_nearest_rank(void **unused)
{
	double v[25], ten[10], one = 42;
	struct latency_summary s;

	(void)unused;
	for (int i = 0; i < 25; i++)
		v[i] = (double)((i * 7) % 25 + 101);
	summarize(v, 25, &s);
	assert_float_equal(s.median, 113, 0);
	assert_float_equal(s.min, 101, 0);
	assert_float_equal(s.p10, 103, 0);
	assert_float_equal(s.p90, 123, 0);
	assert_false(s.bimodal);
	for (int i = 0; i < 25; i++)
		assert_float_equal(v[i], (i * 7) % 25 + 101, 0);

	for (int i = 0; i < 10; i++)
		ten[i] = 110 - i;
	summarize(ten, 10, &s);
	assert_float_equal(s.median, 105.5, 0);
	assert_float_equal(s.min, 101, 0);
	assert_float_equal(s.p10, 101, 0);
	assert_float_equal(s.p90, 109, 0);
	assert_false(s.bimodal);

	/*
	 * 1000 .. 1100 (101 samples): p10 the 11th (10.1 up to 11), 1010;
	 * p90 the 91st (90.9 up to 91), 1090; the median the 51st, 1050.
	 */
	{
		double many[101];

		for (int i = 0; i < 101; i++)
			many[i] = 1100 - i;
		summarize(many, 101, &s);
		assert_float_equal(s.p10, 1010, 0);
		assert_float_equal(s.p90, 1090, 0);
		assert_float_equal(s.median, 1050, 0);
		assert_float_equal(s.min, 1000, 0);
		assert_false(s.bimodal);
	}

	summarize(&one, 1, &s);
	assert_float_equal(s.median, 42, 0);
	assert_float_equal(s.min, 42, 0);
	assert_float_equal(s.p10, 42, 0);
	assert_float_equal(s.p90, 42, 0);
	assert_false(s.bimodal);

	summarize(NULL, 0, &s);
	assert_float_equal(s.median, 0, 0);
	assert_false(s.bimodal);
}

/*
 * 20 samples: 16 of 100 .. 115 and 4 of 300, 310, 320, 330. Two modes:
 * medians 107.5 and 315, the slow one a share of 0.2.
 */
static void the_modes_are_each_groups_median(void **unused)
{
	double v[20];
	struct latency_summary s;

	(void)unused;
	for (int i = 0; i < 20; i++)
		v[19 - i] = i < 16 ? 100 + i : 300 + 10 * (i - 16);
	summarize(v, 20, &s);
	assert_true(s.bimodal);
	assert_float_equal(s.low_mode, 107.5, 0);
	assert_float_equal(s.high_mode, 315, 0);
	assert_float_equal(s.high_share, 0.2, 1e-15);
	assert_float_equal(s.median, 109.5, 0);
	assert_float_equal(s.p90, 310, 0);	/* the 18th */
	assert_float_equal(s.min, 100, 0);
}

/*
 * A mode is a tenth of the samples, two at least. Of 20, 2 slow ones
 * (a tenth, and two) are a mode, 1 is not; of 30, 3 are (a tenth), 2 are
 * not. The widest gap counts, and a gap of exactly 1.5x is wide enough.
 */
static void a_mode_needs_a_tenth_and_a_gap_of_one_and_a_half(void **unused)
{
	double v[30];
	struct latency_summary s;

	(void)unused;
	for (int i = 0; i < 20; i++)
		v[i] = i < 18 ? 100 : 400;
	summarize(v, 20, &s);
	assert_true(s.bimodal);
	assert_float_equal(s.high_share, 0.1, 1e-15);
	assert_float_equal(s.low_mode, 100, 0);
	assert_float_equal(s.high_mode, 400, 0);
	v[18] = 100;
	summarize(v, 20, &s);
	assert_false(s.bimodal);
	/* the lone outlier raises the p90 no more than to the 18th */
	assert_float_equal(s.p90, 100, 0);

	/* of 10, a tenth is 1: two at least, so 2 slow ones are a mode, 1 is not */
	for (int i = 0; i < 10; i++)
		v[i] = i < 8 ? 100 : 400;
	summarize(v, 10, &s);
	assert_true(s.bimodal);
	assert_float_equal(s.high_share, 0.2, 1e-15);
	v[8] = 100;
	summarize(v, 10, &s);
	assert_false(s.bimodal);

	for (int i = 0; i < 30; i++)
		v[i] = i < 27 ? 100 : 400;
	summarize(v, 30, &s);
	assert_true(s.bimodal);
	assert_float_equal(s.high_share, 0.1, 1e-15);
	v[27] = 100;
	summarize(v, 30, &s);
	assert_false(s.bimodal);

	/* 100 then 150: exactly 1.5x; 100 then 149: under it */
	for (int i = 0; i < 20; i++)
		v[i] = i < 10 ? 100 : 150;
	summarize(v, 20, &s);
	assert_true(s.bimodal);
	assert_float_equal(s.high_share, 0.5, 0);
	for (int i = 10; i < 20; i++)
		v[i] = 149;
	summarize(v, 20, &s);
	assert_false(s.bimodal);

	/*
	 * Two gaps: 100 -> 160 (1.6x) after 10, 160 -> 480 (3x) after 16:
	 * the wider splits, 4 slow of 20.
	 */
	for (int i = 0; i < 20; i++)
		v[i] = i < 10 ? 100 : i < 16 ? 160 : 480;
	summarize(v, 20, &s);
	assert_true(s.bimodal);
	assert_float_equal(s.high_share, 0.2, 1e-15);
	assert_float_equal(s.low_mode, 100, 0);	/* 10 of 100, 6 of 160: the 8th and 9th */
	assert_float_equal(s.high_mode, 480, 0);

	/*
	 * Of 990, a tenth is exactly 99: 99 slow ones are a mode. Catches
	 * the tenth taken as n * 10 / 99 (100 of 990).
	 */
	{
		static double many[990];

		for (int i = 0; i < 990; i++)
			many[i] = i < 891 ? 60 : 250;
		summarize(many, 990, &s);
		assert_true(s.bimodal);
		assert_float_equal(s.high_share, 0.1, 1e-15);
		assert_float_equal(s.low_mode, 60, 0);
		assert_float_equal(s.high_mode, 250, 0);
	}

	/* A zero sample is no mode's edge: 0 to 100 is not a ratio. */
	for (int i = 0; i < 20; i++)
		v[i] = i < 10 ? 0 : 100;
	summarize(v, 20, &s);
	assert_false(s.bimodal);
	assert_float_equal(s.median, 50, 0);

	/*
	 * But the first sample above zero is an edge: 0, 0.5, then 18 of 5
	 * is a tenfold gap between neighbours 0.5 and 5, two fast of 20.
	 * Catches the guard taken one sample further down (s[i - 2] > 0,
	 * which is 0 here and drops the gap).
	 */
	for (int i = 0; i < 20; i++)
		v[i] = i == 0 ? 0 : i == 1 ? 0.5 : 5;
	summarize(v, 20, &s);
	assert_true(s.bimodal);
	assert_float_equal(s.high_share, 0.9, 1e-15);
	assert_float_equal(s.low_mode, 0.25, 0);
	assert_float_equal(s.high_mode, 5, 0);
}

static void set_pair(struct latency_pair *p, enum distance_class cls, int a, int b,
		     const double *samples, unsigned int n)
{
	*p = (struct latency_pair){ .cpu_a = a, .cpu_b = b, .cls = cls,
				    .numa_distance = -1, .nr_samples = n,
				    .samples = (double *)samples };
}

/*
 * A class pools its pairs' samples: smt {1, 2, 9} and {4, 5}: 5 samples
 * of 2 pairs, median 4, min 1; l3 {10}: one pair. A class without pairs,
 * or whose pairs took no sample, is left out.
 */
static void a_class_pools_its_pairs(void **unused)
{
	static const double smt_a[] = { 9, 1, 2 }, smt_b[] = { 5, 4 }, l3[] = { 10 };
	struct latency_pair pairs[4];
	struct latency_class c;

	(void)unused;
	set_pair(&pairs[0], DISTANCE_SMT, 0, 1, smt_a, 3);
	set_pair(&pairs[1], DISTANCE_L3, 0, 2, l3, 1);
	set_pair(&pairs[2], DISTANCE_SMT, 2, 3, smt_b, 2);
	set_pair(&pairs[3], DISTANCE_CROSS_PACKAGE, 0, 4, l3, 0);
	memset(&c, 0x55, sizeof(c));
	assert_int_equal(latency_class_summarize(pairs, 4, DISTANCE_SMT, &c), 0);
	assert_int_equal(c.cls, DISTANCE_SMT);
	assert_int_equal(c.nr_pairs, 2);
	assert_int_equal(c.nr_samples, 5);
	assert_float_equal(c.s.median, 4, 0);
	assert_float_equal(c.s.min, 1, 0);
	assert_float_equal(c.s.p90, 9, 0);
	assert_int_equal(latency_class_summarize(pairs, 4, DISTANCE_L3, &c), 0);
	assert_int_equal(c.nr_pairs, 1);
	assert_int_equal(c.nr_samples, 1);
	assert_float_equal(c.s.median, 10, 0);
	assert_int_equal(latency_class_summarize(pairs, 4, DISTANCE_CROSS_PACKAGE, &c), -1);
	assert_int_equal(latency_class_summarize(pairs, 4, DISTANCE_NUMA, &c), -1);
}

static double number(json_t *obj, const char *key)
{
	json_t *v = json_object_get(obj, key);

	if (!json_is_number(v))
		fail_msg("no number '%s'", key);
	return json_number_value(v);
}

/*
 * The latency file: a class per class with samples (not the one whose
 * pair took none), each pair with its CPUs, statistics and samples. The
 * smt class pools 40 samples: 36 of 60 and 4 of 250, two modes.
 */
static void the_latency_file_holds_every_class_and_pair(void **unused)
{
	double smt_a[20], smt_b[20];
	static const double l3[] = { 80, 90, 70 };
	struct latency_pair pairs[3];
	struct topo *topo = open_eight_cpus();
	json_t *doc, *classes, *list, *c;

	(void)unused;
	for (int i = 0; i < 20; i++) {
		smt_a[i] = 60;
		smt_b[i] = i < 4 ? 250 : 60;
	}
	set_pair(&pairs[0], DISTANCE_SMT, 0, 1, smt_a, 20);
	set_pair(&pairs[1], DISTANCE_L3, 1, 2, l3, 3);
	set_pair(&pairs[2], DISTANCE_CROSS_PACKAGE, 0, 4, l3, 0);
	pairs[2].numa_distance = 21;
	doc = latency_json(topo, "round_trip", 500, pairs, 3);
	assert_non_null(doc);
	assert_int_equal(number(doc, "round_trips_per_sample"), 500);
	classes = json_object_get(doc, "classes");
	assert_int_equal(json_array_size(classes), 2);
	c = json_array_get(classes, 0);
	assert_string_equal(json_string_value(json_object_get(c, "class")),
			    distance_class_name(DISTANCE_SMT));
	assert_int_equal(number(c, "pairs"), 1);
	assert_int_equal(number(c, "samples"), 20);
	assert_float_equal(number(c, "median_ns"), 60, 0);
	assert_false(json_is_true(json_object_get(c, "bimodal")));
	c = json_array_get(classes, 1);
	assert_int_equal(number(c, "samples"), 3);
	assert_float_equal(number(c, "median_ns"), 80, 0);
	assert_float_equal(number(c, "min_ns"), 70, 0);
	assert_float_equal(number(c, "p10_ns"), 70, 0);
	assert_float_equal(number(c, "p90_ns"), 90, 0);
	assert_null(json_object_get(c, "low_mode_ns"));
	list = json_object_get(doc, "pairs");
	assert_int_equal(json_array_size(list), 3);
	c = json_array_get(list, 1);
	assert_int_equal(json_integer_value(json_array_get(json_object_get(c, "cpus"), 0)), 1);
	assert_int_equal(json_integer_value(json_array_get(json_object_get(c, "cpus"), 1)), 2);
	assert_true(json_is_null(json_object_get(c, "numa_distance")));
	assert_int_equal(json_array_size(json_object_get(c, "samples_ns")), 3);
	assert_float_equal(json_number_value(json_array_get(json_object_get(c, "samples_ns"), 2)),
			   70, 0);
	c = json_array_get(list, 2);
	assert_int_equal(number(c, "numa_distance"), 21);
	assert_int_equal(json_array_size(json_object_get(c, "samples_ns")), 0);
	json_decref(doc);

	/* both smt pairs as one class: 40 samples, 4 slow (a tenth) */
	set_pair(&pairs[1], DISTANCE_SMT, 2, 3, smt_b, 20);
	doc = latency_json(topo, "round_trip", 500, pairs, 2);
	c = json_array_get(json_object_get(doc, "classes"), 0);
	assert_int_equal(number(c, "pairs"), 2);
	assert_int_equal(number(c, "samples"), 40);
	assert_true(json_is_true(json_object_get(c, "bimodal")));
	assert_float_equal(number(c, "low_mode_ns"), 60, 0);
	assert_float_equal(number(c, "high_mode_ns"), 250, 0);
	assert_float_equal(number(c, "high_mode_share"), 0.1, 1e-15);
	/* the second pair alone: 4 of 20, a mode of share 0.2 */
	c = json_array_get(json_object_get(doc, "pairs"), 1);
	assert_true(json_is_true(json_object_get(c, "bimodal")));
	assert_float_equal(number(c, "high_mode_share"), 0.2, 1e-15);
	json_decref(doc);
	topo_close(topo);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
#if HAVE_HWLOC
		cmocka_unit_test(three_per_class_are_evenly_spaced),
		cmocka_unit_test(a_class_with_fewer_pairs_gives_all_of_them),
		cmocka_unit_test(many_per_class_is_every_pair_once),
		cmocka_unit_test(one_and_none_per_class),
		cmocka_unit_test(pairs_carry_their_numa_distance),
		cmocka_unit_test(the_latency_file_holds_every_class_and_pair),
#endif
		cmocka_unit_test(percentiles_are_nearest_rank),
		cmocka_unit_test(the_modes_are_each_groups_median),
		cmocka_unit_test(a_mode_needs_a_tenth_and_a_gap_of_one_and_a_half),
		cmocka_unit_test(a_class_pools_its_pairs),
	};

	return run_cases("latency_pairs", tests, argc, argv);
}
