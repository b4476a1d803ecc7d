// SPDX-License-Identifier: GPL-2.0-only
/*
 * The physical baseline: each run's ping-pong, its one-way transfer per
 * distance class and, with a latency matrix (topo --latency), the floor
 * set beside the matrix's class medians.
 */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "catalog.h"
#include "format.h"
#include "lesson_text.h"
#include "markdown.h"
#include "plots.h"
#include "stats.h"

static void write_one_way_table(FILE *out, const struct report_input *in,
				const struct family_view *f)
{
	const struct result_case **cases = calloc(in->a->cases->nr + 1, sizeof(*cases));
	size_t nr = cases ? analysis_one_way_cases(in->a, f, cases) : 0;
	char m[FORMAT_LEN], lo[FORMAT_LEN];

	fputs("| distance | variant | placement | one-way ns (95% CI) | min | n | flags |\n"
	      "|---|---|---|---:|---:|---:|---|\n", out);
	for (size_t i = 0; i < nr; i++) {
		const struct result_case *c = cases[i];
		const struct case_counter *cc = result_case_counter(c, "one_way_ns");
		struct stats_summary s;

		if (stats_summarize(cc->values, cc->n, &s))
			continue;
		fputs("| ", out);
		md_escape(out, c->widest_class ? c->widest_class : "unknown");
		fputs(" | ", out);
		md_name(out, c->variant);
		fputs(" | ", out);
		md_escape(out, c->setting && *c->setting ? c->setting : "defaults");
		fprintf(out, " | %s | %s | %zu | %s%s%s |\n",
			format_median_ci(m, &s, 1), format_sig(lo, s.min), s.n,
			s.bimodal ? "bimodal" : "", s.bimodal && s.noisy ? ", " : "",
			s.noisy ? "noisy" : "");
	}
	fputs("\nOne-way latency is half a round trip; *min* is the fastest repetition. A *bimodal* "
	      "pair moved between two latency modes during the run: its median alone would hide that.\n\n", out);
	free(cases);
}

static int compare_pairs_by_class(const void *x, const void *y)
{
	const struct latency_map_pair *a = x, *b = y;
	int ra = distance_rank(a->cls), rb = distance_rank(b->cls);

	if (ra != rb)
		return ra < rb ? -1 : 1;
	return strcmp(a->cls ? a->cls : "", b->cls ? b->cls : "");
}

/* Per distance class, nearest first: how many pairs, their median and range. */
static void write_latency_classes(FILE *out, const struct latency_map *map)
{
	struct latency_map_pair *p = malloc((map->nr_pairs + 1) * sizeof(*p));
	double *v = malloc((map->nr_pairs + 1) * sizeof(double));

	if (!p || !v)
		goto out;
	memcpy(p, map->pairs, map->nr_pairs * sizeof(*p));
	qsort(p, map->nr_pairs, sizeof(*p), compare_pairs_by_class);
	fputs("| distance class | pairs | median one-way ns | min | max |\n|---|---:|---:|---:|---:|\n", out);
	for (size_t i = 0; i < map->nr_pairs;) {
		char m[FORMAT_LEN], lo[FORMAT_LEN], hi[FORMAT_LEN];
		size_t n = 0;

		while (i + n < map->nr_pairs && !compare_pairs_by_class(&p[i], &p[i + n])) {
			v[n] = p[i + n].ns;
			n++;
		}
		stats_sort(v, n);
		fputs("| ", out);
		md_escape(out, p[i].cls ? p[i].cls : "unknown");
		fprintf(out, " | %zu | %s | %s | %s |\n", n,
			format_sig(m, stats_median_sorted(v, n)), format_sig(lo, v[0]),
			format_sig(hi, v[n - 1]));
		i += n;
	}
	fputc('\n', out);
out:
	free(p);
	free(v);
}

/* The median one-way ns of a class in the latency matrix; NaN: not sampled. */
static double matrix_class_median(const struct latency_map *map, const char *cls)
{
	double *v = malloc((map->nr_pairs + 1) * sizeof(double)), m = NAN;
	size_t n = 0;

	for (size_t i = 0; v && i < map->nr_pairs; i++)
		if (map->pairs[i].cls && !strcmp(map->pairs[i].cls, cls))
			v[n++] = map->pairs[i].ns;
	if (n) {
		stats_sort(v, n);
		m = stats_median_sorted(v, n);
	}
	free(v);
	return m;
}

