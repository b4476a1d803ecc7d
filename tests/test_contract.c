// SPDX-License-Identifier: GPL-2.0-only
/*
 * The family contract (kernels/kernel.h), checked on every family of the
 * catalogue alike, so that a new family cannot pass the generic tests
 * while breaking it. Each failure names the family, the variant and what
 * to add or fix.
 *
 * - every variant declares the instructions its lesson names (the
 *   disassembly check, tests/check_disasm.py, finds them in the loop),
 *   and they agree with its access profile (the model's);
 * - the variants array is whole and indexed by name: no hole a
 *   designated initializer left, no two variants of one name;
 * - every verify sees its variant's work, as the variant's verify_sees
 *   says: a run of 0 operations reported as OPS operations fails (a get
 *   and its put that cancel, a counter nobody checks, would pass every
 *   other test);
 * - every parameter verifies at both ends of its range and its default;
 * - a write past the shared state fails the run.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "catalog.h"
#include "drive.h"

/* enough for every family's pattern to turn over at least once */
#define OPS 64
#define MAX_THREADS 2

/* The first thing wrong with v's declarations, in msg; false if none. */
static bool declaration_problem(const struct kernel_family *f,
				const struct kernel_variant *v,
				char *msg, size_t len)
{
	const struct insn_rule *r = v->instructions;

	if (r[0].insn == INSN_END) {
		snprintf(msg, len, "%s/%s declares no instructions: add .instructions = "
			 "{ INSN_HAS(INSN_..., \"what its lesson names\"), INSN_LACKS(...) } "
			 "beside it (kernel.h, enum insn_class)", f->name, v->name);
		return true;
	}
	for (unsigned int i = 0; i < KERNEL_MAX_INSNS && r[i].insn != INSN_END; i++) {
		const char *problem = NULL;

		if (r[i].insn >= NR_INSN_CLASSES)
			problem = "a class past NR_INSN_CLASSES";
		else if (r[i].where > INSN_NOWHERE)
			problem = "a where past INSN_NOWHERE";
		else if (!r[i].what || !*r[i].what)
			problem = "no words: say what the lesson names";
		else if ((r[i].insn == INSN_CALL) != (r[i].callee != NULL))
			problem = "INSN_CALL needs a callee, and only INSN_CALL has one";
		if (problem) {
			snprintf(msg, len, "%s/%s: instruction %u: %s", f->name, v->name, i,
				 problem);
			return true;
		}
	}
	return false;
}

static void every_variant_declares_its_instructions(void **unused)
{
	char msg[512];

	(void)unused;
	if (catalog_size < 2)
		fail_msg("%u families in the catalogue: link it whole (kernels_dep)", catalog_size);
	for (unsigned int i = 0; i < catalog_size; i++)
		for (unsigned int v = 0; v < catalog[i]->nr_variants; v++)
			if (declaration_problem(catalog[i], &catalog[i]->variants[v], msg,
						sizeof(msg)))
				fail_msg("%s", msg);
}

/* A copy of a variant with its declarations cleared fails, saying so. */
static void a_variant_without_declarations_fails(void **unused)
{
	const struct kernel_family *f = catalog_find("counter");
	struct kernel_variant copy;
	char msg[512] = "";

	(void)unused;
	assert_non_null(f);
	copy = f->variants[0];
	assert_false(declaration_problem(f, &copy, msg, sizeof(msg)));
	memset(copy.instructions, 0, sizeof(copy.instructions));
	assert_true(declaration_problem(f, &copy, msg, sizeof(msg)));
	assert_non_null(strstr(msg, "counter/shared_atomic declares no instructions: add"));
}

/*
 * A family indexes its variants by an enum ([VARIANT_X] = {...}): an
 * enum value without its entry leaves a hole, a zeroed variant.
 */
