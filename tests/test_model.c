// SPDX-License-Identifier: GPL-2.0-only
/*
 * The contention model against hand-computed and closed-form cases: the
 * MVA solver (one server, N customers; the machine-repairman formula for
 * a server with think time; copies), machine profiles with bad input, and
 * the bottleneck the model names.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "float_assert.h"
#include <dirent.h>

#include "catalog.h"
#include "model.h"
#include "run_context.h"

static const char *source_dir;

/* No think time: the server is always busy, X(N) = 1 / D for every N. */
static void test_one_server_no_think(void **state)
{
	const double d = 7, one = 1;
	struct mva_result r;

	(void)state;
	for (unsigned int n = 1; n <= 64; n *= 2) {
		assert_int_equal(mva_solve(0, &d, &one, 1, n, &r), 0);
		assert_float_equal(r.throughput, 1 / d, 1e-12);
		assert_float_equal(r.cycle, n * d, 1e-9);
		assert_float_equal(r.utilisation[0], 1, 1e-12);
	}
}

/*
 * Machine repairman (M/M/1//N, Kleinrock vol. 1 sec. 3.8): with think Z
 * and service D, p0 = 1 / sum_k N!/(N-k)! (D/Z)^k and X = (1 - p0) / D.
 * An independent formula, not the MVA recursion.
 */
static double repairman_throughput(double z, double d, unsigned int n)
{
	double sum = 0, term = 1;

	for (unsigned int k = 0; k <= n; k++) {
		sum += term;
		term *= (n - k) * d / z;
	}
	return (1 - 1 / sum) / d;
}

static void test_delay_and_queue(void **state)
{
	const double d = 1, one = 1;
	struct mva_result r;

	(void)state;
	/* by hand: Z = 2, D = 1, N = 2: R(2) = 1 + 1/3, X = 2 / (10/3) = 0.6 */
	assert_int_equal(mva_solve(2, &d, &one, 1, 2, &r), 0);
	assert_float_equal(r.throughput, 0.6, 1e-12);
	assert_float_equal(r.residence[0], 4.0 / 3, 1e-12);
	for (unsigned int n = 1; n <= 40; n++) {
		assert_int_equal(mva_solve(3, &d, &one, 1, n, &r), 0);
		assert_float_equal(r.throughput, repairman_throughput(3, d, n), 1e-9);
		/* the bounds of QSP ch. 5 */
		assert_true(r.throughput <= fmin(n / (3 + d), 1 / d) + 1e-12);
	}
}

/*
 * Four copies, each operation on one of them at random: the same network
 * as four centres written out, each with a quarter of the demand.
 */
static void test_copies(void **state)
{
	const double d = 2, four = 4, quarter[4] = { 0.5, 0.5, 0.5, 0.5 };
	const double ones[4] = { 1, 1, 1, 1 };
	struct mva_result copies, explicit;

	(void)state;
	assert_int_equal(mva_solve(1, &d, &four, 1, 8, &copies), 0);
	assert_int_equal(mva_solve(1, quarter, ones, 4, 8, &explicit), 0);
	assert_float_equal(copies.throughput, explicit.throughput, 1e-12);
	assert_float_equal(copies.utilisation[0], explicit.utilisation[0], 1e-12);
	assert_float_equal(copies.residence[0], 4 * explicit.residence[0], 1e-12);
}

static void test_bad_networks(void **state)
{
	const double neg = -1, d = 1, half = 0.5, one = 1;
	struct mva_result r;

	(void)state;
	assert_int_equal(mva_solve(1, &neg, &one, 1, 2, &r), -1);
	assert_int_equal(mva_solve(1, &d, &one, 1, 0, &r), -1);
	assert_int_equal(mva_solve(NAN, &d, &one, 1, 2, &r), -1);
	assert_int_equal(mva_solve(1, &d, &half, 1, 2, &r), -1);
	assert_int_equal(mva_solve(0, NULL, NULL, 0, 2, &r), -1);	/* no work at all */
	{
		const double inf = INFINITY, nan = NAN;

		assert_int_equal(mva_solve(1, &d, &inf, 1, 2, &r), -1);
		assert_int_equal(mva_solve(1, &inf, &one, 1, 2, &r), -1);
		assert_int_equal(mva_solve(1, &nan, &one, 1, 2, &r), -1);
		assert_int_equal(mva_solve(INFINITY, &d, &one, 1, 2, &r), -1);
		assert_int_equal(mva_solve(-1, &d, &one, 1, 2, &r), -1);
	}
}

/*
 * As many centres as a network may have (MVA_MAX_CENTRES, 8), each an
 * eighth of one centre's demand: the same as that centre in 8 copies;
 * one more is refused.
 */
static void test_most_centres(void **state)
{
	double eighth[MVA_MAX_CENTRES + 1], ones[MVA_MAX_CENTRES + 1];
	const double d = 4, eight = MVA_MAX_CENTRES;
	struct mva_result spread, copies;

	(void)state;
	for (int k = 0; k <= MVA_MAX_CENTRES; k++) {
		eighth[k] = d / MVA_MAX_CENTRES;
		ones[k] = 1;
	}
	assert_int_equal(mva_solve(3, eighth, ones, MVA_MAX_CENTRES, 12, &spread), 0);
	assert_int_equal(mva_solve(3, &d, &eight, 1, 12, &copies), 0);
	assert_float_equal(spread.throughput, copies.throughput, 1e-12);
	assert_float_equal(spread.cycle, copies.cycle, 1e-9);
	for (int k = 0; k < MVA_MAX_CENTRES; k++)
		assert_float_equal(spread.utilisation[k], copies.utilisation[0], 1e-12);
	assert_int_equal(mva_solve(3, eighth, ones, MVA_MAX_CENTRES + 1, 12, &spread), -1);
}

/* A machine profile from JSON text, through a file as users give one. */
static int profile_from_text(const char *json, struct machine_profile *m,
			     char *err, size_t errlen)
{
	char path[] = "/tmp/bouncelab-profile-XXXXXX";
	int fd = mkstemp(path), rc;

	assert_true(fd >= 0);
	assert_int_equal(write(fd, json, strlen(json)), (ssize_t)strlen(json));
	close(fd);
	rc = machine_profile_load(path, m, err, errlen);
	unlink(path);
	return rc;
}

/*
 * A profile that should not load; a failed load leaves m all zero, whatever
 * was there before (filled with 0xa5 here) and however far the read got.
 */
static int profile_error(const char *json, char *err, size_t errlen)
{
	static const struct machine_profile empty;
	struct machine_profile m;
	int rc;

	memset(&m, 0xa5, sizeof(m));
	rc = profile_from_text(json, &m, err, errlen);
	if (!rc)
		machine_profile_close(&m);
	else if (memcmp(&m, &empty, sizeof(m)))
		fail_msg("a failed load (%s) left the profile's fields behind", err);
	return rc;
}

#define GOOD_HEAD "{\"name\": \"x\", \"topology\": \"pack:1 core:4 pu:1\", " \
	"\"clock_ghz\": {\"value\": 3, \"source\": \"s\"}, " \
	"\"store_buffer\": {\"value\": 56, \"source\": \"s\"}, "

/*
 * A profile's ranges are inclusive, at both ends: clock_ghz 0.1-10,
 * store_buffer 0-1024 entries (model_doc.md's profile format).
 */
#define RANGE_PROFILE(clock, sb) "{\"name\": \"x\", \"topology\": \"pack:1 core:4 pu:1\", " \
	"\"clock_ghz\": {\"value\": " clock ", \"source\": \"s\"}, " \
	"\"store_buffer\": {\"value\": " sb ", \"source\": \"s\"}, " \
	"\"one_way_ns\": {\"l3\": {\"value\": 40, \"source\": \"s\"}}}"

static void test_profile_ranges(void **state)
{
	char err[512];

	(void)state;
	assert_int_equal(profile_error(RANGE_PROFILE("0.1", "0"), err, sizeof(err)), 0);
	assert_int_equal(profile_error(RANGE_PROFILE("10", "1024"), err, sizeof(err)), 0);
	assert_int_equal(profile_error(RANGE_PROFILE("0.099", "56"), err, sizeof(err)), -1);
	assert_non_null(strstr(err, "clock_ghz"));
	assert_int_equal(profile_error(RANGE_PROFILE("10.01", "56"), err, sizeof(err)), -1);
	assert_non_null(strstr(err, "clock_ghz"));
	assert_int_equal(profile_error(RANGE_PROFILE("3", "1025"), err, sizeof(err)), -1);
	assert_non_null(strstr(err, "store_buffer"));
	assert_int_equal(profile_error(RANGE_PROFILE("3", "-1"), err, sizeof(err)), -1);
	/* numa_distances: a 17th number is refused, not dropped unread */
	assert_int_equal(profile_error("{\"name\": \"x\", \"topology\": \"pack:4 core:1 pu:1\", "
				       "\"numa_distances\": \"10,20,20,20,20,10,20,20,20,20,10,20,20,20,20,10,20\", "
				       "\"clock_ghz\": {\"value\": 3, \"source\": \"s\"}, "
				       "\"store_buffer\": {\"value\": 56, \"source\": \"s\"}, "
				       "\"one_way_ns\": {\"package\": {\"value\": 40, \"source\": \"s\"}}}",
				       err, sizeof(err)), -1);
	assert_non_null(strstr(err, "17 values: expected"));
}

static void test_profile_bad_input(void **state)
{
	static const struct {
		const char *json;
		const char *says;
	} bad[] = {
		{ "{", "not valid JSON" },
		{ "[]", "expected a JSON object" },
		{ GOOD_HEAD "\"one_way_ns\": {\"l3\": {\"value\": 40}}}", "one_way_ns.l3: expected a \"source\"" },
		{ GOOD_HEAD "\"one_way_ns\": {\"l9\": {\"value\": 40, \"source\": \"s\"}}}", "unknown class 'l9'" },
		{ GOOD_HEAD "\"one_way_ns\": {\"l3\": {\"value\": -4, \"source\": \"s\"}}}", "one_way_ns.l3: expected" },
		{ GOOD_HEAD "\"one_way_ns\": {}}", "\"one_way_ns\": expected an object" },
		{ "{\"name\": \"x\", \"topology\": \"pack:1 core:4 pu:1\", \"one_way_ns\": {}}", "clock_ghz: expected" },
		{ "{\"topology\": \"pack:1 core:4\"}", "\"name\": expected a string" },
		/* a topology hwloc cannot build, NUMA distances it cannot take */
		{ "{\"name\": \"x\", \"topology\": \"pack:0 core:x\", "
		  "\"clock_ghz\": {\"value\": 3, \"source\": \"s\"}, "
		  "\"store_buffer\": {\"value\": 56, \"source\": \"s\"}, "
		  "\"one_way_ns\": {\"l3\": {\"value\": 40, \"source\": \"s\"}}}", "topology 'pack:0 core:x'" },
		{ "{\"name\": \"x\", \"topology\": \"pack:2 numa:1 core:1 pu:1\", \"numa_distances\": \"10,x\", "
		  "\"clock_ghz\": {\"value\": 3, \"source\": \"s\"}, "
		  "\"store_buffer\": {\"value\": 56, \"source\": \"s\"}, "
		  "\"one_way_ns\": {\"l3\": {\"value\": 40, \"source\": \"s\"}}}", "numa_distances '10,x'" },
	};
	char err[512];

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(profile_error(bad[i].json, err, sizeof(err)), -1);
		if (!strstr(err, bad[i].says))
			fail_msg("case %zu: '%s' does not say '%s'", i, err, bad[i].says);
	}
	assert_int_equal(profile_error(GOOD_HEAD "\"one_way_ns\": {\"l3\": {\"value\": 40, \"source\": \"s\"}}}",
				       err, sizeof(err)), 0);
}

static int open_profile(const char *name, struct machine_profile *m)
{
	char path[1024], err[512];

	snprintf(path, sizeof(path), "%s/../model/profiles/%s.json", source_dir, name);
	if (machine_profile_load(path, m, err, sizeof(err))) {
		print_error("%s\n", err);
		return -1;
	}
	return 0;
}

static void predict(struct machine_profile *m, const char *family,
		    const char *variant, const char *param, long value,
		    unsigned int threads, struct model_prediction *p)
{
	const char *names[1] = { param };
	char err[512];

	if (model_predict_case(m, family, variant, param ? 1 : 0, names, &value,
			       threads, 30, 0, p, err, sizeof(err)))
		fail_msg("%s", err);
}

/*
 * Tenure by visit rate, by hand: percpu_batched folds into the shared
 * line once in 32 operations (one locked add), so the owner comes back
 * to it every 32 Z ns and a handoff serves 1 + L / (32 Z) visits; each
 * handoff keeps the line two transfers (the transfer and the new owner's
 * tenure): D = (2 L / 32) / (1 + L / (32 Z)). Two threads on one server
 * with think time Z: X(1) = 1 / (Z + D), Q(1) = D X(1), R(2) = D (1 + Q(1)).
 */
static void test_tenure_by_visit_rate(void **state)
{
	struct machine_profile m;
	struct model_prediction p;
	const double z = 30;
	double l, d, q;

	(void)state;
	assert_int_equal(open_profile("epyc-milan-2s-256", &m), 0);
	predict(&m, "counter", "percpu_batched", NULL, 0, 2, &p);
	l = p.transfer_ns;
	assert_true(l > 0);
	assert_float_equal(p.handoff_ns, l, 1e-12);	/* one cache domain */
	d = 2 * l / 32 / (1 + l / (32 * z));
	q = d / (z + d);
	assert_float_equal(p.ns_per_op, z + d * (1 + q), 1e-9);
	machine_profile_close(&m);
}

