// SPDX-License-Identifier: GPL-2.0-only
/*
 * Page-table writers: the other side of fast GUP's contract.
 *
 * A writer that must not act on a pinned page (KSM's write_protect_page(),
 * THP collapse, migration, fork's copy for DMA) first clears the entry,
 * then checks the page's references; fast GUP first takes its reference,
 * then rechecks the entry. With both orders sequentially consistent,
 * either the writer sees the pin and backs off, or the pinner sees the
 * cleared or changed entry and lets go (reference section 1, step 4 of
 * gup_pte_range()). Since 5.11 fork also bumps write_protect_seq around
 * its copy, which sends concurrent FOLL_PIN walks to the slow path
 * (section 1, "Seqcount").
 *
 * The writer thread does one such change after another: clear a leaf
 * entry; if the folio has only its mapping's reference, map a fresh folio
 * of the same kind there and drop the old one, else put the old entry
 * back. Every other
 * change bumps write_protect_seq, like fork; the others do not, like KSM,
 * so that both the seqcount retry and the recheck really run.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gup_internal.h"

struct gup_writer {
	pthread_t thread;
	struct gup_mm *mm;
	atomic_bool stop;
	unsigned long pace_ns;
	uint64_t changes;
};

/*
 * raw_write_seqcount_begin() and _end() are the same step: one increment,
 * so the count is odd while the change is in progress. Only the holder of
 * mmap_lock for write changes it, so a load and a store suffice. The
 * kernel orders the count and the entries with smp_wmb(); here the
 * count's stores, the entry changes and the walkers' seqcount loads and
 * rechecks are all sequentially consistent, which orders them without a
 * fence (and lets ThreadSanitizer follow every one of them).
 */
static void write_seqcount_bump(struct gup_mm *mm)
{
	unsigned int seq = atomic_load_explicit(&mm->write_protect_seq,
						memory_order_relaxed);

	atomic_store_explicit(&mm->write_protect_seq, seq + 1, memory_order_seq_cst);
}

int gup_zap_begin_locked(struct gup_mm *mm, unsigned long addr, bool bump_seq,
			 bool to_movable, struct gup_zap *z)
{
	bool huge = false;
	gup_entry_t *ep = gup_leaf_entry(mm, addr, &huge);
	uint64_t e = ep ? atomic_load_explicit(ep, memory_order_relaxed) : 0;

	memset(z, 0, sizeof(*z));
	if (!entry_present(e))
		return -1;
	z->mm = mm;
	z->entryp = ep;
	z->addr = huge ? addr & ~(GUP_HPAGE_SIZE - 1) : addr;
	z->bump_seq = bump_seq;
	if (bump_seq)
		write_seqcount_bump(mm);	/* begin: odd */
	/* (1) clear the entry: ptep_get_and_clear() */
	z->old = atomic_exchange_explicit(ep, 0, memory_order_seq_cst);
	z->folio = pfn_to_page(mm, entry_pfn(z->old));
	/* (2) check for pins and gets: any reference beyond the mapping's */
	if (folio_has_extra_refs(z->folio))
		return 0;
	/* A fresh folio of the same kind (CMA stays CMA), or movable to migrate. */
	z->fresh = gup_alloc_folio(mm, to_movable ?
				   (folio_is_large(z->folio) ? POOL_HUGE : POOL_SMALL) :
				   gup_folio_pool(z->folio));
	if (!z->fresh)
		return 0;
	z->replace = true;
	/* From here a late grabber of the old folio must fail its recheck. */
	atomic_store_explicit(&z->folio->mapped_at, 0, memory_order_seq_cst);
	return 0;
}

bool gup_zap_end_locked(struct gup_zap *z)
{
	struct gup_mm *mm = z->mm;
	uint64_t bits = z->old & ~GUP_ENTRY_PFN_MASK;

	if (z->replace) {
		atomic_store_explicit(&z->fresh->mapped_at, z->addr, memory_order_seq_cst);
		atomic_store_explicit(z->entryp,
				      make_entry(page_to_pfn(mm, z->fresh), bits),
				      memory_order_seq_cst);
		/* The old mapping's reference; a late grabber may hold the last. */
		gup_folio_put_refs(mm, z->folio, 1);
	} else {
		atomic_store_explicit(z->entryp, z->old, memory_order_seq_cst);
	}
	if (z->bump_seq)
		write_seqcount_bump(mm);	/* end: even again */
	return z->replace;
}

int gup_zap_begin(struct gup_mm *mm, unsigned long addr, bool bump_seq,
		  struct gup_zap *z)
{
	int ret;

	pthread_rwlock_wrlock(&mm->mmap_lock);
	ret = gup_zap_begin_locked(mm, addr, bump_seq, false, z);
	if (ret)
		pthread_rwlock_unlock(&mm->mmap_lock);
	return ret;
}

bool gup_zap_end(struct gup_zap *z)
{
	bool replaced = gup_zap_end_locked(z);

	pthread_rwlock_unlock(&z->mm->mmap_lock);
	return replaced;
}

unsigned long gup_writer_next_addr(struct gup_mm *mm)
{
	const struct gup_vma *vma = &mm->vmas[mm->writer_vma];
	unsigned long addr = mm->writer_addr;

	if (addr < vma->start || addr >= vma->end)
		addr = vma->start;
	mm->writer_addr = addr + (addr < vma->huge_end ? GUP_HPAGE_SIZE : GUP_PAGE_SIZE);
	if (mm->writer_addr >= vma->end) {
		mm->writer_vma = (mm->writer_vma + 1) % mm->nr_vmas;
		mm->writer_addr = 0;
	}
	return addr;
}

static void writer_pause(const struct gup_writer *w)
{
	struct timespec ts = {
		.tv_sec = (time_t)(w->pace_ns / 1000000000UL),
		.tv_nsec = (long)(w->pace_ns % 1000000000UL),
	};

	if (w->pace_ns)
		nanosleep(&ts, NULL);
	else
		sched_yield();
}

static void *writer_main(void *arg)
{
	struct gup_writer *w = arg;
	struct gup_mm *mm = w->mm;
	struct gup_zap z;

	while (!atomic_load_explicit(&w->stop, memory_order_relaxed) &&
	       !kernel_should_stop()) {
		unsigned long addr = gup_writer_next_addr(mm);

		if (!gup_zap_begin(mm, addr, w->changes % 2 == 0, &z))
			gup_zap_end(&z);
		w->changes++;
		writer_pause(w);
	}
	return NULL;
}

int gup_writer_start(struct gup_mm *mm, unsigned long pace_ns, char *err,
		     size_t errlen)
{
	struct gup_writer *w;
	int ret;

	if (mm->writer) {
		snprintf(err, errlen, "gup: the writer is already running");
		return -1;
	}
	w = calloc(1, sizeof(*w));
	if (!w) {
		snprintf(err, errlen, "gup: out of memory for the writer");
		return -1;
	}
	w->mm = mm;
	w->pace_ns = pace_ns;
	atomic_init(&w->stop, false);
	ret = pthread_create(&w->thread, NULL, writer_main, w);
	if (ret) {
		snprintf(err, errlen, "gup: cannot start the writer thread: %s",
			 strerror(ret));
		free(w);
		return -1;
	}
	mm->writer = w;
	return 0;
}

uint64_t gup_writer_stop(struct gup_mm *mm)
{
	struct gup_writer *w = mm->writer;
	uint64_t changes;

	if (!w)
		return 0;
	atomic_store(&w->stop, true);
	pthread_join(w->thread, NULL);
	changes = w->changes;
	mm->writer = NULL;
	free(w);
	return changes;
}
