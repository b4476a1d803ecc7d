// SPDX-License-Identifier: GPL-2.0-only
/*
 * `bouncelab model` run in this process, its numbers checked against
 * values worked out apart from the command:
 *
 * - the private cost it measures, with clock_gettime() wrapped in this
 *   program only (-Wl,--wrap=clock_gettime) to give each timed batch a
 *   duration the test chooses: the median of the five batches of at least
 *   a millisecond, each batch four times the last until one is, is then
 *   known by hand;
 * - every row it prints, text and --json, against the library's own
 *   prediction for the same inputs (model_predict(), itself held to
 *   closed forms by test_model), and the header against the profile file;
 * - its options: each bad one refused in one line with exit 2.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#include "catalog.h"
#include "kernel.h"
#include "cli.h"
#include "model.h"

/* ---- a clock whose batches last what the test says ---- */

#define SCRIPT_MAX 64

static struct {
	bool armed;
	double durations[SCRIPT_MAX];	/* ns, whole numbers */
	size_t nr;
	size_t calls;			/* CLOCK_MONOTONIC reads while armed */
} fake;

int __real_clock_gettime(clockid_t clock, struct timespec *ts);
int __wrap_clock_gettime(clockid_t clock, struct timespec *ts);

/*
 * Reads come in pairs, a batch's start and end. Batch j starts 100 us
 * before second 10 (j + 1), so that every batch of more than 100 us
 * crosses a second: a second taken as other than 1e9 ns shows. A batch
 * past the script lasts a second, which ends any measurement loop.
 */
int __wrap_clock_gettime(clockid_t clock, struct timespec *ts)
{
	size_t call, batch;
	double ns;

	if (!fake.armed || clock != CLOCK_MONOTONIC)
		return __real_clock_gettime(clock, ts);
	call = fake.calls++;
	batch = call / 2;
	ns = 10e9 * (double)(batch + 1) - 1e5;
	if (call % 2)	/* a batch beyond the script: counted, and long enough to end */
		ns += batch < fake.nr ? fake.durations[batch] : 1e9;
	ts->tv_sec = (time_t)(ns / 1e9);
	ts->tv_nsec = (long)(ns - 1e9 * (double)ts->tv_sec);
	return 0;
}

static void script(const double *durations, size_t nr)
{
	assert_true(nr <= SCRIPT_MAX);
	memcpy(fake.durations, durations, nr * sizeof(*durations));
	fake.nr = nr;
	fake.calls = 0;
	fake.armed = true;
}

/* ---- the command, its output captured ---- */

static const char *source_dir;
static char tmp_dir[] = "/tmp/bouncelab-model-cli-XXXXXX";

struct output {
	int rc;
	char out[1 << 17];
	char err[4096];
};

static void read_all(int fd, char *buf, size_t len)
{
	ssize_t n, used = 0;

	lseek(fd, 0, SEEK_SET);
	while ((n = read(fd, buf + used, len - 1 - (size_t)used)) > 0)
		used += n;
	buf[used] = 0;
}

