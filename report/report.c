// SPDX-License-Identifier: GPL-2.0-only
/*
 * The report: read and check every input first, compute, render every
 * file in memory, and only then write them all (output.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "brief.h"
#include "cases.h"
#include "fleet.h"
#include "latency_map.h"
#include "markdown.h"
#include "output.h"
#include "output_path.h"
#include "plots.h"
#include "plain_text.h"
#include "prediction.h"
#include "report.h"
#include "report_record.h"
#include "results_read.h"
#include "summary.h"
#include "sweeps.h"
#include "topo.h"

struct report_state {
	struct results set;
	struct result_cases cases;
	struct analysis a;
	struct latency_map latency;
	bool have_latency;
	struct claim_report claims;
	struct output_batch batch;
	/* The inputs as the report names them (name_inputs()). */
	char **names;
	char *latency_name, *outdir_name;
};

/*
 * A report is pasted into mails and merge requests: it never names the
 * directories of the machine that wrote it. A file under the report's
 * directory is named relative to it; any other by its last path
 * component, or as many last components as tell it from the other files.
 */
static const char *path_tail(const char *path, unsigned int components)
{
	const char *p = path + strlen(path);

	while (p > path) {
		if (p[-1] == '/' && !--components)
			break;
		p--;
	}
	return p;
}

static char *input_name(const char *path, const char *outdir,
			const char *const *others, unsigned int nr_others)
{
	char *real = realpath(path, NULL), *name;
	size_t n = strlen(outdir);
	unsigned int k = 1;

	if (!real)
		return strdup(path_tail(path, 1));
	if (n > 1 && !strncmp(real, outdir, n) && real[n] == '/') {
		name = strdup(real + n + 1);
		free(real);
		return name;
	}
	for (unsigned int i = 0; i < nr_others; i++) {
		char *other = realpath(others[i], NULL);

		while (other && strcmp(other, real) &&
		       !strcmp(path_tail(other, k), path_tail(real, k)) &&
		       path_tail(real, k) > real + 1)
			k++;
		free(other);
	}
	name = strdup(path_tail(real, k));
	free(real);
	return name;
}

static int name_inputs(const struct report_options *opts, const char *outdir,
		       struct report_state *st)
{
	char *dir = realpath(outdir, NULL);

	st->names = calloc(opts->nr_files ? opts->nr_files : 1, sizeof(*st->names));
	if (!dir || !st->names)
		goto fail;
	for (unsigned int i = 0; i < opts->nr_files; i++)
		if (!(st->names[i] = input_name(opts->files[i], dir, opts->files, opts->nr_files)))
			goto fail;
	if (opts->latency &&
	    !(st->latency_name = input_name(opts->latency, dir, NULL, 0)))
		goto fail;
	st->outdir_name = strdup(path_tail(dir, 1));
	free(dir);
	return st->outdir_name ? 0 : -1;
fail:
	free(dir);
	return -1;
}

static void free_names(struct report_state *st, unsigned int nr)
{
	for (unsigned int i = 0; st->names && i < nr; i++)
		free(st->names[i]);
	free(st->names);
	free(st->latency_name);
	free(st->outdir_name);
}

/* 0, or 128 + the signal that asked the report to stop (err says so). */
static int stopped(const struct report_options *opts, char *err, size_t errlen)
{
	int signo = opts->stop_requested ? opts->stop_requested() : 0;

	if (signo <= 0)
		return 0;
	snprintf(err, errlen, "-o '%s': stopped by signal %d: nothing written",
		 opts->outdir, signo);
	return 128 + signo;
}

static int read_inputs(const struct report_options *opts,
		       struct report_state *st, char *err, size_t errlen)
{
	int ret;

	for (unsigned int i = 0; i < opts->nr_files; i++) {
		ret = results_read(&st->set, opts->files[i], err, errlen);
		if (ret)
			return ret == -2 ? 1 : 2;
		if ((ret = stopped(opts, err, errlen)))
			return ret;
	}
	if (opts->latency) {
		ret = latency_map_read(opts->latency, &st->latency, err, errlen);
		if (ret)
			return ret == -2 ? 1 : 2;
		st->have_latency = true;
	}
	/* Files from one host and build are one machine's repetitions. */
	if (fleet_pool(&st->set) || result_cases_build(&st->set, &st->cases) ||
	    analysis_build(&st->set, &st->cases, &st->a) ||
	    claims_evaluate(&st->set, &st->a, &st->claims)) {
		snprintf(err, errlen, "out of memory analysing the results");
		return 1;
	}
	return stopped(opts, err, errlen);
}

