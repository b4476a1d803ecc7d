// SPDX-License-Identifier: GPL-2.0-only
/*
 * The mm: its layout, its buffers, the has-pinned flag every pin sets,
 * and the check that everything is back where it started.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gup_internal.h"

const char *const gup_flag_update_names[] = {
	[GUP_STORE_ALWAYS] = "store_always",
	[GUP_READ_THEN_SET] = "read_then_set",
	[GUP_TEST_THEN_SET_BIT] = "test_then_set_bit",
	NULL,
};

const char *const gup_longterm_check_names[] = {
	[GUP_LONGTERM_IN_WALK] = "in_walk",
	[GUP_LONGTERM_SECOND_PASS] = "second_pass",
	NULL,
};

const char *const gup_backing_names[] = {
	[GUP_BACKING_ANON] = "anon",
	[GUP_BACKING_SHMEM] = "shmem",
	[GUP_BACKING_FILE] = "file",
	[GUP_BACKING_HUGETLB] = "hugetlb",
	NULL,
};

const char *const gup_page_size_names[] = {
	[GUP_PAGES_4K] = "4k",
	[GUP_PAGES_2M] = "2m",
	NULL,
};

/* User buffers start at 1 TiB, each 1 GiB-aligned with a 1 GiB hole after. */
#define GUP_BUFFER_BASE (1UL << 40)
#define GUP_GIB (1UL << 30)

#ifdef GUP_TEST_HOOKS
_Thread_local uint64_t gup_locked_ops;
#endif

/* Spare 4K frames for the writer's fresh folios; a THP buffer adds spare THPs. */
#define GUP_WRITER_SPARE_PAGES 64
#define GUP_WRITER_SPARE_THPS 4

/*
 * How each pin marks the mm (the three versions of the seeds). The flag
 * is never cleared while the mm lives, which is what makes the
 * non-atomic test-then-set safe (Linus, seed 000, on the 3/3 patch).
 */
void mm_set_has_pinned_flag(struct gup_mm *mm)
{
	switch (mm->flag_update) {
	case GUP_STORE_ALWAYS:
		/* 008cfe4418b3: atomic_set(&mm->has_pinned, 1) */
		atomic_store_explicit(&mm->has_pinned, 1, memory_order_relaxed);
		break;
	case GUP_READ_THEN_SET:
		/* 292648ac5cf1: if (!atomic_read(&mm->has_pinned)) atomic_set(.., 1) */
		if (!atomic_load_explicit(&mm->has_pinned, memory_order_relaxed))
			atomic_store_explicit(&mm->has_pinned, 1, memory_order_relaxed);
		break;
	default:
		/* a458b76a4171: if (!test_bit(MMF_HAS_PINNED, ..)) set_bit(..) */
		if (!(atomic_load_explicit(&mm->flags, memory_order_relaxed) &
		      (1UL << MMF_HAS_PINNED))) {
			gup_count_locked();
			atomic_fetch_or_explicit(&mm->flags, 1UL << MMF_HAS_PINNED,
						 memory_order_relaxed);
		}
		break;
	}
}

bool gup_mm_has_pinned(struct gup_mm *mm)
{
	if (mm->flag_update == GUP_TEST_THEN_SET_BIT)
		return atomic_load(&mm->flags) & (1UL << MMF_HAS_PINNED);
	return atomic_load(&mm->has_pinned) == 1;
}

static int check_layout(const struct gup_layout *l, char *err, size_t errlen)
{
	if ((unsigned int)l->flag_update >= NR_GUP_FLAG_UPDATES ||
	    (unsigned int)l->longterm_check >= NR_GUP_LONGTERM_CHECKS ||
	    (unsigned int)l->page_size >= NR_GUP_PAGE_SIZES ||
	    (unsigned int)l->backing >= NR_GUP_BACKINGS) {
		snprintf(err, errlen, "gup: unknown switch value in the layout");
		return -1;
	}
	if (!l->nr_buffers || !l->buffer_bytes || l->buffer_bytes % GUP_PAGE_SIZE) {
		snprintf(err, errlen, "gup: %u buffers of %lu bytes: expected at least one buffer of whole 4K pages",
			 l->nr_buffers, l->buffer_bytes);
		return -1;
	}
	/* mmap(MAP_HUGETLB) maps whole huge pages: no 4K tail to fall back on */
	if (l->backing == GUP_BACKING_HUGETLB &&
	    (l->page_size != GUP_PAGES_2M || l->buffer_bytes % GUP_HPAGE_SIZE)) {
		snprintf(err, errlen, "gup: hugetlb buffer of %lu bytes: expected 2M pages and a multiple of 2 MiB",
			 l->buffer_bytes);
		return -1;
	}
	if (l->cma_percent > 100) {
		snprintf(err, errlen, "gup: cma_percent %u: expected 0 to 100",
			 l->cma_percent);
		return -1;
	}
	return 0;
}

