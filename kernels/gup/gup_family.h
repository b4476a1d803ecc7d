/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the gup family's two files share: its state, made by gup_create()
 * and run by its variants (gup_family.c), and checked after the run by
 * gup_verify() (gup_family_verify.c).
 */
#ifndef BOUNCELAB_GUP_FAMILY_H
#define BOUNCELAB_GUP_FAMILY_H

#include "gup.h"

enum { MODE_SHARED, MODE_PRIVATE };
enum { LONGTERM_NONE, LONGTERM_IN_WALK, LONGTERM_SECOND_PASS };

struct gup_thread {
	struct gup_task task;		/* padded: counters of one thread */
	struct gup_page **pages;
	long error;			/* what a failed call returned */
	unsigned long error_after;	/* pages this thread had done by then */
	uint64_t get_ns, put_ns;	/* time in the pins and in the unpins */
	uint64_t cma_lookups_due;	/* what its calls' CMA checks look up */
};

struct gup_family_state {
	struct gup_mm *mm;
	unsigned int nr_threads;
	unsigned int mode;
	unsigned int gup_flags;
	unsigned long buffer_pages;
	unsigned long pages_per_call;
	unsigned long huge_pages;	/* a buffer's pages in THP leaves */
	unsigned int longterm;
	bool writer_running;
	uint64_t writer_changes;
	struct gup_thread *threads;
};

enum {
	PARAM_LONGTERM, PARAM_PAGES_PER_CALL, PARAM_PAGE_SIZE, PARAM_MODE,
	PARAM_BUFFER_MIB, PARAM_WRITER, PARAM_CMA_PERCENT,
};

extern const char *const longterm_names[];

/* The family's verify (struct kernel_family): what a run must leave behind. */
int gup_verify(void *state, const struct kernel_config *cfg,
	       const uint64_t *ops, struct kernel_metrics *metrics,
	       char *msg, size_t msglen);

#endif
