// SPDX-License-Identifier: GPL-2.0-only
/*
 * Concurrent pinners race the page-table writer. Whatever the
 * interleaving, a caller never holds a page that the writer replaced (so
 * never one that was not mapped at its recheck), every pin is undone, and
 * no frame is lost. The race must really happen: the writer changes
 * entries, fast calls retry on the seqcount, and rechecks fail.
 *
 * Built as its own program so that it can run under ThreadSanitizer:
 *   meson setup build-tsan -Db_sanitize=thread -Dbuildtype=debugoptimized
 *   meson test -C build-tsan gup_race
 * The model uses C11 atomics for every shared word, so TSan checks the
 * model's synchronisation itself, not only the test's.
 */
#include <errno.h>
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

#define NR_PINNERS 3
#define CALLS_PER_PINNER 4000
#define MAX_PAGES (GUP_HPAGE_NR + 64)
/*
 * Pinners go on past CALLS_PER_PINNER until the race has shown both of
 * its outcomes (a seqcount retry and a failed recheck), but never past
 * this many seconds: bounded in time, not in calls.
 */
#define RACE_SECONDS 60

/* What the pinners have seen so far, shared so that each knows when to stop. */
struct race_seen {
	atomic_bool seq_retry;
	atomic_bool recheck_failure;
	struct timespec deadline;
};

struct pinner {
	pthread_t tid;
	struct gup_mm *mm;
	struct gup_task task;
	uint64_t rnd;
	pthread_barrier_t *start;
	struct race_seen *seen;
	unsigned long calls;
	struct gup_page *pages[MAX_PAGES];
	unsigned long violations;
	char first_violation[256];
};

static uint64_t next_random(uint64_t *state)
{
	*state ^= *state << 13;
	*state ^= *state >> 7;
	*state ^= *state << 17;
	return *state;
}

static void violation(struct pinner *p, const char *what, unsigned long addr)
{
	if (!p->violations++)
		snprintf(p->first_violation, sizeof(p->first_violation),
			 "%s at %#lx", what, addr);
}

/*
 * The page at addr is held by this caller: its folio must still be the
 * one mapped there, since a writer that sees a reference puts the entry
 * back, and one that saw none made our recheck fail.
 */
static void check_held(struct pinner *p, unsigned long start, unsigned long nr,
		       unsigned int flags)
{
	for (unsigned long i = 0; i < nr; i++) {
		unsigned long addr = start + i * GUP_PAGE_SIZE;
		struct gup_page *folio = page_folio(p->pages[i]);
		unsigned long folio_addr = folio_is_large(folio) ?
					   addr & ~(GUP_HPAGE_SIZE - 1) : addr;

		if (atomic_load(&folio->mapped_at) != folio_addr)
			violation(p, "a held page was replaced", addr);
		if ((flags & FOLL_PIN) && !gup_page_maybe_dma_pinned(p->pages[i]))
			violation(p, "a pinned page is not dma-pinned", addr);
		if ((flags & FOLL_LONGTERM) && !gup_page_longterm_pinnable(p->pages[i]))
			violation(p, "a longterm pin holds a CMA page", addr);
	}
}

static long random_call(struct pinner *p, unsigned long start, unsigned long nr,
			unsigned int *flags)
{
	unsigned int kind = (unsigned int)(next_random(&p->rnd) % 5);

	*flags = FOLL_WRITE;
	switch (kind) {
	case 0:
		*flags |= FOLL_PIN;
		return pin_user_pages_fast(&p->task, start, nr, FOLL_WRITE, p->pages);
	case 1:
		return get_user_pages_fast(&p->task, start, nr, FOLL_WRITE, p->pages);
	case 2:
		*flags |= FOLL_PIN | FOLL_LONGTERM;
		return pin_user_pages_fast(&p->task, start, nr, FOLL_WRITE | FOLL_LONGTERM,
					   p->pages);
	case 3:
		*flags |= FOLL_PIN;
		return pin_user_pages(&p->task, start, nr, FOLL_WRITE, p->pages);
	default:
		return get_user_pages(&p->task, start, nr, FOLL_WRITE, p->pages);
	}
}

static bool past(const struct timespec *deadline)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return now.tv_sec > deadline->tv_sec ||
	       (now.tv_sec == deadline->tv_sec && now.tv_nsec >= deadline->tv_nsec);
}