static unsigned long buffer_stride(unsigned long bytes)
{
	return (bytes + GUP_GIB - 1) / GUP_GIB * GUP_GIB + GUP_GIB;
}

/* Counts the frames the buffers need, and the CMA folios among them. */
struct frame_plan {
	unsigned long huge_per_buffer;
	unsigned long small_per_buffer;
	unsigned long cma_huge;
	unsigned long cma_small;
	unsigned long spare_huge;
	unsigned long spare_small;
};

static void plan_frames(const struct gup_layout *l, struct frame_plan *p)
{
	unsigned long folio = 0;

	memset(p, 0, sizeof(*p));
	if (l->page_size == GUP_PAGES_2M)
		p->huge_per_buffer = l->buffer_bytes / GUP_HPAGE_SIZE;
	p->small_per_buffer = (l->buffer_bytes - p->huge_per_buffer * GUP_HPAGE_SIZE) /
			      GUP_PAGE_SIZE;
	for (unsigned int b = 0; b < l->nr_buffers; b++) {
		for (unsigned long i = 0; i < p->huge_per_buffer; i++)
			p->cma_huge += gup_folio_in_cma(folio++, l->cma_percent);
		for (unsigned long i = 0; i < p->small_per_buffer; i++)
			p->cma_small += gup_folio_in_cma(folio++, l->cma_percent);
	}
	/* Every CMA folio may have to move out once, plus the writer's churn. */
	p->spare_small = p->cma_small + GUP_WRITER_SPARE_PAGES;
	if (p->huge_per_buffer)
		p->spare_huge = p->cma_huge + GUP_WRITER_SPARE_THPS;
}

static unsigned long round_to_pageblock(unsigned long pfn)
{
	return (pfn + GUP_PAGES_PER_PAGEBLOCK - 1) & ~(GUP_PAGES_PER_PAGEBLOCK - 1);
}

/*
 * Frames, in order: THPs (one pageblock each), then movable 4K frames,
 * then from a pageblock boundary the 4K CMA frames, up to a whole
 * pageblock: a CMA area is made of whole pageblocks.
 */
static unsigned long small_cma_start(const struct gup_layout *l,
				     const struct frame_plan *p)
{
	unsigned long huge = (p->huge_per_buffer * l->nr_buffers + p->spare_huge) *
			     GUP_HPAGE_NR;

	return round_to_pageblock(huge + p->small_per_buffer * l->nr_buffers -
				  p->cma_small + p->spare_small);
}

static int alloc_frames(struct gup_mm *mm, const struct gup_layout *l,
			const struct frame_plan *p, char *err, size_t errlen)
{
	mm->nr_frames = small_cma_start(l, p) + round_to_pageblock(p->cma_small);
	mm->mem_map = kernel_alloc_shared(mm->nr_frames * sizeof(struct gup_page));
	mm->migrated_cap = p->cma_huge + p->cma_small;
	mm->migrated = malloc((mm->migrated_cap + 1) * sizeof(*mm->migrated));
	if (!mm->mem_map || !mm->migrated) {
		snprintf(err, errlen, "gup: out of memory for %lu struct pages (%lu MiB)",
			 mm->nr_frames, mm->nr_frames * sizeof(struct gup_page) >> 20);
		return -1;
	}
	return 0;
}

