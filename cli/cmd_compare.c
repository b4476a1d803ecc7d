// SPDX-License-Identifier: GPL-2.0-only
/*
 * bouncelab compare A.json B.json: for a before/after study, each
 * benchmark's ns per op in B over A, with a bootstrap 95% CI and the
 * Mann-Whitney U p-value, its counters likewise (Google Benchmark's
 * compare.py ignores user counters), and the geometric mean of the ratios.
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cases.h"
#include "cli.h"
#include "format.h"
#include "results_read.h"
#include "verdict.h"

struct side {
	const char *path;
	struct results set;
	struct result_cases cases;
};

static void compare_usage(FILE *out)
{
	fprintf(out, "usage: bouncelab compare A.json B.json\n\n"
		"Compares two results files benchmark by benchmark: B's ns per op over A's\n"
		"(below 1: B is faster) with a bootstrap 95%% CI and a Mann-Whitney U\n"
		"p-value, the same for every counter both have, and the geometric mean.\n"
		"Rows from plain Google Benchmark runs are compared on real_time.\n\n"
		"  -h, --help  this help\n");
}

/* "has_pinned/store_always [pin_work=1, ...], 2 threads" */
static void case_label(char *buf, size_t len, const struct result_case *c)
{
	const char *plural = c->threads == 1 ? "" : "s";

	if (!c->family)
		snprintf(buf, len, "%s, %ld thread%s", c->name, c->threads, plural);
	else if (c->setting && *c->setting)
		snprintf(buf, len, "%s/%s [%s], %ld thread%s", c->family, c->variant,
			 c->setting, c->threads, plural);
	else
		snprintf(buf, len, "%s/%s, %ld thread%s", c->family, c->variant,
			 c->threads, plural);
}

/*
 * One row: A and B, B/A with its CI, the U test, and the verdict by the
 * report's one rule (verdict.h). For ns per op the verdict is "faster" or
 * "slower"; for a counter, "higher" or "lower". A counter that is a fixed
 * count over the op count gets no test: it would test the op count.
 */
static void write_ratio_row(const char *label, const double *a, size_t na,
			    const double *b, size_t nb, bool is_time, bool untestable)
{
	char ma[FORMAT_LEN], mb[FORMAT_LEN], r[FORMAT_LEN], p[FORMAT_LEN];
	double med_a = stats_median(a, na), med_b = stats_median(b, nb);
	double pv = untestable ? NAN : stats_mann_whitney_p(a, na, b, nb);
	struct stats_ratio ratio;
	enum verdict v;
	char text[4 * 1024 + 1];

	printf("| %s | %s | %s | ", printable_into(text, sizeof(text), label),
	       format_sig(ma, med_a), format_sig(mb, med_b));
	if (med_a == 0 || stats_ratio_of_medians(b, nb, a, na, &ratio)) {
		printf("n/a | %s | n/a |\n", format_p(p, pv));
		return;
	}
	printf("%s | ", format_ratio_ci(r, &ratio));
	if (untestable) {
		printf("n/a | not tested: a fixed count over the op count |\n");
		return;
	}
	v = verdict_of(&ratio, pv);
	printf("%s | %s |\n", format_p(p, pv),
	       v == VERDICT_FASTER ? (is_time ? "B faster" : "B lower") :
	       v == VERDICT_SLOWER ? (is_time ? "B slower" : "B higher") : verdict_word(v));
}

/* The counters both cases have, one row each. */
static void write_counters(const struct result_case *a, const struct result_case *b)
{
	for (size_t k = 0; k < a->nr_counters; k++) {
		const struct case_counter *ca = &a->counters[k];
		const struct case_counter *cb = result_case_counter(b, ca->name);
		char label[160];

		if (!cb)
			continue;
		snprintf(label, sizeof(label), "    counter %s", ca->name);
		write_ratio_row(label, ca->values, ca->n, cb->values, cb->n, false,
				case_counters_are_count_over_ops(a, ca, b, cb));
	}
}

/*
 * A side that kept only Google Benchmark's aggregates has one value, its
 * median (or mean) of the repetitions: a ratio, but no CI and no test.
 */
static void write_aggregate_row(const char *label, const struct result_case *a,
				const struct result_case *b)
{
	char ma[FORMAT_LEN], mb[FORMAT_LEN], r[FORMAT_LEN], text[4 * 1024 + 1];
	double med_a = a->ns_stats.median, med_b = b->ns_stats.median;

	printf("| %s | %s | %s | %s (no CI: aggregates only) | n/a | untested (aggregates only) |\n",
	       printable_into(text, sizeof(text), label), format_sig(ma, med_a),
	       format_sig(mb, med_b),
	       med_a > 0 ? format_ratio(r, med_b / med_a) : "n/a");
}

static double compare_case(const struct result_case *a, const struct result_case *b)
{
	char label[1024];
	double med_a = a->ns_stats.median, med_b = b->ns_stats.median;

	case_label(label, sizeof(label), a);
	if (a->aggregate || b->aggregate) {
		write_aggregate_row(label, a, b);
		return med_b / med_a;
	}
	write_ratio_row(label, a->ns, a->n, b->ns, b->n, true, false);
	write_counters(a, b);
	return med_b / med_a;
}

