// SPDX-License-Identifier: GPL-2.0-only
/*
 * The coherence set of a CPU this machine need not have: libpfm4 is told
 * its core PMU is AMD Zen 3 (LIBPFM_FORCE_PMU), and perf_event_open() is
 * played by this test (the link wraps syscall()). Zen 3's set is three
 * cache-to-cache fill events and their sum, c2c_fills_per_op:
 *
 *   all open      three events, the sum of all three, the set "ok"
 *   one refused   the sum of the other two; that one n/a with its reason
 *   all refused   the sum n/a too, with the events' reason
 *
 * as the results context records it and bouncelab list --events shows
 * it (the sum named once, after its parts).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#include "cases.h"
#include "config.h"
#include "counters.h"
#include "perf_stand_in.h"

static uint64_t refused_config[3];
static unsigned int nr_refused;

long perf_open_stand_in(const struct perf_event_attr *attr, int group_fd)
{
	(void)group_fd;
	for (unsigned int i = 0; i < nr_refused; i++)
		if (attr->type == PERF_TYPE_RAW && attr->config == refused_config[i]) {
			errno = EBUSY;
			return -1;
		}
	return open("/dev/null", O_RDONLY | O_CLOEXEC);
}

static json_t *coherence;	/* the set's object in the last context */
static json_t *ctx;

static void prepare(void)
{
	char err[256];

	if (counters_select("coherence", NULL, err, sizeof(err)))
		fail_msg("%s", err);
	counters_prepare(NULL);
	json_decref(ctx);
	ctx = counters_context();
	coherence = json_object_get(json_object_get(ctx, "sets"), "coherence");
	assert_non_null(coherence);
}

static const char *text_of(json_t *obj, const char *key)
{
	return json_string_value(json_object_get(obj, key));
}

static uint64_t config_of(size_t i)
{
	char err[256];
	struct perf_event_attr attr;
	json_t *e = json_array_get(json_object_get(coherence, "events"), i);

	if (counters_encode(text_of(e, "event"), false, &attr, NULL, 0, err, sizeof(err)))
		fail_msg("%s", err);
	return attr.config;
}

static void expect_sum_of(const char *const *want, size_t n)
{
	json_t *totals = json_object_get(coherence, "totals");
	json_t *total = json_array_get(totals, 0);
	json_t *sum_of = json_object_get(total, "sum_of");

	assert_int_equal(json_array_size(totals), 1);
	assert_string_equal(text_of(total, "counter"), "c2c_fills_per_op");
	assert_int_equal(json_array_size(sum_of), n);
	for (size_t i = 0; i < n; i++)
		assert_string_equal(json_string_value(json_array_get(sum_of, i)), want[i]);
}

static struct {
	char *text;
	size_t len;
} listed;

/* bouncelab list --events' text, in listed.text. */
static void list_events(void)
{
	FILE *out = open_memstream(&listed.text, &listed.len);

	assert_non_null(out);
	counters_list(out);
	fclose(out);
}

static void all_three_and_their_sum(void **unused)
{
	static const char *const parts[] = {
		"c2c_fills_same_ccx_per_op", "c2c_fills_other_ccx_per_op",
		"c2c_fills_remote_node_per_op",
	};
	static const char sum_line[] =
		"    c2c_fills_per_op             the sum of the c2c_fills_* events above\n";
	json_t *events;
	const char *text, *sum;

	(void)unused;
	nr_refused = 0;
	prepare();
	assert_string_equal(text_of(ctx, "core_pmu"), "amd64_fam19h_zen3");
	assert_string_equal(text_of(coherence, "label"), "cache-to-cache fills");
	assert_string_equal(text_of(coherence, "status"), "ok");
	events = json_object_get(coherence, "events");
	assert_int_equal(json_array_size(events), 3);
	for (size_t i = 0; i < 3; i++) {
		assert_string_equal(text_of(json_array_get(events, i), "counter"), parts[i]);
		assert_string_equal(text_of(json_array_get(events, i), "status"), "ok");
	}
	assert_non_null(strstr(text_of(json_array_get(events, 2), "event"), "EXT_CACHE_RMT"));
	expect_sum_of(parts, 3);
	assert_null(json_object_get(json_object_get(ctx, "na"), "c2c_fills_per_op"));

	list_events();
	text = listed.text;
	assert_non_null(strstr(text, "\ncoherence  cache-to-cache fills: cross-core transfers of written lines\n"
				     "           works here\n"));
	sum = strstr(text, sum_line);
	assert_non_null(sum);
	/* once, after its parts */
	assert_null(strstr(sum + strlen(sum_line), "the sum of"));
	assert_true(strstr(text, "c2c_fills_remote_node_per_op") < sum);
	free(listed.text);
	listed.text = NULL;
}

