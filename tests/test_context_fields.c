// SPDX-License-Identifier: GPL-2.0-only
/*
 * Every field of a results file's context as struct run_context keeps it,
 * against the file written here: the CPU's identity at the ends of the
 * register fields that hold it (family 0xf + 0xff, model 0xff, stepping
 * 0xf, implementer 0xff, part 0xfff, variant and revision 0xf: read; one
 * more: refused), the topology's classes and their example pairs, the
 * caches, the counters' sets and reasons, the load averages (0 to 1e6,
 * the first three kept), the Slurm job, and the flags a file may give or
 * leave out (hypervisor, incomplete, cpu_share from 0 to 1).
 */
#include <limits.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include "float_assert.h"

#include "results_read.h"

static int read_context(const char *context, struct results *set, char *err, size_t errlen)
{
	char path[] = "/tmp/bouncelab-context-fields-XXXXXX";
	int fd = mkstemp(path), ret;
	FILE *f = fd < 0 ? NULL : fdopen(fd, "w");

	if (!f)
		fail_msg("cannot write a results file in /tmp");
	fprintf(f, "{\"context\": %s, \"benchmarks\": []}\n", context);
	fclose(f);
	*set = (struct results){ 0 };
	*err = '\0';
	ret = results_read(set, path, err, errlen);
	unlink(path);
	return ret;
}

static const struct run_context *run_of(const char *context, struct results *set)
{
	char err[1024];

	if (read_context(context, set, err, sizeof(err)))
		fail_msg("refused: %s: %s", context, err);
	return &set->files[0].run;
}

/* One field of context.cpu at the end of its range, and one past it. */
static void cpu_fields_at_their_ends(void **unused)
{
	static const struct {
		const char *key;
		long max;
		size_t offset;
	} fields[] = {
		{ "family", 270, offsetof(struct result_cpu, family) },
		{ "model", 255, offsetof(struct result_cpu, model) },
		{ "stepping", 15, offsetof(struct result_cpu, stepping) },
		{ "implementer", 255, offsetof(struct result_cpu, implementer) },
		{ "part", 4095, offsetof(struct result_cpu, part) },
		{ "variant", 15, offsetof(struct result_cpu, variant) },
		{ "revision", 15, offsetof(struct result_cpu, revision) },
	};
	char context[256], err[1024];
	struct results set;

	(void)unused;
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		const struct run_context *run;

		for (long v = 0; v <= fields[i].max; v += fields[i].max) {
			snprintf(context, sizeof(context), "{\"cpu\": {\"vendor\": \"AuthenticAMD\", \"%s\": %ld}}",
				 fields[i].key, v);
			run = run_of(context, &set);
			assert_true(run->cpu.recorded);
			assert_string_equal(run->cpu.vendor, "AuthenticAMD");
			assert_int_equal(*(const long *)((const char *)&run->cpu + fields[i].offset), v);
			results_free(&set);
		}
		snprintf(context, sizeof(context), "{\"cpu\": {\"vendor\": \"x\", \"%s\": %ld}}",
			 fields[i].key, fields[i].max + 1);
		assert_int_equal(read_context(context, &set, err, sizeof(err)), -1);
		assert_non_null(strstr(err, fields[i].key));
		results_free(&set);
		snprintf(context, sizeof(context), "{\"cpu\": {\"vendor\": \"x\", \"%s\": -1}}",
			 fields[i].key);
		assert_int_equal(read_context(context, &set, err, sizeof(err)), -1);
		results_free(&set);
	}
	/* absent: not recorded, every number -1 */
	{
		const struct run_context *run = run_of("{}", &set);

		assert_false(run->cpu.recorded);
		assert_int_equal(run->cpu.family, -1);
		assert_int_equal(run->cpu.part, -1);
		assert_int_equal(run->cpu.revision, -1);
		results_free(&set);
	}
}

