// SPDX-License-Identifier: GPL-2.0-only
/*
 * bouncelab as an unprivileged user (uid and gid 65534, no groups): list,
 * a quick run and a report in a directory it owns all work, and a results
 * path in a directory it may not write fails before any benchmark runs.
 * Needs root to switch users; skipped (exit 77) otherwise.
 *
 * usage: test_nonroot BOUNCELAB
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include "test_util.h"

/* "nobody" on Debian; the test needs no passwd entry, only the number. */
#define UNPRIVILEGED_ID 65534
#define SKIPPED 77

static char bouncelab[PATH_MAX];
static char home[PATH_MAX];	/* owned by the unprivileged user */
static char root_only[PATH_MAX];	/* owned by root, mode 0755 */

static void drop_privileges(void)
{
	if (setgroups(0, NULL) || setresgid(UNPRIVILEGED_ID, UNPRIVILEGED_ID, UNPRIVILEGED_ID) ||
	    setresuid(UNPRIVILEGED_ID, UNPRIVILEGED_ID, UNPRIVILEGED_ID))
		_exit(125);
}

/* In the child: become the unprivileged user, in its own directory. */
static void unprivileged_at_home(void)
{
	drop_privileges();
	if (chdir(home))
		_exit(126);
}

/* Runs bouncelab as the unprivileged user; returns the wait status. */
static int run_unprivileged(const char *first, ...)
{
	va_list ap;
	int status;

	va_start(ap, first);
	status = run_quietly(bouncelab, unprivileged_at_home, first, ap);
	va_end(ap);
	assert_true(status != -1);
	return status;
}

static int exit_status(int status)
{
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static void join(char *buf, const char *dir, const char *name)
{
	assert_true(snprintf(buf, PATH_MAX, "%s/%s", dir, name) < PATH_MAX);
}

static void list_works(void **unused)
{
	(void)unused;
	assert_int_equal(exit_status(run_unprivileged("list", NULL)), 0);
}

static void run_and_report_work(void **unused)
{
	char results[PATH_MAX], outdir[PATH_MAX], md[PATH_MAX];
	struct stat st;

	(void)unused;
	join(results, home, "results/results.json");
	join(outdir, home, "report");
	join(md, home, "report/report.md");
	/* Every counter set: without privileges they degrade to n/a, not fail. */
	assert_int_equal(exit_status(run_unprivileged("run", "--quick", "--threads", "1",
			 "--filter", "has_pinned/(nop|read_then_set)$",
			 "--counters", "coherence,basic,sw", "--out", results, NULL)), 0);
	assert_int_equal(stat(results, &st), 0);
	assert_int_equal(st.st_uid, UNPRIVILEGED_ID);
	assert_int_equal(exit_status(run_unprivileged("report", results, "-o", outdir,
						      NULL)), 0);
	assert_int_equal(stat(md, &st), 0);
	assert_int_equal(st.st_uid, UNPRIVILEGED_ID);
}

static void a_directory_it_may_not_write_fails_first(void **unused)
{
	char results[PATH_MAX];
	struct stat st;

	(void)unused;
	join(results, root_only, "results.json");
	assert_int_equal(exit_status(run_unprivileged("run", "--quick", "--threads", "1",
			 "--filter", "has_pinned/nop$", "--out", results, NULL)), 1);
	assert_int_equal(stat(results, &st), -1);
	join(results, root_only, "sub/results.json");
	assert_int_equal(exit_status(run_unprivileged("run", "--quick", "--threads", "1",
			 "--filter", "has_pinned/nop$", "--out", results, NULL)), 1);
	join(results, root_only, "sub");
	assert_int_equal(stat(results, &st), -1);
}

/* Whether the unprivileged user can reach the binary (not under /root). */
static bool binary_reachable(void)
{
	pid_t pid = fork();
	int status;

	if (pid == 0) {
		drop_privileges();
		_exit(access(bouncelab, X_OK) ? 1 : 0);
	}
	return pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	       WEXITSTATUS(status) == 0;
}

static void print_paranoid(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
	int level;

	if (f && fscanf(f, "%d", &level) == 1)
		printf("perf_event_paranoid is %d\n", level);
	if (f)
		fclose(f);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(list_works),
		cmocka_unit_test(run_and_report_work),
		cmocka_unit_test(a_directory_it_may_not_write_fails_first),
	};
	const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	int ret;

	if (argc != 2 || !realpath(argv[1], bouncelab)) {
		fprintf(stderr, "usage: test_nonroot BOUNCELAB\n");
		return 2;
	}
	if (geteuid() != 0) {
		printf("not root: cannot switch to an unprivileged user\n");
		return SKIPPED;
	}
	if (!binary_reachable()) {
		printf("uid %d cannot execute %s (a directory on its path is private)\n",
		       UNPRIVILEGED_ID, bouncelab);
		return SKIPPED;
	}
	print_paranoid();
	snprintf(home, sizeof(home), "%s/bouncelab-nonroot.XXXXXX", tmp);
	snprintf(root_only, sizeof(root_only), "%s/bouncelab-rootonly.XXXXXX", tmp);
	if (!mkdtemp(home) || !mkdtemp(root_only) || chmod(root_only, 0755) ||
	    chown(home, UNPRIVILEGED_ID, UNPRIVILEGED_ID)) {
		perror("cannot make the test directories");
		return 1;
	}
	ret = cmocka_run_group_tests(tests, NULL, NULL);
	remove_tree(home);
	remove_tree(root_only);
	return ret;
}
