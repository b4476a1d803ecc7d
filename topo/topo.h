/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Topology: which CPUs this process may use, how far apart two of them
 * are, where a policy places N threads, and binding the calling thread.
 *
 * CPUs are named by their OS numbers (what taskset and sched_getcpu use).
 * With hwloc the topology can also be a synthetic description or an XML
 * file: it is then planned on but never bound to.
 */
#ifndef BOUNCELAB_TOPO_H
#define BOUNCELAB_TOPO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* From nearest to farthest: a placement's widest class is the largest. */
enum distance_class {
	DISTANCE_SAME_PU,
	DISTANCE_SMT,		/* hardware threads of one core */
	DISTANCE_L2,		/* cores sharing an L2 (or an L1) */
	DISTANCE_L3,		/* cores sharing an L3 */
	DISTANCE_PACKAGE,	/* same package and NUMA node, no shared cache */
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
	bool mixes_cpu_kinds;		/* threads on CPUs of different kinds */
};

struct topo;

/*
 * Opens this system's topology (spec NULL), or a synthetic description
 * ("pack:2 numa:1 core:64 pu:2"), an XML file (a path that exists or ends
 * in .xml) or a directory hwloc-gather-topology wrote (sys/ and proc/
 * inside). hwloc's HWLOC_FSROOT, HWLOC_SYNTHETIC and HWLOC_XMLFILE also
 * apply when spec is NULL. Any of these is another machine's as far as
 * binding goes, HWLOC_THISSYSTEM or not. Returns NULL with err filled on
 * failure.
 */
struct topo *topo_open(const char *spec, char *err, size_t errlen);

/*
 * Whether topo_open(spec) reads a topology the user gave (spec, or hwloc's
 * HWLOC_XMLFILE, HWLOC_SYNTHETIC or HWLOC_FSROOT): its failure is then bad input (exit
 * 2), not this system's topology failing to read (exit 1).
 */
bool topo_from_user(const char *spec);

/*
 * The first of hwloc's environment variables that would have it read
 * files bouncelab cannot check (HWLOC_CPUID_PATH, ...), if one is set:
 * such a topology is refused. NULL when none is.
 */
const char *topo_unread_env(void);
/*
 * The hwloc variable a topology opened with spec NULL comes from, in
 * hwloc's order (HWLOC_FSROOT, HWLOC_SYNTHETIC, HWLOC_XMLFILE), or NULL
 * when it is this system's: what to unset to run here.
 */
const char *topo_source_env(void);
void topo_close(struct topo *topo);

/* True when the topology is the running system, so binding is real. */
bool topo_is_this_system(const struct topo *topo);
/* "this system", "synthetic 'pack:2 ...'", "XML file x.xml" */
const char *topo_describe(const struct topo *topo);

/* The CPUs this process may use (cgroups and taskset), in tree order. */
unsigned int topo_nr_allowed_cpus(const struct topo *topo);
int topo_allowed_cpu(const struct topo *topo, unsigned int i);
bool topo_cpu_is_allowed(const struct topo *topo, int cpu);
/* "0-1,4": the allowed CPUs as a list. */
void topo_format_allowed(const struct topo *topo, char *buf, size_t len);

/* How far apart two CPUs are, and the NUMA distance between their nodes. */
enum distance_class topo_classify(const struct topo *topo, int cpu_a,
				  int cpu_b);
/* -1 when the OS (or the user) gave no distance matrix. */
int topo_numa_distance(const struct topo *topo, int cpu_a, int cpu_b);
/* The logical index of the CPU's NUMA node, or -1. */
int topo_numa_node_of(const struct topo *topo, int cpu);

/* NUMA nodes by logical index, and their distance matrix (-1: unknown). */
unsigned int topo_nr_numa_nodes(const struct topo *topo);
int topo_numa_node_distance(const struct topo *topo, unsigned int from,
			    unsigned int to);
/* The node's OS number and its CPUs as a list ("0-63,128-191"). */
int topo_numa_node_os_index(const struct topo *topo, unsigned int node);
void topo_format_numa_node_cpus(const struct topo *topo, unsigned int node,
				char *buf, size_t len);

/*
 * Sets the NUMA distance matrix (nr_nodes x nr_nodes values, row-major,
 * latency-like: 10 local), e.g. on a synthetic topology, which has none.
 * Returns 0, or -1 with err filled.
 */
int topo_set_numa_distances(struct topo *topo, unsigned int nr_values,
			    const uint64_t *values, char *err, size_t errlen);

/* The largest NUMA distance taken (10 is local, hwloc's and ACPI's unit). */
#define TOPO_MAX_NUMA_DISTANCE 1000000

/*
 * The one reader of a NUMA matrix as text ("--numa-distances", a machine
 * profile's "numa_distances"): N x N positive integers row by row, or
 * LOCAL,REMOTE for every pair; set as topo_set_numa_distances() does.
 * Returns 0, or -1 with err naming the value and what was expected.
 */
int topo_parse_numa_distances(struct topo *topo, const char *text, char *err,
			      size_t errlen);

/*
 * The local value of the NUMA matrix, its diagonal (10 from the ACPI SLIT,
 * 1 in some hand-made matrices), or -1 when there is no matrix or the
 * diagonal is not one value.
 */
int topo_numa_local_distance(const struct topo *topo);

/*
 * A NUMA bandwidth matrix (higher is nearer), when the topology has one:
 * never used to place, only shown. -1: unknown.
 */
int topo_numa_node_bandwidth(const struct topo *topo, unsigned int from,
			     unsigned int to);

/*
 * CPU kinds (hybrid cores: P and E), as hwloc ranks them: kind 0 is the
 * most power-efficient. 0 kinds when the topology records none.
 */
