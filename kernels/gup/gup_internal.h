/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The model's insides, shared by the files of kernels/gup/ and read by
 * the tests: entries, tables, pages and folios, the mm.
 */
#ifndef BOUNCELAB_GUP_INTERNAL_H
#define BOUNCELAB_GUP_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>

#include "gup.h"

/*
 * The page table: 4 levels of 512 entries (pgd, pud, pmd, pte; p4d is
 * folded, as on x86-64 with 4-level paging). An entry is one 64-bit word:
 * x86-like flag bits and a frame number. A table entry's frame number is
 * the index of the next table in mm->tables; a leaf's is the pfn of a
 * page in mm->mem_map.
 */
#define GUP_PGDIR_SHIFT 39
#define GUP_PUD_SHIFT 30
#define GUP_PMD_SHIFT GUP_HPAGE_SHIFT
#define GUP_PTRS_PER_TABLE 512
#define GUP_TASK_SIZE (1UL << 47)

#define GUP_ENTRY_PRESENT	(1ULL << 0)
#define GUP_ENTRY_WRITE		(1ULL << 1)
#define GUP_ENTRY_LEAF		(1ULL << 7)	/* x86 PSE: a huge leaf */
#define GUP_ENTRY_SPECIAL	(1ULL << 9)	/* pte_special(): no struct page to use */
#define GUP_ENTRY_PFN_SHIFT	12
#define GUP_ENTRY_PFN_MASK	(((1ULL << 40) - 1) << GUP_ENTRY_PFN_SHIFT)

typedef _Atomic uint64_t gup_entry_t;	/* pte_t and friends: one word */

struct gup_table {
	gup_entry_t entry[GUP_PTRS_PER_TABLE];
};

static inline bool entry_present(uint64_t e) { return e & GUP_ENTRY_PRESENT; }
static inline bool entry_write(uint64_t e) { return e & GUP_ENTRY_WRITE; }
static inline bool entry_leaf(uint64_t e) { return e & GUP_ENTRY_LEAF; }
static inline bool entry_special(uint64_t e) { return e & GUP_ENTRY_SPECIAL; }

static inline unsigned long entry_pfn(uint64_t e)
{
	return (unsigned long)((e & GUP_ENTRY_PFN_MASK) >> GUP_ENTRY_PFN_SHIFT);
}

static inline uint64_t make_entry(unsigned long pfn, uint64_t bits)
{
	return ((uint64_t)pfn << GUP_ENTRY_PFN_SHIFT) | bits;
}

static inline unsigned int table_index(unsigned long addr, unsigned int shift)
{
	return (unsigned int)((addr >> shift) & (GUP_PTRS_PER_TABLE - 1));
}

/* The end of the level's span that holds addr, clipped to end. */
static inline unsigned long level_addr_end(unsigned long addr,
					   unsigned long end,
					   unsigned int shift)
{
	unsigned long boundary = (addr + (1UL << shift)) & ~((1UL << shift) - 1);

	return boundary - 1 < end - 1 ? boundary : end;
}

enum { MIGRATE_MOVABLE, MIGRATE_CMA };

/*
 * Where the kernel keeps a page's migratetype (x86-64, SPARSEMEM_EXTREME
 * with VMEMMAP, 5.3 and later): 2 MB pageblocks (pageblock_order 9),
 * 128 MB sections (PFN_SECTION_SHIFT 15), 256 sections per root
 * (PAGE_SIZE / sizeof(struct mem_section)), and NR_PAGEBLOCK_BITS = 4
 * bits per pageblock in the section's usage->pageblock_flags bitmap, of
 * which MIGRATETYPE_MASK takes the low 3. The values stored are enum
 * migratetype's with CONFIG_CMA (include/linux/mmzone.h). CMA areas are
 * whole pageblocks, so the model places CMA frames in pageblocks of
 * their own (mm.c).
 */
