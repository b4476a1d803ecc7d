// SPDX-License-Identifier: GPL-2.0-only
/* bouncelab run: plan the suite, run it under Google Benchmark, write JSON. */
#include <getopt.h>
#include <signal.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "catalog.h"
#include "cli.h"
#include "console.h"
#include "counters.h"
#include "gbench.h"
#include "interrupt.h"
#include "journal.h"
#include "latency.h"
#include "output.h"
#include "output_path.h"
#include "results.h"
#include "run_context.h"
#include "run_resume.h"
#include "stats.h"
#include "suite.h"
#include "watchdog.h"

#define DEFAULT_REPETITIONS 9
#define DEFAULT_MIN_TIME 0.02
/* the fewest paired rounds that can decide a claim (CLAIM_MIN_REPETITIONS) */
#define QUICK_REPETITIONS 6
#define QUICK_MIN_TIME 0.005
/*
 * A run lasts about --min-time; Google Benchmark's iteration probing may
 * overshoot it up to tenfold. A shared VM can stall a vCPU for seconds.
 */
#define WATCHDOG_FLOOR 10.0
#define WATCHDOG_MIN_TIMES 20.0

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
};

static void run_usage(FILE *out)
{
	fprintf(out,
		"usage: bouncelab run [OPTIONS]\n\n"
		"Runs every family x variant x parameter value x thread count, with\n"
		"repetitions interleaved, and writes Google Benchmark JSON.\n\n"
		"  --filter REGEX          run only cases whose name matches, a PCRE2 pattern\n"
		"                          (e.g. 'has_pinned/.*set'); a row's name in the\n"
		"                          results matches too; '-REGEX' runs the others\n"
		"  --threads LIST          thread counts, e.g. 1,2 (default 1,2,4,... up to the allowed CPUs)\n"
		"  --repetitions N         repetitions of each case, interleaved (default %d)\n"
		"  --min-time S            minimum seconds per repetition (default %g)\n"
		"  --param F.NAME=V[,V]    set or sweep a parameter, e.g. has_pinned.pin_work=0,1\n"
		"  --placement P[,P...]    where threads go, swept if several: compact (default),\n"
		"                          spread, cores, pair:CLASS, cpus:0,4,8 ('bouncelab topo')\n"
		"  --home H                the NUMA node the shared state is bound to: local (thread\n"
		"                          0's node), remote (the nearest other node), node:N or\n"
		"                          interleave (default: not bound, thread 0's first touch);\n"
		"                          every row records the node the kernel says holds it\n"
		"  --quick                 %d repetitions of %g s, parameter defaults and the settings\n"
		"                          the lessons' claims name\n"
		"  --counters SET[,SET]    counters per op: coherence, basic, sw or none (default %s);\n"
		"                          'bouncelab list --events' shows what works here\n"
		"  --events LIST           raw libpfm4 event strings, comma-separated\n"
		"  --out FILE              results file (default results/<time>/results.json)\n"
		"  --console               also print each repetition's row on stdout (ns/op as\n"
		"                          in the JSON; colour on a terminal unless NO_COLOR is set)\n"
		"  --force                 replace the results file if it exists (only with a\n"
		"                          complete run: an interrupted one goes beside it)\n"
		"  --resume FILE|DIR       recover the repetitions a stopped run left in its\n"
		"                          journal (FILE.journal) into FILE, marked incomplete;\n"
		"                          it takes no other option but --dry-run (say what\n"
		"                          it would recover, write nothing)\n"
		"  --watchdog S            end a run taking longer than S seconds and go on\n"
		"                          (default the larger of %g and %g x --min-time)\n"
		"  --dry-run               print the cases and exit: runs and writes nothing\n"
		"  -h, --help              this help\n\n"
		"Every finished repetition goes at once to FILE.journal, flushed to disk.\n"
		"SIGINT, SIGTERM, SIGHUP, SIGPIPE or SIGQUIT stops after the current\n"
		"benchmark: the finished rows are written, marked incomplete, and the exit\n"
		"status is 128 + the signal (130 for Ctrl-C). If the process is killed,\n"
		"'--resume FILE' recovers them from the journal. Exit status: 0 all cases\n"
		"ran, 3 some repetitions failed (the rest are written), 1 none ran or the\n"
		"results could not be written, 2 bad usage.\n",
		DEFAULT_REPETITIONS, DEFAULT_MIN_TIME, QUICK_REPETITIONS,
		QUICK_MIN_TIME, COUNTERS_DEFAULT_SETS, WATCHDOG_FLOOR, WATCHDOG_MIN_TIMES);
}

