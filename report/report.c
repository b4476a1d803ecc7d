// SPDX-License-Identifier: GPL-2.0-only
/*
 * The report: for each family, the lesson and a table of variant x
 * threads with the median ns/op, Mops/s and the ratio to the best variant
 * at the same thread count. Everything is computed from the per-repetition
 * rows and the harness's own ops and wall_ns counters.
 */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog.h"
#include "output.h"
#include "report.h"
#include "stats.h"

/* One good repetition of one case. */
struct sample {
	const char *family;
	const char *variant;
	char setting[256];	/* parameters and placement, as a table key */
	long threads;
	double ns_per_op;
	double mops;
	json_t *row;		/* for its counters per op */
};

struct samples {
	size_t nr, cap;
	struct sample *s;
	unsigned int errors;
};

static int add_sample(struct samples *all, const struct sample *s)
{
	if (all->nr == all->cap) {
		size_t cap = all->cap ? all->cap * 2 : 256;
		struct sample *n = realloc(all->s, cap * sizeof(*n));

		if (!n)
			return -1;
		all->s = n;
		all->cap = cap;
	}
	all->s[all->nr++] = *s;
	return 0;
}

/* "pin_work=0, flag_line=shared, compact" */
static void describe_setting(json_t *facts, char *buf, size_t len)
{
	json_t *params = json_object_get(facts, "params");
	json_t *placement = json_object_get(facts, "placement");
	const char *key;
	json_t *value;
	size_t used = 0;

	buf[0] = '\0';
	json_object_foreach(params, key, value) {
		if (used >= len)
			break;
		if (json_is_string(value))
			used += (size_t)snprintf(buf + used, len - used, "%s%s=%s",
						 used ? ", " : "", key, json_string_value(value));
		else
			used += (size_t)snprintf(buf + used, len - used, "%s%s=%" JSON_INTEGER_FORMAT,
						 used ? ", " : "", key, json_integer_value(value));
	}
	value = json_object_get(placement, "policy");
	if (json_is_string(value) && used < len)
		snprintf(buf + used, len - used, "%splacement %s", used ? ", " : "",
			 json_string_value(value));
}

static int read_row(const char *file, size_t index, json_t *row,
		    struct samples *all, char *err, size_t errlen)
{
	json_t *facts, *ns, *ops, *wall, *threads, *type;
	struct sample s = { 0 };

	if (!json_is_object(row)) {
		snprintf(err, errlen, "%s: benchmarks[%zu]: expected an object", file, index);
		return -1;
	}
	type = json_object_get(row, "run_type");
	if (json_is_string(type) && strcmp(json_string_value(type), "iteration"))
		return 0;	/* aggregates are recomputed from the repetitions */
	facts = json_object_get(row, "bouncelab");
	if (!facts)
		return 0;	/* not ours: another tool's benchmark */
	if (json_is_true(json_object_get(row, "error_occurred"))) {
		all->errors++;
		return 0;
	}
	ns = json_object_get(row, "ns_per_op");
	ops = json_object_get(row, "ops");
	wall = json_object_get(row, "wall_ns");
	threads = json_object_get(row, "threads");
	if (!json_is_object(facts) ||
	    !json_is_string(json_object_get(facts, "family")) ||
	    !json_is_string(json_object_get(facts, "variant")) ||
	    !json_is_number(ns) || !json_is_number(ops) || !json_is_number(wall) ||
	    !json_is_integer(threads)) {
		snprintf(err, errlen,
			 "%s: benchmarks[%zu]: expected bouncelab.family, bouncelab.variant, threads, ops, wall_ns and ns_per_op",
			 file, index);
		return -1;
	}
	s.family = json_string_value(json_object_get(facts, "family"));
	s.variant = json_string_value(json_object_get(facts, "variant"));
	s.threads = (long)json_integer_value(threads);
	s.ns_per_op = json_number_value(ns);
	if (!isfinite(s.ns_per_op) || s.ns_per_op < 0 || json_number_value(wall) <= 0 ||
	    json_number_value(ops) <= 0 || s.threads < 1) {
		snprintf(err, errlen, "%s: benchmarks[%zu]: expected positive ns_per_op, ops, wall_ns and threads",
			 file, index);
		return -1;
	}
	s.mops = json_number_value(ops) / json_number_value(wall) * 1e3;
	s.row = row;
	describe_setting(facts, s.setting, sizeof(s.setting));
	if (add_sample(all, &s)) {
		snprintf(err, errlen, "out of memory reading %s", file);
		return -1;
	}
	return 0;
}

