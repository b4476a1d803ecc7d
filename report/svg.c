// SPDX-License-Identifier: GPL-2.0-only
/*
 * SVG charts: line charts with log or linear axes, bar charts and
 * heatmaps, written as text by one set of functions so that every plot of
 * the report looks alike. One concern (about 700 lines).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "svg.h"

#define MAX_TICKS 32
#define FONT_WIDTH 7.0		/* average px per character at 12 px */

/*
 * Light and dark variants of each series colour. The light ones are the
 * Okabe-Ito colours darkened to reach 3:1 contrast on white; the dark
 * ones are lightened to reach it on GitHub's dark background (#0d1117).
 */
static const char *const palette_light[SVG_PALETTE_SIZE] = {
	"#0072b2", "#c45200", "#007f5f", "#8f3f97",
	"#a66a00", "#b2325f", "#5f6f00", "#00829b",
};
static const char *const palette_dark[SVG_PALETTE_SIZE] = {
	"#56b4e9", "#ff9a4d", "#3fd0a0", "#d08ee0",
	"#f0b83c", "#f07ca0", "#c0d040", "#4fd6e8",
};
#define REFERENCE_LIGHT "#6e7781"
#define REFERENCE_DARK "#8b949e"

void svg_escape(FILE *out, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '&':
			fputs("&amp;", out);
			break;
		case '<':
			fputs("&lt;", out);
			break;
		case '>':
			fputs("&gt;", out);
			break;
		case '"':
			fputs("&quot;", out);
			break;
		case '\'':
			fputs("&apos;", out);
			break;
		default:
			fputc(*s, out);
		}
	}
}

/*
 * Stroke and fill have classes of their own ("s0" and "f0"): a class that
 * set both would fill every polyline between its ends.
 */
static const char *style_class(int style, bool fill, char *buf, size_t len)
{
	if (style < 0)
		return fill ? "fref" : "ref";
	snprintf(buf, len, "%c%d", fill ? 'f' : 's', style % SVG_PALETTE_SIZE);
	return buf;
}

static const char *style_colour(int style)
{
	return style < 0 ? REFERENCE_LIGHT : palette_light[style % SVG_PALETTE_SIZE];
}

/* The document head: size, style sheet (light, then dark) and background. */
static void begin(FILE *out, double width, double height, const char *title)
{
	fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
		"viewBox=\"0 0 %.0f %.0f\" font-family=\"Helvetica, Arial, sans-serif\" "
		"font-size=\"12\" role=\"img\">\n", width, height, width, height);
	fputs("<title>", out);
	svg_escape(out, title);
	fputs("</title>\n<style>\n"
	      "text{fill:#1f2328}\n.bg{fill:#ffffff}\n.axis{stroke:#57606a}\n"
	      ".grid{stroke:#d8dee4}\n.ref{stroke:" REFERENCE_LIGHT "}\n.fref{fill:" REFERENCE_LIGHT "}\n",
	      out);
	for (int i = 0; i < SVG_PALETTE_SIZE; i++)
		fprintf(out, ".s%d{stroke:%s}\n.f%d{fill:%s}\n", i, palette_light[i],
			i, palette_light[i]);
	fputs("@media (prefers-color-scheme: dark) {\n"
	      "text{fill:#e6edf3}\n.bg{fill:#0d1117}\n.axis{stroke:#8b949e}\n"
	      ".grid{stroke:#30363d}\n.ref{stroke:" REFERENCE_DARK "}\n.fref{fill:" REFERENCE_DARK "}\n",
	      out);
	for (int i = 0; i < SVG_PALETTE_SIZE; i++)
		fprintf(out, ".s%d{stroke:%s}\n.f%d{fill:%s}\n", i, palette_dark[i],
			i, palette_dark[i]);
	fputs("}\n</style>\n", out);
	fprintf(out, "<rect class=\"bg\" fill=\"#ffffff\" x=\"0\" y=\"0\" width=\"%.0f\" height=\"%.0f\" rx=\"6\"/>\n",
		width, height);
}

