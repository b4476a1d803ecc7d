// SPDX-License-Identifier: GPL-2.0-only
/*
 * Topology without hwloc: the allowed CPUs from sched_getaffinity, in
 * order. Every pair is of unknown distance.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topo.h"

struct topo {
	unsigned int nr_cpus;
	int cpus[PLACEMENT_MAX_CPUS];
};

struct topo_binding {
	cpu_set_t set;
};

static const char *const class_names[NR_DISTANCE_CLASSES] = {
	[DISTANCE_SAME_PU] = "same_pu",
	[DISTANCE_SMT] = "smt",
	[DISTANCE_L2] = "l2",
	[DISTANCE_L3] = "l3",
	[DISTANCE_PACKAGE] = "package",
	[DISTANCE_NUMA] = "numa",
	[DISTANCE_CROSS_PACKAGE] = "cross_package",
	[DISTANCE_UNKNOWN] = "unknown",
};

const char *distance_class_name(enum distance_class cls)
{
	return cls < NR_DISTANCE_CLASSES ? class_names[cls] : "unknown";
}

int distance_class_parse(const char *name)
{
	for (int i = 0; i < NR_DISTANCE_CLASSES; i++)
		if (!strcmp(class_names[i], name))
			return i;
	return -1;
}

struct topo *topo_open(const char *spec, char *err, size_t errlen)
{
	struct topo *topo;
	cpu_set_t set;

	if (spec) {
		snprintf(err, errlen, "topology '%s': this build has no hwloc to read it", spec);
		return NULL;
	}
	if (sched_getaffinity(0, sizeof(set), &set)) {
		snprintf(err, errlen, "sched_getaffinity: %s", strerror(errno));
		return NULL;
	}
	topo = calloc(1, sizeof(*topo));
	if (!topo) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	for (int cpu = 0; cpu < CPU_SETSIZE && topo->nr_cpus < PLACEMENT_MAX_CPUS; cpu++)
		if (CPU_ISSET(cpu, &set))
			topo->cpus[topo->nr_cpus++] = cpu;
	return topo;
}

void topo_close(struct topo *topo)
{
	free(topo);
}

bool topo_is_this_system(const struct topo *topo)
{
	(void)topo;
	return true;
}

unsigned int topo_nr_allowed_cpus(const struct topo *topo)
{
	return topo->nr_cpus;
}

int topo_plan(const struct topo *topo, const char *policy,
	      unsigned int nr_threads, struct placement *out,
	      char *err, size_t errlen)
{
	if (strcmp(policy, "compact")) {
		snprintf(err, errlen, "placement '%s': expected compact", policy);
		return -1;
	}
	if (nr_threads == 0 || nr_threads > topo->nr_cpus) {
		snprintf(err, errlen, "threads %u: expected 1 to %u (the allowed CPUs)",
			 nr_threads, topo->nr_cpus);
		return -1;
	}
	memset(out, 0, sizeof(*out));
	snprintf(out->policy, sizeof(out->policy), "%s", policy);
	out->nr_cpus = nr_threads;
	for (unsigned int t = 0; t < nr_threads; t++)
		out->cpus[t] = topo->cpus[t];
	out->widest = nr_threads > 1 ? DISTANCE_UNKNOWN : DISTANCE_SAME_PU;
	out->numa_distance = -1;
	return 0;
}

int topo_bind_self(const struct topo *topo, int cpu)
{
	cpu_set_t set;

	(void)topo;
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
