// SPDX-License-Identifier: GPL-2.0-only
/*
 * bouncelab topo: the tree, the distance classes present, the NUMA
 * matrix, where a policy would put N threads, and (--latency) the sampled
 * core-to-core latency of each class. One command (about 660 lines):
 * its options, and each of those printed as text or --json.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "catalog.h"
#include "cli.h"
#include "interrupt.h"
#include "latency.h"
#include "output.h"
#include "output_path.h"
#include "results.h"
#include "topo.h"

#define MAX_POLICIES 16
#define DEFAULT_PAIRS_PER_CLASS 3
#define DEFAULT_SAMPLES 31
#define DEFAULT_ROUND_TRIPS 1000

struct topo_options {
	const char *topology;
	const char *numa_distances;
	unsigned int nr_policies;
	const char *policies[MAX_POLICIES];
	long threads;			/* 0: the policy's default */
	bool latency;
	const char *variant;
	long pairs_per_class;
	long samples;
	long round_trips;
	const char *latency_out;
	bool force;			/* --force: replace an existing latency file */
	struct output_claim claim;	/* the latency file, held while measuring */
	bool latency_tuned;		/* a --latency-only option was given */
	bool want_json;			/* --json: one JSON document on stdout, no text */
	json_t *json;			/* that document, printed at the end */
};

static void topo_usage(FILE *out)
{
	fprintf(out,
		"usage: bouncelab topo [OPTIONS]\n\n"
		"Prints the topology tree, the distance classes present with an example\n"
		"pair, the NUMA distance matrix, and where a policy places threads.\n\n"
		"  --topology SPEC         a synthetic topology (\"pack:2 numa:1 core:64 pu:2\"), an\n"
		"                          XML file or a directory hwloc-gather-topology wrote,\n"
		"                          instead of this system: plans only, never binds\n"
		"                          (HWLOC_SYNTHETIC, HWLOC_XMLFILE and HWLOC_FSROOT also work)\n"
		"  --numa-distances LIST   NUMA distance matrix, row by row (N x N values), or\n"
		"                          LOCAL,REMOTE for every pair, e.g. 10,32\n"
		"  --policy P, --placement P\n"
		"                          compact, spread, cores, pair:CLASS or cpus:0,4,8\n"
		"                          (repeatable; --placement is named as in 'run')\n"
		"  --threads N             threads to place (default: what the policy takes)\n"
		"  --latency               measure one-way latency on a few pairs per class\n"
		"  --variant NAME          pingpong variant: store_load (default) or cas\n"
		"  --pairs-per-class K     pairs measured per class (default %d)\n"
		"  --samples S             samples per pair (default %d)\n"
		"  --round-trips R         round trips per sample (default %d)\n"
		"  --latency-out FILE      latency JSON (default results/<time>/latency.json)\n"
		"  --force                 replace the latency file if it exists\n"
		"  --json                  print the same facts as one JSON document (with\n"
		"                          --latency, the latency file's too, and its path)\n"
		"  -h, --help              this help\n\n"
		"Classes, nearest first: same_pu, smt, l2, l3, package, numa, cross_package.\n",
		DEFAULT_PAIRS_PER_CLASS, DEFAULT_SAMPLES, DEFAULT_ROUND_TRIPS);
}

/* "10,32" (local, remote) or a full row-major matrix. */
static int apply_numa_distances(struct topo *topo, const char *text)
{
	char err[256];

	if (topo_parse_numa_distances(topo, text, err, sizeof(err)))
		return usage_error("--numa-distances '%s': %s", text, err);
	return 0;
}

/*
 * What a pair's class does not say: that the nearest cache both share is
 * a memory-side one (their class names no CPU cache), or kinds apart.
 */
