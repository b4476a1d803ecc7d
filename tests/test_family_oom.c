// SPDX-License-Identifier: GPL-2.0-only
/*
 * Every family's create when memory runs out, at each allocation in
 * turn: malloc(), calloc(), realloc(), aligned_alloc() and the kernels'
 * own kernel_alloc_shared() and kernel_alloc_padded() are wrapped in this
 * program (-Wl,--wrap), counted while a create runs, and the k-th one
 * fails, for every k a create at 2 threads makes (1 for a family that
 * runs alone). Each failed create returns NULL with one line that names
 * the family, and leaves nothing behind (the sanitizer build's leak
 * check sees what it kept); a create never goes on with a NULL. Again
 * with each parameter at its largest value.
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
#include "gup/gup.h"

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

/* Each allocation of f's create at cfg failing in turn. */
static void each_allocation_fails(const struct kernel_family *f, const struct kernel_config *cfg,
				  const char *setting)
{
	const char *variant = f->variants[cfg->variant].name;
	char err[512];
	long nr;
	void *s;

	s = create(f, cfg, -1, err, sizeof(err));
	if (!s)
		fail_msg("%s/%s%s: %s", f->name, variant, setting, err);
	nr = calls;
	f->destroy(s);
	/* a family that allocates nothing tests nothing here */
	if (!nr)
		fail_msg("%s/%s%s: no allocation counted", f->name, variant, setting);
	for (long k = 0; k < nr; k++) {
		s = create(f, cfg, k, err, sizeof(err));
		if (s)
			fail_msg("%s/%s%s: allocation %ld of %ld failed, yet create went on",
				 f->name, variant, setting, k + 1, nr);
		if (strncmp(err, f->name, strlen(f->name)) || strchr(err, '\n') ||
		    !strstr(err, "memory"))
			fail_msg("%s/%s%s: allocation %ld of %ld failed: message '%s'",
				 f->name, variant, setting, k + 1, nr, err);
	}
}

static void every_family_refuses_each_allocation(void **unused)
{
	(void)unused;
	for (unsigned int i = 0; i < catalog_size; i++) {
		const struct kernel_family *f = catalog[i];

		for (unsigned int v = 0; v < f->nr_variants; v++) {
			struct kernel_config cfg;

			kernel_config_defaults(f, &cfg);
			cfg.variant = v;
			cfg.nr_threads = f->max_threads && f->max_threads < 2 ? f->max_threads : 2;
			each_allocation_fails(f, &cfg, "");
		}
	}
}

/*
 * The same with each parameter at its largest value, the first variant:
 * what grows with a setting (gup's page tables with its buffers, past
 * their first growth) fails there too. A size is taken at eight times
 * its default where that is less (gup's 16 GiB of buffers would take
 * minutes a create).
 */
static void each_allocation_fails_at_each_largest_setting(void **unused)
{
	(void)unused;
	for (unsigned int i = 0; i < catalog_size; i++) {
		const struct kernel_family *f = catalog[i];

		for (unsigned int p = 0; p < f->nr_params; p++) {
			struct kernel_config cfg;
			char setting[96];

			kernel_config_defaults(f, &cfg);
			cfg.nr_threads = f->max_threads && f->max_threads < 2 ? f->max_threads : 2;
			cfg.param[p] = f->params[p].max;
			if (f->params[p].def > 0 && f->params[p].max / 8 > f->params[p].def)
				cfg.param[p] = 8 * f->params[p].def;
			snprintf(setting, sizeof(setting), " at %s=%ld", f->params[p].name,
				 cfg.param[p]);
			each_allocation_fails(f, &cfg, setting);
		}
	}
	/*
	 * gup's small pages over 32 MiB: a page table for every 2 MiB, 19
	 * tables in all, past the first growth of their array (16).
	 */
	{
		const struct kernel_family *gup = catalog_find("gup");
		struct kernel_config cfg;

		assert_non_null(gup);
		kernel_config_defaults(gup, &cfg);
		cfg.nr_threads = 2;
		cfg.param[kernel_param_index(gup, "page_size")] = GUP_PAGES_4K;
		cfg.param[kernel_param_index(gup, "buffer_mib")] = 32;
		each_allocation_fails(gup, &cfg, " at page_size=4k, buffer_mib=32");
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_family_refuses_each_allocation),
		cmocka_unit_test(each_allocation_fails_at_each_largest_setting),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
