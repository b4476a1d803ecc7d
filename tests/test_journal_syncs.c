// SPDX-License-Identifier: GPL-2.0-only
/*
 * The journal's durability promise, counted: every fsync() and
 * fdatasync() the journal makes is seen here (the program is linked with
 * -Wl,--wrap for both), with what the file held when it was called. A
 * row is on disk when journal_append() returns: exactly one fdatasync of
 * the journal after its line was written, none before. The header is
 * synced before the journal is linked in and again after, and the
 * directory's entry after that; a removal syncs the directory once the
 * entry is gone. A sync that fails is a failed write, and a journal whose
 * header could not be made durable is not left behind.
 *
 * Also the journal's reader at its edges: the header's total from the
 * rows that follow to UINT_MAX, and the words the recovered context
 * carries, counted by hand.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "journal.h"

#define MAX_SYNCS 64

struct sync_call {
	bool data_only;		/* fdatasync() rather than fsync() */
	bool is_dir;
	off_t size;		/* the file's size when it was called */
	bool journal_named;	/* the journal's path existed then */
	ino_t ino;
};

static struct sync_call syncs[MAX_SYNCS];
static unsigned int nr_syncs;
static const char *watched_path;	/* the journal's path, for journal_named */
static int fail_fdatasync, fail_fsync;	/* errno to fail the next call with */

int __real_fsync(int fd);
int __real_fdatasync(int fd);

static void record(int fd, bool data_only)
{
	struct sync_call *c = &syncs[nr_syncs < MAX_SYNCS ? nr_syncs++ : MAX_SYNCS - 1];
	struct stat st;

	*c = (struct sync_call){ .data_only = data_only, .size = -1 };
	if (!fstat(fd, &st)) {
		c->is_dir = S_ISDIR(st.st_mode);
		c->size = st.st_size;
		c->ino = st.st_ino;
	}
	c->journal_named = watched_path && !access(watched_path, F_OK);
}

int __wrap_fsync(int fd);
int __wrap_fsync(int fd)
{
	record(fd, false);
	if (fail_fsync) {
		errno = fail_fsync;
		fail_fsync = 0;
		return -1;
	}
	return __real_fsync(fd);
}

int __wrap_fdatasync(int fd);
int __wrap_fdatasync(int fd)
{
	record(fd, true);
	if (fail_fdatasync) {
		errno = fail_fdatasync;
		fail_fdatasync = 0;
		return -1;
	}
	return __real_fdatasync(fd);
}

static char dir[] = "/tmp/bouncelab-journal-syncs-XXXXXX";

static void start_counting(const char *journal_path)
{
	nr_syncs = 0;
	watched_path = journal_path;
	fail_fdatasync = 0;
	fail_fsync = 0;
}

static ino_t inode_of(const char *path)
{
	struct stat st;

	assert_int_equal(stat(path, &st), 0);
	return st.st_ino;
}

static off_t size_of(const char *path)
{
	struct stat st;

	assert_int_equal(stat(path, &st), 0);
	return st.st_size;
}

static bool exists(const char *path)
{
	return !access(path, F_OK);
}

static void journal_path(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s" JOURNAL_SUFFIX, dir, name);
}

/*
 * Header: fdatasync of the whole header line while still unnamed, then
 * fsync once linked, then the directory. Each of three rows: one
 * fdatasync, after its line, so the size synced is the file's size then.
 */
