// SPDX-License-Identifier: GPL-2.0-only
/*
 * Reading results files: Google Benchmark's JSON, ours and other tools',
 * into one set of rows (results_read.h). This file reads a whole file:
 * its text (or a run's journal) into a document, the context through
 * run_context_read.c, each row of "benchmarks" and "failed_repetitions"
 * to its reader (ours: results_row.c; other tools' and aggregates:
 * results_foreign.c), the failures, the same run given twice; and a
 * journal's rows as --resume keeps them (results_keep_readable_rows()).
 * Every field is checked where it is read (one line naming the value and
 * what was expected), with the checks both readers share (reader.h); the
 * set's memory is results_strings.c's.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "input_file.h"
#include "journal.h"
#include "json_region.h"
#include "results_read_internal.h"

static int add_failure(struct reader *r, json_t *row)
{
	struct results *set = r->set;
	const char *msg = NULL;

	if (reader_string(r, row, "error_message", false, &msg) ||
	    reader_string(r, row, "skip_message", false, msg ? NULL : &msg))
		return -1;
	set->files[r->file].nr_failed++;
	if (grow((void **)&set->failures, &set->cap_failures,
		 set->nr_failures + 1, sizeof(*set->failures))) {
		reader_out_of_memory(r);
		return -1;
	}
	set->failures[set->nr_failures++] = (struct result_failure){
		r->file, r->row_name, msg ? msg : "no message",
	};
	return 0;
}

static int read_row(struct reader *r, json_t *row)
{
	struct result_row out = { .file = r->file, .source_file = r->file, .threads = 1,
				  .repetition_index = -1 };
	const char *run_type = NULL, *unit = NULL;
	struct run_context *run = &r->set->files[r->file].run;
	long repetitions = 0;

	r->row_name = NULL;
	r->prefix = NULL;
	if (!json_is_object(row))
		return reader_bad(r, "", row, "expected an object");
	if (reader_string(r, row, "name", true, &r->row_name))
		return -1;
	out.name = r->row_name;
	if (reader_string(r, row, "run_name", false, &out.name) ||
	    reader_string(r, row, "run_type", false, &run_type) ||
	    reader_string(r, row, "label", false, NULL) ||
	    reader_string(r, row, "aggregate_name", false, NULL) ||
	    reader_string(r, row, "time_unit", false, &unit) ||
	    reader_bool(r, row, "error_occurred") || reader_bool(r, row, "skipped") ||
	    reader_integer(r, row, "repetitions", 1, MAX_REPETITIONS, false, &repetitions) ||
	    reader_integer(r, row, "repetition_index", 0, MAX_REPETITIONS, false,
			  &out.repetition_index) ||
	    reader_number(r, row, "iterations", 0, 1e19, false, NULL) ||
	    reader_number(r, row, "real_time", 0, 1e18, false, NULL) ||
	    reader_number(r, row, "cpu_time", 0, 1e18, false, NULL))
		return -1;
	/* the benchmarks' own, not failed_repetitions[]: what the run was asked for */
	if (!strcmp(r->array, "benchmarks") && repetitions > run->repetitions)
		run->repetitions = repetitions;
	if (run_type && !strcmp(run_type, "aggregate"))
		return keep_aggregate(r, row);
	if (json_is_true(json_object_get(row, "error_occurred")) ||
	    json_is_true(json_object_get(row, "skipped")))
		return add_failure(r, row);
	if (json_object_get(row, "bouncelab"))
		return read_ours(r, row, json_object_get(row, "bouncelab"), &out);
	return read_foreign(r, row, &out);
}

/*
 * failed_repetitions[]: the repetitions a run could not time, kept out of
 * "benchmarks" (results.h). Absent in files from older bouncelabs, which
 * kept them there: both read the same.
 */
static int read_failed_repetitions(struct reader *r, json_t *failed)
{
	json_t *row;
	size_t i;

	if (!failed)
		return 0;
	r->index = (size_t)-1;
	r->row_name = NULL;
	if (!json_is_array(failed))
		return reader_bad(r, "failed_repetitions", failed, "expected an array of failed rows");
	r->array = "failed_repetitions";
	json_array_foreach(failed, i, row) {
		r->index = i;
		r->row_name = NULL;
		if (json_is_object(row) && !json_is_true(json_object_get(row, "error_occurred")))
			return reader_bad(r, "error_occurred", json_object_get(row, "error_occurred"),
				   "expected true: a failed repetition");
		if (read_row(r, row))
			return -1;
	}
	r->array = "benchmarks";
	return 0;
}

