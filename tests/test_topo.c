// SPDX-License-Identifier: GPL-2.0-only
/*
 * Topology: distance classes and every placement policy on synthetic
 * machines (a seed-like 2 x 64 x 2 with NUMA distances 10/32, a Zen-like
 * one with several L3s and NUMA nodes per package, and a clustered-L2 one
 * without SMT); other machines' XML files (tests/data/topo/: KNL's
 * MCDRAM, hybrid CPU kinds, 1-based and bandwidth matrices, one under
 * HWLOC_THISSYSTEM=1); refused policies; binding on this machine, checked
 * with sched_getcpu(); and the suite's placement rules.
 */
#include <errno.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "config.h"
#include "latency.h"
#include "suite.h"
#include "topo.h"
#include "cases.h"

#if HAVE_HWLOC
#include <hwloc.h>

/*
 * The seed's machine (seeds/000): 256 CPUs, 2 nodes at distances 10/32,
 * SMT siblings numbered i and i + 128 as Linux numbers them.
 */
#define SEED_LIKE "pack:2 numa:1 l3:1 core:64 pu:2(indexes=2*128:1*2)"
/* EPYC-like, NPS4: 4 nodes per package, 2 CCXs (L3) of 4 cores per node. */
#define ZEN_LIKE "pack:2 numa:4 l3:2 l2:4 core:1 pu:2"
/* Clusters of 4 cores sharing an L2, no SMT (E-core modules). */
#define CLUSTERED "pack:2 numa:1 l3:1 l2:2 core:4 pu:1"

static struct topo *open_or_fail(const char *spec)
{
	char err[256];
	struct topo *topo = topo_open(spec, err, sizeof(err));

	if (!topo)
		fail_msg("topo_open(%s): %s", spec ? spec : "this system", err);
	return topo;
}

static struct topo *open_seed_like(void)
{
	static const uint64_t slit[] = { 10, 32, 32, 10 };
	struct topo *topo = open_or_fail(SEED_LIKE);
	char err[256];

	assert_int_equal(topo_set_numa_distances(topo, 4, slit, err, sizeof(err)), 0);
	return topo;
}

static struct topo *open_zen_like(void)
{
	uint64_t slit[64];
	struct topo *topo = open_or_fail(ZEN_LIKE);
	char err[256];

	/* 10 local, 12 another node of the package, 32 the other package. */
	for (unsigned int i = 0; i < 8; i++)
		for (unsigned int j = 0; j < 8; j++)
			slit[i * 8 + j] = i == j ? 10 : i / 4 == j / 4 ? 12 : 32;
	assert_int_equal(topo_set_numa_distances(topo, 64, slit, err, sizeof(err)), 0);
	return topo;
}

static void plan_ok(const struct topo *topo, const char *policy,
		    unsigned int threads, struct placement *pl)
{
	char err[512];

	if (topo_plan(topo, policy, threads, pl, err, sizeof(err)))
		fail_msg("%s with %u threads: %s", policy, threads, err);
	assert_int_equal(pl->nr_cpus, threads);
	assert_string_equal(pl->policy, policy);
}

static void assert_cpus(const struct placement *pl, const int *want,
			unsigned int n)
{
	assert_int_equal(pl->nr_cpus, n);
	for (unsigned int i = 0; i < n; i++)
		if (pl->cpus[i] != want[i])
			fail_msg("%s: thread %u on CPU %d, expected %d", pl->policy,
				 i, pl->cpus[i], want[i]);
}

/* Refused, with the given kind and a message containing `needle`. */
static void plan_refused(const struct topo *topo, const char *policy,
			 unsigned int threads, int kind, const char *needle)
{
	struct placement pl;
	char err[512] = "";
	int ret = topo_plan(topo, policy, threads, &pl, err, sizeof(err));

	if (ret != kind)
		fail_msg("%s with %u threads: returned %d, expected %d (%s)",
			 policy, threads, ret, kind, err);
	if (!strstr(err, needle))
		fail_msg("%s: message '%s' lacks '%s'", policy, err, needle);
}

static void seed_like_classes(void **unused)
{
	struct topo *topo = open_seed_like();
	struct topo_class_example ex[NR_DISTANCE_CLASSES];
	char present[256];

	(void)unused;
	assert_false(topo_is_this_system(topo));
	assert_int_equal(topo_nr_allowed_cpus(topo), 256);
	assert_int_equal(topo_classify(topo, 5, 5), DISTANCE_SAME_PU);
	assert_int_equal(topo_classify(topo, 0, 128), DISTANCE_SMT);
	assert_int_equal(topo_classify(topo, 191, 63), DISTANCE_SMT);
	assert_int_equal(topo_classify(topo, 0, 1), DISTANCE_L3);
	assert_int_equal(topo_classify(topo, 0, 191), DISTANCE_L3);
	assert_int_equal(topo_classify(topo, 0, 64), DISTANCE_CROSS_PACKAGE);
	assert_int_equal(topo_classify(topo, 200, 3), DISTANCE_CROSS_PACKAGE);
	assert_int_equal(topo_classify(topo, 0, 256), DISTANCE_UNKNOWN);
	for (int a = 0; a < 256; a += 37)
		for (int b = 0; b < 256; b += 29)
			assert_int_equal(topo_classify(topo, a, b), topo_classify(topo, b, a));
	assert_int_equal(topo_numa_distance(topo, 0, 128), 10);
	assert_int_equal(topo_numa_distance(topo, 0, 64), 32);
	assert_int_equal(topo_numa_distance(topo, 192, 64), 10);
	assert_int_equal(topo_nr_numa_nodes(topo), 2);
	assert_int_equal(topo_numa_node_distance(topo, 1, 0), 32);

	assert_int_equal(topo_classes_present(topo, ex), 4);
	assert_int_equal(ex[DISTANCE_SMT].cpu_a, 0);
	assert_int_equal(ex[DISTANCE_SMT].cpu_b, 128);
	assert_int_equal(ex[DISTANCE_CROSS_PACKAGE].numa_distance, 32);
	assert_true(ex[DISTANCE_NUMA].cpu_a < 0);
	assert_true(ex[DISTANCE_L2].cpu_a < 0);
	topo_format_classes_present(topo, present, sizeof(present));
	assert_string_equal(present, "same_pu, smt, l3, cross_package");
	topo_close(topo);
}