static void text(FILE *out, double x, double y, const char *anchor,
		 const char *extra, const char *s)
{
	fprintf(out, "<text fill=\"#1f2328\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\"%s%s>",
		x, y, anchor, extra ? " " : "", extra ? extra : "");
	svg_escape(out, s);
	fputs("</text>\n", out);
}

static char *finish(FILE *out, char **buf)
{
	fputs("</svg>\n", out);
	if (fclose(out)) {
		free(*buf);
		return NULL;
	}
	return *buf;
}

/* A tick label: integers plainly, others with the step's decimals. */
static void format_tick(char *buf, size_t len, double v, double step, bool log)
{
	int decimals = 0;

	if (fabs(v) < 1e-12 * (step > 0 ? step : 1))
		v = 0;
	if (log || step <= 0) {
		snprintf(buf, len, "%g", v);
		return;
	}
	if (step < 1)
		decimals = (int)ceil(-log10(step) - 1e-9);
	if (decimals > 6)
		decimals = 6;
	snprintf(buf, len, "%.*f", decimals, v);
}

struct axis {
	double min, max;
	bool log;
	double px0, px1;	/* pixel positions of min and max */
	double ticks[MAX_TICKS];
	size_t nr_ticks;
	double step;		/* linear tick spacing; 0 for log or given ticks */
};

static double axis_map(const struct axis *a, double v)
{
	double t;

	if (a->log)
		t = (log10(v) - log10(a->min)) / (log10(a->max) - log10(a->min));
	else
		t = (v - a->min) / (a->max - a->min);
	return a->px0 + t * (a->px1 - a->px0);
}

/* 1, 2 or 5 times a power of ten, near range / 5. */
static double nice_step(double range)
{
	double e = pow(10, floor(log10(range / 5)));
	double f = range / 5 / e;

	return (f < 1.5 ? 1 : f < 3 ? 2 : f < 7 ? 5 : 10) * e;
}

static void linear_ticks(struct axis *a, bool round_ends)
{
	double step = nice_step(a->max - a->min);
	double first;

	if (round_ends) {
		a->min = floor(a->min / step + 1e-9) * step;
		a->max = ceil(a->max / step - 1e-9) * step;
	}
	a->step = step;
	first = ceil(a->min / step - 1e-9) * step;
	a->nr_ticks = 0;
	for (double v = first; v <= a->max + step * 1e-6 && a->nr_ticks < MAX_TICKS;
	     v += step)
		a->ticks[a->nr_ticks++] = v;
}

static void log_ticks(struct axis *a)
{
	int lo = (int)floor(log10(a->min) + 1e-9);
	int hi = (int)ceil(log10(a->max) - 1e-9);
	static const double mantissas[] = { 1, 2, 5 };
	bool fine = hi - lo <= 2;

	if (hi == lo)
		hi = lo + 1;
	a->min = pow(10, lo);
	a->max = pow(10, hi);
	a->step = 0;
	a->nr_ticks = 0;
	for (int e = lo; e <= hi; e++) {
		for (size_t m = 0; m < (fine ? 3 : 1); m++) {
			double v = mantissas[m] * pow(10, e);

			if (v <= a->max * (1 + 1e-9) && a->nr_ticks < MAX_TICKS)
				a->ticks[a->nr_ticks++] = v;
		}
	}
}

/* Sets up an axis over [lo, hi] of the data. */
static void axis_setup(struct axis *a, double lo, double hi, bool log,
		       bool from_zero, const double *given, size_t nr_given)
{
	a->log = log;
	if (!(lo <= hi)) {	/* no data */
		lo = log ? 1 : 0;
		hi = log ? 10 : 1;
	}
	if (given && nr_given) {
		/* Ticks at the given values; pad so that points clear the axes. */
		a->nr_ticks = 0;
		for (size_t i = 0; i < nr_given && i < MAX_TICKS; i++)
			a->ticks[a->nr_ticks++] = given[i];
		a->step = 0;
		if (log) {
			double f = lo == hi ? 2 : pow(hi / lo, 0.06);

			a->min = lo / f;
			a->max = hi * f;
		} else {
			double pad = lo == hi ? 1 : (hi - lo) * 0.06;

			a->min = lo - pad;
			a->max = hi + pad;
		}
		return;
	}
	if (log) {
		a->min = lo;
		a->max = hi;
		log_ticks(a);
		return;
	}
	if (from_zero && lo > 0)
		lo = 0;
	if (lo == hi) {
		hi = lo == 0 ? 1 : hi + fabs(hi) * 0.5;
		if (!from_zero)
			lo -= fabs(lo) * 0.5;
	}
	a->min = lo;
	a->max = hi;
	linear_ticks(a, true);
}

