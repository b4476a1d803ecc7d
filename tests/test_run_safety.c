// SPDX-License-Identifier: GPL-2.0-only
/*
 * bouncelab run never loses a long run and never clobbers one:
 *
 *   - SIGINT or SIGTERM after some repetitions finished: exit 130 or 143,
 *     the finished rows are in the results file, marked incomplete, no
 *     row of a run that never happened, and report accepts the file and
 *     says so at the top;
 *   - a missing output directory is created, and an existing results file
 *     is replaced only with --force.
 *
 * usage: test_run_safety BOUNCELAB
 */
#include <errno.h>
#include <ftw.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include "test_util.h"

static char bouncelab[PATH_MAX];
static char dir[PATH_MAX];

/*
 * A suite far too long to finish, so it only ever ends by a signal: 768
 * cases (6 variants x 64 pin_work values x 2 flag lines), one repetition
 * each. Every finished repetition is reported on stderr at once, so the
 * test sees when rows have finished.
 */
#define ENDLESS_CASES 768
#define ENDLESS_SWEEP "has_pinned.pin_work=0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15," \
	"16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32,33,34,35,36,37,38,39," \
	"40,41,42,43,44,45,46,47,48,49,50,51,52,53,54,55,56,57,58,59,60,61,62,63"

static void path_in_dir(char *buf, const char *name)
{
	assert_true(snprintf(buf, PATH_MAX, "%s/%s", dir, name) < PATH_MAX);
}

/* Runs bouncelab with args (NULL-terminated); returns the wait status. */
static int run_bouncelab(const char *first, ...)
{
	va_list ap;
	int status;

	va_start(ap, first);
	status = run_quietly(bouncelab, NULL, first, ap);
	va_end(ap);
	assert_true(status != -1);
	return status;
}

/*
 * Starts an endless run, waits until `finished` repetitions are reported
 * on stderr, sends signo, and returns the wait status.
 */
static int interrupt_run(const char *out, int signo, unsigned int finished)
{
	char *argv[] = { bouncelab, "run", "--filter", "has_pinned",
			 "--threads", "1", "--repetitions", "1", "--min-time", "0.02",
			 "--param", ENDLESS_SWEEP, "--param", "has_pinned.flag_line=shared,alone",
			 "--out", (char *)out, NULL };
	unsigned int seen = 0;
	char *line = NULL;
	size_t cap = 0;
	int pipefd[2], status;
	FILE *err;
	pid_t pid;

	assert_int_equal(pipe(pipefd), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		dup2(null, 1);
		dup2(pipefd[1], 2);
		close(pipefd[0]);
		execv(bouncelab, argv);
		_exit(127);
	}
	close(pipefd[1]);
	err = fdopen(pipefd[0], "r");
	assert_non_null(err);
	/* Progress lines look like "[3/768] has_pinned/..." */
	while (seen < finished && getline(&line, &cap, err) > 0)
		seen += line[0] == '[';
	assert_int_equal(seen, finished);
	assert_int_equal(kill(pid, signo), 0);
	/* Drain stderr so that the child never blocks on a full pipe. */
	while (getline(&line, &cap, err) > 0)
		;
	free(line);
	fclose(err);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	return status;
}

static void check_incomplete_file(const char *path, const char *signame)
{
	json_t *doc = json_load_file(path, JSON_REJECT_DUPLICATES, NULL);
	json_t *why, *rows, *row;
	unsigned int repetitions = 0;
	size_t i;

	assert_non_null(doc);
	why = json_object_get(json_object_get(doc, "context"), "incomplete");
	assert_true(json_is_string(why));
	assert_non_null(strstr(json_string_value(why), signame));
	/* a failed repetition is kept beside the benchmarks, never among them */
	json_array_foreach(json_object_get(doc, "failed_repetitions"), i, row) {
		json_t *msg = json_object_get(row, "error_message");

		assert_true(json_is_true(json_object_get(row, "error_occurred")));
		/* Runs cut short by the signal are dropped, not reported. */
		assert_true(json_is_string(msg));
		assert_string_not_equal(json_string_value(msg), "interrupted");
	}
	rows = json_object_get(doc, "benchmarks");
	json_array_foreach(rows, i, row) {
		assert_false(json_is_true(json_object_get(row, "error_occurred")));
		if (!strcmp(json_string_value(json_object_get(row, "run_type")),
			    "iteration")) {
			assert_non_null(json_object_get(row, "bouncelab"));
			repetitions++;
		}
	}
	/* At least the repetitions seen finishing, far fewer than planned. */
	assert_true(repetitions >= 2);
	assert_true(repetitions < ENDLESS_CASES);
	json_decref(doc);
}

