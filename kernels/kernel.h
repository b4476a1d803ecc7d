/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The kernel contract: what a family of contention kernels provides.
 *
 * A family models one pattern argued about in a Linux patch. Its variants
 * are the competing ways of writing the same operation; each one runs
 * nr_ops operations for one thread on state shared by all threads. The
 * harness creates the state once per run, starts the threads, times them,
 * then asks the family to verify the state: a run whose check fails is an
 * error, never a number.
 *
 * Kernels know nothing of Google Benchmark, hwloc or libpfm4.
 */
#ifndef BOUNCELAB_KERNEL_H
#define BOUNCELAB_KERNEL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Per-thread data is padded to 128 bytes, not 64: the adjacent-line
 * prefetcher fetches cache lines in pairs, so two threads' words 64 bytes
 * apart still bounce (will-it-scale pads to 128 for the same reason).
 */
#define CACHE_PAD 128

#define KERNEL_MAX_PARAMS 8
#define KERNEL_MAX_METRICS 16
#define KERNEL_MAX_THREADS 1024

/*
 * An integer parameter. Enumerated parameters list their names in
 * choices (NULL-terminated): the value is then the index of the name.
 * Fractions are whole percentages.
 */
struct kernel_param {
	const char *name;
	const char *help;
	long def;
	long min;
	long max;
	const char *const *choices;
	/* values the default suite sweeps, e.g. "0,1"; NULL: the default only */
	const char *suite;
	/*
	 * Away from its default the value splits the threads into roles
	 * (e.g. readers and writers): each thread count then runs a
	 * different mix of work, and the report shows no scaling across
	 * thread counts for it.
	 */
	bool splits_roles;
};

struct kernel_config {
	unsigned int variant;		/* index into the family's variants */
	unsigned int nr_threads;
	long param[KERNEL_MAX_PARAMS];	/* in the order of the family's params */
};

/*
 * The instructions a variant's lesson names, declared beside it. A
 * compiler (or an edit) that hoists, merges or drops the operation keeps
 * verify happy but makes the lesson false; tests/check_disasm.py reads
 * these declarations from the catalogue and finds each one in the
 * compiled loop (x86-64). The classes, as x86-64 spells them:
 */
enum insn_class {
	INSN_END,		/* ends the list */
	INSN_STORE_ONE,		/* movl $0x1 to memory: atomic_set(.., 1) */
	INSN_PLAIN_STORE,	/* an unlocked store of a register: WRITE_ONCE() */
	INSN_PLAIN_INC,		/* a load and an unlocked store of one operand: x++ */
	INSN_LOCK_ADD,		/* lock add/inc/xadd: atomic_inc(), page_ref_add() */
	INSN_LOCK_SUB,		/* a locked decrement: put_page() */
	INSN_LOCK_LONG_ADD,	/* lock add of a 64-bit register: atomic_long_add() */
	INSN_LOCK_OR,		/* lock or: set_bit() */
	INSN_LOCK_BTS,		/* lock bts: test_and_set_bit() using the old bit */
	INSN_CMPXCHG,		/* lock cmpxchg: cmpxchg(), add-unless-zero */
	INSN_XCHG,		/* xchg: implicitly locked */
	INSN_LOCKED,		/* any of the locked ones above */
	INSN_SEQ_PAIR,		/* two 32-bit loads of one operand: a seqcount read and retry */
	/* the flag's store of 1, then a load, a lock add, the same load again */
	INSN_STORE_SEQ_PIN_SEQ,
	INSN_CALL,		/* a call to the function named in callee */
	NR_INSN_CLASSES
};

enum insn_where {
	INSN_IN_LOOP,		/* present inside a loop of the variant */
	INSN_ANYWHERE,		/* present, in or out of a loop */
	INSN_NOT_IN_LOOP,	/* absent from its loops */
	INSN_NOWHERE,		/* absent altogether */
};