/* What a parse error usually means, in words. */
static const char *parse_hint(const char *text)
{
	if (strstr(text, "'NaN'") || strstr(text, "Infinity'"))
		return " (NaN and Infinity are not JSON numbers)";
	if (strstr(text, "end of file") || strstr(text, "end of input") ||
	    strstr(text, "near ''"))
		return " (the file is empty, cut short or not JSON)";
	return "";
}

/*
 * The file's first len bytes (the size fstat() saw) from fd into buf, or
 * -1 with errno set. A journal still being written is read as it was
 * then: a line cut short at the end is dropped as unfinished (journal.h).
 */
static int read_whole(int fd, char *buf, size_t len, size_t *got)
{
	size_t used = 0;
	ssize_t n = 0;

	while (used < len) {
		n = read(fd, buf + used, len - used);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		used += (size_t)n;
	}
	*got = used;
	return n < 0 ? -1 : 0;
}

/*
 * The file's text and its tree go into one region (json_region.h), which
 * lives as long as the tree: the 60k-repetition file's report took
 * 2.2-2.4 s with the tree in malloc()'s memory, 0.9-1.6 s in a region.
 */
static json_t *load(struct reader *r, struct json_region **region)
{
	json_error_t jerr;
	json_t *doc;
	char *text, *start;
	size_t size, len;
	bool read_failed = false;
	int fd;

	*region = NULL;
	fd = input_file_open(r->path, RESULTS_MAX_BYTES, &size, r->err, r->errlen);
	if (fd < 0)
		return NULL;
	/* Read whole, then parse: json_load_file() reads one getc() at a time. */
	*region = json_region_open(size);
	text = json_region_alloc(*region, size + 1);
	if (!text) {
		reader_out_of_memory(r);
	} else if (read_whole(fd, text, size, &len)) {
		snprintf(r->err, r->errlen, "%s: cannot read: %s", r->path, strerror(errno));
		read_failed = true;
	}
	close(fd);
	if (!text || read_failed) {
		json_region_free(text);
		json_region_close(*region);
		*region = NULL;
		return NULL;
	}
	/* RFC 8259 lets a parser ignore a UTF-8 byte order mark; we do. */
	start = text;
	if (len >= 3 && !memcmp(text, "\xef\xbb\xbf", 3)) {
		start += 3;
		len -= 3;
	}
	json_region_fill(*region);
	/* A run's journal (journal.h): the repetitions it kept. */
	if (journal_is(start, len)) {
		size_t nr_rows, total, nr_damaged;

		doc = journal_parse(start, len, r->path, true, &nr_rows, &total,
				    &nr_damaged, r->err, r->errlen);
	} else {
		doc = json_loadb(start, len, JSON_REJECT_DUPLICATES, &jerr);
		if (!doc)
			snprintf(r->err, r->errlen, "%s:%d:%d: not valid JSON: %s%s", r->path,
				 jerr.line, jerr.column, jerr.text, parse_hint(jerr.text));
	}
	if (json_region_stop() && !doc)
		reader_out_of_memory(r);
	json_region_free(text);
	if (!doc) {
		json_region_close(*region);
		*region = NULL;
	}
	return doc;
}

/*
 * The same run given twice (the file twice, a copy, or a file and its own
 * journal) would be pooled as independent repetitions: n doubles and a
 * difference within the noise turns significant. Every bouncelab run has
 * its own context.run_id; a file without one (another tool's, or older)
 * cannot be told apart and is taken as it is.
 */
static int check_same_run(struct reader *r)
{
	const char *id = r->set->files[r->file].run.run_id;

	if (!id)
		return 0;
	for (unsigned int i = 0; i < r->file; i++) {
		const struct result_file *f = &r->set->files[i];
		const char *other = f->run.run_id;

		if (other && !strcmp(id, other)) {
			snprintf(r->err, r->errlen, "%s: the same run as %s (context.run_id %.64s): expected each run once (a copy, or a file and its own journal, is the same run)",
				 r->path, f->path, id);
			return -1;
		}
	}
	return 0;
}

