/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A user-space model of the Linux fast-GUP path: pin_user_pages_fast()
 * walking a 4-level page table of 64-bit entries without locks, grabbing
 * page references with add-unless-zero, rechecking the entries, and
 * falling back to a locked slow path. It is written after mm/gup.c of
 * v5.14-v6.x (see reference/gup-anchors.md, sections 1 and 2); every
 * change the seeds argue about is one switch:
 *
 *   flag_update     how each pin marks the mm as having pinned pages
 *                   (seeds 000/003: 008cfe4418b3, 292648ac5cf1, a458b76a4171)
 *   longterm_check  where FOLL_LONGTERM rejects CMA pages in the fast path
 *                   (seed 002: inside the walk, or a second pass over pages[])
 *
 * Functions that stand for kernel functions keep their kernel names and
 * argument order, with the calling task (the kernel's "current") first.
 */
#ifndef BOUNCELAB_GUP_H
#define BOUNCELAB_GUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel.h"

#define GUP_PAGE_SHIFT 12
#define GUP_PAGE_SIZE (1UL << GUP_PAGE_SHIFT)
#define GUP_HPAGE_SHIFT 21
#define GUP_HPAGE_SIZE (1UL << GUP_HPAGE_SHIFT)
#define GUP_HPAGE_NR (GUP_HPAGE_SIZE / GUP_PAGE_SIZE)

/* include/linux/mm.h: a pin adds this much to a small page's refcount. */
#define GUP_PIN_COUNTING_BIAS 1024

/* gup_flags (the kernel's names; the values are ours) */
#define FOLL_WRITE	0x01	/* the entry must be writable */
#define FOLL_GET	0x02	/* take a page reference (get_user_pages*) */
#define FOLL_PIN	0x04	/* take a pin (pin_user_pages*) */
#define FOLL_LONGTERM	0x08	/* the pin may last: no CMA pages */
#define FOLL_FAST_ONLY	0x10	/* never fall back to the slow path */
#define FOLL_MODEL_MASK	0x1f	/* every bit the walker honours */

enum gup_flag_update {
	GUP_STORE_ALWAYS,	/* 008cfe4418b3: atomic_set(&mm->has_pinned, 1) */
	GUP_READ_THEN_SET,	/* 292648ac5cf1: read, set only if clear */
	GUP_TEST_THEN_SET_BIT,	/* a458b76a4171: test_bit, set_bit(MMF_HAS_PINNED) */
	NR_GUP_FLAG_UPDATES
};

enum gup_longterm_check {
	GUP_LONGTERM_IN_WALK,		/* seed 002 (b): in gup_pte_range() */
	GUP_LONGTERM_SECOND_PASS,	/* seed 002 (a): reject_cma_pages() */
	NR_GUP_LONGTERM_CHECKS
};

enum gup_page_size { GUP_PAGES_4K, GUP_PAGES_2M, NR_GUP_PAGE_SIZES };

/*
 * What the buffer maps, as gup_test's mmap() chooses it: -f (default
 * /dev/zero), -S (MAP_SHARED) and -H (MAP_HUGETLB). A private mapping
 * ends up anonymous whatever its file, because gup_test writes every page
 * before the first call (copy on write); a shared one of /dev/zero is
 * shmem, of a regular file page cache.
 */
enum gup_backing {
	GUP_BACKING_ANON,	/* MAP_PRIVATE: anonymous folios */
	GUP_BACKING_SHMEM,	/* MAP_SHARED of /dev/zero */
	GUP_BACKING_FILE,	/* MAP_SHARED of a regular file: page cache */
	GUP_BACKING_HUGETLB,	/* MAP_HUGETLB: 2M hugetlb folios, whole buffer */
	NR_GUP_BACKINGS
};

/* NULL-terminated names, indexed by the enums above. */
extern const char *const gup_flag_update_names[];
extern const char *const gup_longterm_check_names[];
extern const char *const gup_page_size_names[];
extern const char *const gup_backing_names[];

/* What the mm looks like: its switches and its buffers. */
struct gup_layout {
	enum gup_flag_update flag_update;
	enum gup_longterm_check longterm_check;
	unsigned int nr_buffers;
	unsigned long buffer_bytes;	/* a whole number of 4K pages */
	enum gup_page_size page_size;	/* 2M: THP leaves where 2M fit */
	unsigned int cma_percent;	/* share of folios that sit in CMA */
	enum gup_backing backing;	/* hugetlb: 2M leaves, the whole buffer */
};

/*
 * Per-task counters, like the kernel's per-CPU vmstat: written by one
 * thread only, read after it finished.
 */
struct gup_stats {
	uint64_t fast_calls;		/* calls to the fast entry points */
	uint64_t pages_returned;	/* pages handed to callers */
	uint64_t pages_released;	/* pages given back by callers */
	uint64_t seq_retries;		/* walks undone by write_protect_seq */
	uint64_t seq_busy;		/* calls that found the seqcount odd */
	uint64_t recheck_failures;	/* grabs undone by the entry recheck */
	uint64_t slow_path_calls;	/* calls that took mmap_lock */
	uint64_t longterm_rejects;	/* fast walks cut by the CMA check */
	uint64_t longterm_checks;	/* pageblock lookups by the CMA check */
	uint64_t longterm_migrations;	/* folios moved out of CMA */
	uint64_t pins_acquired;		/* NR_FOLL_PIN_ACQUIRED */
	uint64_t pins_released;		/* NR_FOLL_PIN_RELEASED */
};

/* sum += one task's stats, every field. */
static inline void gup_stats_add(struct gup_stats *sum, const struct gup_stats *st)
{
	sum->fast_calls += st->fast_calls;
	sum->pages_returned += st->pages_returned;
	sum->pages_released += st->pages_released;
	sum->seq_retries += st->seq_retries;
	sum->seq_busy += st->seq_busy;
	sum->recheck_failures += st->recheck_failures;
	sum->slow_path_calls += st->slow_path_calls;
	sum->longterm_rejects += st->longterm_rejects;
	sum->longterm_checks += st->longterm_checks;
	sum->longterm_migrations += st->longterm_migrations;
	sum->pins_acquired += st->pins_acquired;
	sum->pins_released += st->pins_released;
}

struct gup_mm;
struct gup_page;

/*
 * The two node counters every pin and unpin updates (enum node_stat_item,
 * include/linux/mmzone.h, since 1970dc6f5226 in 5.7): /proc/vmstat's
 * nr_foll_pin_acquired and nr_foll_pin_released.
 */
enum { GUP_NR_FOLL_PIN_ACQUIRED, GUP_NR_FOLL_PIN_RELEASED, GUP_NR_NODE_STATS };

/*
 * The threshold past which a CPU folds its diff into the shared node
 * counters: calculate_normal_threshold() (mm/vmstat.c, 5.12) gives
 * min(125, 2 * fls(online CPUs) * (1 + fls(zone size in 128 MB))),
 * which is the cap 125 for 32 CPUs or more with 64 GB zones, and for
 * 256 CPUs with any zone above 4 GB: both seeds' machines. A smaller
 * machine folds more often; the walker keeps the seeds' value.
 */
#define GUP_NODE_STAT_THRESHOLD 125

/* The calling thread: its mm and its counters. */
struct gup_task {
	_Alignas(CACHE_PAD) struct gup_mm *mm;
	struct gup_stats stats;
	/*
	 * This CPU's share of the node counters not yet folded into the
	 * shared ones: per_cpu_nodestats->vm_node_stat_diff[] (mm/vmstat.c).
	 */
	long node_stat_diff[GUP_NR_NODE_STATS];
};

/* Returns NULL with err filled on a bad layout or no memory. */
struct gup_mm *gup_mm_create(const struct gup_layout *layout, char *err,
			     size_t errlen);
void gup_mm_destroy(struct gup_mm *mm);
unsigned long gup_buffer_start(const struct gup_mm *mm, unsigned int buffer);
unsigned long gup_buffer_pages(const struct gup_mm *mm);
/* The 4K pages at the start of each buffer that THP leaves map. */
unsigned long gup_buffer_huge_pages(const struct gup_mm *mm);
/*
 * What gup_test's fault-in loop leaves behind in the faulting CPU's
 * caches: every leaf entry of the buffer read, every folio's struct page
 * written. Call it from the thread that will pin the buffer, before the
 * first timed repeat. Changes no value.
 */
void gup_buffer_fault_in(struct gup_mm *mm, unsigned int buffer);

void gup_task_init(struct gup_task *task, struct gup_mm *mm);

/*
 * The fast entry points: lockless walk first, slow path for the rest
 * unless FOLL_FAST_ONLY. Return the number of pages taken, or a negative
 * errno when none was.
 */
long pin_user_pages_fast(struct gup_task *task, unsigned long start,
			 unsigned long nr_pages, unsigned int gup_flags,
			 struct gup_page **pages);
long get_user_pages_fast(struct gup_task *task, unsigned long start,
			 unsigned long nr_pages, unsigned int gup_flags,
			 struct gup_page **pages);
/* The slow path alone, under mmap_lock (gup_test -L, -U and -b). */
long pin_user_pages(struct gup_task *task, unsigned long start,
		    unsigned long nr_pages, unsigned int gup_flags,
		    struct gup_page **pages);
long get_user_pages(struct gup_task *task, unsigned long start,
		    unsigned long nr_pages, unsigned int gup_flags,
		    struct gup_page **pages);

void unpin_user_pages(struct gup_task *task, struct gup_page **pages,
		      unsigned long npages);
void put_user_pages(struct gup_task *task, struct gup_page **pages,
		    unsigned long npages);

/* folio_maybe_dma_pinned() of the page's folio. */
bool gup_page_maybe_dma_pinned(const struct gup_page *page);
/* folio_is_longterm_pinnable() of the page's folio: not in CMA. */
bool gup_page_longterm_pinnable(const struct gup_page *page);

/*
 * A node counter as node_page_state() reads it: the shared sum
 * (pgdat->vm_stat[item]; global: vm_node_stat[item]), without the
 * CPUs' unfolded diffs.
 */
long gup_mm_node_stat(const struct gup_mm *mm, unsigned int item, bool global);

/* Whether the mm's has-pinned flag is set, wherever its switch keeps it. */
bool gup_mm_has_pinned(struct gup_mm *mm);

/*
 * The writer: a thread that replaces mapped folios under the pinners and
 * bumps write_protect_seq around each change, so that the recheck and
 * the seqcount retry really run. pace_ns is the pause between changes
 * (0: yield only). Returns 0, or -1 with err filled.
 */
int gup_writer_start(struct gup_mm *mm, unsigned long pace_ns, char *err,
		     size_t errlen);
/* Stops and joins the writer; returns how many changes it made. */
uint64_t gup_writer_stop(struct gup_mm *mm);

/*
 * Checks the mm at rest (no caller holds a page): every mapped folio has
 * exactly its mapping's reference and no pin, every free frame has none,
 * the seqcount is even and no frame is lost. Returns 0, or -1 with msg.
 */
int gup_mm_check_at_rest(struct gup_mm *mm, char *msg, size_t msglen);

#endif
