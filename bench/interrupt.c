// SPDX-License-Identifier: GPL-2.0-only
/*
 * The handler only stores two lock-free atomics and writes one line, all
 * async-signal-safe. SA_RESETHAND puts the default action back, so a
 * second Ctrl-C ends a run that does not stop fast enough; SIGPIPE keeps
 * its handler, since every later write to the closed pipe raises it again.
 */
#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "interrupt.h"
#include "kernel.h"

/*
 * A closed terminal (SIGHUP), a closed pipe (SIGPIPE) and Ctrl-\ (SIGQUIT)
 * end a run as SIGTERM does: the finished repetitions are kept.
 */
static const int caught_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGQUIT };
#define NR_CAUGHT (sizeof(caught_signals) / sizeof(caught_signals[0]))

static atomic_int stop_signal;
static struct sigaction saved[NR_CAUGHT];
static bool caught;
/* The handler's two lines, made before it is installed (it only writes). */
static char stop_line[128], quit_line[128];

_Static_assert(ATOMIC_INT_LOCK_FREE == 2 && ATOMIC_BOOL_LOCK_FREE == 2,
	       "the signal handler needs lock-free atomics");

static void say(const char *text)
{
	ssize_t n = write(STDERR_FILENO, text, strlen(text));

	(void)n;
}

static void on_signal(int signo)
{
	int saved_errno = errno;

	interrupt_request(signo);
	/* A closed pipe has no reader for a message. */
	if (signo == SIGINT)
		say(quit_line);
	else if (signo != SIGPIPE)
		say(stop_line);
	errno = saved_errno;
}

void interrupt_request(int signo)
{
	int none = 0;

	atomic_compare_exchange_strong(&stop_signal, &none, signo);
	/* Kernels spinning on another thread return instead of waiting. */
	atomic_store(&kernel_stop_requested, true);
}

int interrupt_catch(const char *stops_after)
{
	struct sigaction sa;

	snprintf(quit_line, sizeof(quit_line),
		 "bouncelab: SIGINT: stopping after %s (again to quit at once)\n",
		 stops_after);
	snprintf(stop_line, sizeof(stop_line),
		 "bouncelab: stopping after %s (a signal asked)\n", stops_after);

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < NR_CAUGHT; i++) {
		/* Restart the harness's own waits rather than fail them with EINTR. */
		sa.sa_flags = SA_RESTART |
			      (caught_signals[i] == SIGPIPE ? 0 : SA_RESETHAND);
		/*
		 * A signal ignored from the start stays ignored: 'nohup
		 * bouncelab run' must outlive its terminal (SIGHUP), and a
		 * shell's background job is not meant for its Ctrl-C.
		 */
		if (!sigaction(caught_signals[i], NULL, &saved[i]) &&
		    saved[i].sa_handler == SIG_IGN)
			continue;
		if (sigaction(caught_signals[i], &sa, &saved[i])) {
			int ret = -errno;

			while (i--)
				sigaction(caught_signals[i], &saved[i], NULL);
			return ret;
		}
	}
	caught = true;
	return 0;
}

void interrupt_release(void)
{
	if (!caught)
		return;
	for (size_t i = 0; i < NR_CAUGHT; i++)
		sigaction(caught_signals[i], &saved[i], NULL);
	caught = false;
}

void interrupt_block(bool block)
{
	sigset_t set;

	sigemptyset(&set);
	for (size_t i = 0; i < NR_CAUGHT; i++)
		sigaddset(&set, caught_signals[i]);
	sigprocmask(block ? SIG_BLOCK : SIG_UNBLOCK, &set, NULL);
}

int interrupt_signal(void)
{
	return atomic_load(&stop_signal);
}

const char *interrupt_signal_name(int signo)
{
	switch (signo) {
	case SIGINT:
		return "SIGINT";
	case SIGTERM:
		return "SIGTERM";
	case SIGHUP:
		return "SIGHUP";
	case SIGPIPE:
		return "SIGPIPE";
	case SIGQUIT:
		return "SIGQUIT";
	case INTERRUPT_ERROR:
		return "an error";
	default:
		return "a signal";
	}
}

void interrupt_reset(void)
{
	atomic_store(&stop_signal, 0);
	atomic_store(&kernel_stop_requested, false);
}
