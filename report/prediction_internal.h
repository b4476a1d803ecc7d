/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the prediction's two files share: the model's check on a run
 * (prediction.c) and on the seeds' machines (seed_prediction.c).
 */
#ifndef BOUNCELAB_PREDICTION_INTERNAL_H
#define BOUNCELAB_PREDICTION_INTERNAL_H

#include <stdbool.h>
#include <stdio.h>

#include "kernel.h"
#include "markdown.h"
#include "output.h"
#include "results_read.h"
#include "seeds.h"

/* Median ns/op of the rows of one case (family, variant, setting) at t threads. */
double prediction_case_median(const struct results *set, const struct result_row *like,
			      long t);

/* The row's parameters into a configuration; -1 if one is not the family's. */
int prediction_config_of(const struct result_row *r, const struct kernel_family *f,
			 struct kernel_config *cfg);

/* The seeds' table and their curves (prediction.md) with where the time goes. */
void seed_prediction_write(FILE *out, const struct report_input *in);

/* The headline seed (46.6x at 256 CPUs) when this run can predict it, else NULL. */
const struct seed_figure *seed_prediction_headline(const struct report_input *in);

/* Each predicted seed's curves, as an SVG in dir's plots. Returns 0, or -1. */
int seed_prediction_add_plots(struct output_batch *batch, const char *dir,
			      const struct report_input *in);

/* The published many-CPU curves, each predicted, held out or informing (prediction.md). */
void published_prediction_write(FILE *out);

#endif
