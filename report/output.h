/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Output files are written whole or not at all: into a temporary file
 * beside the target, then renamed over it.
 */
#ifndef BOUNCELAB_OUTPUT_H
#define BOUNCELAB_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>

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

#endif
