/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * How the report writes numbers. Prose and tables use these same
 * functions, so a number quoted in a sentence is the number in its table,
 * character for character.
 */
#ifndef BOUNCELAB_FORMAT_H
#define BOUNCELAB_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "stats.h"

#define FORMAT_LEN 128

/* Three significant digits without an exponent: 14.3, 5.70, 1194790. */
const char *format_sig(char *buf, double v);

/* A ratio: 2.51x, 13.3x, 466x. */
const char *format_ratio(char *buf, double v);

/*
 * "2.51x (95% CI 2.40–2.63)", "2.51x (95% CI 2.40–2.63, paired by round)"
 * (stats.h: the median of per-round ratios), or "2.51x (no CI: 1 repetition)".
 */
const char *format_ratio_ci(char *buf, const struct stats_ratio *r);

/* "14.3 (14.1–14.5)": a median and its interval. */
const char *format_median_ci(char *buf, const struct stats_summary *s,
			     double scale);

/* "0.004", "0.10", "< 0.001" or "n/a". */
const char *format_p(char *buf, double p);

/* "8.2%" */
const char *format_percent(char *buf, double fraction);

/* A-Z, a-z or 0-9, whatever the locale (isalnum() depends on it). */
bool ascii_alnum(char c);

/*
 * Text for a markdown table cell or paragraph: | < ` * _ [ ] \ escaped
 * with a backslash, and > and & where markdown would read them as a quote
 * or a character reference; never an HTML entity. Line breaks and tabs as
 * spaces, any other control byte shown as \xNN.
 */
void md_escape(FILE *out, const char *s);

/*
 * md_escape(), each absolute path in the text ("XML file /home/x/t.xml")
 * shortened to its last component: a report never names the directories
 * of the machine that wrote it.
 */
void md_escape_short_paths(FILE *out, const char *s);

/* A name as is when it is an identifier (has_pinned), else escaped. */
void md_name(FILE *out, const char *s);

/* A name as inline code: `store_always` (backticks in it dropped). */
void md_code(FILE *out, const char *s);

/* "s" after a count other than 1 ("1 thread", "2 threads"), else "". */
const char *format_plural(long n);

/*
 * A word as a POSIX shell reads it back: as it is when it holds only safe
 * characters, else in single quotes, or in $'...' when it holds a control
 * byte (a newline would end a code block or a command line). The one
 * quoting of the command a run recorded and of the report's reproduce
 * lines.
 */
void format_shell_word(FILE *out, const char *s);

#endif
