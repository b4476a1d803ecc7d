// SPDX-License-Identifier: GPL-2.0-only
/*
 * One setting's section, in report.md and in full in details.md: its
 * heading, the verdict's sentences, the main table and the fix's
 * before-and-after, the spread and counters, the scaling, the USL fit
 * and the plots. Every number a sentence quotes is formatted by the same
 * function, from the same value, as the table cell it comes from
 * (tests/check_prose.py holds us to that).
 */
#include <limits.h>
#include <math.h>
#include <string.h>

#include "format.h"
#include "markdown.h"
#include "plots.h"
#include "run_checks.h"
#include "sweeps.h"
#include "verdict.h"

static const struct result_file *file_of(const struct report_input *in,
					 const struct group_view *g)
{
	return &in->set->files[g->group->file];
}

/*
 * "Setting: pin_work=1, flag_line=shared, placement compact": named by its
 * parameters, never by its place in this run, which another run changes.
 */
static void write_setting_heading(FILE *out, const struct report_input *in,
				  const struct group_view *g, const char *level)
{
	fprintf(out, "%s Setting: ", level);
	md_escape(out, g->group->setting && *g->group->setting ?
		  g->group->setting : "defaults");
	if (g->is_default)
		fputs(" (defaults)", out);
	if (in->nr_files > 1) {
		fputs(", ", out);
		md_code(out, in->files[g->group->file]);
	}
	fputs("\n\n", out);
}

static void write_image(FILE *out, const struct analysis *a,
			const struct group_view *g, const char *kind,
			const char *alt)
{
	char name[PATH_MAX];

	plot_name(name, sizeof(name), a, g, kind);
	fprintf(out, "%s![%s](%s)", strcmp(kind, "ns") ? " " : "", alt, name);
}


/* A variant's time over the best's, worded by the one rule (verdict.h). */
static enum verdict vs_best_verdict(const struct case_view *v)
{
	return verdict_of(&v->vs_best, v->p_vs_best);
}

/* "2.51x (95% CI 2.40–2.63), p < 0.001" */
static void write_ratio_p(FILE *out, const struct stats_ratio *r, double p)
{
	char rb[FORMAT_LEN], pb[FORMAT_LEN];

	format_p(pb, p);
	fprintf(out, "%s, p %s%s", format_ratio_ci(rb, r), pb[0] == '<' || pb[0] == 'n' ? "" : "= ",
		pb);
}

/*
 * "The fastest" only when every other contender is slower by the rule;
 * otherwise the variants within noise of the quickest are named as tied.
 */
static void write_best_sentence(FILE *out, const struct group_view *g, long t)
{
	const struct result_case *best = NULL;
	size_t nr_others = 0, nr_tied = 0, done = 0;

	for (size_t i = 0; i < g->group->nr; i++) {
		const struct case_view *v = &g->cases[i];

		if (v->c->threads != t || !v->best)
			continue;
		best = v->best;
		if (v->c != best && result_case_contends(v->c)) {
			nr_others++;
			nr_tied += vs_best_verdict(v) != VERDICT_SLOWER;
		}
	}
	if (!best) {
		fprintf(out, "At %ld thread%s only baseline or deliberately racy variants ran.",
			t, format_plural(t));
		return;
	}
	fprintf(out, "At %ld thread%s, ", t, format_plural(t));
	md_code(out, best->variant);
	if (!nr_others) {
		fputs(" is the only variant measured.", out);
		return;
	}
	fputs(nr_tied ? " has the lowest median, but no variant is clearly the fastest: " :
			" is the fastest: ", out);
	for (size_t i = 0; i < g->group->nr; i++) {
		const struct case_view *v = &g->cases[i];
		enum verdict verdict;

		if (v->c->threads != t || v->c == best || !result_case_contends(v->c))
			continue;
		verdict = vs_best_verdict(v);
		done++;
		fputs(done == 1 ? "" : done == nr_others ? " and " : ", ", out);
		md_code(out, v->c->variant);
		fprintf(out, " is %s (", verdict == VERDICT_SLOWER ? "slower" : verdict_word(verdict));
		write_ratio_p(out, &v->vs_best, v->p_vs_best);
		fputc(')', out);
	}
	fputc('.', out);
}

