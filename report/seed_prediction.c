// SPDX-License-Identifier: GPL-2.0-only
/*
 * The model on the seeds' machines: each seed figure with a machine
 * profile (seeds.c) predicted from this run's 1-thread gup costs, beside
 * the figure as published, where the time goes on either side, and the
 * predicted curves up to the seed's CPU count.
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog.h"
#include "format.h"
#include "model.h"
#include "plots.h"
#include "prediction.h"
#include "prediction_internal.h"
#include "svg.h"

/*
 * The seed figures the model predicts (seeds.c): those with a machine
 * profile (today the gup family's two), each modelled by its own family's
 * before and after variants; the seed's own ns per page per thread is
 * seed_ns_per_page()'s arithmetic on the published numbers.
 */
#define for_each_predicted_seed(s)						\
	for (const struct seed_figure *s = catalog_next_seed(NULL); s; s = catalog_next_seed(s)) \
		if (s->profile)

/* The headline figure (46.6x at 256 CPUs), or NULL. */
static const struct seed_figure *headline_seed(void)
{
	for_each_predicted_seed(s)
		if (s->headline)
			return s;
	return NULL;
}

/* A 1-thread row of the seed's family and variant in its setting (all its values). */
static const struct result_row *seed_row(const struct results *set, const char *variant,
					 const struct seed_figure *seed)
{
	for (size_t i = 0; seed && i < set->nr_rows; i++) {
		const struct result_row *r = &set->rows[i];

		if (!r->family || strcmp(r->family, seed->family->name) || strcmp(r->variant, variant) ||
		    r->threads != 1)
			continue;
		if (seed_setting_in(seed, &r->params))
			return r;
	}
	return NULL;
}

/* A seed's machine and this run's 1-thread gup costs, ready to predict. */
struct seed_model {
	struct machine_profile m;
	const struct kernel_family *f;
	struct kernel_config cfg[2];	/* before, after */
	double private_ns[2];
	double ghz;			/* this run's clock, for the scaling */
};

static int seed_model_open(const struct report_input *in, const struct seed_figure *seed,
			   struct seed_model *sm, char *err, size_t errlen)
{
	const char *variants[2] = { seed->before_variant, seed->after_variant };

	sm->f = seed->family;
	for (int k = 0; k < 2; k++) {
		const struct result_row *r = seed_row(in->set, variants[k], seed);

		if (!r || prediction_config_of(r, sm->f, &sm->cfg[k])) {
			size_t used = (size_t)snprintf(err, errlen, "no 1-thread %s/%s row in the seed's setting:",
						       seed->family->name, variants[k]);

			for (const char *const *w = seed ? seed->setting : NULL; w && *w && used < errlen; w++)
				used += (size_t)snprintf(err + used, errlen - used, " %s", *w);
			return -1;
		}
		sm->private_ns[k] = prediction_case_median(in->set, r, 1);
		if (!k) {
			sm->ghz = run_context_clock_ghz(&in->set->files[r->source_file].run);
		}
	}
	return machine_profile_load_shipped(seed->profile, &sm->m, err, errlen);
}

/* Predictions before and after the fix at n threads on the seed's machine. */
static int seed_predict_both(struct seed_model *sm, unsigned int n,
			     struct model_prediction p[2], char *err, size_t errlen)
{
	for (int k = 0; k < 2; k++) {
		sm->cfg[k].nr_threads = n;
		if (model_predict(&sm->m, sm->f, &sm->cfg[k], sm->private_ns[k], sm->ghz,
				  NULL, &p[k], err, errlen))
			return -1;
	}
	return 0;
}

/* ns/op before and after the fix at n threads on the seed's machine. */
static int seed_predict(struct seed_model *sm, unsigned int n, double ns[2],
			char *err, size_t errlen)
{
	struct model_prediction p[2];

	if (seed_predict_both(sm, n, p, err, errlen))
		return -1;
	ns[0] = p[0].ns_per_op;
	ns[1] = p[1].ns_per_op;
	return 0;
}

int prediction_seed_gain(const struct report_input *in, const struct seed_figure *s,
			 double *gain, const char **profile, char *err, size_t errlen)
{
	struct seed_model sm;
	double ns[2];
	int ret;

	for_each_predicted_seed(seed) {
		if (seed != s)
			continue;
		*profile = seed->profile;
		if (seed_model_open(in, seed, &sm, err, errlen))
			return -1;
		ret = seed_predict(&sm, seed->threads, ns, err, errlen);
		machine_profile_close(&sm.m);
		if (!ret)
			*gain = ns[0] / ns[1];
		return ret;
	}
	*profile = NULL;
	snprintf(err, errlen, "the model has no profile of the seed's machine");
	return -1;
}

static bool within_2x_of(double ratio, double gain)
{
	return ratio <= 2 * gain && ratio >= gain / 2;
}

