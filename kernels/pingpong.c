// SPDX-License-Identifier: GPL-2.0-only
/*
 * pingpong: the physical floor. One cache line bounced between two
 * pinned threads; a round trip is two one-way transfers of the line.
 *
 * Every contended line in the other families pays at least this per
 * handoff, at the distance its threads sit apart. Thread 0 waits for an
 * even sequence number and stores the next odd one; thread 1 waits for
 * the odd one and stores the next even one. One operation is one round
 * trip for each thread, so the harness reports one_way_ns = ns_per_op / 2.
 *
 * Methods compared: c2clat and core-to-core-latency bounce a sequence
 * number or a flag with acquire/release loads and stores, or spin on a
 * CAS (reference/coherence-anchors.md, 2 and 4.1). Both variants are here.
 */
#include <stdio.h>
#include <stdlib.h>

#include "kernel.h"
#include "pingpong_lesson.h"

/*
 * Spins between looks at the partner and the stop flag: often enough to
 * give up within microseconds, rare enough to stay off the measured path.
 * No pause instruction in the spin: on Skylake it costs ~140 cycles and
 * would be measured as transfer latency.
 */
#define SPINS_BETWEEN_CHECKS 1024

struct pingpong_side {
	_Alignas(CACHE_PAD) atomic_bool done;	/* this thread returned */
	bool gave_up;				/* ...without its last value */
	unsigned long waited_for;
};

struct pingpong_state {
	_Alignas(CACHE_PAD) atomic_ulong seq;	/* the line that bounces */
	struct pingpong_side side[2];
};

static void finish(struct pingpong_state *s, unsigned int thread)
{
	atomic_store_explicit(&s->side[thread].done, true, memory_order_release);
}

/*
 * Called every SPINS_BETWEEN_CHECKS failed looks. The value can never
 * come once the partner has returned (it ran fewer round trips) or the
 * harness asks to stop: record why, so verify fails instead of the run
 * hanging.
 */
static bool must_give_up(struct pingpong_state *s, unsigned int thread,
			 unsigned long want)
{
	if (!kernel_should_stop() &&
	    !atomic_load_explicit(&s->side[!thread].done, memory_order_acquire))
		return false;
	/* The partner's last store comes before its done flag: look again. */
	if (atomic_load_explicit(&s->seq, memory_order_acquire) == want)
		return false;
	s->side[thread].gave_up = true;
	s->side[thread].waited_for = want;
	return true;
}

/*
 * while (READ_ONCE(line->seq) != mine) ; smp_store_release(&line->seq,
 * mine + 1): the waiter's load misses and fetches the line, its store
 * takes it exclusive again.
 */
static void store_load(void *state, unsigned int thread, uint64_t nr_ops)
{
	struct pingpong_state *s = state;

	for (uint64_t i = 0; i < nr_ops; i++) {
		unsigned long mine = 2 * (unsigned long)i + thread;
		unsigned int spins = 0;

		while (atomic_load_explicit(&s->seq, memory_order_acquire) != mine) {
			if (++spins < SPINS_BETWEEN_CHECKS)
				continue;
			spins = 0;
			if (must_give_up(s, thread, mine))
				goto out;
		}
		atomic_store_explicit(&s->seq, mine + 1, memory_order_release);
	}
out:
	finish(s, thread);
}

/*
 * while (cmpxchg(&line->seq, mine, mine + 1) != mine) ;: every failed
 * attempt is a locked RMW too, so the waiter also takes the line
 * exclusive while it waits.
 */
static void cas(void *state, unsigned int thread, uint64_t nr_ops)
{
	struct pingpong_state *s = state;

	for (uint64_t i = 0; i < nr_ops; i++) {
		unsigned long mine = 2 * (unsigned long)i + thread;
		unsigned int spins = 0;
		unsigned long expected = mine;

		while (!atomic_compare_exchange_strong_explicit(&s->seq, &expected,
								mine + 1,
								memory_order_acq_rel,
								memory_order_acquire)) {
			expected = mine;
			if (++spins < SPINS_BETWEEN_CHECKS)
				continue;
			spins = 0;
			if (must_give_up(s, thread, mine))
				goto out;
		}
	}
out:
	finish(s, thread);
}

