// SPDX-License-Identifier: GPL-2.0-only
/*
 * Reading results files: Google Benchmark's JSON, ours and other tools',
 * every field checked where it is read (one line naming the value and
 * what was expected), into one set of rows. One concern, kept in one file
 * because every check shares the reader's place in the document for its
 * message (about 1200 lines).
 */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "input_file.h"
#include "journal.h"
#include "kernel.h"
#include "json_region.h"
#include "results_read.h"

/*
 * Sane ranges. Anything outside is a corrupt or hand-edited file, not a
 * measurement: one operation takes more than a picosecond-scale loop and
 * less than an hour; a repetition lasts less than 11 days.
 */
#define MAX_THREADS (1L << 20)
#define MIN_NS_PER_OP 1e-6
#define MAX_NS_PER_OP 3.6e12
#define MAX_OPS 1e19
#define MAX_WALL_NS 1e15
#define MAX_COUNTER 1e18
#define MAX_REPETITIONS 1000000L
#define MAX_CACHE_LEVEL 4
#define MAX_CACHE_BYTES (1L << 40)	/* 1 TiB: no cache is near */
/* 60,000 repetitions are a 52 MB file: a results file 20 times that is not one. */
#define RESULTS_MAX_BYTES (1UL << 30)

/* An aggregate row kept in case its benchmark has no repetition rows. */
struct aggregate_candidate {
	json_t *row;
	size_t index;
	bool median;
};

struct reader {
	struct results *set;
	const char *path;
	unsigned int file;
	size_t index;		/* of the row being read */
	const char *array;	/* that holds it: "benchmarks", "failed_repetitions" */
	const char *row_name;
	const char *prefix;	/* of field names: "context.", "bouncelab." */
	char *err;
	size_t errlen;
	struct aggregate_candidate *candidates;
	size_t nr_candidates, cap_candidates;
	bool out_of_memory;	/* err says so: not a bad file */
};

/*
 * Google Benchmark's own row keys: never user counters. Sorted (strcmp
 * order) for bsearch: every key of every row is looked up here.
 */
static const char *const gbench_row_keys[] = {
	"aggregate_name", "aggregate_unit", "big_o", "bouncelab", "cpu_coefficient",
	"cpu_time", "error_message", "error_occurred", "family_index",
	"iterations", "label", "name", "ns_per_op", "ops",
	"per_family_instance_index", "real_coefficient", "real_time",
	"repetition_index", "repetitions", "rms", "run_name", "run_type",
	"skip_message", "skipped", "threads", "time_unit", "wall_ns",
	/* ops, wall_ns, ns_per_op: the harness's, reported as ns/op and ops/s */
};

static int compare_key(const void *key, const void *entry)
{
	return strcmp(key, *(const char *const *)entry);
}

static bool is_gbench_key(const char *key)
{
	return bsearch(key, gbench_row_keys,
		       sizeof(gbench_row_keys) / sizeof(gbench_row_keys[0]),
		       sizeof(gbench_row_keys[0]), compare_key) != NULL;
}

static int grow(void **array, size_t *cap, size_t need, size_t size)
{
	size_t cap_new;
	void *p;

	if (need <= *cap)
		return 0;
	cap_new = *cap ? *cap * 2 : 64;
	while (cap_new < need)
		cap_new *= 2;
	p = realloc(*array, cap_new * size);
	if (!p)
		return -1;
	*array = p;
	*cap = cap_new;
	return 0;
}

/* A short description of what a value is, for error messages. */
static void describe(const json_t *v, char *buf, size_t len)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT:
		snprintf(buf, len, "an object");
		break;
	case JSON_ARRAY:
		snprintf(buf, len, "an array");
		break;
	case JSON_STRING:
		snprintf(buf, len, "the string \"%.40s%s\"", json_string_value(v),
			 strlen(json_string_value(v)) > 40 ? "..." : "");
		break;
	case JSON_INTEGER:
		snprintf(buf, len, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
		break;
	case JSON_REAL:
		snprintf(buf, len, "%g", json_real_value(v));
		break;
	case JSON_TRUE:
		snprintf(buf, len, "true");
		break;
	case JSON_FALSE:
		snprintf(buf, len, "false");
		break;
	default:
		snprintf(buf, len, "null");
		break;
	}
}

