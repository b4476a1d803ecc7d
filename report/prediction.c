// SPDX-License-Identifier: GPL-2.0-only
/*
 * The report's prediction section: the contention model (model/) checked
 * against this run, and run on the seeds' machines.
 *
 * Inputs come from the results alone: each case's private cost is its
 * own 1-thread median, the one-way transfer is the pingpong family's
 * median in the same run, and the seeds' machines are the profiles in
 * model/profiles/, every number cited there. Two things are measured on
 * cases of the run itself: the tenure's share, on false_sharing's
 * same_line, and the cold share, which the tables mark fitted; every
 * other case is held out. One concern, the model against a run (the
 * check, its calibration, the section and its file); the seeds'
 * machines are seed_prediction.c's.
 */
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog.h"
#include "format.h"
#include "markdown.h"
#include "model.h"
#include "output.h"
#include "plots.h"
#include "prediction.h"
#include "prediction_internal.h"
#include "results_read.h"
#include "seeds.h"
#include "stats.h"
#include "svg.h"

#define MAX_CASES 512

/* Median ns/op of the rows of one case (family, variant, setting) at t threads. */
double prediction_case_median(const struct results *set, const struct result_row *like, long t)
{
	const struct result_file *file = &set->files[like->source_file];
	double *v = malloc((file->end_row - file->first_row + 1) * sizeof(*v)), m;
	size_t n = 0;

	if (!v)
		return NAN;
	for (size_t i = file->first_row; i < file->end_row; i++) {
		const struct result_row *r = &set->rows[i];

		if (r->threads == t && r->family && r->source_file == like->source_file &&
		    !strcmp(r->family, like->family) && !strcmp(r->variant, like->variant) &&
		    !strcmp(r->setting ? r->setting : "", like->setting ? like->setting : ""))
			v[n++] = r->ns_per_op;
	}
	m = n ? stats_median(v, n) : NAN;
	free(v);
	return m;
}

/* The row's parameters into a configuration; -1 if one is not the family's. */
int prediction_config_of(const struct result_row *r, const struct kernel_family *f,
		     struct kernel_config *cfg)
{
	int v_idx = catalog_variant_index(f, r->variant);

	if (v_idx < 0 || r->params.family != f || r->params.foreign || r->params.unreadable)
		return -1;
	kernel_config_defaults(f, cfg);
	cfg->variant = (unsigned int)v_idx;
	setting_to_config(&r->params, cfg);
	return 0;
}

/*
 * This run's machine for the model, from the results alone so that the
 * section reads the same wherever the report is made: the two CPUs of a
 * 2-thread case (machine_profile_of_run()) at the one-way latency the
 * run measured.
 */
static int run_machine(const struct report_input *in, unsigned int file,
		       struct machine_profile *m, double one_way, char *err, size_t errlen)
{
	if (machine_profile_of_run(&in->set->files[file].run, "this run", false, m, err, errlen))
		return -1;
	for (int c = DISTANCE_SMT; c < DISTANCE_UNKNOWN; c++) {
		m->one_way_ns[c] = one_way;
		m->cold_miss_ns[c] = analysis_cold_miss_ns(in->a, file, one_way);
	}
	return 0;
}


/*
 * Why a case missed: the mechanism the model does not have. A prediction
 * too fast (ratio < 1) lacks a cost; one too slow charges a cost the
 * hardware hides.
 */
static const char *missing_mechanism(const struct kernel_family *f,
				     const struct kernel_config *cfg, double ratio)
{
	struct access_profile p = { 0 };
	bool stores = false, locked = false, cas = false;

	f->access(cfg, &p);
	for (unsigned int i = 0; i < p.nr_lines; i++) {
		cas |= p.lines[i].cas > 0;
		locked |= p.lines[i].locked > 0;
		stores |= p.lines[i].stores > 0;
	}
	if (p.mixed_kinds)
		return "threads of two kinds (readers, writers): one class of customer in the model, and a private cost measured for the writers alone";
	if (cas)
		return "cmpxchg retries: the model's retry share is a mean-value guess, not the handoff order";
	if (ratio > 1 && p.cold_transfers > 0)
		return "memory-level parallelism: cold misses charged one after another overlap when no locked op or fence orders them, and a prefetcher fetches a pool walked in order ahead of use";
	if (ratio > 1 && stores && !locked && !cas && p.private_locked <= 0 && !p.fenced)
		return "store-buffer depth: a thread whose plain stores nothing drains runs on while the line is away for as many stores as its buffer holds, where the model takes the entries the CPU's guide gives and charges the rest as handoffs";
	if (ratio > 1)
		return "line tenure: the owner completes more operations per handoff than one transfer time allows";
	if (locked)
		return "the handoff's cost: more than the transfer and the tenure the model charges (invalidations of many sharers, a request and a reply)";
	if (stores)
		return "plain stores: the hardware stalls on a store more often than once a handoff (a full store buffer, a fence the profile does not show)";
	if (!p.nr_lines)
		return "no shared line in the access profile: two threads slow each other through something else (the VM's vCPUs, a shared core, memory)";
	return "a cost outside the access profile (loads that miss, prefetch pairs, the VM)";
}

