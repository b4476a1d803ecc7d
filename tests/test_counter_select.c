// SPDX-License-Identifier: GPL-2.0-only
/*
 * --counters and --events as counters_select() takes them, seen in the
 * results context: the sets asked for, in the sets' own order, "none"
 * among them asking for nothing; a set name that is only the start or
 * the end of one refused with the list; at most 16 events, each of 1 to
 * 159 characters; two events that are one counter named apart
 * (NAME, NAME_2). Without libpfm4 the events cannot be checked or
 * encoded: each is named from the string as typed, lower case, runs of
 * other characters as one '_', none at the ends.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "config.h"
#include "counters.h"

static char err[1024];

static void selected(const char *sets, const char *events)
{
	*err = '\0';
	if (counters_select(sets, events, err, sizeof(err)))
		fail_msg("--counters '%s' --events '%s' refused: %s", sets ? sets : "",
			 events ? events : "", err);
}

static void refused(const char *sets, const char *events, const char *want)
{
	*err = '\0';
	assert_int_equal(counters_select(sets, events, err, sizeof(err)), -1);
	if (!strstr(err, want))
		fail_msg("--counters '%s' --events '%s': '%s', expected '%s' in it",
			 sets ? sets : "", events ? events : "", err, want);
}

/* The requested sets, comma-joined, from the context. */
static void expect_requested(const char *want)
{
	json_t *ctx = counters_context(), *v;
	char got[256] = "";
	size_t i;

	json_array_foreach(json_object_get(ctx, "requested"), i, v) {
		if (i)
			strcat(got, ",");
		strcat(got, json_string_value(v));
	}
	json_decref(ctx);
	assert_string_equal(got, want);
}

static void sets_are_named_whole(void **unused)
{
	(void)unused;
	selected("coherence,basic,sw", NULL);
	expect_requested("coherence,basic,sw");
	selected("sw,coherence", NULL);
	expect_requested("coherence,sw");
	selected("none", NULL);
	expect_requested("");
	selected("basic,none", NULL);
	expect_requested("basic");
	selected("sw", NULL);
	expect_requested("sw");
	refused("bas", NULL, "--counters 'bas': unknown set 'bas': expected a comma-separated list of coherence, basic, sw (or none)");
	refused("basics", NULL, "unknown set 'basics'");
	refused("basic,", NULL, "unknown set ''");
	refused("sw,nonex", NULL, "unknown set 'nonex'");
	refused("non", NULL, "unknown set 'non'");
	/* a refused list leaves no set asked for */
	selected("none", NULL);
	expect_requested("");
}

/*
 * Prepared (events opened or found n/a), the context still names only
 * the sets asked for. Catches counters_context()'s loop over the sets
 * running one past the last ("s < NR_SETS" as "<="), which reads the flag
 * after requested[] (prepared, now true) as a fifth set asked for.
 */
static void a_prepared_context_names_only_the_sets_asked_for(void **unused)
{
	json_t *ctx, *sets;

	(void)unused;
	selected("sw", NULL);
	counters_prepare(NULL);
	expect_requested("sw");
	ctx = counters_context();
	sets = json_object_get(ctx, "sets");
	assert_int_equal(json_object_size(sets), 1);
	assert_non_null(json_object_get(sets, "sw"));
	json_decref(ctx);
}

/* The counters the events became, comma-joined, from the context. */
static void expect_counters(const char *want)
{
	json_t *ctx = counters_context(), *e;
	json_t *events = json_object_get(json_object_get(json_object_get(ctx, "sets"), "events"),
					 "events");
	char got[1024] = "";
	size_t i;

	json_array_foreach(events, i, e) {
		if (i)
			strcat(got, ",");
		strcat(got, json_string_value(json_object_get(e, "counter")));
	}
	json_decref(ctx);
	assert_string_equal(got, want);
}

static void events_are_counted_and_sized(void **unused)
{
	char events[40 * 8], long_event[COUNTERS_EVENT_LEN + 1];

	(void)unused;
	refused("none", "", "--events '': expected a comma-separated list");
	refused("none", ",x", "expected a comma-separated list");
	/* 16 events are taken, 17 are not */
	events[0] = '\0';
	for (int i = 0; i < 17; i++)
		strcat(events, i ? ",cycles" : "cycles");
	refused("none", events, "expected at most 16 events");
	events[strlen(events) - strlen(",cycles")] = '\0';
	selected("none", events);
	{
		json_t *ctx = counters_context();

		assert_int_equal(json_array_size(json_object_get(ctx, "events_requested")), 16);
		assert_string_equal(json_string_value(json_array_get(
			json_object_get(ctx, "events_requested"), 15)), "cycles");
		json_decref(ctx);
	}
	memset(long_event, 'c', sizeof(long_event));
	long_event[COUNTERS_EVENT_LEN] = '\0';
	refused("none", long_event, "expected a comma-separated list");
#if HAVE_PFM
	long_event[COUNTERS_EVENT_LEN - 1] = '\0';
	refused("none", long_event, "libpfm4 cannot encode it");
#endif
}

#if HAVE_PFM
/* cycles:u and CYCLES:U are one counter: the second is NAME_2, a third _3. */
static void one_counter_twice_is_named_apart(void **unused)
{
	(void)unused;
	selected("none", "cycles:u,CYCLES:U,cpu-cycles:u");
	expect_counters("perf_count_hw_cpu_cycles_per_op,perf_count_hw_cpu_cycles_2_per_op,"
			"perf_count_hw_cpu_cycles_3_per_op");
	selected("none", "cycles:k");
	expect_counters("perf_count_hw_cpu_cycles_u_0_k_1_per_op");
}
#else
/* No libpfm4: named as typed. */
static void events_are_named_as_typed(void **unused)
{
	(void)unused;
	selected("none", "skx::MEM_LOAD_L3_HIT_RETIRED:XSNP_HITM,--Odd..Name--,::,"
		 "skx::MEM_LOAD_L3_HIT_RETIRED:XSNP_HITM");
	expect_counters("mem_load_l3_hit_retired_xsnp_hitm_per_op,odd_name_per_op,event_per_op,"
			"mem_load_l3_hit_retired_xsnp_hitm_2_per_op");
}
#endif

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(sets_are_named_whole),
		cmocka_unit_test(events_are_counted_and_sized),
		cmocka_unit_test(a_prepared_context_names_only_the_sets_asked_for),
#if HAVE_PFM
		cmocka_unit_test(one_counter_twice_is_named_apart),
#else
		cmocka_unit_test(events_are_named_as_typed),
#endif
	};

	counters_init();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
