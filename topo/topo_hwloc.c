// SPDX-License-Identifier: GPL-2.0-only
/*
 * Topology with hwloc: the tree of packages, NUMA nodes, caches, cores and
 * PUs of this system, or of a synthetic description or an XML file, once
 * loaded (topo_hwloc_load.c): the allowed CPUs indexed and ordered, the
 * NUMA matrices, and the distance class of two CPUs. Binding is in
 * topo_hwloc_bind.c, the tree as text in topo_hwloc_tree.c.
 *
 * hwloc 2 facts this relies on (checked on hwloc 2.9):
 * - NUMA nodes are memory children, not in children[]: a PU's node is the
 *   node whose cpuset holds it.
 * - The allowed cpuset covers cgroups only; taskset is the thread's
 *   binding, so the two are intersected.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topo_hwloc.h"

/* cgroups' allowed cpuset, and on this system the thread's binding. */
static int find_allowed(struct topo *topo, char *err, size_t errlen)
{
	struct topo_backend *be = topo->backend;
	hwloc_bitmap_t bound;

	be->allowed = hwloc_bitmap_dup(hwloc_topology_get_allowed_cpuset(be->topology));
	if (!be->allowed) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (topo->this_system) {
		bound = hwloc_bitmap_alloc();
		if (bound && !hwloc_get_cpubind(be->topology, bound,
						HWLOC_CPUBIND_THREAD))
			hwloc_bitmap_and(be->allowed, be->allowed, bound);
		hwloc_bitmap_free(bound);
	}
	if (hwloc_bitmap_iszero(be->allowed)) {
		snprintf(err, errlen, "topology %s: no CPU this process may use",
			 topo->description);
		return -1;
	}
	return 0;
}

/*
 * Each PU's CPU kind (hwloc 2.4+: hybrid P and E cores), and a line per
 * kind with its CPUs, efficiency rank and hwloc's infos (CoreType,
 * FrequencyMaxMHz). Kinds come least power-hungry first.
 */
static int index_cpu_kinds(struct topo_backend *be)
{
	int nr = hwloc_cpukinds_get_nr(be->topology, 0);
	hwloc_bitmap_t set;

	if (nr <= 0)
		return 0;
	set = hwloc_bitmap_alloc();
	be->kinds = calloc((size_t)nr, sizeof(*be->kinds));
	if (!set || !be->kinds) {
		hwloc_bitmap_free(set);
		return -1;
	}
	be->nr_kinds = (unsigned int)nr;
	for (unsigned int k = 0; k < be->nr_kinds; k++) {
		struct hwloc_info_s *infos = NULL;
		unsigned int nr_infos = 0;
		char *label = be->kinds[k].label, cpus[128];
		size_t len = sizeof(be->kinds[k].label), used;
		int efficiency = -1, os;

		if (hwloc_cpukinds_get_info(be->topology, k, set, &efficiency,
					    &nr_infos, &infos, 0))
			continue;
		hwloc_bitmap_list_snprintf(cpus, sizeof(cpus), set);
		used = (size_t)snprintf(label, len, efficiency < 0 ?
					"CPUs %s: efficiency unknown" :
					"CPUs %s: efficiency %d", cpus, efficiency);
		for (unsigned int i = 0; i < nr_infos && used < len; i++)
			used += (size_t)snprintf(label + used, len - used, ", %s=%s",
						 infos[i].name, infos[i].value);
		hwloc_bitmap_foreach_begin(os, set)
			if (os <= be->max_os)
				be->kind_of_os[os] = (int)k;
		hwloc_bitmap_foreach_end();
	}
	hwloc_bitmap_free(set);
	return 0;
}

