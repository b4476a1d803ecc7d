// SPDX-License-Identifier: GPL-2.0-only
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "run_checks.h"

static long allowed_cpus(const struct results *set, unsigned int file)
{
	json_t *ctx = set->files[file].context;
	json_t *n = json_object_get(json_object_get(ctx, "topology"), "nr_allowed_cpus");

	if (!json_is_integer(n))
		n = json_object_get(ctx, "num_cpus");
	return json_is_integer(n) ? (long)json_integer_value(n) : 0;
}

bool case_shares_cpus(const struct results *set, const struct result_case *c)
{
	long cpus = c->family ? allowed_cpus(set, c->file) : 0;

	return cpus > 0 && c->threads > cpus;
}

struct run_tally {
	size_t cases, noisy, shared;
	double load;		/* the highest 1-minute load over CPUs */
	double load_avg;
	long cpus;
};

static void tally(const struct report_input *in, struct run_tally *t)
{
	const struct result_cases *cases = in->a->cases;

	memset(t, 0, sizeof(*t));
	for (size_t i = 0; i < cases->nr; i++) {
		const struct result_case *c = &cases->cases[i];

		if (!c->family || c->n < 2)
			continue;
		t->cases++;
		t->noisy += c->ns_stats.noisy;
		t->shared += case_shares_cpus(in->set, c);
	}
	for (unsigned int f = 0; f < in->set->nr_files; f++) {
		json_t *load = json_array_get(json_object_get(in->set->files[f].context, "load_avg"), 0);
		long cpus = allowed_cpus(in->set, f);

		if (json_is_number(load) && cpus > 0 &&
		    json_number_value(load) / (double)cpus > t->load) {
			t->load = json_number_value(load) / (double)cpus;
			t->load_avg = json_number_value(load);
			t->cpus = cpus;
		}
	}
}

void markdown_run_warnings(FILE *out, const struct report_input *in)
{
	struct run_tally t;
	bool noisy, busy;

	tally(in, &t);
	noisy = t.cases && (double)t.noisy > RUN_NOISY_SHARE * (double)t.cases;
	busy = t.load > RUN_BUSY_LOAD;
	if (noisy || busy) {
		fputs("> **Warning: a noisy run.**", out);
		if (noisy)
			fprintf(out, " %zu of %zu results are flagged *noisy* (their repetitions vary by more "
				"than %.0f%%).", t.noisy, t.cases, STATS_NOISY_CV * 100);
		if (busy)
			fprintf(out, " The machine was busy when the run started: load average %.3g on %ld "
				"CPU%s.", t.load_avg, t.cpus, t.cpus == 1 ? "" : "s");
		fputs(" Other work took turns on the CPUs, so intervals are wide and ratios can move "
		      "between runs. Rerun on an idle machine (stop other jobs; on a VM, expect the host's "
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

/* The same case (family, variant, setting, threads) in another file. */
static const struct result_case *same_case(const struct result_cases *cases,
					   const struct result_case *c, unsigned int file)
{
	for (size_t i = 0; i < cases->nr; i++) {
		const struct result_case *o = &cases->cases[i];

		if (o->file == file && o->family && o->threads == c->threads &&
		    !strcmp(o->family, c->family) && !strcmp(o->variant, c->variant) &&
		    !strcmp(o->setting ? o->setting : "", c->setting ? c->setting : ""))
			return o;
	}
	return NULL;
}

static void write_file_pair(FILE *out, const struct report_input *in, unsigned int b)
{
	const struct result_cases *cases = in->a->cases;
	const struct result_case *far_a = NULL, *far_b = NULL;
	double *ratios = calloc(cases->nr + 1, sizeof(double)), far = 0;
	size_t n = 0, apart = 0;
	char m[FORMAT_LEN], lo[FORMAT_LEN], hi[FORMAT_LEN], w[FORMAT_LEN];

	for (size_t i = 0; ratios && i < cases->nr; i++) {
		const struct result_case *a = &cases->cases[i], *o;
		double r;

		if (a->file != 0 || !a->family || !(a->ns_stats.median > 0))
			continue;
		o = same_case(cases, a, b);
		if (!o || !(o->ns_stats.median > 0))
			continue;
		r = o->ns_stats.median / a->ns_stats.median;
		ratios[n++] = r;
		/* Neither median inside the other's interval. */
		apart += o->ns_stats.ci_lo > a->ns_stats.ci_hi || o->ns_stats.ci_hi < a->ns_stats.ci_lo;
		if (fmax(r, 1 / r) > far) {
			far = fmax(r, 1 / r);
			far_a = a;
			far_b = o;
		}
	}
	if (n) {
		stats_sort(ratios, n);
		fputs("| ", out);
		md_code(out, in->files[b]);
		fprintf(out, " | %zu | %s | %s – %s | %zu | ", n,
			format_ratio(m, stats_median_sorted(ratios, n)),
			format_ratio(lo, ratios[0]), format_ratio(hi, ratios[n - 1]), apart);
		md_code(out, far_a->variant);
		fprintf(out, " at %ld thread%s, ", far_a->threads, far_a->threads == 1 ? "" : "s");
		md_escape(out, far_a->setting && *far_a->setting ? far_a->setting : "defaults");
		fprintf(out, ": %s → %s ns/op (%s) |\n", format_sig(lo, far_a->ns_stats.median),
			format_sig(hi, far_b->ns_stats.median), format_ratio(w, far));
	}
	free(ratios);
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