static void write_seed_row(FILE *out, const struct report_input *in,
			   const struct seed_figure *seed)
{
	struct seed_model sm;
	char err[512], what[256];
	double ns[2], ratio, gain = seed_gain(seed);

	seed_figure_text(what, sizeof(what), seed);
	fputs("| ", out);
	md_escape(out, what);
	fprintf(out, " | `%s` | %.3gx | ", seed->profile, gain);
	if (seed_model_open(in, seed, &sm, err, sizeof(err))) {
		fprintf(out, "not predicted: %s | |\n", err);
		return;
	}
	if (seed_predict(&sm, seed->threads, ns, err, sizeof(err))) {
		fprintf(out, "not predicted: %s | |\n", err);
	} else {
		ratio = ns[0] / ns[1];
		fprintf(out, "%.3gx (%.0f → %.0f ns per page per thread; the seed's %.0f → %.0f) | %s",
			ratio, ns[0], ns[1], seed_ns_per_page(seed, false), seed_ns_per_page(seed, true),
			within_2x_of(ratio, gain) ? "within 2x" : "**miss**: see below");
		fprintf(out, " ![predicted curves](" PLOT_DIR "/prediction-%s.svg)", seed->profile);
		fputs(" |\n", out);
	}
	machine_profile_close(&sm.m);
}

/*
 * Visits per page the model puts on the line it names (at most one per
 * operation, as model/predict.c counts them: the access profile's locked
 * ops, cmpxchg, stores, and reads of a line all threads write), 0 if
 * none: to say how fast the seed's machine served it.
 */
static double line_visits(const struct seed_model *sm, int k, const char *line)
{
	struct access_profile a = { 0 };

	sm->f->access(&sm->cfg[k], &a);
	for (unsigned int j = 0; line && j < a.nr_lines; j++)
		if (!strcmp(a.lines[j].line, line))
			return fmin(1, a.lines[j].locked + a.lines[j].cas + a.lines[j].stores +
				    (a.lines[j].shared_by == LINE_SHARED_BY_ALL ? a.lines[j].reads : 0));
	return 0;
}

/*
 * One side of a seed. With the busiest line saturated, the time per page
 * per thread over the threads and the line's visits per page is how
 * often the line served a visit, machine-wide: the seed's machine's (an
 * upper bound: all of its time was on that line) beside the model's, and
 * what the model's interval is made of. Returns -1 if the model's line is
 * faster, 1 if slower, 0 if there is no line to compare.
 */
static int write_side(FILE *out, const struct seed_model *sm, int k,
		      const struct model_prediction *p, double seed_ns, unsigned int n)
{
	double visits = line_visits(sm, k, p->bottleneck), model, seed;
	char local[32];

	fprintf(out, "%s %.0f ns per page per thread against the seed's %.0f",
		k ? "after the fix," : "before,", p->ns_per_op, seed_ns);
	if (!p->bottleneck || visits <= 0 || p->busy < 0.9) {
		fputs(" (no line saturates: the private work)", out);
		return 0;
	}
	model = p->ns_per_op / (n * visits);
	seed = seed_ns / (n * visits);
	fprintf(out, ", bound by the %s (%.0f%% busy; visits per page: %.3g): the seed's machine "
		"served a visit of it every %.0f ns or less, machine-wide, the model every %.0f ns. "
		"A handoff keeps it %.0f ns ", p->bottleneck, 100 * p->busy, visits, seed, model,
		2 * p->handoff_ns + p->waiters_ns);
	if (p->waiters_ns >= 0.5)
		fprintf(out, "(the transfer, the new owner's tenure and %.0f ns for the requesters "
			"queued beyond the next)", p->waiters_ns);
	else
		fputs("(the transfer and the new owner's tenure)", out);
	fprintf(out, " and serves %.1f visits", (2 * p->handoff_ns + p->waiters_ns) / model);
	/* left out where it would say 0.0 */
	snprintf(local, sizeof(local), "%.1f", p->local_handoffs);
	if (strcmp(local, "0.0"))
		fprintf(out, "; %s handoffs stay within a cache domain for each one that leaves "
			"it, where any two threads are %.0f ns apart", local, p->transfer_ns);
	return model < seed ? -1 : 1;
}

