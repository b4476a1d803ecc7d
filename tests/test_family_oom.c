// SPDX-License-Identifier: GPL-2.0-only
/*
 * Every family's create when memory runs out, at each allocation in
 * turn: malloc(), calloc(), realloc(), aligned_alloc() and the kernels'
 * own kernel_alloc_shared() and kernel_alloc_padded() are wrapped in this
 * program (-Wl,--wrap), counted while a create runs, and the k-th one
 * fails, for every k a create at 2 threads makes (1 for a family that
 * runs alone). Each failed create returns NULL with one line that names
 * the family, and leaves nothing behind (the sanitizer build's leak
 * check sees what it kept); a create never goes on with a NULL.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "catalog.h"

static bool counting;
static long fail_at = -1;	/* the allocation (0-based) that fails; -1: none */
static long calls;

/* Whether this allocation fails: counted only while a create runs. */
static bool this_one_fails(void)
{
	return counting && calls++ == fail_at;
}

#define WRAP(ret, name, params, args)				\
	ret __real_##name params;				\
	ret __wrap_##name params;				\
	ret __wrap_##name params				\
	{							\
		return this_one_fails() ? NULL : __real_##name args; \
	}

WRAP(void *, malloc, (size_t size), (size))
WRAP(void *, calloc, (size_t n, size_t size), (n, size))
WRAP(void *, realloc, (void *p, size_t size), (p, size))
WRAP(void *, aligned_alloc, (size_t align, size_t size), (align, size))
WRAP(void *, kernel_alloc_shared, (size_t size), (size))
WRAP(void *, kernel_alloc_padded, (size_t size), (size))

static void *create(const struct kernel_family *f, const struct kernel_config *cfg,
		    long fail, char *err, size_t len)
{
	void *s;

	err[0] = '\0';
	fail_at = fail;
	calls = 0;
	counting = true;
	s = f->create(cfg, err, len);
	counting = false;
	return s;
}

static void every_family_refuses_each_allocation(void **unused)
{
	(void)unused;
	for (unsigned int i = 0; i < catalog_size; i++) {
		const struct kernel_family *f = catalog[i];

		for (unsigned int v = 0; v < f->nr_variants; v++) {
			struct kernel_config cfg;
			char err[512], name[64];
			long nr;
			void *s;

			kernel_config_defaults(f, &cfg);
			cfg.variant = v;
			cfg.nr_threads = f->max_threads && f->max_threads < 2 ? f->max_threads : 2;
			s = create(f, &cfg, -1, err, sizeof(err));
			if (!s)
				fail_msg("%s/%s: %s", f->name, f->variants[v].name, err);
			nr = calls;
			f->destroy(s);
			/* a family that allocates nothing tests nothing here */
			if (!nr)
				fail_msg("%s/%s: no allocation counted", f->name,
					 f->variants[v].name);
			snprintf(name, sizeof(name), "%s", f->name);
			for (long k = 0; k < nr; k++) {
				s = create(f, &cfg, k, err, sizeof(err));
				if (s)
					fail_msg("%s/%s: allocation %ld of %ld failed, yet create went on",
						 f->name, f->variants[v].name, k + 1, nr);
				if (strncmp(err, name, strlen(name)) || strchr(err, '\n') ||
				    !strstr(err, "memory"))
					fail_msg("%s/%s: allocation %ld of %ld failed: message '%s'",
						 f->name, f->variants[v].name, k + 1, nr, err);
			}
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_family_refuses_each_allocation),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
