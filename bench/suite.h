/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The suite: families x parameter values x variants x threads x
 * placements, expanded into cases and run under Google Benchmark.
 */
#ifndef BOUNCELAB_SUITE_H
#define BOUNCELAB_SUITE_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel.h"
#include "setting.h"
#include "topo.h"

#define SUITE_MAX_VALUES 64
#define SUITE_MAX_OVERRIDES 32
#define SUITE_MAX_PLACEMENTS 16
/*
 * A bound on the cases one run plans: sweeps multiply (64 thread counts x
 * 64 values x 64 values is 262144 cases, 3 GB of plans and weeks of
 * running). Hours of running at the defaults, well under 1 GB.
 */
#define SUITE_MAX_CASES 20000


struct suite_options {
	/*
	 * PCRE2 pattern on case names and on their rows' names in the
	 * results; "-PATTERN" keeps the cases it does not match
	 */
	const char *filter;
	unsigned int nr_threads;	/* 0: 1, 2, 4, ... up to the allowed CPUs */
	unsigned int threads[SUITE_MAX_VALUES];
	unsigned int nr_placements;	/* 0: compact */
	const char *placements[SUITE_MAX_PLACEMENTS];
	unsigned int nr_overrides;
	/* --param family.name=v1,v2: the values a parameter sweeps */
	struct param_option overrides[SUITE_MAX_OVERRIDES];
	int repetitions;
	double min_time;
	bool quick;			/* defaults and the settings the claims name */
	struct home_policy home;	/* where the shared state lives (--home) */
	bool console;			/* Google Benchmark's table on stdout */
	bool results_on_stdout;		/* --out -: the results file copied to stdout */
};

struct bench_case {
	const struct kernel_family *family;
	struct kernel_config cfg;
	struct placement placement;
	const struct topo *topo;
	char name[256];
	/*
	 * The home asked for (--home) and the OS node it binds to (-1: not
	 * bound to one node); the node the kernel says holds the family's
	 * first shared allocation after create (-errno: it could not say),
	 * and how many threads run on another node than that (-1: a
	 * thread's node is unknown, as in a build without hwloc).
	 */
	struct home_policy home;
	int home_node;
	int home_found;
	int home_threads_away;

	/* Per run: thread 0 creates the state before the start barrier. */
	void *state;
	atomic_uint at_start_line;	/* threads ready to start their clocks */
	atomic_bool abandoned;		/* a thread cannot run, so none does */
	uint64_t ops_done[KERNEL_MAX_THREADS];
	double thread_ns[KERNEL_MAX_THREADS];	/* each thread's timed span */
	char error[320];
};

struct suite {
	unsigned int nr_cases;
	struct bench_case *cases;
};

/*
 * The case's row name in the results, as Google Benchmark names it and
 * compare.py shows it: NAME/real_time/threads:N.
 */
void suite_row_name(const struct bench_case *c, char *buf, size_t len);

/*
 * Expands the options into cases. Returns 0, or 2 with err naming the bad
 * value (usage), or 1 (runtime).
 */
int suite_plan(const struct suite_options *opts, const struct topo *topo,
	       struct suite *suite, char *err, size_t errlen);
void suite_free(struct suite *suite);

/*
 * The case a run belongs to, by its registered name and thread count
 * (Google Benchmark adds the thread count to the name it reports), or NULL.
 */
struct bench_case *suite_find(struct suite *suite, const char *name,
			      unsigned int nr_threads);

/* The error of a run cut short by SIGINT or SIGTERM; its row is dropped. */
#define SUITE_INTERRUPTED "interrupted"

/* The body every case runs in each Google Benchmark thread. */
struct gbench_state;
void bench_case_run(struct gbench_state *state, void *arg);

/* Parses "1,2,4" into values. Returns 0, or -1 with err filled. */
int parse_uint_list(const char *what, const char *text, unsigned int max_value,
		    unsigned int *values, unsigned int *nr, char *err,
		    size_t errlen);

#endif
