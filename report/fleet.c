// SPDX-License-Identifier: GPL-2.0-only
/*
 * The fleet section: the same lesson on every machine at hand. Each
 * number here is a cell of a machine's own tables further down (the
 * pair table's gain, the one-way table's medians), formatted by the same
 * functions, so the two never disagree.
 */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "catalog.h"
#include "fleet.h"
#include "format.h"
#include "model.h"
#include "plots.h"
#include "prediction.h"
#include "svg.h"
#include "sweeps.h"

/*
 * Thread counts shown beside the most threads, at most: what a page's
 * width leaves beside the table's six other columns. Each machine's own
 * tables have the others.
 */
#define FLEET_MAX_SHARED (MD_TABLE_MAX_COLUMNS - 6)

static bool same_string(const char *x, const char *y)
{
	return x == y || (x && y && !strcmp(x, y));
}

/*
 * The CPU each file says it ran on (context.cpu), where both record it:
 * guests of one name and brand string ("vm", "AMD EPYC") run on Zen 3 one
 * day and Zen 5 the next, and their rows are not one machine's.
 */
static bool same_cpu(const struct result_cpu *a, const struct result_cpu *b)
{
	return a->recorded == b->recorded && same_string(a->vendor, b->vendor) &&
	       a->family == b->family && a->model == b->model && a->stepping == b->stepping &&
	       a->implementer == b->implementer && a->part == b->part &&
	       a->variant == b->variant && a->revision == b->revision;
}

/* Both files record it, and the same: an unrecorded fact proves nothing. */
static bool both_same(const char *x, const char *y)
{
	return x && y && !strcmp(x, y);
}

static bool same_machine(const struct result_file *a, const struct result_file *b)
{
	const struct run_context *x = &a->run, *y = &b->run;

	return same_cpu(&x->cpu, &y->cpu) && both_same(x->host_name, y->host_name) &&
	       both_same(x->cpu_model, y->cpu_model) &&
	       x->num_cpus > 0 && x->num_cpus == y->num_cpus &&
	       both_same(x->bouncelab_version, y->bouncelab_version) &&
	       both_same(x->compiler, y->compiler) && both_same(x->build_type, y->build_type) &&
	       both_same(x->gbench_version, y->gbench_version);
}

void fleet_machines(const struct results *set, unsigned int *out)
{
	for (unsigned int f = 0; f < set->nr_files; f++) {
		out[f] = f;
		for (unsigned int g = 0; g < f; g++) {
			if (out[g] == g && same_machine(&set->files[g], &set->files[f])) {
				out[f] = g;
				break;
			}
		}
	}
}

int fleet_pool(struct results *set)
{
	unsigned int *machine = malloc((set->nr_files + 1) * sizeof(*machine));

	if (!machine)
		return -1;
	fleet_machines(set, machine);
	for (size_t i = 0; i < set->nr_rows; i++)
		set->rows[i].file = machine[set->rows[i].file];
	for (size_t i = 0; i < set->nr_failures; i++)
		set->failures[i].file = machine[set->failures[i].file];
	free(machine);
	return 0;
}

/* The file's context, as the reader read it (resultfile/run_context.h). */
static const struct run_context *ctx(const struct results *set, unsigned int file)
{
	return &set->files[file].run;
}

/*
 * Machines as the report names them: the host name, with the number of
 * its first file ("m3") when another machine has the same host name (a
 * different build there), or "machine 3" when the file has none.
 */
struct machine_names {
	const struct results *set;
	bool *ambiguous;	/* per file */
};

static int machine_names_init(struct machine_names *names, const struct results *set)
{
	unsigned int *machine = malloc((set->nr_files + 1) * sizeof(*machine));

	names->set = set;
	names->ambiguous = calloc(set->nr_files + 1, sizeof(bool));
	if (!machine || !names->ambiguous) {
		free(machine);
		free(names->ambiguous);
		return -1;
	}
	fleet_machines(set, machine);
	for (unsigned int f = 0; f < set->nr_files; f++) {
		const char *host = ctx(set, f)->host_name;

		for (unsigned int g = 0; host && g < f; g++) {
			const char *other = ctx(set, g)->host_name;

			if (machine[g] == g && machine[f] == f && other && !strcmp(host, other))
				names->ambiguous[f] = names->ambiguous[g] = true;
		}
	}
	free(machine);
	return 0;
}

