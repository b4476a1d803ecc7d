// SPDX-License-Identifier: GPL-2.0-only
/*
 * false_sharing: each thread updates a variable of its own; only the
 * distance between the variables changes.
 *
 * No value is shared, yet threads whose variables share a line take it
 * exclusive from each other on every update. 64 bytes apart is one line
 * each, but the adjacent-line prefetcher (Intel's "spatial prefetcher",
 * which fetches the 128-byte aligned pair) can still couple two lines of
 * a pair; 128 bytes apart is what the kernel's per-CPU areas and
 * will-it-scale rely on. separate_pages also puts the variables in
 * different pages, hence different TLB entries and page-table walks.
 * Documentation/kernel-hacking/false-sharing.rst cites 292648ac5cf1.
 */
#include <stdio.h>
#include <stdlib.h>

#include "kernel.h"
#include "false_sharing_lesson.h"

#define PAGE_BYTES 4096

enum update_kind { UPDATE_PLAIN, UPDATE_LOCKED };

struct false_sharing_state {
	unsigned char *area;		/* nr_threads variables, stride bytes apart */
	size_t stride;
	unsigned int nr_threads;
	enum update_kind update;
};

enum { PARAM_UPDATE };

static const char *const update_names[] = { "plain", "locked", NULL };

static const struct kernel_param false_sharing_params[] = {
	[PARAM_UPDATE] = {
		.name = "update",
		.help = "locked: atomic_inc(), which drains the store buffer and waits for the line on every update; plain: an unlocked increment, like this_cpu_inc()",
		.def = UPDATE_LOCKED, .min = 0, .max = 1,
		.choices = update_names,
		/* both: the store buffer hides most of the cost of plain updates */
		.suite = "locked,plain",
	},
};

static inline atomic_ulong *variable_of(const struct false_sharing_state *s,
					unsigned int thread)
{
	return (atomic_ulong *)(s->area + (size_t)thread * s->stride);
}

/*
 * The thread's own increment. plain: a load and a store no other CPU
 * races with (relaxed atomics keep other threads' reads defined C and
 * compile to the same unlocked instructions as x++).
 */
static void update_own(void *state, unsigned int thread, uint64_t nr_ops)
{
	struct false_sharing_state *s = state;
	atomic_ulong *mine = variable_of(s, thread);

	if (s->update == UPDATE_LOCKED) {
		for (uint64_t i = 0; i < nr_ops; i++)
			atomic_fetch_add_explicit(mine, 1, memory_order_relaxed);
		return;
	}
	for (uint64_t i = 0; i < nr_ops; i++)
		atomic_store_explicit(mine, atomic_load_explicit(mine, memory_order_relaxed) + 1,
				      memory_order_relaxed);
}

/*
 * Every variant runs the same update: the layout, chosen in create(), is
 * the only difference. The strides follow the variant order below.
 */
static const size_t variant_stride[] = { 8, 64, CACHE_PAD, PAGE_BYTES };

static const struct kernel_variant false_sharing_variants[] = {
	{
		.name = "same_line",
		.models = "struct { long a, b; }: per-thread fields in one line",
		.run = update_own,
	},
	{
		.name = "adjacent_lines",
		.models = "____cacheline_aligned on 64 bytes: one line each, but a 128-byte prefetch pair",
		.run = update_own,
	},
	{
		.name = "padded_128",
		.models = "padding to 128 bytes, as per-CPU data and will-it-scale do",
		.run = update_own,
	},
	{
		.name = "separate_pages",
		.models = "one page per thread: no line and no page in common",
		.run = update_own,
	},
};

_Static_assert(sizeof(variant_stride) / sizeof(variant_stride[0]) ==
	       sizeof(false_sharing_variants) / sizeof(false_sharing_variants[0]),
	       "one stride per false_sharing variant");

static void *false_sharing_create(const struct kernel_config *cfg, char *err,
				  size_t errlen)
{
	struct false_sharing_state *s = calloc(1, sizeof(*s));
	size_t stride = variant_stride[cfg->variant];
	size_t bytes = stride * cfg->nr_threads;

	bytes = (bytes + PAGE_BYTES - 1) / PAGE_BYTES * PAGE_BYTES;
	if (s)
		s->area = kernel_alloc_shared(bytes);
	if (!s || !s->area) {
		free(s);
		snprintf(err, errlen, "false_sharing: out of memory for %u threads",
			 cfg->nr_threads);
		return NULL;
	}
	s->stride = stride;
	s->nr_threads = cfg->nr_threads;
	s->update = (enum update_kind)cfg->param[PARAM_UPDATE];
	for (unsigned int t = 0; t < s->nr_threads; t++)
		atomic_init(variable_of(s, t), 0);
	return s;
}