/* family.name=v1,v2 */
static int parse_param_option(const char *text, struct suite_options *opts)
{
	char family_name[64], values[512], err[256];
	const struct kernel_family *f;
	struct suite_override *o;
	const char *dot = strchr(text, '.');
	const char *eq = strchr(text, '=');
	char *item, *rest = values;
	int p;

	if (!dot || !eq || eq < dot || (size_t)(dot - text) >= sizeof(family_name))
		return usage_error("--param '%s': expected FAMILY.NAME=VALUE[,VALUE...]", text);
	snprintf(family_name, sizeof(family_name), "%.*s", (int)(dot - text), text);
	f = catalog_find(family_name);
	if (!f)
		return usage_error("--param '%s': unknown family '%s' (see 'bouncelab list')",
				   text, family_name);
	{
		char name[64];

		if ((size_t)(eq - dot - 1) >= sizeof(name))
			return usage_error("--param '%.80s': a parameter name of %d characters: expected at most %zu (see 'bouncelab list')",
					   text, (int)(eq - dot - 1), sizeof(name) - 1);
		snprintf(name, sizeof(name), "%.*s", (int)(eq - dot - 1), dot + 1);
		p = kernel_param_index(f, name);
		if (p < 0)
			return usage_error("--param '%s': family %s has no parameter '%s' (see 'bouncelab list')",
					   text, f->name, name);
	}
	if (opts->nr_overrides == SUITE_MAX_OVERRIDES)
		return usage_error("--param '%s': at most %d --param options",
				   text, SUITE_MAX_OVERRIDES);
	o = &opts->overrides[opts->nr_overrides];
	memset(o, 0, sizeof(*o));
	o->family = f;
	o->param = p;
	if (strlen(eq + 1) >= sizeof(values))
		return usage_error("--param '%.40s...': a value list of %zu characters: expected at most %zu",
				   text, strlen(eq + 1), sizeof(values) - 1);
	snprintf(values, sizeof(values), "%s", eq + 1);
	if (!*values)
		return usage_error("--param '%s': expected at least one value", text);
	/* strsep, not strtok: "0,,1" has an empty value, which is an error. */
	while ((item = strsep(&rest, ","))) {
		if (!*item)
			return usage_error("--param '%s': expected a value between commas",
					   text);
		if (o->nr_values == SUITE_MAX_VALUES)
			return usage_error("--param '%s': at most %d values", text,
					   SUITE_MAX_VALUES);
		if (kernel_param_parse(&f->params[p], item, &o->values[o->nr_values],
				       err, sizeof(err)))
			return usage_error("--param %s.%s", f->name, err);
		/* Two equal cases would share a name, and so each other's rows. */
		for (unsigned int i = 0; i < o->nr_values; i++)
			if (o->values[i] == o->values[o->nr_values])
				return usage_error("--param '%s': '%s' is listed twice: expected each value once",
						   text, item);
		o->nr_values++;
	}
	/* A later --param for the same parameter replaces the earlier one. */
	for (unsigned int i = 0; i < opts->nr_overrides; i++) {
		if (opts->overrides[i].family == f && opts->overrides[i].param == p) {
			opts->overrides[i] = *o;
			return 0;
		}
	}
	opts->nr_overrides++;
	return 0;
}

/*
 * The command line, shell-quoted, for the report's "how to reproduce":
 * kept in the results so that the report need not guess the options.
 */
static char run_command[4096];

