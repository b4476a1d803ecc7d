/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The results journal: while a run goes on, every finished repetition is
 * appended to PATH.journal beside the results file at once, as one JSON
 * line, and flushed to disk (fdatasync) before the next repetition
 * starts. Whatever ends the process (a signal, SIGKILL, the OOM killer, a
 * power cut), the journal keeps every repetition that finished.
 *
 * Format, one JSON object a line:
 *   {"bouncelab_journal": 1, "total": M, "context": {...}}    the header
 *   {"name": ..., ...}                                         one row each
 * A last line without its newline was cut short while being written: it
 * is not a finished repetition, and is dropped. A damaged line in the
 * middle (a bad sector, an editor) costs that repetition alone: the good
 * lines after it are read, and the damaged ones counted. A header of
 * another format than JOURNAL_VERSION is refused: its rows are not ours
 * to read.
 *
 * The final results file is built from the journal (journal_parse()), and
 * the journal is removed once that file is in place. 'bouncelab run
 * --resume' and 'bouncelab report PATH.journal' read a journal left behind.
 */
#ifndef BOUNCELAB_JOURNAL_H
#define BOUNCELAB_JOURNAL_H

#include <jansson.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#define JOURNAL_SUFFIX ".journal"
#define JOURNAL_MAGIC "{\"bouncelab_journal\":"
#define JOURNAL_VERSION 1

struct journal {
	int fd;
	bool unnamed;		/* created by O_TMPFILE, linked once it has its header */
	char path[PATH_MAX];
};

/*
 * Creates PATH.journal for results file results_path (it must not exist)
 * and writes the header: the run's context and its total repetitions.
 * Returns 0, or -1 with err.
 */
int journal_create(struct journal *j, const char *results_path,
		   json_t *context, unsigned int total, char *err, size_t errlen);

/* Appends one row and flushes it to disk. Returns 0, or -1 with err. */
int journal_append(struct journal *j, json_t *row, char *err, size_t errlen);

/* Closes the journal; with remove, deletes it too (its results are safe). */
void journal_close(struct journal *j, bool remove);

/* Whether text (a file's contents) is a journal. */
bool journal_is(const char *text, size_t len);

/*
 * A journal's text as a results document {context, benchmarks}. The
 * context gets "incomplete" (why) when fewer than the planned
 * repetitions are in it and mark_incomplete is set; *nr_rows and *total
 * say how many, *nr_damaged how many lines were skipped as damaged.
 * Returns NULL with err on a broken header or one of another version.
 */
json_t *journal_parse(const char *text, size_t len, const char *path,
		      bool mark_incomplete, size_t *nr_rows, size_t *total,
		      size_t *nr_damaged,
		      char *err, size_t errlen);

/* A journal of 1,000 repetitions of every case is far below this. */
#define JOURNAL_MAX_BYTES (1UL << 30)

/*
 * The journal at path, read by the input rule (a regular file, at most
 * JOURNAL_MAX_BYTES), as journal_parse() gives it; NULL with err when it
 * cannot be read or is not a journal.
 */
json_t *journal_load(const char *path, bool mark_incomplete, size_t *nr_rows, size_t *total,
		     size_t *nr_damaged, char *err, size_t errlen);

#endif
