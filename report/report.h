/* SPDX-License-Identifier: GPL-2.0-only */
/* Results JSON in, a markdown report out. */
#ifndef BOUNCELAB_REPORT_H
#define BOUNCELAB_REPORT_H

#include <stddef.h>

/*
 * Reads the results files and writes outdir/report.md. Returns 0, 2 for
 * bad input (err names the file and the place) or 1 for a failure to
 * write; nothing half-written is left behind.
 */
int report_generate(const char *const *files, unsigned int nr_files,
		    const char *outdir, char *err, size_t errlen);

#endif
