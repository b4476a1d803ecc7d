// SPDX-License-Identifier: GPL-2.0-only
/*
 * The hwloc backend's binding: a thread to one CPU (saved and put back
 * for the main thread) and a run's shared state to its NUMA home.
 *
 * On a synthetic or XML topology hwloc_set_cpubind() returns 0 and does
 * nothing, so binding is refused here rather than silently faked.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "topo_hwloc.h"

struct topo_binding {
	hwloc_bitmap_t set;
};

int topo_bind_self(const struct topo *topo, int cpu)
{
	const struct topo_backend *be = topo->backend;
	hwloc_bitmap_t set;
	int ret = 0;

	if (!topo->this_system)
		return -EOPNOTSUPP;
	if (cpu < 0 || !hwloc_bitmap_isset(be->allowed, (unsigned int)cpu))
		return -EINVAL;
	set = hwloc_bitmap_alloc();
	if (!set)
		return -ENOMEM;
	hwloc_bitmap_only(set, (unsigned int)cpu);
	if (hwloc_set_cpubind(be->topology, set, HWLOC_CPUBIND_THREAD))
		ret = errno ? -errno : -EINVAL;
	hwloc_bitmap_free(set);
	return ret;
}

struct topo_binding *topo_save_binding(const struct topo *topo)
{
	struct topo_binding *b;

	if (!topo->this_system)
		return NULL;
	b = malloc(sizeof(*b));
	if (!b)
		return NULL;
	b->set = hwloc_bitmap_alloc();
	if (!b->set || hwloc_get_cpubind(topo->backend->topology, b->set,
					 HWLOC_CPUBIND_THREAD)) {
		hwloc_bitmap_free(b->set);
		free(b);
		return NULL;
	}
	return b;
}

void topo_restore_binding(const struct topo *topo, struct topo_binding *saved)
{
	if (!saved)
		return;
	hwloc_set_cpubind(topo->backend->topology, saved->set,
			  HWLOC_CPUBIND_THREAD);
	hwloc_bitmap_free(saved->set);
	free(saved);
}

/*
 * hwloc's memory binding: an anonymous mapping bound before its first
 * touch, strict so that memory short on the node fails rather than
 * landing elsewhere and being recorded as a home it is not.
 */
void *topo_home_alloc(const struct topo *topo, int node, bool interleave,
		      size_t size)
{
	hwloc_topology_t t = topo->backend->topology;
	hwloc_const_nodeset_t set = hwloc_topology_get_topology_nodeset(t);
	hwloc_membind_policy_t policy = HWLOC_MEMBIND_BIND;
	hwloc_obj_t obj;
	void *p;

	if (node < 0 && !interleave) {
		p = aligned_alloc((size_t)sysconf(_SC_PAGESIZE), size);
		if (p)
			memset(p, 0, size);
		return p;
	}
	if (interleave) {
		policy = HWLOC_MEMBIND_INTERLEAVE;
	} else {
		obj = hwloc_get_numanode_obj_by_os_index(t, (unsigned int)node);
		if (!obj)
			return NULL;
		set = obj->nodeset;
	}
	p = hwloc_alloc_membind(t, size, set, policy,
				HWLOC_MEMBIND_STRICT | HWLOC_MEMBIND_BYNODESET);
	/* The first touch, here, faults every page in under the policy. */
	if (p)
		memset(p, 0, size);
	return p;
}

void topo_home_free(const struct topo *topo, void *p, size_t size)
{
	if (p)
		hwloc_free(topo->backend->topology, p, size);
}
