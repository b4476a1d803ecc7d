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

int output_write_all(int fd, const char *data, size_t len)
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

int output_temp_template(char *buf, size_t len, const char *path)
{
	int n = snprintf(buf, len, "%s" OUTPUT_TEMP_MARK "%ld.XXXXXX", path,
			 (long)getpid());

	return n < 0 || (size_t)n >= len ? -1 : 0;
}

static void parent_of(const char *path, char *dir, size_t len)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		snprintf(dir, len, ".");
	else
		snprintf(dir, len, "%.*s", slash == path ? 1 : (int)(slash - path), path);
}

/*
 * An unnamed file in path's directory (O_TMPFILE): a process killed while
 * writing it, even by SIGKILL, leaves nothing behind. -1 where the file
 * system has no O_TMPFILE; the caller then names a temporary file.
 */
static int open_unnamed(const char *path)
{
	char dir[PATH_MAX];

	parent_of(path, dir, sizeof(dir));
	return open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0644);
}

/* Gives the unnamed file fd the name name; fails with EEXIST as link(). */
static int link_unnamed(int fd, const char *name)
{
	char proc[64];

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	return linkat(AT_FDCWD, proc, AT_FDCWD, name, AT_SYMLINK_FOLLOW);
}

static int fail(const char *path, char *err, size_t errlen)
{
	snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
	return -1;
}

/*
 * Writes data, whole and on disk, to a file that only appears at path
 * (a new path) or at a temporary name in tmp (to be renamed over path).
 */
static int write_durable(const char *path, const char *data, size_t len,
			 bool replace, char *tmp, size_t tmplen, char *err,
			 size_t errlen)
{
	int fd = open_unnamed(path);
	bool named = fd < 0;

	if (output_temp_template(tmp, tmplen, path)) {
		if (fd >= 0)
			close(fd);
		snprintf(err, errlen, "%s: path too long", path);
		return -1;
	}
	if (named) {
		fd = mkstemp(tmp);
		if (fd < 0)
			return fail(path, err, errlen);
	}
	if (output_write_all(fd, data, len) || fchmod(fd, 0644) || fsync(fd)) {
		fail(path, err, errlen);
		close(fd);
		if (named)
			unlink(tmp);
		return -1;
	}
	if (!named) {
		/* New path: the link is the commit, and refuses an existing file. */
		if (!replace) {
			tmp[0] = '\0';
			if (link_unnamed(fd, path)) {
				if (errno == EEXIST)
					snprintf(err, errlen, "%s: exists already: expected a new file", path);
				else
					fail(path, err, errlen);
				close(fd);
				return -1;
			}
			close(fd);
			return 0;
		}
		/* Replacing: a name that lives only until the rename. */
		for (unsigned int i = 0; ; i++) {
			snprintf(tmp, tmplen, "%s" OUTPUT_TEMP_MARK "%ld.%06x", path,
				 (long)getpid(),
				 ((unsigned int)getpid() * 2654435761u + i) & 0xffffff);
			if (!link_unnamed(fd, tmp))
				break;
			if (errno != EEXIST || i > 100) {
				fail(path, err, errlen);
				close(fd);
				return -1;
			}
		}
	}
	if (close(fd)) {
		fail(path, err, errlen);
		unlink(tmp);
		return -1;
	}
	return 0;
}

int output_write_file(const char *path, const char *data, size_t len,
		      char *err, size_t errlen)
{
	char tmp[PATH_MAX];

	if (write_durable(path, data, len, true, tmp, sizeof(tmp), err, errlen))
		return -1;
	if (rename(tmp, path)) {
		fail(path, err, errlen);
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

	if (write_durable(path, data, len, false, tmp, sizeof(tmp), err, errlen))
		return -1;
	if (!*tmp)
		return 0;
	/* link() fails with EEXIST where rename() would replace: no race. */
	if (link(tmp, path)) {
		if (errno == EEXIST)
			snprintf(err, errlen, "%s: exists already: expected a new file", path);
		else
			fail(path, err, errlen);
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

int output_batch_add(struct output_batch *batch, const char *path,
		     char *data, size_t len)
{
	char *copy = strdup(path);

	if (!copy || !data) {
		free(copy);
		free(data);
		return -1;
	}
	if (batch->nr == batch->cap) {
		size_t cap = batch->cap ? batch->cap * 2 : 32;
		struct output_file *f = realloc(batch->files, cap * sizeof(*f));

		if (!f) {
			free(copy);
			free(data);
			return -1;
		}
		batch->files = f;
		batch->cap = cap;
	}
	batch->files[batch->nr++] = (struct output_file){ copy, data, len };
	return 0;
}

static void remove_temporaries(char (*tmp)[PATH_MAX], size_t nr)
{
	for (size_t i = 0; i < nr; i++)
		unlink(tmp[i]);
}

/* Writes one temporary file beside path; its name goes to tmp. */
static int write_temporary(const struct output_file *f, bool durable, char *tmp,
			   char *err, size_t errlen)
{
	int fd;

	if (output_temp_template(tmp, PATH_MAX, f->path)) {
		snprintf(err, errlen, "%s: path too long", f->path);
		return -1;
	}
	fd = mkstemp(tmp);
	if (fd < 0) {
		snprintf(err, errlen, "cannot write %s: %s", f->path, strerror(errno));
		return -1;
	}
	if (output_write_all(fd, f->data, f->len) || fchmod(fd, 0644) ||
	    (durable && fsync(fd))) {
		snprintf(err, errlen, "cannot write %s: %s", f->path, strerror(errno));
		close(fd);
		unlink(tmp);
		return -1;
	}
	if (close(fd)) {
		snprintf(err, errlen, "cannot write %s: %s", f->path, strerror(errno));
		unlink(tmp);
		return -1;
	}
	return 0;
}

int output_batch_commit(struct output_batch *batch, char *err, size_t errlen)
{
	char (*tmp)[PATH_MAX] = calloc(batch->nr ? batch->nr : 1, PATH_MAX);
	size_t written = 0;
	int ret = -1;

	if (!tmp) {
		snprintf(err, errlen, "out of memory writing the report");
		return -1;
	}
	for (; written < batch->nr; written++)
		if (write_temporary(&batch->files[written], written + 1 == batch->nr,
				    tmp[written], err, errlen))
			goto out;
	for (size_t i = 0; i < batch->nr; i++) {
		if (rename(tmp[i], batch->files[i].path)) {
			snprintf(err, errlen, "cannot write %s: %s",
				 batch->files[i].path, strerror(errno));
			remove_temporaries(tmp + i, batch->nr - i);
			free(tmp);
			return -1;
		}
	}
	ret = 0;
	written = 0;
out:
	remove_temporaries(tmp, written);
	free(tmp);
	return ret;
}

void output_batch_free(struct output_batch *batch)
{
	for (size_t i = 0; i < batch->nr; i++) {
		free(batch->files[i].path);
		free(batch->files[i].data);
	}
	free(batch->files);
	memset(batch, 0, sizeof(*batch));
}