#define GUP_PAGEBLOCK_ORDER 9
#define GUP_PAGES_PER_PAGEBLOCK (1UL << GUP_PAGEBLOCK_ORDER)
#define GUP_PFN_SECTION_SHIFT 15
#define GUP_PAGES_PER_SECTION (1UL << GUP_PFN_SECTION_SHIFT)
#define GUP_SECTIONS_PER_ROOT 256
#define GUP_NR_PAGEBLOCK_BITS 4
#define GUP_MIGRATETYPE_MASK 7UL
#define GUP_PB_MIGRATE_MOVABLE 1UL
#define GUP_PB_MIGRATE_CMA 4UL
#define GUP_PAGEBLOCK_WORDS_PER_SECTION \
	(GUP_PAGES_PER_SECTION / GUP_PAGES_PER_PAGEBLOCK * GUP_NR_PAGEBLOCK_BITS / 64)

struct gup_mem_section_usage {
	unsigned long pageblock_flags[GUP_PAGEBLOCK_WORDS_PER_SECTION];
};

struct gup_mem_section {
	unsigned long section_mem_map;	/* unused: vmemmap does pfn_to_page */
	struct gup_mem_section_usage *usage;
};

/*
 * struct page: 64 bytes like the kernel's, so that each page's refcount
 * has a cache line of its own and pinners of one page bounce one line.
 * A large folio keeps its refcount in the head page and its pincount in
 * the first tail page (folio->_pincount; compound_pincount in 5.x):
 * two lines per THP pin, as in the kernel.
 */
struct gup_page {
	_Alignas(64) atomic_ulong flags;	/* PG_referenced */
	struct gup_page *head;		/* compound_head(); NULL on a head */
	/*
	 * Model only: where the folio is mapped (0: replaced). The tests
	 * check that a page a caller holds was never replaced.
	 */
	atomic_ulong mapped_at;
	unsigned int order;		/* a head's folio order */
	/*
	 * Model only, for the tests and verify: MIGRATE_CMA or not. The
	 * paths the kernel runs look the migratetype up in the pageblock
	 * bitmap instead (page_is_longterm_pinnable()).
	 */
	unsigned int migratetype;
	atomic_int pincount;
	atomic_int refcount;
};

#define PG_REFERENCED 2

static inline struct gup_page *page_folio(struct gup_page *page)
{
	return page->head ? page->head : page;
}

static inline atomic_int *folio_pincount_ptr(struct gup_page *folio)
{
	return &folio[1].pincount;
}

static inline bool folio_is_large(const struct gup_page *folio)
{
	return folio->order > 0;
}

/* The model's own record of where a folio sits, for checks off the path. */
static inline bool folio_is_longterm_pinnable(const struct gup_page *folio)
{
	return folio->migratetype != MIGRATE_CMA;
}

/* Free frames of one kind: a stack under a mutex, used off the fast path. */
struct gup_pool {
	pthread_mutex_t lock;
	unsigned long nr;
	unsigned long cap;
	unsigned long *pfns;
};

enum { POOL_SMALL, POOL_HUGE, POOL_SMALL_CMA, POOL_HUGE_CMA, NR_GUP_POOLS };

struct gup_vma {
	unsigned long start;
	unsigned long end;
	unsigned long huge_end;		/* THP leaves from start to here */
};

#ifdef GUP_TEST_HOOKS
/* Deterministic interleavings for the tests: the test build only. */
struct gup_test_hooks {
	void (*before_grab)(struct gup_mm *mm, unsigned long addr, void *arg);
	void (*after_grab)(struct gup_mm *mm, unsigned long addr, void *arg);
	void (*before_seq_retry)(struct gup_mm *mm, void *arg);
	void *arg;
};
#define gup_hook_addr(mm, name, addr)					\
	do {								\
		if ((mm)->hooks.name)					\
			(mm)->hooks.name((mm), (addr), (mm)->hooks.arg);\
	} while (0)
#define gup_hook(mm, name)						\
	do {								\
		if ((mm)->hooks.name)					\
			(mm)->hooks.name((mm), (mm)->hooks.arg);	\
	} while (0)
#else
#define gup_hook_addr(mm, name, addr) do { } while (0)
#define gup_hook(mm, name) do { } while (0)
#endif

struct gup_writer;

