// SPDX-License-Identifier: GPL-2.0-only
/*
 * bouncelab gup: tools/testing/selftests/mm/gup_test's command line and
 * output, on the mini GUP walker (kernels/gup/, whose gup_test_driver.c
 * does what mm/gup_test.c's ioctl does). See reference/gup-anchors.md
 * section 2. The output is gup_test's kselftest TAP, byte for byte where
 * gup_test prints it, so that it can be diffed against a real kernel's:
 *
 *   TAP version 13
 *   1..<threads>
 *   # PIN_FAST_BENCHMARK: Time: get:<us> put:<us> us#
 *   ok 1 ioctl status 0
 *   # Totals: pass:1 fail:0 xfail:0 xpass:0 skip:0 error:0
 *
 * ksft_print_msg() writes "# " before each of its calls, and gup_test
 * ends a timing line with a call of its own for "\n": hence "us# ".
 *
 * This file parses, calls the driver and prints; the summary of several
 * combinations is gup_summary.c's, which takes its statistics from
 * lib/stats.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "cli.h"
#include "gup_command.h"
#include "gup/gup_test_driver.h"
#include "stats.h"
#include "topo.h"

#define GUP_WRITER_PACE_NS 20000
#define MIB (1UL << 20)

/* kselftest's exit codes (tools/testing/selftests/kselftest.h) */
#define KSFT_PASS 0
#define KSFT_FAIL 1

const char *const gup_mode_names[] = { "shared", "private", NULL };

/*
 * The kernel's gup_flags bits as -F takes them (enum in
 * include/linux/mm_types.h, 6.3 and later), and which the walker models.
 */
static const struct {
	unsigned long bit;
	const char *name;
	unsigned int model;	/* the walker's flag; 0: not modelled */
} kernel_foll_flags[] = {
	{ 1UL << 0, "FOLL_WRITE", FOLL_WRITE },
	{ 1UL << 1, "FOLL_GET", FOLL_GET },
	{ 1UL << 2, "FOLL_DUMP", 0 },
	{ 1UL << 3, "FOLL_FORCE", 0 },
	{ 1UL << 4, "FOLL_NOWAIT", 0 },
	{ 1UL << 5, "FOLL_NOFAULT", 0 },
	{ 1UL << 6, "FOLL_HWPOISON", 0 },
	{ 1UL << 7, "FOLL_ANON", 0 },
	{ 1UL << 8, "FOLL_LONGTERM", FOLL_LONGTERM },
	{ 1UL << 9, "FOLL_SPLIT_PMD", 0 },
	{ 1UL << 10, "FOLL_PCI_P2PDMA", 0 },
	{ 1UL << 11, "FOLL_INTERRUPTIBLE", 0 },
	{ 1UL << 12, "FOLL_HONOR_NUMA_FAULT", 0 },
};


