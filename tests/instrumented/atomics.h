/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * An instrumented build of a kernel family: included before the family's
 * own source (see hooked_*.c), it routes every atomic that writes memory
 * through atomic_hook(), which the test defines: every store, exchange,
 * fetch-op (add, sub, or, and, xor) and compare-exchange of <stdatomic.h>,
 * in its _explicit and its plain (seq_cst) spelling, and atomic_flag's
 * test-and-set and clear. The test can then count a variant's writes, see
 * their addresses, or let "another CPU" run between a variant's load and
 * its store: a scripted interleaving. Loads are left alone. The real
 * operations run in atomics.c, which defines HOOKED_ATOMICS_DEFINITIONS
 * to keep the standard macros. An operator on an _Atomic object (x++,
 * x += 1) cannot be hooked: the families write every atomic as a call.
 */
#ifndef BOUNCELAB_INSTRUMENTED_ATOMICS_H
#define BOUNCELAB_INSTRUMENTED_ATOMICS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

enum atomic_write { ATOMIC_STORE, ATOMIC_EXCHANGE, ATOMIC_FETCH_OR,
		    ATOMIC_FETCH_ADD, ATOMIC_CAS, ATOMIC_FETCH_SUB,
		    ATOMIC_FETCH_AND, ATOMIC_FETCH_XOR, NR_ATOMIC_WRITES };

/* Called before the operation; value is what it would store or apply. */
void atomic_hook(enum atomic_write kind, void *ptr, size_t size,
		 unsigned long value);

#define HOOKED_DECLARE(type, name)						\
	void hooked_store_##name(type *p, unsigned long v, memory_order mo);	\
	unsigned long hooked_exchange_##name(type *p, unsigned long v,		\
					     memory_order mo);			\
	bool hooked_cas_##name(type *p, void *expected, unsigned long desired,	\
			       memory_order s, memory_order f);
#define HOOKED_DECLARE_FETCH(op, type, name)					\
	unsigned long hooked_fetch_##op##_##name(type *p, unsigned long v,	\
						 memory_order mo);
#define HOOKED_DECLARE_ARITH(type, name)					\
	HOOKED_DECLARE_FETCH(add, type, name)					\
	HOOKED_DECLARE_FETCH(sub, type, name)					\
	HOOKED_DECLARE_FETCH(or, type, name)					\
	HOOKED_DECLARE_FETCH(and, type, name)					\
	HOOKED_DECLARE_FETCH(xor, type, name)

HOOKED_DECLARE(atomic_bool, bool)
HOOKED_DECLARE(atomic_int, int)
HOOKED_DECLARE(atomic_uint, uint)
HOOKED_DECLARE(atomic_long, long)
HOOKED_DECLARE(atomic_ulong, ulong)
HOOKED_DECLARE_ARITH(atomic_int, int)
HOOKED_DECLARE_ARITH(atomic_uint, uint)
HOOKED_DECLARE_ARITH(atomic_long, long)
HOOKED_DECLARE_ARITH(atomic_ulong, ulong)

bool hooked_flag_test_and_set(volatile atomic_flag *p, memory_order mo);
void hooked_flag_clear(volatile atomic_flag *p, memory_order mo);

#ifndef HOOKED_ATOMICS_DEFINITIONS