/* One 2-thread case: measured beside predicted. */
struct validation_point {
	const struct result_row *row;
	struct kernel_config cfg;
	double one, measured, predicted;
	const char *bottleneck;
	bool fitted;		/* it informed a rule: not held out */
};

struct validation {
	size_t nr;
	struct validation_point p[MAX_CASES];
	double one_way;			/* the first case's, at its distance class: */
	const char *one_way_class;	/* that class, or NULL */
	double cold_miss;		/* NAN: not measured */
	double cold_share;		/* the first file's; 0: not measured */
	double median_error;		/* |predicted / measured - 1| */
	double median_held_out;		/* the same over the cases no rule was fitted on */
	size_t nr_fitted;
	/* each file's one-way transfer and cold miss, for the text */
	char machines[512];
};

static bool same_case(const struct result_row *a, const struct result_row *b)
{
	return a->source_file == b->source_file && !strcmp(a->family, b->family) &&
	       !strcmp(a->variant, b->variant) &&
	       !strcmp(a->setting ? a->setting : "", b->setting ? b->setting : "");
}

static bool seen_case(const struct validation *v, const struct result_row *r)
{
	for (size_t k = 0; k < v->nr; k++)
		if (same_case(v->p[k].row, r))
			return true;
	return false;
}

/*
 * "; file.json: one-way 31.0 ns, cold miss 40.4 ns": what each file's
 * cases are predicted from, when a report reads several (the host can
 * move the vCPUs between two runs).
 */
static void append_machine(struct validation *v, const struct analysis *a,
			   unsigned int file, const char *name, double one_way,
			   const double share_of[2],
			   double cold_share, const struct result_row *cold_case)
{
	const struct results *set = a->set;
	size_t used = strlen(v->machines);
	double cold = set->files[file].run.cold_miss_ns;
	char share[96] = "", miss[320];

	if (used >= sizeof(v->machines) - 1)
		return;
	if (share_of[0] > 0 || share_of[1] > 0)
		snprintf(share, sizeof(share), ", tenure share %.2g for plain stores, %.2g for locked ops",
			 share_of[0] > 0 ? share_of[0] : 1, share_of[1] > 0 ? share_of[1] : 1);
	if (cold_share > 0)
		snprintf(miss, sizeof(miss), ", cold share %.2g of a transfer (measured on %s/%s%s%s%s)",
			 cold_share, cold_case->family, cold_case->variant,
			 cold_case->setting && *cold_case->setting ? ", " : "",
			 cold_case->setting ? cold_case->setting : "",
			 cold_case->source_file != file ? ", in another file of the machine" : "");
	else if (isfinite(cold) && analysis_cold_miss_ns(a, file, one_way) != cold)
		snprintf(miss, sizeof(miss), ", cold miss %.1f ns at the start (another placement: "
			 "the one-way stands in)", cold);
	else if (isfinite(cold))
		snprintf(miss, sizeof(miss), ", cold miss %.1f ns", cold);
	else
		miss[0] = '\0';
	snprintf(v->machines + used, sizeof(v->machines) - used, "; %s: one-way %.1f ns%s%s",
		 name, one_way, miss, share);
}

/* The machine's transfer at every class one_way, and file's cold miss at it. */
static void set_transfer(struct machine_profile *m, const struct analysis *a,
			 unsigned int file, double one_way)
{
	for (int c = DISTANCE_SMT; c < DISTANCE_UNKNOWN; c++) {
		m->one_way_ns[c] = one_way;
		m->cold_miss_ns[c] = analysis_cold_miss_ns(a, file, one_way);
	}
}

/*
 * The model's 2-thread ns/op of case r (its configuration cfg, 1-thread
 * cost one): the median over the case's rounds of the prediction at the
 * one-way transfer the same round's ping-pong measured at the case's
 * distance class (analysis_one_way_in_round()). The host moves the vCPUs
 * between rounds (the Zen 5 guest's sweep of 2026-12-02: three rounds at
 * 28-84 ns one way, three at 234-245), and a case's rounds ran in the
 * same placements as the ping-pong's, so the median of one run's
 * transfers (159 ns there, a value no round saw) predicts none of them.
 * A round without a ping-pong, or a file without rounds, is predicted at
 * the median transfer. NAN if the model cannot predict the case;
 * *bottleneck is the busiest line at the median transfer.
 */