/*
 * Domain first, by hand on the Milan profile. 32 threads placed compact
 * fill two CCXs of one package: a thread has 1 SMT sibling (9.8 ns) and
 * 14 other cores (23 ns) in its CCX, and 16 CPUs (108 ns) in the other.
 * shared_atomic saturates its line, so many wait in each CCX: a domain
 * visit lasts two 108 ns transfers and holds 108 / (2 x local) local
 * handoffs; the mean handoff is 108 / (1 + that). With nobody waiting (a
 * private cost of a millisecond) it is the all-pairs mean, and with all
 * threads in one CCX (16) there is no other domain to wait for.
 */
static void test_domain_first(void **state)
{
	struct machine_profile m;
	struct model_prediction p;
	const double local = (9.8 + 14 * 23) / 15, cross = 108;
	const double all = (15 * local + 16 * cross) / 31;
	const double within = cross / (2 * local);
	char err[512];

	(void)state;
	assert_int_equal(open_profile("epyc-milan-2s-256", &m), 0);
	predict(&m, "counter", "shared_atomic", NULL, 0, 32, &p);
	assert_float_equal(p.transfer_ns, all, 1e-9);
	assert_float_equal(p.local_handoffs, within, 1e-6);
	assert_float_equal(p.handoff_ns, cross / (1 + within), 1e-6);
	assert_true(p.busy > 0.99);
	assert_int_equal(model_predict_case(&m, "counter", "shared_atomic", 0, NULL, NULL, 32,
					    1e6, 0, &p, err, sizeof(err)), 0);
	assert_float_equal(p.handoff_ns, all, 1e-6);
	assert_true(p.local_handoffs < 1e-3);
	/*
	 * Between the two: fewer waiters than the window holds. One line, so
	 * the requesters at it beyond the one served are n - n Z / cycle - U,
	 * and 15 of the other 31 threads share a thread's CCX.
	 */
	for (double z = 2400; z <= 4000; z += 400) {
		double waiting;

		assert_int_equal(model_predict_case(&m, "counter", "shared_atomic", 0, NULL, NULL, 32,
						    z, 0, &p, err, sizeof(err)), 0);
		waiting = 32 - 32 * z / p.ns_per_op - p.busy;
		assert_true(p.handoff_ns < all && p.local_handoffs < within);
		assert_float_equal(p.local_handoffs, waiting * 15 / 31, 1e-5);
		assert_float_equal(p.handoff_ns, cross / (1 + p.local_handoffs), 1e-6);
	}
	predict(&m, "counter", "shared_atomic", NULL, 0, 16, &p);
	assert_float_equal(p.handoff_ns, p.transfer_ns, 1e-12);
	assert_float_equal(p.local_handoffs, 0, 1e-12);
	/* a case the catalogue does not have is refused, each part by name */
	{
		const char *const names[] = { "batch", "nosuch" };
		const long values[] = { 8, 1 };

		assert_int_equal(model_predict_case(&m, "nosuch", "shared_atomic", 0, NULL, NULL,
						    2, 10, 0, &p, err, sizeof(err)), -1);
		assert_string_equal(err, "family 'nosuch': not in the catalogue");
		assert_int_equal(model_predict_case(&m, "counter", "nosuch", 0, NULL, NULL, 2, 10,
						    0, &p, err, sizeof(err)), -1);
		assert_string_equal(err, "variant 'nosuch': not a variant of counter");
		assert_int_equal(model_predict_case(&m, "counter", "shared_atomic", 2, names,
						    values, 2, 10, 0, &p, err, sizeof(err)), -1);
		assert_string_equal(err, "parameter 'nosuch': not a parameter of counter");
	}
	machine_profile_close(&m);
}

/*
 * The all-pairs mean transfer, from the definition: every ordered pair of
 * the first n CPUs of the Milan profile (pack:2 l3:8 core:8 pu:2, CPUs
 * numbered in that order) at its class's one-way latency, averaged.
 */
static double milan_all_pairs_ns(unsigned int n)
{
	double sum = 0;

	for (unsigned int i = 0; i < n; i++)
		for (unsigned int j = 0; j < n; j++) {
			if (i == j)
				continue;
			if (i / 2 == j / 2)
				sum += 9.8;
			else if (i / 16 == j / 16)
				sum += 23;
			else if (i / 128 == j / 128)
				sum += 108;
			else
				sum += 197;
		}
	return sum / ((double)n * (n - 1));
}

/*
 * The model keeps each placement's pairs by class for MODEL_PAIR_CACHE
 * (32) questions: 2 to 40 threads and back fill it, wrap around it and
 * come back to every entry, and each answer must still be the mean by
 * hand of its own thread count (2: the SMT pair, 9.8 ns; 16: one CCX).
 */
static void test_pairs_by_thread_count(void **state)
{
	struct machine_profile m;
	struct model_prediction p;

	(void)state;
	assert_int_equal(open_profile("epyc-milan-2s-256", &m), 0);
	assert_float_equal(milan_all_pairs_ns(2), 9.8, 1e-12);
	assert_float_equal(milan_all_pairs_ns(16), (9.8 + 14 * 23) / 15, 1e-12);
	for (int pass = 0; pass < 2; pass++)
		for (unsigned int k = 0; k < 39; k++) {
			unsigned int n = pass ? 40 - k : 2 + k;

			predict(&m, "counter", "shared_atomic", NULL, 0, n, &p);
			if (fabs(p.transfer_ns - milan_all_pairs_ns(n)) > 1e-9)
				fail_msg("%u threads: transfer %.17g ns, by hand %.17g", n,
					 p.transfer_ns, milan_all_pairs_ns(n));
		}
	machine_profile_close(&m);
	/*
	 * percpu_packed_locked's line holds 16 threads' slots: at 32 threads
	 * its transfers are among the first 16 (one CCX), not all 32's, though
	 * the 32 threads' own pairs were the one thing asked for before.
	 */
	assert_int_equal(open_profile("epyc-milan-2s-256", &m), 0);
	predict(&m, "counter", "shared_atomic", NULL, 0, 32, &p);
	predict(&m, "counter", "percpu_packed_locked", NULL, 0, 32, &p);
	assert_float_equal(p.transfer_ns, milan_all_pairs_ns(16), 1e-9);
	predict(&m, "counter", "shared_atomic", NULL, 0, 32, &p);
	assert_float_equal(p.transfer_ns, milan_all_pairs_ns(32), 1e-9);
	machine_profile_close(&m);
}

/*
 * Domain first holds for a false sharers' line too: eight threads on one
 * line of same_line, four cores of one CCX and four of another (CPUs 0,
 * 2, 4, 6 and 16, 18, 20, 22 on the Milan profile). A thread has 3
 * others at 23 ns and 4 at 108 ns; locked updates saturate the line, so
 * each CCX visit holds 108 / 46 local handoffs.
 */
static void test_domain_first_false_sharing(void **state)
{
	const struct kernel_family *f = catalog_find("false_sharing");
	struct machine_profile m;
	struct model_prediction p;
	struct kernel_config cfg;
	const double within = 108.0 / (2 * 23);
	char err[512];

	(void)state;
	assert_non_null(f);
	assert_int_equal(open_profile("epyc-milan-2s-256", &m), 0);
	kernel_config_defaults(f, &cfg);
	cfg.variant = (unsigned int)catalog_variant_index(f, "same_line");
	cfg.nr_threads = 8;
	assert_int_equal(model_predict(&m, f, &cfg, 30, 0, "cpus:0,2,4,6,16,18,20,22", &p,
				       err, sizeof(err)), 0);
	assert_float_equal(p.transfer_ns, (3 * 23 + 4 * 108) / 7.0, 1e-9);
	assert_float_equal(p.local_handoffs, within, 1e-6);
	assert_float_equal(p.handoff_ns, 108 / (1 + within), 1e-6);
	machine_profile_close(&m);
}

/*
 * The handoff's fixed point settles near saturation: percpu_batched on
 * 256 CPUs of the Milan profile with a private cost of 700-1500 ns puts
 * its fold line at the edge of saturation, where iterating the handoff
 * directly swung between two states and returned a mix of them (1337
 * ns/op at a private cost of 1000, against a fixed point of 1099). The
 * ns/op must grow smoothly with the private cost: by no more than the
 * added cost (25 ns a step) itself.
 */
static void test_settles_near_saturation(void **state)
{
	struct machine_profile m;
	struct model_prediction p;
	char err[512];
	double last = 0;

	(void)state;
	assert_int_equal(open_profile("epyc-milan-2s-256", &m), 0);
	for (double z = 700; z <= 1500; z += 25) {
		assert_int_equal(model_predict_case(&m, "counter", "percpu_batched", 0, NULL, NULL,
						    256, z, 0, &p, err, sizeof(err)), 0);
		if (last && !(p.ns_per_op >= last && p.ns_per_op - last <= 25))
			fail_msg("private cost %.0f ns: %.1f ns/op after %.1f at %.0f", z, p.ns_per_op,
				 last, z - 25);
		last = p.ns_per_op;
	}
	machine_profile_close(&m);
}

/*
 * Against measurements, not the formula: two threads on a 2-vCPU AMD EPYC
 * (family 1Ah) KVM guest, `scripts/lab sweep`, 5 rounds, medians, the
 * pingpong one-way 222.6 ns (median of the rounds), 2026-12-01.
 *
 * has_pinned's store_always and set_bit_always at already_set=100 over
 * pin_work 0-16: the flag line is the only one that moves, and pin_work
 * locked adds on each thread's own line set the private cost, from 0.94 to
 * 102 ns. Counting one transfer per handoff predicted 0.50-0.67 of these
 * from pin_work 1 up; two (the transfer and the tenure) came to
 * 0.88-1.12. store_always at pin_work=0 has no locked op: its store waits
 * in the store buffer while the line is away, and charging that as a
 * share of a transfer per store predicted 6.8 ns where 4.2 was measured.
 *
 * One locked op per operation on one line: counter's shared_atomic,
 * false_sharing's same_line, last_nidpid's xchg; and last_nidpid's
 * cmpxchg loop, which retried 0.056-0.063 times per success. Retries
 * taken as the line's utilisation (0.9 of them) made it 1.6x too slow; a
 * failure needs a handoff, and the owner loses the line seldom.
 *
 * Plain stores to a line the other thread writes: false_sharing's
 * same_line with update=plain, counter's shared_plain, last_nidpid's
 * plain_store. Charging a store buffer's drain a transfer, L / 64 per
 * store, made them 2.5-3.5x too slow: the measured extra is about 1 ns a
 * store whatever the transfer takes, the owner's tenure.
 *
 * Each must come within a third of the measured ns/op.
 */
static void test_against_measurements(void **state)
{
	static const struct {
		const char *family, *variant, *param;
		long value;
		double one, two;	/* ns/op at 1 and 2 threads, measured */
	} runs[] = {
		{ "has_pinned", "store_always", "pin_work", 0, 0.94, 4.2 },
		{ "has_pinned", "store_always", "pin_work", 1, 6.61, 31.88 },
		{ "has_pinned", "store_always", "pin_work", 2, 12.68, 53.2 },
		{ "has_pinned", "store_always", "pin_work", 4, 24.96, 88.1 },
		{ "has_pinned", "store_always", "pin_work", 8, 49.3, 160.8 },
		{ "has_pinned", "store_always", "pin_work", 16, 98.3, 311.2 },
		{ "has_pinned", "set_bit_always", "pin_work", 0, 6.37, 26.5 },
		{ "has_pinned", "set_bit_always", "pin_work", 1, 12.16, 51.87 },
		{ "has_pinned", "set_bit_always", "pin_work", 2, 18.45, 74.3 },
		{ "has_pinned", "set_bit_always", "pin_work", 4, 30.06, 110.5 },
		{ "has_pinned", "set_bit_always", "pin_work", 8, 54.36, 183.2 },
		{ "has_pinned", "set_bit_always", "pin_work", 16, 102.15, 328.8 },
		{ "counter", "shared_atomic", NULL, 0, 5.96, 24.51 },
		{ "false_sharing", "same_line", NULL, 0, 6.05, 23.3 },
		{ "last_nidpid", "xchg", NULL, 0, 6.06, 22.53 },
		{ "last_nidpid", "cmpxchg_loop", NULL, 0, 6.35, 30.06 },
		{ "false_sharing", "same_line", "update", 0, 0.303, 1.201 },	/* plain */
		{ "counter", "shared_plain", NULL, 0, 0.331, 1.388 },
		{ "last_nidpid", "plain_store", NULL, 0, 0.911, 3.033 },
	};
	static const char guest[] = "{\"name\": \"guest\", \"topology\": \"pack:1 core:2 pu:1\", "
		"\"clock_ghz\": {\"value\": 2.1, \"source\": \"s\"}, "
		"\"store_buffer\": {\"value\": 64, \"source\": \"s\"}, "
		"\"one_way_ns\": {\"package\": {\"value\": 222.6, \"source\": \"s\"}}}";
	char err[512];
	struct machine_profile m;

	(void)state;
	assert_int_equal(profile_from_text(guest, &m, err, sizeof(err)), 0);
	for (size_t i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
		const char *names[1] = { runs[i].param };
		struct model_prediction p;
		double ratio;

		assert_int_equal(model_predict_case(&m, runs[i].family, runs[i].variant,
						    runs[i].param ? 1 : 0, names, &runs[i].value, 2,
						    runs[i].one, 0, &p, err, sizeof(err)), 0);
		ratio = p.ns_per_op / runs[i].two;
		if (ratio < 0.75 || ratio > 1.33)
			fail_msg("%s/%s %s=%ld: predicted %.1f ns/op, measured %.1f (%.2fx)",
				 runs[i].family, runs[i].variant, runs[i].param ? runs[i].param : "",
				 runs[i].value, p.ns_per_op, runs[i].two, ratio);
		/* measured 0.056-0.063 retries per success */
		if (!strcmp(runs[i].variant, "cmpxchg_loop") && !(p.retries > 0.01 && p.retries < 0.2))
			fail_msg("cmpxchg_loop: %.3f retries per success predicted, 0.06 measured",
				 p.retries);
	}
	machine_profile_close(&m);
}

