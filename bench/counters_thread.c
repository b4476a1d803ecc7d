// SPDX-License-Identifier: GPL-2.0-only
/*
 * Each benchmark thread's counters: opened before its batch loop,
 * enabled around the kernel's run call, read and published per
 * operation when it ends.
 *
 * Every benchmark thread opens its own groups (pid 0, cpu -1: the calling
 * thread wherever it runs), one group per set for hardware events so that
 * they are scheduled together (software events each alone, see
 * group_for() in counters_open.c); enables them around the kernel's run
 * call; and reads each event with time_enabled and time_running, scaling
 * a multiplexed count by enabled/running.
 *
 * The arithmetic that turns a thread's raw counts into the per-op numbers
 * of a results file is here, apart from how the events were chosen and
 * opened, so that it reads (and is tested, test_counter_math) on its own.
 */
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "counters_internal.h"
#include "gbench.h"

/* ---- per thread -------------------------------------------------------- */

/* Benchmark threads are new for every run; thread 0 reuses its own. */
static _Thread_local struct counters_thread thread_counters;

struct counters_thread *counters_thread_open(void)
{
	if (!counters_active())
		return NULL;
	open_all(&thread_counters, false);
	return &thread_counters;
}

static void group_ioctl(struct counters_thread *ct, unsigned long request)
{
	for (unsigned int i = 0; ct && i < ct->nr; i++)
		if (ct->open[i].leader == ct->open[i].fd)
			ioctl(ct->open[i].fd, request, PERF_IOC_FLAG_GROUP);
}

void counters_thread_enable(struct counters_thread *ct)
{
	group_ioctl(ct, PERF_EVENT_IOC_ENABLE);
}

void counters_thread_disable(struct counters_thread *ct)
{
	group_ioctl(ct, PERF_EVENT_IOC_DISABLE);
}

/*
 * The count, scaled by time_enabled / time_running if the kernel
 * multiplexed the group (more events than counters), and the fraction of
 * the time it actually counted.
 */
static int read_scaled(int fd, double *value, double *running)
{
	uint64_t v[3];	/* value, time_enabled, time_running */

	if (read(fd, v, sizeof(v)) != (ssize_t)sizeof(v))
		return -1;
	*running = v[1] ? (double)v[2] / (double)v[1] : 1.0;
	*value = (double)v[0];
	if (v[2] && v[2] < v[1])
		*value *= (double)v[1] / (double)v[2];
	return 0;
}

int counters_thread_read(struct counters_thread *ct, const char *name,
			 double *value)
{
	double running;

	for (unsigned int i = 0; ct && i < ct->nr; i++)
		if (!strcmp(chosen.events[ct->open[i].event].name, name))
			return read_scaled(ct->open[i].fd, value, &running);
	return -1;
}

struct totals {
	unsigned int nr;
	const char *name[4];
	double sum[4];
};

static void add_to_total(struct totals *t, const char *name, double value)
{
	unsigned int i;

	for (i = 0; i < t->nr && strcmp(t->name[i], name); i++)
		;
	if (i == t->nr) {
		if (t->nr == 4)
			return;
		t->name[t->nr] = name;
		t->sum[t->nr++] = 0;
	}
	t->sum[i] += value;
}

static void set_per_op(struct gbench_state *st, const char *stem, double value)
{
	char name[COUNTERS_NAME_LEN + 8];

	snprintf(name, sizeof(name), "%s_per_op", stem);
	gbench_set_counter(st, name, value, GBENCH_AVG_THREADS);
}

/*
 * Counts per operation, as counters averaged over threads (kAvgThreads).
 * Every thread runs the same n operations, so the mean over threads of
 * count_t / n is sum(count_t) / sum(ops): events per operation, whichever
 * thread saw them. That is the right measure for HITM: a store by thread A
 * shows up as a load of thread B that hits A's Modified line, so the pair's
 * bouncing is counted on B and shared out over both threads' operations.
 * task_clock_ns_per_op is one thread's CPU time per operation, beside
 * ns_per_op (wall time): the gap is time off the CPU.
 *
 * An event some thread could not open is skipped by all: its "failed" flag
 * was set before the batch loop's opening barrier, and this runs after the
 * closing one, so every thread sees the same set of counters and the
 * average is over all threads.
 */
static void publish(struct counters_thread *ct, struct gbench_state *st,
		    uint64_t ops)
{
	struct totals totals = { 0 };
	double least_running = 1.0, value, running;
	bool hardware = false;

	for (unsigned int i = 0; i < ct->nr; i++) {
		const struct counter_event *e = &chosen.events[ct->open[i].event];

		if (atomic_load(&e->failed) ||
		    read_scaled(ct->open[i].fd, &value, &running))
			continue;
		set_per_op(st, e->name, value / (double)ops);
		if (e->total)
			add_to_total(&totals, e->total, value);
		if (e->hardware) {
			hardware = true;
			if (running < least_running)
				least_running = running;
		}
	}
	for (unsigned int i = 0; i < totals.nr; i++)
		set_per_op(st, totals.name[i], totals.sum[i] / (double)ops);
	/* Below 1: the counts were multiplexed and scaled up. */
	if (hardware)
		gbench_set_counter(st, "counters_running_fraction", least_running,
				   GBENCH_AVG_THREADS);
}

void counters_thread_finish(struct counters_thread *ct, struct gbench_state *st,
			    uint64_t ops)
{
	if (!ct)
		return;
	if (ops && st)
		publish(ct, st, ops);
	close_all(ct);
}