static void every_row_is_synced_once_after_it_is_written(void **unused)
{
	char results[PATH_MAX], path[PATH_MAX], err[512];
	json_t *context = json_pack("{s:s}", "host_name", "h");
	struct journal j;
	ino_t dir_ino = inode_of(dir), ino;
	off_t header;

	(void)unused;
	snprintf(results, sizeof(results), "%s/rows.json", dir);
	journal_path(path, sizeof(path), "rows.json");
	start_counting(path);
	if (journal_create(&j, results, context, 3, err, sizeof(err)))
		fail_msg("%s", err);
	header = size_of(path);
	ino = inode_of(path);
	assert_true(header > 20);
	assert_int_equal(nr_syncs, 3);
	assert_true(syncs[0].data_only);
	assert_int_equal(syncs[0].size, header);
	assert_int_equal(syncs[0].ino, ino);
	assert_false(syncs[1].data_only);
	assert_int_equal(syncs[1].ino, ino);
	assert_true(syncs[1].journal_named);
	assert_true(syncs[2].is_dir);
	assert_int_equal(syncs[2].ino, dir_ino);
	assert_true(syncs[2].journal_named);

	for (int r = 0; r < 3; r++) {
		json_t *row = json_pack("{s:s, s:i}", "name", "a/b", "repetition_index", r);
		off_t before = size_of(path);

		nr_syncs = 0;
		if (journal_append(&j, row, err, sizeof(err)))
			fail_msg("%s", err);
		json_decref(row);
		assert_int_equal(nr_syncs, 1);
		assert_true(syncs[0].data_only);
		assert_int_equal(syncs[0].ino, ino);
		assert_true(syncs[0].size > before);
		assert_int_equal(syncs[0].size, size_of(path));
	}
	/* kept on close without removal: nothing to sync, nothing gone */
	nr_syncs = 0;
	journal_close(&j, false);
	assert_int_equal(nr_syncs, 0);
	assert_true(exists(path));
	assert_int_equal(j.fd, -1);
	journal_close(&j, true);	/* closed already: nothing at all */
	assert_int_equal(nr_syncs, 0);
	assert_true(exists(path));
	unlink(path);
	json_decref(context);
}

/* Removed: the directory is synced once, after its entry is gone. */
static void a_removal_syncs_the_directory_after_the_unlink(void **unused)
{
	char results[PATH_MAX], path[PATH_MAX], err[512];
	json_t *context = json_object();
	struct journal j;

	(void)unused;
	snprintf(results, sizeof(results), "%s/gone.json", dir);
	journal_path(path, sizeof(path), "gone.json");
	start_counting(path);
	if (journal_create(&j, results, context, 1, err, sizeof(err)))
		fail_msg("%s", err);
	nr_syncs = 0;
	journal_close(&j, true);
	assert_false(exists(path));
	assert_int_equal(nr_syncs, 1);
	assert_true(syncs[0].is_dir);
	assert_int_equal(syncs[0].ino, inode_of(dir));
	assert_false(syncs[0].journal_named);
	json_decref(context);
}

/* A journal beside a results file named without a directory: "." synced. */
static void a_journal_in_the_working_directory_syncs_it(void **unused)
{
	char cwd[PATH_MAX], err[512];
	json_t *context = json_object();
	struct journal j;

	(void)unused;
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	assert_int_equal(chdir(dir), 0);
	start_counting("here.json" JOURNAL_SUFFIX);
	if (journal_create(&j, "here.json", context, 2, err, sizeof(err)))
		fail_msg("%s", err);
	assert_int_equal(nr_syncs, 3);
	assert_true(syncs[2].is_dir);
	assert_int_equal(syncs[2].ino, inode_of("."));
	assert_string_equal(j.path, "here.json" JOURNAL_SUFFIX);
	nr_syncs = 0;
	journal_close(&j, true);
	assert_int_equal(nr_syncs, 1);
	assert_int_equal(syncs[0].ino, inode_of("."));
	assert_false(exists("here.json" JOURNAL_SUFFIX));
	assert_int_equal(chdir(cwd), 0);
	json_decref(context);
}

/*
 * A sync that fails (EIO: the disk lost the write) is a failed append,
 * said with the journal's path; and a header that could not be made
 * durable, at either of its syncs, leaves no journal.
 */
static void a_failed_sync_is_a_failed_write(void **unused)
{
	char results[PATH_MAX], path[PATH_MAX], err[512];
	json_t *context = json_object(), *row = json_pack("{s:s}", "name", "a");
	struct journal j;

	(void)unused;
	snprintf(results, sizeof(results), "%s/eio.json", dir);
	journal_path(path, sizeof(path), "eio.json");
	start_counting(path);
	if (journal_create(&j, results, context, 2, err, sizeof(err)))
		fail_msg("%s", err);
	fail_fdatasync = EIO;
	*err = '\0';
	assert_int_equal(journal_append(&j, row, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "cannot write the journal"));
	assert_non_null(strstr(err, path));
	assert_non_null(strstr(err, strerror(EIO)));
	/* the next one, synced, goes through */
	assert_int_equal(journal_append(&j, row, err, sizeof(err)), 0);
	journal_close(&j, true);

	start_counting(path);
	fail_fdatasync = EIO;
	*err = '\0';
	assert_int_equal(journal_create(&j, results, context, 2, err, sizeof(err)), -1);
	assert_non_null(strstr(err, strerror(EIO)));
	assert_false(exists(path));

	start_counting(path);
	fail_fsync = EIO;
	*err = '\0';
	assert_int_equal(journal_create(&j, results, context, 2, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "cannot write the journal"));
	assert_non_null(strstr(err, strerror(EIO)));
	assert_false(exists(path));
	assert_int_equal(j.fd, -1);
	json_decref(row);
	json_decref(context);
}

