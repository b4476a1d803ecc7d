/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * perf_event_open() played by a test: a program linked with
 * -Wl,--wrap=syscall and perf_stand_in.c gets every perf_event_open
 * through its own perf_open_stand_in(); every other syscall() goes on to
 * the real one. The counters call perf_event_open only through syscall().
 */
#ifndef BOUNCELAB_PERF_STAND_IN_H
#define BOUNCELAB_PERF_STAND_IN_H

#include <linux/perf_event.h>

/* Defined by the test: an fd, or -1 with errno set, as the syscall does. */
long perf_open_stand_in(const struct perf_event_attr *attr, int group_fd);

#endif
