// SPDX-License-Identifier: GPL-2.0-only
/* bouncelab list: the catalogue, as a user chooses from it. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "catalog.h"
#include "cli.h"
#include "counters.h"

static void list_params(const struct kernel_family *f)
{
	for (unsigned int p = 0; p < f->nr_params; p++) {
		const struct kernel_param *param = &f->params[p];

		if (param->choices) {
			printf("    %-16s default %s, one of", param->name,
			       kernel_param_choice(param, param->def));
			for (unsigned int i = 0; param->choices[i]; i++)
				printf("%s%s", i ? "|" : " ", param->choices[i]);
		} else {
			printf("    %-16s default %ld, range %ld..%ld", param->name,
			       param->def, param->min, param->max);
		}
		if (param->suite)
			printf(", suite sweeps %s", param->suite);
		printf("\n      %s\n", param->help);
	}
}

static void list_family(const struct kernel_family *f)
{
	printf("%s: %s\n", f->name, f->title);
	printf("  source: %s\n", f->source);
	if (f->min_threads || f->max_threads)
		printf("  threads: %u to %u\n", f->min_threads, f->max_threads);
	printf("  variants:\n");
	for (unsigned int v = 0; v < f->nr_variants; v++)
		printf("    %-20s %s%s\n", f->variants[v].name, f->variants[v].models,
		       f->variants[v].deliberately_racy ? " [racy on purpose]" : "");
	if (f->nr_params) {
		printf("  parameters (--param %s.NAME=VALUE[,VALUE]):\n", f->name);
		list_params(f);
	}
	printf("\n");
}

/* One parameter for --json: what list_params() prints of it. */
static json_t *param_json(const struct kernel_param *param)
{
	json_t *j = json_pack("{s:s, s:s}", "name", param->name, "help", param->help);

	if (param->choices) {
		json_t *choices = json_array();

		for (unsigned int i = 0; param->choices[i]; i++)
			json_array_append_new(choices, json_string(param->choices[i]));
		json_object_set_new(j, "default", json_string(kernel_param_choice(param, param->def)));
		json_object_set_new(j, "choices", choices);
	} else {
		json_object_set_new(j, "default", json_integer(param->def));
		json_object_set_new(j, "min", json_integer(param->min));
		json_object_set_new(j, "max", json_integer(param->max));
	}
	json_object_set_new(j, "suite", param->suite ? json_string(param->suite) : json_null());
	return j;
}

/* One family for --json: what list_family() prints of it. */
static json_t *family_json(const struct kernel_family *f)
{
	json_t *variants = json_array(), *params = json_array();
	json_t *j = json_pack("{s:s, s:s, s:s}", "family", f->name, "title", f->title,
			      "source", f->source);

	if (f->min_threads || f->max_threads) {
		json_object_set_new(j, "min_threads", json_integer(f->min_threads));
		json_object_set_new(j, "max_threads", json_integer(f->max_threads));
	}
	for (unsigned int v = 0; v < f->nr_variants; v++)
		json_array_append_new(variants, json_pack("{s:s, s:s, s:b}",
				      "variant", f->variants[v].name, "models", f->variants[v].models,
				      "deliberately_racy", f->variants[v].deliberately_racy));
	for (unsigned int p = 0; p < f->nr_params; p++)
		json_array_append_new(params, param_json(&f->params[p]));
	json_object_set_new(j, "variants", variants);
	json_object_set_new(j, "parameters", params);
	return j;
}

/*
 * Every set, opened once here to learn what works and why not; with
 * --json, the same facts as a run records them (context.counters).
 */
static int list_events(int argc, char **argv, bool json)
{
	char err[256];

	if (optind < argc)
		return usage_error("list: unexpected argument '%s' with --events",
				   argv[optind]);
	if (counters_select("coherence,basic,sw", NULL, err, sizeof(err)))
		return runtime_error("%s", err);
	counters_prepare(NULL);
	if (json)
		return print_json(counters_context(), JSON_INDENT(2));
	counters_list(stdout);
	return 0;
}

int cmd_list(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "events", no_argument, NULL, 'e' },
		{ "json", no_argument, NULL, 'j' },
		{ NULL, 0, NULL, 0 },
	};
	bool events = false, json = false;
	json_t *families = NULL;
	int c;

	optind = 0;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		if (c == 'h') {
			printf("usage: bouncelab list [--json] [FAMILY...]\n"
			       "       bouncelab list --events [--json]\n\n"
			       "Lists the kernel families, their variants and parameters;\n"
			       "with --events, the counter sets and whether each works here.\n\n"
			       "  --events    the counter sets and events, and whether each works here\n"
			       "  --json      the same as one JSON document on stdout\n"
			       "  -h, --help  this help\n");
			return 0;
		}
		if (c == 'e')
			events = true;
		else if (c == 'j')
			json = true;
		else
			return bad_option(argv, "list");
	}
	if (events)
		return list_events(argc, argv, json);
	for (int i = optind; i < argc; i++)
		if (!catalog_find(argv[i]))
			return usage_error("list: unknown family '%s' (run 'bouncelab list' for all)",
					   argv[i]);
	if (json)
		families = json_array();
	for (unsigned int i = 0; i < catalog_size; i++) {
		bool wanted = optind == argc;

		for (int k = optind; k < argc; k++)
			wanted |= !strcmp(argv[k], catalog[i]->name);
		if (wanted && families)
			json_array_append_new(families, family_json(catalog[i]));
		else if (wanted)
			list_family(catalog[i]);
	}
	return families ? print_json(json_pack("{s:o}", "families", families), JSON_INDENT(2)) : 0;
}