/* The bit a458b76a4171 took in mm->flags. */
#define MMF_HAS_PINNED 28

struct gup_mm {
	/*
	 * 5.9-5.13 mm_struct kept mm_count, has_pinned and write_protect_seq
	 * side by side (the context of the a458b76a4171 diff): one line,
	 * which fast GUP reads twice per call for the seqcount.
	 */
	_Alignas(CACHE_PAD) atomic_int mm_count;
	atomic_int has_pinned;
	atomic_uint write_protect_seq;
	/* mm->flags, where MMF_HAS_PINNED lives since 5.14, is elsewhere [I]. */
	_Alignas(CACHE_PAD) atomic_ulong flags;
	/*
	 * The node counters' shared sums, which every pinner's CPU folds its
	 * diff into (mm/vmstat.c, node_page_state_add()): pgdat->vm_stat[]
	 * of the page's node and the machine's vm_node_stat[]. Each is one
	 * array of longs with the two items side by side, so one line each.
	 * In the kernel they are the machine's, not the mm's; here the mm
	 * is the machine.
	 */
	_Alignas(CACHE_PAD) atomic_long node_vm_stat[GUP_NR_NODE_STATS];
	_Alignas(CACHE_PAD) atomic_long global_vm_stat[GUP_NR_NODE_STATS];
	_Alignas(CACHE_PAD) pthread_rwlock_t mmap_lock;

	/* Read-mostly from here on: set up before any thread walks. */
	_Alignas(CACHE_PAD) enum gup_flag_update flag_update;
	enum gup_longterm_check longterm_check;
	enum gup_backing backing;
	struct gup_table *tables;	/* [0] is the pgd */
	unsigned long nr_tables;
	unsigned long tables_cap;
	struct gup_page *mem_map;
	unsigned long nr_frames;
	struct gup_mem_section **mem_section;	/* [root][section in root] */
	unsigned long nr_section_roots;
	unsigned long buffer_pages;
	unsigned int nr_vmas;
	struct gup_vma *vmas;
	struct gup_pool pools[NR_GUP_POOLS];

	/* Under mmap_lock held for write. */
	struct gup_writer *writer;
	unsigned int writer_vma;
	unsigned long writer_addr;
	unsigned long *migrated;	/* folios moved out of CMA, in order */
	unsigned long nr_migrated;
	unsigned long migrated_cap;
#ifdef GUP_TEST_HOOKS
	struct gup_test_hooks hooks;
#endif
};

static inline struct gup_table *entry_table(const struct gup_mm *mm, uint64_t e)
{
	return &mm->tables[entry_pfn(e)];
}

static inline struct gup_page *pfn_to_page(const struct gup_mm *mm,
					   unsigned long pfn)
{
	return &mm->mem_map[pfn];
}

static inline unsigned long page_to_pfn(const struct gup_mm *mm,
					const struct gup_page *page)
{
	return (unsigned long)(page - mm->mem_map);
}

/*
 * Locked read-modify-writes on the fast path, counted per thread in the
 * test build only, so that a test can hold the model to the kernel's
 * count per page (tests/test_gup.c, locked_ops table).
 */
#ifdef GUP_TEST_HOOKS
extern _Thread_local uint64_t gup_locked_ops;
#define gup_count_locked() (gup_locked_ops++)
#else
#define gup_count_locked() do { } while (0)
#endif

/*
 * get_pfnblock_flags_mask() of 5.14 (page.c), which
 * get_pageblock_migratetype() calls out of line: page_to_pfn() at the
 * call site, then __pfn_to_section() (the root array, then the section),
 * section_to_usemap() (ms->usage), and the pageblock's bits in the
 * bitmap word.
 */
unsigned long get_pfnblock_flags_mask(const struct gup_mm *mm,
				      const struct gup_page *page,
				      unsigned long pfn, unsigned long mask);

static inline unsigned long gup_pageblock_migratetype(const struct gup_mm *mm,
						      const struct gup_page *page)
{
	return get_pfnblock_flags_mask(mm, page, page_to_pfn(mm, page),
				       GUP_MIGRATETYPE_MASK);
}