unsigned int topo_nr_cpu_kinds(const struct topo *topo);
/* The kind of an OS CPU, or -1 when unknown. */
int topo_cpu_kind(const struct topo *topo, int cpu);
/* "CPUs 0-3: efficiency 0, CoreType=IntelAtom": one kind, for people. */
void topo_format_cpu_kind(const struct topo *topo, unsigned int kind,
			  char *buf, size_t len);

/*
 * Whether both CPUs sit under one memory-side cache (KNL's MCDRAM in cache
 * mode, HWLOC_OBJ_MEMCACHE). It caches memory for them; it is no CPU cache
 * level, so it never makes their distance class l2 or l3.
 */
bool topo_share_memory_side_cache(const struct topo *topo, int cpu_a,
				  int cpu_b);

/* The tree: packages, NUMA nodes, caches, cores and PUs. */
void topo_print_tree(const struct topo *topo, FILE *out);

/* One pair of allowed CPUs of each class found here (cpu_a < 0: none). */
struct topo_class_example {
	int cpu_a;
	int cpu_b;
	int numa_distance;
};

/* Fills one example per class; returns how many classes are present. */
unsigned int topo_classes_present(const struct topo *topo,
				  struct topo_class_example ex[NR_DISTANCE_CLASSES]);
/* "same_pu, smt, l3": the classes present, for messages. */
void topo_format_classes_present(const struct topo *topo, char *buf,
				 size_t len);

/* topo_plan()'s errors: the policy is wrong, or not for this many threads. */
#define TOPO_PLAN_BAD_POLICY (-1)
#define TOPO_PLAN_BAD_THREADS (-2)

/*
 * Plans where nr_threads threads go under policy:
 *   compact     SMT siblings first, then the cores of one L2/L3, outward;
 *   spread      one thread per package or NUMA node first, then per L3,
 *               then per core;
 *   cores       one thread per physical core, never two on one core;
 *   pair:CLASS  exactly two threads that class apart;
 *   cpus:LIST   an explicit list, e.g. cpus:0,4,8 or cpus:0-3.
 * compact and spread wrap around when there are more threads than CPUs.
 * Returns 0, or TOPO_PLAN_BAD_POLICY / TOPO_PLAN_BAD_THREADS with err
 * naming the value and what was expected (a usage error).
 */
int topo_plan(const struct topo *topo, const char *policy,
	      unsigned int nr_threads, struct placement *out,
	      char *err, size_t errlen);

/*
 * The thread count a policy places when none is given: 2 for pair:, the
 * list's length for cpus:, one per core for cores, else every allowed CPU.
 */
unsigned int topo_policy_default_threads(const struct topo *topo,
					 const char *policy);

/* True when two threads of the placement share a CPU. */
bool placement_shares_cpu(const struct placement *pl);

/*
 * Binds the calling thread to one allowed OS CPU. Returns 0 or -errno:
 * -EINVAL for a CPU this process may not use, -EOPNOTSUPP on a topology
 * that is not this system.
 */
int topo_bind_self(const struct topo *topo, int cpu);

/* Saves and restores the calling thread's affinity (thread 0 is main). */
struct topo_binding;
struct topo_binding *topo_save_binding(const struct topo *topo);
void topo_restore_binding(const struct topo *topo, struct topo_binding *saved);

/*
 * The home of a run's shared state: the NUMA node its memory is bound to.
 * A contended line's transfers go through its home node's directory (or
 * home agent) on most multi-socket machines, so a line homed on another
 * node than its users costs more per transfer.
 */
enum home_kind {
	HOME_DEFAULT,		/* not bound: the first touch, by thread 0 */
	HOME_LOCAL,		/* bound to thread 0's node */
	HOME_REMOTE,		/* bound to the node nearest thread 0's but not it */
	HOME_NODE,		/* bound to one node, by OS number */
	HOME_INTERLEAVE,	/* pages spread over every node */
};

struct home_policy {
	enum home_kind kind;
	int node;		/* HOME_NODE: the OS number */
	char name[32];		/* as given: "remote", "node:1" */
};

/*
 * Parses local, remote, node:N or interleave. Returns 0, or -1 with err
 * naming the value and what was expected.
 */
int home_parse(const char *text, struct home_policy *out, char *err,
	       size_t errlen);

/*
 * The OS node to bind a run's shared state to when its first thread runs
 * on first_cpu: -1 for HOME_DEFAULT and HOME_INTERLEAVE (nothing to bind
 * to one node). Returns 0, or -1 with err saying why this machine cannot
 * (one NUMA node, no such node): a usage error.
 */
int topo_home_node(const struct topo *topo, const struct home_policy *home,
		   int first_cpu, int *node, char *err, size_t errlen);

/*
 * size bytes (a multiple of the page size), zeroed, bound to OS node
 * node, or interleaved over every node (node -1, interleave), or plain
 * (node -1). NULL when the memory cannot be had there: strict, never
 * elsewhere.
 */
void *topo_home_alloc(const struct topo *topo, int node, bool interleave,
		      size_t size);
void topo_home_free(const struct topo *topo, void *p, size_t size);

/*
 * The OS node that holds the page at addr, asked of the kernel
 * (move_pages(2) in query mode), or -errno: what is, not what was asked.
 */
int topo_node_of_address(const void *addr);
/*
 * The same asked another way, get_mempolicy(MPOL_F_NODE | MPOL_F_ADDR):
 * the two must agree on a page that is present.
 */
int topo_node_of_address_policy(const void *addr);

/* The OS node of a CPU, or -1. */
int topo_os_node_of_cpu(const struct topo *topo, int cpu);

const char *distance_class_name(enum distance_class cls);
/* A class by name, or -1. */
int distance_class_parse(const char *name);

#endif
