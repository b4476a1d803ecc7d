// SPDX-License-Identifier: GPL-2.0-only
/*
 * longterm_check: where get_user_pages_fast(FOLL_LONGTERM) rejects pages
 * that must not be pinned for long (CMA, and later ZONE_MOVABLE).
 *
 * Pingfan Liu's v3 (seed 002) walked the page table as usual and then
 * looped over pages[] again in reject_cma_pages(), releasing everything
 * from the first CMA page on so that the slow path would migrate it.
 * Andrew Morton and John Hubbard asked for the test inside
 * gup_pte_range() instead, which costs no second loop. With CmaTotal 0 kB
 * on an EPYC 7601, `gup_benchmark -r 100 -n 64 -l` took 640.41 us with
 * the second pass and 529.74 us with the check in the walk (about 17%).
 *
 * The model is v5.2's gup_pte_range(), the kernel the seed patched: per
 * page, try_get_compound_head() (compound_head(), the WARN's read of the
 * refcount, page_ref_add_unless(): a cmpxchg), the pte recheck, and
 * SetPageReferenced() (compound_head() again, a locked or): two locked
 * RMWs. The CMA check is is_migrate_cma_page(): an out-of-line
 * get_pfnblock_flags_mask() that finds the pfn's mem_section and reads
 * the pageblock's bits in ms->pageblock_flags (5.2 has no ms->usage).
 * Left out, the same in every variant: the walk down pgd, p4d, pud and
 * pmd once per call, and local_irq_disable()/enable().
 *
 * What each place touches, per page. The walk: the pte (8 per line),
 * the page's struct page line, cold at nr_pages=64 since the pass runs
 * over the whole buffer (2 MB of struct pages for gup_benchmark's
 * 128 MB), which the cmpxchg and the locked or then own, and one
 * pages[] slot. The second pass: the pages[] slot the walk just wrote,
 * vmemmap_base for page_to_pfn(), a call, then mem_section, the root,
 * the section's bitmap pointer and the bitmap word: six L1 loads, all
 * hot, and no struct page at all (the pageblock is found from the pfn).
 * So the second pass pays loads and a call per page, not misses, and
 * its cost is whatever the CPU takes to run that short loop.
 *
 * The seed's own figures put the second pass at 4.8 ns per page
 * ((640.41 - 481.8) us over 32768 pages) and the in-walk check at 1.5
 * to 1.9 ns, over a walk of 14.7 ns per page. This model does the same
 * per-page work (tests/check_disasm.py holds the loop to the call; the
 * loop's loads are listed above), yet on the 2-vCPU AMD EPYC VM (CPU
 * family 26) the second pass costs 1.8 to 2.2 ns per page and the
 * in-walk check 1.3 to 1.8 (get_ns_per_page over no_check's, 9
 * repetitions, six runs), over a walk of 11.1 to 11.7 ns: the walk
 * costs about what it cost on the seed's EPYC 7601, the second loop
 * under half of what it cost there. That is a cost of the seed's CPU (an older core running a
 * loop of calls and dependent loads) that this one does not have [I: no
 * Zen 1 and no PMU here to show which unit], so the gap measured here is
 * about 3%, not 17%; nothing in the model is tuned to widen it. A gap
 * that small shows best in get_ns_per_page_median, the median of short
 * stretches (see STRETCH_PAGES): over whole passes, timer interrupts
 * moved each repetition by more than the gap, and get_ns_per_page, the
 * mean that gup_benchmark prints, moves with them (the report's median
 * over repetitions leaves out the repetitions they hit most).
 *
 * One operation is one fast-GUP call over nr_pages consecutive pages of
 * the thread's own buffer (no page is shared). As in gup_benchmark,
 * calls move through the buffer chunk by chunk, up to one pass over it;
 * the pass's gets are timed, then (untimed) the pages are noted for
 * verify, then the put_page() of every page is timed: get_ns_per_page
 * and put_ns_per_page are gup_benchmark's get and put over the pages
 * asked for, over whole passes, and get_ns_per_page_median the get's
 * median over its stretches. ns_per_op, the harness's, covers all three.
 *
 * One family (about 900 lines), as every family is one file: its
 * variants, their access profiles, its claims and its verify beside
 * the lesson they serve.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel.h"
#include "splitmix64.h"
#include "longterm_check_lesson.h"

#define PG_REFERENCED 2
#define PTE_PRESENT 1UL
#define PTE_PFN_SHIFT 12

/*
 * Where a page's migratetype lives, as on x86-64 with SPARSEMEM_EXTREME:
 * 2 MB pageblocks (order 9), 128 MB sections, 256 sections per root, and
 * 4 bits per pageblock in the section's pageblock_flags bitmap.
 */