static void record_command(int argc, char **argv)
{
	static const char plain[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
				    "0123456789_-+=/.,:@%";
	FILE *out = fmemopen(run_command, sizeof(run_command) - 1, "w");

	if (!out)
		return;
	fputs("bouncelab", out);
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];

		if (*a && strspn(a, plain) == strlen(a)) {
			fprintf(out, " %s", a);
			continue;
		}
		fputs(" '", out);
		for (; *a; a++) {
			if (*a == '\'')
				fputs("'\\''", out);
			else
				fputc(*a, out);
		}
		fputc('\'', out);
	}
	fclose(out);
}

/* Two equal cases would share a name, and so each other's rows. */
static int check_placements_differ(const char *text,
				   const struct suite_options *opts)
{
	for (unsigned int i = 0; i < opts->nr_placements; i++)
		for (unsigned int k = 0; k < i; k++)
			if (!strcmp(opts->placements[i], opts->placements[k]))
				return usage_error("--placement '%s': '%s' is listed twice: expected each policy once",
						   text, opts->placements[i]);
	return 0;
}

/*
 * compact,pair:smt,cpus:0,4: policies split at commas, except that a
 * number continues the cpus: list before it. The texts live in store.
 */
static int parse_placement_option(const char *text, struct suite_options *opts,
				  char store[][64])
{
	char copy[1024], *item, *rest = copy;
	char *last = NULL;

	if (!*text || strlen(text) >= sizeof(copy))
		return usage_error("--placement '%s': expected compact, spread, cores, pair:CLASS or cpus:LIST",
				   text);
	snprintf(copy, sizeof(copy), "%s", text);
	/* strsep, not strtok: "compact,,spread" has an empty item, an error. */
	while ((item = strsep(&rest, ","))) {
		bool continues = last && !strncmp(last, "cpus:", 5) &&
				 *item >= '0' && *item <= '9';

		if (!*item)
			return usage_error("--placement '%s': expected a policy between commas",
					   text);
		if (continues) {
			size_t used = strlen(last);

			if (used + 1 + strlen(item) >= 64)
				return usage_error("--placement '%s': expected a policy of at most 63 characters (ranges help: cpus:0-15)",
						   text);
			snprintf(last + used, 64 - used, ",%s", item);
			continue;
		}
		if (opts->nr_placements == SUITE_MAX_PLACEMENTS)
			return usage_error("--placement '%s': expected at most %d policies",
					   text, SUITE_MAX_PLACEMENTS);
		if (strlen(item) >= 64)
			return usage_error("--placement '%s': expected a policy of at most 63 characters",
					   text);
		last = store[opts->nr_placements];
		snprintf(last, 64, "%s", item);
		opts->placements[opts->nr_placements++] = last;
	}
	return check_placements_differ(text, opts);
}

static double seconds_since(const struct timespec *start)
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
static void on_run(const struct gbench_run *run, void *arg)
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
	elapsed = seconds_since(&pr->start);
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
static void print_summary(const struct run_progress *pr)
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
			printf("%s, %u thread%s, median %s:\n", c->family->name,
			       max_threads, max_threads > 1 ? "s" : "",
			       summary_unit(c->family));
			last = c->family;
		}
		if (n)
			printf("  %-60s %10.2f\n", c->name,
			       stats_median(pr->samples + (size_t)i * pr->per_case, n) /
			       summary_divisor(c->family));
		else
			printf("  %-60s %10s\n", c->name, "error");
	}
}

/*
 * On a hybrid machine a placement over a P-core and an E-core measures
 * neither kind: said once here, and recorded in each such row.
 */
static void warn_mixed_cpu_kinds(const struct suite *suite)
{
	unsigned int mixed = 0;

	for (unsigned int i = 0; i < suite->nr_cases; i++)
		mixed += suite->cases[i].placement.mixes_cpu_kinds;
	if (mixed)
		fprintf(stderr, "bouncelab: warning: %u case%s place%s threads on CPUs of different kinds "
			"(hybrid cores, see 'bouncelab topo'): their rows say mixes_cpu_kinds\n",
			mixed, mixed == 1 ? "" : "s", mixed == 1 ? "s" : "");
}

/*
 * More threads than CPUs is allowed (families that do not spin), but the
 * threads then take turns on a CPU and their ns/op measures the scheduler
 * as much as the cache line; the report flags those rows too.
 */
