// SPDX-License-Identifier: GPL-2.0-only
/*
 * A claim in words and numbers: its mark ("seen", "NOT SEEN", "not
 * testable here"), its condition, its expectation and what the run
 * measured, each the way the summary, the claims section and `bouncelab
 * lesson` print it. Also what a claim's sides are (one variant or two, b's
 * metric, b in another family), which the check in claims.c reads too
 * (claims_internal.h). The check itself, and the numbers it judges, are
 * claims.c's.
 */
#include <stdio.h>
#include <string.h>

#include "claims.h"
#include "claims_internal.h"
#include "format.h"

const char *claim_mark_word(enum claim_mark mark)
{
	switch (mark) {
	case CLAIM_SEEN:
		return "seen";
	case CLAIM_NOT_SEEN:
		return "NOT SEEN";
	default:
		return "not testable here";
	}
}

/* BELOW and ABOVE check one variant's metric; the others compare two. */
bool single_variant(const struct kernel_claim *c)
{
	return c->relation == CLAIM_BELOW || c->relation == CLAIM_ABOVE;
}

static const char *metric_name(const struct kernel_claim *c)
{
	return c->metric ? c->metric : CLAIM_NS_PER_OP;
}

/* b's metric as a counter name, NULL for ns per op */
const char *b_metric(const struct kernel_claim *c)
{
	if (!c->b_metric)
		return c->metric;
	return strcmp(c->b_metric, CLAIM_NS_PER_OP) ? c->b_metric : NULL;
}

const char *b_metric_name(const struct kernel_claim *c)
{
	return b_metric(c) ? b_metric(c) : CLAIM_NS_PER_OP;
}

/* b is a case of another family of the run: "pingpong/store_load" */
const char *b_elsewhere(const struct kernel_claim *c)
{
	return c->b ? strchr(c->b, '/') : NULL;
}

/* Whether b differs from "variant b of the family, same metric and threads". */
static bool b_is_reference(const struct kernel_claim *c)
{
	return b_elsewhere(c) || c->b_metric || c->b_threads != CLAIM_B_SAME_THREADS;
}

void claim_condition(char *buf, size_t len, const struct kernel_claim *c)
{
	snprintf(buf, len, "%s, %s%s", c->setting ? c->setting : "defaults",
		 c->threads == CLAIM_ONE_THREAD ? "1 thread" :
						  "most threads (2+ on distinct cores)",
		 c->arch == CLAIM_X86 ? ", x86 only" : "");
}

/* "same_line (ns/op) / pingpong/store_load (one_way_ns, 1 thread)" */
static void reference_sides(char *buf, size_t len, const struct kernel_claim *c)
{
	const char *where = c->b_threads == CLAIM_B_ONE_THREAD ? ", 1 thread" :
			    c->b_threads == CLAIM_B_MOST_THREADS ? ", its most threads" : "";

	snprintf(buf, len, "%s (%s) / %s (%s%s)", c->a, metric_name(c), c->b,
		 b_metric_name(c), where);
}

void claim_expectation(char *buf, size_t len, const struct kernel_claim *c)
{
	char x[FORMAT_LEN], sides[192];
	const char *op = c->relation == CLAIM_AT_LEAST ? "≥" : "≤";

	switch (c->relation) {
	case CLAIM_AT_LEAST:
	case CLAIM_AT_MOST:
		if (b_is_reference(c)) {
			reference_sides(sides, sizeof(sides), c);
			snprintf(buf, len, "%s %s %s", sides, op, format_ratio(x, c->x));
		} else {
			snprintf(buf, len, "%s / %s %s %s (%s)", c->a, c->b, op,
				 format_ratio(x, c->x), metric_name(c));
		}
		break;
	case CLAIM_WITHIN:
		snprintf(buf, len, "%s / %s within %s either way (%s)", c->a, c->b,
			 format_ratio(x, c->x), metric_name(c));
		break;
	case CLAIM_BELOW:
		snprintf(buf, len, "%s of %s < %s", metric_name(c), c->a, format_sig(x, c->x));
		break;
	default:
		snprintf(buf, len, "%s of %s > %s", metric_name(c), c->a, format_sig(x, c->x));
		break;
	}
}

