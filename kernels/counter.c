// SPDX-License-Identifier: GPL-2.0-only
/*
 * counter: a statistic that every thread updates, like mm->pinned_vm or
 * the mm's rss_stat.
 *
 * One shared atomic is exact and cheap to read, but every update is a
 * locked read-modify-write of the same line. Per-CPU counters make the
 * update local and move the cost to the reader, which must sum every
 * slot; the kernel's percpu_counter sits in between, folding its local
 * delta into a shared count every `batch` updates (lib/percpu_counter.c,
 * percpu_counter_add_batch()). perfbook's count_atomic vs count_stat
 * (CodeSamples/count) is the same comparison.
 *
 * One operation is one update of the statistic; every read_every
 * operations the thread also reads the total.
 */
#include <stdio.h>
#include <stdlib.h>

#include "kernel.h"
#include "counter_lesson.h"

/* A per-thread slot, 128 bytes from the next (see CACHE_PAD). */
struct counter_slot {
	_Alignas(CACHE_PAD) atomic_ulong count;
	/* the largest total this thread read: never above the final sum */
	atomic_ulong max_read;
};

struct counter_state {
	_Alignas(CACHE_PAD) atomic_ulong shared;
	unsigned int nr_threads;
	unsigned long batch;
	unsigned long read_every;
	struct counter_slot *slots;	/* percpu_padded, percpu_batched */
	atomic_ulong *packed;		/* percpu_packed: 8 bytes apart */
};

enum { PARAM_BATCH, PARAM_READ_EVERY };

static const struct kernel_param counter_params[] = {
	[PARAM_BATCH] = {
		.name = "batch",
		.help = "percpu_batched: local updates folded into the shared count at once (the kernel's percpu_counter_batch is max(32, 2 x CPUs))",
		.def = 32, .min = 1, .max = 1000000,
	},
	[PARAM_READ_EVERY] = {
		.name = "read_every",
		.help = "each thread reads the total once every this many updates; 0: never (the read-side price of per-CPU counters)",
		.def = 0, .min = 0, .max = 1000000, .suite = "0,64",
	},
};

/*
 * this_cpu_inc(): a plain increment of a word no other CPU writes. The
 * relaxed load and store compile to the same unlocked instructions as
 * `x++`, but keep the concurrent reads of other threads defined C.
 */
static inline void local_inc(atomic_ulong *v)
{
	atomic_store_explicit(v, atomic_load_explicit(v, memory_order_relaxed) + 1,
			      memory_order_relaxed);
}

static inline void note_read(struct counter_slot *slot, unsigned long total)
{
	if (total > atomic_load_explicit(&slot->max_read, memory_order_relaxed))
		atomic_store_explicit(&slot->max_read, total,
				      memory_order_relaxed);
}

/* True once every read_every operations: time for this thread to read. */
static inline bool read_due(const struct counter_state *s,
			    unsigned long *since_read)
{
	if (!s->read_every || ++*since_read < s->read_every)
		return false;
	*since_read = 0;
	return true;
}

/* atomic64_add(1, &mm->pinned_vm): one locked add on a line every CPU writes. */
static void shared_atomic(void *state, unsigned int thread, uint64_t nr_ops)
{
	struct counter_state *s = state;
	unsigned long since_read = 0;

	for (uint64_t i = 0; i < nr_ops; i++) {
		atomic_fetch_add_explicit(&s->shared, 1, memory_order_relaxed);
		if (read_due(s, &since_read))
			note_read(&s->slots[thread],
				  atomic_load_explicit(&s->shared,
						       memory_order_relaxed));
	}
}

/*
 * mm->counter++ on a plain long: load, add, store. Two CPUs that load the
 * same value both store value + 1, and one update is lost. Written with
 * relaxed atomics so that the race is in the algorithm, not undefined
 * behaviour in C; the instructions are the same unlocked ones.
 */
