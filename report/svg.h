/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Small SVG plots for the report: line charts, horizontal bar charts and
 * a heatmap. Written by hand so that the output is deterministic (golden
 * files), dependency-free and valid XML.
 *
 * Readable on light and dark pages: each plot paints its own background
 * and text in light colours, and a prefers-color-scheme media query in
 * the SVG's style sheet switches both, with a lighter palette, when the
 * page that shows it is dark (GitHub's dark theme, a browser in dark
 * mode). Series differ by colour and by marker shape, so they stay apart
 * for colour-blind readers and in print.
 */
#ifndef BOUNCELAB_SVG_H
#define BOUNCELAB_SVG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Series styles: a palette index, or the grey reference line. */
#define SVG_PALETTE_SIZE 8
#define SVG_STYLE_REFERENCE (-1)

struct svg_series {
	const char *name;		/* NULL: not in the legend (e.g. a model) */
	size_t n;
	const double *x;
	const double *y;		/* NaN: no point */
	const double *y_lo, *y_hi;	/* error bars, or NULL */
	int style;			/* 0.. or SVG_STYLE_REFERENCE */
	bool dashed;			/* e.g. a model, not a measurement */
	bool markers;
	bool no_line;			/* markers only (a model draws the line) */
};

struct svg_line_chart {
	const char *title;
	const char *x_label;	/* with the unit, e.g. "threads" */
	const char *y_label;	/* with the unit, e.g. "Mops/s (all threads)" */
	bool log_x, log_y;
	bool y_from_zero;	/* linear y axis starts at 0 */
	const double *x_ticks;	/* ticks at these values, or NULL: automatic */
	size_t nr_x_ticks;
	/* with x_ticks: the label of each tick (a parameter's values), or NULL */
	const char *const *x_tick_labels;
	size_t nr_series;
	const struct svg_series *series;
	/* legend entry for the unnamed dashed series, e.g. "USL model" */
	const char *model_label;
};

struct svg_bar {
	const char *label;
	double value;
	double lo, hi;		/* whisker (e.g. 95% CI), or NaN */
	int style;
	const char *value_label;	/* beside the bar; NULL: the value, %.3g */
};

struct svg_bar_chart {
	const char *title;
	const char *x_label;	/* with the unit */
	bool log_x;
	/*
	 * The value bars grow from, drawn as a line: 1 for ratios, so that a
	 * bar right of it is a gain and one left of it a loss. 0: from 0, or
	 * from a log axis' start.
	 */
	double origin;
	size_t nr_bars;
	const struct svg_bar *bars;
	/*
	 * NULL, or one name per bar: a bar whose name differs from the bar
	 * before's starts a group, headed by the name (e.g. a machine's).
	 */
	const char *const *groups;
};

struct svg_heatmap {
	const char *title;
	const char *unit;		/* of the cell values, e.g. "ns" */
	const char *axis_label;		/* e.g. "CPU" */
	size_t n;			/* rows = columns */
	const char *const *labels;	/* n labels */
	const double *values;		/* n * n, row-major; NaN: not measured */
};

/* Each returns the whole document (free() it), or NULL without memory. */
char *svg_line_chart(const struct svg_line_chart *chart);
char *svg_bar_chart(const struct svg_bar_chart *chart);
char *svg_heatmap(const struct svg_heatmap *map);

/* Writes s with XML's five special characters escaped. */
void svg_escape(FILE *out, const char *s);

#endif