static void seed_like_policies(void **unused)
{
	struct topo *topo = open_seed_like();
	static struct placement pl;

	(void)unused;
	plan_ok(topo, "compact", 4, &pl);
	assert_cpus(&pl, (int[]){ 0, 128, 1, 129 }, 4);
	assert_int_equal(pl.widest, DISTANCE_L3);
	assert_int_equal(pl.numa_distance, 10);

	plan_ok(topo, "spread", 2, &pl);
	assert_cpus(&pl, (int[]){ 0, 64 }, 2);
	assert_int_equal(pl.widest, DISTANCE_CROSS_PACKAGE);
	assert_int_equal(pl.numa_distance, 32);
	plan_ok(topo, "spread", 4, &pl);
	assert_cpus(&pl, (int[]){ 0, 64, 1, 65 }, 4);
	/* Every core gets a thread before any core gets two. */
	plan_ok(topo, "spread", 129, &pl);
	for (unsigned int t = 0; t < 128; t++)
		assert_true(pl.cpus[t] < 128);
	assert_int_equal(pl.cpus[128], 128);

	plan_ok(topo, "cores", 3, &pl);
	assert_cpus(&pl, (int[]){ 0, 1, 2 }, 3);
	assert_int_equal(pl.widest, DISTANCE_L3);
	plan_ok(topo, "cores", 128, &pl);
	for (unsigned int i = 0; i < 128; i++)
		for (unsigned int j = i + 1; j < 128; j++)
			assert_int_not_equal(topo_classify(topo, pl.cpus[i], pl.cpus[j]),
					     DISTANCE_SMT);
	plan_refused(topo, "cores", 129, TOPO_PLAN_BAD_THREADS, "only 128 cores");

	plan_ok(topo, "pair:smt", 2, &pl);
	assert_cpus(&pl, (int[]){ 0, 128 }, 2);
	assert_int_equal(pl.widest, DISTANCE_SMT);
	plan_ok(topo, "pair:l3", 2, &pl);
	assert_cpus(&pl, (int[]){ 0, 1 }, 2);
	plan_ok(topo, "pair:cross_package", 2, &pl);
	assert_cpus(&pl, (int[]){ 0, 64 }, 2);
	assert_int_equal(pl.numa_distance, 32);
	plan_ok(topo, "pair:same_pu", 2, &pl);
	assert_cpus(&pl, (int[]){ 0, 0 }, 2);
	assert_true(placement_shares_cpu(&pl));
	plan_refused(topo, "pair:numa", 2, TOPO_PLAN_BAD_POLICY,
		     "classes present: same_pu, smt, l3, cross_package");
	plan_refused(topo, "pair:l2", 2, TOPO_PLAN_BAD_POLICY, "l2 apart");
	plan_refused(topo, "pair:smt", 3, TOPO_PLAN_BAD_THREADS, "exactly 2 threads");

	plan_ok(topo, "cpus:0,64,128", 3, &pl);
	assert_cpus(&pl, (int[]){ 0, 64, 128 }, 3);
	assert_int_equal(pl.widest, DISTANCE_CROSS_PACKAGE);
	plan_ok(topo, "cpus:4-7,200", 2, &pl);
	assert_cpus(&pl, (int[]){ 4, 5 }, 2);
	assert_int_equal(topo_policy_default_threads(topo, "cpus:4-7,200"), 5);
	assert_int_equal(topo_policy_default_threads(topo, "pair:smt"), 2);
	assert_int_equal(topo_policy_default_threads(topo, "cores"), 128);
	assert_int_equal(topo_policy_default_threads(topo, "spread"), 256);
	plan_refused(topo, "cpus:0,1", 3, TOPO_PLAN_BAD_THREADS, "too few for 3 threads");
	plan_refused(topo, "cpus:0,256", 2, TOPO_PLAN_BAD_POLICY,
		     "CPU 256 is not one this process may use (allowed: 0-255)");
	topo_close(topo);
}

