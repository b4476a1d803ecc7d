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
 * crosses a second: a second taken as other than 1e9 ns shows. A read
 * past the script gives a time that stops every measurement loop.
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
	if (batch >= fake.nr)
		ns += 1e12;	/* read beyond the script: counted, and long */
	else if (call % 2)
		ns += fake.durations[batch];
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

/* ---- every printed number, as the library predicts it ---- */

struct case_args {
	const char *profile, *family, *variant, *threads, *placement, *home, *private_ns;
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
	char *argv[20], threads[128], *save = NULL;
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
	argv[n] = NULL;
	run_model(o, argv[0], argv[1], argv[2], argv[3], argv[4], argv[5], argv[6], argv[7], argv[8],
		  argv[9], n > 10 ? argv[10] : NULL, n > 11 ? argv[11] : NULL,
		  n > 12 ? argv[12] : NULL, n > 13 ? argv[13] : NULL, NULL);
	argv[n++] = "--json";
	argv[n] = NULL;
	run_model(j, argv[0], argv[1], argv[2], argv[3], argv[4], argv[5], argv[6], argv[7], argv[8],
		  argv[9], argv[10], n > 11 ? argv[11] : NULL, n > 12 ? argv[12] : NULL,
		  n > 13 ? argv[13] : NULL, n > 14 ? argv[14] : NULL, NULL);
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
		{ two, "counter", "shared_atomic", "1,2", NULL, NULL, "10" },
		{ two, "counter", "shared_atomic", "1", NULL, NULL, "0.0001" },
		{ two, "last_nidpid", "cmpxchg_loop", "2", NULL, NULL, "6.35" },
		{ two, "has_pinned", "store_always", "1,2", NULL, "remote", "0.94" },
		{ two, "pingpong", "store_load", "2", NULL, NULL, "1" },
		{ milan, "counter", "shared_atomic", "16,32", NULL, NULL, "30" },
		{ milan, "counter", "shared_atomic", "8,64", "spread", NULL, "3" },
		{ waiters, "counter", "shared_atomic", "2,8,16", NULL, "remote", "2.5" },
		{ waiters, "counter", "shared_atomic", "16", NULL, "local", "2.5" },
	};
	struct case_args window[] = {
		{ domains, "counter", "shared_atomic", "8", NULL, NULL, z[0] },
		{ domains, "counter", "shared_atomic", "8", NULL, NULL, z[1] },
		{ waiters, "counter", "shared_atomic", "16", NULL, NULL, z[2] },
		{ waiters, "counter", "shared_atomic", "16", NULL, NULL, z[3] },
		{ milan, "last_nidpid", "cmpxchg_loop", "2", NULL, NULL, z[4] },
		{ milan, "last_nidpid", "cmpxchg_loop", "2", NULL, NULL, z[5] },
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

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_private_cost_measured),
		cmocka_unit_test(test_printed_as_predicted),
	};
	char cmd[128];
	int rc;

	source_dir = argc > 1 ? argv[1] : ".";
	if (!mkdtemp(tmp_dir))
		return 1;
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp_dir);
	if (system(cmd))
		rc = rc ? rc : 1;
	return rc;
}
