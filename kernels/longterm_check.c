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
 * One operation is one fast-GUP call over nr_pages consecutive pages of
 * the thread's own buffer (pin_fast style: no page is shared), followed
 * by the unpin of whatever it pinned, so that every pin is released. The
 * calls move through the buffer chunk by chunk, as gup_benchmark does.
 * gup_benchmark timed the get and the put separately; here the put,
 * which costs the same in every variant, is in the time, so the gap
 * between variants is diluted.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel.h"

#define GUP_PIN_COUNTING_BIAS 1024	/* include/linux/mm.h */
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

/* struct page is 64 bytes: one line each, as in the kernel's vmemmap. */
struct page_model {
	_Alignas(64) atomic_long refcount;
	unsigned long flags;
};

struct longterm_thread {
	_Alignas(CACHE_PAD) struct page_model *memmap;	/* the buffer's pages */
	atomic_ulong *ptes;		/* the buffer's page table */
	struct page_model **pages;	/* the caller's pages[], nr_pages long */
	unsigned long next_chunk;
	uint64_t pinned;		/* pages pinned in all calls */
	uint64_t pinned_hash;		/* sum of page_hash() of those pages */
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

/* splitmix64: a small, well-mixed generator for layouts and hashes. */
static inline uint64_t mix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
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
 * is_migrate_cma_page() of 5.2: page_to_pfn(), the pfn's mem_section,
 * its pageblock_flags bitmap, and the pageblock's bits in it
 * (__get_pfnblock_flags_mask()). Three dependent loads and some shifts
 * per page, all of them hitting in the cache on a sequential walk.
 */
static inline bool page_is_longterm_pinnable(const struct longterm_state *s,
					     const struct longterm_thread *th,
					     const struct page_model *page)
{
	unsigned long pfn = pfn_of(th, page);
	unsigned long nr = pfn >> PFN_SECTION_SHIFT;
	const struct mem_section_model *ms =
		&s->mem_section[nr / SECTIONS_PER_ROOT][nr % SECTIONS_PER_ROOT];
	unsigned long bitidx = ((pfn & (PAGES_PER_SECTION - 1)) >> PAGEBLOCK_ORDER) *
			       NR_PAGEBLOCK_BITS;
	unsigned long word = ms->pageblock_flags[bitidx / 64];

	return (word >> (bitidx % 64) & MIGRATETYPE_MASK) != MIGRATE_CMA;
}

static inline void unpin_page(struct page_model *page)
{
	atomic_fetch_sub_explicit(&page->refcount, GUP_PIN_COUNTING_BIAS,
				  memory_order_release);
}

/*
 * gup_pte_range() for one call: read each pte once, stop at the first
 * that is not present, take the pin, recheck the pte, record the page.
 * With check_longterm, also stop at the first page that may not be
 * pinned for long, before taking its pin (variant b of seed 002).
 */
static inline unsigned int walk_ptes(struct longterm_state *s,
				     struct longterm_thread *th,
				     unsigned long first, bool check_longterm)
{
	unsigned int nr = 0;

	for (unsigned int i = 0; i < s->nr_pages; i++) {
		atomic_ulong *ptep = &th->ptes[first + i];
		unsigned long pte = atomic_load_explicit(ptep, memory_order_relaxed);
		struct page_model *page;

		if (!(pte & PTE_PRESENT))
			break;
		page = &th->memmap[pte >> PTE_PFN_SHIFT];
		if (check_longterm && !page_is_longterm_pinnable(s, th, page))
			break;
		atomic_fetch_add_explicit(&page->refcount, GUP_PIN_COUNTING_BIAS,
					  memory_order_acquire);
		if (atomic_load_explicit(ptep, memory_order_relaxed) != pte) {
			unpin_page(page);
			break;
		}
		th->pages[nr++] = page;
	}
	return nr;
}

/*
 * reject_cma_pages() of seed 002: a second loop over pages[]; from the
 * first CMA page on, release the pins and leave those pages to the slow
 * path.
 */
static inline unsigned int reject_cma_pages(struct longterm_state *s,
					    struct longterm_thread *th,
					    unsigned int nr_pinned)
{
	for (unsigned int i = 0; i < nr_pinned; i++) {
		if (!page_is_longterm_pinnable(s, th, th->pages[i])) {
			for (unsigned int k = i; k < nr_pinned; k++)
				unpin_page(th->pages[k]);
			return i;
		}
	}
	return nr_pinned;
}

/* The caller's side: note which pages it got, then unpin_user_pages(). */
static inline void account_and_unpin(struct longterm_thread *th,
				     unsigned int nr)
{
	for (unsigned int i = 0; i < nr; i++) {
		th->pinned_hash += page_hash(pfn_of(th, th->pages[i]));
		unpin_page(th->pages[i]);
	}
	th->pinned += nr;
}

static inline unsigned long next_call_start(const struct longterm_state *s,
					    struct longterm_thread *th)
{
	unsigned long chunk = th->next_chunk;

