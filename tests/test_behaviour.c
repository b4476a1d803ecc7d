// SPDX-License-Identifier: GPL-2.0-only
/*
 * Each variant does what its name says, seen from its memory writes: the
 * families here are built with every atomic write hooked
 * (tests/instrumented/), and the threads run one after the other on the
 * main thread, so every count is exact.
 *
 * - has_pinned: a store_always or set_bit variant writes the flag on every
 *   call; read_then_set and test_then_set_bit write it once per mm that is
 *   fresh to them; test_and_set_bit writes on every call, set or not.
 * - false_sharing and counter: each thread writes one address, as far from
 *   the next thread's as the variant's name says.
 * - lost_updates and retries_per_success against a scripted interleaving:
 *   "another CPU" (thread 1) completes an update between thread 0's load
 *   and its store or compare-exchange, a counted number of times. Each one
 *   is exactly one lost update (a plain store erases it) or one retry (the
 *   compare-exchange fails once), so the metrics have exact expected values
 *   that do not come from the code under test.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kernel.h"
/* the hook's kinds, without its macros: this file's atomics are real */
#define HOOKED_ATOMICS_DEFINITIONS
#include "instrumented/atomics.h"

extern const struct kernel_family has_pinned_family;
extern const struct kernel_family false_sharing_family;
extern const struct kernel_family counter_family;
extern const struct kernel_family last_nidpid_family;

/* ---- the hook: what the test sees of every atomic write ----------------- */

#define MAX_ADDRESSES 8

static struct {
	unsigned int thread;		/* the thread whose variant is running */
	uint64_t writes;		/* stores of non-zero values, and every RMW */
	uint64_t by_kind[NR_ATOMIC_WRITES];	/* every hooked write, by kind */
	/* distinct addresses each thread wrote */
	uintptr_t address[2][MAX_ADDRESSES];
	unsigned int nr_addresses[2];
	/* the scripted interleaving */
	const struct kernel_family *family;
	unsigned int variant;
	void *state;
	enum atomic_write interfere_on;
	size_t interfere_size;
	unsigned int interfere_every;
	uint64_t seen;			/* thread 0's hooked operations so far */
	uint64_t interferences;
	bool interfering;
} hook;

static void note_address(unsigned int thread, void *ptr)
{
	uintptr_t a = (uintptr_t)ptr;

	for (unsigned int i = 0; i < hook.nr_addresses[thread]; i++)
		if (hook.address[thread][i] == a)
			return;
	if (hook.nr_addresses[thread] < MAX_ADDRESSES)
		hook.address[thread][hook.nr_addresses[thread]++] = a;
}

void atomic_hook(enum atomic_write kind, void *ptr, size_t size,
		 unsigned long value)
{
	/*
	 * Writes by a running variant; create's atomic_init() and retiring a
	 * fresh mm (which clears its flag) are not writes of the flag.
	 */
	hook.by_kind[kind]++;
	if (hook.thread < 2 && (kind != ATOMIC_STORE || value != 0))
		hook.writes++;
	if (hook.thread < 2)
		note_address(hook.thread, ptr);
	if (!hook.family || hook.interfering || hook.thread != 0 ||
	    kind != hook.interfere_on || size != hook.interfere_size)
		return;
	/* Thread 1 completes one whole update here, before thread 0's write. */
	if (hook.seen++ % hook.interfere_every == 0) {
		hook.interfering = true;
		hook.thread = 1;
		hook.family->variants[hook.variant].run(hook.state, 1, 1);
		hook.thread = 0;
		hook.interfering = false;
		hook.interferences++;
	}
}

/* No thread runs: writes by create (atomic_init) belong to nobody. */
static void hook_reset(void)
{
	memset(&hook, 0, sizeof(hook));
	hook.thread = 2;
}

/* ---- helpers ------------------------------------------------------------ */

static int variant_index(const struct kernel_family *f, const char *name)
{
	for (unsigned int v = 0; v < f->nr_variants; v++)
		if (!strcmp(f->variants[v].name, name))
			return (int)v;
	fail_msg("%s has no variant %s", f->name, name);
	return -1;
}

static void set_param(const struct kernel_family *f, struct kernel_config *cfg,
		      const char *name, long value)
{
	int p = kernel_param_index(f, name);

	assert_true(p >= 0);
	cfg->param[p] = value;
}

static double metric(const struct kernel_metrics *m, const char *name)
{
	for (unsigned int i = 0; i < m->nr; i++)
		if (!strcmp(m->m[i].name, name))
			return m->m[i].value;
	fail_msg("no metric %s", name);
	return -1;
}

