// SPDX-License-Identifier: GPL-2.0-only
/*
 * has_pinned: the flag every FOLL_PIN fast-GUP call sets in the mm.
 *
 * Linux 5.9 added mm->has_pinned (008cfe4418b3) and set it with
 * atomic_set(&mm->has_pinned, 1) on every pin. Each call then wrote a line
 * that every other CPU pinning in the same mm also wrote, and that held
 * write_protect_seq, which each call reads twice. 292648ac5cf1 made the
 * write conditional; a458b76a4171 moved the flag into bit MMF_HAS_PINNED of
 * mm->flags behind test_bit(). One operation here is one pin call: the flag
 * update, the seqcount reads around the walk, and pin_work locked
 * increments on the thread's own line standing for the page pins.
 */
#include <stdio.h>
#include <stdlib.h>

#include "kernel.h"

/* The bit a458b76a4171 took in mm->flags. */
#define MMF_HAS_PINNED 28

enum flag_line { FLAG_LINE_SHARED, FLAG_LINE_ALONE };

struct pin_slot {
	_Alignas(CACHE_PAD) atomic_ulong pins;
};

/*
 * The mm, in two layouts. In 5.9-5.13 mm_struct had mm_count, has_pinned
 * and write_protect_seq side by side: flag_line=shared keeps the flags on
 * the line of the seqcount that every pin reads; flag_line=alone gives
 * them a line of their own, so only the flag's own traffic remains.
 */
struct mm_model {
	_Alignas(CACHE_PAD) atomic_uint write_protect_seq;
	atomic_int has_pinned_beside_seq;
	atomic_ulong flags_beside_seq;
	_Alignas(CACHE_PAD) atomic_int has_pinned_alone;
	atomic_ulong flags_alone;
};

struct has_pinned_state {
	struct mm_model mm;
	atomic_int *has_pinned;		/* the flag the variants use */
	atomic_ulong *flags;
	unsigned int pin_work;
	unsigned int nr_threads;
	struct pin_slot *slots;		/* one per thread */
};

enum { PARAM_PIN_WORK, PARAM_FLAG_LINE };

static const char *const flag_line_names[] = { "shared", "alone", NULL };

static const struct kernel_param has_pinned_params[] = {
	[PARAM_PIN_WORK] = {
		.name = "pin_work",
		.help = "locked increments per call on the thread's own line, standing for the page pins",
		.def = 1, .min = 0, .max = 64, .suite = "0,1",
	},
	[PARAM_FLAG_LINE] = {
		.name = "flag_line",
		.help = "shared: the flag sits beside write_protect_seq, read by every call (5.9-5.13); alone: a line of its own",
		.def = FLAG_LINE_SHARED, .min = 0, .max = 1,
		.choices = flag_line_names,
	},
};

/*
 * The per-call work around the flag: raw_read_seqcount() before the
 * lockless walk, the page pins, read_seqcount_retry() after it. No writer
 * runs here, so the retry never fires, but the reads touch the mm's line.
 */
static inline void pin_call_work(struct has_pinned_state *s,
				 struct pin_slot *slot)
{
	unsigned int seq;

	seq = atomic_load_explicit(&s->mm.write_protect_seq,
				   memory_order_acquire);
	for (unsigned int i = 0; i < s->pin_work; i++)
		atomic_fetch_add_explicit(&slot->pins, 1, memory_order_relaxed);
	if (atomic_load_explicit(&s->mm.write_protect_seq,
				 memory_order_acquire) != seq)
		abort();	/* nothing writes the seqcount in this family */
}

/* 008cfe4418b3, 5.9-5.13: atomic_set(&mm->has_pinned, 1) on every call. */
static void store_always(void *state, unsigned int thread, uint64_t nr_ops)
{
	struct has_pinned_state *s = state;
	struct pin_slot *slot = &s->slots[thread];

	for (uint64_t i = 0; i < nr_ops; i++) {
		atomic_store_explicit(s->has_pinned, 1, memory_order_relaxed);
		pin_call_work(s, slot);
	}
}

/*
 * 292648ac5cf1: if (!atomic_read(&mm->has_pinned)) atomic_set(..., 1).
 * Once the flag is set, every CPU keeps a shared copy of the line.
 */