/* Data range of all series (with error bars) on one axis. */
static void data_range(const struct svg_line_chart *c, bool y, double *lo,
		       double *hi)
{
	bool log = y ? c->log_y : c->log_x;

	*lo = INFINITY;
	*hi = -INFINITY;
	for (size_t s = 0; s < c->nr_series; s++) {
		const struct svg_series *ser = &c->series[s];

		for (size_t i = 0; i < ser->n; i++) {
			double v[3] = { y ? ser->y[i] : ser->x[i], NAN, NAN };

			if (y && ser->y_lo && ser->y_hi) {
				v[1] = ser->y_lo[i];
				v[2] = ser->y_hi[i];
			}
			for (int k = 0; k < 3; k++) {
				if (!isfinite(v[k]) || (log && v[k] <= 0))
					continue;
				if (v[k] < *lo)
					*lo = v[k];
				if (v[k] > *hi)
					*hi = v[k];
			}
		}
	}
}

static bool plottable(const struct axis *a, double v)
{
	return isfinite(v) && (!a->log || v > 0) &&
	       v >= a->min * (a->log ? 0.999 : 1) - (a->log ? 0 : 1e-9 * fabs(a->max - a->min)) &&
	       v <= a->max * (a->log ? 1.001 : 1) + (a->log ? 0 : 1e-9 * fabs(a->max - a->min));
}

/* The shape follows the style, so a variant looks the same in every chart. */
static void marker(FILE *out, int style, double x, double y)
{
	size_t shape = style < 0 ? 0 : (size_t)style;
	char cls[16], line[16];
	const char *c = style_class(style, true, cls, sizeof(cls));
	const char *colour = style_colour(style);

	switch (shape % 5) {
	case 0:
		fprintf(out, "<circle class=\"%s\" fill=\"%s\" cx=\"%.1f\" cy=\"%.1f\" r=\"4\"/>\n",
			c, colour, x, y);
		break;
	case 1:
		fprintf(out, "<rect class=\"%s\" fill=\"%s\" x=\"%.1f\" y=\"%.1f\" width=\"8\" height=\"8\"/>\n",
			c, colour, x - 4, y - 4);
		break;
	case 2:
		fprintf(out, "<path class=\"%s\" fill=\"%s\" d=\"M%.1f %.1fL%.1f %.1fL%.1f %.1fZ\"/>\n",
			c, colour, x, y - 5, x + 5, y + 4, x - 5, y + 4);
		break;
	case 3:
		fprintf(out, "<path class=\"%s\" fill=\"%s\" d=\"M%.1f %.1fL%.1f %.1fL%.1f %.1fL%.1f %.1fZ\"/>\n",
			c, colour, x, y - 5, x + 5, y, x, y + 5, x - 5, y);
		break;
	default:
		fprintf(out, "<path class=\"%s\" stroke=\"%s\" stroke-width=\"2.5\" fill=\"none\" d=\"M%.1f %.1fL%.1f %.1fM%.1f %.1fL%.1f %.1f\"/>\n",
			style_class(style, false, line, sizeof(line)), colour,
			x - 4, y - 4, x + 4, y + 4, x - 4, y + 4, x + 4, y - 4);
		break;
	}
}

static void line_style(FILE *out, const struct svg_series *s)
{
	char cls[16];

	fprintf(out, "class=\"%s\" stroke=\"%s\" fill=\"none\" stroke-width=\"%s\"%s",
		style_class(s->style, false, cls, sizeof(cls)), style_colour(s->style),
		s->style < 0 || s->dashed ? "1.5" : "2",
		s->dashed ? " stroke-dasharray=\"6 4\"" : "");
}

