// SPDX-License-Identifier: GPL-2.0-only
/*
 * report.md and details.md: the families in order, each with its lesson,
 * its settings (setting_section.c) and the other settings' one-line
 * rows. Every number a sentence quotes is formatted by the same
 * function, from the same value, as the table cell it comes from
 * (tests/check_prose.py holds us to that).
 */
#include <limits.h>
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
		setting_changes(changes, sizeof(changes), g);
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
		setting_changes(changes, sizeof(changes), g);
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
				markdown_setting(out, in, &a->groups[k],
					 !defer || &a->groups[k] != def);
		if (!in->full)
			write_other_settings(out, in, f);
		if (defer)
			markdown_setting_plots(out, a, def, false);
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
			markdown_setting_details(out, in, &a->groups[k]);
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