/* The report opens with the warning, before its first section. */
static void check_report_says_incomplete(const char *results, const char *name)
{
	char outdir[PATH_MAX], md[PATH_MAX];
	char text[4096] = "";
	char *banner, *section;
	FILE *f;

	path_in_dir(outdir, name);
	assert_int_equal(run_bouncelab("report", results, "-o", outdir, NULL), 0);
	assert_true(snprintf(md, sizeof(md), "%s/report.md", outdir) < PATH_MAX);
	f = fopen(md, "r");
	assert_non_null(f);
	assert_true(fread(text, 1, sizeof(text) - 1, f) > 0);
	fclose(f);
	banner = strstr(text, "ncomplete");
	section = strstr(text, "\n## ");
	assert_non_null(banner);
	assert_true(!section || banner < section);
}

static int no_temporaries(const char *path, const struct stat *st, int flag,
			  struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return strstr(path, ".tmp.") != NULL;
}

static void interrupted_by(int signo, const char *signame)
{
	char out[PATH_MAX];
	int status;

	path_in_dir(out, signo == SIGINT ? "int/results.json" : "term/results.json");
	status = interrupt_run(out, signo, 2);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 128 + signo);
	check_incomplete_file(out, signame);
	check_report_says_incomplete(out, signame);
	assert_int_equal(nftw(dir, no_temporaries, 16, FTW_PHYS), 0);
}

static void sigint_keeps_the_finished_rows(void **unused)
{
	(void)unused;
	interrupted_by(SIGINT, "SIGINT");
}

static void sigterm_keeps_the_finished_rows(void **unused)
{
	(void)unused;
	interrupted_by(SIGTERM, "SIGTERM");
}

static int quick_run(const char *out, const char *extra)
{
	return run_bouncelab("run", "--quick", "--filter", "has_pinned/nop$",
			     "--threads", "1", "--repetitions", "1", "--out", out,
			     extra, NULL);
}

static void missing_directories_are_created(void **unused)
{
	char out[PATH_MAX];
	struct stat st;

	(void)unused;
	path_in_dir(out, "new/deeper/results.json");
	assert_int_equal(quick_run(out, NULL), 0);
	assert_int_equal(stat(out, &st), 0);
	assert_true(S_ISREG(st.st_mode));
}

static void only_force_replaces_a_results_file(void **unused)
{
	char out[PATH_MAX];
	struct stat before, after;
	int status;

	(void)unused;
	path_in_dir(out, "again/results.json");
	assert_int_equal(quick_run(out, NULL), 0);
	assert_int_equal(stat(out, &before), 0);
	status = quick_run(out, NULL);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 2);
	assert_int_equal(stat(out, &after), 0);
	assert_int_equal(after.st_ino, before.st_ino);
	assert_int_equal(quick_run(out, "--force"), 0);
	assert_int_equal(stat(out, &after), 0);
	assert_int_not_equal(after.st_ino, before.st_ino);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(sigint_keeps_the_finished_rows),
		cmocka_unit_test(sigterm_keeps_the_finished_rows),
		cmocka_unit_test(missing_directories_are_created),
		cmocka_unit_test(only_force_replaces_a_results_file),
	};
	int ret;

	if (argc != 2 || !realpath(argv[1], bouncelab)) {
		fprintf(stderr, "usage: test_run_safety BOUNCELAB\n");
		return 2;
	}
	snprintf(dir, sizeof(dir), "%s/bouncelab-run-safety.XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(dir)) {
		perror(dir);
		return 1;
	}
	ret = cmocka_run_group_tests(tests, NULL, NULL);
	remove_tree(dir);
	return ret;
}
