/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The lessons' claims (kernels/kernel.h, struct kernel_claim) checked
 * against the results: each is seen, not seen (with the numbers), or not
 * testable here (with the reason). One evaluation per family and results
 * file; the summary and the claims section print them, the claims that
 * were not seen first.
 */
#ifndef BOUNCELAB_CLAIMS_H
#define BOUNCELAB_CLAIMS_H

#include <stddef.h>

#include "analysis.h"
#include "kernel.h"
#include "results_read.h"

enum claim_mark { CLAIM_SEEN, CLAIM_NOT_SEEN, CLAIM_NOT_TESTABLE };

/*
 * A claim at 2+ threads checked again on the rounds of one of the host's
 * modes (host_modes.h), when the run has several: its mechanism is a line
 * transfer, whose cost the mode sets.
 */
struct claim_in_mode {
	const struct host_mode *mode;
	enum claim_mark mark;
	struct stats_ratio ratio;	/* as the claim's, on the mode's rounds */
	double p;
	size_t rounds;			/* the rounds a has in the mode */
};

struct claim_result {
	const struct family_view *family;
	const struct kernel_claim *claim;
	enum claim_mark mark;
	long threads;			/* the thread count checked, or 0 */
	const char *distance;		/* widest distance class of a's case, or NULL */
	double a_median, b_median;	/* of the metric */
	struct stats_ratio ratio;	/* a over b; for CLAIM_BELOW a's median and CI */
	double p;			/* U test of a vs b, NaN for CLAIM_BELOW */
	char why[512];			/* not testable: the reason */
	size_t nr_modes;		/* 0: one mode, or no rounds */
	struct claim_in_mode modes[HOST_MODES_MAX];
};

struct claim_report {
	size_t nr;
	struct claim_result *results;	/* family order, then the family's claim order */
	size_t nr_seen, nr_not_seen, nr_not_testable;
};

/* Evaluates every claim of every family in the analysis. Returns 0 or -1 (memory). */
int claims_evaluate(const struct results *set, const struct analysis *a,
		    struct claim_report *out);
void claims_free(struct claim_report *r);

/* Checks one claim against one family's results (any claim: the tests use their own). */
void claim_check(const struct results *set, const struct analysis *a,
		 const struct family_view *f, const struct kernel_claim *c,
		 struct claim_result *r);

/* "seen", "NOT SEEN", "not testable here" */
const char *claim_mark_word(enum claim_mark mark);

/* The condition in words: "update=locked, 2+ threads on distinct cores, x86 only" */
void claim_condition(char *buf, size_t len, const struct kernel_claim *c);

/* The expectation in numbers: "same_line / padded_128 ≥ 3x (ns/op)" */
void claim_expectation(char *buf, size_t len, const struct kernel_claim *c);

/*
 * What was measured: "4.95x (95% CI 4.6–5.3), p < 0.001, at 2 threads
 * (l3)", or the reason it could not be tested; then, when the run had
 * several host modes, the mark in each.
 */
void claim_numbers(char *buf, size_t len, const struct claim_result *r);

/* A claim's repetitions (or paired rounds) needed to test it. */
#define CLAIM_MIN_REPETITIONS STATS_MIN_PAIRS

#endif