static int load(struct side *s)
{
	char err[1024];
	int ret = results_read(&s->set, s->path, err, sizeof(err));

	if (ret)
		return ret == -2 ? runtime_error("%s", err) : usage_error("%s", err);
	if (result_cases_build(&s->set, &s->cases))
		return runtime_error("out of memory analysing %s", s->path);
	return 0;
}

static void describe(const char *tag, const struct side *s)
{
	const char *host = results_context_string(&s->set.files[0], "host_name");
	const char *date = results_context_string(&s->set.files[0], "date");

	const struct result_file *f = &s->set.files[0];
	char path[4 * 1024 + 1], host_text[1024], date_text[256];

	/* The file's strings, and its name, are shown, never obeyed. */
	printf("%s: %s (%s, %s)\n", tag, printable_into(path, sizeof(path), s->path),
	       printable_into(host_text, sizeof(host_text), host ? host : "host not recorded"),
	       printable_into(date_text, sizeof(date_text), date ? date : "date not recorded"));
	/* Said before the table: these rows are not repetitions. */
	if (f->nr_from_aggregates)
		printf("   %s has no per-repetition rows for %zu benchmark%s (written with\n"
		       "   --benchmark_report_aggregates_only): %s compared on the median\n"
		       "   Google Benchmark wrote (the mean where it wrote no median),\n"
		       "   with no CI and no p-value.\n", tag, f->nr_from_aggregates,
		       f->nr_from_aggregates == 1 ? "" : "s",
		       f->nr_from_aggregates == 1 ? "it is" : "they are");
}

/* How many cases the sorted arrays share: the walk of compare_sides(). */
static size_t nr_in_common(const struct side *a, const struct side *b)
{
	size_t i = 0, j = 0, nr = 0;

	while (i < a->cases.nr && j < b->cases.nr) {
		int c = result_case_compare(&a->cases.cases[i], &b->cases.cases[j]);

		nr += !c;
		i += c <= 0;
		j += c >= 0;
	}
	return nr;
}

/* Both case arrays are in result_case_compare() order: one merge walk. */
static int compare_sides(const struct side *a, const struct side *b)
{
	size_t i = 0, j = 0, only_a = 0, only_b = 0, nr = 0;
	double *ratios = malloc((a->cases.nr + 1) * sizeof(double));
	char g[FORMAT_LEN];

	if (!ratios)
		return runtime_error("out of memory comparing %s and %s", a->path, b->path);
	/* Refused before any table is printed: there would be nothing in it. */
	if (!nr_in_common(a, b)) {
		free(ratios);
		return usage_error("compare: %s and %s have no benchmark in common: expected two runs of at least one same benchmark",
				   a->path, b->path);
	}
	describe("A", a);
	describe("B", b);
	printf("\nB/A of ns per op (below 1: B is faster), ratio of medians with a bootstrap 95%% CI,\n"
	       "and the two-sided Mann-Whitney U p-value (n/a with fewer than 2 repetitions).\n"
	       "B is faster or slower only when the CI excludes 1 and p < 0.05; otherwise the\n"
	       "two are within noise. A counter that is a fixed count over the op count is not tested.\n\n"
	       "| benchmark | A | B | B/A | p | verdict |\n|---|---:|---:|---:|---:|---|\n");
	while (i < a->cases.nr || j < b->cases.nr) {
		int c = i == a->cases.nr ? 1 : j == b->cases.nr ? -1 :
			result_case_compare(&a->cases.cases[i], &b->cases.cases[j]);

		if (c < 0) {
			only_a++;
			i++;
		} else if (c > 0) {
			only_b++;
			j++;
		} else {
			ratios[nr++] = compare_case(&a->cases.cases[i++], &b->cases.cases[j++]);
		}
	}
	if (nr)
		printf("\nGeometric mean of B/A over %zu benchmark%s: %s\n", nr, nr == 1 ? "" : "s",
		       format_ratio(g, stats_geomean(ratios, nr)));
	if (only_a || only_b)
		printf("Not compared: %zu benchmark%s only in A, %zu only in B.\n", only_a,
		       only_a == 1 ? "" : "s", only_b);
	free(ratios);
	return 0;
}

int cmd_compare(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct side a = { 0 }, b = { 0 };
	int c, ret;

	optind = 0;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 'h':
			compare_usage(stdout);
			return 0;
		default:
			return bad_option(argv, "compare");
		}
	}
	if (argc - optind != 2)
		return usage_error("compare: expected two results files, A.json B.json, got %d",
				   argc - optind);
	a.path = argv[optind];
	b.path = argv[optind + 1];
	ret = load(&a);
	if (!ret)
		ret = load(&b);
	if (!ret)
		ret = compare_sides(&a, &b);
	result_cases_free(&a.cases);
	result_cases_free(&b.cases);
	results_free(&a.set);
	results_free(&b.set);
	return ret;
}
