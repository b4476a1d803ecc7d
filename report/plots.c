// SPDX-License-Identifier: GPL-2.0-only
/*
 * The report's plots and will-it-scale CSVs: each file's name (the one
 * the markdown links to) and its content, drawn with svg.c. One concern
 * (about 640 lines): every file the report writes beside report.md.
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "plots.h"
#include "svg.h"
#include "sweeps.h"

/* File-name-safe: letters, digits, '_' and '-'; anything else becomes '_'. */
static void safe_name(char *buf, size_t len, const char *s)
{
	size_t i = 0;

	for (; s && *s && i + 1 < len; s++)
		buf[i++] = (ascii_alnum(*s) || *s == '_' || *s == '-') ? *s : '_';
	buf[i] = '\0';
}

static void file_prefix(char *buf, size_t len, const struct analysis *a,
			const struct group_view *g)
{
	char family[128];

	safe_name(family, sizeof(family), g->group->family);
	if (a->set->nr_files > 1)
		snprintf(buf, len, "m%u-%s-%u", g->group->file + 1, family, g->number);
	else
		snprintf(buf, len, "%s-%u", family, g->number);
}

void plot_name(char *buf, size_t len, const struct analysis *a,
	       const struct group_view *g, const char *kind)
{
	char prefix[256];

	file_prefix(prefix, sizeof(prefix), a, g);
	snprintf(buf, len, PLOT_DIR "/%s-%s.svg", prefix, kind);
}

void plot_family_name(char *buf, size_t len, const struct analysis *a,
		      const struct family_view *f, const char *kind)
{
	char family[128];

	safe_name(family, sizeof(family), f->name);
	if (a->set->nr_files > 1)
		snprintf(buf, len, PLOT_DIR "/m%u-%s-%s.svg", f->file + 1, family, kind);
	else
		snprintf(buf, len, PLOT_DIR "/%s-%s.svg", family, kind);
}

/*
 * "pin_work=1, flag_line=shared, placement compact" ->
 * "pin_work_1-flag_line_shared-placement_compact": the setting's items
 * apart by '-', and no '.' (will-it-scale's postprocess.py takes a file's
 * name up to its first '.' as the testcase).
 */
static void setting_file_name(char *buf, size_t len, const char *setting)
{
	size_t i = 0;

	for (const char *s = setting; s && *s && i + 1 < len; s++) {
		if (*s == ',' && s[1] == ' ') {
			buf[i++] = '-';
			s++;
		} else {
			buf[i++] = (ascii_alnum(*s) || *s == '_' || *s == '-') ? *s : '_';
		}
	}
	buf[i] = '\0';
}

/* Under NAME_MAX with room for ".title" and the table's number. */
#define CSV_BASE_MAX 200

void csv_base_name(char *buf, size_t len, const struct analysis *a,
		   const struct group_view *g, const char *variant)
{
	char family[128], name[128], setting[1024], base[1536];
	int n;

	safe_name(family, sizeof(family), g->group->family);
	safe_name(name, sizeof(name), variant);
	setting_file_name(setting, sizeof(setting), g->group->setting);
	if (a->set->nr_files > 1)
		n = snprintf(base, sizeof(base), "m%u-%s-%s%s%s", g->group->file + 1, family,
			     name, setting[0] ? "-" : "", setting);
	else
		n = snprintf(base, sizeof(base), "%s-%s%s%s", family, name,
			     setting[0] ? "-" : "", setting);
	/* A long setting is cut; the table's number keeps the name unique. */
	if (n > CSV_BASE_MAX)
		snprintf(base + CSV_BASE_MAX - 12, 12, "-t%u", g->number);
	snprintf(buf, len, CSV_DIR "/%s", base);
}

/*
 * The .title's one line, as will-it-scale's test prints after
 * "testcase:": what was run. postprocess.py puts it inside a quoted
 * JavaScript string, so a quote, a backslash or a tag would end it.
 */
static char *wis_title(const struct analysis *a, const struct group_view *g,
		       const char *variant)
{
	const struct family_view *f = family_of(a, g);
	const char *setting = g->group->setting;
	char file[32] = "";
	char *text = NULL;

	/* The m2- of the name: the machine whose files' rows are pooled (fleet.h). */
	if (a->set->nr_files > 1)
		snprintf(file, sizeof(file), ", machine m%u", g->group->file + 1);
	if (asprintf(&text, "%s/%s%s%s%s%s%s\n", g->group->family, variant,
		     setting && *setting ? ", " : "", setting ? setting : "", file,
		     f && f->kf ? ": " : "", f && f->kf ? f->kf->title : "") < 0)
		return NULL;
	for (char *c = text; *c; c++)
		if (*c == '\'' || *c == '\\' || *c == '<' || *c == '>' ||
		    (*c != '\n' && (unsigned char)*c < 0x20))
			*c = '_';
	return text;
}

