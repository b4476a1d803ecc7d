// SPDX-License-Identifier: GPL-2.0-only
/*
 * run --resume: the results of a run that was killed, recovered from its
 * journal (resultfile/journal.h) into the results file it would have
 * written, or beside a file already there.
 */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "input_file.h"
#include "interrupt.h"
#include "journal.h"
#include "output.h"
#include "output_path.h"
#include "results.h"
#include "run_resume.h"

/*
 * run --resume --dry-run: what --resume would recover and where, with
 * nothing written, locked or removed; the journal stays for --resume.
 */
static int resume_dry_run(const char *out, const char *journal_path, off_t size)
{
	size_t nr_rows, total, nr_damaged;
	char err[1024], sibling[PATH_MAX];
	const char *target = out;
	struct stat st;
	json_t *doc;

	if (!size) {
		printf("%s is empty: the run stopped before any repetition finished; --resume would remove it\n",
		       journal_path);
		return 0;
	}
	doc = journal_load(journal_path, true, &nr_rows, &total, &nr_damaged, err,
			   sizeof(err));
	if (!doc)
		return usage_error("%s", err);
	json_decref(doc);
	if (!lstat(out, &st)) {
		output_incomplete_sibling(out, sibling, sizeof(sibling));
		target = sibling;
	}
	printf("would recover %zu of %zu repetitions from %s into %s, marked incomplete",
	       nr_rows, total, journal_path, target);
	if (nr_damaged)
		printf("; %zu damaged lines would be skipped", nr_damaged);
	printf(" (--dry-run: nothing written)\n");
	return 0;
}

/* --resume, holding back the stop signals (run_resume()). */
static int resume_claimed(const char *out, const char *journal_path,
			  const struct stat *st)
{
	char sibling[PATH_MAX], err[1024], damaged[96] = "";
	struct output_claim claim;
	size_t nr_rows, total, nr_damaged;
	const char *target;
	json_t *doc, *old;
	int ret;

	/* A journal that cannot be recovered is refused before anything is made. */
	doc = journal_load(journal_path, true, &nr_rows, &total, &nr_damaged, err,
			   sizeof(err));
	if (!doc)
		return usage_error("%s", err);
	json_decref(doc);
	/* Force: whatever is at out is looked at below, never just replaced. */
	ret = output_claim(&claim, "--resume", out, OUTPUT_FILE, true,
			   (uint64_t)st->st_size * 2, err, sizeof(err));
	if (ret)
		return ret == 2 ? usage_error("%s", err) : runtime_error("%s", err);
	/* Again, holding the lock: the run may have written more since. */
	doc = journal_load(journal_path, true, &nr_rows, &total, &nr_damaged, err,
			   sizeof(err));
	if (!doc) {
		output_release(&claim, true);
		return usage_error("%s", err);
	}
	if (nr_damaged)
		snprintf(damaged, sizeof(damaged), "; skipped %zu damaged lines", nr_damaged);
	target = out;
	if (claim.exists) {
		char why[768];
		int status;

		/* Unreadable, it is not the finished run's: the rows go beside it. */
		old = input_file_json(out, JOURNAL_MAX_BYTES, &status, why, sizeof(why));
		if (old && results_run_id(old) && results_run_id(doc) &&
		    !strcmp(results_run_id(old), results_run_id(doc))) {
			json_decref(old);
			json_decref(doc);
			unlink(journal_path);
			output_release(&claim, true);
			fprintf(stderr, "bouncelab: %s is the finished run's file already; removed its journal\n",
				out);
			return 0;
		}
		json_decref(old);
		output_incomplete_sibling(out, sibling, sizeof(sibling));
		target = sibling;
	}
	ret = results_write(target, doc, false, err, sizeof(err));
	json_decref(doc);
	if (!ret)
		unlink(journal_path);
	output_release(&claim, true);
	if (ret)
		return runtime_error("%s", err);
	fprintf(stderr, "bouncelab: recovered %zu of %zu repetitions from %s into %s, marked incomplete%s\n",
		nr_rows, total, journal_path, target, damaged);
	return 0;
}

/*
 * run --resume FILE|DIR: the results of a run that was killed, from its
 * journal. A results file already there from the same run means the run
 * finished and only the journal's removal was cut short; one from another
 * run (the one --force was replacing) is kept, and the recovered rows go
 * beside it.
 */
int run_resume(const char *arg, bool dry_run)
{
	char out[PATH_MAX], journal_path[PATH_MAX + 16];
	struct stat st;
	size_t len = strlen(arg);
	int ret;

	if (!stat(arg, &st) && S_ISDIR(st.st_mode))
		ret = snprintf(out, sizeof(out), "%s/results.json", arg);
	else if (len > strlen(JOURNAL_SUFFIX) &&
		 !strcmp(arg + len - strlen(JOURNAL_SUFFIX), JOURNAL_SUFFIX))
		ret = snprintf(out, sizeof(out), "%.*s", (int)(len - strlen(JOURNAL_SUFFIX)), arg);
	else
		ret = snprintf(out, sizeof(out), "%s", arg);
	if (ret >= (int)sizeof(out))
		return usage_error("--resume: a path of %zu bytes: expected at most %d", len,
				   PATH_MAX - 1);
	snprintf(journal_path, sizeof(journal_path), "%s" JOURNAL_SUFFIX, out);
	if (lstat(journal_path, &st) || !S_ISREG(st.st_mode))
		return usage_error("--resume '%s': no journal %s: expected the results file or directory of a run that stopped",
				   arg, journal_path);
	if (dry_run)
		return resume_dry_run(out, journal_path, st.st_size);
	/* Killed before its header was written: nothing finished. */
	if (st.st_size == 0) {
		unlink(journal_path);
		fprintf(stderr, "bouncelab: %s is empty: the run stopped before any repetition finished; removed it\n",
			journal_path);
		return 0;
	}
	/*
	 * A recovery is short and bounded (one journal, read twice): the stop
	 * signals wait until it is done or refused, and then take their
	 * default action (exit 128 + N) on a path left whole: the rows
	 * recovered and the journal gone, or the journal as it was, with no
	 * lock or temporary file either way.
	 */
	interrupt_block(true);
	ret = resume_claimed(out, journal_path, &st);
	interrupt_block(false);
	return ret;
}
