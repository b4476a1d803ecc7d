// SPDX-License-Identifier: GPL-2.0-only
/*
 * The report end to end, from the fixed results file in tests/data:
 * report.md, every plot and every CSV byte for byte against the golden
 * files in tests/golden/report/; the same input twice gives the same
 * output; every file of the malformed corpus is refused with an error
 * naming it, and nothing is written; several files give a fleet report;
 * both latency matrix shapes give the same heatmap.
 *
 * After an intended change of the output, regenerate the golden files
 * with tests/update-golden.sh and review the diff.
 *
 * Usage: test_report SOURCE_DIR/tests
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "float_assert.h"
#include <jansson.h>

#include "latency_map.h"
#include "report.h"
#include "results_read.h"
#include "svg.h"
#include "test_util.h"

static const char *tests_dir;
static char work_dir[PATH_MAX];

static char *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	long size;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (size = ftell(f)) >= 0 &&
	    fseek(f, 0, SEEK_SET) == 0) {
		buf = malloc((size_t)size + 1);
		if (buf && fread(buf, 1, (size_t)size, f) != (size_t)size) {
			free(buf);
			buf = NULL;
		}
		if (buf) {
			buf[size] = '\0';
			*len = (size_t)size;
		}
	}
	fclose(f);
	return buf;
}

static void copy_file(const char *from, const char *to)
{
	size_t len;
	char *data = read_file(from, &len);
	FILE *f = fopen(to, "wb");

	assert_non_null(data);
	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
	free(data);
}

/* A fresh working directory holding results.json and latency.json. */
static int setup(void **state)
{
	char path[PATH_MAX];

	(void)state;
	snprintf(work_dir, sizeof(work_dir), "/tmp/bouncelab-test-report-XXXXXX");
	if (!mkdtemp(work_dir) || chdir(work_dir))
		return -1;
	snprintf(path, sizeof(path), "%s/data/results-fixed.json", tests_dir);
	copy_file(path, "results.json");
	snprintf(path, sizeof(path), "%s/data/latency-fixed.json", tests_dir);
	copy_file(path, "latency.json");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	if (chdir("/"))
		return -1;
	return remove_tree(work_dir);
}

static int generate(const char *const *files, unsigned int nr, const char *latency,
		    const char *outdir, char *err, size_t errlen)
{
	struct report_options opts = { .files = files, .nr_files = nr,
				       .outdir = outdir, .latency = latency };

	return report_write(&opts, err, errlen);
}

/* Compares (or, with BOUNCELAB_UPDATE_GOLDEN set, copies) one directory level. */
static void compare_tree(const char *golden, const char *out, bool update)
{
	DIR *d = opendir(update ? out : golden);
	struct dirent *e;
	size_t nr = 0;

	assert_non_null(d);
	if (update)
		mkdir(golden, 0755);
	while ((e = readdir(d))) {
		char g[PATH_MAX], o[PATH_MAX];
		struct stat st;

		if (e->d_name[0] == '.')
			continue;
		snprintf(g, sizeof(g), "%s/%s", golden, e->d_name);
		snprintf(o, sizeof(o), "%s/%s", out, e->d_name);
		assert_int_equal(stat(update ? o : g, &st), 0);
		if (S_ISDIR(st.st_mode)) {
			compare_tree(g, o, update);
		} else if (update) {
			copy_file(o, g);
		} else {
			size_t glen, olen;
			char *gd = read_file(g, &glen), *od = read_file(o, &olen);

			if (!od || glen != olen || memcmp(gd, od, glen))
				fail_msg("%s differs from the golden %s: run tests/update-golden.sh if the change is intended",
					 o, g);
			free(gd);
			free(od);
		}
		nr++;
	}
	closedir(d);
	assert_true(nr > 0);
}

/* Entries in a directory tree, to catch files the golden set lacks. */
static size_t count_tree(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t nr = 0;

	if (!d)
		return 0;
	while ((e = readdir(d))) {
		char p[PATH_MAX];
		struct stat st;

		if (e->d_name[0] == '.')
			continue;
		snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
		nr++;
		if (!stat(p, &st) && S_ISDIR(st.st_mode))
			nr += count_tree(p);
	}
	closedir(d);
	return nr;
}

static void test_golden(void **state)
{
	const char *files[] = { "results.json" };
	bool update = getenv("BOUNCELAB_UPDATE_GOLDEN") != NULL;
	char golden[PATH_MAX], err[1024];

	(void)state;
	assert_int_equal(generate(files, 1, "latency.json", "out", err, sizeof(err)), 0);
	snprintf(golden, sizeof(golden), "%s/golden/report", tests_dir);
	compare_tree(golden, "out", update);
	assert_int_equal(count_tree("out"), count_tree(golden));
}

