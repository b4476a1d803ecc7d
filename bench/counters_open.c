// SPDX-License-Identifier: GPL-2.0-only
/*
 * libpfm4 and perf_event_open: encoding an event, opening a thread's
 * events in their groups, and saying in words why one cannot be opened.
 *
 * Hardware events count user space only (PFM_PLM3): the kernels are user
 * code, and exclude_kernel is what lets an unprivileged user count at the
 * default kernel.perf_event_paranoid=2. The scheduler's software events
 * are the exception: they fire in kernel context, so counted user-only
 * they read 0 whatever happens (measured on Linux 6.x: 100 context
 * switches and 50 migrations counted with k=1, 0 and 0 with k=0).
 *
 * counters_prepare() opens every chosen event once in the main thread,
 * so that what cannot be counted is known, and said once, before any
 * benchmark thread starts; each thread then opens only what that probe
 * opened, in the groups it found.
 */
#include <errno.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "config.h"
#include "counters_internal.h"

#if HAVE_PFM
#include <perfmon/pfmlib_perf_event.h>
#endif

/* ---- libpfm4 ---------------------------------------------------------- */

#if HAVE_PFM
void counters_init(void)
{
	int ret;

	if (chosen.pfm_ready)
		return;
	ret = pfm_initialize();
	if (ret != PFM_SUCCESS) {
		snprintf(chosen.pfm_error, sizeof(chosen.pfm_error),
			 "libpfm4 did not initialise: %s", pfm_strerror(ret));
		return;
	}
	chosen.pfm_ready = true;
	chosen.pmu = detect_core_pmu();
}

int counters_encode(const char *event, bool kernel,
		    struct perf_event_attr *attr, char *canonical,
		    size_t canonical_len, char *why, size_t whylen)
{
	pfm_perf_encode_arg_t arg;
	char *fstr = NULL;
	int ret;

	if (!chosen.pfm_ready) {
		snprintf(why, whylen, "%s", chosen.pfm_error[0] ? chosen.pfm_error :
			 "libpfm4 is not initialised");
		return -1;
	}
	memset(attr, 0, sizeof(*attr));
	memset(&arg, 0, sizeof(arg));
	arg.attr = attr;
	arg.fstr = &fstr;
	arg.size = sizeof(arg);
	ret = pfm_get_os_event_encoding(event, kernel ? PFM_PLM0 | PFM_PLM3 : PFM_PLM3,
					PFM_OS_PERF_EVENT, &arg);
	if (ret != PFM_SUCCESS) {
		snprintf(why, whylen, "%s", pfm_strerror(ret));
		return -1;
	}
	if (canonical)
		snprintf(canonical, canonical_len, "%s", fstr ? fstr : event);
	free(fstr);
	attr->size = sizeof(*attr);
	return 0;
}
#else
void counters_init(void)
{
	snprintf(chosen.pfm_error, sizeof(chosen.pfm_error),
		 "bouncelab was built without libpfm4");
}

int counters_encode(const char *event, bool kernel,
		    struct perf_event_attr *attr, char *canonical,
		    size_t canonical_len, char *why, size_t whylen)
{
	(void)event;
	(void)kernel;
	(void)canonical;
	(void)canonical_len;
	memset(attr, 0, sizeof(*attr));
	snprintf(why, whylen, "bouncelab was built without libpfm4");
	return -1;
}
#endif

/* ---- why an event cannot be counted ----------------------------------- */

void counters_reason(int err, bool hardware_event, bool needs_kernel,
		     bool hardware_pmu, int paranoid, char *buf, size_t len)
{
	char level[48];

	if (paranoid == INT_MIN)
		snprintf(level, sizeof(level), "unknown");
	else
		snprintf(level, sizeof(level), "%d", paranoid);
	switch (err) {
	case ENOENT:
	case EOPNOTSUPP:
	case ENODEV:
		if (hardware_event && !hardware_pmu)
			snprintf(buf, len, "no hardware PMU");
		else if (hardware_event)
			snprintf(buf, len, "not supported by this PMU");
		else
			snprintf(buf, len, "not supported by this kernel");
		break;
	case EACCES:
	case EPERM:
		if (needs_kernel)
			snprintf(buf, len,
				 "permission: counting in the kernel needs sysctl kernel.perf_event_paranoid <= 1 (it is %s), root or CAP_PERFMON",
				 level);
		else
			snprintf(buf, len,
				 "permission: sysctl kernel.perf_event_paranoid is %s; user-space counting needs <= 2, root or CAP_PERFMON",
				 level);
		break;
	case EMFILE:
	case ENFILE:
		snprintf(buf, len, "too many open files");
		break;
	case EBUSY:
		snprintf(buf, len, "the counter is in use by another tool");
		break;
	case E2BIG:
		snprintf(buf, len, "this kernel is too old for the event");
		break;
	case EINVAL:
		snprintf(buf, len, "the kernel rejected the event's attributes");
		break;
	default:
		snprintf(buf, len, "cannot open: %s", strerror(err));
		break;
	}
}

static int read_paranoid(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
	int level;

	if (!f)
		return INT_MIN;
	if (fscanf(f, "%d", &level) != 1)
		level = INT_MIN;
	fclose(f);
	return level;
}

static int open_event(struct perf_event_attr *attr, int group)
{
	return (int)syscall(SYS_perf_event_open, attr, 0, -1, group,
			    PERF_FLAG_FD_CLOEXEC);
}

