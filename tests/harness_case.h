/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * For the tests that run a family of their own through the real harness
 * (bench_case_run under Google Benchmark) on this machine's topology:
 * set up a case, run cases, and a main() that opens the topology. Include
 * after cmocka.h.
 */
#ifndef BOUNCELAB_TEST_HARNESS_CASE_H
#define BOUNCELAB_TEST_HARNESS_CASE_H

#include <stdio.h>
#include <string.h>

#include "gbench.h"
#include "kernel.h"
#include "suite.h"
#include "topo.h"

static struct topo *topo;

/* A case of family f: variant, threads placed compact, named FAMILY/VARIANT. */
static void harness_case_init(struct bench_case *c, const struct kernel_family *f,
			      unsigned int variant, unsigned int threads)
{
	char err[256];

	memset(c, 0, sizeof(*c));
	c->family = f;
	c->topo = topo;
	kernel_config_defaults(f, &c->cfg);
	c->cfg.variant = variant;
	c->cfg.nr_threads = threads;
	assert_int_equal(topo_plan(topo, "compact", threads, &c->placement, err, sizeof(err)), 0);
	snprintf(c->name, sizeof(c->name), "%s/%s", f->name, f->variants[variant].name);
}

/* Runs the cases in order, iterations each; on_run sees every run. */
static void harness_run(struct bench_case *cases, unsigned int nr, uint64_t iterations,
			void (*on_run)(const struct gbench_run *run, void *arg), void *arg)
{
	struct gbench_run_callbacks cb = { on_run, arg };
	char arg0[] = "bouncelab-test";
	char *argv[] = { arg0, NULL };

	gbench_initialize(1, argv);
	for (unsigned int i = 0; i < nr; i++) {
		struct gbench_benchmark *b = gbench_register(cases[i].name, bench_case_run,
							     &cases[i]);

		if (cases[i].cfg.nr_threads > 1)
			gbench_set_threads(b, (int)cases[i].cfg.nr_threads);
		gbench_set_iterations(b, iterations);
	}
	gbench_run_all(&cb, false);
	gbench_clear();
}

/* Opens this machine's topology, runs the group, closes it. */
static int harness_main_(const char *group, const struct CMUnitTest *tests, size_t nr)
{
	char err[256];
	int ret;

	topo = topo_open(NULL, err, sizeof(err));
	if (!topo) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	ret = _cmocka_run_group_tests(group, tests, nr, NULL, NULL);
	topo_close(topo);
	return ret;
}

#define harness_main(tests)						\
	harness_main_(#tests, (tests), sizeof(tests) / sizeof((tests)[0]))

#endif