/*
 * The suite's floor (pingpong store_load, one-way) beside topo --latency's
 * at the same distance class. Both are one-way ns from the same store/load
 * ping-pong, so a gap has a cause outside the code, and the reader is told
 * which: a repetition averages every round trip of --min-time, including
 * those where another task held one of the two CPUs, while topo --latency
 * takes the median of short samples; and a VM's host can move a vCPU
 * between the two runs.
 */
static void write_floor_vs_matrix(FILE *out, const struct report_input *in,
				  const struct family_view *f)
{
	const struct result_case **cases = calloc(in->a->cases->nr + 1, sizeof(*cases));
	size_t nr = cases ? analysis_one_way_cases(in->a, f, cases) : 0;

	for (size_t i = 0; i < nr; i++) {
		const struct result_case *c = cases[i];
		const struct case_counter *cc = result_case_counter(c, "one_way_ns");
		char sm[FORMAT_LEN], lo[FORMAT_LEN], mm[FORMAT_LEN], r[FORMAT_LEN];
		struct stats_summary s;
		double matrix, ratio;

		if (!catalog_is_transfer_baseline(c->family, c->variant) || !c->widest_class ||
		    stats_summarize(cc->values, cc->n, &s))
			continue;
		matrix = matrix_class_median(in->latency, c->widest_class);
		if (!isfinite(matrix) || !(matrix > 0))
			continue;
		ratio = s.median / matrix;
		fputs("At distance ", out);
		md_code(out, c->widest_class);
		fprintf(out, ", the suite's `store_load` floor is %s one-way ns (fastest repetition %s) and "
			"the latency matrix's median is %s one-way ns", format_sig(sm, s.median),
			format_sig(lo, s.min), format_sig(mm, matrix));
		if (ratio < 1.25 && ratio > 0.8) {
			fputs(": they agree.\n\n", out);
			continue;
		}
		fprintf(out, ", %s apart. Both are one-way ns from the same ping-pong, so the gap comes "
			"from how and when they sampled: a suite repetition averages every round trip of "
			"`--min-time`, including those during which another task held one of the two CPUs, "
			"while `topo --latency` takes the median of short samples; and on a VM the host may "
			"have moved a vCPU between the two runs. The lower figure is the closer to the "
			"hardware; rerun both on an idle machine to tell which cause it was.\n\n",
			format_ratio(r, ratio >= 1 ? ratio : 1 / ratio));
	}
	free(cases);
}

void markdown_baseline(FILE *out, const struct report_input *in)
{
	const struct analysis *a = in->a;
	char name[PATH_MAX];
	bool any = false;

	fputs("## Physical baseline: one cache line between two CPUs\n\n", out);
	for (size_t i = 0; i < a->nr_families; i++) {
		const struct family_view *f = &a->families[i];

		if (!f->pingpong)
			continue;
		/* The lesson's one line; its whole text is the appendix's. */
		if (!any && f->kf) {
			md_lesson(out, f->kf->lesson_line ? f->kf->lesson_line : f->kf->lesson, a, f);
			fputs(" The lesson in full, and how to read the floor on a VM: "
			      "[" DETAILS_NAME "](" DETAILS_NAME ").\n\n", out);
		}
		any = true;
		if (in->nr_files > 1) {
			fputs("On ", out);
			md_code(out, in->files[f->file]);
			fputs(":\n\n", out);
		}
		write_one_way_table(out, in, f);
		plot_family_name(name, sizeof(name), a, f, "oneway");
		fprintf(out, "![one-way latency by distance class](%s)\n\n", name);
	}
	if (in->latency) {
		fputs("### Core-to-core latency matrix\n\nFrom ", out);
		md_code(out, in->latency_path);
		fprintf(out, ": %zu measured pair%s among %zu CPUs.\n\n", in->latency->nr_pairs,
			format_plural((long)in->latency->nr_pairs), in->latency->n);
		write_latency_classes(out, in->latency);
		for (size_t i = 0; i < a->nr_families; i++)
			if (a->families[i].pingpong)
				write_floor_vs_matrix(out, in, &a->families[i]);
		fputs("![one-way latency between CPUs](" HEATMAP_NAME ")\n\n", out);
	}
	if (!any && !in->latency)
		fputs("Not measured in these results. `bouncelab run --filter pingpong` measures the ping-pong "
		      "family at each distance class; `bouncelab topo --latency` writes a latency matrix, which "
		      "`bouncelab report --latency FILE` draws as a heatmap.\n\n", out);
}

/* ---- a family's lesson and the seeds' figures ---- */