/* A racy variant is never the best, however fast it ran. */
static void test_racy_never_best(void **state)
{
	const char *files[] = { "results.json" };
	char err[1024];
	size_t len;
	char *md;

	(void)state;
	assert_int_equal(generate(files, 1, NULL, "out", err, sizeof(err)), 0);
	md = read_file("out/report.md", &len);
	assert_non_null(md);
	assert_null(strstr(md, "`shared_plain` is the fastest"));
	assert_non_null(strstr(md, "At 2 threads, `percpu_padded` is the fastest"));
	assert_non_null(strstr(md, "| 2 | shared_plain (racy) |"));
	assert_non_null(strstr(md, "| 4 | nop (baseline) |"));
	free(md);
}

/*
 * Three repetitions: the bars around the medians cover the median with
 * 75%, not 95%, and the plots must say so (the table's dagger does).
 */
static void test_few_repetitions_not_called_95(void **state)
{
	const char *files[] = { "few.json" };
	json_t *doc = json_load_file("results.json", 0, NULL), *rows, *row;
	char err[1024];
	size_t len, i;
	char *svg;

	(void)state;
	assert_non_null(doc);
	rows = json_object_get(doc, "benchmarks");
	json_array_foreach(rows, i, row) {
		json_t *index = json_object_get(row, "repetition_index");

		if (json_is_integer(index) && json_integer_value(index) >= 3) {
			assert_int_equal(json_array_remove(rows, i), 0);
			i--;
		}
	}
	assert_int_equal(json_dump_file(doc, "few.json", 0), 0);
	json_decref(doc);
	assert_int_equal(generate(files, 1, NULL, "out", err, sizeof(err)), 0);
	svg = read_file("out/plots/has_pinned-2-ns.svg", &len);
	assert_non_null(svg);
	assert_non_null(strstr(svg, "(median, bar: min to max)"));
	assert_null(strstr(svg, "95% CI"));
	free(svg);
	svg = read_file("out/plots/has_pinned-2-throughput.svg", &len);
	assert_non_null(svg);
	assert_non_null(strstr(svg, "(median, bar: min to max)"));
	free(svg);
	/* the speedup's bootstrap interval is a 95% one whatever n is */
	svg = read_file("out/plots/has_pinned-2-speedup.svg", &len);
	assert_non_null(svg);
	assert_non_null(strstr(svg, "(bar: 95% CI)"));
	free(svg);
}

static void test_deterministic(void **state)
{
	const char *files[] = { "results.json" };
	static const char *const compared[] = {
		"report.md", "plots/has_pinned-2-throughput.svg",
		"plots/latency-heatmap.svg", "will-it-scale/has_pinned-store_always-pin_work_1-flag_line_shared-placement_compact.csv",
		"will-it-scale/has_pinned-store_always-pin_work_1-flag_line_shared-placement_compact.title",
	};
	char err[1024];

	(void)state;
	assert_int_equal(generate(files, 1, "latency.json", "out", err, sizeof(err)), 0);
	assert_int_equal(rename("out", "first"), 0);
	assert_int_equal(generate(files, 1, "latency.json", "out", err, sizeof(err)), 0);
	for (size_t i = 0; i < sizeof(compared) / sizeof(compared[0]); i++) {
		char a_path[PATH_MAX], b_path[PATH_MAX];
		size_t la, lb;
		char *a, *b;

		snprintf(a_path, sizeof(a_path), "first/%s", compared[i]);
		snprintf(b_path, sizeof(b_path), "out/%s", compared[i]);
		a = read_file(a_path, &la);
		b = read_file(b_path, &lb);
		assert_non_null(a);
		assert_non_null(b);
		assert_int_equal(la, lb);
		assert_memory_equal(a, b, la);
		free(a);
		free(b);
	}
}

