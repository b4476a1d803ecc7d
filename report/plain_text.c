// SPDX-License-Identifier: GPL-2.0-only
/*
 * Markdown to plain text, for the markdown this report writes: headings,
 * paragraphs, quotes, lists, code fences, pipe tables, and inline code,
 * emphasis, backslash escapes, links and images. Not a general markdown
 * reader: the input is ours, and md_escape() leaves every other
 * character as it reads.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plain_text.h"

/* Columns a UTF-8 string takes: one per character (the report's × – σ). */
static size_t columns(const char *s, size_t len)
{
	size_t n = 0;

	for (size_t i = 0; i < len; i++)
		n += ((unsigned char)s[i] & 0xc0) != 0x80;
	return n;
}

static bool md_punct(char c)
{
	return c && strchr("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~", c);
}

/* The "]" closing the "[" at s[0], escapes and nesting skipped; or len. */
static size_t closing_bracket(const char *s, size_t len)
{
	int depth = 0;

	for (size_t i = 0; i < len; i++) {
		if (s[i] == '\\' && i + 1 < len) {
			i++;
			continue;
		}
		depth += s[i] == '[';
		if (s[i] == ']' && !--depth)
			return i;
	}
	return len;
}

static void inline_text(FILE *out, const char *s, size_t len);

/*
 * "[text](target)" or "![alt](target)" at s (after the "!"): the text,
 * and the target only when it is a URL a mail reader can follow. Returns
 * the characters read, or 0 when s holds no link.
 */
static size_t link_text(FILE *out, const char *s, size_t len, bool image)
{
	size_t close = closing_bracket(s, len), end;
	bool url;

	if (close + 1 >= len || s[close + 1] != '(')
		return 0;
	end = close + 2 + strcspn(s + close + 2, ")");
	if (end >= len)
		return 0;
	url = !strncmp(s + close + 2, "https://", 8) || !strncmp(s + close + 2, "http://", 7);
	if (image)
		fputs("Figure: ", out);
	inline_text(out, s + 1, close - 1);
	/* A figure names its file: the reader of a mail finds it beside the report. */
	if (url || image)
		fprintf(out, " (%.*s)", (int)(end - close - 2), s + close + 2);
	return end + 1;
}

static void inline_text(FILE *out, const char *s, size_t len)
{
	for (size_t i = 0; i < len;) {
		size_t n;

		if (s[i] == '\\' && i + 1 < len && md_punct(s[i + 1])) {
			fputc(s[i + 1], out);
			i += 2;
		} else if (s[i] == '`') {
			n = strcspn(s + i + 1, "`");
			if (i + 1 + n > len)
				n = len - i - 1;
			fwrite(s + i + 1, 1, n, out);
			i += n + 2;
		} else if (s[i] == '*') {
			i++;	/* emphasis: a literal asterisk is escaped */
		} else if (s[i] == '!' && i + 1 < len && s[i + 1] == '[' &&
			   (n = link_text(out, s + i + 1, len - i - 1, true))) {
			i += n + 1;
		} else if (s[i] == '[' && (n = link_text(out, s + i, len - i, false))) {
			i += n;
		} else {
			fputc(s[i++], out);
		}
	}
}

