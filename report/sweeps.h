/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A family's settings read as sweeps: the tables that differ in one
 * parameter only (has_pinned's pin_work=0,1; longterm_check's nr_pages),
 * so that the report can draw ns/op against that parameter, and name a
 * setting by what it changes from the catalogue's defaults.
 */
#ifndef BOUNCELAB_SWEEPS_H
#define BOUNCELAB_SWEEPS_H

#include <stddef.h>

#include "analysis.h"

#define SWEEP_MAX_POINTS 16
#define SWEEP_TEXT_LEN 256

struct sweep {
	char param[64];
	size_t nr;
	const struct group_view *groups[SWEEP_MAX_POINTS];	/* in table order */
	char values[SWEEP_MAX_POINTS][64];
	/* what the other parameters change from the defaults: "pin_work=0", "defaults" */
	char fixed[SWEEP_TEXT_LEN];
};

/*
 * "pin_work=0, placement spread": the items of g's setting that are not
 * the catalogue's defaults; "defaults" when none.
 */
void setting_changes(char *buf, size_t len, const struct group_view *g);

/*
 * One sweep per parameter that some of the family's tables sweep with
 * everything else equal (the longest such run, the default table's
 * when tied). Returns how many were written to out.
 */
size_t family_sweeps(const struct analysis *a, const struct family_view *f,
		     struct sweep *out, size_t max);

/* The family a table belongs to. */
const struct family_view *family_of(const struct analysis *a,
				    const struct group_view *g);

/* The table has a section of its own in a compact report: the family's default. */
bool group_detailed(const struct analysis *a, const struct group_view *g, bool full);

#endif