/* "FILE: benchmarks[3] (name): FIELD: MESSAGE, found VALUE"; returns -1. */
static int bad(struct reader *r, const char *field, const json_t *found,
	       const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static int bad(struct reader *r, const char *field, const json_t *found,
	       const char *fmt, ...)
{
	char where[160] = "", what[256], value[80] = "nothing";
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (found)
		describe(found, value, sizeof(value));
	if (r->row_name)
		snprintf(where, sizeof(where), "%s[%zu] (%.100s): ",
			 r->array, r->index, r->row_name);
	else if (r->index != (size_t)-1)
		snprintf(where, sizeof(where), "%s[%zu]: ", r->array, r->index);
	snprintf(r->err, r->errlen, "%s: %s%s%s%s%s, found %s", r->path, where,
		 r->prefix ? r->prefix : "", field, *field ? ": " : "", what, value);
	return -1;
}

static int check_string(struct reader *r, json_t *obj, const char *key,
			bool required, const char **out)
{
	json_t *v = json_object_get(obj, key);

	if (!v && !required)
		return 0;
	if (!json_is_string(v) || (required && !*json_string_value(v)))
		return bad(r, key, v, "expected a%s string", required ? " non-empty" : "");
	if (out)
		*out = json_string_value(v);
	return 0;
}

/*
 * The catalogue's character sets. A name from a file reaches markdown,
 * SVG, CSV file names and shell lines: one outside them (a backtick, a
 * tag, a newline) is refused when read, not escaped in every place.
 */
static const char NAME_CHARS[] =
	"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_";
static const char VALUE_CHARS[] =
	"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.+-";
static const char POLICY_CHARS[] =
	"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_:,-";

static int check_charset(struct reader *r, const char *field, const json_t *v,
			 const char *text, const char *allowed)
{
	if (!text || strspn(text, allowed) == strlen(text))
		return 0;
	return bad(r, field, v, "expected %s", allowed == NAME_CHARS ?
		   "a name of letters, digits and _ (as in the catalogue)" :
		   allowed == VALUE_CHARS ? "a value of letters, digits, _, ., + and -" :
		   "a policy of letters, digits, _, :, comma and -");
}

static int check_bool(struct reader *r, json_t *obj, const char *key)
{
	json_t *v = json_object_get(obj, key);

	if (v && !json_is_boolean(v))
		return bad(r, key, v, "expected true or false");
	return 0;
}

static int check_integer(struct reader *r, json_t *obj, const char *key,
			 long min, long max, bool required, long *out)
{
	json_t *v = json_object_get(obj, key);

	if (!v && !required)
		return 0;
	if (!json_is_integer(v) || json_integer_value(v) < min ||
	    json_integer_value(v) > max)
		return bad(r, key, v, "expected an integer from %ld to %ld", min, max);
	if (out)
		*out = (long)json_integer_value(v);
	return 0;
}

static int check_number(struct reader *r, json_t *obj, const char *key,
			double min, double max, bool required, double *out)
{
	json_t *v = json_object_get(obj, key);
	double d;

	if (!v && !required)
		return 0;
	d = json_number_value(v);
	if (!json_is_number(v) || !isfinite(d) || d < min || d > max)
		return bad(r, key, v, "expected a number from %g to %g", min, max);
	if (out)
		*out = d;
	return 0;
}

/* The file was written by `bouncelab run`, which runs in rounds (cmd_run.c). */
static bool ran_in_rounds(json_t *ctx)
{
	const char *command = json_string_value(json_object_get(ctx, "command"));

	return json_is_string(json_object_get(ctx, "bouncelab_version")) && command &&
	       (!strcmp(command, "bouncelab run") || !strncmp(command, "bouncelab run ", 14));
}

/*
 * context.cpu into the file's struct: each field typed and within what
 * its register field can hold (family: base 0xF plus an 8-bit extension).
 */
static int read_cpu(struct reader *r, json_t *ctx, struct result_cpu *cpu)
{
	static const struct {
		const char *key;
		long max;
		size_t offset;
	} numbers[] = {
		{ "family", 0xf + 0xff, offsetof(struct result_cpu, family) },
		{ "model", 0xff, offsetof(struct result_cpu, model) },
		{ "stepping", 0xf, offsetof(struct result_cpu, stepping) },
		{ "implementer", 0xff, offsetof(struct result_cpu, implementer) },
		{ "part", 0xfff, offsetof(struct result_cpu, part) },
		{ "variant", 0xf, offsetof(struct result_cpu, variant) },
		{ "revision", 0xf, offsetof(struct result_cpu, revision) },
	};
	json_t *obj = json_object_get(ctx, "cpu");

	*cpu = (struct result_cpu){ .family = -1, .model = -1, .stepping = -1,
		.implementer = -1, .part = -1, .variant = -1, .revision = -1 };
	if (!obj)
		return 0;
	if (!json_is_object(obj))
		return bad(r, "cpu", obj, "expected an object");
	r->prefix = "context.cpu.";
	if (check_string(r, obj, "vendor", true, &cpu->vendor) ||
	    check_string(r, obj, "microarchitecture", false, &cpu->microarchitecture) ||
	    check_string(r, obj, "signature", false, NULL))
		return -1;
	for (size_t i = 0; i < sizeof(numbers) / sizeof(numbers[0]); i++)
		if (check_integer(r, obj, numbers[i].key, 0, numbers[i].max, false,
				  (long *)((char *)cpu + numbers[i].offset)))
			return -1;
	r->prefix = "context.";
	cpu->recorded = true;
	return 0;
}

static char *keep_string(struct results *set, char *s);

/* Memory the set frees with its strings (results_free()), or NULL. */
static void *keep_array(struct reader *r, size_t nr, size_t size)
{
	void *p = nr ? calloc(nr, size) : NULL;

	if (nr && (!p || !keep_string(r->set, p))) {
		snprintf(r->err, r->errlen, "out of memory reading %s", r->path);
		r->out_of_memory = true;
		return NULL;
	}
	return p;
}

/* A string the report prints if it is one; anything else reads as absent. */
static const char *string_or_null(json_t *obj, const char *key)
{
	return json_string_value(json_object_get(obj, key));
}

/* "l3": [0, 1], the example pair of a class; -1 where it is not a CPU number. */
static void read_class(struct run_class *c, const char *name, json_t *pair)
{
	json_t *a = json_array_get(pair, 0), *b = json_array_get(pair, 1);

	c->name = name;
	c->cpu_a = c->cpu_b = -1;
	if (json_array_size(pair) == 2) {
		c->cpu_a = json_is_integer(a) ? (long)json_integer_value(a) : 0;
		c->cpu_b = json_is_integer(b) ? (long)json_integer_value(b) : 0;
	}
}

/*
 * context.topology: its counts checked where read (the report prints
 * them); a build without hwloc knows no NUMA nodes and writes 0.
 */
static int read_topology(struct reader *r, json_t *obj, struct run_topology *topo)
{
	json_t *classes = json_object_get(obj, "classes"), *pair;
	const char *name;
	size_t i = 0;
	int ret;

	topo->recorded = true;
	topo->as_recorded = obj;
	topo->summary = string_or_null(obj, "summary");
	topo->source = string_or_null(obj, "source");
	topo->allowed_cpus = string_or_null(obj, "allowed_cpus");
	r->prefix = "context.topology.";
	ret = check_integer(r, obj, "nr_allowed_cpus", 1, MAX_THREADS, false,
			    &topo->nr_allowed_cpus) ||
	      check_integer(r, obj, "numa_nodes", 0, MAX_THREADS, false, &topo->numa_nodes);
	r->prefix = "context.";
	if (ret)
		return -1;
	if (!json_is_object(classes))
		return 0;
	topo->has_classes = true;
	topo->classes = keep_array(r, json_object_size(classes), sizeof(*topo->classes));
	if (json_object_size(classes) && !topo->classes)
		return -1;
	json_object_foreach(classes, name, pair)
		read_class(&topo->classes[i++], name, pair);
	topo->nr_classes = i;
	return 0;
}

/* Google Benchmark's caches: a level, a size and a count of CPUs each. */
static int read_caches(struct reader *r, json_t *caches, struct run_context *run)
{
	char prefix[48];
	json_t *c;
	size_t i;
	int ret = 0;

	run->caches = keep_array(r, json_array_size(caches), sizeof(*run->caches));
	if (json_array_size(caches) && !run->caches)
		return -1;
	json_array_foreach(caches, i, c) {
		struct run_cache *cache = &run->caches[i];

		*cache = (struct run_cache){ .level = -1, .size = -1, .num_sharing = -1 };
		snprintf(prefix, sizeof(prefix), "context.caches[%zu].", i);
		r->prefix = prefix;
		if (!json_is_object(c))
			ret = bad(r, "", c, "expected an object");
		else
			ret = check_integer(r, c, "level", 1, MAX_CACHE_LEVEL, false, &cache->level) ||
			      check_integer(r, c, "size", 0, MAX_CACHE_BYTES, false, &cache->size) ||
			      check_integer(r, c, "num_sharing", 0, MAX_THREADS, false,
					    &cache->num_sharing);
		if (ret)
			break;
		cache->type = string_or_null(c, "type");
	}
	run->nr_caches = i;
	r->prefix = "context.";
	return ret ? -1 : 0;
}

/*
 * context.counters: the sets asked for with what became of each, and
 * the counters the rows lack with why (results.h).
 */
static int read_context_counters(struct reader *r, json_t *obj, struct run_counters *counters)
{
	json_t *sets = json_object_get(obj, "sets"), *na = json_object_get(obj, "na");
	json_t *paranoid = json_object_get(obj, "perf_event_paranoid"), *v;
	const char *name;
	size_t i = 0;

	counters->recorded = true;
	counters->as_recorded = obj;
	counters->core_pmu = string_or_null(obj, "core_pmu");
	counters->perf_event_paranoid = json_is_integer(paranoid) ?
					(long)json_integer_value(paranoid) : LONG_MIN;
	if (json_is_object(sets)) {
		counters->has_sets = true;
		counters->sets = keep_array(r, json_object_size(sets), sizeof(*counters->sets));
		if (json_object_size(sets) && !counters->sets)
			return -1;
		json_object_foreach(sets, name, v) {
			struct run_counter_set *set = &counters->sets[i++];

			set->name = name;
			set->label = string_or_null(v, "label");
			if (!set->label)
				set->label = string_or_null(v, "title");
			set->summary = string_or_null(v, "summary");
		}
		counters->nr_sets = i;
	}
	if (!json_is_object(na))
		return 0;
	counters->na = keep_array(r, json_object_size(na), sizeof(*counters->na));
	if (json_object_size(na) && !counters->na)
		return -1;
	i = 0;
	json_object_foreach(na, name, v)
		counters->na[i++] = (struct run_counter_na){ name, json_string_value(v) };
	counters->nr_na = i;
	return 0;
}

/* context.load_avg: Linux's 1, 5 and 15 minute load averages. */
static int read_load_avg(struct reader *r, json_t *load, struct run_context *run)
{
	json_t *v;
	size_t i;

	if (!json_is_array(load))
		return bad(r, "load_avg", load, "expected an array");
	run->load_avg_recorded = true;
	json_array_foreach(load, i, v) {
		double d = json_number_value(v);

		if (!json_is_number(v) || !isfinite(d) || d < 0 || d > 1e6) {
			r->index = (size_t)-1;
			return bad(r, "load_avg", v, "expected load averages from 0 to 1e+06");
		}
		if (i < RUN_LOAD_AVG_MAX)
			run->load_avg[run->nr_load_avg++] = d;
	}
	return 0;
}

/* The context's strings, each where struct run_context keeps it. */
static const struct {
	const char *key;
	size_t offset;
} context_strings[] = {
#define CONTEXT_STRING(field) { #field, offsetof(struct run_context, field) }
	CONTEXT_STRING(date), CONTEXT_STRING(host_name), CONTEXT_STRING(executable),
	CONTEXT_STRING(library_build_type), CONTEXT_STRING(bouncelab_version),
	CONTEXT_STRING(bouncelab_revision), CONTEXT_STRING(cpu_model),
	CONTEXT_STRING(kernel_release), CONTEXT_STRING(compiler), CONTEXT_STRING(build_type),
	CONTEXT_STRING(gbench_version), CONTEXT_STRING(governor), CONTEXT_STRING(command),
	CONTEXT_STRING(run_id), CONTEXT_STRING(arch),
#undef CONTEXT_STRING
};

/* context.slurm: each fact a string where present. */
static int read_slurm(struct reader *r, json_t *obj, struct run_slurm *slurm)
{
	static const struct {
		const char *key;
		size_t offset;
	} facts[] = {
#define SLURM_FACT(field) { #field, offsetof(struct run_slurm, field) }
		SLURM_FACT(job_id), SLURM_FACT(array_job_id), SLURM_FACT(array_task_id),
		SLURM_FACT(cluster_name), SLURM_FACT(node_list), SLURM_FACT(partition),
#undef SLURM_FACT
	};

	r->prefix = "context.slurm.";
	for (size_t i = 0; i < sizeof(facts) / sizeof(facts[0]); i++)
		if (check_string(r, obj, facts[i].key, false,
				 (const char **)((char *)slurm + facts[i].offset)))
			return -1;
	r->prefix = "context.";
	return 0;
}

/*
 * The context into the file's struct run_context: bouncelab's and Google
 * Benchmark's known keys, typed and checked where read, once.
 */
static int read_context(struct reader *r, json_t *ctx)
{
	struct run_context *run = &r->set->files[r->file].run;
	json_t *v;

	*run = (struct run_context){ .hypervisor = -1, .build_ended_s_before = -1,
		.mhz_per_cpu = NAN, .cold_miss_ns = NAN, .cpu_share = NAN,
		.topology = { .nr_allowed_cpus = -1, .numa_nodes = -1 },
		.counters = { .perf_event_paranoid = LONG_MIN } };
	r->prefix = "context.";
	for (size_t i = 0; i < sizeof(context_strings) / sizeof(context_strings[0]); i++)
		if (check_string(r, ctx, context_strings[i].key, false,
				 (const char **)((char *)run + context_strings[i].offset)))
			return -1;
	if (check_integer(r, ctx, "num_cpus", 1, MAX_THREADS, false, &run->num_cpus) ||
	    check_number(r, ctx, "mhz_per_cpu", 0, 1e6, false, &run->mhz_per_cpu) ||
	    check_number(r, ctx, "cold_miss_ns", 0, 1e6, false, &run->cold_miss_ns) ||
	    check_number(r, ctx, "cpu_share", 0, 1, false, &run->cpu_share) ||
	    check_bool(r, ctx, "hypervisor") ||
	    check_bool(r, ctx, "cpu_scaling_enabled"))
		return -1;
	v = json_object_get(ctx, "hypervisor");
	run->hypervisor = v ? json_is_true(v) : -1;
	run->cpu_scaling_enabled = json_is_true(json_object_get(ctx, "cpu_scaling_enabled"));
	v = json_object_get(ctx, "build_ended_s_before");
	if (json_is_integer(v) && json_integer_value(v) >= 0)
		run->build_ended_s_before = (long)json_integer_value(v);
	v = json_object_get(ctx, "incomplete");
	if (v && !json_is_string(v) && !json_is_boolean(v))
		return bad(r, "incomplete", v, "expected a string saying why, or a boolean");
	if (json_is_string(v))
		run->incomplete = json_string_value(v);
	else if (json_is_true(v))
		run->incomplete = "";
	v = json_object_get(ctx, "topology");
	if (v && !json_is_object(v))
		return bad(r, "topology", v, "expected an object");
	if (v && read_topology(r, v, &run->topology))
		return -1;
	run->allowed_cpus = run->topology.nr_allowed_cpus > 0 ?
			    run->topology.nr_allowed_cpus : run->num_cpus;
	v = json_object_get(ctx, "counters");
	if (v && !json_is_object(v))
		return bad(r, "counters", v, "expected an object");
	if (v && read_context_counters(r, v, &run->counters))
		return -1;
	v = json_object_get(ctx, "caches");
	if (v && !json_is_array(v))
		return bad(r, "caches", v, "expected an array");
	if (v && read_caches(r, v, run))
		return -1;
	v = json_object_get(ctx, "load_avg");
	if (v && read_load_avg(r, v, run))
		return -1;
	v = json_object_get(ctx, "slurm");
	if (v && !json_is_object(v))
		return bad(r, "slurm", v, "expected an object");
	if (v && read_slurm(r, v, &run->slurm))
		return -1;
	if (read_cpu(r, ctx, &run->cpu))
		return -1;
	r->prefix = NULL;
	return 0;
}

static size_t string_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;	/* FNV-1a */

	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 0x100000001b3ULL;
	}
	return (size_t)h;
}