static double predict_by_round(const struct report_input *in, const struct result_row *r,
			       struct machine_profile *m, const struct kernel_family *f,
			       const struct kernel_config *cfg, double one,
			       const char **bottleneck)
{
	double median_one_way = analysis_one_way_ns(in->a, r->source_file, r->widest_class);
	double ns = NAN;
	const struct result_file *file = &in->set->files[r->source_file];
	double *pred = malloc((file->end_row - file->first_row + 1) * sizeof(*pred));
	struct model_prediction p;
	char err[256];
	size_t n = 0;

	if (!pred || !(median_one_way > 0))
		goto out;
	/*
	 * The row's recorded home: the share of its threads whose line lives
	 * on another node. The run's own machine takes its transfer from the
	 * run's ping-pong, whose line had the same home, and gives no
	 * remote_home_ns of its own: the share changes a prediction only on
	 * a machine whose profile gives that cost (model_doc.md, "Homes").
	 */
	m->home_away = r->home_threads_away > 0 && r->threads > 0 ?
		       (double)r->home_threads_away / (double)r->threads : 0;
	set_transfer(m, in->a, r->source_file, median_one_way);
	if (model_predict(m, f, cfg, one, 0, NULL, &p, err, sizeof(err)))
		goto out;
	if (bottleneck)
		*bottleneck = p.bottleneck;
	for (size_t i = file->first_row; i < file->end_row; i++) {
		const struct result_row *row = &in->set->rows[i];
		double one_way;

		if (row->threads != 2 || !row->family || !same_case(row, r))
			continue;
		one_way = analysis_one_way_in_round(in->a, r->source_file, r->widest_class,
						    row->repetition_index);
		set_transfer(m, in->a, r->source_file, one_way > 0 ? one_way : median_one_way);
		if (model_predict(m, f, cfg, one, 0, NULL, &p, err, sizeof(err)))
			goto out;
		pred[n++] = p.ns_per_op;
	}
	ns = n ? stats_median(pred, n) : NAN;
out:
	free(pred);
	return ns;
}

/*
 * The case a file's tenure share of one kind is measured on: the
 * catalogue's tenure probe (false_sharing's same_line), two threads on
 * one line and nothing else, with update=plain (drained false: plain
 * stores alone) or update=locked (a locked add).
 */
static bool is_calibration(const struct result_row *r, const struct kernel_family *f,
			   bool drained, struct kernel_config *cfg)
{
	struct access_profile p = { 0 };
	int v = f ? catalog_variant_index(f, r->variant) : -1;

	if (v < 0 || !f->variants[v].tenure_probe || !f->access ||
	    prediction_config_of(r, f, cfg))
		return false;
	f->access(cfg, &p);
	return p.nr_lines == 1 && (drained ? p.lines[0].locked > 0 :
				   p.lines[0].stores > 0 && p.lines[0].locked <= 0);
}

/* The model's 2-thread ns/op of case r with tenure share s of one kind; NAN if none. */
static double predict_at_share(const struct report_input *in, const struct result_row *r,
			       struct machine_profile *m, const struct kernel_family *f,
			       const struct kernel_config *cfg, double one, bool drained,
			       double s)
{
	m->tenure_share[drained] = s;
	return predict_by_round(in, r, m, f, cfg, one, NULL);
}

/*
 * A file's tenure share of one kind (model_doc.md, "The tenure's share"):
 * the share of its tenure (and, for plain stores, its store buffer's
 * run-on) an owner gets that makes the model give the kind's calibration
 * case what the file measured for it. Found by bisection on the model
 * itself: a larger share serves more visits a handoff, so the prediction
 * falls as it grows. At most 1, the whole tenure. 0 when the file has no
 * such case; *calibration is the case, which is then not held out.
 */