/* Frame, grid lines, ticks and labels of both axes. */
static void draw_axes(FILE *out, const struct axis *x, const struct axis *y,
		      const char *x_label, const char *y_label,
		      const char *const *x_tick_labels)
{
	char label[64];

	for (size_t i = 0; i < y->nr_ticks; i++) {
		double py = axis_map(y, y->ticks[i]);

		fprintf(out, "<line class=\"grid\" stroke=\"#d8dee4\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n",
			x->px0, py, x->px1, py);
		format_tick(label, sizeof(label), y->ticks[i], y->step, y->log);
		text(out, x->px0 - 6, py + 4, "end", NULL, label);
	}
	for (size_t i = 0; i < x->nr_ticks; i++) {
		double px = axis_map(x, x->ticks[i]);

		if (px < x->px0 - 0.5 || px > x->px1 + 0.5)
			continue;
		fprintf(out, "<line class=\"axis\" stroke=\"#57606a\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n",
			px, y->px0, px, y->px0 + 5);
		if (x_tick_labels)
			snprintf(label, sizeof(label), "%s", x_tick_labels[i]);
		else
			format_tick(label, sizeof(label), x->ticks[i], x->step, x->log);
		text(out, px, y->px0 + 18, "middle", NULL, label);
	}
	fprintf(out, "<path class=\"axis\" stroke=\"#57606a\" fill=\"none\" d=\"M%.1f %.1fL%.1f %.1fL%.1f %.1f\"/>\n",
		x->px0, y->px1, x->px0, y->px0, x->px1, y->px0);
	text(out, (x->px0 + x->px1) / 2, y->px0 + 38, "middle", NULL, x_label);
	snprintf(label, sizeof(label), "transform=\"rotate(-90 %.1f %.1f)\"",
		 16.0, (y->px0 + y->px1) / 2);
	text(out, 16, (y->px0 + y->px1) / 2, "middle", label, y_label);
}

static void draw_series(FILE *out, const struct axis *x, const struct axis *y,
			const struct svg_series *s)
{
	bool open = false;

	for (size_t i = 0; i < s->n && !s->no_line; i++) {
		if (!plottable(x, s->x[i]) || !plottable(y, s->y[i])) {
			if (open)
				fputs("\"/>\n", out);
			open = false;
			continue;
		}
		if (!open) {
			fputs("<polyline ", out);
			line_style(out, s);
			fputs(" points=\"", out);
			open = true;
		} else {
			fputc(' ', out);
		}
		fprintf(out, "%.1f,%.1f", axis_map(x, s->x[i]), axis_map(y, s->y[i]));
	}
	if (open)
		fputs("\"/>\n", out);
	for (size_t i = 0; i < s->n; i++) {
		double px, lo, hi;

		if (!plottable(x, s->x[i]) || !plottable(y, s->y[i]))
			continue;
		px = axis_map(x, s->x[i]);
		if (s->y_lo && s->y_hi && plottable(y, s->y_lo[i]) &&
		    plottable(y, s->y_hi[i])) {
			lo = axis_map(y, s->y_lo[i]);
			hi = axis_map(y, s->y_hi[i]);
			fprintf(out, "<path ");
			line_style(out, &(struct svg_series){ .style = s->style });
			fprintf(out, " d=\"M%.1f %.1fL%.1f %.1fM%.1f %.1fL%.1f %.1fM%.1f %.1fL%.1f %.1f\"/>\n",
				px, lo, px, hi, px - 4, lo, px + 4, lo, px - 4, hi, px + 4, hi);
		}
		if (s->markers)
			marker(out, s->style, px, axis_map(y, s->y[i]));
	}
}

/*
 * One entry per named series; unnamed dashed series (models drawn in
 * their variant's colour) share one grey entry at the end.
 */
static void draw_legend(FILE *out, const struct svg_line_chart *c, double left,
			double top)
{
	const struct svg_series model = { .style = SVG_STYLE_REFERENCE, .dashed = true };
	bool any_model = false;
	double y = top;

	for (size_t s = 0; s < c->nr_series; s++) {
		const struct svg_series *ser = &c->series[s];

		if (!ser->name) {
			any_model |= ser->dashed;
			continue;
		}
		if (!ser->no_line) {
			fprintf(out, "<line ");
			line_style(out, ser);
			fprintf(out, " x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n",
				left, y, left + 24, y);
		}
		if (ser->markers)
			marker(out, ser->style, left + 12, y);
		text(out, left + 32, y + 4, "start", NULL, ser->name);
		y += 20;
	}
	if (!any_model)
		return;
	fprintf(out, "<line ");
	line_style(out, &model);
	fprintf(out, " x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n",
		left, y, left + 24, y);
	text(out, left + 32, y + 4, "start", NULL, c->model_label ? c->model_label : "model");
}

