// SPDX-License-Identifier: GPL-2.0-only
/*
 * bouncelab run: plan the suite, run it under Google Benchmark, write JSON.
 * Its options' own parsers are in run_options.c, what each finished
 * repetition does in run_progress.c, the results file at the end in
 * run_finish.c.
 */
#include <getopt.h>
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
#include "run_options.h"
#include "run_progress.h"
#include "run_resume.h"
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
		"  --out FILE              results file (default results/<time>/results.json);\n"
		"                          '-': written there and copied to stdout when complete\n"
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
		"results could not be written, 2 bad usage.\n\n"
		"To confirm on a real machine what the counters show, run the same\n"
		"binary and filter under perf c2c (README, \"Counters per operation\"):\n"
		"  perf c2c record -o c2c.data -- bouncelab run --filter REGEX --counters none\n"
		"  perf c2c report -i c2c.data --stdio --sort cl,symbol\n",
		DEFAULT_REPETITIONS, DEFAULT_MIN_TIME, QUICK_REPETITIONS,
		QUICK_MIN_TIME, COUNTERS_DEFAULT_SETS, WATCHDOG_FLOOR, WATCHDOG_MIN_TIMES);
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
	struct gbench_run_callbacks cb = { run_progress_on_run, pr };

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
	run_write_results(fatal.claim, fatal.context, fatal.pr);
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
	context = run_context_new(suite, run_command_line());
	pr.tty = isatty(STDERR_FILENO);
	pr.console = opts->console;
	pr.results_on_stdout = opts->results_on_stdout;
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
	ret = run_write_results(claim, context, &pr);
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

	run_record_command(argc, argv);
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
			ret = run_parse_param(optarg, &opts);
			if (ret)
				return ret;
			break;
		case 'P':
			ret = run_parse_placement(optarg, &opts, placement_store);
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
	/* "-": stdout gets a copy of the file, which goes where it would by default. */
	if (out && !strcmp(out, "-")) {
		if (opts.console)
			return usage_error("--out -: the results go to stdout, and so would --console's table: expected one of them");
		opts.results_on_stdout = true;
		out = NULL;
	}
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
