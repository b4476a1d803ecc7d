// SPDX-License-Identifier: GPL-2.0-only
/*
 * The coherence events bouncelab picks for each CPU model encode, with
 * the installed libpfm4, to the hardware events they are meant to be.
 * Runs under LIBPFM_ENCODE_INACTIVE=1 (set by meson), which lets libpfm4
 * encode for PMUs this machine does not have.
 *
 * The raw codes are event | umask << 8 from the vendors' tables:
 * Intel MEM_LOAD_L3_HIT_RETIRED 0xd2 umask 0x04 (XSNP_HITM, named XSNP_FWD
 * from Sapphire Rapids on), MEM_LOAD_L3_MISS_RETIRED 0xd3 umask 0x04
 * (REMOTE_HITM; 0x10 on Haswell/Broadwell-EP); AMD fills from system
 * 0x43 (Zen 2, demand) / 0x44 (Zen 3 and 4, any) with umasks 0x02 same
 * CCX or node, 0x04 other CCX, 0x10 remote node.
 */
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "config.h"
#include "counters.h"

struct expected_model {
	const char *pmu;
	const char *label;
	unsigned int nr;
	const char *names[3];
	uint64_t raw[3];
};

static const struct expected_model models[] = {
	{ "skx", "HITM", 2, { "hitm_local", "hitm_remote" }, { 0x04d2, 0x04d3 } },
	{ "icx", "HITM", 2, { "hitm_local", "hitm_remote" }, { 0x04d2, 0x04d3 } },
	{ "spr", "HITM", 2, { "hitm_local", "hitm_remote" }, { 0x04d2, 0x04d3 } },
	{ "amd64_fam19h_zen3", "cache-to-cache fills", 3,
	  { "c2c_fills_same_ccx", "c2c_fills_other_ccx", "c2c_fills_remote_node" },
	  { 0x0244, 0x0444, 0x1044 } },
	{ "amd64_fam19h_zen4", "cache-to-cache fills", 3,
	  { "c2c_fills_same_ccx", "c2c_fills_other_ccx", "c2c_fills_remote_node" },
	  { 0x0244, 0x0444, 0x1044 } },
	/* The other models libpfm4 4.13 knows. */
	{ "hsw", "HITM", 1, { "hitm_local" }, { 0x04d2 } },
	{ "hsw_ep", "HITM", 2, { "hitm_local", "hitm_remote" }, { 0x04d2, 0x10d3 } },
	{ "bdw", "HITM", 1, { "hitm_local" }, { 0x04d2 } },
	{ "bdw_ep", "HITM", 2, { "hitm_local", "hitm_remote" }, { 0x04d2, 0x10d3 } },
	{ "skl", "HITM", 1, { "hitm_local" }, { 0x04d2 } },
	{ "clx", "HITM", 2, { "hitm_local", "hitm_remote" }, { 0x04d2, 0x04d3 } },
	{ "icl", "HITM", 1, { "hitm_local" }, { 0x04d2 } },
	{ "amd64_fam17h_zen2", "cache-to-cache fills", 2,
	  { "c2c_fills_same_node", "c2c_fills_remote_node" }, { 0x0243, 0x1043 } },
};

static void check_model(const struct expected_model *m)
{
	struct counters_spec specs[4];
	const char *label = NULL;
	unsigned int n = counters_coherence_events(m->pmu, specs, 4, &label);

	if (n != m->nr)
		fail_msg("%s: %u coherence events, expected %u", m->pmu, n, m->nr);
	assert_string_equal(label, m->label);
	for (unsigned int i = 0; i < n; i++) {
		struct perf_event_attr attr;
		char canonical[512], why[128];

		assert_string_equal(specs[i].name, m->names[i]);
		if (counters_encode(specs[i].event, false, &attr, canonical,
				    sizeof(canonical), why, sizeof(why)))
			fail_msg("%s: %s: %s", m->pmu, specs[i].event, why);
		assert_int_equal(attr.type, PERF_TYPE_RAW);
		if (attr.config != m->raw[i])
			fail_msg("%s: %s encodes to %#llx, expected %#llx", m->pmu,
				 specs[i].event, (unsigned long long)attr.config,
				 (unsigned long long)m->raw[i]);
		/* User space only: what works unprivileged at paranoid 2. */
		assert_true(attr.exclude_kernel);
		assert_non_null(strstr(canonical, ":u=1"));
		assert_non_null(strstr(canonical, ":k=0"));
	}
}

