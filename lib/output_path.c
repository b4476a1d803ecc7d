// SPDX-License-Identifier: GPL-2.0-only
/* The output-safety rule (output_path.h): one place, every command. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "output.h"
#include "output_path.h"

/* Tries to take the lock again when the file was replaced under us. */
#define LOCK_ATTEMPTS 10
/*
 * The probe reserves at most this much (writing more would cost time);
 * the rest of the estimate is checked against the free space.
 */
#define PROBE_MAX_BYTES (64u << 20)

static int refuse(char *err, size_t errlen, const char *fmt, const char *what,
		  const char *path)
{
	snprintf(err, errlen, fmt, what, path);
	return 2;
}

/* The directory part of path into dir ("." when there is none). */
static void parent_dir(const char *path, char *dir, size_t len)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		snprintf(dir, len, ".");
	else if (slash == path)
		snprintf(dir, len, "/");
	else
		snprintf(dir, len, "%.*s", (int)(slash - path), path);
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* Whether the claim made the output directory itself (a new report). */
static bool made_output_dir(const struct output_claim *c)
{
	return c->nr_created &&
	       c->created_len[c->nr_created - 1] == strlen(c->created_from);
}

/* What lstat() found at path, as the rule sees it. */
static int check_existing(struct output_claim *c, const char *what, bool force,
			  char *err, size_t errlen)
{
	struct stat st;

	if (lstat(c->path, &st)) {
		if (errno == ENOENT)
			return 0;
		if (errno == ENOTDIR)
			return refuse(err, errlen, "%s '%s': a part of the path is not a directory: expected a path in a directory",
				      what, c->path);
		if (errno == ENAMETOOLONG)
			return refuse(err, errlen, "%s '%s': a name in the path is too long: expected names of at most NAME_MAX bytes",
				      what, c->path);
		snprintf(err, errlen, "%s '%s': cannot check the path: %s", what,
			 c->path, strerror(errno));
		return 1;
	}
	if (S_ISLNK(st.st_mode))
		return refuse(err, errlen, "%s '%s': is a symbolic link: expected a path of its own (--force does not replace links)",
			      what, c->path);
	if (c->kind == OUTPUT_DIR) {
		if (!S_ISDIR(st.st_mode))
			return refuse(err, errlen, "%s '%s': exists and is not a directory: expected a directory",
				      what, c->path);
		c->exists = !made_output_dir(c);
		return 0;
	}
	if (S_ISDIR(st.st_mode))
		return refuse(err, errlen, "%s '%s': is a directory: expected a file path",
			      what, c->path);
	if (!S_ISREG(st.st_mode))
		return refuse(err, errlen, "%s '%s': exists and is not a regular file (a device, FIFO or socket): expected a file path (--force does not replace it)",
			      what, c->path);
	if (!force)
		return refuse(err, errlen, "%s '%s': the file exists: expected a new path, or --force to replace it",
			      what, c->path);
	c->exists = true;
	return 0;
}

/* Creates dir and its missing parents, recording each one it created. */
static int make_dirs(struct output_claim *c, const char *dir, char *err,
		     size_t errlen)
{
	char *path = c->created_from;

	snprintf(c->created_from, sizeof(c->created_from), "%s", dir);
	for (char *p = path + 1; ; p++) {
		char saved = *p;

		if (saved != '/' && saved != '\0')
			continue;
		*p = '\0';
		if (!mkdir(path, 0755)) {
			c->created_len[c->nr_created++] = (unsigned short)(p - path);
		} else if (errno == ENOTDIR || errno == ENAMETOOLONG) {
			/* A bad path: check_existing() names what is wrong. */
			*p = saved;
			return 0;
		} else if (errno != EEXIST) {
			*p = saved;
			snprintf(err, errlen, "cannot create directory %.*s: %s",
				 (int)(p - path), path, strerror(errno));
			return 1;
		}
		*p = saved;
		if (!saved)
			break;
	}
	/* What is there, if not a directory, is check_existing()'s to refuse. */
	return 0;
}


/* Removes the directories the claim made, the last made first, if empty. */
static void remove_created_dirs(struct output_claim *c)
{
	char path[PATH_MAX];

	while (c->nr_created) {
		unsigned int len = c->created_len[--c->nr_created];

		snprintf(path, sizeof(path), "%.*s", (int)len, c->created_from);
		if (rmdir(path))
			break;
	}
	c->nr_created = 0;
}

/*
 * Whether fd, the lock path as opened, is a lock bouncelab made: a regular
 * file of one name (a hard link would let the truncation and the PID
 * written below change another file), empty or holding a PID line.
 */
