/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * splitmix64 (Steele, Lea and Flood, "Fast splittable pseudorandom number
 * generators", OOPSLA 2014; the constants of Vigna's public-domain
 * reference), the one generator bouncelab uses: the statistics' resampling
 * draws, has_pinned's shuffled pattern of calls, longterm_check's CMA
 * layout and page hashes. Header-only, so that the kernels, which link
 * nothing of lib/, share it too. tests/test_stats_draws.c checks its
 * published outputs.
 */
#ifndef BOUNCELAB_SPLITMIX64_H
#define BOUNCELAB_SPLITMIX64_H

#include <stdint.h>

/* The golden-ratio increment the state advances by. */
#define SPLITMIX64_GAMMA 0x9e3779b97f4a7c15ULL

/* The output function: a well-mixed 64-bit hash of z. */
static inline uint64_t splitmix64_finalize(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* The next number of the sequence that *state seeds; advances *state. */
static inline uint64_t splitmix64_next(uint64_t *state)
{
	return splitmix64_finalize(*state += SPLITMIX64_GAMMA);
}

#endif