static void gup_usage(FILE *out)
{
	fprintf(out,
		"usage: bouncelab gup [OPTIONS] [PAGE_INDEX...]\n\n"
		"Runs the mini GUP walker as tools/testing/selftests/mm/gup_test runs the\n"
		"kernel: each of -j threads takes the buffer -n pages per call, then gives\n"
		"it back, -r times, and prints gup_test's kselftest TAP:\n"
		"  TAP version 13, 1..<threads>, one '# <CMD>: Time: get:<us> put:<us> us'\n"
		"  line per thread and repeat, 'ok N ioctl status 0' per thread, '# Totals'.\n"
		"Exit status as kselftest's: 0 every thread passed, 1 one failed; 2 bad usage.\n\n"
		"gup_test options:\n"
		"  -u          GUP_FAST_BENCHMARK: get_user_pages_fast() (the default)\n"
		"  -a          PIN_FAST_BENCHMARK: pin_user_pages_fast()\n"
		"  -L          PIN_LONGTERM_BENCHMARK: pin_user_pages(FOLL_LONGTERM), locked\n"
		"  -U          GUP_BASIC_TEST: get_user_pages(), prints \"done\"\n"
		"  -b          PIN_BASIC_TEST: pin_user_pages(), prints \"done\"\n"
		"  -c          DUMP_USER_PAGES_TEST: get_user_pages() and show the pages at\n"
		"              the 0-based PAGE_INDEXes (default 0, at most 8)\n"
		"  -p          with -c: pin_user_pages() instead\n"
		"  -m MIB      buffer size in MiB (default 128)\n"
		"  -n PAGES    pages per call (default 1; negative: the buffer's pages as -m\n"
		"              stands when -n is read)\n"
		"  -r N        repeats (default 1)\n"
		"  -j N        threads (default 1); more than the CPUs share them\n"
		"  -t, -T      MADV_HUGEPAGE: 2M THP leaves / MADV_NOHUGEPAGE: 4K (default 4K)\n"
		"  -w, -W      FOLL_WRITE (default) / no FOLL_WRITE\n"
		"  -F FLAGS    the kernel's gup_flags (0x1 FOLL_WRITE, 0x2 FOLL_GET,\n"
		"              0x100 FOLL_LONGTERM: the bits the walker models)\n"
		"  -f FILE     the file to map (default /dev/zero; a regular file at least\n"
		"              -m MiB long)\n"
		"  -S          MAP_SHARED: shmem for /dev/zero, page cache for a file\n"
		"  -H          MAP_HUGETLB: 2M hugetlb leaves (-m a multiple of 2)\n\n"
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

/*
 * -F: strtol(optarg, 0, 0) as gup_test reads it, then each bit the
 * walker does not model refused by name.
 */
static int parse_gup_flags(const char *arg, unsigned int *model)
{
	unsigned long known = 0;
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 0);
	if (errno || end == arg || *end || v < 0 || v > 0xffffffffL)
		return usage_error("gup: -F '%s': expected gup_flags as a number (0x1 FOLL_WRITE, 0x2 FOLL_GET, 0x100 FOLL_LONGTERM)",
				   arg);
	*model = 0;
	for (size_t i = 0; i < sizeof(kernel_foll_flags) / sizeof(kernel_foll_flags[0]); i++) {
		known |= kernel_foll_flags[i].bit;
		if (!((unsigned long)v & kernel_foll_flags[i].bit))
			continue;
		if (!kernel_foll_flags[i].model)
			return usage_error("gup: -F '%s': bit %#lx (%s) is not modelled by the walker: expected bits of 0x103 (FOLL_WRITE, FOLL_GET, FOLL_LONGTERM)",
					   arg, kernel_foll_flags[i].bit, kernel_foll_flags[i].name);
		*model |= kernel_foll_flags[i].model;
	}
	if ((unsigned long)v & ~known) {
		unsigned long bit = (unsigned long)v & ~known;

		bit &= -bit;
		return usage_error("gup: -F '%s': bit %#lx is no gup_flags bit callers may pass: expected bits of 0x103 (FOLL_WRITE, FOLL_GET, FOLL_LONGTERM)",
				   arg, bit);
	}
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
		/* gup_test: nr_pages = size / psize(), with size as -m stands now */
		o->cfg.pages_per_call = v < 0 ? o->mib * MIB / GUP_PAGE_SIZE : (unsigned long)v;
		return 0;
	case 'r':
		if (parse_long(arg, 1, 100000, &v))
			return usage_error("gup: -r '%s': expected repeats from 1 to 100000", arg);
		o->cfg.repeats = (unsigned int)v;
		return 0;
	case 'j':
		if (parse_long(arg, 1, KERNEL_MAX_THREADS, &v))
			return usage_error("gup: -j '%s': expected threads from 1 to %d",
					   arg, KERNEL_MAX_THREADS);
		o->cfg.threads = (unsigned int)v;
		return 0;
	default:
		if (parse_long(arg, 0, 100, &v))
			return usage_error("gup: --cma '%s': expected a percentage from 0 to 100", arg);
		o->cfg.cma_percent = (unsigned int)v;
		return 0;
	}
}