/* At least two thread counts, one of them 1, running the same mix of work. */
bool plot_has_scaling(const struct group_view *g)
{
	return g->nr_threads >= 2 && g->threads[0] == 1 && !g->mix_param;
}

/*
 * Speedup and efficiency are throughput over a reference: with two
 * thread counts they add no point the throughput plot lacks.
 */
bool plot_has_speedup(const struct group_view *g)
{
	return plot_has_scaling(g) && g->nr_threads >= 3;
}

void plot_sweep_name(char *buf, size_t len, const struct analysis *a,
		     const struct family_view *f, const char *param)
{
	char kind[96], name[64];

	safe_name(name, sizeof(name), param);
	snprintf(kind, sizeof(kind), "sweep-%s", name);
	plot_family_name(buf, len, a, f, kind);
}

/*
 * What the bar around a median is. Below 6 repetitions no interval of
 * the median reaches 95% and stats_median_ci_ranks() gives the whole
 * range (75% for 3): the table marks those rows with a dagger, and the
 * plot must not call the same bar a 95% CI.
 */
static const char *median_bar(double coverage)
{
	return coverage >= STATS_CONFIDENCE ? "bar: 95% CI" : "bar: min to max";
}

/* The lowest coverage of the intervals drawn (only those of 2 or more). */
static double lowest_coverage(double lowest, const struct stats_summary *s)
{
	return s->n > 1 && s->ci_coverage < lowest ? s->ci_coverage : lowest;
}

static int add(struct output_batch *batch, const char *outdir, const char *name,
	       char *data)
{
	char path[PATH_MAX];

	if (!data)
		return -1;
	if (snprintf(path, sizeof(path), "%s/%s", outdir, name) >= (int)sizeof(path)) {
		free(data);
		return -1;
	}
	return output_batch_add(batch, path, data, strlen(data));
}

/* ns per op of every variant at the largest thread count, with its CI. */
static char *ns_bars(const struct analysis *a, const struct group_view *g)
{
	long t = g->threads[g->nr_threads - 1];
	struct svg_bar *bars = calloc(g->nr_variants + 1, sizeof(*bars));
	char (*labels)[FORMAT_LEN] = calloc(g->nr_variants + 1, sizeof(*labels));
	struct svg_bar_chart chart = { .bars = bars };
	double lo = INFINITY, hi = 0, coverage = 1;
	char title[SWEEP_TEXT_LEN + 96], x_label[96], changes[SWEEP_TEXT_LEN];
	char *svg = NULL;

	if (!bars || !labels)
		goto out;
	for (size_t k = 0; k < g->nr_variants; k++) {
		const struct result_case *c =
			result_group_find(a->cases, g->group, g->variants[k].name, t);

		if (!c)
			continue;
		bars[chart.nr_bars] = (struct svg_bar){
			g->variants[k].name, c->ns_stats.median,
			c->ns_stats.n > 1 ? c->ns_stats.ci_lo : NAN,
			c->ns_stats.n > 1 ? c->ns_stats.ci_hi : NAN,
			g->variants[k].baseline ? SVG_STYLE_REFERENCE : (int)k,
			format_sig(labels[chart.nr_bars], c->ns_stats.median),
		};
		chart.nr_bars++;
		lo = fmin(lo, c->ns_stats.median);
		hi = fmax(hi, c->ns_stats.median);
		coverage = lowest_coverage(coverage, &c->ns_stats);
	}
	setting_changes(changes, sizeof(changes), g);
	snprintf(title, sizeof(title), "%s (%s): ns/op at %ld thread%s",
		 g->group->family, changes, t, t == 1 ? "" : "s");
	chart.title = title;
	snprintf(x_label, sizeof(x_label), "ns per operation per thread (median, %s)",
		 median_bar(coverage));
	chart.x_label = x_label;
	/* Two decades apart: a linear axis would hide the fast variants. */
	chart.log_x = hi > 100 * lo;
	svg = svg_bar_chart(&chart);
out:
	free(bars);
	free(labels);
	return svg;
}