static void write_sides(FILE *out, const struct report_input *in)
{
	bool any = false, faster = false, slower = false;

	for_each_predicted_seed(seed) {
		struct model_prediction p[2];
		struct seed_model sm;
		char err[512], what[256];
		bool miss;

		if (seed_model_open(in, seed, &sm, err, sizeof(err)))
			continue;
		if (!seed_predict_both(&sm, seed->threads, p, err, sizeof(err))) {
			miss = !within_2x_of(p[0].ns_per_op / p[1].ns_per_op, seed_gain(seed));
			if (!any)
				fputs("Where the time goes, the model beside the seed:\n\n", out);
			seed_figure_text(what, sizeof(what), seed);
			fputs("- ", out);
			md_escape(out, what);
			fputs(": ", out);
			for (int k = 0; k < 2; k++) {
				int side = write_side(out, &sm, k, &p[k], seed_ns_per_page(seed, k),
						      seed->threads);

				faster |= miss && side < 0;
				slower |= miss && side > 0;
				fputs(k ? ".\n" : "; ", out);
			}
			any = true;
		}
		machine_profile_close(&sm.m);
	}
	if (!faster && !slower) {
		if (any)
			fputs("\n", out);
		return;
	}
	fputs("\nWhat the model lacks where it misses:\n\n", out);
	if (slower)
		fputs("- Where its line is slower than the seed's: the **handoff order** beyond the "
		      "domain-first rule. The model lets a domain's waiters take the line for as long "
		      "as a farther request takes to arrive; a fabric that batches more requests per "
		      "domain, or that serves a farther requester only after all nearby ones, moves "
		      "the line faster still.\n", out);
	if (faster)
		fputs("- Where its line is faster than the seed's: the **private cost** behind the "
		      "owner's tenure. An owner keeps the line for the calls it makes while the next "
		      "request travels, D = 2L / (1 + L/Z), a discount that grows as the 1-thread cost "
		      "Z shrinks; Z is the walker's on this machine, which does the kernel's per-page "
		      "work but cannot run what user space may not: interrupts off and on around the "
		      "walk, the system call and the ioctl's loop. The seed gives no 1-thread figure to "
		      "take instead.\n", out);
	fputs("\nmodel/model_doc.md derives both.\n\n", out);
}

void seed_prediction_write(FILE *out, const struct report_input *in)
{
	fputs("| seed figure | profile | seed's gain | predicted | |\n|---|---|---:|---|---|\n", out);
	for_each_predicted_seed(seed)
		write_seed_row(out, in, seed);
	fputs("\n", out);
	write_sides(out, in);
}

/* Whether add_seed_plot() draws seed i: the run has the gup rows it needs. */
static bool seed_plotted(const struct report_input *in, const struct seed_figure *seed)
{
	struct seed_model sm = { 0 };
	char err[512];
	bool ok = seed && !seed_model_open(in, seed, &sm, err, sizeof(err));

	machine_profile_close(&sm.m);
	return ok;
}

/* Predicted throughput before and after, from 1 thread to the seed's count. */
static int add_seed_plot(struct output_batch *batch, const char *dir,
			 const struct report_input *in, const struct seed_figure *seed)
{
	double x[16], y[2][16], ns[2];
	struct svg_series series[2];
	struct svg_line_chart chart;
	struct seed_model sm;
	char path[PATH_MAX], title[160], err[512], *svg;
	char names[2][96], mode[64];
	unsigned int top = seed->threads;
	size_t n = 0;

	if (seed_model_open(in, seed, &sm, err, sizeof(err)))
		return 0;	/* the table says why */
	for (unsigned int t = 1; n < 16; t = t * 2 < top ? t * 2 : top) {
		if (seed_predict(&sm, t, ns, err, sizeof(err)))
			break;
		x[n] = t;
		y[0][n] = t * 1e3 / ns[0];	/* Mops/s, all threads */
		y[1][n] = t * 1e3 / ns[1];
		n++;
		if (t == top)
			break;
	}
	machine_profile_close(&sm.m);
	snprintf(names[0], sizeof(names[0]), "%s (before)", seed->before_variant);
	snprintf(names[1], sizeof(names[1]), "%s (after)", seed->after_variant);
	series[0] = (struct svg_series){ .name = names[0], .n = n, .x = x,
					 .y = y[0], .style = 0, .dashed = true, .markers = true };
	series[1] = (struct svg_series){ .name = names[1], .n = n, .x = x,
					 .y = y[1], .style = 1, .dashed = true, .markers = true };
	snprintf(title, sizeof(title), "%s mode=%s on %s: predicted", seed->family->name,
		 seed_setting_value(seed, "mode", mode, sizeof(mode)), seed->profile);
	chart = (struct svg_line_chart){
		.title = title, .x_label = "threads", .y_label = "Mops/s, all threads (model)",
		.log_x = true, .log_y = true, .nr_series = 2, .series = series,
	};
	svg = svg_line_chart(&chart);
	if (!svg || snprintf(path, sizeof(path), "%s/" PLOT_DIR "/prediction-%s.svg", dir,
			     seed->profile) >= (int)sizeof(path)) {
		free(svg);
		return -1;
	}
	return output_batch_add(batch, path, svg, strlen(svg));
}

const struct seed_figure *seed_prediction_headline(const struct report_input *in)
{
	const struct seed_figure *s = headline_seed();

	return seed_plotted(in, s) ? s : NULL;
}

int seed_prediction_add_plots(struct output_batch *batch, const char *dir,
			      const struct report_input *in)
{
	for_each_predicted_seed(seed)
		if (add_seed_plot(batch, dir, in, seed))
			return -1;
	return 0;
}