/* The set's slot for s: the equal string's, or the empty one to fill. */
static const char **unique_slot(struct results *set, const char *s)
{
	size_t mask = set->cap_unique - 1, i = string_hash(s) & mask;

	while (set->unique[i] && strcmp(set->unique[i], s))
		i = (i + 1) & mask;
	return &set->unique[i];
}

/*
 * The one pointer for text equal to s: an earlier equal string, or s
 * itself (which must live as long as the set); NULL when out of memory.
 */
static const char *unique_string(struct results *set, const char *s)
{
	const char **slot;

	if (!s)
		return NULL;
	if (2 * (set->nr_unique + 1) > set->cap_unique) {
		size_t cap = set->cap_unique ? 2 * set->cap_unique : 256;
		const char **old = set->unique, **grown = calloc(cap, sizeof(*grown));
		size_t old_cap = set->cap_unique;

		if (!grown)
			return NULL;
		set->unique = grown;
		set->cap_unique = cap;
		for (size_t i = 0; i < old_cap; i++)
			if (old[i])
				*unique_slot(set, old[i]) = old[i];
		free(old);
	}
	slot = unique_slot(set, s);
	if (!*slot) {
		*slot = s;
		set->nr_unique++;
	}
	return *slot;
}

static char *keep_string(struct results *set, char *s)
{
	if (!s || grow((void **)&set->strings, &set->cap_strings,
		       set->nr_strings + 1, sizeof(char *))) {
		free(s);
		return NULL;
	}
	set->strings[set->nr_strings++] = s;
	return s;
}