/* One-way latency (one_way_ns) of each case, nearest class first. */
static char *one_way_bars(const struct analysis *a, const struct family_view *f)
{
	const struct result_case **cases = calloc(a->cases->nr + 1, sizeof(*cases));
	size_t nr = cases ? analysis_one_way_cases(a, f, cases) : 0;
	struct svg_bar *bars = calloc(nr + 1, sizeof(*bars));
	char (*labels)[160] = calloc(nr + 1, sizeof(*labels));
	char (*values)[FORMAT_LEN] = calloc(nr + 1, sizeof(*values));
	struct svg_bar_chart chart = { .bars = bars };
	char title[160], x_label[96];
	double coverage = 1;
	char *svg = NULL;

	if (!cases || !bars || !labels || !values)
		goto out;
	for (size_t i = 0; i < nr; i++) {
		const struct result_case *c = cases[i];
		const struct case_counter *cc = result_case_counter(c, "one_way_ns");
		struct stats_summary s;

		if (stats_summarize(cc->values, cc->n, &s))
			goto out;
		snprintf(labels[i], sizeof(labels[0]), "%s, %s",
			 c->widest_class ? c->widest_class : "unknown", c->variant);
		bars[chart.nr_bars++] = (struct svg_bar){
			labels[i], s.median, s.n > 1 ? s.ci_lo : NAN,
			s.n > 1 ? s.ci_hi : NAN,
			c->variant_order == CASE_ORDER_UNKNOWN ? 0 : c->variant_order,
			format_sig(values[i], s.median),
		};
		coverage = lowest_coverage(coverage, &s);
	}
	snprintf(title, sizeof(title), "%s: one cache line between two CPUs", f->name);
	chart.title = title;
	snprintf(x_label, sizeof(x_label), "one-way latency, ns (median, %s)",
		 median_bar(coverage));
	chart.x_label = x_label;
	svg = svg_bar_chart(&chart);
out:
	free(cases);
	free(bars);
	free(labels);
	free(values);
	return svg;
}

int plots_add_one_way(struct output_batch *batch, const char *outdir,
		      const struct analysis *a, const struct family_view *f)
{
	char name[PATH_MAX];

	plot_family_name(name, sizeof(name), a, f, "oneway");
	return add(batch, outdir, name, one_way_bars(a, f));
}

enum scaling_kind { THROUGHPUT, SPEEDUP, EFFICIENCY };

struct scaling_data {
	size_t nr_series;
	struct svg_series series[SVG_PALETTE_SIZE * 2 + 2];
	double *values;		/* x, y, lo, hi per series, then the model */
	double coverage;	/* the lowest of the throughput intervals */
};

static double scaled(const struct case_view *v, enum scaling_kind kind,
		     double value)
{
	if (kind == THROUGHPUT)
		return value / 1e6;
	if (kind == SPEEDUP)
		return value;
	return value / (double)v->c->threads;
}

/* One measured series per non-baseline variant; USL curves dashed. */
static int scaling_series(const struct analysis *a, const struct group_view *g,
			  enum scaling_kind kind, struct scaling_data *d)
{
	size_t nt = g->nr_threads, max_series = sizeof(d->series) / sizeof(d->series[0]) - 1;
	double *v;