static void machine_label(char *buf, size_t len, const struct machine_names *names,
			  unsigned int file)
{
	const char *host = ctx(names->set, file)->host_name;

	if (!host)
		snprintf(buf, len, "machine %u", file + 1);
	else if (names->ambiguous[file])
		snprintf(buf, len, "%s (m%u)", host, file + 1);
	else
		snprintf(buf, len, "%s", host);
}

static void machine_name(FILE *out, const struct machine_names *names, unsigned int file)
{
	char label[256];

	machine_label(label, sizeof(label), names, file);
	md_code(out, label);
}

/*
 * "AMD EPYC 7763; 256 CPUs, 2 NUMA nodes; farthest pair: cross_package":
 * what the numbers depend on, in one line.
 */
static void machine_line(FILE *out, const struct results *set, unsigned int file)
{
	const struct run_context *run = ctx(set, file);
	const struct run_topology *topo = &run->topology;
	const char *farthest = NULL;

	md_escape(out, run->cpu_model ? run->cpu_model : "CPU not recorded");
	if (run->allowed_cpus > 0)
		fprintf(out, "; %ld CPU%s", run->allowed_cpus, format_plural(run->allowed_cpus));
	if (topo->summary) {
		fputs("; ", out);
		md_escape(out, topo->summary);
		return;
	}
	if (topo->numa_nodes >= 0)
		fprintf(out, ", %ld NUMA node%s", topo->numa_nodes, format_plural(topo->numa_nodes));
	for (size_t i = 0; i < topo->nr_classes; i++)
		if (!farthest || distance_rank(topo->classes[i].name) > distance_rank(farthest))
			farthest = topo->classes[i].name;
	if (farthest) {
		fputs("; farthest pair: ", out);
		md_escape(out, farthest);
	}
}

/* "plots/fleet-has_pinned.svg" */
static void fleet_plot_name(char *buf, size_t len, const char *family)
{
	int n = snprintf(buf, len, PLOT_DIR "/fleet-");

	for (; *family && n + 1 < (int)len; family++)
		buf[n++] = ascii_alnum(*family) || *family == '_' || *family == '-' ? *family : '_';
	snprintf(buf + n, len - (size_t)n, ".svg");
}

/* One table row: a machine's setting of a family at the defaults. */
struct fleet_row {
	const struct family_view *f;
	const struct group_view *g;
};

static bool row_group(const struct group_view *g)
{
	return g->nr_pairs && !g->pingpong && g->is_default;
}

/*
 * The family's rows from index i of a->families on: every machine's
 * settings at the catalogue's defaults (one per placement policy), or
 * its verdict's setting when none is. Returns how many; *next is the
 * next family's index.
 */
static size_t family_rows(const struct analysis *a, size_t i,
			  struct fleet_row *rows, size_t *next)
{
	const char *name = a->families[i].name;
	size_t nr = 0;

	for (; i < a->nr_families && !strcmp(a->families[i].name, name); i++) {
		const struct family_view *f = &a->families[i];
		size_t before = nr;

		for (size_t k = f->first_group; k < f->first_group + f->nr_groups; k++)
			if (row_group(&a->groups[k]))
				rows[nr++] = (struct fleet_row){ f, &a->groups[k] };
		if (nr == before && a->groups[f->default_group].nr_pairs &&
		    !a->groups[f->default_group].pingpong)
			rows[nr++] = (struct fleet_row){ f, &a->groups[f->default_group] };
	}
	*next = i;
	return nr;
}

/* Thread counts at which every row has the pair, ascending. */
static size_t shared_threads(const struct fleet_row *rows, size_t nr, long *out)
{
	const struct group_view *first = rows[0].g;
	size_t n = 0;

	for (size_t t = 0; t < first->nr_pairs; t++) {
		long threads = first->pairs[t].threads;
		bool everywhere = true;

		for (size_t i = 1; i < nr && everywhere; i++)
			everywhere = group_view_pair(rows[i].g, threads) != NULL;
		if (everywhere)
			out[n++] = threads;
	}
	/* Many shared counts: keep the largest, where machines differ most. */
	if (n > FLEET_MAX_SHARED) {
		memmove(out, out + n - FLEET_MAX_SHARED, FLEET_MAX_SHARED * sizeof(*out));
		n = FLEET_MAX_SHARED;
	}
	return n;
}

/*
 * The ping-pong floor of a machine: per distance class, its one-way
 * transfer (analysis_machine_one_way_ns(), the one definition the
 * prediction takes too), 0 where the machine has none. Returns whether
 * it has any. The fleet table prints it and the contention model takes
 * it as the machine's latencies.
 */
