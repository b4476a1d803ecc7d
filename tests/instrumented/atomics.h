/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * An instrumented build of a kernel family: included before the family's
 * own source (see hooked_*.c), it routes every atomic that writes
 * memory (store, exchange, fetch-or, fetch-add, compare-exchange) through
 * atomic_hook(), which the test defines. The test can then count a
 * variant's writes, see their addresses, or let "another CPU" run between
 * a variant's load and its store: a scripted interleaving. Loads are left
 * alone. The real operations run in atomics.c, built without this header.
 */
#ifndef BOUNCELAB_INSTRUMENTED_ATOMICS_H
#define BOUNCELAB_INSTRUMENTED_ATOMICS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

enum atomic_write { ATOMIC_STORE, ATOMIC_EXCHANGE, ATOMIC_FETCH_OR,
		    ATOMIC_FETCH_ADD, ATOMIC_CAS };

/* Called before the operation; value is what it would store or add. */
void atomic_hook(enum atomic_write kind, void *ptr, size_t size,
		 unsigned long value);

#define HOOKED_DECLARE(type, name)						\
	void hooked_store_##name(type *p, unsigned long v, memory_order mo);	\
	unsigned long hooked_exchange_##name(type *p, unsigned long v,		\
					     memory_order mo);			\
	bool hooked_cas_##name(type *p, void *expected, unsigned long desired,	\
			       memory_order s, memory_order f);
#define HOOKED_DECLARE_ARITH(type, name)					\
	unsigned long hooked_fetch_or_##name(type *p, unsigned long v,		\
					     memory_order mo);			\
	unsigned long hooked_fetch_add_##name(type *p, unsigned long v,	\
					      memory_order mo);

HOOKED_DECLARE(atomic_bool, bool)
HOOKED_DECLARE(atomic_int, int)
HOOKED_DECLARE(atomic_uint, uint)
HOOKED_DECLARE(atomic_ulong, ulong)
HOOKED_DECLARE_ARITH(atomic_int, int)
HOOKED_DECLARE_ARITH(atomic_uint, uint)
HOOKED_DECLARE_ARITH(atomic_ulong, ulong)

/* A type not listed is a compile error here: add it, never miss a write. */
#define HOOKED_ALL(op, p)						\
	_Generic((p), atomic_bool *: hooked_##op##_bool,		\
		 atomic_int *: hooked_##op##_int,			\
		 atomic_uint *: hooked_##op##_uint,			\
		 atomic_ulong *: hooked_##op##_ulong)
#define HOOKED_ARITH(op, p)						\
	_Generic((p), atomic_int *: hooked_##op##_int,			\
		 atomic_uint *: hooked_##op##_uint,			\
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
#undef atomic_fetch_or_explicit
#define atomic_fetch_or_explicit(p, v, mo)				\
	HOOKED_ARITH(fetch_or, p)((p), (unsigned long)(v), (mo))
#undef atomic_fetch_add_explicit
#define atomic_fetch_add_explicit(p, v, mo)				\
	HOOKED_ARITH(fetch_add, p)((p), (unsigned long)(v), (mo))

#endif