struct insn_rule {
	enum insn_class insn;
	enum insn_where where;
	/* the lesson's words for it: "atomic_set(&mm->has_pinned, 1) per call" */
	const char *what;
	/*
	 * The function to look in, with the functions it calls; NULL: the
	 * variant's run function. Needed where the work lives in a model
	 * shared by variants (gup's pin_user_pages_fast).
	 */
	const char *function;
	const char *callee;	/* INSN_CALL: the function called */
};

/* The usual two: present in the timed loop, absent from it. */
#define INSN_HAS(insn, what)	{ (insn), INSN_IN_LOOP, (what), NULL, NULL }
#define INSN_LACKS(insn, what)	{ (insn), INSN_NOT_IN_LOOP, (what), NULL, NULL }

#define KERNEL_MAX_INSNS 10

struct kernel_variant {
	const char *name;
	/* the line of the patch this variant stands for */
	const char *models;
	void (*run)(void *state, unsigned int thread, uint64_t nr_ops);
	/*
	 * Racy on purpose (e.g. a plain increment): verify measures the
	 * damage instead of failing, and ThreadSanitizer runs skip it.
	 */
	bool deliberately_racy;
	/* A baseline (e.g. an empty loop): not a contender for "best variant". */
	bool baseline;
	/*
	 * Two threads on one line and nothing else: the case the report
	 * measures the owner's tenure share on (model_doc.md, "The tenure's
	 * share"), at each kind of update its parameters give.
	 */
	bool tenure_probe;
	/*
	 * The instructions its lesson names and the ones it must not hold,
	 * ended by INSN_END; every variant declares at least one.
	 */
	struct insn_rule instructions[KERNEL_MAX_INSNS];
	/*
	 * What the family's verify checks of this variant's work, so that a
	 * run that skipped it fails ("each thread's slot equal to its
	 * updates"). NULL only for a variant that declares no work.
	 */
	const char *verify_sees;
};

/* Results of a run beyond its operation count, e.g. retries per success. */
struct kernel_metrics {
	unsigned int nr;
	struct {
		const char *name;	/* a static string: becomes a counter name */
		double value;
	} m[KERNEL_MAX_METRICS];
};

/*
 * A lesson's claim: one expectation a run can check, and the condition
 * under which it should hold. The report (report/claims.c) marks each one
 * seen, not seen (with the numbers) or not testable here (with the
 * reason). ratio is metric(a) / metric(b), medians, with a bootstrap CI.
 */
enum claim_relation {
	/*
	 * a/b >= x: the median ratio is at least x, and a is slower than b
	 * by the report's one rule (CI above 1 and U test p < 0.05).
	 */
	CLAIM_AT_LEAST,
	/* within a factor x: the whole CI of a/b lies in [1/x, x] */
	CLAIM_WITHIN,
	/*
	 * a's metric itself is below (above) x: the upper (lower) end of its
	 * median's CI. Only for a count, such as lost_fraction > 0: a bound
	 * on a time would hold on one CPU and fail on the next.
	 */
	CLAIM_BELOW,
	CLAIM_ABOVE,
	/*
	 * a/b <= x: the upper end of the ratio's CI is at most x (a gain
	 * that shrinks, e.g. reading first when the flag is always clear)
	 */
	CLAIM_AT_MOST,
};

enum claim_threads {
	CLAIM_ONE_THREAD,
	/* the most threads measured, at least 2, on distinct cores */
	CLAIM_MOST_THREADS,
};

enum claim_arch {
	CLAIM_ANY_ARCH,
	/* relies on x86: its TSO store buffer, or its lock prefix owning the line */
	CLAIM_X86,
};

/*
 * Where the claim's b is measured. A claim's bound is stated against
 * physics the same run measures: b is another variant of the family at
 * the same thread count, or a case of another family of the same run
 * (b = "FAMILY/VARIANT", at that family's default setting), such as the
 * pingpong's one-way transfer or a 1-thread cache hit. Rounds pair the
 * two as they pair any two cases of one run.
 */