	d->values = calloc((g->nr_variants * 2 + 2) * 4 * (nt + 65), sizeof(double));
	if (!d->values)
		return -1;
	v = d->values;
	for (size_t k = 0; k < g->nr_variants && d->nr_series + 1 < max_series; k++) {
		const struct variant_view *var = &g->variants[k];
		struct svg_series *s = &d->series[d->nr_series];
		double *x = v, *y = v + nt, *lo = v + 2 * nt, *hi = v + 3 * nt;

		if (var->baseline)
			continue;
		v += 4 * nt;
		*s = (struct svg_series){
			.name = var->name, .x = x, .y = y, .y_lo = lo, .y_hi = hi,
			.style = (int)k, .markers = true,
			/* the fitted model draws the line through the points */
			.no_line = kind == THROUGHPUT && var->fitted,
		};
		for (size_t t = 0; t < nt; t++) {
			const struct case_view *cv = group_view_find(a, g, var->name, g->threads[t]);

			if (!cv || (kind != THROUGHPUT && !cv->has_speedup))
				continue;
			x[s->n] = (double)g->threads[t];
			if (kind == THROUGHPUT) {
				y[s->n] = scaled(cv, kind, cv->c->tput_stats.median);
				lo[s->n] = cv->c->n > 1 ? scaled(cv, kind, cv->c->tput_stats.ci_lo) : NAN;
				hi[s->n] = cv->c->n > 1 ? scaled(cv, kind, cv->c->tput_stats.ci_hi) : NAN;
				d->coverage = lowest_coverage(d->coverage, &cv->c->tput_stats);
			} else {
				y[s->n] = scaled(cv, kind, cv->speedup.ratio);
				lo[s->n] = scaled(cv, kind, cv->speedup.lo);
				hi[s->n] = scaled(cv, kind, cv->speedup.hi);
			}
			s->n++;
		}
		d->nr_series++;
		if (kind != THROUGHPUT || !var->fitted)
			continue;
		/* The model between the measured counts, 64 steps. */
		s = &d->series[d->nr_series++];
		*s = (struct svg_series){
			.n = 65, .x = v, .y = v + 65, .style = (int)k, .dashed = true,
		};
		for (size_t i = 0; i <= 64; i++) {
			double n = 1 + ((double)g->threads[nt - 1] - 1) * (double)i / 64;

			v[i] = n;
			v[65 + i] = usl_throughput(&var->fit, n) / 1e6;
		}
		v += 130;
	}
	return 0;
}

/* The ideal: linear speedup, or efficiency 1. */
static void reference_line(const struct group_view *g, enum scaling_kind kind,
			   struct scaling_data *d, double *x, double *y)
{
	struct svg_series *s = &d->series[d->nr_series++];

	x[0] = 1;
	x[1] = (double)g->threads[g->nr_threads - 1];
	y[0] = 1;
	y[1] = kind == SPEEDUP ? x[1] : 1;
	*s = (struct svg_series){
		.name = "ideal (linear)", .n = 2, .x = x, .y = y,
		.style = SVG_STYLE_REFERENCE, .dashed = true,
	};
}

static char *scaling_chart(const struct analysis *a, const struct group_view *g,
			   enum scaling_kind kind)
{
	static const char *const titles[] = { "throughput", "speedup over 1 thread",
					      "parallel efficiency" };
	/* The ratios' bars are bootstrap intervals: 95% whatever n is. */
	static const char *const labels[] = {
		NULL,
		"speedup: ops/s over 1 thread's (bar: 95% CI)",
		"efficiency: speedup / threads",
	};
	struct scaling_data d = { .coverage = 1 };
	double ref_x[2], ref_y[2], ticks[64];
	struct svg_line_chart chart = { 0 };
	char title[SWEEP_TEXT_LEN + 96], throughput_label[96], *svg = NULL;
	char changes[SWEEP_TEXT_LEN];

	if (scaling_series(a, g, kind, &d))
		return NULL;
	snprintf(throughput_label, sizeof(throughput_label),
		 "Mops/s, all threads (median, %s)", median_bar(d.coverage));
	if (kind != THROUGHPUT)
		reference_line(g, kind, &d, ref_x, ref_y);
	for (size_t t = 0; t < g->nr_threads && t < 64; t++)
		ticks[t] = (double)g->threads[t];
	setting_changes(changes, sizeof(changes), g);
	snprintf(title, sizeof(title), "%s (%s): %s, %ld to %ld threads",
		 g->group->family, changes, titles[kind], g->threads[0],
		 g->threads[g->nr_threads - 1]);
	chart = (struct svg_line_chart){
		.title = title, .x_label = "threads",
		.y_label = kind == THROUGHPUT ? throughput_label : labels[kind],
		/* Thread counts usually double: a log axis spaces them evenly. */
		.log_x = g->threads[g->nr_threads - 1] >= 8 * g->threads[0],
		.y_from_zero = true, .x_ticks = ticks,
		.nr_x_ticks = g->nr_threads < 64 ? g->nr_threads : 64,
		.nr_series = d.nr_series, .series = d.series,
		.model_label = "USL model (dashed)",
	};
	svg = svg_line_chart(&chart);
	free(d.values);
	return svg;
}

/*
 * will-it-scale's runtest.py columns, one row per thread count. Threads
 * only: the processes columns are left empty, which its plot.js (plotly)
 * draws as no data, where runtest.py's 0 would draw a line at zero.
 */
