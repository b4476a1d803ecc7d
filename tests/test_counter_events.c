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
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(intel_and_amd_coherence_events_encode),
		cmocka_unit_test(spr_rejects_the_old_hitm_name),
		cmocka_unit_test(unknown_models_have_no_coherence_events),
		cmocka_unit_test(generic_events_encode),
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
