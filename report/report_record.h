/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The record of the files a report wrote into its directories (plots/,
 * will-it-scale/), kept beside report.md as DIR/.report.files, one
 * relative path a line. report --force replaces and removes only the
 * files it lists: a results file a user keeps in DIR/plots/, or anything
 * else bouncelab did not write there, stays.
 */
#ifndef BOUNCELAB_REPORT_RECORD_H
#define BOUNCELAB_REPORT_RECORD_H

#include <stdbool.h>
#include <stddef.h>

#define REPORT_RECORD_NAME ".report.files"

struct report_record {
	bool present;		/* read: DIR had a record (a report of this version) */
	size_t nr, cap;
	char **names;		/* "plots/x.svg", sorted */
};

/*
 * The regular files in dir's report directories, as the record lists
 * them. Returns 0, or -1 (out of memory, or a directory unreadable).
 */
int report_record_scan(struct report_record *r, const char *dir);

/*
 * dir's record, if it has one (r->present). Lines that are not a plain
 * name in one of the report's directories are ignored: a record cannot
 * make --force remove anything outside them. Returns 0, or -1.
 */
int report_record_read(struct report_record *r, const char *dir);

bool report_record_has(const struct report_record *r, const char *name);

/* The record as its file holds it (malloc'd), or NULL. */
char *report_record_text(const struct report_record *r, size_t *len);

void report_record_free(struct report_record *r);

#endif