#define PAGEBLOCK_ORDER 9
#define PAGES_PER_PAGEBLOCK (1UL << PAGEBLOCK_ORDER)
#define PFN_SECTION_SHIFT 15
#define PAGES_PER_SECTION (1UL << PFN_SECTION_SHIFT)
#define SECTIONS_PER_ROOT 256
#define NR_PAGEBLOCK_BITS 4
#define MIGRATETYPE_MASK 7UL
#define BITMAP_WORDS_PER_SECTION \
	(PAGES_PER_SECTION / PAGES_PER_PAGEBLOCK * NR_PAGEBLOCK_BITS / 64)

/* The values of enum migratetype in include/linux/mmzone.h. */
enum { MIGRATE_MOVABLE = 1, MIGRATE_CMA = 4 };

struct mem_section_model {
	unsigned long *pageblock_flags;
};

/*
 * struct page is 64 bytes: one line each, as in the kernel's vmemmap.
 * compound_head has bit 0 set on a tail page; the buffer's pages are all
 * order-0, so it stays 0, but every compound_head() still reads it.
 */
struct page_model {
	_Alignas(64) atomic_ulong flags;	/* PG_referenced */
	_Atomic(uintptr_t) compound_head;
	atomic_int refcount;
};

/*
 * compound_head() of 5.2 (include/linux/page-flags.h):
 * READ_ONCE(page->compound_head), a tail's head if bit 0 is set.
 */
static inline struct page_model *compound_head(struct page_model *page)
{
	uintptr_t head = atomic_load_explicit(&page->compound_head,
					      memory_order_relaxed);

	return head & 1 ? (struct page_model *)(head - 1) : page;
}

struct longterm_thread {
	_Alignas(CACHE_PAD) struct page_model *memmap;	/* the buffer's pages */
	atomic_ulong *ptes;		/* the buffer's page table */
	struct page_model **pages;	/* the caller's pages[], a pass long */
	unsigned long next_chunk;
	uint64_t pinned;		/* pages pinned in all calls */
	uint64_t pinned_hash;		/* sum of page_hash() of those pages */
	uint64_t cma_checks;		/* is_migrate_cma_page() lookups */
	uint64_t get_ns;		/* time in the gets (the calls) */
	uint64_t put_ns;		/* time in the puts */
	double *stretch_ns_per_page;	/* each stretch of the gets, per page */
	unsigned long nr_stretches, stretches_cap;
	bool out_of_memory;		/* no room for the stretches: verify fails */
};

struct longterm_state {
	unsigned int nr_threads;
	unsigned int nr_pages;		/* per call */
	unsigned long buffer_pages;
	unsigned long nr_chunks;
	/*
	 * The layout, the same for every thread's buffer (pfns count from
	 * the buffer's first page): mem_section[root][section] leads to the
	 * pageblock bitmaps the check reads; block_is_cma is the same layout
	 * kept flat, for verify.
	 */
	struct mem_section_model **mem_section;
	unsigned long nr_roots;
	unsigned long nr_pageblocks;
	unsigned char *block_is_cma;
	struct longterm_thread *threads;
};

enum { PARAM_NR_PAGES, PARAM_CMA_PERCENT, PARAM_BUFFER_PAGES, PARAM_LAYOUT_SEED };

static const struct kernel_param longterm_params[] = {
	[PARAM_NR_PAGES] = {
		.name = "nr_pages",
		.help = "pages per get_user_pages_fast() call (gup_benchmark -n)",
		.def = 64, .min = 1, .max = 512, .suite = "1,64,512",
	},
	[PARAM_CMA_PERCENT] = {
		.name = "cma_percent",
		.help = "percentage of the buffer's 2 MB pageblocks that are CMA (not longterm-pinnable), chosen at random (the seed's machine had CmaTotal 0 kB)",
		.def = 0, .min = 0, .max = 100,
	},
	[PARAM_BUFFER_PAGES] = {
		.name = "buffer_pages",
		.help = "4 KiB pages in each thread's buffer (gup_benchmark's default 128 MB is 32768)",
		.def = 32768, .min = 512, .max = 1048576,
	},
	[PARAM_LAYOUT_SEED] = {
		.name = "layout_seed",
		.help = "seed of the random choice of CMA pageblocks",
		.def = 1, .min = 0, .max = 2147483647,
	},
};

/* splitmix64's output for state x: the layouts' and the hashes' mixer. */
static inline uint64_t mix64(uint64_t x)
{
	return splitmix64_next(&x);
}

/* The identity of a pinned page, summed so that verify can compare sets. */
static inline uint64_t page_hash(unsigned long pfn)
{
	return mix64(pfn);
}

static inline unsigned long pfn_of(const struct longterm_thread *th,
				   const struct page_model *page)
{
	return (unsigned long)(page - th->memmap);
}

/*
 * get_pfnblock_flags_mask() of 5.2 (mm/page_alloc.c), out of line as
 * there: __pfn_to_section() (the global mem_section and the root, each
 * checked for NULL as SPARSEMEM_EXTREME does, then the section), its
 * pageblock_flags bitmap, and the pageblock's bits in it: four dependent
 * loads per page.
 *
 * In the kernel this function lives in another file, so its callers know
 * nothing of it. The empty asm with a memory clobber keeps that so here:
 * without it the compiler sees the whole function, clones it with
 * s->mem_section passed in a register (loaded once per pass, not once
 * per page), and lets the callers keep th->memmap in a register across
 * the call, where the kernel reloads vmemmap_base for each page_to_pfn().
 */
