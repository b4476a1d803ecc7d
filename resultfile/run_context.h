/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A results file's context (resultfile/results.h lists its keys), read
 * once by the reader (results_read.c) into one struct: the report, the
 * fleet table, the model and the commands read these fields, never the
 * JSON. Strings are owned by the file's document; NULL means the file
 * does not record the key, -1 (or NAN) a number it does not record.
 */
#ifndef BOUNCELAB_RUN_CONTEXT_READ_H
#define BOUNCELAB_RUN_CONTEXT_READ_H

#include <jansson.h>
#include <stdbool.h>
#include <limits.h>
#include <stddef.h>

/*
 * context.cpu, what the CPU said it is. recorded is false in a file from
 * a bouncelab older than the field: then vendor and microarchitecture are
 * NULL and every number is -1, as is each number a file's architecture
 * lacks (family, model, stepping on Arm; implementer, part, variant,
 * revision on x86).
 */
struct result_cpu {
	bool recorded;
	const char *vendor;
	long family, model, stepping;
	long implementer, part, variant, revision;
	const char *microarchitecture;
};

/* A distance class present, with the pair of CPUs given as its example. */
struct run_class {
	const char *name;	/* "smt", "l3", "cross_package", ... */
	long cpu_a, cpu_b;	/* -1: no pair recorded */
};

/* context.topology: what the placements were planned on. */
struct run_topology {
	bool recorded;
	const char *summary;	/* a one-line description some files give */
	const char *source;	/* "hwloc: this machine", a synthetic string */
	const char *allowed_cpus;	/* "0-3" */
	long nr_allowed_cpus;
	long numa_nodes;
	bool has_classes;	/* context.topology.classes is an object */
	size_t nr_classes;	/* in the file's order */
	struct run_class *classes;
	/*
	 * The object as the file has it, for a shape this reader does not
	 * know (none of the fields above): shown as it is, never read.
	 */
	const json_t *as_recorded;
};

/* One of Google Benchmark's caches (context.caches[]). */
struct run_cache {
	long level;		/* -1: not recorded */
	const char *type;	/* "Data", "Instruction", "Unified" or NULL */
	long size;		/* bytes; -1: not recorded, and not shown */
	long num_sharing;	/* -1: not recorded */
};

/* A counter set the run asked for (context.counters.sets). */
struct run_counter_set {
	const char *name;
	const char *label;	/* the label, else the title, or NULL */
	const char *summary;	/* "ok", "n/a (no hardware PMU)", or NULL */
};

/* A counter the rows lack, and why (context.counters.na). */
struct run_counter_na {
	const char *counter;
	const char *reason;	/* "n/a (no hardware PMU)"; NULL: not a string */
};

struct run_counters {
	bool recorded;
	bool has_sets;		/* context.counters.sets is an object */
	size_t nr_sets;
	struct run_counter_set *sets;
	const char *core_pmu;
	long perf_event_paranoid;	/* LONG_MIN: not recorded (-1 is a setting) */
	size_t nr_na;
	struct run_counter_na *na;
	/* as for the topology: an older file's shape, shown as it is */
	const json_t *as_recorded;
};

/*
 * The Slurm job the run ran in (context.slurm, cli/run_context.c): each
 * fact NULL when not recorded; job_id NULL: not in a Slurm job.
 */
struct run_slurm {
	const char *job_id, *array_job_id, *array_task_id;
	const char *cluster_name, *node_list, *partition;
};

#define RUN_LOAD_AVG_MAX 3

struct run_context {
	/* who ran, where, with what */
	const char *host_name, *date, *run_id, *command, *executable;
	const char *bouncelab_version, *bouncelab_revision;
	const char *kernel_release, *compiler, *build_type;
	const char *gbench_version, *library_build_type;
	const char *governor, *arch;
	/* the machine */
	const char *cpu_model;	/* the brand string */
	struct result_cpu cpu;
	long num_cpus;		/* the machine's CPUs, not those allowed; 0: unknown */
	/* the CPUs the run could use: the topology's allowed ones, else num_cpus */
	long allowed_cpus;
	double mhz_per_cpu;	/* NAN: not recorded */
	int hypervisor;		/* 1: a VM, 0: not, -1: not recorded */
	bool cpu_scaling_enabled;
	struct run_topology topology;
	size_t nr_caches;
	struct run_cache *caches;
	struct run_counters counters;
	/* how busy it was: load averages (1, 5, 15 minutes) as the run started */
	bool load_avg_recorded;
	size_t nr_load_avg;	/* the first RUN_LOAD_AVG_MAX the file gives */
	double load_avg[RUN_LOAD_AVG_MAX];
	/* how long before the run scripts/lab's build ended, in seconds, or -1 */
	long build_ended_s_before;
	/*
	 * cold_miss_ns: a load of a line the other CPU modified last,
	 * measured on the ping-pong's two CPUs before the rounds; cpu_share:
	 * the least share of its wall time a thread spinning on each of the
	 * run's CPUs got as CPU time when the run started (0 to 1). NAN when
	 * the run did not measure them.
	 */
	double cold_miss_ns;
	double cpu_share;
	struct run_slurm slurm;
	/* why the run stopped early, "" without a reason; NULL: it did not */
	const char *incomplete;
	/*
	 * Google Benchmark's repetitions of the file's rows, the most any row
	 * gives (0: none says), for the command that makes the file again.
	 */
	long repetitions;
};

/* The reason a counter the rows lack was not counted, or NULL. */
const char *run_context_counter_na(const struct run_context *ctx, const char *counter);

/* The distance class of that name among those present, or NULL. */
const struct run_class *run_context_class(const struct run_context *ctx, const char *name);

/* context.mhz_per_cpu in GHz, or 0 when unrecorded. */
double run_context_clock_ghz(const struct run_context *ctx);

/*
 * The 1-minute load average per allowed CPU when the run started, less
 * what a build that ended build_ended_s_before seconds earlier (scripts/lab
 * run builds first) still holds of it: a task that stopped t s ago weighs
 * e^(-t/60) in the average, and the build kept at most every allowed CPU
 * busy. So our own build is not read as other work. NaN when unrecorded.
 */
double run_context_other_load_per_cpu(const struct run_context *ctx);

#endif