/* cmd_model(NULL-terminated args after "model"), stdout and stderr kept */
static void run_model(struct output *o, ...)
{
	char *argv[40] = { "model" };
	char out_path[128], err_path[128];
	int argc = 1, saved_out, saved_err, out_fd, err_fd;
	va_list ap;

	va_start(ap, o);
	while ((argv[argc] = va_arg(ap, char *)))
		argc++;
	va_end(ap);
	snprintf(out_path, sizeof(out_path), "%s/out", tmp_dir);
	snprintf(err_path, sizeof(err_path), "%s/err", tmp_dir);
	out_fd = open(out_path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	err_fd = open(err_path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	assert_true(out_fd >= 0 && err_fd >= 0);
	fflush(stdout);
	fflush(stderr);
	saved_out = dup(1);
	saved_err = dup(2);
	dup2(out_fd, 1);
	dup2(err_fd, 2);
	o->rc = cmd_model(argc, argv);
	fflush(stdout);
	fflush(stderr);
	dup2(saved_out, 1);
	dup2(saved_err, 2);
	close(saved_out);
	close(saved_err);
	fake.armed = false;
	read_all(out_fd, o->out, sizeof(o->out));
	read_all(err_fd, o->err, sizeof(o->err));
	close(out_fd);
	close(err_fd);
}

static json_t *parse_json(const struct output *o)
{
	json_error_t jerr;
	json_t *doc = json_loads(o->out, 0, &jerr);

	if (!doc)
		fail_msg("not JSON (%s): rc %d, stdout '%.300s', stderr '%s'", jerr.text, o->rc, o->out,
			 o->err);
	return doc;
}

/* A profile written for the test: its path, under tmp_dir. */
static const char *write_profile(const char *name, const char *text)
{
	static char paths[8][160];
	static int next;
	char *path = paths[next++ % 8];
	FILE *f;

	snprintf(path, sizeof(paths[0]), "%s/%s.json", tmp_dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	return path;
}

#define TWO_CPUS "{\"name\": \"two\", \"title\": \"two CPUs\", \"topology\": \"pack:1 core:2 pu:1\", " \
	"\"clock_ghz\": {\"value\": 2, \"source\": \"s\"}, " \
	"\"store_buffer\": {\"value\": 64, \"source\": \"s\"}, " \
	"\"one_way_ns\": {\"package\": {\"value\": 40, \"source\": \"s\"}}}"

/*
 * The clock the command scales a cost measured here by: this CPU's, as
 * /proc/cpuinfo gives it now; NAN where it moved while the command ran
 * (a host that changes it), and only what does not depend on it is held.
 */
static double here_ratio(double before, double profile_ghz)
{
	double after = model_this_clock_ghz();

	if (before != after)
		return NAN;
	return before > 0 ? before / profile_ghz : 1;
}

/* The text row "threads variant ns/op Mops/s bottleneck" for one count. */
static bool text_row(const char *out, const char *variant, unsigned int threads, double *ns,
		     double *mops, char *rest, size_t len)
{
	const char *line = out;

	while (line && *line) {
		unsigned int t;
		char v[64];
		int used = 0;

		if (sscanf(line, " %u %63s %lf %lf %n", &t, v, ns, mops, &used) == 4 &&
		    used > 0 && t == threads && !strcmp(v, variant)) {
			const char *end = strchr(line + used, '\n');

			snprintf(rest, len, "%.*s", end ? (int)(end - line - used) : (int)strlen(line + used),
				 line + used);
			return true;
		}
		line = strchr(line, '\n');
		line = line ? line + 1 : NULL;
	}
	return false;
}

/* ---- the private cost measured ---- */

static void check_measured(const char *profile, const char *variant, const double *durations,
			   size_t nr, double private_ns)
{
	struct output *o = calloc(1, sizeof(*o));
	double here = model_this_clock_ghz(), ratio, ns, mops;
	char rest[256];
	json_t *doc, *v;

	assert_non_null(o);
	script(durations, nr);
	run_model(o, "--profile", profile, "--family", "counter", "--variant", variant,
		  "--threads", "1", "--json", NULL);
	ratio = here_ratio(here, 2);
	assert_int_equal(o->rc, 0);
	if (fake.calls != 2 * nr)
		fail_msg("%s: %zu clock reads, expected %zu: a batch per pair", variant, fake.calls,
			 2 * nr);
	doc = parse_json(o);
	v = json_array_get(json_object_get(json_array_get(json_object_get(doc, "families"), 0),
					   "variants"), 0);
	assert_string_equal(json_string_value(json_object_get(v, "variant")), variant);
	if (fabs(json_real_value(json_object_get(v, "private_ns")) - private_ns) > 1e-5 * private_ns)
		fail_msg("%s: private_ns %.9g, by hand %.9g", variant,
			 json_real_value(json_object_get(v, "private_ns")), private_ns);
	if (isfinite(ratio))
		assert_float_equal(json_real_value(json_object_get(json_array_get(json_object_get(v,
				   "predictions"), 0), "ns_per_op")), private_ns * ratio,
				   1e-5 * private_ns * ratio);
	json_decref(doc);

	/* the text's two decimals show a second that is not 1e9 ns */
	here = model_this_clock_ghz();
	script(durations, nr);
	run_model(o, "--profile", profile, "--family", "counter", "--variant", variant,
		  "--threads", "1", NULL);
	ratio = here_ratio(here, 2);
	assert_int_equal(o->rc, 0);
	assert_int_equal(fake.calls, 2 * nr);
	if (!text_row(o->out, variant, 1, &ns, &mops, rest, sizeof(rest)))
		fail_msg("%s: no 1-thread row in '%s'", variant, o->out);
	if (isfinite(ratio) && fabs(ns - private_ns * ratio) > 0.0051)
		fail_msg("%s: %.2f ns/op printed, by hand %.4f", variant, ns, private_ns * ratio);
	assert_non_null(strstr(rest, "none: private work"));
	assert_non_null(strstr(o->out, "Private cost per op: 1 thread measured here now, scaled by the clock ratio."));
	free(o);
}

/*
 * Five batches of 64 operations, each of a millisecond or more: the
 * median of 3, 1, 5, 2 and 4 ms over 64 is 46875 ns. Batches under a
 * millisecond are not kept, and each makes the next four times as long:
 * 0.5 ms and 999999 ns (64, then 256 operations), then 1024 operations
 * from 1 ms on: 1, 2, 3, 2 and 2 ms, median 2 ms / 1024. Eight short
 * ones bring a batch to 64 x 4^8 operations.
 */
static void test_private_cost_measured(void **state)
{
	static const double five[] = { 3e6, 1e6, 5e6, 2e6, 4e6 };
	static const double grow[] = { 5e5, 999999, 1e6, 2e6, 3e6, 2e6, 2e6 };
	static const double long_run[] = { 1e3, 1e3, 1e3, 1e3, 1e3, 1e3, 1e3, 999999,
					   2e6, 4e6, 3e6, 6e6, 5e6 };
	const char *profile = write_profile("two", TWO_CPUS);

	(void)state;
	check_measured(profile, "shared_atomic", five, 5, 3e6 / 64);
	check_measured(profile, "shared_atomic", grow, 7, 2e6 / 1024);
	check_measured(profile, "percpu_padded", long_run, 13, 4e6 / (64 * 65536.0));
}

/*
 * A family of this test whose operations cost nothing: batches under a
 * millisecond however many operations they hold, so the batch grows to
 * its bound, 2^40 operations (64 x 4^17), and is kept there.
 */
static int instant_state;

static void *instant_create(const struct kernel_config *cfg, char *err, size_t errlen)
{
	(void)cfg;
	(void)err;
	(void)errlen;
	return &instant_state;
}

static void instant_destroy(void *state)
{
	(void)state;
}

static void instant_run(void *state, unsigned int thread, uint64_t nr_ops)
{
	(void)state;
	(void)thread;
	(void)nr_ops;
}

/* The driver verifies every run: here, that the one thread ran what it was given. */
static int instant_verify(void *state, const struct kernel_config *cfg, const uint64_t *ops,
			  struct kernel_metrics *metrics, char *msg, size_t msglen)
{
	(void)state;
	(void)metrics;
	if (cfg->nr_threads != 1 || !ops[0]) {
		snprintf(msg, msglen, "%u threads, %llu operations", cfg->nr_threads,
			 (unsigned long long)ops[0]);
		return -1;
	}
	return 0;
}

static void instant_access(const struct kernel_config *cfg, struct access_profile *p)
{
	(void)cfg;
	(void)p;
}

static const struct kernel_variant instant_variants[] = {
	{ .name = "nothing", .run = instant_run },
};

static const struct kernel_family instant_family = {
	.name = "instant",
	.title = "operations that cost nothing (a test's)",
	.reading_order = 1000,
	.variants = instant_variants,
	.nr_variants = 1,
	.create = instant_create,
	.verify = instant_verify,
	.destroy = instant_destroy,
	.access = instant_access,
};
KERNEL_FAMILY_REGISTER(instant_family);

/*
 * A family whose "after" variant comes first in its list (index 0) and
 * whose "before" comes second: the before/after gain is printed whatever
 * the variants' order.
 */
static const struct kernel_variant reversed_variants[] = {
	{ .name = "fast_after", .run = instant_run },
	{ .name = "slow_before", .run = instant_run },
};

static const struct kernel_family reversed_family = {
	.name = "reversed",
	.title = "after first, before second (a test's)",
	.reading_order = 1001,
	.variants = reversed_variants,
	.nr_variants = 2,
	.before_variant = "slow_before",
	.after_variant = "fast_after",
	.create = instant_create,
	.verify = instant_verify,
	.destroy = instant_destroy,
	.access = instant_access,
};
KERNEL_FAMILY_REGISTER(reversed_family);

static void test_batch_bound(void **state)
{
	double durations[22];
	struct output *o = calloc(1, sizeof(*o));
	json_t *doc, *v;

	(void)state;
	assert_non_null(o);
	/*
	 * Every batch under a millisecond: 17 that grow it to 2^40, then
	 * five kept at the bound, 0.1 to 0.5 ms, the median 0.3 ms.
	 */
	for (int i = 0; i < 17; i++)
		durations[i] = 5e5;
	for (int i = 17; i < 22; i++)
		durations[i] = 1e5 * (i - 16);
	script(durations, 22);
	run_model(o, "--profile", write_profile("two", TWO_CPUS), "--family", "instant",
		  "--variant", "nothing", "--threads", "1", "--json", NULL);
	if (o->rc)
		fail_msg("exit %d: %s", o->rc, o->err);
	assert_int_equal(fake.calls, 44);
	doc = parse_json(o);
	v = json_array_get(json_object_get(json_array_get(json_object_get(doc, "families"), 0),
					   "variants"), 0);
	assert_float_equal(json_real_value(json_object_get(v, "private_ns")), 3e5 / 1099511627776.0,
			   1e-5 * 3e5 / 1099511627776.0);
	json_decref(doc);
	free(o);
}

/*
 * The after variant first in the family's list: five batches of 64
 * operations each, 2 ms for fast_after and 6 ms for slow_before, so the
 * private costs are 31250 and 93750 ns (times the same clock ratio), no
 * line is shared, and the gain is 3 at every thread count, by hand.
 */
static void test_before_after_first(void **state)
{
	double durations[10];
	struct output *o = calloc(1, sizeof(*o));
	json_t *doc, *fam, *gains;

	(void)state;
	assert_non_null(o);
	for (int i = 0; i < 10; i++)
		durations[i] = i < 5 ? 2e6 : 6e6;
	script(durations, 10);
	run_model(o, "--profile", write_profile("two", TWO_CPUS), "--family", "reversed",
		  "--threads", "1,2", "--json", NULL);
	if (o->rc)
		fail_msg("exit %d: %s", o->rc, o->err);
	doc = parse_json(o);
	fam = json_array_get(json_object_get(doc, "families"), 0);
	assert_string_equal(json_string_value(json_object_get(fam, "before")), "slow_before");
	assert_string_equal(json_string_value(json_object_get(fam, "after")), "fast_after");
	gains = json_object_get(fam, "before_after");
	assert_int_equal(json_array_size(gains), 2);
	for (unsigned int t = 1; t <= 2; t++) {
		json_t *g = json_array_get(gains, t - 1);

		assert_int_equal(json_integer_value(json_object_get(g, "threads")), t);
		assert_float_equal(json_real_value(json_object_get(g, "gain")), 3, 1e-9);
	}
	json_decref(doc);

	script(durations, 10);
	run_model(o, "--profile", write_profile("two", TWO_CPUS), "--family", "reversed",
		  "--threads", "1,2", NULL);
	assert_int_equal(o->rc, 0);
	assert_non_null(strstr(o->out,
			       "  before/after (slow_before ns/op over fast_after): 1: 3.00x, 2: 3.00x\n"));
	free(o);
}

/* ---- every printed number, as the library predicts it ---- */

struct case_args {
	const char *profile, *family, *variant, *threads, *placement, *home, *private_ns;
	const char *param;	/* NAME=VALUE of the family, or NULL */
};

/* The prediction the command should print for a row, from the library. */
static void predict_on(struct machine_profile *m, const struct case_args *c, unsigned int threads,
		       double private_ns, struct model_prediction *p)
{
	const struct kernel_family *f = catalog_find(c->family);
	struct kernel_config cfg;
	char err[512];

	m->home_away = c->home && !strcmp(c->home, "remote") ? 1 : 0;
	kernel_config_defaults(f, &cfg);
	cfg.variant = (unsigned int)catalog_variant_index(f, c->variant);
	cfg.nr_threads = threads;
	if (c->param) {
		const char *eq = strchr(c->param, '=');
		char name[64];
		int k;

		snprintf(name, sizeof(name), "%.*s", (int)(eq - c->param), c->param);
		k = kernel_param_index(f, name);
		assert_true(k >= 0);
		cfg.param[k] = strtol(eq + 1, NULL, 10);
	}
	if (model_predict(m, f, &cfg, private_ns, 0, c->placement, p, err, sizeof(err)))
		fail_msg("%s", err);
}

static void library_prediction(const struct case_args *c, unsigned int threads,
			       struct model_prediction *p)
{
	struct machine_profile m;
	char err[512];

	assert_int_equal(machine_profile_load(c->profile, &m, err, sizeof(err)), 0);
	predict_on(&m, c, threads, strtod(c->private_ns, NULL), p);
	machine_profile_close(&m);
}

static void check_text_row(const struct case_args *c, const char *out, unsigned int threads,
			   const struct model_prediction *p)
{
	char rest[512], want[512];
	double ns, mops;
	int used;

	if (!text_row(out, c->variant, threads, &ns, &mops, rest, sizeof(rest)))
		fail_msg("%s/%s: no %u-thread row in '%s'", c->family, c->variant, threads, out);
	if (fabs(ns - p->ns_per_op) > 0.0051 || fabs(mops - p->ops_per_s / 1e6) > 0.0051)
		fail_msg("%s/%s at %u: %.2f ns/op, %.2f Mops/s printed; predicted %.4f and %.4f",
			 c->family, c->variant, threads, ns, mops, p->ns_per_op, p->ops_per_s / 1e6);
	if (!p->bottleneck)
		used = snprintf(want, sizeof(want), "none: private work");
	else if (p->local_handoffs >= 0.05)
		used = snprintf(want, sizeof(want),
				"%s: %.0f%% busy, %.0f ns a transfer (%.1f handoffs in a cache domain per domain visit; any two: %.0f ns)",
				p->bottleneck, 100 * p->busy, p->handoff_ns, p->local_handoffs,
				p->transfer_ns);
	else
		used = snprintf(want, sizeof(want), "%s: %.0f%% busy, %.0f ns a transfer",
				p->bottleneck, 100 * p->busy, p->transfer_ns);
	if (p->waiters_ns >= 0.05)
		used += snprintf(want + used, sizeof(want) - (size_t)used,
				 ", %.1f ns a handoff for the requesters queued", p->waiters_ns);
	if (p->retries > 0.005)
		snprintf(want + used, sizeof(want) - (size_t)used, ", %.2f retries per success",
			 p->retries);
	if (strcmp(rest, want))
		fail_msg("%s/%s at %u threads: '%s', expected '%s'", c->family, c->variant, threads,
			 rest, want);
}

static void check_json_row(const struct case_args *c, json_t *row, const struct model_prediction *p)
{
	json_t *b = json_object_get(row, "bottleneck");

	assert_int_equal(json_integer_value(json_object_get(row, "threads")), p->nr_threads);
	assert_float_equal(json_real_value(json_object_get(row, "ns_per_op")), p->ns_per_op,
			   1e-5 * p->ns_per_op);
	assert_float_equal(json_real_value(json_object_get(row, "ops_per_s")), p->ops_per_s,
			   1e-5 * p->ops_per_s);
	assert_float_equal(json_real_value(json_object_get(row, "retries_per_success")), p->retries,
			   1e-5 * p->retries + 1e-12);
	if (!p->bottleneck) {
		assert_true(json_is_null(b));
		assert_null(json_object_get(row, "busy"));
		return;
	}
	assert_string_equal(json_string_value(b), p->bottleneck);
	assert_float_equal(json_real_value(json_object_get(row, "busy")), p->busy, 1e-5 * p->busy);
	assert_float_equal(json_real_value(json_object_get(row, "transfer_ns")), p->transfer_ns,
			   1e-5 * p->transfer_ns);
	if (p->local_handoffs >= 0.05) {
		assert_float_equal(json_real_value(json_object_get(row, "handoff_ns")), p->handoff_ns,
				   1e-5 * p->handoff_ns);
		assert_float_equal(json_real_value(json_object_get(row, "local_handoffs")),
				   p->local_handoffs, 1e-5 * p->local_handoffs);
	} else if (json_object_get(row, "handoff_ns") || json_object_get(row, "local_handoffs")) {
		fail_msg("%s/%s at %u threads: local handoffs %.4g printed", c->family, c->variant,
			 p->nr_threads, p->local_handoffs);
	}
}

/* One case, text and --json, at each of its thread counts (comma-separated). */
static void check_case(const struct case_args *c)
{
	struct output *o = calloc(1, sizeof(*o)), *j = calloc(1, sizeof(*j));
	char *argv[20] = { 0 }, threads[128], param[128], *save = NULL;
	int n = 0;
	json_t *doc, *preds;
	size_t t = 0;

	assert_non_null(o);
	assert_non_null(j);
	argv[n++] = "--profile";
	argv[n++] = (char *)c->profile;
	argv[n++] = "--family";
	argv[n++] = (char *)c->family;
	argv[n++] = "--variant";
	argv[n++] = (char *)c->variant;
	argv[n++] = "--threads";
	argv[n++] = (char *)c->threads;
	argv[n++] = "--private-ns";
	argv[n++] = (char *)c->private_ns;
	if (c->placement) {
		argv[n++] = "--placement";
		argv[n++] = (char *)c->placement;
	}
	if (c->home) {
		argv[n++] = "--home";
		argv[n++] = (char *)c->home;
	}
	if (c->param) {
		snprintf(param, sizeof(param), "%s.%s", c->family, c->param);
		argv[n++] = "--param";
		argv[n++] = param;
	}
	argv[n] = NULL;
	run_model(o, argv[0], argv[1], argv[2], argv[3], argv[4], argv[5], argv[6], argv[7], argv[8],
		  argv[9], argv[10], argv[11], argv[12], argv[13], argv[14], argv[15], NULL);
	argv[n++] = "--json";
	argv[n] = NULL;
	run_model(j, argv[0], argv[1], argv[2], argv[3], argv[4], argv[5], argv[6], argv[7], argv[8],
		  argv[9], argv[10], argv[11], argv[12], argv[13], argv[14], argv[15], argv[16], NULL);
	if (o->rc || j->rc)
		fail_msg("%s/%s: exit %d and %d: %s%s", c->family, c->variant, o->rc, j->rc, o->err,
			 j->err);
	doc = parse_json(j);
	preds = json_object_get(json_array_get(json_object_get(json_array_get(json_object_get(doc,
			"families"), 0), "variants"), 0), "predictions");
	snprintf(threads, sizeof(threads), "%s", c->threads);
	for (char *tok = strtok_r(threads, ",", &save); tok; tok = strtok_r(NULL, ",", &save), t++) {
		struct model_prediction p;

		library_prediction(c, (unsigned int)atoi(tok), &p);
		check_text_row(c, o->out, (unsigned int)atoi(tok), &p);
		check_json_row(c, json_array_get(preds, t), &p);
	}
	assert_int_equal(json_array_size(preds), t);
	json_decref(doc);
	free(o);
	free(j);
}

#define MILAN_PROFILE "/../model/profiles/epyc-milan-2s-256.json"

/*
 * The private cost at which a prediction's figure lands in [lo, hi):
 * the printed clauses appear from a threshold on, and a figure just
 * either side of it shows where the command put it.
 */
static double private_ns_for(const struct case_args *c, unsigned int threads, int what,
			     double lo, double hi)
{
	struct machine_profile m;
	char err[512];

	assert_int_equal(machine_profile_load(c->profile, &m, err, sizeof(err)), 0);
	for (double ns = 0.5; ns < 20000; ns *= 1.01) {
		struct model_prediction p;
		double z = strtod((snprintf(err, sizeof(err), "%.6g", ns), err), NULL), v;

		predict_on(&m, c, threads, z, &p);
		v = what == 0 ? p.local_handoffs : what == 1 ? p.waiters_ns : p.retries;
		if (v >= lo && v < hi) {
			machine_profile_close(&m);
			return z;
		}
	}
	fail_msg("%s/%s: no private cost puts figure %d in [%g, %g)", c->family, c->variant, what,
		 lo, hi);
	return 0;
}

static void test_printed_as_predicted(void **state)
{
	char milan[1024], z[6][32];
	const char *two = write_profile("two", TWO_CPUS);
	/* two L3s of four cores, a transfer between them barely longer than within */
	const char *domains = write_profile("domains",
		"{\"name\": \"domains\", \"topology\": \"pack:1 l3:2 core:4 pu:1\", "
		"\"clock_ghz\": {\"value\": 2, \"source\": \"s\"}, "
		"\"store_buffer\": {\"value\": 0, \"source\": \"s\"}, "
		"\"one_way_ns\": {\"l3\": {\"value\": 98, \"source\": \"s\"}, "
		"\"package\": {\"value\": 100, \"source\": \"s\"}}}");
	const char *waiters = write_profile("waiters",
		"{\"name\": \"waiters\", \"topology\": \"pack:1 core:16 pu:1\", "
		"\"clock_ghz\": {\"value\": 2, \"source\": \"s\"}, "
		"\"store_buffer\": {\"value\": 0, \"source\": \"s\"}, "
		"\"waiter_ns\": {\"value\": 0.5, \"source\": \"the waiters' number\"}, "
		"\"remote_home_ns\": {\"value\": 30, \"source\": \"the home's number\"}, "
		"\"one_way_ns\": {\"package\": {\"value\": 100, \"source\": \"s\"}}}");
	struct case_args cases[] = {
		{ two, "counter", "shared_atomic", "1,2", NULL, NULL, "10", NULL },
		{ two, "counter", "shared_atomic", "1", NULL, NULL, "0.0001", NULL },
		{ two, "last_nidpid", "cmpxchg_loop", "2", NULL, NULL, "6.35", NULL },
		{ two, "has_pinned", "store_always", "1,2", NULL, "remote", "0.94", NULL },
		{ two, "pingpong", "store_load", "2", NULL, NULL, "1", NULL },
		{ milan, "counter", "shared_atomic", "16,32", NULL, NULL, "30", NULL },
		{ milan, "counter", "shared_atomic", "8,64", "spread", NULL, "3", NULL },
		{ waiters, "counter", "shared_atomic", "2,8,16", NULL, "remote", "2.5", NULL },
		{ waiters, "counter", "shared_atomic", "16", NULL, "local", "2.5", NULL },
		/* a parameter in between: half the calls find the flag set */
		{ two, "has_pinned", "read_then_set", "1,2", NULL, NULL, "6.1", "already_set=50" },
		{ two, "has_pinned", "store_always", "2", NULL, NULL, "6.1", "pin_work=16" },
		{ two, "counter", "percpu_batched", "2", NULL, NULL, "1.1", "batch=4" },
	};
	struct case_args window[] = {
		{ domains, "counter", "shared_atomic", "8", NULL, NULL, z[0], NULL },
		{ domains, "counter", "shared_atomic", "8", NULL, NULL, z[1], NULL },
		{ waiters, "counter", "shared_atomic", "16", NULL, NULL, z[2], NULL },
		{ waiters, "counter", "shared_atomic", "16", NULL, NULL, z[3], NULL },
		{ milan, "last_nidpid", "cmpxchg_loop", "2", NULL, NULL, z[4], NULL },
		{ milan, "last_nidpid", "cmpxchg_loop", "2", NULL, NULL, z[5], NULL },
	};
	/* figure (local handoffs, waiters' ns, retries) and its window */
	static const struct {
		int what;
		double lo, hi;
	} windows[] = {
		{ 0, 0.025, 0.05 }, { 0, 0.05, 0.1 }, { 1, 0.025, 0.05 }, { 1, 0.05, 0.1 },
		{ 2, 0.0025, 0.005 }, { 2, 0.005, 0.01 },
	};

	(void)state;
	snprintf(milan, sizeof(milan), "%s%s", source_dir, MILAN_PROFILE);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		check_case(&cases[i]);
	for (size_t i = 0; i < sizeof(window) / sizeof(window[0]); i++) {
		snprintf(z[i], sizeof(z[i]), "%.6g",
			 private_ns_for(&window[i], i < 2 ? 8 : i < 4 ? 16 : 2,
					windows[i].what, windows[i].lo, windows[i].hi));
		check_case(&window[i]);
	}
}

/* ---- the header and the machine, against the profile file ---- */

#define HEADER_PROFILE "{\"name\": \"header\", \"title\": \"a machine of the test\", " \
	"\"topology\": \"pack:2 core:2 pu:2\", " \
	"\"clock_ghz\": {\"value\": 0.5, \"source\": \"s\"}, " \
	"\"store_buffer\": {\"value\": 12, \"source\": \"the buffer's source\"}, " \
	"\"remote_home_ns\": {\"value\": 0.75, \"source\": \"the home's\"}, " \
	"\"one_way_ns\": {\"smt\": {\"value\": 0.8, \"source\": \"smt's\"}, " \
	"\"package\": {\"value\": 23, \"source\": \"package's\"}, " \
	"\"cross_package\": {\"value\": 197.5, \"source\": \"cross_package's\"}}}"

static void test_header(void **state)
{
	const char *profile = write_profile("header", HEADER_PROFILE);
	struct output *o = calloc(1, sizeof(*o));
	json_t *doc, *mj;
	const char *text, *want;

	(void)state;
	assert_non_null(o);
	run_model(o, "--profile", profile, "--family", "pingpong", "--threads", "2", NULL);
	assert_int_equal(o->rc, 0);
	text = o->out;
	want = "Machine: header (a machine of the test), 8 CPUs, 0.50 GHz; placement compact.\n"
	       "Private cost per op: 1 thread measured here now, scaled by the clock ratio.\n"
	       "One-way transfer per class: smt 0.8 ns package 23.0 ns cross_package 197.5 ns\n"
	       "Home of the shared lines: local (the threads' own node).\n";
	if (strncmp(text, want, strlen(want)))
		fail_msg("header: '%.400s'", text);
	/* a profile gives no cold miss, no tenure and no waiters: none is printed */
	assert_null(strstr(text, "Cold miss"));
	assert_null(strstr(text, "Tenure share"));
	assert_null(strstr(text, "queued beyond"));
	assert_null(strstr(text, "given (--private-ns)"));
	run_model(o, "--profile", profile, "--family", "counter", "--variant", "shared_atomic",
		  "--threads", "2", "--private-ns", "0.5", "--placement", "spread", "--home", "remote",
		  NULL);
	assert_int_equal(o->rc, 0);
	assert_non_null(strstr(o->out, "; placement spread.\nPrivate cost per op: 0.500 ns, given (--private-ns).\n"));
	assert_non_null(strstr(o->out, "Home of the shared lines: remote, 0.8 ns more per transfer (the home's).\n"));
	/* a tenure share and a waiters' cost, each with a one-letter source */
	run_model(o, "--profile", write_profile("tenure", "{\"name\": \"tenure\", \"topology\": \"pack:1 core:2 pu:1\", "
		  "\"clock_ghz\": {\"value\": 2, \"source\": \"s\"}, "
		  "\"store_buffer\": {\"value\": 0, \"source\": \"s\"}, "
		  "\"tenure_share\": {\"value\": 0.25, \"source\": \"t\"}, "
		  "\"waiter_ns\": {\"value\": 0.125, \"source\": \"w\"}, "
		  "\"one_way_ns\": {\"package\": {\"value\": 40, \"source\": \"s\"}}}"),
		  "--family", "pingpong", "--threads", "2", NULL);
	assert_int_equal(o->rc, 0);
	assert_non_null(strstr(o->out, "\nTenure share of locked ops: 0.25 of a transfer (t).\n"
			       "Each requester queued beyond the next: 0.125 ns more a handoff (w).\n"));

	run_model(o, "--profile", profile, "--family", "pingpong", "--threads", "2", "--json", NULL);
	assert_int_equal(o->rc, 0);
	doc = parse_json(o);
	mj = json_object_get(doc, "machine");
	assert_string_equal(json_string_value(json_object_get(mj, "name")), "header");
	assert_string_equal(json_string_value(json_object_get(mj, "title")), "a machine of the test");
	assert_int_equal(json_integer_value(json_object_get(mj, "nr_cpus")), 8);
	assert_float_equal(json_real_value(json_object_get(mj, "clock_ghz")), 0.5, 0);
	assert_int_equal(json_integer_value(json_object_get(mj, "store_buffer")), 12);
	assert_string_equal(json_string_value(json_object_get(mj, "store_buffer_source")),
			    "the buffer's source");
	assert_true(json_is_false(json_object_get(mj, "measured_here")));
	assert_int_equal(json_object_size(json_object_get(mj, "one_way_ns")), 3);
	assert_float_equal(json_real_value(json_object_get(json_object_get(mj, "one_way_ns"), "smt")),
			   0.8, 0);
	assert_float_equal(json_real_value(json_object_get(json_object_get(mj, "one_way_ns"),
							   "cross_package")), 197.5, 0);
	assert_int_equal(json_object_size(json_object_get(mj, "cold_miss_ns")), 0);
	/* a ping-pong's private cost is nothing: the round trip is all */
	{
		json_t *variants = json_object_get(json_array_get(json_object_get(doc, "families"), 0),
						   "variants"), *v;
		size_t i;

		assert_int_equal(json_array_size(variants), 2);
		json_array_foreach(variants, i, v)
			assert_float_equal(json_real_value(json_object_get(v, "private_ns")), 0, 0);
	}
	/* each class's source, as the profile gives it */
	assert_int_equal(json_object_size(json_object_get(mj, "one_way_source")), 3);
	assert_string_equal(json_string_value(json_object_get(json_object_get(mj, "one_way_source"),
							      "smt")), "smt's");
	assert_string_equal(json_string_value(json_object_get(json_object_get(mj, "one_way_source"),
							      "cross_package")), "cross_package's");
	assert_float_equal(json_real_value(json_object_get(mj, "remote_home_ns")), 0.75, 0);
	assert_string_equal(json_string_value(json_object_get(mj, "remote_home_source")), "the home's");
	assert_string_equal(json_string_value(json_object_get(mj, "home")), "local");
	json_decref(doc);
	free(o);
}

/* ---- the thread counts and the fix's gain ---- */

/* The thread counts of a family's one variant's rows in --json. */
static size_t json_thread_counts(const struct output *o, unsigned int *counts, size_t max)
{
	json_t *doc = parse_json(o), *preds;
	size_t n = 0, i;
	json_t *p;

	preds = json_object_get(json_array_get(json_object_get(json_array_get(json_object_get(doc,
			"families"), 0), "variants"), 0), "predictions");
	json_array_foreach(preds, i, p)
		if (n < max)
			counts[n++] = (unsigned int)json_integer_value(json_object_get(p, "threads"));
	json_decref(doc);
	return n;
}

/*
 * Without --threads: 1, 2, 4... up to the machine's CPUs, each counted
 * once (4 CPUs: 1, 2, 4; 6: 1, 2, 4). A family that runs at 2 threads
 * only (pingpong) has no row at the others asked for.
 */
static void test_thread_counts(void **state)
{
	const char *four = write_profile("four", "{\"name\": \"four\", \"topology\": \"pack:1 core:4 pu:1\", "
		"\"clock_ghz\": {\"value\": 2, \"source\": \"s\"}, "
		"\"store_buffer\": {\"value\": 0, \"source\": \"s\"}, "
		"\"one_way_ns\": {\"package\": {\"value\": 40, \"source\": \"s\"}}}");
	const char *six = write_profile("six", "{\"name\": \"six\", \"topology\": \"pack:1 core:6 pu:1\", "
		"\"clock_ghz\": {\"value\": 2, \"source\": \"s\"}, "
		"\"store_buffer\": {\"value\": 0, \"source\": \"s\"}, "
		"\"one_way_ns\": {\"package\": {\"value\": 40, \"source\": \"s\"}}}");
	struct output *o = calloc(1, sizeof(*o));
	unsigned int counts[40];

	(void)state;
	assert_non_null(o);
	run_model(o, "--profile", four, "--family", "counter", "--variant", "shared_atomic",
		  "--private-ns", "5", "--json", NULL);
	assert_int_equal(o->rc, 0);
	assert_int_equal(json_thread_counts(o, counts, 40), 3);
	assert_true(counts[0] == 1 && counts[1] == 2 && counts[2] == 4);
	run_model(o, "--profile", six, "--family", "counter", "--variant", "shared_atomic",
		  "--private-ns", "5", "--json", NULL);
	assert_int_equal(o->rc, 0);
	assert_int_equal(json_thread_counts(o, counts, 40), 3);
	assert_true(counts[0] == 1 && counts[1] == 2 && counts[2] == 4);
	run_model(o, "--profile", four, "--family", "pingpong", "--threads", "1,2,3,4", "--json", NULL);
	assert_int_equal(o->rc, 0);
	assert_int_equal(json_thread_counts(o, counts, 40), 1);
	assert_int_equal(counts[0], 2);
	run_model(o, "--profile", four, "--family", "pingpong", "--threads", "3,2,1", NULL);
	assert_int_equal(o->rc, 0);
	assert_non_null(strstr(o->out, "\n        2  store_load "));
	assert_null(strstr(o->out, "\n        1  store_load "));
	assert_null(strstr(o->out, "\n        3  store_load "));
	free(o);
}

/*
 * The fix's gain: the before variant's ns/op over the after variant's, at
 * each thread count, from private costs the clock gives each variant
 * (counter's seven variants in their order, 2 ms more each; the after
 * variant, percpu_padded_locked, the sixth, made 2 ms over 64 x 4^8
 * operations, under a nanosecond).
 */
static void test_before_after(void **state)
{
	const char *profile = write_profile("two", TWO_CPUS);
	const struct kernel_family *f = catalog_find("counter");
	struct output *o = calloc(1, sizeof(*o)), *j = calloc(1, sizeof(*j));
	double durations[SCRIPT_MAX], private_ns[8], here, ratio;
	unsigned int nr = 0, before = 0, after = 0;
	char want[256], *line;
	json_t *doc, *fam, *gains;

	(void)state;
	assert_non_null(o);
	assert_non_null(j);
	assert_int_equal(f->nr_variants, 7);
	for (unsigned int v = 0; v < f->nr_variants; v++) {
		double ops = 64;

		if (!strcmp(f->variants[v].name, f->before_variant))
			before = v;
		if (!strcmp(f->variants[v].name, f->after_variant)) {
			after = v;
			for (int k = 0; k < 8; k++, ops *= 4)
				durations[nr++] = 1e3;
		}
		for (int b = 0; b < 5; b++)
			durations[nr++] = 2e6 * (v + 1) + 1e5 * b;
		private_ns[v] = (2e6 * (v + 1) + 2e5) / ops;
	}
	here = model_this_clock_ghz();
	script(durations, nr);
	run_model(o, "--profile", profile, "--family", "counter", "--threads", "1,2", NULL);
	ratio = here_ratio(here, 2);
	assert_int_equal(o->rc, 0);
	assert_int_equal(fake.calls, 2 * nr);
	script(durations, nr);
	run_model(j, "--profile", profile, "--family", "counter", "--threads", "1,2", "--json", NULL);
	assert_int_equal(j->rc, 0);
	assert_int_equal(fake.calls, 2 * nr);
	if (!isfinite(ratio))
		ratio = 1;	/* the clock moved: the gain does not depend on it */
	line = strstr(o->out, "  before/after (shared_atomic ns/op over percpu_padded_locked):");
	assert_non_null(line);
	{
		struct machine_profile m;
		struct model_prediction pb, pa;
		struct kernel_config cfg;
		char err[256];
		int used = snprintf(want, sizeof(want),
				    "  before/after (shared_atomic ns/op over percpu_padded_locked):");

		assert_int_equal(machine_profile_load(profile, &m, err, sizeof(err)), 0);
		kernel_config_defaults(f, &cfg);
		doc = parse_json(j);
		fam = json_array_get(json_object_get(doc, "families"), 0);
		gains = json_object_get(fam, "before_after");
		assert_string_equal(json_string_value(json_object_get(fam, "before")), "shared_atomic");
		assert_string_equal(json_string_value(json_object_get(fam, "after")),
				    "percpu_padded_locked");
		assert_int_equal(json_array_size(gains), 2);
		for (unsigned int t = 1; t <= 2; t++) {
			double gain;

			cfg.nr_threads = t;
			cfg.variant = before;
			assert_int_equal(model_predict(&m, f, &cfg, private_ns[before] * ratio, 0, NULL,
						       &pb, err, sizeof(err)), 0);
			cfg.variant = after;
			assert_int_equal(model_predict(&m, f, &cfg, private_ns[after] * ratio, 0, NULL,
						       &pa, err, sizeof(err)), 0);
			gain = pb.ns_per_op / pa.ns_per_op;
			used += snprintf(want + used, sizeof(want) - (size_t)used, " %u: %.2fx%s", t,
					 gain, t < 2 ? "," : "");
			assert_int_equal(json_integer_value(json_object_get(json_array_get(gains, t - 1),
									    "threads")), t);
			assert_float_equal(json_real_value(json_object_get(json_array_get(gains, t - 1),
									   "gain")), gain, 1e-4 * gain);
		}
		machine_profile_close(&m);
		json_decref(doc);
	}
	if (strncmp(line, want, strlen(want)) || line[strlen(want)] != '\n')
		fail_msg("'%.*s', expected '%s'", (int)strcspn(line, "\n"), line, want);
	free(o);
	free(j);
}

/* ---- options ---- */

/*
 * Each bad option: exit 2, one line on stderr naming it, nothing on
 * stdout. And good ones that sit at a boundary are taken.
 */
static void test_options(void **state)
{
	const char *two = write_profile("two", TWO_CPUS);
	static const struct {
		const char *args[8];
		const char *says;
	} bad[] = {
		{ { "--threads", "0" }, "--threads '0'" },
		{ { "--threads", "1,,x" }, "--threads '1,,x'" },
		{ { "--threads", "," }, "--threads ','" },
		{ { "--threads", "3" }, "--threads 3: machine 'two' has 2 CPUs" },
		{ { "--threads", "1,2,1,2,1,2,1,2,1,2,1,2,1,2,1,2,1,2,1,2,1,2,1,2,1,2,1,2,1,2,1,2,1" },
		  "expected up to 32 thread counts" },
		{ { "--param", "counter" }, "expected FAMILY.NAME=VALUE" },
		{ { "--param", "counter.batch" }, "expected FAMILY.NAME=VALUE" },
		{ { "--param", "counter=4.batch" }, "expected FAMILY.NAME=VALUE" },
		{ { "--param", "nosuchfamily.batch=4" }, "unknown family 'nosuchfamily'" },
		{ { "--param", "counter.nosuch=4" }, "family counter has no parameter 'nosuch'" },
		{ { "--param", "counter.batch=x" }, "--param counter.batch" },
		/* a family or parameter name of 64 characters is too long; 63 is looked up */
		{ { "--param", "counterxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx.batch=4" },
		  "expected FAMILY.NAME=VALUE" },
		{ { "--param", "counterxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx.batch=4" },
		  "unknown family 'counterxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx'" },
		{ { "--param", "counter.batchxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx=4" },
		  "a parameter name of 64 characters: expected at most 63" },
		/* one setting: a list of values is run's, not the model's */
		{ { "--param", "counter.batch=1,2" }, "--param 'counter.batch=1,2': at most 1 value" },
		{ { "--param", "counter.batchxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx=4" },
		  "has no parameter 'batchxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx'" },
		{ { "--home", "far" }, "--home 'far': expected local or remote" },
		{ { "--private-ns", "0" }, "--private-ns '0'" },
		{ { "--private-ns", "-1" }, "--private-ns '-1'" },
		{ { "--private-ns", "1000000001" }, "--private-ns '1000000001'" },
		{ { "--private-ns", "5x" }, "--private-ns '5x'" },
		{ { "--private-ns", "" }, "--private-ns ''" },
		{ { "--private-ns", "nan" }, "--private-ns 'nan'" },
		{ { "--private-ns", "3" }, "expected --family and --variant too" },
		{ { "--family", "counter", "--private-ns", "3" }, "expected --family and --variant too" },
		{ { "--variant", "shared_atomic" }, "--variant 'shared_atomic': expected --family too" },
		{ { "--family", "counter", "--variant", "nosuch" }, "not a variant of counter" },
		{ { "--family", "nosuch" }, "--family 'nosuch'" },
		{ { "extra" }, "unexpected argument 'extra'" },
		{ { "--placement", "nowhere" }, "nowhere" },
		{ { "--nosuch" }, "nosuch" },
	};
	struct output *o = calloc(1, sizeof(*o));

	(void)state;
	assert_non_null(o);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const char *const *a = bad[i].args;

		run_model(o, "--profile", two, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], NULL);
		if (o->rc != 2 || o->out[0] || !strstr(o->err, bad[i].says) ||
		    strchr(o->err, '\n') != o->err + strlen(o->err) - 1)
			fail_msg("%s %s: exit %d, stdout '%.80s', stderr '%s'; expected exit 2 and one line saying '%s'",
				 a[0], a[1] ? a[1] : "", o->rc, o->out, o->err, bad[i].says);
	}
	/* --results with --profile, --param or --private-ns: the results are the machine */
	run_model(o, "--results", "x.json", "--profile", two, NULL);
	assert_int_equal(o->rc, 2);
	assert_non_null(strstr(o->err, "expected no --profile too"));
	run_model(o, "--results", "x.json", "--param", "counter.batch=4", NULL);
	assert_int_equal(o->rc, 2);
	assert_non_null(strstr(o->err, "expected no --param or --private-ns"));
	run_model(o, "--results", "x.json", "--family", "counter", "--variant", "shared_atomic",
		  "--private-ns", "3", NULL);
	assert_int_equal(o->rc, 2);
	assert_non_null(strstr(o->err, "expected no --param or --private-ns"));
	run_model(o, "--results", "x.json", "--family", "counter", "--variant", "shared_atomic",
		  "--private-ns", "0.5", NULL);
	assert_int_equal(o->rc, 2);
	assert_non_null(strstr(o->err, "expected no --param or --private-ns"));
	/* a cost under a nanosecond is one variant's cost too */
	run_model(o, "--profile", two, "--family", "counter", "--private-ns", "0.5", NULL);
	assert_int_equal(o->rc, 2);
	assert_non_null(strstr(o->err, "expected --family and --variant too"));
	/* --help: the usage on stdout, exit 0, and nothing else run */
	run_model(o, "--help", NULL);
	assert_int_equal(o->rc, 0);
	assert_non_null(strstr(o->out, "usage: bouncelab model"));
	assert_null(strstr(o->out, "Machine:"));
	/* a profile file named without a '/' is read where it is */
	{
		char cwd[1024];

		assert_non_null(getcwd(cwd, sizeof(cwd)));
		assert_int_equal(chdir(tmp_dir), 0);
		run_model(o, "--profile", "two.json", "--family", "pingpong", "--threads", "2", NULL);
		assert_int_equal(chdir(cwd), 0);
		if (o->rc || !strstr(o->out, "Machine: two (two CPUs)"))
			fail_msg("--profile two.json in its directory: exit %d, '%.100s' '%s'", o->rc,
				 o->out, o->err);
	}
	/* at the boundaries, and a parameter for another family left to it */
	run_model(o, "--profile", two, "--family", "counter", "--variant", "shared_atomic",
		  "--private-ns", "1000000000", "--threads", "1,2,1,2,1,2,1,2,1,2,1,2,1,2,1,2,1,2,1,2,1,2,1,2,1,2,1,2,1,2,1,2",
		  "--param", "has_pinned.pin_work=3", "--param", "counter.batch=4", "--json", NULL);
	if (o->rc)
		fail_msg("exit %d: %s", o->rc, o->err);
	{
		unsigned int counts[40];

		assert_int_equal(json_thread_counts(o, counts, 40), 32);
	}
	free(o);
}

/*
 * --results without --threads: the counts up to the run's CPUs (1 and 2
 * on the 2-vCPU guest), planned on the run's machine; and --json's text,
 * indented by two and each number to six significant digits (a cost of
 * 10/3 ns prints 3.33333).
 */
static void test_results_and_json_text(void **state)
{
	const char *two = write_profile("two", TWO_CPUS);
	struct output *o = calloc(1, sizeof(*o));
	unsigned int counts[40];
	char run[1024];

	(void)state;
	assert_non_null(o);
	snprintf(run, sizeof(run), "%s/data/runs/epyc-zen3-2026-12-01/default.json", source_dir);
	run_model(o, "--results", run, "--family", "counter", "--json", NULL);
	if (o->rc)
		fail_msg("--results %s: exit %d: %s", run, o->rc, o->err);
	assert_int_equal(json_thread_counts(o, counts, 40), 2);
	assert_true(counts[0] == 1 && counts[1] == 2);
	run_model(o, "--results", run, "--family", "counter", "--threads", "3", NULL);
	assert_int_equal(o->rc, 2);
	assert_non_null(strstr(o->err, "--threads 3: machine 'm1' has 2 CPUs"));

	run_model(o, "--profile", two, "--family", "counter", "--variant", "shared_atomic",
		  "--threads", "1", "--private-ns", "3.333333333", "--json", NULL);
	assert_int_equal(o->rc, 0);
	assert_int_equal(strncmp(o->out, "{\n  \"machine\": {\n    \"name\": \"two\",\n", 36), 0);
	assert_non_null(strstr(o->out, "\n          \"private_ns\": 3.33333,\n"));
	assert_non_null(strstr(o->out, "\"ns_per_op\": 3.33333,\n"));
	free(o);
}


int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_private_cost_measured),
		cmocka_unit_test(test_batch_bound),
		cmocka_unit_test(test_printed_as_predicted),
		cmocka_unit_test(test_header),
		cmocka_unit_test(test_thread_counts),
		cmocka_unit_test(test_before_after),
		cmocka_unit_test(test_before_after_first),
		cmocka_unit_test(test_options),
		cmocka_unit_test(test_results_and_json_text),
	};
	char cmd[128];
	int rc;

	source_dir = argc > 1 ? argv[1] : ".";
	opterr = 0;	/* as main() has it: the command says what was wrong, once */
	if (!mkdtemp(tmp_dir))
		return 1;
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp_dir);
	if (system(cmd))
		rc = rc ? rc : 1;
	return rc;
}
