// SPDX-License-Identifier: GPL-2.0-only
/*
 * The report's building blocks against cases worked out by hand: the
 * host's modes (which rounds form one, the widest gaps kept when there
 * are more modes than a report shows, each mode's figures), the order of
 * names with numbers in them, and a mode's ratio of two cases by round.
 * Every expected value is written out in a comment, not computed by the
 * code under test.
 */
#include <limits.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "float_assert.h"

#include "analysis.h"
#include "cases.h"
#include "catalog.h"
#include "host_modes.h"
#include "prediction_internal.h"
#include "results_read.h"
#include "run_checks.h"
#include "setting.h"
#include "sweeps.h"
#include "usl.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static const char *tests_dir;

/* A pingpong case of n rounds whose one-way transfer in round rounds[i] is one_way[i]. */
struct fake_pingpong {
	struct result_case c;
	struct case_counter counter;
};

static void fake_pingpong_init(struct fake_pingpong *p, const double *one_way,
			       const long *rounds, size_t n)
{
	memset(p, 0, sizeof(*p));
	p->counter.name = "one_way_ns";
	p->counter.n = n;
	p->counter.values = (double *)one_way;
	p->c.family = "pingpong";
	p->c.variant = "store_load";
	p->c.n = n;
	p->c.ns = (double *)one_way;
	p->c.rounds = rounds;
	p->c.nr_counters = 1;
	p->c.counters = &p->counter;
}

static void assert_mode(const struct host_mode *m, const long *rounds, size_t n,
			double lo, double median, double hi)
{
	assert_int_equal(m->nr_rounds, n);
	assert_memory_equal(m->rounds, rounds, n * sizeof(*rounds));
	assert_float_equal(m->lo, lo, 1e-12);
	assert_float_equal(m->median, median, 1e-12);
	assert_float_equal(m->hi, hi, 1e-12);
}

/*
 * Two placements, the rounds given out of order: 40, 41, 44 and 46 ns
 * (rounds 4, 0, 6, 2: within 1.15x) and 100, 110, 300 ns (rounds 1, 5,
 * 3). Sorted, the gaps of 2 or more are 100 / 46 = 2.17 and 300 / 110
 * = 2.73: 40 41 44 46 | 100 110 | 300, three
 * modes: {0,2,4,6} median (41 + 44) / 2 = 42.5; {1,5} median 105;
 * {3} 300.
 */
static void test_modes_split_at_a_factor_of_two(void **state)
{
	const double one_way[] = { 41, 100, 46, 300, 40, 110, 44 };
	const long rounds[] = { 0, 1, 2, 3, 4, 5, 6 };
	const long near[] = { 0, 2, 4, 6 }, mid[] = { 1, 5 }, far[] = { 3 };
	struct fake_pingpong p;
	struct host_modes m;

	(void)state;
	fake_pingpong_init(&p, one_way, rounds, N(one_way));
	assert_int_equal(host_modes_find(&p.c, &m), 0);
	assert_ptr_equal(m.pingpong, &p.c);
	assert_int_equal(m.nr, 3);
	assert_mode(&m.modes[0], near, N(near), 40, 42.5, 46);
	assert_mode(&m.modes[1], mid, N(mid), 100, 105, 110);
	assert_mode(&m.modes[2], far, N(far), 300, 300, 300);
	host_modes_free(&m);
	assert_int_equal(m.nr, 0);
}

/*
 * A gap of exactly the factor separates (2.0: "differ by this factor or
 * more"), one just under does not: 30, 60 (60 / 30 = 2) and 60, 119.9
 * (1.998). Modes {30} and {60, 119.9}.
 */
static void test_a_gap_of_exactly_the_factor_separates(void **state)
{
	const double one_way[] = { 119.9, 30, 60 };
	const long rounds[] = { 10, 11, 12 };
	const long first[] = { 11 }, second[] = { 10, 12 };
	struct fake_pingpong p;
	struct host_modes m;

	(void)state;
	fake_pingpong_init(&p, one_way, rounds, N(one_way));
	assert_int_equal(host_modes_find(&p.c, &m), 0);
	assert_int_equal(m.nr, 2);
	assert_mode(&m.modes[0], first, N(first), 30, 30, 30);
	assert_mode(&m.modes[1], second, N(second), 60, (60 + 119.9) / 2, 119.9);
	host_modes_free(&m);
}

/*
 * Five placements in a report that shows four modes: the three widest
 * gaps start a mode. Sorted one-way transfers 10 | 25 | 55 | 220 | 660,
 * gaps 2.5, 2.2, 4 and 3 (rounds 0 to 4 in that order). The widest three
 * are 4 (before 220), 3 (before 660) and 2.5 (before 25); the narrowest,
 * 2.2 between 25 and 55, joins them: modes {10}, {25, 55}, {220}, {660}.
 * A rule that drops the first gap it finds narrower than a new one, not
 * the narrowest, drops 2.5 when 3 arrives and splits 25 from 55 instead.
 */
static void test_more_modes_than_slots_keep_the_widest_gaps(void **state)
{
	const double one_way[] = { 660, 220, 55, 25, 10 };
	const long rounds[] = { 4, 3, 2, 1, 0 };
	const long r0[] = { 0 }, r12[] = { 1, 2 }, r3[] = { 3 }, r4[] = { 4 };
	struct fake_pingpong p;
	struct host_modes m;

	(void)state;
	fake_pingpong_init(&p, one_way, rounds, N(one_way));
	assert_int_equal(host_modes_find(&p.c, &m), 0);
	assert_int_equal(m.nr, HOST_MODES_MAX);
	assert_mode(&m.modes[0], r0, N(r0), 10, 10, 10);
	assert_mode(&m.modes[1], r12, N(r12), 25, 40, 55);
	assert_mode(&m.modes[2], r3, N(r3), 220, 220, 220);
	assert_mode(&m.modes[3], r4, N(r4), 660, 660, 660);
	host_modes_free(&m);
}

/*
 * The same five placements with the gaps in another order: 10 | 22 | 88
 * | 264 | 660, gaps 2.2, 4, 3 and 2.5. The widest three are 4, 3 and 2.5:
 * modes {10, 22}, {88}, {264}, {660}. And six, where the last gap ties
 * the narrowest kept one: 10 | 30 | 60 | 150 | 300 | 900, gaps 3, 2, 2.5,
 * 2, 3: kept 3 (before 30), 3 (before 900) and 2.5 (before 150); of the
 * two gaps of 2 neither is wider than 2.5: {10}, {30, 60}, {150, 300},
 * {900}.
 */