/*
 * The journal's name is the results path and ".journal" (8 bytes): a
 * results path of PATH_MAX - 9 bytes fits with its NUL (linking it in
 * fails for another reason: a name longer than NAME_MAX), one byte more
 * does not.
 */
static void a_results_path_too_long_for_its_journal_is_said_so(void **unused)
{
	char results[PATH_MAX], err[PATH_MAX + 512];
	json_t *context = json_object();
	struct journal j;
	size_t fits = PATH_MAX - 1 - strlen(JOURNAL_SUFFIX);

	(void)unused;
	memset(results, 'a', sizeof(results));
	memcpy(results, dir, strlen(dir));
	results[strlen(dir)] = '/';
	results[fits] = '\0';
	*err = '\0';
	assert_int_equal(journal_create(&j, results, context, 1, err, sizeof(err)), -1);
	assert_null(strstr(err, "path too long for its journal"));
	assert_non_null(strstr(err, "cannot create the journal"));
	/* nothing open is left to close */
	assert_int_equal(j.fd, -1);
	results[fits] = 'a';
	results[fits + 1] = '\0';
	assert_int_equal(journal_create(&j, results, context, 1, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "path too long for its journal"));
	json_decref(context);
}

static json_t *parse(const char *text, bool mark, size_t *nr_rows, size_t *total,
		     size_t *nr_damaged, char *err, size_t errlen)
{
	*err = '\0';
	return journal_parse(text, strlen(text), "t.journal", mark, nr_rows, total,
			     nr_damaged, err, errlen);
}

static const char *incomplete(json_t *doc)
{
	return json_string_value(json_object_get(json_object_get(doc, "context"),
						 "incomplete"));
}

#define ROW "{\"name\": \"a\"}\n"

/*
 * total from the rows that follow (here 2) to UINT_MAX: 2 and UINT_MAX
 * are read, 1 and UINT_MAX + 1 refused, with the range in the message
 * ("from 2"; "from 1" when no row follows, where 0 is refused).
 */
static void the_total_runs_from_the_rows_to_uint_max(void **unused)
{
	char text[512], err[512];
	size_t nr_rows, total, nr_damaged;
	json_t *doc;

	(void)unused;
	snprintf(text, sizeof(text), "{\"bouncelab_journal\": 1, \"total\": 2, \"context\": {}}\n"
		 ROW ROW);
	doc = parse(text, true, &nr_rows, &total, &nr_damaged, err, sizeof(err));
	assert_non_null(doc);
	assert_int_equal(nr_rows, 2);
	assert_int_equal(total, 2);
	assert_int_equal(nr_damaged, 0);
	json_decref(doc);

	snprintf(text, sizeof(text), "{\"bouncelab_journal\": 1, \"total\": %u, \"context\": {}}\n"
		 ROW ROW, UINT_MAX);
	doc = parse(text, true, &nr_rows, &total, &nr_damaged, err, sizeof(err));
	assert_non_null(doc);
	assert_int_equal(total, UINT_MAX);
	json_decref(doc);

	snprintf(text, sizeof(text), "{\"bouncelab_journal\": 1, \"total\": %lu, \"context\": {}}\n"
		 ROW ROW, (unsigned long)UINT_MAX + 1);
	assert_null(parse(text, true, &nr_rows, &total, &nr_damaged, err, sizeof(err)));
	assert_non_null(strstr(err, "from 2 (the lines that follow)"));

	snprintf(text, sizeof(text), "{\"bouncelab_journal\": 1, \"total\": 1, \"context\": {}}\n"
		 ROW ROW);
	assert_null(parse(text, true, &nr_rows, &total, &nr_damaged, err, sizeof(err)));
	assert_non_null(strstr(err, "total 1: expected"));
	assert_non_null(strstr(err, "from 2 (the lines that follow)"));

	assert_null(parse("{\"bouncelab_journal\": 1, \"total\": 0, \"context\": {}}\n",
			  true, &nr_rows, &total, &nr_damaged, err, sizeof(err)));
	assert_non_null(strstr(err, "from 1 (the lines that follow)"));
	doc = parse("{\"bouncelab_journal\": 1, \"total\": 1, \"context\": {}}\n",
		    true, &nr_rows, &total, &nr_damaged, err, sizeof(err));
	assert_non_null(doc);
	assert_int_equal(nr_rows, 0);
	assert_int_equal(total, 1);
	json_decref(doc);
}