/* Runs thread 0, then thread 1, n operations each; returns verify's result. */
static int run_in_turn(const struct kernel_family *f, struct kernel_config *cfg,
		       uint64_t n, struct kernel_metrics *metrics)
{
	uint64_t ops[2] = { n, n };
	char err[256], msg[256];
	void *state = f->create(cfg, err, sizeof(err));
	int ret;

	assert_non_null(state);
	for (unsigned int t = 0; t < cfg->nr_threads; t++) {
		hook.thread = t;
		f->variants[cfg->variant].run(state, t, n);
	}
	hook.thread = 2;
	memset(metrics, 0, sizeof(*metrics));
	ret = f->verify(state, cfg, ops, metrics, msg, sizeof(msg));
	if (ret)
		print_error("%s/%s: %s\n", f->name, f->variants[cfg->variant].name, msg);
	f->destroy(state);
	return ret;
}

/* ---- has_pinned: who writes the flag ------------------------------------ */

/* A multiple of the pattern (4096 calls), so shares of it are exact. */
#define CALLS 4096

static void flag_writes_are_what_each_variant_says(void **unused)
{
	const struct kernel_family *f = &has_pinned_family;
	static const long already_set[] = { 100, 75, 50, 0 };
	struct kernel_metrics metrics;
	struct kernel_config cfg;

	(void)unused;
	for (size_t k = 0; k < sizeof(already_set) / sizeof(already_set[0]); k++) {
		for (long line = 0; line <= 1; line++) {
			/* calls that pin an mm for the first time, per thread */
			uint64_t fresh = CALLS * (uint64_t)(100 - already_set[k]) / 100;
			uint64_t shared_pins = already_set[k] ? 1 : 0;
			struct {
				const char *name;
				uint64_t writes;
			} want[] = {
				{ "store_always", 2 * CALLS },
				{ "set_bit_always", 2 * CALLS },
				{ "test_and_set_bit", 2 * CALLS },
				{ "read_then_set", shared_pins + 2 * fresh },
				{ "test_then_set_bit", shared_pins + 2 * fresh },
				{ "no_flag", 0 },
				{ "nop", 0 },
			};

			/* A new variant must say here what it writes. */
			assert_int_equal(f->nr_variants, sizeof(want) / sizeof(want[0]));
			for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
				kernel_config_defaults(f, &cfg);
				cfg.variant = (unsigned int)variant_index(f, want[i].name);
				cfg.nr_threads = 2;
				/* No page pins: the flag's writes are the only ones. */
				set_param(f, &cfg, "pin_work", 0);
				set_param(f, &cfg, "flag_line", line);
				set_param(f, &cfg, "already_set", already_set[k]);
				hook_reset();
				assert_int_equal(run_in_turn(f, &cfg, CALLS, &metrics), 0);
				if (hook.writes != want[i].writes)
					fail_msg("has_pinned/%s, already_set=%ld, flag_line=%ld: %llu writes of the flag in 2 x %d calls, expected %llu",
						 want[i].name, already_set[k], line,
						 (unsigned long long)hook.writes, CALLS,
						 (unsigned long long)want[i].writes);
			}
		}
	}
}

/*
 * Calls that never set the flag must fail verify: no_flag's calls (the
 * same seqcount reads and pins, no flag) judged as a flag variant's.
 */
static void verify_fails_when_the_flag_was_never_set(void **unused)
{
	const struct kernel_family *f = &has_pinned_family;
	const char *const names[] = { "store_always", "read_then_set", "set_bit_always",
				      "test_then_set_bit", "test_and_set_bit" };
	unsigned int no_flag = (unsigned int)variant_index(f, "no_flag");
	struct kernel_metrics metrics = { 0 };
	struct kernel_config cfg;
	uint64_t ops[1] = { 100 };
	char err[256], msg[256] = "";

	(void)unused;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		void *state;

		kernel_config_defaults(f, &cfg);
		cfg.variant = (unsigned int)variant_index(f, names[i]);
		cfg.nr_threads = 1;
		state = f->create(&cfg, err, sizeof(err));
		assert_non_null(state);
		f->variants[no_flag].run(state, 0, ops[0]);
		if (f->verify(state, &cfg, ops, &metrics, msg, sizeof(msg)) == 0)
			fail_msg("has_pinned/%s: verify passed 100 calls that never set the flag",
				 names[i]);
		f->destroy(state);
	}
}

/* ---- addresses: how far apart the threads' variables are --------------- */

