// SPDX-License-Identifier: GPL-2.0-only
/*
 * One row of ours (it has "bouncelab" facts) into a struct result_row:
 * family and variant, the setting (bouncelab.params into struct setting,
 * and the table key it makes with the placement and the home), the
 * placement, the shared state's home, the harness's ns/op, ops and
 * wall_ns, and the user counters. Also what every kept row goes through,
 * ours or another tool's: its counters, its names made unique and its
 * place in the set. The names a file gives reach markdown, SVG, file
 * names and shell lines: the character sets they are held to are here,
 * where they are read.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog.h"
#include "results_read_internal.h"

/*
 * Google Benchmark's own row keys: never user counters. Sorted (strcmp
 * order) for bsearch: every key of every row is looked up here.
 */
static const char *const gbench_row_keys[] = {
	"aggregate_name", "aggregate_unit", "big_o", "bouncelab", "cpu_coefficient",
	"cpu_time", "error_message", "error_occurred", "family_index",
	"iterations", "label", "name", "ns_per_op", "ops",
	"per_family_instance_index", "real_coefficient", "real_time",
	"repetition_index", "repetitions", "rms", "run_name", "run_type",
	"skip_message", "skipped", "threads", "time_unit", "wall_ns",
	/* ops, wall_ns, ns_per_op: the harness's, reported as ns/op and ops/s */
};

static int compare_key(const void *key, const void *entry)
{
	return strcmp(key, *(const char *const *)entry);
}

static bool is_gbench_key(const char *key)
{
	return bsearch(key, gbench_row_keys,
		       sizeof(gbench_row_keys) / sizeof(gbench_row_keys[0]),
		       sizeof(gbench_row_keys[0]), compare_key) != NULL;
}

/*
 * The catalogue's character sets. A name from a file reaches markdown,
 * SVG, CSV file names and shell lines: one outside them (a backtick, a
 * tag, a newline) is refused when read, not escaped in every place.
 */
static const char NAME_CHARS[] =
	"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_";
static const char VALUE_CHARS[] =
	"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.+-";
static const char POLICY_CHARS[] =
	"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_:,-";

static int check_charset(struct reader *r, const char *field, const json_t *v,
			 const char *text, const char *allowed)
{
	if (!text || strspn(text, allowed) == strlen(text))
		return 0;
	return reader_bad(r, field, v, "expected %s", allowed == NAME_CHARS ?
		   "a name of letters, digits and _ (as in the catalogue)" :
		   allowed == VALUE_CHARS ? "a value of letters, digits, _, ., + and -" :
		   "a policy of letters, digits, _, :, comma and -");
}

size_t results_place_items(const char *policy, const char *home_policy, int home_node,
			   bool all, const char *sep, char *buf, size_t len)
{
	size_t used = 0;

	if (len)
		buf[0] = '\0';
	if (policy && (all || strcmp(policy, "compact")))
		used += (size_t)snprintf(buf, len, "%splacement %s", sep, policy);
	/* A home asked for is a table of its own, headed by where it was. */
	if (home_policy && strcmp(home_policy, "default")) {
		used += (size_t)snprintf(buf + used, used < len ? len - used : 0, "%shome %s",
					 used ? ", " : sep, home_policy);
		if (home_node >= 0)
			used += (size_t)snprintf(buf + used, used < len ? len - used : 0,
						 " (node %d)", home_node);
	}
	return used;
}

/* "pin_work=1, flag_line=shared, placement compact" */
static int describe_setting(struct reader *r, json_t *facts,
			    struct result_row *row)
{
	json_t *params = json_object_get(facts, "params");
	char buf[1024];
	size_t used = 0;
	const char *key;
	json_t *value;

