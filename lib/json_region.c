// SPDX-License-Identifier: GPL-2.0-only
#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "json_region.h"

/*
 * The space reserved per byte of text. jansson's tree of a results file
 * took 5 bytes a byte of text (260 MB for 52 MB, keys freed during the
 * parse included), plus the text itself: 8 leaves room. It is address
 * space only (MAP_NORESERVE): pages are used as the region fills.
 */
#define RESERVE_PER_BYTE 8
#define RESERVE_EXTRA (16UL << 20)

/*
 * Pages are faulted in this far ahead, in one call: one page fault at a
 * time was 0.2-0.6 s of the 60k-repetition report on the VM.
 */
#define POPULATE_STEP (8UL << 20)

/* malloc's alignment: jansson's structures hold doubles and pointers. */
#define ALIGN 16

struct json_region {
	char *base, *next, *populated, *end;
	bool populate;		/* MADV_POPULATE_WRITE works here */
};

/*
 * The open regions: a free() of memory in one of them does nothing. Read
 * by every jansson free in the process, unlocked: see json_region.h.
 */
static struct json_region **open_regions;
static size_t nr_open, cap_open;
static _Thread_local struct json_region *filling;
/* An allocation failed since json_region_fill(). */
static _Thread_local bool allocation_failed;

static bool inside(const struct json_region *r, const void *p)
{
	return (const char *)p >= r->base && (const char *)p < r->end;
}

static void *region_take(struct json_region *r, size_t len)
{
	size_t need = len ? (len + ALIGN - 1) & ~(size_t)(ALIGN - 1) : ALIGN;
	char *p = r->next;

	if (need < len || need > (size_t)(r->end - r->next))
		return NULL;
	r->next += need;
#ifdef MADV_POPULATE_WRITE
	while (r->populate && r->next > r->populated) {
		size_t step = (size_t)(r->end - r->populated) < POPULATE_STEP ?
			(size_t)(r->end - r->populated) : POPULATE_STEP;

		/* Before Linux 5.14 it fails: pages then fault in one by one. */
		if (madvise(r->populated, step, MADV_POPULATE_WRITE))
			r->populate = false;
		r->populated += step;
	}
#endif
	return p;
}

static void *jansson_alloc(size_t len)
{
	void *p = filling ? region_take(filling, len) : NULL;

	if (!p)
		p = malloc(len);
	/* jansson gives up with an empty error text: we remember why. */
	if (!p)
		allocation_failed = true;
	return p;
}

void json_region_free(void *p)
{
	if (!p || (filling && inside(filling, p)))
		return;
	for (size_t i = 0; i < nr_open; i++)
		if (inside(open_regions[i], p))
			return;
	free(p);
}

static int grow_registry(void)
{
	size_t cap = cap_open ? 2 * cap_open : 8;
	struct json_region **grown = realloc(open_regions, cap * sizeof(*grown));

	if (!grown)
		return -1;
	open_regions = grown;
	cap_open = cap;
	return 0;
}

/* Sanitizer builds keep every allocation where they can check it. */
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define NO_REGIONS 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define NO_REGIONS 1
#endif

struct json_region *json_region_open(size_t text_len)
{
	struct json_region *r;
	size_t size;
	void *base;

#ifdef NO_REGIONS
	return NULL;
#endif
	if (text_len > (SIZE_MAX / 4 - RESERVE_EXTRA) / RESERVE_PER_BYTE)
		return NULL;
	size = text_len * RESERVE_PER_BYTE + RESERVE_EXTRA;
	if (nr_open == cap_open && grow_registry())
		return NULL;
	r = malloc(sizeof(*r));
	if (!r)
		return NULL;
	base = mmap(NULL, size, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (base == MAP_FAILED) {
		free(r);
		return NULL;
	}
	/* Huge pages where the kernel gives them: 512 times fewer faults. */
	madvise(base, size, MADV_HUGEPAGE);
	*r = (struct json_region){ base, base, base, (char *)base + size, true };
	open_regions[nr_open++] = r;
	return r;
}

void *json_region_alloc(struct json_region *region, size_t len)
{
	void *p = region ? region_take(region, len) : NULL;

	return p ? p : malloc(len);
}

void json_region_fill(struct json_region *region)
{
	static bool allocator_set;

	/*
	 * Once for the process, region or not (it also notes failures): a
	 * tree allocated before by malloc() is freed by free() all the same.
	 */
	if (!allocator_set) {
		json_set_alloc_funcs(jansson_alloc, json_region_free);
		allocator_set = true;
	}
	filling = region;
	allocation_failed = false;
}

bool json_region_stop(void)
{
	filling = NULL;
	return allocation_failed;
}

void json_region_close(struct json_region *region)
{
	if (!region)
		return;
	if (filling == region)
		filling = NULL;
	for (size_t i = 0; i < nr_open; i++) {
		if (open_regions[i] != region)
			continue;
		open_regions[i] = open_regions[--nr_open];
		break;
	}
	munmap(region->base, (size_t)(region->end - region->base));
	free(region);
}