static void variants_are_whole_and_found_by_name(void **unused)
{
	(void)unused;
	for (unsigned int i = 0; i < catalog_size; i++) {
		const struct kernel_family *f = catalog[i];

		for (unsigned int v = 0; v < f->nr_variants; v++) {
			const struct kernel_variant *kv = &f->variants[v];

			if (!kv->name || !kv->run || !kv->models)
				fail_msg("%s: variant %u has no %s: an enum value without its "
					 "[VARIANT_...] = { .name, .models, .run } entry?", f->name, v,
					 !kv->name ? "name" : !kv->run ? "run function" : "models line");
			if (catalog_variant_index(f, kv->name) != (int)v)
				fail_msg("%s/%s: two variants of that name; rename one", f->name,
					 kv->name);
		}
	}
}

static bool declares_present(const struct kernel_variant *v, const enum insn_class *classes,
			     unsigned int nr)
{
	for (unsigned int i = 0; i < KERNEL_MAX_INSNS && v->instructions[i].insn != INSN_END; i++) {
		const struct insn_rule *r = &v->instructions[i];

		if (r->where != INSN_IN_LOOP && r->where != INSN_ANYWHERE)
			continue;
		for (unsigned int k = 0; k < nr; k++)
			if (r->insn == classes[k])
				return true;
	}
	return false;
}

/*
 * The access profile the model predicts from (kernel.h) and the
 * instructions the disassembly finds say the same of the operation: a
 * locked RMW in the profile is a locked instruction declared in the loop,
 * a CAS is a cmpxchg, and a loop declared locked has a locked RMW in the
 * profile. At each family's defaults, with 2 threads.
 */
static void access_profiles_and_declarations_agree(void **unused)
{
	static const enum insn_class locked[] = {
		INSN_LOCK_ADD, INSN_LOCK_SUB, INSN_LOCK_LONG_ADD, INSN_LOCK_OR,
		INSN_LOCK_BTS, INSN_XCHG, INSN_LOCKED, INSN_CMPXCHG,
	};
	static const enum insn_class cmpxchg[] = { INSN_CMPXCHG };

	(void)unused;
	for (unsigned int i = 0; i < catalog_size; i++) {
		const struct kernel_family *f = catalog[i];

		for (unsigned int v = 0; f->access && v < f->nr_variants; v++) {
			const struct kernel_variant *kv = &f->variants[v];
			struct access_profile p = { 0 };
			struct kernel_config cfg;
			double nr_locked, nr_cas = 0;

			kernel_config_defaults(f, &cfg);
			cfg.variant = v;
			cfg.nr_threads = 2;
			f->access(&cfg, &p);
			nr_locked = p.private_locked;
			for (unsigned int l = 0; l < p.nr_lines; l++) {
				nr_locked += p.lines[l].locked;
				nr_cas += p.lines[l].cas;
			}
			if (nr_locked > 0 && !declares_present(kv, locked, 8))
				fail_msg("%s/%s: its access profile has %g locked RMWs per operation: "
					 "declare the locked instruction (INSN_HAS(INSN_LOCK_...))",
					 f->name, kv->name, nr_locked);
			if (nr_cas > 0 && !declares_present(kv, cmpxchg, 1))
				fail_msg("%s/%s: its access profile has %g CAS per operation: declare "
					 "INSN_HAS(INSN_CMPXCHG, ...)", f->name, kv->name, nr_cas);
			if (nr_locked + nr_cas == 0 && declares_present(kv, locked, 8))
				fail_msg("%s/%s: declares a locked instruction its access profile "
					 "lacks: add it to the profile's lines (locked, cas)",
					 f->name, kv->name);
		}
	}
}

/* Only "absent" declarations: the variant does nothing a verify could see. */
static bool declares_no_work(const struct kernel_variant *v)
{
	for (unsigned int i = 0; i < KERNEL_MAX_INSNS && v->instructions[i].insn != INSN_END; i++)
		if (v->instructions[i].where == INSN_IN_LOOP ||
		    v->instructions[i].where == INSN_ANYWHERE)
			return false;
	return true;
}

