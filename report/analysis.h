/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the report says about each table, computed once: the best variant
 * at each thread count and every variant's ratio to it, speedups over one
 * thread, Universal Scalability Law fits, and the family's before/after
 * pair. The markdown, the plots and the CSV all read from here, so a
 * number is computed in one place and quoted everywhere the same.
 */
#ifndef BOUNCELAB_ANALYSIS_H
#define BOUNCELAB_ANALYSIS_H

#include "cases.h"
#include "host_modes.h"
#include "kernel.h"
#include "stats.h"
#include "usl.h"

struct case_view {
	const struct result_case *c;
	/* the fastest contending variant at this thread count, or NULL */
	const struct result_case *best;
	struct stats_ratio vs_best;	/* ns per op of c over best's */
	double p_vs_best;		/* U test; NaN for best itself */
	bool has_speedup;
	struct stats_ratio speedup;	/* ops/s over the same variant's at 1 thread */
};

/* The family's before and after variants at one thread count. */
struct pair_view {
	long threads;
	const struct result_case *before, *after;
	struct stats_ratio gain;	/* before's ns per op over after's */
	double p;
};

struct variant_view {
	const char *name;
	const char *models;	/* what it stands for (catalogue), or NULL */
	bool baseline;
	bool fitted;
	struct usl_fit fit;
};

/* One table: a family's setting on one machine. */
struct group_view {
	const struct result_group *group;
	unsigned int number;	/* within its family and file, from 1 */
	bool is_default;	/* every parameter at the catalogue's default */
	bool pingpong;		/* rows carry one_way_ns: the physical baseline */
	/*
	 * A parameter that splits threads into roles (last_nidpid's readers)
	 * is set: thread counts run different mixes, so no speedups or fits.
	 */
	const char *mix_param;
	size_t nr_threads;
	long *threads;		/* ascending */
	size_t nr_variants;
	struct variant_view *variants;	/* catalogue order */
	struct case_view *cases;	/* parallel to the group's cases */
	const char *before, *after;	/* the pair's variant names, or NULL */
	size_t nr_pairs;
	struct pair_view *pairs;
	size_t nr_counter_names;
	const char **counter_names;	/* union over the cases, first seen first */
};

/* A family on one machine: its groups, consecutive. */
struct family_view {
	const char *name;
	const struct kernel_family *kf;	/* NULL: not in this catalogue */
	unsigned int file;
	size_t first_group, nr_groups;
	size_t default_group;		/* the verdict's table */
	bool pingpong;
};

/* One round's one-way transfer: a repetition of the physical baseline. */
struct transfer_sample {
	unsigned int file, source_file;
	const char *cls;	/* distance class, or NULL: not recorded */
	long round;		/* -1: not run in rounds */
	double one_way_ns;
};

struct analysis {
	const struct results *set;
	const struct result_cases *cases;
	size_t nr_groups;
	struct group_view *groups;
	size_t nr_families;
	struct family_view *families;	/* by catalogue order, then file */
	/* the host's modes in each file's rounds (set->nr_files of them) */
	struct host_modes *modes;
	/* every repetition of the physical baseline, in the set's order */
	size_t nr_transfers;
	struct transfer_sample *transfers;
};

/*
 * a's values of a metric over b's, with p. Paired by round when both are
 * from one file run in rounds and every repetition has the metric (va
 * parallel to a->rounds): the median of the per-round ratios and the sign
 * test (stats_ratio_by_round()). Otherwise, or with too few common
 * rounds, the ratio of medians, its bootstrap interval and the U test.
 * Returns 0, or -1 without memory.
 */
int analysis_compare(const struct result_case *a, const double *va, size_t na,
		     const struct result_case *b, const double *vb, size_t nb,
		     struct stats_ratio *r, double *p);

/* Returns 0, or -1 without memory. */
int analysis_build(const struct results *set, const struct result_cases *cases,
		   struct analysis *out);
void analysis_free(struct analysis *a);

/* The view of a variant at a thread count in a group, or NULL. */
const struct case_view *group_view_find(const struct analysis *a,
					const struct group_view *g,
					const char *variant, long threads);

/*
 * The group of f whose parameters are those setting names ("update=plain,
 * pin_work=0"; the parameters it does not name at their defaults), or
 * NULL: not measured, or a name or value f's family does not know.
 */
const struct group_view *analysis_find_setting(const struct analysis *a,
					       const struct family_view *f,
					       const char *setting);

/* The pair at a thread count, or NULL. */
const struct pair_view *group_view_pair(const struct group_view *g,
					long threads);

/*
 * A distance class's place from nearest to farthest, as topo/topo.h
 * names them (same_pu, smt, l2, l3, package, numa, cross_package);
 * unknown classes last.
 */
int distance_rank(const char *cls);

/*
 * The cases of a ping-pong family (those with a one_way_ns counter),
 * nearest distance class first. out holds room for every case. Returns
 * how many.
 */
size_t analysis_one_way_cases(const struct analysis *a,
			      const struct family_view *f,
			      const struct result_case **out);

/*
 * The one-way transfer between two CPUs of distance class cls: the one
 * definition that the prediction, the fleet table and every other reader
 * of a run's latency take. It is the catalogue's physical baseline (the
 * first variant of a family whose metric is one_way_ns: pingpong's
 * store_load, which the claims compare with), the median of its
 * repetitions at cls in one results file (source_file, as read), or over
 * every file pooled into one machine (analysis_machine_one_way_ns()).
 * Where there is none at cls (or cls is NULL), the nearest class beyond
 * SMT siblings stands in, else the nearest measured. NAN: no baseline.
 */
double analysis_one_way_ns(const struct analysis *a, unsigned int source_file,
			   const char *cls);
double analysis_machine_one_way_ns(const struct analysis *a, unsigned int file,
				   const char *cls);

/*
 * The one-way transfer one round of a results file measured at cls (the
 * class chosen as above): the host may place the vCPUs near in one round
 * and far in the next. NAN when that round has none.
 */
double analysis_one_way_in_round(const struct analysis *a, unsigned int source_file,
				 const char *cls, long round);

/*
 * A variant's 1-thread cost in a group (a family's setting on one
 * machine): the median ns/op of its 1-thread repetitions, the private
 * work the model adds contention to. The fleet table and `bouncelab
 * model --results` take it; NAN when the group has no such case.
 */
double analysis_one_thread_ns(const struct analysis *a, const struct group_view *g,
			      const char *variant);

/*
 * The cold miss the model charges in a results file's rounds whose one-way
 * transfer was one_way: the miss the run measured (context.cold_miss_ns)
 * where it is within a factor 2 of the transfer, else the transfer. The
 * miss is measured once, before the rounds, in whatever placement the
 * host gave the vCPUs then, and the rounds may run in another: on the
 * 2-vCPU EPYC guests the two are near each other in one placement
 * (149-159 ns where the transfer took 213-237, 36-40 where it took
 * 31-43), and a Zen 3 sweep measured 158.6 ns at the start with its
 * rounds at a median of 42.9.
 */
double analysis_cold_miss_ns(const struct analysis *a, unsigned int source_file,
			     double one_way);

/* The largest thread count at which the pair was measured, or NULL. */
const struct pair_view *group_view_widest_pair(const struct group_view *g);

#endif
