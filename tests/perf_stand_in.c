// SPDX-License-Identifier: GPL-2.0-only
/* The syscall() wrap of perf_stand_in.h: its arguments unpacked once. */
#include <stdarg.h>
#include <sys/syscall.h>

#include "perf_stand_in.h"

long __real_syscall(long nr, ...);
long __wrap_syscall(long nr, ...);

long __wrap_syscall(long nr, ...)
{
	long a[6];
	va_list ap;

	/* six longs: what the kernel's syscall ABI passes at most */
	va_start(ap, nr);
	for (int i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	if (nr == SYS_perf_event_open)
		return perf_open_stand_in((const struct perf_event_attr *)a[0], (int)a[3]);
	return __real_syscall(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
}