/* PU objects and NUMA nodes by OS number. */
static int index_pus(struct topo_backend *be)
{
	hwloc_topology_t t = be->topology;
	hwloc_obj_t pu = NULL, node = NULL;
	size_t n;

	be->max_os = -1;
	while ((pu = hwloc_get_next_obj_by_type(t, HWLOC_OBJ_PU, pu)))
		if ((int)pu->os_index > be->max_os)
			be->max_os = (int)pu->os_index;
	n = (size_t)be->max_os + 1;
	be->pu_by_os = calloc(n ? n : 1, sizeof(*be->pu_by_os));
	be->node_of_os = malloc((n ? n : 1) * sizeof(int));
	be->kind_of_os = malloc((n ? n : 1) * sizeof(int));
	if (!be->pu_by_os || !be->node_of_os || !be->kind_of_os)
		return -1;
	for (size_t i = 0; i < n; i++)
		be->node_of_os[i] = be->kind_of_os[i] = -1;
	while ((pu = hwloc_get_next_obj_by_type(t, HWLOC_OBJ_PU, pu)))
		be->pu_by_os[pu->os_index] = pu;
	/* Memory-side nodes (HBM, CXL) share CPUs: the first node wins. */
	while ((node = hwloc_get_next_obj_by_type(t, HWLOC_OBJ_NUMANODE, node))) {
		int os;

		be->nr_nodes++;
		hwloc_bitmap_foreach_begin(os, node->cpuset)
			if (os <= be->max_os && be->node_of_os[os] < 0)
				be->node_of_os[os] = (int)node->logical_index;
		hwloc_bitmap_foreach_end();
	}
	be->nr_packages = (unsigned int)hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PACKAGE);
	return index_cpu_kinds(be);
}

/*
 * One NUMA matrix as an nr_nodes^2 array by logical index, -1 where it
 * has no value.
 */
static int *matrix_by_node(const struct topo_backend *be,
			   const struct hwloc_distances_s *d)
{
	unsigned int n = be->nr_nodes;
	int *m = malloc((size_t)n * n * sizeof(int));

	if (!m)
		return NULL;
	for (size_t i = 0; i < (size_t)n * n; i++)
		m[i] = -1;
	for (unsigned int i = 0; i < d->nbobjs; i++)
		for (unsigned int j = 0; j < d->nbobjs; j++)
			m[d->objs[i]->logical_index * n + d->objs[j]->logical_index] =
				(int)d->values[i * d->nbobjs + j];
	return m;
}

/* The diagonal, when every node has the same value there; else -1. */
static int diagonal_value(const int *m, unsigned int n)
{
	int local = n ? m[0] : -1;

	for (unsigned int i = 1; i < n; i++)
		if (m[i * n + i] != local)
			return -1;
	return local;
}

#define MAX_MATRICES 8

/*
 * The NUMA matrices, by what they mean (HWLOC_DISTANCES_KIND_MEANS_*):
 * latency places threads and homes (a user's, topo_set_numa_distances,
 * before the OS's); bandwidth, where an XML carries one, is only shown.
 * A single node has none.
 */
static int load_distances(struct topo_backend *be)
{
	struct hwloc_distances_s *d[MAX_MATRICES];
	unsigned int nr = MAX_MATRICES;
	int latency = -1, bandwidth = -1, ret = 0;

	free(be->distances);
	free(be->bandwidths);
	be->distances = be->bandwidths = NULL;
	be->local_distance = -1;
	if (hwloc_distances_get_by_type(be->topology, HWLOC_OBJ_NUMANODE, &nr, d, 0, 0) ||
	    !nr)
		return 0;
	if (nr > MAX_MATRICES)
		nr = MAX_MATRICES;
	for (unsigned int k = 0; k < nr; k++) {
		if ((d[k]->kind & HWLOC_DISTANCES_KIND_MEANS_LATENCY) &&
		    (latency < 0 || (d[k]->kind & HWLOC_DISTANCES_KIND_FROM_USER &&
				     !(d[latency]->kind & HWLOC_DISTANCES_KIND_FROM_USER))))
			latency = (int)k;
		if ((d[k]->kind & HWLOC_DISTANCES_KIND_MEANS_BANDWIDTH) && bandwidth < 0)
			bandwidth = (int)k;
	}
	if (latency >= 0) {
		be->distances = matrix_by_node(be, d[latency]);
		if (be->distances)
			be->local_distance = diagonal_value(be->distances, be->nr_nodes);
		else
			ret = -1;
	}
	if (bandwidth >= 0 && !(be->bandwidths = matrix_by_node(be, d[bandwidth])))
		ret = -1;
	for (unsigned int k = 0; k < nr; k++)
		hwloc_distances_release(be->topology, d[k]);
	return ret;
}