/* Enough calls and both outcomes seen, or out of time. */
static bool pinner_done(struct pinner *p)
{
	const struct gup_stats *st = &p->task.stats;

	if (st->seq_retries + st->seq_busy)
		atomic_store(&p->seen->seq_retry, true);
	if (st->recheck_failures)
		atomic_store(&p->seen->recheck_failure, true);
	if (past(&p->seen->deadline))
		return true;
	return p->calls >= CALLS_PER_PINNER && atomic_load(&p->seen->seq_retry) &&
	       atomic_load(&p->seen->recheck_failure);
}

static void *pinner_main(void *arg)
{
	struct pinner *p = arg;
	unsigned long buffer_pages = gup_buffer_pages(p->mm);

	pthread_barrier_wait(p->start);
	for (; !pinner_done(p); p->calls++) {
		unsigned long nr = 1 + next_random(&p->rnd) % MAX_PAGES;
		unsigned long first, start;
		unsigned int flags;
		long got;

		if (nr > buffer_pages)
			nr = buffer_pages;
		first = next_random(&p->rnd) % (buffer_pages - nr + 1);
		start = gup_buffer_start(p->mm, (unsigned int)(next_random(&p->rnd) % 2)) +
			first * GUP_PAGE_SIZE;
		got = random_call(p, start, nr, &flags);
		/*
		 * Only a longterm pin may come back short: its migration out
		 * of CMA gives up (-EBUSY) while others keep holding a folio.
		 */
		if (got != (long)nr && !((flags & FOLL_LONGTERM) &&
					 (got == -EBUSY || got > 0)))
			violation(p, "a call came back short", start);
		if (got <= 0)
			continue;
		check_held(p, start, (unsigned long)got, flags);
		sched_yield();
		check_held(p, start, (unsigned long)got, flags);
		if (flags & FOLL_PIN)
			unpin_user_pages(&p->task, p->pages, (unsigned long)got);
		else
			put_user_pages(&p->task, p->pages, (unsigned long)got);
	}
	return NULL;
}

/*
 * A second, slow writer: it yields between clearing-and-checking and
 * replacing, and pinners sometimes yield between reading an entry and
 * grabbing its page, so that grabs land inside a change and the recheck
 * really has something to catch.
 */
struct slow_writer {
	pthread_t tid;
	struct gup_mm *mm;
	atomic_bool stop;
	uint64_t changes;
};

static void *slow_writer_main(void *arg)
{
	struct slow_writer *w = arg;
	struct gup_mm *mm = w->mm;
	unsigned long folios = 0;

	while (!atomic_load(&w->stop)) {
		const struct gup_vma *vma = &mm->vmas[folios % 2];
		unsigned long n = (folios / 2) % gup_buffer_pages(mm);
		unsigned long addr = vma->start + n * GUP_PAGE_SIZE;
		struct gup_zap z;

		folios += 7;	/* a stride that visits THPs and 4K pages alike */
		if (gup_zap_begin(mm, addr, w->changes % 3 == 0, &z))
			continue;
		sched_yield();
		gup_zap_end(&z);
		w->changes++;
	}
	return NULL;
}

static void yield_sometimes(struct gup_mm *mm, unsigned long addr, void *arg)
{
	static _Thread_local unsigned int grabs;

	(void)mm;
	(void)addr;
	(void)arg;
	if (++grabs % 16 == 0)
		sched_yield();
}

/* Waits, boundedly, until the writer has made its first change. */
static void wait_for_writer(struct gup_mm *mm)
{
	struct timespec ms = { .tv_nsec = 1000000 };

	for (int i = 0; i < 10000; i++) {
		if (atomic_load(&mm->write_protect_seq) >= 2)
			return;
		nanosleep(&ms, NULL);
	}
	fail_msg("the writer made no change in 10 s");
}

static void race(enum gup_page_size size, enum gup_longterm_check check,
		 enum gup_flag_update update)
{
	struct gup_layout layout = {
		.flag_update = update,
		.longterm_check = check,
		.nr_buffers = 2,
		.buffer_bytes = 3 * GUP_HPAGE_SIZE + 40 * GUP_PAGE_SIZE,
		.page_size = size,
		.cma_percent = 10,
	};
	struct pinner *p = calloc(NR_PINNERS, sizeof(*p));
	struct gup_stats sum = { 0 };
	struct slow_writer slow = { 0 };
	struct race_seen seen = { 0 };
	unsigned long calls = 0;
	pthread_barrier_t start;
	struct gup_mm *mm;
	char err[320];
	uint64_t changes;