/* The fix against the before variant, by the one rule. */
static const char *pair_word(const struct pair_view *p)
{
	/* gain is before's time over after's: before slower is the fix faster */
	switch (verdict_of(&p->gain, p->p)) {
	case VERDICT_SLOWER:
		return "faster:";
	case VERDICT_FASTER:
		return "slower:";
	case VERDICT_NOISE:
		return "within noise of it:";
	default:
		return "not tested (one repetition, no interval):";
	}
}

static void write_pair_sentence(FILE *out, const struct group_view *g)
{
	const struct pair_view *p = group_view_widest_pair(g);
	char r[FORMAT_LEN], pv[FORMAT_LEN];

	if (!p)
		return;
	fputs(" The fix, ", out);
	md_code(out, g->after);
	fputs(" instead of ", out);
	md_code(out, g->before);
	fprintf(out, ", is %s %s at %ld thread%s", pair_word(p),
		format_ratio_ci(r, &p->gain), p->threads, format_plural(p->threads));
	for (size_t i = g->nr_pairs - 1; i-- > 0;)
		fprintf(out, ", %s at %ld thread%s", format_ratio_ci(r, &g->pairs[i].gain),
			g->pairs[i].threads, format_plural(g->pairs[i].threads));
	format_p(pv, p->p);
	fprintf(out, " (%s at %ld thread%s: p %s%s).", p->gain.pairs ? "sign test" : "U test",
		p->threads, format_plural(p->threads), pv[0] == '<' ? "" : "= ", pv);
}

/*
 * with_pair: the fix's gains in words too (details.md); report.md's
 * before-and-after table, right under the verdict, says them once.
 */
static void write_verdict(FILE *out, const struct group_view *g, bool with_pair)
{
	fputs("**Verdict.** ", out);
	write_best_sentence(out, g, g->threads[g->nr_threads - 1]);
	if (with_pair)
		write_pair_sentence(out, g);
	fputs("\n\n", out);
}

static void write_flags(FILE *out, const struct report_input *in,
			const struct result_case *c)
{
	const char *sep = "";

	if (case_shares_cpus(in->set, c)) {
		fputs("shared CPUs", out);
		sep = ", ";
	}
	if (c->ns_stats.noisy) {
		fprintf(out, "%snoisy", sep);
		sep = ", ";
	}
	if (c->ns_stats.bimodal) {
		fprintf(out, "%sbimodal", sep);
		sep = ", ";
	}
	if (c->n > 1 && c->ns_stats.ci_coverage < STATS_CONFIDENCE)
		fprintf(out, "%s†", sep);
}

static bool counter_nonzero(const struct result_case *c, const char *name)
{
	const struct case_counter *cc = result_case_counter(c, name);

	return cc && cc->median != 0;
}

/*
 * Counters measured for some case and non-zero somewhere: a column of
 * zeros and n/a teaches nothing. They are the main table's last columns.
 */
static bool *shown_counters(const struct analysis *a, const struct group_view *g)
{
	bool *shown = calloc(g->nr_counter_names + 1, sizeof(*shown));

	for (size_t k = 0; shown && k < g->nr_counter_names; k++)
		for (size_t i = 0; i < g->group->nr && !shown[k]; i++)
			shown[k] = counter_nonzero(&a->cases->cases[g->group->first + i],
						   g->counter_names[k]);
	return shown;
}

/*
 * The main table: a case's times and how it compares, in eight columns.
 * Its spread (CV, n) and counters are write_spread_table()'s. ends_only:
 * only the fewest and the most threads (report.md without --full: a page
 * that scrolls in a minute); the appendix has every thread count.
 */