int results_read(struct results *set, const char *path, char *err,
		 size_t errlen)
{
	struct reader r = {
		.set = set, .path = path, .file = set->nr_files, .index = (size_t)-1,
		.array = "benchmarks",
		.err = err, .errlen = errlen,
	};
	size_t saved_rows = set->nr_rows, saved_counters = set->nr_counters;
	size_t saved_failures = set->nr_failures, i;
	json_t *doc, *context, *rows, *row;
	struct json_region *region;

	if (grow((void **)&set->files, &set->cap_files, set->nr_files + 1,
		 sizeof(*set->files))) {
		snprintf(err, errlen, "out of memory reading %s", path);
		return -2;
	}
	doc = load(&r, &region);
	if (!doc)
		return r.out_of_memory ? -2 : -1;
	set->files[r.file] = (struct result_file){
		.path = path, .doc = doc, .region = region,
	};
	context = json_object_get(doc, "context");
	rows = json_object_get(doc, "benchmarks");
	if (!json_is_object(doc)) {
		reader_bad(&r, "", doc, "expected Google Benchmark JSON: an object with \"context\" and \"benchmarks\"");
		goto fail;
	}
	if (!json_is_object(context)) {
		reader_bad(&r, "context", context, "expected an object");
		goto fail;
	}
	if (!json_is_array(rows)) {
		reader_bad(&r, "benchmarks", rows, "expected an array of benchmark rows");
		goto fail;
	}
	if (reader_context(&r, context) || check_same_run(&r))
		goto fail;
	set->files[r.file].rounds = reader_ran_in_rounds(context);
	json_array_foreach(rows, i, row) {
		r.index = i;
		if (read_row(&r, row))
			goto fail;
	}
	if (read_failed_repetitions(&r, json_object_get(doc, "failed_repetitions")))
		goto fail;
	if (add_missing_aggregates(&r, saved_rows))
		goto fail;
	set->files[r.file].first_row = saved_rows;
	set->files[r.file].end_row = set->nr_rows;
	free(r.candidates);
	set->nr_files++;
	return 0;
fail:
	free(r.candidates);
	json_decref(doc);
	json_region_close(region);
	/*
	 * The unique set may point into the document just freed. Emptied, it
	 * only loses the sharing of earlier rows' names with later files'.
	 */
	if (set->unique)
		memset(set->unique, 0, set->cap_unique * sizeof(*set->unique));
	set->nr_unique = 0;
	set->nr_rows = saved_rows;
	set->nr_counters = saved_counters;
	set->nr_failures = saved_failures;
	return r.out_of_memory ? -2 : -1;
}

int results_keep_readable_rows(json_t *context, json_t *rows, const char *path,
				size_t *nr_refused, char *err, size_t errlen)
{
	struct results scratch = { 0 };
	struct reader r = {
		.set = &scratch, .path = path, .file = 0, .index = (size_t)-1,
		.array = "benchmarks", .err = err, .errlen = errlen,
	};
	char row_err[512];
	json_t *kept = json_array();
	json_t *row;
	size_t i;
	int ret = -1;

	*nr_refused = 0;
	if (!kept || grow((void **)&scratch.files, &scratch.cap_files, 1,
			  sizeof(*scratch.files))) {
		snprintf(err, errlen, "out of memory reading %s", path);
		goto out;
	}
	scratch.files[0] = (struct result_file){ .path = path };
	scratch.nr_files = 1;
	if (reader_context(&r, context)) {
		if (r.out_of_memory)
			snprintf(err, errlen, "out of memory reading %s", path);
		goto out;
	}
	scratch.files[0].rounds = reader_ran_in_rounds(context);
	/* A row's refusal is its own: the reader goes on to the next one. */
	r.err = row_err;
	r.errlen = sizeof(row_err);
	json_array_foreach(rows, i, row) {
		r.index = i;
		if (read_row(&r, row)) {
			if (r.out_of_memory) {
				snprintf(err, errlen, "%s", row_err);
				goto out;
			}
			(*nr_refused)++;
			continue;
		}
		json_array_append(kept, row);
	}
	json_array_clear(rows);
	json_array_extend(rows, kept);
	ret = 0;
out:
	json_decref(kept);
	free(r.candidates);
	/* The context and rows are the caller's, not the scratch set's. */
	scratch.files[0].doc = NULL;
	results_free(&scratch);
	return ret;
}