	assert_non_null(p);
	mm = gup_mm_create(&layout, err, sizeof(err));
	if (!mm)
		fail_msg("%s", err);
	pthread_barrier_init(&start, NULL, NR_PINNERS + 1);
	clock_gettime(CLOCK_MONOTONIC, &seen.deadline);
	seen.deadline.tv_sec += RACE_SECONDS;
	for (unsigned int t = 0; t < NR_PINNERS; t++) {
		p[t].mm = mm;
		p[t].seen = &seen;
		p[t].rnd = 0x2545f4914f6cdd1dULL * (t + 1);
		p[t].start = &start;
		gup_task_init(&p[t].task, mm);
		assert_int_equal(pthread_create(&p[t].tid, NULL, pinner_main, &p[t]), 0);
	}
	mm->hooks.before_grab = yield_sometimes;
	if (gup_writer_start(mm, 0, err, sizeof(err)))
		fail_msg("%s", err);
	wait_for_writer(mm);
	slow.mm = mm;
	assert_int_equal(pthread_create(&slow.tid, NULL, slow_writer_main, &slow), 0);
	pthread_barrier_wait(&start);
	for (unsigned int t = 0; t < NR_PINNERS; t++)
		pthread_join(p[t].tid, NULL);
	atomic_store(&slow.stop, true);
	pthread_join(slow.tid, NULL);
	changes = gup_writer_stop(mm) + slow.changes;
	pthread_barrier_destroy(&start);

	for (unsigned int t = 0; t < NR_PINNERS; t++) {
		if (p[t].violations)
			fail_msg("pinner %u: %lu violations, first: %s", t,
				 p[t].violations, p[t].first_violation);
		sum.pins_acquired += p[t].task.stats.pins_acquired;
		sum.pins_released += p[t].task.stats.pins_released;
		sum.pages_returned += p[t].task.stats.pages_returned;
		sum.pages_released += p[t].task.stats.pages_released;
		sum.seq_retries += p[t].task.stats.seq_retries + p[t].task.stats.seq_busy;
		sum.recheck_failures += p[t].task.stats.recheck_failures;
		sum.slow_path_calls += p[t].task.stats.slow_path_calls;
		sum.longterm_migrations += p[t].task.stats.longterm_migrations;
		calls += p[t].calls;
	}
	assert_int_equal(sum.pins_acquired, sum.pins_released);
	assert_int_equal(sum.pages_returned, sum.pages_released);
	if (gup_mm_check_at_rest(mm, err, sizeof(err)))
		fail_msg("after the race: %s", err);
	print_message("%s/%s: %llu writer changes, %llu seqcount retries, %llu recheck failures, %llu slow-path calls, %llu CMA migrations\n",
		      gup_page_size_names[size], gup_longterm_check_names[check],
		      (unsigned long long)changes, (unsigned long long)sum.seq_retries,
		      (unsigned long long)sum.recheck_failures,
		      (unsigned long long)sum.slow_path_calls,
		      (unsigned long long)sum.longterm_migrations);
	/*
	 * A race that never happened tested nothing. The pinners' and the
	 * slow writer's yields put changes inside the pinners' windows on
	 * one CPU as on many, so both outcomes come within seconds.
	 */
	if (!changes || !sum.seq_retries || !sum.recheck_failures)
		fail_msg("in %lu calls (%d s at most) the race did not happen: %llu writer changes, "
			 "%llu seqcount retries, %llu recheck failures; each must be above 0",
			 calls, RACE_SECONDS, (unsigned long long)changes,
			 (unsigned long long)sum.seq_retries,
			 (unsigned long long)sum.recheck_failures);
	gup_mm_destroy(mm);
	free(p);
}

static void pinners_race_the_writer_on_4k_pages(void **unused)
{
	(void)unused;
	race(GUP_PAGES_4K, GUP_LONGTERM_IN_WALK, GUP_STORE_ALWAYS);
}

static void pinners_race_the_writer_on_thps(void **unused)
{
	(void)unused;
	race(GUP_PAGES_2M, GUP_LONGTERM_SECOND_PASS, GUP_TEST_THEN_SET_BIT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(pinners_race_the_writer_on_4k_pages),
		cmocka_unit_test(pinners_race_the_writer_on_thps),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
