// SPDX-License-Identifier: GPL-2.0-only
/* The results journal (journal.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "input_file.h"
#include "journal.h"
#include "results_read.h"
#include "output.h"

/* One compact line (jansson escapes newlines in strings), flushed. */
static int append_line(struct journal *j, json_t *obj, char *err, size_t errlen)
{
	char *text = json_dumps(obj, JSON_COMPACT);
	size_t len;
	int ret = 0;

	if (!text) {
		snprintf(err, errlen, "%s: cannot encode a row", j->path);
		return -1;
	}
	len = strlen(text);
	text[len] = '\n';	/* json_dumps() left room for its NUL */
	if (output_write_all(j->fd, text, len + 1) || fdatasync(j->fd)) {
		snprintf(err, errlen, "cannot write the journal %s: %s", j->path,
			 strerror(errno));
		ret = -1;
	}
	free(text);
	return ret;
}

/* The directory entry of a new file must reach the disk too. */
static void sync_parent(const char *path)
{
	char dir[PATH_MAX];
	const char *slash = strrchr(path, '/');
	int fd;

	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else
		snprintf(dir, sizeof(dir), "%.*s", slash == path ? 1 : (int)(slash - path),
			 path);
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
}

int journal_create(struct journal *j, const char *results_path,
		   json_t *context, unsigned int total, char *err, size_t errlen)
{
	json_t *header;
	int ret;

	if (snprintf(j->path, sizeof(j->path), "%s" JOURNAL_SUFFIX, results_path) >=
	    (int)sizeof(j->path)) {
		snprintf(err, errlen, "%s: path too long for its journal", results_path);
		return -1;
	}
	/*
	 * Unnamed until its header is on disk, then linked in (O_TMPFILE):
	 * a kill between the two never leaves a journal without a header.
	 */
	{
		char dir[PATH_MAX];
		const char *slash = strrchr(j->path, '/');

		if (!slash)
			snprintf(dir, sizeof(dir), ".");
		else
			snprintf(dir, sizeof(dir), "%.*s",
				 slash == j->path ? 1 : (int)(slash - j->path), j->path);
		j->fd = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0644);
		j->unnamed = j->fd >= 0;
	}
	if (!j->unnamed)
		j->fd = open(j->path, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC |
				      O_NOFOLLOW, 0644);
	if (j->fd < 0) {
		snprintf(err, errlen, "cannot create the journal %s: %s", j->path,
			 strerror(errno));
		return -1;
	}
	header = json_object();
	json_object_set_new(header, "bouncelab_journal", json_integer(JOURNAL_VERSION));
	json_object_set_new(header, "total", json_integer(total));
	json_object_set(header, "context", context);
	/* The magic is the first key: json_dumps keeps insertion order. */
	ret = append_line(j, header, err, errlen);
	json_decref(header);
	if (!ret && j->unnamed) {
		char proc[64];

		snprintf(proc, sizeof(proc), "/proc/self/fd/%d", j->fd);
		if (linkat(AT_FDCWD, proc, AT_FDCWD, j->path, AT_SYMLINK_FOLLOW)) {
			snprintf(err, errlen, "cannot create the journal %s: %s", j->path,
				 strerror(errno));
			close(j->fd);
			j->fd = -1;
			return -1;
		}
	}
	if (ret || fsync(j->fd)) {
		if (!ret)
			snprintf(err, errlen, "cannot write the journal %s: %s", j->path,
				 strerror(errno));
		journal_close(j, true);
		return -1;
	}
	sync_parent(j->path);
	return 0;
}

int journal_append(struct journal *j, json_t *row, char *err, size_t errlen)
{
	return append_line(j, row, err, errlen);
}

void journal_close(struct journal *j, bool remove)
{
	if (j->fd < 0)
		return;
	close(j->fd);
	j->fd = -1;
	if (remove) {
		unlink(j->path);
		sync_parent(j->path);
	}
}

bool journal_is(const char *text, size_t len)
{
	size_t magic = strlen(JOURNAL_MAGIC);

	return len >= magic && !memcmp(text, JOURNAL_MAGIC, magic);
}

/* A row as the run wrote it, as far as a journal reader can tell. */
static bool is_row(const json_t *obj)
{
	return json_is_object(obj) && json_is_string(json_object_get(obj, "name"));
}

