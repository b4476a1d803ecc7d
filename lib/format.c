// SPDX-License-Identifier: GPL-2.0-only
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"

static void sig_text(char *buf, size_t len, double v)
{
	double mag;
	int decimals;

	if (!isfinite(v)) {
		snprintf(buf, len, "n/a");
		return;
	}
	if (v == 0) {
		snprintf(buf, len, "0");
		return;
	}
	mag = floor(log10(fabs(v)));
	if (mag >= 15 || mag < -3) {
		snprintf(buf, len, "%.3g", v);
		return;
	}
	decimals = mag >= 2 ? 0 : 2 - (int)mag;
	snprintf(buf, len, "%.*f", decimals, v);
	/* Rounding can add a digit (9.995 -> "10.00"): drop one decimal. */
	if (decimals > 0 && fabs(strtod(buf, NULL)) >= pow(10, mag + 1))
		snprintf(buf, len, "%.*f", decimals - 1, v);
}

const char *format_sig(char *buf, double v)
{
	sig_text(buf, FORMAT_LEN, v);
	return buf;
}

/* A ratio with the precision its size deserves; suffix "x" or "". */
static void ratio_text(char *buf, size_t len, double v, const char *suffix)
{
	if (!isfinite(v))
		snprintf(buf, len, "n/a");
	else if (v < 0.095)
		snprintf(buf, len, "%.2g%s", v, suffix);
	else if (v < 9.995)
		snprintf(buf, len, "%.2f%s", v, suffix);
	else if (v < 99.95)
		snprintf(buf, len, "%.1f%s", v, suffix);
	else if (v < 1e15)
		snprintf(buf, len, "%.0f%s", v, suffix);
	else
		snprintf(buf, len, "%.3g%s", v, suffix);
}

const char *format_ratio(char *buf, double v)
{
	ratio_text(buf, FORMAT_LEN, v, "x");
	return buf;
}

const char *format_ratio_ci(char *buf, const struct stats_ratio *r)
{
	char ratio[32], lo[32], hi[32];

	ratio_text(ratio, sizeof(ratio), r->ratio, "x");
	/*
	 * No interval: a side had one repetition, or resampling met a zero
	 * (a counter that read 0), where a ratio has no bound.
	 */
	if (!isfinite(r->lo) || !isfinite(r->hi)) {
		snprintf(buf, FORMAT_LEN, "%s (no CI: %s)", ratio,
			 r->one_repetition ? "1 repetition" : "a zero value");
		return buf;
	}
	ratio_text(lo, sizeof(lo), r->lo, "");
	ratio_text(hi, sizeof(hi), r->hi, "");
	snprintf(buf, FORMAT_LEN, "%s (95%% CI %s–%s%s)", ratio, lo, hi,
		 r->pairs ? ", paired by round" : "");
	return buf;
}

const char *format_median_ci(char *buf, const struct stats_summary *s,
			     double scale)
{
	char m[32], lo[32], hi[32];

	sig_text(m, sizeof(m), s->median * scale);
	if (s->n < 2) {
		snprintf(buf, FORMAT_LEN, "%s", m);
		return buf;
	}
	sig_text(lo, sizeof(lo), s->ci_lo * scale);
	sig_text(hi, sizeof(hi), s->ci_hi * scale);
	snprintf(buf, FORMAT_LEN, "%s (%s–%s)", m, lo, hi);
	return buf;
}

const char *format_p(char *buf, double p)
{
	if (!isfinite(p))
		snprintf(buf, FORMAT_LEN, "n/a");
	else if (p < 0.001)
		snprintf(buf, FORMAT_LEN, "< 0.001");
	else if (p < 0.0095)
		snprintf(buf, FORMAT_LEN, "%.3f", p);
	else
		snprintf(buf, FORMAT_LEN, "%.2f", p);
	return buf;
}

const char *format_percent(char *buf, double fraction)
{
	if (!isfinite(fraction))
		snprintf(buf, FORMAT_LEN, "n/a");
	else
		snprintf(buf, FORMAT_LEN, "%.1f%%", fraction * 100);
	return buf;
}

bool ascii_alnum(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9');
}

/*
 * Would "&..." read as a character reference ("&amp;", "&#62;")? Only
 * then does an ampersand need its backslash: "&mm->flags" is plain text.
 */
