/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A run in progress: each finished repetition goes to the journal, the
 * --console table and the progress line, and its ns/op is kept for the
 * closing summary; at the end the results file is built from the journal.
 */
#ifndef BOUNCELAB_RUN_PROGRESS_H
#define BOUNCELAB_RUN_PROGRESS_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "console.h"
#include "gbench.h"
#include "journal.h"
#include "output_path.h"
#include "suite.h"

struct run_progress {
	struct suite *suite;
	struct journal journal;		/* every finished repetition, on disk */
	bool journal_failed;
	/* why the run stopped itself (a thread it could not create), or "" */
	char stop_error[512];
	bool quiet;			/* stderr is gone (a closed pipe): no progress */
	unsigned int failed;		/* repetitions that reported an error */
	unsigned int done;
	unsigned int total;
	struct timespec start;
	/* ns_per_op of each case's good repetitions, for the summary */
	unsigned int per_case;
	double *samples;
	unsigned int *nr_samples;
	/* the round being run: every case runs once per round */
	unsigned int round;
	unsigned int nr_rounds;
	/* per-thread iterations of each case's first good run; 0: none yet */
	uint64_t *iterations;
	bool tty;			/* stderr is a terminal */
	bool console;			/* --console: the table on stdout */
	struct console table;
	/* --out -: stdout holds the results, so the summary goes to stderr */
	bool results_on_stdout;
};

double run_seconds_since(const struct timespec *start);

/* Google Benchmark's callback for each finished run (arg: the progress). */
void run_progress_on_run(const struct gbench_run *run, void *arg);

/* The closing summary: each case's median at the largest thread count. */
void run_progress_summary(const struct run_progress *pr, FILE *out);

/*
 * The results file from the journal (run_finish.c); returns the command's
 * exit status.
 */
int run_write_results(const struct output_claim *claim, json_t *context,
		      struct run_progress *pr);

#endif