/* report --brief: the summary's figure (and its PNG), and the brief. */
static int render_brief(const struct report_input *in, struct report_state *st,
			const char *dir, char *err, size_t errlen)
{
	char path[PATH_MAX + 16], note[512];
	size_t len = 0;
	bool png;
	char *md;

	/* The brief links neither appendix: it writes neither. */
	if (summary_add_figure(&st->batch, dir, &st->a) ||
	    brief_add_pngs(&st->batch, &png, note, sizeof(note)))
		goto oom;
	md = markdown_brief(in, png, note, &len);
	snprintf(path, sizeof(path), "%s/report.md", dir);
	if (!md || output_batch_add(&st->batch, path, md, len))
		goto oom;
	return 0;
oom:
	snprintf(err, errlen, "out of memory writing the report");
	return 1;
}

/* report --text: the brief as plain text, beside the report. */
static int render_text(const struct report_input *in, struct report_state *st,
		       const char *dir)
{
	char path[PATH_MAX + 16], *md, *text;
	size_t len = 0;

	md = markdown_brief(in, false, "", &len);
	text = md ? plain_text_from_markdown(md, &len) : NULL;
	free(md);
	snprintf(path, sizeof(path), "%s/" TEXT_NAME, dir);
	return !text || output_batch_add(&st->batch, path, text, len) ? -1 : 0;
}

/* Renders every file in memory, under dir (the temporary directory). */
static int render(const struct report_options *opts, struct report_state *st,
		  const char *dir, char *err, size_t errlen)
{
	struct report_input in = {
		(const char *const *)st->names, opts->nr_files, st->outdir_name,
		st->latency_name, &st->set, &st->a,
		st->have_latency ? &st->latency : NULL, opts->full, &st->claims,
	};
	char path[PATH_MAX + 16];
	size_t len = 0;
	char *md;

	if (opts->text && render_text(&in, st, dir))
		goto oom;
	if (opts->brief)
		return render_brief(&in, st, dir, err, errlen);
	for (size_t i = 0; i < st->a.nr_groups; i++)
		if (plots_add_group(&st->batch, dir, &st->a, &st->a.groups[i],
				    group_detailed(&st->a, &st->a.groups[i], opts->full)))
			goto oom;
	for (size_t i = 0; i < st->a.nr_families; i++) {
		const struct family_view *f = &st->a.families[i];

		if (f->pingpong ? plots_add_one_way(&st->batch, dir, &st->a, f) :
				  plots_add_sweeps(&st->batch, dir, &st->a, f))
			goto oom;
	}
	if (fleet_add_plots(&st->batch, dir, &st->a))
		goto oom;
	if (summary_add_figure(&st->batch, dir, &st->a))
		goto oom;
	if (st->have_latency && plots_add_heatmap(&st->batch, dir, &st->latency))
		goto oom;
	if (prediction_add_files(&st->batch, dir, &in))
		goto oom;
	md = markdown_details(&in, &len);
	snprintf(path, sizeof(path), "%s/" DETAILS_NAME, dir);
	if (!md || output_batch_add(&st->batch, path, md, len))
		goto oom;
	md = markdown_report(&in, &len);
	snprintf(path, sizeof(path), "%s/report.md", dir);
	if (!md || output_batch_add(&st->batch, path, md, len))
		goto oom;
	return 0;
oom:
	snprintf(err, errlen, "out of memory writing the report");
	return 1;
}

/*
 * hwloc loads its plugins (libxml2, PCI, OpenCL, GL) when a first
 * topology opens and unloads them when the last one closes: ~60 ms each
 * time here. The prediction section opens a small synthetic topology per
 * results file; one held open for the whole rendering keeps the plugins
 * loaded: 50 hosts' files then take 1.1 s of CPU to report, not 11 s.
 * Without hwloc, or if it fails, rendering is the same, only slower.
 */
