/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * SIGINT and SIGTERM during a run. The first one asks the suite to stop
 * after the current benchmark: the runs still to come end at once, the
 * finished rows are written and the results file is marked incomplete. A
 * second one ends the process at once, as the default action would.
 */
#ifndef BOUNCELAB_INTERRUPT_H
#define BOUNCELAB_INTERRUPT_H

/* Installs the handlers for SIGINT and SIGTERM. Returns 0 or -errno. */
int interrupt_catch(void);
/* Restores the handlers interrupt_catch() replaced. */
void interrupt_release(void);
/* 0, or the signal that asked the run to stop. */
int interrupt_signal(void);
/* "SIGINT", "SIGTERM" */
const char *interrupt_signal_name(int signo);
/* Acts as if signo had arrived (tests, and the handler itself). */
void interrupt_request(int signo);
/* Forgets a request and clears the kernels' stop flag (tests). */
void interrupt_reset(void);

#endif
