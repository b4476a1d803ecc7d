// SPDX-License-Identifier: GPL-2.0-only
/*
 * The fast path: pin_user_pages_fast() and get_user_pages_fast().
 *
 * In order (reference section 1, "Key mechanics"):
 *   1. the has-pinned flag update (FOLL_PIN), one of three switches;
 *   2. raw_read_seqcount(&mm->write_protect_seq): odd means a writer is
 *      in progress, so skip straight to the slow path;
 *   3. a lockless walk pgd -> pud -> pmd -> pte that reads each entry
 *      once and descends from the value it read, never re-reading it
 *      (the ACCESS_ONCE lesson of seed 004);
 *   4. per leaf: a grab with add-unless-zero, then a recheck that the
 *      pmd and the pte still hold the values read. The writer's side of
 *      the contract is "(1) clear the entry, (2) check for pins"; ours is
 *      "(1) pin, (2) recheck", so one of the two always sees the other;
 *   5. the FOLL_LONGTERM check, in the walk or as a second pass;
 *   6. read_seqcount_retry(): if a writer ran meanwhile, unpin everything;
 *   7. whatever the walk did not cover goes to the locked slow path.
 */
#include <errno.h>

#include "gup_internal.h"

struct gup_walk {
	struct gup_task *task;
	struct gup_mm *mm;
	unsigned int flags;
	bool longterm_in_walk;
	struct gup_page **pages;
	unsigned long nr;
};

/*
 * Seed 002, design (b), merged as df3a0a21b698: reject a folio that may
 * not be pinned for long before taking any reference to it.
 */
static inline bool longterm_rejects(struct gup_walk *w, struct gup_page *page,
				    uint64_t *checks)
{
	if (!w->longterm_in_walk || page_lookup_longterm_pinnable(w->mm, page, checks))
		return false;
	w->task->stats.longterm_rejects++;
	return true;
}

/*
 * gup_fast_pte_range(): one pte table, one grab and one recheck per page.
 * The CMA lookups are counted in a local and noted once per table.
 */
static bool gup_fast_pte_range(struct gup_walk *w, uint64_t pmd,
			       gup_entry_t *pmdp, unsigned long addr,
			       unsigned long end)
{
	gup_entry_t *ptep = &entry_table(w->mm, pmd)->entry[table_index(addr, GUP_PAGE_SHIFT)];
	uint64_t checks = 0;
	bool whole = false;

	do {
		uint64_t pte = atomic_load_explicit(ptep, memory_order_relaxed);
		struct gup_page *page, *folio;

		if (!entry_present(pte) || entry_special(pte))
			goto out;
		if ((w->flags & FOLL_WRITE) && !entry_write(pte))
			goto out;
		page = pfn_to_page(w->mm, entry_pfn(pte));
		if (longterm_rejects(w, page, &checks))
			goto out;
		gup_hook_addr(w->mm, before_grab, addr);
		folio = try_grab_folio_fast(w->task, page, 1, w->flags);
		if (!folio)
			goto out;
		gup_hook_addr(w->mm, after_grab, addr);
		if (pmd != atomic_load_explicit(pmdp, memory_order_seq_cst) ||
		    pte != atomic_load_explicit(ptep, memory_order_seq_cst)) {
			gup_put_folio(w->task, folio, 1, w->flags);
			w->task->stats.recheck_failures++;
			goto out;
		}
		folio_set_referenced(folio);
		w->pages[w->nr++] = page;
	} while (ptep++, addr += GUP_PAGE_SIZE, addr != end);
	whole = true;
out:
	w->task->stats.longterm_checks += checks;
	return whole;
}

/*
 * gup_fast_pmd_leaf(): a THP. One grab of all the pages wanted from this
 * folio, one recheck of the pmd, then record_subpages().
 */