static char *wis_csv(const struct analysis *a, const struct group_view *g,
		     const struct variant_view *var)
{
	long cpus = a->set->files[g->group->file].run.num_cpus;
	const struct result_case *one = result_group_find(a->cases, g->group, var->name, 1);
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	if (!out)
		return NULL;
	fprintf(out, "tasks,processes,processes_idle,threads,threads_idle,linear\n0,,,0,100,0\n");
	for (size_t t = 0; t < g->nr_threads; t++) {
		const struct result_case *c =
			result_group_find(a->cases, g->group, var->name, g->threads[t]);
		double idle = 0;

		if (!c)
			continue;
		/* Busy threads leave the other CPUs idle (computed, not sampled). */
		if (cpus >= c->threads)
			idle = 100.0 * (double)(cpus - c->threads) / (double)cpus;
		fprintf(out, "%ld,,,%.0f,%.2f,%.0f\n", c->threads,
			c->tput_stats.median, idle,
			one ? one->tput_stats.median * (double)c->threads : 0.0);
	}
	if (fclose(out)) {
		free(buf);
		return NULL;
	}
	return buf;
}

int plots_add_group(struct output_batch *batch, const char *outdir,
		    const struct analysis *a, const struct group_view *g,
		    bool with_plots)
{
	static const char *const kinds[] = { "throughput", "speedup", "efficiency" };
	char name[PATH_MAX], base[PATH_MAX - 8];

	if (g->pingpong)
		return 0;	/* drawn per family: plots_add_one_way() */
	plot_name(name, sizeof(name), a, g, "ns");
	if (with_plots && add(batch, outdir, name, ns_bars(a, g)))
		return -1;
	for (int k = THROUGHPUT; with_plots && plot_has_scaling(g) && k <= EFFICIENCY; k++) {
		if (k != THROUGHPUT && !plot_has_speedup(g))
			break;
		plot_name(name, sizeof(name), a, g, kinds[k]);
		if (add(batch, outdir, name, scaling_chart(a, g, (enum scaling_kind)k)))
			return -1;
	}
	for (size_t k = 0; k < g->nr_variants; k++) {
		if (g->variants[k].baseline)
			continue;
		csv_base_name(base, sizeof(base), a, g, g->variants[k].name);
		snprintf(name, sizeof(name), "%s.csv", base);
		if (add(batch, outdir, name, wis_csv(a, g, &g->variants[k])))
			return -1;
		/* Beside it: postprocess.py reads BASE.title for the plot's title. */
		snprintf(name, sizeof(name), "%s.title", base);
		if (add(batch, outdir, name, wis_title(a, g, g->variants[k].name)))
			return -1;
	}
	return 0;
}

int plots_add_heatmap(struct output_batch *batch, const char *outdir,
		      const struct latency_map *map)
{
	char (*labels)[24] = calloc(map->n + 1, sizeof(*labels));
	const char **names = calloc(map->n + 1, sizeof(*names));
	struct svg_heatmap h = {
		"One-way latency between CPUs", "ns", "CPU", map->n, names, map->matrix,
	};
	int ret = -1;

	if (labels && names) {
		for (size_t i = 0; i < map->n; i++) {
			snprintf(labels[i], sizeof(labels[i]), "%ld", map->cpus[i]);
			names[i] = labels[i];
		}
		ret = add(batch, outdir, HEATMAP_NAME, svg_heatmap(&h));
	}
	free(labels);
	free(names);
	return ret;
}

enum sweep_axis { SWEEP_NAMES, SWEEP_LINEAR, SWEEP_LOG, SWEEP_SYMLOG };

/*
 * Where each swept value goes on the x axis (pos): at the value itself,
 * so that 0,1,2,4,8,16 is not drawn as six equal steps. Values that span
 * a decade or more go on a log axis, or, with 0 among them, at
 * log10(1 + value): a symlog axis, 0 at its left. A parameter of names
 * (update=locked,plain) keeps one evenly spaced place per name.
 */
static enum sweep_axis sweep_positions(const struct family_view *f, const struct sweep *sw,
				       double *pos)
{
	int p = f->kf ? kernel_param_index(f->kf, sw->param) : -1;
	double lo = INFINITY, hi = -INFINITY, lowest_positive = INFINITY;

	for (size_t i = 0; i < sw->nr; i++) {
		char *end;

		pos[i] = strtod(sw->values[i], &end);
		if (p < 0 || f->kf->params[p].choices || end == sw->values[i] || *end) {
			for (size_t k = 0; k < sw->nr; k++)
				pos[k] = (double)k;
			return SWEEP_NAMES;
		}
		lo = fmin(lo, pos[i]);
		hi = fmax(hi, pos[i]);
		if (pos[i] > 0)
			lowest_positive = fmin(lowest_positive, pos[i]);
	}
	if (lo < 0 || !(hi >= 10 * lowest_positive))
		return SWEEP_LINEAR;
	if (lo > 0)
		return SWEEP_LOG;
	for (size_t i = 0; i < sw->nr; i++)
		pos[i] = log10(1 + pos[i]);
	return SWEEP_SYMLOG;
}

