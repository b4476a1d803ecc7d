// SPDX-License-Identifier: GPL-2.0-only
/*
 * The end of a run: the results file built from the journal, marked
 * incomplete after a signal, and copied to stdout for --out -.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "input_file.h"
#include "interrupt.h"
#include "results.h"
#include "run_progress.h"

/*
 * --out -: the results file as written, byte for byte, on stdout. The
 * file stays (results survive a reader that goes away); stdout is only a
 * copy of it.
 */
static int copy_to_stdout(const char *path)
{
	char err[1024], *text;
	size_t len;
	int ret = 0;

	text = input_file_read(path, (size_t)1 << 34, &len, err, sizeof(err));
	if (!text)
		return runtime_error("%s", err);
	if (fwrite(text, 1, len, stdout) != len || fflush(stdout))
		ret = runtime_error("cannot write the results to standard output (they are in %s)",
				    path);
	free(text);
	return ret;
}

/*
 * Builds the results file from the journal and writes it, with the caught
 * signals held back: a second Ctrl-C now waits until the file is whole.
 * After a signal the file is marked incomplete, and it never replaces a
 * complete one (--force): it goes beside it. Then the journal goes.
 */
int run_write_results(const struct output_claim *claim, json_t *context,
		      struct run_progress *pr)
{
	int signo = interrupt_signal();
	const char *out = claim->path;
	char err[1024], sibling[PATH_MAX];
	const char *target = out;
	size_t nr_rows, total, nr_damaged;
	char why[700] = "";
	json_t *doc;
	int ret = 0;

	doc = journal_load(pr->journal.path, false, &nr_rows, &total, &nr_damaged,
			   err, sizeof(err));
	if (!doc) {
		journal_close(&pr->journal, false);
		return runtime_error("%s", err);
	}
	/* Stopped before any repetition finished: nothing to keep, no file. */
	if (*pr->stop_error && !nr_rows) {
		journal_close(&pr->journal, true);
		json_decref(doc);
		return runtime_error("%s: no repetition finished, nothing written",
				     pr->stop_error);
	}
	if (signo) {
		if (pr->journal_failed)
			snprintf(why, sizeof(why), "stopped after %zu of %u repetitions: the journal could not be written",
				 nr_rows, pr->total);
		else if (*pr->stop_error)
			snprintf(why, sizeof(why), "stopped after %zu of %u repetitions: %s",
				 nr_rows, pr->total, pr->stop_error);
		else
			snprintf(why, sizeof(why), "interrupted by %s after %zu of %u repetitions",
				 interrupt_signal_name(signo), nr_rows, pr->total);
		if (claim->exists) {
			output_incomplete_sibling(out, sibling, sizeof(sibling));
			target = sibling;
		}
	}
	/* Again: a thread may have dropped an event during the run. */
	results_finish_context(doc, context, signo ? why : NULL);
	if (results_write(target, doc, target == out && claim->exists, err, sizeof(err))) {
		journal_close(&pr->journal, false);
		json_decref(doc);
		return runtime_error("%s; the %zu finished repetitions are in %s: recover them with 'bouncelab run --resume %s'",
				     err, nr_rows, pr->journal.path, out);
	}
	journal_close(&pr->journal, true);
	json_decref(doc);
	if (signo) {
		if (pr->journal_failed)
			return runtime_error("the journal could not be written: wrote the %zu finished repetitions to %s, marked incomplete",
					     nr_rows, target);
		if (*pr->stop_error)
			return runtime_error("%s: wrote the %zu finished repetitions to %s, marked incomplete",
					     pr->stop_error, nr_rows, target);
		runtime_error("%s: wrote the %zu finished repetitions to %s, marked incomplete%s",
			      interrupt_signal_name(signo), nr_rows, target,
			      target != out ? " (beside the complete file --force would have replaced)" : "");
		return 128 + signo;
	}
	if (pr->failed == pr->done)
		return runtime_error("every one of the %u repetitions failed: %s has their errors, and no result",
				     pr->done, out);
	run_progress_summary(pr, pr->results_on_stdout ? stderr : stdout);
	if (pr->results_on_stdout && (ret = copy_to_stdout(out)))
		return ret;
	if (!pr->quiet)
		fprintf(stderr, "bouncelab: results in %s (%.1f s)\n", out,
			run_seconds_since(&pr->start));
	/* Last, where it is read: the exit status (3) says the same. */
	if (pr->failed) {
		runtime_error("%u of %u repetitions failed: their errors are in %s; the summary above and the report leave them out",
			      pr->failed, pr->done, out);
		ret = EXIT_PARTIAL;
	}
	return ret;
}
