// SPDX-License-Identifier: GPL-2.0-only
/*
 * The report: read and check every input first, compute, render every
 * file in memory, and only then write them all (output.h).
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "cases.h"
#include "latency_map.h"
#include "markdown.h"
#include "output.h"
#include "plots.h"
#include "report.h"
#include "results_read.h"
#include "sweeps.h"

struct report_state {
	struct results set;
	struct result_cases cases;
	struct analysis a;
	struct latency_map latency;
	bool have_latency;
	struct output_batch batch;
};

static int read_inputs(const struct report_options *opts,
		       struct report_state *st, char *err, size_t errlen)
{
	for (unsigned int i = 0; i < opts->nr_files; i++)
		if (results_read(&st->set, opts->files[i], err, errlen))
			return 2;
	if (opts->latency) {
		if (latency_map_read(opts->latency, &st->latency, err, errlen))
			return 2;
		st->have_latency = true;
	}
	if (result_cases_build(&st->set, &st->cases) ||
	    analysis_build(&st->set, &st->cases, &st->a)) {
		snprintf(err, errlen, "out of memory analysing the results");
		return 1;
	}
	return 0;
}

static int render(const struct report_options *opts, struct report_state *st,
		  char *err, size_t errlen)
{
	struct report_input in = {
		opts->files, opts->nr_files, opts->outdir, opts->latency,
		&st->set, &st->a, st->have_latency ? &st->latency : NULL,
		opts->full,
	};
	char path[PATH_MAX];
	size_t len = 0;
	char *md;

	for (size_t i = 0; i < st->a.nr_groups; i++)
		if (plots_add_group(&st->batch, opts->outdir, &st->a, &st->a.groups[i],
				    group_detailed(&st->a, &st->a.groups[i], opts->full)))
			goto oom;
	for (size_t i = 0; i < st->a.nr_families; i++) {
		const struct family_view *f = &st->a.families[i];

		if (f->pingpong ? plots_add_one_way(&st->batch, opts->outdir, &st->a, f) :
				  plots_add_sweeps(&st->batch, opts->outdir, &st->a, f))
			goto oom;
	}
	if (st->have_latency && plots_add_heatmap(&st->batch, opts->outdir, &st->latency))
		goto oom;
	md = markdown_report(&in, &len);
	snprintf(path, sizeof(path), "%s/report.md", opts->outdir);
	if (!md || output_batch_add(&st->batch, path, md, len))
		goto oom;
	return 0;
oom:
	snprintf(err, errlen, "out of memory writing the report");
	return 1;
}

static int make_dirs(const char *outdir, char *err, size_t errlen)
{
	char path[PATH_MAX];

	if (output_make_dirs(outdir, err, errlen))
		return -1;
	snprintf(path, sizeof(path), "%s/" PLOT_DIR, outdir);
	if (output_make_dirs(path, err, errlen))
		return -1;
	snprintf(path, sizeof(path), "%s/" CSV_DIR, outdir);
	return output_make_dirs(path, err, errlen);
}

int report_write(const struct report_options *opts, char *err, size_t errlen)
{
	struct report_state st = { 0 };
	int ret = read_inputs(opts, &st, err, errlen);

	if (!ret)
		ret = render(opts, &st, err, errlen);
	if (!ret && (make_dirs(opts->outdir, err, errlen) ||
		     output_batch_commit(&st.batch, err, errlen)))
		ret = 1;
	output_batch_free(&st.batch);
	analysis_free(&st.a);
	result_cases_free(&st.cases);
	if (st.have_latency)
		latency_map_free(&st.latency);
	results_free(&st.set);
	return ret;
}

int report_generate(const char *const *files, unsigned int nr_files,
		    const char *outdir, char *err, size_t errlen)
{
	struct report_options opts = { files, nr_files, outdir, NULL, false };

	return report_write(&opts, err, errlen);
}