static const char *pair_note(const struct topo *topo, enum distance_class cls,
			     int a, int b)
{
	bool kinds_differ = topo_cpu_kind(topo, a) != topo_cpu_kind(topo, b);

	if (cls >= DISTANCE_PACKAGE && topo_share_memory_side_cache(topo, a, b))
		return kinds_differ ? ", under one memory-side cache (no CPU cache level), CPU kinds differ" :
				      ", under one memory-side cache (no CPU cache level)";
	return kinds_differ ? ", CPU kinds differ" : "";
}

static void print_classes(const struct topo *topo)
{
	struct topo_class_example ex[NR_DISTANCE_CLASSES];

	topo_classes_present(topo, ex);
	printf("\nDistance classes present (an example pair of allowed CPUs):\n");
	printf("  %-14s %-14s %s\n", "class", "CPUs", "NUMA distance");
	for (int c = 0; c < NR_DISTANCE_CLASSES; c++) {
		char cpus[32], dist[16];

		if (ex[c].cpu_a < 0)
			continue;
		snprintf(cpus, sizeof(cpus), "%d and %d", ex[c].cpu_a, ex[c].cpu_b);
		if (ex[c].numa_distance < 0)
			snprintf(dist, sizeof(dist), "unknown");
		else
			snprintf(dist, sizeof(dist), "%d", ex[c].numa_distance);
		printf("  %-14s %-14s %s%s\n", distance_class_name((enum distance_class)c),
		       cpus, dist, pair_note(topo, (enum distance_class)c, ex[c].cpu_a,
					     ex[c].cpu_b));
	}
}

/* Hybrid machines' P- and E-cores, when the topology records kinds. */
static void print_cpu_kinds(const struct topo *topo)
{
	char kind[256];

	if (!topo_nr_cpu_kinds(topo))
		return;
	printf("\nCPU kinds: %u (most power-efficient first)\n", topo_nr_cpu_kinds(topo));
	for (unsigned int k = 0; k < topo_nr_cpu_kinds(topo); k++) {
		topo_format_cpu_kind(topo, k, kind, sizeof(kind));
		printf("  kind %u: %s\n", k, kind);
	}
}

static void print_matrix(const struct topo *topo,
			 int (*value)(const struct topo *, unsigned int, unsigned int))
{
	unsigned int n = topo_nr_numa_nodes(topo);

	printf("  %6s", "from\\to");
	for (unsigned int j = 0; j < n; j++)
		printf(" %5u", j);
	printf("\n");
	for (unsigned int i = 0; i < n; i++) {
		printf("  %6u ", i);
		for (unsigned int j = 0; j < n; j++)
			printf(" %5d", value(topo, i, j));
		printf("\n");
	}
}

static void print_numa_matrix(const struct topo *topo)
{
	unsigned int n = topo_nr_numa_nodes(topo);
	char cpus[256];

	printf("\nNUMA nodes: %u\n", n);
	for (unsigned int i = 0; i < n; i++) {
		topo_format_numa_node_cpus(topo, i, cpus, sizeof(cpus));
		printf("  node %u (P#%d): CPUs %s\n", i, topo_numa_node_os_index(topo, i),
		       cpus[0] ? cpus : "none");
	}
	if (n && topo_numa_node_distance(topo, 0, 0) < 0) {
		printf("NUMA distances: none given (one node, or the OS and --numa-distances gave no matrix)\n");
	} else if (topo_numa_local_distance(topo) >= 0) {
		/* The matrix's own diagonal: 10 from ACPI's SLIT, 1 in some. */
		printf("NUMA distances (relative latency, %d = local):\n",
		       topo_numa_local_distance(topo));
		print_matrix(topo, topo_numa_node_distance);
	} else {
		printf("NUMA distances (relative latency, local on the diagonal):\n");
		print_matrix(topo, topo_numa_node_distance);
	}
	if (n && topo_numa_node_bandwidth(topo, 0, 0) >= 0) {
		printf("NUMA bandwidth (relative bandwidth, higher is nearer; shown, not used to place):\n");
		print_matrix(topo, topo_numa_node_bandwidth);
	}
}

