// SPDX-License-Identifier: GPL-2.0-only
/*
 * bouncelab compare A.json B.json: for a before/after study, each
 * benchmark's ns per op in B over A, with a bootstrap 95% CI and the
 * Mann-Whitney U p-value, its counters likewise (Google Benchmark's
 * compare.py ignores user counters), and the geometric mean of the ratios.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

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

struct compare_options {
	bool json;		/* --json: one JSON document on stdout, no text */
	/* --fail-on-regression PCT: the B/A bound in ns per op; NaN: none */
	double fail_above;
	const char *fail_text;	/* PCT as given (a checked number), for the lines */
};

/*
 * One row's numbers, computed once and then printed as text or JSON:
 * the two print the same values from this struct.
 */
struct compare_row {
	double median_a, median_b;
	bool has_ratio;			/* ratio (and its CI) was computed */
	struct stats_ratio ratio;
	double p;			/* NaN: no test */
	bool untestable;		/* a fixed count over the op count */
	bool aggregate;			/* a side kept only aggregates */
	double aggregate_ratio;		/* B/A of the aggregates */
	enum verdict verdict;
};

static void compare_usage(FILE *out)
{
	fprintf(out, "usage: bouncelab compare [--json] [--fail-on-regression PCT] A.json B.json\n\n"
		"Compares two results files benchmark by benchmark: B's ns per op over A's\n"
		"(below 1: B is faster) with a bootstrap 95%% CI and a Mann-Whitney U\n"
		"p-value, the same for every counter both have, and the geometric mean.\n"
		"Rows from plain Google Benchmark runs are compared on real_time.\n\n"
		"  --json                    print the same numbers as one JSON document\n"
		"  --fail-on-regression PCT  exit 1 when some benchmark's B/A of ns per op has\n"
		"                            its whole 95%% CI above 1 + PCT/100 (B slower by more\n"
		"                            than PCT%%), each such benchmark named on stderr (a\n"
		"                            side with aggregates only has no CI: never counted)\n"
		"  -h, --help                this help\n\n"
		"Exit status: 0 compared (and no regression beyond PCT); 1 a regression beyond\n"
		"PCT, or a results file could not be read or stdout written; 2 bad usage or\n"
		"input (nothing compared).\n");
}

/*
 * A benchmark's name as results.json and compare.py spell it, which
 * --filter takes back: Google Benchmark's run_name
 * ("counter/percpu_batched/read_every:64/real_time/threads:2"). A file
 * whose names do not tell two settings apart (written before names
 * carried every parameter away from its default) gets the setting after
 * the name where it repeats: "... [pin_work=0, flag_line=shared]".
 */
static void case_label(char *buf, size_t len, const struct result_case *c, bool name_repeats)
{
	if (name_repeats && c->setting && *c->setting)
		snprintf(buf, len, "%s [%s]", c->name, c->setting);
	else
		snprintf(buf, len, "%s", c->name);
}

static int compare_names(const void *a, const void *b)
{
	const struct result_case *const *x = a, *const *y = b;

	return strcmp((*x)->name, (*y)->name);
}

/*
 * Whether each case's name repeats in its file: a flag per case, in the
 * cases' order, found by sorting pointers to them by name. NULL when out
 * of memory.
 */
static bool *names_repeated(const struct result_cases *cases)
{
	const struct result_case **by_name = malloc((cases->nr + 1) * sizeof(*by_name));
	bool *repeats = calloc(cases->nr + 1, sizeof(*repeats));

	if (!by_name || !repeats) {
		free(by_name);
		free(repeats);
		return NULL;
	}
	for (size_t i = 0; i < cases->nr; i++)
		by_name[i] = &cases->cases[i];
	qsort(by_name, cases->nr, sizeof(*by_name), compare_names);
	for (size_t i = 1; i < cases->nr; i++) {
		if (strcmp(by_name[i - 1]->name, by_name[i]->name))
			continue;
		repeats[by_name[i - 1] - cases->cases] = true;
		repeats[by_name[i] - cases->cases] = true;
	}
	free(by_name);
	return repeats;
}

/*
 * B/A with its CI, the U test, and the verdict by the report's one rule
 * (verdict.h). A counter that is a fixed count over the op count gets no
 * test: it would test the op count.
 */