	buf[0] = '\0';
	json_object_foreach(params, key, value) {
		char text[128];

		if (check_charset(r, "params", value, key, NAME_CHARS) ||
		    (json_is_string(value) &&
		     check_charset(r, key, value, json_string_value(value), VALUE_CHARS)))
			return -1;
		if (json_is_string(value))
			snprintf(text, sizeof(text), "%s", json_string_value(value));
		else if (json_is_integer(value))
			snprintf(text, sizeof(text), "%" JSON_INTEGER_FORMAT,
				 json_integer_value(value));
		else if (json_is_real(value) && isfinite(json_real_value(value)))
			snprintf(text, sizeof(text), "%g", json_real_value(value));
		else if (json_is_boolean(value))
			snprintf(text, sizeof(text), "%s", json_is_true(value) ? "true" : "false");
		else
			return reader_bad(r, "params", value,
				   "expected parameter '%.60s' to be a string, number or boolean", key);
		/* the catalogue takes a choice's name or a whole number, no other */
		setting_take(&row->params, key,
			     json_is_string(value) || json_is_integer(value) ? text : NULL);
		/* Past the end, even by a zero-length write, is undefined. */
		if (used < sizeof(buf))
			used += (size_t)snprintf(buf + used, sizeof(buf) - used, "%s%s=%s",
						 used ? ", " : "", key, text);
	}
	/* the parameters as the file spells them, for a setting the catalogue cannot read */
	if (!(row->params_text = kept_text(r, buf)))
		return -1;
	if (used < sizeof(buf))
		results_place_items(row->policy, row->home_policy, row->home_node, true,
				    used ? ", " : "", buf + used, sizeof(buf) - used);
	return (row->setting = kept_text(r, buf)) ? 0 : -1;
}

static int check_placement(struct reader *r, json_t *facts,
			   struct result_row *row)
{
	json_t *pl = json_object_get(facts, "placement");
	json_t *cpus, *cpu, *dist;
	size_t i;

	if (!pl)
		return 0;
	if (!json_is_object(pl))
		return reader_bad(r, "placement", pl, "expected an object");
	r->prefix = "bouncelab.placement.";
	if (reader_string(r, pl, "policy", false, &row->policy) ||
	    reader_string(r, pl, "widest_class", false, &row->widest_class) ||
	    check_charset(r, "policy", json_object_get(pl, "policy"), row->policy,
			  POLICY_CHARS) ||
	    check_charset(r, "widest_class", json_object_get(pl, "widest_class"),
			  row->widest_class, NAME_CHARS))
		return -1;
	cpus = json_object_get(pl, "cpus");
	if (cpus && !json_is_array(cpus))
		return reader_bad(r, "cpus", cpus, "expected an array of CPU numbers");
	json_array_foreach(cpus, i, cpu)
		if (!json_is_integer(cpu) || json_integer_value(cpu) < 0 ||
		    json_integer_value(cpu) >= MAX_THREADS)
			return reader_bad(r, "cpus", cpu, "expected CPU numbers from 0 to %ld",
				   MAX_THREADS - 1);
	dist = json_object_get(pl, "numa_distance");
	if (dist && !json_is_null(dist) &&
	    (!json_is_integer(dist) || json_integer_value(dist) < 0 ||
	     json_integer_value(dist) > 10000))
		return reader_bad(r, "numa_distance", dist,
			   "expected null or an integer from 0 to 10000");
	r->prefix = "bouncelab.";
	return 0;
}

static int read_home_number(struct reader *r, json_t *home, const char *key,
			    int *out)
{
	json_t *v = json_object_get(home, key);

	*out = -1;
	if (!v || json_is_null(v))
		return 0;
	if (!json_is_integer(v) || json_integer_value(v) < 0 ||
	    json_integer_value(v) > MAX_THREADS)
		return reader_bad(r, key, v, "expected null or an integer from 0 to %ld",
			   MAX_THREADS);
	*out = (int)json_integer_value(v);
	return 0;
}

/* bouncelab.home: absent in files from before homes were recorded. */
static int check_home(struct reader *r, json_t *facts, struct result_row *row)
{
	json_t *home = json_object_get(facts, "home");

	row->home_policy = NULL;
	row->home_node = -1;
	row->home_threads_away = -1;
	if (!home)
		return 0;
	if (!json_is_object(home))
		return reader_bad(r, "home", home, "expected an object");
	r->prefix = "bouncelab.home.";
	if (reader_string(r, home, "policy", false, &row->home_policy) ||
	    check_charset(r, "policy", json_object_get(home, "policy"),
			  row->home_policy, POLICY_CHARS) ||
	    read_home_number(r, home, "node", &row->home_node) ||
	    read_home_number(r, home, "threads_away", &row->home_threads_away))
		return -1;
	r->prefix = "bouncelab.";
	return 0;
}

