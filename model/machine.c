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
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cpu_id.h"
#include "data_dir.h"
#include "input_file.h"
#include "model.h"

static int copy_string(json_t *root, const char *key, bool required, char *dst,
		       size_t len, const char *path, char *err, size_t errlen)
{
	json_t *v = json_object_get(root, key);

	if (!v && !required)
		return 0;
	if (!json_is_string(v) || !json_string_length(v) ||
	    json_string_length(v) >= len) {
		snprintf(err, errlen, "%s: \"%s\": expected a string of 1 to %zu characters",
			 path, key, len - 1);
		return -1;
	}
	snprintf(dst, len, "%s", json_string_value(v));
	return 0;
}

/* { "value": number in [lo, hi], "source": "non-empty" } */
static int read_sourced(json_t *v, const char *what, double lo, double hi,
			double *value, char *source, size_t source_len,
			const char *path, char *err, size_t errlen)
{
	json_t *num = json_object_get(v, "value");
	json_t *src = json_object_get(v, "source");

	if (!json_is_object(v) || !json_is_number(num) ||
	    json_number_value(num) < lo || json_number_value(num) > hi ||
	    !isfinite(json_number_value(num))) {
		snprintf(err, errlen, "%s: %s: expected {\"value\": a number from %g to %g, \"source\": \"...\"}",
			 path, what, lo, hi);
		return -1;
	}
	if (!json_is_string(src) || !json_string_length(src)) {
		snprintf(err, errlen, "%s: %s: expected a \"source\" naming where the number comes from",
			 path, what);
		return -1;
	}
	*value = json_number_value(num);
	snprintf(source, source_len, "%s", json_string_value(src));
	return 0;
}

static int read_latencies(json_t *root, struct machine_profile *m,
			  const char *path, char *err, size_t errlen)
{
	json_t *lat = json_object_get(root, "one_way_ns");
	const char *key;
	json_t *v;
	char what[64];

	if (!json_is_object(lat) || !json_object_size(lat)) {
		snprintf(err, errlen, "%s: \"one_way_ns\": expected an object of distance classes, e.g. {\"l3\": {\"value\": 40, \"source\": \"...\"}}",
			 path);
		return -1;
	}
	json_object_foreach(lat, key, v) {
		int cls = distance_class_parse(key);

		if (cls < 0 || cls == DISTANCE_SAME_PU || cls == DISTANCE_UNKNOWN) {
			snprintf(err, errlen, "%s: one_way_ns: unknown class '%s': expected smt, l2, l3, package, numa or cross_package",
				 path, key);
			return -1;
		}
		snprintf(what, sizeof(what), "one_way_ns.%s", key);
		if (read_sourced(v, what, 0.1, 10000, &m->one_way_ns[cls],
				 m->source[cls], sizeof(m->source[cls]), path, err, errlen))
			return -1;
	}
	return 0;
}

static int open_topology(json_t *root, struct machine_profile *m,
			 const char *path, char *err, size_t errlen)
{
	json_t *dist = json_object_get(root, "numa_distances");
	char terr[256];

	m->topo = topo_open(m->topology, terr, sizeof(terr));
	if (!m->topo) {
		snprintf(err, errlen, "%s: topology '%s': %s", path, m->topology, terr);
		return -1;
	}
	if (dist && !json_is_string(dist)) {
		snprintf(err, errlen, "%s: \"numa_distances\": expected a string such as \"10,32\"", path);
		return -1;
	}
	if (dist && topo_parse_numa_distances(m->topo, json_string_value(dist), terr,
					      sizeof(terr))) {
		snprintf(err, errlen, "%s: numa_distances '%s': %s", path,
			 json_string_value(dist), terr);
		return -1;
	}
	m->nr_cpus = topo_nr_allowed_cpus(m->topo);
	return 0;
}

static int load_json(json_t *root, struct machine_profile *m, const char *path,
		     char *err, size_t errlen)
{
	double sb = 0;

	if (!json_is_object(root)) {
		snprintf(err, errlen, "%s: expected a JSON object (a machine profile)", path);
		return -1;
	}
	if (copy_string(root, "name", true, m->name, sizeof(m->name), path, err, errlen) ||
	    copy_string(root, "title", false, m->title, sizeof(m->title), path, err, errlen) ||
	    copy_string(root, "topology", true, m->topology, sizeof(m->topology), path, err, errlen))
		return -1;
	if (read_sourced(json_object_get(root, "clock_ghz"), "clock_ghz", 0.1, 10,
			 &m->clock_ghz, m->clock_source, sizeof(m->clock_source),
			 path, err, errlen))
		return -1;
	if (read_sourced(json_object_get(root, "store_buffer"), "store_buffer", 0, 1024,
			 &sb, m->store_buffer_source, sizeof(m->store_buffer_source),
			 path, err, errlen))
		return -1;
	/* A count of entries: 4.5 would be truncated to 4 without a word. */
	if (sb != floor(sb)) {
		snprintf(err, errlen, "%s: store_buffer: %g: expected a whole number of entries from 0 to 1024",
			 path, sb);
		return -1;
	}
	m->store_buffer = (unsigned int)sb;
	/* Optional: a profile without it predicts a remote home as local. */
	if (json_object_get(root, "remote_home_ns") &&
	    read_sourced(json_object_get(root, "remote_home_ns"), "remote_home_ns", 0, 10000,
			 &m->remote_home_ns, m->remote_home_source,
			 sizeof(m->remote_home_source), path, err, errlen))
		return -1;
	if (read_latencies(root, m, path, err, errlen))
		return -1;
	return open_topology(root, m, path, err, errlen);
}

int machine_profile_load(const char *path, struct machine_profile *m,
			 char *err, size_t errlen)
{
	char why[768];
	json_t *root;
	int rc, status;

	*m = (struct machine_profile){ 0 };
	/* Read by the rule for every input: a FIFO never blocks the open. */
	root = input_file_json(path, PROFILE_MAX_BYTES, &status, why, sizeof(why));
	if (!root) {
		snprintf(err, errlen, "%s", why);
		return status == 1 ? -2 : -1;
	}
	rc = load_json(root, m, path, err, errlen);
	json_decref(root);
	if (rc)
		machine_profile_close(m);
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

void machine_profile_close(struct machine_profile *m)
{
	if (m->topo)
		topo_close(m->topo);
	m->topo = NULL;
}
