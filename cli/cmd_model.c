// SPDX-License-Identifier: GPL-2.0-only
/*
 * bouncelab model: predicted ns/op, throughput and bottleneck line at N
 * threads, on this machine or on a machine profile (model/profiles/).
 *
 * The inputs are measured here, never fitted: each variant's private cost
 * is a short 1-thread run of the kernel itself, and with --profile this
 * the one-way latency per distance class is a short ping-pong per class.
 * One command (about 670 lines): its options, its inputs and its table.
 */
#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "analysis.h"
#include "cases.h"
#include "catalog.h"
#include "drive.h"
#include "setting.h"
#include "cli.h"
#include "fleet.h"
#include "topo.h"
#include "input_file.h"
#include "latency.h"
#include "markdown.h"
#include "model.h"
#include "results_read.h"
#include "stats.h"

#define MODEL_MAX_THREAD_COUNTS 32
#define MODEL_MAX_PARAMS 16

/*
 * --results FILE: the machine behind a results file and each variant's
 * 1-thread cost there, as the report's fleet table takes them.
 */
struct model_results {
	struct results set;
	struct result_cases cases;
	struct analysis a;
	struct report_input in;
};

struct model_options {
	const char *profile;
	const char *results;	/* --results FILE, or NULL */
	const struct model_results *run;	/* read from it */
	const struct kernel_family *family;
	const char *variant;
	const char *placement;
	const char *home;	/* --home local|remote; NULL: local */
	bool json;		/* --json: one JSON document on stdout, no text */
	/*
	 * --private-ns: the variant's 1-thread ns/op on the profile's machine,
	 * as published there (tests/data/published/); 0: measured here
	 */
	double private_ns;
	unsigned int nr_threads;
	unsigned int threads[MODEL_MAX_THREAD_COUNTS];
	unsigned int nr_params;
	const struct kernel_family *param_family[MODEL_MAX_PARAMS];
	int param[MODEL_MAX_PARAMS];
	long value[MODEL_MAX_PARAMS];
};

static void model_usage(void)
{
	printf("usage: bouncelab model [OPTIONS]\n\n"
	       "Predicts ns/op, throughput and the busiest line at each thread count from\n"
	       "each variant's access profile, its 1-thread cost measured here, and a\n"
	       "machine's one-way line-transfer latencies (exact MVA, see model/model_doc.md).\n\n"
	       "  --profile FILE|NAME|this  a machine profile: a file, or the name of one\n"
	       "                          shipped in the data directory's profiles/ (e.g.\n"
	       "                          epyc-milan-2s-256; BOUNCELAB_DATADIR names another),\n"
	       "                          or this machine with its latencies measured now (default)\n"
	       "  --results FILE          the machine behind a results file: its topology,\n"
	       "                          its ping-pong's one-way floor per class, and each\n"
	       "                          variant's 1-thread median there, as the report's\n"
	       "                          fleet table takes them (one file, defaults only)\n"
	       "  --family F              one family (default: all)\n"
	       "  --variant V             one variant (default: all)\n"
	       "  --threads LIST          e.g. 1,2,4,8 (default 1,2,4,... up to the machine's CPUs)\n"
	       "  --placement P           compact (default), spread, cores\n"
	       "  --home local|remote     where the shared lines live: the threads' node\n"
	       "                          (default), or another, which costs the profile's\n"
	       "                          remote_home_ns more per transfer where it gives one\n"
	       "  --param F.NAME=V        set a parameter, e.g. gup.mode=private\n"
	       "  --private-ns NS         the variant's 1-thread ns/op on the profile's machine,\n"
	       "                          as measured there (one --variant); not measured here\n"
	       "  --json                  print the same numbers as one JSON document\n"
	       "  -h, --help              this help\n");
}

static int parse_threads(const char *text, struct model_options *o)
{
	char buf[512], *save = NULL;

	snprintf(buf, sizeof(buf), "%s", text);
	o->nr_threads = 0;
	for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		long v;

		if (o->nr_threads == MODEL_MAX_THREAD_COUNTS ||
		    parse_long(t, 1, KERNEL_MAX_THREADS, &v))
			return usage_error("--threads '%s': expected up to %d thread counts from 1 to %d, comma-separated",
					   text, MODEL_MAX_THREAD_COUNTS, KERNEL_MAX_THREADS);
		o->threads[o->nr_threads++] = (unsigned int)v;
	}
	if (!o->nr_threads)
		return usage_error("--threads '%s': expected thread counts such as 1,2,4", text);
	return 0;
}

