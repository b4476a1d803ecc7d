// SPDX-License-Identifier: GPL-2.0-only
/*
 * A family's create when its shared memory cannot be had: each of
 * has_pinned's three allocations (the state, the per-thread slots, the
 * fresh mms) is made to fail in turn, with kernel_alloc_shared() wrapped
 * in this program only (-Wl,--wrap=kernel_alloc_shared), and create must
 * return NULL with one line naming the threads, not go on with a NULL.
 * The same for longterm_check's padded allocations (the threads, then
 * each thread's memmap, page table and page array), with
 * kernel_alloc_padded() wrapped.
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
static int padded_fail_at = -1;	/* the same for kernel_alloc_padded() */
static int padded_calls;

void *__real_kernel_alloc_shared(size_t size);
void *__wrap_kernel_alloc_shared(size_t size);

void *__wrap_kernel_alloc_shared(size_t size)
{
	return calls++ == fail_at ? NULL : __real_kernel_alloc_shared(size);
}

void *__real_kernel_alloc_padded(size_t size);
void *__wrap_kernel_alloc_padded(size_t size);

void *__wrap_kernel_alloc_padded(size_t size)
{
	return padded_calls++ == padded_fail_at ? NULL : __real_kernel_alloc_padded(size);
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

/*
 * Two threads: the threads' array, then per thread its memmap, page
 * table and page array, seven padded allocations. Catches
 * setup_thread()'s "!th->ptes || !th->pages" as "&&": a page table that
 * could not be had would be written through.
 */
static void test_longterm_check_out_of_memory(void **state)
{
	const struct kernel_family *f = catalog_find("longterm_check");
	struct kernel_config cfg;
	char err[128];
	void *s;

	(void)state;
	assert_non_null(f);
	kernel_config_defaults(f, &cfg);
	cfg.nr_threads = 2;
	padded_fail_at = -1;
	padded_calls = 0;
	s = f->create(&cfg, err, sizeof(err));
	assert_non_null(s);
	assert_int_equal(padded_calls, 7);
	f->destroy(s);
	for (int k = 0; k < 7; k++) {
		padded_fail_at = k;
		padded_calls = 0;
		err[0] = '\0';
		assert_null(f->create(&cfg, err, sizeof(err)));
		assert_string_equal(err, "longterm_check: out of memory for 2 threads x 32768 pages");
	}
	padded_fail_at = -1;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_has_pinned_out_of_memory),
		cmocka_unit_test(test_longterm_check_out_of_memory),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
