// SPDX-License-Identifier: GPL-2.0-only
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "lesson_text.h"

#define NAME_CHARS "abcdefghijklmnopqrstuvwxyz0123456789_"

/* Copies the name at s into out; returns its length, 0 if none or too long. */
static size_t name_at(const char *s, char *out)
{
	size_t n = strspn(s, NAME_CHARS);

	if (!n || n >= LESSON_NAME_MAX)
		return 0;
	memcpy(out, s, n);
	out[n] = '\0';
	return n;
}

int lesson_placeholder_parse(const char *text, struct lesson_placeholder *ph)
{
	const char *p = text;
	size_t n;
	char *end;

	memset(ph, 0, sizeof(*ph));
	if (!strncmp(p, "{ratio:", 7)) {
		ph->what = LESSON_RATIO;
		p += 7;
	} else if (!strncmp(p, "{ns:", 4)) {
		ph->what = LESSON_NS;
		p += 4;
	} else {
		return -1;
	}
	n = name_at(p, ph->a);
	if (!n)
		return -1;
	p += n;
	if (ph->what == LESSON_RATIO) {
		if (*p != '/' || !(n = name_at(p + 1, ph->b)))
			return -1;
		p += 1 + n;
	}
	if (*p != '@' || !p[1] || !strchr("123456789", p[1]))
		return -1;
	ph->threads = strtol(p + 1, &end, 10);
	p = end;
	if (*p == ':') {
		n = strspn(p + 1, NAME_CHARS "=,");
		if (!n || n >= sizeof(ph->setting))
			return -1;
		memcpy(ph->setting, p + 1, n);
		p += 1 + n;
	}
	if (*p != '}')
		return -1;
	ph->len = (size_t)(p + 1 - text);
	return 0;
}

/* The number a placeholder stands for, as the tables print it. */
static void write_measured(FILE *out, const struct lesson_placeholder *ph,
			   const struct analysis *a, const struct family_view *f)
{
	const struct group_view *g = analysis_find_setting(a, f, ph->setting);
	const struct case_view *va = g ? group_view_find(a, g, ph->a, ph->threads) : NULL;
	const struct case_view *vb = g && ph->what == LESSON_RATIO ?
				     group_view_find(a, g, ph->b, ph->threads) : NULL;
	char buf[FORMAT_LEN];
	struct stats_ratio r;
	double p;

	if (va && ph->what == LESSON_NS && isfinite(va->c->ns_stats.median)) {
		fprintf(out, "%s ns", format_sig(buf, va->c->ns_stats.median));
		return;
	}
	if (va && vb && !analysis_compare(va->c, va->c->ns, va->c->n, vb->c, vb->c->ns,
					  vb->c->n, &r, &p) && isfinite(r.ratio)) {
		fputs(format_ratio(buf, r.ratio), out);
		return;
	}
	fputs("n/a in this run", out);
}

/* text with each placeholder's number from a and f, or in words. */
static char *substitute(const char *text, bool in_words, const struct analysis *a,
			const struct family_view *f)
{
	struct lesson_placeholder ph;
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	if (!out)
		return NULL;
	for (const char *p = text ? text : ""; *p;) {
		size_t plain = strcspn(p + 1, "{") + 1;

		if (*p != '{' || lesson_placeholder_parse(p, &ph)) {
			fwrite(p, 1, plain, out);
			p += plain;
			continue;
		}
		if (in_words)
			fputs("(measured in your run)", out);
		else
			write_measured(out, &ph, a, f);
		p += ph.len;
	}
	if (fclose(out)) {
		free(buf);
		return NULL;
	}
	return buf;
}

char *lesson_in_words(const char *text)
{
	return substitute(text, true, NULL, NULL);
}

char *lesson_expand(const char *text, const struct analysis *a,
		    const struct family_view *f)
{
	return substitute(text, false, a, f);
}

void md_lesson(FILE *out, const char *text, const struct analysis *a,
	       const struct family_view *f)
{
	char *expanded = lesson_expand(text, a, f);

	/* without memory for the copy, the placeholders as written */
	md_escape(out, expanded ? expanded : text);
	free(expanded);
}
