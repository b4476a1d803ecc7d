/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The contention model: what a variant costs per operation at N threads,
 * predicted from what one thread costs and how far its lines travel.
 *
 * Each thread is a customer of a closed queueing network (Lazowska et
 * al., Quantitative System Performance, 1984, ch. 6-7). Its private work,
 * measured with one thread, is a delay centre. Every line that several
 * threads use and some write is a queueing centre: only one CPU can own
 * the line, and handing it on costs a one-way transfer between the CPUs
 * involved, from the machine profile's latency per distance class. The
 * network is solved exactly by Mean Value Analysis; model_doc.md (in this
 * folder) derives it and lists what it leaves out.
 */
#ifndef BOUNCELAB_MODEL_H
#define BOUNCELAB_MODEL_H

#include <stdbool.h>
#include <stddef.h>

#include "kernel.h"
#include "profile_read.h"
#include "topo.h"

/* ---- the solver ---- */

#define MVA_MAX_CENTRES 8

struct mva_result {
	double throughput;		/* operations per ns, all customers */
	double cycle;			/* ns per operation per customer: N / throughput */
	double residence[MVA_MAX_CENTRES];	/* ns per operation at each centre, all copies */
	double utilisation[MVA_MAX_CENTRES];	/* of one copy, 0..1 */
};

/*
 * Exact single-class MVA for n customers: think ns of delay per operation,
 * and nr kinds of queueing centre. Kind k has copies[k] identical copies
 * and each operation puts demand[k] ns on one of them, chosen at random
 * (product form: the same as copies[k] centres of demand[k] / copies[k]). Returns 0, or -1 when the input is not a
 * network (a negative or non-finite number, fewer than one copy, too many
 * kinds, n = 0).
 */
int mva_solve(double think, const double *demand, const double *copies,
	      unsigned int nr, unsigned int n, struct mva_result *out);

/* ---- machines ---- */

#define MODEL_PAIR_CACHE 32

struct machine_profile {
	char name[PROFILE_NAME_LEN];
	char title[PROFILE_TITLE_LEN];
	/* hwloc synthetic string or XML file; "" for the running system */
	char topology[PROFILE_TOPOLOGY_LEN];
	unsigned int nr_cpus;
	double clock_ghz;		/* 0: unknown (private costs are not scaled) */
	/*
	 * Store-buffer entries: how many plain stores a CPU runs on while
	 * their line is away; 0: none (not x86, or unknown)
	 */
	unsigned int store_buffer;
	/*
	 * The share of its tenure an owner's visits get before the next
	 * request takes the line, measured on a run (model_doc.md, "The
	 * tenure's share"): [0] for operations whose plain stores nothing
	 * drains (the store buffer's run-on too), [1] for those with a locked
	 * op, a cmpxchg or a fence. <= 0: not measured, all of it.
	 */
	double tenure_share[2];
	double one_way_ns[NR_DISTANCE_CLASSES];	/* <= 0: not given */
	/*
	 * A cold miss: a load of a line the other CPU modified last, which
	 * nobody fights over (latency_measure_fetch()); <= 0: not given, and
	 * a cold miss is charged a one-way transfer.
	 */
	double cold_miss_ns[NR_DISTANCE_CLASSES];
	/*
	 * A cold miss as a share of the one-way transfer at its class,
	 * measured on a run (model_doc.md, "The cold share"): what a line
	 * another CPU wrote last costs a thread that goes on working while
	 * it comes. > 0: taken instead of cold_miss_ns.
	 */
	double cold_share;
	/*
	 * The extra cost of a transfer whose line's home is on another node
	 * than the CPU that asks for it (the home node's directory or home
	 * agent sits on the way), with its source; <= 0: not given, and a
	 * remote home is predicted as a local one. home_away is the caller's:
	 * the share of the threads whose line is homed on another node (0:
	 * local, 1: every thread remote; a row's threads_away / threads).
	 */
	double remote_home_ns;
	char remote_home_source[240];
	double home_away;
	/*
	 * What a requester queued at a saturated line adds to each handoff
	 * beyond the next one in line (model_doc.md, "Waiters"), ns; 0: nothing.
	 */
	double waiter_ns;
	char waiter_source[240];
	char tenure_source[240];	/* where a profile's tenure_share[1] comes from */
	char source[NR_DISTANCE_CLASSES][240];	/* where each number comes from */
	char clock_source[240];
	char store_buffer_source[240];
	struct topo *topo;
	/* placements' pairs by class, which model_predict() reuses */
	struct {
		char policy[64];
		unsigned int threads, count;
		double pairs[NR_DISTANCE_CLASSES];
	} cache[MODEL_PAIR_CACHE];
	unsigned int nr_cached;
};

