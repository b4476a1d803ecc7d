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

/*
 * A new, empty table; its index goes into the parent entry's pfn field.
 * All tables live in one array, so that a walker finds the next table
 * with one load and some arithmetic, as the kernel does with __va(): the
 * array may move while buffers are mapped, but never after.
 */
static long table_alloc(struct gup_mm *mm)
{
	struct gup_table *t;

	if (mm->nr_tables == mm->tables_cap) {
		unsigned long cap = mm->tables_cap ? mm->tables_cap * 2 : 16;
		struct gup_table *grown = realloc(mm->tables, cap * sizeof(*grown));

		if (!grown)
			return -1;
		mm->tables = grown;
		mm->tables_cap = cap;
	}
	t = &mm->tables[mm->nr_tables];
	for (unsigned int i = 0; i < GUP_PTRS_PER_TABLE; i++)
		atomic_init(&t->entry[i], 0);
	return (long)mm->nr_tables++;
}

int gup_tables_init(struct gup_mm *mm)
{
	return table_alloc(mm) == 0 ? 0 : -1;
}

/*
 * The table below entry idx of table parent, allocated if missing.
 * Indices, not pointers: an allocation may move every table.
 */
static long child_table(struct gup_mm *mm, unsigned long parent, unsigned int idx)
{
	uint64_t e = atomic_load_explicit(&mm->tables[parent].entry[idx],
					  memory_order_relaxed);
	long child;

	if (entry_present(e))
		return (long)entry_pfn(e);
	child = table_alloc(mm);
	if (child < 0)
		return -1;
	e = make_entry((unsigned long)child, GUP_ENTRY_PRESENT | GUP_ENTRY_WRITE);
	atomic_store_explicit(&mm->tables[parent].entry[idx], e, memory_order_relaxed);
	return child;
}

/* The pmd table for addr, allocating the pud and pmd tables on the way. */
static long pmd_table(struct gup_mm *mm, unsigned long addr)
{
	long pud = child_table(mm, 0, table_index(addr, GUP_PGDIR_SHIFT));

	return pud < 0 ? -1 : child_table(mm, (unsigned long)pud,
					  table_index(addr, GUP_PUD_SHIFT));
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

	while (addr < vma->end) {
		bool huge = addr < vma->huge_end;
		unsigned int migratetype = gup_folio_in_cma(cur->folio_index++,
							    cur->cma_percent) ?
					   MIGRATE_CMA : MIGRATE_MOVABLE;
		unsigned int pmd_idx = table_index(addr, GUP_PMD_SHIFT);
		long pmd = pmd_table(mm, addr), pte;
		unsigned long pfn;

		if (pmd < 0)
			goto nomem;
		if (migratetype == MIGRATE_CMA && huge)
			cur->cma_huge++;
		else if (migratetype == MIGRATE_CMA)
			cur->cma_small++;
		if (huge) {
			pfn = cur->next_huge_pfn;
			cur->next_huge_pfn += GUP_HPAGE_NR;
			gup_frame_init(mm, pfn, GUP_HPAGE_SHIFT - GUP_PAGE_SHIFT,
				       migratetype);
			map_folio(mm, &mm->tables[pmd].entry[pmd_idx], pfn, addr,
				  bits | GUP_ENTRY_LEAF);
			addr += GUP_HPAGE_SIZE;
			continue;
		}
		pte = child_table(mm, (unsigned long)pmd, pmd_idx);
		if (pte < 0)
			goto nomem;
		pfn = migratetype == MIGRATE_CMA ? cur->next_small_cma_pfn++ :
						   cur->next_small_pfn++;
		gup_frame_init(mm, pfn, 0, migratetype);
		map_folio(mm, &mm->tables[pte].entry[table_index(addr, GUP_PAGE_SHIFT)],
			  pfn, addr, bits);
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
	gup_entry_t *p = &mm->tables[0].entry[table_index(addr, GUP_PGDIR_SHIFT)];
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