static void warn_shared_cpus(const struct suite *suite)
{
	unsigned int shared = 0, most = 0;

	for (unsigned int i = 0; i < suite->nr_cases; i++) {
		if (!placement_shares_cpu(&suite->cases[i].placement))
			continue;
		shared++;
		if (suite->cases[i].cfg.nr_threads > most)
			most = suite->cases[i].cfg.nr_threads;
	}
	if (shared)
		fprintf(stderr, "bouncelab: warning: %u case%s put%s up to %u threads on %u allowed CPUs: "
			"threads share CPUs and take turns, so their ns/op includes time slices "
			"(the report flags them)\n", shared, shared == 1 ? "" : "s",
			shared == 1 ? "s" : "", most, topo_nr_allowed_cpus(suite->cases[0].topo));
}

/* The cases, one a line, and what a run would do: nothing is written. */
static int print_plan(const struct suite *suite, const struct suite_options *opts,
		      const char *out, double watchdog)
{
	for (unsigned int i = 0; i < suite->nr_cases; i++) {
		const struct bench_case *c = &suite->cases[i];

		printf("%-60s threads %u, cpus", c->name, c->cfg.nr_threads);
		for (unsigned int t = 0; t < c->placement.nr_cpus; t++)
			printf("%s%d", t ? "," : " ", c->placement.cpus[t]);
		printf("\n");
	}
	printf("%u cases x %d repetitions of %g s, watchdog %g s; results would go to %s\n",
	       suite->nr_cases, opts->repetitions, opts->min_time, watchdog, out);
	return 0;
}

/*
 * A results file's worth of bytes per repetition, twice (the journal and
 * the file), and a margin: what the output's disk must hold.
 */
static uint64_t estimate_results_bytes(unsigned int repetitions)
{
	return (uint64_t)repetitions * 2 * 4096 + (1u << 16);
}

/*
 * Builds the results file from the journal and writes it, with the caught
 * signals held back: a second Ctrl-C now waits until the file is whole.
 * After a signal the file is marked incomplete, and it never replaces a
 * complete one (--force): it goes beside it. Then the journal goes.
 */
static int write_results(const struct output_claim *claim, json_t *context,
			 struct run_progress *pr)
{
	int signo = interrupt_signal();
	const char *out = claim->path;
	char err[1024], sibling[PATH_MAX];
	const char *target = out;
	size_t nr_rows, total, nr_damaged;
	json_t *doc, *ctx;
	int ret = 0;

	doc = journal_load(pr->journal.path, false, &nr_rows, &total, &nr_damaged,
			   err, sizeof(err));
	if (!doc) {
		journal_close(&pr->journal, false);
		return runtime_error("%s", err);
	}
	/* Stopped before any repetition finished: nothing to keep, no file. */
	if (*pr->stop_error && !nr_rows) {
		journal_close(&pr->journal, true);
		json_decref(doc);
		return runtime_error("%s: no repetition finished, nothing written",
				     pr->stop_error);
	}
	ctx = json_object_get(doc, "context");
	/* Again: a thread may have dropped an event during the run. */
	json_object_set(ctx, "counters", json_object_get(context, "counters"));
	if (signo) {
		char why[700];

		if (pr->journal_failed)
			snprintf(why, sizeof(why), "stopped after %zu of %u repetitions: the journal could not be written",
				 nr_rows, pr->total);
		else if (*pr->stop_error)
			snprintf(why, sizeof(why), "stopped after %zu of %u repetitions: %s",
				 nr_rows, pr->total, pr->stop_error);
		else
			snprintf(why, sizeof(why), "interrupted by %s after %zu of %u repetitions",
				 interrupt_signal_name(signo), nr_rows, pr->total);
		json_object_set_new(ctx, "incomplete", json_string(why));
		if (claim->exists) {
			output_incomplete_sibling(out, sibling, sizeof(sibling));
			target = sibling;
		}
	}
	if (results_write(target, doc, target == out && claim->exists, err, sizeof(err))) {
		journal_close(&pr->journal, false);
		json_decref(doc);
		return runtime_error("%s; the %zu finished repetitions are in %s: recover them with 'bouncelab run --resume %s'",
				     err, nr_rows, pr->journal.path, out);
	}
	journal_close(&pr->journal, true);
	json_decref(doc);
	if (signo) {
		if (pr->journal_failed)
			return runtime_error("the journal could not be written: wrote the %zu finished repetitions to %s, marked incomplete",
					     nr_rows, target);
		if (*pr->stop_error)
			return runtime_error("%s: wrote the %zu finished repetitions to %s, marked incomplete",
					     pr->stop_error, nr_rows, target);
		runtime_error("%s: wrote the %zu finished repetitions to %s, marked incomplete%s",
			      interrupt_signal_name(signo), nr_rows, target,
			      target != out ? " (beside the complete file --force would have replaced)" : "");
		return 128 + signo;
	}
	if (pr->failed == pr->done)
		return runtime_error("every one of the %u repetitions failed: %s has their errors, and no result",
				     pr->done, out);
	print_summary(pr);
	if (!pr->quiet)
		fprintf(stderr, "bouncelab: results in %s (%.1f s)\n", out,
			seconds_since(&pr->start));
	/* Last, where it is read: the exit status (3) says the same. */
	if (pr->failed) {
		runtime_error("%u of %u repetitions failed: their errors are in %s; the summary above and the report leave them out",
			      pr->failed, pr->done, out);
		ret = EXIT_PARTIAL;
	}
	return ret;
}

