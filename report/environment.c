// SPDX-License-Identifier: GPL-2.0-only
/*
 * The report's first and last sections: the machine each results file
 * came from, and the commands that produce the same files again.
 */
#include <ctype.h>
#include <jansson.h>
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

static json_t *ctx(const struct report_input *in, unsigned int f, const char *key)
{
	return json_object_get(in->set->files[f].context, key);
}

static void cell_string(FILE *out, json_t *v)
{
	if (json_is_string(v))
		md_escape(out, json_string_value(v));
	else if (v)
		brief(out, v, 300);
	else
		fputs("not recorded", out);
}

static void size_text(FILE *out, json_int_t bytes)
{
	if (bytes >= 1 << 20 && bytes % (1 << 20) == 0)
		fprintf(out, "%" JSON_INTEGER_FORMAT " MiB", bytes >> 20);
	else
		fprintf(out, "%" JSON_INTEGER_FORMAT " KiB", bytes >> 10);
}

/* "L1d 32 KiB, L1i 32 KiB, L2 512 KiB, L3 32 MiB shared by 2 CPUs" */
static void caches_text(FILE *out, json_t *caches)
{
	json_t *c;
	size_t i;

	json_array_foreach(caches, i, c) {
		json_t *type = json_object_get(c, "type");
		json_t *size = json_object_get(c, "size");
		json_t *sharing = json_object_get(c, "num_sharing");
		const char *t = json_string_value(type);

		if (!json_is_integer(size))
			continue;
		fprintf(out, "%sL%" JSON_INTEGER_FORMAT "%s ", i ? ", " : "",
			json_integer_value(json_object_get(c, "level")),
			!t ? "" : !strcmp(t, "Data") ? "d" : !strcmp(t, "Instruction") ? "i" : "");
		size_text(out, json_integer_value(size));
		if (json_is_integer(sharing) && json_integer_value(sharing) > 1)
			fprintf(out, " shared by %" JSON_INTEGER_FORMAT " CPUs",
				json_integer_value(sharing));
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
	json_t *cpus = ctx(in, f, "num_cpus"), *mhz = ctx(in, f, "mhz_per_cpu");

	cell_string(out, ctx(in, f, "cpu_model"));
	fputs(": ", out);
	cpu_identity(out, &in->set->files[f].cpu);
	if (json_is_integer(cpus))
		fprintf(out, ", %" JSON_INTEGER_FORMAT " CPUs", json_integer_value(cpus));
	if (json_is_number(mhz))
		fprintf(out, " at %.0f MHz", json_number_value(mhz));
}

/* "same_pu (CPUs 0 and 0), l3 (CPUs 0 and 1)": an example pair per class. */
static void topology_classes(FILE *out, json_t *classes)
{
	const char *name, *sep = "";
	json_t *pair;

	json_object_foreach(classes, name, pair) {
		fputs(sep, out);
		md_name(out, name);
		if (json_array_size(pair) == 2)
			fprintf(out, " (CPUs %" JSON_INTEGER_FORMAT " and %" JSON_INTEGER_FORMAT ")",
				json_integer_value(json_array_get(pair, 0)),
				json_integer_value(json_array_get(pair, 1)));
		sep = ", ";
	}
}

/* What resultfile/results.c records in context.topology, in one sentence. */
static void topology_text(FILE *out, json_t *topo)
{
	json_t *source = json_object_get(topo, "source");
	json_t *nr = json_object_get(topo, "nr_allowed_cpus");
	json_t *cpus = json_object_get(topo, "allowed_cpus");
	json_t *nodes = json_object_get(topo, "numa_nodes");
	json_t *classes = json_object_get(topo, "classes");

	if (json_is_string(source)) {
		md_escape_short_paths(out, json_string_value(source));
		fputs(": ", out);
	}
	if (json_is_integer(nr))
		fprintf(out, "%" JSON_INTEGER_FORMAT " allowed CPUs", json_integer_value(nr));
	if (json_is_string(cpus)) {
		fputs(" (", out);
		md_escape(out, json_string_value(cpus));
		fputc(')', out);
	}
	if (json_is_integer(nodes))
		fprintf(out, ", %" JSON_INTEGER_FORMAT " NUMA node%s", json_integer_value(nodes),
			json_integer_value(nodes) == 1 ? "" : "s");
	if (json_object_size(classes)) {
		fputs("; distance classes: ", out);
		topology_classes(out, classes);
	}
}

static void row_topology(FILE *out, const struct report_input *in, unsigned int f)
{
	json_t *topo = ctx(in, f, "topology"), *caches = ctx(in, f, "caches");

	if (json_is_string(json_object_get(topo, "summary")))
		md_escape(out, json_string_value(json_object_get(topo, "summary")));
	else if (json_object_get(topo, "nr_allowed_cpus") || json_object_get(topo, "classes"))
		topology_text(out, topo);
	else if (topo)
		brief(out, topo, 400);
	if (topo && json_array_size(caches))
		fputs("; caches: ", out);
	if (json_array_size(caches))
		caches_text(out, caches);
	else if (!topo)
		fputs("not recorded", out);
}

static void row_hypervisor(FILE *out, const struct report_input *in, unsigned int f)
{
	json_t *v = ctx(in, f, "hypervisor");

	if (json_is_true(v))
		fputs("yes: a VM, whose vCPUs the host can move or share mid-run; absolute figures are indicative", out);
	else if (json_is_false(v))
		fputs("no", out);
	else
		fputs("not recorded", out);
}

static void row_gbench(FILE *out, const struct report_input *in, unsigned int f)
{
	json_t *type = ctx(in, f, "library_build_type");

	cell_string(out, ctx(in, f, "gbench_version"));
	if (json_is_string(type)) {
		fputs(", library built as ", out);
		md_escape(out, json_string_value(type));
		if (!strcmp(json_string_value(type), "debug"))
			fputs(" (Debian's package; the timed loop is bouncelab's own, so this costs little)", out);
	}
}

static void row_compiler(FILE *out, const struct report_input *in, unsigned int f)
{
	cell_string(out, ctx(in, f, "compiler"));
	if (ctx(in, f, "build_type")) {
		fputs(", build type ", out);
		cell_string(out, ctx(in, f, "build_type"));
	}
}

/* "coherence (cache-to-cache fills): n/a (no hardware PMU); sw: ok; PMU ..." */
static void counter_sets(FILE *out, json_t *counters, json_t *sets)
{
	json_t *pmu = json_object_get(counters, "core_pmu");
	json_t *paranoid = json_object_get(counters, "perf_event_paranoid");
	const char *name, *sep = "";
	json_t *set;

	json_object_foreach(sets, name, set) {
		json_t *label = json_object_get(set, "label");
		json_t *summary = json_object_get(set, "summary");

		if (!json_is_string(label))
			label = json_object_get(set, "title");
		fprintf(out, "%s", sep);
		md_name(out, name);
		if (json_is_string(label)) {
			fputs(" (", out);
			md_escape(out, json_string_value(label));
			fputc(')', out);
		}
		fputs(": ", out);
		md_escape(out, json_is_string(summary) ? json_string_value(summary) : "?");
		sep = "; ";
	}
	if (!*sep)
		fputs("none asked for (`bouncelab run --counters coherence,sw`)", out);
	if (json_is_string(pmu)) {
		fputs("; core PMU ", out);
		md_escape(out, json_string_value(pmu));
	}
	if (json_is_integer(paranoid))
		fprintf(out, ", perf_event_paranoid %" JSON_INTEGER_FORMAT,
			json_integer_value(paranoid));
}

static void row_counters(FILE *out, const struct report_input *in, unsigned int f)
{
	json_t *c = ctx(in, f, "counters");
	json_t *sets = json_object_get(c, "sets");

	if (json_is_object(sets))
		counter_sets(out, c, sets);
	else if (c)
		brief(out, c, 600);
	else
		fputs("not recorded in the results", out);
}

static void row_governor(FILE *out, const struct report_input *in, unsigned int f)
{
	cell_string(out, ctx(in, f, "governor"));
	if (json_is_true(ctx(in, f, "cpu_scaling_enabled")))
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
	const char *revision = results_context_string(&in->set->files[f], "bouncelab_revision");

	cell_string(out, ctx(in, f, "bouncelab_version"));
	if (revision) {
		fputs(" (revision ", out);
		md_escape(out, revision);
		fputc(')', out);
	}
}

static void row_key(FILE *out, const struct report_input *in, unsigned int f,
		    const char *key)
{
	cell_string(out, ctx(in, f, key));
}

/*
 * all_rows false: only what a reader of the numbers needs (the machine,
 * the counters, the load, the repetitions); the appendix has every row.
 */
void markdown_environment(FILE *out, const struct report_input *in, bool all_rows)
{
	static const struct {
		const char *label, *key;
		void (*fn)(FILE *, const struct report_input *, unsigned int);
		bool essential;
	} rows[] = {
		{ "Host", "host_name", NULL, false },
		{ "Date", "date", NULL, false },
		{ "CPU", NULL, row_cpu, true },
		{ "Topology", NULL, row_topology, true },
		{ "Kernel", "kernel_release", NULL, false },
		{ "Hypervisor", NULL, row_hypervisor, true },
		{ "Governor", NULL, row_governor, false },
		{ "Compiler", NULL, row_compiler, false },
		{ "Google Benchmark", NULL, row_gbench, false },
		{ "Counters", NULL, row_counters, true },
		{ "Load average", "load_avg", NULL, true },
		{ "bouncelab", NULL, row_bouncelab, false },
		{ "Repetitions", NULL, row_rows, true },
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
			if (!all_rows && !rows[r].essential)
				continue;
			fprintf(out, "| %s |", rows[r].label);
			for (unsigned int f = first; f < end; f++) {
				fputc(' ', out);
				if (rows[r].fn)
					rows[r].fn(out, in, f);
				else
					row_key(out, in, f, rows[r].key);
				fputs(" |", out);
			}
			fputc('\n', out);
		}
		fputc('\n', out);
	}
}

