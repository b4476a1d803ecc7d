// SPDX-License-Identifier: GPL-2.0-only
/*
 * Runs bouncelab on every bad input listed in a table (bad_inputs.tsv)
 * and checks what the user gets back:
 *
 *   - the exit status the row expects (2: usage, 1: runtime), not a crash
 *     and not a hang;
 *   - exactly one line on stderr, "bouncelab: ...", naming the bad value
 *     and saying what was expected (both given by the row), with no raw
 *     control byte in it (an argument's are shown escaped, "\x1b");
 *   - nothing on stdout, and no file created or changed.
 *
 * Each row runs in a fresh directory holding the fixtures below. Output
 * is TAP, one test point per row.
 *
 * A row with no argument column runs bouncelab with no arguments.
 *
 * usage: bad_inputs BOUNCELAB TABLE
 */
#define _XOPEN_SOURCE 700
#include <ctype.h>
#include <errno.h>
#include <ftw.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "test_util.h"

/* A row that takes this long is a hang: bad input must fail fast. */
#define ROW_TIMEOUT_SECONDS 60
#define MAX_ARGS 32

struct row {
	char *buf;		/* the table line, split into the fields below */
	unsigned int line;
	int exit_status;
	char *bad_value;
	char *expected;
	char *argv[MAX_ARGS + 2];
	char text[1024];	/* the arguments, for the TAP line */
};

static char bouncelab[PATH_MAX];
static char work[PATH_MAX];	/* every row's directory lives here */
/* a build without hwloc: topology rows may only say so (a skip) */
static bool without_hwloc;
/*
 * A build without libpfm4 cannot tell a bad event name from a good one
 * (every --events entry is n/a there, by design): the rows that expect
 * "cannot encode" are skips, and are not run, since such a run would
 * go on to run the whole suite.
 */
static bool without_libpfm4;

static bool row_checks_event_names(const struct row *r)
{
	if (!strstr(r->expected, "cannot encode"))
		return false;
	for (unsigned int i = 0; r->argv[i]; i++)
		if (!strcmp(r->argv[i], "--events"))
			return true;
	return false;
}

/* A FIFO no one writes: a reader that opens it blocking waits forever. */
static const char FIXTURE_FIFO[] = "";
/* A hard link to a_file: a lock path whose truncation would change it. */
static const char FIXTURE_LINK_TO_A_FILE[] = "";

/*
 * Fixtures every row can name by a relative path. results.json is real:
 * a short run makes it, so it follows the results format as it evolves.
 */
static const struct {
	const char *name;
	const char *text;	/* NULL: a directory; FIXTURE_FIFO: a FIFO */
} fixtures[] = {
	{ "not_json.txt", "this is not JSON\n" },
	{ "empty.json", "" },
	{ "truncated.json", "{\"context\": {}, \"benchmarks\": [" },
	{ "wrong_shape.json", "{\"context\": [], \"benchmarks\": 3}\n" },
	{ "array.json", "[1, 2, 3]\n" },
	{ "a_file", "a regular file where a directory belongs\n" },
	{ "a_dir", NULL },
	{ "a_fifo", FIXTURE_FIFO },
	/* a directory where an output's lock file goes */
	{ "locked.json.lock", NULL },
	{ "locked_report", NULL },
	{ "locked_report/.bouncelab.lock", NULL },
	/* a lock path that is another file: a hard link, or a user's text */
	{ "linked.json.lock", FIXTURE_LINK_TO_A_FILE },
	{ "foreign.json.lock", "a note of the user's, not a PID\n" },
	/* a journal another format of bouncelab wrote */
	{ "other_format.journal",
	  "{\"bouncelab_journal\": 2, \"total\": 1, \"context\": {}}\n{\"name\": \"a\"}\n" },
};

static void bail_out(const char *fmt, const char *what)
{
	int saved_errno = errno;

	printf("Bail out! ");
	printf(fmt, what);
	printf(": %s\n", saved_errno ? strerror(saved_errno) : "failed");
	exit(1);
}

/* dir/name into buf, which is PATH_MAX long. */
static void join(char *buf, const char *dir, const char *name)
{
	if (snprintf(buf, PATH_MAX, "%s/%s", dir, name) >= PATH_MAX) {
		errno = ENAMETOOLONG;
		bail_out("%s: path too long", dir);
	}
}

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f || fputs(text, f) == EOF || fclose(f))
		bail_out("cannot write %s", path);
}

