// SPDX-License-Identifier: GPL-2.0-only
#include <ftw.h>
#include <stdio.h>
#include <sys/stat.h>

#include "test_util.h"

static int remove_entry(const char *path, const struct stat *st, int flag,
			struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

int remove_tree(const char *path)
{
	return nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}
