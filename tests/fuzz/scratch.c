// SPDX-License-Identifier: GPL-2.0-only
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "scratch.h"

static char dir[PATH_MAX / 2];
static int saved_cwd = -1;

static void die(const char *what)
{
	perror(what);
	abort();
}

static void remove_dir_at_exit(void)
{
	scratch_clean();
	rmdir(dir);
}

const char *scratch_dir(void)
{
	if (!dir[0]) {
		const char *tmp = getenv("TMPDIR");

		snprintf(dir, sizeof(dir), "%s/bouncelab-fuzz.XXXXXX",
			 tmp && strlen(tmp) < sizeof(dir) - 32 ? tmp : "/tmp");
		if (!mkdtemp(dir))
			die(dir);
		atexit(remove_dir_at_exit);
	}
	return dir;
}

void scratch_path(char *buf, const char *name)
{
	if (snprintf(buf, PATH_MAX, "%s/%s", scratch_dir(), name) >= PATH_MAX)
		die(name);
}

void scratch_write(const char *name, const void *data, size_t len)
{
	char path[PATH_MAX];
	FILE *f;

	scratch_path(path, name);
	f = fopen(path, "w");
	if (!f || (len && fwrite(data, 1, len, f) != len) || fclose(f))
		die(path);
}

void scratch_enter(void)
{
	saved_cwd = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (saved_cwd < 0 || chdir(scratch_dir()))
		die("scratch_enter");
}

void scratch_leave(void)
{
	if (fchdir(saved_cwd))
		die("scratch_leave");
	close(saved_cwd);
	saved_cwd = -1;
	scratch_clean();
}

static int remove_entry(const char *path, const struct stat *st, int flag,
			struct FTW *ftw)
{
	(void)st;
	(void)flag;
	return ftw->level ? remove(path) : 0;
}

void scratch_clean(void)
{
	if (dir[0])
		nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}