/*
 * Repetitions are interleaved by rounds: each round runs every case once,
 * in an order Google Benchmark shuffles, so every case samples the whole
 * run and a VM's slow minutes fall on all variants alike. A case's first
 * good run (round 0, unless it failed) finds its iteration count for
 * --min-time; later rounds reuse it.
 */
/* The run stops itself: its finished repetitions are written, marked so. */
static void stop_run(struct run_progress *pr, const char *why)
{
	snprintf(pr->stop_error, sizeof(pr->stop_error), "%s", why);
	interrupt_request(INTERRUPT_ERROR);
}

/*
 * Repetitions are interleaved by rounds: each round runs every case once,
 * in an order Google Benchmark shuffles, so every case samples the whole
 * run and a VM's slow minutes fall on all variants alike. A case's first
 * good run (round 0, unless it failed) finds its iteration count for
 * --min-time; later rounds reuse it.
 */
static void run_rounds(struct suite *suite, const struct suite_options *opts,
		       struct run_progress *pr)
{
	struct gbench_run_callbacks cb = { on_run, pr };

	for (pr->round = 0; pr->round < pr->nr_rounds && !interrupt_signal();
	     pr->round++) {
		bool failed;

		for (unsigned int i = 0; i < suite->nr_cases; i++) {
			struct bench_case *c = &suite->cases[i];
			struct gbench_benchmark *b =
				gbench_register(c->name, bench_case_run, c);

			gbench_set_threads(b, (int)c->cfg.nr_threads);
			/* Until a case has a good run, it probes. */
			if (pr->iterations[i])
				gbench_set_iterations(b, pr->iterations[i]);
		}
		failed = gbench_run_all(&cb, opts->console) < 0;
		gbench_clear();
		if (failed) {
			stop_run(pr, gbench_error());
			break;
		}
	}
}

/*
 * Google Benchmark takes each flag's default from the environment
 * (BENCHMARK_FILTER, BENCHMARK_OUT, ...) when the program loads: a
 * BENCHMARK_FILTER meant for another program would empty the run, a
 * BENCHMARK_OUT write a stray file. bouncelab run's own options choose the
 * run, so initialisation sets every such flag that changes a run, and any
 * BENCHMARK_ variable found is named on one line.
 */
static void note_benchmark_environment(void)
{
	extern char **environ;
	char names[512] = "";
	size_t len = 0;

	for (char **e = environ; *e; e++) {
		size_t n = strcspn(*e, "=");

		if (strncmp(*e, "BENCHMARK_", strlen("BENCHMARK_")) || len + n + 3 >= sizeof(names))
			continue;
		len += (size_t)snprintf(names + len, sizeof(names) - len, "%s%.*s",
					len ? ", " : "", (int)n, *e);
	}
	if (len)
		fprintf(stderr, "bouncelab: ignoring %s in the environment: run's own options "
			"(--filter, --out, ...) choose what runs and where it goes\n", names);
}

