/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A small C API over Google Benchmark (bench/gbench.cc is the only C++ in
 * bouncelab). A C benchmark function runs its own loop inside
 * gbench_keep_running_batch(): the harness calls it once per run with the
 * run's whole iteration count.
 */
#ifndef BOUNCELAB_GBENCH_H
#define BOUNCELAB_GBENCH_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct gbench_state;		/* benchmark::State */
struct gbench_benchmark;	/* benchmark::internal::Benchmark */

typedef void (*gbench_fn)(struct gbench_state *state, void *arg);

enum gbench_counter_kind {
	GBENCH_SUM,		/* summed over threads */
	GBENCH_AVG_THREADS,	/* averaged over threads */
};

/* Registers fn(state, arg) under name; real time is used for all runs. */
struct gbench_benchmark *gbench_register(const char *name, gbench_fn fn,
					 void *arg);
void gbench_set_threads(struct gbench_benchmark *b, int nr_threads);
void gbench_set_repetitions(struct gbench_benchmark *b, int repetitions);
void gbench_set_min_time(struct gbench_benchmark *b, double seconds);
/* A fixed iteration count instead of min_time probing (tests). */
void gbench_set_iterations(struct gbench_benchmark *b, uint64_t iterations);

int gbench_thread_index(const struct gbench_state *state);
int gbench_threads(const struct gbench_state *state);
uint64_t gbench_max_iterations(const struct gbench_state *state);
bool gbench_keep_running_batch(struct gbench_state *state, uint64_t n);
void gbench_set_counter(struct gbench_state *state, const char *name,
			double value, enum gbench_counter_kind kind);
void gbench_skip_with_error(struct gbench_state *state, const char *msg);
bool gbench_error_occurred(const struct gbench_state *state);
void gbench_set_label(struct gbench_state *state, const char *label);

/* One finished run (a repetition) or an aggregate over repetitions. */
struct gbench_run {
	const char *name;		/* full name, with Google Benchmark's suffixes */
	const char *run_name;		/* without the aggregate suffix */
	const char *function_name;	/* the name it was registered under */
	const char *aggregate_name;	/* "" for a repetition, else mean, median, ... */
	bool is_aggregate;
	bool aggregate_is_percentage;	/* cv: a fraction, not a time */
	int64_t family_index;
	int64_t per_family_instance_index;
	int64_t repetitions;
	int64_t repetition_index;
	int64_t threads;
	int64_t iterations;
	double real_time;		/* in time_unit, per iteration */
	double cpu_time;
	const char *time_unit;
	bool error_occurred;
	const char *error_message;
	const char *label;
	unsigned int nr_counters;
	const char *const *counter_names;
	const double *counter_values;
};

struct gbench_run_callbacks {
	void (*on_run)(const struct gbench_run *run, void *arg);
	void *arg;
};

/* Flags such as --benchmark_enable_random_interleaving=true; call first. */
void gbench_initialize(int argc, char **argv);
/*
 * Runs every registered benchmark, reporting each run through the
 * callbacks and, with context, the machine's context on stderr (once per
 * process).
 * Google Benchmark's own JSON file reporter is written too when
 * --benchmark_out=FILE was given to gbench_initialize(). Returns the
 * number of benchmarks run, or -1 when Google Benchmark threw (a thread it
 * could not create under a memory or thread limit): gbench_error() says
 * why, and the runs reported before it stand.
 */
int gbench_run_all(const struct gbench_run_callbacks *callbacks, bool context);
/* Why the last gbench_run_all() failed: one line. */
const char *gbench_error(void);
/*
 * Called, with gbench_error()'s kind of line, when the process must end
 * at once: an exception Google Benchmark cannot unwind (a thread that
 * could not be created while others of its pool run). It should say so
 * in one line and clean up what it can; the process then exits with 1.
 */
void gbench_on_fatal(void (*fn)(const char *why));
/* Forgets every registered benchmark. */
void gbench_clear(void);

/*
 * Google Benchmark's JSON context for this machine, as a whole JSON
 * document {"context": {...}, "benchmarks": []}. The caller frees it.
 */
char *gbench_context_json(void);

#ifdef __cplusplus
}
#endif

#endif
