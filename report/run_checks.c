// SPDX-License-Identifier: GPL-2.0-only
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "run_checks.h"

bool case_shares_cpus(const struct results *set, const struct result_case *c)
{
	long cpus = c->family ? set->files[c->file].run.allowed_cpus : 0;

	return cpus > 0 && c->threads > cpus;
}

struct run_tally {
	size_t cases, noisy, shared;
	double load;		/* the highest 1-minute load over CPUs */
	double load_avg;
	long cpus;
	/* that file's build_ended_s_before (a build just before it), or -1 */
	long build_s;
	double cpu_share;	/* the least over files; NAN: none measured */
};

static void tally(const struct report_input *in, struct run_tally *t)
{
	const struct result_cases *cases = in->a->cases;

	memset(t, 0, sizeof(*t));
	t->build_s = -1;
	t->cpu_share = NAN;
	for (size_t i = 0; i < cases->nr; i++) {
		const struct result_case *c = &cases->cases[i];

		if (!c->family || c->n < 2)
			continue;
		t->cases++;
		t->noisy += c->ns_stats.noisy;
		t->shared += case_shares_cpus(in->set, c);
	}
	for (unsigned int f = 0; f < in->set->nr_files; f++) {
		const struct run_context *run = &in->set->files[f].run;
		double load = run->nr_load_avg ? run->load_avg[0] : NAN;
		long cpus = in->set->files[f].run.allowed_cpus;

		/* fmin() passes over a file that did not measure it (NAN) */
		t->cpu_share = fmin(t->cpu_share, in->set->files[f].run.cpu_share);

		if (!isnan(load) && cpus > 0 && load / (double)cpus > t->load) {
			t->load = load / (double)cpus;
			t->load_avg = load;
			t->cpus = cpus;
			t->build_s = in->set->files[f].run.build_ended_s_before;
		}
	}
}

/*
 * A busy start right after the build scripts/lab run did: the load average
 * is a 1-minute mean and still holds the build, which had ended. That is
 * no sign of other work.
 */
static void write_build_load(FILE *out, const struct run_tally *t)
{
	fprintf(out, " Your build just ran: the load average when the run started, %.3g on %ld CPU%s, "
		"still counts the build that `scripts/lab run` finished %ld s before it (a load average "
		"is a mean over the last minute), though the build no longer ran beside the run. A "
		"second `scripts/lab run`, with nothing to build, starts without it; if it warns of a "
		"busy machine again, other work was running.", t->load_avg, t->cpus,
		t->cpus == 1 ? "" : "s", t->build_s);
}

/* Whether a file's rounds fell into several of the host's modes. */
static bool host_moved(const struct report_input *in)
{
	for (unsigned int f = 0; f < in->set->nr_files; f++)
		if (in->a->modes && in->a->modes[f].nr >= 2)
			return true;
	return false;
}