static unsigned int threads_for(const struct kernel_family *f)
{
	return f->min_threads > 1 ? f->min_threads : 1;
}

/*
 * With the state created and every thread run for 0 operations, a verify
 * told each ran OPS must fail. Only a variant that declares no work of
 * its own (the empty loop) is left out. No thread waits here, so a family
 * whose threads spin on each other (pingpong) cannot hang.
 */
static void verify_fails_a_run_that_did_nothing(void **unused)
{
	(void)unused;
	for (unsigned int i = 0; i < catalog_size; i++) {
		const struct kernel_family *f = catalog[i];
		unsigned int threads = threads_for(f);

		assert_true(threads <= MAX_THREADS);
		for (unsigned int v = 0; v < f->nr_variants; v++) {
			struct kernel_metrics metrics = { 0 };
			uint64_t ops[MAX_THREADS];
			struct kernel_config cfg;
			char err[256], msg[256] = "";
			void *state;
			int ret;

			if (declares_no_work(&f->variants[v]))
				continue;
			if (!f->variants[v].verify_sees || !*f->variants[v].verify_sees)
				fail_msg("%s/%s: no verify_sees: add what the family's verify checks "
					 "of this variant's work (.verify_sees = \"each thread's slot "
					 "equal to its updates\")", f->name, f->variants[v].name);
			kernel_config_defaults(f, &cfg);
			cfg.variant = v;
			cfg.nr_threads = threads;
			state = f->create(&cfg, err, sizeof(err));
			if (!state)
				fail_msg("%s/%s: create: %s", f->name, f->variants[v].name, err);
			for (unsigned int t = 0; t < threads; t++) {
				f->variants[v].run(state, t, 0);
				ops[t] = OPS;
			}
			ret = f->verify(state, &cfg, ops, &metrics, msg, sizeof(msg));
			f->destroy(state);
			if (ret != -1)
				fail_msg("%s/%s: verify passed %u thread%s said to have run %d operations "
					 "each that ran none: it declares it sees %s; check the state "
					 "each operation changes (a count, a pin, a flag)",
					 f->name, f->variants[v].name, threads,
					 threads == 1 ? "" : "s", OPS, f->variants[v].verify_sees);
		}
	}
}

/* Runs cfg's variant through the one driver, which verifies. */
static void run_and_verify(const struct kernel_family *f,
			   const struct kernel_config *cfg, const char *setting)
{
	char err[512];

	if (kernel_drive(f, cfg, OPS, NULL, NULL, err, sizeof(err)))
		fail_msg("%s/%s at %s: %s", f->name, f->variants[cfg->variant].name,
			 setting, err);
}

/*
 * Each parameter at its min, default and max (the others at their
 * defaults), every variant, a few operations each: a range end the
 * family cannot run is a range to narrow.
 */
static void every_parameter_verifies_at_its_ends_and_default(void **unused)
{
	(void)unused;
	for (unsigned int i = 0; i < catalog_size; i++) {
		const struct kernel_family *f = catalog[i];

		for (unsigned int p = 0; p < f->nr_params; p++) {
			const struct kernel_param *kp = &f->params[p];
			const long values[] = { kp->min, kp->def, kp->max };

			for (unsigned int k = 0; k < 3; k++) {
				for (unsigned int v = 0; v < f->nr_variants; v++) {
					struct kernel_config cfg;
					char setting[96];

					kernel_config_defaults(f, &cfg);
					cfg.variant = v;
					cfg.nr_threads = threads_for(f);
					cfg.param[p] = values[k];
					snprintf(setting, sizeof(setting), "%s=%ld (%s)", kp->name,
						 values[k], k == 0 ? "min" : k == 1 ? "default" : "max");
					run_and_verify(f, &cfg, setting);
				}
			}
		}
	}
}

static unsigned int nr_destroyed;

static void count_destroy(void *state)
{
	(void)state;
	nr_destroyed++;
}