static void shared_plain(void *state, unsigned int thread, uint64_t nr_ops)
{
	struct counter_state *s = state;
	unsigned long since_read = 0;

	for (uint64_t i = 0; i < nr_ops; i++) {
		local_inc(&s->shared);
		if (read_due(s, &since_read))
			note_read(&s->slots[thread],
				  atomic_load_explicit(&s->shared,
						       memory_order_relaxed));
	}
}

/* percpu_counter_sum() without the batch: add up every thread's slot. */
static unsigned long sum_padded(const struct counter_state *s)
{
	unsigned long sum = 0;

	for (unsigned int t = 0; t < s->nr_threads; t++)
		sum += atomic_load_explicit(&s->slots[t].count,
					    memory_order_relaxed);
	return sum;
}

/* this_cpu_inc() on a per-CPU variable: each slot on lines of its own. */
static void percpu_padded(void *state, unsigned int thread, uint64_t nr_ops)
{
	struct counter_state *s = state;
	struct counter_slot *slot = &s->slots[thread];
	unsigned long since_read = 0;

	for (uint64_t i = 0; i < nr_ops; i++) {
		local_inc(&slot->count);
		if (read_due(s, &since_read))
			note_read(slot, sum_padded(s));
	}
}

static unsigned long sum_packed(const struct counter_state *s)
{
	unsigned long sum = 0;

	for (unsigned int t = 0; t < s->nr_threads; t++)
		sum += atomic_load_explicit(&s->packed[t], memory_order_relaxed);
	return sum;
}

/*
 * The same per-thread counters in an array of longs: up to 16 threads
 * share one 128-byte pair of lines, and every increment takes it
 * exclusive from the others (false sharing).
 */
static void percpu_packed(void *state, unsigned int thread, uint64_t nr_ops)
{
	struct counter_state *s = state;
	atomic_ulong *mine = &s->packed[thread];
	unsigned long since_read = 0;

	for (uint64_t i = 0; i < nr_ops; i++) {
		local_inc(mine);
		if (read_due(s, &since_read))
			note_read(&s->slots[thread], sum_packed(s));
	}
}

/*
 * The same two layouts with a locked add (atomic_long_inc() on the
 * thread's own slot). A locked RMW drains the store buffer and must own
 * the line before it completes, so every update of a packed slot waits
 * for the line's transfer; a plain increment lets buffered stores share
 * one transfer (false_sharing shows the same with update=locked).
 */
static void percpu_padded_locked(void *state, unsigned int thread, uint64_t nr_ops)
{
	struct counter_state *s = state;
	struct counter_slot *slot = &s->slots[thread];
	unsigned long since_read = 0;

	for (uint64_t i = 0; i < nr_ops; i++) {
		atomic_fetch_add_explicit(&slot->count, 1, memory_order_relaxed);
		if (read_due(s, &since_read))
			note_read(slot, sum_padded(s));
	}
}

static void percpu_packed_locked(void *state, unsigned int thread, uint64_t nr_ops)
{
	struct counter_state *s = state;
	atomic_ulong *mine = &s->packed[thread];
	unsigned long since_read = 0;

	for (uint64_t i = 0; i < nr_ops; i++) {
		atomic_fetch_add_explicit(mine, 1, memory_order_relaxed);
		if (read_due(s, &since_read))
			note_read(&s->slots[thread], sum_packed(s));
	}
}

/*
 * percpu_counter_add_batch(fbc, 1, batch): add to the local delta; when it
 * reaches batch, fold it into fbc->count. The kernel folds under
 * fbc->lock; one locked add on the shared line stands for that here. The
 * reader uses percpu_counter_read(): the shared count alone, cheap and
 * short by at most (batch - 1) per CPU.
 */
static void percpu_batched(void *state, unsigned int thread, uint64_t nr_ops)
{
	struct counter_state *s = state;
	struct counter_slot *slot = &s->slots[thread];
	unsigned long since_read = 0;

	for (uint64_t i = 0; i < nr_ops; i++) {
		unsigned long local = atomic_load_explicit(&slot->count,
							   memory_order_relaxed) + 1;

		if (local >= s->batch) {
			atomic_fetch_add_explicit(&s->shared, local,
						  memory_order_relaxed);
			local = 0;
		}
		atomic_store_explicit(&slot->count, local, memory_order_relaxed);
		if (read_due(s, &since_read))
			note_read(slot, atomic_load_explicit(&s->shared,
							     memory_order_relaxed));
	}
}