static void measure_row(const double *a, size_t na, const double *b, size_t nb,
			bool untestable, struct compare_row *row)
{
	*row = (struct compare_row){
		.median_a = stats_median(a, na), .median_b = stats_median(b, nb),
		.p = untestable ? NAN : stats_mann_whitney_p(a, na, b, nb),
		.untestable = untestable, .verdict = VERDICT_UNTESTED,
	};
	row->has_ratio = row->median_a != 0 &&
			 !stats_ratio_of_medians(b, nb, a, na, &row->ratio);
	if (row->has_ratio && !untestable)
		row->verdict = verdict_of(&row->ratio, row->p);
}

/*
 * A side that kept only Google Benchmark's aggregates has one value, its
 * median (or mean) of the repetitions: a ratio, but no CI and no test.
 */
static void measure_aggregate_row(const struct result_case *a, const struct result_case *b,
				  struct compare_row *row)
{
	*row = (struct compare_row){
		.median_a = a->ns_stats.median, .median_b = b->ns_stats.median,
		.p = NAN, .aggregate = true, .verdict = VERDICT_UNTESTED,
		.aggregate_ratio = a->ns_stats.median > 0 ?
				   b->ns_stats.median / a->ns_stats.median : NAN,
	};
}

/* For ns per op "B faster" or "B slower"; for a counter, "B higher" or "B lower". */
static const char *row_verdict(const struct compare_row *row, bool is_time)
{
	if (row->aggregate)
		return "untested (aggregates only)";
	if (!row->has_ratio)
		return "n/a";
	if (row->untestable)
		return "not tested: a fixed count over the op count";
	if (row->verdict == VERDICT_FASTER)
		return is_time ? "B faster" : "B lower";
	if (row->verdict == VERDICT_SLOWER)
		return is_time ? "B slower" : "B higher";
	return verdict_word(row->verdict);
}

static void print_row(const char *label, const struct compare_row *row, bool is_time)
{
	char ma[FORMAT_LEN], mb[FORMAT_LEN], r[FORMAT_LEN], p[FORMAT_LEN];
	char text[4 * 1024 + 1];

	printf("| %s | %s | %s | ", printable_into(text, sizeof(text), label),
	       format_sig(ma, row->median_a), format_sig(mb, row->median_b));
	if (row->aggregate)
		printf("%s (no CI: aggregates only) | n/a | ",
		       isfinite(row->aggregate_ratio) ? format_ratio(r, row->aggregate_ratio) : "n/a");
	else if (!row->has_ratio)
		printf("n/a | %s | ", format_p(p, row->p));
	else if (row->untestable)
		printf("%s | n/a | ", format_ratio_ci(r, &row->ratio));
	else
		printf("%s | %s | ", format_ratio_ci(r, &row->ratio), format_p(p, row->p));
	printf("%s |\n", row_verdict(row, is_time));
}

/* A number, or null where there is none (JSON has no NaN). */
static json_t *json_number(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

/*
 * A string from a file name or an argument: JSON needs UTF-8, so a byte
 * that is not shown as '?' rather than the document refused.
 */
static json_t *json_text(const char *s)
{
	json_t *j = json_string(s);
	char *copy;

	if (j || !(copy = strdup(s)))
		return j ? j : json_null();
	for (char *c = copy; *c; c++)
		if ((unsigned char)*c >= 0x80)
			*c = '?';
	j = json_string(copy);
	free(copy);
	return j ? j : json_null();
}

/* The row's numbers as print_row() shows them, unrounded. */
static json_t *row_json(const struct compare_row *row, bool is_time)
{
	bool ci = row->has_ratio && !row->aggregate;

	return json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:s}",
			 "a", json_number(row->median_a), "b", json_number(row->median_b),
			 "ratio", json_number(row->aggregate ? row->aggregate_ratio :
					      ci ? row->ratio.ratio : NAN),
			 "ci_low", json_number(ci ? row->ratio.lo : NAN),
			 "ci_high", json_number(ci ? row->ratio.hi : NAN),
			 "p", json_number(row->p),
			 "verdict", row_verdict(row, is_time));
}

/* B/A of ns per op whose whole CI lies above the --fail-on-regression bound. */
static bool row_regressed(const struct compare_row *row, const struct compare_options *o)
{
	return isfinite(o->fail_above) && row->has_ratio && !row->aggregate &&
	       isfinite(row->ratio.lo) && row->ratio.lo > o->fail_above;
}

