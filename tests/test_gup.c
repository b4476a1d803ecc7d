// SPDX-License-Identifier: GPL-2.0-only
/*
 * The mini GUP walker, one thread at a time: pin accounting for 4K pages
 * and THPs as the kernel does it, every reference back after any mix of
 * calls, the two FOLL_LONGTERM checks rejecting the same CMA pages, and
 * the recheck and seqcount retry on interleavings forced by test hooks
 * (this file is built with GUP_TEST_HOOKS).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include <cmocka.h>

#include "gup/gup_internal.h"
#include "gup/gup_test_driver.h"

#define MIB (1UL << 20)

static struct gup_mm *make_mm(enum gup_page_size size, unsigned long bytes,
			      unsigned int nr_buffers, unsigned int cma_percent,
			      enum gup_longterm_check check,
			      enum gup_flag_update update)
{
	struct gup_layout layout = {
		.flag_update = update,
		.longterm_check = check,
		.nr_buffers = nr_buffers,
		.buffer_bytes = bytes,
		.page_size = size,
		.cma_percent = cma_percent,
	};
	char err[256];
	struct gup_mm *mm = gup_mm_create(&layout, err, sizeof(err));

	if (!mm)
		fail_msg("gup_mm_create: %s", err);
	return mm;
}

static void assert_at_rest(struct gup_mm *mm)
{
	char msg[320];

	if (gup_mm_check_at_rest(mm, msg, sizeof(msg)))
		fail_msg("not at rest: %s", msg);
}

static struct gup_page *page_at(struct gup_mm *mm, unsigned long addr)
{
	bool huge = false;
	gup_entry_t *ep = gup_leaf_entry(mm, addr, &huge);
	struct gup_page *page;

	assert_non_null(ep);
	page = pfn_to_page(mm, entry_pfn(atomic_load(ep)));
	if (huge)
		page += (addr & (GUP_HPAGE_SIZE - 1)) >> GUP_PAGE_SHIFT;
	return page;
}

static int refcount(struct gup_page *folio)
{
	return atomic_load(&folio->refcount);
}

static int pincount(struct gup_page *folio)
{
	return atomic_load(folio_pincount_ptr(folio));
}

/*
 * The page-table writer's sweep, against the buffers' own layout: each
 * buffer's huge folios a huge page apart up to huge_end, then its small
 * pages one page apart up to its end, the buffers in turn, and then the
 * first buffer again. Three buffers of two huge pages and three small
 * ones each: fifteen addresses a sweep, walked twice.
 */
static void the_writer_sweeps_every_folio_in_turn(void **unused)
{
	struct gup_mm *mm = make_mm(GUP_PAGES_2M, 2 * GUP_HPAGE_SIZE + 3 * GUP_PAGE_SIZE, 3, 0,
				    GUP_LONGTERM_IN_WALK, GUP_READ_THEN_SET);
	unsigned long want[16];
	unsigned int n = 0;

	(void)unused;
	assert_int_equal(mm->nr_vmas, 3);
	for (unsigned int b = 0; b < mm->nr_vmas; b++) {
		const struct gup_vma *vma = &mm->vmas[b];
		unsigned long addr = vma->start;

		assert_int_equal(vma->huge_end - vma->start, 2 * GUP_HPAGE_SIZE);
		for (; addr < vma->huge_end; addr += GUP_HPAGE_SIZE)
			want[n++] = addr;
		for (; addr < vma->end; addr += GUP_PAGE_SIZE)
			want[n++] = addr;
	}
	assert_int_equal(n, 15);
	for (unsigned int sweep = 0; sweep < 2; sweep++)
		for (unsigned int k = 0; k < n; k++) {
			unsigned long got = gup_writer_next_addr(mm);

			if (got != want[k])
				fail_msg("sweep %u, change %u: %#lx, expected %#lx", sweep, k, got,
					 want[k]);
		}
	gup_mm_destroy(mm);
}

/*
 * A pin adds GUP_PIN_COUNTING_BIAS to a small page; a get adds 1, and
 * enough gets look like a pin.
 */
static void small_pages_are_accounted_with_the_bias(void **unused)
{
	struct gup_mm *mm = make_mm(GUP_PAGES_4K, MIB, 1, 0, GUP_LONGTERM_IN_WALK,
				    GUP_TEST_THEN_SET_BIT);
	unsigned long start = gup_buffer_start(mm, 0) + 5 * GUP_PAGE_SIZE;
	struct gup_page *pages[3], *gets[3];
	struct gup_task task;

	(void)unused;
	gup_task_init(&task, mm);
	assert_int_equal(pin_user_pages_fast(&task, start, 3, FOLL_WRITE, pages), 3);
	for (int i = 0; i < 3; i++) {
		assert_ptr_equal(pages[i], page_at(mm, start + i * GUP_PAGE_SIZE));
		assert_int_equal(refcount(pages[i]), 1 + GUP_PIN_COUNTING_BIAS);
		assert_true(gup_page_maybe_dma_pinned(pages[i]));
		assert_true(atomic_load(&pages[i]->flags) & (1UL << PG_REFERENCED));
	}
	assert_int_equal(task.stats.pins_acquired, 3);
	assert_int_equal(task.stats.slow_path_calls, 0);

	assert_int_equal(get_user_pages_fast(&task, start + GUP_PAGE_SIZE, 3, 0, gets), 3);
	assert_int_equal(refcount(gets[0]), 2 + GUP_PIN_COUNTING_BIAS);
	assert_int_equal(refcount(gets[2]), 2);
	assert_false(gup_page_maybe_dma_pinned(gets[2]));
	assert_int_equal(task.stats.pins_acquired, 3);	/* a get is no pin */

	unpin_user_pages(&task, pages, 3);
	put_user_pages(&task, gets, 3);
	assert_int_equal(refcount(pages[0]), 1);
	assert_int_equal(task.stats.pins_released, 3);

	/*
	 * The "maybe" the kernel documents: gets that bring a small page's
	 * count to the bias (its mapping's reference and 1023 gets) read as
	 * a pin; one fewer does not.
	 */
	{
		static struct gup_page *many[GUP_PIN_COUNTING_BIAS];

		for (int i = 0; i < GUP_PIN_COUNTING_BIAS - 2; i++)
			assert_int_equal(get_user_pages_fast(&task, start, 1, 0, &many[i]), 1);
		assert_int_equal(refcount(many[0]), GUP_PIN_COUNTING_BIAS - 1);
		assert_false(gup_page_maybe_dma_pinned(many[0]));
		assert_int_equal(get_user_pages_fast(&task, start, 1, 0,
						     &many[GUP_PIN_COUNTING_BIAS - 2]), 1);
		assert_int_equal(refcount(many[0]), GUP_PIN_COUNTING_BIAS);
		assert_true(gup_page_maybe_dma_pinned(many[0]));
		put_user_pages(&task, many, GUP_PIN_COUNTING_BIAS - 1);
	}
	assert_at_rest(mm);
	gup_mm_destroy(mm);
}

/*
 * A THP pin adds refs to the head's refcount and to the pincount in the
 * first tail page, in one grab per folio; tails keep a zero refcount.
 */
static void thp_pins_go_to_the_head_and_the_pincount(void **unused)
{
	struct gup_mm *mm = make_mm(GUP_PAGES_2M, 4 * MIB, 1, 0, GUP_LONGTERM_IN_WALK,
				    GUP_TEST_THEN_SET_BIT);
	unsigned long base = gup_buffer_start(mm, 0);
	unsigned long start = base + (GUP_HPAGE_NR - 2) * GUP_PAGE_SIZE;
	struct gup_page *pages[5], *gets[2];
	struct gup_page *a, *b;
	struct gup_task task;

	(void)unused;
	gup_task_init(&task, mm);
	a = page_folio(page_at(mm, base));
	b = page_folio(page_at(mm, base + GUP_HPAGE_SIZE));
	assert_int_equal(a->order, 9);
	/* two pages of the first THP, three of the second */
	assert_int_equal(pin_user_pages_fast(&task, start, 5, FOLL_WRITE, pages), 5);
	assert_int_equal(refcount(a), 1 + 2);
	assert_int_equal(pincount(a), 2);
	assert_int_equal(refcount(b), 1 + 3);
	assert_int_equal(pincount(b), 3);
	assert_int_equal(refcount(a + 1), 0);
	assert_ptr_equal(pages[0], a + GUP_HPAGE_NR - 2);
	assert_ptr_equal(pages[4], b + 2);
	assert_true(gup_page_maybe_dma_pinned(pages[4]));
	assert_int_equal(task.stats.pins_acquired, 5);

	assert_int_equal(get_user_pages_fast(&task, base, 2, 0, gets), 2);
	assert_int_equal(refcount(a), 1 + 2 + 2);
	assert_int_equal(pincount(a), 2);

	unpin_user_pages(&task, pages, 5);
	put_user_pages(&task, gets, 2);
	assert_int_equal(task.stats.pins_released, 5);
	assert_false(gup_page_maybe_dma_pinned(pages[4]));
	assert_at_rest(mm);
	gup_mm_destroy(mm);
}