static double tenure_share_of(const struct report_input *in, unsigned int file,
			      struct machine_profile *m, bool drained,
			      const struct result_row **calibration)
{
	const struct kernel_family *f = NULL;
	double lo = 1e-4, hi = 1, one, two, s = 0;
	struct kernel_config cfg;

	*calibration = NULL;
	for (size_t i = in->set->files[file].first_row;
	     i < in->set->files[file].end_row && !*calibration; i++) {
		const struct result_row *r = &in->set->rows[i];

		f = r->family ? catalog_find(r->family) : NULL;
		if (f && r->source_file == file && r->threads == 2 &&
		    is_calibration(r, f, drained, &cfg))
			*calibration = r;
	}
	if (!*calibration || !(analysis_one_way_ns(in->a, file, (*calibration)->widest_class) > 0))
		return 0;
	one = prediction_case_median(in->set, *calibration, 1);
	two = prediction_case_median(in->set, *calibration, 2);
	cfg.nr_threads = 2;
	if (!(one > 0) || !(two > 0) || !(predict_at_share(in, *calibration, m, f, &cfg, one, drained, lo) > two)) {
		*calibration = NULL;
	} else if (predict_at_share(in, *calibration, m, f, &cfg, one, drained, hi) >= two) {
		s = hi;
	} else {
		for (int k = 0; k < 60; k++) {
			double mid = sqrt(lo * hi);

			if (predict_at_share(in, *calibration, m, f, &cfg, one, drained, mid) > two)
				lo = mid;
			else
				hi = mid;
		}
		s = sqrt(lo * hi);
	}
	m->tenure_share[drained] = 0;
	return s;
}

/*
 * The case a run's cold share is measured on: one whose access profile at
 * 2 threads has cold transfers and touches no line otherwise, so that the
 * line another CPU wrote last is all it pays for beyond its own work
 * (has_pinned at already_set=0: every call pins in a fresh mm that the
 * other CPU retired). Returns its cold transfers per operation, 0 when it
 * is no such case; *changed counts its parameters off the defaults.
 */
static double cold_calibration(const struct result_row *r, const struct kernel_family *f,
			       struct kernel_config *cfg, unsigned int *changed)
{
	struct access_profile p = { 0 };
	struct kernel_config def;

	if (!f || !f->access || prediction_config_of(r, f, cfg))
		return 0;
	cfg->nr_threads = 2;
	f->access(cfg, &p);
	for (unsigned int i = 0; i < p.nr_lines; i++)
		if (p.lines[i].reads > 0 || p.lines[i].stores > 0 || p.lines[i].locked > 0 ||
		    p.lines[i].cas > 0)
			return 0;
	kernel_config_defaults(f, &def);
	*changed = 0;
	for (unsigned int k = 0; k < f->nr_params; k++)
		*changed += cfg->param[k] != def.param[k];
	return p.cold_transfers > 0 ? p.cold_transfers : 0;
}

/*
 * Among the 2-thread rows that match, the calibration case with the most
 * cold transfers per operation, then the fewest parameters off the
 * family's defaults (the work around the miss changes what it costs:
 * has_pinned's control paid a tenth of a transfer per fresh call with no
 * page pins and a whole one with 16), then the cheapest alone (the miss
 * the largest part of it). One rule, whatever the file holds.
 */
static const struct result_row *find_cold_calibration(const struct report_input *in,
						      unsigned int file, bool pooled)
{
	const struct result_row *best = NULL;
	double most = 0, best_one = INFINITY;
	unsigned int fewest = UINT_MAX;

	/* a machine's rows are those of each file pooled into it */
	for (size_t i = 0; i < in->set->nr_rows; i++) {
		const struct result_file *source = &in->set->files[in->set->rows[i].source_file];
		const struct result_row *r = &in->set->rows[i];
		struct kernel_config cfg;
		unsigned int changed = 0;
		double cold, one;

		if ((pooled ? r->file : r->source_file) != file) {
			/* the rest of that file is not this machine's either */
			if (source->end_row > i)
				i = source->end_row - 1;
			continue;
		}
		if (!r->family || r->threads != 2)
			continue;
		cold = cold_calibration(r, catalog_find(r->family), &cfg, &changed);
		if (!(cold > 0) || cold < most || (cold == most && changed > fewest))
			continue;
		one = prediction_case_median(in->set, r, 1);
		if (cold == most && changed == fewest && !(one < best_one))
			continue;
		most = cold;
		fewest = changed;
		best_one = one;
		best = r;
	}
	return best;
}

/*
 * A file's cold share (model_doc.md, "The cold share"): the share of a
 * one-way transfer that makes the model give the calibration case what
 * it measured at 2 threads, found by bisection (the prediction grows with
 * the share), at most 1, a whole transfer. The cold miss measured at the
 * start of a run times a chase of loads that each wait for the last, and
 * read 3 to 38 ns on guests whose transfer was 43 to 52 ns; a call that
 * goes on working while its line comes pays part of a transfer, and how
 * much is up to the core: has_pinned's control measured a fifth of a
 * transfer on the Zen 3 guests and two fifths on the Zen 5 one. A file
 * without the case takes it from another file of the same machine (a
 * sweep from its default run); 0: none, and the measured miss stands.
 * *calibration is the case, then not held out.
 */