static void zen_like_classes_and_policies(void **unused)
{
	struct topo *topo = open_zen_like();
	struct topo_class_example ex[NR_DISTANCE_CLASSES];
	static struct placement pl;
	bool node_used[8] = { false };

	(void)unused;
	assert_int_equal(topo_nr_allowed_cpus(topo), 128);
	assert_int_equal(topo_classify(topo, 0, 1), DISTANCE_SMT);
	assert_int_equal(topo_classify(topo, 0, 2), DISTANCE_L3);
	assert_int_equal(topo_classify(topo, 0, 8), DISTANCE_PACKAGE);
	assert_int_equal(topo_classify(topo, 0, 16), DISTANCE_NUMA);
	assert_int_equal(topo_classify(topo, 0, 64), DISTANCE_CROSS_PACKAGE);
	assert_int_equal(topo_numa_distance(topo, 0, 16), 12);
	assert_int_equal(topo_numa_distance(topo, 0, 8), 10);
	assert_int_equal(topo_numa_distance(topo, 0, 127), 32);
	/* Every class but l2: each core has an L2 of its own. */
	assert_int_equal(topo_classes_present(topo, ex), 6);
	assert_true(ex[DISTANCE_L2].cpu_a < 0);

	/* spread: packages first, then every NUMA node, then every L3. */
	plan_ok(topo, "spread", 8, &pl);
	assert_int_equal(topo_classify(topo, pl.cpus[0], pl.cpus[1]),
			 DISTANCE_CROSS_PACKAGE);
	for (unsigned int t = 0; t < 8; t++) {
		int node = topo_numa_node_of(topo, pl.cpus[t]);

		assert_true(node >= 0 && node < 8);
		assert_false(node_used[node]);
		node_used[node] = true;
	}
	assert_int_equal(pl.numa_distance, 32);
	plan_ok(topo, "spread", 16, &pl);
	for (unsigned int i = 0; i < 16; i++)
		for (unsigned int j = i + 1; j < 16; j++)
			assert_true(topo_classify(topo, pl.cpus[i], pl.cpus[j]) >
				    DISTANCE_L3);

	/* compact fills one L3 (4 cores x 2 PUs) before leaving it. */
	plan_ok(topo, "compact", 8, &pl);
	assert_int_equal(pl.widest, DISTANCE_L3);
	plan_ok(topo, "compact", 9, &pl);
	assert_int_equal(pl.widest, DISTANCE_PACKAGE);
	plan_ok(topo, "cores", 4, &pl);
	assert_cpus(&pl, (int[]){ 0, 2, 4, 6 }, 4);
	assert_int_equal(pl.widest, DISTANCE_L3);

	plan_ok(topo, "pair:numa", 2, &pl);
	assert_cpus(&pl, (int[]){ 0, 16 }, 2);
	assert_int_equal(pl.numa_distance, 12);
	plan_ok(topo, "pair:package", 2, &pl);
	assert_cpus(&pl, (int[]){ 0, 8 }, 2);
	plan_refused(topo, "pair:l2", 2, TOPO_PLAN_BAD_POLICY,
		     "same_pu, smt, l3, package, numa, cross_package");
	topo_close(topo);
}

static void clustered_l2_without_smt(void **unused)
{
	struct topo *topo = open_or_fail(CLUSTERED);
	static struct placement pl;
	char present[256];

	(void)unused;
	assert_int_equal(topo_classify(topo, 0, 3), DISTANCE_L2);
	assert_int_equal(topo_classify(topo, 0, 4), DISTANCE_L3);
	assert_int_equal(topo_classify(topo, 0, 8), DISTANCE_CROSS_PACKAGE);
	/* No distance matrix was given: unknown, not made up. */
	assert_int_equal(topo_numa_distance(topo, 0, 8), -1);
	topo_format_classes_present(topo, present, sizeof(present));
	assert_string_equal(present, "same_pu, l2, l3, cross_package");

	plan_ok(topo, "spread", 4, &pl);
	assert_cpus(&pl, (int[]){ 0, 8, 4, 12 }, 4);
	assert_int_equal(pl.numa_distance, -1);
	/* Without SMT, cores and compact agree. */
	plan_ok(topo, "cores", 16, &pl);
	for (int t = 0; t < 16; t++)
		assert_int_equal(pl.cpus[t], t);
	plan_ok(topo, "pair:l2", 2, &pl);
	assert_cpus(&pl, (int[]){ 0, 1 }, 2);
	plan_refused(topo, "pair:smt", 2, TOPO_PLAN_BAD_POLICY,
		     "classes present: same_pu, l2, l3, cross_package");
	topo_close(topo);

	/* No Package level at all: the machine counts as one package. */
	topo = open_or_fail("numa:2 core:2 pu:2");
	assert_int_equal(topo_classify(topo, 0, 2), DISTANCE_PACKAGE);
	assert_int_equal(topo_classify(topo, 0, 4), DISTANCE_NUMA);
	topo_close(topo);
}

