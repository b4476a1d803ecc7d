/* SPDX-License-Identifier: GPL-2.0-only */
/* The report's prediction section: the contention model against the run. */
#ifndef BOUNCELAB_PREDICTION_H
#define BOUNCELAB_PREDICTION_H

#include <stdio.h>

struct report_input;

void markdown_prediction(FILE *out, const struct report_input *in);

#endif