/*
 * Store-buffer entries of a CPU, the one table that this machine's
 * profile, the report's prediction and the fleet table all take: by the
 * cpuid vendor and display family (-1: not known); a results file older
 * than context.cpu gives vendor NULL and its brand string, which names
 * the vendor only. 0 for a CPU the table lacks (no stores assumed
 * hidden). source (or NULL) gets where the number comes from.
 */
unsigned int machine_store_buffer(const char *vendor, long family, const char *brand,
				  char *source, size_t len);

struct run_context;

/*
 * The machine behind a results file: the one constructor the report's
 * prediction, its fleet table and `bouncelab model --results` take. Its
 * store buffer is the CPU's that the context names (machine_store_buffer());
 * its topology either the two CPUs of one 2-thread case (whole false: the
 * prediction checks each case at its own transfer), or the whole machine
 * as the context records it (CPUs, NUMA nodes, the distance classes
 * present), which every thread count's placements are planned on. The
 * latencies and shares are the caller's to fill, from the run's rows
 * (report/analysis.h). Returns 0, or -1 with why: a shape the context
 * does not pin down (several L3s per package: how many?), or no topology
 * recorded; nothing is left open then.
 */
int machine_profile_of_run(const struct run_context *run, const char *name, bool whole,
			   struct machine_profile *m, char *why, size_t len);

/* A machine profile is far smaller than this. */
#define PROFILE_MAX_BYTES (16UL << 20)

/*
 * Reads a machine profile (JSON, see model/profiles/) by the rule for
 * every input file (input_file.h). Returns 0, or -1 with err naming the
 * file, the field and what was expected, or -2 when memory ran out (err
 * says so); nothing is left open then, and m is left all zero.
 */
int machine_profile_load(const char *path, struct machine_profile *m,
			 char *err, size_t errlen);
/*
 * Reads the profile shipped as NAME.json in the data directory's
 * profiles/ (data_dir_find()). An unknown name is an error that lists the
 * shipped ones; no data directory, one that names where it looked.
 */
int machine_profile_load_shipped(const char *name, struct machine_profile *m,
				 char *err, size_t errlen);
/*
 * The running system: its topology, clock and store buffer from
 * /proc/cpuinfo; the latencies are the caller's to fill (measured).
 */
int machine_profile_this(struct machine_profile *m, char *err, size_t errlen);
void machine_profile_close(struct machine_profile *m);

/* The clock this process runs at, from /proc/cpuinfo; 0 when unknown. */
double model_this_clock_ghz(void);

/* ---- predictions ---- */

struct model_prediction {
	unsigned int nr_threads;
	double ns_per_op;		/* per thread, as the harness reports it */
	double ops_per_s;		/* all threads together */
	double private_ns;		/* the delay: private work + cold transfers */
	/* the busiest line: its name (a static string, NULL if none) and busy share */
	const char *bottleneck;
	double busy;
	double transfer_ns;		/* mean one-way transfer on that line, any two sharers */
	/*
	 * The mean one-way transfer of a handoff on it: transfer_ns, or less
	 * where a domain's waiters go first. A handoff keeps the line twice
	 * that: the transfer and the new owner's tenure.
	 */
	double handoff_ns;
	double local_handoffs;		/* handoffs within a cache domain per domain visit */
	/* ns more each handoff takes for the requesters queued beyond the next (Waiters) */
	double waiters_ns;
	double retries;			/* cmpxchg retries per success */
};

/*
 * Predicts cfg (variant, parameters, nr_threads) of family f on machine m
 * with threads placed by policy (NULL: compact). private_ns is the
 * variant's 1-thread ns/op measured at private_ghz (0: do not scale).
 * Returns 0, or -1 with err filled (a class the profile gives no latency
 * for, more threads than CPUs, a family without an access profile).
 */
int model_predict(struct machine_profile *m, const struct kernel_family *f,
		  const struct kernel_config *cfg, double private_ns,
		  double private_ghz, const char *policy,
		  struct model_prediction *out, char *err, size_t errlen);

/*
 * For a fleet table: the prediction for one measured row of a results
 * file, on machine m, given the same case's 1-thread ns/op. A thin
 * wrapper over model_predict() that builds the configuration from the
 * family's parameter names and values (params[i] for names[i]).
 */
int model_predict_case(struct machine_profile *m, const char *family,
		       const char *variant, unsigned int nr_names,
		       const char *const *names, const long *values,
		       unsigned int nr_threads, double private_ns,
		       double private_ghz, struct model_prediction *out,
		       char *err, size_t errlen);

#endif
