/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Private to the counters' own files (bench/counters_*.c); everyone else
 * uses counters.h, which says the life of a run.
 *
 * The counters are cut by concern, one owner each:
 *   counters_sets.c    the sets, the coherence events of each CPU model,
 *                      and the events a run chose (--counters, --events)
 *   counters_open.c    libpfm4's encoding and perf_event_open: what opens,
 *                      in which group, and why not
 *   counters_thread.c  each benchmark thread's counts, scaled and per op
 *   counters_status.c  what works here and why not, in words: the notes,
 *                      the results context and list --events
 * They share the one selection below and the few calls one makes into
 * another. Those are declared here, not in counters.h, so that no caller
 * outside the counters depends on how they are cut.
 *
 * Which events are chosen and why any are not available is decided once,
 * in the main thread, before any benchmark thread starts; during the run
 * that selection is read-only, except for the "failed" flag of an event
 * that a thread could not open (then dropped for all threads, see
 * counters_thread_finish()).
 */
#ifndef BOUNCELAB_COUNTERS_INTERNAL_H
#define BOUNCELAB_COUNTERS_INTERNAL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include "config.h"
#include "counters.h"

enum counter_set {
	SET_COHERENCE,
	SET_BASIC,
	SET_SW,
	SET_EVENTS,	/* --events: raw libpfm4 strings */
	NR_SETS,
};

/* By enum counter_set: the name --counters takes, and what the set counts. */
extern const char *const set_names[NR_SETS];
extern const char *const set_titles[NR_SETS];

struct counter_event {
	char name[COUNTERS_NAME_LEN];
	char event[COUNTERS_EVENT_LEN];
	char canonical[2 * COUNTERS_EVENT_LEN];	/* libpfm4's full spelling */
	const char *total;
	unsigned int set;
	bool needs_kernel;
	bool hardware;
	bool own_group;		/* the kernel refused it in its set's group */
	struct perf_event_attr attr;
	bool available;
	char reason[COUNTERS_REASON_LEN];
	/* A thread could not open it: dropped from then on, for every thread. */
	atomic_bool failed;
	char failed_reason[COUNTERS_REASON_LEN];
};

/* What this process counts: chosen in main, read-only during runs. */
struct counters_chosen {
	bool pfm_ready;
	char pfm_error[128];
	const char *pmu;		/* libpfm4's core PMU model, or NULL */
	bool hardware_pmu;
	int paranoid;			/* INT_MIN: unknown */
	bool requested[NR_SETS];
	bool prepared;
	char set_reason[NR_SETS][COUNTERS_REASON_LEN];	/* n/a as a whole */
	const char *coherence_label;
	bool coherence_unknown;		/* no coherence events for this model */
	unsigned int nr_raw;
	char raw[COUNTERS_MAX_EVENTS][COUNTERS_EVENT_LEN];
	unsigned int nr_events;
	struct counter_event events[COUNTERS_MAX_EVENTS];
};

extern struct counters_chosen chosen;

struct counters_thread {
	unsigned int nr;
	struct {
		int fd;
		int leader;		/* its group leader's fd; fd for a leader */
		unsigned int event;	/* index into chosen.events */
	} open[COUNTERS_MAX_EVENTS];
};

#if HAVE_PFM
/* counters_sets.c: the core PMU whose coherence events a run counts. */
const char *detect_core_pmu(void);
#endif

/* counters_open.c: a thread's events opened (probing: tried once), closed. */
void open_all(struct counters_thread *ct, bool probing);
void close_all(struct counters_thread *ct);

/* counters_status.c: why a set is n/a, in words; how many of its events work. */
unsigned int set_status(unsigned int set, char *buf, size_t len);

#endif