enum claim_b_threads {
	CLAIM_B_SAME_THREADS,	/* at the thread count a is checked at */
	CLAIM_B_ONE_THREAD,	/* b's 1-thread case: the cost with no sharing */
	CLAIM_B_MOST_THREADS,	/* b's own most threads (a pingpong runs at 2) */
};

/* The metric name that means ns per operation, for b_metric. */
#define CLAIM_NS_PER_OP "ns/op"

struct kernel_claim {
	/* the expectation in words, e.g. "a locked update pays the transfer" */
	const char *text;
	/* a: a variant name; b: one, or "FAMILY/VARIANT"; b unused for BELOW and ABOVE */
	const char *a, *b;
	/* NULL: ns per op; else a counter of the row (retries_per_success) */
	const char *metric;
	/* b's metric: NULL, the same as a's; CLAIM_NS_PER_OP, ns per op */
	const char *b_metric;
	enum claim_b_threads b_threads;
	/*
	 * Parameter values, "update=locked,pin_work=0"; the parameters not
	 * named are at their defaults. NULL: every parameter at its default.
	 */
	const char *setting;
	enum claim_threads threads;
	enum claim_arch arch;
	enum claim_relation relation;
	double x;
};

/*
 * The access profile of one operation: what it does to cache lines that
 * other threads may also touch, for the contention model (model/). Counts
 * are per operation and averaged: a locked add done once every 32
 * operations counts 1/32. Lines only the thread itself touches are its
 * private work, which the model takes from the 1-thread run.
 */
enum line_sharing {
	LINE_SHARED_BY_ALL,	/* every thread uses this line (or a thread's share of them) */
	LINE_SHARED_BY_GROUP,	/* group_size threads' own data in one line: false sharing */
};

struct line_access {
	const char *line;		/* "the flag line": a static string */
	enum line_sharing shared_by;
	unsigned int group_size;	/* LINE_SHARED_BY_GROUP: threads per line */
	double reads;			/* loads */
	double stores;			/* plain stores */
	double locked;			/* locked RMWs: lock add, xchg, lock or */
	double cas;			/* cmpxchg in a retry loop: attempts when alone */
};

#define ACCESS_MAX_LINES 6

struct access_profile {
	unsigned int nr_lines;
	struct line_access lines[ACCESS_MAX_LINES];
	/*
	 * Lines another CPU wrote last but that are seldom fought over (a
	 * fresh mm, a page the previous pinner held): one transfer each,
	 * paid as latency, without queueing.
	 */
	double cold_transfers;
	/* locked RMWs on the thread's own lines: they drain the store buffer */
	double private_locked;
	/* a full fence in the operation (it drains the store buffer too) */
	bool fenced;
	/*
	 * Threads of two kinds (readers and writers): the profile is their
	 * mean, and a 1-thread run measures only the kind the first thread
	 * is, so the model's single class of customer is an approximation.
	 */
	bool mixed_kinds;
};

/*
 * A figure published in the thread of the patch a family models (the
 * seeds), kept beside the family: the report sets the run's ratio beside
 * it, the model predicts it on a profile of the seed's machine, and
 * `bouncelab gup --summary` quotes it. One table, the families', so that
 * no other file names a family or variant to find its figures.
 */