static bool is_our_lock(int fd, bool created)
{
	char buf[32];
	struct stat st;
	ssize_t n;

	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_nlink != 1)
		return false;
	if (created)
		return true;
	if (st.st_size >= (off_t)sizeof(buf))
		return false;
	n = pread(fd, buf, sizeof(buf) - 1, 0);
	if (n < 0)
		return false;
	for (ssize_t i = 0; i < n; i++)
		if (!isdigit((unsigned char)buf[i]) && !(buf[i] == '\n' && i == n - 1))
			return false;
	return true;
}

/*
 * Opens the lock path without following a link: a new file if there is
 * none (so that one bouncelab did not make is never truncated), the one a
 * killed writer left otherwise. *created says which.
 */
static int open_lock(const char *path, bool *created)
{
	int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);

	*created = fd >= 0;
	if (fd < 0 && errno == EEXIST)
		fd = open(path, O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	return fd;
}

static int take_lock(struct output_claim *c, const char *what, char *err,
		     size_t errlen)
{
	for (int attempt = 0; attempt < LOCK_ATTEMPTS; attempt++) {
		struct stat held, now;
		char pid[32];
		bool created;
		int fd = open_lock(c->lock_path, &created);

		if (fd < 0 && errno == EISDIR) {
			snprintf(err, errlen, "%s '%s': its lock %s is a directory: expected a file bouncelab makes there, or nothing",
				 what, c->path, c->lock_path);
			return 2;
		}
		/* Removed by its holder between the two opens: try again. */
		if (fd < 0 && errno == ENOENT)
			continue;
		if (fd < 0) {
			char dir[PATH_MAX];

			parent_dir(c->lock_path, dir, sizeof(dir));
			snprintf(err, errlen, "%s '%s': cannot write to directory %s (its lock): %s",
				 what, c->path, dir, strerror(errno));
			return errno == ELOOP || errno == ENAMETOOLONG ? 2 : 1;
		}
		if (!is_our_lock(fd, created)) {
			close(fd);
			snprintf(err, errlen, "%s '%s': its lock %s is not a lock bouncelab made (a hard link, or a file of other content): expected a file bouncelab makes there, or nothing",
				 what, c->path, c->lock_path);
			return 2;
		}
		if (flock(fd, LOCK_EX | LOCK_NB)) {
			ssize_t n = pread(fd, pid, sizeof(pid) - 1, 0);

			pid[n > 0 ? n : 0] = '\0';
			pid[strcspn(pid, "\n")] = '\0';
			close(fd);
			snprintf(err, errlen, "%s '%s': another bouncelab (pid %s) is writing it: expected a path no other command is writing",
				 what, c->path, *pid ? pid : "unknown");
			return 2;
		}
		/* The holder before us may have removed the file it locked. */
		if (fstat(fd, &held) || stat(c->lock_path, &now) ||
		    held.st_ino != now.st_ino || held.st_dev != now.st_dev) {
			close(fd);
			continue;
		}
		/* Held now: a link made since the check above is refused too. */
		if (!is_our_lock(fd, created)) {
			close(fd);
			snprintf(err, errlen, "%s '%s': its lock %s is not a lock bouncelab made (a hard link, or a file of other content): expected a file bouncelab makes there, or nothing",
				 what, c->path, c->lock_path);
			return 2;
		}
		snprintf(pid, sizeof(pid), "%ld\n", (long)getpid());
		/* The pid is only for the message of a second command. */
		if (!ftruncate(fd, 0))
			(void)!pwrite(fd, pid, strlen(pid), 0);
		c->lock_fd = fd;
		return 0;
	}
	snprintf(err, errlen, "%s '%s': its lock %s keeps changing: expected one writer",
		 what, c->path, c->lock_path);
	return 1;
}

static int remove_entry(const char *path, const struct stat *st, int flag,
			struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	return flag == FTW_DP ? rmdir(path) : unlink(path);
}

void output_remove_tree(const char *dir)
{
	nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

int output_dir_temp_template(char *buf, size_t len, const char *dir)
{
	int n = snprintf(buf, len, "%s/" OUTPUT_DIR_TEMP_PREFIX OUTPUT_TEMP_MARK "%ld.XXXXXX",
			 dir, (long)getpid());

	return n < 0 || (size_t)n >= len ? -1 : 0;
}

/*
 * Whether name is prefix, then "PID.XXXXXX" as output_temp_template()
 * makes it, of a writer that no longer runs. A running PID is left alone:
 * it may be a writer of this path that has not yet taken the lock, or a
 * reused PID; either way a leftover file is better than a lost one.
 */
static bool left_by_dead_writer(const char *name, const char *prefix)
{
	size_t n = strlen(prefix);
	const char *p;
	char *end;
	long pid;

	if (strncmp(name, prefix, n) || !isdigit((unsigned char)name[n]))
		return false;
	errno = 0;
	pid = strtol(name + n, &end, 10);
	if (errno || pid <= 0 || pid > INT_MAX || *end != '.' || strlen(end + 1) != 6)
		return false;
	for (p = end + 1; *p; p++)
		if (!isalnum((unsigned char)*p))
			return false;
	return kill((pid_t)pid, 0) && errno == ESRCH;
}

/* Whether dir's entry name is a file (or a directory) of this user's. */
static bool owned_entry(int dir, const char *name, bool want_dir)
{
	struct stat st;

	if (fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW))
		return false;
	if (want_dir ? !S_ISDIR(st.st_mode) : !S_ISREG(st.st_mode))
		return false;
	return st.st_uid == geteuid();
}