/* The slow path accounts a pin exactly as the fast path does. */
static void slow_path_pins_are_accounted_the_same(void **unused)
{
	struct gup_mm *mm = make_mm(GUP_PAGES_2M, 2 * MIB + 64 * 1024, 1, 0,
				    GUP_LONGTERM_IN_WALK, GUP_TEST_THEN_SET_BIT);
	unsigned long base = gup_buffer_start(mm, 0);
	struct gup_page *pages[GUP_HPAGE_NR + 4];
	struct gup_page *thp, *small;
	struct gup_task task;

	(void)unused;
	gup_task_init(&task, mm);
	thp = page_folio(page_at(mm, base));
	small = page_at(mm, base + GUP_HPAGE_SIZE);
	assert_int_equal(small->order, 0);
	assert_int_equal(pin_user_pages(&task, base + 8 * GUP_PAGE_SIZE,
					GUP_HPAGE_NR - 8 + 4, FOLL_WRITE, pages),
			 GUP_HPAGE_NR - 8 + 4);
	assert_int_equal(task.stats.slow_path_calls, 1);
	assert_int_equal(refcount(thp), 1 + GUP_HPAGE_NR - 8);
	assert_int_equal(pincount(thp), GUP_HPAGE_NR - 8);
	assert_int_equal(refcount(small), 1 + GUP_PIN_COUNTING_BIAS);
	unpin_user_pages(&task, pages, GUP_HPAGE_NR - 8 + 4);
	assert_at_rest(mm);
	gup_mm_destroy(mm);
}

/* The three flag updates keep the flag where their patch put it. */
static void each_flag_update_sets_its_own_flag(void **unused)
{
	(void)unused;
	for (unsigned int u = 0; u < NR_GUP_FLAG_UPDATES; u++) {
		struct gup_mm *mm = make_mm(GUP_PAGES_4K, MIB, 1, 0,
					    GUP_LONGTERM_IN_WALK, u);
		unsigned long start = gup_buffer_start(mm, 0);
		struct gup_page *pages[2];
		struct gup_task task;

		gup_task_init(&task, mm);
		assert_int_equal(get_user_pages_fast(&task, start, 2, 0, pages), 2);
		put_user_pages(&task, pages, 2);
		assert_false(gup_mm_has_pinned(mm));	/* gets do not set it */
		assert_int_equal(pin_user_pages_fast(&task, start, 2, 0, pages), 2);
		unpin_user_pages(&task, pages, 2);
		assert_true(gup_mm_has_pinned(mm));	/* and it stays set */
		if (u == GUP_TEST_THEN_SET_BIT) {
			assert_int_equal(atomic_load(&mm->flags), 1UL << MMF_HAS_PINNED);
			assert_int_equal(atomic_load(&mm->has_pinned), 0);
		} else {
			assert_int_equal(atomic_load(&mm->has_pinned), 1);
			assert_int_equal(atomic_load(&mm->flags), 0);
		}
		gup_mm_destroy(mm);
	}
}

/* A tiny xorshift: the same "random" mix on every run. */
static uint64_t next_random(uint64_t *state)
{
	*state ^= *state << 13;
	*state ^= *state >> 7;
	*state ^= *state << 17;
	return *state;
}

struct held_batch {
	struct gup_page *pages[96];
	unsigned long nr;
	bool pinned;
};

struct expected_counts {
	int *ref;	/* by head pfn */
	int *pin;
};

static void expect_batch(struct gup_mm *mm, struct expected_counts *want,
			 const struct held_batch *b, int sign)
{
	for (unsigned long i = 0; i < b->nr; i++) {
		struct gup_page *folio = page_folio(b->pages[i]);
		unsigned long pfn = page_to_pfn(mm, folio);

		if (b->pinned && !folio_is_large(folio)) {
			want->ref[pfn] += sign * GUP_PIN_COUNTING_BIAS;
		} else {
			want->ref[pfn] += sign;
			if (b->pinned)
				want->pin[pfn] += sign;
		}
	}
}

static void assert_counts(struct gup_mm *mm, const struct expected_counts *want)
{
	for (unsigned long pfn = 0; pfn < mm->nr_frames; pfn += 1UL << mm->mem_map[pfn].order) {
		struct gup_page *folio = pfn_to_page(mm, pfn);

		if (refcount(folio) != want->ref[pfn] ||
		    (folio_is_large(folio) && pincount(folio) != want->pin[pfn]))
			fail_msg("pfn %lu: refcount %d pincount %d, expected %d and %d",
				 pfn, refcount(folio),
				 folio_is_large(folio) ? pincount(folio) : 0,
				 want->ref[pfn], want->pin[pfn]);
	}
}

/* One call of a random kind on a random range of a random buffer. */
static void take_random_batch(struct gup_mm *mm, struct gup_task *task,
			      uint64_t *rnd, struct held_batch *b)
{
	unsigned long pages = gup_buffer_pages(mm);
	unsigned long nr = 1 + next_random(rnd) % 96;
	unsigned long first = next_random(rnd) % (pages - nr + 1);
	unsigned long start = gup_buffer_start(mm, (unsigned int)(next_random(rnd) % 2)) +
			      first * GUP_PAGE_SIZE;
	unsigned int kind = (unsigned int)(next_random(rnd) % 5);
	unsigned int flags = next_random(rnd) % 2 ? FOLL_WRITE : 0;
	long got;

	b->pinned = kind != 1 && kind != 3;
	switch (kind) {
	case 0: got = pin_user_pages_fast(task, start, nr, flags, b->pages); break;
	case 1: got = get_user_pages_fast(task, start, nr, flags, b->pages); break;
	case 2: got = pin_user_pages(task, start, nr, flags, b->pages); break;
	case 3: got = get_user_pages(task, start, nr, flags, b->pages); break;
	default:
		got = pin_user_pages_fast(task, start, nr, flags | FOLL_LONGTERM, b->pages);
		break;
	}
	assert_int_equal(got, (long)nr);
	b->nr = nr;
}

static void release_batch(struct gup_task *task, struct held_batch *b)
{
	if (b->pinned)
		unpin_user_pages(task, b->pages, b->nr);
	else
		put_user_pages(task, b->pages, b->nr);
	b->nr = 0;
}

/*
 * Pins, gets, fast and slow, 4K and THP, overlapping and released in any
 * order: after every step each folio holds exactly the references the
 * held batches account for, and at the end only the mappings' remain.
 */
static void any_mix_of_pins_and_unpins_returns_to_start(void **unused)
{
	struct gup_mm *mm = make_mm(GUP_PAGES_2M, 2 * GUP_HPAGE_SIZE + 64 * 1024, 2, 0,
				    GUP_LONGTERM_SECOND_PASS, GUP_READ_THEN_SET);
	struct held_batch *held = calloc(12, sizeof(*held));
	struct expected_counts want = {
		.ref = calloc(mm->nr_frames, sizeof(int)),
		.pin = calloc(mm->nr_frames, sizeof(int)),
	};
	uint64_t rnd = 0x9e3779b97f4a7c15ULL;
	struct gup_task task;

	(void)unused;
	assert_non_null(held);
	assert_non_null(want.ref);
	assert_non_null(want.pin);
	gup_task_init(&task, mm);
	for (unsigned long pfn = 0; pfn < mm->nr_frames; pfn++)
		want.ref[pfn] = refcount(pfn_to_page(mm, pfn));
	for (unsigned int step = 0; step < 3000; step++) {
		struct held_batch *b = &held[next_random(&rnd) % 12];

		if (b->nr) {
			expect_batch(mm, &want, b, -1);
			release_batch(&task, b);
		} else {
			take_random_batch(mm, &task, &rnd, b);
			expect_batch(mm, &want, b, +1);
		}
		assert_counts(mm, &want);
	}
	for (unsigned int i = 0; i < 12; i++)
		if (held[i].nr)
			release_batch(&task, &held[i]);
	assert_int_equal(task.stats.pins_acquired, task.stats.pins_released);
	assert_int_equal(task.stats.pages_returned, task.stats.pages_released);
	assert_at_rest(mm);
	free(want.ref);
	free(want.pin);
	free(held);
	gup_mm_destroy(mm);
}

