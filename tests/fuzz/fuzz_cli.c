// SPDX-License-Identifier: GPL-2.0-only
/*
 * Fuzzes option parsing: each input is a command line, one word a line,
 * the first word naming the subcommand. The subcommand runs in-process in
 * a scratch directory holding a real results file, so report gets as far
 * as writing. Any command line must end in a result or a one-line error,
 * never a crash, a leak, undefined behaviour or a hang.
 *
 * Two limits keep a fuzzed command line harmless: run gets --dry-run
 * first, so it plans and prints but never benchmarks, and topo a synthetic
 * topology, so it never measures; and no word may hold '/' or "..", so
 * every path stays inside the scratch directory.
 */
#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "scratch.h"

#define MAX_WORDS 64

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Adding a subcommand to bouncelab: add it here too. */
static const struct subcommand {
	const char *name;
	int (*fn)(int argc, char **argv);
	/* words before the fuzzed ones: never run benchmarks */
	const char *first_word;
} subcommands[] = {
	{ "run", cmd_run, "--dry-run" },
	{ "list", cmd_list, NULL },
	{ "report", cmd_report, NULL },
	{ "compare", cmd_compare, NULL },
	/* Not this system, so --latency is refused, whatever follows. */
	{ "topo", cmd_topo, "--topology=pack:2 numa:2 core:4 pu:2" },
	/* Not gup: it has no dry run, and -m 16384 -r 100000 runs for hours. */
};

static char *fixture;
static size_t fixture_len;

/* A results file from a real run, for report to read. */
static void load_fixture(void)
{
	FILE *f = fopen(FUZZ_FIXTURE_RESULTS, "r");

	if (!f || getdelim(&fixture, &fixture_len, '\0', f) < 0) {
		perror(FUZZ_FIXTURE_RESULTS);
		abort();
	}
	fixture_len = strlen(fixture);
	fclose(f);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	/* Our one-line messages replace getopt's, as in main(). */
	opterr = 0;
	load_fixture();
	return 0;
}

static bool harmless(const char *word)
{
	return !strchr(word, '/') && !strstr(word, "..");
}

/* Splits text in place at newlines; returns the number of words. */
static int split_words(char *text, char **words)
{
	int n = 0;

	for (char *p = text; n < MAX_WORDS; n++) {
		words[n] = p;
		p = strchr(p, '\n');
		if (!p)
			return n + 1;
		*p++ = '\0';
	}
	return -1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct subcommand *cmd = NULL;
	char *words[MAX_WORDS], *argv[MAX_WORDS + 2];
	int nr_words, argc = 0;
	char *text;

	if (memchr(data, '\0', size))
		return -1;	/* a word cannot hold NUL on a real command line */
	text = malloc(size + 1);
	if (!text)
		return -1;
	memcpy(text, data, size);
	text[size] = '\0';
	nr_words = split_words(text, words);
	for (size_t i = 0; nr_words > 0 && i < sizeof(subcommands) / sizeof(subcommands[0]); i++)
		if (!strcmp(words[0], subcommands[i].name))
			cmd = &subcommands[i];
	for (int i = 1; cmd && i < nr_words; i++)
		if (!harmless(words[i]))
			cmd = NULL;
	if (!cmd) {
		free(text);
		return -1;	/* not a command line this target may run */
	}
	/* As main() calls it: argv[0] is the subcommand's name. */
	argv[argc++] = (char *)cmd->name;
	if (cmd->first_word)
		argv[argc++] = (char *)cmd->first_word;
	for (int i = 1; i < nr_words; i++)
		argv[argc++] = words[i];
	argv[argc] = NULL;

	scratch_enter();
	scratch_write("results.json", fixture, fixture_len);
	scratch_write("not_json.txt", "not JSON\n", 9);
	cmd->fn(argc, argv);
	fflush(stdout);
	scratch_leave();
	free(text);
	return 0;
}
