/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A private scratch directory for fuzz targets: every input starts in an
 * empty one (plus fixtures) and leaves nothing behind, so an input means
 * the same thing whenever it runs.
 */
#ifndef BOUNCELAB_FUZZ_SCRATCH_H
#define BOUNCELAB_FUZZ_SCRATCH_H

#include <stddef.h>

/* The scratch directory's absolute path, created on first use. */
const char *scratch_dir(void);
/* dir/name into buf (PATH_MAX long); aborts if it does not fit. */
void scratch_path(char *buf, const char *name);
/* Writes len bytes to scratch/name; aborts on failure. */
void scratch_write(const char *name, const void *data, size_t len);
/* Makes scratch the working directory until scratch_leave(). */
void scratch_enter(void);
/* Returns to the previous working directory and empties scratch. */
void scratch_leave(void);
/* Empties scratch, keeping the directory itself. */
void scratch_clean(void);

#endif
