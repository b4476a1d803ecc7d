// SPDX-License-Identifier: GPL-2.0-only
/*
 * The slow path: what the fast walk did not cover, under mmap_lock.
 *
 * The kernel faults pages in and follows the page table under the lock
 * (__get_user_pages()); here every page of a buffer is always mapped, and
 * every page-table writer holds mmap_lock for write, so under the read
 * lock the entries hold still and a plain add takes the reference.
 * FOLL_LONGTERM then makes the second pass that survives in the kernel
 * (__gup_longterm_locked() -> check_and_migrate_movable_pages()): if any
 * page is in CMA, everything is given back, the CMA folios are moved out,
 * and the whole range is tried again.
 */
#include <errno.h>
#include <sched.h>

#include "gup_internal.h"

/* Bounds the migrate-and-retry loop when others keep a CMA folio busy. */
#define GUP_LONGTERM_ATTEMPTS 64

/*
 * __get_user_pages() for pages that are all mapped: one leaf at a time,
 * all the pages wanted from a THP in one grab (follow_page_mask()'s
 * page_mask). Returns the pages taken, or a negative errno if none was.
 */
static long get_user_pages_locked(struct gup_task *task, unsigned long start,
				  unsigned long nr_pages, unsigned int flags,
				  struct gup_page **pages)
{
	struct gup_mm *mm = task->mm;
	unsigned long done = 0;

	while (done < nr_pages) {
		unsigned long addr = start + (done << GUP_PAGE_SHIFT);
		struct gup_page *page;
		bool huge = false;
		gup_entry_t *ep = gup_leaf_entry(mm, addr, &huge);
		uint64_t e = ep ? atomic_load_explicit(ep, memory_order_relaxed) : 0;
		unsigned long refs = 1;

		/* No VMA, a pfn mapping, or a write the model cannot COW. */
		if (!entry_present(e) || entry_special(e) ||
		    ((flags & FOLL_WRITE) && !entry_write(e)))
			break;
		page = pfn_to_page(mm, entry_pfn(e));
		if (huge) {
			unsigned long offset = (addr & (GUP_HPAGE_SIZE - 1)) >> GUP_PAGE_SHIFT;

			page += offset;
			refs = GUP_HPAGE_NR - offset;
			if (refs > nr_pages - done)
				refs = nr_pages - done;
		}
		if (try_grab_folio(task, page_folio(page), (int)refs, flags))
			break;
		folio_set_referenced(page_folio(page));
		for (unsigned long i = 0; i < refs; i++)
			pages[done++] = page + i;
	}
	return done ? (long)done : -EFAULT;
}

static bool all_longterm_pinnable(struct gup_task *task,
				  struct gup_page **pages, unsigned long nr)
{
	for (unsigned long i = 0; i < nr; i++)
		if (!page_is_longterm_pinnable(task, pages[i]))
			return false;
	return true;
}

/*
 * migrate_longterm_unpinnable_folios(): moves each CMA folio of the range
 * to a fresh movable one, with the page-table writer's protocol (clear,
 * check for pins, replace). Returns the folios it could not move because
 * someone holds them.
 */
static unsigned long migrate_cma_folios(struct gup_task *task,
					unsigned long start,
					unsigned long nr_pages)
{
	struct gup_mm *mm = task->mm;
	unsigned long end = start + (nr_pages << GUP_PAGE_SHIFT);
	unsigned long busy = 0, addr = start;
	struct gup_zap z;

	pthread_rwlock_wrlock(&mm->mmap_lock);
	while (addr < end) {
		bool huge = false;
		gup_entry_t *ep = gup_leaf_entry(mm, addr, &huge);
		uint64_t e = ep ? atomic_load_explicit(ep, memory_order_relaxed) : 0;
		unsigned long folio_start = huge ? addr & ~(GUP_HPAGE_SIZE - 1) : addr;
		struct gup_page *folio;

		if (!entry_present(e))
			break;
		folio = pfn_to_page(mm, entry_pfn(e));
		if (!page_is_longterm_pinnable(task, folio) &&
		    !gup_zap_begin_locked(mm, folio_start, false, true, &z)) {
			if (z.replace) {
				mm->migrated[mm->nr_migrated++] = folio_start;
				task->stats.longterm_migrations++;
			} else {
				busy++;
			}
			gup_zap_end_locked(&z);
		}
		addr = folio_start + (huge ? GUP_HPAGE_SIZE : GUP_PAGE_SIZE);
	}
	pthread_rwlock_unlock(&mm->mmap_lock);
	return busy;
}

long gup_slow_path(struct gup_task *task, unsigned long start,
		   unsigned long nr_pages, unsigned int flags,
		   struct gup_page **pages)
{
	struct gup_mm *mm = task->mm;
	unsigned long busy;
	long got;

	task->stats.slow_path_calls++;
	/* check_vma_flags() refuses it before any page is looked up */
	if (gup_file_pin_refused(mm, flags))
		return -EFAULT;
	for (unsigned int attempt = 0; ; attempt++) {
		pthread_rwlock_rdlock(&mm->mmap_lock);
		/* __get_user_pages_locked() sets the flag too. */
		if (flags & FOLL_PIN)
			mm_set_has_pinned_flag(mm);
		got = get_user_pages_locked(task, start, nr_pages, flags, pages);
		if (got <= 0 || !(flags & FOLL_LONGTERM) ||
		    all_longterm_pinnable(task, pages, (unsigned long)got)) {
			pthread_rwlock_unlock(&mm->mmap_lock);
			return got;
		}
		gup_undo_grabs(task, pages, (unsigned long)got, flags);
		pthread_rwlock_unlock(&mm->mmap_lock);
		busy = migrate_cma_folios(task, start, (unsigned long)got);
		if (attempt + 1 == GUP_LONGTERM_ATTEMPTS || kernel_should_stop())
			return -EBUSY;
		/* Someone else holds a CMA folio for now: let them go on. */
		if (busy)
			sched_yield();
	}
}

static long gup_locked_entry(struct gup_task *task, unsigned long start,
			     unsigned long nr_pages, unsigned int flags,
			     struct gup_page **pages)
{
	long ret;

	start &= ~(GUP_PAGE_SIZE - 1);
	if (!nr_pages)
		return 0;
	if (nr_pages > (GUP_TASK_SIZE >> GUP_PAGE_SHIFT) ||
	    start + (nr_pages << GUP_PAGE_SHIFT) > GUP_TASK_SIZE)
		return -EFAULT;
	ret = gup_slow_path(task, start, nr_pages, flags, pages);
	if (ret > 0)
		task->stats.pages_returned += (unsigned long)ret;
	return ret;
}

long pin_user_pages(struct gup_task *task, unsigned long start,
		    unsigned long nr_pages, unsigned int gup_flags,
		    struct gup_page **pages)
{
	if (gup_flags & (FOLL_GET | FOLL_PIN))
		return -EINVAL;
	return gup_locked_entry(task, start, nr_pages, gup_flags | FOLL_PIN, pages);
}

long get_user_pages(struct gup_task *task, unsigned long start,
		    unsigned long nr_pages, unsigned int gup_flags,
		    struct gup_page **pages)
{
	if (gup_flags & (FOLL_GET | FOLL_PIN))
		return -EINVAL;
	return gup_locked_entry(task, start, nr_pages, gup_flags | FOLL_GET, pages);
}
