// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "output.h"

static int write_all(int fd, const char *data, size_t len)
{
	while (len) {
		ssize_t n = write(fd, data, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		data += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Writes data into a new temporary file beside path, named in tmp. */
static int write_temp(const char *path, const char *data, size_t len,
		      char *tmp, size_t tmplen, char *err, size_t errlen)
{
	int fd;

	if (snprintf(tmp, tmplen, "%s.tmp.XXXXXX", path) >= (int)tmplen) {
		snprintf(err, errlen, "%s: path too long", path);
		return -1;
	}
	fd = mkstemp(tmp);
	if (fd < 0) {
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
		return -1;
	}
	if (write_all(fd, data, len) || fsync(fd) || fchmod(fd, 0644)) {
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
		close(fd);
		unlink(tmp);
		return -1;
	}
	if (close(fd)) {
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
		unlink(tmp);
		return -1;
	}
	return 0;
}

int output_write_file(const char *path, const char *data, size_t len,
		      char *err, size_t errlen)
{
	char tmp[PATH_MAX];

	if (write_temp(path, data, len, tmp, sizeof(tmp), err, errlen))
		return -1;
	if (rename(tmp, path)) {
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
		unlink(tmp);
		return -1;
	}
	return 0;
}

int output_write_new_file(const char *path, const char *data, size_t len,
			  char *err, size_t errlen)
{
	char tmp[PATH_MAX];
	int ret = 0;

	if (write_temp(path, data, len, tmp, sizeof(tmp), err, errlen))
		return -1;
	/* link() fails with EEXIST where rename() would replace: no race. */
	if (link(tmp, path)) {
		if (errno == EEXIST)
			snprintf(err, errlen, "%s: exists already: expected a new file", path);
		else
			snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
		ret = -1;
	}
	unlink(tmp);
	return ret;
}

int output_make_dirs(const char *dir, char *err, size_t errlen)
{
	char path[PATH_MAX];
	struct stat st;
	size_t len = strlen(dir);

	if (len == 0 || len >= sizeof(path)) {
		snprintf(err, errlen, "directory '%s': expected a path of 1 to %d characters",
			 dir, PATH_MAX - 1);
		return -1;
	}
	memcpy(path, dir, len + 1);
	for (char *p = path + 1; ; p++) {
		char saved = *p;

		if (saved != '/' && saved != '\0')
			continue;
		*p = '\0';
		if (mkdir(path, 0755) && errno != EEXIST) {
			snprintf(err, errlen, "cannot create directory %s: %s",
				 path, strerror(errno));
			return -1;
		}
		*p = saved;
		if (!saved)
			break;
	}
	if (stat(dir, &st) || !S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "'%s' exists and is not a directory: expected a directory",
			 dir);
		return -1;
	}
	return 0;
}

int output_check_writable(const char *path, char *err, size_t errlen)
{
	char dir[PATH_MAX];
	char probe[PATH_MAX + 32];
	struct stat st;
	char *slash;
	int fd;

	if (!stat(path, &st) && S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "output '%s' is a directory: expected a file path", path);
		return -1;
	}
	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else if (slash == dir)
		dir[1] = '\0';
	else
		*slash = '\0';
	if (output_make_dirs(dir, err, errlen))
		return -1;
	snprintf(probe, sizeof(probe), "%s/.bouncelab-probe.XXXXXX", dir);
	fd = mkstemp(probe);
	if (fd < 0) {
		snprintf(err, errlen, "cannot write to directory %s: %s", dir, strerror(errno));
		return -1;
	}
	close(fd);
	unlink(probe);
	return 0;
}
