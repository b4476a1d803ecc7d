// SPDX-License-Identifier: GPL-2.0-only
/*
 * bouncelab gup: the mini GUP walker driven the way gup_test drives the
 * kernel (tools/testing/selftests/mm/gup_test.c and mm/gup_test.c; see
 * reference/gup-anchors.md section 2), so that its output can be diffed
 * against a real kernel's.
 *
 * Each of -j threads does, -r times, what one benchmark ioctl does: call
 * the chosen GUP function -n pages at a time until the buffer is covered
 * or a call comes back short (timed: get), check the pages are pinned
 * (not timed), give them all back (timed: put), and print
 *   PIN_FAST_BENCHMARK: Time: get:<us> put:<us> us
 * gup_test's threads run their repeats freely; ours start each repeat
 * together, so that every repeat measures the same contention.
 *
 * Several values of --variant, --mode or --longterm-check compare every
 * combination in one run: each repeat runs every combination once, in an
 * order that rotates from repeat to repeat, and a summary gives the mean
 * get times and their ratios beside the seeds' figures.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "gup/gup.h"
#include "seeds.h"
#include "stats.h"
#include "topo.h"

#define GUP_MAX_COMBOS 16
#define GUP_WRITER_PACE_NS 20000
/*
 * The get loop reads the clock after every stretch of at least this many
 * pages (about 25 us at 64 pages per call here). A repeat of gup_test's
 * 128 MiB takes about as long as the 1 ms between two timer interrupts,
 * and on a VM one interrupt can cost 40 us, about a tenth of the repeat:
 * then half the repeats carry one and half do not, and the median of ten
 * lands in either group, whatever the variant. The median of a repeat's
 * stretches leaves out the one or two an interrupt hit. The clock reads
 * cost about 0.1% of a stretch.
 */
#define GUP_STRETCH_PAGES 2048

enum gup_cmd {
	GUP_FAST_BENCHMARK, PIN_FAST_BENCHMARK, PIN_LONGTERM_BENCHMARK,
	GUP_BASIC_TEST, PIN_BASIC_TEST,
};

static const char *const cmd_names[] = {
	[GUP_FAST_BENCHMARK] = "GUP_FAST_BENCHMARK",
	[PIN_FAST_BENCHMARK] = "PIN_FAST_BENCHMARK",
	[PIN_LONGTERM_BENCHMARK] = "PIN_LONGTERM_BENCHMARK",
	[GUP_BASIC_TEST] = "GUP_BASIC_TEST",
	[PIN_BASIC_TEST] = "PIN_BASIC_TEST",
};

enum { MODE_SHARED, MODE_PRIVATE };
static const char *const mode_names[] = { "shared", "private", NULL };

struct gup_options {
	enum gup_cmd cmd;
	unsigned long mib;
	long pages_per_call;		/* < 0: the whole buffer */
	unsigned int repeats;
	unsigned int threads;
	enum gup_page_size page_size;
	bool write;
	bool longterm;			/* -l: FOLL_LONGTERM on -a or -u */
	bool writer;
	bool summary;
	unsigned int cma_percent;
	unsigned int nr_variants, nr_modes, nr_checks;
	unsigned int variants[NR_GUP_FLAG_UPDATES];
	unsigned int modes[2];
	unsigned int checks[NR_GUP_LONGTERM_CHECKS];
};

/* One thread's one repeat, as gup_test's struct gup_test reports it. */
struct gup_sample {
	uint64_t get_usec;
	uint64_t put_usec;
	uint64_t get_ns;
	uint64_t put_ns;
	unsigned long pages;
	/* the median over the repeat's stretches of their get ns per page */
	double get_stretch_ns_per_page;
};

/* The get loop's stretches in one repeat: room for pages / GUP_STRETCH_PAGES + 1. */
struct gup_stretches {
	unsigned int nr;
	double *ns_per_page;
	uint64_t start;
	unsigned long pages;
};

/* One combination of switches: its own mm, tasks and samples. */
struct gup_combo {
	unsigned int variant;
	unsigned int mode;
	unsigned int check;
	struct gup_mm *mm;
	struct gup_task *tasks;		/* one per thread */
	struct gup_sample *samples;	/* [repeat][thread] */
	uint64_t writer_changes;
};

struct gup_bench {
	const struct gup_options *opts;
	struct topo *topo;
	struct placement placement;
	unsigned int nr_combos;
	struct gup_combo combos[GUP_MAX_COMBOS];
	pthread_barrier_t start, done;
	pthread_mutex_t print_lock;
	/* set by the main thread between the barriers */
	unsigned int combo;
	unsigned int repeat;
	bool quit;
	atomic_bool failed;
	char failure[256];
};

struct gup_worker {
	pthread_t tid;
	unsigned int index;
	struct gup_bench *bench;
	struct gup_page **pages;
	struct gup_stretches stretches;
};

