/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * run's options that take more than a number: --param, --placement, and
 * the command line as typed, which the results keep for the report's
 * "how to reproduce".
 */
#ifndef BOUNCELAB_RUN_OPTIONS_H
#define BOUNCELAB_RUN_OPTIONS_H

#include "suite.h"

/* --param FAMILY.NAME=V[,V...] into opts; returns 0 or usage_error()'s status. */
int run_parse_param(const char *text, struct suite_options *opts);
/*
 * --placement P[,P...] into opts, the policies' texts in store; returns 0
 * or usage_error()'s status.
 */
int run_parse_placement(const char *text, struct suite_options *opts, char store[][64]);

/* Keeps the command line, shell-quoted; run_command_line() gives it. */
void run_record_command(int argc, char **argv);
const char *run_command_line(void);

#endif
