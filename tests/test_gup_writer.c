// SPDX-License-Identifier: GPL-2.0-only
/*
 * The page-table writer's pause between changes: pace_ns split into the
 * seconds and nanoseconds nanosleep() takes (nanosleep() wrapped in this
 * program: it records its request and returns at once), and no sleep at
 * all, a yield, for a pace of 0. And its start refused: a second writer
 * on one mm, and a writer that cannot be allocated (calloc() wrapped to
 * fail once).
 */
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "gup/gup_internal.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct timespec asked;
static atomic_uint nr_sleeps;

int __real_nanosleep(const struct timespec *req, struct timespec *rem);
int __wrap_nanosleep(const struct timespec *req, struct timespec *rem);

int __wrap_nanosleep(const struct timespec *req, struct timespec *rem)
{
	(void)rem;
	pthread_mutex_lock(&lock);
	asked = *req;
	pthread_mutex_unlock(&lock);
	atomic_fetch_add(&nr_sleeps, 1);
	return 0;
}

/* The next calloc() fails, once. */
static bool fail_next_calloc;

void *__real_calloc(size_t nmemb, size_t size);
void *__wrap_calloc(size_t nmemb, size_t size);

void *__wrap_calloc(size_t nmemb, size_t size)
{
	if (fail_next_calloc) {
		fail_next_calloc = false;
		return NULL;
	}
	return __real_calloc(nmemb, size);
}

static struct gup_mm *small_mm(void)
{
	struct gup_layout layout = {
		.nr_buffers = 1, .buffer_bytes = 1UL << 20, .page_size = GUP_PAGES_4K,
	};
	char err[256];
	struct gup_mm *mm = gup_mm_create(&layout, err, sizeof(err));

	if (!mm)
		fail_msg("gup_mm_create: %s", err);
	return mm;
}

/* Runs the writer at pace_ns until it made 10 changes; returns them. */
static uint64_t run_writer(struct gup_mm *mm, unsigned long pace_ns)
{
	char err[256];
	uint64_t changes;

	atomic_store(&nr_sleeps, 0);
	memset(&asked, 0xff, sizeof(asked));
	if (gup_writer_start(mm, pace_ns, err, sizeof(err)))
		fail_msg("%s", err);
	/* the pause comes after each change; with a pace, nanosleep each time */
	while (pace_ns && atomic_load(&nr_sleeps) < 10)
		sched_yield();
	if (!pace_ns) {
		struct timespec tick = { 0, 1000000 };

		__real_nanosleep(&tick, NULL);	/* the test's own wait */
	}
	changes = gup_writer_stop(mm);
	assert_true(changes >= (pace_ns ? 10 : 0));
	return changes;
}

/*
 * 2.5 s: 2 s and 500000000 ns; 999 ns: 0 s and 999 ns. Catches
 * writer_pause()'s tv_sec as pace * 1e9 or tv_nsec as pace * 1e9
 * (instead of / and %).
 */
static void the_pace_is_split_into_seconds_and_nanoseconds(void **unused)
{
	static const struct {
		unsigned long pace_ns;
		time_t sec;
		long nsec;
	} cases[] = {
		{ 2500000000UL, 2, 500000000 },
		{ 999, 0, 999 },
		{ 1000000000UL, 1, 0 },
	};
	struct gup_mm *mm = small_mm();

	(void)unused;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		run_writer(mm, cases[i].pace_ns);
		pthread_mutex_lock(&lock);
		assert_int_equal(asked.tv_sec, cases[i].sec);
		assert_int_equal(asked.tv_nsec, cases[i].nsec);
		pthread_mutex_unlock(&lock);
	}
	gup_mm_destroy(mm);
}

/* A pace of 0 yields between changes and never sleeps. */
static void no_pace_never_sleeps(void **unused)
{
	struct gup_mm *mm = small_mm();

	(void)unused;
	run_writer(mm, 0);
	assert_int_equal(atomic_load(&nr_sleeps), 0);
	gup_mm_destroy(mm);
}

/*
 * A writer that cannot start says why and leaves none behind: the first
 * start fails for memory (its one allocation), the next starts, a third
 * while that one runs is refused. Catches a refusal that returns 0, which
 * the caller takes for a writer running.
 */
static void a_writer_that_cannot_start_is_refused(void **unused)
{
	struct gup_mm *mm = small_mm();
	char err[256] = "";

	(void)unused;
	fail_next_calloc = true;
	assert_int_equal(gup_writer_start(mm, 1000, err, sizeof(err)), -1);
	assert_string_equal(err, "gup: out of memory for the writer");
	assert_null(mm->writer);
	assert_int_equal(gup_writer_start(mm, 1000, err, sizeof(err)), 0);
	assert_non_null(mm->writer);
	assert_int_equal(gup_writer_start(mm, 1000, err, sizeof(err)), -1);
	assert_string_equal(err, "gup: the writer is already running");
	gup_writer_stop(mm);
	assert_null(mm->writer);
	gup_mm_destroy(mm);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(the_pace_is_split_into_seconds_and_nanoseconds),
		cmocka_unit_test(no_pace_never_sleeps),
		cmocka_unit_test(a_writer_that_cannot_start_is_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