static int false_sharing_verify(void *state, const struct kernel_config *cfg,
				const uint64_t *ops, struct kernel_metrics *metrics,
				char *msg, size_t msglen)
{
	struct false_sharing_state *s = state;

	(void)cfg;
	(void)metrics;
	for (unsigned int t = 0; t < s->nr_threads; t++) {
		unsigned long got = atomic_load(variable_of(s, t));

		if (got != ops[t]) {
			snprintf(msg, msglen, "thread %u's variable reads %lu after %llu updates",
				 t, got, (unsigned long long)ops[t]);
			return -1;
		}
	}
	return 0;
}

static void false_sharing_destroy(void *state)
{
	struct false_sharing_state *s = state;

	kernel_free_shared(s->area);
	free(s);
}

/*
 * Measured on 2-vCPU KVM guests: locked same_line 30 vs padded 5.8 ns on
 * an Intel Xeon, 19.6 vs 6.2 ns on an AMD EPYC; plain same_line 0.38 ns
 * (Intel) and 1.1 ns (AMD), where one line transfer takes 50-80 ns.
 */
static const struct kernel_claim false_sharing_claims[] = {
	{
		/*
		 * x86 only: a lock-prefixed add owns the line in the core's
		 * cache; an arm64 LSE atomic may be done at the interconnect
		 * (a far atomic) without moving the line to either core.
		 */
		.text = "a locked update pays a line transfer each time the line is shared",
		.a = "same_line", .b = "padded_128",
		.setting = "update=locked", .threads = CLAIM_MOST_THREADS,
		.arch = CLAIM_X86,
		.relation = CLAIM_AT_LEAST, .x = 2,
	},
	{
		.text = "alone, a thread does not care how its variable is laid out",
		.a = "same_line", .b = "padded_128",
		.setting = "update=locked", .threads = CLAIM_ONE_THREAD,
		.relation = CLAIM_WITHIN, .x = 1.5,
	},
	{
		/*
		 * Against the run's own transfer: about 1 ns an update on a
		 * Zen 5 guest, half a transfer in some host placements on a
		 * Zen 3 one; never a whole transfer each.
		 */
		.text = "plain updates of a shared line cost less than a transfer each: the store buffer commits several per transfer",
		.a = "same_line", .setting = "update=plain",
		.b = "pingpong/store_load", .b_metric = "one_way_ns",
		.b_threads = CLAIM_B_MOST_THREADS,
		.threads = CLAIM_MOST_THREADS, .arch = CLAIM_X86,
		.relation = CLAIM_AT_MOST, .x = 1,
	},
};

/*
 * Access profile (model/): one increment of the thread's own variable.
 * same_line puts 8 variables in a 64-byte line; adjacent_lines gives each
 * a line (the 128-byte prefetch pair is not in the model: it was not
 * visible on the development VMs); the others are private.
 */
static void false_sharing_access(const struct kernel_config *cfg,
				 struct access_profile *p)
{
	size_t stride = variant_stride[cfg->variant];
	struct line_access *l;

	if (stride >= 64) {
		if (cfg->param[PARAM_UPDATE] == UPDATE_LOCKED)
			p->private_locked = 1;
		return;
	}
	l = access_add_line(p, "shared line of variables", LINE_SHARED_BY_GROUP,
			    (unsigned int)(64 / stride));
	l->reads = 1;
	if (cfg->param[PARAM_UPDATE] == UPDATE_LOCKED)
		l->locked = 1;
	else
		l->stores = 1;
}

const struct kernel_family false_sharing_family = {
	.name = "false_sharing",
	.title = "Private variables, shared lines: how far apart is far enough",
	.reading_order = 7,
	.lesson = LESSON,
	.lesson_line = LESSON_LINE,
	.claims = false_sharing_claims,
	.nr_claims = sizeof(false_sharing_claims) / sizeof(false_sharing_claims[0]),
	.exercise_question = LESSON_EXERCISE_QUESTION,
	.exercise_command = LESSON_EXERCISE_COMMAND,
	.exercise_reading = LESSON_EXERCISE_READING,
	.source = LESSON_SOURCE,
	.before = LESSON_BEFORE,
	.after = LESSON_AFTER,
	.before_variant = "same_line",
	.after_variant = "padded_128",
	.params = false_sharing_params,
	.nr_params = sizeof(false_sharing_params) / sizeof(false_sharing_params[0]),
	.variants = false_sharing_variants,
	.nr_variants = sizeof(false_sharing_variants) / sizeof(false_sharing_variants[0]),
	.create = false_sharing_create,
	.verify = false_sharing_verify,
	.destroy = false_sharing_destroy,
	.access = false_sharing_access,
};
KERNEL_FAMILY_REGISTER(false_sharing_family);
