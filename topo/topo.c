// SPDX-License-Identifier: GPL-2.0-only
/*
 * Placement policies and distance classes, on top of whichever backend
 * discovered the machine (topo_hwloc.c or topo_affinity.c).
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topo_internal.h"

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

int topo_alloc_cpus(struct topo *topo, unsigned int nr_cpus)
{
	size_t n = nr_cpus ? nr_cpus : 1;

	topo->compact = calloc(n, sizeof(int));
	topo->spread = calloc(n, sizeof(int));
	topo->core_of = calloc(n, sizeof(int));
	if (!topo->compact || !topo->spread || !topo->core_of) {
		topo_free_cpus(topo);
		return -1;
	}
	topo->nr_cpus = nr_cpus;
	return 0;
}

void topo_free_cpus(struct topo *topo)
{
	free(topo->compact);
	free(topo->spread);
	free(topo->core_of);
	topo->compact = topo->spread = topo->core_of = NULL;
	topo->nr_cpus = 0;
}

/*
 * hwloc's test hooks that have it read files under a directory the
 * environment names (dumped CPUID or hardware data): it opens what it
 * finds there itself, so a FIFO makes it wait forever and no size bound
 * holds. Refused: a topology that is not this system's comes through
 * --topology, HWLOC_XMLFILE, HWLOC_SYNTHETIC or HWLOC_FSROOT, whose files
 * are checked by the rule for every input (input_file.h) first.
 */
static const char *const unread_env[] = {
	"HWLOC_CPUID_PATH", "HWLOC_DUMPED_HWDATA_DIR",
};

/* hwloc_topology_load()'s order: the first one set wins. */
static const char *const source_env[] = {
	"HWLOC_FSROOT", "HWLOC_SYNTHETIC", "HWLOC_XMLFILE",
};

const char *topo_unread_env(void)
{
	for (size_t i = 0; i < sizeof(unread_env) / sizeof(unread_env[0]); i++)
		if (getenv(unread_env[i]))
			return unread_env[i];
	return NULL;
}

const char *topo_source_env(void)
{
	for (size_t i = 0; i < sizeof(source_env) / sizeof(source_env[0]); i++)
		if (getenv(source_env[i]))
			return source_env[i];
	return NULL;
}

bool topo_from_user(const char *spec)
{
	return spec || topo_source_env() || topo_unread_env();
}

bool topo_is_this_system(const struct topo *topo)
{
	return topo->this_system;
}

const char *topo_describe(const struct topo *topo)
{
	return topo->description;
}

unsigned int topo_nr_allowed_cpus(const struct topo *topo)
{
	return topo->nr_cpus;
}

int topo_allowed_cpu(const struct topo *topo, unsigned int i)
{
	return i < topo->nr_cpus ? topo->compact[i] : -1;
}

bool topo_cpu_is_allowed(const struct topo *topo, int cpu)
{
	for (unsigned int i = 0; i < topo->nr_cpus; i++)
		if (topo->compact[i] == cpu)
			return true;
	return false;
}

