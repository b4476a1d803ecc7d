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
};

/*
 * Reads the results files and writes outdir/report.md, outdir/plots/ and
 * outdir/will-it-scale/. outdir is claimed by the output rule
 * (output_path.h); the report is built in outdir/.report.tmp.XXXXXX and
 * moved into place, report.md last. Returns 0, 2 for bad input (err names
 * the file and the place) or 1 for a failure to write; nothing
 * half-written is left behind, and nothing at all is written for bad
 * input.
 */
int report_write(const struct report_options *opts, char *err, size_t errlen);

/* The same without a latency matrix. */
int report_generate(const char *const *files, unsigned int nr_files,
		    const char *outdir, char *err, size_t errlen);

#endif
