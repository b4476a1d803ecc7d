// SPDX-License-Identifier: GPL-2.0-only
/*
 * One thread sleeps on a condition variable until the armed run's
 * deadline (CLOCK_MONOTONIC, so a clock change cannot fire it), then
 * raises the kernels' stop flag. Arming and disarming are one lock each
 * per run, outside the timed loop.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "interrupt.h"
#include "kernel.h"
#include "watchdog.h"

static struct {
	pthread_mutex_t lock;
	pthread_cond_t wake;
	pthread_t thread;
	bool running;
	bool armed;
	bool fired;
	double limit;
	struct timespec deadline;
} wd = { .lock = PTHREAD_MUTEX_INITIALIZER };

static bool reached(const struct timespec *deadline)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return now.tv_sec > deadline->tv_sec ||
	       (now.tv_sec == deadline->tv_sec && now.tv_nsec >= deadline->tv_nsec);
}

static void *watchdog_main(void *unused)
{
	(void)unused;
	pthread_mutex_lock(&wd.lock);
	while (wd.running) {
		if (!wd.armed || wd.fired) {
			pthread_cond_wait(&wd.wake, &wd.lock);
			continue;
		}
		pthread_cond_timedwait(&wd.wake, &wd.lock, &wd.deadline);
		if (wd.running && wd.armed && !wd.fired && reached(&wd.deadline)) {
			wd.fired = true;
			atomic_store(&kernel_stop_requested, true);
		}
	}
	pthread_mutex_unlock(&wd.lock);
	return NULL;
}

int watchdog_start(double limit_seconds, char *err, size_t errlen)
{
	pthread_condattr_t attr;
	int ret;

	if (wd.running) {
		snprintf(err, errlen, "the watchdog is already running");
		return -1;
	}
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&wd.wake, &attr);
	pthread_condattr_destroy(&attr);
	wd.limit = limit_seconds;
	wd.armed = false;
	wd.fired = false;
	wd.running = true;
	ret = pthread_create(&wd.thread, NULL, watchdog_main, NULL);
	if (ret) {
		wd.running = false;
		pthread_cond_destroy(&wd.wake);
		snprintf(err, errlen, "cannot start the watchdog thread: %s", strerror(ret));
		return -1;
	}
	return 0;
}

void watchdog_stop(void)
{
	if (!wd.running)
		return;
	pthread_mutex_lock(&wd.lock);
	wd.running = false;
	pthread_cond_signal(&wd.wake);
	pthread_mutex_unlock(&wd.lock);
	pthread_join(wd.thread, NULL);
	pthread_cond_destroy(&wd.wake);
	wd.limit = 0;
}

double watchdog_limit(void)
{
	return wd.running ? wd.limit : 0;
}

void watchdog_arm(void)
{
	double whole;
	long ns;

	if (!wd.running)
		return;
	pthread_mutex_lock(&wd.lock);
	clock_gettime(CLOCK_MONOTONIC, &wd.deadline);
	whole = (double)(long)wd.limit;
	ns = wd.deadline.tv_nsec + (long)((wd.limit - whole) * 1e9);
	wd.deadline.tv_sec += (time_t)whole + ns / 1000000000L;
	wd.deadline.tv_nsec = ns % 1000000000L;
	wd.armed = true;
	wd.fired = false;
	pthread_cond_signal(&wd.wake);
	pthread_mutex_unlock(&wd.lock);
}

bool watchdog_disarm(void)
{
	bool fired;

	if (!wd.running)
		return false;
	pthread_mutex_lock(&wd.lock);
	fired = wd.fired;
	wd.armed = false;
	wd.fired = false;
	/* The next run starts with the flag down, unless the user asked to stop. */
	if (fired && !interrupt_signal())
		atomic_store(&kernel_stop_requested, false);
	pthread_mutex_unlock(&wd.lock);
	return fired;
}