static int render_all(const struct report_options *opts, struct report_state *st,
		      const char *dir, char *err, size_t errlen)
{
	char ignored[256];
	struct topo *keep_plugins = opts->nr_files > 1 ?
		topo_open("pack:1 core:1 pu:1", ignored, sizeof(ignored)) : NULL;
	int ret = render(opts, st, dir, err, errlen);

	if (keep_plugins)
		topo_close(keep_plugins);
	return ret;
}

static int make_dirs(const char *outdir, char *err, size_t errlen)
{
	char path[PATH_MAX + 32];

	snprintf(path, sizeof(path), "%s/" PLOT_DIR, outdir);
	if (output_make_dirs(path, err, errlen))
		return -1;
	snprintf(path, sizeof(path), "%s/" CSV_DIR, outdir);
	return output_make_dirs(path, err, errlen);
}

/*
 * The parts of a report, report.md last: it is what a reader opens. The
 * files end in ".md" (report.txt with --text); report --brief writes no
 * appendix (PREDICTION_FILE, DETAILS_NAME). The record of the files in the two directories comes
 * just before report.md.
 */
static const char *const report_parts[] = {
	PLOT_DIR, CSV_DIR, PREDICTION_FILE, DETAILS_NAME, TEXT_NAME, REPORT_RECORD_NAME,
	"report.md"
};
#define NR_PARTS (sizeof(report_parts) / sizeof(report_parts[0]))

/* The parts that are directories (plots, CSVs); the others are files. */
static bool part_is_dir(size_t i)
{
	return !strcmp(report_parts[i], PLOT_DIR) || !strcmp(report_parts[i], CSV_DIR);
}

/*
 * Where a new report meets an old one (--force). The old directories are
 * not swapped out whole: they may hold files bouncelab did not write (a
 * results file being reported on from DIR/plots/). Each new file is
 * moved in on its own; an old file of its name is exchanged with it (so
 * that a failure can put it back) only if the old report's record lists
 * it, or if the old report, of a bouncelab before the record, has none.
 * Once all is in place, the old record's files that the new report does
 * not have are removed, and nothing else.
 */
struct merge {
	const char *tmp, *outdir;
	const struct report_record *old, *new;
	size_t nr_moved;
	bool *exchanged;	/* per new file: an old one went to tmp */
	int status;		/* 2: a file bouncelab did not write is in the way */
};

static int merge_file(struct merge *m, size_t i, char *err, size_t errlen)
{
	const char *name = m->new->names[i];
	char from[PATH_MAX + 64], to[PATH_MAX + 64];
	struct stat st;

	snprintf(from, sizeof(from), "%s/%s", m->tmp, name);
	snprintf(to, sizeof(to), "%s/%s", m->outdir, name);
	if (lstat(to, &st)) {
		if (errno == ENOENT && !rename(from, to))
			return 0;
		snprintf(err, errlen, "cannot move the report into %s: %s", to,
			 strerror(errno));
		return -1;
	}
	if (!S_ISREG(st.st_mode) ||
	    (m->old->present && !report_record_has(m->old, name))) {
		snprintf(err, errlen, "-o '%s': %s is in the way and was not written by bouncelab: expected it moved elsewhere",
			 m->outdir, to);
		m->status = 2;
		return -1;
	}
	if (renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_EXCHANGE)) {
		snprintf(err, errlen, "cannot move the report into %s: %s", to,
			 strerror(errno));
		return -1;
	}
	m->exchanged[i] = true;
	return 0;
}

/* Moves every new file of part into the old directory of that name. */
static int merge_dir(struct merge *m, const char *part, char *err, size_t errlen)
{
	size_t n = strlen(part);

	for (size_t i = 0; i < m->new->nr; i++) {
		if (strncmp(m->new->names[i], part, n) || m->new->names[i][n] != '/')
			continue;
		if (merge_file(m, i, err, errlen))
			return -1;
		m->nr_moved++;
	}
	return 0;
}