static const struct kernel_variant pingpong_variants[] = {
	{
		.name = "store_load",
		.models = "wait with a load, hand over with a store: the cheapest handoff of a line",
		.run = store_load,
	},
	{
		.name = "cas",
		.models = "wait and hand over with one cmpxchg, as lock and flag handoffs do",
		.run = cas,
	},
};

static void *pingpong_create(const struct kernel_config *cfg, char *err,
			     size_t errlen)
{
	struct pingpong_state *s;

	if (cfg->nr_threads != 2) {
		snprintf(err, errlen, "pingpong: %u threads, expected exactly 2",
			 cfg->nr_threads);
		return NULL;
	}
	s = kernel_alloc_shared(sizeof(*s));
	if (!s)
		snprintf(err, errlen, "pingpong: out of memory");
	return s;
}

static int pingpong_verify(void *state, const struct kernel_config *cfg,
			   const uint64_t *ops, struct kernel_metrics *metrics,
			   char *msg, size_t msglen)
{
	struct pingpong_state *s = state;
	unsigned long seq = atomic_load(&s->seq);

	(void)cfg;
	(void)metrics;
	for (unsigned int t = 0; t < 2; t++) {
		if (s->side[t].gave_up) {
			snprintf(msg, msglen,
				 "thread %u gave up waiting for sequence number %lu: its partner stopped at %lu",
				 t, s->side[t].waited_for, seq);
			return -1;
		}
	}
	if (ops[0] != ops[1]) {
		snprintf(msg, msglen,
			 "the threads ran %llu and %llu round trips: both sides of a ping-pong run the same number",
			 (unsigned long long)ops[0], (unsigned long long)ops[1]);
		return -1;
	}
	if (seq != ops[0] + ops[1]) {
		snprintf(msg, msglen,
			 "the sequence number is %lu after %llu round trips, expected %llu",
			 seq, (unsigned long long)ops[0],
			 (unsigned long long)(ops[0] + ops[1]));
		return -1;
	}
	return 0;
}

static void pingpong_destroy(void *state)
{
	kernel_free_shared(state);
}

/*
 * The cache hit is the same run's: one thread incrementing a counter on a
 * line of its own. One-way 56-76 ns on an Intel Xeon guest, 31-440 ns on
 * a Zen 3 one, against about 1 ns for the hit.
 */
static const struct kernel_claim pingpong_claims[] = {
	{
		.text = "handing a line between two cores costs far more than a cache hit",
		.a = "store_load", .metric = "one_way_ns",
		.b = "counter/percpu_padded", .b_metric = CLAIM_NS_PER_OP,
		.b_threads = CLAIM_B_ONE_THREAD,
		.threads = CLAIM_MOST_THREADS,
		.relation = CLAIM_AT_LEAST, .x = 10,
	},
};

/*
 * Access profile (model/): one round trip. Each thread waits for the
 * other's store, so the line moves twice per round trip whatever the
 * model's queue says: pingpong is the model's input, not its output.
 */
static void pingpong_access(const struct kernel_config *cfg,
			    struct access_profile *p)
{
	struct line_access *l = access_add_line(p, "the ping-pong line", LINE_SHARED_BY_ALL, 0);

	l->reads = 1;
	if (cfg->variant == 0)
		l->stores = 1;
	else
		l->cas = 1;
	p->fenced = true;
}

const struct kernel_family pingpong_family = {
	.name = "pingpong",
	.title = "The physical floor: one cache line bounced between two CPUs",
	.reading_order = 3,
	.lesson = LESSON,
	.lesson_line = LESSON_LINE,
	.claims = pingpong_claims,
	.nr_claims = sizeof(pingpong_claims) / sizeof(pingpong_claims[0]),
	.exercise_question = LESSON_EXERCISE_QUESTION,
	.exercise_command = LESSON_EXERCISE_COMMAND,
	.exercise_reading = LESSON_EXERCISE_READING,
	.source = LESSON_SOURCE,
	.before = LESSON_BEFORE,
	.after = LESSON_AFTER,
	.variants = pingpong_variants,
	.nr_variants = sizeof(pingpong_variants) / sizeof(pingpong_variants[0]),
	.spins = true,
	.min_threads = 2,
	.max_threads = 2,
	.ns_per_op_metric = "one_way_ns",
	.ns_per_op_divisor = 2,
	.create = pingpong_create,
	.verify = pingpong_verify,
	.destroy = pingpong_destroy,
	.access = pingpong_access,
};
KERNEL_FAMILY_REGISTER(pingpong_family);