/* Each malformed file: an error naming it, exit 2, and nothing written. */
static void test_malformed(void **state)
{
	char dir[PATH_MAX];
	DIR *d;
	struct dirent *e;
	size_t nr = 0;

	(void)state;
	snprintf(dir, sizeof(dir), "%s/data/malformed", tests_dir);
	d = opendir(dir);
	assert_non_null(d);
	while ((e = readdir(d))) {
		char path[PATH_MAX + 256], err[1024];
		const char *files[] = { path };
		struct results set = { 0 };
		struct stat st;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		err[0] = '\0';
		assert_int_equal(results_read(&set, path, err, sizeof(err)), -1);
		assert_int_equal(set.nr_files, 0);
		results_free(&set);
		if (strncmp(err, path, strlen(path)))
			fail_msg("%s: the error does not start with the file's name: %s", path, err);
		assert_int_equal(generate(files, 1, NULL, "malformed-out", err, sizeof(err)), 2);
		assert_int_equal(stat("malformed-out", &st), -1);
		nr++;
	}
	closedir(d);
	assert_true(nr >= 30);
}

/* The second file is bad: nothing is written, not even for the first. */
static void test_bad_second_file(void **state)
{
	char bad[PATH_MAX], err[1024];
	const char *files[] = { "results.json", bad };
	struct stat st;

	(void)state;
	snprintf(bad, sizeof(bad), "%s/data/malformed/nan.json", tests_dir);
	assert_int_equal(generate(files, 2, NULL, "half", err, sizeof(err)), 2);
	assert_non_null(strstr(err, "nan.json:"));
	assert_non_null(strstr(err, "NaN"));
	assert_int_equal(stat("half", &st), -1);
	assert_int_equal(generate(files, 1, "missing-latency.json", "half", err, sizeof(err)), 2);
	assert_non_null(strstr(err, "missing-latency.json"));
	assert_int_equal(stat("half", &st), -1);
}

/* results.json with its host renamed: another machine. */
static void write_other_host(const char *to)
{
	json_t *doc = json_load_file("results.json", 0, NULL);

	assert_non_null(doc);
	json_object_set_new(json_object_get(doc, "context"), "host_name",
			    json_string("otherhost"));
	assert_int_equal(json_dump_file(doc, to, JSON_INDENT(1)), 0);
	json_decref(doc);
}

/*
 * Three files, two machines: a copy of results.json (same host and
 * build) is pooled into its machine, and has no tables or plots of its
 * own; a file from another host is a machine, with its own tables and a
 * row in each fleet table.
 */
static void test_fleet(void **state)
{
	const char *files[] = { "results.json", "same.json", "other.json" };
	char err[1024];
	size_t len;
	char *md;
	struct stat st;

	(void)state;
	copy_file("results.json", "same.json");
	write_other_host("other.json");
	assert_int_equal(generate(files, 3, NULL, "fleet", err, sizeof(err)), 0);
	md = read_file("fleet/report.md", &len);
	assert_non_null(md);
	assert_non_null(strstr(md, "## Fleet: the fix on each machine"));
	assert_non_null(strstr(md, "| `results.json` | `same.json` | `other.json` |"));
	assert_non_null(strstr(md, "- `testhost`: `results.json`, `same.json`: same host and build: pooled"));
	assert_null(strstr(md, "`same.json`\n"));
	assert_non_null(strstr(md, "### Setting: pin_work=1, flag_line=shared, placement compact (defaults), `other.json`"));
	assert_null(strstr(md, "(defaults), `same.json`"));
	assert_non_null(strstr(md, "### `has_pinned`: `read_then_set` over `store_always` on each machine"));
	assert_non_null(strstr(md, "| `testhost` | Test CPU; 4 CPUs; 1 package, 1 NUMA node, 1 L3 (32 MiB), 4 cores, 4 PUs | defaults in `results.json` |"));
	assert_non_null(strstr(md, "| `otherhost` | Test CPU; 4 CPUs; 1 package, 1 NUMA node, 1 L3 (32 MiB), 4 cores, 4 PUs | defaults in `other.json` |"));
	assert_int_equal(stat("fleet/plots/fleet-has_pinned.svg", &st), 0);
	assert_int_equal(stat("fleet/plots/m3-has_pinned-2-throughput.svg", &st), 0);
	assert_int_equal(stat("fleet/plots/m1-has_pinned-2-throughput.svg", &st), 0);
	assert_int_equal(stat("fleet/plots/m2-has_pinned-2-throughput.svg", &st), -1);
	assert_int_equal(stat("fleet/will-it-scale/m1-has_pinned-store_always-pin_work_0-flag_line_shared-placement_compact.csv", &st), 0);
	assert_int_equal(stat("fleet/will-it-scale/m1-has_pinned-store_always-pin_work_0-flag_line_shared-placement_compact.title", &st), 0);
	free(md);
}

