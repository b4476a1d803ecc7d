// SPDX-License-Identifier: GPL-2.0-only
/*
 * The first page of report.md. A reader who stops here knows what each
 * family teaches, how much the fix gains at 1 thread and at the most
 * threads, and which of the lessons' claims this run saw, did not see, or
 * could not test. A claim not seen comes first, with its numbers.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "claims.h"
#include "format.h"
#include "lesson_text.h"
#include "summary.h"
#include "svg.h"
#include "sweeps.h"
#include "verdict.h"

/* The table the summary quotes: the family's default setting. */
static const struct group_view *summary_group(const struct analysis *a,
					      const struct family_view *f)
{
	return f->nr_groups ? &a->groups[f->default_group] : NULL;
}

/* "2.44x (95% CI 1.34–4.57), faster" */
static void write_gain(FILE *out, const struct pair_view *p)
{
	char r[FORMAT_LEN];

	if (!p) {
		fputs("not measured", out);
		return;
	}
	/* gain is before over after: "before slower" is "the fix faster". */
	switch (verdict_of(&p->gain, p->p)) {
	case VERDICT_SLOWER:
		fprintf(out, "%s, faster", format_ratio_ci(r, &p->gain));
		break;
	case VERDICT_FASTER:
		fprintf(out, "%s, slower", format_ratio_ci(r, &p->gain));
		break;
	default:
		fprintf(out, "%s, %s", format_ratio_ci(r, &p->gain),
			verdict_word(verdict_of(&p->gain, p->p)));
	}
}

static void write_marks(FILE *out, const struct claim_report *cr,
			const struct family_view *f)
{
	size_t seen = 0, not_seen = 0, untestable = 0;

	for (size_t i = 0; i < cr->nr; i++) {
		if (cr->results[i].family != f)
			continue;
		seen += cr->results[i].mark == CLAIM_SEEN;
		not_seen += cr->results[i].mark == CLAIM_NOT_SEEN;
		untestable += cr->results[i].mark == CLAIM_NOT_TESTABLE;
	}
	if (!seen && !not_seen && !untestable) {
		fputs("none", out);
		return;
	}
	if (not_seen)
		fprintf(out, "**%zu NOT SEEN**, ", not_seen);
	fprintf(out, "%zu seen", seen);
	if (untestable)
		fprintf(out, ", %zu not testable here", untestable);
}

static void write_family_label(FILE *out, const struct report_input *in,
			       const struct family_view *f)
{
	md_code(out, f->name);
	if (in->nr_files > 1)
		fprintf(out, " (file %u)", f->file + 1);
}

static void write_claim_line(FILE *out, const struct report_input *in,
			     const struct claim_result *r)
{
	char buf[1024];

	fputs("- ", out);
	write_family_label(out, in, r->family);
	fputs(": ", out);
	md_escape(out, r->claim->text);
	claim_expectation(buf, sizeof(buf), r->claim);
	fputs(" — *expected* ", out);
	md_escape(out, buf);
	claim_condition(buf, sizeof(buf), r->claim);
	fputs(" (", out);
	md_escape(out, buf);
	claim_numbers(buf, sizeof(buf), r);
	fputs("); *measured* ", out);
	md_escape(out, buf);
	fputs(".\n", out);
}

static void write_not_seen(FILE *out, const struct report_input *in,
			   const struct claim_report *cr)
{
	if (!cr->nr_not_seen)
		return;
	fprintf(out, "> **%zu claim%s of the lessons NOT SEEN in this run.** A lesson is only as true as "
		"the numbers beside it: read these before the lesson, and rerun on an idle machine "
		"(more `--repetitions`) before you believe either.\n\n",
		cr->nr_not_seen, format_plural((long)cr->nr_not_seen));
	for (size_t i = 0; i < cr->nr; i++)
		if (cr->results[i].mark == CLAIM_NOT_SEEN)
			write_claim_line(out, in, &cr->results[i]);
	fputc('\n', out);
}

/* "30.6–85.4 ns (7 rounds, median 42.5)" */
static void write_mode(FILE *out, const struct host_mode *m)
{
	char lo[FORMAT_LEN], hi[FORMAT_LEN], med[FORMAT_LEN];

	format_sig(lo, m->lo);
	format_sig(hi, m->hi);
	format_sig(med, m->median);
	if (m->nr_rounds == 1)
		fprintf(out, "%s ns (1 round)", lo);
	else
		fprintf(out, "%s–%s ns (%zu rounds, median %s)", lo, hi, m->nr_rounds, med);
}