/* The classes present for --json: print_classes()'s rows. */
static json_t *classes_json(const struct topo *topo)
{
	struct topo_class_example ex[NR_DISTANCE_CLASSES];
	json_t *classes = json_array();

	topo_classes_present(topo, ex);
	for (int c = 0; c < NR_DISTANCE_CLASSES; c++) {
		if (ex[c].cpu_a < 0)
			continue;
		json_array_append_new(classes, json_pack("{s:s, s:[ii], s:o}",
				      "class", distance_class_name((enum distance_class)c),
				      "cpus", ex[c].cpu_a, ex[c].cpu_b, "numa_distance",
				      ex[c].numa_distance < 0 ? json_null() :
				      json_integer(ex[c].numa_distance)));
	}
	return classes;
}

/* The NUMA nodes for --json: print_numa_matrix()'s list (the matrix is the topology's). */
static json_t *numa_nodes_json(const struct topo *topo)
{
	json_t *nodes = json_array();
	char cpus[256];

	for (unsigned int i = 0; i < topo_nr_numa_nodes(topo); i++) {
		topo_format_numa_node_cpus(topo, i, cpus, sizeof(cpus));
		json_array_append_new(nodes, json_pack("{s:i, s:i, s:s}", "node", (int)i,
				      "os_index", topo_numa_node_os_index(topo, i), "cpus", cpus));
	}
	return nodes;
}

/* print_plan()'s facts for --json. */
static json_t *plan_json(const struct topo *topo, const struct placement *pl)
{
	json_t *cpus = json_array();

	for (unsigned int t = 0; t < pl->nr_cpus; t++)
		json_array_append_new(cpus, json_integer(pl->cpus[t]));
	return json_pack("{s:s, s:i, s:o, s:s, s:o, s:b, s:b}", "policy", pl->policy,
			 "threads", (int)pl->nr_cpus, "cpus", cpus,
			 "widest_class", distance_class_name(pl->widest),
			 "numa_distance", pl->numa_distance < 0 ? json_null() :
			 json_integer(pl->numa_distance),
			 "cpus_shared", placement_shares_cpu(pl),
			 "binds", topo_is_this_system(topo));
}

/*
 * The tree as topo_print_tree() prints it, one string a line: hwloc's
 * own XML (lstopo --of xml) is the machine-readable tree; this is what
 * the text shows.
 */
static json_t *tree_json(const struct topo *topo)
{
	json_t *lines = json_array();
	char *text = NULL, *line, *save = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	if (!out)
		return lines;
	topo_print_tree(topo, out);
	if (fclose(out)) {
		free(text);
		return lines;
	}
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		json_array_append_new(lines, json_string(line));
	free(text);
	return lines;
}

/* The CPU kinds as print_cpu_kinds() lists them, most power-efficient first. */
static json_t *cpu_kinds_json(const struct topo *topo)
{
	json_t *kinds = json_array();
	char kind[256];

	for (unsigned int k = 0; k < topo_nr_cpu_kinds(topo); k++) {
		topo_format_cpu_kind(topo, k, kind, sizeof(kind));
		json_array_append_new(kinds, json_string(kind));
	}
	return kinds;
}

/* Everything the text prints before the latency, as one object. */
static json_t *topo_json(const struct topo *topo, const struct placement *plans,
			 unsigned int nr_plans)
{
	json_t *placements = json_array();

	for (unsigned int i = 0; i < nr_plans; i++)
		json_array_append_new(placements, plan_json(topo, &plans[i]));
	return json_pack("{s:o, s:b, s:o, s:o, s:o, s:o, s:o}",
			 "topology", results_topology(topo),
			 "this_system", topo_is_this_system(topo),
			 "tree", tree_json(topo), "classes", classes_json(topo),
			 "cpu_kinds", cpu_kinds_json(topo),
			 "numa_nodes", numa_nodes_json(topo), "placements", placements);
}

