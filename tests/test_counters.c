// SPDX-License-Identifier: GPL-2.0-only
/*
 * Counters without a PMU: software events count per thread, and every way
 * a counter can be missing degrades to "n/a (reason)" without failing.
 * perf_event_open failures are injected with a seccomp filter in a forked
 * child (tests/perf_inject.c), so these paths run on any machine.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "config.h"
#include "counters.h"
#include "perf_inject.h"
#include "cases.h"

#define NEW_PAGES 256

/*
 * The fewest faults NEW_PAGES fresh anonymous pages can take. With
 * multi-size THP (Linux 6.8, /sys/kernel/mm/transparent_hugepage/
 * hugepages-*kB) one fault can map a whole large folio: at least one fault
 * per folio of the largest size enabled for every mapping ("always", or
 * "inherit" from a top-level "always"). "madvise" sizes do not apply: the
 * test never calls madvise().
 */
static bool thp_mode_is(const char *path, const char *mode)
{
	char line[256], want[32];
	FILE *f = fopen(path, "r");
	bool found;

	if (!f)
		return false;
	found = fgets(line, sizeof(line), f) != NULL;
	fclose(f);
	snprintf(want, sizeof(want), "[%s]", mode);
	return found && strstr(line, want);
}

static double fewest_faults(void)
{
	static const char *thp = "/sys/kernel/mm/transparent_hugepage";
	long page = sysconf(_SC_PAGESIZE);
	bool top_always;
	char path[256];
	long largest = page;

	snprintf(path, sizeof(path), "%s/enabled", thp);
	top_always = thp_mode_is(path, "always");
	for (long kb = 8; kb <= 1L << 20; kb *= 2) {
		snprintf(path, sizeof(path), "%s/hugepages-%ldkB/enabled", thp, kb);
		if (thp_mode_is(path, "always") ||
		    (top_always && thp_mode_is(path, "inherit")))
			largest = kb * 1024 > largest ? kb * 1024 : largest;
	}
	/* Before 6.8 only PMD-sized THP, which "always" enables. */
	if (top_always && largest == page)
		largest = 2L << 20;
	return largest >= (long)NEW_PAGES * page ? 1 :
	       (double)NEW_PAGES * (double)page / (double)largest;
}

/* ---- helpers ------------------------------------------------------------ */

static const char *set_summary(json_t *ctx, const char *set)
{
	json_t *s = json_object_get(json_object_get(json_object_get(ctx, "sets"), set),
				    "summary");

	return json_is_string(s) ? json_string_value(s) : "";
}

static const char *set_state(json_t *ctx, const char *set)
{
	json_t *s = json_object_get(json_object_get(json_object_get(ctx, "sets"), set),
				    "status");

	return json_is_string(s) ? json_string_value(s) : "";
}

static const char *na(json_t *ctx, const char *counter)
{
	json_t *s = json_object_get(json_object_get(ctx, "na"), counter);

	return json_is_string(s) ? json_string_value(s) : NULL;
}

static bool sw_counters_work_here(void)
{
	char err[256];
	bool ok;

	assert_int_equal(counters_select("sw", NULL, err, sizeof(err)), 0);
	counters_prepare(NULL);
	ok = counters_active();
	return ok;
}

/*
 * Runs scenario in a forked child (seccomp filters cannot be removed) and
 * returns the JSON object it filled.
 */
static json_t *in_child(void (*scenario)(json_t *out, void *arg), void *arg)
{
	int fds[2], status;
	char buf[1 << 16];
	size_t len = 0;
	ssize_t n;
	pid_t pid;

	assert_int_equal(pipe(fds), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		json_t *out = json_object();
		char *text;

		close(fds[0]);
		scenario(out, arg);
		text = json_dumps(out, JSON_COMPACT);
		if (!text || write(fds[1], text, strlen(text)) < 0)
			_exit(1);
		_exit(0);
	}
	close(fds[1]);
	while ((n = read(fds[0], buf + len, sizeof(buf) - 1 - len)) > 0)
		len += (size_t)n;
	close(fds[0]);
	buf[len] = '\0';
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	return json_loads(buf, 0, NULL);
}

/* ---- software events, per thread --------------------------------------- */

