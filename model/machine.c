// SPDX-License-Identifier: GPL-2.0-only
/*
 * Machine profiles: a machine we do not have, as a small JSON file.
 *
 *   {
 *     "name": "epyc-7r13-2s",
 *     "title": "2-socket AMD EPYC Milan, 256 CPUs",
 *     "topology": "pack:2 numa:1 l3:8 core:8 pu:2",
 *     "numa_distances": "10,32",
 *     "clock_ghz": { "value": 2.45, "source": "..." },
 *     "store_buffer": { "value": 64, "source": "..." },
 *     "one_way_ns": { "smt": { "value": 9.8, "source": "..." }, ... }
 *   }
 *
 * Every number carries the source it comes from: a profile is a claim
 * about hardware, and the report prints where each claim was read.
 */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cpu_id.h"
#include "data_dir.h"
#include "model.h"
#include "profile_read.h"
#include "run_context.h"

/* The profile's topology, opened with its NUMA distances. */
static int open_topology(const struct profile_file *p, struct machine_profile *m,
			 const char *path, char *err, size_t errlen)
{
	char terr[256];

	m->topo = topo_open(m->topology, terr, sizeof(terr));
	if (!m->topo) {
		snprintf(err, errlen, "%s: topology '%s': %s", path, m->topology, terr);
		return -1;
	}
	if (p->numa_distances && topo_parse_numa_distances(m->topo, p->numa_distances, terr,
							   sizeof(terr))) {
		snprintf(err, errlen, "%s: numa_distances '%s': %s", path, p->numa_distances, terr);
		return -1;
	}
	m->nr_cpus = topo_nr_allowed_cpus(m->topo);
	return 0;
}

/* The machine a profile read (resultfile/profile_read.h) describes. */
static int machine_of_profile(const struct profile_file *p, struct machine_profile *m,
			      const char *path, char *err, size_t errlen)
{
	snprintf(m->name, sizeof(m->name), "%s", p->name);
	snprintf(m->title, sizeof(m->title), "%s", p->title);
	snprintf(m->topology, sizeof(m->topology), "%s", p->topology);
	m->clock_ghz = p->clock_ghz.value;
	snprintf(m->clock_source, sizeof(m->clock_source), "%s", p->clock_ghz.source);
	m->store_buffer = (unsigned int)p->store_buffer.value;
	snprintf(m->store_buffer_source, sizeof(m->store_buffer_source), "%s",
		 p->store_buffer.source);
	if (p->has_remote_home) {
		m->remote_home_ns = p->remote_home_ns.value;
		snprintf(m->remote_home_source, sizeof(m->remote_home_source), "%s",
			 p->remote_home_ns.source);
	}
	/* a published machine's tenure counts for locked ops and cmpxchg */
	if (p->has_tenure_share) {
		m->tenure_share[1] = p->tenure_share.value;
		snprintf(m->tenure_source, sizeof(m->tenure_source), "%s", p->tenure_share.source);
	}
	if (p->has_waiter_ns) {
		m->waiter_ns = p->waiter_ns.value;
		snprintf(m->waiter_source, sizeof(m->waiter_source), "%s", p->waiter_ns.source);
	}
	for (int c = 0; c < NR_DISTANCE_CLASSES; c++) {
		if (!p->has_one_way[c])
			continue;
		m->one_way_ns[c] = p->one_way_ns[c].value;
		snprintf(m->source[c], sizeof(m->source[c]), "%s", p->one_way_ns[c].source);
	}
	return open_topology(p, m, path, err, errlen);
}

int machine_profile_load(const char *path, struct machine_profile *m,
			 char *err, size_t errlen)
{
	struct profile_file p;
	int rc;

	*m = (struct machine_profile){ 0 };
	rc = profile_read(path, PROFILE_MAX_BYTES, &p, err, errlen);
	if (rc)
		return rc;
	rc = machine_of_profile(&p, m, path, err, errlen);
	profile_free(&p);
	if (rc) {
		machine_profile_close(m);
		/* not half a machine: a caller that prints m sees none */
		*m = (struct machine_profile){ 0 };
	}
	return rc;
}

int machine_profile_load_shipped(const char *name, struct machine_profile *m,
				 char *err, size_t errlen)
{
	char data[PATH_MAX], profiles[PATH_MAX + 16], path[PATH_MAX + 300], why[512];
	size_t used;
	DIR *dir;
	struct dirent *e;

	*m = (struct machine_profile){ 0 };
	if (data_dir_find(data, sizeof(data), why, sizeof(why))) {
		snprintf(err, errlen, "'%s': no such file, and no shipped profiles: %s", name, why);
		return -1;
	}
	snprintf(profiles, sizeof(profiles), "%s/profiles", data);
	snprintf(path, sizeof(path), "%s/%s.json", profiles, name);
	if (!strchr(name, '/') && !access(path, F_OK))
		return machine_profile_load(path, m, err, errlen);
	used = (size_t)snprintf(err, errlen, "'%s': no such file, and not a shipped profile, expected one of:",
				name);
	dir = opendir(profiles);
	while (dir && (e = readdir(dir)) && used < errlen) {
		size_t n = strlen(e->d_name);

		if (n > 5 && !strcmp(e->d_name + n - 5, ".json"))
			used += (size_t)snprintf(err + used, errlen - used, " %.*s", (int)(n - 5),
						 e->d_name);
	}
	if (dir)
		closedir(dir);
	return -1;
}

double model_this_clock_ghz(void)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[256];
	double mhz = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "cpu MHz : %lf", &mhz) == 1)
			break;
	fclose(f);
	return mhz > 0 ? mhz / 1000 : 0;
}