/*
 * is_pinnable_page() (5.14; folio_is_longterm_pinnable() today): the CMA
 * rule, through the pageblock lookup. *checks counts the lookups so that
 * verify can tell the check ran; the fast path passes a local of its
 * own, kept in a register and added to the task's stats once per call,
 * since a store per page would be work the kernel does not do.
 */
static inline bool page_lookup_longterm_pinnable(const struct gup_mm *mm,
						 const struct gup_page *page,
						 uint64_t *checks)
{
	++*checks;
	return gup_pageblock_migratetype(mm, page) != GUP_PB_MIGRATE_CMA;
}

/* The same, counted in the task's stats at once: off the fast path. */
static inline bool page_is_longterm_pinnable(struct gup_task *task,
					     const struct gup_page *page)
{
	return page_lookup_longterm_pinnable(task->mm, page,
					     &task->stats.longterm_checks);
}

/* pgtable.c */
/* Allocates the pgd, table 0. */
int gup_tables_init(struct gup_mm *mm);
struct gup_frame_cursor {
	unsigned long next_huge_pfn;
	unsigned long next_small_pfn;
	unsigned long next_small_cma_pfn;	/* 4K CMA frames: pageblocks of their own */
	unsigned long folio_index;	/* decides which folios sit in CMA */
	unsigned int cma_percent;
	unsigned long cma_huge, cma_small;	/* the CMA folios mapped so far */
};

bool gup_folio_in_cma(unsigned long folio_index, unsigned int cma_percent);
int gup_map_buffer(struct gup_mm *mm, const struct gup_vma *vma,
		   struct gup_frame_cursor *cursor, char *err, size_t errlen);
/*
 * The leaf entry that maps addr, for writers and the locked slow path;
 * sets *huge for a PMD leaf. NULL when no table reaches that far.
 */
gup_entry_t *gup_leaf_entry(struct gup_mm *mm, unsigned long addr,
			    bool *huge);

/* page.c */
int gup_pools_init(struct gup_mm *mm, char *err, size_t errlen);
void gup_pools_destroy(struct gup_mm *mm);
void gup_frame_init(struct gup_mm *mm, unsigned long pfn, unsigned int order,
		    unsigned int migratetype);
struct gup_page *gup_alloc_folio(struct gup_mm *mm, unsigned int pool);
void gup_free_folio(struct gup_mm *mm, struct gup_page *folio);
unsigned int gup_folio_pool(const struct gup_page *folio);
int try_grab_folio(struct gup_task *task, struct gup_page *folio, int refs,
		   unsigned int flags);
/* The folio has references beyond its one mapping: a pin or a get. */
bool folio_has_extra_refs(struct gup_page *folio);

/*
 * The per-page fast path, inline as in the kernel's headers (page_ref.h,
 * mm.h): see page.c for how pins are accounted.
 */

/*
 * mod_node_page_state() with CONFIG_HAVE_CMPXCHG_LOCAL (x86-64):
 * mod_node_state() adds delta to this CPU's diff with this_cpu_cmpxchg(),
 * which has no lock prefix (it only has to be atomic against this CPU's
 * interrupts), so a plain update of the thread's own slot does the same
 * work. When the diff passes the threshold, all of it goes to the shared
 * sums with node_page_state_add(): two atomic_long_add()s, lock-prefixed
 * adds on two lines that every pinning CPU writes. With one page per
 * pin that is once every 126 pins, and on every batched unpin of a THP
 * (delta 512).
 */
static inline void gup_mod_node_state(struct gup_task *task, unsigned int item,
				      long delta)
{
	long diff = task->node_stat_diff[item] + delta;

	if (diff > GUP_NODE_STAT_THRESHOLD || diff < -GUP_NODE_STAT_THRESHOLD) {
		gup_count_locked();
		atomic_fetch_add_explicit(&task->mm->node_vm_stat[item], diff,
					  memory_order_relaxed);
		gup_count_locked();
		atomic_fetch_add_explicit(&task->mm->global_vm_stat[item], diff,
					  memory_order_relaxed);
		diff = 0;
	}
	task->node_stat_diff[item] = diff;
}

