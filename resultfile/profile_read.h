/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Reading a machine profile (model/profiles/, model/machine.c says what
 * one is): every number a claim about hardware with the source it was
 * read from, each checked where it is read, one line naming the field and
 * what was expected. The model builds its machine from this struct; the
 * topology string and NUMA distances it opens itself.
 */
#ifndef BOUNCELAB_PROFILE_READ_H
#define BOUNCELAB_PROFILE_READ_H

#include <stdbool.h>
#include <stddef.h>

#include "topo.h"

#define PROFILE_NAME_LEN 64
#define PROFILE_TITLE_LEN 160
#define PROFILE_TOPOLOGY_LEN 256
#define PROFILE_SOURCE_LEN 240

/* {"value": 2.45, "source": "..."} */
struct profile_number {
	double value;
	char source[PROFILE_SOURCE_LEN];
};

struct profile_file {
	char name[PROFILE_NAME_LEN];
	char title[PROFILE_TITLE_LEN];	/* "" when not given */
	char topology[PROFILE_TOPOLOGY_LEN];	/* hwloc synthetic string or XML file */
	const char *numa_distances;	/* "10,32"; NULL: not given */
	struct profile_number clock_ghz;
	struct profile_number store_buffer;	/* a whole number of entries */
	bool has_remote_home;
	struct profile_number remote_home_ns;
	/* optional: a 2-thread measurement of the tenure, (0, 1] */
	bool has_tenure_share;
	struct profile_number tenure_share;
	/* optional: ns a handoff takes per requester queued beyond the next */
	bool has_waiter_ns;
	struct profile_number waiter_ns;
	bool has_one_way[NR_DISTANCE_CLASSES];
	struct profile_number one_way_ns[NR_DISTANCE_CLASSES];
	void *doc;		/* private: the document numa_distances is in */
};

/*
 * Reads the profile at path by the rule for every input file
 * (input_file.h). Returns 0, or -1 with err naming the file, the field
 * and what was expected, or -2 when memory ran out (err says so); nothing
 * is left to free then. profile_free() releases a profile read.
 */
int profile_read(const char *path, size_t max_bytes, struct profile_file *p,
		 char *err, size_t errlen);
void profile_free(struct profile_file *p);

#endif