/* What on_fatal() needs: the run in progress. */
static struct {
	const struct output_claim *claim;
	json_t *context;
	struct run_progress *pr;
} fatal;

/*
 * The process must end now (gbench_on_fatal()): the other benchmark
 * threads still run, but the journal is whole. The finished repetitions
 * are written as after any stop, and the lock goes, as output_release()
 * would remove it.
 */
static void on_fatal(const char *why)
{
	if (!fatal.pr) {
		runtime_error("%s", why);
		return;
	}
	interrupt_block(true);
	stop_run(fatal.pr, why);
	write_results(fatal.claim, fatal.context, fatal.pr);
	unlink(fatal.claim->lock_path);
}

static int run_suite(struct suite *suite, const struct suite_options *opts,
		     const struct output_claim *claim, double watchdog)
{
	char time_flag[64], err[1024];
	char arg0[] = "bouncelab", one_repetition[] = "--benchmark_repetitions=1";
	char interleave[] = "--benchmark_enable_random_interleaving=true";
	char all[] = "--benchmark_filter=.", no_out[] = "--benchmark_out=";
	char out_format[] = "--benchmark_out_format=json";
	char no_list[] = "--benchmark_list_tests=false";
	char every_run[] = "--benchmark_report_aggregates_only=false";
	char display_runs[] = "--benchmark_display_aggregates_only=false";
	char no_warmup[] = "--benchmark_min_warmup_time=0", unit[] = "--benchmark_time_unit=ns";
	char no_perf[] = "--benchmark_perf_counters=", no_context[] = "--benchmark_context=";
	char *gb_argv[] = { arg0, one_repetition, time_flag, interleave, all, no_out, out_format,
			    no_list, every_run, display_runs, no_warmup, unit, no_perf,
			    no_context, NULL };
	struct run_progress pr = { .suite = suite };
	json_t *context;
	int ret = 0;

	snprintf(time_flag, sizeof(time_flag), "--benchmark_min_time=%g", opts->min_time);
	note_benchmark_environment();
	gbench_initialize((int)(sizeof(gb_argv) / sizeof(gb_argv[0])) - 1, gb_argv);
	pr.per_case = (unsigned int)opts->repetitions;
	pr.nr_rounds = (unsigned int)opts->repetitions;
	pr.samples = calloc((size_t)suite->nr_cases * pr.per_case, sizeof(double));
	pr.nr_samples = calloc(suite->nr_cases, sizeof(unsigned int));
	pr.iterations = calloc(suite->nr_cases, sizeof(uint64_t));
	if (!pr.samples || !pr.nr_samples || !pr.iterations) {
		free(pr.samples);
		free(pr.nr_samples);
		free(pr.iterations);
		return runtime_error("out of memory for %u cases", suite->nr_cases);
	}
	pr.total = suite->nr_cases * (unsigned int)opts->repetitions;
	clock_gettime(CLOCK_MONOTONIC, &pr.start);
	context = run_context_new(suite, run_command);
	pr.tty = isatty(STDERR_FILENO);
	pr.console = opts->console;
	console_init(&pr.table, stdout, suite);
	if (journal_create(&pr.journal, claim->path, context, pr.total, err, sizeof(err)))
		ret = runtime_error("%s", err);
	else if (watchdog_start(watchdog, err, sizeof(err)))
		ret = runtime_error("%s", err);
	if (ret) {
		journal_close(&pr.journal, true);
		goto out;
	}
	fprintf(stderr, "bouncelab: %u cases x %d repetitions, interleaved in rounds; each finished one goes to %s\n",
		suite->nr_cases, opts->repetitions, pr.journal.path);
	warn_shared_cpus(suite);
	warn_mixed_cpu_kinds(suite);
	fatal.claim = claim;
	fatal.context = context;
	fatal.pr = &pr;
	gbench_on_fatal(on_fatal);
	run_rounds(suite, opts, &pr);
	fatal.pr = NULL;
	if (pr.tty && !pr.quiet)
		fputc('\n', stderr);
	watchdog_stop();
	json_object_set_new(context, "counters", counters_context());
	interrupt_block(true);
	ret = write_results(claim, context, &pr);
out:
	json_decref(context);
	free(pr.samples);
	free(pr.nr_samples);
	free(pr.iterations);
	return ret;
}