/*
 * The tenure's share, by hand: with share s the new owner keeps the line
 * s transfers after the one that brought it, and serves 1 + s L v / Z
 * visits (plain stores nothing drains: 1 + s (L v / Z + entries v)) in
 * that time: D = (1 + s) L v / (1 + s ...). Two threads on one line,
 * think time Z: R(2) = D (1 + D / (Z + D)). A share of 1 is the whole
 * tenure (no change), and a share is taken per kind of access: the
 * locked one leaves a plain-store case alone.
 */
static double two_on_one_line(double z, double d)
{
	return z + d * (1 + d / (z + d));
}

static void test_tenure_share(void **state)
{
	static const char guest[] = "{\"name\": \"guest\", \"topology\": \"pack:1 core:2 pu:1\", "
		"\"clock_ghz\": {\"value\": 2.45, \"source\": \"s\"}, "
		"\"store_buffer\": {\"value\": 64, \"source\": \"s\"}, "
		"\"one_way_ns\": {\"package\": {\"value\": 43.2, \"source\": \"s\"}}}";
	const char *names[1] = { "update" };
	const long plain = 0;
	const double l = 43.2, z = 3.09, zp = 0.694, s = 0.39, sp = 0.033;
	struct machine_profile m;
	struct model_prediction p;
	char err[512];

	(void)state;
	assert_int_equal(profile_from_text(guest, &m, err, sizeof(err)), 0);
	m.tenure_share[1] = 1;
	assert_int_equal(model_predict_case(&m, "counter", "shared_atomic", 0, NULL, NULL, 2, z, 0,
					    &p, err, sizeof(err)), 0);
	assert_float_equal(p.ns_per_op, two_on_one_line(z, 2 * l / (1 + l / z)), 1e-9);
	m.tenure_share[1] = s;
	assert_int_equal(model_predict_case(&m, "counter", "shared_atomic", 0, NULL, NULL, 2, z, 0,
					    &p, err, sizeof(err)), 0);
	assert_float_equal(p.ns_per_op, two_on_one_line(z, (1 + s) * l / (1 + s * l / z)), 1e-9);
	/* the locked share leaves plain stores whole; their own share scales the run-on too */
	assert_int_equal(model_predict_case(&m, "false_sharing", "same_line", 1, names, &plain, 2,
					    zp, 0, &p, err, sizeof(err)), 0);
	assert_float_equal(p.ns_per_op, two_on_one_line(zp, 2 * l / (1 + l / zp + 64)), 1e-9);
	m.tenure_share[0] = sp;
	assert_int_equal(model_predict_case(&m, "false_sharing", "same_line", 1, names, &plain, 2,
					    zp, 0, &p, err, sizeof(err)), 0);
	assert_float_equal(p.ns_per_op,
			   two_on_one_line(zp, (1 + sp) * l / (1 + sp * (l / zp + 64))), 1e-9);
	machine_profile_close(&m);
}

/*
 * Waiters, by hand: each requester queued at the line beyond the next one
 * adds waiter_ns W to every handoff. On one package without a shared
 * cache (no domain first) a handoff is L, two transfers with the tenure,
 * serving 1 + L / Z increments: D = (2 L + W q) / (1 + L / Z), q the
 * customers at the line beyond the served one and the next, from the
 * network solved without W. The single-centre MVA below is written from
 * its definition (Lazowska et al., section 6.4), apart from mva.c. At 2
 * threads no one is queued beyond the next: nothing moves. With W the
 * throughput of the saturated line falls as threads are added; without
 * it, it never does.
 */
static double one_line_mva(double z, double d, unsigned int n, double *beyond)
{
	double q = 0, r = 0, x = 0;

	for (unsigned int i = 1; i <= n; i++) {
		r = d * (1 + q);
		x = i / (z + r);
		q = x * r;
	}
	*beyond = fmax(0, q - x * d - 1);	/* at the line, less the served, less the next */
	return n / x;
}

static void test_waiters(void **state)
{
	static const char flat[] = "{\"name\": \"flat\", \"topology\": \"pack:1 core:16 pu:1\", "
		"\"clock_ghz\": {\"value\": 2, \"source\": \"s\"}, "
		"\"store_buffer\": {\"value\": 0, \"source\": \"s\"}, "
		"\"waiter_ns\": {\"value\": 0.5, \"source\": \"s\"}, "
		"\"one_way_ns\": {\"package\": {\"value\": 100, \"source\": \"s\"}}}";
	const double l = 100, z = 2.5, w = 0.5, visits = 1 / (1 + l / z);
	double last = 0;
	struct machine_profile m;
	struct model_prediction p;
	char err[512];

	(void)state;
	assert_int_equal(profile_from_text(flat, &m, err, sizeof(err)), 0);
	assert_float_equal(m.waiter_ns, w, 0);
	for (unsigned int n = 2; n <= 16; n *= 2) {
		double q, plain = one_line_mva(z, visits * 2 * l, n, &q);
		double want = one_line_mva(z, visits * (2 * l + w * q), n, &q);

		assert_int_equal(model_predict_case(&m, "counter", "shared_atomic", 0, NULL, NULL,
						    n, z, 0, &p, err, sizeof(err)), 0);
		assert_float_equal(p.ns_per_op, want, 1e-6 * want);
		if (n == 2)
			assert_float_equal(p.ns_per_op, plain, 1e-9 * plain);
		else if (n > 4 && !(p.ops_per_s < last))	/* saturated from 4 on */
			fail_msg("%u threads: %.4g ops/s, not below %.4g at half as many",
				 n, p.ops_per_s, last);
		last = p.ops_per_s;
	}
	m.waiter_ns = 0;
	last = 0;
	for (unsigned int n = 2; n <= 16; n *= 2) {
		assert_int_equal(model_predict_case(&m, "counter", "shared_atomic", 0, NULL, NULL,
						    n, z, 0, &p, err, sizeof(err)), 0);
		assert_true(p.ops_per_s >= last * (1 - 1e-12));
		last = p.ops_per_s;
	}
	machine_profile_close(&m);
}

/*
 * Against measurements on the Zen 3 guest (AMD EPYC, family 19h model 1,
 * 2 vCPUs), tests/data/runs/epyc-zen3-2026-12-01/default.json, medians of
 * 9 rounds: one-way 43.2 ns (the pingpong's median), and the tenure's
 * shares its report measured on false_sharing's same_line, 0.39 locked
 * (19.7 ns/op at 2 threads, 3.15 alone) and 0.033 plain (17.2, 0.694).
 * The cases below are held out: none of them informed a share. Each
 * within a third of the measured; before the shares (the whole tenure,
 * two transfers a handoff) they came to 0.39-0.64.
 */
static void test_against_zen3(void **state)
{
	static const struct {
		const char *family, *variant;
		double one, two;
	} runs[] = {
		{ "counter", "shared_atomic", 3.09, 19.7 },
		{ "last_nidpid", "xchg", 3.04, 20.3 },
		{ "has_pinned", "store_always", 4.78, 21.8 },
		{ "counter", "percpu_packed_locked", 2.98, 22.1 },
	};
	static const char guest[] = "{\"name\": \"zen3\", \"topology\": \"pack:1 core:2 pu:1\", "
		"\"clock_ghz\": {\"value\": 2.45, \"source\": \"s\"}, "
		"\"store_buffer\": {\"value\": 64, \"source\": \"s\"}, "
		"\"one_way_ns\": {\"package\": {\"value\": 43.2, \"source\": \"s\"}}}";
	struct machine_profile m;
	char err[512];

	(void)state;
	assert_int_equal(profile_from_text(guest, &m, err, sizeof(err)), 0);
	m.tenure_share[0] = 0.033;
	m.tenure_share[1] = 0.39;
	for (size_t i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
		struct model_prediction p;
		double ratio;

		assert_int_equal(model_predict_case(&m, runs[i].family, runs[i].variant, 0, NULL, NULL,
						    2, runs[i].one, 0, &p, err, sizeof(err)), 0);
		ratio = p.ns_per_op / runs[i].two;
		if (ratio < 0.75 || ratio > 1.33)
			fail_msg("%s/%s: predicted %.1f ns/op, measured %.1f (%.2fx)", runs[i].family,
				 runs[i].variant, p.ns_per_op, runs[i].two, ratio);
	}
	machine_profile_close(&m);
}

/*
 * A cold line (has_pinned's fresh mm, already_set=0: every call pins an
 * mm the other CPU retired last, nobody fights over it) costs one cold
 * miss as latency: Z + 1 x cold miss at two threads, none at one. Without
 * a measured cold miss the one-way transfer stands in.
 */
static void test_cold_miss(void **state)
{
	struct machine_profile m;
	struct model_prediction p;
	const double z = 30;
	double one_way;

	(void)state;
	assert_int_equal(open_profile("epyc-milan-2s-256", &m), 0);
	/* the two threads' one-way transfer: half a ping-pong's round trip */
	predict(&m, "pingpong", "store_load", NULL, 0, 2, &p);
	one_way = p.transfer_ns;
	assert_true(one_way > 0);
	predict(&m, "has_pinned", "no_flag", "already_set", 0, 2, &p);
	assert_null(p.bottleneck);
	assert_float_equal(p.ns_per_op, z + one_way, 1e-9);
	for (int c = 0; c < NR_DISTANCE_CLASSES; c++)
		m.cold_miss_ns[c] = m.one_way_ns[c] > 0 ? 17 : 0;
	predict(&m, "has_pinned", "no_flag", "already_set", 0, 2, &p);
	assert_float_equal(p.ns_per_op, z + 17, 1e-9);
	/* reading the flag first is the same one miss: the line comes once */
	predict(&m, "has_pinned", "read_then_set", "already_set", 0, 2, &p);
	assert_float_equal(p.ns_per_op, z + 17, 1e-9);
	predict(&m, "has_pinned", "no_flag", "already_set", 0, 1, &p);
	assert_float_equal(p.ns_per_op, z, 1e-9);
	/* a measured cold share stands for the miss: that share of the transfer */
	m.cold_share = 0.25;
	predict(&m, "has_pinned", "no_flag", "already_set", 0, 2, &p);
	assert_float_equal(p.ns_per_op, z + 0.25 * one_way, 1e-9);
	/* half the calls fresh: half the miss */
	predict(&m, "has_pinned", "no_flag", "already_set", 50, 2, &p);
	assert_float_equal(p.ns_per_op, z + 0.5 * 0.25 * one_way, 1e-9);
	machine_profile_close(&m);
}

/*
 * gup's THP heads in shared mode: threads that pin in the same THP fight
 * over its head's lines. Two threads in a 4 MiB buffer (two THPs) are in
 * the same one half of the time and the head line is the bottleneck; in
 * 512 MiB (256 THPs) they seldom meet.
 */
static void test_thp_heads(void **state)
{
	struct machine_profile m;
	struct model_prediction small, big;
	const char *names[3] = { "page_size", "mode", "buffer_mib" };
	long small_v[3] = { 1, 0, 4 }, big_v[3] = { 1, 0, 512 };
	char err[512];

	(void)state;
	assert_int_equal(open_profile("epyc-milan-2s-256", &m), 0);
	assert_int_equal(model_predict_case(&m, "gup", "read_then_set", 3, names, small_v, 2,
					    30, 0, &small, err, sizeof(err)), 0);
	assert_int_equal(model_predict_case(&m, "gup", "read_then_set", 3, names, big_v, 2,
					    30, 0, &big, err, sizeof(err)), 0);
	assert_non_null(small.bottleneck);
	assert_non_null(strstr(small.bottleneck, "THP head"));
	assert_true(small.ns_per_op > 1.5 * 30);
	assert_true(big.ns_per_op < 1.05 * 30);
	machine_profile_close(&m);
}

/*
 * Every profile shipped: it loads, its name is its file's, its topology
 * has the CPUs its title claims, every latency cites a source, and a line
 * travels no faster to a farther CPU.
 */
static void check_shipped_profile(const char *file)
{
	struct machine_profile m;
	char name[256], claimed[32];
	const char *cpus;
	double last = 0;

	snprintf(name, sizeof(name), "%.*s", (int)(strlen(file) - 5), file);
	assert_int_equal(open_profile(name, &m), 0);
	assert_string_equal(m.name, name);
	cpus = strstr(m.title, " CPUs");
	assert_non_null(cpus);
	while (cpus > m.title && cpus[-1] >= '0' && cpus[-1] <= '9')
		cpus--;
	snprintf(claimed, sizeof(claimed), "%u CPUs", m.nr_cpus);
	assert_int_equal(strncmp(cpus, claimed, strlen(claimed)), 0);
	assert_true(m.clock_ghz > 0 && strlen(m.clock_source) > 10);
	assert_true(strlen(m.store_buffer_source) > 10);
	for (int c = 0; c < NR_DISTANCE_CLASSES; c++) {
		if (m.one_way_ns[c] <= 0)
			continue;
		assert_true(strlen(m.source[c]) > 10);
		assert_true(m.one_way_ns[c] >= last);
		last = m.one_way_ns[c];
	}
	assert_true(last > 0);
	machine_profile_close(&m);
}

