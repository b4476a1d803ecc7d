/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * report --text: the brief as plain text for a mailing list. Prose
 * wrapped at 72 columns, tables aligned in fixed width (at most 80
 * columns, or one record per row where they would not fit), no markdown
 * syntax, and links only as bare URLs.
 */
#ifndef BOUNCELAB_PLAIN_TEXT_H
#define BOUNCELAB_PLAIN_TEXT_H

#include <stddef.h>

/* The file report --text writes. */
#define TEXT_NAME "report.txt"

/* Where prose wraps, and the widest line an aligned table may have. */
#define TEXT_PROSE_COLUMNS 72
#define TEXT_TABLE_COLUMNS 80

/*
 * The markdown the report writes (md_escape(), md_code(), its tables,
 * headings, quotes, lists, links and images) as plain text; malloc'd, or
 * NULL without memory.
 */
char *plain_text_from_markdown(const char *md, size_t *len);

#endif
