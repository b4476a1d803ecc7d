/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A results file's text and its JSON tree in one memory region.
 *
 * jansson builds 60,000 repetitions (a 52 MB file) as about 1.5 million
 * small allocations, 260 MB in all. Through malloc, on the 2-vCPU VM,
 * that costs about as much as the parse itself: malloc's bookkeeping,
 * ~75,000 page faults of 4 KB (a fault is expensive in a VM), and a
 * second walk to free them. A region gets the same memory by moving a
 * pointer, in pages faulted in ahead 8 MB at a time, huge where the
 * kernel allows; freeing a tree in it does nothing, and closing the
 * region returns it all at once.
 *
 * jansson's allocator is set once (json_set_alloc_funcs()) to functions
 * that use the region being filled, if any, and malloc() otherwise; a
 * free() of memory inside an open region does nothing. Memory from
 * either can be freed by either, so trees built before, beside or after
 * a region are unaffected. Regions are opened, filled and closed by one
 * thread, and no other thread may free a jansson value meanwhile: the
 * allocator is the process's, and json_region_free() reads the list of
 * open regions without a lock (bouncelab's report and compare are
 * single-threaded; a lock would cost every one of the 1.5 million frees).
 */
#ifndef BOUNCELAB_JSON_REGION_H
#define BOUNCELAB_JSON_REGION_H

#include <stdbool.h>
#include <stddef.h>

struct json_region;

/*
 * A region for a file of text_len bytes and its tree; NULL if it cannot
 * be mapped (everything then comes from malloc, only slower). Past the
 * space it reserves, allocations come from malloc too.
 */
struct json_region *json_region_open(size_t text_len);

/* len bytes from region (for the file's text), or from malloc. */
void *json_region_alloc(struct json_region *region, size_t len);

/* Frees what json_region_alloc() gave: nothing to do inside the region. */
void json_region_free(void *p);

/*
 * jansson allocates in region until json_region_stop(); NULL: in malloc.
 * json_region_stop() says whether an allocation failed meanwhile (jansson
 * then fails with no reason given): out of memory, not a bad file.
 */
void json_region_fill(struct json_region *region);
bool json_region_stop(void);

/*
 * Releases the region. Every tree in it must have been released first
 * (json_decref()): a tree's parts that came from malloc (set after the
 * parse, or past the reserved space) are freed then.
 */
void json_region_close(struct json_region *region);

#endif