/*
 * The recovered context says how many of how many finished, and the
 * damaged lines only when there are some; a context that says why it is
 * incomplete already keeps its words; unmarked, it gains none.
 */
static void the_recovered_context_says_what_finished(void **unused)
{
	size_t nr_rows, total, nr_damaged;
	char err[512];
	json_t *doc;

	(void)unused;
	doc = parse("{\"bouncelab_journal\": 1, \"total\": 5, \"context\": {}}\n" ROW ROW,
		    true, &nr_rows, &total, &nr_damaged, err, sizeof(err));
	assert_non_null(doc);
	assert_string_equal(incomplete(doc),
			    "recovered from the journal: 2 of 5 repetitions finished before the run stopped");
	json_decref(doc);

	doc = parse("{\"bouncelab_journal\": 1, \"total\": 5, \"context\": {}}\n"
		    ROW "not json\n" ROW "{\"name\": 7}\n" ROW "{\"name\": \"cut",
		    true, &nr_rows, &total, &nr_damaged, err, sizeof(err));
	assert_non_null(doc);
	assert_int_equal(nr_rows, 3);
	assert_int_equal(nr_damaged, 2);
	assert_string_equal(incomplete(doc),
			    "recovered from the journal: 3 of 5 repetitions finished before the run stopped; 2 damaged journal lines skipped");
	json_decref(doc);

	doc = parse("{\"bouncelab_journal\": 1, \"total\": 5, \"context\": {\"incomplete\": \"stopped by SIGINT\"}}\n" ROW,
		    true, &nr_rows, &total, &nr_damaged, err, sizeof(err));
	assert_non_null(doc);
	assert_string_equal(incomplete(doc), "stopped by SIGINT");
	json_decref(doc);

	doc = parse("{\"bouncelab_journal\": 1, \"total\": 5, \"context\": {}}\n" ROW,
		    false, &nr_rows, &total, &nr_damaged, err, sizeof(err));
	assert_non_null(doc);
	assert_null(incomplete(doc));
	assert_int_equal(json_array_size(json_object_get(doc, "benchmarks")), 1);
	json_decref(doc);

	/* a first line that is no object is the header broken, on line 1 */
	assert_null(parse("[1]\n" ROW, true, &nr_rows, &total, &nr_damaged, err, sizeof(err)));
	assert_non_null(strstr(err, "t.journal:1: a broken journal line"));
	assert_false(journal_is("{\"bouncelab_journal\"", 20));
	assert_true(journal_is("{\"bouncelab_journal\":", 21));
}

static int make_dir(void **unused)
{
	(void)unused;
	return mkdtemp(dir) ? 0 : -1;
}

static int remove_dir(void **unused)
{
	(void)unused;
	return rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_row_is_synced_once_after_it_is_written),
		cmocka_unit_test(a_removal_syncs_the_directory_after_the_unlink),
		cmocka_unit_test(a_journal_in_the_working_directory_syncs_it),
		cmocka_unit_test(a_failed_sync_is_a_failed_write),
		cmocka_unit_test(a_results_path_too_long_for_its_journal_is_said_so),
		cmocka_unit_test(the_total_runs_from_the_rows_to_uint_max),
		cmocka_unit_test(the_recovered_context_says_what_finished),
	};

	return cmocka_run_group_tests(tests, make_dir, remove_dir);
}
