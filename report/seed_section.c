// SPDX-License-Identifier: GPL-2.0-only
/*
 * A lesson's seeds: each published figure of the family (seeds.c), beside
 * the pair of this run that models it, at the seed's thread count or
 * below, and the contention model's gain at the seed's CPU count (the
 * figure prediction.md gives).
 */
#include <string.h>

#include "format.h"
#include "markdown.h"
#include "prediction.h"
#include "seeds.h"

/* The measured pair the seed's figure is set beside: at its thread count or below. */
static const struct pair_view *seed_pair(const struct group_view *g,
					 const struct seed_figure *s)
{
	const struct pair_view *best = g->nr_pairs ? &g->pairs[0] : NULL;

	if (!g->before || strcmp(g->before, s->before_variant) ||
	    strcmp(g->after, s->after_variant))
		return NULL;
	for (size_t i = 0; i < g->nr_pairs; i++)	/* ascending threads */
		if (g->pairs[i].threads <= (long)s->threads)
			best = &g->pairs[i];
	return best;
}

/*
 * The seed's CPU count: measured, or the contention model's gain there,
 * the very figure of PREDICTION_FILE's seeds table (one function gives
 * both).
 */
static void write_model_cell(FILE *out, const struct report_input *in,
			     const struct group_view *g, const struct seed_figure *s)
{
	char r[FORMAT_LEN], err[512];
	const char *profile;
	double gain;

	if (g && g->nr_threads && g->threads[g->nr_threads - 1] >= (long)s->threads) {
		fputs("measured: no extrapolation needed", out);
		return;
	}
	if (prediction_seed_gain(in, s, &gain, &profile, err, sizeof(err))) {
		fputs("no model: ", out);
		md_escape(out, err);
		return;
	}
	fprintf(out, "**model**, not a measurement: %s at %u CPUs on the profile ",
		format_ratio(r, gain), s->threads);
	md_code(out, profile);
	fputs(" ([" PREDICTION_FILE "](" PREDICTION_FILE "))", out);
}

/*
 * The table of the seed's setting (seeds.h), or NULL when the run has
 * none: never another setting in its place.
 */
static const struct group_view *seed_group(const struct report_input *in,
					   const struct family_view *f,
					   const struct seed_figure *s)
{
	if (!s->setting)
		return &in->a->groups[f->default_group];
	for (size_t k = f->first_group; k < f->first_group + f->nr_groups; k++) {
		const struct group_view *g = &in->a->groups[k];

		if (seed_setting_in(s, &g->group->params))
			return g;
	}
	return NULL;
}

/*
 * Our figure beside a seed's: the ratio of the quantity the seed timed
 * (gup_test's get time: get_ns_per_page) when the run has it, else of
 * ns_per_op. Sets *what to the quantity used.
 */
static int seed_ours(const struct pair_view *p, const struct seed_figure *s,
		     struct stats_ratio *r, const char **what)
{
	const struct case_counter *b, *a;

	*what = "ns_per_op";
	*r = p->gain;
	if (!s->quantity)
		return 0;
	b = result_case_counter(p->before, s->quantity);
	a = result_case_counter(p->after, s->quantity);
	if (!b || !a || !b->n || !a->n)
		return 0;
	*what = s->quantity;
	return analysis_compare(p->before, b->values, b->n, p->after, a->values, a->n, r,
				&(double){ 0 });
}

void markdown_seeds(FILE *out, const struct report_input *in,
		    const struct family_view *f, bool *glossed)
{
	char gain[FORMAT_LEN], ours[FORMAT_LEN], setting[256];
	bool any = false;

	for (unsigned int i = 0; f->kf && i < f->kf->nr_seeds; i++) {
		const struct seed_figure *s = &f->kf->seeds[i];
		const struct group_view *g;
		const struct pair_view *p;

		g = seed_group(in, f, s);
		if (!any)
			fputs("**The seeds' figures beside ours.**\n\n"
			      "| seed | benchmark, machine | published | gain | modelled by | ours | "
			      "at the seed's CPU count |\n"
			      "|---|---|---|---:|---|---|---|\n", out);
		any = true;
		p = g ? seed_pair(g, s) : NULL;
		seed_setting_text(setting, sizeof(setting), s);
		fputs("| ", out);
		md_escape(out, s->source);
		fputs(" | ", out);
		md_escape(out, s->benchmark);
		fputs("; ", out);
		md_escape(out, s->machine);
		fprintf(out, " | %.10g → %.10g %s; ", s->before, s->after, s->unit);
		md_escape(out, s->published);
		fprintf(out, " | %s | ", format_ratio(gain, seed_gain(s)));
		md_code(out, s->family->name);
		fputs(" at ", out);
		md_escape(out, setting);
		fputs(" | ", out);
		if (p) {
			struct stats_ratio r;
			const char *what;

			if (seed_ours(p, s, &r, &what))
				r = p->gain, what = "ns_per_op";
			fprintf(out, "%s at %ld thread%s, by ", format_ratio_ci(ours, &r),
				p->threads, format_plural(p->threads));
			md_code(out, what);
		} else if (!g) {
			fputs("not measured: this run has no case at ", out);
			md_escape(out, setting);
		} else {
			fputs("not measured: ", out);
			md_code(out, s->before_variant);
			fputs(" or ", out);
			md_code(out, s->after_variant);
			fputs(" missing", out);
		}
		fputs(" | ", out);
		write_model_cell(out, in, g, s);
		fputs(" |\n", out);
	}
	if (any)
		fputc('\n', out);
	/* Said under the first seeds table only: the words are the same for each. */
	if (any && !*glossed)
		fputs("*gain* is how many times better the fix made the seed's own figure; *modelled by* "
		      "is the family and the setting that run the seed's benchmark; *ours* is the "
		      "before variant's figure over the after variant's in this run, in that setting, "
		      "by the quantity named: `get_ns_per_page` where the seed timed the get alone (gup_test, "
		      "gup_benchmark), `ns_per_op` (the whole call) otherwise. The "
		      "seeds measured real kernels on big machines; a ratio from a few threads is not expected "
		      "to reach theirs, since the cost of a bouncing line grows with the number of CPUs that "
		      "fight over it.\n\n", out);
	*glossed |= any;
}
