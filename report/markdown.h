/* SPDX-License-Identifier: GPL-2.0-only */
/* report.md: what the report says, section by section. */
#ifndef BOUNCELAB_MARKDOWN_H
#define BOUNCELAB_MARKDOWN_H

#include <stdbool.h>
#include <stdio.h>

#include "analysis.h"
#include "claims.h"
#include "latency_map.h"
#include "results_read.h"

struct report_input {
	/*
	 * The inputs and the output directory as the report names them:
	 * relative to the report's directory, or the path's last components,
	 * never a directory of the machine that wrote it (report.c).
	 */
	const char *const *files;
	unsigned int nr_files;
	const char *outdir;
	const char *latency_path;	/* or NULL */
	const struct results *set;
	const struct analysis *a;
	const struct latency_map *latency;	/* or NULL */
	bool full;		/* every setting in full, not the defaults' only */
	/*
	 * Every lesson's claims, checked once for the whole report: the
	 * summary and each lesson read the same marks (checked once per
	 * lesson, a 400-file fleet spent most of its report on them).
	 */
	const struct claim_report *claims;
};

/*
 * The most columns a table has: what a code-hosting page shows without
 * scrolling sideways. A wider one is split (markdown.c, setting_section.c,
 * environment.c).
 */
#define MD_TABLE_MAX_COLUMNS 8

/* The appendix report.md links: every setting in full. */
#define DETAILS_NAME "details.md"

/* The whole report.md (free() it), or NULL without memory. */
char *markdown_report(const struct report_input *in, size_t *len);

/* The whole details.md (free() it), or NULL without memory. */
char *markdown_details(const struct report_input *in, size_t *len);

/* "Incomplete run" at the top, for each file that stopped early. */
void markdown_banner(FILE *out, const struct report_input *in);

/*
 * A setting's section (setting_section.c): in report.md its verdict, its
 * table and, with plots, its plots; in details.md every table but the
 * plots. markdown_setting_plots() writes the plots alone, ending the
 * paragraph or not.
 */
void markdown_setting(FILE *out, const struct report_input *in,
		      const struct group_view *g, bool plots);
void markdown_setting_details(FILE *out, const struct report_input *in,
			      const struct group_view *g);
void markdown_setting_plots(FILE *out, const struct analysis *a,
			    const struct group_view *g, bool end_paragraph);

/* The physical baseline: the ping-pong's floor per class (baseline_section.c). */
void markdown_baseline(FILE *out, const struct report_input *in);

/*
 * The family's seeds beside this run's pairs and the model's gain
 * (seed_section.c); *glossed is set once the seeds' caveat is said.
 */
void markdown_seeds(FILE *out, const struct report_input *in,
		    const struct family_view *f, bool *glossed);

/* Sections written by environment.c. */
void markdown_environment(FILE *out, const struct report_input *in, bool all_rows);
void markdown_reproduce(FILE *out, const struct report_input *in);

/* A JSON value on one line, at most about budget characters. */
void markdown_json_brief(FILE *out, json_t *value, size_t budget);

#endif
