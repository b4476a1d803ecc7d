/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Output files are written whole or not at all: into a temporary file
 * beside the target, then renamed over it.
 */
#ifndef BOUNCELAB_OUTPUT_H
#define BOUNCELAB_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>

/*
 * A temporary file beside PATH is PATH.tmp.bouncelab-PID.XXXXXX: the mark
 * and the writer's PID let the clean-up of a killed writer's leftovers
 * (output_path.c) tell bouncelab's own temporaries, whose writer is dead,
 * from a user's file that happens to be called "r.json.tmp.backup".
 */
#define OUTPUT_TEMP_MARK ".tmp.bouncelab-"

/* The mkstemp() template for path into buf. Returns 0, or -1 if too long. */
int output_temp_template(char *buf, size_t len, const char *path);

/* Writes all len bytes to fd, retrying after EINTR. Returns 0 or -1 (errno). */
int output_write_all(int fd, const char *data, size_t len);

/* Writes len bytes to path atomically. Returns 0, or -1 with err filled. */
int output_write_file(const char *path, const char *data, size_t len,
		      char *err, size_t errlen);

/* The same, but fails when path exists instead of replacing it. */
int output_write_new_file(const char *path, const char *data, size_t len,
			  char *err, size_t errlen);

/* Creates dir and its missing parents. Returns 0, or -1 with err filled. */
int output_make_dirs(const char *dir, char *err, size_t errlen);

/*
 * Checks that a file can be created at path (its directory exists or can
 * be made, and is writable) without leaving anything behind. Returns 0, or
 * -1 with err filled.
 */
int output_check_writable(const char *path, char *err, size_t errlen);

/*
 * A report is many files: the plots, the CSV files, then report.md. Each
 * is written whole to a temporary name and renamed into place, report.md
 * last, and only once every file has been written: an error or an
 * interruption never leaves a half-written file or a report.md whose
 * plots are missing. Only report.md is fsync()ed: one fsync per plot
 * costs ~1 ms here (hundreds for a big suite) and syncfs() waits for
 * every other writer on the disk, while the plots can be regenerated
 * from the results file at any time.
 */
struct output_file {
	char *path;
	char *data;
	size_t len;
};

struct output_batch {
	size_t nr, cap;
	struct output_file *files;
};

/* Adds a file; takes data (malloc'd) even on failure. Returns 0 or -1. */
int output_batch_add(struct output_batch *batch, const char *path,
		     char *data, size_t len);

/* Writes every file, in order. Returns 0, or -1 with err filled. */
int output_batch_commit(struct output_batch *batch, char *err, size_t errlen);

void output_batch_free(struct output_batch *batch);

#endif
