/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the report says about a run as a whole before any table: too many
 * noisy results or a busy machine (and what to do about it), threads that
 * outnumbered the CPUs, and how far apart two results files put the same
 * cases.
 */
#ifndef BOUNCELAB_RUN_CHECKS_H
#define BOUNCELAB_RUN_CHECKS_H

#include <stdbool.h>
#include <stdio.h>

#include "cases.h"
#include "markdown.h"

/* Above this share of noisy results the report warns at the top. */
#define RUN_NOISY_SHARE 0.25
/* A 1-minute load average above this share of the CPUs: a busy machine. */
#define RUN_BUSY_LOAD 0.5

/* The case ran more threads than its run could use CPUs: they time-shared. */
bool case_shares_cpus(const struct results *set, const struct result_case *c);

/* The run-level warnings, as block quotes; nothing when all is well. */
void markdown_run_warnings(FILE *out, const struct report_input *in);

/* With several results files: the same cases' medians file by file. */
void markdown_run_distance(FILE *out, const struct report_input *in);

#endif