void markdown_run_warnings(FILE *out, const struct report_input *in)
{
	struct run_tally t;
	bool noisy, busy, build, taken;

	tally(in, &t);
	noisy = t.cases && (double)t.noisy > RUN_NOISY_SHARE * (double)t.cases;
	taken = t.cpu_share < RUN_MIN_CPU_SHARE;
	busy = t.load > RUN_BUSY_LOAD || taken;
	build = busy && !taken && t.build_s >= 0;
	if (build && !noisy) {
		fputs("> **Note: your build just ran.**", out);
		write_build_load(out, &t);
		fputs("\n\n", out);
	} else if (noisy || busy) {
		fputs("> **Warning: a noisy run.**", out);
		if (noisy)
			fprintf(out, " %zu of %zu results are flagged *noisy* (their repetitions vary by more "
				"than %.0f%%).", t.noisy, t.cases, STATS_NOISY_CV * 100);
		if (taken)
			fprintf(out, " Other work held the CPUs as the run started: a thread spinning on "
				"each got %.0f%% of its time, where a case's threads need theirs together "
				"(its 2-thread claims are not tested below %.0f%%).",
				100 * t.cpu_share, 100 * RUN_MIN_CPU_SHARE);
		else if (build)
			write_build_load(out, &t);
		else if (busy)
			fprintf(out, " The machine was busy when the run started: load average %.3g on %ld "
				"CPU%s.", t.load_avg, t.cpus, t.cpus == 1 ? "" : "s");
		/* never blame other work for what the run itself saw the host do */
		if (busy && !build)
			fputs(" Other work took turns on the CPUs, so intervals are wide and ratios can "
			      "move between runs.", out);
		else if (host_moved(in))
			fputs(" The host moved the vCPUs between placements during the run (the summary "
			      "names the modes): a case's repetitions differ with each round's placement, "
			      "so intervals are wide and ratios can move between runs.", out);
		else
			fputs(" Intervals are wide, so ratios can move between runs.", out);
		fputs(" Rerun on an idle machine (stop other jobs; on a VM, expect the host's "
		      "tenants to add noise), give it more repetitions (`bouncelab run --repetitions 21`), "
		      "and compare the two runs: `bouncelab report first.json second.json` says how far "
		      "apart they are.\n\n", out);
	}
	if (t.shared)
		fprintf(out, "> **Warning: threads shared CPUs.** %zu result%s ran more threads than the run "
			"could use CPUs (flagged *shared CPUs*): their threads took turns, so their ns/op "
			"includes time slices, not only cache-line transfers.\n\n", t.shared,
			t.shared == 1 ? "" : "s");
}

/* One case's ns/op repetitions in one results file. */
struct named_samples {
	const char *name;
	size_t first_row;	/* where the file first names it */
	size_t n;
	double *ns;
};

/*
 * Each case's repetitions in one file, sorted by name (for lookups), and
 * the same cases in the order the file first names them (for the text).
 * Read from the file's own rows (result_file's range): files of one
 * machine are pooled into one set of cases, which no longer says which
 * file a repetition came from.
 */
struct file_samples {
	size_t nr;
	struct named_samples *by_name;
	struct named_samples **in_order;
	double *pool;
};

static int compare_named(const void *a, const void *b)
{
	const struct named_samples *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : (x->first_row > y->first_row) - (x->first_row < y->first_row);
}

static int compare_first_row(const void *a, const void *b)
{
	const struct named_samples *x = *(struct named_samples *const *)a;
	const struct named_samples *y = *(struct named_samples *const *)b;

	return (x->first_row > y->first_row) - (x->first_row < y->first_row);
}

static void file_samples_free(struct file_samples *fs)
{
	free(fs->by_name);
	free(fs->in_order);
	free(fs->pool);
	memset(fs, 0, sizeof(*fs));
}

static int file_samples(const struct results *set, unsigned int file, struct file_samples *fs)
{
	const struct result_file *f = &set->files[file];
	size_t rows = f->end_row - f->first_row, n = 0, i = 0;
	struct named_samples *each;

	memset(fs, 0, sizeof(*fs));
	each = calloc(rows + 1, sizeof(*each));
	fs->by_name = calloc(rows + 1, sizeof(*fs->by_name));
	fs->in_order = calloc(rows + 1, sizeof(*fs->in_order));
	fs->pool = calloc(rows + 1, sizeof(*fs->pool));
	if (!each || !fs->by_name || !fs->in_order || !fs->pool) {
		free(each);
		file_samples_free(fs);
		return -1;
	}
	/* our own repetitions only: not another tool's rows, nor aggregates */
	for (size_t k = f->first_row; k < f->end_row; k++) {
		const struct result_row *r = &set->rows[k];

		if (r->family && !r->aggregate && isfinite(r->ns_per_op))
			each[n++] = (struct named_samples){ r->name, k, 1, NULL };
	}
	qsort(each, n, sizeof(*each), compare_named);
	while (i < n) {
		struct named_samples *c = &fs->by_name[fs->nr];
		size_t j = i;

		*c = (struct named_samples){ each[i].name, each[i].first_row, 0,
					     fs->pool + i };
		for (; j < n && !strcmp(each[j].name, c->name); j++)
			c->ns[c->n++] = set->rows[each[j].first_row].ns_per_op;
		fs->in_order[fs->nr++] = c;
		i = j;
	}
	free(each);
	qsort(fs->in_order, fs->nr, sizeof(*fs->in_order), compare_first_row);
	return 0;
}

