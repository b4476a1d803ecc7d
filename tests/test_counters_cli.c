// SPDX-License-Identifier: GPL-2.0-only
/*
 * bouncelab run/list/report with counters, end to end: the binary (its
 * path is the first argument) runs one short case and the test reads the
 * results file and the report. No PMU is needed: its absence is injected
 * where a test depends on it (tests/perf_inject.c).
 */
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#include "config.h"
#include "perf_inject.h"
#include "test_util.h"
#include "cases.h"

#define NOBODY 65534

static const char *bouncelab;

struct invocation {
	int inject_errno;	/* 0: none */
	uid_t uid;		/* 0: as we are */
	const char *binary;	/* NULL: bouncelab */
	char stderr_text[8192];
};

static void become(uid_t uid)
{
	if (setgroups(0, NULL) || setgid(uid) || setuid(uid))
		_exit(126);
}

/* Runs the binary with args; returns its exit status, stderr in inv. */
static int run(struct invocation *inv, const char *const *args)
{
	const char *argv[32] = { inv->binary ? inv->binary : bouncelab };
	int fds[2], status, devnull;
	size_t len = 0;
	ssize_t n;
	pid_t pid;

	for (int i = 0; args[i]; i++)
		argv[i + 1] = args[i];
	assert_int_equal(pipe(fds), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		devnull = open("/dev/null", O_WRONLY);
		dup2(devnull, STDOUT_FILENO);
		dup2(fds[1], STDERR_FILENO);
		close(fds[0]);
		if (inv->inject_errno && perf_inject_errno(inv->inject_errno, PERF_INJECT_ALL))
			_exit(125);
		if (inv->uid)
			become(inv->uid);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	close(fds[1]);
	while ((n = read(fds[0], inv->stderr_text + len,
			 sizeof(inv->stderr_text) - 1 - len)) > 0)
		len += (size_t)n;
	inv->stderr_text[len] = '\0';
	close(fds[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	return WEXITSTATUS(status);
}

static char *read_text(const char *path)
{
	FILE *f = fopen(path, "r");
	char *text = NULL;
	size_t cap = 0;
	ssize_t n;

	if (!f)
		return NULL;
	n = getdelim(&text, &cap, '\0', f);
	fclose(f);
	if (n < 0) {
		free(text);
		return NULL;
	}
	return text;
}

static unsigned int occurrences(const char *text, const char *what)
{
	unsigned int n = 0;

	for (const char *p = strstr(text, what); p; p = strstr(p + 1, what))
		n++;
	return n;
}

/* One case, one repetition, as short as Google Benchmark allows. */
#define SHORT_RUN "run", "--filter", "has_pinned/store_always$", "--threads", "1", \
	"--repetitions", "1", "--min-time", "0.001"

static json_t *counters_of(json_t *doc)
{
	return json_object_get(json_object_get(doc, "context"), "counters");
}

static const char *summary_of(json_t *doc, const char *set)
{
	json_t *s = json_object_get(json_object_get(json_object_get(counters_of(doc), "sets"),
						    set), "summary");

	return json_is_string(s) ? json_string_value(s) : "";
}

static json_t *first_row(json_t *doc)
{
	return json_array_get(json_object_get(doc, "benchmarks"), 0);
}

static void coherence_without_a_pmu_is_na_in_results_and_report(void **unused)
{
	char dir[] = "/tmp/bouncelab-test-XXXXXX", out[256], report[256], md[256];
	struct invocation inv = { .inject_errno = ENOENT };
	json_t *doc;
	char *text;

	(void)unused;
	if (!perf_inject_supported() || !HAVE_PFM)
		skip_because("no seccomp injection here, or built without libpfm4");
	assert_non_null(mkdtemp(dir));
	snprintf(out, sizeof(out), "%s/results.json", dir);
	snprintf(report, sizeof(report), "%s/report", dir);
	snprintf(md, sizeof(md), "%s/report/report.md", dir);
	assert_int_equal(run(&inv, (const char *const[]){ SHORT_RUN, "--counters",
			     "coherence", "--out", out, NULL }), 0);
	/* Said once, not once per benchmark thread or run. */
	assert_int_equal(occurrences(inv.stderr_text,
				     "bouncelab: counters: coherence n/a (no hardware PMU)"), 1);
	doc = json_load_file(out, 0, NULL);
	assert_non_null(doc);
	assert_string_equal(summary_of(doc, "coherence"), "n/a (no hardware PMU)");
	assert_non_null(json_object_get(first_row(doc), "ns_per_op"));
	assert_null(json_object_get(first_row(doc), "counters_running_fraction"));
	json_decref(doc);

	assert_int_equal(run(&inv, (const char *const[]){ "report", out, "-o", report,
			     NULL }), 0);
	text = read_text(md);
	assert_non_null(text);
	assert_non_null(strstr(text, "n/a (no hardware PMU)"));
	free(text);
	remove_tree(dir);
}

static void sw_run_has_page_faults_and_task_clock_per_op(void **unused)
{
	char dir[] = "/tmp/bouncelab-test-XXXXXX", out[256], report[256], md[256];
	struct invocation inv = { 0 };
	json_t *doc, *row;
	char *text;

	(void)unused;
	assert_non_null(mkdtemp(dir));
	snprintf(out, sizeof(out), "%s/results.json", dir);
	snprintf(report, sizeof(report), "%s/report", dir);
	/* the counters' columns are the appendix's, beside the spread */
	snprintf(md, sizeof(md), "%s/report/details.md", dir);
	assert_int_equal(run(&inv, (const char *const[]){ SHORT_RUN, "--counters", "sw",
			     "--out", out, NULL }), 0);
	doc = json_load_file(out, 0, NULL);
	assert_non_null(doc);
	if (strstr(summary_of(doc, "sw"), "n/a (")) {
		json_decref(doc);
		remove_tree(dir);
		skip_because("software counters do not work here");
	}
	row = first_row(doc);
	assert_true(json_is_number(json_object_get(row, "page_faults_per_op")));
	assert_true(json_number_value(json_object_get(row, "task_clock_ns_per_op")) > 0);
	json_decref(doc);
	assert_int_equal(run(&inv, (const char *const[]){ "report", out, "-o", report,
			     NULL }), 0);
	text = read_text(md);
	assert_non_null(text);
	/* Counters all zero (page faults, once warm) are left out of the table. */
	assert_non_null(strstr(text, "| task_clock_ns_per_op |"));
	free(text);
	remove_tree(dir);
}

static void bad_counter_options_are_usage_errors(void **unused)
{
	char dir[] = "/tmp/bouncelab-test-XXXXXX", out[256];
	struct invocation inv = { 0 };

	(void)unused;
	assert_non_null(mkdtemp(dir));
	snprintf(out, sizeof(out), "%s/results.json", dir);
	assert_int_equal(run(&inv, (const char *const[]){ SHORT_RUN, "--counters",
			     "coherence,hitm", "--out", out, NULL }), 2);
	assert_int_equal(occurrences(inv.stderr_text, "\n"), 1);
	assert_non_null(strstr(inv.stderr_text, "bouncelab: --counters 'coherence,hitm'"));
	assert_non_null(strstr(inv.stderr_text, "coherence, basic, sw"));
	if (HAVE_PFM) {
		assert_int_equal(run(&inv, (const char *const[]){ SHORT_RUN, "--events",
				     "perf::PERF_COUNT_HW_CPU_CYCLEZ", "--out", out, NULL }), 2);
		assert_int_equal(occurrences(inv.stderr_text, "\n"), 1);
		assert_non_null(strstr(inv.stderr_text, "event not found"));
	}
	assert_int_equal(access(out, F_OK), -1);
	remove_tree(dir);
}

static void list_events_says_what_works_here(void **unused)
{
	char dir[] = "/tmp/bouncelab-test-XXXXXX", out[256];
	char *text;
	int fd;

	(void)unused;
	if (!perf_inject_supported() || !HAVE_PFM)
		skip_because("no seccomp injection here, or built without libpfm4");
	/* The listing goes to stdout: capture it in a file. */
	assert_non_null(mkdtemp(dir));
	snprintf(out, sizeof(out), "%s/list.txt", dir);
	fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	{
		const char *argv[] = { bouncelab, "list", "--events", NULL };
		pid_t pid = fork();
		int status;

		if (pid == 0) {
			dup2(fd, STDOUT_FILENO);
			if (perf_inject_errno(ENOENT, PERF_INJECT_ALL))
				_exit(125);
			execv(argv[0], (char *const *)argv);
			_exit(127);
		}
		assert_int_equal(waitpid(pid, &status, 0), pid);
		assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	}
	close(fd);
	text = read_text(out);
	assert_non_null(text);
	assert_non_null(strstr(text, "hardware PMU no"));
	assert_non_null(strstr(text, "\ncoherence "));
	assert_non_null(strstr(text, "\nbasic "));
	assert_non_null(strstr(text, "\nsw "));
	assert_non_null(strstr(text, "n/a (no hardware PMU)"));
	assert_non_null(strstr(text, "page_faults_per_op"));
	free(text);
	remove_tree(dir);
}

/* A copy nobody can run, whatever the build directory's permissions. */
static void copy_binary(const char *to)
{
	FILE *in = fopen(bouncelab, "rb"), *out = fopen(to, "wb");
	char buf[1 << 16];
	size_t n;

	assert_true(in && out);
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
		assert_int_equal(fwrite(buf, 1, n, out), n);
	fclose(in);
	fclose(out);
	assert_int_equal(chmod(to, 0755), 0);
}

static int paranoid_level(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
	int level = 99;

	if (f) {
		if (fscanf(f, "%d", &level) != 1)
			level = 99;
		fclose(f);
	}
	return level;
}

static void a_non_root_user_runs_with_counters(void **unused)
{
	char dir[] = "/tmp/bouncelab-test-XXXXXX", out[256], binary[256];
	struct invocation inv = { .uid = NOBODY, .binary = binary };
	json_t *doc, *na;

	(void)unused;
	if (geteuid() != 0)
		skip_because("not root: cannot become another user");
	assert_non_null(mkdtemp(dir));
	assert_int_equal(chmod(dir, 0755), 0);
	assert_int_equal(chown(dir, NOBODY, NOBODY), 0);
	snprintf(out, sizeof(out), "%s/results.json", dir);
	snprintf(binary, sizeof(binary), "%s/bouncelab", dir);
	copy_binary(binary);
	assert_int_equal(run(&inv, (const char *const[]){ SHORT_RUN, "--counters",
			     "coherence,sw", "--out", out, NULL }), 0);
	doc = json_load_file(out, 0, NULL);
	assert_non_null(doc);
	na = json_object_get(counters_of(doc), "na");
	if (!HAVE_PFM) {
		assert_non_null(strstr(summary_of(doc, "sw"), "without libpfm4"));
	} else if (paranoid_level() <= 2) {
		/* User-space counting works unprivileged up to paranoid 2. */
		assert_true(json_is_number(json_object_get(first_row(doc),
							   "page_faults_per_op")));
		assert_null(json_object_get(na, "page_faults_per_op"));
	}
	if (HAVE_PFM && paranoid_level() >= 2) {
		const char *why = json_string_value(json_object_get(na,
						"context_switches_per_op"));

		assert_non_null(why);
		assert_non_null(strstr(why, "kernel.perf_event_paranoid <= 1"));
		assert_non_null(strstr(inv.stderr_text, "kernel.perf_event_paranoid"));
	}
	json_decref(doc);
	remove_tree(dir);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(coherence_without_a_pmu_is_na_in_results_and_report),
		cmocka_unit_test(sw_run_has_page_faults_and_task_clock_per_op),
		cmocka_unit_test(bad_counter_options_are_usage_errors),
		cmocka_unit_test(list_events_says_what_works_here),
		cmocka_unit_test(a_non_root_user_runs_with_counters),
	};

	if (argc < 2) {
		fprintf(stderr, "usage: %s PATH-TO-BOUNCELAB [CASE... | --all-but CASE...]\n", argv[0]);
		return 1;
	}
	bouncelab = argv[1];
	return run_cases("counters_cli", tests, argc - 1, argv + 1);
}
