// SPDX-License-Identifier: GPL-2.0-only
/* bouncelab: a lab for cache-line contention. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "config.h"
#include "counters.h"
#include "revision.h"

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
};

static const struct command commands[] = {
	{ "run", cmd_run, "run the suite and write results JSON" },
	{ "list", cmd_list, "list families, variants and parameters" },
	{ "report", cmd_report, "turn results JSON into a markdown report" },
	{ "compare", cmd_compare, "compare two results files, benchmark by benchmark" },
	{ "gup", cmd_gup, "the mini GUP walker, with gup_test's options and output" },
	{ "topo", cmd_topo, "topology, distance classes, placements, core-to-core latency" },
	{ "lesson", cmd_lesson, "a family's lesson, the claims the report checks, an exercise" },
	{ "model", cmd_model, "predicted ns/op and bottleneck at N threads, here or on a machine profile" },
};

#define NR_COMMANDS (sizeof(commands) / sizeof(commands[0]))

static void usage(FILE *out)
{
	fprintf(out, "usage: bouncelab COMMAND [OPTIONS]\n\n"
		"A lab for cache-line contention: C kernels from real Linux patches,\n"
		"placed by topology, timed by Google Benchmark, explained in a report.\n\n"
		"Commands:\n");
	for (size_t i = 0; i < NR_COMMANDS; i++)
		fprintf(out, "  %-8s %s\n", commands[i].name, commands[i].summary);
	fprintf(out, "\nOptions:\n"
		"  -V, --version  the version and git revision it was built from\n"
		"  -h, --help     this help\n"
		"\n'bouncelab COMMAND --help' describes each command.\n");
}

/* "run, list, report": what a command may be. */
static const char *command_names(void)
{
	static char names[256];
	size_t used = 0;

	for (size_t i = 0; i < NR_COMMANDS && used < sizeof(names); i++)
		used += (size_t)snprintf(names + used, sizeof(names) - used, "%s%s",
					 i ? ", " : "", commands[i].name);
	return names;
}

int main(int argc, char **argv)
{
	const char *name;

	/* Our own one-line messages replace getopt's. */
	opterr = 0;
	/*
	 * A write past "ulimit -f" raises SIGXFSZ, whose default kills us with
	 * no word and no clean-up (lock and temporary files left). Ignored, the
	 * write fails with EFBIG instead, and the command's own error path runs.
	 */
	signal(SIGXFSZ, SIG_IGN);
	if (argc < 2)
		return usage_error("expected a command: one of %s (see 'bouncelab --help')",
				   command_names());
	name = argv[1];
	/* libpfm4 is set up once, before any benchmark thread exists. */
	counters_init();
	if (!strcmp(name, "--help") || !strcmp(name, "-h")) {
		usage(stdout);
		return close_stdout(0);
	}
	if (!strcmp(name, "--version") || !strcmp(name, "-V")) {
		/* The same two facts a run records: context.bouncelab_version, _revision. */
		printf("bouncelab %s (revision %s; Google Benchmark %s, %s)\n", BOUNCELAB_VERSION,
		       BOUNCELAB_REVISION, BOUNCELAB_GBENCH_VERSION, BOUNCELAB_COMPILER);
		return close_stdout(0);
	}
	/* Every command's output is checked once, here (exit 1 if lost). */
	for (size_t i = 0; i < NR_COMMANDS; i++)
		if (!strcmp(name, commands[i].name))
			return close_stdout(commands[i].fn(argc - 1, argv + 1));
	return usage_error("unknown command '%s': expected one of %s", name,
			   command_names());
}
