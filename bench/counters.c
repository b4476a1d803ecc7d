// SPDX-License-Identifier: GPL-2.0-only
/*
 * Counters per operation through libpfm4 and perf_event_open.
 *
 * Every benchmark thread opens its own groups (pid 0, cpu -1: the calling
 * thread wherever it runs), one group per set for hardware events so that
 * they are scheduled together (software events each alone, see
 * group_for()); enables them around the kernel's run call; and
 * reads each event with time_enabled and time_running, scaling a
 * multiplexed count by enabled/running.
 *
 * Hardware events count user space only (PFM_PLM3): the kernels are user
 * code, and exclude_kernel is what lets an unprivileged user count at the
 * default kernel.perf_event_paranoid=2. The scheduler's software events
 * are the exception: they fire in kernel context, so counted user-only
 * they read 0 whatever happens (measured on Linux 6.x: 100 context
 * switches and 50 migrations counted with k=1, 0 and 0 with k=0).
 *
 * Which events are chosen and why any are not available is decided once,
 * in the main thread, before any benchmark thread starts; during the run
 * that selection is read-only, except for the "failed" flag of an event
 * that a thread could not open (then dropped for all threads, see
 * counters_thread_finish()).
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "config.h"
#include "counters.h"
#include "gbench.h"

#if HAVE_PFM
#include <perfmon/pfmlib_perf_event.h>
#endif

enum counter_set {
	SET_COHERENCE,
	SET_BASIC,
	SET_SW,
	SET_EVENTS,	/* --events: raw libpfm4 strings */
	NR_SETS,
};

static const char *const set_names[NR_SETS] = {
	"coherence", "basic", "sw", "events",
};

static const char *const set_titles[NR_SETS] = {
	"cross-core transfers of written lines",
	"cycles, instructions, L1D and LLC load misses",
	"task clock, page faults, context switches, CPU migrations",
	"raw libpfm4 events (--events)",
};

struct counter_def {
	const char *name;	/* counter stem: NAME_per_op */
	const char *event;	/* libpfm4 string */
	const char *total;	/* the sum it adds to, or NULL */
	bool needs_kernel;	/* fires in kernel context only */
};

#define EVENT(name, event)		{ name, event, NULL, false }
#define KERNEL_EVENT(name, event)	{ name, event, NULL, true }
#define PART_OF(total, name, event)	{ name, event, total, false }
#define END				{ NULL, NULL, NULL, false }

/* perf's generic events, mapped by the kernel to this CPU's own. */
static const struct counter_def basic_defs[] = {
	EVENT("cycles", "perf::PERF_COUNT_HW_CPU_CYCLES"),
	EVENT("instructions", "perf::PERF_COUNT_HW_INSTRUCTIONS"),
	EVENT("l1d_load_misses", "perf::PERF_COUNT_HW_CACHE_L1D:READ:MISS"),
	EVENT("llc_load_misses", "perf::PERF_COUNT_HW_CACHE_LL:READ:MISS"),
	END,
};

static const struct counter_def sw_defs[] = {
	EVENT("task_clock_ns", "perf::PERF_COUNT_SW_TASK_CLOCK"),
	EVENT("page_faults", "perf::PERF_COUNT_SW_PAGE_FAULTS"),
	KERNEL_EVENT("context_switches", "perf::PERF_COUNT_SW_CONTEXT_SWITCHES"),
	KERNEL_EVENT("cpu_migrations", "perf::PERF_COUNT_SW_CPU_MIGRATIONS"),
	END,
};

/*
 * The coherence events by libpfm4 core PMU model. HITM is a load that
 * found the line Modified in another core's cache: load-side evidence
 * that some other core is writing it (perf c2c's "Lcl/Rmt HITM"). Names
 * and umasks checked by encoding them with libpfm4 4.13 and
 * LIBPFM_ENCODE_INACTIVE=1 (tests/test_counter_events.c); gnr and zen5
 * are newer than 4.13 and taken from libpfm4's later tables.
 */
struct coherence_model {
	const char *const *pmus;
	const char *label;
	struct counter_def defs[4];
};

static const char *const intel_uops_client[] = { "hsw", "bdw", NULL };
static const char *const intel_uops_server[] = { "hsw_ep", "bdw_ep", NULL };
static const char *const intel_client[] = { "skl", "icl", NULL };
/* Only the server parts have the remote (other socket) umasks. */
static const char *const intel_server[] = { "skx", "clx", "icx", NULL };
/* Sapphire Rapids renamed XSNP_HITM (same umask 0x04) to XSNP_FWD. */
static const char *const intel_fwd[] = { "spr", "gnr", NULL };
static const char *const amd_zen2[] = { "amd64_fam17h_zen2", NULL };
static const char *const amd_zen3[] = { "amd64_fam19h_zen3", NULL };
static const char *const amd_zen4[] = { "amd64_fam19h_zen4", NULL };
static const char *const amd_zen5[] = { "amd64_fam1ah_zen5", NULL };
/*
 * Hybrid Intel (Alder and Raptor Lake): libpfm4 shows both core PMUs;
 * only the P-core's (Golden Cove, the core of Sapphire Rapids) is listed
 * here, so detect_core_pmu() picks it. A thread the run places on an
 * E-core counts nothing on it: place on P-cores to count.
 */