static bool pingpong_floor(const struct analysis *a, unsigned int file,
			   double floor[NR_DISTANCE_CLASSES])
{
	bool any = false;

	for (int c = 0; c < NR_DISTANCE_CLASSES; c++)
		floor[c] = 0;
	for (size_t i = 0; i < a->nr_transfers; i++) {
		const struct transfer_sample *t = &a->transfers[i];
		int c = distance_class_parse(t->cls ? t->cls : "");

		if (t->file != file || c < 0 || floor[c] > 0)
			continue;
		floor[c] = analysis_machine_one_way_ns(a, file, t->cls);
		any = true;
	}
	return any;
}

/* The floor, nearest class first: "smt 18.0, l3 61.4". */
static void one_way_floor(FILE *out, const struct analysis *a, unsigned int file)
{
	double floor[NR_DISTANCE_CLASSES];
	char v[FORMAT_LEN];
	bool any = false;

	if (!pingpong_floor(a, file, floor)) {
		fputs("not measured", out);
		return;
	}
	for (int c = 0; c < NR_DISTANCE_CLASSES; c++) {
		if (floor[c] <= 0)
			continue;
		fprintf(out, "%s", any ? ", " : "");
		md_escape(out, distance_class_name((enum distance_class)c));
		fprintf(out, " %s", format_sig(v, floor[c]));
		any = true;
	}
}

int fleet_machine(const struct report_input *in, unsigned int file,
		  struct machine_profile *m, char *why, size_t len)
{
	const struct analysis *a = in->a;
	char name[16];

	snprintf(name, sizeof(name), "m%u", file + 1);
	if (machine_profile_of_run(&a->set->files[file].run, name, true, m, why, len))
		return -1;
	if (!pingpong_floor(a, file, m->one_way_ns)) {
		machine_profile_close(m);
		snprintf(why, len, "no ping-pong in the results");
		return -1;
	}
	/* the run's cold miss and shares, as the prediction takes them */
	for (int c = 0; c < NR_DISTANCE_CLASSES; c++)
		if (m->one_way_ns[c] > 0)
			m->cold_miss_ns[c] = analysis_cold_miss_ns(a, file, m->one_way_ns[c]);
	prediction_run_shares(in, file, m);
	return 0;
}

/* The model's ns/op of a variant at the pair's threads, from its 1-thread median. */
static int predict_variant(struct machine_profile *m, const struct analysis *a,
			   const struct fleet_row *r, const char *variant, long threads,
			   double *ns, char *why, size_t len)
{
	const struct kernel_family *kf = r->f->kf;
	double one = analysis_one_thread_ns(a, r->g, variant);
	struct model_prediction pred;
	struct kernel_config cfg;
	int v = kf ? catalog_variant_index(kf, variant) : -1;

	if (v < 0 || !kf->access) {
		snprintf(why, len, "no access profile");
		return -1;
	}
	if (isnan(one)) {
		snprintf(why, len, "no 1-thread measurement");
		return -1;
	}
	/* The rows are at the catalogue's defaults. */
	kernel_config_defaults(kf, &cfg);
	cfg.variant = (unsigned int)v;
	cfg.nr_threads = (unsigned int)threads;
	if (model_predict(m, kf, &cfg, one, 0, r->g->group->policy,
			  &pred, why, len))
		return -1;
	*ns = pred.ns_per_op;
	return 0;
}

/* "4.12x", or "n/a (why)": the model's gain at the row's most threads. */
static void write_predicted_gain(FILE *out, const struct report_input *in,
				 const struct fleet_row *r)
{
	const struct analysis *a = in->a;
	const struct pair_view *p = group_view_widest_pair(r->g);
	struct machine_profile m;
	double before, after;
	char why[256], buf[FORMAT_LEN];

	if (!fleet_machine(in, r->f->file, &m, why, sizeof(why)) &&
	    !predict_variant(&m, a, r, r->g->before, p->threads, &before, why, sizeof(why)) &&
	    !predict_variant(&m, a, r, r->g->after, p->threads, &after, why, sizeof(why)))
		fputs(format_ratio(buf, before / after), out);
	else {
		fputs("n/a (", out);
		md_escape(out, why);
		fputc(')', out);
	}
	machine_profile_close(&m);
}

