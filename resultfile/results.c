// SPDX-License-Identifier: GPL-2.0-only
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "aggregates.h"
#include "config.h"
#include "counters.h"
#include "cpu_id.h"
#include "output.h"
#include "results.h"
#include "revision.h"

/* The first line of a /proc or /sys file, without its newline. */
static int read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	int ret = -1;

	if (!f)
		return -1;
	if (fgets(buf, (int)len, f)) {
		buf[strcspn(buf, "\n")] = '\0';
		ret = 0;
	}
	fclose(f);
	return ret;
}

/* "model name" and whether the "hypervisor" CPUID flag is set. */
static void cpu_facts(char *model, size_t len, bool *hypervisor)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[4096];

	snprintf(model, len, "unknown");
	*hypervisor = false;
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');

		if (!colon)
			continue;
		if (!strncmp(line, "model name", 10)) {
			colon += 2;
			colon[strcspn(colon, "\n")] = '\0';
			snprintf(model, len, "%s", colon);
		} else if (!strncmp(line, "flags", 5)) {
			*hypervisor = strstr(colon, " hypervisor") != NULL;
			break;
		}
	}
	fclose(f);
}

/*
 * context.cpu: what the CPU says it is (topo/cpu_id.h), where the brand
 * string of a VM often says only "AMD EPYC". Absent where nothing is known.
 */
static json_t *cpu_object(void)
{
	struct cpu_id id;
	json_t *obj;
	char sig[16];

	if (cpu_id_read(&id))
		return NULL;
	obj = json_pack("{ss}", "vendor", id.vendor);
	if (id.family >= 0) {
		snprintf(sig, sizeof(sig), "0x%08x", (unsigned int)id.signature);
		json_object_set_new(obj, "family", json_integer(id.family));
		json_object_set_new(obj, "model", json_integer(id.model));
		json_object_set_new(obj, "stepping", json_integer(id.stepping));
		json_object_set_new(obj, "signature", json_string(sig));
	} else {
		json_object_set_new(obj, "implementer", json_integer(id.implementer));
		json_object_set_new(obj, "part", json_integer(id.part));
		json_object_set_new(obj, "variant", json_integer(id.variant));
		json_object_set_new(obj, "revision", json_integer(id.revision));
	}
	json_object_set_new(obj, "microarchitecture", json_string(id.microarchitecture));
	return obj;
}

/* Memory-model facts differ by architecture (the x86 store buffer). */
static const char *compiled_arch(void)
{
#if defined(__x86_64__)
	return "x86_64";
#elif defined(__i386__)
	return "i386";
#elif defined(__aarch64__)
	return "aarch64";
#elif defined(__arm__)
	return "arm";
#elif defined(__riscv)
	return "riscv";
#elif defined(__powerpc64__)
	return "ppc64";
#else
	return "unknown";
#endif
}

json_t *results_context(void)
{
	char *gb = gbench_context_json();
	json_t *doc = gb ? json_loads(gb, 0, NULL) : NULL;
	json_t *ctx = doc ? json_incref(json_object_get(doc, "context")) : NULL;
	json_t *cpu;
	char model[256], governor[64];
	struct utsname u;
	bool hypervisor;

	free(gb);
	json_decref(doc);
	if (!json_is_object(ctx)) {
		json_decref(ctx);
		ctx = json_object();
	}
	cpu_facts(model, sizeof(model), &hypervisor);
	if (read_line("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor",
		      governor, sizeof(governor)))
		snprintf(governor, sizeof(governor), "n/a (no cpufreq)");
	json_object_set_new(ctx, "bouncelab_version", json_string(BOUNCELAB_VERSION));
	json_object_set_new(ctx, "bouncelab_revision", json_string(BOUNCELAB_REVISION));
	json_object_set_new(ctx, "cpu_model", json_string(model));
	cpu = cpu_object();
	if (cpu)
		json_object_set_new(ctx, "cpu", cpu);
	json_object_set_new(ctx, "hypervisor", json_boolean(hypervisor));
	json_object_set_new(ctx, "kernel_release",
			    json_string(uname(&u) ? "unknown" : u.release));
	/* The architecture the kernels were compiled for: claims depend on it. */
	json_object_set_new(ctx, "arch", json_string(compiled_arch()));
	json_object_set_new(ctx, "compiler", json_string(BOUNCELAB_COMPILER));
	json_object_set_new(ctx, "build_type", json_string(BOUNCELAB_BUILD_TYPE));
	json_object_set_new(ctx, "gbench_version", json_string(BOUNCELAB_GBENCH_VERSION));
	json_object_set_new(ctx, "governor", json_string(governor));
	/* Sets asked for, events used, and why any are n/a. */
	json_object_set_new(ctx, "counters", counters_context());
	return ctx;
}

