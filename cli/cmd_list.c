// SPDX-License-Identifier: GPL-2.0-only
/* bouncelab list: the catalogue, as a user chooses from it. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

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

/* Every set, opened once here to learn what works and why not. */
static int list_events(int argc, char **argv)
{
	char err[256];

	if (optind < argc)
		return usage_error("list: unexpected argument '%s' with --events",
				   argv[optind]);
	if (counters_select("coherence,basic,sw", NULL, err, sizeof(err)))
		return runtime_error("%s", err);
	counters_prepare(NULL);
	counters_list(stdout);
	return 0;
}

int cmd_list(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "events", no_argument, NULL, 'e' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	optind = 0;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		if (c == 'h') {
			printf("usage: bouncelab list [FAMILY...]\n"
			       "       bouncelab list --events\n\n"
			       "Lists the kernel families, their variants and parameters;\n"
			       "with --events, the counter sets and whether each works here.\n\n"
			       "  --events    the counter sets and events, and whether each works here\n"
			       "  -h, --help  this help\n");
			return 0;
		}
		if (c == 'e')
			return list_events(argc, argv);
		return bad_option(argv, "list");
	}
	for (int i = optind; i < argc; i++)
		if (!catalog_find(argv[i]))
			return usage_error("list: unknown family '%s' (run 'bouncelab list' for all)",
					   argv[i]);
	for (unsigned int i = 0; i < catalog_size; i++) {
		bool wanted = optind == argc;

		for (int k = optind; k < argc; k++)
			wanted |= !strcmp(argv[k], catalog[i]->name);
		if (wanted)
			list_family(catalog[i]);
	}
	return 0;
}