static void write_pooled(FILE *out, const struct report_input *in,
			 const struct machine_names *names)
{
	const struct results *set = in->set;
	unsigned int *machine = malloc((set->nr_files + 1) * sizeof(*machine));

	if (!machine)
		return;
	fleet_machines(set, machine);
	for (unsigned int m = 0; m < set->nr_files; m++) {
		unsigned int n = 0;

		if (machine[m] != m)
			continue;
		for (unsigned int f = m; f < set->nr_files; f++)
			n += machine[f] == m;
		if (n < 2)
			continue;
		fputs("- ", out);
		machine_name(out, names, m);
		fputs(": ", out);
		for (unsigned int f = m, k = 0; f < set->nr_files; f++) {
			if (machine[f] != m)
				continue;
			fputs(k++ ? ", " : "", out);
			md_code(out, in->files[f]);
		}
		fprintf(out, ": same host and build: pooled as repetitions of one machine "
			"(their tables are under `%s`).\n", in->files[m]);
	}
	fputc('\n', out);
	free(machine);
}

static void write_family_table(FILE *out, const struct report_input *in,
			       const struct machine_names *names,
			       const struct fleet_row *rows, size_t nr)
{
	const struct group_view *g0 = rows[0].g;
	long *shared = calloc(g0->nr_pairs + 1, sizeof(*shared));
	size_t nr_shared = shared ? shared_threads(rows, nr, shared) : 0;
	char r[FORMAT_LEN], plot[PATH_MAX], changes[SWEEP_TEXT_LEN];

	fputs("### ", out);
	md_code(out, rows[0].f->name);
	fputs(": ", out);
	md_code(out, g0->after);
	fputs(" over ", out);
	md_code(out, g0->before);
	fputs(" on each machine\n\n", out);
	fputs("| machine | CPU and topology | setting | fix at the most threads | the model's |", out);
	for (size_t t = 0; t < nr_shared; t++)
		fprintf(out, " at %ld |", shared[t]);
	fputs(" one-way floor by distance, ns |\n|---|---|---|---:|---:|", out);
	for (size_t t = 0; t < nr_shared; t++)
		fputs("---:|", out);
	fputs("---|\n", out);
	for (size_t i = 0; i < nr; i++) {
		const struct group_view *g = rows[i].g;
		const struct pair_view *p = group_view_widest_pair(g);
		unsigned int file = rows[i].f->file;

		fputs("| ", out);
		machine_name(out, names, file);
		fputs(" | ", out);
		machine_line(out, in->set, file);
		/* "defaults", "placement spread": by its parameters, as the tables name it */
		setting_changes(changes, sizeof(changes), g);
		fputs(" | ", out);
		md_escape(out, changes);
		fputs(" in ", out);
		md_code(out, in->files[file]);
		fprintf(out, " | %s at %ld thread%s | ", format_ratio_ci(r, &p->gain),
			p->threads, format_plural(p->threads));
		write_predicted_gain(out, in, &rows[i]);
		fputs(" |", out);
		for (size_t t = 0; t < nr_shared; t++)
			fprintf(out, " %s |", format_ratio(r, group_view_pair(g, shared[t])->gain.ratio));
		fputc(' ', out);
		one_way_floor(out, in->a, file);
		fputs(" |\n", out);
	}
	fputc('\n', out);
	fleet_plot_name(plot, sizeof(plot), rows[0].f->name);
	fputs("![", out);
	md_escape(out, rows[0].f->name);
	fprintf(out, " before and after on each machine](%s)\n\n", plot);
	free(shared);
}

void fleet_write(FILE *out, const struct report_input *in)
{
	const struct analysis *a = in->a;
	struct machine_names names = { 0 };
	struct fleet_row *rows;

	if (in->nr_files < 2)
		return;
	rows = calloc(a->nr_groups + 1, sizeof(*rows));
	if (!rows || machine_names_init(&names, in->set))
		goto out;
	fputs("## Fleet: the fix on each machine\n\n", out);
	write_pooled(out, in, &names);
	fputs("Per family, each machine's settings at the catalogue's defaults (one per placement "
	      "policy): the fix's gain (the before variant's ns/op over the after variant's) at the "
	      "machine's most threads, and at the thread counts every machine measured; then the "
	      "cost of moving one line between two CPUs at each distance (the `pingpong` family's "
	      "store_load median), which bounds what contention can cost there. *The model's* is the "
	      "contention model's gain at the same threads (as `bouncelab model` predicts), from the "
	      "machine's own 1-thread times and one-way floors, on a topology rebuilt from its recorded "
	      "CPUs, NUMA nodes and distance classes: a prediction beside the measurement, or n/a with "
	      "what it lacks. A machine's own tables below give the same numbers with their "
	      "intervals.\n\n", out);
	for (size_t i = 0, next; i < a->nr_families; i = next) {
		size_t nr = family_rows(a, i, rows, &next);

		if (nr)
			write_family_table(out, in, &names, rows, nr);
	}
out:
	free(names.ambiguous);
	free(rows);
}

