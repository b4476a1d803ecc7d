// SPDX-License-Identifier: GPL-2.0-only
/*
 * What a report leaves allocated: nothing. glibc's own count of the heap
 * in use (mallinfo2(): the arena's bytes in use and the mmap'd blocks)
 * is read after a first report, which may set up what lives as long as
 * the process (hwloc's plugins, stdio's buffers), and again after three
 * more of the same: it must not have grown. Every allocation counts,
 * libc's and the libraries' for us (strdup(), open_memstream(), jansson)
 * included, so a free() left out anywhere on the way (a loop over
 * groups that starts at 1, a row's names never freed) shows here in
 * every build. glibc's per-thread cache of freed chunks would count as in
 * use: meson runs this with it off (GLIBC_TUNABLES). Under
 * AddressSanitizer its allocator keeps glibc's count still and
 * LeakSanitizer does this job instead.
 *
 * The reports: the fixed results file with its latency matrix, a fleet
 * of two corpus machines' runs, and --brief --text. The commands that
 * read results or profiles the same way, their output sent to
 * /dev/null: compare (two runs, and Google Benchmark's own JSON) and
 * model (a shipped profile to 256 threads, a results file's machine,
 * both as text and --json).
 *
 * Usage: test_no_leaks SOURCE_DIR/tests
 */
#include <limits.h>
#include <malloc.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

#include <cmocka.h>

#include "cli.h"
#include "report.h"
#include "topo.h"
#include "test_util.h"

static const char *tests_dir;
static char work_dir[PATH_MAX];

static int setup(void **state)
{
	(void)state;
	return enter_temp_dir(work_dir, sizeof(work_dir), "leaks");
}

static int teardown(void **state)
{
	(void)state;
	return leave_temp_dir(work_dir);
}

static size_t heap_in_use(void)
{
	struct mallinfo2 mi = mallinfo2();

	return mi.uordblks + mi.hblkhd;
}

static void write_report(const struct report_options *opts)
{
	char err[512];

	if (report_write(opts, err, sizeof(err)))
		fail_msg("report_write: %s", err);
	assert_int_equal(remove_tree(opts->outdir), 0);
}

static void leaves_nothing(struct report_options *opts)
{
	size_t before, after;

	opts->outdir = "out";
	write_report(opts);
	before = heap_in_use();
	for (int i = 0; i < 3; i++)
		write_report(opts);
	after = heap_in_use();
	if (after != before)
		fail_msg("three reports left %zd bytes allocated", (ssize_t)(after - before));
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

	(void)state;
	path_in_tests(results, sizeof(results), "results-fixed.json");
	path_in_tests(latency, sizeof(latency), "latency-fixed.json");
	leaves_nothing(&opts);
}

static void test_fleet_of_two_machines(void **state)
{
	char zen3[PATH_MAX], zen5[PATH_MAX];
	const char *files[2] = { zen3, zen5 };
	struct report_options opts = { .files = files, .nr_files = 2, .full = true };

	(void)state;
	path_in_tests(zen3, sizeof(zen3), "runs/epyc-zen3-2026-12-01/sweep.json");
	path_in_tests(zen5, sizeof(zen5), "runs/epyc-zen5-2026-12-02/default.json");
	leaves_nothing(&opts);
}

static void test_brief_and_text(void **state)
{
	char results[PATH_MAX];
	const char *files[1] = { results };
	struct report_options opts = { .files = files, .nr_files = 1, .brief = true,
				       .text = true };

	(void)state;
	path_in_tests(results, sizeof(results), "runs/epyc-zen4-2026-12-07/default.json");
	leaves_nothing(&opts);
}

/* argv[0] is the command's name; the rest, up to NULL, its arguments. */
static void run_command(int (*cmd)(int, char **), char **argv)
{
	int argc = 0, saved = dup(STDOUT_FILENO), null = open("/dev/null", O_WRONLY);
	int ret;

	while (argv[argc])
		argc++;
	assert_true(saved >= 0 && null >= 0);
	fflush(stdout);
	dup2(null, STDOUT_FILENO);
	ret = cmd(argc, argv);
	fflush(stdout);
	dup2(saved, STDOUT_FILENO);
	close(saved);
	close(null);
	if (ret)
		fail_msg("%s: exit %d", argv[0], ret);
}

static void command_leaves_nothing(int (*cmd)(int, char **), char **argv)
{
	size_t before, after;

	run_command(cmd, argv);
	before = heap_in_use();
	for (int i = 0; i < 3; i++)
		run_command(cmd, argv);
	after = heap_in_use();
	if (after != before)
		fail_msg("%s, three times, left %zd bytes allocated", argv[0],
			 (ssize_t)(after - before));
}

static void test_compare(void **state)
{
	char a[PATH_MAX], b[PATH_MAX], g1[PATH_MAX], g2[PATH_MAX];
	char *runs[] = { "compare", a, b, NULL }, *gbench[] = { "compare", g1, g2, NULL };

	(void)state;
	path_in_tests(a, sizeof(a), "runs/epyc-zen3-2026-12-01/default.json");
	path_in_tests(b, sizeof(b), "runs/epyc-zen4-2026-12-07/default.json");
	path_in_tests(g1, sizeof(g1), "gbench-repetitions.json");
	path_in_tests(g2, sizeof(g2), "gbench-aggregates-only.json");
	command_leaves_nothing(cmd_compare, runs);
	command_leaves_nothing(cmd_compare, gbench);
}

static void test_model(void **state)
{
	char profile[PATH_MAX], results[PATH_MAX];
	char *shipped[] = { "model", "--profile", profile, "--family", "counter",
			    "--variant", "shared_atomic", "--private-ns", "5",
			    "--threads", "1,2,4,8,16,32,64,128,256", NULL };
	char *of_run[] = { "model", "--results", results, NULL };
	char *of_run_json[] = { "model", "--results", results, "--json", NULL };

	(void)state;
	snprintf(profile, sizeof(profile), "%s/../model/profiles/epyc-milan-2s-256.json",
		 tests_dir);
	path_in_tests(results, sizeof(results), "runs/epyc-zen4-2026-12-07/default.json");
	command_leaves_nothing(cmd_model, shipped);
	command_leaves_nothing(cmd_model, of_run);
	command_leaves_nothing(cmd_model, of_run_json);
}

int main(int argc, char **argv)
{
	struct topo *keep_plugins;
	char err[256];
	int ret;

	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_fixed_run_with_latency, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fleet_of_two_machines, setup, teardown),
		cmocka_unit_test_setup_teardown(test_brief_and_text, setup, teardown),
		cmocka_unit_test(test_compare),
		cmocka_unit_test(test_model),
	};

	if (argc != 2) {
		fprintf(stderr, "usage: %s SOURCE_DIR/tests\n", argv[0]);
		return 2;
	}
	tests_dir = argv[1];
	/*
	 * hwloc loads its plugins when a first topology opens and unloads
	 * them when the last one closes, and the dynamic loader keeps a few
	 * bytes of each dlopen() by turns: one topology held open keeps
	 * them loaded, as report_write() does itself for several files.
	 */
	keep_plugins = topo_open("pack:1 core:1 pu:1", err, sizeof(err));
	if (!keep_plugins) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	ret = cmocka_run_group_tests(tests, NULL, NULL);
	topo_close(keep_plugins);
	return ret;
}
