/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Reading results files (resultfile/results.h describes the format).
 *
 * Strict where the report depends on a value: a known field of the wrong
 * type, a number outside any sane range, a truncated or non-JSON file,
 * NaN or Infinity, nesting too deep: each is an error naming the file and
 * the place, e.g. "r.json: benchmarks[12] (has_pinned/nop/...): ns_per_op:
 * expected a number from 1e-06 to 3.6e+12, found -1". Tolerant of the
 * rest: unknown fields (newer Google Benchmark versions add some), rows
 * from other tools (kept for `compare`, left out of the report),
 * aggregate rows (recomputed from the repetitions) and failed rows
 * (counted and listed).
 */
#ifndef BOUNCELAB_RESULTS_READ_H
#define BOUNCELAB_RESULTS_READ_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "run_context.h"
#include "setting.h"

/* A user counter of one row: a family's metric or a hardware count. */
struct result_counter {
	const char *name;	/* owned by the file's JSON document */
	double value;
};

/* One good repetition. */
struct result_row {
	unsigned int file;
	/*
	 * The file the row was read from: file itself until fleet_pool()
	 * pools the files of one machine into the first of them.
	 */
	unsigned int source_file;
	const char *name;	/* Google Benchmark's run_name (or name) */
	const char *family;	/* NULL: a row from another tool */
	const char *variant;
	const char *setting;	/* parameters and placement: a table key */
	/*
	 * bouncelab.params as the catalogue reads them; family NULL for a
	 * family it does not know (the table key keeps the text as written)
	 */
	struct setting params;
	/* "readers=0, pin_work=3": bouncelab.params as the file spells them */
	const char *params_text;
	const char *policy;	/* placement policy, or NULL */
	const char *widest_class;
	/*
	 * The shared state's home: the policy asked for (NULL: the file
	 * predates homes, or "default": not bound), the node the kernel
	 * said held it (-1: unknown) and the threads on another node.
	 */
	const char *home_policy;
	int home_node;
	int home_threads_away;
	long threads;
	/* ours: the harness's ns_per_op; another tool's: real_time in ns */
	double ns_per_op;
	double ops_per_s;	/* ours: ops / wall_ns; another tool's: NaN */
	double ops;		/* ours: operations of all threads; another tool's: NaN */
	size_t first_counter;	/* into results.counters */
	size_t nr_counters;
	/*
	 * NULL for a repetition. "median" or "mean": another tool's file
	 * that kept only Google Benchmark's aggregates of this benchmark
	 * (--benchmark_report_aggregates_only): this row is that aggregate,
	 * one value standing for `repetitions` repetitions.
	 */
	const char *aggregate;
	long repetitions;
	long repetition_index;	/* the round of a bouncelab run; -1 if absent */
};

/* A repetition that failed (e.g. its verify step). */
struct result_failure {
	unsigned int file;
	const char *name;
	const char *message;
};

struct json_region;

struct result_file {
	const char *path;
	json_t *doc;
	struct json_region *region;	/* doc's memory (json_region.h), or NULL */
	size_t nr_rows;		/* good repetitions of ours */
	/*
	 * The set's rows read from this file: rows[first_row..end_row),
	 * whose source_file is this one (a file's rows are read together),
	 * so a question about one file reads its rows, not the fleet's.
	 */
	size_t first_row, end_row;
	size_t nr_failed;
	size_t nr_foreign;	/* repetitions from other tools */
	size_t nr_aggregates;
	size_t nr_from_aggregates;	/* rows standing for missing repetitions */
	/*
	 * Written by `bouncelab run` (context.command), which interleaves
	 * repetitions in rounds: every case runs once per round, and a row's
	 * repetition_index is its round. Google Benchmark's own repetitions
	 * (even randomly interleaved) have no rounds.
	 */
	bool rounds;
	/* the context, read once: everything downstream reads this */
	struct run_context run;
};

struct results {
	unsigned int nr_files;
	struct result_file *files;
	size_t nr_rows;
	struct result_row *rows;
	size_t nr_counters;
	struct result_counter *counters;
	size_t nr_failures;
	struct result_failure *failures;
	/* private: allocation sizes and the setting strings */
	size_t cap_files, cap_rows, cap_counters, cap_failures;
	size_t nr_strings, cap_strings;
	char **strings;
	/*
	 * private: one pointer per distinct name, family, variant, setting
	 * and placement (an open-addressing set), so that the repetitions of
	 * a case share them and sorting compares pointers, not texts
	 */
	const char **unique;
	size_t nr_unique, cap_unique;
};

/*
 * Reads one more file into set (zero-initialised before the first).
 * Returns 0, or -1 with err naming the file and the place (a bad file),
 * or -2 when memory ran out ("out of memory reading FILE"); the set is
 * then unchanged apart from memory that results_free() releases.
 */
int results_read(struct results *set, const char *path, char *err,
		 size_t errlen);
void results_free(struct results *set);

/*
 * A journal's rows (journal.h) as results_read() would take them: the
 * rows it would refuse are taken out of rows and counted in *nr_refused,
 * so that a damaged line costs only its own repetition and --resume never
 * writes a file that report then refuses. Returns 0, or -1 with err when
 * the context itself is refused or memory ran out.
 */
/*
 * A table key's items beyond the parameters, each after sep for the first
 * and ", " for the next: "placement spread, home node1 (node 1)"; the
 * default placement (compact) only when all (the key itself names it).
 * Returns the length needed, as snprintf() does.
 */
size_t results_place_items(const char *policy, const char *home_policy, int home_node,
			   bool all, const char *sep, char *buf, size_t len);

int results_keep_readable_rows(json_t *context, json_t *rows, const char *path,
				size_t *nr_refused, char *err, size_t errlen);

#endif