static json_t *load_results(const char *file, struct samples *all, char *err,
			    size_t errlen)
{
	json_error_t jerr;
	json_t *doc = json_load_file(file, JSON_REJECT_DUPLICATES, &jerr);
	json_t *rows, *row;
	size_t i;

	if (!doc) {
		if (jerr.line > 0)
			snprintf(err, errlen, "%s:%d:%d: %s", file, jerr.line,
				 jerr.column, jerr.text);
		else
			snprintf(err, errlen, "%s: %s", file, jerr.text);
		return NULL;
	}
	rows = json_object_get(doc, "benchmarks");
	if (!json_is_object(doc) || !json_is_object(json_object_get(doc, "context")) ||
	    !json_is_array(rows)) {
		snprintf(err, errlen, "%s: expected Google Benchmark JSON with \"context\" and \"benchmarks\"",
			 file);
		json_decref(doc);
		return NULL;
	}
	json_array_foreach(rows, i, row) {
		if (read_row(file, i, row, all, err, errlen)) {
			json_decref(doc);
			return NULL;
		}
	}
	return doc;
}

static bool seen_before(const struct samples *all, size_t i,
			bool (*same)(const struct sample *, const struct sample *))
{
	for (size_t k = 0; k < i; k++)
		if (same(&all->s[k], &all->s[i]))
			return true;
	return false;
}

static bool same_family(const struct sample *a, const struct sample *b)
{
	return !strcmp(a->family, b->family);
}

static bool same_setting(const struct sample *a, const struct sample *b)
{
	return same_family(a, b) && !strcmp(a->setting, b->setting);
}

static bool same_threads(const struct sample *a, const struct sample *b)
{
	return same_setting(a, b) && a->threads == b->threads;
}

static bool same_case(const struct sample *a, const struct sample *b)
{
	return same_threads(a, b) && !strcmp(a->variant, b->variant);
}

/* Median ns/op and Mops/s of every sample in the same case as all->s[i]. */
static unsigned int case_medians(const struct samples *all, size_t i,
				 double *ns, double *mops)
{
	double *a = malloc(all->nr * sizeof(double));
	double *b = malloc(all->nr * sizeof(double));
	unsigned int n = 0;

	if (!a || !b) {
		free(a);
		free(b);
		return 0;
	}
	for (size_t k = 0; k < all->nr; k++) {
		if (same_case(&all->s[k], &all->s[i])) {
			a[n] = all->s[k].ns_per_op;
			b[n] = all->s[k].mops;
			n++;
		}
	}
	*ns = stats_median(a, n);
	*mops = stats_median(b, n);
	free(a);
	free(b);
	return n;
}

/* The fastest median ns/op at this setting and thread count. */
static double best_at(const struct samples *all, size_t i)
{
	double best = INFINITY, ns, mops;

	for (size_t k = 0; k < all->nr; k++) {
		if (!same_threads(&all->s[k], &all->s[i]) ||
		    seen_before(all, k, same_case))
			continue;
		case_medians(all, k, &ns, &mops);
		if (ns < best)
			best = ns;
	}
	return best;
}

#define MAX_COUNTER_COLUMNS 12

/* hitm_per_op, page_faults_per_op, ...: the harness's counters per op. */
static bool is_counter_column(const char *key)
{
	size_t len = strlen(key);

	return (len > 7 && !strcmp(key + len - 7, "_per_op") &&
		strcmp(key, "ns_per_op")) ||
	       !strcmp(key, "counters_running_fraction");
}

static unsigned int counter_columns(const struct samples *all, size_t first,
				    const char **keys)
{
	unsigned int n = 0;

	for (size_t i = first; i < all->nr; i++) {
		const char *key;
		json_t *value;

		if (!same_setting(&all->s[i], &all->s[first]))
			continue;
		json_object_foreach(all->s[i].row, key, value) {
			unsigned int k;

			if (!is_counter_column(key) || !json_is_number(value))
				continue;
			for (k = 0; k < n && strcmp(keys[k], key); k++)
				;
			if (k == n && n < MAX_COUNTER_COLUMNS)
				keys[n++] = key;
		}
	}
	return n;
}

/* Median of one counter over the case's repetitions that have it. */
static double case_counter_median(const struct samples *all, size_t i,
				  const char *key)
{
	double *v = malloc(all->nr * sizeof(double));
	unsigned int n = 0;
	double median;

	if (!v)
		return NAN;
	for (size_t k = 0; k < all->nr; k++) {
		json_t *value = json_object_get(all->s[k].row, key);

		if (same_case(&all->s[k], &all->s[i]) && json_is_number(value))
			v[n++] = json_number_value(value);
	}
	median = n ? stats_median(v, n) : NAN;
	free(v);
	return median;
}