static void intel_and_amd_coherence_events_encode(void **unused)
{
	(void)unused;
	for (size_t i = 0; i < sizeof(models) / sizeof(models[0]); i++)
		check_model(&models[i]);
}

/* Why Sapphire Rapids needs its own entry: the old name is gone. */
static void spr_rejects_the_old_hitm_name(void **unused)
{
	struct perf_event_attr attr;
	char why[128];

	(void)unused;
	assert_int_equal(counters_encode("spr::MEM_LOAD_L3_HIT_RETIRED:XSNP_HITM",
					 false, &attr, NULL, 0, why, sizeof(why)), -1);
	assert_true(why[0] != '\0');
	/* ... and client Skylake has no remote (other socket) umask. */
	assert_int_equal(counters_encode("skl::MEM_LOAD_L3_MISS_RETIRED:REMOTE_HITM",
					 false, &attr, NULL, 0, why, sizeof(why)), -1);
}

static void unknown_models_have_no_coherence_events(void **unused)
{
	struct counters_spec specs[4];
	const char *label = NULL;

	(void)unused;
	assert_int_equal(counters_coherence_events("amd64_k8_revb", specs, 4, &label), 0);
	assert_int_equal(counters_coherence_events("no_such_pmu", specs, 4, &label), 0);
	assert_null(label);
}

struct generic_event {
	const char *event;
	uint32_t type;
	uint64_t config;
};