/* The counters both cases have, one row each; into counters for --json. */
static void write_counters(const struct result_case *a, const struct result_case *b,
			   json_t *counters)
{
	for (size_t k = 0; k < a->nr_counters; k++) {
		const struct case_counter *ca = &a->counters[k];
		const struct case_counter *cb = result_case_counter(b, ca->name);
		struct compare_row row;
		char label[160];

		if (!cb)
			continue;
		measure_row(ca->values, ca->n, cb->values, cb->n,
			    case_counters_are_count_over_ops(a, ca, b, cb), &row);
		if (counters) {
			json_t *j = row_json(&row, false);

			json_object_set_new(j, "counter", json_string(ca->name));
			json_array_append_new(counters, j);
			continue;
		}
		snprintf(label, sizeof(label), "    counter %s", ca->name);
		print_row(label, &row, false);
	}
}

/*
 * One benchmark's JSON: what it is, its ns per op row, and *counters, the
 * array its counters' rows go into (held by the object).
 */
static json_t *case_json(const char *label, const struct result_case *c,
			 const struct compare_row *row, json_t **counters)
{
	json_t *j = row_json(row, true);

	json_object_set_new(j, "benchmark", json_text(label));
	json_object_set_new(j, "family", c->family ? json_text(c->family) : json_null());
	json_object_set_new(j, "variant", c->variant ? json_text(c->variant) : json_null());
	json_object_set_new(j, "setting", c->setting ? json_text(c->setting) : json_null());
	json_object_set_new(j, "threads", json_integer(c->threads));
	*counters = json_array();
	json_object_set_new(j, "counters", *counters);
	return j;
}

/*
 * One benchmark: its row printed, or appended to benchmarks with --json.
 * Returns B/A of the medians, for the geometric mean; *regressed says
 * whether it is beyond --fail-on-regression (and names it on stderr).
 */