__attribute__((noinline))
static unsigned long get_pfnblock_flags_mask(const struct longterm_state *s,
					     unsigned long pfn, unsigned long mask)
{
	const struct mem_section_model *root;
	unsigned long nr, bitidx, word;

	__asm__ __volatile__("" ::: "memory");
	if (!s->mem_section)
		return 0;
	nr = pfn >> PFN_SECTION_SHIFT;
	root = s->mem_section[nr / SECTIONS_PER_ROOT];
	bitidx = ((pfn & (PAGES_PER_SECTION - 1)) >> PAGEBLOCK_ORDER) * NR_PAGEBLOCK_BITS;
	if (!root)
		return 0;
	word = root[nr % SECTIONS_PER_ROOT].pageblock_flags[bitidx / 64];
	return word >> (bitidx % 64) & mask;
}

/*
 * !is_migrate_cma_page(page): page_to_pfn() (vmemmap: a subtraction from
 * vmemmap_base, here th->memmap, reloaded after every call as the
 * kernel's is), then the lookup. 5.2's test reads neither struct page
 * nor compound_head(): the pageblock is found from the pfn alone.
 * *checks counts the lookups so that verify can tell the check ran; it
 * is the caller's local, kept in a register, and goes to th->cma_checks
 * once per call: no store per page that the kernel does not make.
 */
static inline bool page_is_longterm_pinnable(const struct longterm_state *s,
					     const struct longterm_thread *th,
					     const struct page_model *page,
					     uint64_t *checks)
{
	++*checks;
	return get_pfnblock_flags_mask(s, pfn_of(th, page), MIGRATETYPE_MASK) !=
	       MIGRATE_CMA;
}

/*
 * put_page() of 5.2 (include/linux/mm.h): page = compound_head(page),
 * then put_page_testzero(): page_ref_dec_and_test(), one locked RMW.
 * (put_devmap_managed_page() in between is a static branch, off.)
 */
static inline void put_page(struct page_model *page)
{
	atomic_fetch_sub_explicit(&compound_head(page)->refcount, 1,
				  memory_order_release);
}

/*
 * try_get_compound_head() of 5.2 (mm/gup.c): head = compound_head(page);
 * WARN_ON_ONCE(page_ref_count(head) < 0), a read of the refcount; then
 * page_cache_add_speculative(), that is page_ref_add_unless(head, 1, 0),
 * a cmpxchg loop that reads the refcount again and never revives a
 * freed page.
 */
static inline struct page_model *try_get_compound_head(struct page_model *page)
{
	struct page_model *head = compound_head(page);
	int old;

	if (atomic_load_explicit(&head->refcount, memory_order_relaxed) < 0)
		return NULL;
	old = atomic_load_explicit(&head->refcount, memory_order_relaxed);
	do {
		if (old == 0)
			return NULL;
	} while (!atomic_compare_exchange_weak_explicit(&head->refcount, &old, old + 1,
							 memory_order_seq_cst,
							 memory_order_relaxed));
	return head;
}

/*
 * SetPageReferenced() of 5.2: PAGEFLAG(Referenced, .., PF_HEAD), so
 * set_bit(PG_referenced, &compound_head(page)->flags): a locked or.
 */
static inline void set_page_referenced(struct page_model *page)
{
	atomic_fetch_or_explicit(&compound_head(page)->flags, 1UL << PG_REFERENCED,
				 memory_order_relaxed);
}

/*
 * gup_pte_range() of 5.2 for one call: read each pte once, stop at the
 * first that is not present, take the reference, recheck the pte,
 * SetPageReferenced(), record the page. With check_longterm, also stop
 * at the first page that may not be pinned for long, before taking its
 * reference (variant b of seed 002).
 */
static inline unsigned int walk_ptes(struct longterm_state *s,
				     struct longterm_thread *th,
				     struct page_model **pages,
				     unsigned long first, bool check_longterm)
{
	atomic_ulong *ptep = &th->ptes[first];
	unsigned int nr = 0, nr_pages = s->nr_pages;
	uint64_t checks = 0;

	for (unsigned int i = 0; i < nr_pages; i++, ptep++) {
		unsigned long pte = atomic_load_explicit(ptep, memory_order_relaxed);
		struct page_model *page, *head;

		if (!(pte & PTE_PRESENT))
			break;
		page = &th->memmap[pte >> PTE_PFN_SHIFT];
		if (check_longterm && !page_is_longterm_pinnable(s, th, page, &checks))
			break;
		head = try_get_compound_head(page);
		if (!head)
			break;
		if (atomic_load_explicit(ptep, memory_order_relaxed) != pte) {
			put_page(head);
			break;
		}
		set_page_referenced(page);
		pages[nr++] = page;
	}
	th->cma_checks += checks;
	return nr;
}