/* Can this process count a hardware event at all? */
static bool probe_hardware_pmu(void)
{
	struct perf_event_attr attr;
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_HARDWARE;
	attr.config = PERF_COUNT_HW_CPU_CYCLES;
	attr.disabled = 1;
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	fd = open_event(&attr, -1);
	if (fd >= 0) {
		close(fd);
		return true;
	}
	/* Refused for permission: say so per event, not "no PMU". */
	return errno != ENOENT && errno != EOPNOTSUPP && errno != ENODEV;
}

static bool is_hardware_type(uint32_t type)
{
	return type != PERF_TYPE_SOFTWARE && type != PERF_TYPE_TRACEPOINT &&
	       type != PERF_TYPE_BREAKPOINT;
}

/* ---- opening, per thread ----------------------------------------------- */

/* An event a thread could not open: dropped for all, said once. */
static void drop_event(struct counter_event *e, int err)
{
	if (atomic_exchange(&e->failed, true))
		return;
	counters_reason(err, e->hardware, e->needs_kernel, chosen.hardware_pmu,
			chosen.paranoid, e->failed_reason, sizeof(e->failed_reason));
	fprintf(stderr, "bouncelab: counters: %s n/a from now on (%s)\n", e->name,
		e->failed_reason);
}

/* The probe, run once in prepare, decides what every thread opens. */
static void note_probe_failure(struct counter_event *e, int err)
{
	e->available = false;
	counters_reason(err, e->hardware, e->needs_kernel, chosen.hardware_pmu,
			chosen.paranoid, e->reason, sizeof(e->reason));
}

/*
 * A set's hardware events form one group, so the PMU counts them over the
 * same cycles. Software events are never multiplexed and need no group;
 * worse, grouped under a task-clock leader they lose counts (measured on
 * Linux 6.18: a page-fault member read 0 with time_running 0 in 15 of 15
 * single-thread runs, while alone it counted all 256 faults), so each is
 * a group of its own.
 */
static int group_for(const struct counter_event *e, int leader)
{
	return e->own_group || !e->hardware ? -1 : leader;
}

static void open_set(struct counters_thread *ct, unsigned int set, bool probing)
{
	int leader = -1;

	for (unsigned int i = 0; i < chosen.nr_events; i++) {
		struct counter_event *e = &chosen.events[i];
		int group, fd;

		if (e->set != set || !e->available || atomic_load(&e->failed))
			continue;
		group = group_for(e, leader);
		fd = open_event(&e->attr, group);
		/* Too many for one group on this PMU: a group of its own. */
		if (fd < 0 && group >= 0 && errno == EINVAL) {
			group = -1;
			fd = open_event(&e->attr, group);
			if (fd >= 0 && probing)
				e->own_group = true;
		}
		if (fd < 0) {
			if (probing)
				note_probe_failure(e, errno);
			else
				drop_event(e, errno);
			continue;
		}
		if (leader < 0 && e->hardware && !e->own_group)
			leader = fd;
		ct->open[ct->nr].fd = fd;
		ct->open[ct->nr].leader = group < 0 ? fd : group;
		ct->open[ct->nr].event = i;
		ct->nr++;
	}
}

void open_all(struct counters_thread *ct, bool probing)
{
	ct->nr = 0;
	for (unsigned int s = 0; s < NR_SETS; s++)
		open_set(ct, s, probing);
}

void close_all(struct counters_thread *ct)
{
	for (unsigned int i = 0; i < ct->nr; i++)
		close(ct->open[i].fd);
	ct->nr = 0;
}

static void encode_all(void)
{
	for (unsigned int i = 0; i < chosen.nr_events; i++) {
		struct counter_event *e = &chosen.events[i];
		char why[128];

		if (counters_encode(e->event, e->needs_kernel, &e->attr, e->canonical,
				    sizeof(e->canonical), why, sizeof(why))) {
			snprintf(e->reason, sizeof(e->reason),
				 chosen.pfm_ready ? "libpfm4 cannot encode it: %s" : "%s", why);
			continue;
		}
		e->attr.disabled = 1;
		e->attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
				      PERF_FORMAT_TOTAL_TIME_RUNNING;
		e->hardware = is_hardware_type(e->attr.type);
		e->available = true;
	}
}

void counters_prepare(FILE *notes)
{
	struct counters_thread probe;

	chosen.paranoid = read_paranoid();
	chosen.hardware_pmu = probe_hardware_pmu();
	/* A VM without a PMU often shows libpfm4 no model either: say the cause. */
	if (chosen.coherence_unknown && !chosen.hardware_pmu)
		snprintf(chosen.set_reason[SET_COHERENCE], COUNTERS_REASON_LEN,
			 "no hardware PMU");
	else if (chosen.coherence_unknown)
		snprintf(chosen.set_reason[SET_COHERENCE], COUNTERS_REASON_LEN,
			 "no coherence events known for this CPU (libpfm4 core PMU: %s); try --events",
			 chosen.pmu ? chosen.pmu : "none detected");
	encode_all();
	open_all(&probe, true);
	close_all(&probe);
	chosen.prepared = true;
	if (!notes)
		return;
	for (unsigned int s = 0; s < NR_SETS; s++) {
		char status[1024] = "";
		unsigned int ok;

		if (!chosen.requested[s])
			continue;
		ok = set_status(s, status, sizeof(status));
		if (status[0])
			fprintf(notes, "bouncelab: counters: %s%s %s\n", set_names[s],
				ok ? ":" : "", status);
	}
}