static void unmerge(struct merge *m)
{
	for (size_t i = 0; i < m->new->nr; i++) {
		char from[PATH_MAX + 64], to[PATH_MAX + 64];
		struct stat st;

		snprintf(from, sizeof(from), "%s/%s", m->tmp, m->new->names[i]);
		snprintf(to, sizeof(to), "%s/%s", m->outdir, m->new->names[i]);
		if (m->exchanged[i])
			renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_EXCHANGE);
		else if (lstat(from, &st) && errno == ENOENT)
			rename(to, from);
	}
}

/* The old report's files that the new one does not have: ours, gone. */
static void remove_old_files(const struct merge *m)
{
	for (size_t i = 0; i < m->old->nr; i++) {
		char path[PATH_MAX + 64];
		struct stat st;

		if (report_record_has(m->new, m->old->names[i]))
			continue;
		snprintf(path, sizeof(path), "%s/%s", m->outdir, m->old->names[i]);
		if (!lstat(path, &st) && S_ISREG(st.st_mode))
			unlink(path);
	}
}

/*
 * Moves the finished report from tmp into outdir. A file part already
 * there (with --force) is exchanged with the new one, so that a failure
 * can put every old part back; the old parts end in tmp, which goes. A
 * directory part is merged file by file (struct merge). Returns 0, 1, or
 * 2 when a file bouncelab did not write is in the way.
 */
static int move_into_place(struct merge *m, char *err, size_t errlen)
{
	char from[PATH_MAX + 32], to[PATH_MAX + 32];
	enum { MOVED_IN, EXCHANGED, MOVED_OUT, ABSENT, MERGED } how[NR_PARTS] = { MOVED_IN };
	size_t done;
	struct stat st;

	for (done = 0; done < NR_PARTS; done++) {
		snprintf(from, sizeof(from), "%s/%s", m->tmp, report_parts[done]);
		snprintf(to, sizeof(to), "%s/%s", m->outdir, report_parts[done]);
		if (part_is_dir(done) && !lstat(to, &st)) {
			how[done] = MERGED;
			if (merge_dir(m, report_parts[done], err, errlen))
				goto undo;
			continue;
		}
		/*
		 * A part this report does not have (the appendix, with --brief):
		 * an old one goes into tmp, as an exchange would have put it.
		 */
		if (lstat(from, &st) && errno == ENOENT) {
			how[done] = MOVED_OUT;
			if (!rename(to, from))
				continue;
			how[done] = ABSENT;
			if (errno == ENOENT)
				continue;
			snprintf(err, errlen, "cannot move the old %s out of the way: %s", to,
				 strerror(errno));
			goto undo;
		}
		if (!renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_EXCHANGE)) {
			how[done] = EXCHANGED;
			continue;
		}
		if (errno == ENOENT && !rename(from, to))
			continue;
		snprintf(err, errlen, "cannot move the report into %s: %s", to,
			 strerror(errno));
		goto undo;
	}
	remove_old_files(m);
	return 0;
undo:
	unmerge(m);
	while (done--) {
		snprintf(from, sizeof(from), "%s/%s", m->tmp, report_parts[done]);
		snprintf(to, sizeof(to), "%s/%s", m->outdir, report_parts[done]);
		if (how[done] == EXCHANGED)
			renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_EXCHANGE);
		else if (how[done] == MOVED_IN)
			rename(to, from);
		else if (how[done] == MOVED_OUT)
			rename(from, to);
	}
	return m->status ? m->status : 1;
}

/*
 * The record of the new report's files, written into tmp beside them,
 * and the old report's, read from outdir.
 */
static int make_records(struct merge *m, struct report_record *old,
			struct report_record *new, char *err, size_t errlen)
{
	char path[PATH_MAX + 32];
	size_t len;
	char *text;

	if (report_record_read(old, m->outdir) || report_record_scan(new, m->tmp)) {
		snprintf(err, errlen, "cannot list the report's files in %s: %s",
			 m->outdir, strerror(errno));
		return -1;
	}
	m->old = old;
	m->new = new;
	m->exchanged = calloc(new->nr ? new->nr : 1, sizeof(*m->exchanged));
	text = report_record_text(new, &len);
	snprintf(path, sizeof(path), "%s/" REPORT_RECORD_NAME, m->tmp);
	if (!m->exchanged || !text ||
	    output_write_new_file(path, text, len, err, errlen)) {
		if (!m->exchanged || !text)
			snprintf(err, errlen, "out of memory writing the report");
		free(text);
		return -1;
	}
	free(text);
	return 0;
}