/* Runs argv in dir, stdout and stderr to files; returns the wait status. */
static int run_in(const char *dir, char *const argv[], const char *out,
		  const char *err, bool *hung)
{
	struct timespec timeout = { .tv_sec = ROW_TIMEOUT_SECONDS };
	sigset_t chld;
	pid_t pid;
	int status;

	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &chld, NULL);
	pid = fork();
	if (pid < 0)
		bail_out("%s: fork", argv[0]);
	if (pid == 0) {
		int o = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		int e = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		if (o < 0 || e < 0 || dup2(o, 1) < 0 || dup2(e, 2) < 0 || chdir(dir))
			_exit(126);
		sigprocmask(SIG_UNBLOCK, &chld, NULL);
		execv(argv[0], argv);
		_exit(127);
	}
	*hung = false;
	while (waitpid(pid, &status, WNOHANG) == 0) {
		if (sigtimedwait(&chld, NULL, &timeout) < 0 && errno == EAGAIN) {
			*hung = true;
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			break;
		}
	}
	sigprocmask(SIG_UNBLOCK, &chld, NULL);
	return status;
}

/* doc as name, with obj's key set to value (taken) there only. */
static void write_changed(const char *dir, const char *name, json_t *doc, json_t *obj,
			  const char *key, json_t *value)
{
	json_t *old = json_incref(json_object_get(obj, key));
	char path[PATH_MAX];

	if (!old)
		bail_out("the fixture run recorded no %s", key);
	json_object_set_new(obj, key, value);
	join(path, dir, name);
	if (json_dump_file(doc, path, JSON_INDENT(2)))
		bail_out("cannot write %s", path);
	json_object_set_new(obj, key, old);
}

/* A journal (resultfile/journal.h) of doc's rows, saying the run had total. */
static void write_journal(const char *dir, const char *name, json_t *doc, long total)
{
	json_t *header = json_pack("{s:i, s:I, s:O}", "bouncelab_journal", 1,
				   "total", (json_int_t)total,
				   "context", json_object_get(doc, "context"));
	json_t *row;
	char path[PATH_MAX], *line;
	size_t i;
	FILE *f;

	join(path, dir, name);
	f = fopen(path, "w");
	line = json_dumps(header, JSON_COMPACT);
	if (!f || !line || fprintf(f, "%s\n", line) < 0)
		bail_out("cannot write %s", path);
	free(line);
	json_array_foreach(json_object_get(doc, "benchmarks"), i, row) {
		line = json_dumps(row, JSON_COMPACT);
		if (!line || fprintf(f, "%s\n", line) < 0)
			bail_out("cannot write %s", path);
		free(line);
	}
	if (fclose(f))
		bail_out("cannot write %s", path);
	json_decref(header);
}