static void read_then_set(void *state, unsigned int thread, uint64_t nr_ops)
{
	struct has_pinned_state *s = state;
	struct pin_slot *slot = &s->slots[thread];

	for (uint64_t i = 0; i < nr_ops; i++) {
		if (!atomic_load_explicit(s->has_pinned, memory_order_relaxed))
			atomic_store_explicit(s->has_pinned, 1,
					      memory_order_relaxed);
		pin_call_work(s, slot);
	}
}

/* set_bit(MMF_HAS_PINNED, &mm->flags) on every call: a locked RMW. */
static void set_bit_always(void *state, unsigned int thread, uint64_t nr_ops)
{
	struct has_pinned_state *s = state;
	struct pin_slot *slot = &s->slots[thread];

	for (uint64_t i = 0; i < nr_ops; i++) {
		atomic_fetch_or_explicit(s->flags, 1UL << MMF_HAS_PINNED,
					 memory_order_relaxed);
		pin_call_work(s, slot);
	}
}

/*
 * a458b76a4171, mm_set_has_pinned_flag(): test_bit() then set_bit() only
 * if clear. Not atomic as a pair, and need not be: the bit is never
 * cleared while the mm lives, so a racing second set_bit is harmless.
 */
static void test_then_set_bit(void *state, unsigned int thread,
			      uint64_t nr_ops)
{
	struct has_pinned_state *s = state;
	struct pin_slot *slot = &s->slots[thread];

	for (uint64_t i = 0; i < nr_ops; i++) {
		if (!(atomic_load_explicit(s->flags, memory_order_relaxed) &
		      (1UL << MMF_HAS_PINNED)))
			atomic_fetch_or_explicit(s->flags,
						 1UL << MMF_HAS_PINNED,
						 memory_order_relaxed);
		pin_call_work(s, slot);
	}
}

/*
 * test_and_set_bit(): looks like "test first" but is one locked RMW that
 * takes the line exclusive every time, set or not.
 */
static void test_and_set_bit(void *state, unsigned int thread,
			     uint64_t nr_ops)
{
	struct has_pinned_state *s = state;
	struct pin_slot *slot = &s->slots[thread];
	unsigned long old;

	for (uint64_t i = 0; i < nr_ops; i++) {
		old = atomic_fetch_or_explicit(s->flags, 1UL << MMF_HAS_PINNED,
					       memory_order_relaxed);
		(void)old;
		pin_call_work(s, slot);
	}
}

/* The harness's own cost: the loop and nothing else. */
static void nop(void *state, unsigned int thread, uint64_t nr_ops)
{
	(void)state;
	(void)thread;
	for (uint64_t i = 0; i < nr_ops; i++)
		__asm__ volatile("" ::: "memory");
}

static const struct kernel_variant has_pinned_variants[] = {
	{ .name = "store_always", .models = "atomic_set(&mm->has_pinned, 1) on every pin (5.9-5.13)", .run = store_always },
	{ .name = "read_then_set", .models = "if (!atomic_read(&mm->has_pinned)) atomic_set(&mm->has_pinned, 1) (292648ac5cf1)", .run = read_then_set },
	{ .name = "set_bit_always", .models = "set_bit(MMF_HAS_PINNED, &mm->flags) on every pin", .run = set_bit_always },
	{ .name = "test_then_set_bit", .models = "if (!test_bit(MMF_HAS_PINNED, &mm->flags)) set_bit(...) (a458b76a4171)", .run = test_then_set_bit },
	{ .name = "test_and_set_bit", .models = "test_and_set_bit(MMF_HAS_PINNED, &mm->flags): still a write every time", .run = test_and_set_bit },
	{ .name = "nop", .models = "the harness baseline: an empty loop", .run = nop, .baseline = true },
};

enum { VARIANT_STORE_ALWAYS, VARIANT_READ_THEN_SET, VARIANT_SET_BIT_ALWAYS,
       VARIANT_TEST_THEN_SET_BIT, VARIANT_TEST_AND_SET_BIT, VARIANT_NOP };

