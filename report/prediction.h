/* SPDX-License-Identifier: GPL-2.0-only */
/* The report's prediction section: the contention model against the run. */
#ifndef BOUNCELAB_PREDICTION_H
#define BOUNCELAB_PREDICTION_H

#include <stdio.h>

struct report_input;
struct output_batch;

#define PREDICTION_SCATTER "plots/prediction-2-threads.svg"

/* The section of report.md. */
void markdown_prediction(FILE *out, const struct report_input *in);
/* Its plots, into the batch under dir. Returns 0, or -1 without memory. */
int prediction_add_plots(struct output_batch *batch, const char *dir,
			 const struct report_input *in);

#endif
