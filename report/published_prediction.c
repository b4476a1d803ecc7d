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
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog.h"
#include "config.h"
#include "data_dir.h"
#include "model.h"
#include "prediction_internal.h"
#include "published_read.h"

/* A published curve and the model's prediction at each of its points. */
struct curve {
	unsigned int n;
	const double *threads, *measured;
	const bool *fitted;
	double predicted[PUBLISHED_MAX_POINTS];
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

/* The curve's prediction at each point; -1 with why on a bad profile or model. */
static int predict_curve(const struct published_curve *pc, struct curve *c, char *why, size_t len)
{
	const struct kernel_family *f = catalog_find(pc->family);
	int v = f ? catalog_variant_index(f, pc->variant) : -1;
	struct machine_profile m;
	struct kernel_config cfg;
	int rc = 0;

	if (v < 0) {
		snprintf(why, len, "expected a family and variant of the catalogue, found %s/%s",
			 pc->family, pc->variant);
		return -1;
	}
	if (machine_profile_load_shipped(pc->profile, &m, why, len))
		return -1;
	kernel_config_defaults(f, &cfg);
	cfg.variant = (unsigned int)v;
	c->n = pc->nr_points;
	c->threads = pc->threads;
	c->measured = pc->measured;
	c->fitted = pc->fitted;
	for (unsigned int i = 0; i < c->n && !rc; i++) {
		struct model_prediction pred;

		cfg.nr_threads = (unsigned int)c->threads[i];
		rc = model_predict(&m, f, &cfg, pc->private_ns, 0, pc->placement, &pred, why, len);
		c->predicted[i] = pred.ns_per_op;
	}
	machine_profile_close(&m);
	return rc ? -1 : 0;
}

static void write_curve(FILE *out, const struct published_curve *pc, const struct curve *c)
{
	unsigned int lo, hi;
	double s_meas = upper_slope(c, c->measured, &lo, &hi);
	double s_pred = upper_slope(c, c->predicted, &lo, &hi);

	fprintf(out, "### %s\n\n", pc->title);
	if (pc->role && !strcmp(pc->role, "informs"))
		fprintf(out, "**Informed a rule**: %s.", pc->informs_what ? pc->informs_what : "(not said)");
	else
		fputs("**Held out**: no rule of the model was derived from it.", out);
	fprintf(out, " Profile `%s`, %s/%s placed %s. From %s.\n\n", pc->profile, pc->family,
		pc->variant, pc->placement, pc->citation);
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
		c->threads[lo], s_meas, s_pred, s_pred / s_meas, pc->slope_fitted ? ", fitted" : "",
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
	static struct published_curve pc;
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
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]->d_name);
		if (published_curve_read(path, &pc, why, sizeof(why)))
			fprintf(out, "`%s`: not read: %s.\n\n", names[i]->d_name, why);
		else if (predict_curve(&pc, &c, why, sizeof(why)))
			fprintf(out, "`%s`: not predicted: %s.\n\n", names[i]->d_name, why);
		else
			write_curve(out, &pc, &c);
		published_curve_free(&pc);
		free(names[i]);
	}
	free(names);
}