/* DIR/.report.tmp.bouncelab-PID.XXXXXX: a report a killed writer was building. */
static void remove_stale_report_dirs(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d))) {
		char path[PATH_MAX + 256];

		if (!left_by_dead_writer(e->d_name, OUTPUT_DIR_TEMP_PREFIX OUTPUT_TEMP_MARK) ||
		    !owned_entry(dirfd(d), e->d_name, true))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		output_remove_tree(path);
	}
	closedir(d);
}

/* PATH.tmp.bouncelab-PID.XXXXXX files left by a writer that was killed. */
static void remove_stale_temporaries(const char *dir, const char *base)
{
	char prefix[PATH_MAX + 32];
	DIR *d = opendir(dir);
	struct dirent *e;

	if (!d)
		return;
	snprintf(prefix, sizeof(prefix), "%s" OUTPUT_TEMP_MARK, base);
	while ((e = readdir(d)))
		if (left_by_dead_writer(e->d_name, prefix) &&
		    owned_entry(dirfd(d), e->d_name, false))
			unlinkat(dirfd(d), e->d_name, 0);
	closedir(d);
}

/*
 * Creates a temporary file of the name the final write will use, and
 * reserves the estimate in it: a name too long or a full disk fails now.
 */
static int probe(struct output_claim *c, const char *what, const char *dir,
		 uint64_t estimate, char *err, size_t errlen)
{
	char tmp[PATH_MAX + 32];
	uint64_t want = estimate < PROBE_MAX_BYTES ? estimate : PROBE_MAX_BYTES;
	int fd, ret;

	if (c->kind == OUTPUT_FILE)
		output_temp_template(tmp, sizeof(tmp), c->path);
	else
		snprintf(tmp, sizeof(tmp), "%s/.bouncelab-probe.XXXXXX", c->path);
	/*
	 * Unnamed (O_TMPFILE), as the final write's file: even SIGKILL
	 * leaves no probe behind. Where the file system cannot, a file of
	 * the temporary name, removed at once.
	 */
	fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0644);
	if (fd >= 0)
		tmp[0] = '\0';
	else if (errno == EACCES || errno == EROFS || errno == ENOSPC || errno == EDQUOT)
		fd = -1;
	else
		fd = mkstemp(tmp);
	if (fd < 0) {
		snprintf(err, errlen, "%s '%s': cannot create a file in %s: %s", what,
			 c->path, dir, strerror(errno));
		return errno == ENAMETOOLONG ? 2 : 1;
	}
	ret = want ? posix_fallocate(fd, 0, (off_t)want) : 0;
	if (ret == EOPNOTSUPP || ret == EINVAL) {
		want = 0;
		ret = 0;
	}
	/*
	 * What the probe did not reserve (past the cap, or where the file
	 * system cannot) must be free beside it: the cap bounds the probe's
	 * write, not the check.
	 */
	if (!ret && want < estimate) {
		struct statvfs vfs;

		if (!fstatvfs(fd, &vfs) &&
		    (uint64_t)vfs.f_bavail * vfs.f_frsize + want < estimate)
			ret = ENOSPC;
	}
	close(fd);
	if (*tmp)
		unlink(tmp);
	if (ret) {
		snprintf(err, errlen, "%s '%s': cannot reserve %.1f MB for the output in %s: %s",
			 what, c->path, (double)estimate / 1e6, dir, strerror(ret));
		return 1;
	}
	return 0;
}

/*
 * The claims held now. A library that ends the process with exit() (Google
 * Benchmark does when it cannot read sysfs, as under "ulimit -n 5") skips
 * every caller's clean-up: an exit handler releases what is still held,
 * so that no lock, probe or empty directory stays behind. A run's journal,
 * if it holds rows, stays: only empty directories are removed.
 */
#define MAX_HELD 4
static struct output_claim *held[MAX_HELD];
static const char *held_what[MAX_HELD];

static void release_at_exit(void)
{
	for (int i = 0; i < MAX_HELD; i++) {
		if (!held[i])
			continue;
		fprintf(stderr, "bouncelab: %s '%s': ended before its output was written (the line above says why); its lock is removed\n",
			held_what[i], held[i]->path);
		output_release(held[i], false);
	}
}