static bool gup_fast_pmd_leaf(struct gup_walk *w, uint64_t pmd,
			      gup_entry_t *pmdp, unsigned long addr,
			      unsigned long end)
{
	int refs = (int)((end - addr) >> GUP_PAGE_SHIFT);
	struct gup_page *page, *folio;

	if (entry_special(pmd))
		return false;
	if ((w->flags & FOLL_WRITE) && !entry_write(pmd))
		return false;
	page = pfn_to_page(w->mm, entry_pfn(pmd)) +
	       ((addr & (GUP_HPAGE_SIZE - 1)) >> GUP_PAGE_SHIFT);
	if (longterm_rejects(w, page, &w->task->stats.longterm_checks))
		return false;
	gup_hook_addr(w->mm, before_grab, addr);
	folio = try_grab_folio_fast(w->task, page, refs, w->flags);
	if (!folio)
		return false;
	gup_hook_addr(w->mm, after_grab, addr);
	if (pmd != atomic_load_explicit(pmdp, memory_order_seq_cst)) {
		gup_put_folio(w->task, folio, refs, w->flags);
		w->task->stats.recheck_failures++;
		return false;
	}
	for (int i = 0; i < refs; i++)
		w->pages[w->nr++] = page + i;
	folio_set_referenced(folio);
	return true;
}

static bool gup_fast_pmd_range(struct gup_walk *w, uint64_t pud,
			       unsigned long addr, unsigned long end)
{
	gup_entry_t *pmdp = &entry_table(w->mm, pud)->entry[table_index(addr, GUP_PMD_SHIFT)];
	unsigned long next;

	do {
		uint64_t pmd = atomic_load_explicit(pmdp, memory_order_relaxed);

		next = level_addr_end(addr, end, GUP_PMD_SHIFT);
		if (!entry_present(pmd))
			return false;
		if (entry_leaf(pmd)) {
			if (!gup_fast_pmd_leaf(w, pmd, pmdp, addr, next))
				return false;
		} else if (!gup_fast_pte_range(w, pmd, pmdp, addr, next)) {
			return false;
		}
	} while (pmdp++, addr = next, addr != end);
	return true;
}

/* No 1G leaves in this model: a pud leaf stops the walk. */
static bool gup_fast_pud_range(struct gup_walk *w, uint64_t pgd,
			       unsigned long addr, unsigned long end)
{
	gup_entry_t *pudp = &entry_table(w->mm, pgd)->entry[table_index(addr, GUP_PUD_SHIFT)];
	unsigned long next;

	do {
		uint64_t pud = atomic_load_explicit(pudp, memory_order_relaxed);

		next = level_addr_end(addr, end, GUP_PUD_SHIFT);
		if (!entry_present(pud) || entry_leaf(pud))
			return false;
		if (!gup_fast_pmd_range(w, pud, addr, next))
			return false;
	} while (pudp++, addr = next, addr != end);
	return true;
}

static void gup_fast_pgd_range(struct gup_walk *w, unsigned long addr,
			       unsigned long end)
{
	gup_entry_t *pgdp = &w->mm->tables[0].entry[table_index(addr, GUP_PGDIR_SHIFT)];
	unsigned long next;

	do {
		uint64_t pgd = atomic_load_explicit(pgdp, memory_order_relaxed);

		next = level_addr_end(addr, end, GUP_PGDIR_SHIFT);
		if (!entry_present(pgd) || entry_leaf(pgd))
			return;
		if (!gup_fast_pud_range(w, pgd, addr, next))
			return;
	} while (pgdp++, addr = next, addr != end);
}

/*
 * gup_fast() (lockless_pages_from_mm() in 5.14). The kernel runs the walk
 * with interrupts off; the model's tables are never freed instead.
 */
static unsigned long gup_fast(struct gup_task *task, unsigned long start,
			      unsigned long end, unsigned int flags,
			      struct gup_page **pages)
{
	struct gup_mm *mm = task->mm;
	struct gup_walk w = {
		.task = task,
		.mm = mm,
		.flags = flags,
		.longterm_in_walk = (flags & FOLL_LONGTERM) &&
				    mm->longterm_check == GUP_LONGTERM_IN_WALK,
		.pages = pages,
	};
	unsigned int seq = 0;

	if (gup_file_pin_refused(mm, flags))
		return 0;
	/*
	 * raw_read_seqcount() and read_seqcount_retry(). Both loads are
	 * seq_cst, like the rechecks: any entry the walk kept was rechecked
	 * after the writer's odd count was stored, so the second load sees a
	 * change, with no smp_rmb() needed. On x86 they are plain loads.
	 */
	if (flags & FOLL_PIN) {
		seq = atomic_load_explicit(&mm->write_protect_seq,
					   memory_order_seq_cst);
		if (seq & 1) {
			task->stats.seq_busy++;
			return 0;
		}
	}
	gup_fast_pgd_range(&w, start, end);
	if (flags & FOLL_PIN) {
		gup_hook(mm, before_seq_retry);
		if (atomic_load_explicit(&mm->write_protect_seq,
					 memory_order_seq_cst) != seq) {
			gup_undo_grabs(task, pages, w.nr, flags);
			task->stats.seq_retries++;
			return 0;
		}
	}
	return w.nr;
}