static double longest_name(const struct svg_line_chart *c)
{
	size_t longest = 0;

	for (size_t s = 0; s < c->nr_series; s++)
		if (c->series[s].name && strlen(c->series[s].name) > longest)
			longest = strlen(c->series[s].name);
	if (c->model_label && strlen(c->model_label) > longest)
		longest = strlen(c->model_label);
	return (double)longest;
}

char *svg_line_chart(const struct svg_line_chart *c)
{
	double legend_width = 44 + FONT_WIDTH * longest_name(c);
	double plot_width = 460;
	double width = 70 + plot_width + 20 + legend_width;
	double height = 30 + 20 * (double)c->nr_series + 60 > 380 ?
			30 + 20 * (double)c->nr_series + 60 : 380;
	struct axis x = { .px0 = 70, .px1 = 70 + plot_width };
	struct axis y = { .px0 = height - 60, .px1 = 40 };
	double lo, hi;
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	if (!out)
		return NULL;
	data_range(c, false, &lo, &hi);
	axis_setup(&x, lo, hi, c->log_x, false, c->x_ticks, c->nr_x_ticks);
	data_range(c, true, &lo, &hi);
	axis_setup(&y, lo, hi, c->log_y, c->y_from_zero, NULL, 0);
	begin(out, width, height, c->title);
	text(out, 70, 24, "start", "font-size=\"14\" font-weight=\"bold\"", c->title);
	draw_axes(out, &x, &y, c->x_label, c->y_label,
		  c->x_ticks ? c->x_tick_labels : NULL);
	for (size_t s = 0; s < c->nr_series; s++)
		draw_series(out, &x, &y, &c->series[s]);
	if (!c->nr_series)
		text(out, (x.px0 + x.px1) / 2, (y.px0 + y.px1) / 2, "middle", NULL, "no data");
	draw_legend(out, c, x.px1 + 20, 50);
	return finish(out, &buf);
}

/* One bar from the axis, its whisker and its value, at height top. */
/* A bar from base to its value: left of base when the value is below it. */
static void draw_bar(FILE *out, const struct axis *x, const struct svg_bar *b,
		     double base, double top, double label_width)
{
	double end, from;
	char cls[16], value[64];

	text(out, label_width - 8, top + 13, "end", NULL, b->label);
	if (!plottable(x, b->value))
		return;
	from = axis_map(x, base);
	end = axis_map(x, b->value);
	fprintf(out, "<rect class=\"%s\" fill=\"%s\" fill-opacity=\"0.75\" stroke-width=\"0\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"18\"/>\n",
		style_class(b->style, true, cls, sizeof(cls)), style_colour(b->style),
		fmin(from, end), top, fabs(end - from));
	end = fmax(from, end);
	if (plottable(x, b->lo) && plottable(x, b->hi)) {
		double l = axis_map(x, b->lo), h = axis_map(x, b->hi);

		fprintf(out, "<path class=\"axis\" stroke=\"#57606a\" stroke-width=\"1.5\" fill=\"none\" d=\"M%.1f %.1fL%.1f %.1fM%.1f %.1fL%.1f %.1fM%.1f %.1fL%.1f %.1f\"/>\n",
			l, top + 9, h, top + 9, l, top + 4, l, top + 14, h, top + 4, h, top + 14);
		if (h > end)
			end = h;
	}
	if (b->value_label)
		snprintf(value, sizeof(value), "%s", b->value_label);
	else
		snprintf(value, sizeof(value), "%.3g", b->value);
	text(out, end + 6, top + 13, "start", NULL, value);
}

/* Bar i has a group heading of its own: the first of its group. */
static bool starts_group(const struct svg_bar_chart *c, size_t i)
{
	const char *g = c->groups ? c->groups[i] : NULL;

	return g && (i == 0 || !c->groups[i - 1] || strcmp(c->groups[i - 1], g));
}