/*
 * reject_cma_pages() of seed 002: a second loop over pages[]; from the
 * first CMA page on, release the pages and leave them to the slow path.
 */
static inline unsigned int reject_cma_pages(struct longterm_state *s,
					    struct longterm_thread *th,
					    struct page_model **pages,
					    unsigned int nr_pinned)
{
	uint64_t checks = 0;

	for (unsigned int i = 0; i < nr_pinned; i++) {
		if (!page_is_longterm_pinnable(s, th, pages[i], &checks)) {
			th->cma_checks += checks;
			for (unsigned int k = i; k < nr_pinned; k++)
				put_page(pages[k]);
			return i;
		}
	}
	th->cma_checks += checks;
	return nr_pinned;
}

static inline unsigned long next_call_start(const struct longterm_state *s,
					    struct longterm_thread *th)
{
	unsigned long chunk = th->next_chunk;

	th->next_chunk = chunk + 1 == s->nr_chunks ? 0 : chunk + 1;
	return chunk * s->nr_pages;
}

enum longterm_kind { NO_CHECK, SECOND_PASS, CHECK_IN_WALK };

/*
 * The gets are timed in stretches of at least this many pages (32 calls
 * at nr_pages=64, about 25 us here), and get_ns_per_page_median is the
 * median over the stretches (get_ns_per_page, their sum over the pages). A pass over gup_benchmark's 128 MB takes about as
 * long as the 1 ms between two timer interrupts, and on a VM one
 * interrupt can cost 40 us: a tenth of a pass, more than the gap between
 * the variants. Whole passes, or their sum, then vary by whether and how
 * often an interrupt hit them; the median of the stretches leaves out
 * the few an interrupt hit, in every variant alike. The clock reads cost
 * about 0.1% of a stretch.
 */
#define STRETCH_PAGES 2048

/* Room for a pass's stretches, made outside the timed spans. */
static bool reserve_stretches(struct longterm_thread *th, uint64_t more)
{
	double *grown;
	unsigned long cap = th->stretches_cap;

	if (th->nr_stretches + more <= cap)
		return true;
	while (cap < th->nr_stretches + more)
		cap = cap ? 2 * cap : 1024;
	grown = realloc(th->stretch_ns_per_page, cap * sizeof(*grown));
	if (!grown) {
		th->out_of_memory = true;
		return false;
	}
	th->stretch_ns_per_page = grown;
	th->stretches_cap = cap;
	return true;
}

static inline void end_stretch(const struct longterm_state *s,
			       struct longterm_thread *th, uint64_t ns,
			       unsigned int calls)
{
	if (calls && th->nr_stretches < th->stretches_cap)
		th->stretch_ns_per_page[th->nr_stretches++] =
			(double)ns / ((double)calls * s->nr_pages);
}

/*
 * gup_benchmark's ioctl, a pass at a time: the calls (timed: get), a
 * note of the pages for verify (not timed), then put_page() on every
 * page (timed: put). A pass is at most one sweep of the buffer.
 */
static inline void run_calls(struct longterm_state *s, struct longterm_thread *th,
			     uint64_t nr_ops, enum longterm_kind kind)
{
	unsigned int stretch_calls = (STRETCH_PAGES + s->nr_pages - 1) / s->nr_pages;

	while (nr_ops) {
		uint64_t calls = nr_ops < s->nr_chunks ? nr_ops : s->nr_chunks;
		unsigned long nr = 0;
		unsigned int left = stretch_calls;
		uint64_t ts, t1, t2;

		reserve_stretches(th, (calls + stretch_calls - 1) / stretch_calls);
		ts = kernel_now_ns();
		for (uint64_t c = 0; c < calls; c++) {
			struct page_model **pages = th->pages + nr;
			unsigned int got = walk_ptes(s, th, pages, next_call_start(s, th),
						     kind == CHECK_IN_WALK);

			if (kind == SECOND_PASS)
				got = reject_cma_pages(s, th, pages, got);
			nr += got;
			if (!--left) {
				uint64_t t = kernel_now_ns();

				end_stretch(s, th, t - ts, stretch_calls);
				th->get_ns += t - ts;
				ts = t;
				left = stretch_calls;
			}
		}
		t1 = kernel_now_ns();
		end_stretch(s, th, t1 - ts, stretch_calls - left);
		th->get_ns += t1 - ts;
		for (unsigned long i = 0; i < nr; i++)
			th->pinned_hash += page_hash(pfn_of(th, th->pages[i]));
		th->pinned += nr;
		t2 = kernel_now_ns();
		for (unsigned long i = 0; i < nr; i++)
			put_page(th->pages[i]);
		th->put_ns += kernel_now_ns() - t2;
		nr_ops -= calls;
	}
}