static double cold_share_of(const struct report_input *in, unsigned int file,
			    struct machine_profile *m, const struct result_row **calibration)
{
	double lo = 1e-3, hi = 1, one, two, s = 0;
	const struct kernel_family *f;
	struct kernel_config cfg;
	unsigned int changed;

	*calibration = find_cold_calibration(in, file, false);
	/* else the machine the file was pooled into (its rows say which) */
	if (!*calibration && in->set->files[file].end_row > in->set->files[file].first_row)
		*calibration = find_cold_calibration(
			in, in->set->rows[in->set->files[file].first_row].file, true);
	if (!*calibration)
		return 0;
	f = catalog_find((*calibration)->family);
	cold_calibration(*calibration, f, &cfg, &changed);
	one = prediction_case_median(in->set, *calibration, 1);
	two = prediction_case_median(in->set, *calibration, 2);
	m->cold_share = lo;
	if (!(one > 0) || !(two > 0) ||
	    !(predict_by_round(in, *calibration, m, f, &cfg, one, NULL) < two)) {
		s = two > 0 && one > 0 ? lo : 0;
	} else {
		m->cold_share = hi;
		if (predict_by_round(in, *calibration, m, f, &cfg, one, NULL) <= two) {
			s = hi;
		} else {
			for (int k = 0; k < 60; k++) {
				m->cold_share = sqrt(lo * hi);
				if (predict_by_round(in, *calibration, m, f, &cfg, one, NULL) < two)
					lo = m->cold_share;
				else
					hi = m->cold_share;
			}
			s = sqrt(lo * hi);
		}
	}
	m->cold_share = 0;
	if (!s)
		*calibration = NULL;
	return s;
}

/*
 * The shares a file measures, set on m: the tenure's share of plain stores
 * and of locked ops (each found with the other at 0), then the cold share,
 * found with both in place. calibration[] and *cold_case are the cases
 * they were measured on (NULL: none), which are then not held out.
 */
static void measure_file_shares(const struct report_input *in, unsigned int file,
				struct machine_profile *m,
				const struct result_row *calibration[2],
				const struct result_row **cold_case)
{
	double plain = tenure_share_of(in, file, m, false, &calibration[0]);
	double locked = tenure_share_of(in, file, m, true, &calibration[1]);

	m->tenure_share[0] = plain;
	m->tenure_share[1] = locked;
	m->cold_share = cold_share_of(in, file, m, cold_case);
}

int prediction_run_shares(const struct report_input *in, unsigned int file,
			  struct machine_profile *out)
{
	double any = analysis_one_way_ns(in->a, file, NULL);
	const struct result_row *calibration[2], *cold_case;
	struct machine_profile m;
	char err[256];

	memset(out->tenure_share, 0, sizeof(out->tenure_share));
	out->cold_share = 0;
	if (!(any > 0) || run_machine(in, file, &m, any, err, sizeof(err)))
		return -1;
	measure_file_shares(in, file, &m, calibration, &cold_case);
	memcpy(out->tenure_share, m.tenure_share, sizeof(out->tenure_share));
	out->cold_share = m.cold_share;
	machine_profile_close(&m);
	return 0;
}

/*
 * Every case with medians at 1 and 2 threads, predicted on its own file's
 * machine (each results file has its own pingpong). Returns -1 without a
 * transfer latency anywhere.
 */