/* A shell word: quoted when it holds anything but safe characters. */
static void shell_word(FILE *out, const char *s)
{
	if (*s && strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-+=/.,:@%") == strlen(s)) {
		fputs(s, out);
		return;
	}
	/* A control byte (a newline could end the code block): $'...' form. */
	for (const char *p = s; *p; p++) {
		if ((unsigned char)*p >= 0x20 && *p != 0x7f)
			continue;
		fputs("$'", out);
		for (; *s; s++) {
			if ((unsigned char)*s < 0x20 || *s == 0x7f)
				fprintf(out, "\\x%02x", (unsigned char)*s);
			else if (*s == '\'' || *s == '\\')
				fprintf(out, "\\%c", *s);
			else
				fputc(*s, out);
		}
		fputc('\'', out);
		return;
	}
	fputc('\'', out);
	for (; *s; s++) {
		if (*s == '\'')
			fputs("'\\''", out);
		else
			fputc(*s, out);
	}
	fputc('\'', out);
}

/* A parameter of a family and the values its rows took. */
struct swept_param {
	const char *family, *name;
	unsigned int nr;
	char values[16][64];
};

static bool is_default(const char *family, const char *name, const char *value)
{
	const struct kernel_family *kf = catalog_find(family);
	int p = kf ? kernel_param_index(kf, name) : -1;

	if (p < 0)
		return true;	/* a family this catalogue lacks: leave it be */
	return kernel_param_text_is_default(&kf->params[p], value);
}