/* s as plain text in a malloc'd string, or NULL without memory. */
static char *plain(const char *s, size_t len)
{
	char *buf = NULL;
	size_t size = 0;
	FILE *mem = open_memstream(&buf, &size);

	if (!mem)
		return NULL;
	inline_text(mem, s, len);
	if (fclose(mem)) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* text wrapped at width: the first line after first, the others after rest. */
static void wrap(FILE *out, const char *text, const char *first, const char *rest,
		 size_t width)
{
	const char *indent = first;
	size_t used = 0;

	for (const char *p = text; *p;) {
		size_t n, w;

		while (*p == ' ')
			p++;
		if (!*p)
			break;
		n = strcspn(p, " ");
		w = columns(p, n);
		if (used && used + 1 + w > width) {
			fputc('\n', out);
			used = 0;
		}
		if (!used) {
			fputs(indent, out);
			used = strlen(indent);
			indent = rest;
		} else {
			fputc(' ', out);
			used++;
		}
		fwrite(p, 1, n, out);
		used += w;
		p += n;
	}
	if (used)
		fputc('\n', out);
}

static void wrap_markdown(FILE *out, const char *s, size_t len, const char *first,
			  const char *rest)
{
	char *text = plain(s, len);

	if (text)
		wrap(out, text, first, rest, TEXT_PROSE_COLUMNS);
	free(text);
}

/* ---- tables ---- */

struct table {
	char **cells;		/* nr_rows x nr_cols, plain text */
	size_t nr_rows, nr_cols;
	bool *right;		/* per column: aligned right (a "---:" rule) */
};

/* The cells of one row, split at pipes md_escape() did not escape. */
static size_t split_row(const char *line, size_t len, const char **start, size_t *clen,
			size_t max)
{
	size_t nr = 0, from = 1;

	for (size_t i = 1; i < len; i++) {
		if (line[i] == '\\') {
			i++;
			continue;
		}
		if (line[i] != '|')
			continue;
		if (nr < max) {
			size_t a = from, b = i;

			while (a < b && line[a] == ' ')
				a++;
			while (b > a && line[b - 1] == ' ')
				b--;
			start[nr] = line + a;
			clen[nr] = b - a;
		}
		nr++;
		from = i + 1;
	}
	return nr;
}

static bool rule_row(const char *line, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (!strchr("|-: ", line[i]))
			return false;
	return true;
}

#define TABLE_MAX_COLS 32

/* The table whose lines are lines[0..nr): 0, or -1 without memory. */
static int table_read(struct table *t, const char *const *lines, const size_t *lens, size_t nr)
{
	const char *start[TABLE_MAX_COLS];
	size_t clen[TABLE_MAX_COLS];

	t->nr_cols = split_row(lines[0], lens[0], start, clen, TABLE_MAX_COLS);
	if (t->nr_cols > TABLE_MAX_COLS)
		t->nr_cols = TABLE_MAX_COLS;
	t->cells = calloc(nr * t->nr_cols + 1, sizeof(*t->cells));
	t->right = calloc(t->nr_cols + 1, sizeof(*t->right));
	if (!t->cells || !t->right)
		return -1;
	t->nr_rows = 0;
	for (size_t r = 0; r < nr; r++) {
		size_t got;

		if (r == 1 && rule_row(lines[r], lens[r])) {
			got = split_row(lines[r], lens[r], start, clen, TABLE_MAX_COLS);
			for (size_t c = 0; c < t->nr_cols && c < got; c++)
				t->right[c] = clen[c] && start[c][clen[c] - 1] == ':';
			continue;
		}
		got = split_row(lines[r], lens[r], start, clen, TABLE_MAX_COLS);
		for (size_t c = 0; c < t->nr_cols; c++) {
			char **cell = &t->cells[t->nr_rows * t->nr_cols + c];

			*cell = c < got ? plain(start[c], clen[c]) : strdup("");
			if (!*cell)
				return -1;
		}
		t->nr_rows++;
	}
	return 0;
}

static void table_free(struct table *t)
{
	for (size_t i = 0; t->cells && i < t->nr_rows * t->nr_cols; i++)
		free(t->cells[i]);
	free(t->cells);
	free(t->right);
}

static const char *cell(const struct table *t, size_t r, size_t c)
{
	return t->cells[r * t->nr_cols + c];
}

/* Aligned in columns, two spaces apart, a rule of dashes under the header. */
static void table_aligned(FILE *out, const struct table *t, const size_t *width)
{
	for (size_t r = 0; r < t->nr_rows; r++) {
		char *line = NULL;
		size_t size = 0, n;
		FILE *mem = open_memstream(&line, &size);

		if (!mem)
			return;
		for (size_t c = 0; c < t->nr_cols; c++) {
			const char *s = cell(t, r, c);
			size_t pad = width[c] - columns(s, strlen(s));

			fputs(c ? "  " : "", mem);
			if (t->right[c])
				fprintf(mem, "%*s%s", (int)pad, "", s);
			else
				fprintf(mem, "%s%*s", s, (int)pad, "");
		}
		if (fclose(mem)) {
			free(line);
			return;
		}
		for (n = strlen(line); n && line[n - 1] == ' '; n--)
			;
		fprintf(out, "%.*s\n", (int)n, line);
		free(line);
		for (size_t c = 0; !r && c < t->nr_cols; c++)
			fprintf(out, "%s%.*s%s", c ? "  " : "", (int)width[c],
				"--------------------------------------------------------------------------------",
				c + 1 < t->nr_cols ? "" : "\n");
	}
}

/* Too wide to align: each row a record, "header: value" wrapped. */
static void table_records(FILE *out, const struct table *t)
{
	for (size_t r = 1; r < t->nr_rows; r++) {
		for (size_t c = 0; c < t->nr_cols; c++) {
			const char *h = cell(t, 0, c), *s = cell(t, r, c);
			char *line = NULL;
			size_t size = 0;
			FILE *mem;

			if (!*s)
				continue;
			mem = open_memstream(&line, &size);
			if (!mem)
				return;
			fprintf(mem, "%s%s%s", h, *h ? ": " : "", s);
			if (fclose(mem)) {
				free(line);
				return;
			}
			wrap(out, line, c ? "  " : "", c ? "      " : "    ", TEXT_PROSE_COLUMNS);
			free(line);
		}
		if (r + 1 < t->nr_rows)
			fputc('\n', out);
	}
}

static int write_table(FILE *out, const char *const *lines, const size_t *lens, size_t nr)
{
	struct table t = { 0 };
	size_t *width, total = 0;
	int ret = -1;

	if (table_read(&t, lines, lens, nr))
		goto out;
	width = calloc(t.nr_cols + 1, sizeof(*width));
	if (!width)
		goto out;
	for (size_t c = 0; c < t.nr_cols; c++) {
		for (size_t r = 0; r < t.nr_rows; r++) {
			size_t w = columns(cell(&t, r, c), strlen(cell(&t, r, c)));

			if (w > width[c])
				width[c] = w;
		}
		total += width[c] + (c ? 2 : 0);
	}
	if (total <= TEXT_TABLE_COLUMNS)
		table_aligned(out, &t, width);
	else
		table_records(out, &t);
	free(width);
	ret = 0;
out:
	table_free(&t);
	return ret;
}

/* ---- blocks ---- */

struct lines {
	const char **line;
	size_t *len;
	size_t nr;
};

static int split_lines(const char *md, struct lines *l)
{
	size_t cap = 1;

	for (const char *p = md; *p; p++)
		cap += *p == '\n';
	l->line = calloc(cap, sizeof(*l->line));
	l->len = calloc(cap, sizeof(*l->len));
	if (!l->line || !l->len)
		return -1;
	l->nr = 0;
	for (const char *p = md; *p;) {
		size_t n = strcspn(p, "\n");

		l->line[l->nr] = p;
		l->len[l->nr++] = n;
		p += n + (p[n] == '\n');
	}
	return 0;
}

static bool starts(const char *line, size_t len, const char *prefix)
{
	size_t n = strlen(prefix);

	return len >= n && !strncmp(line, prefix, n);
}

/* A line that begins a block of its own, ending a paragraph before it. */
static bool block_start(const char *line, size_t len)
{
	return !len || line[0] == '#' || line[0] == '|' || line[0] == '>' ||
	       starts(line, len, "- ") || starts(line, len, "```");
}

/* The lines from i to the end of the block, joined by spaces (prefix cut). */
static char *joined(const struct lines *l, size_t *i, size_t cut, bool (*more)(const char *, size_t),
		    size_t *len)
{
	char *buf = NULL;
	FILE *mem = open_memstream(&buf, len);

	if (!mem)
		return NULL;
	do {
		size_t c = cut < l->len[*i] ? cut : l->len[*i];

		fprintf(mem, "%s%.*s", ftell(mem) ? " " : "", (int)(l->len[*i] - c), l->line[*i] + c);
		(*i)++;
	} while (*i < l->nr && more(l->line[*i], l->len[*i]));
	if (fclose(mem)) {
		free(buf);
		return NULL;
	}
	return buf;
}

static bool paragraph_goes_on(const char *line, size_t len)
{
	return !block_start(line, len);
}

static bool quote_goes_on(const char *line, size_t len)
{
	return len && line[0] == '>';
}

static bool item_goes_on(const char *line, size_t len)
{
	return len && line[0] == ' ';
}

static int write_heading(FILE *out, const char *line, size_t len)
{
	size_t level = strspn(line, "#"), longest = 0;
	char *text = plain(line + level + (level < len), len - level - (level < len));
	char *buf = NULL;
	size_t size = 0;
	FILE *mem;

	if (!text)
		return -1;
	mem = open_memstream(&buf, &size);
	if (!mem) {
		free(text);
		return -1;
	}
	wrap(mem, text, "", "", TEXT_PROSE_COLUMNS);
	free(text);
	if (fclose(mem)) {
		free(buf);
		return -1;
	}
	fputs(buf, out);
	for (const char *p = buf; *p; p += strcspn(p, "\n") + 1) {
		size_t w = columns(p, strcspn(p, "\n"));

		longest = w > longest ? w : longest;
	}
	free(buf);
	/* The title and the sections underlined, as a mail's headings are. */
	if (level <= 2)
		fprintf(out, "%.*s\n", (int)longest, level == 1 ?
			"========================================================================" :
			"------------------------------------------------------------------------");
	return 0;
}

static int write_blocks(FILE *out, const struct lines *l)
{
	bool first = true;

	for (size_t i = 0; i < l->nr;) {
		const char *line = l->line[i];
		size_t len = l->len[i], n;
		char *text;

		if (!len) {
			i++;
			continue;
		}
		if (!first)
			fputc('\n', out);
		first = false;
		if (line[0] == '#') {
			if (write_heading(out, line, len))
				return -1;
			i++;
		} else if (line[0] == '|') {
			size_t from = i;

			while (i < l->nr && l->len[i] && l->line[i][0] == '|')
				i++;
			if (write_table(out, l->line + from, l->len + from, i - from))
				return -1;
		} else if (starts(line, len, "```")) {
			/* Code as it is, indented: a mail reader keeps it apart. */
			for (i++; i < l->nr && !starts(l->line[i], l->len[i], "```"); i++)
				fprintf(out, "    %.*s\n", (int)l->len[i], l->line[i]);
			i++;
		} else if (line[0] == '>') {
			if (!(text = joined(l, &i, 2, quote_goes_on, &n)))
				return -1;
			wrap_markdown(out, text, n, "  ", "  ");
			free(text);
		} else if (starts(line, len, "- ")) {
			/* Items one after the other, no blank line between them. */
			for (first = true; i < l->nr && starts(l->line[i], l->len[i], "- "); first = false) {
				if (!(text = joined(l, &i, 2, item_goes_on, &n)))
					return -1;
				wrap_markdown(out, text, n, "- ", "  ");
				free(text);
			}
			first = false;
		} else {
			if (!(text = joined(l, &i, 0, paragraph_goes_on, &n)))
				return -1;
			wrap_markdown(out, text, n, "", "");
			free(text);
		}
	}
	return 0;
}

char *plain_text_from_markdown(const char *md, size_t *len)
{
	struct lines l = { 0 };
	char *buf = NULL;
	FILE *out = open_memstream(&buf, len);
	int ret;

	if (!out)
		return NULL;
	ret = split_lines(md, &l);
	if (!ret)
		ret = write_blocks(out, &l);
	free(l.line);
	free(l.len);
	if (fclose(out) || ret) {
		free(buf);
		return NULL;
	}
	return buf;
}