static void writes_one_address_each(const struct kernel_family *f,
				    const char *variant, long update,
				    uintptr_t want_distance)
{
	struct kernel_metrics metrics;
	struct kernel_config cfg;
	uintptr_t a, b;

	kernel_config_defaults(f, &cfg);
	cfg.variant = (unsigned int)variant_index(f, variant);
	cfg.nr_threads = 2;
	if (update >= 0)
		set_param(f, &cfg, "update", update);
	hook_reset();
	assert_int_equal(run_in_turn(f, &cfg, 10, &metrics), 0);
	if (hook.nr_addresses[0] != 1 || hook.nr_addresses[1] != 1)
		fail_msg("%s/%s: threads wrote %u and %u addresses, expected one each",
			 f->name, variant, hook.nr_addresses[0], hook.nr_addresses[1]);
	a = hook.address[0][0];
	b = hook.address[1][0];
	if (b - a != want_distance)
		fail_msg("%s/%s: thread 1's variable is %lld bytes from thread 0's, expected %llu",
			 f->name, variant, (long long)(b - a),
			 (unsigned long long)want_distance);
	/* Each on a boundary of its own size: no line or pair is split. */
	assert_int_equal(a % want_distance, 0);
}

static void variables_are_as_far_apart_as_the_names_say(void **unused)
{
	(void)unused;
	for (long update = 0; update <= 1; update++) {
		writes_one_address_each(&false_sharing_family, "same_line", update, 8);
		writes_one_address_each(&false_sharing_family, "adjacent_lines", update, 64);
		writes_one_address_each(&false_sharing_family, "padded_128", update, 128);
		writes_one_address_each(&false_sharing_family, "separate_pages", update, 4096);
	}
	writes_one_address_each(&counter_family, "percpu_padded", -1, 128);
	writes_one_address_each(&counter_family, "percpu_packed", -1, 8);
}

/* ---- metrics against a scripted interleaving ---------------------------- */

#define SCRIPTED_OPS 300

/*
 * Thread 0 runs SCRIPTED_OPS operations; before every `every`-th of its
 * hooked writes of `size` bytes, thread 1 completes one update. Returns
 * the metrics of a run that verifies.
 */
static void run_scripted(const struct kernel_family *f, const char *variant,
			 enum atomic_write on, size_t size, unsigned int every,
			 struct kernel_metrics *metrics)
{
	struct kernel_config cfg;
	char err[256], msg[256] = "";
	uint64_t ops[2];

	kernel_config_defaults(f, &cfg);
	cfg.variant = (unsigned int)variant_index(f, variant);
	cfg.nr_threads = 2;
	hook_reset();
	hook.family = f;
	hook.variant = cfg.variant;
	hook.interfere_on = on;
	hook.interfere_size = size;
	hook.interfere_every = every;
	hook.state = f->create(&cfg, err, sizeof(err));
	assert_non_null(hook.state);
	hook.thread = 0;
	f->variants[cfg.variant].run(hook.state, 0, SCRIPTED_OPS);
	hook.thread = 2;
	ops[0] = SCRIPTED_OPS;
	ops[1] = hook.interferences;
	assert_true(hook.interferences > 10);
	memset(metrics, 0, sizeof(*metrics));
	if (f->verify(hook.state, &cfg, ops, metrics, msg, sizeof(msg)))
		fail_msg("%s/%s with a scripted interleaving: %s", f->name, variant, msg);
	f->destroy(hook.state);
	hook.family = NULL;
}

static void close_to(double got, double want, const char *what)
{
	if (!(got >= want - 1e-9 * (1 + want) && got <= want + 1e-9 * (1 + want)))
		fail_msg("%s is %.9g, expected %.9g", what, got, want);
}

static void lost_updates_are_the_erased_updates(void **unused)
{
	struct kernel_metrics m;
	uint64_t lost;

	(void)unused;
	/* mm->counter++: thread 1's increment lands between load and store. */
	run_scripted(&counter_family, "shared_plain", ATOMIC_STORE,
		     sizeof(unsigned long), 4, &m);
	lost = hook.interferences;
	close_to(metric(&m, "lost_updates"), (double)lost, "counter lost_updates");
	close_to(metric(&m, "lost_fraction"), (double)lost / (double)(SCRIPTED_OPS + lost),
		 "counter lost_fraction");
	/* page->flags rewritten from a stale read. */
	run_scripted(&last_nidpid_family, "plain_store", ATOMIC_STORE,
		     sizeof(unsigned long), 3, &m);
	lost = hook.interferences;
	close_to(metric(&m, "lost_updates"), (double)lost, "last_nidpid lost_updates");
	close_to(metric(&m, "lost_fraction"), (double)lost / (double)(SCRIPTED_OPS + lost),
		 "last_nidpid lost_fraction");
}