static void test_widest_gaps_in_any_order(void **state)
{
	const double five[] = { 10, 22, 88, 264, 660 };
	const double six[] = { 10, 30, 60, 150, 300, 900 };
	const long rounds[] = { 0, 1, 2, 3, 4, 5 };
	const long a0[] = { 0, 1 }, a1[] = { 2 }, a2[] = { 3 }, a3[] = { 4 };
	const long b0[] = { 0 }, b1[] = { 1, 2 }, b2[] = { 3, 4 }, b3[] = { 5 };
	struct fake_pingpong p;
	struct host_modes m;

	(void)state;
	fake_pingpong_init(&p, five, rounds, N(five));
	assert_int_equal(host_modes_find(&p.c, &m), 0);
	assert_int_equal(m.nr, 4);
	assert_mode(&m.modes[0], a0, N(a0), 10, 16, 22);
	assert_mode(&m.modes[1], a1, N(a1), 88, 88, 88);
	assert_mode(&m.modes[2], a2, N(a2), 264, 264, 264);
	assert_mode(&m.modes[3], a3, N(a3), 660, 660, 660);
	host_modes_free(&m);

	fake_pingpong_init(&p, six, rounds, N(six));
	assert_int_equal(host_modes_find(&p.c, &m), 0);
	assert_int_equal(m.nr, 4);
	assert_mode(&m.modes[0], b0, N(b0), 10, 10, 10);
	assert_mode(&m.modes[1], b1, N(b1), 30, 45, 60);
	assert_mode(&m.modes[2], b2, N(b2), 150, 225, 300);
	assert_mode(&m.modes[3], b3, N(b3), 900, 900, 900);
	host_modes_free(&m);
}

/*
 * No modes without a pingpong, without rounds, with one round, or with a
 * counter missing from a repetition; a round whose transfer is not
 * positive (a failed measurement) is left out of every mode.
 */
static void test_modes_need_rounds_and_transfers(void **state)
{
	const double one_way[] = { 50, 0, 52, -1, 200 };
	const long rounds[] = { 0, 1, 2, 3, 4 };
	const long near[] = { 0, 2 }, far[] = { 4 };
	struct fake_pingpong p;
	struct host_modes m;

	(void)state;
	assert_int_equal(host_modes_find(NULL, &m), 0);
	assert_int_equal(m.nr, 0);
	assert_null(m.pingpong);

	fake_pingpong_init(&p, one_way, rounds, 1);
	assert_int_equal(host_modes_find(&p.c, &m), 0);
	assert_int_equal(m.nr, 0);

	fake_pingpong_init(&p, one_way, NULL, N(one_way));
	assert_int_equal(host_modes_find(&p.c, &m), 0);
	assert_int_equal(m.nr, 0);

	fake_pingpong_init(&p, one_way, rounds, N(one_way));
	p.counter.n = N(one_way) - 1;
	assert_int_equal(host_modes_find(&p.c, &m), 0);
	assert_int_equal(m.nr, 0);

	/* two rounds are the least that make modes: 50 and 200 ns */
	fake_pingpong_init(&p, (const double[]){ 200, 50 }, rounds, 2);
	assert_int_equal(host_modes_find(&p.c, &m), 0);
	assert_int_equal(m.nr, 2);
	assert_int_equal(m.modes[0].rounds[0], 1);
	assert_int_equal(m.modes[1].rounds[0], 0);
	host_modes_free(&m);

	fake_pingpong_init(&p, one_way, rounds, N(one_way));
	assert_int_equal(host_modes_find(&p.c, &m), 0);
	assert_int_equal(m.nr, 2);
	assert_mode(&m.modes[0], near, N(near), 50, 51, 52);
	assert_mode(&m.modes[1], far, N(far), 200, 200, 200);
	host_modes_free(&m);
}

/*
 * Ties among the gaps, when there are more modes than slots: a new gap
 * equal to the narrowest one kept does not replace it (10 | 30 | 75 | 150
 * | 300: gaps 3, 2.5, 2, 2; the first 2, before 150, is kept: {10}, {30},
 * {75}, {150, 300}); a wider gap replaces the first of two equally narrow
 * ones (10 | 20 | 60 | 120 | 480: gaps 2, 3, 2, then 4 replaces the 2
 * before 20: {10, 20}, {60}, {120}, {480}).
 */
static void test_gap_ties(void **state)
{
	const double equal_new[] = { 10, 30, 75, 150, 300 };
	const double equal_kept[] = { 10, 20, 60, 120, 480 };
	const long rounds[] = { 0, 1, 2, 3, 4 };
	const long a0[] = { 0 }, a1[] = { 1 }, a2[] = { 2 }, a3[] = { 3, 4 };
	const long b0[] = { 0, 1 }, b1[] = { 2 }, b2[] = { 3 }, b3[] = { 4 };
	struct fake_pingpong p;
	struct host_modes m;

	(void)state;
	fake_pingpong_init(&p, equal_new, rounds, N(equal_new));
	assert_int_equal(host_modes_find(&p.c, &m), 0);
	assert_int_equal(m.nr, 4);
	assert_mode(&m.modes[0], a0, N(a0), 10, 10, 10);
	assert_mode(&m.modes[1], a1, N(a1), 30, 30, 30);
	assert_mode(&m.modes[2], a2, N(a2), 75, 75, 75);
	assert_mode(&m.modes[3], a3, N(a3), 150, 225, 300);
	host_modes_free(&m);

	fake_pingpong_init(&p, equal_kept, rounds, N(equal_kept));
	assert_int_equal(host_modes_find(&p.c, &m), 0);
	assert_int_equal(m.nr, 4);
	assert_mode(&m.modes[0], b0, N(b0), 10, 15, 20);
	assert_mode(&m.modes[1], b1, N(b1), 60, 60, 60);
	assert_mode(&m.modes[2], b2, N(b2), 120, 120, 120);
	assert_mode(&m.modes[3], b3, N(b3), 480, 480, 480);
	host_modes_free(&m);
}

/*
 * Any positive transfer counts, however short: 1 ns and 1.5 ns are one
 * mode of two rounds, median 1.25.
 */
static void test_short_transfers_count(void **state)
{
	const double one_way[] = { 1.5, 1 };
	const long rounds[] = { 0, 1 }, both[] = { 0, 1 };
	struct fake_pingpong p;
	struct host_modes m;

	(void)state;
	fake_pingpong_init(&p, one_way, rounds, N(one_way));
	assert_int_equal(host_modes_find(&p.c, &m), 0);
	assert_int_equal(m.nr, 1);
	assert_mode(&m.modes[0], both, N(both), 1, 1.25, 1.5);
	host_modes_free(&m);
}

/* A case of one value per round, for the mode's ratios. */
static struct result_case case_by_round(double *ns, const long *rounds, size_t n)
{
	return (struct result_case){ .ns = ns, .rounds = rounds, .n = n };
}

/*
 * Rounds 0-5, a mode of rounds {1, 3, 4, 5}. a / b per round: round 1
 * 6/3 = 2, round 3 9/3 = 3, round 4 4/4 = 1, round 5: b failed (0 ns),
 * no pair. Rounds 0 and 2 (0.6/0.3, 10/1) are outside the mode. The
 * median of {2, 3, 1} is 2; b / a is 1/2. A mode where no round has
 * both: NaN. The mode of rounds {0, 2}: ratios 2 and 10, median 6 (a
 * time under 1 ns, as an empty loop's, is a time). host_mode_has() and
 * host_mode_filter() keep exactly the mode's rounds.
 */
