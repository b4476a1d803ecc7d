/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Makes perf_event_open fail with a chosen errno in the calling process
 * (and what it forks or execs), through a seccomp filter: the way to drive
 * every degradation path on any machine, PMU or not, root or not.
 */
#ifndef BOUNCELAB_PERF_INJECT_H
#define BOUNCELAB_PERF_INJECT_H

#include <stdbool.h>

enum perf_inject_scope {
	PERF_INJECT_ALL,		/* every perf_event_open */
	PERF_INJECT_GROUP_MEMBERS,	/* only opens into a group (group_fd != -1) */
};

/* True where a filter can be installed (x86-64, aarch64). */
bool perf_inject_supported(void);

/* Installs the filter for good; returns 0 or -1 with errno. */
int perf_inject_errno(int err, enum perf_inject_scope scope);

#endif