static int build_validation(const struct report_input *in, struct validation *v)
{
	double errs[MAX_CASES], held[MAX_CASES];
	size_t nr_held = 0;
	char err[256];

	v->nr = 0;
	v->one_way = NAN;
	v->one_way_class = NULL;
	v->cold_miss = NAN;
	v->cold_share = 0;
	v->machines[0] = '\0';
	v->nr_fitted = 0;
	for (unsigned int file = 0; file < in->set->nr_files; file++) {
		const struct result_row *calibration[2], *cold_case;
		struct machine_profile m;
		double any = analysis_one_way_ns(in->a, file, NULL), file_one_way = NAN;

		if (!(any > 0) || run_machine(in, file, &m, any, err, sizeof(err)))
			continue;
		measure_file_shares(in, file, &m, calibration, &cold_case);
		for (size_t i = in->set->files[file].first_row;
		     i < in->set->files[file].end_row && v->nr < MAX_CASES; i++) {
			const struct result_row *r = &in->set->rows[i];
			struct validation_point *pt = &v->p[v->nr];
			const struct kernel_family *f;
			double one_way;

			if (!r->family || r->source_file != file || r->threads != 2 ||
			    catalog_is_transfer_probe(r->family) || seen_case(v, r))
				continue;
			f = catalog_find(r->family);
			if (!f || !f->access || prediction_config_of(r, f, &pt->cfg))
				continue;
			/* the transfer between the two CPUs the case ran on */
			one_way = analysis_one_way_ns(in->a, file, r->widest_class);
			if (!(one_way > 0))
				continue;
			pt->row = r;
			pt->fitted = false;
			for (int k = 0; k < 2; k++)
				pt->fitted |= calibration[k] && same_case(calibration[k], r);
			pt->fitted |= cold_case && same_case(cold_case, r);
			pt->one = prediction_case_median(in->set, r, 1);
			pt->measured = prediction_case_median(in->set, r, 2);
			pt->cfg.nr_threads = 2;
			if (!isfinite(pt->one) || !(pt->measured > 0))
				continue;
			pt->predicted = predict_by_round(in, r, &m, f, &pt->cfg, pt->one,
							 &pt->bottleneck);
			if (!(pt->predicted > 0))
				continue;
			errs[v->nr] = fabs(pt->predicted / pt->measured - 1);
			if (pt->fitted)
				v->nr_fitted++;
			else
				held[nr_held++] = errs[v->nr];
			v->nr++;
			if (isfinite(file_one_way))
				continue;
			file_one_way = one_way;
			if (!isfinite(v->one_way)) {
				v->one_way = one_way;
				v->one_way_class = r->widest_class;
				v->cold_miss = in->set->files[file].run.cold_miss_ns;
				v->cold_share = m.cold_share;
			}
			append_machine(v, in->a, file, in->files[file], one_way, m.tenure_share,
				       m.cold_share, cold_case);
		}
		machine_profile_close(&m);
	}
	if (!v->nr)
		return -1;
	v->median_error = stats_median(errs, v->nr);
	v->median_held_out = nr_held ? stats_median(held, nr_held) : NAN;
	return 0;
}

/* The parameters that differ from the family's defaults: "pin_work=4". */
static void write_short_setting(FILE *out, const struct kernel_family *f,
				const struct kernel_config *cfg)
{
	struct setting s;
	char buf[512];

	setting_of_config(&s, f, cfg);
	setting_format(&s, SETTING_CHANGES, buf, sizeof(buf));
	fputs(buf[0] ? buf : "defaults", out);
}

static bool is_miss(double ratio)
{
	return ratio > 2 || ratio < 0.5;
}

/* The full table, for prediction.md: every case, and why each 2x miss missed. */
static void write_validation(FILE *out, const struct validation *v)
{
	fputs("| case | setting | 1 thread | 2 threads | predicted | pred / meas | busiest line |\n"
	      "|---|---|---:|---:|---:|---:|---|\n", out);
	for (size_t k = 0; k < v->nr; k++) {
		const struct validation_point *pt = &v->p[k];
		const struct kernel_family *f = catalog_find(pt->row->family);
		double ratio = pt->predicted / pt->measured;

		fprintf(out, "| `%s/%s`%s | ", pt->row->family, pt->row->variant,
			pt->fitted ? " (fitted)" : "");
		write_short_setting(out, f, &pt->cfg);
		fprintf(out, " | %.3g | %.3g | %.3g | %.2f | %s |\n", pt->one, pt->measured,
			pt->predicted, ratio, pt->bottleneck ? pt->bottleneck : "none");
		if (is_miss(ratio))
			fprintf(out, "| | **miss** (%s) | | | | | |\n",
				missing_mechanism(f, &pt->cfg, ratio));
	}
	fputs("\n", out);
}

static double log_miss(const struct validation_point *pt)
{
	return fabs(log(pt->predicted / pt->measured));
}

#define WORST_MISSES 5

/* The few cases the model misses most, and what it lacks there. */
static void write_worst(FILE *out, const struct validation *v)
{
	const struct validation_point *worst[WORST_MISSES];
	size_t nr = 0;

	for (size_t k = 0; k < v->nr; k++) {
		const struct validation_point *pt = &v->p[k];
		size_t at = nr < WORST_MISSES ? nr++ : WORST_MISSES;

		/* insertion into the list kept sorted by the size of the miss */
		while (at > 0 && log_miss(worst[at - 1]) < log_miss(pt)) {
			if (at < WORST_MISSES)
				worst[at] = worst[at - 1];
			at--;
		}
		if (at < WORST_MISSES)
			worst[at] = pt;
	}
	fputs("| worst misses | setting | measured | predicted | pred / meas | what the model lacks there |\n"
	      "|---|---|---:|---:|---:|---|\n", out);
	for (size_t k = 0; k < nr; k++) {
		const struct validation_point *pt = worst[k];
		const struct kernel_family *f = catalog_find(pt->row->family);
		double ratio = pt->predicted / pt->measured;

		fprintf(out, "| `%s/%s` | ", pt->row->family, pt->row->variant);
		write_short_setting(out, f, &pt->cfg);
		fprintf(out, " | %.3g | %.3g | %.2f | %s |\n", pt->measured, pt->predicted, ratio,
			missing_mechanism(f, &pt->cfg, ratio));
	}
	fputs("\n", out);
}