static void test_mode_ratio_and_filter(void **state)
{
	double a_ns[] = { 0.6, 6, 10, 9, 4, 5 }, b_ns[] = { 0.3, 3, 1, 3, 4, 0 };
	const long rounds[] = { 0, 1, 2, 3, 4, 5 };
	long mode_rounds[] = { 1, 3, 4, 5 }, only_5[] = { 5 }, even[] = { 0, 2 };
	const struct host_mode mode = { .nr_rounds = 4, .rounds = mode_rounds };
	const struct host_mode first = { .nr_rounds = 2, .rounds = even };
	const struct host_mode last = { .nr_rounds = 1, .rounds = only_5 };
	struct result_case a = case_by_round(a_ns, rounds, 6);
	struct result_case b = case_by_round(b_ns, rounds, 6);
	double kept_values[6];
	long kept_rounds[6];
	const long want_rounds[] = { 1, 3, 4, 5 };
	const double want_values[] = { 6, 9, 4, 5 };

	(void)state;
	assert_float_equal(host_mode_ratio(&mode, &a, &b), 2, 1e-12);
	assert_float_equal(host_mode_ratio(&mode, &b, &a), 0.5, 1e-12);
	assert_true(isnan(host_mode_ratio(&last, &a, &b)));
	for (long r = 0; r < 7; r++)
		assert_int_equal(host_mode_has(&mode, r), r == 1 || (r >= 3 && r <= 5));
	assert_int_equal(host_mode_filter(&mode, a_ns, rounds, 6, kept_values, kept_rounds), 4);
	assert_memory_equal(kept_rounds, want_rounds, sizeof(want_rounds));
	assert_memory_equal(kept_values, want_values, sizeof(want_values));

	assert_float_equal(host_mode_ratio(&first, &a, &b), 6, 1e-12);
	assert_int_equal(host_mode_filter(&first, a_ns, rounds, 6, kept_values, kept_rounds), 2);
	assert_int_equal(kept_rounds[0], 0);
	assert_float_equal(kept_values[0], 0.6, 0);
	assert_int_equal(kept_rounds[1], 2);
	assert_float_equal(kept_values[1], 10, 0);
}

/*
 * The ping-pong's one-way transfers of four files, in the set's order
 * (each file's rows together, as the reader gives them):
 *
 *   file 0: smt 10, 12, 14 (rounds 0, 1, 2), l3 40, 44 (rounds 0, 1),
 *           round 1's classes in strings of their own
 *   file 1: package 100, 90, 110, and one of no recorded class, 70
 *   file 2: smt 5 only
 *   file 3: package 130, pooled with file 1 (the same machine)
 *
 * By hand: file 0 at l3 is the median of 40 and 44, 42; at smt 12; at
 * package, which it did not measure, the nearest class beyond SMT
 * siblings, l3, 42; at no class the same 42. File 2 at l3 has only smt:
 * 5. File 1 at package: 100; the machine of files 1 and 3 at package:
 * the median of 90, 100, 110, 130, 105. A file without samples: NaN.
 */
/* the same class in another string: classes compare by their text */
static char l3_again[] = "l3", smt_again[] = "smt";

static const struct transfer_sample transfers[] = {
	{ .file = 0, .source_file = 0, .cls = "smt", .round = 0, .one_way_ns = 10 },
	{ .file = 0, .source_file = 0, .cls = "l3", .round = 0, .one_way_ns = 40 },
	{ .file = 0, .source_file = 0, .cls = smt_again, .round = 1, .one_way_ns = 12 },
	{ .file = 0, .source_file = 0, .cls = l3_again, .round = 1, .one_way_ns = 44 },
	{ .file = 0, .source_file = 0, .cls = "smt", .round = 2, .one_way_ns = 14 },
	{ .file = 1, .source_file = 1, .cls = "package", .round = -1, .one_way_ns = 100 },
	{ .file = 1, .source_file = 1, .cls = "package", .round = -1, .one_way_ns = 90 },
	{ .file = 1, .source_file = 1, .cls = NULL, .round = -1, .one_way_ns = 70 },
	{ .file = 1, .source_file = 1, .cls = "package", .round = -1, .one_way_ns = 110 },
	{ .file = 2, .source_file = 2, .cls = "smt", .round = -1, .one_way_ns = 5 },
	{ .file = 1, .source_file = 3, .cls = "package", .round = -1, .one_way_ns = 130 },
};

static void test_one_way_by_class(void **state)
{
	struct analysis a = {
		.transfers = (struct transfer_sample *)transfers, .nr_transfers = N(transfers),
	};

	(void)state;
	assert_float_equal(analysis_one_way_ns(&a, 0, "l3"), 42, 1e-12);
	assert_float_equal(analysis_one_way_ns(&a, 0, "smt"), 12, 1e-12);
	assert_float_equal(analysis_one_way_ns(&a, 0, "package"), 42, 1e-12);
	assert_float_equal(analysis_one_way_ns(&a, 0, NULL), 42, 1e-12);
	assert_float_equal(analysis_one_way_ns(&a, 2, "l3"), 5, 1e-12);
	assert_float_equal(analysis_one_way_ns(&a, 1, "package"), 100, 1e-12);
	assert_float_equal(analysis_one_way_ns(&a, 3, "package"), 130, 1e-12);
	assert_true(isnan(analysis_one_way_ns(&a, 4, "l3")));
	assert_float_equal(analysis_machine_one_way_ns(&a, 1, "package"), 105, 1e-12);
	assert_float_equal(analysis_machine_one_way_ns(&a, 0, "smt"), 12, 1e-12);
	assert_true(isnan(analysis_machine_one_way_ns(&a, 3, "package")));
}

/* One round's transfer: file 0's smt in round 1 is 12, l3 in round 0 40. */
static void test_one_way_in_a_round(void **state)
{
	struct analysis a = {
		.transfers = (struct transfer_sample *)transfers, .nr_transfers = N(transfers),
	};

	(void)state;
	assert_float_equal(analysis_one_way_in_round(&a, 0, "smt", 1), 12, 1e-12);
	assert_float_equal(analysis_one_way_in_round(&a, 0, "smt", 2), 14, 1e-12);
	assert_float_equal(analysis_one_way_in_round(&a, 0, "l3", 0), 40, 1e-12);
	/* package is not measured in file 0: l3 stands for it */
	assert_float_equal(analysis_one_way_in_round(&a, 0, "package", 1), 44, 1e-12);
	assert_true(isnan(analysis_one_way_in_round(&a, 0, "l3", 2)));
	assert_true(isnan(analysis_one_way_in_round(&a, 0, "smt", -1)));
	assert_true(isnan(analysis_one_way_in_round(&a, 4, "smt", 0)));
}

/*
 * A run's measured cold miss stands for a transfer when it lies within
 * a factor of 2 of the one-way transfer, both ends included; otherwise,
 * or when not measured (0), the transfer does. One-way 50 ns: 60 is
 * taken, 100 and 25 too (the ends), 100.5 and 24.5 are not; under a
 * nanosecond alike.
 */
static void test_cold_miss_within_a_factor_of_two(void **state)
{
	struct result_file files[1];
	struct results set = { .nr_files = 1, .files = files };
	struct analysis a = { .set = &set };
	const double cold[] = { 60, 100, 25, 100.5, 24.5, 0, -3 };
	const double want[] = { 60, 100, 25, 50, 50, 50, 50 };

	(void)state;
	for (size_t i = 0; i < N(cold); i++) {
		memset(files, 0, sizeof(files));
		files[0].run.cold_miss_ns = cold[i];
		assert_float_equal(analysis_cold_miss_ns(&a, 0, 50), want[i], 0);
	}
	/* the rule has no floor of its own (cold > 1 would be one): 0.6 ns is within 2x of 1 ns */
	files[0].run.cold_miss_ns = 0.6;
	assert_float_equal(analysis_cold_miss_ns(&a, 0, 1), 0.6, 0);
}

