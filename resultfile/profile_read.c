// SPDX-License-Identifier: GPL-2.0-only
/* Reading a machine profile: profile_read.h. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "input_file.h"
#include "profile_read.h"

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
			struct profile_number *out, const char *path, char *err, size_t errlen)
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
	out->value = json_number_value(num);
	snprintf(out->source, sizeof(out->source), "%s", json_string_value(src));
	return 0;
}

static int read_latencies(json_t *root, struct profile_file *p,
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
		if (read_sourced(v, what, 0.1, 10000, &p->one_way_ns[cls], path, err, errlen))
			return -1;
		p->has_one_way[cls] = true;
	}
	return 0;
}

static int read_profile(json_t *root, struct profile_file *p, const char *path,
			char *err, size_t errlen)
{
	json_t *dist = json_object_get(root, "numa_distances");

	if (!json_is_object(root)) {
		snprintf(err, errlen, "%s: expected a JSON object (a machine profile)", path);
		return -1;
	}
	if (copy_string(root, "name", true, p->name, sizeof(p->name), path, err, errlen) ||
	    copy_string(root, "title", false, p->title, sizeof(p->title), path, err, errlen) ||
	    copy_string(root, "topology", true, p->topology, sizeof(p->topology), path, err, errlen))
		return -1;
	if (read_sourced(json_object_get(root, "clock_ghz"), "clock_ghz", 0.1, 10,
			 &p->clock_ghz, path, err, errlen))
		return -1;
	if (read_sourced(json_object_get(root, "store_buffer"), "store_buffer", 0, 1024,
			 &p->store_buffer, path, err, errlen))
		return -1;
	/* A count of entries: 4.5 would be truncated to 4 without a word. */
	if (p->store_buffer.value != floor(p->store_buffer.value)) {
		snprintf(err, errlen, "%s: store_buffer: %g: expected a whole number of entries from 0 to 1024",
			 path, p->store_buffer.value);
		return -1;
	}
	/* Optional: a profile without it predicts a remote home as local. */
	if (json_object_get(root, "remote_home_ns")) {
		if (read_sourced(json_object_get(root, "remote_home_ns"), "remote_home_ns", 0, 10000,
				 &p->remote_home_ns, path, err, errlen))
			return -1;
		p->has_remote_home = true;
	}
	/* Optional: without them the tenure is whole and waiters cost nothing. */
	if (json_object_get(root, "tenure_share")) {
		if (read_sourced(json_object_get(root, "tenure_share"), "tenure_share", 0.001, 1,
				 &p->tenure_share, path, err, errlen))
			return -1;
		p->has_tenure_share = true;
	}
	if (json_object_get(root, "waiter_ns")) {
		if (read_sourced(json_object_get(root, "waiter_ns"), "waiter_ns", 0, 1000,
				 &p->waiter_ns, path, err, errlen))
			return -1;
		p->has_waiter_ns = true;
	}
	if (read_latencies(root, p, path, err, errlen))
		return -1;
	if (dist && !json_is_string(dist)) {
		snprintf(err, errlen, "%s: \"numa_distances\": expected a string such as \"10,32\"", path);
		return -1;
	}
	p->numa_distances = json_string_value(dist);
	return 0;
}

int profile_read(const char *path, size_t max_bytes, struct profile_file *p,
		 char *err, size_t errlen)
{
	char why[768];
	json_t *root;
	int status;

	memset(p, 0, sizeof(*p));
	/* Read by the rule for every input: a FIFO never blocks the open. */
	root = input_file_json(path, max_bytes, &status, why, sizeof(why));
	if (!root) {
		snprintf(err, errlen, "%s", why);
		return status == 1 ? -2 : -1;
	}
	p->doc = root;
	if (read_profile(root, p, path, err, errlen)) {
		profile_free(p);
		return -1;
	}
	return 0;
}

void profile_free(struct profile_file *p)
{
	json_decref(p->doc);
	memset(p, 0, sizeof(*p));
}