/*
 * Appends obj's allowed PUs in spread order: the children's own spread
 * orders dealt round-robin, so the first threads land on different
 * packages (or NUMA groups), then different L3s, then different cores,
 * and SMT siblings come last.
 */
static unsigned int spread_order(const struct topo_backend *be, hwloc_obj_t obj,
				 int *out)
{
	unsigned int n = 0, longest = 0;
	unsigned int *count;
	int **lists;

	if (obj->type == HWLOC_OBJ_PU) {
		if (!pu_allowed(be, obj))
			return 0;
		out[0] = (int)obj->os_index;
		return 1;
	}
	if (!obj->arity)
		return 0;
	count = calloc(obj->arity, sizeof(*count));
	lists = calloc(obj->arity, sizeof(*lists));
	for (unsigned int c = 0; count && lists && c < obj->arity; c++) {
		int weight = hwloc_bitmap_weight(obj->children[c]->cpuset);

		lists[c] = malloc((size_t)(weight > 0 ? weight : 1) * sizeof(int));
		if (!lists[c])
			break;
		count[c] = spread_order(be, obj->children[c], lists[c]);
		if (count[c] > longest)
			longest = count[c];
	}
	for (unsigned int r = 0; r < longest; r++)
		for (unsigned int c = 0; c < obj->arity; c++)
			if (count[c] > r)
				out[n++] = lists[c][r];
	for (unsigned int c = 0; lists && c < obj->arity; c++)
		free(lists[c]);
	free(lists);
	free(count);
	return n;
}

/* compact (tree order), spread, and each CPU's core. */
static int order_cpus(struct topo *topo)
{
	struct topo_backend *be = topo->backend;
	hwloc_topology_t t = be->topology;
	int nr_core_objs = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_CORE);
	int nr_pus = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PU);
	int *dense, slots = nr_core_objs > 0 ? nr_core_objs : nr_pus;
	unsigned int n = 0;
	hwloc_obj_t pu = NULL;

	if (topo_alloc_cpus(topo, (unsigned int)hwloc_bitmap_weight(be->allowed)))
		return -1;
	dense = malloc((size_t)(slots > 0 ? slots : 1) * sizeof(int));
	if (!dense)
		return -1;
	for (int i = 0; i < slots; i++)
		dense[i] = -1;
	while ((pu = hwloc_get_next_obj_by_type(t, HWLOC_OBJ_PU, pu))) {
		hwloc_obj_t core = hwloc_get_ancestor_obj_by_type(t, HWLOC_OBJ_CORE, pu);
		/* No Core level (e.g. "pack:2 pu:4"): each PU is a core. */
		unsigned int slot = core ? core->logical_index : pu->logical_index;

		if (!pu_allowed(be, pu) || n == topo->nr_cpus)
			continue;
		if (dense[slot] < 0)
			dense[slot] = (int)topo->nr_cores++;
		topo->core_of[n] = dense[slot];
		topo->compact[n++] = (int)pu->os_index;
	}
	free(dense);
	topo->nr_cpus = n;
	/* Fewer CPUs in spread order than allowed: an allocation failed. */
	return spread_order(be, hwloc_get_root_obj(t), topo->spread) == n ? 0 : -1;
}

struct topo *topo_open(const char *spec, char *err, size_t errlen)
{
	struct topo *topo = calloc(1, sizeof(*topo));

