/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The gup_test driver: what mm/gup_test.c's ioctl does to the kernel,
 * done to the mini GUP walker, by as many threads as
 * tools/testing/selftests/mm/gup_test.c starts (reference/gup-anchors.md
 * section 2).
 *
 * Each of the threads does, per repeat, what one ioctl does: call the
 * command's GUP function nr_pages_per_call pages at a time until the
 * buffer is covered or a call comes back short (timed: get), check the
 * pages are pinned (verify_dma_pinned(), not timed), dump the pages asked
 * for (DUMP_USER_PAGES_TEST), give them all back (timed: put). After the
 * run the driver checks that the walker left every folio as it found it.
 *
 * gup_test's threads run their repeats freely; these start each repeat
 * together, so that every repeat measures the same contention. Several
 * combinations of the walker's switches run in one go, each repeat
 * running every combination once, in an order that rotates from repeat
 * to repeat.
 *
 * The driver prints nothing: it hands each sample and each dumped page
 * to the caller's callbacks, one at a time under its print lock, and
 * leaves thread placement and statistics to the caller too (kernels know
 * nothing of topology or of the lab's statistics).
 */
#ifndef BOUNCELAB_GUP_TEST_DRIVER_H
#define BOUNCELAB_GUP_TEST_DRIVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gup.h"

/* The ioctl commands of mm/gup_test.h this driver replays. */
enum gup_test_cmd {
	GUP_FAST_BENCHMARK,
	PIN_FAST_BENCHMARK,
	PIN_LONGTERM_BENCHMARK,
	GUP_BASIC_TEST,
	PIN_BASIC_TEST,
	DUMP_USER_PAGES_TEST,
	NR_GUP_TEST_CMDS
};

/* gup_test.c's cmd_to_str(), indexed by enum gup_test_cmd. */
extern const char *const gup_test_cmd_names[];

/* mm/gup_test.h: struct gup_test's which_pages[]. */
#define GUP_TEST_MAX_PAGES_TO_DUMP 8
#define GUP_TEST_MAX_COMBOS 16

/*
 * The get loop reads the clock after every stretch of at least this many
 * pages (about 25 us at 64 pages per call here). A repeat of gup_test's
 * 128 MiB takes about as long as the 1 ms between two timer interrupts,
 * and on a VM one interrupt can cost 40 us, about a tenth of the repeat:
 * then half the repeats carry one and half do not, and the median of ten
 * lands in either group, whatever the variant. The median of a repeat's
 * stretches leaves out the one or two an interrupt hit. The clock reads
 * cost about 0.1% of a stretch.
 */
#define GUP_TEST_STRETCH_PAGES 2048

/* Whether the command prints times (the *_BENCHMARK ones) or "done". */
bool gup_test_cmd_is_benchmark(enum gup_test_cmd cmd);

/* One combination of the walker's switches. */
struct gup_test_combo_key {
	enum gup_flag_update variant;
	bool private_buffers;		/* one buffer per thread, as pin_fast */
	enum gup_longterm_check check;
};

struct gup_test_config {
	enum gup_test_cmd cmd;
	unsigned long buffer_bytes;
	unsigned long pages_per_call;	/* at least 1 */
	unsigned int repeats;		/* at least 1; the *_TEST commands run once */
	unsigned int threads;
	enum gup_page_size page_size;
	enum gup_backing backing;
	/* FOLL_WRITE, FOLL_GET, FOLL_LONGTERM of gup.h: gup_test's gup_flags */
	unsigned int gup_flags;
	bool dump_use_pin;		/* GUP_TEST_FLAG_DUMP_PAGES_USE_PIN (-p) */
	/* 1-based page indexes to dump, 0: none (struct gup_test's which_pages) */
	unsigned int which_pages[GUP_TEST_MAX_PAGES_TO_DUMP];
	bool writer;			/* a thread that replaces pages meanwhile */
	unsigned long writer_pace_ns;
	unsigned int cma_percent;
	unsigned int nr_combos;
	struct gup_test_combo_key combos[GUP_TEST_MAX_COMBOS];
};

/* One thread's one repeat, as gup_test's struct gup_test reports it. */
struct gup_test_sample {
	uint64_t get_usec;		/* get_delta_usec: ktime_us_delta() */
	uint64_t put_usec;
	uint64_t get_ns;
	uint64_t put_ns;
	unsigned long pages;		/* pages the get loop took */
	unsigned long size;		/* bytes covered: gup->size after the ioctl */
	unsigned long full_size;	/* bytes asked for */
	/* the median over the repeat's stretches of their get ns per page */
	double get_stretch_ns_per_page;
};

/* One page DUMP_USER_PAGES_TEST shows, while the caller still holds it. */
struct gup_test_page_dump {
	unsigned int slot;		/* index into which_pages[] */
	unsigned int which;		/* the 1-based index asked for */
	bool out_of_range;		/* beyond the pages taken: zeroed */
	unsigned long index;		/* 0-based page index */
	unsigned long start;		/* the buffer's first address */
	unsigned long pfn;
	unsigned int order;		/* of the page's folio */
	int refcount;			/* the folio's */
	int pincount;			/* the folio's (large folios only) */
	bool maybe_dma_pinned;
	enum gup_backing backing;
};

struct gup_test_ops {
	void *arg;
	/* Binds the calling thread for thread index t; 0 or a negative errno. */
	int (*bind_thread)(void *arg, unsigned int t);
	/* The median of n values. */
	double (*median)(const double *values, size_t n);
	/* Called under the print lock, in the order the repeats end. */
	void (*sample)(void *arg, unsigned int t, unsigned int combo,
		       const struct gup_test_sample *s);
	void (*dump_page)(void *arg, unsigned int t,
			  const struct gup_test_page_dump *d);
};

struct gup_test;

/* NULL with err filled on a bad configuration or no memory. */
struct gup_test *gup_test_create(const struct gup_test_config *cfg,
				 const struct gup_test_ops *ops, char *err,
				 size_t errlen);
/*
 * Runs every repeat of every combination on cfg->threads threads. A
 * thread whose pages fail verify_dma_pinned() fails the test and stops
 * the run after the current repeat. Returns 0, or -1 with err filled when
 * the run as a whole failed: a thread that would not start, or the walker
 * left a pin, a reference or a frame behind.
 */
int gup_test_run(struct gup_test *t, char *err, size_t errlen);
/*
 * How thread t fared: its ioctl status (0, as the kernel's), and whether
 * it passed; why it failed in why.
 */
bool gup_test_thread_passed(const struct gup_test *t, unsigned int thread,
			    int *status, char *why, size_t whylen);
/* The repeats each combination ran (the *_TEST commands: one). */
unsigned int gup_test_repeats(const struct gup_test *t);
/* Combination c's samples, [repeat * threads + thread]. */
const struct gup_test_sample *gup_test_samples(const struct gup_test *t,
					       unsigned int combo);
/* Combination c's walker counters summed over threads, and its writer's changes. */
void gup_test_combo_paths(const struct gup_test *t, unsigned int combo,
			  struct gup_stats *sum, uint64_t *writer_changes);
void gup_test_destroy(struct gup_test *t);

#endif
