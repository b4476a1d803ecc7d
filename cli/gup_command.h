/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * bouncelab gup's options and the run they make, shared by the command
 * (cmd_gup.c) and the summary of several combinations (gup_summary.c).
 */
#ifndef BOUNCELAB_GUP_COMMAND_H
#define BOUNCELAB_GUP_COMMAND_H

#include <stdbool.h>

#include "gup/gup_test_driver.h"
#include "topo.h"

enum { MODE_SHARED, MODE_PRIVATE };
/* --mode's names, by MODE_* */
extern const char *const gup_mode_names[];

struct gup_options {
	struct gup_test_config cfg;
	unsigned long mib;
	bool write;			/* -w / -W: FOLL_WRITE added to -F's flags */
	bool longterm;			/* -l: FOLL_LONGTERM on -a or -u */
	unsigned int raw_flags;		/* -F, as the walker's flags */
	bool huge;			/* -t */
	bool shared;			/* -S: MAP_SHARED */
	bool hugetlb;			/* -H: MAP_HUGETLB */
	const char *file;		/* -f */
	bool use_pin;			/* -p */
	bool summary;
	unsigned int nr_variants, nr_modes, nr_checks;
	unsigned int variants[NR_GUP_FLAG_UPDATES];
	unsigned int modes[2];
	unsigned int checks[NR_GUP_LONGTERM_CHECKS];
};

/* What the driver's callbacks and the summary need: options, placement, the run. */
struct gup_printer {
	const struct gup_options *opts;
	struct gup_test *test;
	struct topo *topo;
	struct placement placement;
};

/*
 * --summary, or several combinations: each one's get and put times, the
 * walker's paths, and the ratios the seeds quote.
 */
void gup_print_summary(const struct gup_printer *p);

#endif
