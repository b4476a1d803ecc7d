/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The figures the seed threads published (shared/seeds/), which the
 * report sets beside ours. Each is tied to the family and the pair of
 * variants that model the patch it measured.
 */
#ifndef BOUNCELAB_SEEDS_H
#define BOUNCELAB_SEEDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct setting;
struct seed_figure;



/*
 * The mailing-list threads the lab grew out of, cited by title, archive
 * link and the mainline commits they became: a reader has no seeds/
 * folder, so "seeds/000" in a source text is written as its citation.
 */
struct seed_thread {
	const char *id;		/* "000": as a source text names it */
	const char *title;
	const char *who;	/* authors, date */
	const char *link;	/* the mailing-list archive */
	const char *commits;	/* mainline commits, or why none */
};

extern const struct seed_thread seed_threads[];
extern const unsigned int nr_seed_threads;

/*
 * Writes a source text ("seeds/000 and 003: 292648ac5cf1 ...") as markdown
 * with each seed named by its thread's title and archive link instead.
 */
void md_source(FILE *out, const char *source);

/*
 * The seed's setting as the catalogue reads it (its family's, only the
 * parameters the seed names named); false if the catalogue does not take
 * it, which the tests rule out for the shipped table.
 */
bool seed_setting(const struct seed_figure *s, struct setting *out);

/*
 * Whether a setting of the seed's family gives each parameter the seed
 * names the seed's value (the others are free).
 */
bool seed_setting_in(const struct seed_figure *s, const struct setting *have);

/* The seed's setting as the report names it: "pages_per_call=1, page_size=2m". */
void seed_setting_text(char *buf, size_t len, const struct seed_figure *s);

/* How many times better "after" is: 5.36 for 477729.97 -> 89144.65 us. */
double seed_gain(const struct seed_figure *s);

/* The seed's ns per page per thread, before (after false) or after; NAN: not per page. */
double seed_ns_per_page(const struct seed_figure *s, bool after);

/* "gup_test -a -m 512 -j 40 (mean get time): 477730 → 89144.6 us", as published. */
void seed_figure_text(char *buf, size_t len, const struct seed_figure *s);

/*
 * The value of one parameter the seed's setting names ("mode" -> "shared"),
 * written into buf, or NULL.
 */
const char *seed_setting_value(const struct seed_figure *s, const char *name,
			       char *buf, size_t len);

#endif