/* The fixtures from a real run (see bad_inputs.tsv), made once. */
static void make_results_fixtures(const char *dir)
{
	char *argv[] = { bouncelab, "run", "--quick", "--threads", "1",
			 "--repetitions", "1", "--filter", "has_pinned/nop$",
			 "--out", "results.json", NULL };
	char out[PATH_MAX], err[PATH_MAX], path[PATH_MAX];
	json_t *doc, *rows, *row, *ctx, *cache;
	bool hung;
	int status;
	size_t i;

	join(out, work, "run.out");
	join(err, work, "run.err");
	status = run_in(dir, argv, out, err, &hung);
	if (hung || !WIFEXITED(status) || WEXITSTATUS(status)) {
		errno = 0;
		bail_out("the fixture run failed, see %s", err);
	}
	join(path, dir, "results.json");
	doc = json_load_file(path, 0, NULL);
	rows = json_object_get(doc, "benchmarks");
	if (!json_array_size(rows))
		bail_out("%s has no rows", path);
	/* The same run of another variant: no benchmark in common with it. */
	json_array_foreach(rows, i, row) {
		json_object_set_new(row, "name", json_string("has_pinned/no_flag/real_time/threads:1"));
		json_object_set_new(row, "run_name", json_string("has_pinned/no_flag/real_time/threads:1"));
		json_object_set_new(json_object_get(row, "bouncelab"), "variant",
				    json_string("no_flag"));
	}
	join(path, dir, "other_variant.json");
	if (json_dump_file(doc, path, JSON_INDENT(2)))
		bail_out("cannot write %s", path);
	json_decref(doc);
	join(path, dir, "results.json");
	doc = json_load_file(path, 0, NULL);
	rows = json_object_get(doc, "benchmarks");
	write_journal(dir, "bad_total.journal", doc, -1);
	ctx = json_object_get(doc, "context");
	cache = json_array_get(json_object_get(ctx, "caches"), 0);
	if (!cache) {
		/*
		 * A machine whose sysfs lists no caches (some VMs): Google
		 * Benchmark then writes none. The reader's checks of a cache
		 * are tested on one written as Google Benchmark writes it.
		 */
		cache = json_pack("{s:s, s:i, s:i, s:i}", "type", "Data", "level", 1,
				  "size", 32768, "num_sharing", 1);
		json_object_set_new(ctx, "caches", json_pack("[o]", cache));
	}
	write_changed(dir, "bad_cpus.json", doc, json_object_get(ctx, "topology"),
		      "nr_allowed_cpus", json_integer(-5));
	write_changed(dir, "bad_cache.json", doc, cache, "size", json_integer(-1));
	write_changed(dir, "bad_sharing.json", doc, cache, "num_sharing",
		      json_integer(4611686018427387904LL));
	/* A row no run can produce: negative time per operation. */
	json_object_set_new(json_array_get(rows, 0), "ns_per_op", json_real(-1));
	join(path, dir, "bad_row.json");
	if (json_dump_file(doc, path, JSON_INDENT(2)))
		bail_out("cannot write %s", path);
	json_decref(doc);
}

static void make_fixtures(const char *dir)
{
	char path[PATH_MAX];

	if (mkdir(dir, 0755))
		bail_out("cannot create %s", dir);
	for (size_t i = 0; i < sizeof(fixtures) / sizeof(fixtures[0]); i++) {
		join(path, dir, fixtures[i].name);
		if (fixtures[i].text == FIXTURE_FIFO) {
			if (mkfifo(path, 0644))
				bail_out("cannot create %s", path);
		} else if (fixtures[i].text == FIXTURE_LINK_TO_A_FILE) {
			char target[PATH_MAX];

			join(target, dir, "a_file");
			if (link(target, path))
				bail_out("cannot create %s", path);
		} else if (fixtures[i].text) {
			write_text(path, fixtures[i].text);
		} else if (mkdir(path, 0755)) {
			bail_out("cannot create %s", path);
		}
	}
	make_results_fixtures(dir);
}

static char *listing;
static size_t listing_len;
static FILE *listing_out;

static int list_entry(const char *path, const struct stat *st, int flag,
		      struct FTW *ftw)
{
	(void)ftw;
	/*
	 * A directory's own times move when a command makes its output
	 * directory and removes it again (report takes its lock before it
	 * reads its inputs): what is in the directory is what must not change.
	 */
	if (flag == FTW_D) {
		fprintf(listing_out, "%s %o\n", path, st->st_mode);
		return 0;
	}
	fprintf(listing_out, "%s %o %lld %lld.%09ld\n", path, st->st_mode,
		(long long)st->st_size, (long long)st->st_mtim.tv_sec,
		st->st_mtim.tv_nsec);
	return 0;
}

/* Every path under dir with its mode, size and mtime. The caller frees. */
static char *list_tree(const char *dir)
{
	listing_out = open_memstream(&listing, &listing_len);
	if (!listing_out)
		bail_out("%s", "open_memstream");
	nftw(dir, list_entry, 16, FTW_PHYS);
	fclose(listing_out);
	return listing;
}

static void copy_tree(const char *from, const char *to)
{
	char *argv[] = { "/bin/cp", "-a", (char *)from, (char *)to, NULL };
	char out[PATH_MAX];
	bool hung;
	int status;

	join(out, work, "cp.out");
	status = run_in("/", argv, out, out, &hung);
	if (hung || !WIFEXITED(status) || WEXITSTATUS(status))
		bail_out("cannot copy the fixtures to %s", to);
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *text = NULL;
	size_t len = 0;

	if (!f)
		bail_out("cannot read %s", path);
	if (getdelim(&text, &len, '\0', f) < 0) {
		free(text);
		text = strdup("");
	}
	fclose(f);
	return text;
}

