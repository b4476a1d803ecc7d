// SPDX-License-Identifier: GPL-2.0-only
/*
 * Topology with hwloc: the tree of packages, NUMA nodes, caches, cores and
 * PUs of this system, or of a synthetic description or an XML file.
 *
 * hwloc 2 facts this relies on (checked on hwloc 2.9):
 * - NUMA nodes are memory children, not in children[]: a PU's node is the
 *   node whose cpuset holds it.
 * - On a synthetic or XML topology hwloc_set_cpubind() returns 0 and does
 *   nothing, so binding is refused here rather than silently faked.
 * - The allowed cpuset covers cgroups only; taskset is the thread's
 *   binding, so the two are intersected.
 */
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <hwloc.h>

#include "input_file.h"
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

struct topo_binding {
	hwloc_bitmap_t set;
};

static bool looks_like_xml(const char *spec)
{
	size_t len = strlen(spec);

	return access(spec, R_OK) == 0 ||
	       (len > 4 && !strcmp(spec + len - 4, ".xml"));
}

static bool is_directory(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

/*
 * Bounds on a topology we are handed. The distance classes look at pairs,
 * and hwloc inserts an object among its siblings one by one, so a level
 * of width w under P PUs costs it about P w: "pack:1 core:8192 pu:1" took
 * most of a minute, "pack:8 core:1024 pu:1" 2.7 s and "pack:64 core:64
 * pu:2" 0.3 s on the 2-vCPU EPYC guest. So at most SYNTHETIC_MAX_PUS PUs
 * and PUs x widest level at most SYNTHETIC_MAX_WORK, checked on the
 * description before hwloc builds anything, and the PUs again on what
 * hwloc built (an XML file, HWLOC_XMLFILE or HWLOC_SYNTHETIC too).
 */
#define SYNTHETIC_MAX_PUS 8192
#define SYNTHETIC_MAX_WORK (8192UL * 1024)

/*
 * The PUs a synthetic description makes, the product of its levels'
 * arities ("pack:2 core:64 pu:2" is 256), and its widest level. Numbers
 * are read as hwloc reads them (strtoul with base 0: "0x40" is 64, "010"
 * is 8), levels split at any white space, a newline too. Memory-side
 * objects in brackets add no PUs. Stops counting once past the bound.
 */
static unsigned long synthetic_pus(const char *spec, unsigned long *widest)
{
	static const char space[] = " \t\n\v\f\r";
	unsigned long pus = 1;
	const char *p = spec;

	*widest = 1;
	while (*p && pus <= SYNTHETIC_MAX_PUS) {
		size_t len;
		const char *colon;
		unsigned long arity;

		p += strspn(p, space);
		len = strcspn(p, space);
		colon = memchr(p, ':', len);
		arity = strtoul(colon ? colon + 1 : p, NULL, 0);
		if (*p != '[' && arity > SYNTHETIC_MAX_PUS)
			return arity;	/* and no product can overflow */
		if (*p != '[' && arity) {
			pus *= arity;
			*widest = arity > *widest ? arity : *widest;
		}
		p += len;
	}
	return pus;
}

/* One line on a description past the bounds, or 0 when it is within them. */
static int synthetic_too_big(const char *spec, char *err, size_t errlen)
{
	unsigned long widest, pus = synthetic_pus(spec, &widest);

	if (pus > SYNTHETIC_MAX_PUS) {
		snprintf(err, errlen,
			 "topology '%s': more than %d PUs: expected a smaller synthetic machine",
			 spec, SYNTHETIC_MAX_PUS);
		return -1;
	}
	if (pus * widest > SYNTHETIC_MAX_WORK) {
		snprintf(err, errlen,
			 "topology '%s': %lu PUs under a level %lu wide: expected PUs x the widest level at most %lu (split the wide level, e.g. l3 or group levels)",
			 spec, pus, widest, SYNTHETIC_MAX_WORK);
		return -1;
	}
	return 0;
}

/* Twice hwloc's XML of a 8192-PU machine (about 4 MB). */
#define XML_MAX_BYTES (8UL << 20)

/*
 * An XML topology, read under the input rule (a FIFO or device is refused,
 * not waited on) and handed to hwloc as a buffer, so hwloc opens nothing.
 */
static int set_xml(hwloc_topology_t t, const char *path, const char *label,
		   char *err, size_t errlen)
{
	char why[512];
	size_t len;
	char *xml = input_file_read(path, XML_MAX_BYTES, &len, why, sizeof(why));
	int ret;

	if (!xml) {
		snprintf(err, errlen, "%s: %s", label, why);
		return -1;
	}
	ret = hwloc_topology_set_xmlbuffer(t, xml, (int)len + 1);
	if (ret)
		snprintf(err, errlen, "%s '%s': cannot read this XML file: %s", label,
			 path, strerror(errno));
	free(xml);
	return ret;
}

/*
 * A directory hwloc-gather-topology wrote (or its tarball unpacked): a
 * copy of /sys and /proc that hwloc's Linux backend reads as if it were
 * the root (HWLOC_FSROOT). hwloc opens those files itself,
 * so they are checked first as every input is: regular files (a FIFO
 * would block the open forever, a device never end), bounded, and links
 * that stay inside (sysfs's are relative: ../../devices/system/cpu/cpu0).
 * A real gather of a 2-CPU guest holds 175 files and 202 links.
 */
#define FSROOT_MAX_ENTRIES 1000000
#define FSROOT_MAX_FILE_BYTES (64UL << 20)

/* nftw() passes no context: the walk's, then the root the load reads. */
static struct {
	char root[PATH_MAX];		/* realpath() of the directory; "" none */
	size_t root_len;
	unsigned long entries;
	char why[PATH_MAX + 128];
} fsroot_walk;

static const char *file_type_name(mode_t mode)
{
	return S_ISFIFO(mode) ? "a FIFO" : S_ISCHR(mode) ? "a character device" :
	       S_ISBLK(mode) ? "a block device" : S_ISSOCK(mode) ? "a socket" :
	       S_ISDIR(mode) ? "a directory" : "not a regular file";
}

static int check_fsroot_entry(const char *path, const struct stat *st, int flag,
			      struct FTW *ftw)
{
	char target[PATH_MAX];

	(void)ftw;
	if (++fsroot_walk.entries > FSROOT_MAX_ENTRIES) {
		snprintf(fsroot_walk.why, sizeof(fsroot_walk.why),
			 "more than %d files: expected hwloc-gather-topology's directory",
			 FSROOT_MAX_ENTRIES);
		return 1;
	}
	switch (flag) {
	case FTW_D:
		return 0;
	case FTW_SL:
		if (!realpath(path, target)) {
			/* Dangling: nothing there for hwloc to open. */
			if (errno == ENOENT)
				return 0;
			snprintf(fsroot_walk.why, sizeof(fsroot_walk.why), "%s: %s",
				 path, strerror(errno));
			return 1;
		}
		/* Inside, the walk meets the target as an entry of its own. */
		if (strncmp(target, fsroot_walk.root, fsroot_walk.root_len) ||
		    (target[fsroot_walk.root_len] && target[fsroot_walk.root_len] != '/')) {
			snprintf(fsroot_walk.why, sizeof(fsroot_walk.why),
				 "%s: a link to %s, outside the directory: expected links within it",
				 path, target);
			return 1;
		}
		return 0;
	case FTW_F:
		if (!S_ISREG(st->st_mode)) {
			snprintf(fsroot_walk.why, sizeof(fsroot_walk.why),
				 "%s: %s: expected the regular files hwloc-gather-topology writes",
				 path, file_type_name(st->st_mode));
			return 1;
		}
		if ((unsigned long long)st->st_size > FSROOT_MAX_FILE_BYTES) {
			snprintf(fsroot_walk.why, sizeof(fsroot_walk.why),
				 "%s: %lld bytes: expected at most %lu",
				 path, (long long)st->st_size, FSROOT_MAX_FILE_BYTES);
			return 1;
		}
		return 0;
	default:	/* unreadable: hwloc could still open a path inside */
		snprintf(fsroot_walk.why, sizeof(fsroot_walk.why),
			 "%s: cannot be read: expected a readable directory", path);
		return 1;
	}
}

static int check_fsroot(const char *dir, const char *label, char *err,
			size_t errlen)
{
	char sys[PATH_MAX];

	/* hwloc's Linux backend gives up (with a line of its own) without it. */
	snprintf(sys, sizeof(sys), "%s/sys/devices/system/cpu", dir);
	if (!is_directory(sys)) {
		snprintf(err, errlen,
			 "%s '%s': a directory without sys/devices/system/cpu/: expected one hwloc-gather-topology wrote (sys/ and proc/ inside), an XML file or a synthetic description",
			 label, dir);
		return -1;
	}
	memset(&fsroot_walk, 0, sizeof(fsroot_walk));
	if (!realpath(dir, fsroot_walk.root)) {
		snprintf(err, errlen, "%s '%s': %s", label, dir, strerror(errno));
		return -1;
	}
	fsroot_walk.root_len = strlen(fsroot_walk.root);
	if (!strcmp(fsroot_walk.root, "/")) {
		snprintf(err, errlen,
			 "%s '%s': the root itself: expected a copy hwloc-gather-topology wrote (this system is read without --topology)",
			 label, dir);
		return -1;
	}
	if (nftw(dir, check_fsroot_entry, 32, FTW_PHYS)) {
		snprintf(err, errlen, "%s '%s': %s", label, dir,
			 fsroot_walk.why[0] ? fsroot_walk.why : strerror(errno));
		return -1;
	}
	return 0;
}

/* The variable's value before setenv(): kept to put back (NULL: unset). */
static char *save_env(const char *name)
{
	return getenv(name) ? strdup(getenv(name)) : NULL;
}

static void restore_env(const char *name, char *saved)
{
	if (saved)
		setenv(name, saved, 1);
	else
		unsetenv(name);
	free(saved);
}

/*
 * hwloc 2 has no hwloc_topology_set_fsroot() (1.x had): its Linux backend
 * takes the root from HWLOC_FSROOT at load, before any other variable. So
 * the checked directory is put there for the load alone, and the
 * variable put back: topo_open() runs before any thread starts. hwloc's
 * own complaint about a copy without CPU topology is hidden
 * (HWLOC_HIDE_ERRORS=2, unless set) for the one line said here; hwloc
 * may keep what it read, so its later messages in this process may stay
 * hidden too.
 */
#define FSROOT_NO_CPU_TOPOLOGY (-2)

static int load_from_fsroot(hwloc_topology_t t, const char *root)
{
	char *saved_root = save_env("HWLOC_FSROOT"), *saved_hide = save_env("HWLOC_HIDE_ERRORS");
	int ret, load_errno;

	/* The directory's machine, not ours: x86 would add this CPU's CPUID (caches). */
	ret = hwloc_topology_set_components(t, HWLOC_TOPOLOGY_COMPONENTS_FLAG_BLACKLIST, "x86");
	if (!ret)
		ret = setenv("HWLOC_FSROOT", root, 1);
	if (!ret && !saved_hide)
		ret = setenv("HWLOC_HIDE_ERRORS", "2", 1);
	if (!ret)
		ret = hwloc_topology_load(t);
	load_errno = errno;
	restore_env("HWLOC_FSROOT", saved_root);
	restore_env("HWLOC_HIDE_ERRORS", saved_hide);
	errno = load_errno;
	/*
	 * Where the Linux backend finds no CPU topology in the copy it gives
	 * up, and hwloc's fallback stands in with this machine's CPU count.
	 */
	if (!ret && !hwloc_obj_get_info_by_name(hwloc_get_root_obj(t), "Backend"))
		return FSROOT_NO_CPU_TOPOLOGY;
	return ret;
}

/* --topology: a gathered directory, an XML file or a synthetic description. */
static int set_from_spec(struct topo *topo, hwloc_topology_t t, const char *spec,
			 char *err, size_t errlen)
{
	if (is_directory(spec)) {
		if (check_fsroot(spec, "topology", err, errlen))
			return -1;
		snprintf(topo->description, sizeof(topo->description),
			 "hwloc-gather-topology directory %s", spec);
		return 0;
	}
	if (looks_like_xml(spec)) {
		if (set_xml(t, spec, "topology", err, errlen))
			return -1;
		snprintf(topo->description, sizeof(topo->description),
			 "XML file %s", spec);
		return 0;
	}
	if (synthetic_too_big(spec, err, errlen))
		return -1;
	if (hwloc_topology_set_synthetic(t, spec)) {
		snprintf(err, errlen,
			 "topology '%s': expected a synthetic description such as \"pack:2 numa:1 core:64 pu:2\", an XML file or a directory hwloc-gather-topology wrote",
			 spec);
		return -1;
	}
	snprintf(topo->description, sizeof(topo->description),
		 "synthetic '%s'", spec);
	return 0;
}

/*
 * hwloc's own variables, in the order hwloc_topology_load() takes them,
 * each read as --topology would read it. Returns 0 with the description
 * set, or -1.
 */
static int set_from_env(struct topo *topo, hwloc_topology_t t, const char *env,
			char *err, size_t errlen)
{
	const char *value = getenv(env);

	if (!strcmp(env, "HWLOC_FSROOT")) {
		if (check_fsroot(value, env, err, errlen))
			return -1;
		snprintf(topo->description, sizeof(topo->description),
			 "hwloc-gather-topology directory %s (HWLOC_FSROOT)", value);
	} else if (!strcmp(env, "HWLOC_SYNTHETIC")) {
		/* hwloc reads it at load: only the bound is checked here */
		if (synthetic_too_big(value, err, errlen))
			return -1;
		snprintf(topo->description, sizeof(topo->description),
			 "synthetic '%s' (HWLOC_SYNTHETIC)", value);
	} else {
		if (set_xml(t, value, env, err, errlen))
			return -1;
		snprintf(topo->description, sizeof(topo->description),
			 "XML file %s (HWLOC_XMLFILE)", value);
	}
	return 0;
}

/*
 * Only a topology hwloc discovered here is this system. hwloc's
 * is_thissystem is no guide on its own: HWLOC_THISSYSTEM=1 makes it
 * true for any XML or directory, from any machine, and binding by that
 * file's tree would class two cores of this machine as SMT siblings
 * when the file's machine had its PU 0 and 1 on one core.
 */
static int load_topology(struct topo *topo, const char *spec, char *err,
			 size_t errlen)
{
	hwloc_topology_t t;
	const char *env = topo_unread_env(), *source = spec ? NULL : topo_source_env();
	int nr_pus, ret;

	if (env) {
		snprintf(err, errlen, "%s '%s': hwloc would read the files there unchecked: expected it unset (a topology comes from --topology, HWLOC_XMLFILE, HWLOC_SYNTHETIC or HWLOC_FSROOT)",
			 env, getenv(env));
		return -1;
	}

	if (hwloc_topology_init(&t)) {
		snprintf(err, errlen, "hwloc_topology_init: %s", strerror(errno));
		return -1;
	}
	topo->backend->topology = t;
	/* hwloc drops memory-side caches unless asked: they must be seen to be skipped. */
	hwloc_topology_set_type_filter(t, HWLOC_OBJ_MEMCACHE, HWLOC_TYPE_FILTER_KEEP_ALL);
	fsroot_walk.root[0] = '\0';
	if (spec ? set_from_spec(topo, t, spec, err, errlen) :
	    source ? set_from_env(topo, t, source, err, errlen) : 0)
		return -1;
	ret = fsroot_walk.root[0] ? load_from_fsroot(t, fsroot_walk.root) :
				    hwloc_topology_load(t);
	if (ret == FSROOT_NO_CPU_TOPOLOGY) {
		snprintf(err, errlen, "%s '%s': hwloc found no CPU topology there (sys/devices/system/cpu/cpuN/topology/): expected a directory hwloc-gather-topology wrote",
			 source ? source : "topology", spec ? spec : getenv(source));
		return -1;
	}
	if (ret) {
		snprintf(err, errlen, "topology '%s': hwloc cannot load it: %s",
			 spec ? spec : source ? getenv(source) : "this system",
			 strerror(errno));
		return -1;
	}
	topo->this_system = !spec && !source && hwloc_topology_is_thissystem(t);
	/* a description or a file: this system's own PUs are what they are */
	nr_pus = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PU);
	if (!topo->this_system && nr_pus > SYNTHETIC_MAX_PUS) {
		snprintf(err, errlen, "topology '%s': %d PUs: expected at most %d",
			 spec ? spec : source ? getenv(source) : "this system",
			 nr_pus, SYNTHETIC_MAX_PUS);
		return -1;
	}
	if (spec || source)
		return 0;
	snprintf(topo->description, sizeof(topo->description), "%s",
		 topo->this_system ? "this system" :
		 "a topology hwloc says is not this system (HWLOC_THISSYSTEM or HWLOC_COMPONENTS)");
	return 0;
}

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