static void write_table(FILE *md, const struct samples *all, size_t first)
{
	const char *keys[MAX_COUNTER_COLUMNS];
	unsigned int nr_keys = counter_columns(all, first, keys);

	fprintf(md, "| variant | threads | median ns/op | Mops/s | vs best | repetitions |");
	for (unsigned int k = 0; k < nr_keys; k++)
		fprintf(md, " %s |", keys[k]);
	fprintf(md, "\n|---|---:|---:|---:|---:|---:|");
	for (unsigned int k = 0; k < nr_keys; k++)
		fprintf(md, "---:|");
	fprintf(md, "\n");
	for (size_t i = first; i < all->nr; i++) {
		double ns, mops, best;
		unsigned int n;

		if (!same_setting(&all->s[i], &all->s[first]) ||
		    seen_before(all, i, same_case))
			continue;
		n = case_medians(all, i, &ns, &mops);
		best = best_at(all, i);
		fprintf(md, "| %s | %ld | %.2f | %.1f | %.2fx | %u |",
			all->s[i].variant, all->s[i].threads, ns, mops,
			best > 0 ? ns / best : 1.0, n);
		for (unsigned int k = 0; k < nr_keys; k++)
			fprintf(md, " %.4g |", case_counter_median(all, i, keys[k]));
		fprintf(md, "\n");
	}
	fprintf(md, "\n");
}

static void write_family(FILE *md, const struct samples *all, size_t first)
{
	const struct kernel_family *f = catalog_find(all->s[first].family);

	fprintf(md, "## %s\n\n", all->s[first].family);
	if (f) {
		fprintf(md, "**%s.** %s\n\n", f->title, f->lesson);
		fprintf(md, "Before:\n\n```c\n%s\n```\n\nAfter:\n\n```c\n%s\n```\n\n",
			f->before, f->after);
		fprintf(md, "Source: %s.\n\n", f->source);
	}
	for (size_t i = first; i < all->nr; i++) {
		if (!same_family(&all->s[i], &all->s[first]) ||
		    seen_before(all, i, same_setting))
			continue;
		fprintf(md, "### %s\n\n", all->s[i].setting[0] ? all->s[i].setting : "defaults");
		write_table(md, all, i);
	}
}

/* "counters: coherence (HITM) | n/a (no hardware PMU)", one row a set. */
static void write_counter_sets(FILE *md, json_t *counters)
{
	json_t *set;
	const char *name;

	json_object_foreach(json_object_get(counters, "sets"), name, set) {
		json_t *label = json_object_get(set, "label");
		json_t *summary = json_object_get(set, "summary");

		fprintf(md, "| counters: %s%s%s%s | %s |\n", name,
			json_is_string(label) ? " (" : "",
			json_is_string(label) ? json_string_value(label) : "",
			json_is_string(label) ? ")" : "",
			json_is_string(summary) ? json_string_value(summary) : "?");
	}
}

static void write_environment(FILE *md, json_t *doc, const char *file)
{
	static const char *const keys[] = {
		"cpu_model", "num_cpus", "mhz_per_cpu", "hypervisor", "kernel_release",
		"compiler", "build_type", "gbench_version", "library_build_type",
		"governor", "bouncelab_version", "date", "host_name", "incomplete",
	};
	json_t *ctx = json_object_get(doc, "context");

	fprintf(md, "## Environment: %s\n\n| | |\n|---|---|\n", file);
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		json_t *v = json_object_get(ctx, keys[i]);
		char *text;

		if (!v)
			continue;
		text = json_is_string(v) ? strdup(json_string_value(v)) :
					   json_dumps(v, JSON_ENCODE_ANY);
		fprintf(md, "| %s | %s |\n", keys[i], text ? text : "?");
		free(text);
	}
	write_counter_sets(md, json_object_get(ctx, "counters"));
	fprintf(md, "\n");
}

int report_generate(const char *const *files, unsigned int nr_files,
		    const char *outdir, char *err, size_t errlen)
{
	struct samples all = { 0 };
	json_t **docs = calloc(nr_files, sizeof(*docs));
	char *text = NULL;
	size_t len = 0;
	char path[4096];
	FILE *md;
	int ret = 0;

	if (!docs) {
		snprintf(err, errlen, "out of memory");
		return 1;
	}
	for (unsigned int i = 0; i < nr_files && !ret; i++) {
		docs[i] = load_results(files[i], &all, err, errlen);
		if (!docs[i])
			ret = 2;
	}
	if (!ret && output_make_dirs(outdir, err, errlen))
		ret = 1;
	md = ret ? NULL : open_memstream(&text, &len);
	if (!ret && !md) {
		snprintf(err, errlen, "out of memory");
		ret = 1;
	}
	if (md) {
		fprintf(md, "# bouncelab report\n\n");
		for (unsigned int i = 0; i < nr_files; i++)
			write_environment(md, docs[i], files[i]);
		if (all.errors)
			fprintf(md, "**%u repetitions failed** and are left out; the results file has their error messages.\n\n",
				all.errors);
		for (size_t i = 0; i < all.nr; i++)
			if (!seen_before(&all, i, same_family))
				write_family(md, &all, i);
		fclose(md);
		snprintf(path, sizeof(path), "%s/report.md", outdir);
		if (output_write_file(path, text, len, err, errlen))
			ret = 1;
	}
	free(text);
	for (unsigned int i = 0; i < nr_files; i++)
		json_decref(docs[i]);
	free(docs);
	free(all.s);
	return ret;
}