static int parse_flag_option(int c, struct gup_options *o)
{
	switch (c) {
	case 'a': o->cfg.cmd = PIN_FAST_BENCHMARK; break;
	case 'u': o->cfg.cmd = GUP_FAST_BENCHMARK; break;
	case 'L': o->cfg.cmd = PIN_LONGTERM_BENCHMARK; break;
	case 'U': o->cfg.cmd = GUP_BASIC_TEST; break;
	case 'b': o->cfg.cmd = PIN_BASIC_TEST; break;
	case 'c':
		o->cfg.cmd = DUMP_USER_PAGES_TEST;
		/* page 0, stored 1-based; page indexes after the options replace it */
		o->cfg.which_pages[0] = 1;
		break;
	case 'p': o->use_pin = true; break;
	case 't': o->huge = true; break;
	case 'T': o->huge = false; break;
	case 'w': o->write = true; break;
	case 'W': o->write = false; break;
	case 'S': o->shared = true; break;
	case 'H': o->hugetlb = true; break;
	case 'l': o->longterm = true; break;
	default: return -1;
	}
	return 0;
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
	/* gup_test's getopt string, plus -l and -h; page indexes may come anywhere */
	while ((c = getopt_long(argc, argv, "m:r:n:F:f:abcj:tTLUuwWSHpzlh",
				longopts, NULL)) != -1) {
		ret = 0;
		switch (c) {
		case 'm': case 'n': case 'r': case 'j': case OPT_CMA:
			ret = parse_number_option(c, optarg, o);
			break;
		case 'F':
			ret = parse_gup_flags(optarg, &o->raw_flags);
			break;
		case 'f':
			o->file = optarg;
			break;
		case OPT_WRITER: o->cfg.writer = true; break;
		case OPT_SUMMARY: o->summary = true; break;
		case OPT_VARIANT:
			ret = parse_name_list("--variant", optarg, gup_flag_update_names,
					      o->variants, NR_GUP_FLAG_UPDATES, &o->nr_variants);
			break;
		case OPT_MODE:
			ret = parse_name_list("--mode", optarg, gup_mode_names, o->modes, 2,
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
			/* in gup_test's getopt string, but no case of its switch */
			return usage_error("gup: option '-z': expected a gup_test option (gup_test itself answers \"Wrong argument\")");
		default:
			if (parse_flag_option(c, o))
				return bad_option(argv, "gup");
		}
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * gup_test's non-option arguments: 0-based page indexes for -c, stored
 * 1-based in which_pages[] (strtol(.., 0, 0), so 0x1001 works too).
 */
static int parse_page_indexes(int argc, char **argv, struct gup_options *o)
{
	unsigned int n = 0;

	for (int i = optind; i < argc; i++) {
		char *end;
		long v;

		errno = 0;
		v = strtol(argv[i], &end, 0);
		if (o->cfg.cmd != DUMP_USER_PAGES_TEST || errno || end == argv[i] || *end)
			return usage_error("gup: unexpected argument '%s': expected 0-based page indexes, and those only after -c (DUMP_USER_PAGES_TEST)",
					   argv[i]);
		if (v < 0 || v >= (long)(o->mib * MIB / GUP_PAGE_SIZE))
			return usage_error("gup: page index '%s': expected 0 to %lu, a page of the %lu MiB buffer",
					   argv[i], o->mib * MIB / GUP_PAGE_SIZE - 1, o->mib);
		if (n == GUP_TEST_MAX_PAGES_TO_DUMP)
			return usage_error("gup: page index '%s': expected at most %d page indexes (GUP_TEST_MAX_PAGES_TO_DUMP)",
					   argv[i], GUP_TEST_MAX_PAGES_TO_DUMP);
		o->cfg.which_pages[n++] = (unsigned int)v + 1;
	}
	for (unsigned int k = n ? n : GUP_TEST_MAX_PAGES_TO_DUMP; k < GUP_TEST_MAX_PAGES_TO_DUMP; k++)
		o->cfg.which_pages[k] = 0;
	return 0;
}

/*
 * What gup_test's mmap() of -f with -S and -H gives the walk. The file
 * must open for reading and writing, as gup_test opens it, and a regular
 * file must be as long as the buffer: gup_test's fault-in loop writes
 * every page, and past the end of a file that is SIGBUS.
 */
static int choose_backing(struct gup_options *o)
{
	const char *file = o->file ? o->file : "/dev/zero";
	struct stat st;
	int fd, ret;

	fd = open(file, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return usage_error("gup: -f '%s': %s: expected a file to map for reading and writing",
				   file, strerror(errno));
	ret = fstat(fd, &st);
	close(fd);
	if (ret)
		return usage_error("gup: -f '%s': %s: expected a file to map", file, strerror(errno));
	if (S_ISCHR(st.st_mode) && major(st.st_rdev) == 1 && minor(st.st_rdev) == 5) {
		o->cfg.backing = o->shared ? GUP_BACKING_SHMEM : GUP_BACKING_ANON;
	} else if (S_ISREG(st.st_mode)) {
		if (!o->hugetlb &&
		    (unsigned long long)st.st_size < (unsigned long long)o->mib * MIB)
			return usage_error("gup: -f '%s': %lld bytes: expected at least the %lu MiB of -m (the fault-in past the end is SIGBUS)",
					   file, (long long)st.st_size, o->mib);
		/* private: gup_test's fault-in write copies every page */
		o->cfg.backing = o->shared ? GUP_BACKING_FILE : GUP_BACKING_ANON;
	} else {
		return usage_error("gup: -f '%s': expected /dev/zero or a regular file", file);
	}
	/* MAP_HUGETLB | MAP_ANONYMOUS: the file is opened, then not mapped */
	if (o->hugetlb) {
		if (o->mib % 2)
			return usage_error("gup: -m '%lu' with -H: expected a multiple of 2 MiB (the walker maps whole 2M hugetlb pages)",
					   o->mib);
		o->cfg.backing = GUP_BACKING_HUGETLB;
	}
	return 0;
}

/* The options together: what one alone cannot tell. */
static int finish_options(int argc, char **argv, struct gup_options *o)
{
	struct gup_test_config *cfg = &o->cfg;
	int ret;

	if (o->use_pin && cfg->cmd != DUMP_USER_PAGES_TEST)
		return usage_error("gup: option '-p': expected with -c (it makes DUMP_USER_PAGES_TEST pin)");
	ret = parse_page_indexes(argc, argv, o);
	if (!ret)
		ret = choose_backing(o);
	if (ret)
		return ret;
	if (o->nr_variants * o->nr_modes * o->nr_checks > GUP_TEST_MAX_COMBOS)
		return usage_error("gup: %u combinations of --variant, --mode and --longterm-check: expected at most %d",
				   o->nr_variants * o->nr_modes * o->nr_checks, GUP_TEST_MAX_COMBOS);
	cfg->buffer_bytes = o->mib * MIB;
	cfg->page_size = o->huge || o->hugetlb ? GUP_PAGES_2M : GUP_PAGES_4K;
	cfg->dump_use_pin = o->use_pin;
	cfg->writer_pace_ns = GUP_WRITER_PACE_NS;
	/* gup_test: gup.gup_flags = -F; if (write) gup.gup_flags |= FOLL_WRITE */
	cfg->gup_flags = o->raw_flags | (o->write ? FOLL_WRITE : 0) |
			 (o->longterm ? FOLL_LONGTERM : 0);
	for (unsigned int m = 0; m < o->nr_modes; m++)
		for (unsigned int k = 0; k < o->nr_checks; k++)
			for (unsigned int v = 0; v < o->nr_variants; v++)
				cfg->combos[cfg->nr_combos++] = (struct gup_test_combo_key){
					.variant = (enum gup_flag_update)o->variants[v],
					.private_buffers = o->modes[m] == MODE_PRIVATE,
					.check = (enum gup_longterm_check)o->checks[k],
				};
	return 0;
}

/* ---- printing, as gup_test and kselftest.h print ------------------------ */

/* gup_thread(): ksft_print_msg() calls, each "# " and its text. */
static void print_sample(void *arg, unsigned int thread, unsigned int combo,
			 const struct gup_test_sample *s)
{
	const struct gup_printer *p = arg;
	const char *name = gup_test_cmd_names[p->opts->cfg.cmd];

	(void)thread;
	(void)combo;
	if (gup_test_cmd_is_benchmark(p->opts->cfg.cmd)) {
		printf("# %s: Time: get:%llu put:%llu us", name,
		       (unsigned long long)s->get_usec, (unsigned long long)s->put_usec);
		if (s->size != s->full_size)
			printf("# , truncated (size: %lu)", s->size);
		printf("# \n");
	} else {
		printf("# %s: done\n", name);
		if (s->size != s->full_size)
			printf("# Truncated (size: %lu)\n", s->size);
	}
}

/*
 * dump_pages_test(): the kernel's pr_warn() and pr_info() lines, and in
 * place of dump_page() (which goes to the kernel log) the walker's facts
 * about the page, all as "# " lines.
 */
static void print_page_dump(void *arg, unsigned int thread,
			    const struct gup_test_page_dump *d)
{
	(void)arg;
	(void)thread;
	if (d->out_of_range) {
		printf("# ZEROING due to out of range: .which_pages[%u]: %u\n", d->slot, d->which);
		return;
	}
	printf("# ---- page #%lu, starting from user virt addr: 0x%lx\n", d->index, d->start);
	printf("# page: refcount:%d pincount:%d pfn:0x%lx order:%u %s maybe_dma_pinned:%d\n",
	       d->refcount, d->pincount, d->pfn, d->order, gup_backing_names[d->backing],
	       d->maybe_dma_pinned);
	printf("# page dumped because: gup_test: dump_pages() test\n");
}

static int bind_thread(void *arg, unsigned int t)
{
	const struct gup_printer *p = arg;

	/* more threads than CPUs: they take the CPUs in turn */
	return topo_bind_self(p->topo, p->placement.cpus[t % p->placement.nr_cpus]);
}

/* ksft_print_cnts() */
static void print_totals(unsigned int pass, unsigned int fail)
{
	printf("# Totals: pass:%u fail:%u xfail:0 xpass:0 skip:0 error:0\n", pass, fail);
}

/* ---- the run ------------------------------------------------------------ */

/*
 * Threads over CPUs: compact placement of as many as there are CPUs, the
 * rest taking those CPUs in turn. gup_test does not cap -j (seed 000 ran
 * -j 40), so neither does this; the line says what the numbers share.
 */
static int plan_threads(struct gup_printer *p, char *note, size_t len)
{
	unsigned int threads = p->opts->cfg.threads;
	unsigned int cpus = topo_nr_allowed_cpus(p->topo);
	unsigned int placed = threads < cpus ? threads : cpus;
	char err[256];

	note[0] = '\0';
	if (topo_plan(p->topo, "compact", placed, &p->placement, err, sizeof(err)))
		return usage_error("gup: -j '%u': %s", threads, err);
	if (threads > cpus)
		snprintf(note, len,
			 "# %u threads on %u allowed CPU%s: threads share CPUs, up to %u on one (gup_test does not cap -j)\n",
			 threads, cpus, cpus == 1 ? "" : "s", (threads + cpus - 1) / cpus);
	return 0;
}

/* From the TAP header to the exit status, as gup_test's main() and ksft_finished(). */
static int run_and_print(struct gup_printer *p, const char *note)
{
	const struct gup_options *o = p->opts;
	unsigned int pass = 0, fail = 0;
	char err[256], why[160];
	int status;

	/* ksft_print_header(): line by line, so a long run shows each line as it comes */
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("TAP version 13\n1..%u\n%s", o->cfg.threads, note);
	fflush(stdout);
	if (gup_test_run(p->test, err, sizeof(err))) {
		/* ksft_exit_fail_msg() */
		printf("Bail out! %s\n", err);
		print_totals(0, 0);
		fflush(stdout);
		return runtime_error("%s", err);
	}
	for (unsigned int t = 0; t < o->cfg.threads; t++) {
		if (gup_test_thread_passed(p->test, t, &status, why, sizeof(why))) {
			printf("ok %u ioctl status %d\n", pass + fail + 1, status);
			pass++;
			continue;
		}
		/* the kernel WARNs in its log and still returns 0 */
		printf("# thread %u: %s\n", t, why);
		printf("not ok %u ioctl status %d\n", pass + fail + 1, status);
		fail++;
	}
	if (!fail && (o->summary || o->cfg.nr_combos > 1) && gup_test_cmd_is_benchmark(o->cfg.cmd))
		gup_print_summary(p);
	print_totals(pass, fail);
	return pass == o->cfg.threads ? KSFT_PASS : KSFT_FAIL;
}

int cmd_gup(int argc, char **argv)
{
	struct gup_options o = {
		.cfg = {
			.cmd = GUP_FAST_BENCHMARK, .pages_per_call = 1, .repeats = 1,
			.threads = 1,
		},
		.mib = 128, .write = true,
		.nr_variants = 1, .variants = { GUP_TEST_THEN_SET_BIT },
		.nr_modes = 1, .modes = { MODE_SHARED },
		.nr_checks = 1, .checks = { GUP_LONGTERM_IN_WALK },
	};
	struct gup_printer p = { .opts = &o };
	struct gup_test_ops ops = {
		.arg = &p,
		.bind_thread = bind_thread,
		.median = stats_median,
		.sample = print_sample,
		.dump_page = print_page_dump,
	};
	char err[256], note[160];
	int ret;

	ret = parse_options(argc, argv, &o);
	if (ret)
		return ret == 1 ? 0 : ret;
	ret = finish_options(argc, argv, &o);
	if (ret)
		return ret;
	p.topo = topo_open(NULL, err, sizeof(err));
	if (!p.topo)
		return topo_from_user(NULL) ? usage_error("%s", err) : runtime_error("%s", err);
	ret = plan_threads(&p, note, sizeof(note));
	if (!ret) {
		p.test = gup_test_create(&o.cfg, &ops, err, sizeof(err));
		ret = p.test ? run_and_print(&p, note) : runtime_error("%s", err);
	}
	gup_test_destroy(p.test);
	topo_close(p.topo);
	return ret;
}