static void test_shipped_profiles(void **state)
{
	char dir[1024];
	struct dirent *e;
	unsigned int nr = 0;
	DIR *d;

	(void)state;
	snprintf(dir, sizeof(dir), "%s/../model/profiles", source_dir);
	d = opendir(dir);
	assert_non_null(d);
	while ((e = readdir(d))) {
		size_t n = strlen(e->d_name);

		if (n > 5 && !strcmp(e->d_name + n - 5, ".json")) {
			check_shipped_profile(e->d_name);
			nr++;
		}
	}
	closedir(d);
	/* the seeds' two machines, and the current ones the model is asked about */
	assert_true(nr >= 7);
}

/* The line the seed's fix is about is the one the model names. */
static void test_bottleneck(void **state)
{
	struct machine_profile m;
	struct model_prediction p;

	(void)state;
	assert_int_equal(open_profile("epyc-milan-2s-256", &m), 0);
	assert_int_equal(m.nr_cpus, 256);
	predict(&m, "gup", "store_always", "mode", 1, 256, &p);
	assert_non_null(p.bottleneck);
	assert_non_null(strstr(p.bottleneck, "has_pinned"));
	assert_true(p.busy > 0.95);
	/*
	 * Once set the flag is read-only: what is left to queue on is the
	 * NR_FOLL_PIN_* counters, folded in once every 126 pins of a page.
	 */
	predict(&m, "gup", "read_then_set", "mode", 1, 256, &p);
	assert_non_null(p.bottleneck);
	assert_non_null(strstr(p.bottleneck, "NR_FOLL_PIN"));
	assert_true(p.ns_per_op > 30);
	predict(&m, "counter", "shared_atomic", NULL, 0, 64, &p);
	assert_string_equal(p.bottleneck, "shared count line");
	/* a spinning pair: its one line, the only thing it does */
	predict(&m, "pingpong", "store_load", NULL, 0, 2, &p);
	assert_string_equal(p.bottleneck, "the ping-pong line");
	assert_true(p.busy == 1);
	predict(&m, "counter", "percpu_padded", NULL, 0, 64, &p);
	assert_null(p.bottleneck);
	/* a line that saturates caps throughput at one transfer per handoff */
	predict(&m, "last_nidpid", "xchg", NULL, 0, 256, &p);
	assert_true(p.ops_per_s <= 1e9 / (p.transfer_ns / (1 + p.transfer_ns / 30)) * 1.0001);
	/* more threads than the machine has: refused */
	{
		const char *names[1] = { "mode" };
		long v = 1;
		char err[512];

		assert_int_equal(model_predict_case(&m, "gup", "store_always", 1, names, &v,
						    512, 30, 0, &p, err, sizeof(err)), -1);
		assert_non_null(strstr(err, "512 threads"));
	}
	machine_profile_close(&m);
}

/*
 * What a profile file says reaches the model: its NUMA distances
 * ("10,32": local 10, remote 32, whatever the number of nodes), its
 * store buffer and its clock.
 */
static void test_profile_reaches_the_model(void **state)
{
	struct machine_profile m;
	struct model_prediction p;
	const char *names[1] = { "mode" };
	long shared = 1;
	char err[512];
	unsigned int nodes;

	(void)state;
	assert_int_equal(open_profile("epyc-milan-2s-256", &m), 0);
	nodes = topo_nr_numa_nodes(m.topo);
	assert_true(nodes >= 2);
	assert_int_equal(topo_numa_node_distance(m.topo, 0, 0), 10);
	assert_int_equal(topo_numa_node_distance(m.topo, 0, nodes - 1), 32);
	/*
	 * The private cost was measured at private_ghz: a machine clocked at
	 * half that takes twice as long (read_then_set alone: no line moves,
	 * so the prediction is the private cost alone).
	 */
	assert_int_equal(model_predict_case(&m, "gup", "read_then_set", 1, names, &shared, 1,
					    30, 2 * m.clock_ghz, &p, err, sizeof(err)), 0);
	assert_null(p.bottleneck);
	assert_float_equal(p.ns_per_op, 60, 1e-9);
	/* Mops/s is all threads' throughput: threads over the time of one op. */
	predict(&m, "counter", "shared_atomic", NULL, 0, 64, &p);
	assert_float_equal(p.ops_per_s, 64 * 1e9 / p.ns_per_op, 1e-6 * p.ops_per_s);
	machine_profile_close(&m);

	/*
	 * Plain stores to packed slots that no locked op drains: while the
	 * line is away a thread runs a store buffer's worth of updates more,
	 * so a handoff serves far more than one update (the counter lesson's
	 * claim on x86).
	 */
	assert_int_equal(open_profile("xeon-e5-2630v4-2s", &m), 0);
	assert_true(m.store_buffer > 1);
	predict(&m, "counter", "percpu_packed", NULL, 0, 4, &p);
	if (!(p.ns_per_op < 30 + m.one_way_ns[DISTANCE_SMT]))
		fail_msg("percpu_packed at 4 threads: %.1f ns/op, expected below the private 30 ns "
			 "plus one %.1f ns transfer", p.ns_per_op, m.one_way_ns[DISTANCE_SMT]);
	/* A ping-pong is a round trip: two one-way transfers of the pair's class. */
	predict(&m, "pingpong", "store_load", NULL, 0, 2, &p);
	assert_float_equal(p.ns_per_op, 2 * p.transfer_ns, 1e-9);
	assert_true(p.transfer_ns == m.one_way_ns[DISTANCE_SMT] ||
		    p.transfer_ns == m.one_way_ns[DISTANCE_L3] ||
		    p.transfer_ns == m.one_way_ns[DISTANCE_CROSS_PACKAGE]);
	machine_profile_close(&m);
}

/*
 * A family of this test with two contended lines, one with four times
 * the other's locked traffic: the bottleneck the model names is the
 * busier one, whatever order the profile lists them in.
 */
static void two_lines_access(const struct kernel_config *cfg, struct access_profile *p)
{
	struct line_access *quiet = access_add_line(p, "quiet line", LINE_SHARED_BY_ALL, 0);
	struct line_access *busy = access_add_line(p, "busy line", LINE_SHARED_BY_ALL, 0);

	quiet->locked = cfg->variant ? 1 : 0.25;
	busy->locked = cfg->variant ? 0.25 : 1;
	if (cfg->variant) {
		quiet->line = "busy line";
		busy->line = "quiet line";
	}
}

static const struct kernel_variant two_lines_variants[] = {
	{ .name = "quiet_first" }, { .name = "busy_first" },
};

static const struct kernel_family two_lines_family = {
	.name = "two_lines",
	.variants = two_lines_variants,
	.nr_variants = 2,
	.access = two_lines_access,
};

static void test_busiest_line_is_the_bottleneck(void **state)
{
	struct machine_profile m;
	struct model_prediction p;
	struct kernel_config cfg = { .nr_threads = 16 };
	char err[512];

	(void)state;
	assert_int_equal(open_profile("epyc-milan-2s-256", &m), 0);
	for (cfg.variant = 0; cfg.variant < 2; cfg.variant++) {
		memset(&p, 0, sizeof(p));
		if (model_predict(&m, &two_lines_family, &cfg, 30, 0, NULL, &p, err, sizeof(err)))
			fail_msg("%s", err);
		assert_non_null(p.bottleneck);
		if (strcmp(p.bottleneck, "busy line"))
			fail_msg("%s: the bottleneck is the %s (%.0f%% busy), not the busy line",
				 two_lines_variants[cfg.variant].name, p.bottleneck, 100 * p.busy);
	}
	machine_profile_close(&m);
}

/*
 * Lines that are not a tight loop's one store per operation, by hand from
 * model_doc.md: a line visited v times per operation (loads count on a
 * line every thread shares, not on a group's line) is handed off keeping
 * it two transfers, and serves 1 + L v / Z visits in that time plus the
 * operations that run on while the line is away, a store buffer's E
 * entries at s stores per operation: E / s operations, E v / s visits.
 * D = 2 L v / (1 + L v / Z + E v / s), and two threads on one line take
 * R(2) = Z + D (1 + D / (Z + D)).
 */
static const struct {
	const char *name;
	enum line_sharing shared_by;
	double reads, stores;
	double v, run_on;	/* by hand: visits per op, operations per handoff */
} mixed_lines[] = {
	{ "three_stores", LINE_SHARED_BY_ALL, 0, 3, 1, 64.0 / 3 },
	{ "store_every_other", LINE_SHARED_BY_ALL, 0, 0.5, 0.5, 128 },
	{ "reads_and_a_store", LINE_SHARED_BY_ALL, 2, 1, 1, 64 },
	{ "group_reads_half_store", LINE_SHARED_BY_GROUP, 2, 0.5, 0.5, 128 },
	{ "quarter_store_reads", LINE_SHARED_BY_ALL, 0.25, 0.25, 0.5, 256 },
};

static void mixed_lines_access(const struct kernel_config *cfg, struct access_profile *p)
{
	struct line_access *a = access_add_line(p, "the line", mixed_lines[cfg->variant].shared_by,
						 2);

	a->reads = mixed_lines[cfg->variant].reads;
	a->stores = mixed_lines[cfg->variant].stores;
}

static const struct kernel_variant mixed_lines_variants[] = {
	{ .name = "three_stores" }, { .name = "store_every_other" },
	{ .name = "reads_and_a_store" }, { .name = "group_reads_half_store" },
	{ .name = "quarter_store_reads" },
};

static const struct kernel_family mixed_lines_family = {
	.name = "mixed_lines",
	.variants = mixed_lines_variants,
	.nr_variants = 5,
	.access = mixed_lines_access,
};

static void test_mixed_lines(void **state)
{
	static const char guest[] = "{\"name\": \"guest\", \"topology\": \"pack:1 core:2 pu:1\", "
		"\"clock_ghz\": {\"value\": 2.45, \"source\": \"s\"}, "
		"\"store_buffer\": {\"value\": 64, \"source\": \"s\"}, "
		"\"one_way_ns\": {\"package\": {\"value\": 43.2, \"source\": \"s\"}}}";
	const double l = 43.2;
	/* no private work at all, a tight loop, a long private cost */
	const double zs[] = { 0, 0.7, 30, 2000 };
	struct kernel_config cfg = { .nr_threads = 2 };
	struct machine_profile m;
	struct model_prediction p;
	char err[512];

	(void)state;
	assert_int_equal(profile_from_text(guest, &m, err, sizeof(err)), 0);
	for (cfg.variant = 0; cfg.variant < 5; cfg.variant++) {
		for (size_t i = 0; i < sizeof(zs) / sizeof(zs[0]); i++) {
			double z = zs[i], v = mixed_lines[cfg.variant].v;
			double d = 2 * l * v / (1 + l * v / z + mixed_lines[cfg.variant].run_on * v);
			double want = z + d * (1 + d / (z + d));

			memset(&p, 0, sizeof(p));
			if (model_predict(&m, &mixed_lines_family, &cfg, z, 0, NULL, &p, err,
					  sizeof(err)))
				fail_msg("%s", err);
			if (fabs(p.ns_per_op - want) > 1e-9 * want)
				fail_msg("%s at Z = %g: %.6f ns/op, by hand %.6f",
					 mixed_lines[cfg.variant].name, z, p.ns_per_op, want);
		}
	}
	/*
	 * A private cost measured on a 4.9 GHz CPU takes twice as long on
	 * this 2.45 GHz machine: Z' = 2 Z, alone (no handoff) and at 2
	 * threads (the same closed form with Z').
	 */
	cfg.variant = 0;
	for (unsigned int n = 1; n <= 2; n++) {
		double z = 2 * 30, d = 2 * l / (1 + l / z + 64.0 / 3);
		double want = n == 1 ? z : z + d * (1 + d / (z + d));

		cfg.nr_threads = n;
		if (model_predict(&m, &mixed_lines_family, &cfg, 30, 4.9, NULL, &p, err, sizeof(err)))
			fail_msg("%s", err);
		if (fabs(p.ns_per_op - want) > 1e-9 * want)
			fail_msg("30 ns at 4.9 GHz on 2.45, %u threads: %.6f ns/op, by hand %.6f",
				 n, p.ns_per_op, want);
	}
	machine_profile_close(&m);
}

/*
 * The one store-buffer table, by cpuid vendor and family: the entries the
 * vendors' optimization guides give (Intel: 56 since Skylake; AMD family
 * 17h: 48; 19h: 64), a later AMD family taking the latest tabled, a file
 * older than context.cpu read by its brand's vendor, and no guess for a
 * CPU the table lacks. bouncelab model (cpu_id_read()), the report's
 * prediction and the fleet table (context.cpu) all call it.
 */
