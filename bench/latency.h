/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The core-to-core latency matrix, sampled: a few pairs of CPUs per
 * distance class rather than all n^2 (core-to-core-latency's users ask
 * for this when 576 CPUs time out), each measured with the pingpong
 * family's kernel on two bound threads.
 */
#ifndef BOUNCELAB_LATENCY_H
#define BOUNCELAB_LATENCY_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "kernel.h"
#include "topo.h"

struct latency_pair {
	int cpu_a;
	int cpu_b;
	enum distance_class cls;
	int numa_distance;
	unsigned int nr_samples;
	double *samples;		/* one-way ns per sample */
};

/*
 * Median, minimum and the 10th-90th percentile range of samples, and
 * whether they fall in two groups far apart (a VM whose host moves the
 * vCPUs: 60 or 250 ns one-way between the same two vCPUs), which a
 * median or a mean would hide.
 */
struct latency_summary {
	double median;
	double min;
	double p10;
	double p90;
	bool bimodal;
	double low_mode;		/* the groups' medians, if bimodal */
	double high_mode;
	double high_share;		/* the fraction in the slow group */
};

void latency_summarize(const double *samples, size_t n,
		       struct latency_summary *out);

/*
 * Picks up to per_class pairs of allowed CPUs for each class present
 * (same_pu excepted), spaced evenly through the pairs of that class.
 * Returns the number of pairs (caller frees *pairs and their samples).
 */
unsigned int latency_pick_pairs(const struct topo *topo, unsigned int per_class,
				struct latency_pair **pairs);

/*
 * Runs variant of family f (a two-thread ping-pong) on the pair's CPUs:
 * one warm-up sample, then nr_samples samples of round_trips each. A
 * stop asked (interrupt.h) ends it after the current sample, which is
 * not counted: pair->nr_samples says how many it took. Returns 0, or -1
 * with err filled (binding failed, verify failed).
 */
int latency_measure_pair(const struct topo *topo, const struct kernel_family *f,
			 unsigned int variant, unsigned int nr_samples,
			 unsigned int round_trips, struct latency_pair *pair,
			 char *err, size_t errlen);

/*
 * What a cold miss costs between cpu_a and cpu_b: a load of a line the
 * other CPU modified last and nobody fights over, in ns, the fastest of
 * nr_samples samples (a descheduled vCPU only adds time). Not a ping-pong
 * handoff: there the waiter's shared copy must first be invalidated
 * before its load can miss. Returns 0, or -1 with err filled.
 */
int latency_measure_fetch(const struct topo *topo, int cpu_a, int cpu_b,
			  unsigned int nr_samples, double *fetch_ns,
			  char *err, size_t errlen);

/*
 * How much of the CPUs this process gets: one thread spins on each of
 * cpus[] for seconds, and *share is the least CPU time any of them got
 * over its wall time (1: the CPUs were ours; 0.5: other work took half).
 * A ping-pong needs both its threads running at once, so a share well
 * below 1 makes every contention figure a measure of the scheduler.
 * Returns 0, or -1 with err filled.
 */
int latency_measure_cpu_share(const struct topo *topo, const int *cpus, unsigned int nr_cpus,
			      double seconds, double *share, char *err, size_t errlen);

/* One distance class's samples pooled over its pairs. */
struct latency_class {
	enum distance_class cls;
	unsigned int nr_pairs;
	unsigned int nr_samples;
	struct latency_summary s;
};

/*
 * The summary of class cls over pairs[]. Returns 0, or -1 when no pair
 * of that class has a sample (or memory ran out): the class is left out.
 */
int latency_class_summarize(const struct latency_pair *pairs, unsigned int nr,
			    enum distance_class cls, struct latency_class *out);

/* Per-class summaries and every pair's samples, for the report's heatmap. */
json_t *latency_json(const struct topo *topo, const char *variant,
		     unsigned int round_trips, const struct latency_pair *pairs,
		     unsigned int nr_pairs);

#endif
