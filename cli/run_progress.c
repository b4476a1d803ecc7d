// SPDX-License-Identifier: GPL-2.0-only
/*
 * What each finished repetition of a run does: a row in the journal, on
 * the --console table and on the progress line, and its ns/op kept for
 * the summary the run ends with.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "interrupt.h"
#include "results.h"
#include "run_progress.h"
#include "stats.h"

double run_seconds_since(const struct timespec *start)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - start->tv_sec) +
	       (double)(now.tv_nsec - start->tv_nsec) / 1e9;
}

/*
 * A --console row. On one terminal with the status line, that line is
 * cleared first (the next repetition's progress draws it again), so the
 * row does not start in the middle of it.
 */
static void show_row(struct run_progress *pr, const json_t *row)
{
	if (pr->tty && pr->table.tty && !pr->quiet) {
		fputs("\r\033[K", stderr);
		fflush(stderr);
	}
	console_row(&pr->table, row);
}

/*
 * A finished run is one repetition: it becomes a row at once, so that an
 * interrupt loses nothing finished and progress is real. Google
 * Benchmark runs each round as one repetition of each case; the row says
 * which repetition of the whole run it is, under the name the case has in
 * every round (a fixed iteration count would add "iterations:N").
 */
void run_progress_on_run(const struct gbench_run *run, void *arg)
{
	struct run_progress *pr = arg;
	struct bench_case *c = suite_find(pr->suite, run->function_name,
					   (unsigned int)run->threads);
	struct gbench_run row = *run;
	char name[320];
	double elapsed;
	size_t i;

	/* Runs after an interrupt are not results: they never ran. */
	if (run->error_occurred && !strcmp(run->error_message, SUITE_INTERRUPTED))
		return;
	if (!c || run->is_aggregate)
		return;
	i = (size_t)(c - pr->suite->cases);
	suite_row_name(c, name, sizeof(name));
	row.name = name;
	row.run_name = name;
	row.repetitions = pr->nr_rounds;
	row.repetition_index = pr->round;
	/*
	 * A repetition is finished when it is on disk, before the next one
	 * starts. One the journal could not take is not: it is neither
	 * counted nor shown, and the run stops.
	 */
	if (pr->journal_failed)
		return;
	{
		json_t *obj = results_row(&row, c);
		char err[600];
		int failed = journal_append(&pr->journal, obj, err, sizeof(err));

		if (!failed && pr->console)
			show_row(pr, obj);
		json_decref(obj);
		if (failed) {
			runtime_error("stopping the run after %u repetitions: %s", pr->done, err);
			pr->journal_failed = true;
			interrupt_request(INTERRUPT_ERROR);
			return;
		}
	}
	if (!run->error_occurred) {
		/*
		 * Reported iterations are summed over the threads. A case
		 * that failed in round 0 keeps the count of its first good
		 * run, rather than probing again in every later round.
		 */
		if (!pr->iterations[i])
			pr->iterations[i] = (uint64_t)run->iterations / c->cfg.nr_threads;
		for (unsigned int k = 0; k < run->nr_counters; k++)
			if (!strcmp(run->counter_names[k], "ns_per_op") &&
			    pr->nr_samples[i] < pr->per_case)
				pr->samples[i * pr->per_case + pr->nr_samples[i]++] =
					run->counter_values[k];
	} else {
		pr->failed++;
	}
	pr->done++;
	/* A closed pipe takes no more progress, and raises SIGPIPE each time. */
	if (interrupt_signal() == SIGPIPE || ferror(stderr))
		pr->quiet = true;
	if (pr->quiet)
		return;
	elapsed = run_seconds_since(&pr->start);
	/*
	 * On a terminal one status line is rewritten in place, and only
	 * errors stay on screen; a log gets a line per repetition.
	 */
	if (pr->tty && !run->error_occurred) {
		fprintf(stderr, "\r[%u/%u] %s  %.1fs elapsed, ETA %.0fs\033[K",
			pr->done, pr->total, name, elapsed,
			elapsed / pr->done * (pr->total - pr->done));
		return;
	}
	fprintf(stderr, "%s[%u/%u] %s%s%s  %.1fs elapsed, ETA %.0fs\n",
		pr->tty ? "\r\033[K" : "", pr->done, pr->total, name,
		run->error_occurred ? "  ERROR: " : "",
		run->error_occurred ? run->error_message : "", elapsed,
		elapsed / pr->done * (pr->total - pr->done));
}

/*
 * pingpong's operation is a round trip, but its figure everywhere (report,
 * JSON real_time, topo --latency) is one-way: the summary says the same.
 */
static double summary_divisor(const struct kernel_family *f)
{
	return f->ns_per_op_metric && f->ns_per_op_divisor > 0 ? f->ns_per_op_divisor : 1;
}

static const char *summary_unit(const struct kernel_family *f)
{
	return f->ns_per_op_metric ? f->ns_per_op_metric : "ns per op";
}

/*
 * One block per family at the largest thread count: each case's median
 * ns/op over its repetitions (one-way ns for pingpong).
 */
void run_progress_summary(const struct run_progress *pr, FILE *out)
{
	const struct suite *suite = pr->suite;
	const struct kernel_family *last = NULL;
	unsigned int max_threads = 0;

	for (unsigned int i = 0; i < suite->nr_cases; i++)
		if (suite->cases[i].cfg.nr_threads > max_threads)
			max_threads = suite->cases[i].cfg.nr_threads;
	for (unsigned int i = 0; i < suite->nr_cases; i++) {
		const struct bench_case *c = &suite->cases[i];
		unsigned int n = pr->nr_samples[i];

		if (c->cfg.nr_threads != max_threads)
			continue;
		if (c->family != last) {
			fprintf(out, "%s, %u thread%s, median %s:\n", c->family->name,
			       max_threads, max_threads > 1 ? "s" : "",
			       summary_unit(c->family));
			last = c->family;
		}
		if (n)
			fprintf(out, "  %-60s %10.2f\n", c->name,
			       stats_median(pr->samples + (size_t)i * pr->per_case, n) /
			       summary_divisor(c->family));
		else
			fprintf(out, "  %-60s %10s\n", c->name, "error");
	}
}
