// SPDX-License-Identifier: GPL-2.0-only
/*
 * How the counters are opened, with perf_event_open() and ioctl() played
 * by this test (the link wraps syscall() and ioctl()): every call is
 * recorded with the group it asked for, and a script says which events
 * the stand-in kernel refuses, alone or in a group, and with what errno.
 *
 *   basic (cycles, instructions, l1d_load_misses, llc_load_misses):
 *   hardware events, one group, led by the first that opens; sw
 *   (task_clock_ns, page_faults, context_switches, cpu_migrations):
 *   each alone. An event the PMU will not take into the group (EINVAL)
 *   is opened alone and stays alone. Enabling a thread's counters is one
 *   ioctl per group leader, with PERF_IOC_FLAG_GROUP.
 *
 *   The set's summary names what does not work: "a, b n/a (why); c n/a
 *   (other)" in the order the events come, "n/a (why)" when none works
 *   for one reason.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#include "cases.h"
#include "config.h"
#include "counters.h"
#include "perf_stand_in.h"

#define MAX_CALLS 128

struct open_call {
	uint32_t type;
	uint64_t config;
	int group;
	int fd;			/* -1: refused */
	bool disabled;		/* opened stopped, to count from its enable */
	uint64_t read_format;
};

struct refusal {
	uint32_t type;
	uint64_t config;
	int in_group;		/* errno when asked into a group, or 0 */
	int alone;		/* errno when alone, or 0 */
};

static struct open_call calls[MAX_CALLS];
static unsigned int nr_calls;
static const struct refusal *script;
static unsigned int nr_script;
static int ioctl_fds[MAX_CALLS];
static unsigned long ioctl_requests[MAX_CALLS];
static unsigned int nr_ioctls;
static bool ioctl_group_flag = true;

int __real_ioctl(int fd, unsigned long request, ...);
int __wrap_ioctl(int fd, unsigned long request, ...);

long perf_open_stand_in(const struct perf_event_attr *attr, int group)
{
	int err = 0, fd;

	for (unsigned int i = 0; i < nr_script; i++)
		if (script[i].type == attr->type && script[i].config == attr->config)
			err = group >= 0 ? script[i].in_group : script[i].alone;
	fd = err ? -1 : open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (nr_calls < MAX_CALLS)
		calls[nr_calls++] = (struct open_call){ attr->type, attr->config, group, fd,
							attr->disabled, attr->read_format };
	if (err)
		errno = err;
	return fd;
}

int __wrap_ioctl(int fd, unsigned long request, ...)
{
	va_list ap;
	unsigned long arg;

	va_start(ap, request);
	arg = va_arg(ap, unsigned long);
	va_end(ap);
	if (request == PERF_EVENT_IOC_ENABLE || request == PERF_EVENT_IOC_DISABLE) {
		if (nr_ioctls < MAX_CALLS) {
			ioctl_fds[nr_ioctls] = fd;
			ioctl_requests[nr_ioctls++] = request;
		}
		ioctl_group_flag &= arg == PERF_IOC_FLAG_GROUP;
		return 0;
	}
	return __real_ioctl(fd, request, arg);
}

