// SPDX-License-Identifier: GPL-2.0-only
/*
 * Where the data read at run time lives: one answer for the model command
 * and the report's seed predictions alike, so that an installed program
 * never reaches back into the source tree it was built from.
 */
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "data_dir.h"

static bool has_profiles(const char *dir)
{
	char path[PATH_MAX];
	struct stat st;

	if ((size_t)snprintf(path, sizeof(path), "%s/profiles", dir) >= sizeof(path))
		return false;
	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

static int found(const char *where, char *dir, size_t len, char *err, size_t errlen)
{
	if ((size_t)snprintf(dir, len, "%s", where) < len)
		return 0;
	snprintf(err, errlen, "data directory '%s': expected a path of fewer than %zu bytes",
		 where, len);
	return -1;
}

/* The directory the running program is in, or "" when /proc cannot say. */
static void program_dir(char *buf, size_t len)
{
	ssize_t n = readlink("/proc/self/exe", buf, len - 1);
	char *slash;

	buf[n > 0 ? n : 0] = '\0';
	slash = strrchr(buf, '/');
	if (slash)
		*slash = '\0';
	else
		buf[0] = '\0';
}

/* Whether dir is root or below it. */
static bool is_under(const char *dir, const char *root)
{
	size_t n = strlen(root);

	return !strncmp(dir, root, n) && (dir[n] == '/' || !dir[n]);
}

int data_dir_find(char *dir, size_t len, char *err, size_t errlen)
{
	const char *env = getenv(DATA_DIR_ENV);
	char exe_dir[PATH_MAX], beside[PATH_MAX + 64], resolved[PATH_MAX], build_root[PATH_MAX];

	if (env && *env) {
		if (has_profiles(env))
			return found(env, dir, len, err, errlen);
		snprintf(err, errlen, "%s '%s': expected a data directory with profiles/ in it",
			 DATA_DIR_ENV, env);
		return -1;
	}
	program_dir(exe_dir, sizeof(exe_dir));
	/*
	 * Run from its build tree (tests too): the source tree's own files.
	 * The program's path has its links resolved: so has the root's.
	 */
	if (*exe_dir && realpath(BOUNCELAB_BUILD_ROOT, build_root) &&
	    is_under(exe_dir, build_root) && has_profiles(BOUNCELAB_SOURCE_DATA_DIR))
		return found(BOUNCELAB_SOURCE_DATA_DIR, dir, len, err, errlen);
	snprintf(beside, sizeof(beside), "%s/%s", *exe_dir ? exe_dir : "?",
		 BOUNCELAB_BINDIR_TO_DATADIR);
	if (*exe_dir && has_profiles(beside))
		return found(realpath(beside, resolved) ? resolved : beside, dir, len, err, errlen);
	if (has_profiles(BOUNCELAB_INSTALLED_DATA_DIR))
		return found(BOUNCELAB_INSTALLED_DATA_DIR, dir, len, err, errlen);
	snprintf(err, errlen, "no data directory: expected profiles/ in %s or %s (or set %s)",
		 beside, BOUNCELAB_INSTALLED_DATA_DIR, DATA_DIR_ENV);
	return -1;
}
