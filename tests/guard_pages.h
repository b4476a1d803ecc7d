/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Blocks against an inaccessible page, for the tests that look for reads
 * and writes one past an array: while guard_pages_on, every malloc(),
 * calloc(), realloc() and strdup() of the program's own code (linked with
 * -Wl,--wrap for each, and for free()) gets pages of its own, its bytes
 * ending where the inaccessible page begins (GUARD_AFTER) or starting
 * where it ends (GUARD_BEFORE). A block's bytes start as 0xa5, not zero,
 * so that a read of what was never written shows too. Freed, a block is
 * unmapped: a pointer kept to it faults as well. Blocks of the C
 * library's own and of other libraries are theirs, and their free() goes
 * to the C library's.
 */
#ifndef BOUNCELAB_TESTS_GUARD_PAGES_H
#define BOUNCELAB_TESTS_GUARD_PAGES_H

#include <stdbool.h>
#include <stddef.h>

enum guard_side { GUARD_AFTER, GUARD_BEFORE };

extern bool guard_pages_on;
/* where the next blocks lie against their page */
extern enum guard_side guard_side;
/* the allocation (0-based, counted while on) that fails; -1: none */
extern long guard_failing_allocation;
extern long guard_nr_allocations;
/* blocks made, and the most alive at once */
extern size_t guard_nr_blocks, guard_most_live;

/* A block of size > 0 bytes against its page, whether on or not; NULL: no memory. */
void *guard_alloc(size_t size);
/* Frees p if it is a guarded block; false if it is not one. */
bool guard_free(void *p);

#endif
