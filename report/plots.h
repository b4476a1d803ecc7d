/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The report's plots and CSV files: which exist for a table, what they
 * are called, and their contents. File names are deterministic, from the
 * family and the table's number: plots/has_pinned-1-throughput.svg
 * (plots/m2-has_pinned-1-... for the second of several results files).
 */
#ifndef BOUNCELAB_PLOTS_H
#define BOUNCELAB_PLOTS_H

#include <stdbool.h>

#include "analysis.h"
#include "latency_map.h"
#include "output.h"

#define PLOT_DIR "plots"
#define CSV_DIR "will-it-scale"

/* Relative to the report: "plots/has_pinned-1-ns.svg". */
void plot_name(char *buf, size_t len, const struct analysis *a,
	       const struct group_view *g, const char *kind);

/* Relative to the report: "plots/pingpong-oneway.svg", one per family and file. */
void plot_family_name(char *buf, size_t len, const struct analysis *a,
		      const struct family_view *f, const char *kind);

/* Adds the one-way latency chart of a ping-pong family. */
int plots_add_one_way(struct output_batch *batch, const char *outdir,
		      const struct analysis *a, const struct family_view *f);

/*
 * Relative to the report, without the extension:
 * "will-it-scale/has_pinned-store_always-pin_work_1-flag_line_shared-placement_compact"
 * (m2-has_pinned-... for the second of several results files), one name
 * for its .csv and .title as will-it-scale's postprocess.py pairs them.
 */
void csv_base_name(char *buf, size_t len, const struct analysis *a,
		   const struct group_view *g, const char *variant);

/* The throughput, speedup and efficiency plots exist for this table. */
bool plot_has_scaling(const struct group_view *g);

/* The speedup and efficiency plots exist too: three or more thread counts. */
bool plot_has_speedup(const struct group_view *g);

/*
 * Adds the table's CSVs, and its plots with_plots (a table the report
 * shows in full); none for the physical baseline's.
 */
int plots_add_group(struct output_batch *batch, const char *outdir,
		    const struct analysis *a, const struct group_view *g,
		    bool with_plots);

/* Relative to the report: "plots/has_pinned-sweep-pin_work.svg". */
void plot_sweep_name(char *buf, size_t len, const struct analysis *a,
		     const struct family_view *f, const char *param);

/* Adds ns/op against each parameter the family's tables sweep (sweeps.h). */
int plots_add_sweeps(struct output_batch *batch, const char *outdir,
		     const struct analysis *a, const struct family_view *f);

/* Adds plots/latency-heatmap.svg. */
int plots_add_heatmap(struct output_batch *batch, const char *outdir,
		      const struct latency_map *map);

#define HEATMAP_NAME PLOT_DIR "/latency-heatmap.svg"

#endif
