// SPDX-License-Identifier: GPL-2.0-only
/*
 * The report's first and last sections: the machine each results file
 * came from, and the commands that produce the same files again. One
 * concern (about 650 lines): what a reader needs to run the same again.
 */
#include <ctype.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <string.h>

#include "catalog.h"
#include "format.h"
#include "markdown.h"

static size_t brief(FILE *out, json_t *v, size_t budget);

static size_t brief_object(FILE *out, json_t *v, size_t budget)
{
	size_t used = 0;
	const char *key;
	json_t *item;
	bool first = true;

	json_object_foreach(v, key, item) {
		if (used >= budget) {
			fputs("; …", out);
			break;
		}
		if (!first)
			fputs("; ", out);
		first = false;
		md_escape(out, key);
		fputs(json_is_object(item) ? " (" : ": ", out);
		used += strlen(key) + 4;
		used += brief(out, item, budget - used);
		if (json_is_object(item))
			fputc(')', out);
	}
	return used;
}

static size_t brief_array(FILE *out, json_t *v, size_t budget)
{
	size_t used = 0, i;
	json_t *item;

	if (!json_array_size(v))
		return (size_t)fprintf(out, "none");
	json_array_foreach(v, i, item) {
		if (used >= budget || i == 16) {
			fprintf(out, ", … (%zu in all)", json_array_size(v));
			break;
		}
		if (i)
			fputs(", ", out);
		used += 2 + brief(out, item, budget - used);
	}
	return used;
}