static void test_store_buffer_table(void **state)
{
	char src[240];

	(void)state;
	assert_int_equal(machine_store_buffer("GenuineIntel", 6, NULL, src, sizeof(src)), 56);
	assert_int_equal(machine_store_buffer("AuthenticAMD", 0x17, NULL, src, sizeof(src)), 48);
	assert_non_null(strstr(src, "17h"));
	assert_int_equal(machine_store_buffer("AuthenticAMD", 0x19, NULL, src, sizeof(src)), 64);
	assert_int_equal(machine_store_buffer("AuthenticAMD", 0x1a, NULL, src, sizeof(src)), 64);
	assert_non_null(strstr(src, "not tabled"));
	assert_int_equal(machine_store_buffer("AuthenticAMD", 0x15, NULL, src, sizeof(src)), 0);
	assert_int_equal(machine_store_buffer(NULL, -1, "AMD EPYC", src, sizeof(src)), 64);
	assert_int_equal(machine_store_buffer(NULL, -1, "Intel(R) Xeon(R) Gold 6138", NULL, 0), 56);
	assert_int_equal(machine_store_buffer(NULL, -1, "ARMv8 Neoverse-N1", src, sizeof(src)), 0);
	assert_int_equal(machine_store_buffer("ARM", -1, NULL, src, sizeof(src)), 0);
}

/*
 * Every field of a profile file reaches the machine: each class's
 * latency with its own source (no two alike, so a shifted or skipped
 * class shows), the clock, the store buffer, the remote home, the tenure
 * and the waiters' cost, and the CPUs its topology has.
 */
static void test_profile_fields_reach_the_machine(void **state)
{
	static const char all[] = "{\"name\": \"every-field\", \"title\": \"t\", "
		"\"topology\": \"pack:2 core:3 pu:2\", "
		"\"clock_ghz\": {\"value\": 0.5, \"source\": \"clock-src\"}, "
		"\"store_buffer\": {\"value\": 17, \"source\": \"sb-src\"}, "
		"\"remote_home_ns\": {\"value\": 33, \"source\": \"home-src\"}, "
		"\"tenure_share\": {\"value\": 0.25, \"source\": \"tenure-src\"}, "
		"\"waiter_ns\": {\"value\": 0.75, \"source\": \"waiter-src\"}, "
		"\"one_way_ns\": {\"smt\": {\"value\": 2, \"source\": \"src-smt\"}, "
		"\"l2\": {\"value\": 3, \"source\": \"src-l2\"}, "
		"\"l3\": {\"value\": 4, \"source\": \"src-l3\"}, "
		"\"package\": {\"value\": 5, \"source\": \"src-package\"}, "
		"\"numa\": {\"value\": 6, \"source\": \"src-numa\"}, "
		"\"cross_package\": {\"value\": 7, \"source\": \"src-cross_package\"}}}";
	static const char bare[] = "{\"name\": \"bare\", \"topology\": \"pack:1 core:2 pu:1\", "
		"\"clock_ghz\": {\"value\": 3, \"source\": \"s\"}, "
		"\"store_buffer\": {\"value\": 0, \"source\": \"s\"}, "
		"\"one_way_ns\": {\"package\": {\"value\": 50, \"source\": \"s\"}}}";
	struct machine_profile m;
	char err[512], want[64];

	(void)state;
	assert_int_equal(profile_from_text(all, &m, err, sizeof(err)), 0);
	assert_string_equal(m.name, "every-field");
	assert_int_equal(m.nr_cpus, 12);
	assert_float_equal(m.clock_ghz, 0.5, 0);
	assert_string_equal(m.clock_source, "clock-src");
	assert_int_equal(m.store_buffer, 17);
	assert_string_equal(m.store_buffer_source, "sb-src");
	assert_float_equal(m.remote_home_ns, 33, 0);
	assert_string_equal(m.remote_home_source, "home-src");
	/* a profile's tenure is the locked ops' one; plain stores keep theirs */
	assert_float_equal(m.tenure_share[1], 0.25, 0);
	assert_float_equal(m.tenure_share[0], 0, 0);
	assert_string_equal(m.tenure_source, "tenure-src");
	assert_float_equal(m.waiter_ns, 0.75, 0);
	assert_string_equal(m.waiter_source, "waiter-src");
	assert_float_equal(m.one_way_ns[DISTANCE_SAME_PU], 0, 0);
	assert_float_equal(m.one_way_ns[DISTANCE_UNKNOWN], 0, 0);
	for (int c = DISTANCE_SMT; c <= DISTANCE_CROSS_PACKAGE; c++) {
		snprintf(want, sizeof(want), "src-%s", distance_class_name((enum distance_class)c));
		assert_float_equal(m.one_way_ns[c], c + 1, 0);
		assert_string_equal(m.source[c], want);
	}
	assert_float_equal(m.home_away, 0, 0);
	machine_profile_close(&m);
	assert_null(m.topo);
	/* what a profile leaves out stays out */
	assert_int_equal(profile_from_text(bare, &m, err, sizeof(err)), 0);
	assert_int_equal(m.nr_cpus, 2);
	assert_float_equal(m.remote_home_ns, 0, 0);
	assert_string_equal(m.remote_home_source, "");
	assert_float_equal(m.tenure_share[1], 0, 0);
	assert_string_equal(m.tenure_source, "");
	assert_float_equal(m.waiter_ns, 0, 0);
	assert_int_equal(m.store_buffer, 0);
	machine_profile_close(&m);
}

/* The names a listing of model/profiles/ gives, each once, as " a b c". */
static bool lists_exactly_the_shipped(const char *list)
{
	char dir[1024], copy[4096], *save = NULL;
	unsigned int listed = 0, shipped = 0;
	struct dirent *e;
	DIR *d;

	snprintf(dir, sizeof(dir), "%s/../model/profiles", source_dir);
	snprintf(copy, sizeof(copy), "%s", list);
	for (char *t = strtok_r(copy, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
		char path[1200];

		snprintf(path, sizeof(path), "%s/%s.json", dir, t);
		if (access(path, F_OK)) {
			print_error("'%s' listed, but there is no %s\n", t, path);
			return false;
		}
		listed++;
	}
	d = opendir(dir);
	assert_non_null(d);
	while ((e = readdir(d))) {
		size_t n = strlen(e->d_name);

		shipped += n > 5 && !strcmp(e->d_name + n - 5, ".json");
	}
	closedir(d);
	if (listed != shipped)
		print_error("%u names listed, %u profiles shipped: '%s'\n", listed, shipped, list);
	return listed == shipped;
}

/*
 * A shipped profile by its name; an unknown name lists every shipped one
 * by its name, each once; a name that is a path is never looked for among
 * them, even where one is there; no data directory says where it looked.
 */
static void test_shipped_profile_by_name(void **state)
{
	static const char *const unknown[] = {
		"no-such-machine", "../profiles/ryzen-5950x", "x", "ryzen-5950x.json",
	};
	const char *tail = "not a shipped profile, expected one of:";
	struct machine_profile m;
	char err[4096];

	(void)state;
	assert_int_equal(machine_profile_load_shipped("ryzen-5950x", &m, err, sizeof(err)), 0);
	assert_string_equal(m.name, "ryzen-5950x");
	assert_non_null(m.topo);
	machine_profile_close(&m);
	for (size_t i = 0; i < sizeof(unknown) / sizeof(unknown[0]); i++) {
		const char *list;

		memset(&m, 0x5a, sizeof(m));
		assert_int_equal(machine_profile_load_shipped(unknown[i], &m, err, sizeof(err)), -1);
		assert_null(m.topo);
		list = strstr(err, tail);
		if (!list)
			fail_msg("'%s': %s", unknown[i], err);
		assert_true(lists_exactly_the_shipped(list + strlen(tail)));
	}
	/* an error buffer shorter than the list: cut, never overrun */
	memset(err, 'z', sizeof(err));
	assert_int_equal(machine_profile_load_shipped("no-such-machine", &m, err, 80), -1);
	assert_int_equal(strlen(err), 79);
	assert_int_equal(err[80], 'z');
	/*
	 * A data directory of its own: a profile of a one-letter name is
	 * listed; a bare ".json" and a file of another kind are not.
	 */
	{
		char dir[] = "/tmp/bouncelab-profiles-XXXXXX", path[256];
		static const char *const files[] = { "x.json", ".json", "notes.txt" };
		const char *list;

		assert_non_null(mkdtemp(dir));
		snprintf(path, sizeof(path), "%s/profiles", dir);
		assert_int_equal(mkdir(path, 0755), 0);
		for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
			FILE *f;

			snprintf(path, sizeof(path), "%s/profiles/%s", dir, files[i]);
			f = fopen(path, "w");
			assert_non_null(f);
			fclose(f);
		}
		setenv("BOUNCELAB_DATADIR", dir, 1);
		assert_int_equal(machine_profile_load_shipped("y", &m, err, sizeof(err)), -1);
		unsetenv("BOUNCELAB_DATADIR");
		list = strstr(err, tail);
		assert_non_null(list);
		assert_string_equal(list + strlen(tail), " x");
		for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
			snprintf(path, sizeof(path), "%s/profiles/%s", dir, files[i]);
			unlink(path);
		}
		snprintf(path, sizeof(path), "%s/profiles", dir);
		rmdir(path);
		rmdir(dir);
	}
	setenv("BOUNCELAB_DATADIR", "/nonexistent/bouncelab", 1);
	memset(&m, 0x5a, sizeof(m));
	assert_int_equal(machine_profile_load_shipped("ryzen-5950x", &m, err, sizeof(err)), -1);
	unsetenv("BOUNCELAB_DATADIR");
	assert_null(m.topo);
	assert_non_null(strstr(err, "no shipped profiles"));
	assert_non_null(strstr(err, "/nonexistent/bouncelab"));
}

/*
 * The clock this process runs at: /proc/cpuinfo's first "cpu MHz" line,
 * in GHz, read here apart from the model. A host may change the clock
 * between two reads: where it did, only the order of magnitude is held.
 */
static double first_cpu_mhz(void)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[512];
	double mhz = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');

		if (!strncmp(line, "cpu MHz", 7) && colon) {
			mhz = strtod(colon + 1, NULL);
			break;
		}
	}
	fclose(f);
	return mhz;
}

static void test_this_clock(void **state)
{
	double before = first_cpu_mhz(), ghz = model_this_clock_ghz(), after = first_cpu_mhz();

	(void)state;
	if (before <= 0 || after <= 0) {
		/* no clock recorded (some VMs, other architectures): unknown */
		assert_float_equal(ghz, 0, 0);
		return;
	}
	if (before == after)
		assert_float_equal(ghz, before / 1000, 1e-12 * before);
	else
		assert_true(ghz > fmin(before, after) / 2000 && ghz < fmax(before, after) / 500);
}

/*
 * The vendor the cpuid gives decides, whatever the brand string says; a
 * family of 0 is a family, not "unknown"; with neither a vendor nor a
 * brand nothing is assumed hidden.
 */
static void test_store_buffer_vendor_first(void **state)
{
	char src[240];

	(void)state;
	assert_int_equal(machine_store_buffer(NULL, -1, NULL, src, sizeof(src)), 0);
	assert_non_null(strstr(src, "unknown CPU"));
	assert_int_equal(machine_store_buffer(NULL, 0x17, NULL, src, sizeof(src)), 0);
	assert_int_equal(machine_store_buffer("AuthenticAMD", 0x17, "AMD EPYC 7742 64-Core Processor",
					      src, sizeof(src)), 48);
	assert_int_equal(machine_store_buffer("AuthenticAMD", 0x17, "Intel(R) Xeon(R) (a relabelled part)",
					      src, sizeof(src)), 48);
	assert_int_equal(machine_store_buffer("GenuineIntel", 6, "AMD EPYC (a relabelled part)",
					      src, sizeof(src)), 56);
	assert_int_equal(machine_store_buffer("AuthenticAMD", 0, NULL, src, sizeof(src)), 0);
	assert_int_equal(machine_store_buffer("AuthenticAMD", 0x18, NULL, src, sizeof(src)), 0);
	assert_int_equal(machine_store_buffer("AuthenticAMD", 0x0c, NULL, src, sizeof(src)), 0);
	assert_int_equal(machine_store_buffer("AuthenticAMD", -1, NULL, src, sizeof(src)), 64);
	assert_non_null(strstr(src, "not recorded"));
	assert_int_equal(machine_store_buffer(NULL, -1, "AMD Ryzen 9 5950X 16-Core Processor",
					      src, sizeof(src)), 64);
	assert_int_equal(machine_store_buffer(NULL, -1, "EPYC-Rome Processor", src, sizeof(src)), 64);
	assert_int_equal(machine_store_buffer("HygonGenuine", 0x18, "Hygon C86", src, sizeof(src)), 0);
}

/*
 * The machine behind a results file, built from its context as the
 * report and `model --results` take it: by hand, each shape's CPUs and
 * the class of a few pairs (CPUs numbered package by package, core by
 * core, hardware thread by hardware thread).
 */
struct run_shape {
	long cpus, numa_nodes;
	const char *classes[4];
	int ok;			/* 0, or -1: refused */
	unsigned int packages;	/* of the machine built */
	bool smt, l3;
};

