// SPDX-License-Identifier: GPL-2.0-only
/*
 * A report whose charts cannot be drawn for want of memory: each call to
 * svg_line_chart(), svg_bar_chart() and svg_heatmap() (wrapped in this
 * program only, -Wl,--wrap) answers NULL in turn, as each does when an
 * allocation fails. report_write() must then fail (1, "out of memory")
 * and leave no output directory behind: a report that goes on without a
 * plot its markdown links, or writes half of its files, is the bug. The
 * inputs: the fixed results file with its latency matrix (every group's
 * plots, the sweeps, the heatmap, the prediction's scatter plot), two
 * corpus machines' default runs (the fleet table's plots) and --brief.
 *
 * Usage: test_report_charts SOURCE_DIR/tests
 */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "report.h"
#include "svg.h"
#include "test_util.h"

static const char *tests_dir;
static char work_dir[PATH_MAX];
static int fail_at = -1;	/* the chart call (0-based) that fails; -1: none */
static int charts;

char *__real_svg_line_chart(const struct svg_line_chart *chart);
char *__wrap_svg_line_chart(const struct svg_line_chart *chart);
char *__real_svg_bar_chart(const struct svg_bar_chart *chart);
char *__wrap_svg_bar_chart(const struct svg_bar_chart *chart);
char *__real_svg_heatmap(const struct svg_heatmap *map);
char *__wrap_svg_heatmap(const struct svg_heatmap *map);

char *__wrap_svg_line_chart(const struct svg_line_chart *chart)
{
	return charts++ == fail_at ? NULL : __real_svg_line_chart(chart);
}

char *__wrap_svg_bar_chart(const struct svg_bar_chart *chart)
{
	return charts++ == fail_at ? NULL : __real_svg_bar_chart(chart);
}

char *__wrap_svg_heatmap(const struct svg_heatmap *map)
{
	return charts++ == fail_at ? NULL : __real_svg_heatmap(map);
}

static int setup(void **state)
{
	(void)state;
	return enter_temp_dir(work_dir, sizeof(work_dir), "charts");
}

static int teardown(void **state)
{
	(void)state;
	return leave_temp_dir(work_dir);
}

static bool exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

/*
 * Writes the report of files with every chart call failing in turn, then
 * with none failing; returns how many charts the whole report drew.
 */
static int each_chart_failing(struct report_options *opts)
{
	char err[512];
	int total;

	opts->outdir = "out";
	fail_at = -1;
	charts = 0;
	assert_int_equal(report_write(opts, err, sizeof(err)), 0);
	assert_true(exists("out/report.md"));
	assert_int_equal(remove_tree("out"), 0);
	total = charts;
	for (fail_at = 0; fail_at < total; fail_at++) {
		int ret;

		charts = 0;
		err[0] = '\0';
		ret = report_write(opts, err, sizeof(err));
		if (ret != 1 || !strstr(err, "out of memory"))
			fail_msg("chart %d of %d not drawn: report_write() gave %d (\"%s\")",
				 fail_at + 1, total, ret, err);
		if (exists("out"))
			fail_msg("chart %d of %d not drawn: the output directory was left",
				 fail_at + 1, total);
	}
	fail_at = -1;
	return total;
}

static void path_in_tests(char *path, size_t len, const char *name)
{
	snprintf(path, len, "%s/data/%s", tests_dir, name);
}

static void test_fixed_run_with_latency(void **state)
{
	char results[PATH_MAX], latency[PATH_MAX];
	const char *files[1] = { results };
	struct report_options opts = { .files = files, .nr_files = 1, .latency = latency };
	int total;

	(void)state;
	path_in_tests(results, sizeof(results), "results-fixed.json");
	path_in_tests(latency, sizeof(latency), "latency-fixed.json");
	total = each_chart_failing(&opts);
	print_message("%d charts\n", total);
	/* the groups' plots, the heatmap and the prediction's scatter plot at least */
	assert_true(total >= 3);
}

static void test_fleet_of_two_machines(void **state)
{
	char zen3[PATH_MAX], zen5[PATH_MAX];
	const char *files[2] = { zen3, zen5 };
	struct report_options opts = { .files = files, .nr_files = 2 };

	(void)state;
	path_in_tests(zen3, sizeof(zen3), "runs/epyc-zen3-2026-12-01/default.json");
	path_in_tests(zen5, sizeof(zen5), "runs/epyc-zen5-2026-12-02/default.json");
	print_message("%d charts\n", each_chart_failing(&opts));
}

static void test_brief(void **state)
{
	char results[PATH_MAX];
	const char *files[1] = { results };
	struct report_options opts = { .files = files, .nr_files = 1, .brief = true };

	(void)state;
	path_in_tests(results, sizeof(results), "runs/epyc-zen4-2026-12-07/default.json");
	/* the summary's figure */
	assert_true(each_chart_failing(&opts) >= 1);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_fixed_run_with_latency, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fleet_of_two_machines, setup, teardown),
		cmocka_unit_test_setup_teardown(test_brief, setup, teardown),
	};

	if (argc != 2) {
		fprintf(stderr, "usage: %s SOURCE_DIR/tests\n", argv[0]);
		return 2;
	}
	tests_dir = argv[1];
	return cmocka_run_group_tests(tests, NULL, NULL);
}