static const char *const intel_hybrid_p[] = { "adl_glc", NULL };
static const char *const arm_neoverse[] = { "arm_n1", "arm_n2", NULL };

#define HITM "HITM"
/*
 * AMD counts fills by where the data came from, not the M state, so these
 * are a proxy for HITM. The same-CCX umask also counts plain L3 hits.
 */
#define C2C "cache-to-cache fills"
#define ANY_FILLS "ANY_DATA_CACHE_FILLS_FROM_SYSTEM:"
#define ZEN2_FILLS "DATA_CACHE_REFILLS_FROM_SYSTEM:"
/*
 * Arm has no HITM: a line another core wrote comes into L1D as a refill,
 * from inside the cluster (another core's cache, L2 or L3: INNER) or
 * from outside it (OUTER); REMOTE_ACCESS is another socket's.
 */
#define ARM_REFILLS "L1D refills"

static const struct coherence_model coherence_models[] = {
	{ intel_uops_client, HITM, {
		PART_OF("hitm", "hitm_local", "MEM_LOAD_UOPS_L3_HIT_RETIRED:XSNP_HITM"),
	} },
	{ intel_uops_server, HITM, {
		PART_OF("hitm", "hitm_local", "MEM_LOAD_UOPS_L3_HIT_RETIRED:XSNP_HITM"),
		PART_OF("hitm", "hitm_remote", "MEM_LOAD_UOPS_L3_MISS_RETIRED:REMOTE_HITM"),
	} },
	{ intel_client, HITM, {
		PART_OF("hitm", "hitm_local", "MEM_LOAD_L3_HIT_RETIRED:XSNP_HITM"),
	} },
	{ intel_server, HITM, {
		PART_OF("hitm", "hitm_local", "MEM_LOAD_L3_HIT_RETIRED:XSNP_HITM"),
		PART_OF("hitm", "hitm_remote", "MEM_LOAD_L3_MISS_RETIRED:REMOTE_HITM"),
	} },
	{ intel_fwd, HITM, {
		PART_OF("hitm", "hitm_local", "MEM_LOAD_L3_HIT_RETIRED:XSNP_FWD"),
		PART_OF("hitm", "hitm_remote", "MEM_LOAD_L3_MISS_RETIRED:REMOTE_HITM"),
	} },
	/* Zen 2 tells only the home node: local or remote. */
	{ amd_zen2, C2C, {
		PART_OF("c2c_fills", "c2c_fills_same_node", ZEN2_FILLS "LS_MABRESP_LCL_CACHE"),
		PART_OF("c2c_fills", "c2c_fills_remote_node", ZEN2_FILLS "LS_MABRESP_RMT_CACHE"),
	} },
	{ amd_zen3, C2C, {
		PART_OF("c2c_fills", "c2c_fills_same_ccx", ANY_FILLS "INT_CACHE"),
		PART_OF("c2c_fills", "c2c_fills_other_ccx", ANY_FILLS "EXT_CACHE_LCL"),
		PART_OF("c2c_fills", "c2c_fills_remote_node", ANY_FILLS "EXT_CACHE_RMT"),
	} },
	{ amd_zen4, C2C, {
		PART_OF("c2c_fills", "c2c_fills_same_ccx", ANY_FILLS "LOCAL_CCX"),
		PART_OF("c2c_fills", "c2c_fills_other_ccx", ANY_FILLS "NEAR_CACHE_NEAR_FAR"),
		PART_OF("c2c_fills", "c2c_fills_remote_node", ANY_FILLS "FAR_CACHE_NEAR_FAR"),
	} },
	/*
	 * Intel's Alder Lake cpu_core list: 0xd2 umask 0x04, XSNP_FWD as on
	 * Sapphire Rapids. Newer than libpfm4 4.13: unchecked there, and n/a
	 * with libpfm4's reason where its name differs.
	 */
	{ intel_hybrid_p, HITM, {
		PART_OF("hitm", "hitm_local", "MEM_LOAD_L3_HIT_RETIRED:XSNP_FWD"),
	} },
	/* libpfm4's arm_n1_pe and arm_n2_pe names (Neoverse N1 and N2 TRMs). */
	{ arm_neoverse, ARM_REFILLS, {
		PART_OF("l1d_refills", "l1d_refills_inner", "L1D_CACHE_REFILL_INNER"),
		PART_OF("l1d_refills", "l1d_refills_outer", "L1D_CACHE_REFILL_OUTER"),
		EVENT("remote_accesses", "REMOTE_ACCESS"),
		EVENT("ll_read_misses", "LL_CACHE_MISS_RD"),
	} },
	{ amd_zen5, C2C, {
		PART_OF("c2c_fills", "c2c_fills_same_ccx", ANY_FILLS "LOCAL_CCX"),
		PART_OF("c2c_fills", "c2c_fills_other_ccx", ANY_FILLS "NEAR_FAR_CACHE_NEAR"),
		PART_OF("c2c_fills", "c2c_fills_remote_node", ANY_FILLS "NEAR_FAR_CACHE_FAR"),
	} },
};