	if (!topo || !(topo->backend = calloc(1, sizeof(*topo->backend)))) {
		free(topo);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	if (topo_hwloc_load(topo, spec, err, errlen) ||
	    find_allowed(topo, err, errlen))
		goto fail;
	if (index_pus(topo->backend) || order_cpus(topo) ||
	    load_distances(topo->backend)) {
		snprintf(err, errlen, "out of memory reading the topology");
		goto fail;
	}
	return topo;
fail:
	topo_close(topo);
	return NULL;
}

void topo_close(struct topo *topo)
{
	struct topo_backend *be;

	if (!topo)
		return;
	be = topo->backend;
	if (be) {
		hwloc_bitmap_free(be->allowed);
		free(be->pu_by_os);
		free(be->node_of_os);
		free(be->kind_of_os);
		free(be->kinds);
		free(be->distances);
		free(be->bandwidths);
		if (be->topology)
			hwloc_topology_destroy(be->topology);
		free(be);
	}
	topo_free_cpus(topo);
	free(topo);
}

static hwloc_obj_t pu_of(const struct topo_backend *be, int cpu)
{
	return cpu >= 0 && cpu <= be->max_os ? be->pu_by_os[cpu] : NULL;
}

int topo_numa_node_of(const struct topo *topo, int cpu)
{
	const struct topo_backend *be = topo->backend;

	return pu_of(be, cpu) ? be->node_of_os[cpu] : -1;
}

static bool same_node(const struct topo *topo, int a, int b)
{
	int na = topo_numa_node_of(topo, a), nb = topo_numa_node_of(topo, b);

	/* Nodes unknown: nothing says they differ. */
	return na < 0 || nb < 0 || na == nb;
}

/*
 * The deepest object holding both PUs says how far apart they are, by its
 * type: a Core means SMT siblings (PUs of one Core object, nothing else),
 * a CPU cache the level they share. Within a package without a shared
 * cache, their NUMA nodes tell package from numa.
 */
enum distance_class topo_classify(const struct topo *topo, int cpu_a,
				  int cpu_b)
{
	const struct topo_backend *be = topo->backend;
	hwloc_obj_t a = pu_of(be, cpu_a), b = pu_of(be, cpu_b);

	if (!a || !b)
		return DISTANCE_UNKNOWN;
	if (a == b)
		return DISTANCE_SAME_PU;
	for (hwloc_obj_t o = hwloc_get_common_ancestor_obj(be->topology, a, b);
	     o; o = o->parent) {
		if (is_memory_side_cache(o))
			continue;
		switch (o->type) {
		case HWLOC_OBJ_CORE:
			return DISTANCE_SMT;
		case HWLOC_OBJ_L1CACHE:
		case HWLOC_OBJ_L2CACHE:
			return DISTANCE_L2;
		case HWLOC_OBJ_L3CACHE:
			return DISTANCE_L3;
		case HWLOC_OBJ_PACKAGE:
			return same_node(topo, cpu_a, cpu_b) ? DISTANCE_PACKAGE :
							       DISTANCE_NUMA;
		default:
			break;
		}
	}
	if (be->nr_packages)
		return DISTANCE_CROSS_PACKAGE;
	/* No Package level at all: the machine is one package. */
	return same_node(topo, cpu_a, cpu_b) ? DISTANCE_PACKAGE : DISTANCE_NUMA;
}

unsigned int topo_nr_numa_nodes(const struct topo *topo)
{
	return topo->backend->nr_nodes;
}

int topo_numa_node_distance(const struct topo *topo, unsigned int from,
			    unsigned int to)
{
	const struct topo_backend *be = topo->backend;

	if (!be->distances || from >= be->nr_nodes || to >= be->nr_nodes)
		return -1;
	return be->distances[from * be->nr_nodes + to];
}

int topo_numa_distance(const struct topo *topo, int cpu_a, int cpu_b)
{
	int na = topo_numa_node_of(topo, cpu_a), nb = topo_numa_node_of(topo, cpu_b);

	if (na < 0 || nb < 0)
		return -1;
	return topo_numa_node_distance(topo, (unsigned int)na, (unsigned int)nb);
}

int topo_numa_local_distance(const struct topo *topo)
{
	return topo->backend->distances ? topo->backend->local_distance : -1;
}

int topo_numa_node_bandwidth(const struct topo *topo, unsigned int from,
			     unsigned int to)
{
	const struct topo_backend *be = topo->backend;

	if (!be->bandwidths || from >= be->nr_nodes || to >= be->nr_nodes)
		return -1;
	return be->bandwidths[from * be->nr_nodes + to];
}

unsigned int topo_nr_cpu_kinds(const struct topo *topo)
{
	return topo->backend->nr_kinds;
}

int topo_cpu_kind(const struct topo *topo, int cpu)
{
	const struct topo_backend *be = topo->backend;

	return pu_of(be, cpu) ? be->kind_of_os[cpu] : -1;
}

void topo_format_cpu_kind(const struct topo *topo, unsigned int kind,
			  char *buf, size_t len)
{
	const struct topo_backend *be = topo->backend;

	snprintf(buf, len, "%s", kind < be->nr_kinds ? be->kinds[kind].label : "");
}

/*
 * A MemCache is a memory child of an object holding both PUs (beside the
 * NUMA node it caches); an L3 of subtype MemorySideCache is an ancestor.
 */
bool topo_share_memory_side_cache(const struct topo *topo, int cpu_a,
				  int cpu_b)
{
	const struct topo_backend *be = topo->backend;
	hwloc_obj_t a = pu_of(be, cpu_a), b = pu_of(be, cpu_b);

	if (!a || !b)
		return false;
	for (hwloc_obj_t o = hwloc_get_common_ancestor_obj(be->topology, a, b);
	     o; o = o->parent) {
		if (is_memory_side_cache(o))
			return true;
		for (hwloc_obj_t m = o->memory_first_child; m; m = m->next_sibling)
			if (is_memory_side_cache(m))
				return true;
	}
	return false;
}

int topo_numa_node_os_index(const struct topo *topo, unsigned int node)
{
	hwloc_obj_t obj = hwloc_get_obj_by_type(topo->backend->topology,
						HWLOC_OBJ_NUMANODE, node);

	return obj ? (int)obj->os_index : -1;
}

void topo_format_numa_node_cpus(const struct topo *topo, unsigned int node,
				char *buf, size_t len)
{
	hwloc_obj_t obj = hwloc_get_obj_by_type(topo->backend->topology,
						HWLOC_OBJ_NUMANODE, node);

	buf[0] = '\0';
	if (obj)
		hwloc_bitmap_list_snprintf(buf, len, obj->cpuset);
}

int topo_set_numa_distances(struct topo *topo, unsigned int nr_values,
			    const uint64_t *values, char *err, size_t errlen)
{
#if HWLOC_API_VERSION >= 0x00020500
	struct topo_backend *be = topo->backend;
	unsigned int n = be->nr_nodes;
	hwloc_distances_add_handle_t h;
	hwloc_obj_t *nodes;
	int ret = -1;

	if (!n || nr_values != n * n) {
		snprintf(err, errlen,
			 "NUMA distances: %u values, expected %u (%u nodes x %u, row by row)",
			 nr_values, n * n, n, n);
		return -1;
	}
	nodes = calloc(n, sizeof(*nodes));
	if (!nodes) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (unsigned int i = 0; i < n; i++)
		nodes[i] = hwloc_get_obj_by_type(be->topology, HWLOC_OBJ_NUMANODE, i);
	h = hwloc_distances_add_create(be->topology, "bouncelab",
				       HWLOC_DISTANCES_KIND_FROM_USER |
				       HWLOC_DISTANCES_KIND_MEANS_LATENCY, 0);
	if (h && !hwloc_distances_add_values(be->topology, h, n, nodes,
					     (hwloc_uint64_t *)values, 0) &&
	    !hwloc_distances_add_commit(be->topology, h, 0))
		ret = load_distances(be);
	free(nodes);
	if (ret)
		snprintf(err, errlen, "NUMA distances: hwloc refused them: %s",
			 strerror(errno));
	return ret;
#else
	(void)topo;
	(void)nr_values;
	(void)values;
	snprintf(err, errlen, "NUMA distances: this hwloc is older than 2.5");
	return -1;
#endif
}
