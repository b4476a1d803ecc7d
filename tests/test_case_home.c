// SPDX-License-Identifier: GPL-2.0-only
/*
 * The home a case records, through the real harness (bench_case_run under
 * Google Benchmark): a family of this test that puts its state in plain
 * memory has no home the kernel can be asked about, so the case records
 * no node and counts no thread as away (-1, null in the results); one
 * that allocates shared state records the node the kernel gives and, as
 * threads away, the placement's CPUs that the kernel's own map
 * (/sys/devices/system/cpu/cpuN/nodeM, read here) puts on another node.
 */
#include <dirent.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "config.h"
#include "harness_case.h"

struct home_state {
	char *line;	/* plain or shared memory, by variant */
	bool shared;
};

static void touch(void *state, unsigned int thread, uint64_t nr_ops)
{
	struct home_state *s = state;

	(void)nr_ops;
	/* each thread its own line of the page: the threads do not race */
	s->line[thread % 64 * 64] = 1;
}

static const struct kernel_variant home_variants[] = {
	{ .name = "plain", .models = "state in plain memory: no home", .run = touch },
	{ .name = "shared", .models = "state the harness can give a home", .run = touch },
};

static void *home_create(const struct kernel_config *cfg, char *err, size_t errlen)
{
	struct home_state *s = calloc(1, sizeof(*s));

	if (s) {
		s->shared = cfg->variant == 1;
		s->line = s->shared ? kernel_alloc_shared(4096) : calloc(1, 4096);
	}
	if (!s || !s->line) {
		free(s);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	return s;
}

static int home_verify(void *state, const struct kernel_config *cfg,
		       const uint64_t *ops, struct kernel_metrics *metrics,
		       char *msg, size_t msglen)
{
	(void)state;
	(void)cfg;
	(void)ops;
	(void)metrics;
	(void)msg;
	(void)msglen;
	return 0;
}

static void home_destroy(void *state)
{
	struct home_state *s = state;

	if (s->shared)
		kernel_free_shared(s->line);
	else
		free(s->line);
	free(s);
}

static const struct kernel_family home_family = {
	.name = "home",
	.title = "a family whose state has a home or not",
	.lesson = "test only",
	.source = "tests/test_case_home.c",
	.variants = home_variants,
	.nr_variants = 2,
	.create = home_create,
	.verify = home_verify,
	.destroy = home_destroy,
};

static unsigned int nr_errors;
static char last_error[512];

static void on_run(const struct gbench_run *run, void *arg)
{
	(void)arg;
	if (run->error_occurred) {
		fprintf(stderr, "%s: %s\n", run->function_name, run->error_message);
		snprintf(last_error, sizeof(last_error), "%s", run->error_message);
		nr_errors++;
	}
}

/* What move_pages() says of every page: -errno, or 0 for the real answer. */
static int node_error;

int __real_topo_node_of_address(const void *addr);
int __wrap_topo_node_of_address(const void *addr);

int __wrap_topo_node_of_address(const void *addr)
{
	return node_error ? node_error : __real_topo_node_of_address(addr);
}

/*
 * A case as suite.c plans one: without --home (local false), not bound;
 * with --home local, bound to thread 0's node (skipped where this machine
 * cannot bind). No node found yet.
 */
static void run_at_home(struct bench_case *c, unsigned int variant, unsigned int threads,
			bool local)
{
	char err[256];

	harness_case_init(c, &home_family, variant, threads);
	c->home_node = -1;
	c->home_found = -ENODATA;
	if (local) {
		c->home = (struct home_policy){ .kind = HOME_LOCAL, .name = "local" };
		if (topo_home_node(topo, &c->home, c->placement.cpus[0], &c->home_node, err,
				   sizeof(err)) || c->home_node < 0)
			skip();
	}
	nr_errors = 0;
	harness_run(c, 1, 1, on_run, NULL);
	assert_int_equal(nr_errors, 0);
}

static void run_one(struct bench_case *c, unsigned int variant, unsigned int threads)
{
	run_at_home(c, variant, threads, false);
}

/* The kernel's node of a CPU: the nodeM link in its sysfs directory, or -1. */
static int sysfs_node_of_cpu(int cpu)
{
	char path[64];
	struct dirent *d;
	DIR *dir;
	int node = -1;

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d", cpu);
	dir = opendir(path);
	if (!dir)
		return -1;
	while ((d = readdir(dir)))
		if (sscanf(d->d_name, "node%d", &node) == 1)
			break;
	closedir(dir);
	return node;
}

/*
 * Catches check_home()'s count of threads away running when no node was
 * found ("c->home_found >= 0 &&" turned around): with no home, each thread
 * would count as away, 0 or 1 instead of -1 here.
 */
static void plain_memory_has_no_home_and_no_threads_away(void **unused)
{
	struct bench_case c;

	(void)unused;
	for (unsigned int threads = 1; threads <= 2 && threads <= topo_nr_allowed_cpus(topo); threads++) {
		run_one(&c, 0, threads);
		assert_int_equal(c.home_found, -ENODATA);
		assert_int_equal(c.home_threads_away, -1);
	}
}

/* The threads away from the node the kernel gave, by the kernel's map. */
static void shared_memory_counts_threads_on_other_nodes(void **unused)
{
	struct bench_case c;

	(void)unused;
	for (unsigned int threads = 1; threads <= 2 && threads <= topo_nr_allowed_cpus(topo); threads++) {
		int away = 0;

		run_one(&c, 1, threads);
		if (c.home_found < 0 || !HAVE_HWLOC)
			skip();	/* no node from this kernel, or none known of a CPU */
		for (unsigned int t = 0; t < c.placement.nr_cpus; t++) {
			int node = sysfs_node_of_cpu(c.placement.cpus[t]);

			if (node < 0)
				skip();	/* no node in sysfs: hwloc knows none either */
			away += node != c.home_found;
		}
		assert_int_equal(c.home_threads_away, away);
	}
}

/*
 * Bound to thread 0's node: a family with no shared state has nothing to
 * check and runs as ever, no node found; one with shared state finds it
 * on the node it was bound to.
 */
static void a_bound_home_checks_only_what_was_allocated(void **unused)
{
	struct bench_case c;

	(void)unused;
	run_at_home(&c, 0, 1, true);
	assert_int_equal(c.home_found, -ENODATA);
	assert_int_equal(c.home_threads_away, -1);
	run_at_home(&c, 1, 1, true);
	assert_int_equal(c.home_found, c.home_node);
	assert_int_equal(c.home_threads_away, 0);
}

/*
 * Bound to a node, and the kernel answers the shared state's page with an
 * error (EFAULT) instead of a node: the case fails, naming the error by
 * its number, never a row recorded with a home it did not have.
 */
static void a_page_the_kernel_cannot_place_fails_the_case(void **unused)
{
	struct bench_case c;
	char err[256], want[128];

	(void)unused;
	harness_case_init(&c, &home_family, 1, 1);
	c.home = (struct home_policy){ .kind = HOME_LOCAL, .name = "local" };
	c.home_found = -ENODATA;
	if (topo_home_node(topo, &c.home, c.placement.cpus[0], &c.home_node, err, sizeof(err)) ||
	    c.home_node < 0)
		skip();
	nr_errors = 0;
	last_error[0] = '\0';
	node_error = -EFAULT;
	harness_run(&c, 1, 1, on_run, NULL);
	node_error = 0;
	assert_int_equal(nr_errors, 1);
	snprintf(want, sizeof(want), "asked for node %d, but the kernel says the shared state's "
		 "allocation 0 is on error %d", c.home_node, EFAULT);
	if (!strstr(last_error, want))
		fail_msg("\"%s\" does not say \"%s\"", last_error, want);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(plain_memory_has_no_home_and_no_threads_away),
		cmocka_unit_test(shared_memory_counts_threads_on_other_nodes),
		cmocka_unit_test(a_bound_home_checks_only_what_was_allocated),
		cmocka_unit_test(a_page_the_kernel_cannot_place_fails_the_case),
	};

	return harness_main(tests);
}
