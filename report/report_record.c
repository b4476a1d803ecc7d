// SPDX-License-Identifier: GPL-2.0-only
/* The record of a report's files (report_record.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "input_file.h"
#include "plots.h"
#include "report_record.h"

/* A report of every family and sweep writes a few thousand names. */
#define RECORD_MAX_BYTES (16u << 20)
#define RECORD_HEADER "# bouncelab report: the files it wrote; report --force removes only these\n"

static const char *const record_dirs[] = { PLOT_DIR, CSV_DIR };

/* "plots/NAME" with NAME a plain file name, in one of record_dirs. */
static bool valid_name(const char *name)
{
	for (size_t i = 0; i < sizeof(record_dirs) / sizeof(record_dirs[0]); i++) {
		size_t n = strlen(record_dirs[i]);
		const char *base = name + n + 1;

		if (strncmp(name, record_dirs[i], n) || name[n] != '/')
			continue;
		return *base && !strchr(base, '/') && strcmp(base, ".") &&
		       strcmp(base, "..");
	}
	return false;
}

static int add(struct report_record *r, const char *name, size_t len)
{
	char *copy;

	if (r->nr == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 64;
		char **names = realloc(r->names, cap * sizeof(*names));

		if (!names)
			return -1;
		r->names = names;
		r->cap = cap;
	}
	copy = strndup(name, len);
	if (!copy)
		return -1;
	r->names[r->nr++] = copy;
	return 0;
}

static int compare_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void sort(struct report_record *r)
{
	if (r->nr)
		qsort(r->names, r->nr, sizeof(*r->names), compare_names);
}

int report_record_scan(struct report_record *r, const char *dir)
{
	memset(r, 0, sizeof(*r));
	for (size_t i = 0; i < sizeof(record_dirs) / sizeof(record_dirs[0]); i++) {
		char path[PATH_MAX + 32], name[NAME_MAX + 32];
		struct dirent *e;
		DIR *d;

		snprintf(path, sizeof(path), "%s/%s", dir, record_dirs[i]);
		d = opendir(path);
		if (!d)
			return errno == ENOENT ? 0 : -1;
		while ((e = readdir(d))) {
			struct stat st;

			if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) ||
			    !S_ISREG(st.st_mode))
				continue;
			snprintf(name, sizeof(name), "%s/%s", record_dirs[i], e->d_name);
			if (add(r, name, strlen(name))) {
				closedir(d);
				return -1;
			}
		}
		closedir(d);
	}
	sort(r);
	return 0;
}

int report_record_read(struct report_record *r, const char *dir)
{
	char path[PATH_MAX + 32], err[PATH_MAX + 128];
	char *text, *line, *next;
	size_t len;

	memset(r, 0, sizeof(*r));
	snprintf(path, sizeof(path), "%s/" REPORT_RECORD_NAME, dir);
	text = input_file_read(path, RECORD_MAX_BYTES, &len, err, sizeof(err));
	if (!text)
		return errno == ENOENT ? 0 : -1;
	r->present = true;
	for (line = text; *line; line = next) {
		size_t n = strcspn(line, "\n");

		next = line + n + (line[n] == '\n');
		line[n] = '\0';
		if (valid_name(line) && add(r, line, n)) {
			free(text);
			return -1;
		}
	}
	free(text);
	sort(r);
	return 0;
}

bool report_record_has(const struct report_record *r, const char *name)
{
	return r->nr && bsearch(&name, r->names, r->nr, sizeof(*r->names),
				compare_names);
}

char *report_record_text(const struct report_record *r, size_t *len)
{
	size_t size = strlen(RECORD_HEADER) + 1;
	char *text, *p;

	for (size_t i = 0; i < r->nr; i++)
		size += strlen(r->names[i]) + 1;
	text = malloc(size);
	if (!text)
		return NULL;
	p = stpcpy(text, RECORD_HEADER);
	for (size_t i = 0; i < r->nr; i++) {
		p = stpcpy(p, r->names[i]);
		*p++ = '\n';
	}
	*p = '\0';
	*len = (size_t)(p - text);
	return text;
}

void report_record_free(struct report_record *r)
{
	for (size_t i = 0; i < r->nr; i++)
		free(r->names[i]);
	free(r->names);
	memset(r, 0, sizeof(*r));
}