static int parse_param(const char *text, struct model_options *o)
{
	struct param_option po;
	char err[1024];

	/* one value: the model predicts one setting (run sweeps a list) */
	if (param_option_parse(text, 1, &po, err, sizeof(err)))
		return usage_error("%s", err);
	if (o->nr_params == MODEL_MAX_PARAMS)
		return usage_error("--param '%s': at most %d --param options", text, MODEL_MAX_PARAMS);
	o->param_family[o->nr_params] = po.family;
	o->param[o->nr_params] = po.param;
	o->value[o->nr_params++] = po.values[0];
	return 0;
}

#define PRIVATE_BATCHES 5

/*
 * The variant's private cost: ns/op of one thread running the kernel, the
 * median of PRIVATE_BATCHES batches of at least 1 ms, the statistic the
 * report takes of a run's 1-thread repetitions, so that both give the
 * same input to the model. Then the family verifies its state, as every
 * run does: a batch whose check fails is an error, never a number.
 */
static int measure_private(const struct kernel_family *f,
			   const struct kernel_config *cfg, double *ns)
{
	double batch_ns[PRIVATE_BATCHES];
	char err[768];

	if (kernel_drive_batches(f, cfg, PRIVATE_BATCHES, 1e6, batch_ns, err, sizeof(err)))
		return runtime_error("%s/%s at 1 thread: %s", f->name,
				     f->variants[cfg->variant].name, err);
	*ns = stats_median(batch_ns, PRIVATE_BATCHES);
	return 0;
}

/*
 * --profile this: one ping-pong per distance class present. Each class's
 * source says how it was measured, from the counts the measurement took.
 */
static int measure_this(struct machine_profile *m)
{
	const struct kernel_family *pp = catalog_transfer_probe();
	const unsigned int samples = 7, round_trips = 200, fetches = 7;
	struct latency_pair *pairs = NULL;
	unsigned int nr = latency_pick_pairs(m->topo, 1, &pairs);
	char err[256];
	int rc = 0;

	for (unsigned int i = 0; i < nr && !rc; i++) {
		struct latency_summary sum;

		if (latency_measure_pair(m->topo, pp, 0, samples, round_trips, &pairs[i], err,
					 sizeof(err))) {
			rc = runtime_error("measuring the one-way latency: %s", err);
			break;
		}
		latency_summarize(pairs[i].samples, pairs[i].nr_samples, &sum);
		/*
		 * The median sample, as the report takes the median of a
		 * run's rounds: a descheduled vCPU slows a few samples, and
		 * the fastest can be a placement the host keeps the vCPUs in
		 * only now and then.
		 */
		m->one_way_ns[pairs[i].cls] = sum.median;
		/* and what a cold miss costs between the same two CPUs */
		if (latency_measure_fetch(m->topo, pairs[i].cpu_a, pairs[i].cpu_b, fetches,
					  &m->cold_miss_ns[pairs[i].cls], err, sizeof(err))) {
			rc = runtime_error("measuring the cold-miss time: %s", err);
			break;
		}
		snprintf(m->source[pairs[i].cls], sizeof(m->source[0]),
			 "pingpong store_load measured now on CPUs %d and %d, median of %u samples of %u round trips; the cold miss the fastest of %u",
			 pairs[i].cpu_a, pairs[i].cpu_b, pairs[i].nr_samples, round_trips, fetches);
	}
	for (unsigned int i = 0; i < nr; i++)
		free(pairs[i].samples);
	free(pairs);
	return rc;
}

static void apply_params(const struct model_options *o, const struct kernel_family *f,
			 struct kernel_config *cfg)
{
	kernel_config_defaults(f, cfg);
	for (unsigned int i = 0; i < o->nr_params; i++)
		if (o->param_family[i] == f)
			cfg->param[o->param[i]] = o->value[i];
}

/* Where the line's home is, and where the cost of a remote one comes from. */
static void print_home(const struct machine_profile *m, const struct model_options *o)
{
	char source[1024];

	if (!o->home || !strcmp(o->home, "local")) {
		printf("Home of the shared lines: local (the threads' own node).\n");
	} else if (m->remote_home_ns > 0) {
		printf("Home of the shared lines: remote, %.1f ns more per transfer (%s).\n",
		       m->remote_home_ns,
		       printable_into(source, sizeof(source), m->remote_home_source));
	} else {
		printf("Home of the shared lines: remote, but machine '%s' gives no remote_home_ns: predicted as local.\n",
		       printable_into(source, sizeof(source), m->name));
	}
}