static int plan_policy(const struct topo *topo, const char *policy,
		       long threads, struct placement *pl)
{
	unsigned int n = threads ? (unsigned int)threads :
				   topo_policy_default_threads(topo, policy);
	char err[512];

	if (topo_plan(topo, policy, n, pl, err, sizeof(err)))
		return usage_error("%s", err);
	return 0;
}

static void print_plan(const struct topo *topo, const struct placement *pl)
{
	unsigned int t;

	printf("\nPlacement %s, %u thread%s:\n  CPUs", pl->policy, pl->nr_cpus,
	       pl->nr_cpus == 1 ? "" : "s");
	for (t = 0; t < pl->nr_cpus; t++)
		printf("%s%d", t ? "," : " ", pl->cpus[t]);
	printf("\n  widest class %s", distance_class_name(pl->widest));
	if (pl->numa_distance >= 0)
		printf(", NUMA distance %d", pl->numa_distance);
	if (placement_shares_cpu(pl))
		printf(", CPUs shared (more threads than CPUs: spinning families refuse this)");
	for (t = 1; t < pl->nr_cpus; t++)
		if (!topo_share_memory_side_cache(topo, pl->cpus[0], pl->cpus[t]))
			break;
	if (pl->widest >= DISTANCE_PACKAGE && t == pl->nr_cpus)
		printf(", under one memory-side cache (no CPU cache level)");
	if (pl->mixes_cpu_kinds)
		printf(", spans CPU kinds (hybrid cores: one kind's latency is not the other's)");
	printf("\n  %s\n", topo_is_this_system(topo) ?
	       "planned only: 'bouncelab run --placement' binds threads like this" :
	       "planned only: this topology is not this system, so nothing is bound");
}

static void print_latency_table(const struct topo *topo,
				const struct latency_pair *pairs,
				unsigned int nr_pairs, const struct topo_options *o)
{
	printf("\nOne-way latency, pingpong/%s: %ld samples of %ld round trips per pair\n",
	       o->variant, o->samples, o->round_trips);
	printf("  %-14s %5s %10s %8s %17s  %s\n", "class", "pairs", "median ns",
	       "min ns", "p10-p90 ns", "modes");
	for (int cls = 0; cls < NR_DISTANCE_CLASSES; cls++) {
		char range[32], modes[96] = "one";
		struct latency_class c;

		if (latency_class_summarize(pairs, nr_pairs, (enum distance_class)cls, &c))
			continue;
		snprintf(range, sizeof(range), "%.1f-%.1f", c.s.p10, c.s.p90);
		if (c.s.bimodal)
			snprintf(modes, sizeof(modes), "BIMODAL: %.1f / %.1f ns, %.0f%% slow",
				 c.s.low_mode, c.s.high_mode, 100 * c.s.high_share);
		printf("  %-14s %5u %10.1f %8.1f %17s  %s\n",
		       distance_class_name(c.cls), c.nr_pairs, c.s.median, c.s.min,
		       range, modes);
	}
	for (unsigned int p = 0; p < nr_pairs; p++) {
		struct latency_summary s;

		latency_summarize(pairs[p].samples, pairs[p].nr_samples, &s);
		printf("    CPUs %d and %d (%s%s): median %.1f, min %.1f ns%s\n",
		       pairs[p].cpu_a, pairs[p].cpu_b, distance_class_name(pairs[p].cls),
		       pair_note(topo, pairs[p].cls, pairs[p].cpu_a, pairs[p].cpu_b),
		       s.median, s.min, s.bimodal ? ", bimodal" : "");
	}
	printf("  Medians and minima, not means: a VM can switch latency modes mid-run.\n");
}

/*
 * The latency JSON. A measurement a signal stopped keeps its whole pairs,
 * marked incomplete (why says so), and never replaces a complete file
 * (--force): it goes beside it, as a stopped run's results do.
 */