/* get_user_pages_fast() without FOLL_LONGTERM: the baseline. */
static void no_check(void *state, unsigned int thread, uint64_t nr_ops)
{
	struct longterm_state *s = state;

	run_calls(s, &s->threads[thread], nr_ops, NO_CHECK);
}

/* Seed 002 variant a: the walk, then reject_cma_pages() over pages[]. */
static void second_pass(void *state, unsigned int thread, uint64_t nr_ops)
{
	struct longterm_state *s = state;

	run_calls(s, &s->threads[thread], nr_ops, SECOND_PASS);
}

/* Seed 002 variant b: the test inside gup_pte_range(). */
static void check_in_walk(void *state, unsigned int thread, uint64_t nr_ops)
{
	struct longterm_state *s = state;

	run_calls(s, &s->threads[thread], nr_ops, CHECK_IN_WALK);
}

/* What every walk does to each page it pins. */
#define PIN_PAGE_INSNS								\
	INSN_HAS(INSN_CMPXCHG, "page_ref_add_unless(): a cmpxchg per page"),	\
	INSN_HAS(INSN_LOCK_OR, "SetPageReferenced() per page")

#define PAGES_SEEN								\
	"each thread's pages pinned per call, marked referenced and released "	\
	"(refcount 1 again), and its CMA checks (none without FOLL_LONGTERM)"

enum { VARIANT_NO_CHECK, VARIANT_SECOND_PASS, VARIANT_CHECK_IN_WALK, NR_VARIANTS };

/* Indexed by the enum above: the code's VARIANT_* and the names agree. */
static const struct kernel_variant longterm_variants[] = {
	[VARIANT_NO_CHECK] = {
		.name = "no_check",
		.models = "get_user_pages_fast() without FOLL_LONGTERM (gup_benchmark without -l)",
		.run = no_check,
		.verify_sees = PAGES_SEEN,
		.baseline = true,
		.instructions = {
			PIN_PAGE_INSNS,
			INSN_HAS(INSN_LOCK_SUB, "put_page() per page"),
			{ INSN_CALL, INSN_NOWHERE, "no CMA check without FOLL_LONGTERM", NULL,
			  "get_pfnblock_flags_mask" },
		},
	},
	[VARIANT_SECOND_PASS] = {
		.name = "second_pass",
		.models = "nr_pinned = reject_cma_pages(nr_pinned, pages); after the fast walk (v3, variant a)",
		.run = second_pass,
		.verify_sees = PAGES_SEEN,
		.instructions = {
			PIN_PAGE_INSNS,
			{ INSN_CALL, INSN_IN_LOOP, "is_migrate_cma_page() per page in reject_cma_pages()",
			  NULL, "get_pfnblock_flags_mask" },
		},
	},
	[VARIANT_CHECK_IN_WALK] = {
		.name = "check_in_walk",
		.models = "if (FOLL_LONGTERM && is_migrate_cma_page(page)) goto pte_unmap; in gup_pte_range() (variant b)",
		.run = check_in_walk,
		.verify_sees = PAGES_SEEN,
		.instructions = {
			PIN_PAGE_INSNS,
			{ INSN_CALL, INSN_IN_LOOP, "is_migrate_cma_page() per page in gup_pte_range()",
			  NULL, "get_pfnblock_flags_mask" },
		},
	},
};

_Static_assert(sizeof(longterm_variants) / sizeof(longterm_variants[0]) == NR_VARIANTS,
	       "one variant per VARIANT_* value");

static void longterm_destroy(void *state)
{
	struct longterm_state *s = state;

	if (!s)
		return;
	for (unsigned int t = 0; s->threads && t < s->nr_threads; t++) {
		free(s->threads[t].memmap);
		free(s->threads[t].ptes);
		free(s->threads[t].pages);
		free(s->threads[t].stretch_ns_per_page);
	}
	free(s->threads);
	for (unsigned long r = 0; s->mem_section && r < s->nr_roots; r++) {
		for (unsigned int k = 0; s->mem_section[r] && k < SECTIONS_PER_ROOT; k++)
			free(s->mem_section[r][k].pageblock_flags);
		free(s->mem_section[r]);
	}
	kernel_free_shared(s->mem_section);
	free(s->block_is_cma);
	free(s);
}

/*
 * CMA areas are made of whole pageblocks: exactly round(cma_percent% of
 * the buffer's pageblocks) are CMA, chosen at random.
 */
static void choose_cma_pageblocks(struct longterm_state *s, long percent,
				  long seed)
{
	unsigned long nr_cma = (s->nr_pageblocks * (unsigned long)percent + 50) / 100;
	uint64_t x = (uint64_t)seed;

	for (unsigned long i = 0; i < s->nr_pageblocks; i++)
		s->block_is_cma[i] = i < nr_cma;
	for (unsigned long i = s->nr_pageblocks - 1; i > 0; i--) {
		unsigned long k = (x = mix64(x)) % (i + 1);
		unsigned char tmp = s->block_is_cma[i];

		s->block_is_cma[i] = s->block_is_cma[k];
		s->block_is_cma[k] = tmp;
	}
}

