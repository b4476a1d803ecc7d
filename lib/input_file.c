// SPDX-License-Identifier: GPL-2.0-only
/* The rule for every input file bouncelab reads (input_file.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "input_file.h"
#include "json_region.h"

static const char *kind_of(mode_t mode)
{
	if (S_ISDIR(mode))
		return "a directory";
	if (S_ISFIFO(mode))
		return "a FIFO";
	if (S_ISCHR(mode) || S_ISBLK(mode))
		return "a device";
	if (S_ISSOCK(mode))
		return "a socket";
	return "not a plain file";
}

int input_file_open(const char *path, size_t max_bytes, size_t *size, char *err,
		    size_t errlen)
{
	struct stat st;
	int fd, saved;

	/* O_NONBLOCK: opening a FIFO with no writer returns at once. */
	fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0) {
		saved = errno;
		snprintf(err, errlen, "'%s': cannot read: %s", path, strerror(saved));
		errno = saved;
		return -1;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "'%s': not a regular file (%s): expected a regular file",
			 path, kind_of(st.st_mode));
		close(fd);
		errno = EINVAL;
		return -1;
	}
	if ((unsigned long long)st.st_size > max_bytes) {
		snprintf(err, errlen, "'%s': %lld bytes: expected a regular file of at most %zu bytes",
			 path, (long long)st.st_size, max_bytes);
		close(fd);
		errno = EFBIG;
		return -1;
	}
	/* A regular file's reads never block; the flag only served the open. */
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	*size = (size_t)st.st_size;
	return fd;
}

/* Up to len bytes from fd; a file that shrank since fstat() reads short. */
static int read_up_to(int fd, char *buf, size_t len, size_t *got)
{
	size_t used = 0;
	ssize_t n;

	while (used < len) {
		n = read(fd, buf + used, len - used);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (n == 0)
			break;
		used += (size_t)n;
	}
	*got = used;
	return 0;
}

char *input_file_read(const char *path, size_t max_bytes, size_t *len, char *err,
		      size_t errlen)
{
	size_t size;
	char *buf;
	int fd = input_file_open(path, max_bytes, &size, err, errlen), saved;

	if (fd < 0)
		return NULL;
	buf = malloc(size + 1);
	if (!buf) {
		snprintf(err, errlen, "out of memory reading %s", path);
		close(fd);
		errno = ENOMEM;
		return NULL;
	}
	if (read_up_to(fd, buf, size, len)) {
		saved = errno;
		snprintf(err, errlen, "%s: cannot read: %s", path, strerror(saved));
		free(buf);
		close(fd);
		errno = saved;
		return NULL;
	}
	close(fd);
	buf[*len] = '\0';
	return buf;
}

json_t *input_file_json(const char *path, size_t max_bytes, int *status, char *err,
			size_t errlen)
{
	json_error_t jerr;
	size_t len;
	char *text = input_file_read(path, max_bytes, &len, err, errlen);
	json_t *doc;

	if (!text) {
		*status = errno == ENOMEM ? 1 : 2;
		return NULL;
	}
	/* No region: jansson uses malloc, and a failed one is seen. */
	json_region_fill(NULL);
	doc = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
	if (json_region_stop()) {
		json_decref(doc);
		doc = NULL;
		snprintf(err, errlen, "out of memory reading %s", path);
		*status = 1;
	} else if (!doc) {
		snprintf(err, errlen, "%s:%d:%d: not valid JSON: %s", path, jerr.line,
			 jerr.column, jerr.text);
		*status = 2;
	}
	free(text);
	return doc;
}