static void gup_usage(FILE *out)
{
	fprintf(out,
		"usage: bouncelab gup [OPTIONS]\n\n"
		"Runs the mini GUP walker as tools/testing/selftests/mm/gup_test runs the\n"
		"kernel: each of -j threads takes the buffer -n pages per call, then gives\n"
		"it back, -r times, and prints one line per repeat:\n"
		"  PIN_FAST_BENCHMARK: Time: get:<us> put:<us> us\n\n"
		"gup_test options:\n"
		"  -u          GUP_FAST_BENCHMARK: get_user_pages_fast() (the default)\n"
		"  -a          PIN_FAST_BENCHMARK: pin_user_pages_fast()\n"
		"  -L          PIN_LONGTERM_BENCHMARK: pin_user_pages(FOLL_LONGTERM), locked\n"
		"  -U          GUP_BASIC_TEST: get_user_pages(), prints \"done\"\n"
		"  -b          PIN_BASIC_TEST: pin_user_pages(), prints \"done\"\n"
		"  -m MIB      buffer size in MiB (default 128)\n"
		"  -n PAGES    pages per call (default 1; negative: the whole buffer)\n"
		"  -r N        repeats (default 1)\n"
		"  -j N        threads, each bound to its own CPU (default 1)\n"
		"  -t, -T      2M THP leaves / 4K pages (default 4K)\n"
		"  -w, -W      FOLL_WRITE (default) / read only\n\n"
		"Model options:\n"
		"  -l                     FOLL_LONGTERM on -a or -u (gup_benchmark -l, seed 002)\n"
		"  --variant LIST         the has-pinned flag update: store_always, read_then_set,\n"
		"                         test_then_set_bit (default, as since 5.14)\n"
		"  --mode LIST            shared: one buffer for all threads, as gup_test -j\n"
		"                         (default); private: one each, as will-it-scale pin_fast\n"
		"  --longterm-check LIST  in_walk (default, as since 5.7) or second_pass\n"
		"  --cma PERCENT          share of folios in CMA at the start (default 0)\n"
		"  --writer               a thread replaces pages and bumps write_protect_seq\n"
		"  --summary              print mean times, ns per page and ratios\n"
		"  -h, --help             this help\n\n"
		"Several values in --variant, --mode or --longterm-check compare every\n"
		"combination, repeats interleaved, and end with a summary of ratios.\n");
}

/* "a,b": names from names[] into values[]; returns 0 or a usage error. */
static int parse_name_list(const char *option, const char *text,
			   const char *const *names, unsigned int *values,
			   unsigned int max, unsigned int *nr)
{
	char buf[256], expected[128] = "";
	char *item, *rest = buf;

	for (unsigned int i = 0; names[i]; i++)
		snprintf(expected + strlen(expected), sizeof(expected) - strlen(expected),
			 "%s%s", i ? ", " : "", names[i]);
	snprintf(buf, sizeof(buf), "%s", text);
	*nr = 0;
	/* strsep, not strtok: "a,,b" has an empty item, which is an error. */
	while ((item = strsep(&rest, ","))) {
		unsigned int v;

		for (v = 0; names[v] && strcmp(names[v], item); v++)
			;
		if (!names[v])
			return usage_error("gup: %s '%s': expected a comma-separated list of %s",
					   option, text, expected);
		for (unsigned int k = 0; k < *nr; k++)
			if (values[k] == v)
				return usage_error("gup: %s '%s': '%s' is listed twice: expected each value once",
						   option, text, item);
		if (*nr == max)
			return usage_error("gup: %s '%s': expected at most %u values",
					   option, text, max);
		values[(*nr)++] = v;
	}
	if (!*nr)
		return usage_error("gup: %s '%s': expected a comma-separated list of %s",
				   option, text, expected);
	return 0;
}

static int not_modelled(int opt)
{
	static const struct { int opt; const char *what, *why; } list[] = {
		{ 'F', "raw gup_flags", "use -w, -W and -l" },
		{ 'f', "a file mapping", "the model maps private anonymous memory only" },
		{ 'S', "MAP_SHARED", "the model maps private anonymous memory only" },
		{ 'H', "hugetlbfs", "use -t for 2M THP leaves" },
		{ 'c', "DUMP_USER_PAGES_TEST", "the model has no page contents to dump" },
		{ 'p', "DUMP_USER_PAGES_TEST with pins", "the model has no page contents to dump" },
	};

	for (size_t i = 0; i < sizeof(list) / sizeof(list[0]); i++)
		if (list[i].opt == opt)
			return usage_error("gup: option '-%c' (%s) is not modelled: %s",
					   opt, list[i].what, list[i].why);
	return 0;
}