#define HW(c) PERF_TYPE_HARDWARE, PERF_COUNT_HW_##c
#define SW(c) PERF_TYPE_SOFTWARE, PERF_COUNT_SW_##c
#define CACHE(c, op, result) PERF_TYPE_HW_CACHE, \
	(PERF_COUNT_HW_CACHE_##c | PERF_COUNT_HW_CACHE_OP_##op << 8 | \
	 PERF_COUNT_HW_CACHE_RESULT_##result << 16)

/* The opens of basic then sw, in a thread, after prepare's probe. */
static const struct open_call *thread_opens(const struct refusal *r, unsigned int n,
					    unsigned int *nr)
{
	char err[256];
	struct counters_thread *ct;
	unsigned int first;

	script = r;
	nr_script = n;
	if (counters_select("basic,sw", NULL, err, sizeof(err)))
		fail_msg("%s", err);
	counters_prepare(NULL);
	first = nr_calls = 0;
	nr_ioctls = 0;
	ct = counters_thread_open();
	assert_non_null(ct);
	*nr = nr_calls - first;
	counters_thread_enable(ct);
	return calls + first;
}

static void expect_open(const struct open_call *c, uint32_t type, uint64_t config,
			int group)
{
	if (c->type != type || c->config != config || c->group != group)
		fail_msg("opened type %u config %#llx in group %d, expected type %u config %#llx in group %d",
			 c->type, (unsigned long long)c->config, c->group, type,
			 (unsigned long long)config, group);
}

static const char *set_field(const char *set, const char *field, json_t **ctx)
{
	*ctx = counters_context();
	return json_string_value(json_object_get(json_object_get(json_object_get(*ctx, "sets"),
								 set), field));
}

/* Everything opens: cycles leads basic, sw's four are alone; 5 groups enabled. */
static void hardware_events_are_one_group(void **unused)
{
	const struct open_call *c;
	unsigned int n;
	json_t *ctx;

	(void)unused;
	c = thread_opens(NULL, 0, &n);
	assert_int_equal(n, 8);
	expect_open(&c[0], HW(CPU_CYCLES), -1);
	expect_open(&c[1], HW(INSTRUCTIONS), c[0].fd);
	expect_open(&c[2], CACHE(L1D, READ, MISS), c[0].fd);
	expect_open(&c[3], CACHE(LL, READ, MISS), c[0].fd);
	expect_open(&c[4], SW(TASK_CLOCK), -1);
	expect_open(&c[5], SW(PAGE_FAULTS), -1);
	expect_open(&c[6], SW(CONTEXT_SWITCHES), -1);
	expect_open(&c[7], SW(CPU_MIGRATIONS), -1);
	/*
	 * Nothing resets a count: a leader opened running would count the
	 * harness's own work from its open to the first enable. And each
	 * read needs the times enabled and running, to scale a multiplexed
	 * count (counters_thread.c's read_scaled()).
	 */
	for (unsigned int i = 0; i < n; i++) {
		if (c[i].group < 0 && !c[i].disabled)
			fail_msg("event %u leads a group and opens running", i);
		if (c[i].read_format != (PERF_FORMAT_TOTAL_TIME_ENABLED |
					 PERF_FORMAT_TOTAL_TIME_RUNNING))
			fail_msg("event %u reads %#llx, not the times enabled and running", i,
				 (unsigned long long)c[i].read_format);
	}
	assert_int_equal(nr_ioctls, 5);
	assert_int_equal(ioctl_fds[0], c[0].fd);
	assert_int_equal(ioctl_requests[0], PERF_EVENT_IOC_ENABLE);
	for (unsigned int i = 1; i < 5; i++)
		assert_int_equal(ioctl_fds[i], c[3 + i].fd);
	assert_true(ioctl_group_flag);
	assert_string_equal(set_field("basic", "status", &ctx), "ok");
	json_decref(ctx);
	assert_string_equal(set_field("sw", "summary", &ctx), "ok");
	json_decref(ctx);
	counters_thread_finish(counters_thread_open(), NULL, 0);
}

/*
 * instructions will not join the group (EINVAL): the probe finds it alone,
 * and a thread opens it alone at once; cycles still leads the others.
 */
static void an_event_the_group_refuses_is_opened_alone(void **unused)
{
	static const struct refusal r[] = { { HW(INSTRUCTIONS), EINVAL, 0 } };
	const struct open_call *c;
	unsigned int n;
	json_t *ctx;

	(void)unused;
	c = thread_opens(r, 1, &n);
	assert_int_equal(n, 8);
	expect_open(&c[0], HW(CPU_CYCLES), -1);
	expect_open(&c[1], HW(INSTRUCTIONS), -1);
	expect_open(&c[2], CACHE(L1D, READ, MISS), c[0].fd);
	expect_open(&c[3], CACHE(LL, READ, MISS), c[0].fd);
	/* two leaders in basic (cycles, instructions alone), four in sw */
	assert_int_equal(nr_ioctls, 6);
	assert_string_equal(set_field("basic", "status", &ctx), "ok");
	json_decref(ctx);

	/* run with stdin closed: the leader may be fd 0, and is still a group */
	{
		int saved = dup(0);

		assert_true(saved > 0);
		close(0);
		c = thread_opens(r, 1, &n);
		assert_int_equal(c[0].fd, 0);
		expect_open(&c[1], HW(INSTRUCTIONS), -1);
		expect_open(&c[2], CACHE(L1D, READ, MISS), 0);
		assert_string_equal(set_field("basic", "status", &ctx), "ok");
		json_decref(ctx);
		counters_thread_finish(counters_thread_open(), NULL, 0);
		assert_int_equal(dup2(saved, 0), 0);
		close(saved);
	}
}

/*
 * cycles cannot be opened at all (EBUSY): instructions leads the group;
 * basic is partial, and says which event and why.
 */
static void the_first_that_opens_leads(void **unused)
{
	static const struct refusal r[] = { { HW(CPU_CYCLES), EBUSY, EBUSY } };
	const struct open_call *c;
	unsigned int n;
	json_t *ctx;

	(void)unused;
	c = thread_opens(r, 1, &n);
	assert_int_equal(n, 7);
	expect_open(&c[0], HW(INSTRUCTIONS), -1);
	expect_open(&c[1], CACHE(L1D, READ, MISS), c[0].fd);
	expect_open(&c[2], CACHE(LL, READ, MISS), c[0].fd);
	expect_open(&c[3], SW(TASK_CLOCK), -1);
	assert_string_equal(set_field("basic", "status", &ctx), "partial");
	json_decref(ctx);
	assert_string_equal(set_field("basic", "summary", &ctx),
			    "cycles n/a (the counter is in use by another tool)");
	json_decref(ctx);
	assert_string_equal(set_field("sw", "status", &ctx), "ok");
	json_decref(ctx);
}

/*
 * Two reasons in one set, in the order their first events come: cycles
 * and llc busy, l1d out of files; all four busy: one reason for the set.
 */
static void a_set_names_its_events_by_reason(void **unused)
{
	static const struct refusal two[] = {
		{ HW(CPU_CYCLES), EBUSY, EBUSY },
		{ CACHE(L1D, READ, MISS), EMFILE, EMFILE },
		{ CACHE(LL, READ, MISS), EBUSY, EBUSY },
	};
	static const struct refusal all[] = {
		{ HW(CPU_CYCLES), EBUSY, EBUSY }, { HW(INSTRUCTIONS), EBUSY, EBUSY },
		{ CACHE(L1D, READ, MISS), EBUSY, EBUSY }, { CACHE(LL, READ, MISS), EBUSY, EBUSY },
	};
	unsigned int n;
	json_t *ctx;

	(void)unused;
	thread_opens(two, 3, &n);
	assert_string_equal(set_field("basic", "summary", &ctx),
			    "cycles, llc_load_misses n/a (the counter is in use by another tool); "
			    "l1d_load_misses n/a (too many open files)");
	json_decref(ctx);
	assert_string_equal(set_field("basic", "status", &ctx), "partial");
	json_decref(ctx);
	ctx = counters_context();
	assert_string_equal(json_string_value(json_object_get(json_object_get(ctx, "na"),
							      "l1d_load_misses_per_op")),
			    "n/a (too many open files)");
	assert_null(json_object_get(json_object_get(ctx, "na"), "instructions_per_op"));
	json_decref(ctx);

	/* bouncelab list --events says the same, event by event */
	{
		char *text = NULL;
		size_t len = 0;
		FILE *out = open_memstream(&text, &len);

		assert_non_null(out);
		counters_list(out);
		fclose(out);
		assert_non_null(strstr(text, ", hardware PMU yes, "));
		assert_non_null(strstr(text,
			"\n    cycles_per_op                perf::PERF_COUNT_HW_CPU_CYCLES\n"
			"                                   n/a (the counter is in use by another tool)\n"));
		assert_non_null(strstr(text,
			"\n    instructions_per_op          perf::PERF_COUNT_HW_INSTRUCTIONS\n"
			"                                   works\n"));
		assert_non_null(strstr(text,
			"\nbasic      cycles, instructions, L1D and LLC load misses\n"));
		assert_non_null(strstr(text,
			"\n           cycles, llc_load_misses n/a (the counter is in use by another tool); "
			"l1d_load_misses n/a (too many open files)\n"));
		assert_non_null(strstr(text, "\n           works here\n"));
		free(text);
	}

	thread_opens(all, 4, &n);
	assert_string_equal(set_field("basic", "summary", &ctx),
			    "n/a (the counter is in use by another tool)");
	json_decref(ctx);
	assert_string_equal(set_field("basic", "status", &ctx), "n/a");
	json_decref(ctx);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(hardware_events_are_one_group),
		cmocka_unit_test(an_event_the_group_refuses_is_opened_alone),
		cmocka_unit_test(the_first_that_opens_leads),
		cmocka_unit_test(a_set_names_its_events_by_reason),
	};

	(void)argc;
	(void)argv;
	if (!HAVE_PFM) {
		printf("skip: built without libpfm4, which encodes the events\n");
		return TEST_SKIPPED;
	}
	counters_init();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