/*
 * ns/op at the largest thread count against the swept parameter, one
 * series of markers per variant (the harness baseline left out): the
 * points measured, on the parameter's own scale, and nothing between.
 */
static char *sweep_chart(const struct analysis *a, const struct family_view *f,
			 const struct sweep *sw)
{
	static const char *const scale[] = {
		[SWEEP_NAMES] = "", [SWEEP_LINEAR] = "",
		[SWEEP_LOG] = " (log scale)", [SWEEP_SYMLOG] = " (log scale of 1 + value)",
	};
	const struct group_view *first = sw->groups[0];
	long t = first->threads[first->nr_threads - 1];
	struct svg_series series[SVG_PALETTE_SIZE];
	double values[SVG_PALETTE_SIZE][4][SWEEP_MAX_POINTS], ticks[SWEEP_MAX_POINTS];
	const char *labels[SWEEP_MAX_POINTS];
	char title[SWEEP_TEXT_LEN + 160], y_label[96], x_label[160];
	double coverage = 1;
	size_t nr_series = 0;
	enum sweep_axis axis = sweep_positions(f, sw, ticks);

	for (size_t i = 0; i < sw->nr; i++) {
		labels[i] = sw->values[i];
		if (sw->groups[i]->threads[sw->groups[i]->nr_threads - 1] < t)
			t = sw->groups[i]->threads[sw->groups[i]->nr_threads - 1];
	}
	for (size_t k = 0; k < first->nr_variants && nr_series < SVG_PALETTE_SIZE; k++) {
		const struct variant_view *var = &first->variants[k];
		struct svg_series *s = &series[nr_series];
		double (*v)[SWEEP_MAX_POINTS] = values[nr_series];

		if (var->baseline)
			continue;
		*s = (struct svg_series){
			.name = var->name, .x = v[0], .y = v[1], .y_lo = v[2], .y_hi = v[3],
			.style = (int)k, .markers = true, .no_line = true,
		};
		for (size_t i = 0; i < sw->nr; i++) {
			const struct result_case *c = result_group_find(a->cases, sw->groups[i]->group,
									 var->name, t);

			if (!c)
				continue;
			v[0][s->n] = ticks[i];
			v[1][s->n] = c->ns_stats.median;
			v[2][s->n] = c->n > 1 ? c->ns_stats.ci_lo : NAN;
			v[3][s->n] = c->n > 1 ? c->ns_stats.ci_hi : NAN;
			coverage = lowest_coverage(coverage, &c->ns_stats);
			s->n++;
		}
		if (s->n)
			nr_series++;
	}
	snprintf(title, sizeof(title), "%.64s: ns/op against %.64s, %ld thread%s (%.200s)",
		 f->name, sw->param, t, t == 1 ? "" : "s", sw->fixed);
	snprintf(y_label, sizeof(y_label), "ns per operation per thread (median, %s)",
		 median_bar(coverage));
	snprintf(x_label, sizeof(x_label), "%.64s%s", sw->param, scale[axis]);
	return svg_line_chart(&(struct svg_line_chart){
		.title = title, .x_label = x_label, .y_label = y_label,
		.log_x = axis == SWEEP_LOG,
		.y_from_zero = true, .x_ticks = ticks, .nr_x_ticks = sw->nr,
		.x_tick_labels = labels, .nr_series = nr_series, .series = series,
	});
}

int plots_add_sweeps(struct output_batch *batch, const char *outdir,
		     const struct analysis *a, const struct family_view *f)
{
	struct sweep sweeps[8];
	size_t nr = family_sweeps(a, f, sweeps, 8);
	char name[PATH_MAX];

	for (size_t i = 0; i < nr; i++) {
		plot_sweep_name(name, sizeof(name), a, f, sweeps[i].param);
		if (add(batch, outdir, name, sweep_chart(a, f, &sweeps[i])))
			return -1;
	}
	return 0;
}