static size_t bar_groups(const struct svg_bar_chart *c)
{
	size_t n = 0;

	for (size_t i = 0; i < c->nr_bars; i++)
		n += starts_group(c, i);
	return n;
}

char *svg_bar_chart(const struct svg_bar_chart *c)
{
	size_t longest = 0;
	double label_width, plot_width = 420, width, height;
	struct axis x;
	double lo = c->origin ? c->origin : INFINITY, hi = c->origin ? c->origin : -INFINITY;
	double base;
	char *buf = NULL, value[64];
	size_t len = 0;
	FILE *out;

	for (size_t i = 0; i < c->nr_bars; i++) {
		double v[3] = { c->bars[i].value, c->bars[i].lo, c->bars[i].hi };

		if (c->bars[i].label && strlen(c->bars[i].label) > longest)
			longest = strlen(c->bars[i].label);
		for (int k = 0; k < 3; k++) {
			if (!isfinite(v[k]) || (c->log_x && v[k] <= 0))
				continue;
			lo = v[k] < lo ? v[k] : lo;
			hi = v[k] > hi ? v[k] : hi;
		}
	}
	label_width = 16 + FONT_WIDTH * (double)longest;
	width = label_width + plot_width + 80;
	height = 50 + 26 * (double)(c->nr_bars + bar_groups(c)) + 50;
	x = (struct axis){ .px0 = label_width, .px1 = label_width + plot_width };
	axis_setup(&x, lo, hi, c->log_x, true, NULL, 0);
	base = c->origin ? c->origin : c->log_x ? x.min : 0;
	out = open_memstream(&buf, &len);
	if (!out)
		return NULL;
	begin(out, width, height, c->title);
	text(out, 10, 24, "start", "font-size=\"14\" font-weight=\"bold\"", c->title);
	for (size_t i = 0; i < x.nr_ticks; i++) {
		double px = axis_map(&x, x.ticks[i]);

		fprintf(out, "<line class=\"grid\" stroke=\"#d8dee4\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n",
			px, 40.0, px, height - 50);
		format_tick(value, sizeof(value), x.ticks[i], x.step, x.log);
		text(out, px, height - 34, "middle", NULL, value);
	}
	text(out, (x.px0 + x.px1) / 2, height - 12, "middle", NULL, c->x_label);
	for (size_t i = 0, row = 0; i < c->nr_bars; i++, row++) {
		if (starts_group(c, i)) {
			text(out, 10, 46 + 26 * (double)row + 14, "start",
			     "font-weight=\"bold\"", c->groups[i]);
			row++;
		}
		draw_bar(out, &x, &c->bars[i], base, 46 + 26 * (double)row, label_width);
	}
	fprintf(out, "<line class=\"axis\" stroke=\"#57606a\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n",
		x.px0, 40.0, x.px0, height - 50);
	if (c->origin)
		fprintf(out, "<line class=\"origin\" stroke=\"#57606a\" stroke-width=\"1.5\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n",
			axis_map(&x, c->origin), 40.0, axis_map(&x, c->origin), height - 50);
	if (!c->nr_bars)
		text(out, (x.px0 + x.px1) / 2, height / 2, "middle", NULL, "no data");
	return finish(out, &buf);
}

/* Viridis at five stops: perceptually even, and legible in greyscale. */
static void heat_colour(double t, char *buf, size_t len)
{
	static const unsigned char stops[5][3] = {
		{ 0x44, 0x01, 0x54 }, { 0x3b, 0x52, 0x8b }, { 0x21, 0x91, 0x8c },
		{ 0x5e, 0xc9, 0x62 }, { 0xfd, 0xe7, 0x25 },
	};
	double pos = (t < 0 ? 0 : t > 1 ? 1 : t) * 4;
	int i = pos >= 4 ? 3 : (int)pos;
	double f = pos - i;
	int rgb[3];

	for (int k = 0; k < 3; k++)
		rgb[k] = (int)lround(stops[i][k] + f * (stops[i + 1][k] - stops[i][k]));
	snprintf(buf, len, "#%02x%02x%02x", rgb[0], rgb[1], rgb[2]);
}

