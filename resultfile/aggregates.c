// SPDX-License-Identifier: GPL-2.0-only
/*
 * Google Benchmark's aggregate rows beside the repetitions, as its own
 * --benchmark_repetitions run writes them: NAME_mean, NAME_median,
 * NAME_stddev and NAME_cv for each case run more than once, over the
 * repetitions' real_time, cpu_time and every counter. compare.py -a and
 * tools that chart one value per name read these; bouncelab's report
 * ignores them and computes its own statistics from the repetitions.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aggregates.h"
#include "stats.h"

/* A row's keys that are not measured values (everything else numeric is). */
static const char *const fixed_keys[] = {
	"name", "family_index", "per_family_instance_index", "run_name", "run_type",
	"repetitions", "repetition_index", "threads", "iterations", "time_unit",
	"label", "bouncelab", "error_occurred", "error_message", "aggregate_name",
	"aggregate_unit", NULL,
};

static bool is_fixed(const char *key)
{
	for (int i = 0; fixed_keys[i]; i++)
		if (!strcmp(key, fixed_keys[i]))
			return true;
	return false;
}

enum statistic { MEAN, MEDIAN, STDDEV, CV, NR_STATISTICS };

static const char *const statistic_names[NR_STATISTICS] = {
	"mean", "median", "stddev", "cv",
};

static double statistic(enum statistic s, double *values, size_t n)
{
	switch (s) {
	case MEAN:
		return stats_mean(values, n);
	case MEDIAN:
		return stats_median(values, n);
	case STDDEV:
		return stats_stddev(values, n);
	default:
		return stats_cv(values, n);
	}
}

/* A repetition that measured something: ours, not failed, not an aggregate. */
static bool is_repetition(json_t *row)
{
	return json_is_string(json_object_get(row, "run_name")) &&
	       !json_is_true(json_object_get(row, "error_occurred")) &&
	       !json_is_string(json_object_get(row, "aggregate_name")) &&
	       json_is_object(json_object_get(row, "bouncelab"));
}

/* key's values over the repetitions; false if one lacks it as a number. */
static bool gather(json_t *reps, const char *key, double *values)
{
	json_t *row;
	size_t i;

	json_array_foreach(reps, i, row) {
		json_t *v = json_object_get(row, key);

		if (!json_is_number(v))
			return false;
		values[i] = json_number_value(v);
	}
	return true;
}

static json_t *aggregate_row(json_t *reps, enum statistic s, double *values)
{
	json_t *first = json_array_get(reps, 0), *row = json_object(), *v;
	const char *run_name = json_string_value(json_object_get(first, "run_name"));
	size_t n = json_array_size(reps);
	char *name;
	const char *key;

	if (!row || asprintf(&name, "%s_%s", run_name, statistic_names[s]) < 0) {
		json_decref(row);
		return NULL;
	}
	json_object_set_new(row, "name", json_string(name));
	free(name);
	json_object_foreach(first, key, v)
		if (!strcmp(key, "family_index") || !strcmp(key, "per_family_instance_index") ||
		    !strcmp(key, "run_name") || !strcmp(key, "repetitions") ||
		    !strcmp(key, "threads"))
			json_object_set(row, key, v);
	json_object_set_new(row, "run_type", json_string("aggregate"));
	json_object_set_new(row, "aggregate_name", json_string(statistic_names[s]));
	/* Google Benchmark's cv is a fraction it marks as a percentage */
	json_object_set_new(row, "aggregate_unit", json_string(s == CV ? "percentage" : "time"));
	json_object_set_new(row, "iterations", json_integer((json_int_t)n));
	json_object_foreach(first, key, v) {
		if (is_fixed(key) || !json_is_number(v) || !gather(reps, key, values))
			continue;
		json_object_set_new(row, key, json_real(statistic(s, values, n)));
	}
	json_object_set(row, "time_unit", json_object_get(first, "time_unit"));
	json_object_set(row, "bouncelab", json_object_get(first, "bouncelab"));
	return row;
}

json_t *results_with_aggregates(json_t *rows)
{
	json_t *out = json_array(), *by_case = json_object(), *row, *reps;
	double *values = calloc(json_array_size(rows) + 1, sizeof(*values));
	const char *name;
	size_t i;

	if (!out || !by_case || !values || json_array_extend(out, rows))
		goto fail;
	/* the cases in the order of their first repetition */
	json_array_foreach(rows, i, row) {
		if (!is_repetition(row))
			continue;
		name = json_string_value(json_object_get(row, "run_name"));
		reps = json_object_get(by_case, name);
		if (!reps && json_object_set_new(by_case, name, reps = json_array()))
			goto fail;
		if (json_array_append(reps, row))
			goto fail;
	}
	json_object_foreach(by_case, name, reps) {
		/* as Google Benchmark: no aggregates of a single repetition */
		if (json_array_size(reps) < 2)
			continue;
		for (int s = 0; s < NR_STATISTICS; s++)
			if (json_array_append_new(out, aggregate_row(reps, s, values)))
				goto fail;
	}
	json_decref(by_case);
	free(values);
	return out;
fail:
	json_decref(out);
	json_decref(by_case);
	free(values);
	return NULL;
}
