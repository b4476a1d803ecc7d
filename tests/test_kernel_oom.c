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

/*
 * A family's create at 2 threads: with nothing failing it makes nr
 * allocations through the wrapped allocator whose counters are *fail_at
 * and *calls; with each of them failing in turn, it returns NULL with
 * the one line message.
 */
static void expect_each_allocation_refused(const char *family, int *fail, int *count,
					   int nr, const char *message)
{
	const struct kernel_family *f = catalog_find(family);
	struct kernel_config cfg;
	char err[128];
	void *s;

	assert_non_null(f);
	kernel_config_defaults(f, &cfg);
	cfg.nr_threads = 2;
	*fail = -1;
	*count = 0;
	s = f->create(&cfg, err, sizeof(err));
	assert_non_null(s);
	assert_int_equal(*count, nr);
	f->destroy(s);
	for (int k = 0; k < nr; k++) {
		*fail = k;
		*count = 0;
		err[0] = '\0';
		assert_null(f->create(&cfg, err, sizeof(err)));
		assert_string_equal(err, message);
	}
	*fail = -1;
}

static void test_has_pinned_out_of_memory(void **state)
{
	(void)state;
	expect_each_allocation_refused("has_pinned", &fail_at, &calls, 3,
				       "has_pinned: out of memory for 2 threads");
}

/*
 * Two threads: the threads' array, then per thread its memmap, page
 * table and page array, seven padded allocations. Catches
 * setup_thread()'s "!th->ptes || !th->pages" as "&&": a page table that
 * could not be had would be written through.
 */
static void test_longterm_check_out_of_memory(void **state)
{
	(void)state;
	expect_each_allocation_refused("longterm_check", &padded_fail_at, &padded_calls, 7,
				       "longterm_check: out of memory for 2 threads x 32768 pages");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_has_pinned_out_of_memory),
		cmocka_unit_test(test_longterm_check_out_of_memory),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