static bool pu_allowed(const struct topo_backend *be, hwloc_obj_t pu)
{
	return hwloc_bitmap_isset(be->allowed, pu->os_index);
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
	if (load_topology(topo, spec, err, errlen) ||
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

/*
 * KNL's MCDRAM in cache mode caches memory for the PUs beside it: hwloc 2
 * makes it a MemCache memory child, but under HWLOC_KNL_MSCACHE_L3=1 (and
 * in hwloc 1.x XML) it is an L3Cache of subtype "MemorySideCache". Either
 * way it is no CPU cache level: two cores under it do not share an L3.
 */
static bool is_memory_side_cache(hwloc_obj_t obj)
{
	return obj->type == HWLOC_OBJ_MEMCACHE ||
	       (hwloc_obj_type_is_cache(obj->type) && obj->subtype &&
		!strcmp(obj->subtype, "MemorySideCache"));
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

/* "L3 L#0 (32MB)", "NUMANode L#1 (P#1, 1024MB)", "Package L#0" */
static void format_obj(hwloc_obj_t obj, char *buf, size_t len)
{
	char type[64];
	int used;

	hwloc_obj_type_snprintf(type, sizeof(type), obj, 0);
	used = snprintf(buf, len, "%s L#%u", type, obj->logical_index);
	if (used < 0 || (size_t)used >= len)
		return;
	if ((hwloc_obj_type_is_cache(obj->type) || obj->type == HWLOC_OBJ_MEMCACHE) &&
	    obj->attr->cache.size)
		snprintf(buf + used, len - (size_t)used, " (%llu%s%s)",
			 (unsigned long long)(obj->attr->cache.size >>
					      (obj->attr->cache.size >= 1 << 20 ? 20 : 10)),
			 obj->attr->cache.size >= 1 << 20 ? "MB" : "KB",
			 is_memory_side_cache(obj) ? ", memory-side cache" : "");
	else if (obj->type == HWLOC_OBJ_MEMCACHE)
		snprintf(buf + used, len - (size_t)used, " (memory-side cache)");
	else if (obj->type == HWLOC_OBJ_NUMANODE)
		snprintf(buf + used, len - (size_t)used, " (P#%u, %lluMB)",
			 obj->os_index,
			 (unsigned long long)(obj->attr->numanode.local_memory >> 20));
}

static bool only_pu_children(hwloc_obj_t obj)
{
	if (!obj->arity)
		return false;
	for (unsigned int c = 0; c < obj->arity; c++)
		if (obj->children[c]->type != HWLOC_OBJ_PU)
			return false;
	return true;
}

/* A core's PUs on its own line: "Core L#0: PU P#0 P#128". */
static void print_pus(const struct topo_backend *be, hwloc_obj_t obj, FILE *out)
{
	fputs(": PU", out);
	for (unsigned int c = 0; c < obj->arity; c++)
		fprintf(out, " P#%u%s", obj->children[c]->os_index,
			pu_allowed(be, obj->children[c]) ? "" : " (not allowed)");
}

/* Memory children: NUMA nodes, and the memory-side caches in front of them. */
static void print_memory(hwloc_obj_t obj, int indent, FILE *out)
{
	char label[128];

	for (hwloc_obj_t m = obj->memory_first_child; m; m = m->next_sibling) {
		format_obj(m, label, sizeof(label));
		fprintf(out, "%*s%s\n", indent, "", label);
		print_memory(m, indent + 2, out);
	}
}

static void print_subtree(const struct topo_backend *be, hwloc_obj_t obj,
			  int indent, FILE *out)
{
	char label[128];

	fprintf(out, "%*s", indent, "");
	/* One-child chains on one line, as lstopo does: "L2 + L1d + Core". */
	for (;;) {
		format_obj(obj, label, sizeof(label));
		fputs(label, out);
		if (obj->type == HWLOC_OBJ_PU) {
			fprintf(out, " (P#%u)%s", obj->os_index,
				pu_allowed(be, obj) ? "" : " (not allowed)");
			fputc('\n', out);
			return;
		}
		if (only_pu_children(obj)) {
			print_pus(be, obj, out);
			fputc('\n', out);
			return;
		}
		if (obj->arity != 1 || obj->memory_arity)
			break;
		fputs(" + ", out);
		obj = obj->children[0];
	}
	fputc('\n', out);
	print_memory(obj, indent + 2, out);
	for (unsigned int c = 0; c < obj->arity; c++)
		print_subtree(be, obj->children[c], indent + 2, out);
}

void topo_print_tree(const struct topo *topo, FILE *out)
{
	print_subtree(topo->backend, hwloc_get_root_obj(topo->backend->topology),
		      0, out);
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
