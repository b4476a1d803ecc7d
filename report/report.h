/* SPDX-License-Identifier: GPL-2.0-only */
/* Results JSON in, a markdown report with plots and CSV files out. */
#ifndef BOUNCELAB_REPORT_H
#define BOUNCELAB_REPORT_H

#include <stdbool.h>
#include <stddef.h>

struct report_options {
	const char *const *files;	/* results files */
	unsigned int nr_files;
	const char *outdir;
	/* a latency matrix (bouncelab topo --latency), or NULL */
	const char *latency;
	/* replace a report already in outdir */
	bool force;
	/* every setting of a family in full, not only the defaults' table */
	bool full;
	/* only the summary, the claims and the key figure (brief.h) */
	bool brief;
	/* also the brief as plain text, report.txt (plain_text.h) */
	bool text;
	/*
	 * Asked between steps (each input file, the analysis, the rendering,
	 * before the files go in): a signal number that asks the report to
	 * stop, or 0. Stopped, it leaves nothing, as a failure does, and
	 * report_write() returns 128 + that number. NULL: never asked.
	 */
	int (*stop_requested)(void);
	/* Holds that signal back (true) around the final moves; NULL: no-op. */
	void (*hold_signals)(bool hold);
};

/*
 * Reads the results files and writes outdir/report.md, outdir/plots/ and
 * outdir/will-it-scale/ (and outdir/report.txt with opts->text). outdir is claimed by the output rule
 * (output_path.h); the report is built in outdir/.report.tmp.XXXXXX and
 * moved into place, report.md last. The output is claimed before any
 * input is read: a second report on it is refused at its start, not a
 * long one at its end. Returns 0, 2 for bad input (err names the file and
 * the place), 1 for a failure to write, or 128 + a signal that stopped
 * it; nothing half-written is left behind, and nothing at all is written
 * for bad input or a stop.
 */
int report_write(const struct report_options *opts, char *err, size_t errlen);

/* The same without a latency matrix. */
int report_generate(const char *const *files, unsigned int nr_files,
		    const char *outdir, char *err, size_t errlen);

#endif