/* Every other numeric top-level key is a user counter. */
/*
 * The row's user counters. Ours are counts, times, fractions and counts
 * per operation, never below 0 (a negative one_way_ns is a broken file);
 * other tools' counters may be anything finite.
 */
int read_counters(struct reader *r, json_t *row, double min,
		  struct result_row *out)
{
	struct results *set = r->set;
	const char *key;
	json_t *v;

	out->first_counter = set->nr_counters;
	out->nr_counters = 0;
	json_object_foreach(row, key, v) {
		double d;

		if (!json_is_number(v) || is_gbench_key(key))
			continue;
		d = json_number_value(v);
		if (!isfinite(d) || d < min || d > MAX_COUNTER)
			return reader_bad(r, key, v, "expected a counter value from %g to %g",
				   min, MAX_COUNTER);
		if (grow((void **)&set->counters, &set->cap_counters,
			 set->nr_counters + 1, sizeof(*set->counters))) {
			reader_out_of_memory(r);
			return -1;
		}
		set->counters[set->nr_counters++] = (struct result_counter){ key, d };
		out->nr_counters++;
	}
	return 0;
}

int add_row(struct reader *r, const struct result_row *row)
{
	struct results *set = r->set;

	if (grow((void **)&set->rows, &set->cap_rows, set->nr_rows + 1,
		 sizeof(*set->rows))) {
		reader_out_of_memory(r);
		return -1;
	}
	set->rows[set->nr_rows++] = *row;
	return 0;
}

int unique_names(struct reader *r, struct result_row *row)
{
	struct results *set = r->set;

	if ((row->name && !(row->name = unique_string(set, row->name))) ||
	    (row->family && !(row->family = unique_string(set, row->family))) ||
	    (row->variant && !(row->variant = unique_string(set, row->variant))) ||
	    (row->policy && !(row->policy = unique_string(set, row->policy))) ||
	    (row->widest_class &&
	     !(row->widest_class = unique_string(set, row->widest_class)))) {
		reader_out_of_memory(r);
		return -1;
	}
	return 0;
}

int read_ours(struct reader *r, json_t *row, json_t *facts,
	      struct result_row *out)
{
	double ops = 0, wall = 1;

	if (!json_is_object(facts))
		return reader_bad(r, "bouncelab", facts, "expected an object");
	r->prefix = "bouncelab.";
	if (reader_string(r, facts, "family", true, &out->family) ||
	    reader_string(r, facts, "variant", true, &out->variant) ||
	    check_charset(r, "family", json_object_get(facts, "family"), out->family,
			  NAME_CHARS) ||
	    check_charset(r, "variant", json_object_get(facts, "variant"),
			  out->variant, NAME_CHARS))
		return -1;
	if (json_object_get(facts, "params") &&
	    !json_is_object(json_object_get(facts, "params")))
		return reader_bad(r, "params", json_object_get(facts, "params"),
			   "expected an object");
	setting_init(&out->params, catalog_find(out->family));
	if (check_placement(r, facts, out) || check_home(r, facts, out) ||
	    describe_setting(r, facts, out))
		return -1;
	r->prefix = NULL;
	if (reader_integer(r, row, "threads", 1, MAX_THREADS, true, &out->threads) ||
	    reader_number(r, row, "ns_per_op", MIN_NS_PER_OP, MAX_NS_PER_OP, true,
			 &out->ns_per_op) ||
	    reader_number(r, row, "ops", 1, MAX_OPS, true, &ops) ||
	    reader_number(r, row, "wall_ns", 1, MAX_WALL_NS, true, &wall) ||
	    read_counters(r, row, 0, out))
		return -1;
	out->ops_per_s = ops / wall * 1e9;
	out->ops = ops;
	if (unique_names(r, out))
		return -1;
	r->set->files[r->file].nr_rows++;
	return add_row(r, out);
}
