/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The one rule for every path bouncelab writes (run --out, topo
 * --latency-out, report -o, and any new command), checked before any work
 * is done, not after a long run:
 *
 *   - an existing path is refused without --force; a path that is not a
 *     regular file (a device such as /dev/full or /dev/null, a FIFO, a
 *     socket, a symbolic link, or a directory where a file belongs) is
 *     refused even with it: rename() would put a plain file in its place;
 *   - a final component "." or ".." is refused: it names a directory, and
 *     the journal beside it would be a hidden "DIR/..journal";
 *   - the path, its temporary names and its siblings (PATH.tmp.bouncelab-PID.XXXXXX,
 *     PATH.journal, STEM.incomplete-PID.json) fit PATH_MAX and NAME_MAX;
 *   - missing directories are created, and removed again if the command
 *     fails or is interrupted before it writes;
 *   - a temporary file of the real name is created, and the estimated
 *     size reserved in it (a full disk fails here, not at the end), then
 *     removed;
 *   - an exclusive lock (flock on PATH.lock, or DIR/.bouncelab.lock for a
 *     directory) is held until output_release(), so a second command on
 *     the same output is refused at its start. Holding it, the claim
 *     removes what a killed writer left at this path: its
 *     PATH.tmp.bouncelab-PID.XXXXXX files and
 *     DIR/.report.tmp.bouncelab-PID.XXXXXX directories (a report half
 *     built), and only those whose PID is no longer running and which
 *     belong to this user: "r.json.tmp.backup" is someone's file. The
 *     lock file itself a killed writer leaves is harmless: flock() holds
 *     only while its holder lives, so it is taken over; a lock path that
 *     is not one (a hard link to another file, a file of other content)
 *     is refused, never truncated.
 *
 * Usage:
 *	struct output_claim claim;
 *	ret = output_claim(&claim, "--out", path, OUTPUT_FILE, force,
 *			   estimate_bytes, err, sizeof(err));
 *	if (ret)
 *		return ret == 2 ? usage_error("%s", err) : runtime_error("%s", err);
 *	... work, then write with output_write_file() ...
 *	output_release(&claim, wrote_it);
 */
#ifndef BOUNCELAB_OUTPUT_PATH_H
#define BOUNCELAB_OUTPUT_PATH_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum output_kind {
	OUTPUT_FILE,	/* one file, written by temp file and rename */
	OUTPUT_DIR,	/* a directory of files (report -o) */
};

/* The longest name bouncelab derives from an output file's name. */
#define OUTPUT_SIBLING_SUFFIX ".incomplete-4194304.json"
#define OUTPUT_TEMP_SUFFIX ".tmp.bouncelab-4194304.XXXXXX"
/* Inside a directory output: where it is built before it moves into place. */
#define OUTPUT_DIR_TEMP_PREFIX ".report"
/* The full mkdtemp() template for that, inside dir. Returns 0 or -1. */
int output_dir_temp_template(char *buf, size_t len, const char *dir);

struct output_claim {
	char path[PATH_MAX];
	enum output_kind kind;
	bool exists;		/* a regular file (or, for a directory, a directory) was there */
	int lock_fd;		/* -1: no lock held */
	char lock_path[PATH_MAX + 32];
	/*
	 * The directories the claim created, in order: each is the first
	 * created_len[i] bytes of created_from. Removed on failure, the last
	 * one first (by what was made, not by walking up the path: in
	 * "a/../b/NAME" the parent of "b" is not "a").
	 */
	char created_from[PATH_MAX];
	unsigned int nr_created;
	unsigned short created_len[PATH_MAX / 2];
};

/*
 * Checks path by the rule above, creates its directory, takes the lock
 * and probes a temporary file of estimate bytes. what names the option in
 * messages ("--out"). Returns 0; 2 when the path is refused (err says
 * why and what was expected); 1 when it cannot be written (err). On error
 * nothing is left behind and nothing is held.
 */
int output_claim(struct output_claim *c, const char *what, const char *path,
		 enum output_kind kind, bool force, uint64_t estimate,
		 char *err, size_t errlen);

/*
 * Drops the lock. If wrote is false, the directories the claim created
 * are removed again (when they are still empty).
 */
void output_release(struct output_claim *c, bool wrote);

/* Removes dir and everything in it, not following symbolic links. */
void output_remove_tree(const char *dir);

/*
 * A sibling of path for a run that did not complete when --force would
 * replace a complete file: "r.json" gives "r.incomplete-PID.json".
 */
void output_incomplete_sibling(const char *path, char *buf, size_t len);

#endif
