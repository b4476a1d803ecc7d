// SPDX-License-Identifier: GPL-2.0-only
/*
 * longterm_check's verify when a thread had no memory to note its timed
 * stretches: realloc() is wrapped in this program only
 * (-Wl,--wrap=realloc) to fail while the run is armed, and verify must
 * then fail, naming the thread, rather than report pins and times it
 * could not keep. The same run unarmed verifies.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "catalog.h"

static bool fail_realloc;

void *__real_realloc(void *ptr, size_t size);
void *__wrap_realloc(void *ptr, size_t size);

void *__wrap_realloc(void *ptr, size_t size)
{
	return fail_realloc ? NULL : __real_realloc(ptr, size);
}

/* One thread, 50 calls of longterm_check's variant; verify's result and message. */
static int run_once(const char *variant, bool no_memory, char *msg, size_t msglen)
{
	const struct kernel_family *f = catalog_find("longterm_check");
	struct kernel_metrics metrics = { 0 };
	struct kernel_config cfg;
	uint64_t ops[1] = { 50 };
	char err[256];
	void *state;
	int v, ret;

	assert_non_null(f);
	v = catalog_variant_index(f, variant);
	assert_true(v >= 0);
	kernel_config_defaults(f, &cfg);
	cfg.variant = (unsigned int)v;
	cfg.nr_threads = 1;
	state = f->create(&cfg, err, sizeof(err));
	if (!state)
		fail_msg("create: %s", err);
	fail_realloc = no_memory;
	f->variants[v].run(state, 0, ops[0]);
	fail_realloc = false;
	msg[0] = '\0';
	ret = f->verify(state, &cfg, ops, &metrics, msg, msglen);
	f->destroy(state);
	return ret;
}

static void test_no_memory_fails_verify(void **state)
{
	const struct kernel_family *f = catalog_find("longterm_check");
	char msg[256];

	(void)state;
	assert_non_null(f);
	for (unsigned int v = 0; v < f->nr_variants; v++) {
		if (run_once(f->variants[v].name, false, msg, sizeof(msg)))
			fail_msg("%s, memory to spare: verify failed: %s", f->variants[v].name, msg);
		assert_int_equal(run_once(f->variants[v].name, true, msg, sizeof(msg)), -1);
		assert_string_equal(msg, "thread 0 had no memory to note its timed stretches");
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_memory_fails_verify),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