static void print_header(const struct machine_profile *m, const struct model_options *o)
{
	char name[1024], title[1024];

	/* A profile's strings are shown, never obeyed (an ESC, an OSC title). */
	printf("Machine: %s (%s), %u CPUs", printable_into(name, sizeof(name), m->name),
	       printable_into(title, sizeof(title), m->title), m->nr_cpus);
	if (m->clock_ghz > 0)
		printf(", %.2f GHz", m->clock_ghz);
	printf("; placement %s.\n", o->placement ? o->placement : "compact");
	if (o->private_ns > 0)
		printf("Private cost per op: %.3f ns, given (--private-ns).\n", o->private_ns);
	else if (o->results)
		printf("Private cost per op: each variant's 1-thread median in %s.\n",
		       printable_into(name, sizeof(name), o->results));
	else
		printf("Private cost per op: 1 thread measured here now%s.\n",
		       strcmp(m->name, "this") ? ", scaled by the clock ratio" : "");
	printf("One-way transfer per class:");
	for (int c = 0; c < NR_DISTANCE_CLASSES; c++)
		if (m->one_way_ns[c] > 0)
			printf(" %s %.1f ns", distance_class_name((enum distance_class)c),
			       m->one_way_ns[c]);
	printf("\n");
	for (int c = 0; c < NR_DISTANCE_CLASSES; c++)
		if (m->cold_miss_ns[c] > 0)
			printf("Cold miss (a load of a line the other CPU modified), %s: %.1f ns, %s.\n",
			       distance_class_name((enum distance_class)c), m->cold_miss_ns[c],
			       o->results ? "as the run measured it" : "measured here now");
	if (m->tenure_source[0])
		printf("Tenure share of locked ops: %.3g of a transfer (%s).\n", m->tenure_share[1],
		       printable_into(name, sizeof(name), m->tenure_source));
	if (m->waiter_ns > 0)
		printf("Each requester queued beyond the next: %.3g ns more a handoff (%s).\n",
		       m->waiter_ns, printable_into(name, sizeof(name), m->waiter_source));
	print_home(m, o);
}

/* The header's facts for --json: the same numbers print_header() prints. */
static json_t *machine_json(const struct machine_profile *m, const struct model_options *o)
{
	json_t *one_way = json_object(), *cold = json_object(), *sources = json_object();

	for (int c = 0; c < NR_DISTANCE_CLASSES; c++) {
		const char *name = distance_class_name((enum distance_class)c);

		if (m->one_way_ns[c] > 0) {
			json_object_set_new(one_way, name, json_real(m->one_way_ns[c]));
			json_object_set_new(sources, name, json_string(m->source[c]));
		}
		if (m->cold_miss_ns[c] > 0)
			json_object_set_new(cold, name, json_real(m->cold_miss_ns[c]));
	}
	return json_pack("{s:s, s:s, s:i, s:f, s:i, s:s, s:s, s:b, s:o, s:o, s:o, s:s, s:o, s:o}",
			 "name", m->name, "title", m->title, "nr_cpus", (int)m->nr_cpus,
			 "clock_ghz", m->clock_ghz, "store_buffer", (int)m->store_buffer,
			 "store_buffer_source", m->store_buffer_source,
			 "placement", o->placement ? o->placement : "compact",
			 "measured_here", !strcmp(m->name, "this"),
			 "one_way_ns", one_way, "one_way_source", sources, "cold_miss_ns", cold,
			 "home", o->home ? o->home : "local",
			 "remote_home_ns", m->remote_home_ns > 0 ? json_real(m->remote_home_ns) : json_null(),
			 "remote_home_source", m->remote_home_ns > 0 ?
				json_string(m->remote_home_source) : json_null());
}

/* One prediction for --json, with what the text line says of it. */
static json_t *prediction_json(const struct model_prediction *p)
{
	json_t *o = json_pack("{s:i, s:f, s:f}", "threads", (int)p->nr_threads,
			      "ns_per_op", p->ns_per_op, "ops_per_s", p->ops_per_s);

	if (p->bottleneck) {
		json_object_set_new(o, "bottleneck", json_string(p->bottleneck));
		json_object_set_new(o, "busy", json_real(p->busy));
		json_object_set_new(o, "transfer_ns", json_real(p->transfer_ns));
		if (p->local_handoffs >= 0.05) {
			json_object_set_new(o, "handoff_ns", json_real(p->handoff_ns));
			json_object_set_new(o, "local_handoffs", json_real(p->local_handoffs));
		}
	} else {
		json_object_set_new(o, "bottleneck", json_null());
	}
	json_object_set_new(o, "retries_per_success", json_real(p->retries));
	return o;
}