struct toucher {
	pthread_barrier_t *ready, *done;
	bool touch;
	double faults, task_clock;
	int read_faults, read_clock;
};

static void touch_new_pages(unsigned int nr)
{
	long page = sysconf(_SC_PAGESIZE);
	volatile char *p = mmap(NULL, (size_t)page * nr, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	assert_true(p != MAP_FAILED);
	for (unsigned int i = 0; i < nr; i++)
		p[(size_t)i * (size_t)page] = 1;
	munmap((void *)p, (size_t)page * nr);
}

static void *toucher_main(void *arg)
{
	struct toucher *t = arg;
	struct counters_thread *ct = counters_thread_open();

	counters_thread_enable(ct);
	pthread_barrier_wait(t->ready);
	if (t->touch)
		touch_new_pages(NEW_PAGES);
	/* Both are counting while one of them faults. */
	pthread_barrier_wait(t->done);
	counters_thread_disable(ct);
	t->read_faults = counters_thread_read(ct, "page_faults", &t->faults);
	t->read_clock = counters_thread_read(ct, "task_clock_ns", &t->task_clock);
	counters_thread_finish(ct, NULL, 0);
	return NULL;
}

static void page_faults_count_in_the_faulting_thread_only(void **unused)
{
	pthread_barrier_t ready, done;
	struct toucher t[2] = {
		{ &ready, &done, true, 0, 0, -1, -1 },
		{ &ready, &done, false, 0, 0, -1, -1 },
	};
	pthread_t tid[2];

	(void)unused;
	if (!sw_counters_work_here())
		skip_because("software counters do not work here");
	pthread_barrier_init(&ready, NULL, 2);
	pthread_barrier_init(&done, NULL, 2);
	for (int i = 0; i < 2; i++)
		assert_int_equal(pthread_create(&tid[i], NULL, toucher_main, &t[i]), 0);
	for (int i = 0; i < 2; i++)
		pthread_join(tid[i], NULL);
	pthread_barrier_destroy(&ready);
	pthread_barrier_destroy(&done);
	assert_int_equal(t[0].read_faults, 0);
	assert_int_equal(t[1].read_faults, 0);
	if (t[0].faults < fewest_faults())
		fail_msg("%.0f faults counted for %d new pages, expected at least %.0f (task clock %.0f, other %.0f)",
			 t[0].faults, NEW_PAGES, fewest_faults(), t[0].task_clock, t[1].faults);
	if (t[1].faults >= fewest_faults() || t[1].faults >= t[0].faults)
		fail_msg("the idle thread counted %.0f faults, the faulting one %.0f: not per thread",
			 t[1].faults, t[0].faults);
	assert_int_equal(t[0].read_clock, 0);
	assert_true(t[0].task_clock > 0);
}

/* ---- what the user asked for -------------------------------------------- */

static void unknown_set_is_a_usage_error_naming_the_sets(void **unused)
{
	char err[256];

	(void)unused;
	assert_int_equal(counters_select("coherence,hitm", NULL, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "'hitm'"));
	assert_non_null(strstr(err, "coherence, basic, sw"));
	assert_int_equal(counters_select("", NULL, err, sizeof(err)), -1);
	assert_int_equal(counters_select("none", NULL, err, sizeof(err)), 0);
	counters_prepare(NULL);
	assert_false(counters_active());
	assert_null(counters_thread_open());
}

static void misspelt_event_is_a_usage_error_with_libpfm4s_message(void **unused)
{
	char err[256];

	(void)unused;
	if (!HAVE_PFM)
		skip_because("built without libpfm4");
	assert_int_equal(counters_select("none", "perf::PERF_COUNT_SW_PAGE_FAULTZ",
					 err, sizeof(err)), -1);
	assert_non_null(strstr(err, "PERF_COUNT_SW_PAGE_FAULTZ"));
	assert_non_null(strstr(err, "event not found"));
	assert_int_equal(counters_select("none", "perf::PERF_COUNT_SW_PAGE_FAULTS,", err,
					 sizeof(err)), -1);
	/* A good one becomes a counter of its own. */
	assert_int_equal(counters_select("none", "perf::PERF_COUNT_SW_PAGE_FAULTS", err,
					 sizeof(err)), 0);
	counters_prepare(NULL);
	{
		json_t *ctx = counters_context();
		json_t *ev = json_array_get(json_object_get(json_object_get(
			json_object_get(ctx, "sets"), "events"), "events"), 0);

		assert_string_equal(json_string_value(json_object_get(ev, "counter")),
				    "perf_count_sw_page_faults_per_op");
		json_decref(ctx);
	}
}

/* ---- degradation: every reason ------------------------------------------ */

static void prepare_under(json_t *out, void *arg)
{
	int err = *(int *)arg;
	char msg[256];

	if (perf_inject_errno(err, PERF_INJECT_ALL))
		_exit(2);
	if (counters_select("coherence,basic,sw", NULL, msg, sizeof(msg)))
		_exit(3);
	counters_prepare(NULL);
	json_object_set_new(out, "context", counters_context());
	json_object_set_new(out, "active", json_boolean(counters_active()));
	json_object_set_new(out, "thread", json_boolean(counters_thread_open() != NULL));
}

static json_t *context_under(int err, json_t **result)
{
	*result = in_child(prepare_under, &err);
	assert_non_null(*result);
	assert_false(json_is_true(json_object_get(*result, "active")));
	assert_false(json_is_true(json_object_get(*result, "thread")));
	return json_object_get(*result, "context");
}

static void no_pmu_is_not_supported_here(void **unused)
{
	static const int errs[] = { ENOENT, EOPNOTSUPP, ENODEV };
	json_t *result;

	(void)unused;
	if (!perf_inject_supported() || !HAVE_PFM)
		skip_because("no seccomp injection here, or built without libpfm4");
	for (size_t i = 0; i < sizeof(errs) / sizeof(errs[0]); i++) {
		json_t *ctx = context_under(errs[i], &result);

		assert_false(json_is_true(json_object_get(ctx, "hardware_pmu")));
		assert_string_equal(set_state(ctx, "coherence"), "n/a");
		assert_string_equal(set_summary(ctx, "coherence"), "n/a (no hardware PMU)");
		assert_string_equal(set_summary(ctx, "basic"), "n/a (no hardware PMU)");
		assert_string_equal(na(ctx, "cycles_per_op"), "n/a (no hardware PMU)");
		assert_string_equal(set_summary(ctx, "sw"),
				    "n/a (not supported by this kernel)");
		json_decref(result);
	}
}

static void prepare_long_raw_event(json_t *out, void *arg)
{
	char msg[256];

	(void)arg;
	if (perf_inject_errno(ENOENT, PERF_INJECT_ALL))
		_exit(2);
	/* a canonical name of 55 characters, as long as names are kept */
	if (counters_select("none", "amd64_fam19h_zen4::ANY_DATA_CACHE_FILLS_FROM_SYSTEM:"
			    "LOCAL_CCX:NEAR_CACHE_NEAR_FAR:FAR_CACHE_NEAR_FAR", msg, sizeof(msg)))
		_exit(3);
	counters_prepare(NULL);
	json_object_set_new(out, "context", counters_context());
}

/*
 * Every event n/a is in "na" under the counter its row would carry, as
 * "n/a (REASON)" with its reason whole: the longest name, and the longest
 * reasons (the sysctl's), each built in a buffer of its own.
 */
static unsigned int check_na_of(json_t *ctx)
{
	json_t *set, *ev;
	const char *name;
	unsigned int nr = 0;
	size_t i;

	json_object_foreach(json_object_get(ctx, "sets"), name, set) {
		json_array_foreach(json_object_get(set, "events"), i, ev) {
			const char *counter = json_string_value(json_object_get(ev, "counter"));
			const char *reason = json_string_value(json_object_get(ev, "reason"));
			char want[512];

			assert_non_null(counter);
			if (!reason)
				continue;
			snprintf(want, sizeof(want), "n/a (%s)", reason);
			if (!na(ctx, counter) || strcmp(na(ctx, counter), want))
				fail_msg("%s: \"na\" has \"%s\", expected \"%s\"", counter,
					 na(ctx, counter) ? na(ctx, counter) : "nothing", want);
			nr++;
		}
	}
	return nr;
}

static void every_event_na_is_listed_under_its_counter(void **unused)
{
	static const int errs[] = { ENOENT, EACCES, EOPNOTSUPP, ENODEV };
	json_t *result;
	size_t longest = 0;

	(void)unused;
	if (!perf_inject_supported() || !HAVE_PFM)
		skip_because("no seccomp injection here, or built without libpfm4");
	result = in_child(prepare_long_raw_event, NULL);
	assert_non_null(result);
	assert_int_equal(check_na_of(json_object_get(result, "context")), 1);
	json_decref(result);
	for (size_t e = 0; e < sizeof(errs) / sizeof(errs[0]); e++) {
		json_t *ctx = context_under(errs[e], &result), *set, *ev;
		const char *name;
		size_t i;

		assert_true(check_na_of(ctx) > 0);
		json_object_foreach(json_object_get(ctx, "sets"), name, set)
			json_array_foreach(json_object_get(set, "events"), i, ev)
				if (json_string_length(json_object_get(ev, "reason")) > longest)
					longest = json_string_length(json_object_get(ev, "reason"));
		json_decref(result);
	}
	print_message("longest reason: %zu characters\n", longest);
}

static void permission_names_the_sysctl(void **unused)
{
	json_t *result, *ctx;

	(void)unused;
	if (!perf_inject_supported() || !HAVE_PFM)
		skip_because("no seccomp injection here, or built without libpfm4");
	ctx = context_under(EACCES, &result);
	assert_string_equal(set_state(ctx, "sw"), "n/a");
	/* Two reasons: user-space counting, and the kernel-side events. */
	assert_non_null(strstr(na(ctx, "page_faults_per_op"),
			       "permission: sysctl kernel.perf_event_paranoid is"));
	assert_non_null(strstr(na(ctx, "context_switches_per_op"),
			       "kernel.perf_event_paranoid <= 1"));
	assert_non_null(strstr(set_summary(ctx, "sw"), "task_clock_ns, page_faults n/a (permission"));
	assert_non_null(strstr(na(ctx, "cycles_per_op"), "kernel.perf_event_paranoid"));
	json_decref(result);
}

static void other_errors_say_what_happened(void **unused)
{
	json_t *result, *ctx;

	(void)unused;
	if (!perf_inject_supported() || !HAVE_PFM)
		skip_because("no seccomp injection here, or built without libpfm4");
	ctx = context_under(EMFILE, &result);
	assert_string_equal(set_summary(ctx, "sw"), "n/a (too many open files)");
	json_decref(result);
	ctx = context_under(EBUSY, &result);
	assert_string_equal(na(ctx, "page_faults_per_op"),
			    "n/a (the counter is in use by another tool)");
	json_decref(result);
}

static void reasons_in_words(void **unused)
{
	char buf[256];

	(void)unused;
	counters_reason(ENOENT, true, false, false, 2, buf, sizeof(buf));
	assert_string_equal(buf, "no hardware PMU");
	counters_reason(ENOENT, true, false, true, 2, buf, sizeof(buf));
	assert_string_equal(buf, "not supported by this PMU");
	counters_reason(EOPNOTSUPP, false, false, true, 2, buf, sizeof(buf));
	assert_string_equal(buf, "not supported by this kernel");
	counters_reason(EACCES, true, false, true, 3, buf, sizeof(buf));
	assert_non_null(strstr(buf, "kernel.perf_event_paranoid is 3"));
	counters_reason(EPERM, false, true, true, 2, buf, sizeof(buf));
	assert_non_null(strstr(buf, "kernel.perf_event_paranoid <= 1 (it is 2)"));
	counters_reason(EIO, false, false, true, 2, buf, sizeof(buf));
	assert_non_null(strstr(buf, strerror(EIO)));
}

/* ---- degradation inside a run ------------------------------------------- */

/*
 * Software events need no group: opened into one under a task-clock
 * leader they lose counts (see group_for() in bench/counters_open.c). With
 * every open into a group refused, they must all still count.
 */
static void groups_refused(json_t *out, void *arg)
{
	char msg[256];
	double faults = -1;
	struct counters_thread *ct;

	(void)arg;
	if (perf_inject_errno(EINVAL, PERF_INJECT_GROUP_MEMBERS) ||
	    counters_select("sw", NULL, msg, sizeof(msg)))
		_exit(2);
	counters_prepare(NULL);
	ct = counters_thread_open();
	counters_thread_enable(ct);
	touch_new_pages(NEW_PAGES);
	counters_thread_disable(ct);
	counters_thread_read(ct, "page_faults", &faults);
	counters_thread_finish(ct, NULL, 0);
	json_object_set_new(out, "context", counters_context());
	json_object_set_new(out, "faults", json_real(faults));
}

static void software_events_count_without_a_group(void **unused)
{
	json_t *result, *ctx;

	(void)unused;
	if (!perf_inject_supported() || !HAVE_PFM || !sw_counters_work_here())
		skip_because("no seccomp injection, libpfm4 or software counters here");
	result = in_child(groups_refused, NULL);
	ctx = json_object_get(result, "context");
	assert_string_equal(set_state(ctx, "sw"), "ok");
	assert_true(json_number_value(json_object_get(result, "faults")) >= fewest_faults());
	json_decref(result);
}

/* Opens that worked in prepare fail in a benchmark thread. */
static void *open_in_thread(void *arg)
{
	struct counters_thread *ct = counters_thread_open();

	(void)arg;
	counters_thread_enable(ct);
	counters_thread_disable(ct);
	counters_thread_finish(ct, NULL, 0);
	return NULL;
}

/* Room for exactly one more file descriptor: the lowest free one. */
static void allow_one_more_fd(void)
{
	int lowest = dup(0);
	struct rlimit lim;

	close(lowest);
	getrlimit(RLIMIT_NOFILE, &lim);
	lim.rlim_cur = (rlim_t)lowest + 1;
	if (setrlimit(RLIMIT_NOFILE, &lim))
		_exit(4);
}

static void thread_opens_fail(json_t *out, void *arg)
{
	char msg[256];
	pthread_t tid;

	(void)arg;
	if (counters_select("sw", NULL, msg, sizeof(msg)))
		_exit(2);
	counters_prepare(NULL);
	if (!counters_active())
		_exit(3);
	allow_one_more_fd();
	/* Twice: the second thread must not report it again, or try. */
	for (int i = 0; i < 2; i++) {
		pthread_create(&tid, NULL, open_in_thread, NULL);
		pthread_join(tid, NULL);
	}
	json_object_set_new(out, "context", counters_context());
	json_object_set_new(out, "active", json_boolean(counters_active()));
}

static void an_event_a_thread_cannot_open_is_dropped_for_all(void **unused)
{
	json_t *result, *ctx;

	(void)unused;
	if (!HAVE_PFM || !sw_counters_work_here())
		skip_because("no libpfm4 or software counters here");
	result = in_child(thread_opens_fail, NULL);
	ctx = json_object_get(result, "context");
	/* The first event got the last descriptor; the others could not. */
	assert_null(na(ctx, "task_clock_ns_per_op"));
	assert_string_equal(na(ctx, "page_faults_per_op"), "n/a (too many open files)");
	assert_string_equal(na(ctx, "cpu_migrations_per_op"), "n/a (too many open files)");
	assert_string_equal(set_state(ctx, "sw"), "partial");
	assert_true(json_is_true(json_object_get(result, "active")));
	json_decref(result);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(page_faults_count_in_the_faulting_thread_only),
		cmocka_unit_test(unknown_set_is_a_usage_error_naming_the_sets),
		cmocka_unit_test(misspelt_event_is_a_usage_error_with_libpfm4s_message),
		cmocka_unit_test(no_pmu_is_not_supported_here),
		cmocka_unit_test(every_event_na_is_listed_under_its_counter),
		cmocka_unit_test(permission_names_the_sysctl),
		cmocka_unit_test(other_errors_say_what_happened),
		cmocka_unit_test(reasons_in_words),
		cmocka_unit_test(software_events_count_without_a_group),
		cmocka_unit_test(an_event_a_thread_cannot_open_is_dropped_for_all),
	};

	counters_init();
	return run_cases("counters", tests, argc, argv);
}