	th->next_chunk = chunk + 1 == s->nr_chunks ? 0 : chunk + 1;
	return chunk * s->nr_pages;
}

/* get_user_pages_fast() without FOLL_LONGTERM: the baseline. */
static void no_check(void *state, unsigned int thread, uint64_t nr_ops)
{
	struct longterm_state *s = state;
	struct longterm_thread *th = &s->threads[thread];

	for (uint64_t i = 0; i < nr_ops; i++)
		account_and_unpin(th, walk_ptes(s, th, next_call_start(s, th), false));
}

/* Seed 002 variant a: the walk, then reject_cma_pages() over pages[]. */
static void second_pass(void *state, unsigned int thread, uint64_t nr_ops)
{
	struct longterm_state *s = state;
	struct longterm_thread *th = &s->threads[thread];

	for (uint64_t i = 0; i < nr_ops; i++) {
		unsigned int nr = walk_ptes(s, th, next_call_start(s, th), false);

		account_and_unpin(th, reject_cma_pages(s, th, nr));
	}
}

/* Seed 002 variant b: the test inside gup_pte_range(). */
static void check_in_walk(void *state, unsigned int thread, uint64_t nr_ops)
{
	struct longterm_state *s = state;
	struct longterm_thread *th = &s->threads[thread];

	for (uint64_t i = 0; i < nr_ops; i++)
		account_and_unpin(th, walk_ptes(s, th, next_call_start(s, th), true));
}

static const struct kernel_variant longterm_variants[] = {
	{
		.name = "no_check",
		.models = "get_user_pages_fast() without FOLL_LONGTERM (gup_benchmark without -l)",
		.run = no_check,
		.baseline = true,
	},
	{
		.name = "second_pass",
		.models = "nr_pinned = reject_cma_pages(nr_pinned, pages); after the fast walk (v3, variant a)",
		.run = second_pass,
	},
	{
		.name = "check_in_walk",
		.models = "if (FOLL_LONGTERM && is_migrate_cma_page(page)) goto pte_unmap; in gup_pte_range() (variant b)",
		.run = check_in_walk,
	},
};

enum { VARIANT_NO_CHECK, VARIANT_SECOND_PASS, VARIANT_CHECK_IN_WALK };

static void longterm_destroy(void *state)
{
	struct longterm_state *s = state;

	if (!s)
		return;
	for (unsigned int t = 0; s->threads && t < s->nr_threads; t++) {
		free(s->threads[t].memmap);
		free(s->threads[t].ptes);
		free(s->threads[t].pages);
	}
	free(s->threads);
	for (unsigned long r = 0; s->mem_section && r < s->nr_roots; r++) {
		for (unsigned int k = 0; s->mem_section[r] && k < SECTIONS_PER_ROOT; k++)
			free(s->mem_section[r][k].pageblock_flags);
		free(s->mem_section[r]);
	}
	free(s->mem_section);
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
	s->mem_section = calloc(s->nr_roots, sizeof(*s->mem_section));
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
	th->pages = kernel_alloc_padded(s->nr_pages * sizeof(*th->pages));
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
 * everything without the check, else the pages before the first CMA page.
 */
static void expected_per_chunk(const struct longterm_state *s, bool longterm,
			       unsigned long chunk, uint64_t *nr, uint64_t *hash)
{
	unsigned long first = chunk * s->nr_pages;

	*nr = 0;
	*hash = 0;
	for (unsigned long pfn = first; pfn < first + s->nr_pages; pfn++) {
		if (longterm && s->block_is_cma[pfn >> PAGEBLOCK_ORDER])
			break;
		(*nr)++;
		*hash += page_hash(pfn);
	}
}

/* The pages nr_calls calls from chunk 0 must pin, and their hash sum. */
static void expected_pins(const struct longterm_state *s, bool longterm,
			  uint64_t nr_calls, uint64_t *nr, uint64_t *hash)
{
	uint64_t cycles = nr_calls / s->nr_chunks, rest = nr_calls % s->nr_chunks;
	uint64_t n, h, cycle_nr = 0, cycle_hash = 0, rest_nr = 0, rest_hash = 0;

	for (unsigned long c = 0; c < s->nr_chunks; c++) {
		expected_per_chunk(s, longterm, c, &n, &h);
		cycle_nr += n;
		cycle_hash += h;
		if (c < rest) {
			rest_nr += n;
			rest_hash += h;
		}
	}
	*nr = cycles * cycle_nr + rest_nr;
	*hash = cycles * cycle_hash + rest_hash;
}

static int check_refcounts(const struct longterm_state *s, char *msg,
			   size_t msglen)
{
	for (unsigned int t = 0; t < s->nr_threads; t++) {
		for (unsigned long pfn = 0; pfn < s->buffer_pages; pfn++) {
			long ref = atomic_load(&s->threads[t].memmap[pfn].refcount);

			if (ref != 1) {
				snprintf(msg, msglen, "thread %u's page %lu has refcount %ld after the calls, expected 1 (a pin not released)",
					 t, pfn, ref);
				return -1;
			}
		}
	}
	return 0;
}

static int longterm_verify(void *state, const struct kernel_config *cfg,
			   const uint64_t *ops, struct kernel_metrics *metrics,
			   char *msg, size_t msglen)
{
	struct longterm_state *s = state;
	bool longterm = cfg->variant != VARIANT_NO_CHECK;
	uint64_t calls = 0, pinned = 0, nr, hash;

	if (check_refcounts(s, msg, msglen))
		return -1;
	for (unsigned int t = 0; t < s->nr_threads; t++) {
		const struct longterm_thread *th = &s->threads[t];

		expected_pins(s, longterm, ops[t], &nr, &hash);
		if (th->pinned != nr || th->pinned_hash != hash) {
			snprintf(msg, msglen, "thread %u pinned %llu pages in %llu calls, expected %llu%s",
				 t, (unsigned long long)th->pinned,
				 (unsigned long long)ops[t], (unsigned long long)nr,
				 th->pinned == nr ? " (the same number, but other pages)" : "");
			return -1;
		}
		calls += ops[t];
		pinned += th->pinned;
	}
	/* Below nr_pages when calls stop at CMA pages: the slow path's share. */
	kernel_metric_add(metrics, "pages_per_call",
			  calls ? (double)pinned / (double)calls : 0.0);
	return 0;
}

/*
 * Access profile (model/): one call over nr_pages pages of the thread's
 * own buffer. Nothing is shared between threads: every locked op (pin
 * and unpin per page) is on the thread's own page lines.
 */
static void longterm_access(const struct kernel_config *cfg,
			    struct access_profile *p)
{
	p->private_locked = 2.0 * (double)cfg->param[PARAM_NR_PAGES];
}

const struct kernel_family longterm_check_family = {
	.name = "longterm_check",
	.title = "FOLL_LONGTERM in gup fast: a second pass over pages[] vs the check in the walk",
	.lesson =
	"Work that is cheap per page is still paid per page. Both designs "
	"look up every page's migratetype (its section, the section's "
	"pageblock bitmap, the pageblock's bits); the second pass does it in "
	"a loop of its own after the walk, reloading each page pointer the "
	"walk already had in hand, and runs that loop even when no CMA page "
	"exists, which is the common case. Testing each page inside the walk "
	"does the same lookup while the page is at hand, and stopping at the "
	"first bad page before pinning it means nothing has to be released, "
	"where the second pass pins the CMA pages and then gives them back. "
	"Both designs pin exactly the same pages: the difference is pure "
	"overhead, largest for calls of many pages and smallest for "
	"nr_pages=1. Here every call also unpins what it pinned, which costs "
	"the same in all variants and dilutes the gap that gup_benchmark, "
	"timing the get alone, saw as about 17%.",
	.source = "seeds/002: \"[PATCHv3 1/2] mm/gup: fix omission of check on FOLL_LONGTERM in "
		  "get_user_pages_fast()\" (Pingfan Liu, John Hubbard, Andrew Morton, June 2019); "
		  "merged as df3a0a21b698 (v5.7) with the check in try_grab_compound_head()",
	.before = "nr_pinned = gup_pgd_range(...);\t/* walk */\n"
		  "nr_pinned = reject_cma_pages(nr_pinned, pages);\t/* loop over pages[] again */",
	.after = "/* in gup_pte_range(), before taking the pin: */\n"
		 "if (unlikely(flags & FOLL_LONGTERM) && is_migrate_cma_page(page))\n"
		 "\tgoto pte_unmap;",
	.params = longterm_params,
	.nr_params = sizeof(longterm_params) / sizeof(longterm_params[0]),
	.variants = longterm_variants,
	.nr_variants = sizeof(longterm_variants) / sizeof(longterm_variants[0]),
	.create = longterm_create,
	.verify = longterm_verify,
	.destroy = longterm_destroy,
	.access = longterm_access,
};