/*
 * The family's table at the catalogue's defaults in the results, the one
 * the fleet table models; true with *ns the variant's 1-thread median.
 */
static bool recorded_private_ns(const struct model_results *run, const struct kernel_family *f,
			       const char *variant, double *ns)
{
	const struct analysis *a = &run->a;

	for (size_t i = 0; i < a->nr_families; i++) {
		const struct family_view *fv = &a->families[i];

		if (fv->kf != f || fv->file != 0 || !fv->nr_groups)
			continue;
		*ns = analysis_one_thread_ns(a, &a->groups[fv->default_group], variant);
		return *ns > 0;
	}
	return false;
}

/*
 * One family's predictions: printed, or with --json appended to families
 * (the same numbers, unrounded).
 */
static int model_family(struct machine_profile *m, const struct model_options *o,
			const struct kernel_family *f, double here_ghz, json_t *families)
{
	json_t *fam = NULL, *variants = NULL, *gains = NULL;
	double private_ns[16] = { 0 }, ns[16][MODEL_MAX_THREAD_COUNTS];
	struct kernel_config cfg;
	char err[256];
	int before = -1, after = -1;

	apply_params(o, f, &cfg);
	if (families) {
		variants = json_array();
		gains = json_array();
		fam = json_pack("{s:s, s:s, s:o, s:o}", "family", f->name, "title", f->title,
				"variants", variants, "before_after", gains);
		json_array_append_new(families, fam);
	} else {
		printf("\n%s: %s\n", f->name, f->title);
		printf("  %7s  %-18s %12s %12s  %s\n", "threads", "variant", "ns/op", "Mops/s",
		       "bottleneck");
	}
	for (unsigned int v = 0; v < f->nr_variants && v < 16; v++) {
		json_t *preds = NULL;

		if (o->variant && strcmp(o->variant, f->variants[v].name))
			continue;
		cfg.variant = v;
		if (o->private_ns > 0)
			private_ns[v] = o->private_ns;
		else if (o->run && !recorded_private_ns(o->run, f, f->variants[v].name,
						       &private_ns[v]))
			continue;	/* not run at 1 thread there: nothing to add contention to */
		else if (!o->run && !f->spins && measure_private(f, &cfg, &private_ns[v]))
			return EXIT_RUNTIME;
		if (variants) {
			preds = json_array();
			json_array_append_new(variants,
					      json_pack("{s:s, s:f, s:o}", "variant", f->variants[v].name,
							"private_ns", private_ns[v],
							"predictions", preds));
		}
		if (f->before_variant && !strcmp(f->before_variant, f->variants[v].name))
			before = (int)v;
		if (f->after_variant && !strcmp(f->after_variant, f->variants[v].name))
			after = (int)v;
		for (unsigned int t = 0; t < o->nr_threads; t++) {
			struct model_prediction p;

			cfg.nr_threads = o->threads[t];
			if ((f->min_threads && cfg.nr_threads < f->min_threads) ||
			    (f->max_threads && cfg.nr_threads > f->max_threads)) {
				ns[v][t] = NAN;
				continue;
			}
			/* a given or recorded cost is the profile machine's own: not scaled */
			if (model_predict(m, f, &cfg, private_ns[v],
					  o->private_ns > 0 || o->run ? 0 : here_ghz, o->placement,
					  &p, err, sizeof(err)))
				return usage_error("%s", err);
			ns[v][t] = p.ns_per_op;
			if (preds) {
				json_array_append_new(preds, prediction_json(&p));
				continue;
			}
			printf("  %7u  %-18s %12.2f %12.2f  ", p.nr_threads, f->variants[v].name,
			       p.ns_per_op, p.ops_per_s / 1e6);
			if (p.bottleneck && p.local_handoffs >= 0.05)
				printf("%s: %.0f%% busy, %.0f ns a transfer (%.1f handoffs in a cache domain per domain visit; any two: %.0f ns)",
				       p.bottleneck, 100 * p.busy, p.handoff_ns, p.local_handoffs,
				       p.transfer_ns);
			else if (p.bottleneck)
				printf("%s: %.0f%% busy, %.0f ns a transfer", p.bottleneck,
				       100 * p.busy, p.transfer_ns);
			else
				printf("none: private work");
			if (p.waiters_ns >= 0.05)
				printf(", %.1f ns a handoff for the requesters queued", p.waiters_ns);
			if (p.retries > 0.005)
				printf(", %.2f retries per success", p.retries);
			printf("\n");
		}
	}
	if (before >= 0 && after >= 0 && gains) {
		json_object_set_new(fam, "before", json_string(f->before_variant));
		json_object_set_new(fam, "after", json_string(f->after_variant));
		for (unsigned int t = 0; t < o->nr_threads; t++)
			if (isfinite(ns[before][t]) && ns[after][t] > 0)
				json_array_append_new(gains, json_pack("{s:i, s:f}", "threads",
								       (int)o->threads[t], "gain",
								       ns[before][t] / ns[after][t]));
	} else if (before >= 0 && after >= 0) {
		printf("  before/after (%s ns/op over %s):", f->before_variant, f->after_variant);
		for (unsigned int t = 0; t < o->nr_threads; t++)
			if (isfinite(ns[before][t]) && ns[after][t] > 0)
				printf(" %u: %.2fx%s", o->threads[t], ns[before][t] / ns[after][t],
				       t + 1 < o->nr_threads ? "," : "");
		printf("\n");
	}
	return 0;
}