static int map_buffers(struct gup_mm *mm, const struct gup_layout *l,
		       const struct frame_plan *p, char *err, size_t errlen)
{
	unsigned long stride = buffer_stride(l->buffer_bytes);
	struct gup_frame_cursor cur = {
		.next_huge_pfn = 0,
		.next_small_pfn = (p->huge_per_buffer * l->nr_buffers + p->spare_huge) *
				  GUP_HPAGE_NR,
		.next_small_cma_pfn = small_cma_start(l, p),
		.cma_percent = l->cma_percent,
	};

	if (GUP_BUFFER_BASE + stride * l->nr_buffers > GUP_TASK_SIZE) {
		snprintf(err, errlen, "gup: %u buffers of %lu MiB do not fit in a 47-bit address space",
			 l->nr_buffers, l->buffer_bytes >> 20);
		return -1;
	}
	mm->vmas = calloc(l->nr_buffers, sizeof(*mm->vmas));
	if (!mm->vmas || gup_tables_init(mm)) {
		snprintf(err, errlen, "gup: out of memory for %u buffers", l->nr_buffers);
		return -1;
	}
	for (unsigned int b = 0; b < l->nr_buffers; b++) {
		struct gup_vma *vma = &mm->vmas[b];

		vma->start = GUP_BUFFER_BASE + stride * b;
		vma->end = vma->start + l->buffer_bytes;
		vma->huge_end = vma->start + p->huge_per_buffer * GUP_HPAGE_SIZE;
		mm->nr_vmas++;
		if (gup_map_buffer(mm, vma, &cur, err, errlen))
			return -1;
	}
	/*
	 * The plan counted the CMA folios apart from the mapping (to size
	 * the frames before any is placed): a folio it missed would have
	 * been placed in another region's frames.
	 */
	if (cur.cma_huge != p->cma_huge || cur.cma_small != p->cma_small) {
		snprintf(err, errlen, "gup: %lu 2M and %lu 4K CMA folios mapped, where the frame plan counted %lu and %lu",
			 cur.cma_huge, cur.cma_small, p->cma_huge, p->cma_small);
		return -1;
	}
	/* The spares, free: after the buffers' THPs, and after their 4K pages. */
	for (unsigned long i = 0; i < p->spare_huge; i++, cur.next_huge_pfn += GUP_HPAGE_NR)
		gup_frame_init(mm, cur.next_huge_pfn, GUP_HPAGE_SHIFT - GUP_PAGE_SHIFT,
			       MIGRATE_MOVABLE);
	for (unsigned long i = 0; i < p->spare_small; i++)
		gup_frame_init(mm, cur.next_small_pfn++, 0, MIGRATE_MOVABLE);
	/* Free frames up to the pageblock boundaries: movable, then CMA. */
	while (cur.next_small_pfn < small_cma_start(l, p))
		gup_frame_init(mm, cur.next_small_pfn++, 0, MIGRATE_MOVABLE);
	while (cur.next_small_cma_pfn < mm->nr_frames)
		gup_frame_init(mm, cur.next_small_cma_pfn++, 0, MIGRATE_CMA);
	return 0;
}

/*
 * set_pageblock_migratetype() for every pageblock, after the frames are
 * placed; each pageblock's frames must agree on their migratetype.
 */
static int build_pageblock_flags(struct gup_mm *mm, char *err, size_t errlen)
{
	unsigned long nr_sections = (mm->nr_frames + GUP_PAGES_PER_SECTION - 1) >>
				    GUP_PFN_SECTION_SHIFT;

	mm->nr_section_roots = (nr_sections + GUP_SECTIONS_PER_ROOT - 1) / GUP_SECTIONS_PER_ROOT;
	mm->mem_section = calloc(mm->nr_section_roots, sizeof(*mm->mem_section));
	if (!mm->mem_section)
		goto nomem;
	for (unsigned long r = 0; r < mm->nr_section_roots; r++) {
		mm->mem_section[r] = calloc(GUP_SECTIONS_PER_ROOT, sizeof(**mm->mem_section));
		if (!mm->mem_section[r])
			goto nomem;
	}
	for (unsigned long nr = 0; nr < nr_sections; nr++) {
		struct gup_mem_section *ms =
			&mm->mem_section[nr / GUP_SECTIONS_PER_ROOT][nr % GUP_SECTIONS_PER_ROOT];

		ms->usage = calloc(1, sizeof(*ms->usage));
		if (!ms->usage)
			goto nomem;
	}
	for (unsigned long pfn = 0; pfn < mm->nr_frames; pfn++) {
		unsigned long nr = pfn >> GUP_PFN_SECTION_SHIFT;
		unsigned long bitidx = ((pfn & (GUP_PAGES_PER_SECTION - 1)) >> GUP_PAGEBLOCK_ORDER) *
				       GUP_NR_PAGEBLOCK_BITS;
		unsigned long *word = &mm->mem_section[nr / GUP_SECTIONS_PER_ROOT]
			[nr % GUP_SECTIONS_PER_ROOT].usage->pageblock_flags[bitidx / 64];
		unsigned long type = mm->mem_map[pfn].migratetype == MIGRATE_CMA ?
				     GUP_PB_MIGRATE_CMA : GUP_PB_MIGRATE_MOVABLE;

		if (pfn % GUP_PAGES_PER_PAGEBLOCK == 0) {
			*word |= type << (bitidx % 64);
		} else if ((*word >> (bitidx % 64) & GUP_MIGRATETYPE_MASK) != type) {
			snprintf(err, errlen, "gup: frame %lu's migratetype differs from its pageblock's",
				 pfn);
			return -1;
		}
	}
	return 0;
nomem:
	snprintf(err, errlen, "gup: out of memory for the pageblock bitmaps");
	return -1;
}