/*
 * Seed 002, design (a), reject_cma_pages(): a second loop over pages[]
 * after the walk, with is_migrate_cma_page() (the pageblock lookup) per
 * page again. From the first page that may not be pinned for long,
 * everything goes back, and the slow path takes over from there.
 *
 * Out of line so that its loop is the kernel's: per page, the load of
 * pages[i], page_to_pfn(), the call and the compare, with i, nr and
 * pages in callee-saved registers. Inlined into gup_fast_fallback(),
 * which has more values live than 5.2's get_user_pages_fast(), gcc kept
 * i on the stack and spilled two more registers around every call: four
 * stores and four loads per page that the kernel's loop has no reason to
 * make [I: the kernel's code generation is not at hand]. The call costs
 * once per fast call, not per page.
 */
__attribute__((noinline))
static unsigned long reject_unpinnable_pages(struct gup_task *task,
					     unsigned long nr,
					     struct gup_page **pages,
					     unsigned int flags)
{
	uint64_t checks = 0;
	unsigned long i;

	for (i = 0; i < nr; i++) {
		if (page_lookup_longterm_pinnable(task->mm, pages[i], &checks))
			continue;
		gup_undo_grabs(task, pages + i, nr - i, flags);
		task->stats.longterm_rejects++;
		break;
	}
	task->stats.longterm_checks += checks;
	return i;
}

/* gup_fast_fallback() (internal_get_user_pages_fast() in 5.14). */
static long gup_fast_fallback(struct gup_task *task, unsigned long start,
			      unsigned long nr_pages, unsigned int flags,
			      struct gup_page **pages)
{
	unsigned long nr_pinned, end;
	long ret;

	if (flags & FOLL_PIN)
		mm_set_has_pinned_flag(task->mm);
	task->stats.fast_calls++;
	start &= ~(GUP_PAGE_SIZE - 1);
	if (!nr_pages)
		return 0;
	end = start + (nr_pages << GUP_PAGE_SHIFT);
	if (nr_pages > (GUP_TASK_SIZE >> GUP_PAGE_SHIFT) || end > GUP_TASK_SIZE ||
	    end <= start)
		return -EFAULT;

	nr_pinned = gup_fast(task, start, end, flags, pages);
	if ((flags & FOLL_LONGTERM) &&
	    task->mm->longterm_check == GUP_LONGTERM_SECOND_PASS)
		nr_pinned = reject_unpinnable_pages(task, nr_pinned, pages, flags);
	if (nr_pinned == nr_pages || (flags & FOLL_FAST_ONLY)) {
		task->stats.pages_returned += nr_pinned;
		return (long)nr_pinned;
	}

	ret = gup_slow_path(task, start + (nr_pinned << GUP_PAGE_SHIFT),
			    nr_pages - nr_pinned, flags, pages + nr_pinned);
	if (ret < 0) {
		if (!nr_pinned)
			return ret;
		ret = 0;
	}
	task->stats.pages_returned += nr_pinned + (unsigned long)ret;
	return (long)nr_pinned + ret;
}

long pin_user_pages_fast(struct gup_task *task, unsigned long start,
			 unsigned long nr_pages, unsigned int gup_flags,
			 struct gup_page **pages)
{
	if (gup_flags & (FOLL_GET | FOLL_PIN))
		return -EINVAL;
	return gup_fast_fallback(task, start, nr_pages, gup_flags | FOLL_PIN, pages);
}

long get_user_pages_fast(struct gup_task *task, unsigned long start,
			 unsigned long nr_pages, unsigned int gup_flags,
			 struct gup_page **pages)
{
	if (gup_flags & (FOLL_GET | FOLL_PIN))
		return -EINVAL;
	return gup_fast_fallback(task, start, nr_pages, gup_flags | FOLL_GET, pages);
}