static void invalid_policies_are_refused(void **unused)
{
	static const char *const bad[] = {
		"", "sideways", "compactly", "Compact", "pair:", "pair:bogus",
		"pair:smt:2", "cpus:", "cpus:a", "cpus:1-0", "cpus:0,,1", "cpus:-1",
		"cpus:0,", "cpus:3-", "pair:l3,pair:smt",
		"cpus:0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23",
	};
	struct topo *topo = open_seed_like();
	struct placement pl;
	char err[512];

	(void)unused;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		if (topo_plan(topo, bad[i], 2, &pl, err, sizeof(err)) !=
		    TOPO_PLAN_BAD_POLICY)
			fail_msg("policy '%s' was not refused", bad[i]);
		assert_true(strstr(err, "placement '") == err);
	}
	plan_refused(topo, "compact", 0, TOPO_PLAN_BAD_THREADS, "threads 0");
	plan_refused(topo, "spread", PLACEMENT_MAX_CPUS + 1, TOPO_PLAN_BAD_THREADS,
		     "expected 1 to");
	assert_int_equal(distance_class_parse("cross_package"), DISTANCE_CROSS_PACKAGE);
	assert_int_equal(distance_class_parse("socket"), -1);
	assert_int_equal(topo_set_numa_distances(topo, 3, (uint64_t[]){ 10, 32, 32 },
						 err, sizeof(err)), -1);
	assert_non_null(strstr(err, "expected 4"));
	topo_close(topo);

	assert_null(topo_open("nonsense:3", err, sizeof(err)));
	assert_non_null(strstr(err, "nonsense:3"));
	assert_null(topo_open("/nonexistent/machine.xml", err, sizeof(err)));
	assert_non_null(strstr(err, "machine.xml"));
}

/* An XML export keeps its distances; HWLOC_SYNTHETIC is not this system. */
static void xml_and_environment_topologies(void **unused)
{
	char path[] = "/tmp/bouncelab-topo-XXXXXX.xml";
	hwloc_topology_t t;
	hwloc_distances_add_handle_t h;
	hwloc_obj_t nodes[2];
	uint64_t slit[] = { 10, 21, 21, 10 };
	struct topo *topo;
	int fd;

	(void)unused;
	fd = mkstemps(path, 4);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(hwloc_topology_init(&t), 0);
	assert_int_equal(hwloc_topology_set_synthetic(t, "pack:2 numa:1 core:2 pu:2"), 0);
	assert_int_equal(hwloc_topology_load(t), 0);
	nodes[0] = hwloc_get_obj_by_type(t, HWLOC_OBJ_NUMANODE, 0);
	nodes[1] = hwloc_get_obj_by_type(t, HWLOC_OBJ_NUMANODE, 1);
	h = hwloc_distances_add_create(t, "test", HWLOC_DISTANCES_KIND_FROM_USER |
				       HWLOC_DISTANCES_KIND_MEANS_LATENCY, 0);
	assert_non_null(h);
	assert_int_equal(hwloc_distances_add_values(t, h, 2, nodes, slit, 0), 0);
	assert_int_equal(hwloc_distances_add_commit(t, h, 0), 0);
	assert_int_equal(hwloc_topology_export_xml(t, path, 0), 0);
	hwloc_topology_destroy(t);

	topo = open_or_fail(path);
	unlink(path);
	assert_false(topo_is_this_system(topo));
	assert_non_null(strstr(topo_describe(topo), "XML"));
	assert_int_equal(topo_classify(topo, 0, 4), DISTANCE_CROSS_PACKAGE);
	assert_int_equal(topo_numa_distance(topo, 0, 4), 21);
	assert_int_equal(topo_bind_self(topo, 0), -EOPNOTSUPP);
	topo_close(topo);

	setenv("HWLOC_SYNTHETIC", "pack:3 core:2 pu:1", 1);
	topo = open_or_fail(NULL);
	unsetenv("HWLOC_SYNTHETIC");
	assert_false(topo_is_this_system(topo));
	assert_non_null(strstr(topo_describe(topo), "HWLOC_SYNTHETIC"));
	assert_int_equal(topo_nr_allowed_cpus(topo), 6);
	assert_int_equal(topo_bind_self(topo, 0), -EOPNOTSUPP);
	assert_null(topo_save_binding(topo));
	topo_close(topo);
}

/* tests/data/topo/NAME, opened; the directory comes from meson. */
static struct topo *open_data_file(const char *name)
{
	const char *dir = getenv("BOUNCELAB_TOPO_DATA");
	char path[1024];

	if (!dir)
		fail_msg("BOUNCELAB_TOPO_DATA is unset: run this through meson test");
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return open_or_fail(path);
}

/*
 * Other machines' files, as test_cli_topo_files.sh checks them against
 * lstopo and hwloc-calc: MCDRAM in cache mode is no L3; CPU kinds mark a
 * placement across them; a 1-based matrix's local value is 1; a
 * bandwidth matrix never stands in for latency; HWLOC_THISSYSTEM=1 does
 * not make a file this system.
 */