static double heat_position(double v, double lo, double hi)
{
	return hi > lo ? (v - lo) / (hi - lo) : 0.5;
}

static void heat_scale(FILE *out, double left, double top, double height,
		       double lo, double hi, const char *unit)
{
	char colour[16], label[64];

	for (int i = 0; i < 32; i++) {
		heat_colour((31 - i) / 31.0, colour, sizeof(colour));
		fprintf(out, "<rect fill=\"%s\" x=\"%.1f\" y=\"%.1f\" width=\"14\" height=\"%.1f\"/>\n",
			colour, left, top + height * i / 32, height / 32 + 0.5);
	}
	for (int i = 0; i <= 2; i++) {
		double v = hi - (hi - lo) * i / 2;

		if (hi == lo && i != 1)
			continue;	/* one value: one label */
		snprintf(label, sizeof(label), "%.3g", v);
		text(out, left + 20, top + height * i / 2 + 4, "start", NULL, label);
	}
	text(out, left, top - 8, "start", NULL, unit);
}

char *svg_heatmap(const struct svg_heatmap *h)
{
	double cell = h->n ? 420.0 / (double)h->n : 1;
	double left = 70, top = 50, grid, lo = INFINITY, hi = -INFINITY;
	size_t label_every = 1;
	char *buf = NULL, colour[16], label[64];
	size_t len = 0;
	FILE *out;

	if (cell > 40)
		cell = 40;
	grid = cell * (double)h->n;
	while (cell * (double)label_every < 14)
		label_every *= 2;
	for (size_t i = 0; i < h->n * h->n; i++) {
		if (!isfinite(h->values[i]))
			continue;
		lo = h->values[i] < lo ? h->values[i] : lo;
		hi = h->values[i] > hi ? h->values[i] : hi;
	}
	if (!(lo <= hi))
		lo = hi = 0;
	out = open_memstream(&buf, &len);
	if (!out)
		return NULL;
	begin(out, left + grid + 110, top + grid + 60, h->title);
	text(out, 10, 24, "start", "font-size=\"14\" font-weight=\"bold\"", h->title);
	for (size_t r = 0; r < h->n; r++) {
		for (size_t c = 0; c < h->n; c++) {
			double v = h->values[r * h->n + c], t;

			if (!isfinite(v))
				continue;
			t = heat_position(v, lo, hi);
			heat_colour(t, colour, sizeof(colour));
			fprintf(out, "<rect fill=\"%s\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\"><title>",
				colour, left + cell * (double)c, top + cell * (double)r,
				cell, cell);
			svg_escape(out, h->labels[r]);
			fputs(" - ", out);
			svg_escape(out, h->labels[c]);
			fprintf(out, ": %.3g %s</title></rect>\n", v, h->unit);
			if (cell >= 32) {
				/* Fixed colours: the cell's own, not the page's. */
				snprintf(label, sizeof(label), "%.3g", v);
				fprintf(out, "<text style=\"fill:%s\" fill=\"%s\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" font-size=\"10\">%s</text>\n",
					t > 0.6 ? "#000000" : "#ffffff", t > 0.6 ? "#000000" : "#ffffff",
					left + cell * ((double)c + 0.5),
					top + cell * ((double)r + 0.5) + 3, label);
			}
		}
	}
	fprintf(out, "<rect class=\"axis\" stroke=\"#57606a\" fill=\"none\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"/>\n",
		left, top, grid, grid);
	for (size_t i = 0; i < h->n; i += label_every) {
		text(out, left - 4, top + cell * ((double)i + 0.5) + 4, "end", NULL, h->labels[i]);
		text(out, left + cell * ((double)i + 0.5), top + grid + 14, "middle", NULL, h->labels[i]);
	}
	text(out, left + grid / 2, top + grid + 34, "middle", NULL, h->axis_label);
	heat_scale(out, left + grid + 20, top + 16, grid > 120 ? grid - 16 : 104, lo, hi, h->unit);
	text(out, left + grid / 2, top + grid + 52, "middle", "font-size=\"10\"",
	     "blank cells: pair not measured");
	return finish(out, &buf);
}
