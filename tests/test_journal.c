// SPDX-License-Identifier: GPL-2.0-only
/*
 * The journal a run keeps beside its results file: written, then cut off
 * mid-line as a crash leaves it, it reads back as exactly the rows that
 * were finished, with the header's total, and the recovered document says
 * how many of how many finished. A damaged line in the middle costs only
 * its own row; a header of another format is refused. A journal removed
 * on close is gone.
 */
#include <fcntl.h>
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

static char dir[] = "/tmp/bouncelab-journal-XXXXXX";

static char *read_all(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *text = malloc(1 << 16);

	assert_non_null(f);
	assert_non_null(text);
	*len = fread(text, 1, 1 << 16, f);
	fclose(f);
	return text;
}

static void append_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "ab");

	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	fclose(f);
}

static void a_line_cut_short_reads_as_the_rows_before_it(void **unused)
{
	char results[PATH_MAX], err[512];
	json_t *context = json_pack("{s:s}", "host_name", "testhost");
	struct journal j;
	size_t len, nr_rows, total, nr_damaged;
	json_t *doc, *rows;
	const char *why;
	char *text;

	(void)unused;
	snprintf(results, sizeof(results), "%s/results.json", dir);
	if (journal_create(&j, results, context, 5, err, sizeof(err)))
		fail_msg("%s", err);
	for (int i = 0; i < 2; i++) {
		json_t *row = json_pack("{s:s,s:i}", "name", "has_pinned/nop", "repetition_index", i);

		if (journal_append(&j, row, err, sizeof(err)))
			fail_msg("%s", err);
		json_decref(row);
	}
	journal_close(&j, false);
	/* The third repetition's row, cut off by a crash mid-write. */
	append_text(j.path, "{\"name\": \"has_pinned/nop\", \"repetition_in");

	text = read_all(j.path, &len);
	assert_true(journal_is(text, len));
	doc = journal_parse(text, len, j.path, true, &nr_rows, &total, &nr_damaged, err, sizeof(err));
	if (!doc)
		fail_msg("a journal with a torn last line does not read: %s", err);
	/* unfinished, not damaged: nothing is said to be skipped */
	assert_int_equal(nr_damaged, 0);
	assert_int_equal(nr_rows, 2);
	assert_int_equal(total, 5);
	rows = json_object_get(doc, "benchmarks");
	assert_int_equal(json_array_size(rows), 2);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(rows, 1),
							    "repetition_index")), 1);
	assert_string_equal(json_string_value(json_object_get(json_object_get(doc, "context"),
							      "host_name")), "testhost");
	why = json_string_value(json_object_get(json_object_get(doc, "context"), "incomplete"));
	assert_non_null(why);
	if (!strstr(why, "2 of 5 repetitions"))
		fail_msg("the recovered results say '%s', expected 2 of 5 repetitions", why);
	json_decref(doc);
	free(text);
	json_decref(context);
	unlink(j.path);
}

static json_t *parse(const char *text, size_t *nr_rows, size_t *nr_damaged,
		     char *err, size_t errlen)
{
	size_t total;

	return journal_parse(text, strlen(text), "t.journal", true, nr_rows, &total,
			     nr_damaged, err, errlen);
}

static void good_lines_past_a_damaged_one_are_read(void **unused)
{
	const char *text =
		"{\"bouncelab_journal\": 1, \"total\": 6, \"context\": {}}\n"
		"{\"name\": \"a\", \"repetition_index\": 0}\n"
		"{\"name\": \"a\", \"repet\x01\x02 garbage\n"
		"[1, 2]\n"
		"{\"no_name\": 1}\n"
		"{\"name\": \"a\", \"repetition_index\": 2}\n"
		"{\"name\": \"a\", \"repetition_index\": 3}\n";
	size_t nr_rows, nr_damaged;
	char err[512];
	json_t *doc;
	const char *why;

	(void)unused;
	doc = parse(text, &nr_rows, &nr_damaged, err, sizeof(err));
	if (!doc)
		fail_msg("a journal with a damaged line does not read: %s", err);
	assert_int_equal(nr_rows, 3);
	assert_int_equal(nr_damaged, 3);
	assert_int_equal(json_integer_value(json_object_get(
		json_array_get(json_object_get(doc, "benchmarks"), 2), "repetition_index")), 3);
	why = json_string_value(json_object_get(json_object_get(doc, "context"), "incomplete"));
	assert_non_null(why);
	assert_non_null(strstr(why, "3 damaged journal lines skipped"));
	json_decref(doc);
}

static void a_journal_of_another_format_is_refused(void **unused)
{
	size_t nr_rows, nr_damaged;
	char err[512];

	(void)unused;
	assert_null(parse("{\"bouncelab_journal\": 2, \"total\": 1, \"context\": {}}\n"
			  "{\"name\": \"a\"}\n", &nr_rows, &nr_damaged, err, sizeof(err)));
	assert_non_null(strstr(err, "a journal of another format"));
	assert_null(parse("{\"bouncelab_journal\": \"1\", \"total\": 1, \"context\": {}}\n",
			  &nr_rows, &nr_damaged, err, sizeof(err)));
	/* A damaged header is not skipped: nothing after it can be trusted. */
	assert_null(parse("{\"bouncelab_journal\": 1, \"tot\n{\"name\": \"a\"}\n",
			  &nr_rows, &nr_damaged, err, sizeof(err)));
}

static void a_journal_closed_for_removal_is_gone(void **unused)
{
	char results[PATH_MAX], err[512];
	json_t *context = json_object();
	struct journal j;
	struct stat st;

	(void)unused;
	snprintf(results, sizeof(results), "%s/done.json", dir);
	if (journal_create(&j, results, context, 1, err, sizeof(err)))
		fail_msg("%s", err);
	assert_int_equal(stat(j.path, &st), 0);
	journal_close(&j, true);
	assert_int_equal(stat(j.path, &st), -1);
	json_decref(context);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_line_cut_short_reads_as_the_rows_before_it),
		cmocka_unit_test(a_journal_closed_for_removal_is_gone),
		cmocka_unit_test(good_lines_past_a_damaged_one_are_read),
		cmocka_unit_test(a_journal_of_another_format_is_refused),
	};
	int ret;

	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	ret = cmocka_run_group_tests(tests, NULL, NULL);
	rmdir(dir);
	return ret;
}