/* "31–49 ns" or, for one round, "96.2 ns" */
static const char *mode_range(char *buf, size_t len, const struct host_mode *m)
{
	char lo[FORMAT_LEN], hi[FORMAT_LEN];

	format_sig(lo, m->lo);
	format_sig(hi, m->hi);
	if (m->lo == m->hi)
		snprintf(buf, len, "%s ns", lo);
	else
		snprintf(buf, len, "%s–%s ns", lo, hi);
	return buf;
}

/*
 * ". By host mode: 31–49 ns one way (7 rounds): seen, 5.1x; ..." when at
 * least one mode had the rounds to test the claim.
 */
static void mode_numbers(char *buf, size_t len, const struct claim_result *r)
{
	size_t used = strlen(buf), testable = 0;

	for (size_t i = 0; i < r->nr_modes; i++)
		testable += r->modes[i].mark != CLAIM_NOT_TESTABLE;
	for (size_t i = 0; testable && i < r->nr_modes && used < len; i++) {
		const struct claim_in_mode *m = &r->modes[i];
		char range[2 * FORMAT_LEN + 8], x[FORMAT_LEN], mark[2 * FORMAT_LEN];

		if (m->mark == CLAIM_NOT_TESTABLE && m->rounds >= CLAIM_MIN_REPETITIONS)
			snprintf(mark, sizeof(mark), "not testable (undecided, %s)",
				 single_variant(r->claim) ? format_sig(x, m->ratio.ratio) :
							    format_ratio(x, m->ratio.ratio));
		else if (m->mark == CLAIM_NOT_TESTABLE)
			snprintf(mark, sizeof(mark), "not testable (needs %d)",
				 CLAIM_MIN_REPETITIONS);
		else
			snprintf(mark, sizeof(mark), "%s, %s", claim_mark_word(m->mark),
				 single_variant(r->claim) ? format_sig(x, m->ratio.ratio) :
							    format_ratio(x, m->ratio.ratio));
		used += (size_t)snprintf(buf + used, len - used, "%s%s one way (%zu round%s): %s",
					 i ? "; " : ". By host mode: ", mode_range(range, sizeof(range), m->mode),
					 m->rounds, m->rounds == 1 ? "" : "s", mark);
	}
}

void claim_numbers(char *buf, size_t len, const struct claim_result *r)
{
	char ratio[FORMAT_LEN], p[FORMAT_LEN], a[FORMAT_LEN], b[FORMAT_LEN];
	char where[96], sides[3 * FORMAT_LEN + 96];
	double a_value = r->a_median, b_value = r->b_median;

	if (r->mark == CLAIM_NOT_TESTABLE) {
		snprintf(buf, len, "%s", r->why);
		return;
	}
	snprintf(where, sizeof(where), "at %ld thread%s%s%s%s", r->threads,
		 r->threads == 1 ? "" : "s", r->distance ? " (" : "",
		 r->distance ? r->distance : "", r->distance ? ")" : "");
	if (single_variant(r->claim)) {
		snprintf(buf, len, "%s (95%% CI %s–%s) %s", format_sig(a, r->ratio.ratio),
			 format_sig(ratio, r->ratio.lo), format_sig(p, r->ratio.hi), where);
		mode_numbers(buf, len, r);
		return;
	}
	/*
	 * A ratio paired by round is the median of the rounds' ratios: quote
	 * the median round's two values, which agree with it, not the two
	 * medians, which may point the other way.
	 */
	if (r->ratio.pairs) {
		a_value = r->ratio.median_num;
		b_value = r->ratio.median_den;
	}
	format_sig(a, a_value);
	format_sig(b, b_value);
	if (b_is_reference(r->claim))
		snprintf(sides, sizeof(sides), "%s %s %s vs %s %s %s", r->claim->a, a,
			 metric_name(r->claim), r->claim->b, b, b_metric_name(r->claim));
	else
		snprintf(sides, sizeof(sides), "%s vs %s %s", a, b, metric_name(r->claim));
	format_ratio_ci(ratio, &r->ratio);
	format_p(p, r->p);
	snprintf(buf, len, "%s%s: %s, p %s%s, %s", r->ratio.pairs ? "median round: " : "", sides,
		 ratio, p[0] == '<' ? "" : "= ", p, where);
	mode_numbers(buf, len, r);
}