/* "pin_work=1, flag_line=shared, placement compact" */
static int describe_setting(struct reader *r, json_t *facts,
			    struct result_row *row)
{
	json_t *params = json_object_get(facts, "params");
	char buf[1024];
	size_t used = 0;
	const char *key;
	json_t *value;

	buf[0] = '\0';
	json_object_foreach(params, key, value) {
		char text[128];

		if (check_charset(r, "params", value, key, NAME_CHARS) ||
		    (json_is_string(value) &&
		     check_charset(r, key, value, json_string_value(value), VALUE_CHARS)))
			return -1;
		if (json_is_string(value))
			snprintf(text, sizeof(text), "%s", json_string_value(value));
		else if (json_is_integer(value))
			snprintf(text, sizeof(text), "%" JSON_INTEGER_FORMAT,
				 json_integer_value(value));
		else if (json_is_real(value) && isfinite(json_real_value(value)))
			snprintf(text, sizeof(text), "%g", json_real_value(value));
		else if (json_is_boolean(value))
			snprintf(text, sizeof(text), "%s", json_is_true(value) ? "true" : "false");
		else
			return bad(r, "params", value,
				   "expected parameter '%.60s' to be a string, number or boolean", key);
		/* Past the end, even by a zero-length write, is undefined. */
		if (used < sizeof(buf))
			used += (size_t)snprintf(buf + used, sizeof(buf) - used, "%s%s=%s",
						 used ? ", " : "", key, text);
	}
	if (row->policy && used < sizeof(buf))
		used += (size_t)snprintf(buf + used, sizeof(buf) - used, "%splacement %s",
					 used ? ", " : "", row->policy);
	/* A home asked for is a table of its own, headed by where it was. */
	if (row->home_policy && strcmp(row->home_policy, "default") &&
	    used < sizeof(buf)) {
		used += (size_t)snprintf(buf + used, sizeof(buf) - used, "%shome %s",
					 used ? ", " : "", row->home_policy);
		if (row->home_node >= 0 && used < sizeof(buf))
			snprintf(buf + used, sizeof(buf) - used, " (node %d)",
				 row->home_node);
	}
	/* Most rows repeat an earlier row's setting: one copy each. */
	row->setting = r->set->cap_unique ? *unique_slot(r->set, buf) : NULL;
	if (!row->setting)
		row->setting = unique_string(r->set, keep_string(r->set, strdup(buf)));
	if (!row->setting) {
		snprintf(r->err, r->errlen, "out of memory reading %s", r->path);
		return -1;
	}
	return 0;
}