static void the_sum_leaves_out_what_is_refused(void **unused)
{
	static const char *const parts[] = {
		"c2c_fills_same_ccx_per_op", "c2c_fills_remote_node_per_op",
	};
	json_t *na;

	(void)unused;
	nr_refused = 0;
	prepare();
	refused_config[0] = config_of(1);
	nr_refused = 1;
	prepare();
	assert_string_equal(text_of(coherence, "status"), "partial");
	assert_string_equal(text_of(coherence, "summary"),
			    "c2c_fills_other_ccx n/a (the counter is in use by another tool)");
	expect_sum_of(parts, 2);
	na = json_object_get(ctx, "na");
	assert_string_equal(text_of(na, "c2c_fills_other_ccx_per_op"),
			    "n/a (the counter is in use by another tool)");
	assert_null(json_object_get(na, "c2c_fills_per_op"));

	nr_refused = 0;
	prepare();
	for (size_t i = 0; i < 3; i++)
		refused_config[i] = config_of(i);
	nr_refused = 3;
	prepare();
	assert_string_equal(text_of(coherence, "status"), "n/a");
	assert_string_equal(text_of(coherence, "summary"),
			    "n/a (the counter is in use by another tool)");
	expect_sum_of(NULL, 0);
	assert_string_equal(text_of(json_object_get(ctx, "na"), "c2c_fills_per_op"),
			    "n/a (the counter is in use by another tool)");
	json_decref(ctx);
	ctx = NULL;
}

/*
 * An event whose name fills all but one of the 56 bytes a name has
 * (k differing from the event's default: _u_0_k_1) keeps the whole name,
 * in the context and in list --events.
 */
static void a_long_name_is_whole(void **unused)
{
	static const char name[] =
		"any_data_cache_fills_from_system_ext_cache_rmt_u_0_k_1_per_op";
	char err[256];
	json_t *events;

	(void)unused;
	nr_refused = 0;
	if (counters_select("none", "amd64_fam19h_zen3::ANY_DATA_CACHE_FILLS_FROM_SYSTEM:EXT_CACHE_RMT:k",
			    err, sizeof(err)))
		fail_msg("%s", err);
	counters_prepare(NULL);
	json_decref(ctx);
	ctx = counters_context();
	events = json_object_get(json_object_get(json_object_get(ctx, "sets"), "events"), "events");
	assert_string_equal(text_of(json_array_get(events, 0), "counter"), name);
	list_events();
	if (!strstr(listed.text, name))
		fail_msg("no %s in:\n%s", name, listed.text);
	free(listed.text);
	listed.text = NULL;
	json_decref(ctx);
	ctx = NULL;
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(all_three_and_their_sum),
		cmocka_unit_test(the_sum_leaves_out_what_is_refused),
		cmocka_unit_test(a_long_name_is_whole),
	};
	char err[256];

	(void)argc;
	(void)argv;
	if (!HAVE_PFM) {
		printf("skip: built without libpfm4, which encodes the events\n");
		return TEST_SKIPPED;
	}
	setenv("LIBPFM_FORCE_PMU", "amd64_fam19h_zen3", 1);
	counters_init();
	if (!counters_select("coherence", NULL, err, sizeof(err))) {
		json_t *c = counters_context();
		bool zen3 = !strcmp(text_of(c, "core_pmu") ? text_of(c, "core_pmu") : "",
				    "amd64_fam19h_zen3");

		json_decref(c);
		if (zen3)
			return cmocka_run_group_tests(tests, NULL, NULL);
	}
	printf("skip: this libpfm4 cannot be told its PMU is Zen 3\n");
	return TEST_SKIPPED;
}