static int compare_ints(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

void topo_format_allowed(const struct topo *topo, char *buf, size_t len)
{
	int *sorted = malloc(topo->nr_cpus * sizeof(int) + 1);
	size_t used = 0;

	buf[0] = '\0';
	if (!sorted)
		return;
	memcpy(sorted, topo->compact, topo->nr_cpus * sizeof(int));
	qsort(sorted, topo->nr_cpus, sizeof(int), compare_ints);
	for (unsigned int i = 0; i < topo->nr_cpus && used < len; ) {
		unsigned int j = i;

		while (j + 1 < topo->nr_cpus && sorted[j + 1] == sorted[j] + 1)
			j++;
		if (j == i)
			used += (size_t)snprintf(buf + used, len - used, "%s%d",
						 used ? "," : "", sorted[i]);
		else
			used += (size_t)snprintf(buf + used, len - used, "%s%d-%d",
						 used ? "," : "", sorted[i], sorted[j]);
		i = j + 1;
	}
	free(sorted);
}

unsigned int topo_classes_present(const struct topo *topo,
				  struct topo_class_example ex[NR_DISTANCE_CLASSES])
{
	unsigned int found = 0;

	bool possible[NR_DISTANCE_CLASSES] = { false };
	unsigned int nr_possible = 0;

	for (int c = 0; c < NR_DISTANCE_CLASSES; c++)
		ex[c] = (struct topo_class_example){ -1, -1, -1 };
	/*
	 * Which classes occur: in compact order (depth first) every object
	 * with two children that hold CPUs is the common ancestor of some
	 * two neighbours, so the neighbours' classes (and a CPU with itself)
	 * are all the classes any pair has. The search for each class's
	 * first pair below stops once it has them all, after the first row
	 * or few on any real shape, where it looked at every pair of a
	 * many-CPU machine (8192 CPUs: most of a minute).
	 */
	for (unsigned int i = 0; i < topo->nr_cpus; i++) {
		enum distance_class c = topo_classify(topo, topo->compact[i],
						      topo->compact[i + 1 < topo->nr_cpus ? i + 1 : i]);

		nr_possible += !possible[c];
		possible[c] = true;
	}
	for (unsigned int i = 0; i < topo->nr_cpus && found < nr_possible; i++) {
		for (unsigned int j = i; j < topo->nr_cpus && found < nr_possible; j++) {
			int a = topo->compact[i], b = topo->compact[j];
			enum distance_class c = topo_classify(topo, a, b);

			if (ex[c].cpu_a >= 0)
				continue;
			ex[c] = (struct topo_class_example){
				a, b, topo_numa_distance(topo, a, b) };
			found++;
		}
	}
	return found;
}

void topo_format_classes_present(const struct topo *topo, char *buf,
				 size_t len)
{
	struct topo_class_example ex[NR_DISTANCE_CLASSES];
	size_t used = 0;

	buf[0] = '\0';
	topo_classes_present(topo, ex);
	for (int c = 0; c < NR_DISTANCE_CLASSES && used < len; c++)
		if (ex[c].cpu_a >= 0)
			used += (size_t)snprintf(buf + used, len - used, "%s%s",
						 used ? ", " : "", class_names[c]);
}

bool placement_shares_cpu(const struct placement *pl)
{
	for (unsigned int i = 0; i < pl->nr_cpus; i++)
		for (unsigned int j = i + 1; j < pl->nr_cpus; j++)
			if (pl->cpus[i] == pl->cpus[j])
				return true;
	return false;
}

int topo_parse_numa_distances(struct topo *topo, const char *text, char *err,
			      size_t errlen)
{
	unsigned int n = topo_nr_numa_nodes(topo), nr = 1;
	uint64_t *values;
	const char *p = text;
	int ret = -1;

	/* No NUMA nodes known (a build without hwloc): the setter says why. */
	if (!n)
		return topo_set_numa_distances(topo, 0, NULL, err, errlen);
	for (const char *c = text; *c; c++)
		nr += *c == ',';
	/* Counted before anything is kept: N x N or LOCAL,REMOTE, no more. */
	if (nr != 2 && nr != n * n) {
		snprintf(err, errlen, "%u values: expected %u (%u nodes x %u, row by row), or LOCAL,REMOTE",
			 nr, n * n, n, n);
		return -1;
	}
	values = calloc((size_t)n * n + 2, sizeof(*values));
	if (!values) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (unsigned int i = 0; i < nr; i++) {
		char *end;

		errno = 0;
		values[i] = strtoull(p, &end, 10);
		if (end == p || !isdigit((unsigned char)*p) || errno ||
		    values[i] < 1 || values[i] > TOPO_MAX_NUMA_DISTANCE ||
		    (*end && *end != ',')) {
			snprintf(err, errlen, "'%.*s': expected N x N positive integers up to %d, or LOCAL,REMOTE",
				 (int)strcspn(p, ","), p, TOPO_MAX_NUMA_DISTANCE);
			goto out;
		}
		p = *end ? end + 1 : end;
	}
	/* LOCAL,REMOTE: the diagonal local, everything else remote. */
	if (nr == 2 && n != 1) {
		uint64_t local = values[0], remote = values[1];

		for (unsigned int i = 0; i < n * n; i++)
			values[i] = i / n == i % n ? local : remote;
		nr = n * n;
	}
	ret = topo_set_numa_distances(topo, nr, values, err, errlen);
out:
	free(values);
	return ret;
}

/*
 * The farthest NUMA distance among the placement's nodes: -1 if any CPU
 * has no node or any pair of its nodes no distance.
 */
static int placement_numa_distance(const struct topo *topo,
				   const struct placement *pl)
{
	unsigned int nr_nodes = topo_nr_numa_nodes(topo);
	bool *used = calloc(nr_nodes ? nr_nodes : 1, sizeof(bool));
	int widest = -1;

	if (!used)
		return -1;
	for (unsigned int t = 0; t < pl->nr_cpus; t++) {
		int node = topo_numa_node_of(topo, pl->cpus[t]);

		if (node < 0 || (unsigned int)node >= nr_nodes)
			goto unknown;
		used[node] = true;
	}
	for (unsigned int i = 0; i < nr_nodes; i++) {
		for (unsigned int j = 0; j < nr_nodes; j++) {
			int d;

			if (!used[i] || !used[j])
				continue;
			d = topo_numa_node_distance(topo, i, j);
			if (d < 0)
				goto unknown;
			if (d > widest)
				widest = d;
		}
	}
	free(used);
	return widest;
unknown:
	free(used);
	return -1;
}

/*
 * The widest class among the threads. Comparing every CPU with the first
 * is enough: sharing a cache, a core, a node or a package are each
 * "same ancestor" relations, so if a-b and a-c are both within one class,
 * b-c is too.
 */
static void finish_placement(const struct topo *topo, const char *policy,
			     struct placement *pl)
{
	pl->widest = DISTANCE_SAME_PU;
	for (unsigned int t = 1; t < pl->nr_cpus; t++) {
		enum distance_class c = topo_classify(topo, pl->cpus[0], pl->cpus[t]);

		if (c > pl->widest)
			pl->widest = c;
	}
	pl->numa_distance = placement_numa_distance(topo, pl);
	/* A P-core and an E-core are not one latency: never averaged silently. */
	pl->mixes_cpu_kinds = false;
	for (unsigned int t = 1; t < pl->nr_cpus; t++)
		if (topo_cpu_kind(topo, pl->cpus[t]) != topo_cpu_kind(topo, pl->cpus[0]))
			pl->mixes_cpu_kinds = true;
	snprintf(pl->policy, sizeof(pl->policy), "%s", policy);
}

static void plan_in_order(const int *order, unsigned int nr_cpus,
			  unsigned int nr_threads, struct placement *pl)
{
	for (unsigned int t = 0; t < nr_threads; t++)
		pl->cpus[t] = order[t % nr_cpus];
	pl->nr_cpus = nr_threads;
}

static int plan_cores(const struct topo *topo, const char *policy,
		      unsigned int nr_threads, struct placement *pl,
		      char *err, size_t errlen)
{
	bool *taken;
	unsigned int t = 0;

	if (!topo->nr_cores) {
		snprintf(err, errlen,
			 "placement '%s': the cores of this machine are unknown (this build has no hwloc); expected compact, spread or cpus:LIST",
			 policy);
		return TOPO_PLAN_BAD_POLICY;
	}
	if (nr_threads > topo->nr_cores) {
		snprintf(err, errlen,
			 "placement '%s': %u threads, but only %u cores have a CPU this process may use",
			 policy, nr_threads, topo->nr_cores);
		return TOPO_PLAN_BAD_THREADS;
	}
	taken = calloc(topo->nr_cores, sizeof(bool));
	if (!taken) {
		snprintf(err, errlen, "placement '%s': out of memory", policy);
		return TOPO_PLAN_BAD_POLICY;
	}
	for (unsigned int i = 0; i < topo->nr_cpus && t < nr_threads; i++) {
		int core = topo->core_of[i];

		if (core < 0 || taken[core])
			continue;
		taken[core] = true;
		pl->cpus[t++] = topo->compact[i];
	}
	free(taken);
	pl->nr_cpus = t;
	return 0;
}

static int plan_pair(const struct topo *topo, const char *policy,
		     const char *class_name, unsigned int nr_threads,
		     struct placement *pl, char *err, size_t errlen)
{
	char present[256];
	int cls = distance_class_parse(class_name);

	if (cls < 0) {
		snprintf(err, errlen,
			 "placement '%s': unknown class '%s', expected one of same_pu, smt, l2, l3, package, numa, cross_package",
			 policy, class_name);
		return TOPO_PLAN_BAD_POLICY;
	}
	if (nr_threads != 2) {
		snprintf(err, errlen,
			 "placement '%s' places exactly 2 threads, not %u",
			 policy, nr_threads);
		return TOPO_PLAN_BAD_THREADS;
	}
	for (unsigned int i = 0; i < topo->nr_cpus; i++) {
		for (unsigned int j = i; j < topo->nr_cpus; j++) {
			int a = topo->compact[i], b = topo->compact[j];

			if ((int)topo_classify(topo, a, b) != cls)
				continue;
			pl->cpus[0] = a;
			pl->cpus[1] = b;
			pl->nr_cpus = 2;
			return 0;
		}
	}
	topo_format_classes_present(topo, present, sizeof(present));
	snprintf(err, errlen,
		 "placement '%s': no two CPUs this process may use are %s apart here; classes present: %s",
		 policy, class_name, present);
	return TOPO_PLAN_BAD_POLICY;
}

/* One item of a cpus: list, "4" or "0-3". Returns the text after it. */
static const char *parse_cpu_range(const char *p, long *first, long *last)
{
	char *end;

	if (*p < '0' || *p > '9')
		return NULL;
	errno = 0;
	*first = strtol(p, &end, 10);
	*last = *first;
	if (*end == '-') {
		p = end + 1;
		if (*p < '0' || *p > '9')
			return NULL;
		*last = strtol(p, &end, 10);
	}
	if (errno || *last < *first || *last >= 1 << 20 ||
	    (*end && *end != ','))
		return NULL;
	return end;
}

static int plan_cpus(const struct topo *topo, const char *policy,
		     const char *list, unsigned int nr_threads,
		     struct placement *pl, char *err, size_t errlen)
{
	char allowed[256];
	unsigned int n = 0;
	const char *p = list;
	long first, last;

	for (;;) {
		p = parse_cpu_range(p, &first, &last);
		if (!p) {
			snprintf(err, errlen,
				 "placement '%s': expected cpus: and a list of CPU numbers or ranges, e.g. cpus:0,4,8 or cpus:0-3",
				 policy);
			return TOPO_PLAN_BAD_POLICY;
		}
		for (long cpu = first; cpu <= last; cpu++) {
			if (!topo_cpu_is_allowed(topo, (int)cpu)) {
				topo_format_allowed(topo, allowed, sizeof(allowed));
				snprintf(err, errlen,
					 "placement '%s': CPU %ld is not one this process may use (allowed: %s)",
					 policy, cpu, allowed);
				return TOPO_PLAN_BAD_POLICY;
			}
			if (n == PLACEMENT_MAX_CPUS) {
				snprintf(err, errlen, "placement '%s': expected at most %d CPUs",
					 policy, PLACEMENT_MAX_CPUS);
				return TOPO_PLAN_BAD_POLICY;
			}
			pl->cpus[n++] = (int)cpu;
		}
		if (!*p)
			break;
		p++;
	}
	if (nr_threads > n) {
		snprintf(err, errlen,
			 "placement '%s' lists %u CPU%s, too few for %u threads",
			 policy, n, n == 1 ? "" : "s", nr_threads);
		return TOPO_PLAN_BAD_THREADS;
	}
	/* Fewer threads than CPUs listed: the first ones, so a list can be swept. */
	pl->nr_cpus = nr_threads;
	return 0;
}

int topo_plan(const struct topo *topo, const char *policy,
	      unsigned int nr_threads, struct placement *out,
	      char *err, size_t errlen)
{
	int ret = 0;

	memset(out, 0, sizeof(*out));
	if (strlen(policy) >= sizeof(out->policy)) {
		snprintf(err, errlen,
			 "placement '%.40s...': expected at most %zu characters (ranges help: cpus:0-15)",
			 policy, sizeof(out->policy) - 1);
		return TOPO_PLAN_BAD_POLICY;
	}
	if (nr_threads == 0 || nr_threads > PLACEMENT_MAX_CPUS) {
		snprintf(err, errlen, "threads %u: expected 1 to %d", nr_threads,
			 PLACEMENT_MAX_CPUS);
		return TOPO_PLAN_BAD_THREADS;
	}
	if (!strcmp(policy, "compact"))
		plan_in_order(topo->compact, topo->nr_cpus, nr_threads, out);
	else if (!strcmp(policy, "spread"))
		plan_in_order(topo->spread, topo->nr_cpus, nr_threads, out);
	else if (!strcmp(policy, "cores"))
		ret = plan_cores(topo, policy, nr_threads, out, err, errlen);
	else if (!strncmp(policy, "pair:", 5))
		ret = plan_pair(topo, policy, policy + 5, nr_threads, out, err, errlen);
	else if (!strncmp(policy, "cpus:", 5))
		ret = plan_cpus(topo, policy, policy + 5, nr_threads, out, err, errlen);
	else {
		snprintf(err, errlen,
			 "placement '%s': expected compact, spread, cores, pair:CLASS or cpus:LIST",
			 policy);
		ret = TOPO_PLAN_BAD_POLICY;
	}
	if (!ret)
		finish_placement(topo, policy, out);
	return ret;
}

unsigned int topo_policy_default_threads(const struct topo *topo,
					 const char *policy)
{
	unsigned int n = 0;
	long first, last;

	if (!strncmp(policy, "pair:", 5))
		return 2;
	if (!strcmp(policy, "cores") && topo->nr_cores)
		return topo->nr_cores;
	if (strncmp(policy, "cpus:", 5))
		return topo->nr_cpus;
	for (const char *p = policy + 5; (p = parse_cpu_range(p, &first, &last)); p++) {
		n += (unsigned int)(last - first + 1);
		if (!*p)
			break;
	}
	return n ? n : 1;
}
