/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The host's modes: on a VM the host moves the vCPUs between placements
 * during a run, and every line transfer of a round then costs what that
 * placement costs (one run of a 2-vCPU guest saw one-way transfers of 31,
 * 40-60 and 215-440 ns). Every round runs the pingpong, so its one-way
 * latency in a round is the covariate of every other case of that round.
 * Rounds whose one-way transfers lie within a factor of each other form
 * one mode; the report names the modes, gives the key figures per mode
 * and checks the claims whose mechanism is a transfer in each.
 */
#ifndef BOUNCELAB_HOST_MODES_H
#define BOUNCELAB_HOST_MODES_H

#include <stdbool.h>
#include <stddef.h>

#include "cases.h"

/*
 * Rounds whose one-way transfers differ by this factor or more are in
 * different modes. Published core-to-core tables put a transfer that
 * crosses a cache domain at 2 to 5 times one inside it (a Zen 3 CCX: about
 * 20 ns inside, 80 to 110 ns between CCXs; a two-socket Xeon: about 50 ns
 * in a socket, 110 to 130 ns between sockets), while one placement's
 * rounds stay within a factor of about 1.6 of each other on the guests
 * measured: a factor of 2 separates placements, not noise.
 */
#define HOST_MODE_FACTOR 2.0
#define HOST_MODES_MAX 4

struct host_mode {
	double lo, hi, median;	/* the one-way transfers of its rounds, ns */
	size_t nr_rounds;
	long *rounds;		/* ascending */
};

struct host_modes {
	/* the pingpong case the modes come from, or NULL: no modes known */
	const struct result_case *pingpong;
	size_t nr;
	struct host_mode modes[HOST_MODES_MAX];
};

/*
 * The modes of one file's rounds, from the pingpong's one-way transfer in
 * each (pingpong: a case with a one_way_ns counter of every repetition and
 * rounds, or NULL). With no pingpong, or too few rounds, nr is 0 or 1.
 * Returns 0, or -1 without memory.
 */
int host_modes_find(const struct result_case *pingpong, struct host_modes *out);
void host_modes_free(struct host_modes *m);

/* Whether a round belongs to a mode. */
bool host_mode_has(const struct host_mode *m, long round);

/*
 * values[i] of round rounds[i] kept when the round is in the mode, into
 * out_values and out_rounds (room for n). Returns how many were kept.
 */
size_t host_mode_filter(const struct host_mode *m, const double *values,
			const long *rounds, size_t n, double *out_values,
			long *out_rounds);

/*
 * The median over the mode's rounds of a's value over b's in the same
 * round (ns per op), or NaN when no round of the mode has both. A mode's
 * figure, given even for the few rounds that cannot test a claim.
 */
double host_mode_ratio(const struct host_mode *m, const struct result_case *a,
		       const struct result_case *b);

#endif