/*
 * A family with no verify is refused by the one driver, never a number:
 * kernel_run_finish() fails and says why, and still destroys the state.
 * No family of the catalogue lacks one, so a stand-in (counter's, its
 * verify taken away) is the only way to reach it.
 */
static void a_family_without_verify_is_refused(void **unused)
{
	struct kernel_family f = *catalog_find("counter");
	struct kernel_config cfg;
	uint64_t ops[1] = { OPS };
	char err[256] = "";
	int state;

	(void)unused;
	f.verify = NULL;
	f.destroy = count_destroy;
	kernel_config_defaults(&f, &cfg);
	cfg.nr_threads = 1;
	nr_destroyed = 0;
	assert_int_equal(kernel_run_finish(&f, &cfg, &state, ops, NULL, err, sizeof(err)), -1);
	assert_string_equal(err, "counter has no verify: a run that cannot be checked is never a number");
	assert_int_equal(nr_destroyed, 1);
}

/*
 * A family that writes one byte past its shared state, as a loop one
 * iteration too long does, fails its run though its own verify passes:
 * kernel_free_shared() finds the slack written when destroy() frees it.
 * The state here is a stand-in of 100 bytes, its destroy writing byte
 * 100 first; written inside the 100, the same run passes.
 */
static size_t written_at;

static void *small_create(const struct kernel_config *cfg, char *err, size_t errlen)
{
	(void)cfg;
	(void)err;
	(void)errlen;
	return kernel_alloc_shared(100);
}

static int always_right(void *state, const struct kernel_config *cfg, const uint64_t *ops,
			struct kernel_metrics *metrics, char *msg, size_t msglen)
{
	(void)state;
	(void)cfg;
	(void)ops;
	(void)metrics;
	(void)msg;
	(void)msglen;
	return 0;
}

static void write_then_free(void *state)
{
	unsigned char *p = state;

	for (size_t i = 0; i < 100; i++)
		assert_int_equal(p[i], 0);
	/* the rest of the page is slack */
	assert_int_equal(p[100], KERNEL_SLACK_BYTE);
	assert_int_equal(p[4095], KERNEL_SLACK_BYTE);
	p[written_at] = 1;
	kernel_free_shared(state);
}

static void a_write_past_the_shared_state_fails_the_run(void **unused)
{
	struct kernel_family f = *catalog_find("counter");
	struct kernel_config cfg;
	uint64_t ops[1] = { OPS };
	char err[256] = "";
	unsigned int before = kernel_shared_overruns();

	(void)unused;
	f.create = small_create;
	f.verify = always_right;
	f.destroy = write_then_free;
	kernel_config_defaults(&f, &cfg);
	cfg.nr_threads = 1;
	written_at = 99;
	assert_int_equal(kernel_run_finish(&f, &cfg, kernel_run_create(&f, &cfg, err, sizeof(err)),
					   ops, NULL, err, sizeof(err)), 0);
	assert_int_equal(kernel_shared_overruns(), before);
	written_at = 100;
	assert_int_equal(kernel_run_finish(&f, &cfg, kernel_run_create(&f, &cfg, err, sizeof(err)),
					   ops, NULL, err, sizeof(err)), -1);
	assert_int_equal(kernel_shared_overruns(), before + 1);
	assert_non_null(strstr(err, "wrote past the end of its shared state"));
	assert_non_null(strstr(err, "counter/"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_variant_declares_its_instructions),
		cmocka_unit_test(a_variant_without_declarations_fails),
		cmocka_unit_test(variants_are_whole_and_found_by_name),
		cmocka_unit_test(access_profiles_and_declarations_agree),
		cmocka_unit_test(verify_fails_a_run_that_did_nothing),
		cmocka_unit_test(every_parameter_verifies_at_its_ends_and_default),
		cmocka_unit_test(a_family_without_verify_is_refused),
		cmocka_unit_test(a_write_past_the_shared_state_fails_the_run),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
