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

/*
 * The least share of its CPUs a run must have had as it started
 * (context.cpu_share) not to be called busy, and to test a claim at 2 or
 * more threads. A 2-thread case needs both its threads on their CPUs at
 * once: at a share s each is there about s of the time, both about s
 * squared, and below 0.8 that is under two thirds of the time, where a
 * handoff waits for a descheduled owner (the Zen 5 guest at a share of
 * 0.4: ping-pong one-way 95-1241 ns, against 26-49 ns alone). The
 * 1-minute load average, which says what ran in the last minute, can
 * miss it, and can blame a quiet run for the run before it.
 */
#define RUN_MIN_CPU_SHARE 0.8

/* The case ran more threads than its run could use CPUs: they time-shared. */
bool case_shares_cpus(const struct results *set, const struct result_case *c);

/* The run-level warnings, as block quotes; nothing when all is well. */
void markdown_run_warnings(FILE *out, const struct report_input *in);

/* With several results files: the same cases' medians file by file. */
void markdown_run_distance(FILE *out, const struct report_input *in);

#endif
