/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The suite's watchdog: a thread that ends a benchmark run taking longer
 * than a limit. It sets kernel_stop_requested, so the kernels' spin-waits
 * return; the run then fails with "stopped by watchdog" and the suite
 * goes on to the next one with the flag cleared.
 *
 * A kernel that never looks at the flag cannot be stopped; the kernel
 * contract asks every spin-wait to be bounded or to check it.
 */
#ifndef BOUNCELAB_WATCHDOG_H
#define BOUNCELAB_WATCHDOG_H

#include <stdbool.h>
#include <stddef.h>

/* Starts the watchdog thread. Returns 0, or -1 with err filled. */
int watchdog_start(double limit_seconds, char *err, size_t errlen);
void watchdog_stop(void);
/* The limit in seconds; 0 when no watchdog runs. */
double watchdog_limit(void);

/* Thread 0 of a run: the clock starts now. A no-op without a watchdog. */
void watchdog_arm(void);
/*
 * Thread 0, after every thread has finished: ends the watch. Returns true
 * if the watchdog stopped this run; the stop flag is then cleared unless
 * an interrupt also asked to stop.
 */
bool watchdog_disarm(void);

#endif