/* A type not listed is a compile error here: add it, never miss a write. */
#define HOOKED_ALL(op, p)						\
	_Generic((p), atomic_bool *: hooked_##op##_bool,		\
		 atomic_int *: hooked_##op##_int,			\
		 atomic_uint *: hooked_##op##_uint,			\
		 atomic_long *: hooked_##op##_long,			\
		 atomic_ulong *: hooked_##op##_ulong)
#define HOOKED_ARITH(op, p)						\
	_Generic((p), atomic_int *: hooked_##op##_int,			\
		 atomic_uint *: hooked_##op##_uint,			\
		 atomic_long *: hooked_##op##_long,			\
		 atomic_ulong *: hooked_##op##_ulong)

#undef atomic_store_explicit
#define atomic_store_explicit(p, v, mo)					\
	HOOKED_ALL(store, p)((p), (unsigned long)(v), (mo))
#undef atomic_exchange_explicit
#define atomic_exchange_explicit(p, v, mo)				\
	HOOKED_ALL(exchange, p)((p), (unsigned long)(v), (mo))
#undef atomic_compare_exchange_strong_explicit
#define atomic_compare_exchange_strong_explicit(p, e, d, s, f)		\
	HOOKED_ALL(cas, p)((p), (e), (unsigned long)(d), (s), (f))
/* A strong compare-exchange is a weak one that never fails spuriously. */
#undef atomic_compare_exchange_weak_explicit
#define atomic_compare_exchange_weak_explicit(p, e, d, s, f)		\
	HOOKED_ALL(cas, p)((p), (e), (unsigned long)(d), (s), (f))
#undef atomic_fetch_add_explicit
#define atomic_fetch_add_explicit(p, v, mo)				\
	HOOKED_ARITH(fetch_add, p)((p), (unsigned long)(v), (mo))
#undef atomic_fetch_sub_explicit
#define atomic_fetch_sub_explicit(p, v, mo)				\
	HOOKED_ARITH(fetch_sub, p)((p), (unsigned long)(v), (mo))
#undef atomic_fetch_or_explicit
#define atomic_fetch_or_explicit(p, v, mo)				\
	HOOKED_ARITH(fetch_or, p)((p), (unsigned long)(v), (mo))
#undef atomic_fetch_and_explicit
#define atomic_fetch_and_explicit(p, v, mo)				\
	HOOKED_ARITH(fetch_and, p)((p), (unsigned long)(v), (mo))
#undef atomic_fetch_xor_explicit
#define atomic_fetch_xor_explicit(p, v, mo)				\
	HOOKED_ARITH(fetch_xor, p)((p), (unsigned long)(v), (mo))
#undef atomic_flag_test_and_set_explicit
#define atomic_flag_test_and_set_explicit(p, mo) hooked_flag_test_and_set((p), (mo))
#undef atomic_flag_clear_explicit
#define atomic_flag_clear_explicit(p, mo) hooked_flag_clear((p), (mo))

/* The plain spellings are the _explicit ones at seq_cst. */
#undef atomic_store
#define atomic_store(p, v) atomic_store_explicit(p, v, memory_order_seq_cst)
#undef atomic_exchange
#define atomic_exchange(p, v) atomic_exchange_explicit(p, v, memory_order_seq_cst)
#undef atomic_compare_exchange_strong
#define atomic_compare_exchange_strong(p, e, d)				\
	atomic_compare_exchange_strong_explicit(p, e, d, memory_order_seq_cst, \
						memory_order_seq_cst)
#undef atomic_compare_exchange_weak
#define atomic_compare_exchange_weak(p, e, d)				\
	atomic_compare_exchange_weak_explicit(p, e, d, memory_order_seq_cst, \
					      memory_order_seq_cst)
#undef atomic_fetch_add
#define atomic_fetch_add(p, v) atomic_fetch_add_explicit(p, v, memory_order_seq_cst)
#undef atomic_fetch_sub
#define atomic_fetch_sub(p, v) atomic_fetch_sub_explicit(p, v, memory_order_seq_cst)
#undef atomic_fetch_or
#define atomic_fetch_or(p, v) atomic_fetch_or_explicit(p, v, memory_order_seq_cst)
#undef atomic_fetch_and
#define atomic_fetch_and(p, v) atomic_fetch_and_explicit(p, v, memory_order_seq_cst)
#undef atomic_fetch_xor
#define atomic_fetch_xor(p, v) atomic_fetch_xor_explicit(p, v, memory_order_seq_cst)
#undef atomic_flag_test_and_set
#define atomic_flag_test_and_set(p) atomic_flag_test_and_set_explicit(p, memory_order_seq_cst)
#undef atomic_flag_clear
#define atomic_flag_clear(p) atomic_flag_clear_explicit(p, memory_order_seq_cst)

#endif /* HOOKED_ATOMICS_DEFINITIONS */

#endif