static int parse_options(int argc, char **argv, struct model_options *o)
{
	static const struct option longopts[] = {
		{ "profile", required_argument, NULL, 'P' },
		{ "results", required_argument, NULL, 'R' },
		{ "family", required_argument, NULL, 'f' },
		{ "variant", required_argument, NULL, 'v' },
		{ "threads", required_argument, NULL, 't' },
		{ "placement", required_argument, NULL, 'l' },
		{ "home", required_argument, NULL, 'H' },
		{ "param", required_argument, NULL, 'p' },
		{ "json", no_argument, NULL, 'j' },
		{ "private-ns", required_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, rc;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 'P': o->profile = optarg; break;
		case 'R': o->results = optarg; break;
		case 'f':
			o->family = catalog_find(optarg);
			if (!o->family)
				return usage_error("--family '%s': expected a family name (see 'bouncelab list')",
						   optarg);
			break;
		case 'v': o->variant = optarg; break;
		case 't':
			if ((rc = parse_threads(optarg, o)))
				return rc;
			break;
		case 'l': o->placement = optarg; break;
		case 'H':
			if (strcmp(optarg, "local") && strcmp(optarg, "remote"))
				return usage_error("--home '%s': expected local or remote", optarg);
			o->home = optarg;
			break;
		case 'p':
			if ((rc = parse_param(optarg, o)))
				return rc;
			break;
		case 'j': o->json = true; break;
		case 'n': {
			char *end;

			o->private_ns = strtod(optarg, &end);
			if (end == optarg || *end || !isfinite(o->private_ns) ||
			    o->private_ns <= 0 || o->private_ns > 1e9)
				return usage_error("--private-ns '%s': expected a 1-thread cost in ns, above 0 and at most 1e9",
						   optarg);
			break;
		}
		case 'h': model_usage(); return -1;
		default: return bad_option(argv, "model");
		}
	}
	if (optind < argc)
		return usage_error("model: unexpected argument '%s'", argv[optind]);
	if (o->results && o->profile)
		return usage_error("--results %s: expected no --profile too (the results are the machine)",
				   o->results);
	if (o->results && (o->nr_params || o->private_ns > 0))
		return usage_error("--results %s: expected no --param or --private-ns (the results' defaults are modelled)",
				   o->results);
	if (o->variant && !o->family)
		return usage_error("--variant '%s': expected --family too", o->variant);
	if (o->private_ns > 0 && !o->variant)
		return usage_error("--private-ns %g: expected --family and --variant too (it is one variant's cost)",
				   o->private_ns);
	if (o->variant && catalog_variant_index(o->family, o->variant) < 0)
		return usage_error("--variant '%s': not a variant of %s (see 'bouncelab list')",
				   o->variant, o->family->name);
	return 0;
}

/* A profile is a few KB; its distances for 1024 nodes, a few MB. */
/* --profile FILE or NAME: a file that exists (or a path) is read; else
 * the name of a shipped profile. */
static int load_profile(const char *arg, struct machine_profile *m, char *err, size_t errlen)
{
	if (strchr(arg, '/') || !access(arg, F_OK))
		return machine_profile_load(arg, m, err, errlen);
	return machine_profile_load_shipped(arg, m, err, errlen);
}

