// SPDX-License-Identifier: GPL-2.0-only
/*
 * The report, compare and model read and write only inside what they
 * allocated: every malloc(), calloc(), realloc() and strdup() of ours
 * (wrapped) gets pages of its own with an inaccessible page after them,
 * its bytes ending where that page begins, and the commands run over a
 * results file with its latency matrix, a fleet of two machines' runs and
 * a brief. A loop one step too long ("<" become "<="), an index one too
 * high, a copy one byte too many stops the test with the command named.
 * A release build does not see them otherwise: the bytes past a block
 * are malloc()'s, often zero or the next block's, and the report comes
 * out the same. AddressSanitizer sees them too, but the mutants are
 * judged in the release build.
 *
 * The blocks are guard_pages.h's, their bytes 0xa5 to start with.
 * Allocations of the C library's own (getline(), open_memstream(),
 * qsort()) and of the libraries' (jansson, hwloc) are theirs. Under
 * AddressSanitizer the test skips: it checks every block's ends itself,
 * and there every node of a JSON tree is a block of malloc()'s
 * (json_region.c), 32,000 live at once, two mappings each, past the
 * kernel's 65,530 a process.
 *
 * With --short-of-memory, a report of two quick runs instead, with one
 * allocation failing each time, 64 of them spread over the report: each
 * a clean "out of memory" (1, no directory left) or a whole report, never
 * a crash. A block freed is unmapped, so a pointer kept to one faults.
 * It found markdown_prediction() asking twice whether the seed's plot
 * could be drawn and using the second answer's NULL.
 *
 * Usage: test_report_fence SOURCE_DIR/tests [--short-of-memory]
 */
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

#include "cli.h"
#include "guard_pages.h"
#include "report.h"
#include "sanitizers.h"
#include "test_util.h"

static char what[256];

static void say(const char *text)
{
	ssize_t n = write(STDERR_FILENO, text, strlen(text));

	(void)n;
}

static void on_fault(int signo)
{
	say(signo == SIGALRM ? "report_fence: no end within 60 s in " :
	    "report_fence: a read or write past the end of a block in ");
	say(what);
	say("\n");
	_exit(1);
}

static const char *tests_dir;

static void data_path(char *path, size_t len, const char *name)
{
	snprintf(path, len, "%s/data/%s", tests_dir, name);
}

static int report(struct report_options *opts, const char *name)
{
	char err[512];
	int ret;

	snprintf(what, sizeof(what), "the report of %s", name);
	opts->outdir = "out";
	alarm(60);
	guard_pages_on = true;
	ret = report_write(opts, err, sizeof(err));
	guard_pages_on = false;
	alarm(0);
	if (ret) {
		fprintf(stderr, "report_fence: %s: %s\n", what, err);
		return 1;
	}
	return remove_tree(opts->outdir) ? 1 : 0;
}

/*
 * The report of opts with one allocation in a spread of its total failing
 * each time: 1 with "out of memory" and no directory left, or, where the
 * report had another way, a report; never a crash. A block freed is
 * unmapped, so a pointer kept to it faults too.
 */
static int report_short_of_memory(struct report_options *opts, const char *name)
{
	long total;
	int failed = 0;

	snprintf(what, sizeof(what), "the report of %s", name);
	opts->outdir = "out";
	guard_nr_allocations = 0;
	guard_pages_on = true;
	if (report_write(opts, (char[512]){ 0 }, 512)) {
		guard_pages_on = false;
		fprintf(stderr, "report_fence: %s failed with all the memory it wanted\n", what);
		return 1;
	}
	guard_pages_on = false;
	total = guard_nr_allocations;
	if (remove_tree(opts->outdir))
		return 1;
	for (long k = 0; k < total; k += k < 16 ? 1 : total / 48) {
		char err[512] = "";
		int ret;

		snprintf(what, sizeof(what), "the report of %s, allocation %ld of %ld failing",
			 name, k + 1, total);
		guard_nr_allocations = 0;
		guard_failing_allocation = k;
		alarm(60);
		guard_pages_on = true;
		ret = report_write(opts, err, sizeof(err));
		guard_pages_on = false;
		alarm(0);
		guard_failing_allocation = -1;
		if (ret && (ret != 1 || !strstr(err, "out of memory"))) {
			fprintf(stderr, "report_fence: %s: %d, \"%s\"\n", what, ret, err);
			failed = 1;
		}
		if (!ret ? remove_tree(opts->outdir) : !access(opts->outdir, F_OK)) {
			fprintf(stderr, "report_fence: %s: %s\n", what,
				ret ? "the directory is left" : "no directory to remove");
			failed = 1;
		}
	}
	return failed;
}