static const struct kernel_variant counter_variants[] = {
	{
		.name = "shared_atomic",
		.models = "atomic64_add(npages, &mm->pinned_vm): one locked add on a shared line",
		.run = shared_atomic,
	},
	{
		.name = "shared_plain",
		.models = "mm->counter++ on a shared plain long: updates get lost",
		.run = shared_plain,
		.deliberately_racy = true,
	},
	{
		.name = "percpu_padded",
		.models = "this_cpu_inc() on a per-CPU counter, summed by the reader",
		.run = percpu_padded,
	},
	{
		.name = "percpu_packed",
		.models = "per-thread counters packed in one array: false sharing",
		.run = percpu_packed,
	},
	{
		.name = "percpu_batched",
		.models = "percpu_counter_add_batch(): fold the local delta every batch updates",
		.run = percpu_batched,
	},
	{
		.name = "percpu_padded_locked",
		.models = "atomic_long_inc() on a per-CPU slot of its own: locked, but no line is shared",
		.run = percpu_padded_locked,
	},
	{
		.name = "percpu_packed_locked",
		.models = "atomic_long_inc() on per-thread slots packed in one array: false sharing, locked",
		.run = percpu_packed_locked,
	},
};

enum { VARIANT_SHARED_ATOMIC, VARIANT_SHARED_PLAIN, VARIANT_PERCPU_PADDED,
       VARIANT_PERCPU_PACKED, VARIANT_PERCPU_BATCHED,
       VARIANT_PERCPU_PADDED_LOCKED, VARIANT_PERCPU_PACKED_LOCKED };

static void counter_destroy(void *state)
{
	struct counter_state *s = state;

	if (!s)
		return;
	kernel_free_shared(s->slots);
	kernel_free_shared(s->packed);
	kernel_free_shared(s);
}

static void *counter_create(const struct kernel_config *cfg, char *err,
			    size_t errlen)
{
	struct counter_state *s = kernel_alloc_shared(sizeof(*s));

	if (s) {
		s->slots = kernel_alloc_shared(cfg->nr_threads * sizeof(*s->slots));
		s->packed = kernel_alloc_shared(cfg->nr_threads * sizeof(*s->packed));
	}
	if (!s || !s->slots || !s->packed) {
		counter_destroy(s);
		snprintf(err, errlen, "counter: out of memory for %u threads",
			 cfg->nr_threads);
		return NULL;
	}
	s->nr_threads = cfg->nr_threads;
	s->batch = (unsigned long)cfg->param[PARAM_BATCH];
	s->read_every = (unsigned long)cfg->param[PARAM_READ_EVERY];
	return s;
}

/* The shared_plain result: the updates lost, as a measurement. */
static int count_lost_updates(const struct counter_state *s, uint64_t total,
			      struct kernel_metrics *metrics, char *msg,
			      size_t msglen)
{
	unsigned long got = atomic_load(&s->shared);

	if (got > total || (s->nr_threads == 1 && got != total)) {
		snprintf(msg, msglen, "the plain counter reads %lu after %llu updates by %u thread%s",
			 got, (unsigned long long)total, s->nr_threads,
			 s->nr_threads == 1 ? "" : "s");
		return -1;
	}
	kernel_metric_add(metrics, "lost_updates", (double)(total - got));
	kernel_metric_add(metrics, "lost_fraction",
			  total ? (double)(total - got) / (double)total : 0.0);
	return 0;
}