static void write_main_table(FILE *out, const struct report_input *in,
			     const struct group_view *g, bool ends_only)
{
	char ns[FORMAT_LEN], tput[FORMAT_LEN], r[FORMAT_LEN], p[FORMAT_LEN];
	long fewest = g->threads[0], most = g->threads[g->nr_threads - 1];
	double low_coverage = 1;
	bool left_out = false;

	fputs("| threads | variant | distance | ns/op (95% CI) | Mops/s (95% CI) | × best | p vs best | flags |\n"
	      "|---:|---|---|---:|---:|---:|---:|---|\n", out);
	for (size_t i = 0; i < g->group->nr; i++) {
		const struct case_view *v = &g->cases[i];
		const struct result_case *c = v->c;

		if (ends_only && c->threads != fewest && c->threads != most) {
			left_out = true;
			continue;
		}
		fprintf(out, "| %ld | ", c->threads);
		md_name(out, c->variant);
		fputs(c->baseline ? " (baseline) | " : c->racy ? " (racy) | " : " | ", out);
		md_escape(out, c->widest_class ? c->widest_class : "n/a");
		fprintf(out, " | %s | %s | %s | %s | ",
			format_median_ci(ns, &c->ns_stats, 1),
			format_median_ci(tput, &c->tput_stats, 1e-6),
			v->best == c ? "best" : format_ratio_ci(r, &v->vs_best),
			format_p(p, v->p_vs_best));
		write_flags(out, in, c);
		fputs(" |\n", out);
		if (c->n > 1 && c->ns_stats.ci_coverage < low_coverage)
			low_coverage = c->ns_stats.ci_coverage;
	}
	fputc('\n', out);
	if (left_out)
		fprintf(out, "At %ld and %ld threads; every thread count: [" DETAILS_NAME "]("
			DETAILS_NAME ").\n\n", fewest, most);
	if (low_coverage < STATS_CONFIDENCE)
		fprintf(out, "† Fewer than 6 repetitions: no interval of the median reaches 95%%, so the range of the "
			"repetitions is shown, which covers the median with only %.0f%% confidence, and the "
			"bootstrap intervals of ratios are rough too. Run more repetitions (the default is 9).\n\n",
			low_coverage * 100);
}

/*
 * One table of the spread (with_spread: CV and n) and of the counters
 * from *next on, as many as fit beside threads and variant; *next is
 * left at the first counter not written.
 */
static void write_spread_part(FILE *out, const struct group_view *g, const bool *shown,
			      bool with_spread, size_t *next)
{
	size_t room = MD_TABLE_MAX_COLUMNS - 2 - (with_spread ? 2 : 0), end = *next, nr = 0;
	char r[FORMAT_LEN], cv[FORMAT_LEN];

	for (; end < g->nr_counter_names && nr < room; end++)
		nr += shown[end];
	fputs(with_spread ? "| threads | variant | CV | n |" : "| threads | variant |", out);
	for (size_t k = *next; k < end; k++) {
		if (!shown[k])
			continue;
		fputc(' ', out);
		md_name(out, g->counter_names[k]);
		fputs(" |", out);
	}
	fputs(with_spread ? "\n|---:|---|---:|---:|" : "\n|---:|---|", out);
	for (size_t i = 0; i < nr; i++)
		fputs("---:|", out);
	fputc('\n', out);
	for (size_t i = 0; i < g->group->nr; i++) {
		const struct result_case *c = g->cases[i].c;

		fprintf(out, "| %ld | ", c->threads);
		md_name(out, c->variant);
		fputs(" |", out);
		if (with_spread)
			fprintf(out, " %s | %zu |", format_percent(cv, c->ns_stats.cv), c->n);
		for (size_t k = *next; k < end; k++) {
			const struct case_counter *cc = result_case_counter(c, g->counter_names[k]);

			if (shown[k])
				fprintf(out, " %s |", cc ? format_sig(r, cc->median) : "n/a");
		}
		fputc('\n', out);
	}
	fputc('\n', out);
	*next = end;
}

/* Each case's spread and its counters that are non-zero somewhere. */
static void write_spread_table(FILE *out, const struct report_input *in,
			       const struct group_view *g)
{
	bool *shown = shown_counters(in->a, g);
	size_t next = 0;

	if (!shown)
		return;
	fputs("Spread and counters (per operation, medians):\n\n", out);
	write_spread_part(out, g, shown, true, &next);
	while (next < g->nr_counter_names) {
		size_t k = next;

		while (k < g->nr_counter_names && !shown[k])
			k++;
		if (k == g->nr_counter_names)
			break;
		write_spread_part(out, g, shown, false, &next);
	}
	free(shown);
}