static void generic_events_encode(void **unused)
{
	static const struct generic_event events[] = {
		{ "perf::PERF_COUNT_HW_CPU_CYCLES", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
		{ "perf::PERF_COUNT_HW_INSTRUCTIONS", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
		{ "perf::PERF_COUNT_HW_CACHE_L1D:READ:MISS", PERF_TYPE_HW_CACHE,
		  PERF_COUNT_HW_CACHE_L1D | PERF_COUNT_HW_CACHE_OP_READ << 8 |
		  PERF_COUNT_HW_CACHE_RESULT_MISS << 16 },
		{ "perf::PERF_COUNT_HW_CACHE_LL:READ:MISS", PERF_TYPE_HW_CACHE,
		  PERF_COUNT_HW_CACHE_LL | PERF_COUNT_HW_CACHE_OP_READ << 8 |
		  PERF_COUNT_HW_CACHE_RESULT_MISS << 16 },
		{ "perf::PERF_COUNT_SW_TASK_CLOCK", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK },
		{ "perf::PERF_COUNT_SW_PAGE_FAULTS", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
		{ "perf::PERF_COUNT_SW_CONTEXT_SWITCHES", PERF_TYPE_SOFTWARE,
		  PERF_COUNT_SW_CONTEXT_SWITCHES },
		{ "perf::PERF_COUNT_SW_CPU_MIGRATIONS", PERF_TYPE_SOFTWARE,
		  PERF_COUNT_SW_CPU_MIGRATIONS },
	};
	struct perf_event_attr attr;
	char why[128];

	(void)unused;
	for (size_t i = 0; i < sizeof(events) / sizeof(events[0]); i++) {
		if (counters_encode(events[i].event, false, &attr, NULL, 0, why, sizeof(why)))
			fail_msg("%s: %s", events[i].event, why);
		assert_int_equal(attr.type, events[i].type);
		assert_int_equal(attr.config, events[i].config);
		assert_true(attr.exclude_kernel);
	}
	/* The scheduler's events are counted in the kernel too. */
	assert_int_equal(counters_encode("perf::PERF_COUNT_SW_CONTEXT_SWITCHES", true,
					 &attr, NULL, 0, why, sizeof(why)), 0);
	assert_false(attr.exclude_kernel);
}

/*
 * An event gets one name however it is typed: the oracle is the kernel's
 * own view of the event, the perf_event_attr libpfm4 encodes. Two
 * spellings share a name exactly when they encode to the same attr.
 */
struct spelling {
	const char *event;
	const char *name;	/* expected counter stem */
};

static const struct spelling spellings[] = {
	{ "cycles:u", "perf_count_hw_cpu_cycles" },
	{ "CYCLES:U", "perf_count_hw_cpu_cycles" },
	{ "cpu-cycles:u", "perf_count_hw_cpu_cycles" },
	{ "perf::PERF_COUNT_HW_CPU_CYCLES", "perf_count_hw_cpu_cycles" },
	{ "cycles:k", "perf_count_hw_cpu_cycles_u_0_k_1" },
	{ "cycles:u:k", "perf_count_hw_cpu_cycles_k_1" },
	{ "page-faults", "perf_count_sw_page_faults" },
	{ "perf::PERF_COUNT_SW_PAGE_FAULTS:u", "perf_count_sw_page_faults" },
	{ "perf::L1-DCACHE-LOAD-MISSES", "perf_count_hw_cache_l1d_read_miss" },
	{ "perf::PERF_COUNT_HW_CACHE_L1D:READ:MISS", "perf_count_hw_cache_l1d_read_miss" },
	{ "perf::PERF_COUNT_HW_CACHE_L1D:MISS:READ", "perf_count_hw_cache_l1d_read_miss" },
	{ "perf::PERF_COUNT_HW_CACHE_L1D:WRITE:MISS", "perf_count_hw_cache_l1d_write_miss" },
	{ "skx::MEM_LOAD_L3_HIT_RETIRED:XSNP_HITM", "mem_load_l3_hit_retired_xsnp_hitm" },
	{ "skx::mem_load_l3_hit_retired:xsnp_hitm:u", "mem_load_l3_hit_retired_xsnp_hitm" },
};

#define NR_SPELLINGS (sizeof(spellings) / sizeof(spellings[0]))

static bool same_attr(const struct perf_event_attr *a, const struct perf_event_attr *b)
{
	return a->type == b->type && a->config == b->config && a->config1 == b->config1 &&
	       a->exclude_user == b->exclude_user && a->exclude_kernel == b->exclude_kernel &&
	       a->exclude_hv == b->exclude_hv;
}

static void one_event_one_name_however_spelt(void **unused)
{
	struct perf_event_attr attr[NR_SPELLINGS];
	char name[NR_SPELLINGS][64], why[128];

	(void)unused;
	for (size_t i = 0; i < NR_SPELLINGS; i++) {
		if (counters_event_name(spellings[i].event, name[i], sizeof(name[i]), why,
					sizeof(why)) ||
		    counters_encode(spellings[i].event, false, &attr[i], NULL, 0, why, sizeof(why)))
			fail_msg("%s: %s", spellings[i].event, why);
		if (strcmp(name[i], spellings[i].name))
			fail_msg("%s is named %s, expected %s", spellings[i].event, name[i],
				 spellings[i].name);
	}
	for (size_t i = 0; i < NR_SPELLINGS; i++)
		for (size_t k = 0; k < i; k++)
			if (!strcmp(name[i], name[k]) != same_attr(&attr[i], &attr[k]))
				fail_msg("%s and %s: names %s and %s, but the encodings are %s",
					 spellings[i].event, spellings[k].event, name[i], name[k],
					 same_attr(&attr[i], &attr[k]) ? "the same" : "different");
	assert_int_equal(counters_event_name("no_such_event:u", name[0], sizeof(name[0]),
					     why, sizeof(why)), -1);
}

/* --events as a run takes them: the counter in the results is the canonical one. */
static void raw_events_are_recorded_by_canonical_name(void **unused)
{
	char err[256];
	json_t *ctx, *events;
	size_t i;
	json_t *e;

	(void)unused;
	assert_int_equal(counters_select("none", "CYCLES:U,perf::L1-DCACHE-LOAD-MISSES", err,
					 sizeof(err)), 0);
	ctx = counters_context();
	events = json_object_get(json_object_get(json_object_get(ctx, "sets"), "events"),
				 "events");
	assert_int_equal(json_array_size(events), 2);
	json_array_foreach(events, i, e) {
		static const char *const want[] = {
			"perf_count_hw_cpu_cycles_per_op", "perf_count_hw_cache_l1d_read_miss_per_op",
		};

		assert_string_equal(json_string_value(json_object_get(e, "counter")), want[i]);
	}
	json_decref(ctx);
}

/*
 * Arm Neoverse: the Arm architecture's common event numbers (Arm ARM,
 * D17 "PMU events": L1D_CACHE_REFILL_INNER 0x44, L1D_CACHE_REFILL_OUTER
 * 0x45, REMOTE_ACCESS 0x31, LL_CACHE_MISS_RD 0x37). Encoded where this
 * libpfm4 has the Arm tables (an aarch64 build); elsewhere the names are
 * checked against those events.
 */
static void arm_neoverse_coherence_events(void **unused)
{
	static const char *const pmus[] = { "arm_n1", "arm_n2" };
	static const struct { const char *name, *event; uint64_t code; } want[] = {
		{ "l1d_refills_inner", "L1D_CACHE_REFILL_INNER", 0x44 },
		{ "l1d_refills_outer", "L1D_CACHE_REFILL_OUTER", 0x45 },
		{ "remote_accesses", "REMOTE_ACCESS", 0x31 },
		{ "ll_read_misses", "LL_CACHE_MISS_RD", 0x37 },
	};
	struct counters_spec specs[8];
	const char *label = NULL;

	(void)unused;
	for (size_t p = 0; p < 2; p++) {
		unsigned int n = counters_coherence_events(pmus[p], specs, 4, &label);

		assert_int_equal(n, 4);
		assert_string_equal(label, "L1D refills");
		for (unsigned int i = 0; i < n; i++) {
			struct perf_event_attr attr;
			char event[96], why[128];

			snprintf(event, sizeof(event), "%s::%s", pmus[p], want[i].event);
			assert_string_equal(specs[i].name, want[i].name);
			assert_string_equal(specs[i].event, event);
			if (counters_encode(event, false, &attr, NULL, 0, why, sizeof(why)))
				continue;	/* no Arm tables in this libpfm4 */
			assert_int_equal(attr.config, want[i].code);
		}
	}
	/* room for eight: a model's table holds four, and it gives no more */
	for (size_t p = 0; p < 2; p++)
		assert_int_equal(counters_coherence_events(pmus[p], specs, 8, &label), 4);
	/* Hybrid Intel: the P-core's table only, so the P-core PMU is chosen. */
	assert_int_equal(counters_coherence_events("adl_glc", specs, 4, &label), 1);
	assert_string_equal(specs[0].event, "adl_glc::MEM_LOAD_L3_HIT_RETIRED:XSNP_FWD");
	assert_int_equal(counters_coherence_events("adl_grt", specs, 4, &label), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(intel_and_amd_coherence_events_encode),
		cmocka_unit_test(spr_rejects_the_old_hitm_name),
		cmocka_unit_test(unknown_models_have_no_coherence_events),
		cmocka_unit_test(generic_events_encode),
		cmocka_unit_test(one_event_one_name_however_spelt),
		cmocka_unit_test(raw_events_are_recorded_by_canonical_name),
		cmocka_unit_test(arm_neoverse_coherence_events),
	};

	if (!HAVE_PFM) {
		fprintf(stderr, "built without libpfm4: nothing to encode\n");
		return 77;
	}
	if (!getenv("LIBPFM_ENCODE_INACTIVE")) {
		fprintf(stderr, "needs LIBPFM_ENCODE_INACTIVE=1 (meson test sets it)\n");
		return 1;
	}
	counters_init();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