static int check_placement(struct reader *r, json_t *facts,
			   struct result_row *row)
{
	json_t *pl = json_object_get(facts, "placement");
	json_t *cpus, *cpu, *dist;
	size_t i;

	if (!pl)
		return 0;
	if (!json_is_object(pl))
		return bad(r, "placement", pl, "expected an object");
	r->prefix = "bouncelab.placement.";
	if (check_string(r, pl, "policy", false, &row->policy) ||
	    check_string(r, pl, "widest_class", false, &row->widest_class) ||
	    check_charset(r, "policy", json_object_get(pl, "policy"), row->policy,
			  POLICY_CHARS) ||
	    check_charset(r, "widest_class", json_object_get(pl, "widest_class"),
			  row->widest_class, NAME_CHARS))
		return -1;
	cpus = json_object_get(pl, "cpus");
	if (cpus && !json_is_array(cpus))
		return bad(r, "cpus", cpus, "expected an array of CPU numbers");
	json_array_foreach(cpus, i, cpu)
		if (!json_is_integer(cpu) || json_integer_value(cpu) < 0 ||
		    json_integer_value(cpu) >= MAX_THREADS)
			return bad(r, "cpus", cpu, "expected CPU numbers from 0 to %ld",
				   MAX_THREADS - 1);
	dist = json_object_get(pl, "numa_distance");
	if (dist && !json_is_null(dist) &&
	    (!json_is_integer(dist) || json_integer_value(dist) < 0 ||
	     json_integer_value(dist) > 10000))
		return bad(r, "numa_distance", dist,
			   "expected null or an integer from 0 to 10000");
	r->prefix = "bouncelab.";
	return 0;
}

static int read_home_number(struct reader *r, json_t *home, const char *key,
			    int *out)
{
	json_t *v = json_object_get(home, key);

	*out = -1;
	if (!v || json_is_null(v))
		return 0;
	if (!json_is_integer(v) || json_integer_value(v) < 0 ||
	    json_integer_value(v) > MAX_THREADS)
		return bad(r, key, v, "expected null or an integer from 0 to %ld",
			   MAX_THREADS);
	*out = (int)json_integer_value(v);
	return 0;
}

/* bouncelab.home: absent in files from before homes were recorded. */
static int check_home(struct reader *r, json_t *facts, struct result_row *row)
{
	json_t *home = json_object_get(facts, "home");

	row->home_policy = NULL;
	row->home_node = -1;
	row->home_threads_away = -1;
	if (!home)
		return 0;
	if (!json_is_object(home))
		return bad(r, "home", home, "expected an object");
	r->prefix = "bouncelab.home.";
	if (check_string(r, home, "policy", false, &row->home_policy) ||
	    check_charset(r, "policy", json_object_get(home, "policy"),
			  row->home_policy, POLICY_CHARS) ||
	    read_home_number(r, home, "node", &row->home_node) ||
	    read_home_number(r, home, "threads_away", &row->home_threads_away))
		return -1;
	r->prefix = "bouncelab.";
	return 0;
}

/* Every other numeric top-level key is a user counter. */
/*
 * The row's user counters. Ours are counts, times, fractions and counts
 * per operation, never below 0 (a negative one_way_ns is a broken file);
 * other tools' counters may be anything finite.
 */
static int read_counters(struct reader *r, json_t *row, double min,
			 struct result_row *out)
{
	struct results *set = r->set;
	const char *key;
	json_t *v;

	out->first_counter = set->nr_counters;
	out->nr_counters = 0;
	json_object_foreach(row, key, v) {
		double d;

		if (!json_is_number(v) || is_gbench_key(key))
			continue;
		d = json_number_value(v);
		if (!isfinite(d) || d < min || d > MAX_COUNTER)
			return bad(r, key, v, "expected a counter value from %g to %g",
				   min, MAX_COUNTER);
		if (grow((void **)&set->counters, &set->cap_counters,
			 set->nr_counters + 1, sizeof(*set->counters))) {
			snprintf(r->err, r->errlen, "out of memory reading %s", r->path);
			return -1;
		}
		set->counters[set->nr_counters++] = (struct result_counter){ key, d };
		out->nr_counters++;
	}
	return 0;
}

static int add_row(struct reader *r, const struct result_row *row)
{
	struct results *set = r->set;

	if (grow((void **)&set->rows, &set->cap_rows, set->nr_rows + 1,
		 sizeof(*set->rows))) {
		snprintf(r->err, r->errlen, "out of memory reading %s", r->path);
		return -1;
	}
	set->rows[set->nr_rows++] = *row;
	return 0;
}

static int unique_names(struct reader *r, struct result_row *row)
{
	struct results *set = r->set;

	if ((row->name && !(row->name = unique_string(set, row->name))) ||
	    (row->family && !(row->family = unique_string(set, row->family))) ||
	    (row->variant && !(row->variant = unique_string(set, row->variant))) ||
	    (row->policy && !(row->policy = unique_string(set, row->policy))) ||
	    (row->widest_class &&
	     !(row->widest_class = unique_string(set, row->widest_class)))) {
		snprintf(r->err, r->errlen, "out of memory reading %s", r->path);
		return -1;
	}
	return 0;
}

static int read_ours(struct reader *r, json_t *row, json_t *facts,
		     struct result_row *out)
{
	double ops = 0, wall = 1;

