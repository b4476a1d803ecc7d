/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * report --brief: the page a teacher hands out. The summary, the claims
 * and the key figure only (markdown_summary()), under the run's warnings,
 * in at most two printed pages; PNG copies of the figures when Debian's
 * rsvg-convert (librsvg2-bin) is installed, for slides and print.
 */
#ifndef BOUNCELAB_BRIEF_H
#define BOUNCELAB_BRIEF_H

#include <stdbool.h>
#include <stddef.h>

#include "markdown.h"
#include "output.h"

/* The brief's length budget: two printed pages. */
#define BRIEF_MAX_LINES 120

/*
 * Adds a PNG copy of every SVG in the batch (the brief's figures), made
 * by rsvg-convert. Without it, or when it fails, adds none and says why
 * in note. Returns true when the copies were made, false otherwise;
 * -1 only for lack of memory (*png untouched).
 */
int brief_add_pngs(struct output_batch *batch, bool *png, char *note, size_t notelen);

/* The brief's markdown (free() it), or NULL without memory. */
char *markdown_brief(const struct report_input *in, bool png, const char *note,
		     size_t *len);

#endif
