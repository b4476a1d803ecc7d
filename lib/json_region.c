// SPDX-License-Identifier: GPL-2.0-only
#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
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
 * Pages are faulted in ahead, in one call: one page fault at a time was
 * 0.2-0.6 s of the 60k-repetition report on the VM. About a text's
 * length at a time (a tree takes five), between these bounds: a step of
 * 8 MB for every file made a 400-file fleet 3.8 GB resident, 9 MB for
 * each 137 KB file.
 */
#define POPULATE_MIN (256UL << 10)
#define POPULATE_MAX (8UL << 20)

/* Huge pages only for texts this long: a smaller tree fits in one. */
#define HUGE_FROM (4UL << 20)

/* malloc's alignment: jansson's structures hold doubles and pointers. */
#define ALIGN 16

struct json_region {
	char *base, *next, *populated, *end;
	size_t step;		/* bytes faulted in ahead at a time */
	bool populate;		/* MADV_POPULATE_WRITE works here */
};

/*
 * The open regions, ordered by address: a free() of memory in one of
 * them does nothing. Searched by every jansson free in the process
 * (halving, as a fleet keeps hundreds open), unlocked: see json_region.h.
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
		size_t step = (size_t)(r->end - r->populated) < r->step ?
			(size_t)(r->end - r->populated) : r->step;

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

/* The index of the first open region whose base is above p. */
static size_t regions_above(const void *p)
{
	size_t lo = 0, hi = nr_open;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if ((const char *)p < open_regions[mid]->base)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

void json_region_free(void *p)
{
	size_t i;

	if (!p || (filling && inside(filling, p)))
		return;
	i = regions_above(p);
	if (i > 0 && inside(open_regions[i - 1], p))
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
	size_t size, i;
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
	if (text_len >= HUGE_FROM)
		madvise(base, size, MADV_HUGEPAGE);
	*r = (struct json_region){ base, base, base, (char *)base + size,
				   text_len < POPULATE_MIN ? POPULATE_MIN :
				   text_len > POPULATE_MAX ? POPULATE_MAX : text_len, true };
	i = regions_above(base);
	memmove(&open_regions[i + 1], &open_regions[i], (nr_open - i) * sizeof(*open_regions));
	open_regions[i] = r;
	nr_open++;
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
		memmove(&open_regions[i], &open_regions[i + 1],
			(nr_open - i - 1) * sizeof(*open_regions));
		nr_open--;
		break;
	}
	munmap(region->base, (size_t)(region->end - region->base));
	free(region);
}
