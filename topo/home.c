// SPDX-License-Identifier: GPL-2.0-only
/*
 * Homes: which NUMA node a run's shared state is bound to, and which node
 * the kernel says really holds it. Binding itself is the backend's
 * (hwloc's memory binding in topo_hwloc_bind.c); the answer comes from the
 * kernel, never from what was asked.
 */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "topo.h"

/* From <linux/mempolicy.h>: get_mempolicy() answers for an address. */
#ifndef MPOL_F_NODE
#define MPOL_F_NODE (1 << 0)
#define MPOL_F_ADDR (1 << 1)
#endif

int home_parse(const char *text, struct home_policy *out, char *err,
	       size_t errlen)
{
	static const char expected[] = "expected local, remote, node:N or interleave";
	char *end;
	long n;

	memset(out, 0, sizeof(*out));
	out->node = -1;
	if (strlen(text) >= sizeof(out->name)) {
		snprintf(err, errlen, "--home '%.40s...': %s", text, expected);
		return -1;
	}
	snprintf(out->name, sizeof(out->name), "%s", text);
	if (!strcmp(text, "local")) {
		out->kind = HOME_LOCAL;
		return 0;
	}
	if (!strcmp(text, "remote")) {
		out->kind = HOME_REMOTE;
		return 0;
	}
	if (!strcmp(text, "interleave")) {
		out->kind = HOME_INTERLEAVE;
		return 0;
	}
	if (!strncmp(text, "node:", 5) && text[5] >= '0' && text[5] <= '9') {
		errno = 0;
		n = strtol(text + 5, &end, 10);
		if (!errno && !*end && n <= 4095) {
			out->kind = HOME_NODE;
			out->node = (int)n;
			return 0;
		}
	}
	snprintf(err, errlen, "--home '%s': %s", text, expected);
	return -1;
}

int topo_os_node_of_cpu(const struct topo *topo, int cpu)
{
	int node = topo_numa_node_of(topo, cpu);

	return node < 0 ? -1 : topo_numa_node_os_index(topo, (unsigned int)node);
}

/* The node nearest thread 0's that is not it: on two sockets, the other. */
static int nearest_other_node(const struct topo *topo, int local)
{
	unsigned int nr = topo_nr_numa_nodes(topo);
	int best = -1, best_distance = INT_MAX;

	for (unsigned int n = 0; n < nr; n++) {
		int d = topo_numa_node_distance(topo, (unsigned int)local, n);

		if ((int)n == local)
			continue;
		if (d < 0)
			d = INT_MAX - 1;	/* no distances: the first other node */
		if (d < best_distance) {
			best = (int)n;
			best_distance = d;
		}
	}
	return best < 0 ? -1 : topo_numa_node_os_index(topo, (unsigned int)best);
}

static bool node_exists(const struct topo *topo, int os_node)
{
	for (unsigned int n = 0; n < topo_nr_numa_nodes(topo); n++)
		if (topo_numa_node_os_index(topo, n) == os_node)
			return true;
	return false;
}

static void list_nodes(const struct topo *topo, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (unsigned int n = 0; n < topo_nr_numa_nodes(topo) && used < len; n++)
		used += (size_t)snprintf(buf + used, len - used, "%s%d",
					 n ? "," : "", topo_numa_node_os_index(topo, n));
}

int topo_home_node(const struct topo *topo, const struct home_policy *home,
		   int first_cpu, int *node, char *err, size_t errlen)
{
	unsigned int nr = topo_nr_numa_nodes(topo);
	int local = topo_numa_node_of(topo, first_cpu);
	char nodes[128];

	*node = -1;
	list_nodes(topo, nodes, sizeof(nodes));
	switch (home->kind) {
	case HOME_DEFAULT:
		return 0;
	case HOME_INTERLEAVE:
		if (!nr) {
			snprintf(err, errlen,
				 "--home 'interleave': no NUMA nodes are known here (built without hwloc?): expected local or the default");
			return -1;
		}
		return 0;
	case HOME_LOCAL:
		/* Nodes unknown (no hwloc): thread 0's first touch is local. */
		if (local < 0)
			return 0;
		*node = topo_numa_node_os_index(topo, (unsigned int)local);
		break;
	case HOME_REMOTE:
		if (nr < 2 || local < 0) {
			snprintf(err, errlen,
				 "--home 'remote': %s, so no node is remote: expected local, node:N or interleave",
				 nr == 1 ? "this machine has one NUMA node" :
				 "no NUMA nodes are known here (built without hwloc?)");
			return -1;
		}
		*node = nearest_other_node(topo, local);
		break;
	case HOME_NODE:
		if (!node_exists(topo, home->node)) {
			snprintf(err, errlen, "--home '%s': no NUMA node %d here: expected one of node:%s",
				 home->name, home->node, nodes[0] ? nodes : "0");
			return -1;
		}
		*node = home->node;
		break;
	}
	if (*node < 0) {
		snprintf(err, errlen, "--home '%s': the NUMA node of CPU %d is unknown here",
			 home->name, first_cpu);
		return -1;
	}
	return 0;
}

int topo_node_of_address(const void *addr)
{
	long page_size = sysconf(_SC_PAGESIZE);
	void *page = (void *)((uintptr_t)addr & ~((uintptr_t)page_size - 1));
	int status = -1;

	/* No target nodes: move_pages() only says where each page is. */
	if (syscall(SYS_move_pages, 0, 1UL, &page, NULL, &status, 0) < 0)
		return -errno;
	return status;
}

int topo_node_of_address_policy(const void *addr)
{
	int node = -1;

	if (syscall(SYS_get_mempolicy, &node, NULL, 0UL, addr,
		    (unsigned long)(MPOL_F_NODE | MPOL_F_ADDR)) < 0)
		return -errno;
	return node;
}