static void free_pageblock_flags(struct gup_mm *mm)
{
	for (unsigned long r = 0; mm->mem_section && r < mm->nr_section_roots; r++) {
		for (unsigned int k = 0; mm->mem_section[r] && k < GUP_SECTIONS_PER_ROOT; k++)
			free(mm->mem_section[r][k].usage);
		free(mm->mem_section[r]);
	}
	free(mm->mem_section);
}

static void pool_spares(struct gup_mm *mm)
{
	for (unsigned long pfn = 0; pfn < mm->nr_frames; ) {
		struct gup_page *folio = pfn_to_page(mm, pfn);

		if (!atomic_load_explicit(&folio->refcount, memory_order_relaxed))
			gup_free_folio(mm, folio);
		pfn += 1UL << folio->order;
	}
}

struct gup_mm *gup_mm_create(const struct gup_layout *l, char *err,
			     size_t errlen)
{
	struct frame_plan plan;
	struct gup_mm *mm;

	if (check_layout(l, err, errlen))
		return NULL;
	mm = kernel_alloc_shared(sizeof(*mm));
	if (!mm) {
		snprintf(err, errlen, "gup: out of memory for the mm");
		return NULL;
	}
	atomic_init(&mm->mm_count, 1);
	mm->flag_update = l->flag_update;
	mm->longterm_check = l->longterm_check;
	mm->backing = l->backing;
	mm->buffer_pages = l->buffer_bytes / GUP_PAGE_SIZE;
	if (pthread_rwlock_init(&mm->mmap_lock, NULL)) {
		snprintf(err, errlen, "gup: cannot initialise mmap_lock");
		kernel_free_shared(mm);
		return NULL;
	}
	plan_frames(l, &plan);
	if (alloc_frames(mm, l, &plan, err, errlen) ||
	    map_buffers(mm, l, &plan, err, errlen) ||
	    build_pageblock_flags(mm, err, errlen) ||
	    gup_pools_init(mm, err, errlen)) {
		gup_mm_destroy(mm);
		return NULL;
	}
	pool_spares(mm);
	return mm;
}

void gup_mm_destroy(struct gup_mm *mm)
{
	if (!mm)
		return;
	if (mm->writer)
		gup_writer_stop(mm);
	free(mm->tables);
	gup_pools_destroy(mm);
	free(mm->vmas);
	free(mm->migrated);
	free_pageblock_flags(mm);
	kernel_free_shared(mm->mem_map);
	pthread_rwlock_destroy(&mm->mmap_lock);
	kernel_free_shared(mm);
}

unsigned long gup_buffer_start(const struct gup_mm *mm, unsigned int buffer)
{
	return buffer < mm->nr_vmas ? mm->vmas[buffer].start : 0;
}

unsigned long gup_buffer_pages(const struct gup_mm *mm)
{
	return mm->buffer_pages;
}

unsigned long gup_buffer_huge_pages(const struct gup_mm *mm)
{
	return (mm->vmas[0].huge_end - mm->vmas[0].start) >> GUP_PAGE_SHIFT;
}

/*
 * The model's tables and struct pages are written by the thread that
 * builds the mm, often on another CPU than the pinner's; without this
 * the first repeat pays a line transfer per page that gup_test's first
 * ioctl does not (its caller has just faulted every page in, which
 * reads the pte and writes the struct page). The add of zero is a write
 * that changes nothing.
 */