static const struct named_samples *find_samples(const struct file_samples *fs, const char *name)
{
	size_t lo = 0, hi = fs->nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(name, fs->by_name[mid].name);

		if (!c)
			return &fs->by_name[mid];
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

static void write_file_pair(FILE *out, const struct report_input *in, unsigned int b)
{
	struct file_samples first, other;
	double *ratios = NULL, far = 0;
	struct stats_summary far_a = { 0 }, far_b = { 0 };
	const char *far_name = NULL;
	size_t n = 0, apart = 0;
	char m[FORMAT_LEN], lo[FORMAT_LEN], hi[FORMAT_LEN], w[FORMAT_LEN];

	if (!file_samples(in->set, 0, &first) && !file_samples(in->set, b, &other)) {
		ratios = calloc(first.nr + 1, sizeof(double));
	} else {
		file_samples_free(&first);
		other = (struct file_samples){ 0 };
	}
	for (size_t k = 0; ratios && k < first.nr; k++) {
		const struct named_samples *a = first.in_order[k];
		const struct named_samples *mine = find_samples(&other, a->name);
		struct stats_summary sa, sb;
		double r;

		if (!mine || stats_summarize(a->ns, a->n, &sa) ||
		    stats_summarize(mine->ns, mine->n, &sb) ||
		    !(sa.median > 0) || !(sb.median > 0))
			continue;
		r = sb.median / sa.median;
		ratios[n++] = r;
		/* Neither interval overlaps the other. */
		apart += sb.ci_lo > sa.ci_hi || sb.ci_hi < sa.ci_lo;
		if (fmax(r, 1 / r) > far) {
			far = fmax(r, 1 / r);
			far_name = a->name;
			far_a = sa;
			far_b = sb;
		}
	}
	if (n) {
		stats_sort(ratios, n);
		fputs("| ", out);
		md_code(out, in->files[b]);
		fprintf(out, " | %zu | %s | %s – %s | %zu | ", n,
			format_ratio(m, stats_median_sorted(ratios, n)),
			format_ratio(lo, ratios[0]), format_ratio(hi, ratios[n - 1]), apart);
		md_code(out, far_name);
		fprintf(out, ": %s → %s ns/op (%s) |\n", format_sig(lo, far_a.median),
			format_sig(hi, far_b.median), format_ratio(w, far));
	} else {
		fputs("| ", out);
		md_code(out, in->files[b]);
		fputs(" | 0 | n/a | n/a | 0 | no case in both files |\n", out);
	}
	free(ratios);
	file_samples_free(&first);
	file_samples_free(&other);
}

void markdown_run_distance(FILE *out, const struct report_input *in)
{
	if (in->set->nr_files < 2)
		return;
	fputs("## The same cases in two results files\n\nHow far apart the files put each case that both "
	      "measured: the other file's median ns/op over the first's (", out);
	md_code(out, in->files[0]);
	fputs("). Two runs on one machine should give ratios near 1x; *apart* counts the cases whose 95% "
	      "intervals do not overlap.\n\n"
	      "| file | cases in both | median ratio | range | apart | farthest case |\n"
	      "|---|---:|---:|---|---:|---|\n", out);
	for (unsigned int b = 1; b < in->set->nr_files; b++)
		write_file_pair(out, in, b);
	fputc('\n', out);
}
