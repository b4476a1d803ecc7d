// SPDX-License-Identifier: GPL-2.0-only
/*
 * run's options that take more than a number: --param and --placement
 * checked and read into a suite_options, and the command line as typed.
 */
#include <stdio.h>
#include <string.h>

#include "catalog.h"
#include "cli.h"
#include "format.h"
#include "run_options.h"

/* family.name=v1,v2 */
int run_parse_param(const char *text, struct suite_options *opts)
{
	struct param_option o;
	char err[1024];

	if (param_option_parse(text, SUITE_MAX_VALUES, &o, err, sizeof(err)))
		return usage_error("%s", err);
	/* A later --param for the same parameter replaces the earlier one. */
	for (unsigned int i = 0; i < opts->nr_overrides; i++) {
		if (opts->overrides[i].family == o.family && opts->overrides[i].param == o.param) {
			opts->overrides[i] = o;
			return 0;
		}
	}
	if (opts->nr_overrides == SUITE_MAX_OVERRIDES)
		return usage_error("--param '%s': at most %d --param options",
				   text, SUITE_MAX_OVERRIDES);
	opts->overrides[opts->nr_overrides++] = o;
	return 0;
}

/*
 * The command line, shell-quoted, for the report's "how to reproduce":
 * kept in the results so that the report need not guess the options.
 */
static char run_command[4096];

void run_record_command(int argc, char **argv)
{
	FILE *out = fmemopen(run_command, sizeof(run_command) - 1, "w");

	if (!out)
		return;
	fputs("bouncelab", out);
	for (int i = 0; i < argc; i++) {
		fputc(' ', out);
		format_shell_word(out, argv[i]);
	}
	fclose(out);
}

const char *run_command_line(void)
{
	return run_command;
}

/* Two equal cases would share a name, and so each other's rows. */
static int check_placements_differ(const char *text,
				   const struct suite_options *opts)
{
	for (unsigned int i = 0; i < opts->nr_placements; i++)
		for (unsigned int k = 0; k < i; k++)
			if (!strcmp(opts->placements[i], opts->placements[k]))
				return usage_error("--placement '%s': '%s' is listed twice: expected each policy once",
						   text, opts->placements[i]);
	return 0;
}

/*
 * compact,pair:smt,cpus:0,4: policies split at commas, except that a
 * number continues the cpus: list before it. The texts live in store.
 */
int run_parse_placement(const char *text, struct suite_options *opts, char store[][64])
{
	char copy[1024], *item, *rest = copy;
	char *last = NULL;

	if (!*text || strlen(text) >= sizeof(copy))
		return usage_error("--placement '%s': expected compact, spread, cores, pair:CLASS or cpus:LIST",
				   text);
	snprintf(copy, sizeof(copy), "%s", text);
	/* strsep, not strtok: "compact,,spread" has an empty item, an error. */
	while ((item = strsep(&rest, ","))) {
		bool continues = last && !strncmp(last, "cpus:", 5) &&
				 *item >= '0' && *item <= '9';

		if (!*item)
			return usage_error("--placement '%s': expected a policy between commas",
					   text);
		if (continues) {
			size_t used = strlen(last);

			if (used + 1 + strlen(item) >= 64)
				return usage_error("--placement '%s': expected a policy of at most 63 characters (ranges help: cpus:0-15)",
						   text);
			snprintf(last + used, 64 - used, ",%s", item);
			continue;
		}
		if (opts->nr_placements == SUITE_MAX_PLACEMENTS)
			return usage_error("--placement '%s': expected at most %d policies",
					   text, SUITE_MAX_PLACEMENTS);
		if (strlen(item) >= 64)
			return usage_error("--placement '%s': expected a policy of at most 63 characters",
					   text);
		last = store[opts->nr_placements];
		snprintf(last, 64, "%s", item);
		opts->placements[opts->nr_placements++] = last;
	}
	return check_placements_differ(text, opts);
}