json_t *journal_parse(const char *text, size_t len, const char *path,
		      bool mark_incomplete, size_t *nr_rows, size_t *total,
		      size_t *nr_damaged, char *err, size_t errlen)
{
	json_t *doc = NULL, *rows = json_array(), *header = NULL, *context;
	const char *end = text + len;
	unsigned int line = 0;
	json_error_t jerr;
	json_int_t total_v;
	size_t refused;

	*nr_rows = 0;
	*total = 0;
	*nr_damaged = 0;
	for (const char *p = text; p < end; ) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		json_t *obj;

		/* Cut short while being written: not a finished repetition. */
		if (!nl)
			break;
		line++;
		obj = json_loadb(p, (size_t)(nl - p), JSON_REJECT_DUPLICATES, &jerr);
		p = nl + 1;
		if (line > 1 && !is_row(obj)) {
			(*nr_damaged)++;
			json_decref(obj);
			continue;
		}
		if (!json_is_object(obj)) {
			snprintf(err, errlen, "%s:%u: a broken journal line: %s", path, line,
				 obj ? "expected an object" : jerr.text);
			json_decref(obj);
			goto fail;
		}
		if (line == 1) {
			header = obj;
			continue;
		}
		json_array_append_new(rows, obj);
	}
	context = json_object_get(header, "context");
	if (!json_is_object(context) ||
	    !json_is_integer(json_object_get(header, "total"))) {
		snprintf(err, errlen, "%s:1: expected the journal's header: {\"bouncelab_journal\": 1, \"total\": N, \"context\": {...}}",
			 path);
		goto fail;
	}
	if (json_integer_value(json_object_get(header, "bouncelab_journal")) != JOURNAL_VERSION ||
	    !json_is_integer(json_object_get(header, "bouncelab_journal"))) {
		snprintf(err, errlen, "%s:1: a journal of another format (bouncelab_journal is not %d): expected one this bouncelab wrote; recover it with the bouncelab that made it",
			 path, JOURNAL_VERSION);
		goto fail;
	}
	/* A line the results reader would refuse is damaged too. */
	if (results_keep_readable_rows(context, rows, path, &refused, err, errlen))
		goto fail;
	*nr_damaged += refused;
	*nr_rows = json_array_size(rows);
	/* A run's count of repetitions (cli/cmd_run.c keeps it unsigned). */
	total_v = json_integer_value(json_object_get(header, "total"));
	if (total_v < 1 || total_v > UINT_MAX || (size_t)total_v < *nr_rows) {
		snprintf(err, errlen, "%s:1: total %" JSON_INTEGER_FORMAT ": expected the run's count of repetitions, from %zu (the lines that follow) to %u",
			 path, total_v, *nr_rows ? *nr_rows : 1, UINT_MAX);
		goto fail;
	}
	*total = (size_t)total_v;
	doc = json_object();
	json_object_set(doc, "context", context);
	json_object_set(doc, "benchmarks", rows);
	if (mark_incomplete && !json_object_get(context, "incomplete")) {
		char why[200];
		int n = snprintf(why, sizeof(why), "recovered from the journal: %zu of %zu repetitions finished before the run stopped",
				 *nr_rows, *total);

		if (*nr_damaged && n > 0 && (size_t)n < sizeof(why))
			snprintf(why + n, sizeof(why) - (size_t)n, "; %zu damaged journal lines skipped",
				 *nr_damaged);
		json_object_set_new(context, "incomplete", json_string(why));
	}
fail:
	json_decref(header);
	json_decref(rows);
	return doc;
}

json_t *journal_load(const char *path, bool mark_incomplete, size_t *nr_rows, size_t *total,
		     size_t *nr_damaged, char *err, size_t errlen)
{
	char why[768];
	size_t len;
	char *text = input_file_read(path, JOURNAL_MAX_BYTES, &len, why, sizeof(why));
	json_t *doc = NULL;

	if (!text) {
		snprintf(err, errlen, "cannot read the journal: %s", why);
		return NULL;
	}
	if (!journal_is(text, len))
		snprintf(err, errlen, "%s: not a bouncelab journal: expected its first line to start %s",
			 path, JOURNAL_MAGIC);
	else
		doc = journal_parse(text, len, path, mark_incomplete, nr_rows, total,
				    nr_damaged, err, errlen);
	free(text);
	return doc;
}
