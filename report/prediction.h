/* SPDX-License-Identifier: GPL-2.0-only */
/* The report's prediction section: the contention model against the run. */
#ifndef BOUNCELAB_PREDICTION_H
#define BOUNCELAB_PREDICTION_H

#include <stdio.h>

struct report_input;
struct output_batch;
struct seed_figure;
struct machine_profile;

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

/*
 * The model's gain for seed s (before's ns/op over after's) on the seed
 * machine's profile at the seed's thread count, from this run's 1-thread
 * rows in the seed's setting: the figure PREDICTION_FILE's seeds table
 * gives. Returns 0 with *profile named, or -1 with err saying why not.
 */
int prediction_seed_gain(const struct report_input *in, const struct seed_figure *s,
			 double *gain, const char **profile, char *err, size_t errlen);

/*
 * The shares a results file measures for the model (model_doc.md), set on
 * out: the tenure's share of plain stores [0] and of locked ops [1], and
 * the cold share, each 0 where the file (or, for the cold share, its machine) has
 * no case to measure it on. The one calibration the prediction's check
 * and the fleet table's model both take. Returns 0, or -1 when the file
 * has no transfer to measure them against.
 */
int prediction_run_shares(const struct report_input *in, unsigned int file,
			  struct machine_profile *out);

#endif