/*
 * One group of bars per machine: the before and the after variant's ns
 * per operation at each of its rows' most threads, with the medians'
 * intervals. A log axis when they are two decades apart, as the fix on a
 * 256-CPU machine and on a laptop are.
 */
static char *family_plot(const struct machine_names *names,
			 const struct fleet_row *rows, size_t nr)
{
	struct svg_bar *bars = calloc(2 * nr + 1, sizeof(*bars));
	char (*labels)[160] = calloc(2 * nr + 1, sizeof(*labels));
	char (*values)[FORMAT_LEN] = calloc(2 * nr + 1, sizeof(*values));
	char (*groups)[160] = calloc(nr + 1, sizeof(*groups));
	const char **bar_groups = calloc(2 * nr + 1, sizeof(*bar_groups));
	struct svg_bar_chart chart = { .bars = bars, .groups = bar_groups };
	double lo = INFINITY, hi = 0, coverage = 1;
	char title[200];
	char *svg = NULL;

	if (!bars || !labels || !values || !groups || !bar_groups)
		goto out;
	for (size_t i = 0; i < nr; i++) {
		const struct group_view *g = rows[i].g;
		const struct pair_view *p = group_view_widest_pair(g);
		machine_label(groups[i], sizeof(groups[0]), names, rows[i].f->file);
		for (int side = 0; side < 2; side++) {
			const struct result_case *c = side ? p->after : p->before;
			size_t k = chart.nr_bars++;

			snprintf(labels[k], sizeof(labels[0]), "%s, %s, %ld thread%s",
				 c->variant, g->group->policy ? g->group->policy : "setting",
				 p->threads, format_plural(p->threads));
			bars[k] = (struct svg_bar){
				labels[k], c->ns_stats.median,
				c->n > 1 ? c->ns_stats.ci_lo : NAN,
				c->n > 1 ? c->ns_stats.ci_hi : NAN,
				side, format_sig(values[k], c->ns_stats.median),
			};
			bar_groups[k] = groups[i];
			lo = fmin(lo, c->ns_stats.median);
			hi = fmax(hi, c->ns_stats.median);
			if (c->n > 1)
				coverage = fmin(coverage, c->ns_stats.ci_coverage);
		}
	}
	snprintf(title, sizeof(title), "%s: %s and %s on each machine, most threads",
		 rows[0].f->name, rows[0].g->before, rows[0].g->after);
	chart.title = title;
	/* Below 6 repetitions the interval of a median is its range. */
	chart.x_label = coverage >= STATS_CONFIDENCE ?
		"ns per operation per thread (median, bar: 95% CI)" :
		"ns per operation per thread (median, bar: min to max)";
	chart.log_x = hi > 100 * lo;
	svg = svg_bar_chart(&chart);
out:
	free(bars);
	free(labels);
	free(values);
	free(groups);
	free(bar_groups);
	return svg;
}

int fleet_add_plots(struct output_batch *batch, const char *outdir,
		    const struct analysis *a)
{
	struct machine_names names = { 0 };
	struct fleet_row *rows;
	int ret = 0;

	if (a->set->nr_files < 2)
		return 0;
	rows = calloc(a->nr_groups + 1, sizeof(*rows));
	if (!rows || machine_names_init(&names, a->set)) {
		free(rows);
		return -1;
	}
	for (size_t i = 0, next; i < a->nr_families && !ret; i = next) {
		size_t nr = family_rows(a, i, rows, &next);
		char name[PATH_MAX], path[PATH_MAX];
		char *svg;

		if (!nr)
			continue;
		fleet_plot_name(name, sizeof(name), rows[0].f->name);
		svg = family_plot(&names, rows, nr);
		if (!svg || snprintf(path, sizeof(path), "%s/%s", outdir, name) >= (int)sizeof(path)) {
			free(svg);
			ret = -1;
			break;
		}
		ret = output_batch_add(batch, path, svg, strlen(svg));
	}
	free(names.ambiguous);
	free(rows);
	return ret;
}
