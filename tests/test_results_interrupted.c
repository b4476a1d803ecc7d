// SPDX-License-Identifier: GPL-2.0-only
/*
 * The reader when read() is interrupted by a signal and returns short:
 * every other call fails with EINTR, the others return at most 7 bytes
 * and leave errno at EINTR, as a handler's own failed call can (a call
 * that succeeds need not clear errno). The file must read whole, every
 * row as written: an EINTR is retried, and only a failed call's errno
 * counts. read() is wrapped; a reader that never finishes is stopped at
 * a bound of calls far beyond what the file needs. And a read that fails
 * (EIO after the first bytes): the reader says it cannot read the file,
 * with the system's reason, and does not parse the part it got.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#include "results_read.h"
#include "test_util.h"

/* A file of a few kilobytes read 7 bytes a call needs a few thousand. */
#define MAX_CALLS 100000
#define CHUNK 7

static bool interrupting, failing;
static unsigned long nr_calls, nr_interrupted;

ssize_t __real_read(int fd, void *buf, size_t count);
ssize_t __wrap_read(int fd, void *buf, size_t count);

ssize_t __wrap_read(int fd, void *buf, size_t count)
{
	ssize_t n;

	if (failing) {
		/* the first bytes, then an I/O error */
		if (nr_calls++ == 0)
			return __real_read(fd, buf, count < 100 ? count : 100);
		errno = EIO;
		return -1;
	}
	if (!interrupting)
		return __real_read(fd, buf, count);
	if (++nr_calls > MAX_CALLS)
		fail_msg("read() called %lu times for a file of a few kilobytes", nr_calls);
	if (nr_calls % 2) {
		nr_interrupted++;
		errno = EINTR;
		return -1;
	}
	n = __real_read(fd, buf, count < CHUNK ? count : CHUNK);
	errno = EINTR;
	return n;
}

static json_t *row(int i, double ns)
{
	char name[96];

	snprintf(name, sizeof(name), "counter/shared_atomic/real_time/threads:%d", i + 1);
	return json_pack("{s:s, s:s, s:s, s:i, s:i, s:i, s:i, s:f, s:f, s:s, s:f, s:f,"
			 " s:f, s:{s:s, s:s, s:{s:i, s:i}, s:{s:s, s:[i], s:s, s:n}}}",
			 "name", name, "run_name", name, "run_type", "iteration",
			 "repetitions", 1, "repetition_index", 0, "threads", i + 1,
			 "iterations", 1000, "real_time", ns, "cpu_time", ns, "time_unit", "ns",
			 "ns_per_op", ns, "ops", 1000.0, "wall_ns", 1000 * ns,
			 "bouncelab", "family", "counter", "variant", "shared_atomic",
			 "params", "batch", 32, "read_every", 0,
			 "placement", "policy", "compact", "cpus", 0, "widest_class", "same_pu",
			 "numa_distance");
}

/* A results file of three rows, counter at 1, 2 and 3 threads, at path (a template). */
static void write_rows(char *path, const double ns[3])
{
	json_t *rows = json_array(), *doc;

	for (int i = 0; i < 3; i++)
		json_array_append_new(rows, row(i, ns[i]));
	doc = json_pack("{s:{s:s, s:s, s:i}, s:o}",
			"context", "date", "2026-12-01T10:00:00+00:00", "host_name", "h",
			"num_cpus", 4, "benchmarks", rows);
	assert_int_equal(make_temp_file(path), 0);
	assert_int_equal(json_dump_file(doc, path, JSON_INDENT(2)), 0);
	json_decref(doc);
}

static void interrupted_short_reads_read_the_whole_file(void **unused)
{
	static const double ns[] = { 7.25, 19.5, 40.125 };
	char path[] = "/tmp/bouncelab-results-eintr-XXXXXX", err[1024] = "";
	struct results set = { 0 };
	int rc;

	(void)unused;
	write_rows(path, ns);

	interrupting = true;
	rc = results_read(&set, path, err, sizeof(err));
	interrupting = false;
	unlink(path);
	if (rc)
		fail_msg("results_read: %d: %s", rc, err);
	/* the wrap was reached, and interrupted the reads it saw */
	assert_true(nr_interrupted > 100);
	assert_int_equal(set.nr_rows, 3);
	for (size_t i = 0; i < 3; i++) {
		assert_int_equal(set.rows[i].threads, i + 1);
		assert_float_equal(set.rows[i].ns_per_op, ns[i], 0);
	}
	results_free(&set);
}

static void a_failed_read_is_not_parsed(void **unused)
{
	static const double ns[] = { 10, 20, 30 };
	char path[] = "/tmp/bouncelab-results-eio-XXXXXX", err[1024] = "";
	struct results set = { 0 };
	int rc;

	(void)unused;
	write_rows(path, ns);

	nr_calls = 0;
	failing = true;
	rc = results_read(&set, path, err, sizeof(err));
	failing = false;
	unlink(path);
	assert_int_equal(rc, -1);
	assert_true(nr_calls >= 2);
	if (!strstr(err, "cannot read") || !strstr(err, strerror(EIO)) || strstr(err, "JSON"))
		fail_msg("a read failing with EIO: \"%s\"", err);
	assert_int_equal(set.nr_rows, 0);
	results_free(&set);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(interrupted_short_reads_read_the_whole_file),
		cmocka_unit_test(a_failed_read_is_not_parsed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
