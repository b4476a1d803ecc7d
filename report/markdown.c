// SPDX-License-Identifier: GPL-2.0-only
/*
 * report.md. Every number a sentence quotes is formatted by the same
 * function, from the same value, as the table cell it comes from
 * (tests/check_prose.py holds us to that).
 */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fleet.h"
#include "format.h"
#include "lesson_text.h"
#include "markdown.h"
#include "prediction.h"
#include "plots.h"
#include "run_checks.h"
#include "seeds.h"
#include "summary.h"
#include "sweeps.h"
#include "verdict.h"

static const struct result_file *file_of(const struct report_input *in,
					 const struct group_view *g)
{
	return &in->set->files[g->group->file];
}

void markdown_banner(FILE *out, const struct report_input *in)
{
	for (unsigned int f = 0; f < in->nr_files; f++) {
		const char *why = in->set->files[f].run.incomplete;

		if (!why)
			continue;
		fputs("> **Incomplete run.** ", out);
		md_code(out, in->files[f]);
		fputs(" stopped early", out);
		if (*why) {
			fputs(": ", out);
			md_escape(out, why);
		}
		fputs(". Its tables hold only the benchmarks that finished.\n\n", out);
	}
}

/* How to read the summary and the tables: the appendix's, which report.md links. */
static void write_intro(FILE *out)
{
	markdown_summary_legend(out);
	fputs("How to read the tables: *ns/op* is the time of one operation in one thread and *Mops/s* the "
	      "throughput of all threads together, both medians over the repetitions with a 95% confidence "
	      "interval by order statistics. *× best* divides a variant's ns/op by that of the fastest "
	      "variant at the same thread count, and the fix's gain the before variant's by the after "
	      "variant's. A ratio marked *paired by round* compares two cases of one `bouncelab run`, "
	      "which runs every case once per round so that a VM's fast or slow spell falls on both: it is "
	      "the median of the per-round ratios with its 95% CI by order statistics, and *p* is the exact "
	      "two-sided sign test of those ratios against 1. Any other ratio (Google Benchmark's own "
	      "repetitions, fewer than 6 rounds in common) is the ratio of the medians with a bootstrap "
	      "95% CI, and *p* the two-sided Mann–Whitney U test of the two. *CV* is the coefficient of variation: above 10% a result is flagged "
	      "*noisy*; two separated clusters are flagged *bimodal*, as when a VM moves a vCPU mid-run. "
	      "Baseline variants (the harness's empty loop) and deliberately racy ones (which lose "
	      "updates) are never *best*.", out);
	fputs("\n\n", out);
}

/* report.md's pointer to the appendix, which says how to read the tables. */
static void write_appendix_note(FILE *out, const struct report_input *in)
{
	if (!in->a->nr_groups)
		return;
	fputs("How to read the tables, each family's lesson in full, every setting's spread, "
	      "counters, scaling and model fit, the whole environment and the command that "
	      "reproduces the run: the appendix, [" DETAILS_NAME "](" DETAILS_NAME ").\n\n", out);
}