/*
 * put_page_refs() (5.13, 5.14; the end of put_compound_head() in 5.10 to
 * 5.12): "Calling put_page() for each ref is unnecessarily slow. Only the
 * last ref needs a put_page()": page_ref_sub(refs - 1), then put_page()'s
 * put_page_testzero(), two locked RMWs on the refcount when refs > 1 (a
 * small page's unpin, refs * GUP_PIN_COUNTING_BIAS; a THP's batched
 * unpin), one otherwise. Whoever drops the last reference frees the
 * folio. Later kernels (folio_put_refs()) do it with one subtraction.
 */
static inline void gup_folio_put_refs(struct gup_mm *mm,
				      struct gup_page *folio, int refs)
{
	if (refs > 1) {
		gup_count_locked();
		atomic_fetch_sub_explicit(&folio->refcount, refs - 1,
					  memory_order_seq_cst);
	}
	gup_count_locked();
	if (atomic_fetch_sub_explicit(&folio->refcount, 1,
				      memory_order_seq_cst) == 1)
		gup_free_folio(mm, folio);
}

/*
 * folio_ref_try_add_rcu(): add unless zero, a cmpxchg loop as in
 * atomic_add_unless(). A zero refcount means the folio is free or being
 * freed, and must not be resurrected.
 */
static inline bool folio_ref_try_add(struct gup_page *folio, int refs)
{
	int old = atomic_load_explicit(&folio->refcount, memory_order_relaxed);

	do {
		if (old == 0)
			return false;
		gup_count_locked();
	} while (!atomic_compare_exchange_weak_explicit(&folio->refcount, &old,
							 old + refs,
							 memory_order_seq_cst,
							 memory_order_relaxed));
	return true;
}

/*
 * try_grab_folio_fast() (try_grab_compound_head() in 5.14): the fast
 * path's grab, on a folio that may be freed under us. As in 5.14, a pin
 * takes one reference with add-unless-zero first, then adds the rest:
 * refs * (GUP_PIN_COUNTING_BIAS - 1) more to a small page's refcount
 * (page_ref_add()), or refs to a large folio's pincount
 * (hpage_pincount_add()). Two locked RMWs, plus the caller's
 * SetPageReferenced(): three per 4K page, three per THP. The compound
 * head is not rechecked after the grab: folios in this model are never
 * split, so page_folio() cannot change. The seq_cst adds order the grab
 * before the caller's recheck of the entry (smp_mb__after_atomic() in
 * the kernel), pairing with the writer's clear-then-check.
 */
static inline struct gup_page *try_grab_folio_fast(struct gup_task *task,
						   struct gup_page *page,
						   int refs, unsigned int flags)
{
	struct gup_page *folio = page_folio(page);

	if (!folio_ref_try_add(folio, refs))
		return NULL;
	if (flags & FOLL_PIN) {
		gup_count_locked();
		if (folio_is_large(folio))
			atomic_fetch_add_explicit(folio_pincount_ptr(folio), refs,
						  memory_order_seq_cst);
		else
			atomic_fetch_add_explicit(&folio->refcount,
						  refs * (GUP_PIN_COUNTING_BIAS - 1),
						  memory_order_seq_cst);
		/* try_grab_compound_head(): mod_node_page_state(.., NR_FOLL_PIN_ACQUIRED, refs) */
		gup_mod_node_state(task, GUP_NR_FOLL_PIN_ACQUIRED, refs);
		task->stats.pins_acquired += (uint64_t)refs;
	}
	return folio;
}

/* gup_put_folio(): undoes try_grab_folio*() with the same flags. */
static inline void gup_put_folio(struct gup_task *task,
				 struct gup_page *folio, int refs,
				 unsigned int flags)
{
	if (flags & FOLL_PIN) {
		task->stats.pins_released += (uint64_t)refs;
		/* put_compound_head(): mod_node_page_state(.., NR_FOLL_PIN_RELEASED, refs) */
		gup_mod_node_state(task, GUP_NR_FOLL_PIN_RELEASED, refs);
		if (folio_is_large(folio)) {
			gup_count_locked();
			atomic_fetch_sub_explicit(folio_pincount_ptr(folio), refs,
						  memory_order_seq_cst);
		} else {
			refs *= GUP_PIN_COUNTING_BIAS;
		}
	}
	gup_folio_put_refs(task->mm, folio, refs);
}