/* set_pageblock_migratetype() for every pageblock of the buffer. */
static int build_mem_sections(struct longterm_state *s)
{
	unsigned long nr_sections =
		(s->buffer_pages + PAGES_PER_SECTION - 1) / PAGES_PER_SECTION;

	s->nr_roots = (nr_sections + SECTIONS_PER_ROOT - 1) / SECTIONS_PER_ROOT;
	/* The root every thread reads on every page: the family's shared line. */
	s->mem_section = kernel_alloc_shared(s->nr_roots * sizeof(*s->mem_section));
	if (!s->mem_section)
		return -1;
	for (unsigned long r = 0; r < s->nr_roots; r++) {
		s->mem_section[r] = calloc(SECTIONS_PER_ROOT, sizeof(**s->mem_section));
		if (!s->mem_section[r])
			return -1;
	}
	for (unsigned long nr = 0; nr < nr_sections; nr++) {
		struct mem_section_model *ms =
			&s->mem_section[nr / SECTIONS_PER_ROOT][nr % SECTIONS_PER_ROOT];

		ms->pageblock_flags = calloc(BITMAP_WORDS_PER_SECTION,
					     sizeof(unsigned long));
		if (!ms->pageblock_flags)
			return -1;
	}
	for (unsigned long b = 0; b < s->nr_pageblocks; b++) {
		unsigned long pfn = b << PAGEBLOCK_ORDER;
		unsigned long nr = pfn >> PFN_SECTION_SHIFT;
		unsigned long bitidx = ((pfn & (PAGES_PER_SECTION - 1)) >> PAGEBLOCK_ORDER) *
				       NR_PAGEBLOCK_BITS;
		unsigned long type = s->block_is_cma[b] ? MIGRATE_CMA : MIGRATE_MOVABLE;

		s->mem_section[nr / SECTIONS_PER_ROOT][nr % SECTIONS_PER_ROOT]
			.pageblock_flags[bitidx / 64] |= type << (bitidx % 64);
	}
	return 0;
}

static int setup_thread(struct longterm_state *s, struct longterm_thread *th)
{
	th->memmap = kernel_alloc_padded(s->buffer_pages * sizeof(*th->memmap));
	th->ptes = kernel_alloc_padded(s->buffer_pages * sizeof(*th->ptes));
	th->pages = kernel_alloc_padded(s->nr_chunks * s->nr_pages * sizeof(*th->pages));
	if (!th->memmap || !th->ptes || !th->pages)
		return -1;
	for (unsigned long pfn = 0; pfn < s->buffer_pages; pfn++) {
		atomic_init(&th->memmap[pfn].refcount, 1);	/* mapped once */
		atomic_init(&th->ptes[pfn], pfn << PTE_PFN_SHIFT | PTE_PRESENT);
	}
	return 0;
}

static void *longterm_create(const struct kernel_config *cfg, char *err,
			     size_t errlen)
{
	struct longterm_state *s = calloc(1, sizeof(*s));

	if (!s)
		goto oom;
	s->nr_threads = cfg->nr_threads;
	s->nr_pages = (unsigned int)cfg->param[PARAM_NR_PAGES];
	s->buffer_pages = (unsigned long)cfg->param[PARAM_BUFFER_PAGES];
	/* gup_benchmark walks the buffer in whole calls; a tail is left out. */
	s->nr_chunks = s->buffer_pages / s->nr_pages;
	s->nr_pageblocks = (s->buffer_pages + PAGES_PER_PAGEBLOCK - 1) / PAGES_PER_PAGEBLOCK;
	s->block_is_cma = malloc(s->nr_pageblocks);
	s->threads = kernel_alloc_padded(s->nr_threads * sizeof(*s->threads));
	if (!s->block_is_cma || !s->threads)
		goto oom;
	choose_cma_pageblocks(s, cfg->param[PARAM_CMA_PERCENT],
			      cfg->param[PARAM_LAYOUT_SEED]);
	if (build_mem_sections(s))
		goto oom;
	for (unsigned int t = 0; t < s->nr_threads; t++)
		if (setup_thread(s, &s->threads[t]))
			goto oom;
	return s;
oom:
	longterm_destroy(s);
	snprintf(err, errlen, "longterm_check: out of memory for %u threads x %ld pages",
		 cfg->nr_threads, cfg->param[PARAM_BUFFER_PAGES]);
	return NULL;
}

/*
 * What a call at each chunk must pin, computed from the layout alone:
 * everything without the check, else the pages before the first CMA
 * page; and how many CMA lookups it makes: in the walk or in the second
 * pass alike, one per page up to and including the first CMA page.
 */
struct chunk_expect {
	uint64_t nr, hash, checks;
};