static size_t within_2x(const struct validation *v)
{
	size_t n = 0;

	for (size_t k = 0; k < v->nr; k++)
		n += !is_miss(v->p[k].predicted / v->p[k].measured);
	return n;
}

static void write_median(FILE *out, const struct validation *v)
{
	fprintf(out, "**On this machine:** median |predicted / measured − 1| = **%.0f%%** over %zu "
		"two-thread cases, %zu of them within 2x (ns/op per thread, medians; each case "
		"predicted in each of its rounds at the one-way transfer that round's pingpong "
		"measured at the case's distance class, and the median of those predictions taken; "
		"the run's median one-way %.1f ns%s%s%s",
		100 * v->median_error, v->nr, within_2x(v), v->one_way,
		v->one_way_class ? " (" : "", v->one_way_class ? v->one_way_class : "",
		v->one_way_class ? ")" : "");
	if (v->cold_share > 0)
		fprintf(out, "; a line another CPU wrote last costs %.2g of a transfer, the cold share",
			v->cold_share);
	else if (isfinite(v->cold_miss))
		fprintf(out, "; a cold miss %.1f ns, a load of a line the other CPU modified, "
			"measured at the start of the run", v->cold_miss);
	fputs(").", out);
	if (v->nr_fitted)
		fprintf(out, " The tenure's share (model_doc.md) is measured on each file's "
			"false_sharing/same_line at 2 threads, update=plain for plain stores and "
			"update=locked for locked ops, and the cold share on the case nearest its "
			"family's defaults that pays for nothing but lines another CPU wrote last "
			"(has_pinned's no_flag at already_set=0, or a sweep's nearest case): %s%zu "
			"%s marked *fitted*; the %zu held out alone give %.0f%%.",
			v->nr_fitted == 1 ? "the " : "those ", v->nr_fitted,
			v->nr_fitted == 1 ? "case is" : "cases are",
			v->nr - v->nr_fitted, 100 * v->median_held_out);
	fputs("\n\n", out);
	/* several files: each file's transfer and cold miss are its own */
	if (strchr(v->machines + 1, ';'))
		fprintf(out, "Each file's cases are predicted from that file's own one-way transfer, "
			"cold share (or miss) and tenure shares%s.\n\n", v->machines);
}

static void write_appendix(FILE *out)
{
	fputs("**How the model works.** Each thread is a customer of a closed queueing network "
	      "(Lazowska et al., *Quantitative System Performance*, ch. 6-7). Its private work, the "
	      "1-thread ns/op, is a delay. A line that several threads use and one of them writes is a "
	      "server: only one CPU can own it. A handoff costs a one-way transfer *L* to the next "
	      "owner and keeps the line from everyone else for one more: the new owner's tenure, "
	      "until the next request reaches it. Exact Mean Value Analysis gives, for N threads, "
	      "R(N) = D·(1 + Q(N−1)) at the line and X(N) = N / (Z + R(N)). The line is a server: "
	      "throughput caps at 1/D however many CPUs you add, so past N ≈ (Z + D)/D each added "
	      "thread only waits longer. The owner goes on with its own visits during its tenure "
	      "(D = 2L / (1 + L/Z) per visit); while requesters wait in the cache domain that holds "
	      "the line (a CCX, a socket's L3), the domain's cache hands it among them before a "
	      "farther request arrives, so a saturated line moves faster than the all-pairs mean; "
	      "plain stores are visits too, and on x86 a thread whose stores nothing drains runs a "
	      "store buffer's worth of them more while the line is away; lines nobody writes stay "
	      "shared and cost nothing. "
	      "`model/model.h` and `bouncelab model` give the same numbers for any machine profile.\n\n",
	      out);
}

/*
 * The validation of this report: built for the section and again for its
 * file (a few hundred predictions, cheap), into static storage (big).
 */
static struct validation *validation_of(const struct report_input *in,
					struct validation *v)
{
	return build_validation(in, v) ? NULL : v;
}