static bool starts_reference(const char *s)
{
	size_t n = 1;

	if (s[n] == '#') {
		n++;
		if (s[n] == 'x' || s[n] == 'X')
			n++;
	}
	if (!ascii_alnum(s[n]))
		return false;
	while (ascii_alnum(s[n]))
		n++;
	return s[n] == ';';
}

void md_escape(FILE *out, const char *s)
{
	const char *start = s;
	char prev = ' ';

	for (; s && *s; prev = *s, s++) {
		switch (*s) {
		case '_':
			/* Intraword underscores are never emphasis: has_pinned. */
			if (ascii_alnum(prev) && ascii_alnum(s[1])) {
				fputc('_', out);
				break;
			}
			/* fall through */
		case '|':
		case '`':
		case '*':
		case '[':
		case ']':
		case '\\':
			fputc('\\', out);
			fputc(*s, out);
			break;
		/*
		 * The character itself, as a reader of the raw text sees it:
		 * a backslash only where markdown would take it for a tag or
		 * an autolink (<), a quote at the start of a line (>), or a
		 * character reference (&amp;).
		 */
		case '<':
			fputs("\\<", out);
			break;
		case '>':
			fputs(s == start ? "\\>" : ">", out);
			break;
		case '&':
			fputs(starts_reference(s) ? "\\&" : "&", out);
			break;
		case '\n':
		case '\r':
		case '\t':
			fputc(' ', out);
			break;
		default:
			/* Any other control byte (ESC, BEL) is shown, never sent raw. */
			if ((unsigned char)*s < 0x20 || *s == 0x7f)
				fprintf(out, "\\x%02x", (unsigned char)*s);
			else
				fputc(*s, out);
		}
	}
}

void md_escape_short_paths(FILE *out, const char *s)
{
	char *text = strdup(s ? s : ""), *to = text;
	char prev = ' ';

	if (!text) {
		md_escape(out, s);
		return;
	}
	for (const char *from = s ? s : ""; *from; prev = *from, from++) {
		if (*from == '/' && strchr(" ('\"=", prev)) {
			size_t len = strcspn(from, " )'\",;");
			const char *last = from;

			for (size_t i = 0; i < len; i++)
				if (from[i] == '/' && i + 1 < len)
					last = from + i + 1;
			if (last != from) {
				from = last;
				prev = '/';
			}
		}
		*to++ = *from;
	}
	*to = '\0';
	md_escape(out, text);
	free(text);
}

void md_code(FILE *out, const char *s)
{
	fputc('`', out);
	for (; s && *s; s++) {
		if (*s == '`' || *s == '\n' || *s == '\r' || *s == '|')
			continue;
		/* a control byte (ESC, BEL) is shown as text, never sent raw */
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			fprintf(out, "\\x%02x", (unsigned char)*s);
		else
			fputc(*s, out);
	}
	fputc('`', out);
}

void md_name(FILE *out, const char *s)
{
	/* GitHub and pandoc leave intraword underscores alone. */
	if (s && *s && *s != '_' && s[strlen(s) - 1] != '_' &&
	    strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.:/=+-") == strlen(s))
		fputs(s, out);
	else
		md_escape(out, s);
}

const char *format_plural(long n)
{
	return n == 1 ? "" : "s";
}

void format_shell_word(FILE *out, const char *s)
{
	if (*s && strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-+=/.,:@%") == strlen(s)) {
		fputs(s, out);
		return;
	}
	/* A control byte (a newline could end the code block): $'...' form. */
	for (const char *p = s; *p; p++) {
		if ((unsigned char)*p >= 0x20 && *p != 0x7f)
			continue;
		fputs("$'", out);
		for (; *s; s++) {
			if ((unsigned char)*s < 0x20 || *s == 0x7f)
				fprintf(out, "\\x%02x", (unsigned char)*s);
			else if (*s == '\'' || *s == '\\')
				fprintf(out, "\\%c", *s);
			else
				fputc(*s, out);
		}
		fputc('\'', out);
		return;
	}
	fputc('\'', out);
	for (; *s; s++) {
		if (*s == '\'')
			fputs("'\\''", out);
		else
			fputc(*s, out);
	}
	fputc('\'', out);
}