/* Each family's fix at its most threads, in each mode's rounds. */
static void write_mode_figures(FILE *out, const struct report_input *in, unsigned int file)
{
	const struct analysis *a = in->a;
	const struct host_modes *hm = &a->modes[file];
	char x[FORMAT_LEN];

	/* The fix itself is the family table's (or the brief's list). */
	fputs("| family | the fix, at threads |", out);
	for (size_t k = 0; k < hm->nr; k++) {
		fputs(" mode ", out);
		write_mode(out, &hm->modes[k]);
		fputs(" |", out);
	}
	fputs("\n|---|---:|", out);
	for (size_t k = 0; k < hm->nr; k++)
		fputs("---:|", out);
	fputc('\n', out);
	for (size_t i = 0; i < a->nr_families; i++) {
		const struct family_view *f = &a->families[i];
		const struct group_view *g = summary_group(a, f);
		const struct pair_view *p = g ? group_view_widest_pair(g) : NULL;

		if (f->file != file || !p || p->threads < 2)
			continue;
		fputs("| ", out);
		write_family_label(out, in, f);
		fprintf(out, " | %ld |", p->threads);
		for (size_t k = 0; k < hm->nr; k++) {
			double r = host_mode_ratio(&hm->modes[k], p->before, p->after);

			fprintf(out, " %s |", isfinite(r) ? format_ratio(x, r) : "not measured");
		}
		fputc('\n', out);
	}
	fputc('\n', out);
}

/*
 * At the top: the host moved the vCPUs. Every transfer of a round costs
 * what the round's placement costs, so one median over all rounds mixes
 * two machines; the modes say which.
 */
static void write_host_modes(FILE *out, const struct report_input *in, enum summary_form form)
{
	for (unsigned int file = 0; file < in->set->nr_files; file++) {
		const struct host_modes *hm = &in->a->modes[file];

		if (hm->nr < 2)
			continue;
		fputs("> **The host moved the vCPUs during this run", out);
		if (in->nr_files > 1)
			fprintf(out, " (file %u)", file + 1);
		fprintf(out, ".** The pingpong's one-way transfer fell into %zu modes of rounds: ", hm->nr);
		for (size_t k = 0; k < hm->nr; k++) {
			fputs(k ? (k + 1 == hm->nr ? " and " : ", ") : "", out);
			write_mode(out, &hm->modes[k]);
		}
		fprintf(out, ". A round's line transfers all cost what its mode costs, so the fix's gain is "
			"given per mode %s, and each claim at 2+ threads is checked again on each mode's "
			"rounds where a mode has the %d rounds a test needs (the claims table says how it "
			"fared). Rounds are modes when their one-way transfers differ by %gx or more.\n\n",
			form == SUMMARY_IN_BRIEF ? "in the full report" : "below",
			CLAIM_MIN_REPETITIONS, HOST_MODE_FACTOR);
		if (form == SUMMARY_IN_REPORT)
			write_mode_figures(out, in, file);
	}
}

static void write_lesson_line(FILE *out, const struct analysis *a,
			      const struct family_view *f)
{
	md_lesson(out, f->kf && f->kf->lesson_line ? f->kf->lesson_line :
		  f->kf ? f->kf->title : "not in this build's catalogue", a, f);
}

/* "`read_then_set` over `store_always`", or "no before/after pair" */
static void write_fix(FILE *out, const struct group_view *g)
{
	if (!g || !g->before) {
		fputs("no before/after pair", out);
		return;
	}
	md_code(out, g->after);
	fputs(" over ", out);
	md_code(out, g->before);
	/* no case at the defaults: say which setting stands in */
	if (!g->is_default) {
		char changes[SWEEP_TEXT_LEN];

		setting_changes(changes, sizeof(changes), g);
		fputs(" at ", out);
		md_escape(out, changes);
		fputs(" (the run has no case at the defaults)", out);
	}
}

/*
 * A row per family. The brief has a row per family with a fix, its two
 * gains only, and then each family's fix, claims and lesson as a list:
 * columns of words beside the numbers make every row several lines tall
 * on a printed page.
 */