/* The CMA folios of a buffer, by address, as laid out at creation. */
static unsigned long cma_folios(struct gup_mm *mm, unsigned long *addrs)
{
	const struct gup_vma *vma = &mm->vmas[0];
	unsigned long n = 0;

	for (unsigned long a = vma->start; a < vma->end;
	     a += a < vma->huge_end ? GUP_HPAGE_SIZE : GUP_PAGE_SIZE)
		if (!folio_is_longterm_pinnable(page_folio(page_at(mm, a))))
			addrs[n++] = a;
	return n;
}

static void check_longterm_switches(enum gup_page_size size, unsigned long bytes,
				    unsigned int cma_percent, unsigned long per_call)
{
	struct gup_mm *mm[2];
	struct gup_task task[2];
	unsigned long nr = bytes / GUP_PAGE_SIZE, first_cma = nr;
	unsigned long *cma = calloc(nr, sizeof(*cma));
	struct gup_page **pages[2] = { calloc(nr, sizeof(void *)), calloc(nr, sizeof(void *)) };
	unsigned long nr_cma;
	long fast[2];

	assert_non_null(cma);
	for (unsigned int k = 0; k < 2; k++) {
		mm[k] = make_mm(size, bytes, 1, cma_percent, k, GUP_TEST_THEN_SET_BIT);
		gup_task_init(&task[k], mm[k]);
		assert_non_null(pages[k]);
	}
	nr_cma = cma_folios(mm[0], cma);
	assert_true(nr_cma > 1);
	assert_int_equal(cma_folios(mm[1], cma), nr_cma);
	first_cma = (cma[0] - gup_buffer_start(mm[0], 0)) / GUP_PAGE_SIZE;

	/* The fast path alone: both stop at the first CMA page. */
	for (unsigned int k = 0; k < 2; k++) {
		fast[k] = pin_user_pages_fast(&task[k], gup_buffer_start(mm[k], 0), nr,
					      FOLL_WRITE | FOLL_LONGTERM | FOLL_FAST_ONLY,
					      pages[k]);
		assert_int_equal(task[k].stats.longterm_rejects, 1);
		unpin_user_pages(&task[k], pages[k], (unsigned long)fast[k]);
	}
	assert_int_equal(fast[0], (long)first_cma);
	assert_int_equal(fast[1], (long)first_cma);
	/* in_walk never took a reference to what it rejected; second_pass did */
	assert_true(task[1].stats.pins_acquired > task[0].stats.pins_acquired);

	/* The whole buffer: the slow path moves out every CMA folio, once. */
	for (unsigned int k = 0; k < 2; k++) {
		unsigned long start = gup_buffer_start(mm[k], 0);

		for (unsigned long done = 0; done < nr; ) {
			unsigned long n = nr - done < per_call ? nr - done : per_call;
			long got = pin_user_pages_fast(&task[k], start + done * GUP_PAGE_SIZE, n,
						       FOLL_WRITE | FOLL_LONGTERM,
						       pages[k] + done);

			assert_true(got > 0);
			done += (unsigned long)got;
		}
		for (unsigned long i = 0; i < nr; i++)
			assert_true(gup_page_longterm_pinnable(pages[k][i]));
		assert_int_equal(mm[k]->nr_migrated, nr_cma);
		for (unsigned long i = 0; i < nr_cma; i++)
			assert_int_equal(mm[k]->migrated[i] - start, cma[i] - gup_buffer_start(mm[0], 0));
		unpin_user_pages(&task[k], pages[k], nr);
		assert_int_equal(task[k].stats.pins_acquired, task[k].stats.pins_released);
		assert_at_rest(mm[k]);
	}
	for (unsigned int k = 0; k < 2; k++) {
		gup_mm_destroy(mm[k]);
		free(pages[k]);
	}
	free(cma);
}

/* Seed 002's two designs reject exactly the same pages, 4K and THP. */
static void longterm_switches_reject_the_same_cma_pages(void **unused)
{
	(void)unused;
	check_longterm_switches(GUP_PAGES_4K, 2 * MIB, 7, 64);
	check_longterm_switches(GUP_PAGES_4K, 2 * MIB, 50, 1);
	check_longterm_switches(GUP_PAGES_2M, 8 * MIB + 256 * 1024, 30, 64);
	check_longterm_switches(GUP_PAGES_2M, 8 * MIB + 256 * 1024, 30, 1000);
}

/*
 * Forced interleavings. The hooks run inside the fast walk of the
 * pinning thread itself, standing in for a writer on another CPU.
 */
struct race_script {
	unsigned long target;	/* the address whose grab the writer races */
	struct gup_zap zap;
	bool zap_open;
	bool finish_before_grab;	/* writer done before the grab: it sees no pin */
	bool begin_after_grab;		/* writer starts after the grab: it sees the pin */
	bool bump_in_walk;		/* a fork-like change during the walk */
	unsigned long other;		/* where that change happens */
	bool retry_checked;		/* the walk reached read_seqcount_retry() */
};

/* A fork-like change elsewhere in the mm: write_protect_seq moves on. */
static void bump_elsewhere(struct gup_mm *mm, struct race_script *s)
{
	struct gup_zap z;

	s->bump_in_walk = false;
	assert_int_equal(gup_zap_begin(mm, s->other, true, &z), 0);
	gup_zap_end(&z);
}

static void race_before_grab(struct gup_mm *mm, unsigned long addr, void *arg)
{
	struct race_script *s = arg;

	if (s->bump_in_walk) {
		bump_elsewhere(mm, s);
		return;
	}
	if (addr != s->target || s->begin_after_grab || s->zap_open)
		return;
	/* (1) clear, (2) check: no pin yet, so the writer will replace */
	assert_int_equal(gup_zap_begin(mm, addr, false, &s->zap), 0);
	assert_true(s->zap.replace);
	s->zap_open = true;
	if (s->finish_before_grab) {
		gup_zap_end(&s->zap);
		s->zap_open = false;
		s->target = 0;
	}
}

static void race_after_grab(struct gup_mm *mm, unsigned long addr, void *arg)
{
	struct race_script *s = arg;

	if (addr != s->target)
		return;
	if (s->begin_after_grab) {
		/* the writer now sees our reference and puts the entry back */
		assert_int_equal(gup_zap_begin(mm, addr, false, &s->zap), 0);
		assert_false(s->zap.replace);
		assert_false(gup_zap_end(&s->zap));
	} else if (s->zap_open) {
		assert_true(gup_zap_end(&s->zap));
		s->zap_open = false;
	}
	s->target = 0;
}

static void race_before_retry(struct gup_mm *mm, void *arg)
{
	struct race_script *s = arg;

	(void)mm;
	/* the walk is over: the change comes before read_seqcount_retry() */
	s->retry_checked = true;
}

static void install_script(struct gup_mm *mm, struct race_script *s)
{
	mm->hooks.before_grab = race_before_grab;
	mm->hooks.after_grab = race_after_grab;
	mm->hooks.before_seq_retry = race_before_retry;
	mm->hooks.arg = s;
}