static void write_pair_table(FILE *out, const struct group_view *g)
{
	char b[FORMAT_LEN], a[FORMAT_LEN], r[FORMAT_LEN], p[FORMAT_LEN];

	if (!g->nr_pairs)
		return;
	fputs("Before and after:\n\n| threads | ", out);
	md_code(out, g->before);
	fputs(" ns/op | ", out);
	md_code(out, g->after);
	fputs(" ns/op | ", out);
	md_code(out, g->after);
	fputs(" faster by | p |\n|---:|---:|---:|---:|---:|\n", out);
	bool paired = false;

	for (size_t i = 0; i < g->nr_pairs; i++) {
		const struct pair_view *pv = &g->pairs[i];

		/*
		 * Paired, the gain is the median round's ratio: quote that
		 * round's two times, which agree with it, where the two
		 * medians may point the other way.
		 */
		if (pv->gain.pairs) {
			paired = true;
			format_sig(b, pv->gain.median_num);
			format_sig(a, pv->gain.median_den);
		} else {
			format_median_ci(b, &pv->before->ns_stats, 1);
			format_median_ci(a, &pv->after->ns_stats, 1);
		}
		fprintf(out, "| %ld | %s%s | %s%s | %s | %s |\n", pv->threads, b,
			pv->gain.pairs ? "†" : "", a, pv->gain.pairs ? "†" : "",
			format_ratio_ci(r, &pv->gain), format_p(p, pv->p));
	}
	if (paired)
		fputs("\n† paired by round: the times of the median round, which agree with the gain.\n",
		      out);
	fputc('\n', out);
}

static bool has_counter_name(const struct group_view *g, const char *name)
{
	for (size_t k = 0; k < g->nr_counter_names; k++)
		if (!strcmp(g->counter_names[k], name))
			return true;
	return false;
}

static bool same_reason(const struct run_counter_na *a, const struct run_counter_na *b)
{
	return a->reason == b->reason || (a->reason && b->reason && !strcmp(a->reason, b->reason));
}

/*
 * "Not counted: c2c_fills_per_op, ... n/a (no hardware PMU)." The names
 * that share a reason are listed together; there is usually one reason.
 * counters: the run's, what it asked for and could not count.
 */
static void write_na_note(FILE *out, const struct group_view *g,
			  const struct run_counters *counters)
{
	const char *sep = "Not counted: ";
	size_t i = 0;

	for (size_t n = 0; n < counters->nr_na; n++) {
		const struct run_counter_na *na = &counters->na[n];
		bool first = true, seen = false;

		if (has_counter_name(g, na->counter))
			continue;
		/* Listed already, with an earlier name of the same reason? */
		for (size_t k = 0; k < i && k < counters->nr_na; k++)
			if (!has_counter_name(g, counters->na[k].counter) &&
			    same_reason(na, &counters->na[k]))
				seen = true;
		i++;
		if (seen)
			continue;
		fputs(sep, out);
		for (size_t k = 0; k < counters->nr_na; k++) {
			if (has_counter_name(g, counters->na[k].counter) ||
			    !same_reason(na, &counters->na[k]))
				continue;
			fputs(first ? "" : ", ", out);
			md_name(out, counters->na[k].counter);
			first = false;
		}
		fputc(' ', out);
		md_escape(out, na->reason ? na->reason : "n/a");
		sep = "; ";
	}
	if (strcmp(sep, "Not counted: "))
		fputs(".\n\n", out);
}


/* The counters themselves are the main table's last columns (shown_counters). */
static void write_counters_note(FILE *out, const struct report_input *in,
				const struct group_view *g)
{
	write_na_note(out, g, &file_of(in, g)->run.counters);
}

static void write_scaling_table(FILE *out, const struct analysis *a,
				const struct group_view *g)
{
	char tput[FORMAT_LEN], s[FORMAT_LEN];

	fputs("Scaling (ops/s of all threads over the same variant's at 1 thread; efficiency is that speedup "
	      "over the thread count):\n\n| variant | threads | Mops/s (95% CI) | speedup | efficiency |\n"
	      "|---|---:|---:|---:|---:|\n", out);
	for (size_t k = 0; k < g->nr_variants; k++) {
		for (size_t t = 0; t < g->nr_threads; t++) {
			const struct case_view *v = group_view_find(a, g, g->variants[k].name,
								    g->threads[t]);

			if (!v || !v->has_speedup)
				continue;
			fputs("| ", out);
			md_name(out, v->c->variant);
			fprintf(out, " | %ld | %s | %s | %.0f%% |\n", v->c->threads,
				format_median_ci(tput, &v->c->tput_stats, 1e-6),
				v->c->threads == 1 ? "1 (reference)" : format_ratio_ci(s, &v->speedup),
				v->speedup.ratio / (double)v->c->threads * 100);
		}
	}
	fputc('\n', out);
}

