// SPDX-License-Identifier: GPL-2.0-only
/*
 * A published curve file into struct published_curve (published_read.h).
 */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "input_file.h"
#include "published_read.h"

#define CURVE_MAX_BYTES (1UL << 20)

/* A copy of doc[key] when it is a string; NULL otherwise. */
static char *string_of(json_t *obj, const char *key)
{
	const char *s = json_string_value(json_object_get(obj, key));

	return s ? strdup(s) : NULL;
}

static int read_points(json_t *points, json_t *fitted, struct published_curve *c,
		       char *why, size_t len)
{
	size_t i;
	json_t *p;

	json_array_foreach(points, i, p) {
		double t = json_number_value(json_array_get(p, 0));
		double ns = json_number_value(json_array_get(p, 1));
		size_t j;
		json_t *ft;

		if (!(t >= 1 && t == floor(t) && ns > 0) ||
		    (c->nr_points && t <= c->threads[c->nr_points - 1])) {
			snprintf(why, len, "point %zu: expected a rising whole thread count and a positive ns/op", i);
			return -1;
		}
		c->threads[c->nr_points] = t;
		c->measured[c->nr_points] = ns;
		c->fitted[c->nr_points] = false;
		json_array_foreach(fitted, j, ft)
			c->fitted[c->nr_points] |= json_number_value(ft) == t;
		c->nr_points++;
	}
	return 0;
}

int published_curve_read(const char *path, struct published_curve *c, char *why, size_t len)
{
	json_t *doc, *points, *informs;
	int status, rc = -1;

	memset(c, 0, sizeof(*c));
	doc = input_file_json(path, CURVE_MAX_BYTES, &status, why, len);
	if (!doc) {	/* why names the file by its full path: not for a report */
		snprintf(why, len, "not a curve file");
		return -1;
	}
	informs = json_object_get(doc, "informs");
	points = json_object_get(doc, "points");
	c->title = string_of(doc, "curve");
	c->citation = string_of(doc, "citation");
	c->profile = string_of(doc, "profile");
	c->family = string_of(doc, "family");
	c->variant = string_of(doc, "variant");
	c->placement = string_of(doc, "placement");
	c->role = string_of(doc, "role");
	c->informs_what = string_of(informs, "what");
	c->slope_fitted = json_is_true(json_object_get(informs, "fitted_slope"));
	c->private_ns = json_number_value(json_object_get(json_object_get(doc, "private_ns"),
							  "value"));
	if (!c->profile || !c->family || !c->variant || !c->placement || !(c->private_ns > 0) ||
	    !json_is_array(points) || !json_array_size(points) ||
	    json_array_size(points) > PUBLISHED_MAX_POINTS)
		snprintf(why, len, "expected profile, family, variant, placement, private_ns and 1 to %d points",
			 PUBLISHED_MAX_POINTS);
	else
		rc = read_points(points, json_object_get(informs, "fitted_threads"), c, why, len);
	json_decref(doc);
	return rc;
}

void published_curve_free(struct published_curve *c)
{
	free(c->title);
	free(c->citation);
	free(c->profile);
	free(c->family);
	free(c->variant);
	free(c->placement);
	free(c->role);
	free(c->informs_what);
	memset(c, 0, sizeof(*c));
}