static int parse_number_option(int opt, const char *arg, struct gup_options *o)
{
	long v;

	switch (opt) {
	case 'm':
		if (parse_long(arg, 1, 16384, &v))
			return usage_error("gup: -m '%s': expected MiB from 1 to 16384", arg);
		o->mib = (unsigned long)v;
		return 0;
	case 'n':
		if (parse_long(arg, -(1L << 30), 1L << 30, &v) || !v)
			return usage_error("gup: -n '%s': expected a non-zero number of pages (negative: the whole buffer)",
					   arg);
		o->pages_per_call = v;
		return 0;
	case 'r':
		if (parse_long(arg, 1, 100000, &v))
			return usage_error("gup: -r '%s': expected repeats from 1 to 100000", arg);
		o->repeats = (unsigned int)v;
		return 0;
	case 'j':
		if (parse_long(arg, 1, KERNEL_MAX_THREADS, &v))
			return usage_error("gup: -j '%s': expected threads from 1 to %d",
					   arg, KERNEL_MAX_THREADS);
		o->threads = (unsigned int)v;
		return 0;
	default:
		if (parse_long(arg, 0, 100, &v))
			return usage_error("gup: --cma '%s': expected a percentage from 0 to 100", arg);
		o->cma_percent = (unsigned int)v;
		return 0;
	}
}