static void expected_per_chunk(const struct longterm_state *s, bool longterm,
			       unsigned long chunk, struct chunk_expect *e)
{
	unsigned long first = chunk * s->nr_pages;

	*e = (struct chunk_expect){ 0 };
	for (unsigned long pfn = first; pfn < first + s->nr_pages; pfn++) {
		e->checks += longterm;
		if (longterm && s->block_is_cma[pfn >> PAGEBLOCK_ORDER])
			break;
		e->nr++;
		e->hash += page_hash(pfn);
	}
}

/* What nr_calls calls from chunk 0 must do, summed. */
static void expected_pins(const struct longterm_state *s, bool longterm,
			  uint64_t nr_calls, struct chunk_expect *sum)
{
	uint64_t cycles = nr_calls / s->nr_chunks, rest = nr_calls % s->nr_chunks;
	struct chunk_expect e, cycle = { 0 }, part = { 0 };

	for (unsigned long c = 0; c < s->nr_chunks; c++) {
		expected_per_chunk(s, longterm, c, &e);
		cycle.nr += e.nr;
		cycle.hash += e.hash;
		cycle.checks += e.checks;
		if (c < rest) {
			part.nr += e.nr;
			part.hash += e.hash;
			part.checks += e.checks;
		}
	}
	sum->nr = cycles * cycle.nr + part.nr;
	sum->hash = cycles * cycle.hash + part.hash;
	sum->checks = cycles * cycle.checks + part.checks;
}

/*
 * Every reference went back, and PG_referenced is set on exactly the
 * pages some walk took: those of the chunks called, each up to its first
 * CMA page when the check is in the walk (the second pass marks the
 * pages it then gives back, as the kernel's walk did).
 */
static int check_pages(const struct longterm_state *s, bool longterm,
		       const uint64_t *ops, char *msg, size_t msglen)
{
	for (unsigned int t = 0; t < s->nr_threads; t++) {
		const struct longterm_thread *th = &s->threads[t];
		unsigned long referenced = 0;
		struct chunk_expect e, want = { 0 };

		for (unsigned long c = 0; c < s->nr_chunks && c < ops[t]; c++) {
			expected_per_chunk(s, longterm, c, &e);
			want.nr += e.nr;
		}
		for (unsigned long pfn = 0; pfn < s->buffer_pages; pfn++) {
			int ref = atomic_load(&th->memmap[pfn].refcount);

			referenced += atomic_load(&th->memmap[pfn].flags) >> PG_REFERENCED & 1;
			if (ref != 1) {
				snprintf(msg, msglen, "thread %u's page %lu has refcount %d after the calls, expected 1 (a reference not released)",
					 t, pfn, ref);
				return -1;
			}
		}
		if (referenced != want.nr) {
			snprintf(msg, msglen, "thread %u: %lu pages marked referenced, expected %llu",
				 t, referenced, (unsigned long long)want.nr);
			return -1;
		}
	}
	return 0;
}

