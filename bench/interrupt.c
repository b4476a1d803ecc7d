// SPDX-License-Identifier: GPL-2.0-only
/*
 * The handler only stores two lock-free atomics and writes one line, all
 * async-signal-safe. SA_RESETHAND puts the default action back, so a
 * second Ctrl-C ends a run that does not stop fast enough.
 */
#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

#include "interrupt.h"
#include "kernel.h"

static atomic_int stop_signal;
static struct sigaction saved_int, saved_term;
static bool caught;

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
	say(signo == SIGINT ?
	    "bouncelab: SIGINT: stopping after the current benchmark (again to quit at once)\n" :
	    "bouncelab: SIGTERM: stopping after the current benchmark\n");
	errno = saved_errno;
}

void interrupt_request(int signo)
{
	int none = 0;

	atomic_compare_exchange_strong(&stop_signal, &none, signo);
	/* Kernels spinning on another thread return instead of waiting. */
	atomic_store(&kernel_stop_requested, true);
}

int interrupt_catch(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	/* Restart the harness's own waits rather than fail them with EINTR. */
	sa.sa_flags = SA_RESTART | SA_RESETHAND;
	if (sigaction(SIGINT, &sa, &saved_int))
		return -errno;
	if (sigaction(SIGTERM, &sa, &saved_term)) {
		int ret = -errno;

		sigaction(SIGINT, &saved_int, NULL);
		return ret;
	}
	caught = true;
	return 0;
}

void interrupt_release(void)
{
	if (!caught)
		return;
	sigaction(SIGINT, &saved_int, NULL);
	sigaction(SIGTERM, &saved_term, NULL);
	caught = false;
}

int interrupt_signal(void)
{
	return atomic_load(&stop_signal);
}

const char *interrupt_signal_name(int signo)
{
	return signo == SIGINT ? "SIGINT" : signo == SIGTERM ? "SIGTERM" : "a signal";
}

void interrupt_reset(void)
{
	atomic_store(&stop_signal, 0);
	atomic_store(&kernel_stop_requested, false);
}