static void files_from_other_machines(void **unused)
{
	static const char *const knl[] = { "knl-cache-mode.xml", "knl-mscache-as-l3.xml" };
	static struct placement pl;
	struct topo *topo;
	char kind[256];

	(void)unused;
	for (size_t i = 0; i < sizeof(knl) / sizeof(knl[0]); i++) {
		topo = open_data_file(knl[i]);
		assert_int_equal(topo_classify(topo, 0, 1), DISTANCE_SMT);
		assert_int_equal(topo_classify(topo, 0, 2), DISTANCE_L2);
		/* two tiles under the 16 GB MCDRAM: one package, not an L3 */
		assert_int_equal(topo_classify(topo, 0, 4), DISTANCE_PACKAGE);
		assert_true(topo_share_memory_side_cache(topo, 0, 4));
		assert_true(topo_share_memory_side_cache(topo, 7, 0));
		topo_close(topo);
	}
	topo = open_or_fail("pack:1 l3:1 core:2 pu:1");
	assert_false(topo_share_memory_side_cache(topo, 0, 1));
	topo_close(topo);

	topo = open_data_file("hybrid.xml");
	assert_int_equal(topo_nr_cpu_kinds(topo), 2);
	assert_int_equal(topo_cpu_kind(topo, 1), 0);
	assert_int_equal(topo_cpu_kind(topo, 2), 1);
	assert_int_equal(topo_cpu_kind(topo, 4), -1);
	topo_format_cpu_kind(topo, 1, kind, sizeof(kind));
	assert_string_equal(kind, "CPUs 2-3: efficiency 1, CoreType=IntelCore");
	plan_ok(topo, "pair:l2", 2, &pl);
	assert_false(pl.mixes_cpu_kinds);
	plan_ok(topo, "pair:l3", 2, &pl);
	assert_true(pl.mixes_cpu_kinds);
	plan_ok(topo, "cpus:3,2,1", 3, &pl);
	assert_true(pl.mixes_cpu_kinds);
	topo_close(topo);
	topo = open_or_fail("pack:1 core:2 pu:1");
	assert_int_equal(topo_nr_cpu_kinds(topo), 0);
	plan_ok(topo, "compact", 2, &pl);
	assert_false(pl.mixes_cpu_kinds);
	topo_close(topo);

	topo = open_data_file("numa-1based.xml");
	assert_int_equal(topo_numa_local_distance(topo), 1);
	assert_int_equal(topo_numa_node_distance(topo, 0, 1), 3);
	assert_int_equal(topo_numa_node_bandwidth(topo, 0, 1), -1);
	topo_close(topo);
	topo = open_data_file("numa-bandwidth.xml");
	assert_int_equal(topo_numa_node_distance(topo, 0, 1), -1);
	assert_int_equal(topo_numa_local_distance(topo), -1);
	assert_int_equal(topo_numa_node_bandwidth(topo, 0, 0), 90000);
	assert_int_equal(topo_numa_node_bandwidth(topo, 1, 0), 30000);
	/* a placement's NUMA distance is latency: unknown here */
	plan_ok(topo, "pair:cross_package", 2, &pl);
	assert_int_equal(pl.numa_distance, -1);
	topo_close(topo);

	setenv("HWLOC_THISSYSTEM", "1", 1);
	topo = open_data_file("smt-interleaved.xml");
	unsetenv("HWLOC_THISSYSTEM");
	assert_false(topo_is_this_system(topo));
	assert_int_equal(topo_nr_allowed_cpus(topo), 4);
	assert_int_equal(topo_classify(topo, 0, 2), DISTANCE_SMT);
	assert_int_equal(topo_classify(topo, 0, 1), DISTANCE_PACKAGE);
	assert_int_equal(topo_bind_self(topo, 0), -EOPNOTSUPP);
	assert_null(topo_save_binding(topo));
	topo_close(topo);
}

/* A few pairs per class, each of its class, spread through the machine. */
static void latency_pairs_are_sampled_per_class(void **unused)
{
	struct topo *topo = open_seed_like();
	struct latency_pair *pairs;
	unsigned int n, per_class[NR_DISTANCE_CLASSES] = { 0 };

	(void)unused;
	n = latency_pick_pairs(topo, 3, &pairs);
	assert_int_equal(n, 9);		/* smt, l3, cross_package: 3 each */
	for (unsigned int i = 0; i < n; i++) {
		assert_int_equal(topo_classify(topo, pairs[i].cpu_a, pairs[i].cpu_b),
				 pairs[i].cls);
		assert_int_not_equal(pairs[i].cpu_a, pairs[i].cpu_b);
		per_class[pairs[i].cls]++;
		if (i && pairs[i].cls == pairs[i - 1].cls)
			assert_false(pairs[i].cpu_a == pairs[i - 1].cpu_a &&
				     pairs[i].cpu_b == pairs[i - 1].cpu_b);
	}
	assert_int_equal(per_class[DISTANCE_SMT], 3);
	assert_int_equal(per_class[DISTANCE_L3], 3);
	assert_int_equal(per_class[DISTANCE_CROSS_PACKAGE], 3);
	/* Evenly spaced: not all from CPU 0. */
	assert_true(pairs[2].cpu_a > 0);
	assert_int_equal(pairs[6].numa_distance, 32);
	free(pairs);
	topo_close(topo);
}

