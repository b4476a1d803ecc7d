// SPDX-License-Identifier: GPL-2.0-only
/*
 * Every atomic write <stdatomic.h> offers, once each, built with the
 * hooks (atomics.h): the test counts what the hook saw against a count
 * made by hand, so a spelling atomics.h forgets to route is caught
 * before a family uses it and its writes go unseen.
 */
#include "atomics.h"

atomic_long every_write_explicit;
atomic_uint every_write_plain;
atomic_flag every_write_flag = ATOMIC_FLAG_INIT;

void every_atomic_write(void);

void every_atomic_write(void)
{
	atomic_long *x = &every_write_explicit;
	atomic_uint *y = &every_write_plain;
	long ex = 7;
	unsigned int ey = 7;

	atomic_store_explicit(x, 5, memory_order_relaxed);
	atomic_exchange_explicit(x, 7, memory_order_relaxed);
	atomic_compare_exchange_strong_explicit(x, &ex, 9, memory_order_relaxed,
						memory_order_relaxed);
	ex = 9;
	atomic_compare_exchange_weak_explicit(x, &ex, 11, memory_order_relaxed,
					      memory_order_relaxed);
	atomic_fetch_add_explicit(x, 4, memory_order_relaxed);
	atomic_fetch_sub_explicit(x, 3, memory_order_relaxed);
	atomic_fetch_or_explicit(x, 1, memory_order_relaxed);
	atomic_fetch_and_explicit(x, 6, memory_order_relaxed);
	atomic_fetch_xor_explicit(x, 5, memory_order_relaxed);

	atomic_store(y, 5);
	atomic_exchange(y, 7);
	atomic_compare_exchange_strong(y, &ey, 9);
	ey = 9;
	atomic_compare_exchange_weak(y, &ey, 11);
	atomic_fetch_add(y, 4);
	atomic_fetch_sub(y, 3);
	atomic_fetch_or(y, 1);
	atomic_fetch_and(y, 6);
	atomic_fetch_xor(y, 5);

	atomic_flag_test_and_set_explicit(&every_write_flag, memory_order_relaxed);
	atomic_flag_test_and_set(&every_write_flag);
	atomic_flag_clear_explicit(&every_write_flag, memory_order_relaxed);
	atomic_flag_clear(&every_write_flag);
}
