// SPDX-License-Identifier: GPL-2.0-only
/*
 * Pages and folios: references, pins, and the free frames that writers
 * and migration take fresh folios from.
 *
 * Pin accounting follows include/linux/mm.h and mm/gup.c (reference
 * section 1, "The grab, FOLL_PIN path"): a pin on a small page adds
 * GUP_PIN_COUNTING_BIAS to its refcount; a pin on a large folio adds refs
 * to the head's refcount and to the folio's pincount, kept in the first
 * tail page. A get (FOLL_GET) adds refs to the refcount only.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "gup_internal.h"

void gup_frame_init(struct gup_mm *mm, unsigned long pfn, unsigned int order,
		    unsigned int migratetype)
{
	struct gup_page *head = pfn_to_page(mm, pfn);
	unsigned long nr = 1UL << order;

	for (unsigned long i = 0; i < nr; i++) {
		struct gup_page *p = head + i;

		atomic_init(&p->flags, 0);
		atomic_init(&p->mapped_at, 0);
		atomic_init(&p->pincount, 0);
		atomic_init(&p->refcount, 0);
		p->head = i ? head : NULL;
		p->order = i ? 0 : order;
		p->migratetype = migratetype;
	}
}

unsigned int gup_folio_pool(const struct gup_page *folio)
{
	return (folio_is_large(folio) ? POOL_HUGE : POOL_SMALL) +
	       (folio->migratetype == MIGRATE_CMA ? POOL_SMALL_CMA : 0);
}

int gup_pools_init(struct gup_mm *mm, char *err, size_t errlen)
{
	unsigned long cap[NR_GUP_POOLS] = { 0 };

	/* Room for every folio of each kind: a push can never fail. */
	for (unsigned long pfn = 0; pfn < mm->nr_frames; ) {
		struct gup_page *folio = pfn_to_page(mm, pfn);

		cap[gup_folio_pool(folio)]++;
		pfn += 1UL << folio->order;
	}
	for (unsigned int i = 0; i < NR_GUP_POOLS; i++) {
		struct gup_pool *pool = &mm->pools[i];

		pool->nr = 0;
		pool->cap = cap[i];
		pool->pfns = malloc((cap[i] ? cap[i] : 1) * sizeof(*pool->pfns));
		if (!pool->pfns || pthread_mutex_init(&pool->lock, NULL)) {
			snprintf(err, errlen, "gup: out of memory for the free-frame pools");
			return -1;
		}
	}
	return 0;
}

void gup_pools_destroy(struct gup_mm *mm)
{
	for (unsigned int i = 0; i < NR_GUP_POOLS; i++) {
		if (!mm->pools[i].pfns)
			continue;
		pthread_mutex_destroy(&mm->pools[i].lock);
		free(mm->pools[i].pfns);
	}
}

/* A free folio with its first reference (the mapping's), or NULL. */
struct gup_page *gup_alloc_folio(struct gup_mm *mm, unsigned int pool_index)
{
	struct gup_pool *pool = &mm->pools[pool_index];
	struct gup_page *folio = NULL;

	pthread_mutex_lock(&pool->lock);
	if (pool->nr)
		folio = pfn_to_page(mm, pool->pfns[--pool->nr]);
	pthread_mutex_unlock(&pool->lock);
	if (folio) {
		atomic_store_explicit(&folio->flags, 0, memory_order_relaxed);
		atomic_store_explicit(&folio->refcount, 1, memory_order_seq_cst);
	}
	return folio;
}

void gup_free_folio(struct gup_mm *mm, struct gup_page *folio)
{
	struct gup_pool *pool = &mm->pools[gup_folio_pool(folio)];

	pthread_mutex_lock(&pool->lock);
	pool->pfns[pool->nr++] = page_to_pfn(mm, folio);
	pthread_mutex_unlock(&pool->lock);
}

/*
 * try_grab_folio(): the slow path's grab. mmap_lock keeps the mapping,
 * and with it a reference, so a plain add is enough; the kernel warns
 * (and fails) if the refcount is not positive.
 */