static void retries_are_the_failed_compare_exchanges(void **unused)
{
	struct kernel_metrics m;
	uint64_t retries;

	(void)unused;
	/*
	 * Each interference changes the word between thread 0's read and its
	 * cmpxchg: that attempt fails and the next one (not interfered with,
	 * as every third attempt is) succeeds. One retry each.
	 */
	run_scripted(&last_nidpid_family, "cmpxchg_loop", ATOMIC_CAS,
		     sizeof(unsigned long), 3, &m);
	retries = hook.interferences;
	close_to(metric(&m, "retries_per_success"),
		 (double)retries / (double)(SCRIPTED_OPS + retries),
		 "retries_per_success");
}

/*
 * readers: "percentage of threads that only read the field, rounded down":
 * of 3 threads at 50%, one reads (thread 2) and threads 0 and 1 write.
 */
static void readers_are_rounded_down(void **unused)
{
	const struct kernel_family *f = &last_nidpid_family;
	struct kernel_metrics metrics = { 0 };
	struct kernel_config cfg;
	uint64_t ops[3] = { 10, 10, 10 };
	char err[256], msg[256] = "";
	void *state;

	(void)unused;
	kernel_config_defaults(f, &cfg);
	cfg.variant = (unsigned int)variant_index(f, "cmpxchg_loop");
	cfg.nr_threads = 3;
	set_param(f, &cfg, "readers", 50);
	hook_reset();
	state = f->create(&cfg, err, sizeof(err));
	assert_non_null(state);
	for (unsigned int t = 0; t < 3; t++) {
		hook.thread = t;
		f->variants[cfg.variant].run(state, t, ops[t]);
	}
	hook.thread = 2;
	if (hook.nr_addresses[0] == 0 || hook.nr_addresses[1] == 0)
		fail_msg("3 threads, readers=50: threads 0 and 1 must write (one reader, rounded down)");
	if (f->verify(state, &cfg, ops, &metrics, msg, sizeof(msg)))
		fail_msg("last_nidpid, 3 threads, readers=50: %s", msg);
	f->destroy(state);
}

extern atomic_long every_write_explicit;
extern atomic_uint every_write_plain;
void every_atomic_write(void);

/*
 * Each write of <stdatomic.h>, in both spellings, reaches the hook: counted
 * by hand from tests/instrumented/every_write.c. An operation atomics.h
 * does not route (atomic_fetch_sub_explicit went unseen before) leaves
 * its kind short; one routed to the wrong kind moves a count.
 */
static void every_atomic_write_is_seen(void **unused)
{
	static const struct {
		enum atomic_write kind;
		const char *spelled;
		uint64_t count;
	} expected[] = {
		{ ATOMIC_STORE, "atomic_store, atomic_flag_clear (+_explicit)", 4 },
		{ ATOMIC_EXCHANGE, "atomic_exchange, atomic_flag_test_and_set (+_explicit)", 4 },
		{ ATOMIC_CAS, "atomic_compare_exchange_strong and _weak (+_explicit)", 4 },
		{ ATOMIC_FETCH_ADD, "atomic_fetch_add (+_explicit)", 2 },
		{ ATOMIC_FETCH_SUB, "atomic_fetch_sub (+_explicit)", 2 },
		{ ATOMIC_FETCH_OR, "atomic_fetch_or (+_explicit)", 2 },
		{ ATOMIC_FETCH_AND, "atomic_fetch_and (+_explicit)", 2 },
		{ ATOMIC_FETCH_XOR, "atomic_fetch_xor (+_explicit)", 2 },
	};
	_Static_assert(sizeof(expected) / sizeof(expected[0]) == NR_ATOMIC_WRITES,
		       "an expected count for every kind of write");

	(void)unused;
	hook_reset();
	every_atomic_write();
	for (unsigned int i = 0; i < NR_ATOMIC_WRITES; i++)
		if (hook.by_kind[expected[i].kind] != expected[i].count)
			fail_msg("the hook saw %llu writes of kind %d, expected %llu: "
				 "%s not routed in tests/instrumented/atomics.h",
				 (unsigned long long)hook.by_kind[expected[i].kind],
				 expected[i].kind, (unsigned long long)expected[i].count,
				 expected[i].spelled);
	/* the real operations ran too: 5, 7, 9, 11, +4, -3, |1, &6, ^5 is 1 */
	assert_int_equal(atomic_load(&every_write_explicit), 1);
	assert_int_equal(atomic_load(&every_write_plain), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(flag_writes_are_what_each_variant_says),
		cmocka_unit_test(verify_fails_when_the_flag_was_never_set),
		cmocka_unit_test(variables_are_as_far_apart_as_the_names_say),
		cmocka_unit_test(lost_updates_are_the_erased_updates),
		cmocka_unit_test(retries_are_the_failed_compare_exchanges),
		cmocka_unit_test(readers_are_rounded_down),
		cmocka_unit_test(every_atomic_write_is_seen),
	};

	hook_reset();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
