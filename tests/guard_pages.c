// SPDX-License-Identifier: GPL-2.0-only
/* Blocks against an inaccessible page (guard_pages.h). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "guard_pages.h"

struct guarded {
	void *data;		/* NULL: free slot; FREED: a slot to probe past */
	void *map;
	size_t map_len, size;
};

#define FREED ((void *)1)
/* Open addressing: live blocks stay below a sixteenth of it. */
#define TABLE_BITS 19
#define TABLE_SIZE (1UL << TABLE_BITS)

static struct guarded table[TABLE_SIZE];
static size_t nr_live;

bool guard_pages_on;
enum guard_side guard_side;
long guard_failing_allocation = -1;
long guard_nr_allocations;
size_t guard_nr_blocks, guard_most_live;

static size_t slot_of(const void *p)
{
	return (size_t)(((uintptr_t)p >> 4) * 0x9e3779b97f4a7c15ULL >> (64 - TABLE_BITS));
}

static struct guarded *find(const void *p)
{
	for (size_t i = slot_of(p), n = 0; n < TABLE_SIZE; i = (i + 1) % TABLE_SIZE, n++) {
		if (!table[i].data)
			return NULL;
		if (table[i].data == p)
			return &table[i];
	}
	return NULL;
}

/* The alignment malloc() would owe the block, as far as its size allows. */
static size_t alignment_of(size_t size)
{
	return size % 16 == 0 ? 16 : size % 8 == 0 ? 8 : size % 4 == 0 ? 4 :
	       size % 2 == 0 ? 2 : 1;
}

void *guard_alloc(size_t size)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t data_pages = (size + page - 1) / page, len = (data_pages + 1) * page;
	char *map, *data, *guard;
	size_t i;

	if (guard_pages_on && guard_nr_allocations++ == guard_failing_allocation)
		return NULL;
	if (nr_live >= TABLE_SIZE / 16) {
		fputs("guard_pages: more live blocks than the table holds\n", stderr);
		_exit(1);
	}
	map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (map == MAP_FAILED)
		return NULL;
	guard = guard_side == GUARD_AFTER ? map + data_pages * page : map;
	if (mprotect(guard, page, PROT_NONE)) {
		munmap(map, len);
		return NULL;
	}
	if (guard_side == GUARD_AFTER) {
		data = guard - size;
		data -= (uintptr_t)data % alignment_of(size);
	} else {
		data = map + page;
	}
	memset(data, 0xa5, size);
	for (i = slot_of(data); table[i].data && table[i].data != FREED; i = (i + 1) % TABLE_SIZE)
		;
	table[i] = (struct guarded){ data, map, len, size };
	guard_nr_blocks++;
	if (++nr_live > guard_most_live)
		guard_most_live = nr_live;
	return data;
}

static void unmap(struct guarded *g)
{
	munmap(g->map, g->map_len);
	g->data = FREED;
	nr_live--;
}

bool guard_free(void *p)
{
	struct guarded *g = p ? find(p) : NULL;

	if (g)
		unmap(g);
	return g;
}

void *__real_malloc(size_t size);
void *__wrap_malloc(size_t size);
void *__real_calloc(size_t nmemb, size_t size);
void *__wrap_calloc(size_t nmemb, size_t size);
void *__real_realloc(void *p, size_t size);
void *__wrap_realloc(void *p, size_t size);
char *__real_strdup(const char *s);
char *__wrap_strdup(const char *s);
void __real_free(void *p);
void __wrap_free(void *p);

void *__wrap_malloc(size_t size)
{
	return guard_pages_on && size ? guard_alloc(size) : __real_malloc(size);
}

void *__wrap_calloc(size_t nmemb, size_t size)
{
	void *p;

	if (!guard_pages_on || !nmemb || !size || size > SIZE_MAX / nmemb)
		return __real_calloc(nmemb, size);
	p = guard_alloc(nmemb * size);
	if (p)
		memset(p, 0, nmemb * size);
	return p;
}

void *__wrap_realloc(void *p, size_t size)
{
	struct guarded *g = p ? find(p) : NULL;
	void *q;

	if (!g)
		return guard_pages_on && !p && size ? guard_alloc(size) : __real_realloc(p, size);
	if (!size) {
		unmap(g);
		return NULL;
	}
	q = guard_alloc(size);
	if (!q)
		return NULL;
	memcpy(q, p, g->size < size ? g->size : size);
	unmap(g);
	return q;
}

char *__wrap_strdup(const char *s)
{
	size_t len = strlen(s) + 1;
	char *p;

	if (!guard_pages_on)
		return __real_strdup(s);
	p = guard_alloc(len);
	if (p)
		memcpy(p, s, len);
	return p;
}

void __wrap_free(void *p)
{
	if (!guard_free(p))
		__real_free(p);
}