/* Classes in the file's order, each pair as given; no pair: -1, -1. */
static void topology_classes_and_counts(void **unused)
{
	struct results set;
	const struct run_context *run = run_of(
		"{\"topology\": {\"summary\": \"2 cores\", \"source\": \"synthetic\","
		" \"allowed_cpus\": \"0-3\", \"nr_allowed_cpus\": 4, \"numa_nodes\": 0,"
		" \"classes\": {\"smt\": [0, 2], \"l3\": [1, \"x\"], \"cross_package\": [5]}},"
		" \"num_cpus\": 8}", &set);
	const struct run_class *c;

	(void)unused;
	assert_true(run->topology.recorded);
	assert_string_equal(run->topology.summary, "2 cores");
	assert_string_equal(run->topology.source, "synthetic");
	assert_string_equal(run->topology.allowed_cpus, "0-3");
	assert_int_equal(run->topology.nr_allowed_cpus, 4);
	assert_int_equal(run->topology.numa_nodes, 0);
	assert_int_equal(run->allowed_cpus, 4);
	assert_true(run->topology.has_classes);
	assert_int_equal(run->topology.nr_classes, 3);
	assert_string_equal(run->topology.classes[0].name, "smt");
	assert_int_equal(run->topology.classes[0].cpu_a, 0);
	assert_int_equal(run->topology.classes[0].cpu_b, 2);
	c = run_context_class(run, "l3");
	assert_non_null(c);
	assert_int_equal(c->cpu_a, 1);
	assert_int_equal(c->cpu_b, 0);
	c = run_context_class(run, "cross_package");
	assert_int_equal(c->cpu_a, -1);
	assert_int_equal(c->cpu_b, -1);
	assert_null(run_context_class(run, "numa"));
	results_free(&set);

	run = run_of("{\"topology\": {\"nr_allowed_cpus\": 1, \"numa_nodes\": 2}, \"num_cpus\": 8}",
		     &set);
	assert_false(run->topology.has_classes);
	assert_int_equal(run->topology.nr_classes, 0);
	assert_int_equal(run->allowed_cpus, 1);
	assert_int_equal(run->topology.numa_nodes, 2);
	results_free(&set);
}

/* Each cache as Google Benchmark writes it. */
static void caches_as_written(void **unused)
{
	struct results set;
	const struct run_context *run = run_of(
		"{\"caches\": [{\"type\": \"Data\", \"level\": 1, \"size\": 49152, \"num_sharing\": 2},"
		" {\"type\": \"Unified\", \"level\": 4, \"size\": 0, \"num_sharing\": 0},"
		" {\"level\": 3}]}", &set);
	char err[1024];

	(void)unused;
	assert_int_equal(run->nr_caches, 3);
	assert_string_equal(run->caches[0].type, "Data");
	assert_int_equal(run->caches[0].level, 1);
	assert_int_equal(run->caches[0].size, 49152);
	assert_int_equal(run->caches[0].num_sharing, 2);
	assert_int_equal(run->caches[1].level, 4);
	assert_int_equal(run->caches[1].size, 0);
	assert_int_equal(run->caches[1].num_sharing, 0);
	assert_null(run->caches[2].type);
	assert_int_equal(run->caches[2].size, -1);
	assert_int_equal(run->caches[2].num_sharing, -1);
	results_free(&set);
	assert_int_equal(read_context("{\"caches\": [{\"level\": 5}]}", &set, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "caches[0]"));
	results_free(&set);
	assert_int_equal(read_context("{\"caches\": [{\"level\": 1}, 7]}", &set, err, sizeof(err)),
			 -1);
	assert_non_null(strstr(err, "caches[1]"));
	results_free(&set);
}

/* The counters' sets (a title where there is no label), reasons, paranoia. */
static void counters_sets_and_reasons(void **unused)
{
	struct results set;
	const struct run_context *run = run_of(
		"{\"counters\": {\"core_pmu\": \"amd64_fam19h_zen3\", \"perf_event_paranoid\": -1,"
		" \"sets\": {\"coherence\": {\"label\": \"HITM\", \"summary\": \"n/a\"},"
		" \"basic\": {\"title\": \"cycles\"}},"
		" \"na\": {\"hitm_per_op\": \"no PMU in this VM\", \"cycles_per_op\": \"paranoid\"}}}",
		&set);

	(void)unused;
	assert_true(run->counters.recorded);
	assert_true(run->counters.has_sets);
	assert_string_equal(run->counters.core_pmu, "amd64_fam19h_zen3");
	assert_int_equal(run->counters.perf_event_paranoid, -1);
	assert_int_equal(run->counters.nr_sets, 2);
	assert_string_equal(run->counters.sets[0].name, "coherence");
	assert_string_equal(run->counters.sets[0].label, "HITM");
	assert_string_equal(run->counters.sets[0].summary, "n/a");
	assert_string_equal(run->counters.sets[1].label, "cycles");
	assert_null(run->counters.sets[1].summary);
	assert_int_equal(run->counters.nr_na, 2);
	assert_string_equal(run_context_counter_na(run, "cycles_per_op"), "paranoid");
	assert_string_equal(run_context_counter_na(run, "hitm_per_op"), "no PMU in this VM");
	assert_null(run_context_counter_na(run, "misses_per_op"));
	results_free(&set);

	run = run_of("{\"counters\": {}}", &set);
	assert_true(run->counters.recorded);
	assert_false(run->counters.has_sets);
	assert_int_equal(run->counters.perf_event_paranoid, LONG_MIN);
	assert_int_equal(run->counters.nr_na, 0);
	results_free(&set);
}

