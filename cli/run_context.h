/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef BOUNCELAB_RUN_CONTEXT_H
#define BOUNCELAB_RUN_CONTEXT_H

#include <jansson.h>

#include "suite.h"

/*
 * A run's context (resultfile/results.h lists its keys), measured and
 * recorded before the first round: command is the command line as typed.
 */
json_t *run_context_new(const struct suite *suite, const char *command);

#endif