/*
 * Gives back pages the caller will never see: a walk undone by the
 * seqcount, pages a FOLL_LONGTERM check rejected, a slow-path attempt
 * before migration. One put per page, like gup_fast_unpin_user_pages().
 */
static inline void gup_undo_grabs(struct gup_task *task,
				  struct gup_page **pages, unsigned long nr,
				  unsigned int flags)
{
	for (unsigned long i = 0; i < nr; i++)
		gup_put_folio(task, page_folio(pages[i]), 1, flags);
}

/*
 * folio_set_referenced() (SetPageReferenced() in 5.14): an atomic set_bit
 * on every grab, as the kernel does; it writes the line the grab already
 * owns.
 */
static inline void folio_set_referenced(struct gup_page *folio)
{
	gup_count_locked();
	atomic_fetch_or_explicit(&folio->flags, 1UL << PG_REFERENCED,
				 memory_order_relaxed);
}


/*
 * A long-term writable pin of page cache is refused: the filesystem
 * writes those folios back and tracks them dirty, which a device writing
 * through a pin defeats. The slow path's writable_file_mapping_allowed()
 * (check_vma_flags(): -EFAULT) and the fast path's
 * gup_fast_folio_allowed() (the walk stops at the first such folio) ask
 * for FOLL_PIN, FOLL_LONGTERM and FOLL_WRITE together; anonymous memory,
 * shmem and hugetlb pass (6.5 and later, after Lorenzo Stoakes' "mm/gup:
 * disallow FOLL_LONGTERM GUP-nonfast writing to file-backed mappings").
 * The model's mapping is one kind for the whole mm, so the fast walk
 * asks once per call rather than per folio: the first folio would fail.
 */
static inline bool gup_file_pin_refused(const struct gup_mm *mm,
					unsigned int flags)
{
	const unsigned int all = FOLL_PIN | FOLL_LONGTERM | FOLL_WRITE;

	return mm->backing == GUP_BACKING_FILE && (flags & all) == all;
}

/* mm.c */
void mm_set_has_pinned_flag(struct gup_mm *mm);

/* slow.c */
long gup_slow_path(struct gup_task *task, unsigned long start,
		   unsigned long nr_pages, unsigned int flags,
		   struct gup_page **pages);

/*
 * writer.c: one page-table change, split in two so that the tests can
 * land a pinner in between. gup_zap_begin() takes mmap_lock for write,
 * bumps write_protect_seq if asked, clears the leaf entry, then checks
 * the folio for pins ("(1) clear PTE, (2) check pinned"); gup_zap_end()
 * maps a fresh folio of the same kind if the old one had no extra
 * reference (and a free one exists), otherwise puts the old entry back,
 * and unlocks.
 */
struct gup_zap {
	struct gup_mm *mm;
	gup_entry_t *entryp;
	uint64_t old;
	unsigned long addr;
	struct gup_page *folio;		/* the folio the entry mapped */
	struct gup_page *fresh;		/* its replacement, if replaced */
	bool bump_seq;
	bool replace;
};

int gup_zap_begin(struct gup_mm *mm, unsigned long addr, bool bump_seq,
		  struct gup_zap *z);
/*
 * The writer's next folio start: every folio of every buffer in turn,
 * each buffer's huge folios first, then the first buffer's again.
 */
unsigned long gup_writer_next_addr(struct gup_mm *mm);
bool gup_zap_end(struct gup_zap *z);
/*
 * The same with mmap_lock already held for write; to_movable takes the
 * fresh folio from movable memory (migration out of CMA).
 */
int gup_zap_begin_locked(struct gup_mm *mm, unsigned long addr,
			 bool bump_seq, bool to_movable, struct gup_zap *z);
bool gup_zap_end_locked(struct gup_zap *z);

#endif
