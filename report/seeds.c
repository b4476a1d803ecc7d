// SPDX-License-Identifier: GPL-2.0-only
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog.h"
#include "format.h"
#include "seeds.h"
#include "setting.h"

/* Message-IDs and commits as the threads and kernel.org quote them. */
const struct seed_thread seed_threads[] = {
	{ "000", "[PATCH 0/3] mm/gup: Fix pin page write cache bouncing on has_pinned",
	  "Peter Xu, Andrea Arcangeli, May 2021",
	  "https://lore.kernel.org/r/20210506232537.165788-1-peterx@redhat.com",
	  "292648ac5cf1, a458b76a4171 (Linux 5.14)" },
	{ "002", "[PATCHv3 1/2] mm/gup: fix omission of check on FOLL_LONGTERM in get_user_pages_fast()",
	  "Pingfan Liu, John Hubbard, Andrew Morton, June 2019",
	  "https://lore.kernel.org/r/20190611122935.GA9919@dhcp-128-55.nay.redhat.com",
	  "df3a0a21b698 (Linux 5.7, from the thread's v8)" },
	{ "003", "[PATCH v2 2/3] mm: gup: allow FOLL_PIN to scale in SMP",
	  "Andrea Arcangeli, posted by Peter Xu, May 2021",
	  "https://lore.kernel.org/r/20210507150553.208763-3-peterx@redhat.com",
	  "292648ac5cf1 (Linux 5.14)" },
	{ "004", "[PATCH 0/2] Simple concepts extracted from tip/numa/core",
	  "Srikar Dronamraju, Mel Gorman, May 2013",
	  "https://lore.kernel.org/all/?q=s%3A%22Simple+concepts+extracted+from+tip%2Fnuma%2Fcore%22",
	  "not merged as posted (an archive search: the thread's Message-ID is not recorded here)" },
};
const unsigned int nr_seed_threads = sizeof(seed_threads) / sizeof(seed_threads[0]);

static const struct seed_thread *find_thread(const char *id, size_t len)
{
	for (unsigned int i = 0; i < nr_seed_threads; i++)
		if (strlen(seed_threads[i].id) == len && !strncmp(seed_threads[i].id, id, len))
			return &seed_threads[i];
	return NULL;
}

/* "[title](link)" of the thread whose id starts p, or false. */
static bool write_thread_link(FILE *out, const char *p, size_t *used)
{
	size_t n = strspn(p, "0123456789");
	const struct seed_thread *t = n ? find_thread(p, n) : NULL;

	if (!t)
		return false;
	fputc('[', out);
	md_escape(out, t->title);
	fprintf(out, "](%s)", t->link);
	*used = n;
	return true;
}

/*
 * "seeds/000 and 003: ..." becomes "[title](link) and [title](link): ...":
 * each seed named where the text names it, by its thread and archive link.
 */
void md_source(FILE *out, const char *source)
{
	for (const char *p = source ? source : ""; *p;) {
		const char *next = strstr(p + 1, "seeds/");
		size_t used;

		if (!strncmp(p, "seeds/", 6) && write_thread_link(out, p + 6, &used)) {
			p += 6 + used;
			/* "and 003", ", 004": further ids of the same mention */
			for (;;) {
				size_t sep = !strncmp(p, " and ", 5) ? 5 : !strncmp(p, ", ", 2) ? 2 : 0;

				if (!sep || !find_thread(p + sep, strspn(p + sep, "0123456789")))
					break;
				fprintf(out, "%.*s", (int)sep, p);
				write_thread_link(out, p + sep, &used);
				p += sep + used;
			}
			continue;
		}
		/* The text up to the next mention, escaped as a whole. */
		{
			size_t n = next ? (size_t)(next - p) : strlen(p);
			char *run = strndup(p, n);

			md_escape(out, run ? run : "");
			free(run);
			p += n;
		}
	}
}


bool seed_setting(const struct seed_figure *s, struct setting *out)
{
	char err[160];

	setting_init(out, s->family);
	for (const char *const *w = s->setting; w && *w; w++) {
		char name[64];
		const char *eq = strchr(*w, '=');

		snprintf(name, sizeof(name), "%.*s", eq ? (int)(eq - *w) : 0, *w);
		if (!eq || setting_set(out, name, eq + 1, err, sizeof(err)))
			return false;
	}
	return out->family != NULL;
}

bool seed_setting_in(const struct seed_figure *s, const struct setting *have)
{
	struct setting want;

	return seed_setting(s, &want) && setting_matches(&want, have);
}

void seed_setting_text(char *buf, size_t len, const struct seed_figure *s)
{
	size_t used = 0;

	buf[0] = '\0';
	for (const char *const *w = s->setting; w && *w && used < len; w++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? ", " : "", *w);
	if (!buf[0])
		snprintf(buf, len, "defaults");
}

double seed_gain(const struct seed_figure *s)
{
	return s->higher_is_better ? s->after / s->before : s->before / s->after;
}

double seed_ns_per_page(const struct seed_figure *s, bool after)
{
	double v = after ? s->after : s->before;

	if (!(s->pages_per_unit > 0) || !(v > 0))
		return NAN;
	if (s->higher_is_better && !strcmp(s->unit, "ops/s"))
		return s->threads * 1e9 / (v * s->pages_per_unit);
	if (!s->higher_is_better && !strcmp(s->unit, "us"))
		return v * 1e3 / s->pages_per_unit;
	return NAN;
}

/* A published number as printed: 477729.97, 1194790. */
static int published_number(char *buf, size_t len, double v)
{
	return snprintf(buf, len, v == floor(v) ? "%.0f" : "%.2f", v);
}

void seed_figure_text(char *buf, size_t len, const struct seed_figure *s)
{
	char before[32], after[32];

	published_number(before, sizeof(before), s->before);
	published_number(after, sizeof(after), s->after);
	snprintf(buf, len, "%s, %u threads: %s → %s %s", s->benchmark, s->threads, before,
		 after, s->unit);
}

const char *seed_setting_value(const struct seed_figure *s, const char *name,
			       char *buf, size_t len)
{
	struct setting set;
	int p;

	if (!seed_setting(s, &set) || (p = kernel_param_index(set.family, name)) < 0 ||
	    !(set.named & (1u << p)))
		return NULL;
	return setting_value_text(&set, (unsigned int)p, buf, len);
}
