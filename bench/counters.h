/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Counters per operation: hardware events through libpfm4 (HITM on Intel,
 * cache-to-cache fills on AMD, cycles, misses) and the kernel's software
 * events, each counted by perf_event_open in the thread that runs the
 * kernel.
 *
 * The life of a run:
 *   counters_init()          once in main, before any thread (libpfm4)
 *   counters_select()        the sets and raw events asked for (--counters,
 *                            --events); a bad name is a usage error
 *   counters_prepare()       encode every event and open it once in the
 *                            calling thread; what fails is n/a, with its
 *                            reason, reported once
 *   per benchmark thread:    counters_thread_open() before the batch loop,
 *                            _enable()/_disable() around the kernel's run,
 *                            _finish() publishes counts per op and closes
 *   counters_context()       what was asked, used, and why not, for results
 *
 * A counter that cannot be had never fails a run: it is "n/a (reason)".
 */
#ifndef BOUNCELAB_COUNTERS_H
#define BOUNCELAB_COUNTERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>
#include <linux/perf_event.h>

#define COUNTERS_MAX_EVENTS 32
#define COUNTERS_NAME_LEN 64
#define COUNTERS_EVENT_LEN 160
#define COUNTERS_REASON_LEN 192

/* "coherence,basic,sw": the sets --counters takes. */
#define COUNTERS_SET_NAMES "coherence, basic, sw (or none)"
#define COUNTERS_DEFAULT_SETS "coherence"

struct gbench_state;
struct counters_thread;

/* Initialises libpfm4. Call once, before any thread starts. */
void counters_init(void);

/*
 * Chooses what to count: sets is a comma-separated list of set names (or
 * "none"), events a comma-separated list of libpfm4 event strings (or
 * NULL). Returns 0, or -1 with err naming the bad value (a usage error:
 * an unknown set, or an event libpfm4 cannot encode, with its message).
 */
int counters_select(const char *sets, const char *events, char *err,
		    size_t errlen);

/*
 * Encodes and opens every chosen event once in the calling thread. Each
 * set or event that cannot be counted is reported once on `notes`
 * ("bouncelab: counters: ... n/a (reason)"); notes may be NULL.
 */
void counters_prepare(FILE *notes);

/* True if at least one event will be counted. */
bool counters_active(void);

/*
 * Opens the calling thread's event groups (pid 0, cpu -1: this thread on
 * any CPU), disabled. NULL when nothing is counted. Events whose open
 * fails here are dropped for every thread, reported once.
 */
struct counters_thread *counters_thread_open(void);
void counters_thread_enable(struct counters_thread *ct);
void counters_thread_disable(struct counters_thread *ct);
/*
 * Publishes counts per operation as benchmark counters when ops > 0 (the
 * thread ran), then closes the groups and frees ct.
 */
void counters_thread_finish(struct counters_thread *ct, struct gbench_state *st,
			    uint64_t ops);

/*
 * The count of one counter (by its stem, e.g. "page_faults") in this
 * thread so far, scaled if it was multiplexed. Returns 0, or -1 if the
 * counter is not open here.
 */
int counters_thread_read(struct counters_thread *ct, const char *name,
			 double *value);

/*
 * The "counters" object of the results context: sets asked for, events
 * used with their encodings, and an "na" map of counter -> "n/a (reason)".
 */
json_t *counters_context(void);

/* bouncelab list --events: each set, whether it works here, and why not. */
void counters_list(FILE *out);

/* --- The pieces below are exposed for the tests. --- */

struct counters_spec {
	char name[COUNTERS_NAME_LEN];		/* counter stem, e.g. hitm_local */
	char event[COUNTERS_EVENT_LEN];		/* libpfm4 string, PMU-qualified */
	const char *total;			/* the sum it adds to, or NULL */
};

/*
 * The coherence events for a libpfm4 core PMU model (e.g. "skx",
 * "amd64_fam19h_zen3"). Returns how many, 0 if the model has none; *label
 * is "HITM" or "cache-to-cache fills".
 */
unsigned int counters_coherence_events(const char *pmu,
				       struct counters_spec *specs,
				       unsigned int max, const char **label);

/*
 * The counter stem of an event (NAME in NAME_per_op) from libpfm4's full
 * spelling of it, so that any spelling of one event gets one name:
 * cycles:u, CYCLES:U and cpu-cycles:u are all perf_count_hw_cpu_cycles.
 * Returns 0, or -1 with why holding libpfm4's message.
 */
int counters_event_name(const char *event, char *name, size_t len, char *why,
			size_t whylen);

/*
 * Encodes an event as a run does: user space only (PFM_PLM3), or user
 * and kernel if kernel is set. Returns 0, or -1 with why holding
 * libpfm4's message.
 */
int counters_encode(const char *event, bool kernel,
		    struct perf_event_attr *attr, char *canonical,
		    size_t canonical_len, char *why, size_t whylen);

/*
 * Why perf_event_open failed with err, in words: "no hardware PMU",
 * "permission: ... kernel.perf_event_paranoid ...", and so on.
 */
void counters_reason(int err, bool hardware_event, bool needs_kernel,
		     bool hardware_pmu, int paranoid, char *buf, size_t len);

#endif
