// SPDX-License-Identifier: GPL-2.0-only
/*
 * bouncelab lesson [FAMILY]: what a family teaches, the claims the report
 * checks it by, and a predict-then-measure exercise: the question, the
 * command that answers it, and how to read the answer.
 */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog.h"
#include "claims.h"
#include "cli.h"
#include "lesson_text.h"

#define WRAP_COLUMNS 76

static void lesson_usage(FILE *out)
{
	fprintf(out, "usage: bouncelab lesson [FAMILY]\n\n"
		"Without FAMILY: every family and its lesson in one line. With FAMILY:\n"
		"the lesson, the claims the report checks on every run (marked seen,\n"
		"not seen or not testable here), and an exercise: predict first, then\n"
		"run the command and read the answer as described.\n\n"
		"  -h, --help  this help\n");
}

/* Prints text wrapped at WRAP_COLUMNS: first after lead, then after indent. */
static void print_hanging(const char *lead, const char *indent, const char *text)
{
	size_t width = WRAP_COLUMNS - strlen(indent), col = 0;
	bool first = true;

	while (*text) {
		size_t word = strcspn(text, " ");

		if (col && col + 1 + word > width) {
			putchar('\n');
			col = 0;
		}
		if (!col) {
			fputs(first ? lead : indent, stdout);
			first = false;
		}
		else
			putchar(' ');
		fwrite(text, 1, word, stdout);
		col += word + (col ? 1 : 0);
		text += word;
		text += strspn(text, " ");
	}
	putchar('\n');
}

/* A lesson string with its placeholders in words: no run to take them from. */
static void print_wrapped(const char *indent, const char *text)
{
	char *words = lesson_in_words(text);

	print_hanging(indent, indent, words ? words : text);
	free(words);
}

static void list_lessons(void)
{
	for (unsigned int i = 0; i < catalog_size; i++) {
		const struct kernel_family *f = catalog[i];

		printf("%s\n", f->name);
		print_wrapped("  ", f->lesson_line ? f->lesson_line : f->title);
	}
	printf("\n'bouncelab lesson FAMILY' gives the lesson, its claims and an exercise.\n");
}

static void show_lesson(const struct kernel_family *f)
{
	char expected[256], condition[256];

	printf("%s: %s\n\n", f->name, f->title);
	print_wrapped("", f->lesson);
	printf("\nClaims the report checks on every run:\n");
	if (!f->nr_claims)
		printf("  none yet\n");
	for (unsigned int k = 0; k < f->nr_claims; k++) {
		const struct kernel_claim *c = &f->claims[k];

		claim_expectation(expected, sizeof(expected), c);
		claim_condition(condition, sizeof(condition), c);
		print_hanging("  - ", "    ", c->text);
		print_wrapped("      ", expected);
		print_hanging("      when: ", "            ", condition);
	}
	if (!f->exercise_question)
		return;
	printf("\nExercise. Predict first, then measure.\n\n");
	print_wrapped("  ", f->exercise_question);
	printf("\n  Run:\n    %s\n\n", f->exercise_command);
	print_wrapped("  ", f->exercise_reading);
}

int cmd_lesson(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const struct kernel_family *f;
	int c;

	optind = 0;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 'h':
			lesson_usage(stdout);
			return 0;
		default:
			return bad_option(argv, "lesson");
		}
	}
	if (argc - optind > 1)
		return usage_error("lesson: expected at most one family, got %d arguments",
				   argc - optind);
	if (argc == optind) {
		list_lessons();
		return 0;
	}
	f = catalog_find(argv[optind]);
	if (!f)
		return usage_error("lesson: unknown family '%s': expected one of those 'bouncelab list' shows",
				   printable(argv[optind]));
	show_lesson(f);
	return 0;
}