/*
 * " --repetitions N --param F.P=V,V": from the rows of file f, whose
 * names and values the reader checked against the catalogue's characters.
 */
static void reconstruct_options(FILE *out, const struct report_input *in,
				unsigned int f)
{
	static struct swept_param params[64];
	json_t *rows = json_object_get(in->set->files[f].doc, "benchmarks"), *row;
	const struct results *set = in->set;
	json_int_t repetitions = 0;
	unsigned int nr = 0;
	size_t i;

	json_array_foreach(rows, i, row) {
		json_t *r = json_object_get(row, "repetitions");

		if (json_is_integer(r) && json_integer_value(r) > repetitions)
			repetitions = json_integer_value(r);
	}
	for (i = 0; i < set->nr_rows; i++) {
		const struct result_row *rr = &set->rows[i];
		const char *key;
		json_t *v;

		if (rr->file != f || !rr->family || !json_is_object(rr->params))
			continue;
		json_object_foreach(rr->params, key, v) {
			struct swept_param *sp = NULL;
			char text[64];

			if (json_is_string(v))
				snprintf(text, sizeof(text), "%s", json_string_value(v));
			else if (json_is_integer(v))
				snprintf(text, sizeof(text), "%" JSON_INTEGER_FORMAT,
					 json_integer_value(v));
			else
				continue;
			for (unsigned int k = 0; k < nr && !sp; k++)
				if (!strcmp(params[k].family, rr->family) &&
				    !strcmp(params[k].name, key))
					sp = &params[k];
			if (!sp) {
				if (nr == 64)
					continue;
				sp = &params[nr++];
				*sp = (struct swept_param){ rr->family, key, 0, { "" } };
			}
			unsigned int k;

			for (k = 0; k < sp->nr && strcmp(sp->values[k], text); k++)
				;
			if (k == sp->nr && sp->nr < 16)
				snprintf(sp->values[sp->nr++], 64, "%s", text);
		}
	}
	if (repetitions > 0)
		fprintf(out, " --repetitions %" JSON_INTEGER_FORMAT, repetitions);
	for (unsigned int k = 0; k < nr; k++) {
		if (params[k].nr == 1 &&
		    is_default(params[k].family, params[k].name, params[k].values[0]))
			continue;
		fprintf(out, " --param %s.%s=", params[k].family, params[k].name);
		for (unsigned int v = 0; v < params[k].nr; v++)
			fprintf(out, "%s%s", v ? "," : "", params[k].values[v]);
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
	json_t *version = ctx(in, 0, "bouncelab_version");
	const char *revision = results_context_string(&in->set->files[0], "bouncelab_revision");

	fputs("## How to reproduce\n\nBuild bouncelab", out);
	if (json_is_string(version)) {
		fputc(' ', out);
		md_escape(out, json_string_value(version));
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
			const char *host = json_string_value(ctx(in, f, "host_name"));

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
		shell_word(out, in->files[f]);
	}
	if (in->latency_path) {
		fputs(" --latency ", out);
		shell_word(out, in->latency_path);
	}
	fputs(" -o ", out);
	shell_word(out, in->outdir);
	fputs("\n```\n\n", out);
	fputs("The run command is rebuilt from the results' rows (families, thread counts, repetitions, parameter values); the time per repetition is the default.\n\n", out);
}
