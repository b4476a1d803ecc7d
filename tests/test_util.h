/* SPDX-License-Identifier: GPL-2.0-only */
/* Helpers the test programs share. */
#ifndef BOUNCELAB_TEST_UTIL_H
#define BOUNCELAB_TEST_UTIL_H

#include <stdarg.h>
#include <stddef.h>

/* Removes path and everything below it, links not followed. 0 or -1. */
int remove_tree(const char *path);

/*
 * Runs program with the arguments first, ... (NULL-terminated, at most
 * 30), its stdout sent to /dev/null. in_child, if not NULL, runs in the
 * child before the exec (it may _exit()). Returns the wait status, or -1
 * if the child could not be started.
 */
int run_quietly(const char *program, void (*in_child)(void),
		const char *first, va_list ap);

/*
 * Creates the file a mkstemp() template names (the template becomes its
 * name), for a cmocka group's setup: 0, or -1 when it cannot.
 */
int make_temp_file(char *path);

/*
 * A cmocka group's working directory: /tmp/bouncelab-NAME-XXXXXX made
 * (its name in dir) and entered; left and removed with all below it.
 * 0, or -1 when it cannot.
 */
int enter_temp_dir(char *dir, size_t len, const char *name);
int leave_temp_dir(const char *dir);

#endif