static void *has_pinned_create(const struct kernel_config *cfg, char *err,
			       size_t errlen)
{
	struct has_pinned_state *s = kernel_alloc_padded(sizeof(*s));

	if (s)
		s->slots = kernel_alloc_padded(cfg->nr_threads *
					       sizeof(*s->slots));
	if (!s || !s->slots) {
		free(s);
		snprintf(err, errlen, "has_pinned: out of memory for %u threads",
			 cfg->nr_threads);
		return NULL;
	}
	s->nr_threads = cfg->nr_threads;
	s->pin_work = (unsigned int)cfg->param[PARAM_PIN_WORK];
	if (cfg->param[PARAM_FLAG_LINE] == FLAG_LINE_SHARED) {
		s->has_pinned = &s->mm.has_pinned_beside_seq;
		s->flags = &s->mm.flags_beside_seq;
	} else {
		s->has_pinned = &s->mm.has_pinned_alone;
		s->flags = &s->mm.flags_alone;
	}
	return s;
}

static int has_pinned_verify(void *state, const struct kernel_config *cfg,
			     const uint64_t *ops, struct kernel_metrics *metrics,
			     char *msg, size_t msglen)
{
	struct has_pinned_state *s = state;
	uint64_t total = 0;
	bool flag_set;

	(void)metrics;
	for (unsigned int t = 0; t < s->nr_threads; t++) {
		uint64_t want = cfg->variant == VARIANT_NOP ? 0 :
				ops[t] * s->pin_work;
		uint64_t got = atomic_load(&s->slots[t].pins);

		if (got != want) {
			snprintf(msg, msglen,
				 "thread %u pinned %llu times, expected %llu",
				 t, (unsigned long long)got,
				 (unsigned long long)want);
			return -1;
		}
		total += ops[t];
	}
	switch (cfg->variant) {
	case VARIANT_STORE_ALWAYS:
	case VARIANT_READ_THEN_SET:
		flag_set = atomic_load(s->has_pinned) == 1;
		break;
	case VARIANT_NOP:
		flag_set = true;
		break;
	default:
		flag_set = atomic_load(s->flags) == 1UL << MMF_HAS_PINNED;
		break;
	}
	if (total && !flag_set) {
		snprintf(msg, msglen, "the has_pinned flag is not set after %llu pins",
			 (unsigned long long)total);
		return -1;
	}
	return 0;
}

static void has_pinned_destroy(void *state)
{
	struct has_pinned_state *s = state;

	free(s->slots);
	free(s);
}

const struct kernel_family has_pinned_family = {
	.name = "has_pinned",
	.title = "Setting a shared flag: unconditional store vs read-then-set",
	.lesson =
	"A store to a line that other CPUs also use takes the line exclusive: "
	"every other copy is invalidated, and the next CPU to touch the line "
	"must fetch it back. Writing a flag that is already set changes "
	"nothing in memory but still pays that transfer on every call, so "
	"the calls of all CPUs serialise on one line. Reading first keeps the "
	"line shared in every cache once the flag is set, and each CPU hits "
	"its own copy. test_and_set_bit() is no better than set_bit(): it is "
	"one locked read-modify-write, which takes the line exclusive whatever "
	"it finds. With pin_work=0 and the flag on a line of its own, the "
	"gap shrinks on x86: plain stores retire into the store buffer and "
	"drain in the background, so a store-only loop hides the transfers; "
	"a locked instruction (the page pin) drains the store buffer and "
	"exposes them, and loads of the same line (write_protect_seq) stall "
	"on them.",
	.source = "seeds/000 and 003: 292648ac5cf1 \"mm: gup: allow FOLL_PIN to scale in SMP\", "
		  "a458b76a4171 \"mm: gup: pack has_pinned in MMF_HAS_PINNED\" (Linux 5.14)",
	.before = "atomic_set(&mm->has_pinned, 1);",
	.after = "if (!atomic_read(&mm->has_pinned))\n\tatomic_set(&mm->has_pinned, 1);",
	.before_variant = "store_always",
	.after_variant = "read_then_set",
	.params = has_pinned_params,
	.nr_params = sizeof(has_pinned_params) / sizeof(has_pinned_params[0]),
	.variants = has_pinned_variants,
	.nr_variants = sizeof(has_pinned_variants) / sizeof(has_pinned_variants[0]),
	.create = has_pinned_create,
	.verify = has_pinned_verify,
	.destroy = has_pinned_destroy,
};