int try_grab_folio(struct gup_task *task, struct gup_page *folio, int refs,
		   unsigned int flags)
{
	if (atomic_load_explicit(&folio->refcount, memory_order_relaxed) <= 0)
		return -ENOMEM;
	gup_count_locked();
	if ((flags & FOLL_PIN) && !folio_is_large(folio)) {
		atomic_fetch_add_explicit(&folio->refcount,
					  refs * GUP_PIN_COUNTING_BIAS,
					  memory_order_seq_cst);
	} else {
		atomic_fetch_add_explicit(&folio->refcount, refs,
					  memory_order_seq_cst);
		if (flags & FOLL_PIN) {
			gup_count_locked();
			atomic_fetch_add_explicit(folio_pincount_ptr(folio), refs,
						  memory_order_seq_cst);
		}
	}
	if (flags & FOLL_PIN) {
		/* try_grab_page(): mod_node_page_state(.., NR_FOLL_PIN_ACQUIRED, 1) per page */
		gup_mod_node_state(task, GUP_NR_FOLL_PIN_ACQUIRED, refs);
		task->stats.pins_acquired += (uint64_t)refs;
	}
	return 0;
}

bool folio_has_extra_refs(struct gup_page *folio)
{
	if (atomic_load_explicit(&folio->refcount, memory_order_seq_cst) != 1)
		return true;
	return folio_is_large(folio) &&
	       atomic_load_explicit(folio_pincount_ptr(folio),
				    memory_order_seq_cst) != 0;
}

/*
 * Out of line as in mm/page_alloc.c, so that every CMA check pays the
 * call the kernel's does. __nr_to_section() checks mem_section and the
 * root for NULL (SPARSEMEM_EXTREME allocates them at run time).
 */
__attribute__((noinline))
unsigned long get_pfnblock_flags_mask(const struct gup_mm *mm,
				      const struct gup_page *page,
				      unsigned long pfn, unsigned long mask)
{
	unsigned long nr = pfn >> GUP_PFN_SECTION_SHIFT;
	unsigned long bitidx = ((pfn & (GUP_PAGES_PER_SECTION - 1)) >> GUP_PAGEBLOCK_ORDER) *
			       GUP_NR_PAGEBLOCK_BITS;
	const struct gup_mem_section *root;
	unsigned long word;

	(void)page;
	if (!mm->mem_section)
		return 0;
	root = mm->mem_section[nr / GUP_SECTIONS_PER_ROOT];
	if (!root)
		return 0;
	word = root[nr % GUP_SECTIONS_PER_ROOT].usage->pageblock_flags[bitidx / 64];
	return word >> (bitidx % 64) & mask;
}

bool gup_page_maybe_dma_pinned(const struct gup_page *page)
{
	struct gup_page *folio = page_folio((struct gup_page *)page);

	if (folio_is_large(folio))
		return atomic_load(folio_pincount_ptr(folio)) > 0;
	return atomic_load(&folio->refcount) >= GUP_PIN_COUNTING_BIAS;
}

bool gup_page_longterm_pinnable(const struct gup_page *page)
{
	return folio_is_longterm_pinnable(page_folio((struct gup_page *)page));
}

/*
 * Gives back the references of pages[]: consecutive pages of one folio
 * in one put, as unpin_user_pages() batches them with gup_folio_next().
 */
static void release_pages_batched(struct gup_task *task,
				  struct gup_page **pages,
				  unsigned long npages, unsigned int flags)
{
	struct gup_page *folio = npages ? page_folio(pages[0]) : NULL;
	unsigned long i = 0;

	while (i < npages) {
		struct gup_page *next = NULL;
		unsigned long nr = 1;

		while (i + nr < npages && (next = page_folio(pages[i + nr])) == folio)
			nr++;
		gup_put_folio(task, folio, (int)nr, flags);
		i += nr;
		folio = next;
	}
}

void unpin_user_pages(struct gup_task *task, struct gup_page **pages,
		      unsigned long npages)
{
	release_pages_batched(task, pages, npages, FOLL_PIN);
	task->stats.pages_released += npages;
}

void put_user_pages(struct gup_task *task, struct gup_page **pages,
		    unsigned long npages)
{
	release_pages_batched(task, pages, npages, FOLL_GET);
	task->stats.pages_released += npages;
}
