// SPDX-License-Identifier: GPL-2.0-only
/*
 * Page tables: built once when a buffer is mapped, never freed while the
 * mm lives. The kernel keeps walkers safe from table freeing by running
 * the fast walk with interrupts off (it blocks the TLB-shootdown IPI or
 * the RCU grace period that frees a table); here tables simply outlive
 * every walker, and writers only ever change leaf entries.
 */
#include <stdio.h>
#include <stdlib.h>

#include "gup_internal.h"

/* A new, empty table; its index goes into the parent entry's pfn field. */
static long table_alloc(struct gup_mm *mm)
{
	struct gup_table *t;

	if (mm->nr_tables == mm->tables_cap) {
		unsigned long cap = mm->tables_cap ? mm->tables_cap * 2 : 64;
		struct gup_table **grown = realloc(mm->tables, cap * sizeof(*grown));

		if (!grown)
			return -1;
		mm->tables = grown;
		mm->tables_cap = cap;
	}
	t = aligned_alloc(4096, sizeof(*t));
	if (!t)
		return -1;
	for (unsigned int i = 0; i < GUP_PTRS_PER_TABLE; i++)
		atomic_init(&t->entry[i], 0);
	mm->tables[mm->nr_tables] = t;
	return (long)mm->nr_tables++;
}

int gup_tables_init(struct gup_mm *mm)
{
	return table_alloc(mm) == 0 ? 0 : -1;
}

/* The entry for addr in the table below *parent, allocating that table. */
static gup_entry_t *descend_alloc(struct gup_mm *mm, gup_entry_t *parent,
				  unsigned long addr, unsigned int shift)
{
	uint64_t e = atomic_load_explicit(parent, memory_order_relaxed);

	if (!entry_present(e)) {
		long idx = table_alloc(mm);

		if (idx < 0)
			return NULL;
		e = make_entry((unsigned long)idx, GUP_ENTRY_PRESENT | GUP_ENTRY_WRITE);
		atomic_store_explicit(parent, e, memory_order_relaxed);
	}
	return &entry_table(mm, e)->entry[table_index(addr, shift)];
}

/* The pmd entry for addr, allocating the pud and pmd tables on the way. */
static gup_entry_t *pmd_alloc(struct gup_mm *mm, unsigned long addr)
{
	gup_entry_t *pgdp = &mm->tables[0]->entry[table_index(addr, GUP_PGDIR_SHIFT)];
	gup_entry_t *pudp = descend_alloc(mm, pgdp, addr, GUP_PUD_SHIFT);

	return pudp ? descend_alloc(mm, pudp, addr, GUP_PMD_SHIFT) : NULL;
}

/*
 * Spreads cma_percent of the folios evenly: folio i sits in CMA when the
 * running share crosses a whole folio there.
 */
bool gup_folio_in_cma(unsigned long folio_index, unsigned int cma_percent)
{
	return (folio_index + 1) * cma_percent / 100 !=
	       folio_index * cma_percent / 100;
}

static void map_folio(struct gup_mm *mm, gup_entry_t *entryp,
		      unsigned long pfn, unsigned long addr, uint64_t bits)
{
	struct gup_page *folio = pfn_to_page(mm, pfn);

	atomic_store_explicit(&folio->refcount, 1, memory_order_relaxed);
	atomic_store_explicit(&folio->mapped_at, addr, memory_order_relaxed);
	atomic_store_explicit(entryp, make_entry(pfn, bits), memory_order_relaxed);
}

/*
 * Maps the buffer with fresh folios, as if every page had been touched
 * (gup_test faults each page in before the benchmark): THP leaves from
 * vma->start to vma->huge_end, 4K pages after.
 */
int gup_map_buffer(struct gup_mm *mm, const struct gup_vma *vma,
		   struct gup_frame_cursor *cur, char *err, size_t errlen)
{
	const uint64_t bits = GUP_ENTRY_PRESENT | GUP_ENTRY_WRITE;
	unsigned long addr = vma->start;
	gup_entry_t *pmdp, *ptep;

	while (addr < vma->end) {
		bool huge = addr < vma->huge_end;
		unsigned int migratetype = gup_folio_in_cma(cur->folio_index++,
							    cur->cma_percent) ?
					   MIGRATE_CMA : MIGRATE_MOVABLE;
		unsigned long pfn;

		pmdp = pmd_alloc(mm, addr);
		if (!pmdp)
			goto nomem;
		if (huge) {
			pfn = cur->next_huge_pfn;
			cur->next_huge_pfn += GUP_HPAGE_NR;
			gup_frame_init(mm, pfn, GUP_HPAGE_SHIFT - GUP_PAGE_SHIFT,
				       migratetype);
			map_folio(mm, pmdp, pfn, addr, bits | GUP_ENTRY_LEAF);
			addr += GUP_HPAGE_SIZE;
			continue;
		}
		ptep = descend_alloc(mm, pmdp, addr, GUP_PAGE_SHIFT);
		if (!ptep)
			goto nomem;
		pfn = cur->next_small_pfn++;
		gup_frame_init(mm, pfn, 0, migratetype);
		map_folio(mm, ptep, pfn, addr, bits);
		addr += GUP_PAGE_SIZE;
	}
	return 0;
nomem:
	snprintf(err, errlen, "gup: out of memory for the page tables of %lu MiB",
		 (vma->end - vma->start) >> 20);
	return -1;
}

gup_entry_t *gup_leaf_entry(struct gup_mm *mm, unsigned long addr, bool *huge)
{
	gup_entry_t *p = &mm->tables[0]->entry[table_index(addr, GUP_PGDIR_SHIFT)];
	static const unsigned int shifts[] = { GUP_PUD_SHIFT, GUP_PMD_SHIFT };
	uint64_t e;

	if (addr >= GUP_TASK_SIZE)
		return NULL;
	for (unsigned int i = 0; i < 2; i++) {
		e = atomic_load_explicit(p, memory_order_relaxed);
		if (!entry_present(e) || entry_leaf(e))
			return NULL;
		p = &entry_table(mm, e)->entry[table_index(addr, shifts[i])];
	}
	e = atomic_load_explicit(p, memory_order_relaxed);
	*huge = entry_leaf(e);
	if (*huge)
		return p;
	if (!entry_present(e))
		return NULL;
	return &entry_table(mm, e)->entry[table_index(addr, GUP_PAGE_SHIFT)];
}