static void check_run_shape(const struct run_shape *s)
{
	struct run_class classes[4];
	struct run_context run = { 0 };
	struct machine_profile m;
	char why[256];
	size_t nr = 0;

	for (; nr < 4 && s->classes[nr]; nr++)
		classes[nr] = (struct run_class){ .name = s->classes[nr], .cpu_a = 0, .cpu_b = 1 };
	run.topology.has_classes = true;
	run.topology.nr_classes = nr;
	run.topology.classes = classes;
	run.topology.nr_allowed_cpus = s->cpus;
	run.topology.numa_nodes = s->numa_nodes;
	run.cpu.vendor = "AuthenticAMD";
	run.cpu.family = 0x17;
	memset(&m, 0x5a, sizeof(m));
	if (machine_profile_of_run(&run, "m1", true, &m, why, sizeof(why)) != s->ok)
		fail_msg("%ld CPUs, %s...: %s", s->cpus, s->classes[0], s->ok ? "built" : why);
	if (s->ok) {
		assert_null(m.topo);
		return;
	}
	assert_string_equal(m.name, "m1");
	assert_int_equal(m.store_buffer, 48);
	assert_int_equal(m.nr_cpus, s->cpus);
	assert_int_equal(topo_nr_allowed_cpus(m.topo), s->cpus);
	{
		unsigned int per_package = (unsigned int)s->cpus / s->packages;
		int last = (int)s->cpus - 1;

		if (s->cpus < 2) {
			machine_profile_close(&m);
			return;
		}
		assert_int_equal(topo_classify(m.topo, 0, 1),
				 s->smt ? DISTANCE_SMT : s->l3 ? DISTANCE_L3 : DISTANCE_PACKAGE);
		if (per_package > 2 && s->smt)
			assert_int_equal(topo_classify(m.topo, 0, 2),
					 s->l3 ? DISTANCE_L3 : DISTANCE_PACKAGE);
		assert_int_equal(topo_classify(m.topo, 0, last),
				 s->packages > 1 ? DISTANCE_CROSS_PACKAGE :
				 s->l3 ? DISTANCE_L3 : DISTANCE_PACKAGE);
		if (s->packages > 1)
			assert_int_equal(topo_classify(m.topo, 0, (int)per_package),
					 DISTANCE_CROSS_PACKAGE);
	}
	machine_profile_close(&m);
}

static void test_machine_of_a_run(void **state)
{
	static const struct run_shape shapes[] = {
		{ 2, 1, { "package" }, 0, 1, false, false },
		{ 1, 1, { "package" }, 0, 1, false, false },
		{ 4, 1, { "smt", "l3" }, 0, 1, true, true },
		{ 8, 2, { "smt", "l3", "cross_package" }, 0, 2, true, true },
		{ 8, 2, { "smt", "cross_package" }, 0, 2, true, false },
		{ 12, 3, { "cross_package" }, 0, 3, false, false },
		{ 6, 1, { "cross_package" }, 0, 2, false, false },
		{ 6, 0, { "smt", "cross_package" }, -1, 0, false, false },	/* 2 x 2 do not divide 6 */
		{ 8, 1, { "l3", "package" }, -1, 0, false, false },
		{ 8, 2, { "numa" }, -1, 0, false, false },
		{ 0, 1, { "package" }, -1, 0, false, false },
	};
	struct run_context none = { 0 };
	struct machine_profile m;
	char why[256];

	(void)state;
	for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++)
		check_run_shape(&shapes[i]);
	/* no topology recorded: refused as a whole machine; a pair needs none */
	none.topology.nr_allowed_cpus = 4;
	memset(&m, 0x5a, sizeof(m));
	assert_int_equal(machine_profile_of_run(&none, "m2", true, &m, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "no topology recorded"));
	assert_int_equal(machine_profile_of_run(&none, "m2", false, &m, why, sizeof(why)), 0);
	assert_int_equal(m.nr_cpus, 2);
	assert_int_equal(topo_nr_allowed_cpus(m.topo), 2);
	assert_int_equal(topo_classify(m.topo, 0, 1), DISTANCE_PACKAGE);
	assert_int_equal(m.store_buffer, 0);
	machine_profile_close(&m);
}

/*
 * The model at many points, against a second implementation written
 * here from model_doc.md's equations and solved another way: the product
 * form's normalising constant (Buzen's convolution, Lazowska et al.
 * section 8.2) instead of Mean Value Analysis, and the cmpxchg retries'
 * fixed point by bisection instead of the model's damped iteration.
 *
 * For a line of sharers k with v = min(1, locked + cas + stores (+ loads
 * where every thread shares it)) visits per operation, a private cost Z
 * and a transfer L (plus the remote home's extra): a handoff keeps the
 * line (1 + s) L and serves 1 + s (L v / Z + E v / stores) visits, E the
 * store buffer's entries where no locked op, cmpxchg or fence drains the
 * plain stores, s the tenure's share (plain stores nothing drains:
 * tenure_share[0]; a locked or cmpxchg line: [1]; else, or unmeasured,
 * 1). D = v / (1 + ...) (1 + s) L (1 + retries). Cold transfers add to
 * the think time only. A group's line is one of n / k copies, or, where
 * every line is a group's, one group of k threads is the network.
 */
#define KIND_MAX_LINES 2

struct kind_case {
	const char *name;
	unsigned int nr_lines;
	struct line_access lines[KIND_MAX_LINES];
	double cold_transfers, private_locked;
	bool fenced;
};

#define KIND(n, ...) { .name = n, __VA_ARGS__ }
#define ONE_LINE(...) .nr_lines = 1, .lines = { __VA_ARGS__ }
#define TWO_LINES(a, b) .nr_lines = 2, .lines = { a, b }
#define LINE(l, by, g, r, s, lk, c) { .line = l, .shared_by = by, .group_size = g, \
	.reads = r, .stores = s, .locked = lk, .cas = c }

static const struct kind_case kind_cases[] = {
	KIND("one_locked", ONE_LINE(LINE("A", LINE_SHARED_BY_ALL, 0, 0, 0, 1, 0))),
	KIND("quarter_locked_two_loads", ONE_LINE(LINE("A", LINE_SHARED_BY_ALL, 0, 2, 0, 0.25, 0))),
	KIND("quarter_locked_half_load", ONE_LINE(LINE("A", LINE_SHARED_BY_ALL, 0, 0.5, 0, 0.25, 0))),
	KIND("three_stores", ONE_LINE(LINE("A", LINE_SHARED_BY_ALL, 0, 0, 3, 0, 0))),
	KIND("three_stores_fenced", ONE_LINE(LINE("A", LINE_SHARED_BY_ALL, 0, 0, 3, 0, 0)),
	     .fenced = true),
	KIND("two_stores_private_lock", ONE_LINE(LINE("A", LINE_SHARED_BY_ALL, 0, 0, 2, 0, 0)),
	     .private_locked = 1),
	KIND("store_beside_a_lock", TWO_LINES(LINE("A", LINE_SHARED_BY_ALL, 0, 0, 1, 0, 0),
					      LINE("B", LINE_SHARED_BY_ALL, 0, 0, 0, 0.5, 0))),
	KIND("cmpxchg", ONE_LINE(LINE("A", LINE_SHARED_BY_ALL, 0, 1, 0, 0, 1))),
	KIND("half_cmpxchg_half_store", ONE_LINE(LINE("A", LINE_SHARED_BY_ALL, 0, 0, 0.5, 0, 0.5))),
	KIND("group_store_loads", ONE_LINE(LINE("G", LINE_SHARED_BY_GROUP, 2, 2, 1, 0, 0))),
	KIND("all_and_group", TWO_LINES(LINE("A", LINE_SHARED_BY_ALL, 0, 0, 0, 0.5, 0),
					LINE("G", LINE_SHARED_BY_GROUP, 2, 0, 1, 0, 0))),
	KIND("read_only", ONE_LINE(LINE("A", LINE_SHARED_BY_ALL, 0, 3, 0, 0, 0))),
	KIND("own_line", ONE_LINE(LINE("P", LINE_SHARED_BY_GROUP, 1, 0, 1, 0, 0))),
	KIND("cold_and_locked", ONE_LINE(LINE("A", LINE_SHARED_BY_ALL, 0, 0, 0, 1, 0)),
	     .cold_transfers = 1.5),
	KIND("cold_only", .nr_lines = 0, .cold_transfers = 0.5),
	KIND("wide_group", ONE_LINE(LINE("G", LINE_SHARED_BY_GROUP, 4, 0, 0, 1, 0))),
	KIND("two_groups_of_two_sizes", TWO_LINES(LINE("G", LINE_SHARED_BY_GROUP, 2, 0, 0, 1, 0),
						  LINE("H", LINE_SHARED_BY_GROUP, 4, 0, 0.25, 0, 0))),
};

#define NR_KIND_CASES (sizeof(kind_cases) / sizeof(kind_cases[0]))

static void kinds_access(const struct kernel_config *cfg, struct access_profile *p)
{
	const struct kind_case *k = &kind_cases[cfg->variant];

	for (unsigned int i = 0; i < k->nr_lines; i++)
		*access_add_line(p, k->lines[i].line, k->lines[i].shared_by,
				 k->lines[i].group_size) = k->lines[i];
	p->cold_transfers = k->cold_transfers;
	p->private_locked = k->private_locked;
	p->fenced = k->fenced;
}

static struct kernel_variant kinds_variants[NR_KIND_CASES];

static const struct kernel_family kinds_family = {
	.name = "kinds",
	.variants = kinds_variants,
	.nr_variants = NR_KIND_CASES,
	.access = kinds_access,
};

/* The machine the oracle is given: one transfer latency between any two CPUs. */
struct flat_machine {
	double l;		/* one-way ns, with the remote home's share */
	double cold;		/* a cold miss, the same way */
	double entries;		/* store buffer */
	double share[2];	/* tenure_share */
	double z;		/* the private cost, scaled to this clock */
};

/*
 * X(N) of a closed product-form network: a delay station of think time
 * and, per centre, copies[k] stations of demand[k] / copies[k] each, by
 * the normalising constant G: G(N) sums over the states, X = G(N-1) / G(N).
 */
static double convolution_throughput(double think, const double *demand, const double *copies,
				     unsigned int nr, unsigned int n)
{
	double g[65];

	assert_true(n < 65);
	g[0] = 1;
	for (unsigned int i = 1; i <= n; i++)
		g[i] = g[i - 1] * think / i;	/* the delay station alone: Z^i / i! */
	for (unsigned int k = 0; k < nr; k++)
		for (unsigned int c = 0; c < (unsigned int)copies[k]; c++)
			for (unsigned int i = 1; i <= n; i++)
				g[i] += demand[k] / copies[k] * g[i - 1];
	return g[n - 1] / g[n];
}

struct kind_answer {
	double ns, busy, retries, think;
	int bottleneck;		/* index of the line, -1: none */
};

/*
 * The network's demands with r retries per cmpxchg success; returns its
 * throughput with *pop customers, or -1 where a group's copies are not a
 * whole number (which convolution cannot take).
 */
static double kind_network(const struct kind_case *kc, const struct flat_machine *fm,
			   unsigned int n, double r, double *demand, double *copies,
			   double *visits, int *line_of, unsigned int *nr, double *think,
			   unsigned int *population)
{
	bool drained = kc->fenced || kc->private_locked > 0, only_groups = kc->nr_lines > 0;
	unsigned int pop = n;

	for (unsigned int i = 0; i < kc->nr_lines; i++) {
		drained |= kc->lines[i].locked > 0 || kc->lines[i].cas > 0;
		only_groups &= kc->lines[i].shared_by == LINE_SHARED_BY_GROUP &&
			       kc->lines[i].group_size == kc->lines[0].group_size;
	}
	if (only_groups && kc->lines[0].group_size < n)
		pop = kc->lines[0].group_size;
	*nr = 0;
	/* one thread: no other CPU wrote anything last */
	*think = fm->z + (n > 1 ? kc->cold_transfers * fm->cold : 0);
	for (unsigned int i = 0; i < kc->nr_lines; i++) {
		const struct line_access *a = &kc->lines[i];
		bool all = a->shared_by == LINE_SHARED_BY_ALL;
		unsigned int k = all ? n : (a->group_size < n ? a->group_size : n);
		double v = fmin(1, a->locked + a->cas + a->stores + (all ? a->reads : 0));
		double e = fm->entries && !drained && a->stores > 0 ? fm->entries / a->stores : 0;
		double s = !drained ? fm->share[0] : a->locked + a->cas > 0 ? fm->share[1] : 0;

		if (k < 2 || a->stores + a->locked + a->cas <= 0)
			continue;
		s = s > 0 ? fmin(1, s) : 1;
		/* no private work: no visit of the owner's own in its tenure */
		visits[*nr] = v / (1 + s * ((fm->z > 0 ? fm->l * v / fm->z : 0) + e * v));
		demand[*nr] = visits[*nr] * (1 + s) * fm->l * (a->cas > 0 ? 1 + r : 1);
		copies[*nr] = all || pop < n ? 1 : (double)n / k;
		if (copies[*nr] != floor(copies[*nr]))
			return -1;
		line_of[*nr] = (int)i;
		(*nr)++;
	}
	*population = pop;
	return convolution_throughput(*think, demand, copies, *nr, pop);
}

