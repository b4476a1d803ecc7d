// SPDX-License-Identifier: GPL-2.0-only
/*
 * prediction.md's published curves: many-CPU measurements of one
 * contended line on machines we do not have (tests/data/published/, its
 * README says what a curve file holds), each predicted from its machine's
 * shipped profile and its own 1-thread cost by the very call `bouncelab
 * model --profile P --placement P --private-ns NS` makes, so that the
 * report and the command give the same numbers. The table marks which
 * curves informed a rule and which were held out, and the points a rule
 * was fitted on (model_doc.md, "The published curves").
 */
#include <dirent.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog.h"
#include "config.h"
#include "data_dir.h"
#include "input_file.h"
#include "model.h"
#include "prediction_internal.h"

#define CURVE_MAX_BYTES (1UL << 20)
#define CURVE_MAX_POINTS 128

struct curve {
	unsigned int n;
	double threads[CURVE_MAX_POINTS], measured[CURVE_MAX_POINTS];
	double predicted[CURVE_MAX_POINTS];
	bool fitted[CURVE_MAX_POINTS];
};

/*
 * Run from the build tree, the data directory is the source's model/,
 * and the curves stay where the tests read them; installed, they are in
 * the data directory's published/.
 */
static int curves_dir(char *dir, size_t len, char *why, size_t whylen)
{
	char data[PATH_MAX];

	if (data_dir_find(data, sizeof(data), why, whylen))
		return -1;
	if (!strcmp(data, BOUNCELAB_SOURCE_DATA_DIR))
		snprintf(dir, len, "%s", BOUNCELAB_SOURCE_PUBLISHED_DIR);
	else if ((size_t)snprintf(dir, len, "%s/published", data) >= len)
		return -1;
	return 0;
}

/* Least squares over the points from half the largest thread count up. */
static double upper_slope(const struct curve *c, const double *y, unsigned int *lo,
			  unsigned int *hi)
{
	double half = c->threads[c->n - 1] / 2, mx = 0, my = 0, sxx = 0, sxy = 0;
	unsigned int k = 0;

	*lo = c->n;
	for (unsigned int i = 0; i < c->n; i++) {
		if (c->threads[i] < half)
			continue;
		*lo = *lo < i ? *lo : i;
		mx += c->threads[i];
		my += y[i];
		k++;
	}
	*hi = c->n - 1;
	mx /= k;
	my /= k;
	for (unsigned int i = *lo; i < c->n; i++) {
		sxx += (c->threads[i] - mx) * (c->threads[i] - mx);
		sxy += (c->threads[i] - mx) * (y[i] - my);
	}
	return sxx > 0 ? sxy / sxx : NAN;
}

static bool falls(const struct curve *c, const double *y, unsigned int lo, unsigned int hi)
{
	return c->threads[hi] / y[hi] < c->threads[lo] / y[lo];
}

/* The curve's points and its prediction; -1 with why on a bad file or model. */
static int predict_curve(json_t *doc, struct curve *c, char *why, size_t len)
{
	const char *profile = json_string_value(json_object_get(doc, "profile"));
	const char *family = json_string_value(json_object_get(doc, "family"));
	const char *variant = json_string_value(json_object_get(doc, "variant"));
	const char *placement = json_string_value(json_object_get(doc, "placement"));
	json_t *points = json_object_get(doc, "points");
	json_t *fitted = json_object_get(json_object_get(doc, "informs"), "fitted_threads");
	double private_ns = json_number_value(json_object_get(json_object_get(doc, "private_ns"),
							      "value"));
	const struct kernel_family *f = family ? catalog_find(family) : NULL;
	int v = f && variant ? catalog_variant_index(f, variant) : -1;
	struct machine_profile m;
	struct kernel_config cfg;
	size_t i;
	json_t *p;
	int rc = 0;

	if (!profile || v < 0 || !placement || !(private_ns > 0) || !json_is_array(points) ||
	    !json_array_size(points) || json_array_size(points) > CURVE_MAX_POINTS) {
		snprintf(why, len, "expected profile, family, variant, placement, private_ns and 1 to %d points",
			 CURVE_MAX_POINTS);
		return -1;
	}
	if (machine_profile_load_shipped(profile, &m, why, len))
		return -1;
	kernel_config_defaults(f, &cfg);
	cfg.variant = (unsigned int)v;
	c->n = 0;
	json_array_foreach(points, i, p) {
		struct model_prediction pred;
		double t = json_number_value(json_array_get(p, 0));
		size_t j;
		json_t *ft;

		c->threads[c->n] = t;
		c->measured[c->n] = json_number_value(json_array_get(p, 1));
		c->fitted[c->n] = false;
		json_array_foreach(fitted, j, ft)
			c->fitted[c->n] |= json_number_value(ft) == t;
		cfg.nr_threads = (unsigned int)t;
		if (!(t >= 1 && t == floor(t) && c->measured[c->n] > 0) ||
		    (c->n && t <= c->threads[c->n - 1])) {
			snprintf(why, len, "point %zu: expected a rising whole thread count and a positive ns/op", i);
			rc = -1;
			break;
		}
		if (model_predict(&m, f, &cfg, private_ns, 0, placement, &pred, why, len)) {
			rc = -1;
			break;
		}
		c->predicted[c->n++] = pred.ns_per_op;
	}
	machine_profile_close(&m);
	return rc;
}