/* A family's tables by their settings alone, for the sweeps. */
struct fake_family {
	size_t nr;
	struct result_group groups[40];
	struct group_view views[40];
	char settings[40][128];
	struct family_view family;
	struct analysis a;
};

static void fake_family_add(struct fake_family *ff, bool pingpong, const char *fmt, ...)
{
	size_t k = ff->nr++;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(ff->settings[k], sizeof(ff->settings[k]), fmt, ap);
	va_end(ap);
	ff->groups[k] = (struct result_group){ .family = "has_pinned", .setting = ff->settings[k] };
	/* the setting as the reader gives it: the parameters, then the placement */
	setting_init(&ff->groups[k].params, catalog_find("has_pinned"));
	for (const char *t = ff->settings[k]; *t;) {
		size_t len = strcspn(t, ",");
		char item[64], err[160];
		char *eq;

		snprintf(item, sizeof(item), "%.*s", (int)len, t);
		eq = strchr(item, '=');
		if (eq) {
			*eq = '\0';
			assert_int_equal(setting_set(&ff->groups[k].params, item, eq + 1, err,
						     sizeof(err)), 0);
		} else {
			assert_string_equal(item, "placement compact");
			ff->groups[k].policy = "compact";
		}
		t += len;
		while (*t == ',' || *t == ' ')
			t++;
	}
	ff->views[k] = (struct group_view){ .group = &ff->groups[k], .pingpong = pingpong };
}

static void fake_family_done(struct fake_family *ff, size_t default_group)
{
	ff->family = (struct family_view){
		.name = "has_pinned", .kf = catalog_find("has_pinned"),
		.first_group = 0, .nr_groups = ff->nr, .default_group = default_group,
	};
	ff->a = (struct analysis){
		.nr_groups = ff->nr, .groups = ff->views, .nr_families = 1, .families = &ff->family,
	};
}

static void assert_sweep(const struct fake_family *ff, const struct sweep *s, const char *param,
			 const size_t *groups, const char *const *values, size_t n, const char *fixed)
{
	assert_string_equal(s->param, param);
	assert_int_equal(s->nr, n);
	for (size_t i = 0; i < n; i++) {
		assert_ptr_equal(s->groups[i], &ff->views[groups[i]]);
		assert_string_equal(s->values[i], values[i]);
	}
	assert_string_equal(s->fixed, fixed);
}

/*
 * has_pinned's defaults are pin_work=1, flag_line=shared, already_set=100.
 * Tables, in order:
 *
 *   0 pin_work=1 already_set=100 (the defaults)   4 pin_work=0 already_set=0
 *   1 pin_work=0 already_set=100                  5 pin_work=0 already_set=50
 *   2 pin_work=2 already_set=100                  6 pin_work=0 already_set=25
 *   3 pin_work=1 already_set=0                    7 pin_work=2 already_set=0
 *   8 the same as 3, but the physical baseline (left out of every sweep)
 *
 * Along pin_work: the defaults' rest (already_set=100) has tables 0, 1, 2
 * and already_set=0's has 3, 4, 7: a tie, which the defaults' table wins:
 * values 1, 0, 2, the others at their defaults. Along flag_line no two
 * tables differ in it alone: no sweep. Along already_set: pin_work=0's
 * rest has 4 tables (1, 4, 5, 6), more than the defaults' 2 (0, 3): values
 * 100, 0, 50, 25 with pin_work=0 fixed.
 */
static void test_sweeps_take_the_most_points(void **state)
{
	static struct fake_family ff;
	const char *const rest = "flag_line=shared";
	const int pin[] = { 1, 0, 2, 1, 0, 0, 0, 2, 1 }, set[] = { 100, 100, 100, 0, 0, 50, 25, 0, 0 };
	const size_t pin_groups[] = { 0, 1, 2 }, set_groups[] = { 1, 4, 5, 6 };
	const char *const pin_values[] = { "1", "0", "2" }, *const set_values[] = { "100", "0", "50", "25" };
	struct sweep sweeps[8];
	char changes[SWEEP_TEXT_LEN];

	(void)state;
	memset(&ff, 0, sizeof(ff));
	for (size_t i = 0; i < N(pin); i++)
		fake_family_add(&ff, i == 8, "pin_work=%d, %s, already_set=%d, placement compact",
				pin[i], rest, set[i]);
	fake_family_done(&ff, 0);
	assert_int_equal(family_sweeps(&ff.a, &ff.family, sweeps, 8), 2);
	assert_sweep(&ff, &sweeps[0], "pin_work", pin_groups, pin_values, 3, "defaults");
	assert_sweep(&ff, &sweeps[1], "already_set", set_groups, set_values, 4, "pin_work=0");
	/* room for one: the first parameter's */
	assert_int_equal(family_sweeps(&ff.a, &ff.family, sweeps, 1), 1);
	assert_string_equal(sweeps[0].param, "pin_work");

	setting_changes(changes, sizeof(changes), &ff.views[4]);
	assert_string_equal(changes, "pin_work=0, already_set=0");
	setting_changes(changes, sizeof(changes), &ff.views[0]);
	assert_string_equal(changes, "defaults");
	assert_ptr_equal(family_of(&ff.a, &ff.views[8]), &ff.family);
	assert_true(group_detailed(&ff.a, &ff.views[0], false));
	assert_false(group_detailed(&ff.a, &ff.views[1], false));
	assert_true(group_detailed(&ff.a, &ff.views[1], true));
	/*
	 * Another placement follows the parameters; a buffer too short for
	 * it keeps the first bytes and writes nothing past its end.
	 */
	ff.groups[4].policy = "spread";
	setting_changes(changes, sizeof(changes), &ff.views[4]);
	assert_string_equal(changes, "pin_work=0, already_set=0, placement spread");
	memset(changes, '#', sizeof(changes));
	setting_changes(changes, 30, &ff.views[4]);
	assert_string_equal(changes, "pin_work=0, already_set=0, pl");
	for (size_t i = 30; i < sizeof(changes); i++)
		assert_int_equal(changes[i], '#');
	ff.groups[4].policy = "compact";
	/* a family the catalogue does not know has no defaults but the placement */
	ff.family.kf = NULL;
	setting_init(&ff.groups[0].params, NULL);
	ff.groups[0].params_text = "pin_work=1, flag_line=shared, already_set=100";
	setting_changes(changes, sizeof(changes), &ff.views[0]);
	assert_string_equal(changes, "pin_work=1, flag_line=shared, already_set=100");
}