static void hold(struct output_claim *c, const char *what)
{
	static bool registered;

	if (!registered)
		registered = !atexit(release_at_exit);
	for (int i = 0; i < MAX_HELD; i++) {
		if (!held[i]) {
			held[i] = c;
			held_what[i] = what;
			return;
		}
	}
}

static void unhold(struct output_claim *c)
{
	for (int i = 0; i < MAX_HELD; i++)
		if (held[i] == c)
			held[i] = NULL;
}

int output_claim(struct output_claim *c, const char *what, const char *path,
		 enum output_kind kind, bool force, uint64_t estimate,
		 char *err, size_t errlen)
{
	size_t room = strlen(OUTPUT_SIBLING_SUFFIX) + strlen(OUTPUT_TEMP_SUFFIX);
	char dir[PATH_MAX];
	long name_max;
	size_t len;
	int ret;

	memset(c, 0, sizeof(*c));
	c->kind = kind;
	c->lock_fd = -1;
	len = strlen(path);
	if (!len)
		return refuse(err, errlen, kind == OUTPUT_FILE ?
			      "%s '%s': expected a file path" :
			      "%s '%s': expected a directory path", what, path);
	if (len + room >= PATH_MAX) {
		snprintf(err, errlen, "%s: a path of %zu bytes: expected at most %zu (PATH_MAX, with room for its temporary names)",
			 what, len, PATH_MAX - 1 - room);
		return 2;
	}
	if (kind == OUTPUT_FILE && path[len - 1] == '/')
		return refuse(err, errlen, "%s '%s': expected a file path, not a directory",
			      what, path);
	/*
	 * "newdir/." and "newdir/.." name directories: refused now, not after
	 * the run, when the rename fails and the rows sit in "newdir/..journal".
	 */
	if (kind == OUTPUT_FILE && (!strcmp(base_name(path), ".") ||
				    !strcmp(base_name(path), "..")))
		return refuse(err, errlen, "%s '%s': ends in '.' or '..', a directory: expected a file path",
			      what, path);
	snprintf(c->path, sizeof(c->path), "%s", path);
	/* "out/" and "out" are one directory. */
	while (kind == OUTPUT_DIR && len > 1 && c->path[len - 1] == '/')
		c->path[--len] = '\0';
	if (kind == OUTPUT_FILE)
		parent_dir(c->path, dir, sizeof(dir));
	else
		snprintf(dir, sizeof(dir), "%s", c->path);
	/*
	 * The directories first, then what is at the path: in "a/../b/NAME"
	 * the path resolves only once "a" exists, and a check made before
	 * would find nothing there and let an existing b/NAME through to the
	 * end of the run. A refusal removes what was made.
	 */
	ret = make_dirs(c, dir, err, errlen);
	if (!ret)
		ret = check_existing(c, what, force, err, errlen);
	if (ret)
		goto fail;
	name_max = pathconf(dir, _PC_NAME_MAX);
	if (kind == OUTPUT_FILE && name_max > 0 &&
	    strlen(base_name(c->path)) + room > (size_t)name_max) {
		snprintf(err, errlen, "%s '%s': a file name of %zu bytes: expected at most %zu here (NAME_MAX %ld, with room for its temporary names)",
			 what, c->path, strlen(base_name(c->path)),
			 (size_t)name_max - room, name_max);
		ret = 2;
		goto fail;
	}
	if (kind == OUTPUT_FILE)
		snprintf(c->lock_path, sizeof(c->lock_path), "%s.lock", c->path);
	else
		snprintf(c->lock_path, sizeof(c->lock_path), "%s/.bouncelab.lock",
			 c->path);
	ret = take_lock(c, what, err, errlen);
	if (ret)
		goto fail;
	if (kind == OUTPUT_FILE)
		remove_stale_temporaries(dir, base_name(c->path));
	else
		remove_stale_report_dirs(c->path);
	ret = probe(c, what, dir, estimate, err, errlen);
	if (ret)
		goto fail;
	hold(c, what);
	return 0;
fail:
	output_release(c, false);
	return ret;
}

void output_release(struct output_claim *c, bool wrote)
{
	unhold(c);
	if (c->lock_fd >= 0) {
		/* Removed while held: a waiter sees the file change and retries. */
		unlink(c->lock_path);
		close(c->lock_fd);
		c->lock_fd = -1;
	}
	if (!wrote)
		remove_created_dirs(c);
}

void output_incomplete_sibling(const char *path, char *buf, size_t len)
{
	const char *base = base_name(path);
	const char *ext = strrchr(base, '.');
	int stem = ext && ext != base ? (int)(ext - path) : (int)strlen(path);

	snprintf(buf, len, "%.*s.incomplete-%ld%s", stem, path, (long)getpid(),
		 ext && ext != base ? ext : "");
}