static void write_failures(FILE *out, const struct report_input *in)
{
	const struct results *set = in->set;

	if (!set->nr_failures)
		return;
	fprintf(out, "**%zu repetition%s failed** and %s left out:\n\n", set->nr_failures,
		format_plural((long)set->nr_failures), set->nr_failures == 1 ? "is" : "are");
	for (size_t i = 0; i < set->nr_failures && i < 20; i++) {
		fputs("- ", out);
		md_code(out, set->failures[i].name);
		fputs(": ", out);
		md_escape(out, set->failures[i].message);
		fputc('\n', out);
	}
	if (set->nr_failures > 20)
		fprintf(out, "- … and %zu more: see the results file.\n", set->nr_failures - 20);
	fputc('\n', out);
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

/*
 * report.md's head of a family: how its claims fared, where the lesson
 * is, its source and the patch's two lines. The lesson's one line is the
 * summary's; its full text is the appendix's (write_lesson_details()).
 */
static void write_lesson(FILE *out, const struct report_input *in,
			 const struct family_view *f)
{
	const struct kernel_family *kf = f->kf;

	fputs("## ", out);
	md_name(out, f->name);
	if (!kf) {
		fputs("\n\nThis family is not in this build's catalogue: no lesson to show.\n\n", out);
		return;
	}
	fputs(" — ", out);
	md_escape(out, kf->title);
	fputs("\n\nThe lesson, and each variant: [" DETAILS_NAME "](" DETAILS_NAME ").", out);
	markdown_family_claims(out, in, f, false);
	fputs("\n\n*Source:* ", out);
	md_source(out, kf->source);
	fputs(".\n\n", out);
	/* One block: a fence is three lines, and the pair reads as a diff. */
	if (kf->before && kf->after) {
		fputs("```c\n/* before", out);
		if (kf->before_variant)
			fprintf(out, ": %s", kf->before_variant);
		fprintf(out, " */\n%s\n/* after", kf->before);
		if (kf->after_variant)
			fprintf(out, ": %s", kf->after_variant);
		fprintf(out, " */\n%s\n```\n\n", kf->after);
	}
}

/* details.md's head of a family: the lesson in full and every variant. */
static void write_lesson_details(FILE *out, const struct report_input *in,
				 const struct family_view *f)
{
	const struct kernel_family *kf = f->kf;

	fputs("## ", out);
	md_name(out, f->name);
	if (!kf) {
		fputs("\n\n", out);
		return;
	}
	fputs(" — ", out);
	md_escape(out, kf->title);
	fputs("\n\n", out);
	md_lesson(out, kf->lesson, in->a, f);
	fputs("\n\n*Variants:* ", out);
	for (unsigned int v = 0; v < kf->nr_variants; v++) {
		md_code(out, kf->variants[v].name);
		fputs(": ", out);
		md_escape(out, kf->variants[v].models);
		fputs(kf->variants[v].baseline ? " (baseline)" :
		      kf->variants[v].deliberately_racy ?
		      " (racy on purpose: never the best, whatever its speed)" : "", out);
		fputs(v + 1 < kf->nr_variants ? "; " : ".\n\n", out);
	}
}

/* ---- one table ---- */

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

static void write_plots(FILE *out, const struct analysis *a,
			const struct group_view *g, bool end_paragraph)
{
	long t = g->threads[g->nr_threads - 1];
	char alt[SWEEP_TEXT_LEN + 96], changes[SWEEP_TEXT_LEN];

	setting_changes(changes, sizeof(changes), a, g);
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
static void write_group(FILE *out, const struct report_input *in,
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
		write_plots(out, a, g, true);
}

/*
 * A setting in details.md: everything but the plots; the spread, the
 * counters, the scaling and the model that report.md leaves out.
 */
static void write_group_details(FILE *out, const struct report_input *in,
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

/*
 * A compact report shows the default table in full and the family's
 * other settings one row each, at the most threads: each variant's ns/op
 * (as many variants to a table as fit), then the fix's gain and the
 * fastest variant. `report --full` gives every setting a section of its
 * own.
 */
static bool other_setting(const struct analysis *a, const struct group_view *g)
{
	return !group_detailed(a, g, false);
}

static void write_other_medians(FILE *out, const struct report_input *in,
				const struct family_view *f, size_t first, size_t end)
{
	const struct analysis *a = in->a;
	const struct group_view *def = &a->groups[f->default_group];
	char changes[SWEEP_TEXT_LEN], v[FORMAT_LEN];

	fputs("| changes | threads |", out);
	/* the baselines too: a like-for-like control reads across settings */
	for (size_t i = first; i < end; i++) {
		fputc(' ', out);
		md_code(out, def->variants[i].name);
		fputs(def->variants[i].baseline ? " (baseline) |" : " |", out);
	}
	fputs("\n|---|---:|", out);
	for (size_t i = first; i < end; i++)
		fputs("---:|", out);
	fputc('\n', out);
	for (size_t k = f->first_group; k < f->first_group + f->nr_groups; k++) {
		const struct group_view *g = &a->groups[k];
		/* The most threads: where the settings differ most, as in the sweep plots. */
		long t = g->nr_threads ? g->threads[g->nr_threads - 1] : 0;

		if (!other_setting(a, g) || !g->nr_threads)
			continue;
		setting_changes(changes, sizeof(changes), a, g);
		fputs("| ", out);
		md_escape(out, changes);
		fprintf(out, " | %ld |", t);
		for (size_t i = first; i < end; i++) {
			const struct case_view *cv = group_view_find(a, g, def->variants[i].name, t);

			fprintf(out, " %s |", cv ? format_sig(v, cv->c->ns_stats.median) : "n/a");
		}
		fputc('\n', out);
	}
	fputc('\n', out);
}

static void write_other_verdicts(FILE *out, const struct report_input *in,
				 const struct family_view *f)
{
	const struct analysis *a = in->a;
	const struct group_view *def = &a->groups[f->default_group];
	char changes[SWEEP_TEXT_LEN], r[FORMAT_LEN], pv[FORMAT_LEN];

	fputs(def->before ? "| changes | threads | the fix faster by | p | lowest median |\n"
			    "|---|---:|---:|---:|---|\n" :
			    "| changes | threads | lowest median |\n|---|---:|---|\n", out);
	for (size_t k = f->first_group; k < f->first_group + f->nr_groups; k++) {
		const struct group_view *g = &a->groups[k];
		long t = g->nr_threads ? g->threads[g->nr_threads - 1] : 0;
		const struct pair_view *p = group_view_pair(g, t);
		const struct case_view *best = NULL;

		if (!other_setting(a, g) || !g->nr_threads)
			continue;
		for (size_t i = 0; i < def->nr_variants; i++) {
			const struct case_view *cv = group_view_find(a, g, def->variants[i].name, t);

			if (cv && cv->best == cv->c)
				best = cv;
		}
		setting_changes(changes, sizeof(changes), a, g);
		fputs("| ", out);
		md_escape(out, changes);
		fprintf(out, " | %ld |", t);
		if (def->before)
			fprintf(out, " %s | %s |", p ? format_ratio_ci(r, &p->gain) : "n/a",
				p ? format_p(pv, p->p) : "n/a");
		fputc(' ', out);
		if (best)
			md_code(out, best->c->variant);
		else
			fputs("n/a", out);
		fputs(" |\n", out);
	}
	fputc('\n', out);
}

static void write_other_settings(FILE *out, const struct report_input *in,
				 const struct family_view *f)
{
	const struct analysis *a = in->a;
	const struct group_view *def = &a->groups[f->default_group];
	const size_t per_table = MD_TABLE_MAX_COLUMNS - 2;
	bool any = false;

	for (size_t k = f->first_group; k < f->first_group + f->nr_groups; k++)
		any |= other_setting(a, &a->groups[k]) && a->groups[k].nr_threads;
	if (!any)
		return;
	fputs("### Other settings: ns/op medians at the most threads\n\n", out);
	for (size_t first = 0; first < def->nr_variants; first += per_table)
		write_other_medians(out, in, f, first,
				    first + per_table < def->nr_variants ?
				    first + per_table : def->nr_variants);
	write_other_verdicts(out, in, f);
}

/* ns/op against each parameter the family's tables sweep. */
/* ns/op against each parameter the family's tables sweep; open: a paragraph of plots is open. */
static void write_sweeps(FILE *out, const struct report_input *in,
			 const struct family_view *f, bool open)
{
	struct sweep sweeps[8];
	size_t nr = family_sweeps(in->a, f, sweeps, 8);
	char name[PATH_MAX];

	for (size_t i = 0; i < nr; i++) {
		plot_sweep_name(name, sizeof(name), in->a, f, sweeps[i].param);
		fprintf(out, "%s![%s: ns per operation against %s](%s)", i || open ? " " : "",
			f->name, sweeps[i].param, name);
	}
	if (nr || open)
		fputs("\n\n", out);
}

static void write_families(FILE *out, const struct report_input *in)
{
	const struct analysis *a = in->a;
	bool glossed = false;

	for (size_t i = 0; i < a->nr_families; i++) {
		const struct family_view *f = &a->families[i];
		bool first_file = i == 0 || strcmp(a->families[i - 1].name, f->name);
		const struct group_view *def = f->nr_groups ? &a->groups[f->default_group] : NULL;
		/* compact: the default table's plots go beside the sweeps, one paragraph */
		bool defer = !in->full && def && group_detailed(a, def, false);

		if (f->pingpong)
			continue;
		if (first_file)
			write_lesson(out, in, f);
		else
			markdown_family_claims(out, in, f, true);
		markdown_seeds(out, in, f, &glossed);
		for (size_t k = f->first_group; k < f->first_group + f->nr_groups; k++)
			if (group_detailed(a, &a->groups[k], in->full))
				write_group(out, in, &a->groups[k],
					    !defer || &a->groups[k] != def);
		if (!in->full)
			write_other_settings(out, in, f);
		if (defer)
			write_plots(out, a, def, false);
		write_sweeps(out, in, f, defer);
	}
}

/*
 * Said once, not under every table: no table had the thread counts a
 * Universal Scalability Law fit needs.
 */
static void write_model_note(FILE *out, const struct report_input *in)
{
	const struct analysis *a = in->a;
	long most = 0;

	for (size_t i = 0; i < a->nr_groups; i++) {
		const struct group_view *g = &a->groups[i];

		for (size_t k = 0; k < g->nr_variants; k++)
			if (g->variants[k].fitted)
				return;
		if (g->nr_threads && g->threads[g->nr_threads - 1] > most)
			most = g->threads[g->nr_threads - 1];
	}
	fprintf(out, "No scalability model: a Universal Scalability Law fit needs 3 or more thread counts, "
		"one of them 1, and these results go up to %ld thread%s. On a larger machine, "
		"`bouncelab run --threads 1,2,4,8,...` gives it the points it needs.\n\n", most, format_plural(most));
}

static void write_outputs_note(FILE *out, const struct report_input *in)
{
	if (!in->a->nr_groups) {
		fputs("No bouncelab benchmarks in these results: nothing to analyse.\n\n", out);
		return;
	}
	write_model_note(out, in);
}

static void write_csv_note(FILE *out)
{
	fputs("The plots are in `" PLOT_DIR "/`; a will-it-scale-style CSV per variant and setting "
	      "(`tasks,processes,processes_idle,threads,threads_idle,linear`, threads only: the processes "
	      "columns empty, idle computed from the CPUs left unused) is in `" CSV_DIR "/`, named "
	      "FAMILY-VARIANT-SETTING.csv with its FAMILY-VARIANT-SETTING.title, so that will-it-scale's "
	      "`postprocess.py`, run in that directory, draws them.\n\n", out);
}

/*
 * details.md, the appendix: every setting of every family with its
 * verdict, its full table and the fix's before-and-after table, where
 * report.md shows the default setting and one row for each other one.
 */
char *markdown_details(const struct report_input *in, size_t *len)
{
	const struct analysis *a = in->a;
	char *buf = NULL;
	FILE *out = open_memstream(&buf, len);

	if (!out)
		return NULL;
	fputs("# bouncelab report: appendix\n\n"
	      "The appendix of [report.md](report.md), which has the summary, the claims and the plots. "
	      "Here each family's lesson is in full, and each setting has its tables in full: the fix's "
	      "before and after, the times, the spread and counters, the scaling and the model's fit; "
	      "the whole environment and the command that reproduces the run follow.\n\n", out);
	write_intro(out);
	for (size_t i = 0; i < a->nr_families; i++) {
		const struct family_view *f = &a->families[i];
		bool first_file = i == 0 || strcmp(a->families[i - 1].name, f->name);

		if (first_file)
			write_lesson_details(out, in, f);
		/* The ping-pong's tables are report.md's physical baseline. */
		if (f->pingpong)
			continue;
		for (size_t k = f->first_group; k < f->first_group + f->nr_groups; k++)
			write_group_details(out, in, &a->groups[k]);
	}
	markdown_environment(out, in, true);
	write_csv_note(out);
	markdown_reproduce(out, in);
	if (fclose(out)) {
		free(buf);
		return NULL;
	}
	return buf;
}

char *markdown_report(const struct report_input *in, size_t *len)
{
	char *buf = NULL;
	FILE *out = open_memstream(&buf, len);

	if (!out)
		return NULL;
	fputs("# bouncelab report\n\n", out);
	markdown_banner(out, in);
	markdown_run_warnings(out, in);
	markdown_summary(out, in, SUMMARY_IN_REPORT);
	write_appendix_note(out, in);
	markdown_environment(out, in, false);
	write_failures(out, in);
	write_outputs_note(out, in);
	markdown_baseline(out, in);
	fleet_write(out, in);
	markdown_run_distance(out, in);
	write_families(out, in);
	markdown_prediction(out, in);
	if (fclose(out)) {
		free(buf);
		return NULL;
	}
	return buf;
}
