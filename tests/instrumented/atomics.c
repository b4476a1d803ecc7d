// SPDX-License-Identifier: GPL-2.0-only
/*
 * The real operations behind tests/instrumented/atomics.h: each calls the
 * test's atomic_hook() first. HOOKED_ATOMICS_DEFINITIONS keeps the
 * header's macros out, so the C11 ones here are the standard ones.
 */
#define HOOKED_ATOMICS_DEFINITIONS
#include "atomics.h"

#define HOOKED_DEFINE(type, value_type, name)					\
	void hooked_store_##name(type *p, unsigned long v, memory_order mo)	\
	{									\
		atomic_hook(ATOMIC_STORE, (void *)p, sizeof(*p), v);		\
		atomic_store_explicit(p, (value_type)v, mo);			\
	}									\
	unsigned long hooked_exchange_##name(type *p, unsigned long v,		\
					     memory_order mo)			\
	{									\
		atomic_hook(ATOMIC_EXCHANGE, (void *)p, sizeof(*p), v);		\
		return (unsigned long)atomic_exchange_explicit(p, (value_type)v, mo); \
	}									\
	bool hooked_cas_##name(type *p, void *expected, unsigned long desired,	\
			       memory_order s, memory_order f)			\
	{									\
		atomic_hook(ATOMIC_CAS, (void *)p, sizeof(*p), desired);	\
		return atomic_compare_exchange_strong_explicit(p,		\
			(value_type *)expected, (value_type)desired, s, f);	\
	}
#define HOOKED_DEFINE_FETCH(op, kind, type, value_type, name)			\
	unsigned long hooked_fetch_##op##_##name(type *p, unsigned long v,	\
						 memory_order mo)		\
	{									\
		atomic_hook(kind, (void *)p, sizeof(*p), v);			\
		return (unsigned long)atomic_fetch_##op##_explicit(p,		\
							(value_type)v, mo);	\
	}
#define HOOKED_DEFINE_ARITH(type, value_type, name)				\
	HOOKED_DEFINE_FETCH(add, ATOMIC_FETCH_ADD, type, value_type, name)	\
	HOOKED_DEFINE_FETCH(sub, ATOMIC_FETCH_SUB, type, value_type, name)	\
	HOOKED_DEFINE_FETCH(or, ATOMIC_FETCH_OR, type, value_type, name)	\
	HOOKED_DEFINE_FETCH(and, ATOMIC_FETCH_AND, type, value_type, name)	\
	HOOKED_DEFINE_FETCH(xor, ATOMIC_FETCH_XOR, type, value_type, name)

HOOKED_DEFINE(atomic_bool, bool, bool)
HOOKED_DEFINE(atomic_int, int, int)
HOOKED_DEFINE(atomic_uint, unsigned int, uint)
HOOKED_DEFINE(atomic_long, long, long)
HOOKED_DEFINE(atomic_ulong, unsigned long, ulong)
HOOKED_DEFINE_ARITH(atomic_int, int, int)
HOOKED_DEFINE_ARITH(atomic_uint, unsigned int, uint)
HOOKED_DEFINE_ARITH(atomic_long, long, long)
HOOKED_DEFINE_ARITH(atomic_ulong, unsigned long, ulong)

bool hooked_flag_test_and_set(volatile atomic_flag *p, memory_order mo)
{
	atomic_hook(ATOMIC_EXCHANGE, (void *)p, sizeof(*p), 1);
	return atomic_flag_test_and_set_explicit(p, mo);
}

void hooked_flag_clear(volatile atomic_flag *p, memory_order mo)
{
	atomic_hook(ATOMIC_STORE, (void *)p, sizeof(*p), 0);
	atomic_flag_clear_explicit(p, mo);
}
