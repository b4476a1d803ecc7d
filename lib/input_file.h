/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The rule for every file bouncelab reads as input (results files and
 * journals, machine profiles, topology XML, latency files): a regular
 * file, no larger than the reader's bound, opened so that the open itself
 * cannot block (a FIFO with no writer would wait forever; a device such
 * as /dev/zero never ends).
 */
#ifndef BOUNCELAB_INPUT_FILE_H
#define BOUNCELAB_INPUT_FILE_H

#include <stddef.h>

#include <jansson.h>

/*
 * path opened read-only under the rule: the descriptor (blocking again,
 * at offset 0) and its size in *size, or -1 with a one-line message in
 * err naming the path ("PATH: not a regular file (a FIFO): expected a
 * regular file"). errno tells a missing file (ENOENT) from a refused one.
 */
int input_file_open(const char *path, size_t max_bytes, size_t *size, char *err,
		    size_t errlen);

/*
 * The whole file, NUL-terminated, in malloc()'d memory (the caller frees),
 * its length in *len; or NULL with err set as above. errno is ENOMEM when
 * the memory is what failed.
 */
char *input_file_read(const char *path, size_t max_bytes, size_t *len, char *err,
		      size_t errlen);

/*
 * The whole file parsed as JSON (duplicate keys refused): the tree, or
 * NULL with err set and *status saying why: 2 for a bad file (refused by
 * the rule above, or "PATH:LINE:COL: not valid JSON: REASON"), 1 when
 * memory ran out ("out of memory reading PATH": jansson gives no reason
 * of its own then, and a malformed file is not what it met).
 */
json_t *input_file_json(const char *path, size_t max_bytes, int *status, char *err,
			size_t errlen);

#endif