	if (!json_is_object(facts))
		return bad(r, "bouncelab", facts, "expected an object");
	r->prefix = "bouncelab.";
	if (check_string(r, facts, "family", true, &out->family) ||
	    check_string(r, facts, "variant", true, &out->variant) ||
	    check_charset(r, "family", json_object_get(facts, "family"), out->family,
			  NAME_CHARS) ||
	    check_charset(r, "variant", json_object_get(facts, "variant"),
			  out->variant, NAME_CHARS))
		return -1;
	if (json_object_get(facts, "params") &&
	    !json_is_object(json_object_get(facts, "params")))
		return bad(r, "params", json_object_get(facts, "params"),
			   "expected an object");
	out->params = json_object_get(facts, "params");
	if (check_placement(r, facts, out) || check_home(r, facts, out) ||
	    describe_setting(r, facts, out))
		return -1;
	r->prefix = NULL;
	if (check_integer(r, row, "threads", 1, MAX_THREADS, true, &out->threads) ||
	    check_number(r, row, "ns_per_op", MIN_NS_PER_OP, MAX_NS_PER_OP, true,
			 &out->ns_per_op) ||
	    check_number(r, row, "ops", 1, MAX_OPS, true, &ops) ||
	    check_number(r, row, "wall_ns", 1, MAX_WALL_NS, true, &wall) ||
	    read_counters(r, row, 0, out))
		return -1;
	out->ops_per_s = ops / wall * 1e9;
	out->ops = ops;
	if (unique_names(r, out))
		return -1;
	r->set->files[r->file].nr_rows++;
	return add_row(r, out);
}