static void write_family_rows(FILE *out, const struct report_input *in,
			      const struct claim_report *cr, enum summary_form form)
{
	const struct analysis *a = in->a;
	bool brief = form == SUMMARY_IN_BRIEF, any = !brief;

	for (size_t i = 0; !any && i < a->nr_families; i++)
		any = summary_group(a, &a->families[i]) && summary_group(a, &a->families[i])->before;
	if (any)
		fputs(brief ? "| family | gain at 1 thread | gain at the most threads |\n"
			      "|---|---:|---:|\n" :
			      "| family | lesson | fix (after over before) | gain at 1 thread | gain at the most threads | claims |\n"
			      "|---|---|---|---:|---:|---|\n", out);
	for (size_t i = 0; i < a->nr_families; i++) {
		const struct family_view *f = &a->families[i];
		const struct group_view *g = summary_group(a, f);
		const struct pair_view *widest = g ? group_view_widest_pair(g) : NULL;

		if (brief && !(g && g->before))
			continue;
		fputs("| ", out);
		write_family_label(out, in, f);
		fputs(" | ", out);
		if (!brief) {
			write_lesson_line(out, a, f);
			fputs(" | ", out);
			write_fix(out, g);
			fputs(" | ", out);
		}
		write_gain(out, g ? group_view_pair(g, 1) : NULL);
		fputs(" | ", out);
		if (widest && widest->threads > 1) {
			write_gain(out, widest);
			fprintf(out, " at %ld threads", widest->threads);
		} else {
			fputs("not measured", out);
		}
		fputs(" |", out);
		if (!brief) {
			fputc(' ', out);
			write_marks(out, cr, f);
			fputs(" |", out);
		}
		fputc('\n', out);
	}
	if (any)
		fputc('\n', out);
	for (size_t i = 0; brief && i < a->nr_families; i++) {
		const struct family_view *f = &a->families[i];

		fputs("- ", out);
		write_family_label(out, in, f);
		fputs(" (fix: ", out);
		write_fix(out, summary_group(a, f));
		fputs("): ", out);
		write_lesson_line(out, a, f);
		fputs(i + 1 < a->nr_families ? "\n" : "\n\n", out);
	}
}

/* What a gain and a claim's mark mean: said once, on the page that has the summary. */
static const char gain_legend[] =
	"*gain*: the before variant's ns/op over the after variant's in the family's default "
	"setting, with a 95% CI; above 1 the fix is faster. *Paired by round*: the median of the "
	"per-round ratios (sign test); otherwise the ratio of the medians (bootstrap CI, "
	"Mann–Whitney U test). Faster or slower only when the CI excludes 1 and p < 0.05; "
	"otherwise within noise.";
static const char claims_legend[] =
	"*at least x*: the median ratio is at least "
	"x and the rule above calls the first variant slower; *at most x*: the ratio's whole 95% CI "
	"lies at or below x; *within x*: the ratio's whole "
	"95% CI lies within a factor x; *below* (*above*): the upper (lower) end of the median's "
	"95% CI is below (above) the bound.";
/* The brief lists only the claims not seen or not testable: this is the mark it needs. */
static const char claims_untestable_legend[] =
	"A median on the claim's side that its interval (or "
	"test) does not confirm is *not testable here*: the run cannot decide it either way.";

void markdown_summary_legend(FILE *out)
{
	fprintf(out, "%s\n\nA claim's mark: %s %s\n\n", gain_legend, claims_legend,
		claims_untestable_legend);
}

static bool has_figure(const struct analysis *a)
{
	for (size_t i = 0; i < a->nr_families; i++) {
		const struct group_view *g = summary_group(a, &a->families[i]);

		if (g && g->nr_pairs)
			return true;
	}
	return false;
}

/*
 * Why a claim is not testable: its reason, without the numbers measured
 * anyway (claims.c appends them as ". Measured: ..."), which differ from
 * claim to claim where the reason does not.
 */
static void not_testable_why(char *buf, size_t len, const struct claim_result *r)
{
	char *numbers;

	if (r->why[0])
		snprintf(buf, len, "%s", r->why);
	else
		claim_numbers(buf, len, r);
	numbers = strstr(buf, ". Measured: ");
	if (numbers)
		numbers[0] = '\0';
}

/*
 * The brief's claims not seen, one item each with its numbers, then those
 * not testable, one item per reason: a short run leaves most of them
 * untestable for the one same reason, which is said once.
 */