/* Load averages from 0 to 1e6, the first three kept; anything else refused. */
static void load_averages_at_their_ends(void **unused)
{
	struct results set;
	char err[1024];
	const struct run_context *run = run_of("{\"load_avg\": [0, 1000000, 2.5, 7]}", &set);

	(void)unused;
	assert_true(run->load_avg_recorded);
	assert_int_equal(run->nr_load_avg, 3);
	assert_float_equal(run->load_avg[0], 0, 0);
	assert_float_equal(run->load_avg[1], 1e6, 0);
	assert_float_equal(run->load_avg[2], 2.5, 0);
	results_free(&set);
	assert_int_equal(read_context("{\"load_avg\": [1000000.5]}", &set, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "load_avg"));
	results_free(&set);
	assert_int_equal(read_context("{\"load_avg\": [-0.5]}", &set, err, sizeof(err)), -1);
	results_free(&set);
	assert_int_equal(read_context("{\"load_avg\": 1}", &set, err, sizeof(err)), -1);
	results_free(&set);
}

/* The Slurm job, the flags, cpu_share from 0 to 1. */
static void slurm_flags_and_share(void **unused)
{
	struct results set;
	char err[1024];
	const struct run_context *run = run_of(
		"{\"slurm\": {\"job_id\": \"17\", \"array_job_id\": \"16\", \"array_task_id\": \"1\","
		" \"cluster_name\": \"lab\", \"node_list\": \"n[1-2]\", \"partition\": \"cpu\"},"
		" \"hypervisor\": true, \"incomplete\": \"stopped\", \"cpu_share\": 1,"
		" \"cpu_scaling_enabled\": true, \"cold_miss_ns\": 80, \"host_name\": \"h\","
		" \"command\": \"bouncelab run --quick\", \"bouncelab_version\": \"0.1\"}", &set);

	(void)unused;
	assert_string_equal(run->slurm.job_id, "17");
	assert_string_equal(run->slurm.array_job_id, "16");
	assert_string_equal(run->slurm.array_task_id, "1");
	assert_string_equal(run->slurm.cluster_name, "lab");
	assert_string_equal(run->slurm.node_list, "n[1-2]");
	assert_string_equal(run->slurm.partition, "cpu");
	assert_int_equal(run->hypervisor, 1);
	assert_string_equal(run->incomplete, "stopped");
	assert_float_equal(run->cpu_share, 1, 0);
	assert_true(run->cpu_scaling_enabled);
	assert_float_equal(run->cold_miss_ns, 80, 0);
	assert_string_equal(run->host_name, "h");
	assert_true(set.files[0].rounds);
	results_free(&set);

	run = run_of("{\"hypervisor\": false, \"incomplete\": true, \"cpu_share\": 0,"
		     " \"command\": \"bouncelab running\", \"bouncelab_version\": \"0.1\"}", &set);
	assert_int_equal(run->hypervisor, 0);
	assert_string_equal(run->incomplete, "");
	assert_float_equal(run->cpu_share, 0, 0);
	assert_false(run->cpu_scaling_enabled);
	assert_null(run->slurm.job_id);
	assert_false(set.files[0].rounds);
	results_free(&set);

	run = run_of("{\"incomplete\": false, \"command\": \"bouncelab run\"}", &set);
	assert_int_equal(run->hypervisor, -1);
	assert_null(run->incomplete);
	assert_true(isnan(run->cpu_share));
	assert_true(isnan(run->cold_miss_ns));
	/* no bouncelab_version: not a run bouncelab wrote, so no rounds */
	assert_false(set.files[0].rounds);
	results_free(&set);

	assert_int_equal(read_context("{\"cpu_share\": 1.5}", &set, err, sizeof(err)), -1);
	/* the context is no row: the message names no benchmarks[N] */
	assert_non_null(strstr(err, ": context.cpu_share: expected a number from 0 to 1, found 1.5"));
	assert_null(strstr(err, "benchmarks["));
	results_free(&set);
	assert_int_equal(read_context("{\"cpu_share\": -0.5}", &set, err, sizeof(err)), -1);
	results_free(&set);
	assert_int_equal(read_context("{\"incomplete\": 3}", &set, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "incomplete"));
	results_free(&set);
	assert_int_equal(read_context("{\"slurm\": {\"job_id\": 17}}", &set, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "job_id"));
	results_free(&set);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(cpu_fields_at_their_ends),
		cmocka_unit_test(topology_classes_and_counts),
		cmocka_unit_test(caches_as_written),
		cmocka_unit_test(counters_sets_and_reasons),
		cmocka_unit_test(load_averages_at_their_ends),
		cmocka_unit_test(slurm_flags_and_share),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
