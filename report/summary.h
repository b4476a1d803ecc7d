/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The report's first page: the claims a run did not see, one row per
 * family (its lesson in a line, the fix's gain at 1 thread and at the
 * most threads, its claims' marks), the key figure, and every claim with
 * its numbers. report --brief is built from the same function.
 */
#ifndef BOUNCELAB_SUMMARY_H
#define BOUNCELAB_SUMMARY_H

#include <stdio.h>

#include "analysis.h"
#include "markdown.h"
#include "output.h"
#include "plots.h"

/* The key figure, beside report.md. */
#define SUMMARY_FIGURE PLOT_DIR "/summary-gains.svg"

enum summary_form {
	/*
	 * report.md's: every claim with its numbers; what a gain and a
	 * mark mean is the appendix's (markdown_summary_legend()).
	 */
	SUMMARY_IN_REPORT,
	/*
	 * report --brief's, which stands alone on two printed pages: with
	 * the legends, and only the claims not seen or not testable in full.
	 */
	SUMMARY_IN_BRIEF,
};

/* The summary page, in markdown. */
void markdown_summary(FILE *out, const struct report_input *in, enum summary_form form);
void markdown_summary_legend(FILE *out);

/* A family's claims and their marks, under its lesson. */
void markdown_family_claims(FILE *out, const struct report_input *in,
			    const struct family_view *f, bool own_paragraph);

/* Adds SUMMARY_FIGURE to the batch. Returns 0 or -1 (memory). */
int summary_add_figure(struct output_batch *batch, const char *outdir,
		       const struct analysis *a);

#endif