void gup_buffer_fault_in(struct gup_mm *mm, unsigned int buffer)
{
	unsigned long start = gup_buffer_start(mm, buffer);
	unsigned long end = start + mm->buffer_pages * GUP_PAGE_SIZE;

	for (unsigned long addr = start; addr < end; addr += GUP_PAGE_SIZE) {
		bool huge;
		gup_entry_t *entryp = gup_leaf_entry(mm, addr, &huge);
		uint64_t e = entryp ? atomic_load_explicit(entryp, memory_order_relaxed) : 0;
		struct gup_page *page;

		if (!entry_present(e) || entry_special(e))
			continue;
		page = pfn_to_page(mm, entry_pfn(e));
		if (huge)
			page += (addr & (GUP_HPAGE_SIZE - 1)) >> GUP_PAGE_SHIFT;
		atomic_fetch_add_explicit(&page_folio(page)->refcount, 0,
					  memory_order_relaxed);
	}
}

void gup_task_init(struct gup_task *task, struct gup_mm *mm)
{
	memset(task, 0, sizeof(*task));
	task->mm = mm;
}

long gup_mm_node_stat(const struct gup_mm *mm, unsigned int item, bool global)
{
	if (item >= GUP_NR_NODE_STATS)
		return 0;
	return atomic_load(global ? &mm->global_vm_stat[item] : &mm->node_vm_stat[item]);
}

/* One mapped folio at rest: the mapping's reference, no pin, mapped here. */
static int check_mapped_folio(struct gup_mm *mm, unsigned long addr,
			      unsigned long *frames, char *msg, size_t msglen)
{
	struct gup_page *folio;
	bool huge = false;
	gup_entry_t *ep = gup_leaf_entry(mm, addr, &huge);
	uint64_t e = ep ? atomic_load(ep) : 0;
	int ref, pin;

	if (!entry_present(e)) {
		snprintf(msg, msglen, "no page mapped at %#lx", addr);
		return -1;
	}
	folio = pfn_to_page(mm, entry_pfn(e));
	ref = atomic_load(&folio->refcount);
	pin = folio_is_large(folio) ? atomic_load(folio_pincount_ptr(folio)) : 0;
	if (folio->head || folio_is_large(folio) != huge || ref != 1 || pin ||
	    atomic_load(&folio->mapped_at) != addr) {
		snprintf(msg, msglen,
			 "folio at %#lx (pfn %lu): refcount %d, pincount %d, mapped at %#lx; expected refcount 1, pincount 0, mapped at %#lx",
			 addr, entry_pfn(e), ref, pin,
			 (unsigned long)atomic_load(&folio->mapped_at), addr);
		return -1;
	}
	*frames += 1UL << folio->order;
	return 0;
}

static int check_pools(struct gup_mm *mm, unsigned long *frames, char *msg,
		       size_t msglen)
{
	for (unsigned int i = 0; i < NR_GUP_POOLS; i++) {
		struct gup_pool *pool = &mm->pools[i];

		for (unsigned long k = 0; k < pool->nr; k++) {
			struct gup_page *folio = pfn_to_page(mm, pool->pfns[k]);
			int pin = folio_is_large(folio) ?
				  atomic_load(folio_pincount_ptr(folio)) : 0;

			if (atomic_load(&folio->refcount) || pin) {
				snprintf(msg, msglen, "free frame %lu: refcount %d, pincount %d; expected 0 and 0",
					 pool->pfns[k], atomic_load(&folio->refcount), pin);
				return -1;
			}
			*frames += 1UL << folio->order;
		}
	}
	return 0;
}

int gup_mm_check_at_rest(struct gup_mm *mm, char *msg, size_t msglen)
{
	unsigned long frames = 0;
	unsigned int seq = atomic_load(&mm->write_protect_seq);

	if (seq & 1) {
		snprintf(msg, msglen, "write_protect_seq %u is odd after the run", seq);
		return -1;
	}
	for (unsigned int v = 0; v < mm->nr_vmas; v++) {
		const struct gup_vma *vma = &mm->vmas[v];

		for (unsigned long a = vma->start; a < vma->end;
		     a += a < vma->huge_end ? GUP_HPAGE_SIZE : GUP_PAGE_SIZE)
			if (check_mapped_folio(mm, a, &frames, msg, msglen))
				return -1;
	}
	if (check_pools(mm, &frames, msg, msglen))
		return -1;
	if (frames != mm->nr_frames) {
		snprintf(msg, msglen, "%lu of %lu frames are mapped or free: the rest leaked",
			 frames, mm->nr_frames);
		return -1;
	}
	return 0;
}
