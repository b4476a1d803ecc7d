/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Reading a published curve (tests/data/published/, its README says what
 * a curve file holds): one contended line measured against thread count
 * on a machine we do not have, with what the model is run with to
 * predict it. Each field is checked where it is read; the report predicts
 * from this struct and never opens the JSON itself.
 */
#ifndef BOUNCELAB_PUBLISHED_READ_H
#define BOUNCELAB_PUBLISHED_READ_H

#include <stdbool.h>
#include <stddef.h>

#define PUBLISHED_MAX_POINTS 128

struct published_curve {
	/* each owned by the struct: published_curve_free() frees them */
	char *title;		/* "curve" */
	char *citation;
	char *profile;		/* a shipped machine profile's name */
	char *family, *variant, *placement;
	char *role;		/* "held_out" or "informs" */
	char *informs_what;	/* what a rule took from it; NULL when held out */
	bool slope_fitted;	/* a rule was fitted on its upper-half slope */
	double private_ns;	/* the 1-thread cost the model takes as input */
	unsigned int nr_points;
	double threads[PUBLISHED_MAX_POINTS];	/* rising whole numbers */
	double measured[PUBLISHED_MAX_POINTS];	/* ns/op as published */
	bool fitted[PUBLISHED_MAX_POINTS];	/* a rule was fitted on this point */
};

/*
 * Reads path into c: 0, or -1 with why saying what was expected (a file
 * that cannot be read or is not JSON: "not a curve file"). c needs
 * published_curve_free() either way.
 */
int published_curve_read(const char *path, struct published_curve *c, char *why, size_t len);
void published_curve_free(struct published_curve *c);

#endif