/* argv[0] is the command's name; the rest, up to NULL, its arguments. */
static int command(int (*cmd)(int, char **), char **argv)
{
	int argc = 0, saved = dup(STDOUT_FILENO), null = open("/dev/null", O_WRONLY), ret;

	while (argv[argc])
		argc++;
	snprintf(what, sizeof(what), "%s %s", argv[0], argv[argc - 1]);
	fflush(stdout);
	dup2(null, STDOUT_FILENO);
	alarm(60);
	guard_pages_on = true;
	ret = cmd(argc, argv);
	guard_pages_on = false;
	alarm(0);
	fflush(stdout);
	dup2(saved, STDOUT_FILENO);
	close(saved);
	close(null);
	if (ret)
		fprintf(stderr, "report_fence: %s: exit %d\n", what, ret);
	return ret ? 1 : 0;
}

int main(int argc, char **argv)
{
	char results[PATH_MAX], latency[PATH_MAX], zen3[PATH_MAX], zen5[PATH_MAX];
	char zen4[PATH_MAX], work[PATH_MAX], profile[PATH_MAX];
	const char *fixed_files[1] = { results }, *fleet_files[2] = { zen3, zen5 };
	const char *brief_files[1] = { zen4 };
	struct report_options fixed = { .files = fixed_files, .nr_files = 1, .latency = latency };
	struct report_options fleet = { .files = fleet_files, .nr_files = 2, .full = true };
	char quick3[PATH_MAX], quick5[PATH_MAX];
	const char *small_files[2] = { quick3, quick5 };
	struct report_options small_fleet = { .files = small_files, .nr_files = 2 };
	struct report_options brief = { .files = brief_files, .nr_files = 1, .brief = true,
					.text = true };
	char *compare[] = { "compare", zen3, zen4, NULL };
	char *model[] = { "model", "--results", zen4, NULL };
	char *shipped[] = { "model", "--profile", profile, "--family", "counter",
			    "--variant", "shared_atomic", "--private-ns", "5",
			    "--threads", "1,2,4,8,16,32,64,128,256", NULL };
	int failed = 0;

	if (argc < 2 || argc > 3 || (argc == 3 && strcmp(argv[2], "--short-of-memory"))) {
		fprintf(stderr, "usage: test_report_fence SOURCE_DIR/tests [--short-of-memory]\n");
		return 2;
	}
	if (BUILT_WITH_ASAN) {
		printf("report_fence: skipped: AddressSanitizer checks the blocks' ends itself\n");
		return 77;
	}
	tests_dir = argv[1];
	data_path(results, sizeof(results), "results-fixed.json");
	data_path(latency, sizeof(latency), "latency-fixed.json");
	data_path(zen3, sizeof(zen3), "runs/epyc-zen3-2026-12-01/sweep.json");
	data_path(zen5, sizeof(zen5), "runs/epyc-zen5-2026-12-02/default.json");
	data_path(zen4, sizeof(zen4), "runs/epyc-zen4-2026-12-07/default.json");
	data_path(quick3, sizeof(quick3), "runs/epyc-zen3-2026-12-01/quick.json");
	data_path(quick5, sizeof(quick5), "runs/epyc-zen5-2026-12-02/quick.json");
	snprintf(profile, sizeof(profile), "%s/../model/profiles/epyc-milan-2s-256.json",
		 tests_dir);
	signal(SIGSEGV, on_fault);
	signal(SIGBUS, on_fault);
	signal(SIGALRM, on_fault);
	if (enter_temp_dir(work, sizeof(work), "fence"))
		return 1;
	if (argc == 3) {
		failed = report_short_of_memory(&small_fleet, "a fleet of two quick runs");
		leave_temp_dir(work);
		printf("report_fence: %zu blocks fenced, at most %zu at once; %s\n", guard_nr_blocks,
		       guard_most_live, failed ? "failed" : "each failing allocation a clean error");
		return failed;
	}
	failed += report(&fixed, "results-fixed.json with its latency matrix");
	failed += report(&fleet, "a fleet of two machines");
	failed += report(&brief, "a brief with its text");
	failed += command(cmd_compare, compare);
	failed += command(cmd_model, model);
	failed += command(cmd_model, shipped);
	leave_temp_dir(work);
	printf("report_fence: %zu blocks fenced, at most %zu at once; %d of 6 commands failed\n",
	       guard_nr_blocks, guard_most_live, failed);
	return failed ? 1 : 0;
}