static void write_claims_list(FILE *out, const struct report_input *in,
			      const struct claim_report *cr)
{
	char buf[1024], why[1024], other[1024];
	bool any = false;

	for (size_t i = 0; i < cr->nr; i++) {
		const struct claim_result *r = &cr->results[i];

		if (r->mark != CLAIM_NOT_SEEN)
			continue;
		fputs("- ", out);
		write_family_label(out, in, r->family);
		fputs(": ", out);
		md_escape(out, r->claim->text);
		fprintf(out, ": **%s**. Expected ", claim_mark_word(r->mark));
		claim_expectation(buf, sizeof(buf), r->claim);
		md_escape(out, buf);
		fputs(" (", out);
		claim_condition(buf, sizeof(buf), r->claim);
		md_escape(out, buf);
		fputs("); measured: ", out);
		claim_numbers(buf, sizeof(buf), r);
		md_escape(out, buf);
		fputc('\n', out);
		any = true;
	}
	for (size_t i = 0; i < cr->nr; i++) {
		const struct family_view *family = NULL;
		bool said = false;

		if (cr->results[i].mark != CLAIM_NOT_TESTABLE)
			continue;
		not_testable_why(why, sizeof(why), &cr->results[i]);
		for (size_t k = 0; k < i && !said; k++) {
			not_testable_why(other, sizeof(other), &cr->results[k]);
			said = cr->results[k].mark == CLAIM_NOT_TESTABLE && !strcmp(why, other);
		}
		if (said)
			continue;
		fprintf(out, "- *%s*: ", claim_mark_word(CLAIM_NOT_TESTABLE));
		md_escape(out, why);
		fputs(":", out);
		/* "`has_pinned` 3, `counter` 4": the claims themselves are report.md's */
		for (size_t k = i; k < cr->nr; k++) {
			const struct claim_result *r = &cr->results[k];
			size_t n = 0;

			if (r->mark != CLAIM_NOT_TESTABLE || r->family == family)
				continue;
			not_testable_why(other, sizeof(other), r);
			if (strcmp(why, other))
				continue;
			for (size_t j = k; j < cr->nr; j++) {
				not_testable_why(other, sizeof(other), &cr->results[j]);
				n += cr->results[j].family == r->family &&
				     cr->results[j].mark == CLAIM_NOT_TESTABLE && !strcmp(why, other);
			}
			fputs(family ? ", " : " ", out);
			write_family_label(out, in, r->family);
			fprintf(out, " %zu", n);
			family = r->family;
		}
		fputs(".\n", out);
		any = true;
	}
	if (any)
		fputc('\n', out);
}

/*
 * Every claim with its numbers (report.md), or, in the brief, which has
 * two pages for it, the claims not seen or not testable: a claim seen is
 * counted, and its numbers are report.md's.
 */
static void write_claims_table(FILE *out, const struct report_input *in,
			       const struct claim_report *cr, enum summary_form form)
{
	bool brief = form == SUMMARY_IN_BRIEF;
	char buf[1024];

	if (!cr->nr)
		return;
	fprintf(out, "### The lessons' claims, checked on this run\n\n"
		"%zu seen, %zu not seen, %zu not testable here.", cr->nr_seen, cr->nr_not_seen,
		cr->nr_not_testable);
	if (!brief) {
		fputs(" What each mark means: [" DETAILS_NAME "](" DETAILS_NAME ").", out);
	} else {
		fprintf(out, " %s Each claim, with its numbers, is in the full report (`bouncelab "
			"report` without `--brief`).", claims_untestable_legend);
		fputs("\n\n", out);
		write_claims_list(out, in, cr);
		return;
	}
	fputs("\n\n| family | claim | expected | condition | mark | measured |\n"
	      "|---|---|---|---|---|---|\n", out);
	for (size_t i = 0; i < cr->nr; i++) {
		const struct claim_result *r = &cr->results[i];


		fputs("| ", out);
		write_family_label(out, in, r->family);
		fputs(" | ", out);
		md_escape(out, r->claim->text);
		fputs(" | ", out);
		claim_expectation(buf, sizeof(buf), r->claim);
		md_escape(out, buf);
		fputs(" | ", out);
		claim_condition(buf, sizeof(buf), r->claim);
		md_escape(out, buf);
		fprintf(out, " | %s%s%s | ", r->mark == CLAIM_NOT_SEEN ? "**" : "",
			claim_mark_word(r->mark), r->mark == CLAIM_NOT_SEEN ? "**" : "");
		claim_numbers(buf, sizeof(buf), r);
		md_escape(out, buf);
		fputs(" |\n", out);
	}
	fputc('\n', out);
}