static int compare_doubles(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The median over every thread's stretches of get time per page. */
static int stretch_median(const struct longterm_state *s, double *median)
{
	unsigned long n = 0, k = 0;
	double *all;

	for (unsigned int t = 0; t < s->nr_threads; t++)
		n += s->threads[t].nr_stretches;
	if (!n) {
		*median = 0;
		return 0;
	}
	all = malloc(n * sizeof(*all));
	if (!all)
		return -1;
	for (unsigned int t = 0; t < s->nr_threads; t++) {
		const struct longterm_thread *th = &s->threads[t];

		memcpy(all + k, th->stretch_ns_per_page, th->nr_stretches * sizeof(*all));
		k += th->nr_stretches;
	}
	qsort(all, n, sizeof(*all), compare_doubles);
	*median = n % 2 ? all[n / 2] : (all[n / 2 - 1] + all[n / 2]) / 2;
	free(all);
	return 0;
}

static int longterm_verify(void *state, const struct kernel_config *cfg,
			   const uint64_t *ops, struct kernel_metrics *metrics,
			   char *msg, size_t msglen)
{
	struct longterm_state *s = state;
	bool longterm = cfg->variant != VARIANT_NO_CHECK;
	uint64_t calls = 0, pinned = 0, checks = 0, get_ns = 0, put_ns = 0;
	struct chunk_expect want;
	double median_get;

	for (unsigned int t = 0; t < s->nr_threads; t++) {
		const struct longterm_thread *th = &s->threads[t];

		if (th->out_of_memory) {
			snprintf(msg, msglen, "thread %u had no memory to note its timed stretches", t);
			return -1;
		}

		expected_pins(s, longterm, ops[t], &want);
		if (th->pinned != want.nr || th->pinned_hash != want.hash) {
			snprintf(msg, msglen, "thread %u pinned %llu pages in %llu calls, expected %llu%s",
				 t, (unsigned long long)th->pinned,
				 (unsigned long long)ops[t], (unsigned long long)want.nr,
				 th->pinned == want.nr ? " (the same number, but other pages)" : "");
			return -1;
		}
		if (th->cma_checks != want.checks) {
			snprintf(msg, msglen, "thread %u made %llu CMA checks in %llu calls, expected %llu",
				 t, (unsigned long long)th->cma_checks,
				 (unsigned long long)ops[t], (unsigned long long)want.checks);
			return -1;
		}
		calls += ops[t];
		pinned += th->pinned;
		checks += th->cma_checks;
		get_ns += th->get_ns;
		put_ns += th->put_ns;
	}
	if (check_pages(s, cfg->variant == VARIANT_CHECK_IN_WALK, ops, msg, msglen))
		return -1;
	if (stretch_median(s, &median_get)) {
		snprintf(msg, msglen, "out of memory for the median of the timed stretches");
		return -1;
	}
	if (calls) {
		double pages = (double)calls * s->nr_pages;

		/*
		 * get_ns_per_page has one meaning in every family: the
		 * gets' whole time over the pages, as gup_test and
		 * gup_benchmark print it (and gup's walker writes it). The
		 * median over the stretches, which leaves out the few an
		 * interrupt hit, is a counter of its own.
		 */
		kernel_metric_add(metrics, "get_ns_per_page", (double)get_ns / pages);
		kernel_metric_add(metrics, "get_ns_per_page_median", median_get);
		kernel_metric_add(metrics, "put_ns_per_page", (double)put_ns / pages);
		kernel_metric_add(metrics, "cma_checks_per_call", (double)checks / (double)calls);
	}
	/* Below nr_pages when calls stop at CMA pages: the slow path's share. */
	kernel_metric_add(metrics, "pages_per_call",
			  calls ? (double)pinned / (double)calls : 0.0);
	return 0;
}

/*
 * Access profile (model/): one call over nr_pages pages of the thread's
 * own buffer. Nothing is shared between threads: every locked op (the
 * get's cmpxchg and referenced bit, the put) is on the thread's own page
 * lines.
 */
static void longterm_access(const struct kernel_config *cfg,
			    struct access_profile *p)
{
	p->private_locked = 3.0 * (double)cfg->param[PARAM_NR_PAGES];
}

/*
 * seed 002 saw about 17% on the get alone for 64 pages. With one page per
 * call the second pass is a loop of one: the two designs cost the same.
 */
static const struct kernel_claim longterm_claims[] = {
	{
		.text = "for a single page the place of the check hardly matters",
		.a = "second_pass", .b = "check_in_walk",
		.setting = "nr_pages=1", .threads = CLAIM_ONE_THREAD,
		.relation = CLAIM_WITHIN, .x = 1.5,
	},
};

/* gup_benchmark -n 64 with no CMA memory on the machine. */
static const char *const gup_benchmark_setting[] = { "nr_pages=64", "cma_percent=0", NULL };

extern const struct kernel_family longterm_check_family;

/* The seed's figure this family models (kernel.h: struct seed_figure). */
static const struct seed_figure longterm_check_seeds[] = {
	{
		/* seeds/002: variant a (second pass) vs b (in gup_pte_range) */
		.setting = gup_benchmark_setting,
		.thread = "002",
		.family = &longterm_check_family,
		.before_variant = "second_pass",
		.after_variant = "check_in_walk",
		.source = "Pingfan Liu, FOLL_LONGTERM check in get_user_pages_fast(), June 2019",
		.benchmark = "gup_benchmark -r 100 -n 64 -l, no CMA memory",
		.quantity = "get_ns_per_page",
		.machine = "AMD EPYC 7601",
		.threads = 1,
		.before = 640.41,
		.after = 529.74,
		.unit = "us",
		.higher_is_better = false,
		.published = "\"about 17%\" less time",
	},
};

const struct kernel_family longterm_check_family = {
	.name = "longterm_check",
	.title = "FOLL_LONGTERM in gup fast: a second pass over pages[] vs the check in the walk",
	.reading_order = 6,
	.lesson = LESSON,
	.source = LESSON_SOURCE,
	.before = LESSON_BEFORE,
	.after = LESSON_AFTER,
	.seeds = longterm_check_seeds,
	.nr_seeds = sizeof(longterm_check_seeds) / sizeof(longterm_check_seeds[0]),
	.params = longterm_params,
	.nr_params = sizeof(longterm_params) / sizeof(longterm_params[0]),
	.variants = longterm_variants,
	.nr_variants = sizeof(longterm_variants) / sizeof(longterm_variants[0]),
	.create = longterm_create,
	.verify = longterm_verify,
	.destroy = longterm_destroy,
	.access = longterm_access,
	.claims = longterm_claims,
	.nr_claims = sizeof(longterm_claims) / sizeof(longterm_claims[0]),
	.lesson_line = LESSON_LINE,
	.exercise_question = LESSON_EXERCISE_QUESTION,
	.exercise_command = LESSON_EXERCISE_COMMAND,
	.exercise_reading = LESSON_EXERCISE_READING,
};
KERNEL_FAMILY_REGISTER(longterm_check_family);