static double compare_case(const struct result_case *a, const struct result_case *b,
			   bool name_repeats, const struct compare_options *o,
			   json_t *benchmarks, bool *regressed)
{
	char label[1024], r[FORMAT_LEN];
	struct compare_row row;
	json_t *j, *counters = NULL;

	case_label(label, sizeof(label), a, name_repeats);
	if (a->aggregate || b->aggregate)
		measure_aggregate_row(a, b, &row);
	else
		measure_row(a->ns, a->n, b->ns, b->n, false, &row);
	*regressed = row_regressed(&row, o);
	if (*regressed)
		fprintf(stderr, "bouncelab: regression: %s: B/A of ns per op %s, all of the CI above %g (--fail-on-regression %s)\n",
			printable(label), format_ratio_ci(r, &row.ratio), o->fail_above,
			o->fail_text);
	if (benchmarks) {
		j = case_json(label, a, &row, &counters);
		json_object_set_new(j, "regression", json_boolean(*regressed));
		json_array_append_new(benchmarks, j);
	} else {
		print_row(label, &row, true);
	}
	if (!row.aggregate)
		write_counters(a, b, counters);
	return row.median_b / row.median_a;
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

/* A side for --json: what describe() prints of it. */
static json_t *side_json(const struct side *s)
{
	const struct result_file *f = &s->set.files[0];
	const char *host = f->run.host_name;
	const char *date = f->run.date;

	return json_pack("{s:o, s:o, s:o, s:I}", "path", json_text(s->path),
			 "host_name", host ? json_text(host) : json_null(),
			 "date", date ? json_text(date) : json_null(),
			 "benchmarks_from_aggregates", (json_int_t)f->nr_from_aggregates);
}

static void describe(const char *tag, const struct side *s)
{
	const struct result_file *f = &s->set.files[0];
	const char *host = f->run.host_name;
	const char *date = f->run.date;
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

static void print_header(const struct side *a, const struct side *b)
{
	describe("A", a);
	describe("B", b);
	printf("\nB/A of ns per op (below 1: B is faster), ratio of medians with a bootstrap 95%% CI,\n"
	       "and the two-sided Mann-Whitney U p-value (n/a with fewer than 2 repetitions).\n"
	       "B is faster or slower only when the CI excludes 1 and p < 0.05; otherwise the\n"
	       "two are within noise. A counter that is a fixed count over the op count is not tested.\n\n"
	       "| benchmark | A | B | B/A | p | verdict |\n|---|---:|---:|---:|---:|---|\n");
}

/*
 * Both case arrays are in result_case_compare() order: one merge walk.
 * Returns 1 when some benchmark regressed beyond --fail-on-regression.
 */
static int compare_sides(const struct side *a, const struct side *b,
			 const struct compare_options *o)
{
	size_t i = 0, j = 0, only_a = 0, only_b = 0, nr = 0, nr_regressed = 0;
	double *ratios = malloc((a->cases.nr + 1) * sizeof(double));
	bool *repeats = names_repeated(&a->cases);
	json_t *root = NULL, *benchmarks = NULL;
	char g[FORMAT_LEN];
	int ret;

	if (!ratios || !repeats) {
		free(ratios);
		free(repeats);
		return runtime_error("out of memory comparing %s and %s", a->path, b->path);
	}
	/* Refused before any table is printed: there would be nothing in it. */
	if (!nr_in_common(a, b)) {
		free(ratios);
		free(repeats);
		return usage_error("compare: %s and %s have no benchmark in common: expected two runs of at least one same benchmark",
				   a->path, b->path);
	}
	if (o->json) {
		benchmarks = json_array();
		root = json_pack("{s:o, s:o, s:o}", "a", side_json(a), "b", side_json(b),
				 "benchmarks", benchmarks);
	} else {
		print_header(a, b);
	}
	while (i < a->cases.nr || j < b->cases.nr) {
		int c = i == a->cases.nr ? 1 : j == b->cases.nr ? -1 :
			result_case_compare(&a->cases.cases[i], &b->cases.cases[j]);
		bool regressed;

		if (c < 0) {
			only_a++;
			i++;
		} else if (c > 0) {
			only_b++;
			j++;
		} else {
			ratios[nr++] = compare_case(&a->cases.cases[i], &b->cases.cases[j],
						    repeats[i], o, benchmarks, &regressed);
			i++;
			j++;
			nr_regressed += regressed;
		}
	}
	if (root) {
		json_object_set_new(root, "geomean", json_number(stats_geomean(ratios, nr)));
		json_object_set_new(root, "only_in_a", json_integer((json_int_t)only_a));
		json_object_set_new(root, "only_in_b", json_integer((json_int_t)only_b));
		json_object_set_new(root, "fail_on_regression_above",
				    json_number(o->fail_above));
		json_object_set_new(root, "regressions", json_integer((json_int_t)nr_regressed));
	} else {
		printf("\nGeometric mean of B/A over %zu benchmark%s: %s\n", nr,
		       nr == 1 ? "" : "s", format_ratio(g, stats_geomean(ratios, nr)));
		if (only_a || only_b)
			printf("Not compared: %zu benchmark%s only in A, %zu only in B.\n", only_a,
			       only_a == 1 ? "" : "s", only_b);
	}
	free(ratios);
	free(repeats);
	ret = root ? print_json(root, JSON_INDENT(2) | JSON_REAL_PRECISION(17)) : 0;
	if (!ret && nr_regressed) {
		fprintf(stderr, "bouncelab: %zu benchmark%s slower than --fail-on-regression %s allows\n",
			nr_regressed, nr_regressed == 1 ? "" : "s", o->fail_text);
		ret = EXIT_REGRESSION;
	}
	return ret;
}

/* PCT of --fail-on-regression: a slowdown in percent, 0 or more. */
static int parse_regression(const char *text, struct compare_options *o)
{
	char *end;
	double pct;

	errno = 0;
	pct = strtod(text, &end);
	if (!*text || *end || errno || !isfinite(pct) || pct < 0)
		return usage_error("--fail-on-regression '%s': expected a slowdown in percent, 0 or more (5 for B/A above 1.05)",
				   text);
	o->fail_above = 1 + pct / 100;
	o->fail_text = text;
	return 0;
}

int cmd_compare(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "json", no_argument, NULL, 'j' },
		{ "fail-on-regression", required_argument, NULL, 'f' },
		{ NULL, 0, NULL, 0 },
	};
	struct compare_options o = { .fail_above = NAN };
	struct side a = { 0 }, b = { 0 };
	int c, ret;

	optind = 0;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 'h':
			compare_usage(stdout);
			return 0;
		case 'j':
			o.json = true;
			break;
		case 'f':
			if ((ret = parse_regression(optarg, &o)))
				return ret;
			break;
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
		ret = compare_sides(&a, &b, &o);
	result_cases_free(&a.cases);
	result_cases_free(&b.cases);
	results_free(&a.set);
	results_free(&b.set);
	return ret;
}
