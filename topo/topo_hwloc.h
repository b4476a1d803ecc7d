/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The hwloc backend's own state, shared by its files: topo_hwloc.c
 * (discover, index, classify, NUMA facts), topo_hwloc_load.c (where a
 * topology comes from, under the input bounds), topo_hwloc_bind.c
 * (threads and memory) and topo_hwloc_tree.c (the tree as text).
 */
#ifndef BOUNCELAB_TOPO_HWLOC_H
#define BOUNCELAB_TOPO_HWLOC_H

#include <stdbool.h>
#include <string.h>

#include <hwloc.h>

#include "topo_internal.h"

/* One CPU kind, as hwloc_cpukinds_get_info() gives it. */
struct cpu_kind {
	char label[256];		/* "CPUs 0-3: efficiency 0, CoreType=IntelAtom" */
};

struct topo_backend {
	hwloc_topology_t topology;
	hwloc_bitmap_t allowed;
	int max_os;			/* the largest PU OS number */
	hwloc_obj_t *pu_by_os;		/* [max_os + 1] */
	int *node_of_os;		/* [max_os + 1]: NUMA logical index, -1 */
	int *kind_of_os;		/* [max_os + 1]: CPU kind, -1 */
	unsigned int nr_kinds;
	struct cpu_kind *kinds;
	unsigned int nr_nodes;
	int *distances;			/* latency, nr_nodes^2, -1 unknown; NULL: none */
	int local_distance;		/* the latency matrix's diagonal, -1 */
	int *bandwidths;		/* the same for a bandwidth matrix */
	unsigned int nr_packages;
};

static inline bool pu_allowed(const struct topo_backend *be, hwloc_obj_t pu)
{
	return hwloc_bitmap_isset(be->allowed, pu->os_index);
}

/*
 * KNL's MCDRAM in cache mode caches memory for the PUs beside it: hwloc 2
 * makes it a MemCache memory child, but under HWLOC_KNL_MSCACHE_L3=1 (and
 * in hwloc 1.x XML) it is an L3Cache of subtype "MemorySideCache". Either
 * way it is no CPU cache level: two cores under it do not share an L3.
 */
static inline bool is_memory_side_cache(hwloc_obj_t obj)
{
	return obj->type == HWLOC_OBJ_MEMCACHE ||
	       (hwloc_obj_type_is_cache(obj->type) && obj->subtype &&
		!strcmp(obj->subtype, "MemorySideCache"));
}

/*
 * Loads the topology spec names (NULL: HWLOC_XMLFILE, HWLOC_SYNTHETIC or
 * HWLOC_FSROOT, else this system) into topo->backend->topology, and says
 * whether it is this system. Returns 0, or -1 with err.
 */
int topo_hwloc_load(struct topo *topo, const char *spec, char *err, size_t errlen);

#endif
