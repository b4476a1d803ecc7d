/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * SIGINT, SIGTERM, SIGHUP, SIGPIPE and SIGQUIT during a run. The first one
 * asks the suite to stop after the current benchmark: the runs still to
 * come end at once, the finished rows are written and the results file is
 * marked incomplete. A second one (but SIGPIPE) ends the process at once,
 * as the default action would; the journal keeps the finished rows.
 */
#ifndef BOUNCELAB_INTERRUPT_H
#define BOUNCELAB_INTERRUPT_H

#include <stdbool.h>

/* A stop asked by the run itself: it cannot keep its results (no signal). */
#define INTERRUPT_ERROR (-1)

/*
 * Installs the handlers; the line a signal prints says the command stops
 * after stops_after ("the current benchmark"). Returns 0 or -errno.
 */
int interrupt_catch(const char *stops_after);
/* Restores the handlers interrupt_catch() replaced. */
void interrupt_release(void);
/*
 * Holds the caught signals back (block true) or lets them in: the final
 * write is not cut in half, even by a second Ctrl-C.
 */
void interrupt_block(bool block);
/* 0, or the signal that asked the run to stop, or INTERRUPT_ERROR. */
int interrupt_signal(void);
/* "SIGINT", "SIGTERM", "SIGHUP", "SIGPIPE", "SIGQUIT" */
const char *interrupt_signal_name(int signo);
/* Acts as if signo had arrived (tests, the handler, INTERRUPT_ERROR). */
void interrupt_request(int signo);
/* Forgets a request and clears the kernels' stop flag (tests). */
void interrupt_reset(void);

#endif