void markdown_summary(FILE *out, const struct report_input *in, enum summary_form form)
{
	const struct claim_report *cr = in->claims;

	if (!in->a->nr_families)
		return;
	fputs("## Summary\n\n", out);
	write_not_seen(out, in, cr);
	write_host_modes(out, in, form);
	/* The brief's claims section, all of it "not testable", says so. */
	if (form == SUMMARY_IN_REPORT && cr->nr_not_testable && !cr->nr_seen && !cr->nr_not_seen)
		fprintf(out, "> **None of the lessons' %zu claims could be tested on this run**: the claims "
			"table below says why for each, with the numbers measured anyway.\n\n", cr->nr);
	write_family_rows(out, in, cr, form);
	if (form == SUMMARY_IN_BRIEF)
		fprintf(out, "%s\n\n", gain_legend);
	if (has_figure(in->a))
		fputs("![The fix's gain in every family, at 1 thread and at the most threads](" SUMMARY_FIGURE ")\n\n",
		      out);
	write_claims_table(out, in, cr, form);
}

/*
 * Under the lesson, one line: how its claims fared. The claims themselves,
 * with their numbers, are in the summary's table; a claim not seen is
 * named here too, so that a reader of the lesson cannot miss it.
 */
void markdown_family_claims(FILE *out, const struct report_input *in,
			    const struct family_view *f, bool own_paragraph)
{
	const struct claim_report *cr = in->claims;
	bool any = false;

	if (!f->kf || !f->kf->nr_claims)
		return;
	fputs(own_paragraph ? "" : " ", out);
	fputs("*The lesson's claims* (their numbers are in the summary's claims table): ", out);
	write_marks(out, cr, f);
	for (size_t i = 0; i < cr->nr; i++) {
		const struct claim_result *r = &cr->results[i];

		if (r->family != f || r->mark != CLAIM_NOT_SEEN)
			continue;
		fputs(any ? "; \"" : ". Not seen: \"", out);
		md_escape(out, r->claim->text);
		fputc('"', out);
		any = true;
	}
	fputs(own_paragraph ? ".\n\n" : ".", out);
}

int summary_add_figure(struct output_batch *batch, const char *outdir,
		       const struct analysis *a)
{
	struct svg_bar *bars = calloc(2 * a->nr_families + 1, sizeof(*bars));
	char (*labels)[96] = calloc(2 * a->nr_families + 1, sizeof(*labels));
	char (*values)[FORMAT_LEN] = calloc(2 * a->nr_families + 1, sizeof(*values));
	struct svg_bar_chart chart = {
		.title = "The fix's gain in each family: 1 thread vs the most threads",
		.x_label = "before ns/op ÷ after ns/op (median, 95% CI); above 1: the fix is faster",
		.log_x = true,
		/* a gain grows right of 1, a loss left of it */
		.origin = 1,
		.bars = bars,
	};
	char path[4096];
	char *svg = NULL;
	int ret = -1;

	if (!bars || !labels || !values)
		goto out;
	if (!has_figure(a)) {
		ret = 0;
		goto out;
	}
	for (size_t i = 0; i < a->nr_families; i++) {
		const struct family_view *f = &a->families[i];
		const struct group_view *g = summary_group(a, f);
		const struct pair_view *one = g ? group_view_pair(g, 1) : NULL;
		const struct pair_view *most = g ? group_view_widest_pair(g) : NULL;
		const struct pair_view *pick[2] = { one, most && most != one ? most : NULL };

		for (int k = 0; k < 2; k++) {
			const struct pair_view *p = pick[k];

			if (!p)
				continue;
			snprintf(labels[chart.nr_bars], sizeof(labels[0]), "%s, %ld thread%s",
				 f->name, p->threads, format_plural(p->threads));
			bars[chart.nr_bars] = (struct svg_bar){
				labels[chart.nr_bars], p->gain.ratio, p->gain.lo, p->gain.hi,
				k, format_ratio(values[chart.nr_bars], p->gain.ratio),
			};
			chart.nr_bars++;
		}
	}
	svg = svg_bar_chart(&chart);
	snprintf(path, sizeof(path), "%s/" SUMMARY_FIGURE, outdir);
	if (svg && !output_batch_add(batch, path, svg, strlen(svg)))
		ret = 0;
	svg = NULL;
out:
	free(bars);
	free(labels);
	free(values);
	return ret;
}
