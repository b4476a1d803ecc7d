// SPDX-License-Identifier: GPL-2.0-only
/*
 * Topology without hwloc: the allowed CPUs from sched_getaffinity(), in
 * number order. Nothing is known of cores, caches or nodes, so every pair
 * of two CPUs is of unknown distance and only compact, spread (the same
 * order) and cpus:LIST can be planned. Binding is sched_setaffinity().
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "topo_internal.h"

struct topo_binding {
	cpu_set_t set;
};

struct topo *topo_open(const char *spec, char *err, size_t errlen)
{
	struct topo *topo;
	cpu_set_t set;
	unsigned int n = 0;

	if (spec) {
		snprintf(err, errlen,
			 "topology '%s': this build has no hwloc to read it (rebuild with -Dhwloc=enabled)",
			 spec);
		return NULL;
	}
	if (sched_getaffinity(0, sizeof(set), &set)) {
		snprintf(err, errlen, "sched_getaffinity: %s", strerror(errno));
		return NULL;
	}
	topo = calloc(1, sizeof(*topo));
	if (!topo || topo_alloc_cpus(topo, (unsigned int)CPU_COUNT(&set))) {
		free(topo);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	for (int cpu = 0; cpu < CPU_SETSIZE && n < topo->nr_cpus; cpu++) {
		if (!CPU_ISSET(cpu, &set))
			continue;
		topo->compact[n] = topo->spread[n] = cpu;
		topo->core_of[n++] = -1;
	}
	topo->this_system = true;
	snprintf(topo->description, sizeof(topo->description),
		 "this system (no hwloc: CPUs only)");
	return topo;
}

void topo_close(struct topo *topo)
{
	if (!topo)
		return;
	topo_free_cpus(topo);
	free(topo);
}

enum distance_class topo_classify(const struct topo *topo, int cpu_a,
				  int cpu_b)
{
	(void)topo;
	return cpu_a == cpu_b && cpu_a >= 0 ? DISTANCE_SAME_PU : DISTANCE_UNKNOWN;
}

int topo_numa_distance(const struct topo *topo, int cpu_a, int cpu_b)
{
	(void)topo;
	(void)cpu_a;
	(void)cpu_b;
	return -1;
}

int topo_numa_node_of(const struct topo *topo, int cpu)
{
	(void)topo;
	(void)cpu;
	return -1;
}

unsigned int topo_nr_numa_nodes(const struct topo *topo)
{
	(void)topo;
	return 0;
}

int topo_numa_node_distance(const struct topo *topo, unsigned int from,
			    unsigned int to)
{
	(void)topo;
	(void)from;
	(void)to;
	return -1;
}

int topo_numa_node_os_index(const struct topo *topo, unsigned int node)
{
	(void)topo;
	(void)node;
	return -1;
}

void topo_format_numa_node_cpus(const struct topo *topo, unsigned int node,
				char *buf, size_t len)
{
	(void)topo;
	(void)node;
	if (len)
		buf[0] = '\0';
}

int topo_set_numa_distances(struct topo *topo, unsigned int nr_values,
			    const uint64_t *values, char *err, size_t errlen)
{
	(void)topo;
	(void)nr_values;
	(void)values;
	snprintf(err, errlen, "NUMA distances: this build has no hwloc");
	return -1;
}

int topo_numa_local_distance(const struct topo *topo)
{
	(void)topo;
	return -1;
}

int topo_numa_node_bandwidth(const struct topo *topo, unsigned int from,
			     unsigned int to)
{
	(void)topo;
	(void)from;
	(void)to;
	return -1;
}

/* sched_getaffinity() says nothing of kinds: none known, none mixed. */
unsigned int topo_nr_cpu_kinds(const struct topo *topo)
{
	(void)topo;
	return 0;
}

int topo_cpu_kind(const struct topo *topo, int cpu)
{
	(void)topo;
	(void)cpu;
	return -1;
}

void topo_format_cpu_kind(const struct topo *topo, unsigned int kind,
			  char *buf, size_t len)
{
	(void)topo;
	(void)kind;
	if (len)
		buf[0] = '\0';
}

bool topo_share_memory_side_cache(const struct topo *topo, int cpu_a,
				  int cpu_b)
{
	(void)topo;
	(void)cpu_a;
	(void)cpu_b;
	return false;
}

void topo_print_tree(const struct topo *topo, FILE *out)
{
	char cpus[512];

	topo_format_allowed(topo, cpus, sizeof(cpus));
	fprintf(out, "Machine (no hwloc in this build: cores, caches and nodes unknown)\n"
		"  CPUs %s\n", cpus);
}

int topo_bind_self(const struct topo *topo, int cpu)
{
	cpu_set_t set;

	if (cpu < 0 || cpu >= CPU_SETSIZE || !topo_cpu_is_allowed(topo, cpu))
		return -EINVAL;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		return -errno;
	return 0;
}

struct topo_binding *topo_save_binding(const struct topo *topo)
{
	struct topo_binding *b = malloc(sizeof(*b));

	(void)topo;
	if (b && sched_getaffinity(0, sizeof(b->set), &b->set)) {
		free(b);
		return NULL;
	}
	return b;
}

void topo_restore_binding(const struct topo *topo, struct topo_binding *saved)
{
	(void)topo;
	if (!saved)
		return;
	sched_setaffinity(0, sizeof(saved->set), &saved->set);
	free(saved);
}

/* Without hwloc no node is known: plain memory, placed by the first touch. */
void *topo_home_alloc(const struct topo *topo, int node, bool interleave,
		      size_t size)
{
	void *p;

	(void)topo;
	if (node >= 0 || interleave)
		return NULL;
	p = aligned_alloc((size_t)sysconf(_SC_PAGESIZE), size);
	if (p)
		memset(p, 0, size);
	return p;
}

void topo_home_free(const struct topo *topo, void *p, size_t size)
{
	(void)topo;
	(void)size;
	free(p);
}
