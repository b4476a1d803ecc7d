/* SPDX-License-Identifier: GPL-2.0-only */
/* Helpers the test programs share. */
#ifndef BOUNCELAB_TEST_UTIL_H
#define BOUNCELAB_TEST_UTIL_H

/* Removes path and everything below it, links not followed. 0 or -1. */
int remove_tree(const char *path);

#endif
