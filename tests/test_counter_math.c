// SPDX-License-Identifier: GPL-2.0-only
/*
 * The counters' arithmetic against injected perf counts: every
 * perf_event_open() succeeds on a stand-in file descriptor, and every read
 * of one returns a count, time_enabled and time_running chosen here (the
 * link wraps syscall() and read(): -Wl,--wrap). The counts then go through
 * the real harness path (Google Benchmark, counters_thread_finish()), and
 * each NAME_per_op must equal the value worked out by hand below: the
 * count, scaled by enabled / running when the kernel multiplexed it,
 * divided by the thread's operations. counters_running_fraction is the
 * least running / enabled among the hardware events. Skipped (77) in a
 * build without libpfm4, which encodes the events.
 */
#include <fcntl.h>
#include <linux/perf_event.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cmocka.h>

#include "config.h"
#include "counters.h"
#include "perf_stand_in.h"
#include "gbench.h"

#define OPS 100

/* What a read of an event returns: count, time_enabled, time_running. */
struct injected {
	uint32_t type;
	uint64_t config;
	uint64_t value, enabled, running;
	const char *counter;
	double per_op;		/* by hand: value x enabled / running / OPS */
};

static const struct injected injected[] = {
	/* not multiplexed: the count over the operations */
	{ PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, 3000, 1000, 1000,
	  "task_clock_ns_per_op", 30.0 },
	/* counted a quarter of the time: 1000 x 4 = 4000, over 100 */
	{ PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, 1000, 2000, 500,
	  "page_faults_per_op", 40.0 },
	/* a third of the time: 70 x 3 = 210, over 100 */
	{ PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, 70, 900, 300,
	  "context_switches_per_op", 2.1 },
	/* never ran (running 0): nothing to scale, the raw count 5, over 100 */
	{ PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS, 5, 900, 0,
	  "cpu_migrations_per_op", 0.05 },
	/* hardware: a quarter of the time, 5000 x 4 = 20000, over 100 */
	{ PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 5000, 1000, 250,
	  "cycles_per_op", 200.0 },
	/* half the time: 6000 x 2 = 12000, over 100 */
	{ PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, 6000, 1000, 500,
	  "instructions_per_op", 120.0 },
};
#define NR_INJECTED (sizeof(injected) / sizeof(injected[0]))
/* the least running / enabled among the hardware events: cycles' 250/1000 */
#define LEAST_RUNNING 0.25

/* ---- the stand-in perf_event_open() and read() ------------------------- */

#define MAX_FDS 256
static const struct injected *fd_event[MAX_FDS];

ssize_t __real_read(int fd, void *buf, size_t len);
ssize_t __wrap_read(int fd, void *buf, size_t len);

long perf_open_stand_in(const struct perf_event_attr *attr, int group_fd)
{
	int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);

	(void)group_fd;
	if (fd >= 0 && fd < MAX_FDS) {
		fd_event[fd] = NULL;
		for (size_t i = 0; i < NR_INJECTED; i++)
			if (injected[i].type == attr->type &&
			    injected[i].config == attr->config)
				fd_event[fd] = &injected[i];
	}
	return fd;
}

ssize_t __wrap_read(int fd, void *buf, size_t len)
{
	const struct injected *e = fd >= 0 && fd < MAX_FDS ? fd_event[fd] : NULL;
	uint64_t v[3];

	if (!e || len != sizeof(v))
		return __real_read(fd, buf, len);
	v[0] = e->value;
	v[1] = e->enabled;
	v[2] = e->running;
	memcpy(buf, v, sizeof(v));
	return sizeof(v);
}

/* ---- one benchmark through the harness's counter path ----------------- */

struct seen {
	unsigned int runs;
	unsigned int nr;
	char name[32][64];
	double value[32];
};

static void on_run(const struct gbench_run *run, void *arg)
{
	struct seen *s = arg;

	if (run->is_aggregate)
		return;
	s->runs++;
	for (unsigned int i = 0; i < run->nr_counters && s->nr < 32; i++) {
		snprintf(s->name[s->nr], sizeof(s->name[0]), "%s", run->counter_names[i]);
		s->value[s->nr++] = run->counter_values[i];
	}
}

static void counted_body(struct gbench_state *st, void *arg)
{
	struct counters_thread *ct = counters_thread_open();
	uint64_t n = gbench_max_iterations(st);

	(void)arg;
	while (gbench_keep_running_batch(st, n)) {
		counters_thread_enable(ct);
		counters_thread_disable(ct);
	}
	counters_thread_finish(ct, st, n);
}

static bool find(const struct seen *s, const char *name, double *value)
{
	for (unsigned int i = 0; i < s->nr; i++) {
		if (!strcmp(s->name[i], name)) {
			*value = s->value[i];
			return true;
		}
	}
	return false;
}

static void per_op_counts_are_scaled_and_divided(void **unused)
{
	char arg0[] = "test_counter_math", err[256];
	char *argv[] = { arg0, NULL };
	struct seen s = { 0 };
	struct gbench_run_callbacks cb = { on_run, &s };
	struct gbench_benchmark *b;
	double got = 0;

	(void)unused;
	assert_int_equal(counters_select("sw,basic", NULL, err, sizeof(err)), 0);
	counters_prepare(NULL);
	assert_true(counters_active());
	gbench_initialize(1, argv);
	b = gbench_register("counter_math", counted_body, NULL);
	gbench_set_iterations(b, OPS);
	gbench_run_all(&cb, false);
	gbench_clear();
	assert_int_equal(s.runs, 1);
	for (size_t i = 0; i < NR_INJECTED; i++) {
		if (!find(&s, injected[i].counter, &got))
			fail_msg("no %s in the run's counters", injected[i].counter);
		if (!(fabs(got - injected[i].per_op) <= 1e-9 * (1 + injected[i].per_op)))
			fail_msg("%s is %g, expected %g (count %llu, enabled %llu, running %llu, %d operations)",
				 injected[i].counter, got, injected[i].per_op,
				 (unsigned long long)injected[i].value,
				 (unsigned long long)injected[i].enabled,
				 (unsigned long long)injected[i].running, OPS);
	}
	if (!find(&s, "counters_running_fraction", &got))
		fail_msg("no counters_running_fraction with multiplexed hardware events");
	if (!(fabs(got - LEAST_RUNNING) <= 1e-12))
		fail_msg("counters_running_fraction is %g, expected %g", got, LEAST_RUNNING);
	/*
	 * Those and no other: sw and basic have no sums, so none is written
	 * (publish() looping past its totals would write one for a NULL name).
	 */
	if (s.nr != NR_INJECTED + 1)
		fail_msg("%u counters, expected the %zu above and the running fraction",
			 s.nr, NR_INJECTED);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(per_op_counts_are_scaled_and_divided),
	};

	if (!HAVE_PFM) {
		printf("built without libpfm4: no events to encode\n");
		return 77;
	}
	counters_init();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