json_t *results_topology(const struct topo *topo)
{
	struct topo_class_example ex[NR_DISTANCE_CLASSES];
	unsigned int nodes = topo_nr_numa_nodes(topo);
	json_t *obj = json_object(), *classes = json_object();
	json_t *matrix = json_null();
	char allowed[512];

	topo_format_allowed(topo, allowed, sizeof(allowed));
	topo_classes_present(topo, ex);
	for (int c = 0; c < NR_DISTANCE_CLASSES; c++)
		if (ex[c].cpu_a >= 0)
			json_object_set_new(classes, distance_class_name((enum distance_class)c),
					    json_pack("[ii]", ex[c].cpu_a, ex[c].cpu_b));
	if (nodes && topo_numa_node_distance(topo, 0, 0) >= 0) {
		matrix = json_array();
		for (unsigned int i = 0; i < nodes; i++) {
			json_t *row = json_array();

			for (unsigned int j = 0; j < nodes; j++)
				json_array_append_new(row,
					json_integer(topo_numa_node_distance(topo, i, j)));
			json_array_append_new(matrix, row);
		}
	}
	json_object_set_new(obj, "source", json_string(topo_describe(topo)));
	json_object_set_new(obj, "allowed_cpus", json_string(allowed));
	json_object_set_new(obj, "nr_allowed_cpus",
			    json_integer(topo_nr_allowed_cpus(topo)));
	json_object_set_new(obj, "numa_nodes", json_integer(nodes));
	json_object_set_new(obj, "numa_distances", matrix);
	json_object_set_new(obj, "classes", classes);
	return obj;
}

static json_t *params_object(const struct bench_case *c)
{
	const struct kernel_family *f = c->family;
	json_t *params = json_object();

	for (unsigned int p = 0; p < f->nr_params; p++) {
		const char *choice = kernel_param_choice(&f->params[p], c->cfg.param[p]);

		json_object_set_new(params, f->params[p].name,
				    choice ? json_string(choice) :
					     json_integer(c->cfg.param[p]));
	}
	return params;
}

static json_t *placement_object(const struct placement *pl)
{
	json_t *obj = json_object();
	json_t *cpus = json_array();

	for (unsigned int i = 0; i < pl->nr_cpus; i++)
		json_array_append_new(cpus, json_integer(pl->cpus[i]));
	json_object_set_new(obj, "policy", json_string(pl->policy));
	json_object_set_new(obj, "cpus", cpus);
	json_object_set_new(obj, "widest_class",
			    json_string(distance_class_name(pl->widest)));
	json_object_set_new(obj, "numa_distance",
			    pl->numa_distance < 0 ? json_null() :
						    json_integer(pl->numa_distance));
	/* Only where it happens: files from machines of one kind stay as they were. */
	if (pl->mixes_cpu_kinds)
		json_object_set_new(obj, "mixes_cpu_kinds", json_true());
	return obj;
}

/*
 * The home of the shared state: the policy asked for ("default": not
 * bound) and the node the kernel said holds it after create (null when it
 * could not say), with the threads running on another node than that.
 */
static json_t *home_object(const struct bench_case *c)
{
	json_t *obj = json_object();
	const char *policy = c->home.kind == HOME_DEFAULT ? "default" : c->home.name;

	json_object_set_new(obj, "policy", json_string(policy));
	json_object_set_new(obj, "node", c->home_found < 0 ? json_null() :
					  json_integer(c->home_found));
	json_object_set_new(obj, "threads_away",
			    c->home_threads_away < 0 ? json_null() :
						       json_integer(c->home_threads_away));
	return obj;
}

/* pingpong's operation is a round trip; its unit everywhere is one way. */
static double row_divisor(const struct bench_case *c)
{
	if (c && c->family->ns_per_op_metric && c->family->ns_per_op_divisor > 0)
		return c->family->ns_per_op_divisor;
	return 1;
}

/*
 * Google Benchmark's real_time of a threaded run is the threads' mean
 * wall time over the iterations of all threads: ns/op divided by the
 * thread count. compare.py and other tools read real_time, so it carries
 * bouncelab's own figure instead: ns per operation in one thread (for
 * pingpong, one-way ns), the number the report and the run's summary show.
 */
static double row_real_time(const struct gbench_run *run,
			    const struct bench_case *c)
{
	if (!c || run->error_occurred || strcmp(run->time_unit, "ns"))
		return run->real_time;
	for (unsigned int i = 0; i < run->nr_counters; i++)
		if (!strcmp(run->counter_names[i], "ns_per_op"))
			return run->counter_values[i] / row_divisor(c);
	return run->real_time;
}

