// SPDX-License-Identifier: GPL-2.0-only
#include <stddef.h>

#include "seeds.h"

/*
 * gup_test -a -m 512 -j: every thread pins the same 512 MiB buffer of 4K
 * pages (no -t), one page per call.
 */
static const char *const gup_test_setting[] = {
	"pages_per_call=1", "page_size=4k", "mode=shared", "buffer_mib=512", NULL
};
/* gup_benchmark -n 64 with no CMA memory on the machine. */
static const char *const gup_benchmark_setting[] = { "nr_pages=64", "cma_percent=0", NULL };
/*
 * pin_fast: each task pins its own 1024-page MADV_HUGEPAGE buffer (two
 * THPs), one page per call.
 */
static const char *const pin_fast_setting[] = {
	"pages_per_call=1", "page_size=2m", "mode=private", "buffer_mib=4", NULL
};

/*
 * seeds/000 and 003, the v2 cover letter: gup_test -a -m 512 -j 40. Set
 * beside has_pinned and beside the mini GUP walker with a shared buffer.
 */
#define GUP_TEST_ON_40_CPUS						\
	.before_variant = "store_always",				\
	.after_variant = "read_then_set",				\
	.source = "seeds/000 and 003: Peter Xu, \"[PATCH 0/3] mm/gup: Fix pin page write cache bouncing on has_pinned\", May 2021", \
	.benchmark = "gup_test -a -m 512 -j 40 (mean get time)",	\
	.quantity = "get_ns_per_page",					\
	.machine = "40-CPU Intel Xeon E5-2630 v4 @ 2.20GHz",		\
	.threads = 40,							\
	.before = 477729.97,						\
	.after = 89144.65,						\
	.unit = "us",							\
	.higher_is_better = false,					\
	.published = "spread across threads ±3.79% → ±11.76%"

/*
 * seeds/000, v1 patch 2/3 commit message (Andrea Arcangeli): will-it-scale
 * pin_fast. Set beside has_pinned and beside the walker's private buffers.
 */
#define PIN_FAST_ON_256_CPUS						\
	.before_variant = "store_always",				\
	.after_variant = "read_then_set",				\
	.source = "seeds/000: Andrea Arcangeli, \"mm: gup: allow FOLL_PIN to scale in SMP\" (292648ac5cf1), May 2021", \
	.benchmark = "will-it-scale pin_fast, 1 thread per CPU",	\
	.machine = "256 CPUs, 2 NUMA nodes (distances 10/32)",		\
	.threads = 256,							\
	.before = 25617,						\
	.after = 1194790,						\
	.unit = "ops/s",						\
	.higher_is_better = true,					\
	.published = "\"more than 4000%\""

const struct seed_figure seed_figures[] = {
	{ .family = "has_pinned", GUP_TEST_ON_40_CPUS },
	{ .family = "has_pinned", PIN_FAST_ON_256_CPUS },
	{
		/* seeds/002: variant a (second pass) vs b (in gup_pte_range) */
		.setting = gup_benchmark_setting,
		.family = "longterm_check",
		.before_variant = "second_pass",
		.after_variant = "check_in_walk",
		.source = "seeds/002: Pingfan Liu, FOLL_LONGTERM check in get_user_pages_fast(), June 2019",
		.benchmark = "gup_benchmark -r 100 -n 64 -l, no CMA memory",
		.quantity = "get_ns_per_page",
		.machine = "AMD EPYC 7601",
		.threads = 1,
		.before = 640.41,
		.after = 529.74,
		.unit = "us",
		.higher_is_better = false,
		.published = "\"about 17%\" less time",
	},
	{ .setting = gup_test_setting, .family = "gup", GUP_TEST_ON_40_CPUS },
	{ .setting = pin_fast_setting, .family = "gup", PIN_FAST_ON_256_CPUS },
};

const unsigned int nr_seed_figures = sizeof(seed_figures) / sizeof(seed_figures[0]);

double seed_gain(const struct seed_figure *s)
{
	return s->higher_is_better ? s->after / s->before : s->before / s->after;
}
