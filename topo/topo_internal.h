/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What topo.c (policies, classes present) needs from the backend that
 * discovered the machine: topo_hwloc.c, or topo_affinity.c without hwloc.
 */
#ifndef BOUNCELAB_TOPO_INTERNAL_H
#define BOUNCELAB_TOPO_INTERNAL_H

#include "topo.h"

struct topo_backend;

struct topo {
	bool this_system;
	char description[320];
	unsigned int nr_cpus;		/* the allowed CPUs */
	int *compact;			/* their OS numbers in tree order */
	int *spread;			/* the same, interleaved across the tree */
	int *core_of;			/* per compact slot: its core, -1 unknown */
	unsigned int nr_cores;		/* cores with an allowed CPU; 0 unknown */
	struct topo_backend *backend;
};

/* Allocates the per-CPU arrays for nr_cpus CPUs; -1 when out of memory. */
int topo_alloc_cpus(struct topo *topo, unsigned int nr_cpus);
void topo_free_cpus(struct topo *topo);

#endif
