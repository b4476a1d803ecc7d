// SPDX-License-Identifier: GPL-2.0-only
/*
 * A family's create when its shared memory cannot be had: each of
 * has_pinned's three allocations (the state, the per-thread slots, the
 * fresh mms) is made to fail in turn, with kernel_alloc_shared() wrapped
 * in this program only (-Wl,--wrap=kernel_alloc_shared), and create must
 * return NULL with one line naming the threads, not go on with a NULL.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "catalog.h"

static int fail_at = -1;	/* the call (0-based) that fails; -1: none */
static int calls;

void *__real_kernel_alloc_shared(size_t size);
void *__wrap_kernel_alloc_shared(size_t size);

void *__wrap_kernel_alloc_shared(size_t size)
{
	return calls++ == fail_at ? NULL : __real_kernel_alloc_shared(size);
}

static void test_has_pinned_out_of_memory(void **state)
{
	const struct kernel_family *f = catalog_find("has_pinned");
	struct kernel_config cfg;
	char err[128];
	void *s;

	(void)state;
	assert_non_null(f);
	kernel_config_defaults(f, &cfg);
	cfg.nr_threads = 2;
	fail_at = -1;
	calls = 0;
	s = f->create(&cfg, err, sizeof(err));
	assert_non_null(s);
	assert_int_equal(calls, 3);
	f->destroy(s);
	for (int k = 0; k < 3; k++) {
		fail_at = k;
		calls = 0;
		err[0] = '\0';
		assert_null(f->create(&cfg, err, sizeof(err)));
		assert_string_equal(err, "has_pinned: out of memory for 2 threads");
	}
	fail_at = -1;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_has_pinned_out_of_memory),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
