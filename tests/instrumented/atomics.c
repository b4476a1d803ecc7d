// SPDX-License-Identifier: GPL-2.0-only
/*
 * The real operations behind tests/instrumented/atomics.h: each calls the
 * test's atomic_hook() first. Built without that header, so the C11
 * macros here are the standard ones.
 */
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

enum atomic_write { ATOMIC_STORE, ATOMIC_EXCHANGE, ATOMIC_FETCH_OR,
		    ATOMIC_FETCH_ADD, ATOMIC_CAS };

void atomic_hook(enum atomic_write kind, void *ptr, size_t size,
		 unsigned long value);

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
#define HOOKED_DEFINE_ARITH(type, value_type, name)				\
	unsigned long hooked_fetch_or_##name(type *p, unsigned long v,		\
					     memory_order mo)			\
	{									\
		atomic_hook(ATOMIC_FETCH_OR, (void *)p, sizeof(*p), v);		\
		return (unsigned long)atomic_fetch_or_explicit(p, (value_type)v, mo); \
	}									\
	unsigned long hooked_fetch_add_##name(type *p, unsigned long v,	\
					      memory_order mo)			\
	{									\
		atomic_hook(ATOMIC_FETCH_ADD, (void *)p, sizeof(*p), v);	\
		return (unsigned long)atomic_fetch_add_explicit(p, (value_type)v, mo); \
	}

HOOKED_DEFINE(atomic_bool, bool, bool)
HOOKED_DEFINE(atomic_int, int, int)
HOOKED_DEFINE(atomic_uint, unsigned int, uint)
HOOKED_DEFINE(atomic_ulong, unsigned long, ulong)
HOOKED_DEFINE_ARITH(atomic_int, int, int)
HOOKED_DEFINE_ARITH(atomic_uint, unsigned int, uint)
HOOKED_DEFINE_ARITH(atomic_ulong, unsigned long, ulong)