static void write_usl(FILE *out, const struct group_view *g)
{
	char r40[FORMAT_LEN], r256[FORMAT_LEN];
	bool any = false;

	for (size_t k = 0; k < g->nr_variants; k++)
		any |= g->variants[k].fitted;
	if (!any)
		return;		/* said once for the whole report: write_model_note() */
	fprintf(out, "**Scalability model** (Universal Scalability Law, X(N) = X(1)·N / (1 + σ(N−1) + κN(N−1))), "
		"fitted to %ld–%ld threads. A **model, not a measurement**: its values at 40 and 256 CPUs "
		"extrapolate far beyond the data.\n\n"
		"| variant | σ contention | κ coherency | R² | peak at | model speedup at 40 CPUs | at 256 CPUs |\n"
		"|---|---:|---:|---:|---:|---:|---:|\n", g->threads[0], g->threads[g->nr_threads - 1]);
	for (size_t k = 0; k < g->nr_variants; k++) {
		const struct variant_view *v = &g->variants[k];
		double peak;

		if (!v->fitted)
			continue;
		peak = usl_peak(&v->fit);
		fputs("| ", out);
		md_name(out, v->name);
		fprintf(out, " | %.3g | %.3g | %.3f | ", v->fit.sigma, v->fit.kappa, v->fit.r2);
		if (isfinite(peak))
			fprintf(out, "%.0f thread%s", peak, peak < 1.5 ? "" : "s");
		else
			fputs("none (κ = 0)", out);
		fprintf(out, " | %s | %s |\n",
			format_ratio(r40, usl_throughput(&v->fit, 40) / v->fit.x1),
			format_ratio(r256, usl_throughput(&v->fit, 256) / v->fit.x1));
	}
	fputc('\n', out);
}

void markdown_setting_plots(FILE *out, const struct analysis *a,
			    const struct group_view *g, bool end_paragraph)
{
	long t = g->threads[g->nr_threads - 1];
	char alt[SWEEP_TEXT_LEN + 96], changes[SWEEP_TEXT_LEN];

	setting_changes(changes, sizeof(changes), g);
	snprintf(alt, sizeof(alt), "%s (%s): ns per operation at %ld thread%s",
		 g->group->family, changes, t, format_plural(t));
	/* One paragraph: a renderer sets the plots side by side. */
	write_image(out, a, g, "ns", alt);
	if (plot_has_scaling(g))
		write_image(out, a, g, "throughput", "throughput against threads");
	if (plot_has_speedup(g)) {
		write_image(out, a, g, "speedup", "speedup over 1 thread");
		write_image(out, a, g, "efficiency", "parallel efficiency");
	}
	if (end_paragraph)
		fputs("\n\n", out);
}

/* Why a table with roles has no scaling section. */
static void write_mix_note(FILE *out, const struct group_view *g)
{
	fputs("**Not a scaling series.** ", out);
	md_code(out, g->mix_param);
	fputs(" splits the threads into roles, so each thread count runs a different mix of work "
	      "(1 thread: a writer only; more threads: writers and readers). Compare the variants at "
	      "each thread count; comparing thread counts with each other would not measure scaling, "
	      "so no speedup, efficiency or scalability model is shown.\n\n", out);
}

/*
 * A setting in report.md: its verdict, its table and its plots. The fix's
 * before-and-after table, which the verdict quotes, is in details.md.
 * plots false: the caller sets them beside the family's sweep plots.
 */
void markdown_setting(FILE *out, const struct report_input *in,
		      const struct group_view *g, bool plots)
{
	const struct analysis *a = in->a;

	write_setting_heading(out, in, g, "###");
	write_verdict(out, g, false);
	write_pair_table(out, g);
	write_main_table(out, in, g, !in->full);
	if (g->mix_param)
		write_mix_note(out, g);
	else if (g->nr_threads < 2)
		fprintf(out, "Only %ld thread%s measured: no scaling plots or model.\n\n",
			g->threads[0], format_plural(g->threads[0]));
	if (plots)
		markdown_setting_plots(out, a, g, true);
}

/*
 * A setting in details.md: everything but the plots; the spread, the
 * counters, the scaling and the model that report.md leaves out.
 */
void markdown_setting_details(FILE *out, const struct report_input *in,
			      const struct group_view *g)
{
	write_setting_heading(out, in, g, "###");
	write_verdict(out, g, true);
	write_pair_table(out, g);
	write_main_table(out, in, g, false);
	write_spread_table(out, in, g);
	write_counters_note(out, in, g);
	/* With two thread counts the main table's Mops/s column is the scaling. */
	if (plot_has_speedup(g))
		write_scaling_table(out, in->a, g);
	if (g->mix_param)
		write_mix_note(out, g);
	else if (g->nr_threads >= 2)
		write_usl(out, g);
}