/* Tables split into two families of 3 and 6: each table finds its own. */
static void test_family_of_each_table(void **state)
{
	struct group_view views[9];
	struct family_view two[2] = {
		{ .name = "has_pinned", .first_group = 0, .nr_groups = 3 },
		{ .name = "has_pinned", .first_group = 3, .nr_groups = 6 },
	};
	struct analysis a = { .nr_groups = 9, .groups = views, .nr_families = 2, .families = two };

	(void)state;
	memset(views, 0, sizeof(views));
	assert_ptr_equal(family_of(&a, &views[0]), &two[0]);
	assert_ptr_equal(family_of(&a, &views[2]), &two[0]);
	assert_ptr_equal(family_of(&a, &views[3]), &two[1]);
	assert_ptr_equal(family_of(&a, &views[8]), &two[1]);
	/* a table in the appendix only: not its family's default, of two or more */
	two[0].nr_groups = 2;
	two[0].default_group = 0;
	assert_false(group_detailed(&a, &views[1], false));
	assert_true(group_detailed(&a, &views[0], false));
	two[0].nr_groups = 1;
	two[0].default_group = 0;
	assert_true(group_detailed(&a, &views[0], false));
}

/*
 * A sweep shows SWEEP_MAX_POINTS (16) tables at most, and counts are
 * capped before they are compared: along pin_work, already_set=100 (the
 * defaults') has 17 tables (pin_work 0 to 16) and already_set=0 has 18
 * (0 to 17): both count 16, a tie the defaults win, and the sweep is
 * pin_work 0 to 15 at already_set=100, in table order. A family of one
 * table has no sweep.
 */
static void test_sweeps_are_capped_before_they_compare(void **state)
{
	static struct fake_family ff;
	struct sweep sweeps[8];
	size_t groups[SWEEP_MAX_POINTS];
	char texts[SWEEP_MAX_POINTS][8];
	const char *values[SWEEP_MAX_POINTS];

	(void)state;
	memset(&ff, 0, sizeof(ff));
	for (int v = 0; v <= 16; v++)
		fake_family_add(&ff, false, "pin_work=%d, flag_line=shared, already_set=100, "
				"placement compact", v);
	for (int v = 0; v <= 17; v++)
		fake_family_add(&ff, false, "pin_work=%d, flag_line=shared, already_set=0, "
				"placement compact", v);
	fake_family_done(&ff, 1);
	for (size_t i = 0; i < SWEEP_MAX_POINTS; i++) {
		groups[i] = i;
		snprintf(texts[i], sizeof(texts[i]), "%zu", i);
		values[i] = texts[i];
	}
	assert_int_equal(family_sweeps(&ff.a, &ff.family, sweeps, 8), 2);
	assert_sweep(&ff, &sweeps[0], "pin_work", groups, values, SWEEP_MAX_POINTS, "defaults");
	/* along already_set every pin_work has 2 tables; the defaults' is pin_work=1 */
	assert_int_equal(sweeps[1].nr, 2);
	assert_ptr_equal(sweeps[1].groups[0], &ff.views[1]);
	assert_ptr_equal(sweeps[1].groups[1], &ff.views[17 + 1]);
	assert_string_equal(sweeps[1].fixed, "defaults");

	ff.family.nr_groups = 1;
	assert_int_equal(family_sweeps(&ff.a, &ff.family, sweeps, 8), 0);
}

/*
 * The cases of tests/data/results-fixed.json come in the order cases.h
 * promises, and result_case_compare() (the order compare's merge walk
 * relies on) agrees with it case by case: families in catalogue order
 * (has_pinned, pingpong, counter), then the one the catalogue does not
 * know (zz_future_family), then another tool's benchmark (no family);
 * in a table, thread counts ascending, then variants in catalogue order
 * (has_pinned at pin_work=0: store_always, read_then_set, ... at 1
 * thread, then the same at 2), by name where the catalogue has no order.
 */
static void test_cases_in_order(void **state)
{
	const char *const families[] = { "has_pinned", "pingpong", "counter", "zz_future_family", NULL };
	struct results set;
	struct result_cases cases;
	char path[PATH_MAX], err[512];
	size_t nr_families = 0;

	(void)state;
	memset(&set, 0, sizeof(set));
	snprintf(path, sizeof(path), "%s/data/results-fixed.json", tests_dir);
	if (results_read(&set, path, err, sizeof(err)))
		fail_msg("%s", err);
	assert_int_equal(result_cases_build(&set, &cases), 0);
	assert_true(cases.nr > 10);
	for (size_t i = 0; i < cases.nr; i++) {
		const struct result_case *c = &cases.cases[i];

		assert_int_equal(result_case_compare(c, c), 0);
		if (i == 0 || c->family != cases.cases[i - 1].family) {
			assert_true(nr_families < N(families));
			if (families[nr_families])
				assert_string_equal(c->family, families[nr_families]);
			else
				assert_null(c->family);
			nr_families++;
		}
		if (i == 0)
			continue;
		assert_true(result_case_compare(&cases.cases[i - 1], c) < 0);
		assert_true(result_case_compare(c, &cases.cases[i - 1]) > 0);
	}
	assert_int_equal(nr_families, N(families));
	assert_string_equal(cases.cases[0].variant, "store_always");
	assert_int_equal(cases.cases[0].threads, 1);
	assert_string_equal(cases.cases[1].variant, "read_then_set");
	assert_int_equal(cases.cases[1].threads, 1);
	assert_string_equal(cases.groups[0].setting, cases.cases[0].setting);
	assert_non_null(strstr(cases.cases[0].setting, "pin_work=0"));
	for (size_t g = 0; g < cases.nr_groups; g++) {
		const struct result_group *grp = &cases.groups[g];

		for (size_t i = grp->first + 1; i < grp->first + grp->nr; i++) {
			const struct result_case *a = &cases.cases[i - 1], *b = &cases.cases[i];

			/* variants the catalogue does not know: by name */
			assert_true(a->threads < b->threads ||
				    (a->threads == b->threads && a->variant_order < b->variant_order) ||
				    (a->threads == b->threads && a->variant_order == b->variant_order &&
				     (!a->family || strcmp(a->variant, b->variant) < 0)));
		}
	}
	result_cases_free(&cases);
	results_free(&set);
}

/* A case of n repetitions with ops[i] operations and one counter. */
struct counted_case {
	struct result_case c;
	struct case_counter cc;
};

static void counted_case_init(struct counted_case *k, double *ops, double *values, size_t n)
{
	memset(k, 0, sizeof(*k));
	k->c.n = n;
	k->c.ops = ops;
	k->cc = (struct case_counter){ .name = "found_clear_fraction", .n = n, .values = values };
}

/*
 * A counter that is a fixed count over the op count: value x ops is 2 in
 * every repetition of a (ops 100, 200, 400: 0.02, 0.01, 0.005) and of b
 * (ops 50, 100, 200: 0.04, 0.02, 0.01), whose medians differ (0.01,
 * 0.02): true. Not when one repetition's count is 2.4 (the last value
 * 0.006), when the counts differ (b's 3: 0.06, 0.03, 0.015), when the
 * medians are equal (a against itself), or when a repetition lacks the
 * counter. Counts agree within a millionth of the count, or of 1 if it
 * is smaller: 2 + 1e-6 and 2 + 1.5e-6 are 2, 2 + 3e-6 not; 1 + 0.5e-6 is 1, 1 + 1.5e-6
 * not. Every repetition counts: the second one off (0.012, 2.4) too.
 */