static int write_latency(const struct topo *topo, const struct output_claim *claim,
			 json_t *context, const char *why, json_t *lat, json_t *json_out)
{
	json_t *doc = json_object();
	char err[512], sibling[PATH_MAX], *text;
	const char *target = claim->path;
	int ret = 0;

	json_object_set_new(context, "topology", results_topology(topo));
	if (why) {
		json_object_set_new(context, "incomplete", json_string(why));
		if (claim->exists) {
			output_incomplete_sibling(claim->path, sibling, sizeof(sibling));
			target = sibling;
		}
	}
	json_object_set(doc, "context", context);
	json_object_set(doc, "latency", lat);
	text = json_dumps(doc, JSON_INDENT(2));
	json_decref(doc);
	if (!text)
		return runtime_error("cannot encode the latency results");
	if ((target == claim->path && claim->exists ? output_write_file :
	     output_write_new_file)(target, text, strlen(text), err, sizeof(err)))
		ret = runtime_error("%s", err);
	else if (json_out)
		json_object_set_new(json_out, "latency_file", json_string(target));
	else
		printf("  JSON: %s\n", target);
	free(text);
	return ret;
}

/*
 * The latency JSON's path, checked before anything is printed or
 * measured: a path that cannot be written fails first, not last.
 */
static int choose_latency_out(struct topo_options *o, char *buf, size_t len)
{
	char err[1024];
	int ret;

	if (!o->latency_out) {
		default_output_path("latency.json", buf, len);
		o->latency_out = buf;
	}
	/* A pair's samples as JSON numbers: some tens of bytes each. */
	ret = output_claim(&o->claim, "--latency-out", o->latency_out, OUTPUT_FILE,
			   o->force, (uint64_t)o->samples * 64 * 64 + (1u << 16),
			   err, sizeof(err));
	if (ret)
		return ret == 2 ? usage_error("%s", err) : runtime_error("%s", err);
	return 0;
}

static int measure_latency(const struct topo *topo, const struct topo_options *o)
{
	const struct kernel_family *f = catalog_transfer_probe();
	struct latency_pair *pairs = NULL;
	char err[512], allowed[256], why[160];
	unsigned int nr_pairs, done;
	int variant, signo, ret = 0;
	json_t *lat, *context;

	variant = catalog_variant_index(f, o->variant);
	nr_pairs = latency_pick_pairs(topo, (unsigned int)o->pairs_per_class, &pairs);
	if (!nr_pairs) {
		topo_format_allowed(topo, allowed, sizeof(allowed));
		free(pairs);
		return usage_error("--latency: needs two CPUs this process may use (allowed: %s)",
				   allowed);
	}
	/*
	 * The machine's facts first: reading them can fail (Google Benchmark
	 * exits when sysfs cannot be read), and then no pair is lost.
	 */
	context = results_context();
	fprintf(stderr, "bouncelab: measuring %u pair%s, %ld samples each\n", nr_pairs,
		nr_pairs == 1 ? "" : "s", o->samples);
	/* The pairs measured whole are kept if a signal stops the rest. */
	for (done = 0; done < nr_pairs && !ret && !interrupt_signal(); done++)
		if (latency_measure_pair(topo, f, (unsigned int)variant,
					 (unsigned int)o->samples,
					 (unsigned int)o->round_trips, &pairs[done],
					 err, sizeof(err)))
			ret = runtime_error("--latency: %s", err);
	signo = interrupt_signal();
	if (signo) {
		/* A pair cut short keeps the samples it took: fewer, not wrong. */
		if (done && !pairs[done - 1].nr_samples)
			done--;
		if (done)
			snprintf(why, sizeof(why), "interrupted by %s: %u of %u pairs measured, the last with %u of %ld samples",
				 interrupt_signal_name(signo), done, nr_pairs,
				 pairs[done - 1].nr_samples, o->samples);
		else
			snprintf(why, sizeof(why), "interrupted by %s before a sample finished",
				 interrupt_signal_name(signo));
	}
	/* Held back: a second Ctrl-C waits until the file is whole. */
	interrupt_block(true);
	if (!ret && done) {
		lat = latency_json(topo, o->variant, (unsigned int)o->round_trips,
				   pairs, done);
		if (o->json)
			json_object_set(o->json, "latency", lat);
		else
			print_latency_table(topo, pairs, done, o);
		ret = write_latency(topo, &o->claim, context, signo ? why : NULL, lat, o->json);
		json_decref(lat);
	}
	if (!ret && signo) {
		fprintf(stderr, "bouncelab: %s%s\n", why,
			done ? ", written marked incomplete" : ": nothing written");
		ret = 128 + signo;
	}
	json_decref(context);
	for (unsigned int p = 0; p < nr_pairs; p++)
		free(pairs[p].samples);
	free(pairs);
	return ret;
}