static size_t brief(FILE *out, json_t *v, size_t budget)
{
	char buf[64];

	switch (json_typeof(v)) {
	case JSON_OBJECT:
		return brief_object(out, v, budget);
	case JSON_ARRAY:
		return brief_array(out, v, budget);
	case JSON_STRING:
		md_escape(out, json_string_value(v));
		return strlen(json_string_value(v));
	case JSON_INTEGER:
		return (size_t)fprintf(out, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
	case JSON_REAL:
		return (size_t)fprintf(out, "%s", format_sig(buf, json_real_value(v)));
	case JSON_TRUE:
		return (size_t)fprintf(out, "yes");
	case JSON_FALSE:
		return (size_t)fprintf(out, "no");
	default:
		return (size_t)fprintf(out, "n/a");
	}
}

void markdown_json_brief(FILE *out, json_t *value, size_t budget)
{
	brief(out, value, budget);
}

/* The file's context, as the reader read it (resultfile/run_context.h). */
static const struct run_context *ctx(const struct report_input *in, unsigned int f)
{
	return &in->set->files[f].run;
}

static void cell_string(FILE *out, const char *v)
{
	md_escape(out, v ? v : "not recorded");
}

static void size_text(FILE *out, long bytes)
{
	if (bytes >= 1 << 20 && bytes % (1 << 20) == 0)
		fprintf(out, "%ld MiB", bytes >> 20);
	else
		fprintf(out, "%ld KiB", bytes >> 10);
}

/* "L1d 32 KiB, L1i 32 KiB, L2 512 KiB, L3 32 MiB shared by 2 CPUs" */
static void caches_text(FILE *out, const struct run_context *run)
{
	for (size_t i = 0; i < run->nr_caches; i++) {
		const struct run_cache *c = &run->caches[i];
		const char *t = c->type;

		if (c->size < 0)
			continue;
		fprintf(out, "%sL%ld%s ", i ? ", " : "", c->level > 0 ? c->level : 0,
			!t ? "" : !strcmp(t, "Data") ? "d" : !strcmp(t, "Instruction") ? "i" : "");
		size_text(out, c->size);
		if (c->num_sharing > 1)
			fprintf(out, " shared by %ld CPUs", c->num_sharing);
	}
}

/*
 * "AuthenticAMD family 25 model 1 stepping 1 (Zen 3)", or an Arm part:
 * what the CPU said it is, from the reader's struct (resultfile/results_read.h).
 */
static void cpu_identity(FILE *out, const struct result_cpu *cpu)
{
	if (!cpu->recorded) {
		fputs("vendor and family not recorded (results from an older bouncelab)", out);
		return;
	}
	md_escape(out, cpu->vendor);
	if (cpu->family >= 0)
		fprintf(out, " family %ld model %ld stepping %ld", cpu->family, cpu->model,
			cpu->stepping);
	else if (cpu->part >= 0)
		fprintf(out, " part 0x%03lx r%ldp%ld", cpu->part, cpu->variant, cpu->revision);
	fputs(" (", out);
	md_escape(out, cpu->microarchitecture ? cpu->microarchitecture : "unknown");
	fputc(')', out);
}

static void row_cpu(FILE *out, const struct report_input *in, unsigned int f)
{
	const struct run_context *run = ctx(in, f);

	cell_string(out, run->cpu_model);
	fputs(": ", out);
	cpu_identity(out, &run->cpu);
	if (run->num_cpus > 0)
		fprintf(out, ", %ld CPUs", run->num_cpus);
	if (!isnan(run->mhz_per_cpu))
		fprintf(out, " at %.0f MHz", run->mhz_per_cpu);
}

/* "same_pu (CPUs 0 and 0), l3 (CPUs 0 and 1)": an example pair per class. */
static void topology_classes(FILE *out, const struct run_topology *topo)
{
	const char *sep = "";

	for (size_t i = 0; i < topo->nr_classes; i++) {
		const struct run_class *c = &topo->classes[i];

		fputs(sep, out);
		md_name(out, c->name);
		if (c->cpu_a >= 0)
			fprintf(out, " (CPUs %ld and %ld)", c->cpu_a, c->cpu_b);
		sep = ", ";
	}
}

/* What resultfile/results.c records in context.topology, in one sentence. */
static void topology_text(FILE *out, const struct run_topology *topo)
{
	if (topo->source) {
		md_escape_short_paths(out, topo->source);
		fputs(": ", out);
	}
	if (topo->nr_allowed_cpus >= 0)
		fprintf(out, "%ld allowed CPUs", topo->nr_allowed_cpus);
	if (topo->allowed_cpus) {
		fputs(" (", out);
		md_escape(out, topo->allowed_cpus);
		fputc(')', out);
	}
	if (topo->numa_nodes >= 0)
		fprintf(out, ", %ld NUMA node%s", topo->numa_nodes,
			topo->numa_nodes == 1 ? "" : "s");
	if (topo->nr_classes) {
		fputs("; distance classes: ", out);
		topology_classes(out, topo);
	}
}

static void row_topology(FILE *out, const struct report_input *in, unsigned int f)
{
	const struct run_context *run = ctx(in, f);
	const struct run_topology *topo = &run->topology;

	if (topo->summary)
		md_escape(out, topo->summary);
	else if (topo->nr_allowed_cpus >= 0 || topo->has_classes)
		topology_text(out, topo);
	else if (topo->recorded)
		brief(out, (json_t *)topo->as_recorded, 400);
	if (topo->recorded && run->nr_caches)
		fputs("; caches: ", out);
	if (run->nr_caches)
		caches_text(out, run);
	else if (!topo->recorded)
		fputs("not recorded", out);
}

static void row_hypervisor(FILE *out, const struct report_input *in, unsigned int f)
{
	int hypervisor = ctx(in, f)->hypervisor;

	if (hypervisor == 1)
		fputs("yes: a VM, whose vCPUs the host can move or share mid-run; absolute figures are indicative", out);
	else if (hypervisor == 0)
		fputs("no", out);
	else
		fputs("not recorded", out);
}

static void row_gbench(FILE *out, const struct report_input *in, unsigned int f)
{
	const char *type = ctx(in, f)->library_build_type;

	cell_string(out, ctx(in, f)->gbench_version);
	if (type) {
		fputs(", library built as ", out);
		md_escape(out, type);
		if (!strcmp(type, "debug"))
			fputs(" (Debian's package; the timed loop is bouncelab's own, so this costs little)", out);
	}
}

static void row_compiler(FILE *out, const struct report_input *in, unsigned int f)
{
	cell_string(out, ctx(in, f)->compiler);
	if (ctx(in, f)->build_type) {
		fputs(", build type ", out);
		cell_string(out, ctx(in, f)->build_type);
	}
}

/* "coherence (cache-to-cache fills): n/a (no hardware PMU); sw: ok; PMU ..." */
static void counter_sets(FILE *out, const struct run_counters *counters)
{
	const char *sep = "";

	for (size_t i = 0; i < counters->nr_sets; i++) {
		const struct run_counter_set *set = &counters->sets[i];

		fprintf(out, "%s", sep);
		md_name(out, set->name);
		if (set->label) {
			fputs(" (", out);
			md_escape(out, set->label);
			fputc(')', out);
		}
		fputs(": ", out);
		md_escape(out, set->summary ? set->summary : "?");
		sep = "; ";
	}
	if (!*sep)
		fputs("none asked for (`bouncelab run --counters coherence,sw`)", out);
	if (counters->core_pmu) {
		fputs("; core PMU ", out);
		md_escape(out, counters->core_pmu);
	}
	if (counters->perf_event_paranoid != LONG_MIN)
		fprintf(out, ", perf_event_paranoid %ld", counters->perf_event_paranoid);
}

static void row_counters(FILE *out, const struct report_input *in, unsigned int f)
{
	const struct run_counters *c = &ctx(in, f)->counters;

	if (c->has_sets)
		counter_sets(out, c);
	else if (c->recorded)
		brief(out, (json_t *)c->as_recorded, 600);
	else
		fputs("not recorded in the results", out);
}

static void row_governor(FILE *out, const struct report_input *in, unsigned int f)
{
	cell_string(out, ctx(in, f)->governor);
	if (ctx(in, f)->cpu_scaling_enabled)
		fputs("; frequency scaling is on", out);
}

static void row_rows(FILE *out, const struct report_input *in, unsigned int f)
{
	const struct result_file *rf = &in->set->files[f];

	fprintf(out, "%zu good, %zu failed", rf->nr_rows, rf->nr_failed);
	if (rf->nr_aggregates)
		fprintf(out, "; %zu aggregate rows ignored (recomputed from the repetitions)",
			rf->nr_aggregates);
	if (rf->nr_foreign)
		fprintf(out, "; %zu rows from other tools ignored", rf->nr_foreign);
}

/* "0.1.0 (revision 772d4aa)": the version, and the source's git revision. */
static void row_bouncelab(FILE *out, const struct report_input *in, unsigned int f)
{
	const char *revision = ctx(in, f)->bouncelab_revision;

	cell_string(out, ctx(in, f)->bouncelab_version);
	if (revision) {
		fputs(" (revision ", out);
		md_escape(out, revision);
		fputc(')', out);
	}
}

/* "job 1234 (array 1233, task 2), cluster c, nodes n1, partition p" */
static void row_slurm(FILE *out, const struct report_input *in, unsigned int f)
{
	const struct run_slurm *s = &ctx(in, f)->slurm;
	const struct {
		const char *label, *value;
	} facts[] = {
		{ ", cluster ", s->cluster_name },
		{ ", nodes ", s->node_list },
		{ ", partition ", s->partition },
	};

	if (!s->job_id) {
		fputs("not in a Slurm job", out);
		return;
	}
	fputs("job ", out);
	md_escape(out, s->job_id);
	if (s->array_job_id && s->array_task_id) {
		fputs(" (array ", out);
		md_escape(out, s->array_job_id);
		fputs(", task ", out);
		md_escape(out, s->array_task_id);
		fputc(')', out);
	}
	for (size_t i = 0; i < sizeof(facts) / sizeof(facts[0]); i++) {
		if (!facts[i].value)
			continue;
		fputs(facts[i].label, out);
		md_escape(out, facts[i].value);
	}
}

/* Whether any file ran in a Slurm job: the row is left out otherwise. */
static bool any_slurm(const struct report_input *in)
{
	for (unsigned int f = 0; f < in->nr_files; f++)
		if (ctx(in, f)->slurm.job_id)
			return true;
	return false;
}

static void row_host(FILE *out, const struct report_input *in, unsigned int f)
{
	cell_string(out, ctx(in, f)->host_name);
}

static void row_date(FILE *out, const struct report_input *in, unsigned int f)
{
	cell_string(out, ctx(in, f)->date);
}

static void row_kernel(FILE *out, const struct report_input *in, unsigned int f)
{
	cell_string(out, ctx(in, f)->kernel_release);
}

/* "0.500, 0.250, 0.125": the 1, 5 and 15 minute load averages */
static void row_load_avg(FILE *out, const struct report_input *in, unsigned int f)
{
	const struct run_context *run = ctx(in, f);
	char buf[FORMAT_LEN];

	if (run->load_avg_recorded && !run->nr_load_avg)
		fputs("none", out);
	else if (!run->load_avg_recorded)
		fputs("not recorded", out);
	for (size_t i = 0; i < run->nr_load_avg; i++)
		fprintf(out, "%s%s", i ? ", " : "", format_sig(buf, run->load_avg[i]));
}

/*
 * all_rows false: only what a reader of the numbers needs (the machine,
 * the counters, the load, the repetitions); the appendix has every row.
 */
void markdown_environment(FILE *out, const struct report_input *in, bool all_rows)
{
	static const struct {
		const char *label;
		void (*fn)(FILE *, const struct report_input *, unsigned int);
		bool essential;
	} rows[] = {
		{ "Host", row_host, false },
		{ "Date", row_date, false },
		{ "CPU", row_cpu, true },
		{ "Topology", row_topology, true },
		{ "Kernel", row_kernel, false },
		{ "Hypervisor", row_hypervisor, true },
		{ "Governor", row_governor, false },
		{ "Compiler", row_compiler, false },
		{ "Google Benchmark", row_gbench, false },
		{ "Counters", row_counters, true },
		{ "Load average", row_load_avg, true },
		{ "bouncelab", row_bouncelab, false },
		{ "Repetitions", row_rows, true },
		{ "Slurm", row_slurm, true },
	};

	/* A table of the files a page shows side by side, then the next. */
	const unsigned int per_table = MD_TABLE_MAX_COLUMNS - 1;

	fputs("## Environment\n\n", out);
	for (unsigned int first = 0; first < in->nr_files; first += per_table) {
		unsigned int end = first + per_table < in->nr_files ?
				   first + per_table : in->nr_files;

		fputs("| |", out);
		for (unsigned int f = first; f < end; f++) {
			fputc(' ', out);
			md_code(out, in->files[f]);
			fputs(" |", out);
		}
		fputs("\n|---|", out);
		for (unsigned int f = first; f < end; f++)
			fputs("---|", out);
		fputc('\n', out);
		for (size_t r = 0; r < sizeof(rows) / sizeof(rows[0]); r++) {
			if ((!all_rows && !rows[r].essential) ||
			    (rows[r].fn == row_slurm && !any_slurm(in)))
				continue;
			fprintf(out, "| %s |", rows[r].label);
			for (unsigned int f = first; f < end; f++) {
				fputc(' ', out);
				rows[r].fn(out, in, f);
				fputs(" |", out);
			}
			fputc('\n', out);
		}
		fputc('\n', out);
	}
}

/* A parameter of a family and the values its rows took. */
struct swept_param {
	const struct kernel_family *family;
	unsigned int param, nr;
	long values[16];
};

/*
 * " --repetitions N --param F.P=V,V": from the settings of file f's rows,
 * each parameter the file names with the values it took, in the order
 * they first appear; a parameter only ever at its default is left out.
 */
static void reconstruct_options(FILE *out, const struct report_input *in,
				unsigned int f)
{
	static struct swept_param params[64];
	const struct results *set = in->set;
	long repetitions = ctx(in, f)->repetitions;
	unsigned int nr = 0;

	for (size_t i = 0; i < set->nr_rows; i++) {
		const struct setting *s = &set->rows[i].params;

		if (set->rows[i].file != f || !s->family)
			continue;
		for (unsigned int p = 0; p < s->family->nr_params; p++) {
			struct swept_param *sp = NULL;
			unsigned int k;

			if (!(s->named & (1u << p)) || (s->unreadable & (1u << p)))
				continue;
			for (k = 0; k < nr && !sp; k++)
				if (params[k].family == s->family && params[k].param == p)
					sp = &params[k];
			if (!sp) {
				if (nr == 64)
					continue;
				sp = &params[nr++];
				*sp = (struct swept_param){ s->family, p, 0, { 0 } };
			}
			for (k = 0; k < sp->nr && sp->values[k] != s->value[p]; k++)
				;
			if (k == sp->nr && sp->nr < 16)
				sp->values[sp->nr++] = s->value[p];
		}
	}
	if (repetitions > 0)
		fprintf(out, " --repetitions %ld", repetitions);
	for (unsigned int k = 0; k < nr; k++) {
		const struct kernel_param *param = &params[k].family->params[params[k].param];
		char text[64];

		if (params[k].nr == 1 && params[k].values[0] == param->def)
			continue;
		fprintf(out, " --param %s.%s=", params[k].family->name, param->name);
		for (unsigned int v = 0; v < params[k].nr; v++)
			fprintf(out, "%s%s", v ? "," : "",
				param_value_text(param, params[k].values[v], text, sizeof(text)));
	}
}

/* Lists each family's parameter values and the placements seen. */
static void reconstruct_run(FILE *out, const struct report_input *in, unsigned int f)
{
	const struct analysis *a = in->a;
	long threads[64];
	size_t nr_threads = 0;
	const char *last_family = NULL;

	fputs("bouncelab run", out);
	for (size_t i = 0; i < a->nr_groups; i++) {
		const struct group_view *g = &a->groups[i];

		if (g->group->file != f)
			continue;
		for (size_t t = 0; t < g->nr_threads; t++) {
			size_t k;

			for (k = 0; k < nr_threads && threads[k] != g->threads[t]; k++)
				;
			if (k == nr_threads && nr_threads < 64)
				threads[nr_threads++] = g->threads[t];
		}
	}
	fputs(" --filter '^(", out);
	for (size_t i = 0; i < a->nr_families; i++) {
		if (a->families[i].file != f ||
		    (last_family && !strcmp(last_family, a->families[i].name)))
			continue;
		fprintf(out, "%s%s", last_family ? "|" : "", a->families[i].name);
		last_family = a->families[i].name;
	}
	fputs(")/' --threads ", out);
	for (size_t k = 0; k < nr_threads; k++)
		fprintf(out, "%s%ld", k ? "," : "", threads[k]);
	reconstruct_options(out, in, f);
	fputs(" --out results.json\n", out);
}

void markdown_reproduce(FILE *out, const struct report_input *in)
{
	const char *version = ctx(in, 0)->bouncelab_version;
	const char *revision = ctx(in, 0)->bouncelab_revision;

	fputs("## How to reproduce\n\nBuild bouncelab", out);
	if (version) {
		fputc(' ', out);
		md_escape(out, version);
	}
	if (revision) {
		fputs(" at revision ", out);
		md_code(out, revision);
	}
	fputs(" (`meson setup build && ninja -C build`; the program is then `build/bouncelab`), "
	      "then run:\n\n```sh\n", out);
	/*
	 * Built from the rows' families and thread counts, never printed
	 * from the file's context.command: a results file is input, and a
	 * line in a shell block must not be the file's to write.
	 */
	for (unsigned int f = 0; f < in->nr_files; f++) {
		if (in->nr_files > 1) {
			const char *host = ctx(in, f)->host_name;

			fputs("# on ", out);
			for (; host && *host; host++)
				fputc(isalnum((unsigned char)*host) || strchr("._-", *host) ?
				      *host : '_', out);
			fputs(host ? "\n" : "the machine\n", out);
		}
		reconstruct_run(out, in, f);
	}
	fputs("bouncelab report", out);
	for (unsigned int f = 0; f < in->nr_files; f++) {
		fputc(' ', out);
		format_shell_word(out, in->files[f]);
	}
	if (in->latency_path) {
		fputs(" --latency ", out);
		format_shell_word(out, in->latency_path);
	}
	fputs(" -o ", out);
	format_shell_word(out, in->outdir);
	fputs("\n```\n\n", out);
	fputs("The run command is rebuilt from the results' rows (families, thread counts, repetitions, parameter values); the time per repetition is the default.\n\n", out);
}