struct seed_figure {
	const char *thread;		/* the seed thread's id (report/seeds.h) */
	const struct kernel_family *family;	/* the family that models it */
	const char *before_variant;
	const char *after_variant;
	const char *source;		/* seed file, message, author, date */
	const char *benchmark;		/* the command or test */
	const char *machine;
	unsigned int threads;		/* threads the benchmark ran */
	double before, after;
	const char *unit;
	bool higher_is_better;		/* ops/s: true; time: false */
	const char *published;		/* the thread's own words, or the spread */
	/*
	 * The counter our figure must be, when the seed timed a part of the
	 * operation (gup_test's get time: "get_ns_per_page"); NULL: the
	 * whole operation, ns_per_op (pin_fast's ioctls pin and unpin). A
	 * family without that counter (has_pinned has no put) uses ns_per_op.
	 */
	const char *quantity;
	/*
	 * Parameter values that make our setting match the seed's benchmark,
	 * as a setting names them ("mode=private"); NULL-terminated. The
	 * report compares with the first table whose setting has them all,
	 * and with no other: a run without that setting has no figure to set
	 * beside the seed's. NULL: the family's defaults.
	 */
	const char *const *setting;
	/*
	 * The shipped machine profile (model/profiles/) that stands for the
	 * seed's machine, for the model's prediction at its CPU count; NULL:
	 * none, not predicted.
	 */
	const char *profile;
	/*
	 * Pages one unit of the figure covers, for the seed's own ns per page
	 * per thread (seed_ns_per_page()): a time (us) is one thread's whole
	 * run over that many pages; a rate (ops/s, all threads) counts
	 * operations of that many pages each. 0: not per page.
	 */
	double pages_per_unit;
	bool headline;		/* the lab's headline figure (46.6x) */
};

struct kernel_family {
	const char *name;
	const char *title;
	/*
	 * Where the suite and the report present the family, lowest first:
	 * the lessons build on each other (the flag, the whole path it sits
	 * in, then the physical floor both are measured against). 0: after
	 * those, in the order of the names.
	 */
	unsigned int reading_order;
	/*
	 * The prose comes from kernels/lessons/NAME.md, as the macros of the
	 * generated NAME_lesson.h (kernels/lessons/README.md).
	 *
	 * One paragraph: why one variant scales and the other does not.
	 */
	const char *lesson;
	/* seed file and commit it comes from */
	const char *source;
	/* a few lines of the code pattern before and after the fix */
	const char *before;
	const char *after;
	/*
	 * The variants that run the before and after code, by name: the
	 * report states how much faster "after" is and sets it beside the
	 * seed's published figure. NULL: the family has no such pair.
	 */
	const char *before_variant;
	const char *after_variant;
	/* the seeds' published figures this family models, or none */
	const struct seed_figure *seeds;
	unsigned int nr_seeds;
	const struct kernel_param *params;
	unsigned int nr_params;
	const struct kernel_variant *variants;
	unsigned int nr_variants;
	/* threads busy-wait for each other: each needs a CPU of its own */
	bool spins;
	/* thread counts the family can run with; 0: no bound */
	unsigned int min_threads;
	unsigned int max_threads;
	/*
	 * Optional: a counter the harness derives from the time per
	 * operation, ns_per_op / ns_per_op_divisor (pingpong: one_way_ns,
	 * a round trip over 2). Kernels do not know time; the harness does.
	 */
	const char *ns_per_op_metric;
	double ns_per_op_divisor;

	/* Returns NULL and fills err on failure (e.g. out of memory). */
	void *(*create)(const struct kernel_config *cfg, char *err, size_t errlen);
	/*
	 * Checks the shared state after thread t ran ops[t] operations.
	 * Returns 0, or -1 with msg filled. May add metrics.
	 */
	int (*verify)(void *state, const struct kernel_config *cfg,
		      const uint64_t *ops, struct kernel_metrics *metrics,
		      char *msg, size_t msglen);
	void (*destroy)(void *state);

	/* What the lesson claims, checked against every run's results. */
	const struct kernel_claim *claims;
	unsigned int nr_claims;
	/*
	 * The lesson in one line, for the report's summary, and a
	 * predict-then-measure exercise (bouncelab lesson FAMILY): the
	 * question, the command to run and how to read the answer.
	 */
	const char *lesson_line;
	const char *exercise_question;
	const char *exercise_command;
	const char *exercise_reading;
	/*
	 * What one operation of cfg->variant does to shared lines with
	 * cfg->nr_threads threads (model/). NULL: the model cannot predict
	 * this family.
	 */
	void (*access)(const struct kernel_config *cfg, struct access_profile *p);
};

/*
 * Puts a family in the catalogue (kernels/catalog.c), at file scope after
 * its definition: a pointer to it in the linker section
 * bouncelab_families, so that a new family is one new file and no list
 * elsewhere names it. Kernels are linked whole (link_whole in meson), or
 * the linker would drop the file nothing else refers to. The pointer is
 * writable for the catalogue to sort the section in place.
 */