json_t *results_row(const struct gbench_run *run, const struct bench_case *c)
{
	json_t *row = json_object();
	json_t *facts;

	json_object_set_new(row, "name", json_string(run->name));
	json_object_set_new(row, "family_index", json_integer(run->family_index));
	json_object_set_new(row, "per_family_instance_index",
			    json_integer(run->per_family_instance_index));
	json_object_set_new(row, "run_name", json_string(run->run_name));
	json_object_set_new(row, "run_type",
			    json_string(run->is_aggregate ? "aggregate" : "iteration"));
	json_object_set_new(row, "repetitions", json_integer(run->repetitions));
	if (!run->is_aggregate)
		json_object_set_new(row, "repetition_index",
				    json_integer(run->repetition_index));
	json_object_set_new(row, "threads", json_integer(run->threads));
	if (run->is_aggregate) {
		json_object_set_new(row, "aggregate_name",
				    json_string(run->aggregate_name));
		json_object_set_new(row, "aggregate_unit",
				    json_string(run->aggregate_is_percentage ?
						"percentage" : "time"));
	}
	if (run->error_occurred) {
		json_object_set_new(row, "error_occurred", json_true());
		json_object_set_new(row, "error_message",
				    json_string(run->error_message));
	}
	json_object_set_new(row, "iterations", json_integer(run->iterations));
	json_object_set_new(row, "real_time", json_real(row_real_time(run, c)));
	json_object_set_new(row, "cpu_time", json_real(run->cpu_time / row_divisor(c)));
	json_object_set_new(row, "time_unit", json_string(run->time_unit));
	for (unsigned int i = 0; i < run->nr_counters; i++)
		json_object_set_new(row, run->counter_names[i],
				    json_real(run->counter_values[i]));
	if (run->label && *run->label)
		json_object_set_new(row, "label", json_string(run->label));
	if (c) {
		facts = json_object();
		json_object_set_new(facts, "family", json_string(c->family->name));
		json_object_set_new(facts, "variant",
				    json_string(c->family->variants[c->cfg.variant].name));
		json_object_set_new(facts, "params", params_object(c));
		json_object_set_new(facts, "placement", placement_object(&c->placement));
		json_object_set_new(facts, "home", home_object(c));
		json_object_set_new(row, "bouncelab", facts);
	}
	return row;
}

/* Columns of a row that are not counters: results_row()'s own keys. */
static const char *const not_counters[] = {
	"name", "family_index", "per_family_instance_index", "run_name", "run_type",
	"repetitions", "repetition_index", "threads", "aggregate_name", "aggregate_unit",
	"error_occurred", "error_message", "iterations", "real_time", "cpu_time",
	"time_unit", "label", "bouncelab",
};

static bool is_counter(const char *key)
{
	for (size_t i = 0; i < sizeof(not_counters) / sizeof(not_counters[0]); i++)
		if (!strcmp(key, not_counters[i]))
			return false;
	return true;
}

int results_row_view(const json_t *row, struct results_row_view *view)
{
	const char *key;
	json_t *value;

	memset(view, 0, sizeof(*view));
	view->name = json_string_value(json_object_get(row, "name"));
	view->failed = json_is_true(json_object_get(row, "error_occurred"));
	view->error_message = json_string_value(json_object_get(row, "error_message"));
	view->real_time = json_number_value(json_object_get(row, "real_time"));
	view->iterations = (long long)json_integer_value(json_object_get(row, "iterations"));
	view->counters = malloc((json_object_size(row) + 1) * sizeof(*view->counters));
	if (!view->counters)
		return -1;
	json_object_foreach((json_t *)row, key, value) {
		if (!is_counter(key))
			continue;
		view->counters[view->nr_counters].name = key;
		view->counters[view->nr_counters++].value = json_number_value(value);
	}
	return 0;
}

void results_row_view_free(struct results_row_view *view)
{
	free(view->counters);
	view->counters = NULL;
	view->nr_counters = 0;
}

int results_write(const char *path, json_t *doc, bool replace, char *err, size_t errlen)
{
	json_t *out = json_copy(doc), *good = json_array(), *failed = json_array(), *all = NULL;
	json_t *row;
	char *text = NULL;
	size_t i;
	int ret;

	/*
	 * A failed repetition has no time: as a row of "benchmarks", compare.py
	 * would read its real_time 0 as -100% and feed it to its U test and
	 * geometric mean. It goes beside them, in "failed_repetitions".
	 */
	json_array_foreach(json_object_get(doc, "benchmarks"), i, row)
		json_array_append(json_is_true(json_object_get(row, "error_occurred")) ?
				  failed : good, row);
	if (out && good && failed)
		all = results_with_aggregates(good);
	/* a shallow copy: the caller's document keeps its rows as they were */
	if (all && !json_object_set(out, "benchmarks", all) &&
	    (!json_array_size(failed) || !json_object_set(out, "failed_repetitions", failed)))
		text = json_dumps(out, JSON_INDENT(2));
	json_decref(all);
	json_decref(good);
	json_decref(failed);
	json_decref(out);
	if (!text) {
		snprintf(err, errlen, "cannot encode the results of %.900s", path);
		return -1;
	}
	if (replace)
		ret = output_write_file(path, text, strlen(text), err, errlen);
	else
		ret = output_write_new_file(path, text, strlen(text), err, errlen);
	free(text);
	return ret;
}

void results_finish_context(json_t *doc, json_t *context, const char *incomplete)
{
	json_t *ctx = json_object_get(doc, "context");

	json_object_set(ctx, "counters", json_object_get(context, "counters"));
	if (incomplete)
		json_object_set_new(ctx, "incomplete", json_string(incomplete));
}

const char *results_run_id(json_t *doc)
{
	return json_string_value(json_object_get(json_object_get(doc, "context"), "run_id"));
}