/* An existing report is replaced only with --force. */
static int check_old_report(const struct report_options *opts, char *err,
			    size_t errlen)
{
	for (size_t i = 0; i < NR_PARTS; i++) {
		char path[PATH_MAX + 32];
		struct stat st;

		snprintf(path, sizeof(path), "%s/%s", opts->outdir, report_parts[i]);
		if (lstat(path, &st))
			continue;
		if (part_is_dir(i) ? !S_ISDIR(st.st_mode) : !S_ISREG(st.st_mode)) {
			snprintf(err, errlen, "-o '%s': %s is not what a report puts there: expected a directory without it",
				 opts->outdir, path);
			return 2;
		}
		if (!opts->force) {
			snprintf(err, errlen, "-o '%s': holds a report already (%s): expected a new directory, or --force to replace it",
				 opts->outdir, report_parts[i]);
			return 2;
		}
	}
	return 0;
}

int report_write(const struct report_options *opts, char *err, size_t errlen)
{
	struct report_state st = { 0 };
	struct report_record old = { 0 }, new = { 0 };
	struct output_claim claim;
	struct merge m = { 0 };
	char tmp[PATH_MAX];
	bool claimed, made_tmp = false, wrote = false;
	/*
	 * The lock first: a report that reads for a minute and is then
	 * refused at its end by one started later would lose that minute.
	 */
	int ret = output_claim(&claim, "-o", opts->outdir, OUTPUT_DIR, opts->force,
			       0, err, errlen);

	claimed = !ret;
	if (!ret)
		ret = check_old_report(opts, err, errlen);
	if (!ret)
		ret = read_inputs(opts, &st, err, errlen);
	if (!ret && output_dir_temp_template(tmp, sizeof(tmp), claim.path)) {
		snprintf(err, errlen, "-o '%s': path too long", opts->outdir);
		ret = 2;
	}
	if (!ret) {
		made_tmp = mkdtemp(tmp);
		if (!made_tmp) {
			snprintf(err, errlen, "cannot create a directory in %s: %s", opts->outdir,
				 strerror(errno));
			ret = 1;
		}
	}
	if (!ret && name_inputs(opts, claim.path, &st)) {
		snprintf(err, errlen, "out of memory naming the report's inputs");
		ret = 1;
	}
	if (!ret) {
		m.tmp = tmp;
		m.outdir = claim.path;
		ret = render_all(opts, &st, tmp, err, errlen);
		if (!ret)
			ret = stopped(opts, err, errlen);
		if (!ret && (make_dirs(tmp, err, errlen) ||
			     output_batch_commit(&st.batch, err, errlen) ||
			     make_records(&m, &old, &new, err, errlen)))
			ret = 1;
		/* Past the last stop: the moves are not cut in half. */
		if (opts->hold_signals)
			opts->hold_signals(true);
		if (!ret)
			ret = stopped(opts, err, errlen);
		if (!ret)
			ret = move_into_place(&m, err, errlen);
		wrote = !ret;
	}
	/* a failure between here and there (naming the inputs) leaves none either */
	if (made_tmp)
		output_remove_tree(tmp);
	free(m.exchanged);
	report_record_free(&old);
	report_record_free(&new);
	if (claimed)
		output_release(&claim, wrote || claim.exists);
	output_batch_free(&st.batch);
	free_names(&st, opts->nr_files);
	claims_free(&st.claims);
	analysis_free(&st.a);
	result_cases_free(&st.cases);
	if (st.have_latency)
		latency_map_free(&st.latency);
	results_free(&st.set);
	return ret;
}

int report_generate(const char *const *files, unsigned int nr_files,
		    const char *outdir, char *err, size_t errlen)
{
	struct report_options opts = { .files = files, .nr_files = nr_files,
				       .outdir = outdir };

	return report_write(&opts, err, errlen);
}