/* remote is the nearest other node, local thread 0's; absent nodes refused. */
static void homes_on_synthetic_machines(void **unused)
{
	struct home_policy h;
	struct topo *topo;
	int node;
	char err[256];
	const uint64_t four[] = { 10, 20, 12, 22, 20, 10, 22, 12,
				  12, 22, 10, 20, 22, 12, 20, 10 };

	(void)unused;
	topo = topo_open("pack:2 numa:1 core:2 pu:1", err, sizeof(err));
	assert_non_null(topo);
	assert_int_equal(home_parse("remote", &h, err, sizeof(err)), 0);
	assert_int_equal(topo_home_node(topo, &h, 0, &node, err, sizeof(err)), 0);
	assert_int_equal(node, 1);
	assert_int_equal(topo_home_node(topo, &h, 3, &node, err, sizeof(err)), 0);
	assert_int_equal(node, 0);
	assert_int_equal(home_parse("local", &h, err, sizeof(err)), 0);
	assert_int_equal(topo_home_node(topo, &h, 3, &node, err, sizeof(err)), 0);
	assert_int_equal(node, 1);
	assert_int_equal(home_parse("node:1", &h, err, sizeof(err)), 0);
	assert_int_equal(topo_home_node(topo, &h, 0, &node, err, sizeof(err)), 0);
	assert_int_equal(node, 1);
	assert_int_equal(home_parse("node:2", &h, err, sizeof(err)), 0);
	assert_int_equal(topo_home_node(topo, &h, 0, &node, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "no NUMA node 2 here"));
	assert_non_null(strstr(err, "node:0,1"));
	/* Neither binds one node: the first touch, or every node. */
	assert_int_equal(home_parse("interleave", &h, err, sizeof(err)), 0);
	assert_int_equal(topo_home_node(topo, &h, 0, &node, err, sizeof(err)), 0);
	assert_int_equal(node, -1);
	topo_close(topo);

	/* Four nodes: node 0's nearest other is node 2 (12), not node 1 (20). */
	topo = topo_open("pack:4 numa:1 core:1 pu:1", err, sizeof(err));
	assert_non_null(topo);
	assert_int_equal(topo_set_numa_distances(topo, 16, four, err, sizeof(err)), 0);
	assert_int_equal(home_parse("remote", &h, err, sizeof(err)), 0);
	assert_int_equal(topo_home_node(topo, &h, 0, &node, err, sizeof(err)), 0);
	assert_int_equal(node, 2);
	assert_int_equal(topo_home_node(topo, &h, 1, &node, err, sizeof(err)), 0);
	assert_int_equal(node, 3);
	topo_close(topo);

	/* One node: no node is remote, and the message says so in one line. */
	topo = topo_open("pack:1 core:2 pu:1", err, sizeof(err));
	assert_non_null(topo);
	assert_int_equal(topo_home_node(topo, &h, 0, &node, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "one NUMA node"));
	assert_null(strchr(err, '\n'));
	assert_int_equal(home_parse("local", &h, err, sizeof(err)), 0);
	assert_int_equal(topo_home_node(topo, &h, 0, &node, err, sizeof(err)), 0);
	assert_int_equal(node, 0);
	topo_close(topo);
}

/*
 * On this machine: memory bound to thread 0's node is there, and the
 * kernel's two ways of saying so agree; the suite names a home asked for.
 */
static void homes_on_this_machine(void **unused)
{
	static struct suite suite;
	struct suite_options opts = { .nr_threads = 1, .threads = { 1 },
				      .filter = "^counter/shared_atomic" };
	struct home_policy h;
	struct topo *topo;
	size_t size = 2 * (size_t)sysconf(_SC_PAGESIZE);
	char err[512], *p;
	int node;

	(void)unused;
	topo = topo_open(NULL, err, sizeof(err));
	assert_non_null(topo);
	assert_int_equal(home_parse("local", &h, err, sizeof(err)), 0);
	assert_int_equal(topo_home_node(topo, &h, topo_allowed_cpu(topo, 0), &node,
					err, sizeof(err)), 0);
	assert_true(node >= 0);
	p = topo_home_alloc(topo, node, false, size);
	assert_non_null(p);
	assert_int_equal(p[0], 0);
	assert_int_equal(p[size - 1], 0);
	assert_int_equal(topo_node_of_address(p), node);
	assert_int_equal(topo_node_of_address(p + size - 1), node);
	assert_int_equal(topo_node_of_address_policy(p), node);
	topo_home_free(topo, p, size);

	opts.home = h;
	assert_int_equal(suite_plan(&opts, topo, &suite, err, sizeof(err)), 0);
	assert_true(suite.nr_cases >= 1);
	assert_non_null(strstr(suite.cases[0].name, "/home:local"));
	assert_int_equal(suite.cases[0].home_node, node);
	suite_free(&suite);

	/* Not asked: the name is as it always was, and nothing is bound. */
	opts.home = (struct home_policy){ .kind = HOME_DEFAULT, .node = -1 };
	assert_int_equal(suite_plan(&opts, topo, &suite, err, sizeof(err)), 0);
	assert_null(strstr(suite.cases[0].name, "/home:"));
	assert_int_equal(suite.cases[0].home_node, -1);
	suite_free(&suite);

	if (topo_nr_numa_nodes(topo) < 2) {
		assert_int_equal(home_parse("remote", &h, err, sizeof(err)), 0);
		opts.home = h;
		assert_int_equal(suite_plan(&opts, topo, &suite, err, sizeof(err)), 2);
		assert_non_null(strstr(err, "--home 'remote'"));
	}
	topo_close(topo);
}
#endif /* HAVE_HWLOC */

