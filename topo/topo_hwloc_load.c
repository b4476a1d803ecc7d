// SPDX-License-Identifier: GPL-2.0-only
/*
 * Where the hwloc backend's topology comes from: this system, an XML
 * file, a synthetic description or a directory hwloc-gather-topology
 * wrote (--topology, or hwloc's own variables), each checked against the
 * bounds on a topology we are handed before hwloc reads it.
 */
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "input_file.h"
#include "topo_hwloc.h"

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
int topo_hwloc_load(struct topo *topo, const char *spec, char *err, size_t errlen)
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
