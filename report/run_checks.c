// SPDX-License-Identifier: GPL-2.0-only
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "run_checks.h"

bool case_shares_cpus(const struct results *set, const struct result_case *c)
{
	long cpus = c->family ? results_allowed_cpus(&set->files[c->file]) : 0;

	return cpus > 0 && c->threads > cpus;
}

struct run_tally {
	size_t cases, noisy, shared;
	double load;		/* the highest 1-minute load over CPUs */
	double load_avg;
	long cpus;
	/* that file's build_ended_s_before (a build just before it), or -1 */
	long build_s;
};

static void tally(const struct report_input *in, struct run_tally *t)
{
	const struct result_cases *cases = in->a->cases;

	memset(t, 0, sizeof(*t));
	t->build_s = -1;
	for (size_t i = 0; i < cases->nr; i++) {
		const struct result_case *c = &cases->cases[i];

		if (!c->family || c->n < 2)
			continue;
		t->cases++;
		t->noisy += c->ns_stats.noisy;
		t->shared += case_shares_cpus(in->set, c);
	}
	for (unsigned int f = 0; f < in->set->nr_files; f++) {
		json_t *ctx = in->set->files[f].context;
		json_t *load = json_array_get(json_object_get(ctx, "load_avg"), 0);
		json_t *build = json_object_get(ctx, "build_ended_s_before");
		long cpus = results_allowed_cpus(&in->set->files[f]);

		if (json_is_number(load) && cpus > 0 &&
		    json_number_value(load) / (double)cpus > t->load) {
			t->load = json_number_value(load) / (double)cpus;
			t->load_avg = json_number_value(load);
			t->cpus = cpus;
			t->build_s = json_is_integer(build) && json_integer_value(build) >= 0 ?
				     (long)json_integer_value(build) : -1;
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
	bool noisy, busy, build;

	tally(in, &t);
	noisy = t.cases && (double)t.noisy > RUN_NOISY_SHARE * (double)t.cases;
	busy = t.load > RUN_BUSY_LOAD;
	build = busy && t.build_s >= 0;
	if (build && !noisy) {
		fputs("> **Note: your build just ran.**", out);
		write_build_load(out, &t);
		fputs("\n\n", out);
	} else if (noisy || busy) {
		fputs("> **Warning: a noisy run.**", out);
		if (noisy)
			fprintf(out, " %zu of %zu results are flagged *noisy* (their repetitions vary by more "
				"than %.0f%%).", t.noisy, t.cases, STATS_NOISY_CV * 100);
		if (build)
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

/*
 * Each case's ns/op repetitions in one file, by benchmark name, from the
 * file itself: files of one machine are pooled into one set of cases, so
 * the cases no longer say which file a repetition came from.
 */
static json_t *file_samples(const struct result_file *file)
{
	json_t *by_name = json_object(), *row;
	size_t i;

	json_array_foreach(json_object_get(file->doc, "benchmarks"), i, row) {
		json_t *name = json_object_get(row, "name"), *ns = json_object_get(row, "ns_per_op");
		json_t *list;

		if (!json_is_string(name) || !json_is_number(ns) || json_is_true(json_object_get(row, "error_occurred")) ||
		    !json_is_object(json_object_get(row, "bouncelab")))
			continue;
		list = json_object_get(by_name, json_string_value(name));
		if (!list) {
			list = json_array();
			json_object_set_new(by_name, json_string_value(name), list);
		}
		json_array_append(list, ns);
	}
	return by_name;
}

static int summarize_list(json_t *list, struct stats_summary *s)
{
	size_t n = json_array_size(list), i;
	double *v = calloc(n + 1, sizeof(double));
	json_t *x;
	int ret;

	if (!v)
		return -1;
	json_array_foreach(list, i, x)
		v[i] = json_number_value(x);
	ret = stats_summarize(v, n, s);
	free(v);
	return ret;
}

static void write_file_pair(FILE *out, const struct report_input *in, unsigned int b)
{
	json_t *first = file_samples(&in->set->files[0]), *other = file_samples(&in->set->files[b]);
	double *ratios = calloc(json_object_size(first) + 1, sizeof(double)), far = 0;
	struct stats_summary far_a = { 0 }, far_b = { 0 };
	const char *name, *far_name = NULL;
	size_t n = 0, apart = 0;
	char m[FORMAT_LEN], lo[FORMAT_LEN], hi[FORMAT_LEN], w[FORMAT_LEN];
	json_t *list;

	json_object_foreach(first, name, list) {
		struct stats_summary sa, sb;
		json_t *mine = json_object_get(other, name);
		double r;

		if (!ratios || !mine || summarize_list(list, &sa) || summarize_list(mine, &sb) ||
		    !(sa.median > 0) || !(sb.median > 0))
			continue;
		r = sb.median / sa.median;
		ratios[n++] = r;
		/* Neither interval overlaps the other. */
		apart += sb.ci_lo > sa.ci_hi || sb.ci_hi < sa.ci_lo;
		if (fmax(r, 1 / r) > far) {
			far = fmax(r, 1 / r);
			far_name = name;
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
	json_decref(first);
	json_decref(other);
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