/* local, remote, node:N, interleave; anything else names itself. */
static void homes_are_parsed(void **unused)
{
	static const char *const bad[] = {
		"", "Local", "node:", "node:-1", "node:x", "node:1x", "node:99999",
		"remote ", "node: 1", "interleaved",
	};
	struct home_policy h;
	char err[256];

	(void)unused;
	assert_int_equal(home_parse("node:3", &h, err, sizeof(err)), 0);
	assert_int_equal(h.kind, HOME_NODE);
	assert_int_equal(h.node, 3);
	assert_string_equal(h.name, "node:3");
	assert_int_equal(home_parse("interleave", &h, err, sizeof(err)), 0);
	assert_int_equal(h.kind, HOME_INTERLEAVE);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(home_parse(bad[i], &h, err, sizeof(err)), -1);
		assert_non_null(strstr(err, "expected local, remote, node:N or interleave"));
	}
}

/*
 * A VM's two latency modes (60 vs 250 ns) are flagged, with each mode's
 * median; one mode with noise, or a single outlier, is not.
 */
static void latency_statistics_flag_two_modes(void **unused)
{
	double two_modes[20], noisy[21], outlier[20], forty[40];
	struct latency_summary s;

	(void)unused;
	for (int i = 0; i < 20; i++) {
		two_modes[i] = i % 4 ? 58 + i % 3 : 250 + i % 5;
		outlier[i] = 50 + i % 4;
	}
	for (int i = 0; i < 21; i++)
		noisy[i] = 40 + 2 * i;	/* 40 to 80: wide, but no gap */
	outlier[7] = 400;

	latency_summarize(two_modes, 20, &s);
	assert_true(s.bimodal);
	assert_true(s.low_mode >= 58 && s.low_mode <= 60);
	assert_true(s.high_mode >= 250 && s.high_mode <= 254);
	assert_true(s.high_share > 0.24 && s.high_share < 0.26);
	assert_true(s.min == 58);

	latency_summarize(noisy, 21, &s);
	assert_false(s.bimodal);
	assert_true(s.median == 60);
	assert_true(s.min == 40);
	assert_true(s.p10 == 44 && s.p90 == 76);

	latency_summarize(outlier, 20, &s);
	assert_false(s.bimodal);
	assert_true(s.median < 54);

	/*
	 * A mode needs a tenth of the samples: of 40, 3 slow ones (7.5%) are
	 * outliers, 4 (10%) are a mode with median 300 and share 0.1.
	 */
	for (int i = 0; i < 40; i++)
		forty[i] = i < 37 ? 50 : 300;
	latency_summarize(forty, 40, &s);
	assert_false(s.bimodal);
	assert_true(s.median == 50 && s.p90 == 50);
	forty[36] = 300;
	latency_summarize(forty, 40, &s);
	assert_true(s.bimodal);
	assert_true(s.low_mode == 50 && s.high_mode == 300);
	assert_true(s.high_share == 0.1);
	/* 50 to 74 ns, a gap of 1.48x: under the 1.5x a mode needs */
	for (int i = 0; i < 40; i++)
		forty[i] = i < 20 ? 50 : 74;
	latency_summarize(forty, 40, &s);
	assert_false(s.bimodal);
	assert_true(s.median == 62 && s.p10 == 50 && s.p90 == 74);
}

static bool same_affinity(const cpu_set_t *a)
{
	cpu_set_t now;

	assert_int_equal(sched_getaffinity(0, sizeof(now), &now), 0);
	return CPU_EQUAL(a, &now);
}

/* Binding on this machine is real: sched_getcpu() says where we run. */
static void binding_on_this_machine(void **unused)
{
	struct topo *topo;
	struct topo_binding *saved;
	cpu_set_t before;
	char err[256];

	(void)unused;
	topo = topo_open(NULL, err, sizeof(err));
	assert_non_null(topo);
	assert_true(topo_is_this_system(topo));
	assert_int_equal(sched_getaffinity(0, sizeof(before), &before), 0);
	assert_int_equal(topo_nr_allowed_cpus(topo), (unsigned int)CPU_COUNT(&before));
	saved = topo_save_binding(topo);
	assert_non_null(saved);
	for (unsigned int i = 0; i < topo_nr_allowed_cpus(topo); i++) {
		int cpu = topo_allowed_cpu(topo, i);

		assert_true(CPU_ISSET(cpu, &before));
		assert_int_equal(topo_bind_self(topo, cpu), 0);
		/* The move happens by the next return to user space. */
		assert_int_equal(sched_getcpu(), cpu);
	}
	assert_int_equal(topo_bind_self(topo, 1 << 20), -EINVAL);
	assert_int_equal(topo_bind_self(topo, -1), -EINVAL);
	topo_restore_binding(topo, saved);
	assert_true(same_affinity(&before));
	topo_close(topo);
}

