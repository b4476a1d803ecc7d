// SPDX-License-Identifier: GPL-2.0-only
/*
 * bouncelab gup --summary: each combination's get and put times as seed
 * 000 summarised them, the walker's paths, and the ratios of the
 * variants, modes and checks the seeds compare, beside the seeds' own
 * figures. The statistics are lib/stats.c's.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog.h"
#include "gup_command.h"
#include "seeds.h"
#include "stats.h"

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

static unsigned int nr_samples(const struct gup_printer *p)
{
	return gup_test_repeats(p->test) * p->opts->cfg.threads;
}

/*
 * Each sample's get time (us), its get per page (ns: the median of its
 * stretches) and its put per page (ns).
 */
static void combo_samples(const struct gup_printer *p, unsigned int combo,
			  double *get_us, double *get_pp, double *put_pp)
{
	const struct gup_test_sample *samples = gup_test_samples(p->test, combo);
	unsigned int n = nr_samples(p);

	for (unsigned int i = 0; i < n; i++) {
		const struct gup_test_sample *s = &samples[i];
		double pages = s->pages ? (double)s->pages : NAN;

		get_us[i] = (double)s->get_ns / 1000.0;
		get_pp[i] = s->pages ? s->get_stretch_ns_per_page : NAN;
		put_pp[i] = (double)s->put_ns / pages;
	}
}

static void combo_stats(const struct gup_printer *p, unsigned int combo,
			struct combo_stats *st)
{
	const struct gup_test_sample *samples = gup_test_samples(p->test, combo);
	unsigned int n = nr_samples(p);
	double *get = calloc(3 * (size_t)n, sizeof(*get));
	double sum = 0, sq = 0, put = 0;