/* Checks one finished row; returns NULL or what went wrong. */
static const char *judge(const struct row *r, int status, bool hung,
			 const char *out, const char *err, const char *before,
			 const char *after, char *why, size_t whylen)
{
	size_t first_line = strcspn(err, "\n");

	if (hung)
		return "hung: killed after the row's time limit";
	if (WIFSIGNALED(status)) {
		snprintf(why, whylen, "crashed with signal %d", WTERMSIG(status));
		return why;
	}
	if (WEXITSTATUS(status) != r->exit_status) {
		snprintf(why, whylen, "exit status %d, expected %d", WEXITSTATUS(status),
			 r->exit_status);
		return why;
	}
	if (err[first_line] != '\n' || err[first_line + 1] != '\0')
		return "stderr is not exactly one line";
	if (strncmp(err, "bouncelab: ", 11))
		return "stderr does not start with 'bouncelab: '";
	for (const char *p = err; p < err + first_line; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			return "stderr holds a raw control byte: expected it shown escaped";
	if (!strstr(err, r->bad_value))
		return "stderr does not name the bad value";
	if (!strstr(err, r->expected))
		return "stderr does not say what was expected";
	if (*out)
		return "stdout is not empty";
	if (strcmp(before, after))
		return "a file was created or changed";
	return NULL;
}

/* Prints "# " before every line of text. */
static void diag(const char *label, const char *text)
{
	printf("# %s:\n", label);
	while (*text) {
		size_t len = strcspn(text, "\n");

		printf("#   %.*s\n", (int)len, text);
		text += len + (text[len] == '\n');
	}
}

static bool run_row(unsigned int n, struct row *r, const char *fixtures_dir)
{
	char dir[PATH_MAX], out[PATH_MAX], err[PATH_MAX], name[32], why[128];
	char *before, *after, *out_text, *err_text;
	const char *failure;
	bool hung;
	int status;

	if (without_libpfm4 && row_checks_event_names(r)) {
		printf("ok %u - line %u: %s # SKIP this build has no libpfm4 to check event names\n",
		       n, r->line, r->text);
		return true;
	}
	snprintf(name, sizeof(name), "row-%u", n);
	join(dir, work, name);
	snprintf(name, sizeof(name), "row-%u.out", n);
	join(out, work, name);
	snprintf(name, sizeof(name), "row-%u.err", n);
	join(err, work, name);
	copy_tree(fixtures_dir, dir);
	before = list_tree(dir);
	status = run_in(dir, r->argv, out, err, &hung);
	after = list_tree(dir);
	out_text = slurp(out);
	err_text = slurp(err);
	failure = judge(r, status, hung, out_text, err_text, before, after,
			why, sizeof(why));
	/*
	 * A build without hwloc cannot read a topology: such a row is a skip
	 * there (TAP "# SKIP"), as long as it still fails cleanly and says so.
	 */
	if (failure && without_hwloc && WIFEXITED(status) &&
	    WEXITSTATUS(status) == 2 && strstr(err_text, "this build has no hwloc") &&
	    !strcmp(before, after) && !*out_text) {
		printf("ok %u - line %u: %s # SKIP this build has no hwloc\n", n,
		       r->line, r->text);
		failure = NULL;
		goto out;
	}
	printf("%sok %u - line %u: %s%s%s\n", failure ? "not " : "", n, r->line,
	       r->text, failure ? ": " : "", failure ? failure : "");
	if (failure) {
		printf("# expected exit %d, a line naming '%s' and saying '%s'\n",
		       r->exit_status, r->bad_value, r->expected);
		diag("stderr", err_text);
		diag("stdout", out_text);
		if (strcmp(before, after)) {
			diag("files before", before);
			diag("files after", after);
		}
	}
out:
	free(before);
	free(after);
	free(out_text);
	free(err_text);
	remove_tree(dir);
	return !failure;
}

/*
 * An argument cell's \xHH escapes, decoded in place: control bytes a
 * table cell cannot hold. The value and expected cells stay literal, as
 * bouncelab is to print them.
 */
static void decode_escapes(char *cell)
{
	char *out = cell;

	for (const char *p = cell; *p; ) {
		unsigned int byte;

		if (p[0] == '\\' && p[1] == 'x' && isxdigit((unsigned char)p[2]) &&
		    isxdigit((unsigned char)p[3]) && sscanf(p + 2, "%2x", &byte) == 1 &&
		    byte) {
			*out++ = (char)byte;
			p += 4;
		} else {
			*out++ = *p++;
		}
	}
	*out = '\0';
}

/* "2<TAB>value<TAB>expected<TAB>arg<TAB>arg...": fields split in place. */
static int parse_row(char *line, unsigned int line_nr, struct row *r)
{
	char *field[MAX_ARGS + 3];
	unsigned int nr = 0;
	size_t used = 0;

	line[strcspn(line, "\r\n")] = '\0';
	if (line[0] == '#' || line[0] == '\0')
		return 0;
	for (char *p = line; p && nr < MAX_ARGS + 3; nr++) {
		field[nr] = p;
		p = strchr(p, '\t');
		if (p)
			*p++ = '\0';
	}
	if (nr < 3 || (strcmp(field[0], "1") && strcmp(field[0], "2"))) {
		printf("Bail out! table line %u: expected EXIT<TAB>VALUE<TAB>EXPECTED<TAB>ARGS...\n",
		       line_nr);
		exit(1);
	}
	r->line = line_nr;
	r->exit_status = atoi(field[0]);
	r->bad_value = field[1];
	r->expected = field[2];
	r->argv[0] = bouncelab;
	r->text[0] = '\0';
	for (unsigned int i = 3; i < nr; i++) {
		used += (size_t)snprintf(r->text + used, sizeof(r->text) - used,
					 "%s%s", i > 3 ? " " : "", field[i]);
		if (used >= sizeof(r->text))
			used = sizeof(r->text) - 1;
		/* An empty argument, which a table cell cannot show. */
		r->argv[i - 2] = strcmp(field[i], "@EMPTY@") ? field[i] : "";
		decode_escapes(field[i]);
	}
	r->argv[nr - 2] = NULL;
	return 1;
}

int main(int argc, char **argv)
{
	char fixtures_dir[PATH_MAX], *line = NULL;
	unsigned int line_nr = 0, nr = 0, failed = 0;
	struct row rows[256];
	size_t cap = 0;
	FILE *table;

	while (argc > 3) {
		if (!strcmp(argv[argc - 1], "--without-hwloc"))
			without_hwloc = true;
		else if (!strcmp(argv[argc - 1], "--without-libpfm4"))
			without_libpfm4 = true;
		else
			break;
		argc--;
	}
	if (argc != 3) {
		fprintf(stderr, "usage: bad_inputs BOUNCELAB TABLE [--without-hwloc] [--without-libpfm4]\n");
		return 2;
	}
	/* Rows run in their own directory: the path must not be relative. */
	if (!realpath(argv[1], bouncelab))
		bail_out("cannot find %s", argv[1]);
	table = fopen(argv[2], "r");
	if (!table)
		bail_out("cannot open %s", argv[2]);
	while (getline(&line, &cap, table) >= 0) {
		line_nr++;
		if (nr == sizeof(rows) / sizeof(rows[0]))
			bail_out("%s: too many rows", argv[2]);
		rows[nr].buf = strdup(line);
		if (!rows[nr].buf)
			bail_out("%s", "strdup");
		if (parse_row(rows[nr].buf, line_nr, &rows[nr]))
			nr++;
		else
			free(rows[nr].buf);
	}
	free(line);
	fclose(table);

	snprintf(work, sizeof(work), "%s/bouncelab-bad-inputs.XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(work))
		bail_out("cannot create %s", work);
	join(fixtures_dir, work, "fixtures");
	make_fixtures(fixtures_dir);

	printf("1..%u\n", nr);
	for (unsigned int i = 0; i < nr; i++)
		failed += !run_row(i + 1, &rows[i], fixtures_dir);
	remove_tree(work);
	for (unsigned int i = 0; i < nr; i++)
		free(rows[i].buf);
	printf("# %u rows, %u failed\n", nr, failed);
	return failed ? 1 : 0;
}