/*
 * Claims the output (output_path.h) before any benchmark runs, with the
 * signals already caught: a Ctrl-C during the checks leaves nothing.
 */
static int claim_and_run(struct suite *suite, const struct suite_options *opts,
			 const char *out, bool force, double watchdog)
{
	char journal_path[PATH_MAX + 16], err[1024];
	unsigned int total = suite->nr_cases * (unsigned int)opts->repetitions;
	struct output_claim claim;
	struct stat st;
	int ret;

	interrupt_reset();
	if (interrupt_catch("the current benchmark"))
		fprintf(stderr, "bouncelab: cannot catch signals: a Ctrl-C keeps only the journal\n");
	ret = output_claim(&claim, "--out", out, OUTPUT_FILE, force,
			   estimate_results_bytes(total), err, sizeof(err));
	if (ret) {
		ret = ret == 2 ? usage_error("%s", err) : runtime_error("%s", err);
		goto out;
	}
	snprintf(journal_path, sizeof(journal_path), "%s" JOURNAL_SUFFIX, claim.path);
	if (!lstat(journal_path, &st)) {
		ret = usage_error("--out '%s': a run that stopped left its repetitions in %s: expected 'bouncelab run --resume %s' first, or another path",
				  out, journal_path, out);
		output_release(&claim, false);
		goto out;
	}
	if (interrupt_signal()) {
		output_release(&claim, false);
		ret = 128 + interrupt_signal();
		goto out;
	}
	counters_prepare(stderr);
	ret = run_suite(suite, opts, &claim, watchdog);
	/* The directories stay when the journal or results are in them. */
	output_release(&claim, !access(claim.path, F_OK) || !access(journal_path, F_OK));
out:
	/* A signal held back during the write reaches our handler first. */
	interrupt_block(false);
	interrupt_release();
	return ret;
}