static void check_recheck(enum gup_page_size size, bool pin)
{
	struct gup_mm *mm = make_mm(size, 4 * MIB, 1, 0, GUP_LONGTERM_IN_WALK,
				    GUP_TEST_THEN_SET_BIT);
	unsigned long base = gup_buffer_start(mm, 0);
	unsigned long k = size == GUP_PAGES_2M ? GUP_HPAGE_NR : 9;
	unsigned long target = base + k * GUP_PAGE_SIZE;
	struct race_script s = { .target = target };
	struct gup_page *old = page_folio(page_at(mm, target));
	struct gup_page *pages[GUP_HPAGE_NR + 16];
	unsigned long nr = k + 8;
	struct gup_task task;
	long got;

	gup_task_init(&task, mm);
	install_script(mm, &s);
	got = pin ? pin_user_pages_fast(&task, base, nr, FOLL_WRITE, pages) :
		    get_user_pages_fast(&task, base, nr, FOLL_WRITE, pages);
	assert_int_equal(got, (long)nr);
	assert_false(s.zap_open);
	/* the recheck saw the new entry, gave the old folio back ... */
	assert_int_equal(task.stats.recheck_failures, 1);
	assert_int_equal(task.stats.slow_path_calls, 1);
	/* ... and the slow path took the page now mapped there */
	assert_ptr_not_equal(page_folio(pages[k]), old);
	assert_ptr_equal(pages[k], page_at(mm, target));
	/* the late grabber dropped the old folio's last reference: freed */
	assert_int_equal(refcount(old), 0);
	assert_int_equal(atomic_load(&old->mapped_at), 0);
	if (pin)
		unpin_user_pages(&task, pages, nr);
	else
		put_user_pages(&task, pages, nr);
	assert_int_equal(task.stats.pins_acquired, task.stats.pins_released);
	assert_at_rest(mm);
	gup_mm_destroy(mm);
}

/* A writer that cleared and checked before our grab wins: we let go. */
static void recheck_drops_a_page_replaced_under_the_grab(void **unused)
{
	(void)unused;
	check_recheck(GUP_PAGES_4K, true);
	check_recheck(GUP_PAGES_4K, false);
	check_recheck(GUP_PAGES_2M, true);
	check_recheck(GUP_PAGES_2M, false);
}

/* A writer that checks after our grab sees the pin and backs off. */
static void writer_backs_off_from_a_pinned_page(void **unused)
{
	struct gup_mm *mm = make_mm(GUP_PAGES_4K, MIB, 1, 0, GUP_LONGTERM_IN_WALK,
				    GUP_TEST_THEN_SET_BIT);
	unsigned long base = gup_buffer_start(mm, 0);
	unsigned long target = base + 3 * GUP_PAGE_SIZE;
	struct race_script s = { .target = target, .begin_after_grab = true };
	struct gup_page *old = page_at(mm, target), *pages[8];
	struct gup_task task;

	(void)unused;
	gup_task_init(&task, mm);
	install_script(mm, &s);
	assert_int_equal(pin_user_pages_fast(&task, base, 8, FOLL_WRITE, pages), 8);
	assert_ptr_equal(pages[3], old);
	assert_int_equal(task.stats.recheck_failures, 0);
	assert_int_equal(task.stats.slow_path_calls, 0);
	assert_int_equal(atomic_load(&old->mapped_at), target);
	unpin_user_pages(&task, pages, 8);
	assert_at_rest(mm);
	gup_mm_destroy(mm);
}

/* A writer that finished before the grab: add-unless-zero refuses the freed folio. */
static void a_freed_folio_is_never_resurrected(void **unused)
{
	struct gup_mm *mm = make_mm(GUP_PAGES_4K, MIB, 1, 0, GUP_LONGTERM_IN_WALK,
				    GUP_TEST_THEN_SET_BIT);
	unsigned long base = gup_buffer_start(mm, 0);
	struct race_script s = { .target = base + 2 * GUP_PAGE_SIZE, .finish_before_grab = true };
	struct gup_page *old = page_at(mm, s.target), *pages[4];
	struct gup_task task;

	(void)unused;
	gup_task_init(&task, mm);
	install_script(mm, &s);
	assert_int_equal(pin_user_pages_fast(&task, base, 4, FOLL_WRITE, pages), 4);
	assert_int_equal(refcount(old), 0);
	assert_ptr_not_equal(pages[2], old);
	assert_int_equal(task.stats.recheck_failures, 0);
	assert_int_equal(task.stats.slow_path_calls, 1);
	unpin_user_pages(&task, pages, 4);
	assert_at_rest(mm);
	gup_mm_destroy(mm);
}

/* A fork-like change anywhere in the mm undoes a FOLL_PIN walk, not a get. */
static void seqcount_retry_unpins_the_whole_walk(void **unused)
{
	struct gup_mm *mm = make_mm(GUP_PAGES_4K, MIB, 1, 0, GUP_LONGTERM_IN_WALK,
				    GUP_TEST_THEN_SET_BIT);
	unsigned long base = gup_buffer_start(mm, 0);
	struct race_script s = { .bump_in_walk = true, .other = base + 200 * GUP_PAGE_SIZE };
	struct gup_page *pages[32];
	struct gup_task task;

	(void)unused;
	gup_task_init(&task, mm);
	install_script(mm, &s);
	assert_int_equal(pin_user_pages_fast(&task, base, 32, FOLL_WRITE, pages), 32);
	assert_true(s.retry_checked);
	assert_int_equal(task.stats.seq_retries, 1);
	assert_int_equal(task.stats.slow_path_calls, 1);
	/* 32 pins by the walk, all undone, then 32 by the slow path */
	assert_int_equal(task.stats.pins_acquired, 64);
	assert_int_equal(task.stats.pins_released, 32);
	unpin_user_pages(&task, pages, 32);

	s.bump_in_walk = true;
	s.retry_checked = false;
	assert_int_equal(get_user_pages_fast(&task, base, 32, FOLL_WRITE, pages), 32);
	assert_false(s.bump_in_walk);
	assert_false(s.retry_checked);	/* gets ignore the seqcount */
	assert_int_equal(task.stats.seq_retries, 1);
	assert_int_equal(task.stats.slow_path_calls, 1);
	put_user_pages(&task, pages, 32);
	assert_int_equal(atomic_load(&mm->write_protect_seq), 4);
	assert_at_rest(mm);
	gup_mm_destroy(mm);
}

/* An odd seqcount sends a pin straight to the slow path; FAST_ONLY gets nothing. */
static void odd_seqcount_skips_the_walk(void **unused)
{
	struct gup_mm *mm = make_mm(GUP_PAGES_4K, MIB, 1, 0, GUP_LONGTERM_IN_WALK,
				    GUP_TEST_THEN_SET_BIT);
	unsigned long base = gup_buffer_start(mm, 0);
	struct gup_page *pages[4];
	struct gup_task task;
	struct gup_zap z;

	(void)unused;
	gup_task_init(&task, mm);
	assert_int_equal(gup_zap_begin(mm, base + 100 * GUP_PAGE_SIZE, true, &z), 0);
	assert_int_equal(pin_user_pages_fast(&task, base, 4, FOLL_FAST_ONLY, pages), 0);
	assert_int_equal(task.stats.seq_busy, 1);
	assert_int_equal(task.stats.pins_acquired, 0);
	/* a get does not look at the seqcount */
	assert_int_equal(get_user_pages_fast(&task, base, 4, FOLL_FAST_ONLY, pages), 4);
	gup_zap_end(&z);
	put_user_pages(&task, pages, 4);
	assert_at_rest(mm);
	gup_mm_destroy(mm);
}