/* Returns 0 to go on, 1 when --help was printed, or a usage error. */
static int parse_options(int argc, char **argv, struct gup_options *o)
{
	enum { OPT_VARIANT = 256, OPT_MODE, OPT_CHECK, OPT_CMA, OPT_WRITER, OPT_SUMMARY };
	static const struct option longopts[] = {
		{ "variant", required_argument, NULL, OPT_VARIANT },
		{ "mode", required_argument, NULL, OPT_MODE },
		{ "longterm-check", required_argument, NULL, OPT_CHECK },
		{ "cma", required_argument, NULL, OPT_CMA },
		{ "writer", no_argument, NULL, OPT_WRITER },
		{ "summary", no_argument, NULL, OPT_SUMMARY },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, ret;

	optind = 0;
	while ((c = getopt_long(argc, argv, "+m:r:n:j:auLUbtTwWlhF:f:SHcpz",
				longopts, NULL)) != -1) {
		ret = 0;
		switch (c) {
		case 'a': o->cmd = PIN_FAST_BENCHMARK; break;
		case 'u': o->cmd = GUP_FAST_BENCHMARK; break;
		case 'L': o->cmd = PIN_LONGTERM_BENCHMARK; break;
		case 'U': o->cmd = GUP_BASIC_TEST; break;
		case 'b': o->cmd = PIN_BASIC_TEST; break;
		case 't': o->page_size = GUP_PAGES_2M; break;
		case 'T': o->page_size = GUP_PAGES_4K; break;
		case 'w': o->write = true; break;
		case 'W': o->write = false; break;
		case 'l': o->longterm = true; break;
		case OPT_WRITER: o->writer = true; break;
		case OPT_SUMMARY: o->summary = true; break;
		case 'm': case 'n': case 'r': case 'j': case OPT_CMA:
			ret = parse_number_option(c, optarg, o);
			break;
		case OPT_VARIANT:
			ret = parse_name_list("--variant", optarg, gup_flag_update_names,
					      o->variants, NR_GUP_FLAG_UPDATES, &o->nr_variants);
			break;
		case OPT_MODE:
			ret = parse_name_list("--mode", optarg, mode_names, o->modes, 2,
					      &o->nr_modes);
			break;
		case OPT_CHECK:
			ret = parse_name_list("--longterm-check", optarg,
					      gup_longterm_check_names, o->checks,
					      NR_GUP_LONGTERM_CHECKS, &o->nr_checks);
			break;
		case 'h':
			gup_usage(stdout);
			return 1;
		case 'z':
			return usage_error("gup: option '-z': expected a gup_test option (gup_test itself rejects -z)");
		default:
			ret = not_modelled(c);
			if (!ret)
				return bad_option(argv, "gup");
		}
		if (ret)
			return ret;
	}
	if (optind < argc)
		return usage_error("gup: unexpected argument '%s': see 'bouncelab gup --help'",
				   argv[optind]);
	return 0;
}

static unsigned int cmd_flags(const struct gup_options *o)
{
	unsigned int flags = o->write ? FOLL_WRITE : 0;

	if (o->longterm || o->cmd == PIN_LONGTERM_BENCHMARK)
		flags |= FOLL_LONGTERM;
	return flags;
}

static long gup_call(struct gup_task *task, enum gup_cmd cmd, unsigned long addr,
		     unsigned long nr, unsigned int flags, struct gup_page **pages)
{
	switch (cmd) {
	case GUP_FAST_BENCHMARK:
		return get_user_pages_fast(task, addr, nr, flags, pages);
	case PIN_FAST_BENCHMARK:
		return pin_user_pages_fast(task, addr, nr, flags, pages);
	case GUP_BASIC_TEST:
		return get_user_pages(task, addr, nr, flags, pages);
	default:
		return pin_user_pages(task, addr, nr, flags, pages);
	}
}

static bool cmd_pins(enum gup_cmd cmd)
{
	return cmd == PIN_FAST_BENCHMARK || cmd == PIN_LONGTERM_BENCHMARK ||
	       cmd == PIN_BASIC_TEST;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static void fail(struct gup_bench *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* The first failure wins; the run stops after the current repeat. */
static void fail(struct gup_bench *b, const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&b->print_lock);
	if (!atomic_exchange(&b->failed, true)) {
		va_start(ap, fmt);
		vsnprintf(b->failure, sizeof(b->failure), fmt, ap);
		va_end(ap);
	}
	pthread_mutex_unlock(&b->print_lock);
}

/* verify_dma_pinned(), untimed: every page pinned, and pinnable if longterm. */
static void verify_pages(struct gup_bench *b, struct gup_page **pages,
			 unsigned long nr)
{
	if (!cmd_pins(b->opts->cmd))
		return;
	for (unsigned long i = 0; i < nr; i++)
		if (!gup_page_maybe_dma_pinned(pages[i]))
			fail(b, "gup: pages[%lu] of %lu is not dma-pinned", i, nr);
		else if ((cmd_flags(b->opts) & FOLL_LONGTERM) &&
			 !gup_page_longterm_pinnable(pages[i]))
			fail(b, "gup: pages[%lu] of %lu is pinned for long but sits in CMA", i, nr);
}

/* Closes the current stretch at time t, if it holds any page. */
static void end_stretch(struct gup_stretches *st, uint64_t t)
{
	if (st->pages)
		st->ns_per_page[st->nr++] = (double)(t - st->start) / (double)st->pages;
	st->start = t;
	st->pages = 0;
}

/*
 * The body of __gup_test_ioctl(): calls until the range is covered or a
 * call returns short; size is how far it got.
 */
static unsigned long gup_get_loop(struct gup_worker *w, struct gup_task *task,
				  unsigned long start, unsigned long size,
				  unsigned long *pinned)
{
	struct gup_stretches *st = &w->stretches;
	const struct gup_options *o = w->bench->opts;
	unsigned long total = size / GUP_PAGE_SIZE;
	unsigned long per_call = o->pages_per_call < 0 ? total :
				 (unsigned long)o->pages_per_call;
	unsigned long addr, next, i = 0, nr = per_call;
	unsigned int flags = cmd_flags(o);

	for (addr = start; addr < start + size; addr = next) {
		long ret;

		if (nr != per_call)
			break;
		next = addr + nr * GUP_PAGE_SIZE;
		if (next > start + size) {
			next = start + size;
			nr = (next - addr) / GUP_PAGE_SIZE;
		}
		ret = gup_call(task, o->cmd, addr, nr, flags, w->pages + i);
		if (ret <= 0)
			break;
		nr = (unsigned long)ret;
		i += nr;
		st->pages += nr;
		if (st->pages >= GUP_STRETCH_PAGES)
			end_stretch(st, now_ns());
	}
	*pinned = i;
	return addr - start;
}

static void print_sample(struct gup_bench *b, const struct gup_sample *s,
			 unsigned long size, unsigned long full)
{
	const char *name = cmd_names[b->opts->cmd];

	pthread_mutex_lock(&b->print_lock);
	if (b->opts->cmd == GUP_BASIC_TEST || b->opts->cmd == PIN_BASIC_TEST) {
		printf("%s: done\n", name);
		if (size != full)
			printf("Truncated (size: %lu)\n", size);
	} else {
		printf("%s: Time: get:%llu put:%llu us", name,
		       (unsigned long long)s->get_usec, (unsigned long long)s->put_usec);
		if (size != full)
			printf(", truncated (size: %lu)", size);
		printf("\n");
	}
	pthread_mutex_unlock(&b->print_lock);
}

static void gup_one_repeat(struct gup_worker *w)
{
	struct gup_bench *b = w->bench;
	struct gup_combo *c = &b->combos[b->combo];
	struct gup_task *task = &c->tasks[w->index];
	struct gup_sample *s = &c->samples[b->repeat * b->opts->threads + w->index];
	unsigned int buffer = c->mode == MODE_PRIVATE ? w->index : 0;
	unsigned long full = gup_buffer_pages(c->mm) * GUP_PAGE_SIZE;
	unsigned long size, pinned;
	uint64_t t0, t1, t2;

	w->stretches.nr = 0;
	w->stretches.pages = 0;
	t0 = w->stretches.start = now_ns();
	size = gup_get_loop(w, task, gup_buffer_start(c->mm, buffer), full, &pinned);
	t1 = now_ns();
	end_stretch(&w->stretches, t1);
	verify_pages(b, w->pages, pinned);
	t2 = now_ns();
	if (cmd_pins(b->opts->cmd))
		unpin_user_pages(task, w->pages, pinned);
	else
		put_user_pages(task, w->pages, pinned);
	s->get_ns = t1 - t0;
	s->put_ns = now_ns() - t2;
	/* ktime_us_delta(): whole microseconds, truncated */
	s->get_usec = s->get_ns / 1000;
	s->put_usec = s->put_ns / 1000;
	s->pages = pinned;
	s->get_stretch_ns_per_page = w->stretches.nr ?
		stats_median(w->stretches.ns_per_page, w->stretches.nr) : NAN;
	print_sample(b, s, size, full);
}

static void *gup_worker_main(void *arg)
{
	struct gup_worker *w = arg;
	struct gup_bench *b = w->bench;
	int ret = topo_bind_self(b->topo, b->placement.cpus[w->index]);

	if (ret)
		fail(b, "gup: cannot bind thread %u to CPU %d: %s", w->index,
		     b->placement.cpus[w->index], strerror(-ret));
	/*
	 * As gup_test faults its buffer in and the kernel's pages[] comes
	 * zeroed, before any timed call: on the pinning CPU, for every
	 * combination.
	 */
	memset(w->pages, 0, (b->opts->mib << 20 >> GUP_PAGE_SHIFT) * sizeof(*w->pages));
	for (unsigned int i = 0; i < b->nr_combos; i++)
		gup_buffer_fault_in(b->combos[i].mm,
				    b->combos[i].mode == MODE_PRIVATE ? w->index : 0);
	for (;;) {
		pthread_barrier_wait(&b->start);
		if (b->quit)
			return NULL;
		if (!atomic_load(&b->failed))
			gup_one_repeat(w);
		pthread_barrier_wait(&b->done);
	}
}

static int setup_combo(struct gup_bench *b, struct gup_combo *c)
{
	const struct gup_options *o = b->opts;
	struct gup_layout layout = {
		.flag_update = (enum gup_flag_update)c->variant,
		.longterm_check = (enum gup_longterm_check)c->check,
		.nr_buffers = c->mode == MODE_PRIVATE ? o->threads : 1,
		.buffer_bytes = o->mib << 20,
		.page_size = o->page_size,
		.cma_percent = o->cma_percent,
	};
	char err[256];

	c->mm = gup_mm_create(&layout, err, sizeof(err));
	if (!c->mm)
		return runtime_error("%s", err);
	c->tasks = kernel_alloc_padded(o->threads * sizeof(*c->tasks));
	c->samples = calloc((size_t)o->repeats * o->threads, sizeof(*c->samples));
	if (!c->tasks || !c->samples)
		return runtime_error("gup: out of memory for %u threads x %u repeats",
				     o->threads, o->repeats);
	for (unsigned int t = 0; t < o->threads; t++)
		gup_task_init(&c->tasks[t], c->mm);
	return 0;
}

static void free_combos(struct gup_bench *b)
{
	for (unsigned int i = 0; i < b->nr_combos; i++) {
		gup_mm_destroy(b->combos[i].mm);
		free(b->combos[i].tasks);
		free(b->combos[i].samples);
	}
}

static int plan_combos(struct gup_bench *b)
{
	const struct gup_options *o = b->opts;

	for (unsigned int m = 0; m < o->nr_modes; m++)
		for (unsigned int k = 0; k < o->nr_checks; k++)
			for (unsigned int v = 0; v < o->nr_variants; v++) {
				struct gup_combo *c = &b->combos[b->nr_combos++];
				int ret;

				c->variant = o->variants[v];
				c->mode = o->modes[m];
				c->check = o->checks[k];
				ret = setup_combo(b, c);
				if (ret)
					return ret;
			}
	return 0;
}

/* One repeat of one combination, all threads together. */
static void run_combo_repeat(struct gup_bench *b, unsigned int combo,
			     unsigned int repeat)
{
	struct gup_combo *c = &b->combos[combo];
	char err[256];

	if (b->opts->writer && gup_writer_start(c->mm, GUP_WRITER_PACE_NS, err, sizeof(err))) {
		fail(b, "%s", err);
		return;
	}
	b->combo = combo;
	b->repeat = repeat;
	pthread_barrier_wait(&b->start);
	pthread_barrier_wait(&b->done);
	if (b->opts->writer)
		c->writer_changes += gup_writer_stop(c->mm);
}

/* Interleaved: repeat r runs the combinations starting from r's turn. */
static void run_all(struct gup_bench *b)
{
	const struct gup_options *o = b->opts;
	unsigned int repeats = o->cmd == GUP_BASIC_TEST || o->cmd == PIN_BASIC_TEST ?
			       1 : o->repeats;

	for (unsigned int r = 0; r < repeats && !atomic_load(&b->failed); r++)
		for (unsigned int k = 0; k < b->nr_combos && !atomic_load(&b->failed); k++)
			run_combo_repeat(b, (r + k) % b->nr_combos, r);
}

static int check_combos(struct gup_bench *b)
{
	char msg[320];

	for (unsigned int i = 0; i < b->nr_combos; i++) {
		struct gup_combo *c = &b->combos[i];
		uint64_t acquired = 0, released = 0;

		for (unsigned int t = 0; t < b->opts->threads; t++) {
			acquired += c->tasks[t].stats.pins_acquired;
			released += c->tasks[t].stats.pins_released;
		}
		if (acquired != released)
			return runtime_error("gup: %llu pins acquired but %llu released",
					     (unsigned long long)acquired,
					     (unsigned long long)released);
		if (gup_mm_check_at_rest(c->mm, msg, sizeof(msg)))
			return runtime_error("gup: after the run: %s", msg);
	}
	return 0;
}

static int start_workers(struct gup_bench *b, struct gup_worker *w)
{
	unsigned long max_pages = b->opts->mib << 20 >> GUP_PAGE_SHIFT;

	for (unsigned int t = 0; t < b->opts->threads; t++) {
		w[t].index = t;
		w[t].bench = b;
		w[t].pages = malloc(max_pages * sizeof(*w[t].pages));
		w[t].stretches.ns_per_page = malloc((max_pages / GUP_STRETCH_PAGES + 1) *
						    sizeof(*w[t].stretches.ns_per_page));
		if (!w[t].pages || !w[t].stretches.ns_per_page ||
		    pthread_create(&w[t].tid, NULL, gup_worker_main, &w[t])) {
			/* the threads already started wait at the start barrier */
			b->quit = true;
			return -(int)t - 1;
		}
	}
	return (int)b->opts->threads;
}

struct combo_stats {
	double get_mean_us;
	double get_sd_pct;
	double get_median_us;
	double put_mean_us;
	/*
	 * medians over samples of the repeat's stretch median of get per
	 * page, and of put / pages
	 */
	double get_ns_per_page;
	double put_ns_per_page;
};

/*
 * Each sample's get time (us), its get per page (ns: the median of its
 * stretches) and its put per page (ns).
 */
static int combo_samples(const struct gup_bench *b, const struct gup_combo *c,
			 double *get_us, double *get_pp, double *put_pp)
{
	unsigned int n = b->opts->repeats * b->opts->threads;

	for (unsigned int i = 0; i < n; i++) {
		const struct gup_sample *s = &c->samples[i];
		double pages = s->pages ? (double)s->pages : NAN;

		get_us[i] = (double)s->get_ns / 1000.0;
		get_pp[i] = s->pages ? s->get_stretch_ns_per_page : NAN;
		put_pp[i] = (double)s->put_ns / pages;
	}
	return (int)n;
}

static void combo_stats(const struct gup_bench *b, const struct gup_combo *c,
			struct combo_stats *st)
{
	unsigned int n = b->opts->repeats * b->opts->threads;
	double *get = calloc(3 * (size_t)n, sizeof(*get));
	double sum = 0, sq = 0, put = 0;

	memset(st, 0, sizeof(*st));
	if (!get)
		return;
	combo_samples(b, c, get, get + n, get + 2 * n);
	for (unsigned int i = 0; i < n; i++) {
		sum += get[i];
		put += (double)c->samples[i].put_ns / 1000.0;
	}
	st->get_mean_us = sum / n;
	for (unsigned int i = 0; i < n; i++)
		sq += (get[i] - st->get_mean_us) * (get[i] - st->get_mean_us);
	st->get_sd_pct = n > 1 && sum > 0 ?
			 100.0 * sqrt(sq / (n - 1)) / st->get_mean_us : 0;
	st->get_median_us = stats_median(get, n);
	st->put_mean_us = put / n;
	st->get_ns_per_page = stats_median(get + n, n);
	st->put_ns_per_page = stats_median(get + 2 * n, n);
	free(get);
}

/*
 * The ratio of the medians of get time per page, with its 95% bootstrap
 * interval: the same rule the report uses for every ratio.
 */
static int get_ratio(const struct gup_bench *b, const struct gup_combo *num,
		     const struct gup_combo *den, struct stats_ratio *r)
{
	unsigned int n = b->opts->repeats * b->opts->threads;
	double *v = calloc(6 * (size_t)n, sizeof(*v));
	int ret;

	if (!v)
		return -1;
	combo_samples(b, num, v, v + n, v + 2 * n);
	combo_samples(b, den, v + 3 * n, v + 4 * n, v + 5 * n);
	ret = stats_ratio_of_medians(v + n, n, v + 4 * n, n, r);
	free(v);
	return ret;
}

/* The longterm-check switch only matters to a fast call with FOLL_LONGTERM. */
static bool check_matters(const struct gup_options *o)
{
	return o->longterm && (o->cmd == PIN_FAST_BENCHMARK || o->cmd == GUP_FAST_BENCHMARK);
}

/*
 * The seed figure beside a ratio (report/seeds.c, the one table the
 * report's seed rows take too): the flag's fix in the figure's mode, or
 * the longterm check; "seed 000: 5.36x, gup_test ..., 40 threads on
 * <machine>". NULL: no seed measured this pair.
 */
static const char *seed_figure(const struct gup_options *o, unsigned int first,
			       unsigned int other, bool variants, unsigned int mode,
			       char *buf, size_t len)
{
	const char *family = NULL;

	if (variants && first == GUP_STORE_ALWAYS && other != GUP_STORE_ALWAYS)
		family = "gup";
	else if (!variants && first == GUP_LONGTERM_SECOND_PASS && check_matters(o))
		family = "longterm_check";
	for (unsigned int i = 0; family && i < nr_seed_figures; i++) {
		const struct seed_figure *s = &seed_figures[i];
		const char *its_mode = seed_setting_value(s, "mode");

		if (strcmp(s->family, family) || (its_mode && strcmp(its_mode, mode_names[mode])))
			continue;
		snprintf(buf, len, "seed %s: %.3gx, %s, %u thread%s on %s", s->thread, seed_gain(s),
			 s->benchmark, s->threads, s->threads == 1 ? "" : "s", s->machine);
		return buf;
	}
	return NULL;
}

static void print_ratio(const struct gup_bench *b, const struct gup_combo *first,
			const struct gup_combo *other, bool variants)
{
	const struct gup_options *o = b->opts;
	struct combo_stats a, z;
	struct stats_ratio r;
	char ci[64] = "", text[512];
	const char *seed;

	combo_stats(b, first, &a);
	combo_stats(b, other, &z);
	if (z.get_mean_us <= 0 || z.get_median_us <= 0 || get_ratio(b, first, other, &r))
		return;
	if (isfinite(r.lo))
		snprintf(ci, sizeof(ci), " [95%% CI %.2f-%.2f]", r.lo, r.hi);
	seed = seed_figure(o, variants ? first->variant : first->check,
			   variants ? other->variant : other->check, variants,
			   first->mode, text, sizeof(text));
	printf("# %s / %s, %s%s%s: %.2fx by mean get time, %.2fx by median get per page%s%s%s%s\n",
	       variants ? gup_flag_update_names[first->variant] : gup_longterm_check_names[first->check],
	       variants ? gup_flag_update_names[other->variant] : gup_longterm_check_names[other->check],
	       mode_names[first->mode],
	       variants && check_matters(o) ? ", " : "",
	       variants && check_matters(o) ? gup_longterm_check_names[first->check] : "",
	       a.get_mean_us / z.get_mean_us, r.ratio, ci,
	       seed ? " (" : "", seed ? seed : "", seed ? ")" : "");
}

static void print_ratios(const struct gup_bench *b)
{
	const struct gup_options *o = b->opts;

	for (unsigned int i = 0; i < b->nr_combos; i++) {
		const struct gup_combo *c = &b->combos[i];

		for (unsigned int k = 0; k < b->nr_combos; k++) {
			const struct gup_combo *f = &b->combos[k];

			if (f->mode != c->mode)
				continue;
			if (f->check == c->check && f->variant == o->variants[0] &&
			    c->variant != o->variants[0])
				print_ratio(b, f, c, true);
			if (check_matters(o) && f->variant == c->variant &&
			    f->check == o->checks[0] && c->check != o->checks[0])
				print_ratio(b, f, c, false);
		}
	}
}

/* How often the slow path, the seqcount retry and the recheck ran. */
static void print_paths(const struct gup_bench *b, const struct gup_combo *c)
{
	struct gup_stats sum = { 0 };

	for (unsigned int t = 0; t < b->opts->threads; t++) {
		const struct gup_stats *st = &c->tasks[t].stats;

		sum.fast_calls += st->fast_calls;
		sum.slow_path_calls += st->slow_path_calls;
		sum.seq_retries += st->seq_retries + st->seq_busy;
		sum.recheck_failures += st->recheck_failures;
		sum.longterm_rejects += st->longterm_rejects;
		sum.longterm_migrations += st->longterm_migrations;
	}
	if (!sum.slow_path_calls && !b->opts->writer)
		return;
	printf("#   %llu fast calls, %llu slow-path calls, %llu seqcount retries, %llu recheck failures, "
	       "%llu longterm rejects, %llu CMA migrations, %llu writer changes\n",
	       (unsigned long long)sum.fast_calls, (unsigned long long)sum.slow_path_calls,
	       (unsigned long long)sum.seq_retries, (unsigned long long)sum.recheck_failures,
	       (unsigned long long)sum.longterm_rejects,
	       (unsigned long long)sum.longterm_migrations,
	       (unsigned long long)c->writer_changes);
}

/*
 * Mean and spread of the get times as seed 000 summarised them ("Old
 * kernel: 477729.97 (+-3.79%)"), the median, and get and put per page
 * apart: the seeds quote get times, so get and put are never added.
 */
static void gup_print_summary(const struct gup_bench *b)
{
	const struct gup_options *o = b->opts;
	char per_call[32];

	if (o->pages_per_call < 0)
		snprintf(per_call, sizeof(per_call), "the whole buffer");
	else
		snprintf(per_call, sizeof(per_call), "%ld page%s", o->pages_per_call,
			 o->pages_per_call > 1 ? "s" : "");
	printf("# %s, %lu MiB of %s pages, %s per call, %u thread%s, %u repeat%s%s\n",
	       cmd_names[o->cmd], o->mib, o->page_size == GUP_PAGES_2M ? "2M THP" : "4K",
	       per_call, o->threads, o->threads > 1 ? "s" : "", o->repeats,
	       o->repeats > 1 ? "s" : "", b->nr_combos > 1 ? ", interleaved" : "");
	printf("# get ns/page: per repeat, the median over stretches of %d pages of the get loop\n"
	       "# (an interrupt lands in one stretch, not in the figure); put ns/page: put / pages;\n"
	       "# each the median over threads and repeats\n", GUP_STRETCH_PAGES);
	printf("# %-18s %-8s %-12s %24s %12s %10s %12s %12s\n", "variant", "mode", "longterm",
	       "get us: mean (+-sd)", "median", "put us", "get ns/page", "put ns/page");
	for (unsigned int i = 0; i < b->nr_combos; i++) {
		const struct gup_combo *c = &b->combos[i];
		struct combo_stats st;
		char mean[40];

		combo_stats(b, c, &st);
		snprintf(mean, sizeof(mean), "%.2f (+-%.2f%%)", st.get_mean_us, st.get_sd_pct);
		printf("# %-18s %-8s %-12s %24s %12.2f %10.2f %12.2f %12.2f\n",
		       gup_flag_update_names[c->variant], mode_names[c->mode],
		       check_matters(o) ? gup_longterm_check_names[c->check] : "-",
		       mean, st.get_median_us, st.put_mean_us, st.get_ns_per_page,
		       st.put_ns_per_page);
		print_paths(b, c);
	}
	print_ratios(b);
}

static int run_bench(struct gup_bench *b)
{
	struct gup_worker *w = calloc(b->opts->threads, sizeof(*w));
	int started, ret;

	if (!w)
		return runtime_error("gup: out of memory for %u threads", b->opts->threads);
	pthread_barrier_init(&b->start, NULL, b->opts->threads + 1);
	pthread_barrier_init(&b->done, NULL, b->opts->threads + 1);
	pthread_mutex_init(&b->print_lock, NULL);
	started = start_workers(b, w);
	if (started < 0) {
		fprintf(stderr, "bouncelab: gup: cannot start thread %d\n", -started - 1);
		free(w);
		return EXIT_RUNTIME;	/* the started threads are left waiting */
	}
	run_all(b);
	b->quit = true;
	pthread_barrier_wait(&b->start);
	for (unsigned int t = 0; t < b->opts->threads; t++) {
		pthread_join(w[t].tid, NULL);
		free(w[t].pages);
		free(w[t].stretches.ns_per_page);
	}
	free(w);
	fflush(stdout);
	if (atomic_load(&b->failed))
		return runtime_error("%s", b->failure);
	ret = check_combos(b);
	if (!ret && (b->opts->summary || b->nr_combos > 1) &&
	    b->opts->cmd != GUP_BASIC_TEST && b->opts->cmd != PIN_BASIC_TEST)
		gup_print_summary(b);
	return ret;
}

int cmd_gup(int argc, char **argv)
{
	struct gup_options o = {
		.cmd = GUP_FAST_BENCHMARK, .mib = 128, .pages_per_call = 1,
		.repeats = 1, .threads = 1, .page_size = GUP_PAGES_4K, .write = true,
		.nr_variants = 1, .variants = { GUP_TEST_THEN_SET_BIT },
		.nr_modes = 1, .modes = { MODE_SHARED },
		.nr_checks = 1, .checks = { GUP_LONGTERM_IN_WALK },
	};
	struct gup_bench *b;
	char err[256];
	int ret;

	ret = parse_options(argc, argv, &o);
	if (ret)
		return ret == 1 ? 0 : ret;
	if (o.nr_variants * o.nr_modes * o.nr_checks > GUP_MAX_COMBOS)
		return usage_error("gup: %u combinations of --variant, --mode and --longterm-check: expected at most %d",
				   o.nr_variants * o.nr_modes * o.nr_checks, GUP_MAX_COMBOS);
	b = calloc(1, sizeof(*b));
	if (!b)
		return runtime_error("gup: out of memory");
	b->opts = &o;
	b->topo = topo_open(NULL, err, sizeof(err));
	if (!b->topo) {
		free(b);
		return topo_from_user(NULL) ? usage_error("%s", err) : runtime_error("%s", err);
	}
	if (o.threads > topo_nr_allowed_cpus(b->topo))
		ret = usage_error("gup: -j '%u': expected 1 to %u threads, one per allowed CPU",
				  o.threads, topo_nr_allowed_cpus(b->topo));
	else if (topo_plan(b->topo, "compact", o.threads, &b->placement, err, sizeof(err)))
		ret = usage_error("gup: -j '%u': %s", o.threads, err);
	else
		ret = plan_combos(b);
	if (!ret)
		ret = run_bench(b);
	free_combos(b);
	topo_close(b->topo);
	free(b);
	return ret;
}
