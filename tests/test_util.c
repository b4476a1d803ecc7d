// SPDX-License-Identifier: GPL-2.0-only
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

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

int run_quietly(const char *program, void (*in_child)(void),
		const char *first, va_list ap)
{
	char *argv[32] = { (char *)program };
	unsigned int n = 1;
	pid_t pid;
	int status;

	for (const char *a = first; a && n < 31; a = va_arg(ap, const char *))
		argv[n++] = (char *)a;
	argv[n] = NULL;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		dup2(null, STDOUT_FILENO);
		if (in_child)
			in_child();
		execv(program, argv);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return status;
}

int make_temp_file(char *path)
{
	int fd = mkstemp(path);

	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

int enter_temp_dir(char *dir, size_t len, const char *name)
{
	snprintf(dir, len, "/tmp/bouncelab-%s-XXXXXX", name);
	return mkdtemp(dir) && !chdir(dir) ? 0 : -1;
}

int leave_temp_dir(const char *dir)
{
	if (chdir("/"))
		return -1;
	return remove_tree(dir);
}