/* Walks stop at a special or read-only entry; the slow path returns what it got. */
static void walks_stop_at_entries_they_cannot_use(void **unused)
{
	struct gup_mm *mm = make_mm(GUP_PAGES_4K, MIB, 1, 0, GUP_LONGTERM_IN_WALK,
				    GUP_TEST_THEN_SET_BIT);
	unsigned long base = gup_buffer_start(mm, 0);
	struct gup_page *pages[16];
	struct gup_task task;
	bool huge;
	gup_entry_t *ep = gup_leaf_entry(mm, base + 6 * GUP_PAGE_SIZE, &huge);
	uint64_t saved = atomic_load(ep);

	(void)unused;
	gup_task_init(&task, mm);
	atomic_store(ep, saved | GUP_ENTRY_SPECIAL);
	assert_int_equal(pin_user_pages_fast(&task, base, 16, FOLL_WRITE, pages), 6);
	assert_int_equal(task.stats.slow_path_calls, 1);
	unpin_user_pages(&task, pages, 6);
	assert_int_equal(pin_user_pages_fast(&task, base + 6 * GUP_PAGE_SIZE, 4, 0, pages),
			 -EFAULT);
	atomic_store(ep, saved & ~GUP_ENTRY_WRITE);
	assert_int_equal(pin_user_pages_fast(&task, base, 16, FOLL_WRITE, pages), 6);
	unpin_user_pages(&task, pages, 6);
	assert_int_equal(pin_user_pages_fast(&task, base, 16, 0, pages), 16);
	unpin_user_pages(&task, pages, 16);
	atomic_store(ep, saved);
	/* past the end of the buffer: the hole after it */
	assert_int_equal(get_user_pages_fast(&task, base + MIB - 2 * GUP_PAGE_SIZE, 4, 0, pages), 2);
	put_user_pages(&task, pages, 2);
	assert_int_equal(get_user_pages(&task, base + MIB, 1, 0, pages), -EFAULT);
	/*
	 * Where no top-level (pgd) entry is present: nothing, at any index
	 * the levels below would read. Catches gup_fast_pgd_range() going
	 * down a missing entry ("!present || leaf" as "&&").
	 */
	for (unsigned long k = 0; k < 4; k++) {
		unsigned long far = (1UL << 45) + k * (1UL << 30);

		assert_int_equal(get_user_pages_fast(&task, far, 1, 0, pages), -EFAULT);
		assert_int_equal(pin_user_pages_fast(&task, far, 1, FOLL_WRITE, pages), -EFAULT);
	}
	assert_at_rest(mm);
	gup_mm_destroy(mm);
}

static void bad_layouts_are_refused(void **unused)
{
	struct gup_layout layout = {
		.nr_buffers = 1, .buffer_bytes = 1000, .page_size = GUP_PAGES_4K,
	};
	char err[256];

	(void)unused;
	assert_null(gup_mm_create(&layout, err, sizeof(err)));
	assert_non_null(strstr(err, "whole 4K pages"));
	layout.buffer_bytes = MIB;
	layout.cma_percent = 101;
	assert_null(gup_mm_create(&layout, err, sizeof(err)));
	assert_non_null(strstr(err, "cma_percent 101"));
	layout.cma_percent = 0;
	layout.nr_buffers = 0;
	assert_null(gup_mm_create(&layout, err, sizeof(err)));
}

/*
 * Shared memory for the two tests below: mapped, not touched (the kernel's
 * zero pages until written), so that a mem_map of a gigabyte costs
 * nothing until the mm writes it; or none for a request over *limit.
 */