	memset(st, 0, sizeof(*st));
	if (!get)
		return;
	combo_samples(p, combo, get, get + n, get + 2 * n);
	for (unsigned int i = 0; i < n; i++) {
		sum += get[i];
		put += (double)samples[i].put_ns / 1000.0;
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
static int get_ratio(const struct gup_printer *p, unsigned int num,
		     unsigned int den, struct stats_ratio *r)
{
	unsigned int n = nr_samples(p);
	double *v = calloc(6 * (size_t)n, sizeof(*v));
	int ret;

	if (!v)
		return -1;
	combo_samples(p, num, v, v + n, v + 2 * n);
	combo_samples(p, den, v + 3 * n, v + 4 * n, v + 5 * n);
	ret = stats_ratio_of_medians(v + n, n, v + 4 * n, n, r);
	free(v);
	return ret;
}

/* The longterm-check switch only matters to a fast call with FOLL_LONGTERM. */
static bool check_matters(const struct gup_options *o)
{
	return (o->cfg.gup_flags & FOLL_LONGTERM) &&
	       (o->cfg.cmd == PIN_FAST_BENCHMARK || o->cfg.cmd == GUP_FAST_BENCHMARK);
}

static unsigned int key_mode(const struct gup_test_combo_key *k)
{
	return k->private_buffers ? MODE_PRIVATE : MODE_SHARED;
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
	const struct kernel_family *family = NULL;

	/* the walker's flag pair, or the longterm check, as gup_test runs them */
	if (variants && first == GUP_STORE_ALWAYS && other != GUP_STORE_ALWAYS)
		family = catalog_find("gup");
	else if (!variants && first == GUP_LONGTERM_SECOND_PASS && check_matters(o))
		family = catalog_find("longterm_check");
	for (unsigned int i = 0; family && i < family->nr_seeds; i++) {
		const struct seed_figure *s = &family->seeds[i];
		char text[64];
		const char *its_mode = seed_setting_value(s, "mode", text, sizeof(text));

		if (its_mode && strcmp(its_mode, gup_mode_names[mode]))
			continue;
		snprintf(buf, len, "seed %s: %.3gx, %s, %u thread%s on %s", s->thread, seed_gain(s),
			 s->benchmark, s->threads, s->threads == 1 ? "" : "s", s->machine);
		return buf;
	}
	return NULL;
}

static void print_ratio(const struct gup_printer *p, unsigned int first,
			unsigned int other, bool variants)
{
	const struct gup_options *o = p->opts;
	const struct gup_test_combo_key *f = &o->cfg.combos[first];
	const struct gup_test_combo_key *z = &o->cfg.combos[other];
	struct combo_stats a, b;
	struct stats_ratio r;
	char ci[64] = "", text[512];
	const char *seed;

	combo_stats(p, first, &a);
	combo_stats(p, other, &b);
	if (b.get_mean_us <= 0 || b.get_median_us <= 0 || get_ratio(p, first, other, &r))
		return;
	if (isfinite(r.lo))
		snprintf(ci, sizeof(ci), " [95%% CI %.2f-%.2f]", r.lo, r.hi);
	seed = seed_figure(o, variants ? f->variant : f->check,
			   variants ? z->variant : z->check, variants,
			   key_mode(f), text, sizeof(text));
	printf("# %s / %s, %s%s%s: %.2fx by mean get time, %.2fx by median get per page%s%s%s%s\n",
	       variants ? gup_flag_update_names[f->variant] : gup_longterm_check_names[f->check],
	       variants ? gup_flag_update_names[z->variant] : gup_longterm_check_names[z->check],
	       gup_mode_names[key_mode(f)],
	       variants && check_matters(o) ? ", " : "",
	       variants && check_matters(o) ? gup_longterm_check_names[f->check] : "",
	       a.get_mean_us / b.get_mean_us, r.ratio, ci,
	       seed ? " (" : "", seed ? seed : "", seed ? ")" : "");
}

static void print_ratios(const struct gup_printer *p)
{
	const struct gup_options *o = p->opts;
	const struct gup_test_config *cfg = &o->cfg;

	for (unsigned int i = 0; i < cfg->nr_combos; i++) {
		const struct gup_test_combo_key *c = &cfg->combos[i];

		for (unsigned int k = 0; k < cfg->nr_combos; k++) {
			const struct gup_test_combo_key *f = &cfg->combos[k];

			if (f->private_buffers != c->private_buffers)
				continue;
			if (f->check == c->check && f->variant == o->variants[0] &&
			    c->variant != o->variants[0])
				print_ratio(p, k, i, true);
			if (check_matters(o) && f->variant == c->variant &&
			    f->check == o->checks[0] && c->check != o->checks[0])
				print_ratio(p, k, i, false);
		}
	}
}

/* How often the slow path, the seqcount retry and the recheck ran. */
static void print_paths(const struct gup_printer *p, unsigned int combo)
{
	struct gup_stats sum;
	uint64_t writer_changes;

	gup_test_combo_paths(p->test, combo, &sum, &writer_changes);
	if (!sum.slow_path_calls && !p->opts->cfg.writer)
		return;
	printf("#   %llu fast calls, %llu slow-path calls, %llu seqcount retries, %llu recheck failures, "
	       "%llu longterm rejects, %llu CMA migrations, %llu writer changes\n",
	       (unsigned long long)sum.fast_calls, (unsigned long long)sum.slow_path_calls,
	       (unsigned long long)(sum.seq_retries + sum.seq_busy),
	       (unsigned long long)sum.recheck_failures,
	       (unsigned long long)sum.longterm_rejects,
	       (unsigned long long)sum.longterm_migrations,
	       (unsigned long long)writer_changes);
}

/*
 * Mean and spread of the get times as seed 000 summarised them ("Old
 * kernel: 477729.97 (+-3.79%)"), the median, and get and put per page
 * apart: the seeds quote get times, so get and put are never added.
 */
void gup_print_summary(const struct gup_printer *p)
{
	const struct gup_options *o = p->opts;
	const struct gup_test_config *cfg = &o->cfg;
	unsigned int repeats = gup_test_repeats(p->test);
	char per_call[32];

	snprintf(per_call, sizeof(per_call), "%lu page%s", cfg->pages_per_call,
		 cfg->pages_per_call > 1 ? "s" : "");
	printf("# %s, %lu MiB of %s pages, %s per call, %u thread%s, %u repeat%s%s\n",
	       gup_test_cmd_names[cfg->cmd], o->mib,
	       cfg->backing == GUP_BACKING_HUGETLB ? "2M hugetlb" :
	       cfg->page_size == GUP_PAGES_2M ? "2M THP" : "4K",
	       per_call, cfg->threads, cfg->threads > 1 ? "s" : "", repeats,
	       repeats > 1 ? "s" : "", cfg->nr_combos > 1 ? ", interleaved" : "");
	printf("# get ns/page: per repeat, the median over stretches of %d pages of the get loop\n"
	       "# (an interrupt lands in one stretch, not in the figure); put ns/page: put / pages;\n"
	       "# each the median over threads and repeats\n", GUP_TEST_STRETCH_PAGES);
	printf("# %-18s %-8s %-12s %24s %12s %10s %12s %12s\n", "variant", "mode", "longterm",
	       "get us: mean (+-sd)", "median", "put us", "get ns/page", "put ns/page");
	for (unsigned int i = 0; i < cfg->nr_combos; i++) {
		const struct gup_test_combo_key *c = &cfg->combos[i];
		struct combo_stats st;
		char mean[40];

		combo_stats(p, i, &st);
		snprintf(mean, sizeof(mean), "%.2f (+-%.2f%%)", st.get_mean_us, st.get_sd_pct);
		printf("# %-18s %-8s %-12s %24s %12.2f %10.2f %12.2f %12.2f\n",
		       gup_flag_update_names[c->variant], gup_mode_names[key_mode(c)],
		       check_matters(o) ? gup_longterm_check_names[c->check] : "-",
		       mean, st.get_median_us, st.put_mean_us, st.get_ns_per_page,
		       st.put_ns_per_page);
		print_paths(p, i);
	}
	print_ratios(p);
}
