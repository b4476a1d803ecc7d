// SPDX-License-Identifier: GPL-2.0-only
/*
 * Which core PMU detect_core_pmu() picks, with libpfm4 told which PMUs
 * are present: this test plays pfm_get_pmu_info() (the link wraps it),
 * answering libpfm4's own description of each PMU with is_present and
 * type set from the list a case gives. The rule (bench/counters_sets.c):
 * the first present core PMU that has coherence events, else the first
 * present core PMU, else none. The names with coherence events are
 * written out here from the source's comments, not read from its table:
 *
 *   ivb (no coherence set), then hsw or bdw (the first table entry)
 *                                          hsw, bdw
 *   zen1, then amd64_fam19h_zen4 (the last entry libpfm4 4.13 knows)
 *                                          amd64_fam19h_zen4
 *   amd64_fam17h_zen1 (no coherence set)   itself, the first core PMU
 *   zen1, then zen3 in libpfm4's order     amd64_fam19h_zen3
 *   zen1 and hsw_ep                        hsw_ep
 *   skx present, but as an uncore PMU      none
 *   nothing present                        none
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>
#include <perfmon/pfmlib.h>

#include "counters_internal.h"

static const char *const *present;	/* NULL-terminated */
static bool present_as_uncore;

pfm_err_t __real_pfm_get_pmu_info(pfm_pmu_t pmu, pfm_pmu_info_t *info);
pfm_err_t __wrap_pfm_get_pmu_info(pfm_pmu_t pmu, pfm_pmu_info_t *info);

pfm_err_t __wrap_pfm_get_pmu_info(pfm_pmu_t pmu, pfm_pmu_info_t *info)
{
	pfm_err_t ret = __real_pfm_get_pmu_info(pmu, info);

	if (ret != PFM_SUCCESS)
		return ret;
	info->is_present = 0;
	for (unsigned int i = 0; present && present[i]; i++)
		if (info->name && !strcmp(info->name, present[i])) {
			info->is_present = 1;
			info->type = present_as_uncore ? PFM_PMU_TYPE_UNCORE : PFM_PMU_TYPE_CORE;
		}
	return PFM_SUCCESS;
}

static void picks(const char *const *names, bool uncore, const char *want)
{
	const char *got;

	present = names;
	present_as_uncore = uncore;
	got = detect_core_pmu();
	if (!want) {
		if (got)
			fail_msg("%s present: picked %s, expected none", names && names[0] ?
				 names[0] : "nothing", got);
		return;
	}
	if (!got || strcmp(got, want))
		fail_msg("%s present: picked %s, expected %s", names[0], got ? got : "none",
			 want);
}

/* Each beside a core PMU libpfm4 lists before it that has no coherence set. */
static void the_first_and_last_entries(void **unused)
{
	static const char *const hsw[] = { "ivb", "hsw", NULL }, *const bdw[] = { "ivb", "bdw", NULL };
	static const char *const zen4[] = { "amd64_fam17h_zen1", "amd64_fam19h_zen4", NULL };

	(void)unused;
	picks(hsw, false, "hsw");
	picks(bdw, false, "bdw");
	picks(zen4, false, "amd64_fam19h_zen4");
}

static void the_core_with_coherence_events_first(void **unused)
{
	static const char *const zen1[] = { "amd64_fam17h_zen1", NULL };
	static const char *const zen1_and_zen3[] = { "amd64_fam17h_zen1", "amd64_fam19h_zen3",
						       NULL };
	static const char *const zen1_and_hsw_ep[] = { "amd64_fam17h_zen1", "hsw_ep", NULL };

	(void)unused;
	picks(zen1, false, "amd64_fam17h_zen1");
	picks(zen1_and_zen3, false, "amd64_fam19h_zen3");
	picks(zen1_and_hsw_ep, false, "hsw_ep");
}

static void only_core_pmus_and_only_present_ones(void **unused)
{
	static const char *const skx[] = { "skx", NULL };
	static const char *const none[] = { NULL };

	(void)unused;
	picks(skx, true, NULL);
	picks(none, false, NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(the_first_and_last_entries),
		cmocka_unit_test(the_core_with_coherence_events_first),
		cmocka_unit_test(only_core_pmus_and_only_present_ones),
	};

	if (pfm_initialize() != PFM_SUCCESS) {
		fprintf(stderr, "libpfm4 does not initialise\n");
		return 1;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
