// SPDX-License-Identifier: GPL-2.0-only
/*
 * The context of a results file into struct run_context (run_context.h),
 * once per file: every key bouncelab and Google Benchmark write there,
 * typed and checked where read, so nothing downstream reads its JSON; and
 * the answers the context gives (run_context_*()).
 */
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reader.h"
#include "run_context.h"

/* The file was written by `bouncelab run`, which runs in rounds (cmd_run.c). */
bool reader_ran_in_rounds(json_t *ctx)
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
		return reader_bad(r, "cpu", obj, "expected an object");
	r->prefix = "context.cpu.";
	if (reader_string(r, obj, "vendor", true, &cpu->vendor) ||
	    reader_string(r, obj, "microarchitecture", false, &cpu->microarchitecture) ||
	    reader_string(r, obj, "signature", false, NULL))
		return -1;
	for (size_t i = 0; i < sizeof(numbers) / sizeof(numbers[0]); i++)
		if (reader_integer(r, obj, numbers[i].key, 0, numbers[i].max, false,
				  (long *)((char *)cpu + numbers[i].offset)))
			return -1;
	r->prefix = "context.";
	cpu->recorded = true;
	return 0;
}

/* Memory the set frees with its strings (results_free()), or NULL. */
static void *keep_array(struct reader *r, size_t nr, size_t size)
{
	void *p = nr ? calloc(nr, size) : NULL;

	if (nr && (!p || !reader_keep_string(r->set, p))) {
		reader_out_of_memory(r);
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
	ret = reader_integer(r, obj, "nr_allowed_cpus", 1, MAX_THREADS, false,
			    &topo->nr_allowed_cpus) ||
	      reader_integer(r, obj, "numa_nodes", 0, MAX_THREADS, false, &topo->numa_nodes);
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
			ret = reader_bad(r, "", c, "expected an object");
		else
			ret = reader_integer(r, c, "level", 1, MAX_CACHE_LEVEL, false, &cache->level) ||
			      reader_integer(r, c, "size", 0, MAX_CACHE_BYTES, false, &cache->size) ||
			      reader_integer(r, c, "num_sharing", 0, MAX_THREADS, false,
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
		return reader_bad(r, "load_avg", load, "expected an array");
	run->load_avg_recorded = true;
	json_array_foreach(load, i, v) {
		double d = json_number_value(v);

		if (!json_is_number(v) || !isfinite(d) || d < 0 || d > 1e6) {
			r->index = (size_t)-1;
			return reader_bad(r, "load_avg", v, "expected load averages from 0 to 1e+06");
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
		if (reader_string(r, obj, facts[i].key, false,
				 (const char **)((char *)slurm + facts[i].offset)))
			return -1;
	r->prefix = "context.";
	return 0;
}

/*
 * The context into the file's struct run_context: bouncelab's and Google
 * Benchmark's known keys, typed and checked where read, once.
 */
int reader_context(struct reader *r, json_t *ctx)
{
	struct run_context *run = &r->set->files[r->file].run;
	json_t *v;

	*run = (struct run_context){ .hypervisor = -1, .build_ended_s_before = -1,
		.mhz_per_cpu = NAN, .cold_miss_ns = NAN, .cpu_share = NAN,
		.topology = { .nr_allowed_cpus = -1, .numa_nodes = -1 },
		.counters = { .perf_event_paranoid = LONG_MIN } };
	r->prefix = "context.";
	for (size_t i = 0; i < sizeof(context_strings) / sizeof(context_strings[0]); i++)
		if (reader_string(r, ctx, context_strings[i].key, false,
				 (const char **)((char *)run + context_strings[i].offset)))
			return -1;
	if (reader_integer(r, ctx, "num_cpus", 1, MAX_THREADS, false, &run->num_cpus) ||
	    reader_number(r, ctx, "mhz_per_cpu", 0, 1e6, false, &run->mhz_per_cpu) ||
	    reader_number(r, ctx, "cold_miss_ns", 0, 1e6, false, &run->cold_miss_ns) ||
	    reader_number(r, ctx, "cpu_share", 0, 1, false, &run->cpu_share) ||
	    reader_bool(r, ctx, "hypervisor") ||
	    reader_bool(r, ctx, "cpu_scaling_enabled"))
		return -1;
	v = json_object_get(ctx, "hypervisor");
	run->hypervisor = v ? json_is_true(v) : -1;
	run->cpu_scaling_enabled = json_is_true(json_object_get(ctx, "cpu_scaling_enabled"));
	v = json_object_get(ctx, "build_ended_s_before");
	if (json_is_integer(v) && json_integer_value(v) >= 0)
		run->build_ended_s_before = (long)json_integer_value(v);
	v = json_object_get(ctx, "incomplete");
	if (v && !json_is_string(v) && !json_is_boolean(v))
		return reader_bad(r, "incomplete", v, "expected a string saying why, or a boolean");
	if (json_is_string(v))
		run->incomplete = json_string_value(v);
	else if (json_is_true(v))
		run->incomplete = "";
	v = json_object_get(ctx, "topology");
	if (v && !json_is_object(v))
		return reader_bad(r, "topology", v, "expected an object");
	if (v && read_topology(r, v, &run->topology))
		return -1;
	run->allowed_cpus = run->topology.nr_allowed_cpus > 0 ?
			    run->topology.nr_allowed_cpus : run->num_cpus;
	v = json_object_get(ctx, "counters");
	if (v && !json_is_object(v))
		return reader_bad(r, "counters", v, "expected an object");
	if (v && read_context_counters(r, v, &run->counters))
		return -1;
	v = json_object_get(ctx, "caches");
	if (v && !json_is_array(v))
		return reader_bad(r, "caches", v, "expected an array");
	if (v && read_caches(r, v, run))
		return -1;
	v = json_object_get(ctx, "load_avg");
	if (v && read_load_avg(r, v, run))
		return -1;
	v = json_object_get(ctx, "slurm");
	if (v && !json_is_object(v))
		return reader_bad(r, "slurm", v, "expected an object");
	if (v && read_slurm(r, v, &run->slurm))
		return -1;
	if (read_cpu(r, ctx, &run->cpu))
		return -1;
	r->prefix = NULL;
	return 0;
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