int cmd_run(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "filter", required_argument, NULL, 'f' },
		{ "threads", required_argument, NULL, 't' },
		{ "repetitions", required_argument, NULL, 'r' },
		{ "min-time", required_argument, NULL, 'm' },
		{ "param", required_argument, NULL, 'p' },
		{ "placement", required_argument, NULL, 'P' },
		{ "home", required_argument, NULL, 'H' },
		{ "quick", no_argument, NULL, 'q' },
		{ "out", required_argument, NULL, 'o' },
		{ "console", no_argument, NULL, 'c' },
		{ "counters", required_argument, NULL, 'C' },
		{ "events", required_argument, NULL, 'E' },
		{ "force", no_argument, NULL, 'F' },
		{ "resume", required_argument, NULL, 'R' },
		{ "watchdog", required_argument, NULL, 'w' },
		{ "dry-run", no_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct suite_options opts = { .repetitions = 0 };
	static char placement_store[SUITE_MAX_PLACEMENTS][64];
	char out_buf[512], err[512];
	const char *out = NULL, *resume_from = NULL;
	const char *counter_sets = COUNTERS_DEFAULT_SETS, *events = NULL;
	bool force = false, dry_run = false;
	double watchdog = 0;
	struct suite suite;
	struct topo *topo;
	const char *not_with_resume = NULL;
	int longindex = -1;
	long value;
	int c, ret;

	record_command(argc, argv);
	optind = 0;
	while ((c = getopt_long(argc, argv, "h", longopts, &longindex)) != -1) {
		/* --resume writes the stopped run as it was: it takes no other choice. */
		if (longindex >= 0 && c != 'R' && c != 'n' && !not_with_resume)
			not_with_resume = longopts[longindex].name;
		longindex = -1;
		switch (c) {
		case 'f':
			opts.filter = optarg;
			break;
		case 't':
			if (parse_uint_list("--threads", optarg, KERNEL_MAX_THREADS,
					    opts.threads, &opts.nr_threads, err, sizeof(err)))
				return usage_error("%s", err);
			break;
		case 'r':
			if (parse_long(optarg, 1, 1000, &value))
				return usage_error("--repetitions '%s': expected an integer from 1 to 1000",
						   optarg);
			opts.repetitions = (int)value;
			break;
		case 'm':
			opts.min_time = parse_seconds(optarg);
			if (opts.min_time < 0)
				return usage_error("--min-time '%s': expected seconds, more than 0 and at most 3600",
						   optarg);
			break;
		case 'p':
			ret = parse_param_option(optarg, &opts);
			if (ret)
				return ret;
			break;
		case 'P':
			ret = parse_placement_option(optarg, &opts, placement_store);
			if (ret)
				return ret;
			break;
		case 'H':
			if (home_parse(optarg, &opts.home, err, sizeof(err)))
				return usage_error("%s", err);
			break;
		case 'q':
			opts.quick = true;
			break;
		case 'o':
			/* Refused here, so --dry-run (which claims no output) refuses it too. */
			if (!*optarg)
				return usage_error("--out '': expected a file path");
			out = optarg;
			break;
		case 'c':
			opts.console = true;
			break;
		case 'C':
			counter_sets = optarg;
			break;
		case 'E':
			events = optarg;
			break;
		case 'F':
			force = true;
			break;
		case 'R':
			resume_from = optarg;
			break;
		case 'w':
			watchdog = parse_seconds(optarg);
			if (watchdog < 0)
				return usage_error("--watchdog '%s': expected seconds, more than 0 and at most 3600",
						   optarg);
			break;
		case 'n':
			dry_run = true;
			break;
		case 'h':
			run_usage(stdout);
			return 0;
		default:
			return bad_option(argv, "run");
		}
	}
	if (optind < argc)
		return usage_error("run: unexpected argument '%s': see 'bouncelab run --help'",
				   argv[optind]);
	if (resume_from && not_with_resume)
		return usage_error("--resume: --%s does not apply: expected --resume alone (it recovers the stopped run as it was run), or with --dry-run",
				   not_with_resume);
	if (resume_from)
		return run_resume(resume_from, dry_run);
	if (!opts.repetitions)
		opts.repetitions = opts.quick ? QUICK_REPETITIONS : DEFAULT_REPETITIONS;
	if (opts.min_time == 0)
		opts.min_time = opts.quick ? QUICK_MIN_TIME : DEFAULT_MIN_TIME;
	if (watchdog == 0)
		watchdog = fmax(WATCHDOG_FLOOR, WATCHDOG_MIN_TIMES * opts.min_time);
	if (counters_select(counter_sets, events, err, sizeof(err)))
		return usage_error("%s", err);
	if (!out) {
		default_output_path("results.json", out_buf, sizeof(out_buf));
		out = out_buf;
	}

	topo = topo_open(NULL, err, sizeof(err));
	if (!topo)
		return topo_from_user(NULL) ? usage_error("%s", err) : runtime_error("%s", err);
	/*
	 * Another machine's topology (HWLOC_SYNTHETIC, HWLOC_XMLFILE,
	 * HWLOC_FSROOT) can be planned on, not run on: scripts/lab fleet
	 * checks the options for its compute nodes that way, on a login node
	 * of other CPUs. The hint names the variable that is set.
	 */
	if (!topo_is_this_system(topo) && !dry_run) {
		ret = usage_error("run: the topology is %s, not this system's: unset %s (run --dry-run and 'bouncelab topo' plan on it)",
				  topo_describe(topo),
				  topo_source_env() ? topo_source_env() : "HWLOC_THISSYSTEM and HWLOC_COMPONENTS");
		topo_close(topo);
		return ret;
	}
	ret = suite_plan(&opts, topo, &suite, err, sizeof(err));
	if (ret) {
		topo_close(topo);
		return ret == 2 ? usage_error("%s", err) : runtime_error("%s", err);
	}
	if (dry_run)
		ret = print_plan(&suite, &opts, out, watchdog);
	else
		ret = claim_and_run(&suite, &opts, out, force, watchdog);
	suite_free(&suite);
	topo_close(topo);
	return ret;
}
