// SPDX-License-Identifier: GPL-2.0-only
/*
 * The rows of other tools, which the report leaves out and `compare`
 * reads: a repetition, with real_time as ns/op, and Google Benchmark's
 * aggregates. Ours are recomputed from the repetitions; another tool's
 * median (or mean) is kept aside and stands for its benchmark only where
 * the file has no repetition of it (--benchmark_report_aggregates_only).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results_read_internal.h"

/* Another tool's repetition: kept for compare, with real_time as ns/op. */
int read_foreign(struct reader *r, json_t *row, struct result_row *out)
{
	static const struct { const char *unit; double ns; } units[] = {
		{ "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 },
	};
	const char *unit = "ns";
	double real_time = 0;

	r->set->files[r->file].nr_foreign++;
	if (reader_integer(r, row, "threads", 1, MAX_THREADS, false, &out->threads) ||
	    reader_number(r, row, "real_time", 0, 1e18, false, &real_time) ||
	    reader_string(r, row, "time_unit", false, &unit))
		return -1;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(unit, units[i].unit))
			continue;
		if (!(real_time > 0))
			return 0;	/* nothing to compare */
		out->ns_per_op = real_time * units[i].ns;
		out->ops_per_s = NAN;
		out->ops = NAN;
		if (read_counters(r, row, -MAX_COUNTER, out) || unique_names(r, out))
			return -1;
		return add_row(r, out);
	}
	return reader_bad(r, "time_unit", json_object_get(row, "time_unit"),
		   "expected ns, us, ms or s");
}

/*
 * Aggregates are recomputed from the repetitions. Another tool's median
 * (or mean) is kept aside: if its file has no repetition of that
 * benchmark, it is all there is to compare (add_missing_aggregates()).
 */
int keep_aggregate(struct reader *r, json_t *row)
{
	const char *kind = json_string_value(json_object_get(row, "aggregate_name"));
	bool median = kind && !strcmp(kind, "median");

	r->set->files[r->file].nr_aggregates++;
	if (json_object_get(row, "bouncelab") || !kind ||
	    (!median && strcmp(kind, "mean")))
		return 0;
	if (grow((void **)&r->candidates, &r->cap_candidates, r->nr_candidates + 1,
		 sizeof(*r->candidates))) {
		reader_out_of_memory(r);
		return -1;
	}
	r->candidates[r->nr_candidates++] = (struct aggregate_candidate){
		row, r->index, median,
	};
	return 0;
}

static int compare_pointers(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t)*(const char *const *)a;
	uintptr_t y = (uintptr_t)*(const char *const *)b;

	return x < y ? -1 : x > y;
}

/*
 * The file's benchmarks that have aggregates and no repetition: their
 * median (or, without one, their mean) becomes their one row, marked as
 * such. Names are unique pointers, so "has a row" is a pointer search.
 */
int add_missing_aggregates(struct reader *r, size_t first_row)
{
	struct results *set = r->set;
	size_t nr_names = set->nr_rows - first_row, i;
	const char **names;
	int ret = 0;

	if (!r->nr_candidates)
		return 0;
	names = malloc((nr_names + r->nr_candidates) * sizeof(*names));
	if (!names) {
		reader_out_of_memory(r);
		return -1;
	}
	for (i = 0; i < nr_names; i++)
		names[i] = set->rows[first_row + i].name;
	/* medians first: a mean stands in only where there is no median */
	for (int pass = 0; pass < 2 && !ret; pass++) {
		qsort(names, nr_names, sizeof(*names), compare_pointers);
		for (size_t k = 0; k < r->nr_candidates && !ret; k++) {
			struct aggregate_candidate *c = &r->candidates[k];
			struct result_row out = { .file = r->file, .source_file = r->file,
						  .threads = 1, .repetition_index = -1 };
			const char *name = NULL;
			size_t before;
			long reps = 0;

			if (c->median != (pass == 0))
				continue;
			r->index = c->index;
			r->row_name = json_string_value(json_object_get(c->row, "name"));
			r->prefix = NULL;
			if (reader_string(r, c->row, "run_name", true, &name) ||
			    reader_integer(r, c->row, "repetitions", 1, MAX_REPETITIONS,
					  false, &reps)) {
				ret = -1;
				break;
			}
			name = unique_string(set, name);
			if (!name) {
				reader_out_of_memory(r);
				ret = -1;
				break;
			}
			if (bsearch(&name, names, nr_names, sizeof(*names), compare_pointers))
				continue;
			out.name = name;
			out.aggregate = c->median ? "median" : "mean";
			out.repetitions = reps;
			before = set->nr_rows;
			if (read_foreign(r, c->row, &out)) {
				ret = -1;
				break;
			}
			set->files[r->file].nr_foreign--;
			if (set->nr_rows > before) {
				set->files[r->file].nr_from_aggregates++;
				names[nr_names++] = name;
			}
		}
	}
	free(names);
	return ret;
}