static int parse_count(const char *opt, const char *text, long min, long max,
		       long *out)
{
	if (parse_long(text, min, max, out))
		return usage_error("%s '%s': expected an integer from %ld to %ld",
				   opt, text, min, max);
	return 0;
}

static int parse_topo_options(int argc, char **argv, struct topo_options *o)
{
	static const struct option longopts[] = {
		{ "topology", required_argument, NULL, 't' },
		{ "numa-distances", required_argument, NULL, 'd' },
		{ "policy", required_argument, NULL, 'p' },
		{ "placement", required_argument, NULL, 'p' },
		{ "threads", required_argument, NULL, 'n' },
		{ "latency", no_argument, NULL, 'l' },
		{ "variant", required_argument, NULL, 'v' },
		{ "pairs-per-class", required_argument, NULL, 'k' },
		{ "samples", required_argument, NULL, 's' },
		{ "round-trips", required_argument, NULL, 'r' },
		{ "latency-out", required_argument, NULL, 'o' },
		{ "force", no_argument, NULL, 'F' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const struct kernel_family *f;
	int c, ret = 0;

	optind = 0;
	while (!ret && (c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 't':
			o->topology = optarg;
			break;
		case 'd':
			o->numa_distances = optarg;
			break;
		case 'p':
			if (o->nr_policies == MAX_POLICIES)
				return usage_error("--policy '%s': expected at most %d policies",
						   optarg, MAX_POLICIES);
			o->policies[o->nr_policies++] = optarg;
			break;
		case 'n':
			ret = parse_count("--threads", optarg, 1, PLACEMENT_MAX_CPUS, &o->threads);
			break;
		case 'l':
			o->latency = true;
			break;
		case 'v':
			o->variant = optarg;
			o->latency_tuned = true;
			break;
		case 'k':
			ret = parse_count("--pairs-per-class", optarg, 1, 1000, &o->pairs_per_class);
			o->latency_tuned = true;
			break;
		case 's':
			ret = parse_count("--samples", optarg, 1, 100000, &o->samples);
			o->latency_tuned = true;
			break;
		case 'r':
			ret = parse_count("--round-trips", optarg, 1, 100000000, &o->round_trips);
			o->latency_tuned = true;
			break;
		case 'o':
			o->latency_out = optarg;
			o->latency_tuned = true;
			break;
		case 'F':
			o->force = true;
			o->latency_tuned = true;
			break;
		case 'j':
			o->want_json = true;
			break;
		case 'h':
			topo_usage(stdout);
			return -1;
		default:
			return bad_option(argv, "topo");
		}
	}
	if (ret)
		return ret;
	if (optind < argc)
		return usage_error("topo: unexpected argument '%s': see 'bouncelab topo --help'",
				   argv[optind]);
	if (o->threads && !o->nr_policies)
		return usage_error("--threads %ld: expected with --policy", o->threads);
	if (o->latency_tuned && !o->latency)
		return usage_error("topo: --variant, --pairs-per-class, --samples, --round-trips, --latency-out and --force go with --latency");
	f = catalog_transfer_probe();
	if (!o->latency)
		return 0;
	if (!f)
		return usage_error("--latency: the catalogue has no transfer probe to measure with");
	/* the probe's first variant unless one is asked for */
	if (!o->variant)
		o->variant = f->variants[0].name;
	if (catalog_variant_index(f, o->variant) < 0) {
		char names[256];
		size_t used = 0;

		names[0] = '\0';
		for (unsigned int v = 0; v < f->nr_variants && used < sizeof(names); v++)
			used += (size_t)snprintf(names + used, sizeof(names) - used, "%s%s",
						 !v ? "" : v + 1 == f->nr_variants ? " or " : ", ",
						 f->variants[v].name);
		return usage_error("--variant '%s': expected %s", o->variant, names);
	}
	return 0;
}

int cmd_topo(int argc, char **argv)
{
	struct topo_options o = {
		.pairs_per_class = DEFAULT_PAIRS_PER_CLASS,
		.samples = DEFAULT_SAMPLES, .round_trips = DEFAULT_ROUND_TRIPS,
	};
	static struct placement plans[MAX_POLICIES];
	char err[512], allowed[256], latency_out[512];
	struct topo *topo;
	int ret;

	ret = parse_topo_options(argc, argv, &o);
	if (ret)
		return ret < 0 ? 0 : ret;
	topo = topo_open(o.topology, err, sizeof(err));
	if (!topo)
		return topo_from_user(o.topology) ? usage_error("%s", err) :
						    runtime_error("%s", err);
	if (o.numa_distances && (ret = apply_numa_distances(topo, o.numa_distances)))
		goto out;
	/* Every policy is checked before anything is printed. */
	for (unsigned int i = 0; i < o.nr_policies; i++)
		if ((ret = plan_policy(topo, o.policies[i], o.threads, &plans[i])))
			goto out;
	if (o.latency && !topo_is_this_system(topo)) {
		ret = usage_error("--latency: the topology is %s, not this system: nothing can be measured on it",
				  topo_describe(topo));
		goto out;
	}
	/*
	 * Caught before the output is claimed: SIGINT's default would end the
	 * measurement with its lock left and every pair measured lost.
	 */
	interrupt_reset();
	if (o.latency && interrupt_catch("the current sample"))
		fprintf(stderr, "bouncelab: cannot catch signals: a Ctrl-C loses the pairs measured\n");
	if (o.latency && (ret = choose_latency_out(&o, latency_out, sizeof(latency_out))))
		goto out;
	if (o.want_json) {
		o.json = topo_json(topo, plans, o.nr_policies);
	} else {
		topo_format_allowed(topo, allowed, sizeof(allowed));
		printf("Topology: %s%s\n", topo_describe(topo), topo_is_this_system(topo) ? "" :
		       " (not this system: plans only, never binds)");
		printf("Allowed CPUs: %s (%u)\n\n", allowed, topo_nr_allowed_cpus(topo));
		topo_print_tree(topo, stdout);
		print_classes(topo);
		print_cpu_kinds(topo);
		print_numa_matrix(topo);
		for (unsigned int i = 0; i < o.nr_policies; i++)
			print_plan(topo, &plans[i]);
	}
	if (o.latency) {
		fflush(stdout);
		ret = measure_latency(topo, &o);
		output_release(&o.claim, !ret || !access(o.claim.path, F_OK));
	}
	/* A latency a signal stopped is written, marked incomplete: so is this. */
	if (o.json && (!ret || ret > 128)) {
		int printed = print_json(o.json, JSON_INDENT(2) | JSON_REAL_PRECISION(17));

		ret = printed ? printed : ret;
	} else {
		json_decref(o.json);
	}
out:
	/* A signal held back during the write reaches our handler first. */
	interrupt_block(false);
	interrupt_release();
	topo_close(topo);
	return ret;
}