/* What each thread's own slot must hold, and the shared count. */
static int check_slots(const struct counter_state *s,
		       const struct kernel_config *cfg, const uint64_t *ops,
		       uint64_t total, char *msg, size_t msglen)
{
	unsigned long folded = 0, local;

	for (unsigned int t = 0; t < s->nr_threads; t++) {
		switch (cfg->variant) {
		case VARIANT_PERCPU_PADDED:
		case VARIANT_PERCPU_PADDED_LOCKED:
			local = atomic_load(&s->slots[t].count);
			break;
		case VARIANT_PERCPU_PACKED:
		case VARIANT_PERCPU_PACKED_LOCKED:
			local = atomic_load(&s->packed[t]);
			break;
		case VARIANT_PERCPU_BATCHED:
			local = atomic_load(&s->slots[t].count);
			if (local >= s->batch) {
				snprintf(msg, msglen, "thread %u holds %lu unfolded updates, batch is %lu",
					 t, local, s->batch);
				return -1;
			}
			folded += local;
			continue;
		default:
			continue;
		}
		if (local != ops[t]) {
			snprintf(msg, msglen, "thread %u's counter reads %lu after %llu updates",
				 t, local, (unsigned long long)ops[t]);
			return -1;
		}
	}
	if (cfg->variant == VARIANT_PERCPU_BATCHED) {
		folded += atomic_load(&s->shared);
		if (folded != total) {
			snprintf(msg, msglen, "the batched counter sums to %lu after %llu updates",
				 folded, (unsigned long long)total);
			return -1;
		}
	}
	return 0;
}

static int counter_verify(void *state, const struct kernel_config *cfg,
			  const uint64_t *ops, struct kernel_metrics *metrics,
			  char *msg, size_t msglen)
{
	struct counter_state *s = state;
	uint64_t total = 0;

	for (unsigned int t = 0; t < s->nr_threads; t++)
		total += ops[t];
	if (cfg->variant == VARIANT_SHARED_PLAIN)
		return count_lost_updates(s, total, metrics, msg, msglen);
	if (cfg->variant == VARIANT_SHARED_ATOMIC &&
	    atomic_load(&s->shared) != total) {
		snprintf(msg, msglen, "the atomic counter reads %lu after %llu updates",
			 atomic_load(&s->shared), (unsigned long long)total);
		return -1;
	}
	if (check_slots(s, cfg, ops, total, msg, msglen))
		return -1;
	/* A reader can never have seen more than was ever added. */
	for (unsigned int t = 0; t < s->nr_threads; t++) {
		if (atomic_load(&s->slots[t].max_read) > total) {
			snprintf(msg, msglen, "thread %u read a total of %lu, above the %llu updates done",
				 t, atomic_load(&s->slots[t].max_read),
				 (unsigned long long)total);
			return -1;
		}
	}
	return 0;
}

/*
 * Each bound is against the same run: the same locked add on a line of
 * the thread's own, or the pingpong's one-way transfer. A plain packed
 * update cost 1.2 ns on a Zen 5 guest but 2 to 27 ns, with the host's
 * placement, on a Zen 3 one, where a transfer was 31 to 440 ns: what holds
 * on both is that it costs less than a transfer.
 */
static const struct kernel_claim counter_claims[] = {
	{
		.text = "a shared atomic counter serialises every update on one line",
		.a = "shared_atomic", .b = "percpu_padded_locked",
		.threads = CLAIM_MOST_THREADS,
		.relation = CLAIM_AT_LEAST, .x = 2,
	},
	{
		/* x86 only: see false_sharing's locked claim (far atomics elsewhere) */
		.text = "packed per-thread slots with locked updates pay a line transfer per update",
		.a = "percpu_packed_locked", .b = "percpu_padded_locked",
		.threads = CLAIM_MOST_THREADS, .arch = CLAIM_X86,
		.relation = CLAIM_AT_LEAST, .x = 2,
	},
	{
		.text = "packed slots with plain updates cost less than a line transfer each (store buffer)",
		.a = "percpu_packed", .b = "pingpong/store_load", .b_metric = "one_way_ns",
		.b_threads = CLAIM_B_MOST_THREADS,
		.threads = CLAIM_MOST_THREADS, .arch = CLAIM_X86,
		.relation = CLAIM_AT_MOST, .x = 1,
	},
	{
		.text = "a plain ++ on a shared counter loses updates",
		.a = "shared_plain", .metric = "lost_fraction",
		.threads = CLAIM_MOST_THREADS,
		.relation = CLAIM_ABOVE, .x = 0,
	},
};