#define KERNEL_FAMILY_REGISTER(family)					\
	static const struct kernel_family *family##_entry		\
	__attribute__((used, section("bouncelab_families"))) = &family

/*
 * A stop request from the harness (watchdog, interrupt). Spin-waits check
 * it so that a descheduled or oversubscribed run cannot hang; a run that
 * stops early then fails its verify step and is reported as an error.
 */
extern atomic_bool kernel_stop_requested;

static inline bool kernel_should_stop(void)
{
	return atomic_load_explicit(&kernel_stop_requested, memory_order_relaxed);
}

/*
 * CLOCK_MONOTONIC in ns. Only for families that time parts of an
 * operation apart, as gup_test times get and put (get_ns_per_page,
 * put_ns_per_page); the harness times whole operations.
 */
uint64_t kernel_now_ns(void);

void kernel_metric_add(struct kernel_metrics *metrics, const char *name,
		       double value);

/* Appends one shared line to p; returns it for the counts to be filled. */
struct line_access *access_add_line(struct access_profile *p, const char *line,
				    enum line_sharing shared_by,
				    unsigned int group_size);

/*
 * What fills an allocation past the size asked for, up to its rounded
 * end: never zero, so that a read past an array shows.
 */
#define KERNEL_SLACK_BYTE 0xa5

/*
 * Allocates size bytes aligned to CACHE_PAD, zeroed (the slack past size
 * holds KERNEL_SLACK_BYTE). NULL on failure.
 */
void *kernel_alloc_padded(size_t size);

/*
 * Shared state: the lines every thread of a run meets on (the mm and its
 * flag, the counter line, the walker's page array). A family allocates it
 * with kernel_alloc_shared(), so that the harness can give it a home, a
 * NUMA node chosen apart from where the threads run, and ask the kernel
 * where it really landed. The kernel itself knows nothing of nodes: the
 * harness installs the allocator (kernel_set_shared_allocator()). The
 * memory is zeroed and page-aligned, so that a page holds no one else's
 * data that would be moved with it. The slack past the size asked for,
 * up to the page, holds KERNEL_SLACK_BYTE; kernel_free_shared() checks
 * it is still there.
 */
struct kernel_shared_allocator {
	/* size bytes, page-aligned and zeroed, or NULL */
	void *(*alloc)(size_t size, void *arg);
	void (*free)(void *p, size_t size, void *arg);
	void *arg;
};

/* NULL: plain memory, placed by the first touch (thread 0 creates it). */
void kernel_set_shared_allocator(const struct kernel_shared_allocator *a);
void *kernel_alloc_shared(size_t size);
void kernel_free_shared(void *p);
/*
 * How many shared allocations were found, when freed, with their slack
 * written: a family that wrote past its state. kernel_run_finish() fails
 * a run whose destroy() finds one.
 */
unsigned int kernel_shared_overruns(void);

/*
 * The shared allocations since the last kernel_shared_begin(), in the
 * order the family made them: the first is the family's main line. The
 * harness calls begin before create() and reads them after it.
 */
#define KERNEL_MAX_SHARED 16
void kernel_shared_begin(void);
unsigned int kernel_shared_count(void);
void *kernel_shared_at(unsigned int i);

/* A parameter's index in its family, or -1. */
int kernel_param_index(const struct kernel_family *family, const char *name);

/* A configuration with every parameter at its default. */
void kernel_config_defaults(const struct kernel_family *family,
			    struct kernel_config *cfg);

/* The value's name for an enumerated parameter, else NULL. */
const char *kernel_param_choice(const struct kernel_param *param, long value);

/*
 * Parses one value ("64" or, for enumerated parameters, a name). Returns 0,
 * or -1 with err naming the value and what was expected.
 */
int kernel_param_parse(const struct kernel_param *param, const char *text,
		       long *value, char *err, size_t errlen);

#endif