static void test_count_over_ops(void **state)
{
	double a_ops[] = { 100, 200, 400 }, b_ops[] = { 50, 100, 200 };
	double a_values[] = { 0.02, 0.01, 0.005 }, b_values[] = { 0.04, 0.02, 0.01 };
	double off_values[] = { 0.02, 0.01, 0.006 }, three[] = { 0.06, 0.03, 0.015 };
	double near[] = { 0.04, 0.02, (2 + 1e-6) / 200 }, apart[] = { 0.04, 0.02, (2 + 3e-6) / 200 };
	double near_of_two[] = { 0.04, 0.02, (2 + 1.5e-6) / 200 };
	double second_off[] = { 0.02, 0.012, 0.005 }, count_one[] = { 0.02, 0.01, 0.005 };
	double count_one_off[] = { 0.01, 0.005, (1 + 1.5e-6) / 400 };
	double count_one_near[] = { 0.01, 0.005, (1 + 0.5e-6) / 400 };
	struct counted_case a, b;

	(void)state;
	counted_case_init(&a, a_ops, a_values, 3);
	counted_case_init(&b, b_ops, b_values, 3);
	assert_true(case_counters_are_count_over_ops(&a.c, &a.cc, &b.c, &b.cc));
	assert_false(case_counters_are_count_over_ops(&a.c, &a.cc, &a.c, &a.cc));
	b.cc.values = near;
	assert_true(case_counters_are_count_over_ops(&a.c, &a.cc, &b.c, &b.cc));
	b.cc.values = apart;
	assert_false(case_counters_are_count_over_ops(&a.c, &a.cc, &b.c, &b.cc));
	/* the bound scales with the count: 2 + 1.5e-6 is within 2e-6 of 2 (not of 1e-6) */
	b.cc.values = near_of_two;
	assert_true(case_counters_are_count_over_ops(&a.c, &a.cc, &b.c, &b.cc));
	b.cc.values = three;
	assert_false(case_counters_are_count_over_ops(&a.c, &a.cc, &b.c, &b.cc));
	b.cc.values = b_values;
	a.cc.values = off_values;
	assert_false(case_counters_are_count_over_ops(&a.c, &a.cc, &b.c, &b.cc));
	assert_false(case_counters_are_count_over_ops(&b.c, &b.cc, &a.c, &a.cc));
	a.cc.values = a_values;
	a.cc.n = 2;
	assert_false(case_counters_are_count_over_ops(&a.c, &a.cc, &b.c, &b.cc));

	/* the second repetition off (2.4) */
	counted_case_init(&a, a_ops, second_off, 3);
	assert_false(case_counters_are_count_over_ops(&a.c, &a.cc, &b.c, &b.cc));
	/* a count of 1: a millionth of 1 is the bound, 1 + 1.5e-6 is past it */
	counted_case_init(&a, a_ops, count_one_off, 3);
	counted_case_init(&b, b_ops, count_one, 3);
	assert_false(case_counters_are_count_over_ops(&a.c, &a.cc, &b.c, &b.cc));
	counted_case_init(&a, a_ops, count_one_near, 3);
	assert_true(case_counters_are_count_over_ops(&a.c, &a.cc, &b.c, &b.cc));
	/*
	 * The bound itself is within: a count of 0 (0 x 1) whose other two
	 * repetitions, 1e-6 x 1, differ from it by exactly the bound, 1e-6
	 * times fmax(1, 0) (">=" for ">" would refuse it); against a count of
	 * 0 in every repetition, whose median, 0, is not theirs (1e-6).
	 */
	{
		double ones[] = { 1, 1, 1 }, at_bound[] = { 0, 1e-6, 1e-6 }, zeros[] = { 0, 0, 0 };

		counted_case_init(&a, ones, at_bound, 3);
		counted_case_init(&b, ones, zeros, 3);
		assert_true(case_counters_are_count_over_ops(&a.c, &a.cc, &b.c, &b.cc));
	}
}

/*
 * The USL fit where the unconstrained least squares leaves the box
 * sigma in [0, 1], kappa >= 0. Linearised, y = N x1 / X(N) - 1 and
 * x = N - 1 obey y = sigma x + kappa x (x + 1).
 *
 * Amdahl alone, sigma 0.25: X = 100, 160, 400 / 1.75 at N = 1, 2, 4.
 * y = 0.25 x exactly: sigma 0.25, kappa 0 (the kappa = 0 edge), r2 1.
 *
 * Worse than serial: X = 10, 20 / 3, 6 at N = 1, 2, 3, so y = 2, 4 at
 * x = 1, 2 (sigma 2 unconstrained). With b = x (x + 1) = 2, 6 the edges
 * give: kappa = 0, sigma clamped to 1: squared error 1 + 4 = 5; sigma 0:
 * kappa = (2 * 2 + 6 * 4) / (4 + 36) = 0.7, error 0.6^2 + 0.2^2 = 0.4;
 * sigma 1: kappa = (2 * 1 + 6 * 2) / 40 = 0.35, error 0.3^2 + 0.1^2 =
 * 0.1, the least. Its r2 from the fitted X(2) = 20 / 2.7 and X(3) = 30 /
 * 5.1 against the mean 68 / 9; the peak of a sigma of 1 is 1 thread.
 */
static void test_usl_on_the_edges(void **state)
{
	double n[] = { 1, 2, 4 }, amdahl[] = { 100, 160, 400 / 1.75 };
	double n3[] = { 1, 2, 3 }, serial[] = { 10, 20.0 / 3, 6 }, falling[] = { 10, 20 / 1.8, 12 };
	double mean = 68.0 / 9, e2 = 20 / 2.7 - 20.0 / 3, e3 = 30 / 5.1 - 6;
	double ss_tot = (10 - mean) * (10 - mean) + (20.0 / 3 - mean) * (20.0 / 3 - mean) +
			(6 - mean) * (6 - mean);
	struct usl_fit fit;

	(void)state;
	assert_int_equal(usl_fit(n, amdahl, 3, &fit), 0);
	assert_float_equal(fit.sigma, 0.25, 1e-12);
	assert_float_equal(fit.kappa, 0, 1e-12);
	assert_float_equal(fit.r2, 1, 1e-12);
	assert_int_equal(fit.nr_points, 3);
	assert_true(isinf(usl_peak(&fit)));

	assert_int_equal(usl_fit(n3, serial, 3, &fit), 0);
	assert_float_equal(fit.x1, 10, 0);
	assert_float_equal(fit.sigma, 1, 0);
	assert_float_equal(fit.kappa, 0.35, 1e-12);
	assert_float_equal(fit.r2, 1 - (e2 * e2 + e3 * e3) / ss_tot, 1e-12);
	assert_float_equal(usl_peak(&fit), 1, 0);
	assert_float_equal(usl_throughput(&fit, 3), 30 / 5.1, 1e-12);

	/*
	 * Less than serial, falling off: y = 0.8, 1.5 (X = 10, 20 / 1.8,
	 * 12). The kappa = 0 edge gives sigma = (0.8 + 3) / 5 = 0.76, error
	 * 0.04^2 + 0.02^2 = 0.002; the sigma = 1 edge would want kappa =
	 * (2 * -0.2 + 6 * -0.5) / 40 < 0, which is held at 0 (error 0.29):
	 * sigma 0.76, kappa 0.
	 */
	assert_int_equal(usl_fit(n3, falling, 3, &fit), 0);
	assert_float_equal(fit.sigma, 0.76, 1e-12);
	assert_float_equal(fit.kappa, 0, 0);
}

