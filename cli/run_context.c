// SPDX-License-Identifier: GPL-2.0-only
/*
 * What a run records about itself before its rounds, in its results'
 * context: Google Benchmark's facts and bouncelab's (results_context()),
 * the command, one identity, the topology, and what it measures on the
 * machine first: a cold miss beside its ping-pong and the share of its
 * CPUs it gets; a build that just ended; and the Slurm job it ran in.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "catalog.h"
#include "latency.h"
#include "results.h"
#include "run_context.h"

/*
 * How many seconds before this run a build ended, when the script that
 * built and then started it says so (BOUNCELAB_BUILD_ENDED, Unix seconds:
 * scripts/lab run). The load average is a 1-minute mean, so a build that
 * just ended is still in the load the context records, and the report
 * says so rather than blame other work. Beyond 5 minutes less than 1% of
 * the build's load is left in it: not recorded.
 */
#define BUILD_LOAD_MEMORY_S 300

static void add_build_ended(json_t *context)
{
	const char *env = getenv("BOUNCELAB_BUILD_ENDED");
	char *end;
	long long ended, ago;

	if (!env || !*env)
		return;
	errno = 0;
	ended = strtoll(env, &end, 10);
	ago = (long long)time(NULL) - ended;
	if (errno || *end || ago < 0 || ago > BUILD_LOAD_MEMORY_S)
		return;
	json_object_set_new(context, "build_ended_s_before", json_integer(ago));
}

/*
 * The Slurm job the run ran in (scripts/slurm/fleet's tasks, or any
 * sbatch), as context.slurm: which job, cluster, nodes and partition a
 * results file came from, when several nodes' files are merged. Only the
 * variables Slurm set; none outside a job.
 */
static void add_slurm(json_t *context)
{
	static const struct {
		const char *key, *env;
	} facts[] = {
		{ "job_id", "SLURM_JOB_ID" },
		{ "array_job_id", "SLURM_ARRAY_JOB_ID" },
		{ "array_task_id", "SLURM_ARRAY_TASK_ID" },
		{ "cluster_name", "SLURM_CLUSTER_NAME" },
		{ "node_list", "SLURM_JOB_NODELIST" },
		{ "partition", "SLURM_JOB_PARTITION" },
	};
	const char *job = getenv("SLURM_JOB_ID");
	json_t *slurm;

	if (!job || !*job)
		return;
	slurm = json_object();
	for (size_t i = 0; i < sizeof(facts) / sizeof(facts[0]); i++) {
		const char *value = getenv(facts[i].env);

		/* json_string() refuses what is not UTF-8: that fact is left out */
		if (value && *value)
			json_object_set_new(slurm, facts[i].key, json_string(value));
	}
	json_object_set_new(context, "slurm", slurm);
}

/*
 * Beside the run's ping-pong, what a cold miss costs on the same two CPUs
 * (latency_measure_fetch()): the contention model charges it for lines
 * another CPU wrote last that nobody fights over, where the ping-pong's
 * one-way time also pays for invalidating the waiter's copy. Measured
 * once, before the rounds, when the suite has a 2-thread ping-pong; the
 * report reads it from the context.
 */
static void add_cold_miss(json_t *context, const struct suite *suite)
{
	for (unsigned int i = 0; i < suite->nr_cases; i++) {
		const struct bench_case *c = &suite->cases[i];
		char err[256];
		double ns;

		if (c->family != catalog_transfer_probe() || c->cfg.nr_threads != 2 ||
		    c->placement.cpus[0] == c->placement.cpus[1])
			continue;
		if (latency_measure_fetch(c->topo, c->placement.cpus[0], c->placement.cpus[1],
					  7, &ns, err, sizeof(err))) {
			fprintf(stderr, "bouncelab: the cold-miss time is not measured: %s\n", err);
			return;
		}
		json_object_set_new(context, "cold_miss_ns", json_real(ns));
		json_object_set_new(context, "cold_miss_cpus",
				    json_pack("[ii]", c->placement.cpus[0], c->placement.cpus[1]));
		return;
	}
}

/*
 * How much of its CPUs the run got when it started: a thread spins on each
 * CPU the suite places threads on for a tenth of a second, and the least
 * share of CPU time over wall time any got is context.cpu_share. A
 * 1-minute load average says what ran in the last minute, not what runs
 * now (the corpus's quiet runs started at 0.8 per CPU, after the run
 * before them); this is what the rounds will meet. The report judges no
 * claim below CLAIM_MIN_CPU_SHARE (report/claims.c).
 */
#define SHARE_MAX_CPUS 8192	/* the most PUs a topology may have here */

static void add_cpu_share(json_t *context, const struct suite *suite)
{
	int *cpus = calloc(SHARE_MAX_CPUS, sizeof(*cpus));
	bool *seen = calloc(SHARE_MAX_CPUS, sizeof(*seen));
	unsigned int n = 0;
	char err[256];
	double share;

	if (!cpus || !seen || !suite->nr_cases)
		goto out;
	for (unsigned int i = 0; i < suite->nr_cases; i++) {
		const struct placement *pl = &suite->cases[i].placement;

		for (unsigned int k = 0; k < pl->nr_cpus; k++) {
			int cpu = pl->cpus[k];

			if (cpu >= 0 && cpu < SHARE_MAX_CPUS && !seen[cpu]) {
				seen[cpu] = true;
				cpus[n++] = cpu;
			}
		}
	}
	if (latency_measure_cpu_share(suite->cases[0].topo, cpus, n, 0.1, &share, err,
				      sizeof(err)))
		fprintf(stderr, "bouncelab: the CPUs' share is not measured: %s\n", err);
	else
		json_object_set_new(context, "cpu_share", json_real(share));
out:
	free(cpus);
	free(seen);
}

/* "<pid>-<seconds>.<ns>": tells this run's journal and file from others'. */
static json_t *new_run_id(void)
{
	struct timespec now;
	char id[64];

	clock_gettime(CLOCK_REALTIME, &now);
	snprintf(id, sizeof(id), "%ld-%lld.%09ld", (long)getpid(),
		 (long long)now.tv_sec, now.tv_nsec);
	return json_string(id);
}

json_t *run_context_new(const struct suite *suite, const char *command)
{
	json_t *context = results_context();

	json_object_set_new(context, "command", json_string(command));
	json_object_set_new(context, "run_id", new_run_id());
	json_object_set_new(context, "topology", results_topology(suite->cases[0].topo));
	add_cold_miss(context, suite);
	add_cpu_share(context, suite);
	add_build_ended(context);
	add_slurm(context);
	return context;
}
