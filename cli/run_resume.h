/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef BOUNCELAB_RUN_RESUME_H
#define BOUNCELAB_RUN_RESUME_H

#include <stdbool.h>

/*
 * run --resume FILE|DIR: recovers a stopped run's results from its
 * journal; with dry_run, says what it would recover and writes nothing.
 * Returns the command's exit status.
 */
int run_resume(const char *arg, bool dry_run);

#endif
