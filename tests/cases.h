/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Honest skips for cmocka programs. cmocka's skip() makes a case pass as
 * far as its exit status goes, so a program whose cases all skipped would
 * count as a pass. Here a case skips with skip_because(reason), which
 * also counts it, and run_cases() returns meson's "skipped" status (77)
 * when every case it ran skipped.
 *
 * A case that may skip on some machines is registered in meson as a test
 * of its own (its name as the argument), so that a skip is never hidden
 * among passing cases; "--all-but NAME..." runs the others as one test.
 * With no argument every case runs.
 */
#ifndef BOUNCELAB_TEST_CASES_H
#define BOUNCELAB_TEST_CASES_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TEST_SKIPPED 77

static unsigned int cases_skipped;

#define skip_because(reason) do {					\
		print_message("skipped: %s\n", (reason));		\
		cases_skipped++;					\
		skip();							\
	} while (0)

static inline int case_named(const char *name, int argc, char **argv,
			     int from)
{
	for (int i = from; i < argc; i++)
		if (!strcmp(argv[i], name))
			return 1;
	return 0;
}

/*
 * Runs the cases argv names (or all but them after --all-but, or all).
 * Exit status: cmocka's (the number failed), or 77 if every case skipped.
 * A name that matches no case is an error, so a renamed case cannot
 * silently drop out of the suite.
 */
static inline int run_cases_(const char *group, const struct CMUnitTest *all,
			     size_t nr, int argc, char **argv)
{
	struct CMUnitTest *chosen = calloc(nr ? nr : 1, sizeof(*chosen));
	int all_but = argc > 1 && !strcmp(argv[1], "--all-but");
	int from = all_but ? 2 : 1;
	size_t n = 0;
	int failed;

	if (!chosen)
		return 1;
	for (int i = from; i < argc; i++) {
		size_t k = 0;

		while (k < nr && strcmp(all[k].name, argv[i]))
			k++;
		if (k == nr) {
			fprintf(stderr, "%s: no case named '%s'\n", group, argv[i]);
			free(chosen);
			return 1;
		}
	}
	for (size_t k = 0; k < nr; k++) {
		int named = case_named(all[k].name, argc, argv, from);

		if (argc <= 1 || (all_but ? !named : named))
			chosen[n++] = all[k];
	}
	failed = _cmocka_run_group_tests(group, chosen, n, NULL, NULL);
	free(chosen);
	if (failed)
		return failed;
	if (n > 0 && cases_skipped == n)
		return TEST_SKIPPED;
	if (cases_skipped) {
		/* A skip among passes would read as a pass: register it alone. */
		fprintf(stderr, "%s: %u of %zu cases skipped among others that ran: "
			"give each case that may skip a meson test of its own\n",
			group, cases_skipped, n);
		return 1;
	}
	return 0;
}

#define run_cases(group, tests, argc, argv)				\
	run_cases_((group), (tests), sizeof(tests) / sizeof((tests)[0]),	\
		   (argc), (argv))

#endif