static void *lazy_alloc(size_t size, void *arg)
{
	const size_t *limit = arg;
	void *p;

	if (limit && size > *limit)
		return NULL;
	p = mmap(NULL, size, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	return p == MAP_FAILED ? NULL : p;
}

static void lazy_free(void *p, size_t size, void *arg)
{
	(void)arg;
	munmap(p, size);
}

/*
 * One buffer of 64 MiB in 4K pages, no CMA: 16384 pages and the writer's
 * 64 spare ones, 16448 movable frames, rounded up to whole pageblocks of
 * 512: 33 of them, 16896 frames, and no CMA frames after them. Their
 * struct pages, 64 bytes each, are 1081344 bytes: 1 MiB, whole MiB
 * counted. That allocation fails (no more than 1 MiB is given), and the
 * message says so. Catches alloc_frames()'s MiB as frames / size, and
 * round_to_pageblock() adding a whole pageblock (an empty CMA part would
 * be one pageblock, not none).
 */
static void a_mem_map_that_cannot_be_had_is_named_in_frames_and_mib(void **unused)
{
	size_t limit = 1UL << 20;
	struct kernel_shared_allocator refusing = {
		.alloc = lazy_alloc, .free = lazy_free, .arg = &limit,
	};
	struct gup_layout layout = {
		.nr_buffers = 1, .buffer_bytes = 64 * MIB, .page_size = GUP_PAGES_4K,
	};
	char err[256] = "";

	(void)unused;
	assert_int_equal(sizeof(struct gup_page), 64);
	kernel_set_shared_allocator(&refusing);
	assert_null(gup_mm_create(&layout, err, sizeof(err)));
	kernel_set_shared_allocator(NULL);
	assert_string_equal(err, "gup: out of memory for 16896 struct pages (1 MiB)");
}

/*
 * Buffers are laid out from 1 TiB, each in a stride of its size rounded
 * up to a GiB plus a GiB: 2 GiB for 1 MiB. 2^47 - 2^40 bytes hold
 * 2^16 - 2^9 = 65024 such strides; 65025 buffers do not fit, and the
 * message gives the buffers' size in MiB. Its 16.6 million struct pages
 * are mapped but never touched: the layout is refused before any is
 * written. Catches map_buffers()'s size in MiB shifted by 19 or 21.
 */
static void buffers_past_47_bits_are_refused(void **unused)
{
	struct kernel_shared_allocator lazy = {
		.alloc = lazy_alloc, .free = lazy_free,
	};
	struct gup_layout layout = {
		.nr_buffers = 65025, .buffer_bytes = MIB, .page_size = GUP_PAGES_4K,
	};
	char err[256] = "";

	(void)unused;
	kernel_set_shared_allocator(&lazy);
	assert_null(gup_mm_create(&layout, err, sizeof(err)));
	kernel_set_shared_allocator(NULL);
	assert_string_equal(err, "gup: 65025 buffers of 1 MiB do not fit in a 47-bit address space");
}

/* Shared memory with an inaccessible page right after it. */
static void *guarded_alloc(size_t size, void *arg)
{
	char *p;

	(void)arg;
	p = mmap(NULL, size + 4096, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	if (mprotect(p + size, 4096, PROT_NONE)) {
		munmap(p, size + 4096);
		return NULL;
	}
	return p;
}

static void guarded_free(void *p, size_t size, void *arg)
{
	(void)arg;
	munmap(p, size + 4096);
}

/*
 * The struct pages end where a page that cannot be read begins (the
 * mem_map of 1 MiB in 4K pages, 512 frames of 64 bytes, fills whole
 * pages): making, using and freeing the mm reads none past the last
 * frame. Catches gup_pools_init()'s walk over the frames going one past
 * ("pfn <= nr_frames").
 */
static void the_struct_pages_are_read_no_further_than_the_frames(void **unused)
{
	struct kernel_shared_allocator guarded = {
		.alloc = guarded_alloc, .free = guarded_free,
	};
	struct gup_mm *mm;

	(void)unused;
	kernel_set_shared_allocator(&guarded);
	mm = make_mm(GUP_PAGES_4K, MIB, 1, 0, GUP_LONGTERM_IN_WALK, GUP_STORE_ALWAYS);
	assert_int_equal(mm->nr_frames % 64, 0);
	assert_at_rest(mm);
	gup_mm_destroy(mm);
	kernel_set_shared_allocator(NULL);
}

/*
 * Locked read-modify-writes per page, counted by the test build's
 * gup_count_locked(), against the kernel's own count (v5.12 mm/gup.c,
 * mm/vmstat.c, include/linux/page_ref.h and mm.h; 5.13 and 5.14 differ
 * only in names):
 *   4K pin  3: try_grab_compound_head(): try_get_compound_head() ->
 *              page_ref_add_unless() (a cmpxchg), then
 *              page_ref_add(page, refs * (GUP_PIN_COUNTING_BIAS - 1));
 *              gup_pte_range(): SetPageReferenced()
 *   4K get  2: try_get_compound_head(), SetPageReferenced()
 *   THP pin 3 per THP: try_get_compound_head(head, refs),
 *              hpage_pincount_add(head, refs), SetPageReferenced(head)
 *              (gup_huge_pmd(): one grab for all the pages of the leaf)
 *   THP get 2 per THP
 *   4K unpin 2: put_compound_head(): refs *= GUP_PIN_COUNTING_BIAS, then
 *              "Only the last ref needs a put_page()": page_ref_sub(page,
 *              refs - 1) and put_page()'s put_page_testzero()
 *   THP unpin 3 per THP: hpage_pincount_sub(), page_ref_sub(), put_page()
 *              (unpin_user_pages() batches a folio's pages since 5.12,
 *              for_each_compound_head())
 *   put     1 per 4K page (refs 1: put_page() alone), 2 per THP
 *   vmstat  2 per fold: FOLL_PIN grabs and puts add refs to this CPU's
 *              NR_FOLL_PIN_ACQUIRED / _RELEASED diff with
 *              this_cpu_cmpxchg() (no lock prefix); past the threshold
 *              (125) mod_node_state() folds it in with
 *              node_page_state_add(): atomic_long_add() to the node's and
 *              to the machine's counter. A THP's grab or put of 512
 *              always folds; 64 4K pages after one warm-up pin do not.
 * The FOLL_LONGTERM CMA check adds loads only (get_pfnblock_flags_mask()),
 * in the walk or in the second pass. With the flag already set, the
 * flag update adds none.
 */
struct locked_ops_row {
	enum gup_page_size size;
	bool pin;
	bool longterm;
	enum gup_longterm_check check;
	unsigned long per_4k_get, per_thp_get, per_4k_put, per_thp_put;
};

static const struct locked_ops_row locked_ops_table[] = {
	{ GUP_PAGES_4K, true, false, GUP_LONGTERM_IN_WALK, 3, 0, 2, 0 },
	{ GUP_PAGES_4K, true, true, GUP_LONGTERM_IN_WALK, 3, 0, 2, 0 },
	{ GUP_PAGES_4K, true, true, GUP_LONGTERM_SECOND_PASS, 3, 0, 2, 0 },
	{ GUP_PAGES_4K, false, false, GUP_LONGTERM_IN_WALK, 2, 0, 1, 0 },
	{ GUP_PAGES_4K, false, true, GUP_LONGTERM_SECOND_PASS, 2, 0, 1, 0 },
	{ GUP_PAGES_2M, true, false, GUP_LONGTERM_IN_WALK, 0, 3 + 2, 0, 3 + 2 },
	{ GUP_PAGES_2M, true, true, GUP_LONGTERM_SECOND_PASS, 0, 3 + 2, 0, 3 + 2 },
	{ GUP_PAGES_2M, false, false, GUP_LONGTERM_IN_WALK, 0, 2, 0, 2 },
};

static void locked_ops_per_page_match_the_kernel(void **unused)
{
	static const enum gup_flag_update updates[] = {
		GUP_STORE_ALWAYS, GUP_READ_THEN_SET, GUP_TEST_THEN_SET_BIT,
	};
	struct gup_page *pages[GUP_HPAGE_NR * 2];

	(void)unused;
	for (size_t r = 0; r < sizeof(locked_ops_table) / sizeof(locked_ops_table[0]); r++) {
		const struct locked_ops_row *row = &locked_ops_table[r];

		for (size_t u = 0; u < 3; u++) {
			struct gup_mm *mm = make_mm(row->size, 4 * MIB, 1, 0, row->check,
						    updates[u]);
			unsigned long start = gup_buffer_start(mm, 0);
			unsigned int flags = FOLL_WRITE | (row->longterm ? FOLL_LONGTERM : 0);
			unsigned long nr = row->size == GUP_PAGES_2M ? 2 * GUP_HPAGE_NR : 64;
			unsigned long nr_4k = row->size == GUP_PAGES_2M ? 0 : nr;
			unsigned long nr_thp = row->size == GUP_PAGES_2M ? 2 : 0;
			struct gup_task task;
			uint64_t before, get_ops, put_ops;

			gup_task_init(&task, mm);
			/* one call first, so that the flag is already set */
			assert_int_equal(pin_user_pages_fast(&task, start, 1, FOLL_WRITE, pages), 1);
			unpin_user_pages(&task, pages, 1);
			before = gup_locked_ops;
			if (row->pin)
				assert_int_equal(pin_user_pages_fast(&task, start, nr, flags, pages), nr);
			else
				assert_int_equal(get_user_pages_fast(&task, start, nr, flags, pages), nr);
			get_ops = gup_locked_ops - before;
			before = gup_locked_ops;
			if (row->pin)
				unpin_user_pages(&task, pages, nr);
			else
				put_user_pages(&task, pages, nr);
			put_ops = gup_locked_ops - before;
			if (get_ops != row->per_4k_get * nr_4k + row->per_thp_get * nr_thp ||
			    put_ops != row->per_4k_put * nr_4k + row->per_thp_put * nr_thp)
				fail_msg("row %zu (%s, %s%s, %s): %llu locked ops to get and %llu to put %lu pages, expected %lu and %lu",
					 r, gup_page_size_names[row->size], row->pin ? "pin" : "get",
					 row->longterm ? " longterm" : "",
					 gup_flag_update_names[updates[u]],
					 (unsigned long long)get_ops, (unsigned long long)put_ops, nr,
					 row->per_4k_get * nr_4k + row->per_thp_get * nr_thp,
					 row->per_4k_put * nr_4k + row->per_thp_put * nr_thp);
			if (row->longterm && task.stats.longterm_checks != nr)
				fail_msg("row %zu: %llu CMA checks for %lu pages, expected one each",
					 r, (unsigned long long)task.stats.longterm_checks, nr);
			assert_at_rest(mm);
			gup_mm_destroy(mm);
		}
	}
}

/*
 * pin_fast's setting: a THP pinned one page per call. Each call is one
 * grab of one page (3 locked ops) and adds 1 to this CPU's
 * NR_FOLL_PIN_ACQUIRED diff, which folds into the two shared counters
 * (2 locked adds) on the 126th pin, when it passes 125. The batched
 * unpin of the 252 pages is one put of the folio (3) with a fold of
 * NR_FOLL_PIN_RELEASED (2). Afterwards the shared counters hold every
 * pin and unpin, and no diff is left.
 */
static void pinning_a_thp_page_by_page_folds_the_counters_every_126_pins(void **unused)
{
	struct gup_mm *mm = make_mm(GUP_PAGES_2M, 4 * MIB, 1, 0, GUP_LONGTERM_IN_WALK,
				    GUP_READ_THEN_SET);
	unsigned long start = gup_buffer_start(mm, 0);
	struct gup_page *pages[252];
	struct gup_task task;
	uint64_t before, get_ops, put_ops;

	(void)unused;
	gup_task_init(&task, mm);
	mm_set_has_pinned_flag(mm);
	before = gup_locked_ops;
	for (unsigned long i = 0; i < 252; i++) {
		assert_int_equal(pin_user_pages_fast(&task, start + i * GUP_PAGE_SIZE, 1,
						     FOLL_WRITE, pages + i), 1);
		if (i == 124 || i == 125)
			assert_int_equal(gup_mm_node_stat(mm, GUP_NR_FOLL_PIN_ACQUIRED, true),
					 i == 124 ? 0 : 126);
	}
	get_ops = gup_locked_ops - before;
	before = gup_locked_ops;
	unpin_user_pages(&task, pages, 252);
	put_ops = gup_locked_ops - before;
	assert_int_equal(get_ops, 252 * 3 + 2 * 2);
	assert_int_equal(put_ops, 3 + 2);
	for (int global = 0; global < 2; global++) {
		assert_int_equal(gup_mm_node_stat(mm, GUP_NR_FOLL_PIN_ACQUIRED, global), 252);
		assert_int_equal(gup_mm_node_stat(mm, GUP_NR_FOLL_PIN_RELEASED, global), 252);
	}
	assert_int_equal(task.node_stat_diff[GUP_NR_FOLL_PIN_ACQUIRED], 0);
	assert_int_equal(task.node_stat_diff[GUP_NR_FOLL_PIN_RELEASED], 0);
	assert_at_rest(mm);
	gup_mm_destroy(mm);
}

/* test_then_set_bit's set_bit() is the one locked op of a first pin. */
static void the_first_pin_sets_the_bit_with_one_locked_op(void **unused)
{
	struct gup_mm *mm = make_mm(GUP_PAGES_4K, MIB, 1, 0, GUP_LONGTERM_IN_WALK,
				    GUP_TEST_THEN_SET_BIT);
	struct gup_page *page;
	struct gup_task task;
	uint64_t before = gup_locked_ops;

	(void)unused;
	gup_task_init(&task, mm);
	assert_int_equal(pin_user_pages_fast(&task, gup_buffer_start(mm, 0), 1, 0, &page), 1);
	assert_int_equal(gup_locked_ops - before, 1 + 3);
	unpin_user_pages(&task, &page, 1);
	gup_mm_destroy(mm);
}

/*
 * cma_percent=p puts exactly p of every 100 consecutive folios in CMA
 * (the share the option promises), spread out: for p = 25 the 4th of
 * every 4, by hand.
 */
static void cma_percent_is_exactly_that_share(void **state)
{
	static const unsigned int percents[] = { 0, 1, 25, 50, 99, 100 };

	(void)state;
	for (size_t k = 0; k < sizeof(percents) / sizeof(percents[0]); k++) {
		unsigned int in_cma = 0;

		for (unsigned long i = 0; i < 200; i++)
			in_cma += gup_folio_in_cma(i, percents[k]);
		assert_int_equal(in_cma, 2 * percents[k]);
	}
	for (unsigned long i = 0; i < 8; i++)
		assert_true(gup_folio_in_cma(i, 25) == (i == 3 || i == 7));
}

/*
 * The kernel refuses a long-term writable pin of page cache, and only
 * that (mm/gup.c: writable_file_mapping_allowed() in the slow path,
 * gup_fast_folio_allowed() in the fast one; both want FOLL_PIN,
 * FOLL_LONGTERM and FOLL_WRITE): anonymous memory, shmem and hugetlb
 * pass, and so do a get, a read pin and a pin that is not long-term.
 */
static void only_longterm_writable_pins_of_page_cache_are_refused(void **state)
{
	static const struct {
		enum gup_backing backing;
		bool fast, pin;
		unsigned int flags;
		bool refused;
	} cases[] = {
		{ GUP_BACKING_FILE, true, true, FOLL_LONGTERM | FOLL_WRITE, true },
		{ GUP_BACKING_FILE, false, true, FOLL_LONGTERM | FOLL_WRITE, true },
		{ GUP_BACKING_FILE, true, true, FOLL_LONGTERM, false },
		{ GUP_BACKING_FILE, true, true, FOLL_WRITE, false },
		{ GUP_BACKING_FILE, true, false, FOLL_LONGTERM | FOLL_WRITE, false },
		{ GUP_BACKING_FILE, false, false, FOLL_LONGTERM | FOLL_WRITE, false },
		{ GUP_BACKING_ANON, true, true, FOLL_LONGTERM | FOLL_WRITE, false },
		{ GUP_BACKING_SHMEM, true, true, FOLL_LONGTERM | FOLL_WRITE, false },
		{ GUP_BACKING_SHMEM, false, true, FOLL_LONGTERM | FOLL_WRITE, false },
		{ GUP_BACKING_HUGETLB, false, true, FOLL_LONGTERM | FOLL_WRITE, false },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct gup_layout layout = {
			.nr_buffers = 1, .buffer_bytes = 2 * MIB,
			.page_size = cases[i].backing == GUP_BACKING_HUGETLB ?
				     GUP_PAGES_2M : GUP_PAGES_4K,
			.backing = cases[i].backing,
		};
		char err[256];
		struct gup_mm *mm = gup_mm_create(&layout, err, sizeof(err));
		struct gup_page *pages[4];
		struct gup_task task;
		unsigned long start;
		long got;

		if (!mm)
			fail_msg("gup_mm_create: %s", err);
		start = gup_buffer_start(mm, 0);
		gup_task_init(&task, mm);
		if (cases[i].pin)
			got = cases[i].fast ?
			      pin_user_pages_fast(&task, start, 4, cases[i].flags, pages) :
			      pin_user_pages(&task, start, 4, cases[i].flags, pages);
		else
			got = cases[i].fast ?
			      get_user_pages_fast(&task, start, 4, cases[i].flags, pages) :
			      get_user_pages(&task, start, 4, cases[i].flags, pages);
		if (got != (cases[i].refused ? -EFAULT : 4))
			fail_msg("case %zu (%s): got %ld", i, gup_backing_names[cases[i].backing], got);
		if (got > 0 && cases[i].pin)
			unpin_user_pages(&task, pages, (unsigned long)got);
		else if (got > 0)
			put_user_pages(&task, pages, (unsigned long)got);
		assert_at_rest(mm);
		gup_mm_destroy(mm);
	}
}

/* mmap(MAP_HUGETLB) maps whole huge pages: the model has no 4K tail for it. */
static void hugetlb_layouts_are_whole_huge_pages(void **state)
{
	struct gup_layout layout = {
		.nr_buffers = 1, .buffer_bytes = 3 * MIB, .page_size = GUP_PAGES_2M,
		.backing = GUP_BACKING_HUGETLB,
	};
	char err[256];

	(void)state;
	assert_null(gup_mm_create(&layout, err, sizeof(err)));
	layout.buffer_bytes = 4 * MIB;
	layout.page_size = GUP_PAGES_4K;
	assert_null(gup_mm_create(&layout, err, sizeof(err)));
}

struct driver_seen {
	unsigned int samples;
	unsigned int per_thread[4];
	unsigned long pages, sizes;
	unsigned int dumps;
	int refcount;
};

static double median_of_first(const double *values, size_t n)
{
	return n ? values[0] : 0;
}

static void seen_sample(void *arg, unsigned int t, unsigned int combo,
			const struct gup_test_sample *s)
{
	struct driver_seen *seen = arg;

	(void)combo;
	seen->samples++;
	seen->per_thread[t]++;
	seen->pages += s->pages;
	seen->sizes += s->size;
	assert_int_equal(s->full_size, MIB);
}

static void seen_dump(void *arg, unsigned int t, const struct gup_test_page_dump *d)
{
	struct driver_seen *seen = arg;

	(void)t;
	seen->dumps++;
	seen->refcount = d->out_of_range ? -1 : d->refcount;
}

static struct gup_test_config driver_config(enum gup_test_cmd cmd)
{
	return (struct gup_test_config){
		.cmd = cmd, .buffer_bytes = MIB, .pages_per_call = 16, .repeats = 3,
		.threads = 2, .page_size = GUP_PAGES_4K, .gup_flags = FOLL_WRITE,
		.nr_combos = 1, .combos = { { .variant = GUP_TEST_THEN_SET_BIT } },
	};
}

/*
 * The driver runs every thread's every repeat (the *_TEST commands
 * once), each over the whole buffer, hands each sample over once, and
 * leaves the pins balanced: 2 threads x 3 repeats x 256 pages.
 */
static void the_driver_runs_each_thread_and_repeat(void **state)
{
	struct driver_seen seen = { 0 };
	struct gup_test_ops ops = {
		.arg = &seen, .median = median_of_first, .sample = seen_sample,
	};
	struct gup_test_config cfg = driver_config(PIN_FAST_BENCHMARK);
	char err[256], why[160];
	struct gup_test *t = gup_test_create(&cfg, &ops, err, sizeof(err));
	const struct gup_test_sample *samples;
	struct timespec before, after;
	struct gup_stats sum;
	uint64_t changes, wall;
	int status;

	(void)state;
	clock_gettime(CLOCK_MONOTONIC, &before);
	if (!t || gup_test_run(t, err, sizeof(err)))
		fail_msg("%s", err);
	clock_gettime(CLOCK_MONOTONIC, &after);
	/*
	 * Each sample's get and put time are spans inside the run, which
	 * this test's own clock brackets: never a time since boot, and the
	 * whole microseconds gup_test prints, truncated.
	 */
	wall = (uint64_t)((after.tv_sec - before.tv_sec) * 1000000000LL +
			  (after.tv_nsec - before.tv_nsec));
	samples = gup_test_samples(t, 0);
	for (unsigned int i = 0; i < 6; i++) {
		assert_true(samples[i].get_ns > 0 && samples[i].put_ns > 0);
		assert_true(samples[i].get_ns + samples[i].put_ns <= wall);
		assert_int_equal(samples[i].get_usec, samples[i].get_ns / 1000);
		assert_int_equal(samples[i].put_usec, samples[i].put_ns / 1000);
	}
	assert_int_equal(seen.samples, 6);
	assert_int_equal(seen.per_thread[0], 3);
	assert_int_equal(seen.per_thread[1], 3);
	assert_int_equal(seen.pages, 6 * 256);
	assert_int_equal(seen.sizes, 6 * MIB);
	gup_test_combo_paths(t, 0, &sum, &changes);
	assert_int_equal(sum.pins_acquired, 6 * 256);
	assert_int_equal(sum.pins_released, 6 * 256);
	for (unsigned int i = 0; i < 2; i++) {
		assert_true(gup_test_thread_passed(t, i, &status, why, sizeof(why)));
		assert_int_equal(status, 0);
	}
	gup_test_destroy(t);

	memset(&seen, 0, sizeof(seen));
	cfg = driver_config(PIN_BASIC_TEST);
	t = gup_test_create(&cfg, &ops, err, sizeof(err));
	if (!t || gup_test_run(t, err, sizeof(err)))
		fail_msg("%s", err);
	assert_int_equal(seen.samples, 2);
	gup_test_destroy(t);
}

/*
 * DUMP_USER_PAGES_TEST shows page 0 while it is held: a get adds 1 to
 * the refcount, a pin GUP_PIN_COUNTING_BIAS; a page the calls did not
 * reach is zeroed from which_pages[] (here: a refused pin, size 0).
 */
static void the_driver_dumps_pages_while_held(void **state)
{
	static const struct {
		bool pin;
		enum gup_backing backing;
		unsigned int flags;
		int refcount;
		unsigned long size;
	} cases[] = {
		{ false, GUP_BACKING_ANON, FOLL_WRITE, 1 + 1, MIB },
		{ true, GUP_BACKING_ANON, FOLL_WRITE, 1 + GUP_PIN_COUNTING_BIAS, MIB },
		{ true, GUP_BACKING_FILE, FOLL_WRITE | FOLL_LONGTERM, -1, 0 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct driver_seen seen = { 0 };
		struct gup_test_ops ops = {
			.arg = &seen, .sample = seen_sample, .dump_page = seen_dump,
		};
		struct gup_test_config cfg = driver_config(DUMP_USER_PAGES_TEST);
		char err[256];
		struct gup_test *t;

		cfg.threads = 1;
		cfg.dump_use_pin = cases[i].pin;
		cfg.backing = cases[i].backing;
		cfg.gup_flags = cases[i].flags;
		cfg.which_pages[0] = 1;
		t = gup_test_create(&cfg, &ops, err, sizeof(err));
		if (!t || gup_test_run(t, err, sizeof(err)))
			fail_msg("case %zu: %s", i, err);
		assert_int_equal(seen.dumps, 1);
		assert_int_equal(seen.refcount, cases[i].refcount);
		assert_int_equal(seen.sizes, cases[i].size);
		gup_test_destroy(t);
	}
}

/*
 * gup_test takes at most GUP_TEST_MAX_COMBOS (16) combinations: 16 are
 * run, each once per thread (16 x 2 samples), and 17 or none are refused,
 * as are 0 threads and more than KERNEL_MAX_THREADS (1024), 0 repeats,
 * 0 pages per call, a command past the last and a flag outside the
 * model's FOLL_ bits. The 3 x 2 x 2 switches repeat from the 13th on.
 */
static void the_driver_takes_sixteen_combinations_and_no_more(void **state)
{
	struct driver_seen seen = { 0 };
	struct gup_test_ops ops = { .arg = &seen, .sample = seen_sample };
	struct gup_test_config cfg = driver_config(PIN_BASIC_TEST);
	char err[256];
	struct gup_test *t;

	(void)state;
	cfg.nr_combos = 16;
	for (unsigned int i = 0; i < 16; i++)
		cfg.combos[i] = (struct gup_test_combo_key){
			.variant = (enum gup_flag_update)(i % 3), .private_buffers = (i / 3) % 2,
			.check = (enum gup_longterm_check)((i / 6) % 2),
		};
	t = gup_test_create(&cfg, &ops, err, sizeof(err));
	if (!t || gup_test_run(t, err, sizeof(err)))
		fail_msg("16 combinations: %s", err);
	assert_int_equal(seen.samples, 16 * 2);
	assert_int_equal(seen.pages, 16 * 2 * 256);
	gup_test_destroy(t);

	cfg.nr_combos = 17;
	err[0] = '\0';
	assert_null(gup_test_create(&cfg, &ops, err, sizeof(err)));
	assert_string_equal(err, "gup: bad gup_test configuration");
	cfg.nr_combos = 0;
	assert_null(gup_test_create(&cfg, &ops, err, sizeof(err)));

	cfg = driver_config(PIN_BASIC_TEST);
	cfg.threads = 1024;
	t = gup_test_create(&cfg, &ops, err, sizeof(err));
	assert_non_null(t);
	gup_test_destroy(t);
	cfg.threads = 1025;
	assert_null(gup_test_create(&cfg, &ops, err, sizeof(err)));
	cfg.threads = 0;
	assert_null(gup_test_create(&cfg, &ops, err, sizeof(err)));
	cfg = driver_config(PIN_BASIC_TEST);
	cfg.repeats = 0;
	assert_null(gup_test_create(&cfg, &ops, err, sizeof(err)));
	cfg = driver_config(PIN_BASIC_TEST);
	cfg.pages_per_call = 0;
	assert_null(gup_test_create(&cfg, &ops, err, sizeof(err)));
	/* a command past the last, and a flag the model does not know */
	cfg = driver_config(PIN_BASIC_TEST);
	cfg.cmd = NR_GUP_TEST_CMDS;
	assert_null(gup_test_create(&cfg, &ops, err, sizeof(err)));
	cfg.cmd = (enum gup_test_cmd)(NR_GUP_TEST_CMDS - 1);
	t = gup_test_create(&cfg, &ops, err, sizeof(err));
	assert_non_null(t);
	gup_test_destroy(t);
	cfg = driver_config(PIN_BASIC_TEST);
	cfg.gup_flags = FOLL_WRITE | (~FOLL_MODEL_MASK & (FOLL_MODEL_MASK + 1));
	assert_null(gup_test_create(&cfg, &ops, err, sizeof(err)));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(small_pages_are_accounted_with_the_bias),
		cmocka_unit_test(cma_percent_is_exactly_that_share),
		cmocka_unit_test(locked_ops_per_page_match_the_kernel),
		cmocka_unit_test(the_first_pin_sets_the_bit_with_one_locked_op),
		cmocka_unit_test(pinning_a_thp_page_by_page_folds_the_counters_every_126_pins),
		cmocka_unit_test(thp_pins_go_to_the_head_and_the_pincount),
		cmocka_unit_test(slow_path_pins_are_accounted_the_same),
		cmocka_unit_test(each_flag_update_sets_its_own_flag),
		cmocka_unit_test(any_mix_of_pins_and_unpins_returns_to_start),
		cmocka_unit_test(longterm_switches_reject_the_same_cma_pages),
		cmocka_unit_test(recheck_drops_a_page_replaced_under_the_grab),
		cmocka_unit_test(writer_backs_off_from_a_pinned_page),
		cmocka_unit_test(a_freed_folio_is_never_resurrected),
		cmocka_unit_test(seqcount_retry_unpins_the_whole_walk),
		cmocka_unit_test(odd_seqcount_skips_the_walk),
		cmocka_unit_test(walks_stop_at_entries_they_cannot_use),
		cmocka_unit_test(bad_layouts_are_refused),
		cmocka_unit_test(a_mem_map_that_cannot_be_had_is_named_in_frames_and_mib),
		cmocka_unit_test(buffers_past_47_bits_are_refused),
		cmocka_unit_test(the_struct_pages_are_read_no_further_than_the_frames),
		cmocka_unit_test(only_longterm_writable_pins_of_page_cache_are_refused),
		cmocka_unit_test(hugetlb_layouts_are_whole_huge_pages),
		cmocka_unit_test(the_driver_runs_each_thread_and_repeat),
		cmocka_unit_test(the_driver_dumps_pages_while_held),
		cmocka_unit_test(the_driver_takes_sixteen_combinations_and_no_more),
		cmocka_unit_test(the_writer_sweeps_every_folio_in_turn),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
