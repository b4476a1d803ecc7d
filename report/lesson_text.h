/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Numbers in a lesson's text come from the run it is read beside, never
 * from the machine the lesson was written on. A lesson string
 * (kernels/kernel.h: lesson, lesson_line, exercise_reading; written in
 * kernels/lessons/NAME.md, whose build step refuses a malformed one) may
 * hold placeholders, which the report fills in from the numbers its
 * tables print and `bouncelab lesson` gives in words:
 *
 *   {ratio:A/B@T}          A's ns/op over B's at T threads, as the tables
 *                          compare two cases (paired by round where they can be)
 *   {ns:A@T}               A's median ns/op at T threads
 *   {ratio:A/B@T:SETTING}  the same in the table of SETTING, written as a
 *   {ns:A@T:SETTING}       claim's ("update=plain,pin_work=0"; parameters
 *                          not named at their defaults)
 *
 * A case the run did not measure reads "n/a in this run".
 */
#ifndef BOUNCELAB_LESSON_TEXT_H
#define BOUNCELAB_LESSON_TEXT_H

#include <stddef.h>
#include <stdio.h>

#include "analysis.h"

#define LESSON_NAME_MAX 64

enum lesson_quantity { LESSON_RATIO, LESSON_NS };

struct lesson_placeholder {
	enum lesson_quantity what;
	char a[LESSON_NAME_MAX], b[LESSON_NAME_MAX];	/* b: LESSON_RATIO only */
	long threads;
	char setting[128];	/* "" for the defaults */
	size_t len;		/* characters of the placeholder, braces included */
};

/*
 * Parses the placeholder at the start of text. Returns 0, or -1 when text
 * does not start with a well-formed one.
 */
int lesson_placeholder_parse(const char *text, struct lesson_placeholder *ph);

/* text with every placeholder as "(measured in your run)"; malloc'd, or NULL */
char *lesson_in_words(const char *text);

/*
 * text with every placeholder's number from f's tables in a (a ratio as
 * "2.23x", a median as "14.9 ns"), or "n/a in this run"; malloc'd, or
 * NULL without memory.
 */
char *lesson_expand(const char *text, const struct analysis *a,
		    const struct family_view *f);

/* A lesson string as markdown, its numbers from f's tables in a. */
void md_lesson(FILE *out, const char *text, const struct analysis *a,
	       const struct family_view *f);

#endif