#define NR_COHERENCE_MODELS (sizeof(coherence_models) / sizeof(coherence_models[0]))

struct counter_event {
	char name[COUNTERS_NAME_LEN];
	char event[COUNTERS_EVENT_LEN];
	char canonical[2 * COUNTERS_EVENT_LEN];	/* libpfm4's full spelling */
	const char *total;
	unsigned int set;
	bool needs_kernel;
	bool hardware;
	bool own_group;		/* the kernel refused it in its set's group */
	struct perf_event_attr attr;
	bool available;
	char reason[COUNTERS_REASON_LEN];
	/* A thread could not open it: dropped from then on, for every thread. */
	atomic_bool failed;
	char failed_reason[COUNTERS_REASON_LEN];
};

/* What this process counts: chosen in main, read-only during runs. */
static struct {
	bool pfm_ready;
	char pfm_error[128];
	const char *pmu;		/* libpfm4's core PMU model, or NULL */
	bool hardware_pmu;
	int paranoid;			/* INT_MIN: unknown */
	bool requested[NR_SETS];
	bool prepared;
	char set_reason[NR_SETS][COUNTERS_REASON_LEN];	/* n/a as a whole */
	const char *coherence_label;
	bool coherence_unknown;		/* no coherence events for this model */
	unsigned int nr_raw;
	char raw[COUNTERS_MAX_EVENTS][COUNTERS_EVENT_LEN];
	unsigned int nr_events;
	struct counter_event events[COUNTERS_MAX_EVENTS];
} chosen = { .paranoid = INT_MIN };

struct counters_thread {
	unsigned int nr;
	struct {
		int fd;
		int leader;		/* its group leader's fd; fd for a leader */
		unsigned int event;	/* index into chosen.events */
	} open[COUNTERS_MAX_EVENTS];
};

/* ---- libpfm4 ---------------------------------------------------------- */

#if HAVE_PFM
static bool model_has_pmu(const struct coherence_model *m, const char *pmu)
{
	for (unsigned int i = 0; m->pmus[i]; i++)
		if (!strcmp(m->pmus[i], pmu))
			return true;
	return false;
}

/* The first present core PMU with coherence events, else the first one. */
static const char *detect_core_pmu(void)
{
	const char *first = NULL;
	pfm_pmu_t p;

	pfm_for_all_pmus(p) {
		pfm_pmu_info_t info;

		memset(&info, 0, sizeof(info));
		info.size = sizeof(info);
		if (pfm_get_pmu_info(p, &info) != PFM_SUCCESS || !info.is_present ||
		    info.type != PFM_PMU_TYPE_CORE)
			continue;
		for (unsigned int i = 0; i < NR_COHERENCE_MODELS; i++)
			if (model_has_pmu(&coherence_models[i], info.name))
				return info.name;
		if (!first)
			first = info.name;
	}
	return first;
}

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

unsigned int counters_coherence_events(const char *pmu,
				       struct counters_spec *specs,
				       unsigned int max, const char **label)
{
	for (unsigned int i = 0; pmu && i < NR_COHERENCE_MODELS; i++) {
		const struct coherence_model *m = &coherence_models[i];
		unsigned int n = 0;
		bool match = false;

		for (unsigned int k = 0; m->pmus[k]; k++)
			match |= !strcmp(m->pmus[k], pmu);
		if (!match)
			continue;
		for (; n < max && n < 4 && m->defs[n].name; n++) {
			snprintf(specs[n].name, sizeof(specs[n].name), "%s", m->defs[n].name);
			snprintf(specs[n].event, sizeof(specs[n].event), "%s::%s", pmu,
				 m->defs[n].event);
			specs[n].total = m->defs[n].total;
		}
		if (label)
			*label = m->label;
		return n;
	}
	return 0;
}

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

/* ---- choosing the events ----------------------------------------------- */

/* A bounded copy; names and events were checked for length on the way in. */
static void copy_string(char *dst, size_t len, const char *src)
{
	size_t n = strnlen(src, len - 1);

	memcpy(dst, src, n);
	dst[n] = '\0';
}

static int add_event(unsigned int set, const char *name, const char *event,
		     const char *total, bool needs_kernel)
{
	struct counter_event *e;

	if (chosen.nr_events == COUNTERS_MAX_EVENTS)
		return -1;
	e = &chosen.events[chosen.nr_events++];
	memset(e, 0, sizeof(*e));
	atomic_init(&e->failed, false);
	copy_string(e->name, sizeof(e->name), name);
	copy_string(e->event, sizeof(e->event), event);
	e->total = total;
	e->set = set;
	e->needs_kernel = needs_kernel;
	return 0;
}

static void add_defs(unsigned int set, const struct counter_def *defs)
{
	for (unsigned int i = 0; defs[i].name; i++)
		add_event(set, defs[i].name, defs[i].event, defs[i].total,
			  defs[i].needs_kernel);
}