/*
 * Store-buffer entries by vendor and family, from the vendors' manuals:
 * Intel 64 and IA-32 Optimization Reference Manual (Skylake: 56 store
 * buffer entries), AMD Software Optimization Guides for family 17h (Zen
 * 2: 48-entry store queue) and 19h (Zen 3: 64). Other CPUs: not x86, or
 * unknown, so plain stores are not assumed hidden.
 */
/*
 * The same entries from a recorded CPU name ("Intel(R) Xeon(R) ...",
 * "AMD EPYC ..."), for results of machines we cannot ask: the name gives
 * no family, so AMD is taken as family 19h.
 */
unsigned int machine_store_buffer(const char *vendor, long family, const char *brand,
				  char *source, size_t len)
{
	char none[1];

	if (!source) {
		source = none;
		len = sizeof(none);
	}
	/* a results file from before context.cpu: its brand string names the vendor */
	if (!vendor && brand && strstr(brand, "Intel"))
		vendor = "GenuineIntel";
	else if (!vendor && brand && (strstr(brand, "AMD") || strstr(brand, "EPYC")))
		vendor = "AuthenticAMD";
	if (vendor && !strcmp(vendor, "GenuineIntel")) {
		snprintf(source, len, "Intel optimization manual: 56 store-buffer entries (Skylake)");
		return 56;
	}
	if (vendor && !strcmp(vendor, "AuthenticAMD") && family == 0x17) {
		snprintf(source, len, "AMD family 17h optimization guide: 48-entry store queue");
		return 48;
	}
	if (vendor && !strcmp(vendor, "AuthenticAMD") && family == 0x19) {
		snprintf(source, len, "AMD family 19h optimization guide: 64-entry store queue");
		return 64;
	}
	if (vendor && !strcmp(vendor, "AuthenticAMD") && family > 0x19) {
		/* a later family is not in the table: the latest one it has */
		snprintf(source, len,
			 "AMD family %lxh not tabled: family 19h's 64-entry store queue taken", family);
		return 64;
	}
	if (vendor && !strcmp(vendor, "AuthenticAMD") && family < 0) {
		snprintf(source, len,
			 "AMD, family not recorded: family 19h's 64-entry store queue taken");
		return 64;
	}
	snprintf(source, len, "unknown CPU: stores not assumed hidden");
	return 0;
}

static unsigned int this_store_buffer(char *source, size_t len)
{
	struct cpu_id id;

	if (cpu_id_read(&id))
		return machine_store_buffer(NULL, -1, NULL, source, len);
	return machine_store_buffer(id.vendor, id.family, NULL, source, len);
}

int machine_profile_this(struct machine_profile *m, char *err, size_t errlen)
{
	*m = (struct machine_profile){ 0 };
	snprintf(m->name, sizeof(m->name), "this");
	snprintf(m->title, sizeof(m->title), "this machine");
	m->topo = topo_open(NULL, err, errlen);
	if (!m->topo)
		return -1;
	m->nr_cpus = topo_nr_allowed_cpus(m->topo);
	m->clock_ghz = model_this_clock_ghz();
	snprintf(m->clock_source, sizeof(m->clock_source), "/proc/cpuinfo cpu MHz");
	m->store_buffer = this_store_buffer(m->store_buffer_source,
					    sizeof(m->store_buffer_source));
	return 0;
}

/*
 * "pack:2 l3:1 core:64 pu:2": the machine a results file's context
 * describes, in hwloc's synthetic form, or -1 with why where the context
 * does not say enough to build it.
 */
static int run_topology_spec(const struct run_context *run, char *spec, size_t spec_len,
			     char *why, size_t len)
{
	long nr_cpus = run->topology.nr_allowed_cpus;
	long packages = 1, threads = run_context_class(run, "smt") ? 2 : 1;
	bool l3 = run_context_class(run, "l3") != NULL;

	if (!run->topology.has_classes || nr_cpus < 1) {
		snprintf(why, len, "no topology recorded");
		return -1;
	}
	if (run_context_class(run, "numa")) {
		snprintf(why, len, "NUMA nodes within a package: not recorded how many");
		return -1;
	}
	if (l3 && run_context_class(run, "package")) {
		snprintf(why, len, "several L3s per package: not recorded how many");
		return -1;
	}
	if (run_context_class(run, "cross_package"))
		packages = run->topology.numa_nodes > 1 ? run->topology.numa_nodes : 2;
	if (nr_cpus % (packages * threads)) {
		snprintf(why, len, "%ld CPUs do not split into %ld packages", nr_cpus, packages);
		return -1;
	}
	snprintf(spec, spec_len, "pack:%ld %score:%ld pu:%ld", packages, l3 ? "l3:1 " : "",
		 nr_cpus / packages / threads, threads);
	return 0;
}

int machine_profile_of_run(const struct run_context *run, const char *name, bool whole,
			   struct machine_profile *m, char *why, size_t len)
{
	char spec[128] = "pack:1 core:2 pu:1";

	*m = (struct machine_profile){ 0 };
	if (whole && run_topology_spec(run, spec, sizeof(spec), why, len))
		return -1;
	snprintf(m->name, sizeof(m->name), "%s", name);
	m->store_buffer = machine_store_buffer(run->cpu.vendor, run->cpu.family, run->cpu_model,
					       m->store_buffer_source,
					       sizeof(m->store_buffer_source));
	m->topo = topo_open(spec, why, len);
	if (!m->topo)
		return -1;
	m->nr_cpus = whole ? (unsigned int)run->topology.nr_allowed_cpus : 2;
	return 0;
}

void machine_profile_close(struct machine_profile *m)
{
	if (m->topo)
		topo_close(m->topo);
	m->topo = NULL;
}