/* false: a case convolution cannot take (a group's copies not whole) */
static bool kind_oracle(const struct kind_case *kc, const struct flat_machine *fm,
			unsigned int n, struct kind_answer *out)
{
	double demand[KIND_MAX_LINES], copies[KIND_MAX_LINES], visits[KIND_MAX_LINES];
	double lo = 0, hi = 20, x = 0, think;
	int line_of[KIND_MAX_LINES];
	unsigned int nr, cas = KIND_MAX_LINES, pop;

	for (unsigned int i = 0; i < kc->nr_lines; i++)
		if (kc->lines[i].cas > 0)
			cas = i;
	/*
	 * A cmpxchg fails when the line left between its load and its
	 * attempt: the chance another took it, min(U, 0.95) (k - 1) / k, at
	 * most the handoffs per attempt; r = f / (1 - f) retries per
	 * success, and U grows with r: g(r) = f(r) / (1 - f(r)) - r falls
	 * through 0 once.
	 */
	for (int it = 0; it < 200; it++) {
		double r = cas < KIND_MAX_LINES ? (lo + hi) / 2 : 0, f = 0;

		x = kind_network(kc, fm, n, r, demand, copies, visits, line_of, &nr, &think, &pop);
		if (x < 0)
			return false;
		for (unsigned int k = 0; k < nr; k++) {
			unsigned int sharers = kc->lines[line_of[k]].shared_by == LINE_SHARED_BY_ALL ?
					       n : kc->lines[line_of[k]].group_size;
			double v = visits[k] / fmin(1, kc->lines[line_of[k]].locked +
						      kc->lines[line_of[k]].cas +
						      kc->lines[line_of[k]].stores +
						      (kc->lines[line_of[k]].shared_by ==
						       LINE_SHARED_BY_ALL ? kc->lines[line_of[k]].reads : 0));

			if ((unsigned int)line_of[k] != cas)
				continue;
			sharers = sharers < n ? sharers : n;
			f = fmin(fmin(x * demand[k] / copies[k], 0.95) * (sharers - 1) / sharers, v);
		}
		out->retries = r;
		if (cas == KIND_MAX_LINES)
			break;
		if (f / (1 - f) > r)
			lo = r;
		else
			hi = r;
	}
	out->ns = pop / x;
	out->think = think;
	out->bottleneck = -1;
	out->busy = 0;
	for (unsigned int k = 0; k < nr; k++) {
		double u = x * demand[k] / copies[k];

		if (out->bottleneck < 0 || u > out->busy) {
			out->bottleneck = line_of[k];
			out->busy = u;
		}
	}
	return true;
}

static void check_kinds(struct machine_profile *m, const struct flat_machine *fm, unsigned int n,
			double private_ns, double private_ghz, const char *what)
{
	struct kernel_config cfg = { .nr_threads = n };
	struct model_prediction p;
	struct kind_answer want;
	char err[512];

	for (cfg.variant = 0; cfg.variant < NR_KIND_CASES; cfg.variant++) {
		const struct kind_case *kc = &kind_cases[cfg.variant];

		if (!kind_oracle(kc, fm, n, &want))
			continue;
		memset(&p, 0x5a, sizeof(p));
		if (want.think <= 0 && want.bottleneck < 0) {
			/* no private cost and no line to queue at: nothing to predict */
			assert_int_equal(model_predict(m, &kinds_family, &cfg, private_ns, private_ghz,
						       NULL, &p, err, sizeof(err)), -1);
			assert_non_null(strstr(err, "nothing to predict"));
			continue;
		}
		if (model_predict(m, &kinds_family, &cfg, private_ns, private_ghz, NULL, &p, err,
				  sizeof(err)))
			fail_msg("%s, %s at %u threads: %s", what, kc->name, n, err);
		if (fabs(p.ns_per_op - want.ns) > 1e-7 * want.ns ||
		    fabs(p.retries - want.retries) > 1e-6 ||
		    fabs(p.private_ns - want.think) > 1e-9 * want.think)
			fail_msg("%s, %s at %u threads: %.9g ns/op, %.6g retries, %.9g private; by hand %.9g, %.6g, %.9g",
				 what, kc->name, n, p.ns_per_op, p.retries, p.private_ns, want.ns,
				 want.retries, want.think);
		assert_int_equal(p.nr_threads, n);
		assert_float_equal(p.ops_per_s, n * 1e9 / want.ns, 1e-7 * p.ops_per_s);
		assert_float_equal(p.ops_per_s * p.ns_per_op, n * 1e9, 1e-12 * n * 1e9);
		if (want.bottleneck < 0) {
			if (p.bottleneck)
				fail_msg("%s, %s at %u threads: bottleneck %s, none by hand", what,
					 kc->name, n, p.bottleneck);
			assert_float_equal(p.busy, 0, 0);
			assert_float_equal(p.transfer_ns, 0, 0);
			continue;
		}
		if (!p.bottleneck || strcmp(p.bottleneck, kc->lines[want.bottleneck].line))
			fail_msg("%s, %s at %u threads: bottleneck %s, by hand %s", what, kc->name, n,
				 p.bottleneck ? p.bottleneck : "none", kc->lines[want.bottleneck].line);
		assert_float_equal(p.busy, want.busy, 1e-7);
		assert_float_equal(p.transfer_ns, fm->l, 1e-9 * fm->l);
		assert_float_equal(p.handoff_ns, fm->l, 1e-9 * fm->l);
		assert_float_equal(p.local_handoffs, 0, 0);
		assert_float_equal(p.waiters_ns, 0, 0);
	}
}

static void test_kinds_by_hand(void **state)
{
	static const char two[] = "{\"name\": \"two\", \"topology\": \"pack:1 core:2 pu:1\", "
		"\"clock_ghz\": {\"value\": 2.45, \"source\": \"s\"}, "
		"\"store_buffer\": {\"value\": 64, \"source\": \"s\"}, "
		"\"one_way_ns\": {\"package\": {\"value\": 43.2, \"source\": \"s\"}}}";
	static const char four[] = "{\"name\": \"four\", \"topology\": \"pack:1 core:4 pu:1\", "
		"\"clock_ghz\": {\"value\": 2.45, \"source\": \"s\"}, "
		"\"store_buffer\": {\"value\": 64, \"source\": \"s\"}, "
		"\"one_way_ns\": {\"package\": {\"value\": 43.2, \"source\": \"s\"}}}";
	/* no private work at all, a tight loop, a long private cost */
	const double zs[] = { 0, 0.7, 30, 2000 };
	struct machine_profile m2, m4;
	char err[512], what[128];

	(void)state;
	for (size_t i = 0; i < NR_KIND_CASES; i++)
		kinds_variants[i].name = kind_cases[i].name;
	assert_int_equal(profile_from_text(two, &m2, err, sizeof(err)), 0);
	assert_int_equal(profile_from_text(four, &m4, err, sizeof(err)), 0);
	for (int shares = 0; shares < 2; shares++) {
		for (size_t i = 0; i < sizeof(zs) / sizeof(zs[0]); i++) {
			struct flat_machine fm = {
				.l = 43.2, .cold = 43.2, .entries = 64, .z = zs[i],
				.share = { shares ? 0.033 : 0, shares ? 0.39 : 0 },
			};

			for (int k = 0; k < 2; k++) {
				m2.tenure_share[k] = m4.tenure_share[k] = fm.share[k];
			}
			snprintf(what, sizeof(what), "Z %g, shares %g/%g", zs[i], fm.share[0],
				 fm.share[1]);
			check_kinds(&m2, &fm, 2, zs[i], 0, what);
			check_kinds(&m2, &fm, 1, zs[i], 0, what);
			check_kinds(&m4, &fm, 4, zs[i], 0, what);
			check_kinds(&m4, &fm, 3, zs[i], 0, what);
		}
	}
	/*
	 * Scaled and moved: a cost measured at 4.9 GHz takes twice as long on
	 * this 2.45 GHz machine; no store buffer; a measured cold miss, then
	 * a cold share; half the threads' lines homed on another node, 40 ns
	 * further, on every transfer and cold miss alike.
	 */
	{
		struct flat_machine fm = { .l = 43.2, .cold = 43.2, .entries = 0, .z = 60,
					   .share = { 0.2, 0.5 } };

		m4.store_buffer = m2.store_buffer = 0;
		for (int k = 0; k < 2; k++)
			m2.tenure_share[k] = m4.tenure_share[k] = fm.share[k];
		check_kinds(&m2, &fm, 2, 30, 4.9, "30 ns at 4.9 GHz, no store buffer");
		m4.cold_miss_ns[DISTANCE_PACKAGE] = fm.cold = 17;
		check_kinds(&m4, &fm, 4, 30, 4.9, "a cold miss of 17 ns");
		m4.cold_share = 0.25;
		fm.cold = 0.25 * 43.2;
		check_kinds(&m4, &fm, 4, 30, 4.9, "a cold share of 0.25");
		m4.remote_home_ns = 40;
		m4.home_away = 0.5;
		fm.l = 43.2 + 20;
		fm.cold = 0.25 * 43.2 + 20;
		check_kinds(&m4, &fm, 4, 30, 4.9, "half the homes 40 ns away");
		/* a clock unknown on either side: not scaled */
		fm.z = 30;
		check_kinds(&m4, &fm, 2, 30, 0, "a cost measured on this clock");
		check_kinds(&m4, &fm, 3, 30, -1, "a cost at an unknown clock");
		m4.clock_ghz = 0;
		check_kinds(&m4, &fm, 3, 30, 4.9, "a machine of unknown clock");
	}
	machine_profile_close(&m2);
	machine_profile_close(&m4);
}

/*
 * Domain first, by hand, where the two caches' transfers are close (an
 * L3 98 ns, between the two L3s 100 ns): for each placement, the
 * all-pairs mean from its ordered pairs, and, where the model takes
 * handoffs within a domain, m = min(waiting x local peers / (sharers -
 * 1), cross / (2 local)) of them, the handoff cross / (1 + m); waiting
 * is the requesters at the line beyond the one served, n - n Z / cycle -
 * U for one line. Placements: three cores of one L3 and one of the other
 * (as many pairs within as between: a sum of pairs that cancels is still
 * a sum), two and one, two and two; an L3 of 0.8 ns, and both under a
 * nanosecond (still a domain); private costs from saturation to nearly idle.
 */
static void check_domain_first(struct machine_profile *m, const char *cpus, unsigned int n,
			       unsigned int local_pairs, double local, double cross, bool *within,
			       bool *under_one)
{
	const double all = (local_pairs * local + (n * (n - 1) - local_pairs) * cross) /
			   (n * (n - 1));
	const double zs[] = { 0.01, 0.3, 1, 30, 100, 200, 280, 300, 350, 400, 600, 1000, 100000 };
	/* a locked add, and a cmpxchg loop whose retries move with the handoff */
	static const char *const lines[][2] = {
		{ "counter", "shared_atomic" }, { "last_nidpid", "cmpxchg_loop" },
	};
	struct kernel_config cfg;
	char err[512];

	for (size_t i = 0; i < 2 * sizeof(zs) / sizeof(zs[0]); i++) {
		const struct kernel_family *f = catalog_find(lines[i % 2][0]);
		struct model_prediction p;
		double waiting, m_hand;

		kernel_config_defaults(f, &cfg);
		cfg.variant = (unsigned int)catalog_variant_index(f, lines[i % 2][1]);
		cfg.nr_threads = n;
		if (model_predict(m, f, &cfg, zs[i / 2], 0, cpus, &p, err, sizeof(err)))
			fail_msg("%s/%s, %s, Z %g: %s", f->name, lines[i % 2][1], cpus, zs[i / 2], err);
		assert_float_equal(p.transfer_ns, all, 1e-9 * all);
		waiting = n - n * zs[i / 2] / p.ns_per_op - p.busy;
		m_hand = fmin(waiting * (local_pairs / (double)n) / (n - 1), cross / (2 * local));
		if (p.local_handoffs > 0) {
			*within = true;
			*under_one |= waiting < 1;
			/* the handoff on its fixed point, to the model's 1e-6 */
			if (fabs(p.local_handoffs - m_hand) > 1e-5 * m_hand ||
			    fabs(p.handoff_ns - cross / (1 + m_hand)) > 2e-6 * cross)
				fail_msg("%s/%s, %s, Z %g: %.6g local handoffs, %.6g ns a handoff; by hand %.6g and %.6g",
					 f->name, lines[i % 2][1], cpus, zs[i / 2], p.local_handoffs,
					 p.handoff_ns, m_hand, cross / (1 + m_hand));
		} else {
			/* first come, first served: nobody waits, or it is as short */
			assert_float_equal(p.handoff_ns, all, 1e-9 * all);
			if (waiting > 1e-6 && cross / (1 + m_hand) < all * (1 - 1e-6))
				fail_msg("%s/%s, %s, Z %g: no handoff within a domain, though %.4g wait",
					 f->name, lines[i % 2][1], cpus, zs[i / 2], waiting);
		}
	}
}

static void test_domain_first_by_hand(void **state)
{
	static const char near[] = "{\"name\": \"near\", \"topology\": \"pack:1 l3:2 core:4 pu:1\", "
		"\"clock_ghz\": {\"value\": 2, \"source\": \"s\"}, "
		"\"store_buffer\": {\"value\": 0, \"source\": \"s\"}, "
		"\"one_way_ns\": {\"l3\": {\"value\": 98, \"source\": \"s\"}, "
		"\"package\": {\"value\": 100, \"source\": \"s\"}}}";
	static const char fast[] = "{\"name\": \"fast\", \"topology\": \"pack:1 l3:2 core:4 pu:1\", "
		"\"clock_ghz\": {\"value\": 2, \"source\": \"s\"}, "
		"\"store_buffer\": {\"value\": 0, \"source\": \"s\"}, "
		"\"one_way_ns\": {\"l3\": {\"value\": 0.8, \"source\": \"s\"}, "
		"\"package\": {\"value\": 100, \"source\": \"s\"}}}";
	struct machine_profile m;
	char err[512];
	bool within = false, under_one = false;

	(void)state;
	assert_int_equal(profile_from_text(near, &m, err, sizeof(err)), 0);
	check_domain_first(&m, "cpus:0,1,2,4", 4, 6, 98, 100, &within, &under_one);
	check_domain_first(&m, "cpus:0,1,4", 3, 2, 98, 100, &within, &under_one);
	check_domain_first(&m, "cpus:0,1,4,5", 4, 4, 98, 100, &within, &under_one);
	check_domain_first(&m, "compact", 8, 24, 98, 100, &within, &under_one);
	/* with a measured tenure (3 threads, 300 ns: once "no solution") */
	m.tenure_share[1] = 0.4;
	m.one_way_ns[DISTANCE_L3] = 40;
	m.nr_cached = 0;
	check_domain_first(&m, "cpus:0,1,4", 3, 2, 40, 100, &within, &under_one);
	check_domain_first(&m, "cpus:0,1,2,4", 4, 6, 40, 100, &within, &under_one);
	machine_profile_close(&m);
	assert_int_equal(profile_from_text(fast, &m, err, sizeof(err)), 0);
	check_domain_first(&m, "cpus:0,1,4", 3, 2, 0.8, 100, &within, &under_one);
	check_domain_first(&m, "cpus:0,4,5,6", 4, 6, 0.8, 100, &within, &under_one);
	/* both under a nanosecond */
	m.one_way_ns[DISTANCE_L3] = 0.3;
	m.one_way_ns[DISTANCE_PACKAGE] = 0.9;
	m.nr_cached = 0;
	check_domain_first(&m, "cpus:0,1,4", 3, 2, 0.3, 0.9, &within, &under_one);
	check_domain_first(&m, "cpus:0,1,2,4", 4, 6, 0.3, 0.9, &within, &under_one);
	machine_profile_close(&m);
	/* both regimes were seen, and handoffs within a domain with less than one waiting */
	assert_true(within && under_one);
}