/* Another tool's repetition: kept for compare, with real_time as ns/op. */
static int read_foreign(struct reader *r, json_t *row, struct result_row *out)
{
	static const struct { const char *unit; double ns; } units[] = {
		{ "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 },
	};
	const char *unit = "ns";
	double real_time = 0;

	r->set->files[r->file].nr_foreign++;
	if (check_integer(r, row, "threads", 1, MAX_THREADS, false, &out->threads) ||
	    check_number(r, row, "real_time", 0, 1e18, false, &real_time) ||
	    check_string(r, row, "time_unit", false, &unit))
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
	return bad(r, "time_unit", json_object_get(row, "time_unit"),
		   "expected ns, us, ms or s");
}

static int add_failure(struct reader *r, json_t *row)
{
	struct results *set = r->set;
	const char *msg = NULL;

	if (check_string(r, row, "error_message", false, &msg) ||
	    check_string(r, row, "skip_message", false, msg ? NULL : &msg))
		return -1;
	set->files[r->file].nr_failed++;
	if (grow((void **)&set->failures, &set->cap_failures,
		 set->nr_failures + 1, sizeof(*set->failures))) {
		snprintf(r->err, r->errlen, "out of memory reading %s", r->path);
		return -1;
	}
	set->failures[set->nr_failures++] = (struct result_failure){
		r->file, r->row_name, msg ? msg : "no message",
	};
	return 0;
}

/*
 * Aggregates are recomputed from the repetitions. Another tool's median
 * (or mean) is kept aside: if its file has no repetition of that
 * benchmark, it is all there is to compare (add_missing_aggregates()).
 */
static int keep_aggregate(struct reader *r, json_t *row)
{
	const char *kind = json_string_value(json_object_get(row, "aggregate_name"));
	bool median = kind && !strcmp(kind, "median");

	r->set->files[r->file].nr_aggregates++;
	if (json_object_get(row, "bouncelab") || !kind ||
	    (!median && strcmp(kind, "mean")))
		return 0;
	if (grow((void **)&r->candidates, &r->cap_candidates, r->nr_candidates + 1,
		 sizeof(*r->candidates))) {
		snprintf(r->err, r->errlen, "out of memory reading %s", r->path);
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
static int add_missing_aggregates(struct reader *r, size_t first_row)
{
	struct results *set = r->set;
	size_t nr_names = set->nr_rows - first_row, i;
	const char **names;
	int ret = 0;

	if (!r->nr_candidates)
		return 0;
	names = malloc((nr_names + r->nr_candidates) * sizeof(*names));
	if (!names) {
		snprintf(r->err, r->errlen, "out of memory reading %s", r->path);
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
			if (check_string(r, c->row, "run_name", true, &name) ||
			    check_integer(r, c->row, "repetitions", 1, MAX_REPETITIONS,
					  false, &reps)) {
				ret = -1;
				break;
			}
			name = unique_string(set, name);
			if (!name) {
				snprintf(r->err, r->errlen, "out of memory reading %s", r->path);
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

static int read_row(struct reader *r, json_t *row)
{
	struct result_row out = { .file = r->file, .source_file = r->file, .threads = 1,
				  .repetition_index = -1 };
	const char *run_type = NULL, *unit = NULL;
	struct run_context *run = &r->set->files[r->file].run;
	long repetitions = 0;

	r->row_name = NULL;
	r->prefix = NULL;
	if (!json_is_object(row))
		return bad(r, "", row, "expected an object");
	if (check_string(r, row, "name", true, &r->row_name))
		return -1;
	out.name = r->row_name;
	if (check_string(r, row, "run_name", false, &out.name) ||
	    check_string(r, row, "run_type", false, &run_type) ||
	    check_string(r, row, "label", false, NULL) ||
	    check_string(r, row, "aggregate_name", false, NULL) ||
	    check_string(r, row, "time_unit", false, &unit) ||
	    check_bool(r, row, "error_occurred") || check_bool(r, row, "skipped") ||
	    check_integer(r, row, "repetitions", 1, MAX_REPETITIONS, false, &repetitions) ||
	    check_integer(r, row, "repetition_index", 0, MAX_REPETITIONS, false,
			  &out.repetition_index) ||
	    check_number(r, row, "iterations", 0, 1e19, false, NULL) ||
	    check_number(r, row, "real_time", 0, 1e18, false, NULL) ||
	    check_number(r, row, "cpu_time", 0, 1e18, false, NULL))
		return -1;
	/* the benchmarks' own, not failed_repetitions[]: what the run was asked for */
	if (!strcmp(r->array, "benchmarks") && repetitions > run->repetitions)
		run->repetitions = repetitions;
	if (run_type && !strcmp(run_type, "aggregate"))
		return keep_aggregate(r, row);
	if (json_is_true(json_object_get(row, "error_occurred")) ||
	    json_is_true(json_object_get(row, "skipped")))
		return add_failure(r, row);
	if (json_object_get(row, "bouncelab"))
		return read_ours(r, row, json_object_get(row, "bouncelab"), &out);
	return read_foreign(r, row, &out);
}

/*
 * failed_repetitions[]: the repetitions a run could not time, kept out of
 * "benchmarks" (results.h). Absent in files from older bouncelabs, which
 * kept them there: both read the same.
 */
static int read_failed_repetitions(struct reader *r, json_t *failed)
{
	json_t *row;
	size_t i;

	if (!failed)
		return 0;
	r->index = (size_t)-1;
	r->row_name = NULL;
	if (!json_is_array(failed))
		return bad(r, "failed_repetitions", failed, "expected an array of failed rows");
	r->array = "failed_repetitions";
	json_array_foreach(failed, i, row) {
		r->index = i;
		r->row_name = NULL;
		if (json_is_object(row) && !json_is_true(json_object_get(row, "error_occurred")))
			return bad(r, "error_occurred", json_object_get(row, "error_occurred"),
				   "expected true: a failed repetition");
		if (read_row(r, row))
			return -1;
	}
	r->array = "benchmarks";
	return 0;
}

/* What a parse error usually means, in words. */
static const char *parse_hint(const char *text)
{
	if (strstr(text, "'NaN'") || strstr(text, "Infinity'"))
		return " (NaN and Infinity are not JSON numbers)";
	if (strstr(text, "end of file") || strstr(text, "end of input") ||
	    strstr(text, "near ''"))
		return " (the file is empty, cut short or not JSON)";
	return "";
}

/*
 * The file's first len bytes (the size fstat() saw) from fd into buf, or
 * -1 with errno set. A journal still being written is read as it was
 * then: a line cut short at the end is dropped as unfinished (journal.h).
 */
static int read_whole(int fd, char *buf, size_t len, size_t *got)
{
	size_t used = 0;
	ssize_t n = 0;

	while (used < len) {
		n = read(fd, buf + used, len - used);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		used += (size_t)n;
	}
	*got = used;
	return n < 0 ? -1 : 0;
}

/*
 * The file's text and its tree go into one region (json_region.h), which
 * lives as long as the tree: the 60k-repetition file's report took
 * 2.2-2.4 s with the tree in malloc()'s memory, 0.9-1.6 s in a region.
 */
static json_t *load(struct reader *r, struct json_region **region)
{
	json_error_t jerr;
	json_t *doc;
	char *text, *start;
	size_t size, len;
	bool read_failed = false;
	int fd;

	*region = NULL;
	fd = input_file_open(r->path, RESULTS_MAX_BYTES, &size, r->err, r->errlen);
	if (fd < 0)
		return NULL;
	/* Read whole, then parse: json_load_file() reads one getc() at a time. */
	*region = json_region_open(size);
	text = json_region_alloc(*region, size + 1);
	if (!text) {
		snprintf(r->err, r->errlen, "out of memory reading %s", r->path);
		r->out_of_memory = true;
	} else if (read_whole(fd, text, size, &len)) {
		snprintf(r->err, r->errlen, "%s: cannot read: %s", r->path, strerror(errno));
		read_failed = true;
	}
	close(fd);
	if (!text || read_failed) {
		json_region_free(text);
		json_region_close(*region);
		*region = NULL;
		return NULL;
	}
	/* RFC 8259 lets a parser ignore a UTF-8 byte order mark; we do. */
	start = text;
	if (len >= 3 && !memcmp(text, "\xef\xbb\xbf", 3)) {
		start += 3;
		len -= 3;
	}
	json_region_fill(*region);
	/* A run's journal (journal.h): the repetitions it kept. */
	if (journal_is(start, len)) {
		size_t nr_rows, total, nr_damaged;

		doc = journal_parse(start, len, r->path, true, &nr_rows, &total,
				    &nr_damaged, r->err, r->errlen);
	} else {
		doc = json_loadb(start, len, JSON_REJECT_DUPLICATES, &jerr);
		if (!doc)
			snprintf(r->err, r->errlen, "%s:%d:%d: not valid JSON: %s%s", r->path,
				 jerr.line, jerr.column, jerr.text, parse_hint(jerr.text));
	}
	if (json_region_stop() && !doc) {
		snprintf(r->err, r->errlen, "out of memory reading %s", r->path);
		r->out_of_memory = true;
	}
	json_region_free(text);
	if (!doc) {
		json_region_close(*region);
		*region = NULL;
	}
	return doc;
}

/*
 * The same run given twice (the file twice, a copy, or a file and its own
 * journal) would be pooled as independent repetitions: n doubles and a
 * difference within the noise turns significant. Every bouncelab run has
 * its own context.run_id; a file without one (another tool's, or older)
 * cannot be told apart and is taken as it is.
 */
static int check_same_run(struct reader *r)
{
	const char *id = r->set->files[r->file].run.run_id;

	if (!id)
		return 0;
	for (unsigned int i = 0; i < r->file; i++) {
		const struct result_file *f = &r->set->files[i];
		const char *other = f->run.run_id;

		if (other && !strcmp(id, other)) {
			snprintf(r->err, r->errlen, "%s: the same run as %s (context.run_id %.64s): expected each run once (a copy, or a file and its own journal, is the same run)",
				 r->path, f->path, id);
			return -1;
		}
	}
	return 0;
}

int results_read(struct results *set, const char *path, char *err,
		 size_t errlen)
{
	struct reader r = {
		.set = set, .path = path, .file = set->nr_files, .index = (size_t)-1,
		.array = "benchmarks",
		.err = err, .errlen = errlen,
	};
	size_t saved_rows = set->nr_rows, saved_counters = set->nr_counters;
	size_t saved_failures = set->nr_failures, i;
	json_t *doc, *context, *rows, *row;
	struct json_region *region;

	if (grow((void **)&set->files, &set->cap_files, set->nr_files + 1,
		 sizeof(*set->files))) {
		snprintf(err, errlen, "out of memory reading %s", path);
		return -1;
	}
	doc = load(&r, &region);
	if (!doc)
		return r.out_of_memory ? -2 : -1;
	set->files[r.file] = (struct result_file){
		.path = path, .doc = doc, .region = region,
	};
	context = json_object_get(doc, "context");
	rows = json_object_get(doc, "benchmarks");
	if (!json_is_object(doc)) {
		bad(&r, "", doc, "expected Google Benchmark JSON: an object with \"context\" and \"benchmarks\"");
		goto fail;
	}
	if (!json_is_object(context)) {
		bad(&r, "context", context, "expected an object");
		goto fail;
	}
	if (!json_is_array(rows)) {
		bad(&r, "benchmarks", rows, "expected an array of benchmark rows");
		goto fail;
	}
	if (read_context(&r, context) || check_same_run(&r))
		goto fail;
	set->files[r.file].rounds = ran_in_rounds(context);
	json_array_foreach(rows, i, row) {
		r.index = i;
		if (read_row(&r, row))
			goto fail;
	}
	if (read_failed_repetitions(&r, json_object_get(doc, "failed_repetitions")))
		goto fail;
	if (add_missing_aggregates(&r, saved_rows))
		goto fail;
	set->files[r.file].first_row = saved_rows;
	set->files[r.file].end_row = set->nr_rows;
	free(r.candidates);
	set->nr_files++;
	return 0;
fail:
	free(r.candidates);
	json_decref(doc);
	json_region_close(region);
	/*
	 * The unique set may point into the document just freed. Emptied, it
	 * only loses the sharing of earlier rows' names with later files'.
	 */
	if (set->unique)
		memset(set->unique, 0, set->cap_unique * sizeof(*set->unique));
	set->nr_unique = 0;
	set->nr_rows = saved_rows;
	set->nr_counters = saved_counters;
	set->nr_failures = saved_failures;
	return -1;
}

int results_keep_readable_rows(json_t *context, json_t *rows, const char *path,
				size_t *nr_refused, char *err, size_t errlen)
{
	struct results scratch = { 0 };
	struct reader r = {
		.set = &scratch, .path = path, .file = 0, .index = (size_t)-1,
		.array = "benchmarks", .err = err, .errlen = errlen,
	};
	char row_err[512];
	json_t *kept = json_array();
	json_t *row;
	size_t i;
	int ret = -1;

	*nr_refused = 0;
	if (!kept || grow((void **)&scratch.files, &scratch.cap_files, 1,
			  sizeof(*scratch.files))) {
		snprintf(err, errlen, "out of memory reading %s", path);
		goto out;
	}
	scratch.files[0] = (struct result_file){ .path = path };
	scratch.nr_files = 1;
	if (read_context(&r, context)) {
		if (r.out_of_memory)
			snprintf(err, errlen, "out of memory reading %s", path);
		goto out;
	}
	scratch.files[0].rounds = ran_in_rounds(context);
	/* A row's refusal is its own: the reader goes on to the next one. */
	r.err = row_err;
	r.errlen = sizeof(row_err);
	json_array_foreach(rows, i, row) {
		r.index = i;
		if (read_row(&r, row)) {
			if (r.out_of_memory) {
				snprintf(err, errlen, "%s", row_err);
				goto out;
			}
			(*nr_refused)++;
			continue;
		}
		json_array_append(kept, row);
	}
	json_array_clear(rows);
	json_array_extend(rows, kept);
	ret = 0;
out:
	json_decref(kept);
	free(r.candidates);
	/* The context and rows are the caller's, not the scratch set's. */
	scratch.files[0].doc = NULL;
	results_free(&scratch);
	return ret;
}

void results_free(struct results *set)
{
	for (unsigned int i = 0; i < set->nr_files; i++)
		json_decref(set->files[i].doc);
	/* After every tree: one may hold another's parts (none do today). */
	for (unsigned int i = 0; i < set->nr_files; i++)
		json_region_close(set->files[i].region);
	for (size_t i = 0; i < set->nr_strings; i++)
		free(set->strings[i]);
	free(set->files);
	free(set->rows);
	free(set->counters);
	free(set->failures);
	free(set->strings);
	free(set->unique);
	memset(set, 0, sizeof(*set));
}

const char *run_context_counter_na(const struct run_context *ctx, const char *counter)
{
	for (size_t i = 0; i < ctx->counters.nr_na; i++)
		if (!strcmp(ctx->counters.na[i].counter, counter))
			return ctx->counters.na[i].reason;
	return NULL;
}

const struct run_class *run_context_class(const struct run_context *ctx, const char *name)
{
	for (size_t i = 0; i < ctx->topology.nr_classes; i++)
		if (!strcmp(ctx->topology.classes[i].name, name))
			return &ctx->topology.classes[i];
	return NULL;
}

double run_context_clock_ghz(const struct run_context *ctx)
{
	return ctx->mhz_per_cpu > 0 ? ctx->mhz_per_cpu / 1000 : 0;	/* NAN > 0 is false */
}

double run_context_other_load_per_cpu(const struct run_context *ctx)
{
	double other = ctx->nr_load_avg ? ctx->load_avg[0] : NAN;
	long cpus = ctx->allowed_cpus;

	if (isnan(other) || cpus < 1)
		return NAN;
	if (ctx->build_ended_s_before >= 0)
		other -= (double)cpus * exp(-(double)ctx->build_ended_s_before / 60);
	return (other > 0 ? other : 0) / (double)cpus;
}

int results_param_value(const json_t *params, const struct kernel_param *param, long *value)
{
	json_t *v = json_object_get(params, param->name);
	char err[128];

	*value = param->def;
	if (!v)
		return 0;
	if (json_is_integer(v)) {
		*value = (long)json_integer_value(v);
		return 0;
	}
	if (json_is_string(v) && !kernel_param_parse(param, json_string_value(v), value,
						     err, sizeof(err)))
		return 0;
	*value = param->def;
	return -1;
}
