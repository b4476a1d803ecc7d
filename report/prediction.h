/* SPDX-License-Identifier: GPL-2.0-only */
/* The report's prediction section: the contention model against the run. */
#ifndef BOUNCELAB_PREDICTION_H
#define BOUNCELAB_PREDICTION_H

#include <stdio.h>

struct report_input;
struct output_batch;

#define PREDICTION_SCATTER "plots/prediction-2-threads.svg"
/* The whole check, the seeds' curves and the derivation, beside report.md. */
#define PREDICTION_FILE "prediction.md"

/* The section of report.md: short, it links PREDICTION_FILE. */
void markdown_prediction(FILE *out, const struct report_input *in);
/*
 * PREDICTION_FILE and the plots, into the batch under dir. Returns 0, or
 * -1 without memory.
 */
int prediction_add_files(struct output_batch *batch, const char *dir,
			 const struct report_input *in);

#endif
