/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Topology: which CPUs this process may use, how far apart two of them
 * are, where a policy places N threads, and binding the calling thread.
 */
#ifndef BOUNCELAB_TOPO_H
#define BOUNCELAB_TOPO_H

#include <stdbool.h>
#include <stddef.h>

/* From nearest to farthest: a placement's widest class is the largest. */
enum distance_class {
	DISTANCE_SAME_PU,
	DISTANCE_SMT,		/* hardware threads of one core */
	DISTANCE_L2,		/* cores sharing an L2 */
	DISTANCE_L3,		/* cores sharing an L3 */
	DISTANCE_PACKAGE,	/* same package, no shared cache */
	DISTANCE_NUMA,		/* another NUMA node of the same package */
	DISTANCE_CROSS_PACKAGE,
	DISTANCE_UNKNOWN,
	NR_DISTANCE_CLASSES
};

#define PLACEMENT_MAX_CPUS 1024

struct placement {
	char policy[64];
	unsigned int nr_cpus;
	int cpus[PLACEMENT_MAX_CPUS];	/* OS CPU numbers, thread t on cpus[t] */
	enum distance_class widest;
	int numa_distance;		/* between the farthest threads; -1: unknown */
};

struct topo;

/*
 * Opens this system's topology (spec NULL) or a synthetic description /
 * XML file. Returns NULL with err filled on failure.
 */
struct topo *topo_open(const char *spec, char *err, size_t errlen);
void topo_close(struct topo *topo);

/* True when the topology is the running system, so binding is real. */
bool topo_is_this_system(const struct topo *topo);
unsigned int topo_nr_allowed_cpus(const struct topo *topo);

/*
 * Plans where nr_threads threads go under policy. Returns 0, or -1 with
 * err naming the policy and what was expected (a usage error).
 */
int topo_plan(const struct topo *topo, const char *policy,
	      unsigned int nr_threads, struct placement *out,
	      char *err, size_t errlen);

/* Binds the calling thread to one OS CPU. Returns 0 or -errno. */
int topo_bind_self(const struct topo *topo, int cpu);

/* Saves and restores the calling thread's affinity (thread 0 is main). */
struct topo_binding;
struct topo_binding *topo_save_binding(const struct topo *topo);
void topo_restore_binding(const struct topo *topo, struct topo_binding *saved);

const char *distance_class_name(enum distance_class cls);
/* A class by name, or -1. */
int distance_class_parse(const char *name);

#endif