/*
 * Access profile (model/): one update, and 1/read_every of a read. The
 * shared count is one line all threads write; per-thread slots are
 * private (padded) or 8 bytes apart, 16 to a 128-byte pair (packed). A
 * reader of per-thread slots fetches every other thread's slot line.
 */
static void counter_access(const struct kernel_config *cfg,
			   struct access_profile *p)
{
	double read = cfg->param[PARAM_READ_EVERY] ? 1.0 / cfg->param[PARAM_READ_EVERY] : 0;
	double others = cfg->nr_threads - 1.0;
	struct line_access *l;

	switch (cfg->variant) {
	case VARIANT_SHARED_ATOMIC:
	case VARIANT_SHARED_PLAIN:
		l = access_add_line(p, "shared count line", LINE_SHARED_BY_ALL, 0);
		if (cfg->variant == VARIANT_SHARED_ATOMIC)
			l->locked = 1;
		else
			l->stores = 1;
		l->reads = 1 + read;
		break;
	case VARIANT_PERCPU_PADDED:
		p->cold_transfers = read * others;
		break;
	case VARIANT_PERCPU_PACKED:
		l = access_add_line(p, "packed slots line", LINE_SHARED_BY_GROUP, 16);
		l->reads = 1;
		l->stores = 1;
		/* the reader's sum: the other lines of slots, one transfer each */
		p->cold_transfers = read * (others / 16);
		l->reads += read;
		break;
	case VARIANT_PERCPU_PADDED_LOCKED:
		p->private_locked = 1;
		/*
		 * Each read of another slot costs two misses: the reader's
		 * load, and then the owner's next locked add, which must take
		 * its line back from the reader's shared copy and waits for it
		 * (a plain store, in percpu_padded, leaves that to the store
		 * buffer).
		 */
		p->cold_transfers = 2 * read * others;
		break;
	case VARIANT_PERCPU_PACKED_LOCKED:
		/* as percpu_packed, with a locked add instead of the store */
		l = access_add_line(p, "packed slots line", LINE_SHARED_BY_GROUP, 16);
		l->reads = 1 + read;
		l->locked = 1;
		p->cold_transfers = read * (others / 16);
		break;
	case VARIANT_PERCPU_BATCHED:
		l = access_add_line(p, "shared count line", LINE_SHARED_BY_ALL, 0);
		l->locked = 1.0 / (double)cfg->param[PARAM_BATCH];
		l->reads = read;
		break;
	}
}

const struct kernel_family counter_family = {
	.name = "counter",
	.title = "A statistic every thread updates: shared atomic vs per-CPU counters",
	.reading_order = 4,
	.lesson = LESSON,
	.lesson_line = LESSON_LINE,
	.claims = counter_claims,
	.nr_claims = sizeof(counter_claims) / sizeof(counter_claims[0]),
	.exercise_question = LESSON_EXERCISE_QUESTION,
	.exercise_command = LESSON_EXERCISE_COMMAND,
	.exercise_reading = LESSON_EXERCISE_READING,
	.source = LESSON_SOURCE,
	.before = LESSON_BEFORE,
	.before_variant = "shared_atomic",
	/* locked as before: the pair differs in the line only, not the lock prefix */
	.after_variant = "percpu_padded_locked",
	.after = LESSON_AFTER,
	.params = counter_params,
	.nr_params = sizeof(counter_params) / sizeof(counter_params[0]),
	.variants = counter_variants,
	.nr_variants = sizeof(counter_variants) / sizeof(counter_variants[0]),
	.create = counter_create,
	.verify = counter_verify,
	.destroy = counter_destroy,
	.access = counter_access,
};
KERNEL_FAMILY_REGISTER(counter_family);