static void write_curve(FILE *out, json_t *doc, const struct curve *c)
{
	json_t *informs = json_object_get(doc, "informs");
	const char *role = json_string_value(json_object_get(doc, "role"));
	const char *what = json_string_value(json_object_get(informs, "what"));
	bool slope_fitted = json_is_true(json_object_get(informs, "fitted_slope"));
	unsigned int lo, hi;
	double s_meas = upper_slope(c, c->measured, &lo, &hi);
	double s_pred = upper_slope(c, c->predicted, &lo, &hi);

	fprintf(out, "### %s\n\n", json_string_value(json_object_get(doc, "curve")));
	if (role && !strcmp(role, "informs"))
		fprintf(out, "**Informed a rule**: %s.", what ? what : "(not said)");
	else
		fputs("**Held out**: no rule of the model was derived from it.", out);
	fprintf(out, " Profile `%s`, %s/%s placed %s. From %s.\n\n",
		json_string_value(json_object_get(doc, "profile")),
		json_string_value(json_object_get(doc, "family")),
		json_string_value(json_object_get(doc, "variant")),
		json_string_value(json_object_get(doc, "placement")),
		json_string_value(json_object_get(doc, "citation")));
	fputs("| threads | measured ns/op | predicted | predicted / measured |\n"
	      "|---:|---:|---:|---:|\n", out);
	for (unsigned int i = 0; i < c->n; i++) {
		fprintf(out, "| %.0f | %.1f | %.1f | ", c->threads[i], c->measured[i],
			c->predicted[i]);
		if (c->threads[i] == 1)
			fputs("the input |\n", out);
		else
			fprintf(out, "%.2f%s |\n", c->predicted[i] / c->measured[i],
				c->fitted[i] ? " (fitted)" : "");
	}
	fprintf(out, "\nSlope from %.0f threads up: measured %.2f, predicted %.2f ns per added "
		"thread (%.2fx%s). Throughput from %.0f to %.0f threads: measured %s, predicted %s.\n\n",
		c->threads[lo], s_meas, s_pred, s_pred / s_meas, slope_fitted ? ", fitted" : "",
		c->threads[lo], c->threads[hi],
		falls(c, c->measured, lo, hi) ? "falls" : "does not fall",
		falls(c, c->predicted, lo, hi) ? "falls" : "does not fall");
}

static int json_file(const struct dirent *e)
{
	size_t n = strlen(e->d_name);

	return n > 5 && !strcmp(e->d_name + n - 5, ".json");
}

void published_prediction_write(FILE *out)
{
	static struct curve c;
	char dir[PATH_MAX], path[PATH_MAX + 256], why[512];
	struct dirent **names = NULL;
	int nr;

	fputs("Curves of one contended line measured on machines we do not have, as "
	      "published (model/model_doc.md, \"The published curves\"). Each is predicted "
	      "from its machine's profile and its own 1-thread cost, as `bouncelab model "
	      "--profile P --placement P --private-ns NS` predicts it. *Held out*: no rule of "
	      "the model was derived from the curve; *informed a rule*: what was fitted on it is "
	      "named, and the points it was fitted on are marked.\n\n", out);
	if (curves_dir(dir, sizeof(dir), why, sizeof(why)) ||
	    (nr = scandir(dir, &names, json_file, alphasort)) < 0) {
		fputs("No published curves were found beside the machine profiles.\n\n", out);
		return;
	}
	for (int i = 0; i < nr; i++) {
		json_t *doc;
		int status;

		snprintf(path, sizeof(path), "%s/%s", dir, names[i]->d_name);
		doc = input_file_json(path, CURVE_MAX_BYTES, &status, why, sizeof(why));
		if (!doc)	/* why names the file by its full path: not in a report */
			fprintf(out, "`%s`: not read: not a curve file.\n\n", names[i]->d_name);
		else if (predict_curve(doc, &c, why, sizeof(why)))
			fprintf(out, "`%s`: not predicted: %s.\n\n", names[i]->d_name, why);
		else
			write_curve(out, doc, &c);
		json_decref(doc);
		free(names[i]);
	}
	free(names);
}
