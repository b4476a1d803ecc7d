/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The results file: Google Benchmark's JSON format, so compare.py and
 * other tools read it, with bouncelab's facts added.
 *
 * context: Google Benchmark's own keys, plus bouncelab_version,
 *   bouncelab_revision (git describe of the source it was built from),
 *   cpu_model (the brand string), cpu {vendor, family, model, stepping,
 *   signature (leaf 1 EAX as "0x00a00f11"), microarchitecture} on x86 or
 *   {vendor, implementer, part, variant, revision, microarchitecture} on
 *   Arm, absent elsewhere (topo/cpu_id.h), hypervisor (bool),
 *   kernel_release, compiler,
 *   gbench_version, governor, topology{...}, counters{...}, cold_miss_ns
 *   and cold_miss_cpus (a load of a line the other CPU wrote last),
 *   cpu_share (0 to 1: the least CPU time over wall time a thread spinning
 *   on each of the run's CPUs got as it started) and, for a run that
 *   stopped early, incomplete (a string saying why).
 *   counters: requested[] (sets), events_requested[] (--events),
 *   core_pmu, hardware_pmu, perf_event_paranoid, sets{NAME: {title,
 *   label, status "ok"|"partial"|"n/a", summary, events[{counter, event,
 *   encoding, counts, status, reason}], totals[{counter, sum_of[]}]}},
 *   and na{counter: "n/a (reason)"} for every counter the rows lack.
 * benchmarks[]: one row per repetition (run_type "iteration"), named
 *   FAMILY/VARIANT[/PARAM:VALUE...]/real_time/threads:N in every round,
 *   with repetition_index the round; then, as Google Benchmark writes
 *   them, the aggregate rows NAME_mean, NAME_median, NAME_stddev and
 *   NAME_cv (run_type "aggregate") of each case with two or more good
 *   repetitions (aggregates.h), for compare.py -a and charting tools. The
 *   report ignores aggregate rows and computes its statistics from the
 *   repetitions. A repetition that failed (its verify, the watchdog, a
 *   signal) has no time: it is not among the benchmarks (compare.py would
 *   show its real_time 0 as -100%) but in failed_repetitions[], a row with
 *   error_occurred and error_message. Every counter
 *   is a count, a time, a fraction or a count per op: never below 0, and
 *   the report refuses a file with one that is. Counters are
 *   top-level keys as usual: ops (summed over threads), wall_ns (mean over
 *   threads), ns_per_op (one operation in one thread; pingpong's
 *   operation is a round trip, its one_way_ns metric half of it) and the
 *   family's metrics. With --counters, each counted event per operation:
 *   NAME_per_op (hitm_per_op, c2c_fills_per_op, cycles_per_op,
 *   page_faults_per_op, task_clock_ns_per_op, ...: all counts / all ops),
 *   and counters_running_fraction (below 1: multiplexed, counts scaled).
 *   Each row also has an object "bouncelab": family, variant,
 *   params {name: value}, placement {policy, cpus[], widest_class,
 *   numa_distance}, home {policy ("default": not bound, or local, remote,
 *   node:N, interleave), node (the kernel's answer after create, or
 *   null), threads_away (threads on another node than that)}.
 */
#ifndef BOUNCELAB_RESULTS_H
#define BOUNCELAB_RESULTS_H

#include <jansson.h>
#include <stdbool.h>

#include "gbench.h"
#include "results_read.h"
#include "suite.h"

/* The context of this run on this machine. */
json_t *results_context(void);

/*
 * context.topology: what the placements were planned on (source, allowed
 * CPUs, NUMA matrix, the distance classes present with an example pair).
 */
json_t *results_topology(const struct topo *topo);

/* One row in Google Benchmark's format, with the case's facts. */
json_t *results_row(const struct gbench_run *run, const struct bench_case *c);

/* A row results_row() made, as run --console shows it. */
struct results_row_view {
	const char *name;
	bool failed;			/* error_occurred */
	const char *error_message;
	double real_time;
	long long iterations;
	/* the user counters in the row's order (names owned by the row) */
	size_t nr_counters;
	struct result_counter *counters;
};

/*
 * Reads row into view; results_row_view_free() releases it. Returns 0, or
 * -1 when memory ran out: then the view has every field but the counters.
 */
int results_row_view(const json_t *row, struct results_row_view *view);
void results_row_view_free(struct results_row_view *view);

/*
 * The whole document ({context, benchmarks: the repetitions}), written
 * atomically with the aggregate rows after the repetitions (aggregates.h);
 * an existing file at path is replaced only if replace is true. Returns 0
 * or -1 with err.
 */
int results_write(const char *path, json_t *doc, bool replace, char *err, size_t errlen);

/*
 * A run's document as its journal kept it, finished: the counters as the
 * run's context has them at the end (a thread may have dropped an event
 * during the run) and, for a run that stopped early, context.incomplete
 * (why; NULL: it did not stop early).
 */
void results_finish_context(json_t *doc, json_t *context, const char *incomplete);

/* A results document's context.run_id (one per run), or NULL. */
const char *results_run_id(json_t *doc);

#endif