/*
 * The thread counts (by default 1, 2, 4... up to the machine's CPUs) and
 * the placement of each, checked before anything is measured or printed.
 */
static int check_plans(const struct machine_profile *m, struct model_options *o)
{
	static struct placement pl;	/* big */
	char err[512];

	if (!o->nr_threads)
		for (unsigned int t = 1; t <= m->nr_cpus && o->nr_threads < MODEL_MAX_THREAD_COUNTS;
		     t *= 2)
			o->threads[o->nr_threads++] = t;
	for (unsigned int t = 0; t < o->nr_threads; t++) {
		if (o->threads[t] > m->nr_cpus)
			return usage_error("--threads %u: machine '%s' has %u CPUs, expected at most that many",
					   o->threads[t], m->name, m->nr_cpus);
		if (topo_plan(m->topo, o->placement ? o->placement : "compact", o->threads[t],
			      &pl, err, sizeof(err)))
			return usage_error("%s", err);
	}
	return 0;
}

static void results_machine_free(struct model_results *run)
{
	analysis_free(&run->a);
	result_cases_free(&run->cases);
	results_free(&run->set);
	free(run);
}

/*
 * --results FILE: read as the report reads it, and the machine built as
 * the fleet table builds it (fleet_machine()). Returns 0, or the exit
 * status with the error printed.
 */
static int results_machine(const char *path, struct model_results **out,
			   struct machine_profile *m)
{
	struct model_results *run = calloc(1, sizeof(*run));
	char err[1024];
	int rc;

	/*
	 * The caller closes the machine on every failure: one that ends
	 * before fleet_machine() built it must have nothing open to close.
	 */
	*m = (struct machine_profile){ 0 };
	*out = run;
	if (!run)
		return runtime_error("out of memory reading %s", path);
	rc = results_read(&run->set, path, err, sizeof(err));
	if (rc)
		return rc == -2 ? runtime_error("%s", err) : usage_error("--results %s", err);
	if (fleet_pool(&run->set) || result_cases_build(&run->set, &run->cases) ||
	    analysis_build(&run->set, &run->cases, &run->a))
		return runtime_error("out of memory analysing %s", path);
	run->in = (struct report_input){ .files = &path, .nr_files = 1, .set = &run->set,
					 .a = &run->a };
	if (fleet_machine(&run->in, 0, m, err, sizeof(err)))
		return usage_error("--results %s: %s: expected a bouncelab run with a topology and the ping-pong",
				   path, err);
	snprintf(m->title, sizeof(m->title), "%s", path);
	return 0;
}

int cmd_model(int argc, char **argv)
{
	struct model_options o = { 0 };
	struct machine_profile m;
	json_t *root = NULL, *families = NULL;
	char err[512];
	double here_ghz = model_this_clock_ghz();
	int rc = parse_options(argc, argv, &o);

	struct model_results *run = NULL;

	if (rc)
		return rc < 0 ? 0 : rc;
	if (o.results) {
		if ((rc = results_machine(o.results, &run, &m)) || (rc = check_plans(&m, &o))) {
			machine_profile_close(&m);
			if (run)
				results_machine_free(run);
			return rc;
		}
		o.run = run;
	} else if (!o.profile || !strcmp(o.profile, "this")) {
		if (machine_profile_this(&m, err, sizeof(err)))
			return topo_from_user(NULL) ? usage_error("%s", err) :
						      runtime_error("%s", err);
		if ((rc = check_plans(&m, &o)) || (rc = measure_this(&m))) {
			machine_profile_close(&m);
			return rc;
		}
	} else if ((rc = load_profile(o.profile, &m, err, sizeof(err)))) {
		return rc == -2 ? runtime_error("%s", err) :
				  usage_error("--profile %s", err);
	} else if ((rc = check_plans(&m, &o))) {
		machine_profile_close(&m);
		return rc;
	}
	m.home_away = o.home && !strcmp(o.home, "remote") ? 1 : 0;
	if (o.json) {
		families = json_array();
		root = json_pack("{s:o, s:o}", "machine", machine_json(&m, &o),
				 "families", families);
	} else {
		print_header(&m, &o);
	}
	for (unsigned int i = 0; i < catalog_size && !rc; i++)
		if (!o.family || o.family == catalog[i])
			rc = model_family(&m, &o, catalog[i], here_ghz, families);
	machine_profile_close(&m);
	if (run)
		results_machine_free(run);
	if (root && !rc)
		return print_json(root, JSON_INDENT(2) | JSON_REAL_PRECISION(6));
	json_decref(root);
	return rc;
}