/*
 * A class the placement uses and the profile gives no latency for is an
 * error naming it; a latency, a cold miss or a remote home under a
 * nanosecond is a number like any other.
 */
static void test_small_and_missing_latencies(void **state)
{
	static const char holes[] = "{\"name\": \"holes\", \"topology\": \"pack:2 core:2 pu:1\", "
		"\"clock_ghz\": {\"value\": 2, \"source\": \"s\"}, "
		"\"store_buffer\": {\"value\": 0, \"source\": \"s\"}, "
		"\"one_way_ns\": {\"package\": {\"value\": 0.5, \"source\": \"s\"}}}";
	struct machine_profile m;
	struct model_prediction p;
	char err[512];

	(void)state;
	assert_int_equal(profile_from_text(holes, &m, err, sizeof(err)), 0);
	predict(&m, "pingpong", "store_load", NULL, 0, 2, &p);
	assert_float_equal(p.ns_per_op, 1, 1e-12);
	memset(&p, 0x5a, sizeof(p));
	assert_int_equal(model_predict_case(&m, "counter", "shared_atomic", 0, NULL, NULL, 4, 30, 0,
					    &p, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "no one-way latency for class cross_package"));
	assert_int_equal(model_predict_case(&m, "has_pinned", "no_flag", 0, NULL, NULL, 3, 30, 0,
					    &p, err, sizeof(err)), -1);
	/* a cold miss of a quarter nanosecond (the transfer takes half), homes 0.8 ns away */
	m.cold_miss_ns[DISTANCE_PACKAGE] = 0.25;
	predict(&m, "has_pinned", "no_flag", "already_set", 0, 2, &p);
	assert_float_equal(p.ns_per_op, 30 + 0.25, 1e-9);
	m.remote_home_ns = 0.8;
	m.home_away = 1;
	predict(&m, "has_pinned", "no_flag", "already_set", 0, 2, &p);
	assert_float_equal(p.ns_per_op, 30 + 0.25 + 0.8, 1e-9);
	predict(&m, "pingpong", "store_load", NULL, 0, 2, &p);
	assert_float_equal(p.ns_per_op, 2 * (0.5 + 0.8), 1e-12);
	/* a placement the topology cannot make: refused, by its name */
	assert_int_equal(model_predict(&m, catalog_find("counter"), &(struct kernel_config){
					       .nr_threads = 2 }, 30, 0, "nowhere", &p, err, sizeof(err)),
			 -1);
	assert_non_null(strstr(err, "nowhere"));
	/* a private cost that is no cost: the network has no solution, said so */
	{
		const double bad[] = { -5, INFINITY, NAN };

		for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			assert_int_equal(model_predict_case(&m, "pingpong", "store_load", 0, NULL, NULL, 2,
							    0, 0, &p, err, sizeof(err)), 0);
			assert_int_equal(model_predict_case(&m, "counter", "shared_atomic", 0, NULL, NULL,
							    2, bad[i], 0, &p, err, sizeof(err)), -1);
			assert_non_null(strstr(err, "the network has no solution"));
		}
	}
	/* two threads on one CPU: the line never moves, nothing to queue at */
	{
		const struct kernel_family *f = catalog_find("counter");
		struct kernel_config cfg;

		kernel_config_defaults(f, &cfg);
		cfg.variant = (unsigned int)catalog_variant_index(f, "shared_atomic");
		cfg.nr_threads = 2;
		memset(&p, 0x5a, sizeof(p));
		assert_int_equal(model_predict(&m, f, &cfg, 30, 0, "cpus:0,0", &p, err, sizeof(err)),
				 0);
	}
	assert_null(p.bottleneck);
	assert_float_equal(p.ns_per_op, 30, 1e-12);
	machine_profile_close(&m);
}

/*
 * The model has no time scale of its own: every latency and the private
 * cost k times longer make every ns/op k times longer, and leave the
 * shares (busy, retries, handoffs within a domain) as they were. Checked
 * from a nanosecond's millionth to a millisecond, where a tolerance taken
 * in ns rather than relative to the number would show.
 */
static void scale_machine(struct machine_profile *m, double k)
{
	for (int c = 0; c < NR_DISTANCE_CLASSES; c++) {
		m->one_way_ns[c] *= k;
		m->cold_miss_ns[c] *= k;
	}
	m->remote_home_ns *= k;
	m->waiter_ns *= k;
}

static void check_scale_free(struct machine_profile *m, const struct kernel_family *f,
			     const struct kernel_config *cfg, double z, const char *policy)
{
	static const double ks[] = { 1e-6, 1e6 };
	struct model_prediction one, scaled;
	char err[512];

	if (model_predict(m, f, cfg, z, 0, policy, &one, err, sizeof(err)))
		fail_msg("%s/%s: %s", f->name, f->variants[cfg->variant].name, err);
	for (size_t i = 0; i < sizeof(ks) / sizeof(ks[0]); i++) {
		scale_machine(m, ks[i]);
		m->nr_cached = 0;
		if (model_predict(m, f, cfg, z * ks[i], 0, policy, &scaled, err, sizeof(err)))
			fail_msg("%s/%s, times %g: %s", f->name, f->variants[cfg->variant].name, ks[i],
				 err);
		scale_machine(m, 1 / ks[i]);
		if (fabs(scaled.ns_per_op - ks[i] * one.ns_per_op) > 1e-6 * ks[i] * one.ns_per_op ||
		    fabs(scaled.retries - one.retries) > 1e-6 * (1 + one.retries) ||
		    fabs(scaled.busy - one.busy) > 1e-6 ||
		    fabs(scaled.local_handoffs - one.local_handoffs) > 1e-4 * (1 + one.local_handoffs) ||
		    fabs(scaled.handoff_ns - ks[i] * one.handoff_ns) > 1e-4 * ks[i] * one.handoff_ns)
			fail_msg("%s/%s at %u threads (%s), Z %g, times %g: %.9g ns/op, %.6g retries, %.6g busy, %.6g local; unscaled %.9g, %.6g, %.6g, %.6g",
				 f->name, f->variants[cfg->variant].name, cfg->nr_threads, policy, z,
				 ks[i], scaled.ns_per_op / ks[i], scaled.retries, scaled.busy,
				 scaled.local_handoffs, one.ns_per_op, one.retries, one.busy,
				 one.local_handoffs);
	}
}

static void test_scale_free(void **state)
{
	static const char near[] = "{\"name\": \"near\", \"topology\": \"pack:1 l3:2 core:4 pu:1\", "
		"\"clock_ghz\": {\"value\": 2, \"source\": \"s\"}, "
		"\"store_buffer\": {\"value\": 64, \"source\": \"s\"}, "
		"\"waiter_ns\": {\"value\": 0.5, \"source\": \"s\"}, "
		"\"one_way_ns\": {\"l3\": {\"value\": 40, \"source\": \"s\"}, "
		"\"package\": {\"value\": 100, \"source\": \"s\"}}}";
	static const char *const cpus[] = { "compact", "cpus:0,1,2,4", "cpus:0,1,4" };
	static const unsigned int nr_cpus[] = { 8, 4, 3 };
	const double zs[] = { 1, 30, 300 };
	struct machine_profile m;
	struct kernel_config cfg;
	char err[512];

	(void)state;
	for (size_t i = 0; i < NR_KIND_CASES; i++)
		kinds_variants[i].name = kind_cases[i].name;
	assert_int_equal(profile_from_text(near, &m, err, sizeof(err)), 0);
	m.tenure_share[0] = 0.1;
	m.tenure_share[1] = 0.4;
	for (size_t p = 0; p < sizeof(cpus) / sizeof(cpus[0]); p++) {
		for (size_t i = 0; i < sizeof(zs) / sizeof(zs[0]); i++) {
			cfg = (struct kernel_config){ .nr_threads = nr_cpus[p] };
			for (cfg.variant = 0; cfg.variant < NR_KIND_CASES; cfg.variant++)
				if (kind_cases[cfg.variant].nr_lines)
					check_scale_free(&m, &kinds_family, &cfg, zs[i], cpus[p]);
			for (unsigned int c = 0; c < catalog_size; c++) {
				const struct kernel_family *f = catalog[c];

				if (!f->access || f->spins)
					continue;
				kernel_config_defaults(f, &cfg);
				cfg.nr_threads = nr_cpus[p];
				if ((f->min_threads && cfg.nr_threads < f->min_threads) ||
				    (f->max_threads && cfg.nr_threads > f->max_threads))
					continue;
				for (cfg.variant = 0; cfg.variant < f->nr_variants; cfg.variant++)
					check_scale_free(&m, f, &cfg, zs[i], cpus[p]);
			}
		}
	}
	machine_profile_close(&m);
}

/*
 * A share measured above 1 (a run's noise) is the whole tenure: the same
 * prediction as a share of 1, for locked ops and for plain stores alike.
 */
static void test_tenure_share_above_one(void **state)
{
	static const char guest[] = "{\"name\": \"guest\", \"topology\": \"pack:1 core:2 pu:1\", "
		"\"clock_ghz\": {\"value\": 2.45, \"source\": \"s\"}, "
		"\"store_buffer\": {\"value\": 64, \"source\": \"s\"}, "
		"\"one_way_ns\": {\"package\": {\"value\": 43.2, \"source\": \"s\"}}}";
	static const char *const variants[] = { "shared_atomic", "shared_plain" };
	struct machine_profile m;
	struct model_prediction whole, above;
	char err[512];

	(void)state;
	assert_int_equal(profile_from_text(guest, &m, err, sizeof(err)), 0);
	for (size_t i = 0; i < 2; i++) {
		m.tenure_share[0] = m.tenure_share[1] = 1;
		assert_int_equal(model_predict_case(&m, "counter", variants[i], 0, NULL, NULL, 2, 3, 0,
						    &whole, err, sizeof(err)), 0);
		m.tenure_share[0] = m.tenure_share[1] = 1.5;
		assert_int_equal(model_predict_case(&m, "counter", variants[i], 0, NULL, NULL, 2, 3, 0,
						    &above, err, sizeof(err)), 0);
		assert_float_equal(above.ns_per_op, whole.ns_per_op, 1e-12 * whole.ns_per_op);
	}
	machine_profile_close(&m);
}


int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_server_no_think),
		cmocka_unit_test(test_delay_and_queue),
		cmocka_unit_test(test_copies),
		cmocka_unit_test(test_bad_networks),
		cmocka_unit_test(test_most_centres),
		cmocka_unit_test(test_profile_bad_input),
		cmocka_unit_test(test_bottleneck),
		cmocka_unit_test(test_profile_reaches_the_model),
		cmocka_unit_test(test_busiest_line_is_the_bottleneck),
		cmocka_unit_test(test_shipped_profiles),
		cmocka_unit_test(test_tenure_by_visit_rate),
		cmocka_unit_test(test_domain_first),
		cmocka_unit_test(test_pairs_by_thread_count),
		cmocka_unit_test(test_domain_first_false_sharing),
		cmocka_unit_test(test_settles_near_saturation),
		cmocka_unit_test(test_against_measurements),
		cmocka_unit_test(test_tenure_share),
		cmocka_unit_test(test_waiters),
		cmocka_unit_test(test_against_zen3),
		cmocka_unit_test(test_cold_miss),
		cmocka_unit_test(test_thp_heads),
		cmocka_unit_test(test_store_buffer_table),
		cmocka_unit_test(test_mixed_lines),
		cmocka_unit_test(test_profile_ranges),
		cmocka_unit_test(test_profile_fields_reach_the_machine),
		cmocka_unit_test(test_shipped_profile_by_name),
		cmocka_unit_test(test_this_clock),
		cmocka_unit_test(test_store_buffer_vendor_first),
		cmocka_unit_test(test_machine_of_a_run),
		cmocka_unit_test(test_kinds_by_hand),
		cmocka_unit_test(test_domain_first_by_hand),
		cmocka_unit_test(test_small_and_missing_latencies),
		cmocka_unit_test(test_scale_free),
		cmocka_unit_test(test_tenure_share_above_one),
	};

	source_dir = argc > 1 ? argv[1] : ".";
	return cmocka_run_group_tests(tests, NULL, NULL);
}