static void add_coherence(void)
{
	struct counters_spec specs[4];
	unsigned int n;

	n = counters_coherence_events(chosen.pmu, specs, 4, &chosen.coherence_label);
	if (!chosen.pfm_ready)
		snprintf(chosen.set_reason[SET_COHERENCE], COUNTERS_REASON_LEN, "%s",
			 chosen.pfm_error);
	else if (!n)
		chosen.coherence_unknown = true;	/* the reason: in prepare */
	for (unsigned int i = 0; i < n; i++)
		add_event(SET_COHERENCE, specs[i].name, specs[i].event,
			  specs[i].total, false);
}

/* "skx::MEM_LOAD_L3_HIT_RETIRED:XSNP_HITM" -> mem_load_l3_hit_retired_xsnp_hitm */
static void raw_event_name(const char *event, char *name, size_t len)
{
	const char *p = strstr(event, "::");
	size_t n = 0;

	for (p = p ? p + 2 : event; *p && n + 1 < len; p++) {
		char ch = *p;

		if (ch >= 'A' && ch <= 'Z')
			ch = (char)(ch - 'A' + 'a');
		if ((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9'))
			name[n++] = ch;
		else if (n && name[n - 1] != '_')
			name[n++] = '_';
	}
	while (n && name[n - 1] == '_')
		n--;
	name[n] = '\0';
}

/* Taken by another event, a sum, or the harness's own ns_per_op. */
static bool name_taken(const char *name)
{
	if (!strcmp(name, "ns"))
		return true;
	for (unsigned int i = 0; i < chosen.nr_events; i++) {
		const struct counter_event *e = &chosen.events[i];

		if (!strcmp(e->name, name) || (e->total && !strcmp(e->total, name)))
			return true;
	}
	return false;
}

/* The value of modifier mod ("k") in a libpfm4 full spelling, or NULL. */
static const char *modifier_value(const char *spelling, const char *mod, size_t len)
{
	for (const char *p = strchr(spelling, ':'); p; p = strchr(p + 1, ':'))
		if (!strncmp(p + 1, mod, len) && p[1 + len] == '=')
			return p + 2 + len;
	return NULL;
}

/*
 * An event's counter stem from libpfm4's own spelling of it, not from
 * the string as typed: "cycles:u", "CYCLES:U" and "cpu-cycles:u" all
 * encode as perf::PERF_COUNT_HW_CPU_CYCLES:u=1:k=0:..., so all are
 * perf_count_hw_cpu_cycles, in every run. The umasks stay, in libpfm4's
 * order; a modifier is named (with its value) only where it differs from
 * the event's own default encoding: cycles:k is ..._u_0_k_1.
 */
int counters_event_name(const char *event, char *name, size_t len, char *why,
			size_t whylen)
{
	char spelling[2 * COUNTERS_EVENT_LEN], plain[2 * COUNTERS_EVENT_LEN];
	char defaults[2 * COUNTERS_EVENT_LEN], stem[2 * COUNTERS_EVENT_LEN];
	struct perf_event_attr attr;
	size_t n_plain, n_stem;
	const char *event_start, *p;

	if (counters_encode(event, false, &attr, spelling, sizeof(spelling), why, whylen))
		return -1;
	/* "pmu::EVENT:UMASK...:mod=v...": the PMU, the event and its umasks. */
	event_start = strstr(spelling, "::");
	event_start = event_start ? event_start + 2 : spelling;
	p = event_start;
	n_plain = (size_t)(p - spelling);
	memcpy(plain, spelling, n_plain);
	while (*p) {
		size_t tok = strcspn(p, ":");

		if (!memchr(p, '=', tok) && n_plain + tok + 1 < sizeof(plain)) {
			if (p != event_start)
				plain[n_plain++] = ':';
			memcpy(plain + n_plain, p, tok);
			n_plain += tok;
		}
		p += tok + (p[tok] == ':');
	}
	plain[n_plain] = '\0';
	if (counters_encode(plain, false, &attr, defaults, sizeof(defaults), why, whylen))
		return -1;
	n_stem = (size_t)snprintf(stem, sizeof(stem), "%s", plain);
	for (p = strchr(spelling, '='); p && n_stem < sizeof(stem); p = strchr(p + 1, '=')) {
		const char *start = p, *value = p + 1, *def;
		size_t mod_len, value_len = strcspn(value, ":");

		while (start > spelling && start[-1] != ':')
			start--;
		mod_len = (size_t)(p - start);
		def = modifier_value(defaults, start, mod_len);
		if (def && strcspn(def, ":") == value_len && !strncmp(def, value, value_len))
			continue;
		n_stem += (size_t)snprintf(stem + n_stem, sizeof(stem) - n_stem, ":%.*s_%.*s",
					   (int)mod_len, start, (int)value_len, value);
	}
	raw_event_name(stem, name, len);
	return 0;
}

static void add_raw_events(void)
{
	for (unsigned int i = 0; i < chosen.nr_raw; i++) {
		char name[COUNTERS_NAME_LEN - 8], unique[COUNTERS_NAME_LEN], why[128];

		/* Without libpfm4 the event is n/a: named as typed. */
		if (!chosen.pfm_ready ||
		    counters_event_name(chosen.raw[i], name, sizeof(name), why, sizeof(why)))
			raw_event_name(chosen.raw[i], name, sizeof(name));
		snprintf(unique, sizeof(unique), "%s", name[0] ? name : "event");
		for (unsigned int k = 2; name_taken(unique); k++)
			snprintf(unique, sizeof(unique), "%s_%u", name[0] ? name : "event", k);
		add_event(SET_EVENTS, unique, chosen.raw[i], NULL, false);
	}
}

static int parse_sets(const char *sets, char *err, size_t errlen)
{
	const char *p = sets;

	for (;;) {
		size_t len = strcspn(p, ",");
		bool found = len == 4 && !strncmp(p, "none", 4);

		for (unsigned int s = 0; s < SET_EVENTS && !found; s++) {
			if (strlen(set_names[s]) == len && !strncmp(p, set_names[s], len)) {
				chosen.requested[s] = true;
				found = true;
			}
		}
		if (!found) {
			snprintf(err, errlen,
				 "--counters '%s': unknown set '%.*s': expected a comma-separated list of %s",
				 sets, (int)len, p, COUNTERS_SET_NAMES);
			return -1;
		}
		if (!p[len])
			return 0;
		p += len + 1;
	}
}

/* A misspelt event is a usage error, with libpfm4's own message. */
static int parse_events(const char *events, char *err, size_t errlen)
{
	const char *p = events;

	for (;;) {
		size_t len = strcspn(p, ",");
		struct perf_event_attr attr;
		char why[128];
		char *event;

		if (!len || len >= COUNTERS_EVENT_LEN) {
			snprintf(err, errlen,
				 "--events '%s': expected a comma-separated list of libpfm4 event strings (see 'bouncelab list --events')",
				 events);
			return -1;
		}
		if (chosen.nr_raw == COUNTERS_MAX_EVENTS / 2) {
			snprintf(err, errlen, "--events '%s': expected at most %d events",
				 events, COUNTERS_MAX_EVENTS / 2);
			return -1;
		}
		event = chosen.raw[chosen.nr_raw++];
		snprintf(event, COUNTERS_EVENT_LEN, "%.*s", (int)len, p);
		/* Without libpfm4 it cannot be checked: it will be n/a. */
		if (chosen.pfm_ready &&
		    counters_encode(event, false, &attr, NULL, 0, why, sizeof(why))) {
			snprintf(err, errlen, "--events '%s': libpfm4 cannot encode it: %s",
				 event, why);
			return -1;
		}
		if (!p[len])
			return 0;
		p += len + 1;
	}
}

int counters_select(const char *sets, const char *events, char *err,
		    size_t errlen)
{
	memset(chosen.requested, 0, sizeof(chosen.requested));
	memset(chosen.set_reason, 0, sizeof(chosen.set_reason));
	chosen.nr_events = 0;
	chosen.nr_raw = 0;
	chosen.prepared = false;
	chosen.coherence_label = NULL;
	chosen.coherence_unknown = false;
	if (sets && parse_sets(sets, err, errlen))
		return -1;
	if (events && parse_events(events, err, errlen))
		return -1;
	chosen.requested[SET_EVENTS] = chosen.nr_raw > 0;
	if (chosen.requested[SET_COHERENCE])
		add_coherence();
	if (chosen.requested[SET_BASIC])
		add_defs(SET_BASIC, basic_defs);
	if (chosen.requested[SET_SW])
		add_defs(SET_SW, sw_defs);
	add_raw_events();
	return 0;
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

static void open_all(struct counters_thread *ct, bool probing)
{
	ct->nr = 0;
	for (unsigned int s = 0; s < NR_SETS; s++)
		open_set(ct, s, probing);
}

static void close_all(struct counters_thread *ct)
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

/* ---- what works, in words ---------------------------------------------- */

/* Why an event is not counted, or NULL if it is. */
static const char *event_na(const struct counter_event *e)
{
	if (!e->available)
		return e->reason;
	if (atomic_load(&e->failed))
		return e->failed_reason;
	return NULL;
}

static bool reason_seen_before(unsigned int set, unsigned int i, const char *why)
{
	for (unsigned int k = 0; k < i; k++) {
		const char *other = event_na(&chosen.events[k]);

		if (chosen.events[k].set == set && other && !strcmp(other, why))
			return true;
	}
	return false;
}

static void append(char *buf, size_t len, size_t *used, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void append(char *buf, size_t len, size_t *used, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (*used + 1 >= len)
		return;
	va_start(ap, fmt);
	n = vsnprintf(buf + *used, len - *used, fmt, ap);
	va_end(ap);
	if (n > 0)
		*used = *used + (size_t)n < len ? *used + (size_t)n : len - 1;
}

/* Every event of the set that fails for this reason: "a, b n/a (why)". */
static void append_reason_group(unsigned int set, unsigned int first,
				const char *why, char *buf, size_t len,
				size_t *used)
{
	bool named = false;

	append(buf, len, used, "%s", *used ? "; " : "");
	for (unsigned int k = first; k < chosen.nr_events; k++) {
		const struct counter_event *e = &chosen.events[k];
		const char *other = event_na(e);

		if (e->set != set || !other || strcmp(other, why))
			continue;
		append(buf, len, used, "%s%s", named ? ", " : "", e->name);
		named = true;
	}
	append(buf, len, used, " n/a (%s)", why);
}

/*
 * "" when every event of the set works; "n/a (no hardware PMU)" when all
 * fail for one reason; else "a, b n/a (why); c n/a (other reason)".
 * Returns the number of events that work.
 */
static unsigned int set_status(unsigned int set, char *buf, size_t len)
{
	unsigned int ok = 0, distinct = 0;
	const char *only = NULL;
	size_t used = 0;

	buf[0] = '\0';
	if (chosen.set_reason[set][0]) {
		snprintf(buf, len, "n/a (%s)", chosen.set_reason[set]);
		return 0;
	}
	for (unsigned int i = 0; i < chosen.nr_events; i++) {
		const char *why = event_na(&chosen.events[i]);

		if (chosen.events[i].set != set)
			continue;
		if (!why)
			ok++;
		else if (!reason_seen_before(set, i, why))
			distinct++, only = why;
	}
	if (!ok && distinct == 1) {
		snprintf(buf, len, "n/a (%s)", only);
		return 0;
	}
	for (unsigned int i = 0; i < chosen.nr_events; i++) {
		const char *why = event_na(&chosen.events[i]);

		if (chosen.events[i].set == set && why && !reason_seen_before(set, i, why))
			append_reason_group(set, i, why, buf, len, &used);
	}
	return ok;
}

bool counters_active(void)
{
	if (!chosen.prepared)
		return false;
	for (unsigned int i = 0; i < chosen.nr_events; i++)
		if (!event_na(&chosen.events[i]))
			return true;
	return false;
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
		char status[1024];
		unsigned int ok;

		if (!chosen.requested[s])
			continue;
		ok = set_status(s, status, sizeof(status));
		if (status[0])
			fprintf(notes, "bouncelab: counters: %s%s %s\n", set_names[s],
				ok ? ":" : "", status);
	}
}

/* ---- per thread -------------------------------------------------------- */

/* Benchmark threads are new for every run; thread 0 reuses its own. */
static _Thread_local struct counters_thread thread_counters;

struct counters_thread *counters_thread_open(void)
{
	if (!counters_active())
		return NULL;
	open_all(&thread_counters, false);
	return &thread_counters;
}

static void group_ioctl(struct counters_thread *ct, unsigned long request)
{
	for (unsigned int i = 0; ct && i < ct->nr; i++)
		if (ct->open[i].leader == ct->open[i].fd)
			ioctl(ct->open[i].fd, request, PERF_IOC_FLAG_GROUP);
}

void counters_thread_enable(struct counters_thread *ct)
{
	group_ioctl(ct, PERF_EVENT_IOC_ENABLE);
}

void counters_thread_disable(struct counters_thread *ct)
{
	group_ioctl(ct, PERF_EVENT_IOC_DISABLE);
}

/*
 * The count, scaled by time_enabled / time_running if the kernel
 * multiplexed the group (more events than counters), and the fraction of
 * the time it actually counted.
 */
static int read_scaled(int fd, double *value, double *running)
{
	uint64_t v[3];	/* value, time_enabled, time_running */

	if (read(fd, v, sizeof(v)) != (ssize_t)sizeof(v))
		return -1;
	*running = v[1] ? (double)v[2] / (double)v[1] : 1.0;
	*value = (double)v[0];
	if (v[2] && v[2] < v[1])
		*value *= (double)v[1] / (double)v[2];
	return 0;
}

int counters_thread_read(struct counters_thread *ct, const char *name,
			 double *value)
{
	double running;

	for (unsigned int i = 0; ct && i < ct->nr; i++)
		if (!strcmp(chosen.events[ct->open[i].event].name, name))
			return read_scaled(ct->open[i].fd, value, &running);
	return -1;
}

struct totals {
	unsigned int nr;
	const char *name[4];
	double sum[4];
};

static void add_to_total(struct totals *t, const char *name, double value)
{
	unsigned int i;

	for (i = 0; i < t->nr && strcmp(t->name[i], name); i++)
		;
	if (i == t->nr) {
		if (t->nr == 4)
			return;
		t->name[t->nr] = name;
		t->sum[t->nr++] = 0;
	}
	t->sum[i] += value;
}

static void set_per_op(struct gbench_state *st, const char *stem, double value)
{
	char name[COUNTERS_NAME_LEN + 8];

	snprintf(name, sizeof(name), "%s_per_op", stem);
	gbench_set_counter(st, name, value, GBENCH_AVG_THREADS);
}

/*
 * Counts per operation, as counters averaged over threads (kAvgThreads).
 * Every thread runs the same n operations, so the mean over threads of
 * count_t / n is sum(count_t) / sum(ops): events per operation, whichever
 * thread saw them. That is the right measure for HITM: a store by thread A
 * shows up as a load of thread B that hits A's Modified line, so the pair's
 * bouncing is counted on B and shared out over both threads' operations.
 * task_clock_ns_per_op is one thread's CPU time per operation, beside
 * ns_per_op (wall time): the gap is time off the CPU.
 *
 * An event some thread could not open is skipped by all: its "failed" flag
 * was set before the batch loop's opening barrier, and this runs after the
 * closing one, so every thread sees the same set of counters and the
 * average is over all threads.
 */
static void publish(struct counters_thread *ct, struct gbench_state *st,
		    uint64_t ops)
{
	struct totals totals = { 0 };
	double least_running = 1.0, value, running;
	bool hardware = false;

	for (unsigned int i = 0; i < ct->nr; i++) {
		const struct counter_event *e = &chosen.events[ct->open[i].event];

		if (atomic_load(&e->failed) ||
		    read_scaled(ct->open[i].fd, &value, &running))
			continue;
		set_per_op(st, e->name, value / (double)ops);
		if (e->total)
			add_to_total(&totals, e->total, value);
		if (e->hardware) {
			hardware = true;
			if (running < least_running)
				least_running = running;
		}
	}
	for (unsigned int i = 0; i < totals.nr; i++)
		set_per_op(st, totals.name[i], totals.sum[i] / (double)ops);
	/* Below 1: the counts were multiplexed and scaled up. */
	if (hardware)
		gbench_set_counter(st, "counters_running_fraction", least_running,
				   GBENCH_AVG_THREADS);
}

void counters_thread_finish(struct counters_thread *ct, struct gbench_state *st,
			    uint64_t ops)
{
	if (!ct)
		return;
	if (ops && st)
		publish(ct, st, ops);
	close_all(ct);
}

/* ---- results context --------------------------------------------------- */

static json_t *event_json(const struct counter_event *e)
{
	json_t *obj = json_object();
	const char *why = event_na(e);
	char counter[COUNTERS_NAME_LEN + 8];

	snprintf(counter, sizeof(counter), "%s_per_op", e->name);
	json_object_set_new(obj, "counter", json_string(counter));
	json_object_set_new(obj, "event", json_string(e->event));
	if (e->canonical[0])
		json_object_set_new(obj, "encoding", json_string(e->canonical));
	json_object_set_new(obj, "counts", json_string(e->needs_kernel ?
			    "user and kernel" : "user"));
	json_object_set_new(obj, "status", json_string(why ? "n/a" : "ok"));
	if (why)
		json_object_set_new(obj, "reason", json_string(why));
	return obj;
}

/* The sums (hitm_per_op, c2c_fills_per_op): which events they add up. */
static json_t *totals_json(unsigned int set, json_t *na)
{
	json_t *totals = json_array();

	for (unsigned int i = 0; i < chosen.nr_events; i++) {
		const struct counter_event *e = &chosen.events[i];
		json_t *total, *sum_of;
		const char *first_why = NULL;
		char counter[COUNTERS_NAME_LEN + 8], text[COUNTERS_REASON_LEN + 8];
		bool seen = false;

		if (e->set != set || !e->total)
			continue;
		for (unsigned int k = 0; k < i; k++)
			seen |= chosen.events[k].total && !strcmp(chosen.events[k].total, e->total);
		if (seen)
			continue;
		sum_of = json_array();
		for (unsigned int k = i; k < chosen.nr_events; k++) {
			const struct counter_event *o = &chosen.events[k];
			char part[COUNTERS_NAME_LEN + 8];

			if (!o->total || strcmp(o->total, e->total))
				continue;
			if (event_na(o)) {
				first_why = first_why ? first_why : event_na(o);
				continue;
			}
			snprintf(part, sizeof(part), "%s_per_op", o->name);
			json_array_append_new(sum_of, json_string(part));
		}
		snprintf(counter, sizeof(counter), "%s_per_op", e->total);
		if (!json_array_size(sum_of) && first_why) {
			snprintf(text, sizeof(text), "n/a (%s)", first_why);
			json_object_set_new(na, counter, json_string(text));
		}
		total = json_object();
		json_object_set_new(total, "counter", json_string(counter));
		json_object_set_new(total, "sum_of", sum_of);
		json_array_append_new(totals, total);
	}
	return totals;
}

static json_t *set_json(unsigned int set, json_t *na)
{
	json_t *obj = json_object();
	json_t *events = json_array();
	char status[1024];
	unsigned int ok = set_status(set, status, sizeof(status));

	json_object_set_new(obj, "title", json_string(set_titles[set]));
	if (set == SET_COHERENCE && chosen.coherence_label)
		json_object_set_new(obj, "label", json_string(chosen.coherence_label));
	json_object_set_new(obj, "status", json_string(!status[0] ? "ok" :
						       ok ? "partial" : "n/a"));
	/* For display: "n/a (no hardware PMU)", or which events are n/a and why. */
	json_object_set_new(obj, "summary", json_string(status[0] ? status : "ok"));
	for (unsigned int i = 0; i < chosen.nr_events; i++) {
		const struct counter_event *e = &chosen.events[i];
		char counter[COUNTERS_NAME_LEN + 8], text[COUNTERS_REASON_LEN + 8];

		if (e->set != set)
			continue;
		json_array_append_new(events, event_json(e));
		if (event_na(e)) {
			snprintf(counter, sizeof(counter), "%s_per_op", e->name);
			snprintf(text, sizeof(text), "n/a (%s)", event_na(e));
			json_object_set_new(na, counter, json_string(text));
		}
	}
	json_object_set_new(obj, "events", events);
	json_object_set_new(obj, "totals", totals_json(set, na));
	return obj;
}

json_t *counters_context(void)
{
	json_t *ctx = json_object();
	json_t *requested = json_array();
	json_t *raw = json_array();
	json_t *sets = json_object();
	json_t *na = json_object();

	for (unsigned int s = 0; s < NR_SETS; s++) {
		if (!chosen.requested[s])
			continue;
		json_array_append_new(requested, json_string(set_names[s]));
		json_object_set_new(sets, set_names[s], set_json(s, na));
	}
	for (unsigned int i = 0; i < chosen.nr_raw; i++)
		json_array_append_new(raw, json_string(chosen.raw[i]));
	json_object_set_new(ctx, "requested", requested);
	json_object_set_new(ctx, "events_requested", raw);
	json_object_set_new(ctx, "libpfm4", json_boolean(chosen.pfm_ready));
	if (chosen.pfm_error[0])
		json_object_set_new(ctx, "libpfm4_error", json_string(chosen.pfm_error));
	json_object_set_new(ctx, "core_pmu", chosen.pmu ? json_string(chosen.pmu) :
							json_null());
	json_object_set_new(ctx, "hardware_pmu", json_boolean(chosen.hardware_pmu));
	json_object_set_new(ctx, "perf_event_paranoid", chosen.paranoid == INT_MIN ?
			    json_null() : json_integer(chosen.paranoid));
	json_object_set_new(ctx, "per_op",
			    json_string("count / ops of each thread, averaged over threads (= all counts / all ops); scaled by time_enabled/time_running when multiplexed, see counters_running_fraction"));
	json_object_set_new(ctx, "sets", sets);
	json_object_set_new(ctx, "na", na);
	return ctx;
}

/* ---- bouncelab list --events ------------------------------------------- */

static void list_set(FILE *out, unsigned int set)
{
	char status[1024];
	const char *title = set_titles[set];

	set_status(set, status, sizeof(status));
	if (set == SET_COHERENCE && chosen.coherence_label)
		fprintf(out, "%-10s %s: %s\n", set_names[set], chosen.coherence_label, title);
	else
		fprintf(out, "%-10s %s\n", set_names[set], title);
	fprintf(out, "%-10s %s\n", "", status[0] ? status : "works here");
	for (unsigned int i = 0; i < chosen.nr_events; i++) {
		const struct counter_event *e = &chosen.events[i];
		char counter[COUNTERS_NAME_LEN + 8], why[COUNTERS_REASON_LEN + 8];

		if (e->set != set)
			continue;
		snprintf(counter, sizeof(counter), "%s_per_op", e->name);
		if (event_na(e))
			snprintf(why, sizeof(why), "n/a (%s)", event_na(e));
		else
			snprintf(why, sizeof(why), "works");
		fprintf(out, "    %-28s %s\n    %-28s   %s\n", counter, e->event, "", why);
	}
	for (unsigned int i = 0; i < chosen.nr_events; i++) {
		const struct counter_event *e = &chosen.events[i];
		bool seen = false;

		if (e->set != set || !e->total)
			continue;
		for (unsigned int k = 0; k < i; k++)
			seen |= chosen.events[k].total && !strcmp(chosen.events[k].total, e->total);
		if (!seen) {
			char counter[COUNTERS_NAME_LEN + 8];

			snprintf(counter, sizeof(counter), "%s_per_op", e->total);
			fprintf(out, "    %-28s the sum of the %s_* events above\n",
				counter, e->total);
		}
	}
	fprintf(out, "\n");
}

void counters_list(FILE *out)
{
	char paranoid[16];

	if (chosen.paranoid == INT_MIN)
		snprintf(paranoid, sizeof(paranoid), "unknown");
	else
		snprintf(paranoid, sizeof(paranoid), "%d", chosen.paranoid);
	fprintf(out,
		"Counter sets: bouncelab run --counters SET[,SET] (default %s, 'none' for no counters)\n"
		"Here: libpfm4 core PMU %s, hardware PMU %s, kernel.perf_event_paranoid %s, uid %u.\n"
		"Counts are per operation, averaged over threads; hardware events count user space only.\n\n",
		COUNTERS_DEFAULT_SETS, chosen.pmu ? chosen.pmu : "none detected",
		chosen.hardware_pmu ? "yes" : "no", paranoid, (unsigned int)getuid());
	for (unsigned int s = 0; s < NR_SETS; s++)
		if (chosen.requested[s])
			list_set(out, s);
	fprintf(out,
		"--events LIST: raw libpfm4 event strings, comma-separated, counted user space only\n"
		"  (e.g. --events perf::PERF_COUNT_SW_PAGE_FAULTS); each becomes NAME_per_op.\n");
}
