// SPDX-License-Identifier: GPL-2.0-only
/*
 * A set's summary when it is longer than its 1024-byte buffer: sixteen
 * events, each refused by a stand-in perf_event_open() (the link wraps
 * syscall()) with an errno of its own, make sixteen groups, "NAME n/a
 * (cannot open: Unknown error N)", joined by "; ": more than 1023
 * characters. The summary is that text cut at 1023 characters, no more,
 * no less: the text is built here from each event's counter and reason
 * as the context lists them.
 */
#include <errno.h>
#include <linux/perf_event.h>
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
#include <jansson.h>

#include "cases.h"
#include "config.h"
#include "counters.h"
#include "perf_stand_in.h"

/* No errno below 200 is this high: strerror() says "Unknown error N". */
#define FIRST_ERRNO 200
#define NR_EVENTS 16

static int next_errno = FIRST_ERRNO;
/* the hardware probe's attributes, as asked for, and how often */
static struct perf_event_attr probe;
static unsigned int nr_probes;

long perf_open_stand_in(const struct perf_event_attr *attr, int group_fd)
{
	(void)group_fd;
	if (attr->type == PERF_TYPE_HARDWARE) {
		probe = *attr;
		nr_probes++;
	}
	/* the hardware probe: no PMU; each software event: an errno of its own */
	errno = attr->type == PERF_TYPE_SOFTWARE ? next_errno++ : ENOENT;
	return -1;
}

static const char *text_of(json_t *obj, const char *key)
{
	return json_string_value(json_object_get(obj, key));
}

/*
 * Catches append()'s room given to vsnprintf() as "len + *used" instead of
 * "len - *used" (the text runs past the buffer: the summary comes out
 * whole, longer than 1023), and its clamp at "len - 1" moved (the last
 * group's text cut one place off).
 */
static void a_long_summary_is_cut_at_its_buffer(void **unused)
{
	char events[NR_EVENTS * 40] = "", err[256], whole[4096] = "";
	json_t *ctx, *set, *list, *e;
	size_t i, n = 0;

	(void)unused;
	for (int k = 0; k < NR_EVENTS; k++)
		strcat(events, k ? ",perf::PERF_COUNT_SW_PAGE_FAULTS" : "perf::PERF_COUNT_SW_PAGE_FAULTS");
	if (counters_select("none", events, err, sizeof(err)))
		fail_msg("%s", err);
	next_errno = FIRST_ERRNO;
	counters_prepare(NULL);
	ctx = counters_context();
	set = json_object_get(json_object_get(ctx, "sets"), "events");
	list = json_object_get(set, "events");
	assert_int_equal(json_array_size(list), NR_EVENTS);
	/* "NAME n/a (why)" for each, in order, "; " between */
	json_array_foreach(list, i, e) {
		const char *counter = text_of(e, "counter");
		char why[64];

		snprintf(why, sizeof(why), "cannot open: Unknown error %d", FIRST_ERRNO + (int)i);
		assert_string_equal(text_of(e, "status"), "n/a");
		assert_string_equal(text_of(e, "reason"), why);
		n += (size_t)snprintf(whole + n, sizeof(whole) - n, "%s%.*s n/a (%s)",
				      i ? "; " : "",
				      (int)(strlen(counter) - strlen("_per_op")), counter, why);
	}
	assert_true(strlen(whole) > 1023);
	whole[1023] = '\0';
	assert_string_equal(text_of(set, "status"), "n/a");
	assert_string_equal(text_of(set, "summary"), whole);
	json_decref(ctx);
}

/*
 * The PMU probe asks for user-space cycles and nothing else: every field
 * of the attributes zero but its type, size, config and the three flags
 * it sets (a field left at another value could make the kernel refuse a
 * PMU that is there, or sample instead of count). Compared with an
 * attribute built here, field by field as the probe's comment says.
 */
static void the_pmu_probe_asks_for_cycles_alone(void **unused)
{
	struct perf_event_attr want;
	char err[256];

	(void)unused;
	memset(&want, 0, sizeof(want));
	want.type = PERF_TYPE_HARDWARE;
	want.size = sizeof(want);
	want.config = PERF_COUNT_HW_CPU_CYCLES;
	want.disabled = 1;
	want.exclude_kernel = 1;
	want.exclude_hv = 1;
	nr_probes = 0;
	memset(&probe, 0x5a, sizeof(probe));
	if (counters_select("none", "perf::PERF_COUNT_SW_PAGE_FAULTS", err, sizeof(err)))
		fail_msg("%s", err);
	counters_prepare(NULL);
	assert_true(nr_probes >= 1);
	assert_memory_equal(&probe, &want, sizeof(want));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_long_summary_is_cut_at_its_buffer),
		cmocka_unit_test(the_pmu_probe_asks_for_cycles_alone),
	};

	if (!HAVE_PFM) {
		printf("skip: built without libpfm4, which encodes the events\n");
		return TEST_SKIPPED;
	}
	counters_init();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