/*
 * The peak: sqrt((1 - sigma) / kappa) threads, at least 1 (sigma 0.5,
 * kappa 1: sqrt(0.5) = 0.71, so 1; sigma 0.5, kappa 0.0125: 6.32), 1 for
 * a sigma of 1 or more, unbounded without coherency. The fit refuses
 * fewer than 3 points, two at N = 1, an N below 1, a throughput that is
 * not a positive number.
 */
static void test_usl_peak_and_refusals(void **state)
{
	struct usl_fit fit = { .x1 = 1, .sigma = 0.5, .kappa = 1 };
	double twice_one[] = { 1, 1, 2 }, below_one[] = { 0.5, 1, 2 }, n[] = { 1, 2, 4 };
	double x[] = { 10, 15, 18 }, inf[] = { 10, INFINITY, 18 }, nan_x[] = { 10, NAN, 18 };
	double neg[] = { 10, -15, 18 };

	(void)state;
	assert_float_equal(usl_peak(&fit), 1, 0);
	fit.kappa = 0.0125;
	assert_float_equal(usl_peak(&fit), sqrt(40), 1e-12);
	fit.sigma = 1;
	assert_float_equal(usl_peak(&fit), 1, 0);
	fit.sigma = 0.5;
	fit.kappa = 0;
	assert_true(isinf(usl_peak(&fit)));

	assert_int_equal(usl_fit(n, x, 3, &fit), 0);
	assert_int_equal(usl_fit(n, x, 2, &fit), -1);
	assert_int_equal(usl_fit(twice_one, x, 3, &fit), -1);
	assert_int_equal(usl_fit(below_one, x, 3, &fit), -1);
	assert_int_equal(usl_fit(n, inf, 3, &fit), -1);
	assert_int_equal(usl_fit(n, nan_x, 3, &fit), -1);
	assert_int_equal(usl_fit(n, neg, 3, &fit), -1);
}

/* The analysis of one results file of tests/data. */
struct analysed {
	struct results set;
	struct result_cases cases;
	struct analysis a;
};

static void analyse(struct analysed *an, const char *name)
{
	char path[PATH_MAX], err[512];

	memset(an, 0, sizeof(*an));
	snprintf(path, sizeof(path), "%s/data/%s", tests_dir, name);
	if (results_read(&an->set, path, err, sizeof(err)))
		fail_msg("%s", err);
	assert_int_equal(result_cases_build(&an->set, &an->cases), 0);
	assert_int_equal(analysis_build(&an->set, &an->cases, &an->a), 0);
}

static void analysed_free(struct analysed *an)
{
	analysis_free(&an->a);
	result_cases_free(&an->cases);
	results_free(&an->set);
}

static const struct family_view *family_named(const struct analysis *a, const char *name)
{
	for (size_t i = 0; i < a->nr_families; i++)
		if (!strcmp(a->families[i].name, name))
			return &a->families[i];
	fail_msg("no family %s", name);
	return NULL;
}

/*
 * results-fixed.json's has_pinned: two tables, pin_work=0 and pin_work=1
 * (the catalogue's default, so the verdict's), at 1, 2 and 4 threads.
 * Its pair is store_always over read_then_set at each count, the widest
 * at 4. A setting names a table by the parameters it changes (none: the
 * defaults'); one the file lacks (already_set=0) names none.
 */
static void test_tables_and_settings(void **state)
{
	static struct analysed an;
	const struct family_view *f;
	const struct group_view *def, *zero;

	(void)state;
	analyse(&an, "results-fixed.json");
	f = family_named(&an.a, "has_pinned");
	assert_ptr_equal(f, &an.a.families[0]);
	assert_int_equal(f->nr_groups, 2);
	def = &an.a.groups[f->default_group];
	zero = &an.a.groups[f->first_group];
	assert_ptr_not_equal(def, zero);
	assert_non_null(strstr(def->group->setting, "pin_work=1"));
	assert_non_null(strstr(zero->group->setting, "pin_work=0"));
	assert_true(def->is_default);
	assert_false(zero->is_default);
	assert_int_equal(zero->number, 1);
	assert_int_equal(def->number, 2);
	assert_null(def->mix_param);

	assert_ptr_equal(analysis_find_setting(&an.a, f, "pin_work=0"), zero);
	assert_ptr_equal(analysis_find_setting(&an.a, f, "pin_work=1"), def);
	assert_ptr_equal(analysis_find_setting(&an.a, f, ""), def);
	assert_null(analysis_find_setting(&an.a, f, "already_set=0"));

	assert_string_equal(def->before, "store_always");
	assert_string_equal(def->after, "read_then_set");
	assert_int_equal(def->nr_pairs, 3);
	assert_int_equal(group_view_widest_pair(def)->threads, 4);
	assert_int_equal(group_view_pair(def, 1)->threads, 1);
	assert_int_equal(group_view_pair(def, 2)->threads, 2);
	assert_null(group_view_pair(def, 3));
	assert_string_equal(group_view_pair(def, 2)->before->variant, "store_always");
	assert_string_equal(group_view_pair(def, 2)->after->variant, "read_then_set");
	assert_int_equal(def->nr_threads, 3);
	assert_int_equal(def->threads[0], 1);
	assert_int_equal(def->threads[2], 4);
	assert_string_equal(group_view_find(&an.a, def, "read_then_set", 4)->c->variant,
			    "read_then_set");
	assert_int_equal(group_view_find(&an.a, def, "read_then_set", 4)->c->threads, 4);
	assert_null(group_view_find(&an.a, def, "read_then_set", 3));
	analysed_free(&an);
}

/*
 * The physical baseline's cases nearest first: results-fixed.json has
 * the pingpong's store_load and cas on SMT siblings and across an L3;
 * the SMT pair comes first, each pair in catalogue order. Distance ranks
 * follow topo's classes, an unknown or missing class last.
 */
static void test_one_way_cases_nearest_first(void **state)
{
	static struct analysed an;
	const struct result_case *cases[8];
	const struct family_view *f;
	size_t nr;

	(void)state;
	analyse(&an, "results-fixed.json");
	f = family_named(&an.a, "pingpong");
	assert_true(f->pingpong);
	nr = analysis_one_way_cases(&an.a, f, cases);
	assert_int_equal(nr, 4);
	assert_string_equal(cases[0]->widest_class, "smt");
	assert_string_equal(cases[1]->widest_class, "smt");
	assert_string_equal(cases[2]->widest_class, "l3");
	assert_string_equal(cases[3]->widest_class, "l3");
	assert_true(cases[0]->variant_order < cases[1]->variant_order);
	assert_true(cases[2]->variant_order < cases[3]->variant_order);
	assert_int_equal(distance_rank("same_pu"), 0);
	assert_int_equal(distance_rank("smt"), 1);
	assert_int_equal(distance_rank("l3"), 3);
	assert_int_equal(distance_rank("cross_package"), 6);
	assert_int_equal(distance_rank("elsewhere"), 7);
	assert_int_equal(distance_rank(NULL), 7);
	analysed_free(&an);
}