/* taskset: a narrower affinity is all a new topology may place on. */
static void the_allowed_cpus_are_respected(void **unused)
{
	struct topo *topo;
	static struct placement pl;
	cpu_set_t before, one;
	char err[512], policy[64];
	int first = -1, other = -1;

	(void)unused;
	assert_int_equal(sched_getaffinity(0, sizeof(before), &before), 0);
	for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		if (!CPU_ISSET(cpu, &before))
			continue;
		if (first < 0)
			first = cpu;
		else if (other < 0)
			other = cpu;
	}
	if (other < 0)
		skip_because("one CPU: nothing to narrow");
	CPU_ZERO(&one);
	CPU_SET(first, &one);
	assert_int_equal(sched_setaffinity(0, sizeof(one), &one), 0);
	topo = topo_open(NULL, err, sizeof(err));
	assert_int_equal(sched_setaffinity(0, sizeof(before), &before), 0);
	assert_non_null(topo);
	assert_int_equal(topo_nr_allowed_cpus(topo), 1);
	assert_int_equal(topo_allowed_cpu(topo, 0), first);
	assert_false(topo_cpu_is_allowed(topo, other));
	assert_int_equal(topo_bind_self(topo, other), -EINVAL);
	/* Two threads on one allowed CPU: compact wraps around. */
	assert_int_equal(topo_plan(topo, "compact", 2, &pl, err, sizeof(err)), 0);
	assert_true(placement_shares_cpu(&pl));
	assert_int_equal(pl.cpus[1], first);
	snprintf(policy, sizeof(policy), "cpus:%d", other);
	assert_int_equal(topo_plan(topo, policy, 1, &pl, err, sizeof(err)),
			 TOPO_PLAN_BAD_POLICY);
	assert_non_null(strstr(err, "not one this process may use"));
	topo_close(topo);
}

static int plan_suite(const char *filter, const char *const *placements,
		      unsigned int nr_placements, const unsigned int *threads,
		      unsigned int nr_threads, struct suite *suite, char *err,
		      size_t errlen)
{
	static struct suite_options opts;
	struct topo *topo;
	int ret;

	memset(&opts, 0, sizeof(opts));
	opts.filter = filter;
	opts.quick = true;
	opts.nr_placements = nr_placements;
	for (unsigned int i = 0; i < nr_placements; i++)
		opts.placements[i] = placements[i];
	opts.nr_threads = nr_threads;
	memcpy(opts.threads, threads, nr_threads * sizeof(*threads));
	topo = topo_open(NULL, err, errlen);
	assert_non_null(topo);
	ret = suite_plan(&opts, topo, suite, err, errlen);
	if (ret == 0) {
		/* The cases point at the topology: check them before closing. */
		for (unsigned int i = 0; i < suite->nr_cases; i++)
			assert_ptr_equal(suite->cases[i].topo, topo);
	}
	topo_close(topo);
	return ret;
}

/*
 * pair: places only two threads, so other thread counts are skipped;
 * a spinning family never gets two threads on one CPU; a sweep names
 * each case's placement.
 */
static void the_suite_applies_placement_rules(void **unused)
{
	static struct suite suite;
	cpu_set_t allowed;
	char err[512];

	(void)unused;
	assert_int_equal(plan_suite("has_pinned/store_always$", (const char *[]){ "pair:same_pu" },
				    1, (unsigned int[]){ 1, 2 }, 2, &suite, err,
				    sizeof(err)), 0);
	assert_int_equal(suite.nr_cases, 1);
	assert_int_equal(suite.cases[0].cfg.nr_threads, 2);
	assert_int_equal(suite.cases[0].placement.cpus[1], suite.cases[0].placement.cpus[0]);
	suite_free(&suite);

	assert_int_equal(plan_suite("has_pinned", (const char *[]){ "pair:same_pu" }, 1,
				    (unsigned int[]){ 1 }, 1, &suite, err,
				    sizeof(err)), 2);
	assert_non_null(strstr(err, "exactly 2 threads"));

	assert_int_equal(plan_suite("pingpong", (const char *[]){ "pair:same_pu" }, 1,
				    (unsigned int[]){ 2 }, 1, &suite, err,
				    sizeof(err)), 2);
	assert_non_null(strstr(err, "spins"));

	assert_int_equal(plan_suite("has_pinned", (const char *[]){ "no_such_policy" }, 1,
				    (unsigned int[]){ 1 }, 1, &suite, err,
				    sizeof(err)), 2);
	assert_non_null(strstr(err, "no_such_policy"));

	if (sched_getaffinity(0, sizeof(allowed), &allowed) || CPU_COUNT(&allowed) < 2)
		return;	/* pingpong needs two CPUs for compact and spread */
	assert_int_equal(plan_suite("pingpong/cas", (const char *[]){ "compact", "spread" }, 2,
				    (unsigned int[]){ 2 }, 1, &suite, err,
				    sizeof(err)), 0);
	assert_int_equal(suite.nr_cases, 2);
	assert_non_null(strstr(suite.cases[0].name, "/placement:compact"));
	assert_non_null(strstr(suite.cases[1].name, "/placement:spread"));
	suite_free(&suite);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
#if HAVE_HWLOC
		cmocka_unit_test(seed_like_classes),
		cmocka_unit_test(seed_like_policies),
		cmocka_unit_test(zen_like_classes_and_policies),
		cmocka_unit_test(clustered_l2_without_smt),
		cmocka_unit_test(invalid_policies_are_refused),
		cmocka_unit_test(xml_and_environment_topologies),
		cmocka_unit_test(files_from_other_machines),
		cmocka_unit_test(latency_pairs_are_sampled_per_class),
		cmocka_unit_test(homes_on_synthetic_machines),
		cmocka_unit_test(homes_on_this_machine),
#endif
		cmocka_unit_test(homes_are_parsed),
		cmocka_unit_test(latency_statistics_flag_two_modes),
		cmocka_unit_test(binding_on_this_machine),
		cmocka_unit_test(the_allowed_cpus_are_respected),
		cmocka_unit_test(the_suite_applies_placement_rules),
	};

	return run_cases("topo", tests, argc, argv);
}