/* A file with no bouncelab rows at all still gives a report that says so. */
static void test_other_tools_only(void **state)
{
	const char *files[] = { "gbench.json" };
	FILE *f = fopen("gbench.json", "w");
	char err[1024];
	size_t len;
	char *md;

	(void)state;
	assert_non_null(f);
	fputs("{\"context\": {\"date\": \"today\", \"num_cpus\": 8, \"json_schema_version\": 1},\n"
	      " \"benchmarks\": [{\"name\": \"BM_x\", \"run_type\": \"iteration\", \"threads\": 1,\n"
	      "  \"real_time\": 3.5, \"cpu_time\": 3.5, \"time_unit\": \"us\", \"new_field\": [1]}]}\n", f);
	fclose(f);
	assert_int_equal(generate(files, 1, NULL, "plain", err, sizeof(err)), 0);
	md = read_file("plain/report.md", &len);
	assert_non_null(md);
	assert_non_null(strstr(md, "No bouncelab benchmarks in these results"));
	assert_non_null(strstr(md, "1 rows from other tools ignored"));
	free(md);
}

static void test_latency_shapes(void **state)
{
	struct latency_map pairs, square;
	FILE *f = fopen("square.json", "w");
	char err[256];

	(void)state;
	assert_non_null(f);
	fputs("{\"cpus\": [0, 1, 2, 3], \"matrix\": [[null, 18.2, 61.4, 250.7],"
	      " [18.2, null, null, 63.0], [61.4, null, null, 18.6], [250.7, 63.0, 18.6, null]]}", f);
	fclose(f);
	assert_int_equal(latency_map_read("latency.json", &pairs, err, sizeof(err)), 0);
	assert_int_equal(latency_map_read("square.json", &square, err, sizeof(err)), 0);
	assert_int_equal(pairs.n, 4);
	assert_int_equal(square.n, 4);
	assert_memory_equal(pairs.cpus, square.cpus, 4 * sizeof(long));
	for (size_t i = 0; i < 16; i++) {
		if (isnan(pairs.matrix[i]))
			assert_true(isnan(square.matrix[i]));
		else
			assert_float_equal(pairs.matrix[i], square.matrix[i], 0);
	}
	assert_string_equal(pairs.pairs[0].cls, "smt");
	latency_map_free(&pairs);
	latency_map_free(&square);
	f = fopen("bad-latency.json", "w");
	fputs("{\"pairs\": [{\"cpus\": [0, 1], \"one_way_ns\": -3}]}", f);
	fclose(f);
	assert_int_equal(latency_map_read("bad-latency.json", &pairs, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "bad-latency.json: pairs[0]"));
}

static void test_svg_escapes_and_axes(void **state)
{
	const double x[] = { 1, 2, 4, 8, 16 }, y[] = { 1, 10, 100, 1000, 10000 };
	struct svg_series s = {
		.name = "a <b> & \"c\"", .n = 5, .x = x, .y = y, .markers = true,
	};
	struct svg_line_chart c = {
		.title = "t & <t>", .x_label = "threads", .y_label = "ops",
		.log_x = true, .log_y = true, .nr_series = 1, .series = &s,
	};
	char *svg = svg_line_chart(&c);

	(void)state;
	assert_non_null(svg);
	assert_non_null(strstr(svg, "<title>t &amp; &lt;t&gt;</title>"));
	assert_non_null(strstr(svg, ">a &lt;b&gt; &amp; &quot;c&quot;</text>"));
	assert_null(strstr(svg, "<b>"));
	/* log y ticks at every decade from 1 to 10000 */
	assert_non_null(strstr(svg, ">10000</text>"));
	assert_non_null(strstr(svg, ">100</text>"));
	assert_non_null(strstr(svg, "@media (prefers-color-scheme: dark)"));
	free(svg);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_golden, setup, teardown),
		cmocka_unit_test_setup_teardown(test_deterministic, setup, teardown),
		cmocka_unit_test_setup_teardown(test_racy_never_best, setup, teardown),
		cmocka_unit_test_setup_teardown(test_few_repetitions_not_called_95, setup, teardown),
		cmocka_unit_test_setup_teardown(test_malformed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_second_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fleet, setup, teardown),
		cmocka_unit_test_setup_teardown(test_other_tools_only, setup, teardown),
		cmocka_unit_test_setup_teardown(test_latency_shapes, setup, teardown),
		cmocka_unit_test(test_svg_escapes_and_axes),
	};

	if (argc != 2) {
		fprintf(stderr, "usage: test_report SOURCE_DIR/tests\n");
		return 2;
	}
	tests_dir = argv[1];
	return cmocka_run_group_tests(tests, NULL, NULL);
}
