/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Inside the results reader: the state of one read and the checks that
 * name a bad field (reader.c), shared by the rows' reader (results_read.c,
 * with its parts in results_read_internal.h) and the context's
 * (run_context_read.c). Not for use outside resultfile/.
 */
#ifndef BOUNCELAB_READER_H
#define BOUNCELAB_READER_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "results_read.h"

/*
 * Sane ranges. Anything outside is a corrupt or hand-edited file, not a
 * measurement: one operation takes more than a picosecond-scale loop and
 * less than an hour; a repetition lasts less than 11 days.
 */
#define MAX_THREADS (1L << 20)
#define MIN_NS_PER_OP 1e-6
#define MAX_NS_PER_OP 3.6e12
#define MAX_OPS 1e19
#define MAX_WALL_NS 1e15
#define MAX_COUNTER 1e18
#define MAX_REPETITIONS 1000000L
#define MAX_CACHE_LEVEL 4
#define MAX_CACHE_BYTES (1L << 40)	/* 1 TiB: no cache is near */
/* 60,000 repetitions are a 52 MB file: a results file 20 times that is not one. */
#define RESULTS_MAX_BYTES (1UL << 30)

/* An aggregate row kept in case its benchmark has no repetition rows. */
struct aggregate_candidate {
	json_t *row;
	size_t index;
	bool median;
};

struct reader {
	struct results *set;
	const char *path;
	unsigned int file;
	size_t index;		/* of the row being read */
	const char *array;	/* that holds it: "benchmarks", "failed_repetitions" */
	const char *row_name;
	const char *prefix;	/* of field names: "context.", "bouncelab." */
	char *err;
	size_t errlen;
	struct aggregate_candidate *candidates;
	size_t nr_candidates, cap_candidates;
	bool out_of_memory;	/* err says so: not a bad file */
};

/*
 * "out of memory reading FILE", marked so that results_read() returns -2
 * (memory ran out) and not -1 (a bad file); returns -1.
 */
int reader_out_of_memory(struct reader *r);
/* "FILE: benchmarks[3] (name): FIELD: MESSAGE, found VALUE"; returns -1. */
int reader_bad(struct reader *r, const char *field, const json_t *found,
	       const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/*
 * obj[key] checked and, where out is given, stored: each returns 0, or
 * -1 with reader_bad()'s message. Absent and not required is fine.
 */
int reader_string(struct reader *r, json_t *obj, const char *key, bool required,
		  const char **out);
int reader_bool(struct reader *r, json_t *obj, const char *key);
int reader_integer(struct reader *r, json_t *obj, const char *key, long min, long max,
		   bool required, long *out);
int reader_number(struct reader *r, json_t *obj, const char *key, double min, double max,
		  bool required, double *out);
/*
 * s kept for the set's lifetime (freed with it); NULL when out of memory
 * (results_strings.c).
 */
char *reader_keep_string(struct results *set, char *s);

/* The context into the file's struct run_context (run_context_read.c). */
int reader_context(struct reader *r, json_t *ctx);
/* Whether the file was written by `bouncelab run`, which runs in rounds. */
bool reader_ran_in_rounds(json_t *ctx);

#endif