/*
 * A Zen 3 guest's last_nidpid at readers=50: its threads split into
 * readers and writers, so a table of it has that parameter as its mix
 * (no speedups, no fit); at readers=0, the default, none.
 */
static void test_roles_mix(void **state)
{
	static struct analysed an;
	const struct family_view *f;
	size_t mixed = 0;

	(void)state;
	analyse(&an, "runs/epyc-zen3-2026-12-01/default.json");
	f = family_named(&an.a, "last_nidpid");
	assert_int_equal(f->nr_groups, 2);
	for (size_t k = f->first_group; k < f->first_group + f->nr_groups; k++) {
		const struct group_view *g = &an.a.groups[k];

		if (strstr(g->group->setting, "readers=50")) {
			assert_non_null(g->mix_param);
			assert_string_equal(g->mix_param, "readers");
			assert_false(g->is_default);
			mixed++;
		} else {
			assert_null(g->mix_param);
			assert_true(g->is_default);
		}
	}
	assert_int_equal(mixed, 1);
	analysed_free(&an);
}

/*
 * Names with numbers compare as numbers: pin_work=2 before pin_work=10,
 * leading zeros ignored (07 = 7, and then the shorter text first), equal
 * names 0, and otherwise byte order.
 */
static void test_natural_order(void **state)
{
	/* arrays, not literals a compiler may merge into one pointer */
	char zero[] = "v0", zeros[] = "v00", zero_again[] = "v0";

	(void)state;
	assert_true(natural_compare("pin_work=2", "pin_work=10") < 0);
	assert_true(natural_compare("pin_work=10", "pin_work=2") > 0);
	assert_true(natural_compare("a9b", "a10a") < 0);
	assert_true(natural_compare("a10a", "a10b") < 0);
	assert_true(natural_compare("a10b", "a10a") > 0);
	assert_int_equal(natural_compare("x=3", "x=3"), 0);
	assert_true(natural_compare("x=007", "x=8") < 0);
	assert_true(natural_compare("x=8", "x=007") > 0);
	assert_true(natural_compare("x=010", "x=9") > 0);
	assert_true(natural_compare("abc", "abd") < 0);
	assert_true(natural_compare("abd", "abc") > 0);
	assert_true(natural_compare("ab", "abc") < 0);
	assert_true(natural_compare("abc", "ab") > 0);
	assert_true(natural_compare("a", "B") > 0);
	assert_int_equal(natural_compare(zero, zeros), 0);
	assert_int_equal(natural_compare(zeros, zero), 0);
	assert_int_equal(natural_compare(zero, zero_again), 0);
	assert_int_equal(natural_compare(NULL, ""), 0);
	assert_true(natural_compare(NULL, "a") < 0);
}

/*
 * A row's parameters into the model's configuration: has_pinned's
 * read_then_set is its variant 1, pin_work its parameter 0 (default 1),
 * already_set its parameter 2 (default 100). A parameter the catalogue
 * does not know, a value it does not take, a setting of another family
 * or a variant it lacks: no configuration.
 */
static void test_prediction_config(void **state)
{
	const struct kernel_family *hp = catalog_find("has_pinned");
	const struct kernel_family *counter = catalog_find("counter");
	struct result_row r;
	struct kernel_config cfg;
	char err[128];

	(void)state;
	assert_non_null(hp);
	assert_non_null(counter);
	memset(&r, 0, sizeof(r));
	r.family = "has_pinned";
	r.variant = "read_then_set";
	setting_init(&r.params, hp);
	assert_int_equal(setting_set(&r.params, "pin_work", "3", err, sizeof(err)), 0);
	assert_int_equal(prediction_config_of(&r, hp, &cfg), 0);
	assert_int_equal(cfg.variant, 1);
	assert_int_equal(cfg.param[0], 3);
	assert_int_equal(cfg.param[2], 100);

	setting_take(&r.params, "no_such_parameter", "1");
	assert_true(r.params.foreign);
	assert_int_equal(prediction_config_of(&r, hp, &cfg), -1);

	setting_init(&r.params, hp);
	setting_take(&r.params, "pin_work", "many");
	assert_false(r.params.foreign);
	assert_int_equal(prediction_config_of(&r, hp, &cfg), -1);

	setting_init(&r.params, counter);
	assert_int_equal(prediction_config_of(&r, hp, &cfg), -1);

	setting_init(&r.params, hp);
	r.variant = "no_such_variant";
	assert_int_equal(prediction_config_of(&r, hp, &cfg), -1);
}

/*
 * A case time-shares CPUs when it ran more threads than its run allowed
 * CPUs: 2 threads on 2 CPUs do not, 3 do; a run that does not say how
 * many CPUs it allowed (0) claims no sharing, nor does another tool's
 * benchmark (no family).
 */
static void test_case_shares_cpus(void **state)
{
	struct result_file files[2] = { 0 };
	struct results set = { .files = files, .nr_files = 2 };
	struct result_case c = { .file = 0, .family = "counter", .threads = 2 };

	(void)state;
	files[0].run.allowed_cpus = 2;
	assert_false(case_shares_cpus(&set, &c));
	c.threads = 3;
	assert_true(case_shares_cpus(&set, &c));
	c.threads = 1;
	assert_false(case_shares_cpus(&set, &c));
	c.file = 1;	/* allowed_cpus 0: not recorded */
	c.threads = 2;
	assert_false(case_shares_cpus(&set, &c));
	c.file = 0;
	c.threads = 3;
	c.family = NULL;
	assert_false(case_shares_cpus(&set, &c));
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_modes_split_at_a_factor_of_two),
		cmocka_unit_test(test_a_gap_of_exactly_the_factor_separates),
		cmocka_unit_test(test_more_modes_than_slots_keep_the_widest_gaps),
		cmocka_unit_test(test_widest_gaps_in_any_order),
		cmocka_unit_test(test_modes_need_rounds_and_transfers),
		cmocka_unit_test(test_gap_ties),
		cmocka_unit_test(test_short_transfers_count),
		cmocka_unit_test(test_mode_ratio_and_filter),
		cmocka_unit_test(test_one_way_by_class),
		cmocka_unit_test(test_one_way_in_a_round),
		cmocka_unit_test(test_cold_miss_within_a_factor_of_two),
		cmocka_unit_test(test_sweeps_take_the_most_points),
		cmocka_unit_test(test_sweeps_are_capped_before_they_compare),
		cmocka_unit_test(test_family_of_each_table),
		cmocka_unit_test(test_cases_in_order),
		cmocka_unit_test(test_count_over_ops),
		cmocka_unit_test(test_usl_on_the_edges),
		cmocka_unit_test(test_usl_peak_and_refusals),
		cmocka_unit_test(test_tables_and_settings),
		cmocka_unit_test(test_one_way_cases_nearest_first),
		cmocka_unit_test(test_roles_mix),
		cmocka_unit_test(test_natural_order),
		cmocka_unit_test(test_prediction_config),
		cmocka_unit_test(test_case_shares_cpus),
	};

	if (argc != 2) {
		fprintf(stderr, "usage: %s SOURCE_DIR/tests\n", argv[0]);
		return 2;
	}
	tests_dir = argv[1];
	return cmocka_run_group_tests(tests, NULL, NULL);
}
