// SPDX-License-Identifier: GPL-2.0-only
/*
 * has_pinned's verify on a state this test may change: kernels/has_pinned.c
 * is compiled into this program (as the instrumented builds do), so the
 * calls that found the flag clear, counted per thread, can be told one
 * off after a right run. With one thread the count is exact: first pins
 * (fresh mms) and the shared mm's first call, no more, no fewer; with
 * two, at most one first call each. already_set=25: 1000 calls of which
 * about three quarters go to fresh mms.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "has_pinned.c"

static const char *const readers[] = { "read_then_set", "test_then_set_bit",
				       "test_and_set_bit" };

/* verify after a right run of threads x 1000 calls, found_clear moved by delta. */
static int verify_moved(const char *variant, unsigned int threads, int delta,
			char *msg, size_t msglen)
{
	const struct kernel_family *f = &has_pinned_family;
	struct kernel_metrics metrics = { 0 };
	struct has_pinned_state *s;
	struct kernel_config cfg;
	uint64_t ops[2] = { 1000, 1000 };
	char err[256];
	int v = -1, ret;

	for (unsigned int i = 0; i < f->nr_variants; i++)
		if (!strcmp(f->variants[i].name, variant))
			v = (int)i;
	assert_true(v >= 0);
	kernel_config_defaults(f, &cfg);
	cfg.variant = (unsigned int)v;
	cfg.nr_threads = threads;
	cfg.param[kernel_param_index(f, "already_set")] = 25;
	s = f->create(&cfg, err, sizeof(err));
	if (!s)
		fail_msg("%s", err);
	/* one after the other: the count is the same as side by side */
	for (unsigned int t = 0; t < threads; t++)
		f->variants[v].run(s, t, ops[t]);
	s->slots[0].found_clear += (uint64_t)(int64_t)delta;
	msg[0] = '\0';
	ret = f->verify(s, &cfg, ops, &metrics, msg, msglen);
	f->destroy(s);
	return ret;
}

/*
 * Catches check_flags()'s exact test for one thread lost ("nr_threads ==
 * 1" as "== 0"): one call fewer found the flag clear would pass.
 */
static void one_thread_finds_the_flag_clear_exactly(void **unused)
{
	char msg[512];

	(void)unused;
	for (size_t i = 0; i < sizeof(readers) / sizeof(readers[0]); i++) {
		if (verify_moved(readers[i], 1, 0, msg, sizeof(msg)))
			fail_msg("%s: a right run failed verify: %s", readers[i], msg);
		for (int delta = -1; delta <= 1; delta += 2) {
			if (!verify_moved(readers[i], 1, delta, msg, sizeof(msg)))
				fail_msg("%s: verify passed found_clear %+d", readers[i], delta);
			if (!strstr(msg, "calls found the flag clear, expected ") ||
			    strstr(msg, "at most"))
				fail_msg("%s: \"%s\"", readers[i], msg);
		}
	}
}

/*
 * With two threads each may find the shared mm clear once, racing: the
 * most is the first pins and 2. Run one after the other, only thread 0
 * finds it clear, one below that most: one fewer still passes, one more
 * reaches the most and passes, two more are past it.
 */
static void two_threads_find_it_clear_at_most_once_each(void **unused)
{
	char msg[512];

	(void)unused;
	for (size_t i = 0; i < sizeof(readers) / sizeof(readers[0]); i++) {
		for (int delta = -1; delta <= 1; delta++)
			if (verify_moved(readers[i], 2, delta, msg, sizeof(msg)))
				fail_msg("%s: found_clear %+d failed verify: %s", readers[i],
					 delta, msg);
		if (!verify_moved(readers[i], 2, 2, msg, sizeof(msg)))
			fail_msg("%s: verify passed found_clear + 2", readers[i]);
		if (!strstr(msg, "expected at most"))
			fail_msg("%s: \"%s\"", readers[i], msg);
	}
}

/*
 * Where each thread's walk of the fresh mms starts: spread evenly over
 * the 64, thread t of n at t * 64 / n rounded down, so that threads meet
 * no fresh mm another has just written (0 and 32 of 2; 0, 21 and 42 of
 * 3; 0, 16, 32 and 48 of 4).
 */
static void threads_start_the_fresh_mms_spread_out(void **unused)
{
	static const unsigned int want[][4] = { { 0 }, { 0, 32 }, { 0, 21, 42 }, { 0, 16, 32, 48 } };
	const struct kernel_family *f = &has_pinned_family;

	(void)unused;
	assert_int_equal(NR_FRESH_MMS, 64);
	for (unsigned int n = 1; n <= 4; n++) {
		struct kernel_config cfg;
		struct has_pinned_state *s;
		char err[256];

		kernel_config_defaults(f, &cfg);
		cfg.nr_threads = n;
		s = f->create(&cfg, err, sizeof(err));
		if (!s)
			fail_msg("%s", err);
		for (unsigned int t = 0; t < n; t++)
			assert_int_equal(cursor_of(s, t).next_fresh, want[n - 1][t]);
		f->destroy(s);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(one_thread_finds_the_flag_clear_exactly),
		cmocka_unit_test(two_threads_find_it_clear_at_most_once_each),
		cmocka_unit_test(threads_start_the_fresh_mms_spread_out),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