static void write_no_validation(FILE *out)
{
	fputs("No results file here has both a pingpong store_load row and cases at 1 and 2 "
	      "threads: the model has no measured transfer latency or private cost, so nothing is "
	      "checked here (`bouncelab model` measures both).\n\n", out);
}

/*
 * The section of report.md: kept short (the figure, the median, the worst
 * misses and the seeds); the whole table and the derivation are in
 * PREDICTION_FILE beside it.
 */
void markdown_prediction(FILE *out, const struct report_input *in)
{
	static struct validation storage;
	const struct validation *v = validation_of(in, &storage);
	/* once: a second look could find the seed's model not there (no memory) */
	const struct seed_figure *headline = seed_prediction_headline(in);

	fputs("## Prediction: a contention model from measured primitives\n\n"
	      "Each case predicted from its own 1-thread cost and the run's pingpong, each shared "
	      "line a server whose handoff costs a one-way transfer. Every case, the five worst "
	      "misses, the seeds' machines and how the model works: [" PREDICTION_FILE "]("
	      PREDICTION_FILE ").\n\n", out);
	if (headline)
		fprintf(out, "![the model's prediction on seed 000's 256-CPU machine](" PLOT_DIR
			"/prediction-%s.svg)\n\n", headline->profile);
	if (!v)
		write_no_validation(out);
	else
		write_median(out, v);
}

/* PREDICTION_FILE: the whole check, the seeds with their curves, the derivation. */
static char *prediction_file(const struct report_input *in,
			     const struct validation *v, size_t *len)
{
	char *buf = NULL;
	FILE *out = open_memstream(&buf, len);

	if (!out)
		return NULL;
	fputs("# The contention model against this run\n\n"
	      "Back to the [report](report.md).\n\n"
	      "## Check on this machine\n\n", out);
	if (!v) {
		write_no_validation(out);
	} else {
		fputs("Each 2-thread case predicted from its own 1-thread median and the run's "
		      "one-way transfer, beside what it measured.\n\n", out);
		write_median(out, v);
		write_worst(out, v);
		fputs("![predicted against measured ns/op at 2 threads](" PREDICTION_SCATTER ")\n\n", out);
		write_validation(out, v);
	}
	fputs("## The seeds' machines\n\n"
	      "The fix ratio predicted on each seed's machine profile (`model/profiles/`, every "
	      "number cited there) from this run's 1-thread costs; no constant is fitted to the "
	      "seed.\n\n", out);
	seed_prediction_write(out, in);
	fputs("## Published many-CPU curves\n\n", out);
	published_prediction_write(out);
	fputs("## How the model works\n\n", out);
	write_appendix(out);
	if (fclose(out)) {
		free(buf);
		return NULL;
	}
	return buf;
}

int prediction_add_files(struct output_batch *batch, const char *dir,
			 const struct report_input *in)
{
	static double x[MAX_CASES], y[MAX_CASES];
	static struct validation storage;
	const struct validation *v = validation_of(in, &storage);
	double lo = INFINITY, hi = 0, ref[2];
	struct svg_series series[2];
	struct svg_line_chart chart;
	char path[PATH_MAX], *svg, *md;
	size_t len;

	if (seed_prediction_add_plots(batch, dir, in))
		return -1;
	md = prediction_file(in, v, &len);
	if (!md || snprintf(path, sizeof(path), "%s/" PREDICTION_FILE, dir) >= (int)sizeof(path)) {
		free(md);
		return -1;
	}
	if (output_batch_add(batch, path, md, len))
		return -1;
	if (!v)
		return 0;
	for (size_t k = 0; k < v->nr; k++) {
		x[k] = v->p[k].measured;
		y[k] = v->p[k].predicted;
		lo = fmin(lo, fmin(x[k], y[k]));
		hi = fmax(hi, fmax(x[k], y[k]));
	}
	ref[0] = lo;
	ref[1] = hi;
	series[0] = (struct svg_series){ .n = 2, .x = ref, .y = ref,
					 .style = SVG_STYLE_REFERENCE };
	series[1] = (struct svg_series){ .name = "one case", .n = v->nr, .x = x, .y = y,
					 .style = 0, .markers = true, .no_line = true };
	chart = (struct svg_line_chart){
		.title = "the model at 2 threads: predicted against measured (grey: equal)",
		.x_label = "measured ns/op", .y_label = "predicted ns/op",
		.log_x = true, .log_y = true, .nr_series = 2, .series = series,
	};
	svg = svg_line_chart(&chart);
	if (!svg || snprintf(path, sizeof(path), "%s/%s", dir, PREDICTION_SCATTER) >= (int)sizeof(path)) {
		free(svg);
		return -1;
	}
	return output_batch_add(batch, path, svg, strlen(svg));
}
