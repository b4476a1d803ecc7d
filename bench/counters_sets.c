// SPDX-License-Identifier: GPL-2.0-only
/*
 * The counter catalogue and the choice made from it: the sets --counters
 * names, the coherence events of each libpfm4 core PMU model, and the
 * events a run chose (counters_select()), each with its counter stem.
 *
 * What can be counted is kept apart from how it is opened
 * (counters_open.c), so that a new CPU model is an entry in
 * coherence_models[] and touches no other file. The selection it fills
 * is made in main, before any benchmark thread starts
 * (counters_internal.h).
 */
#include <limits.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "config.h"
#include "counters_internal.h"

#if HAVE_PFM
#include <perfmon/pfmlib_perf_event.h>
#endif

const char *const set_names[NR_SETS] = {
	"coherence", "basic", "sw", "events",
};

const char *const set_titles[NR_SETS] = {
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

/* What this process counts: chosen in main, read-only during runs. */
struct counters_chosen chosen = { .paranoid = INT_MIN };

#if HAVE_PFM
static bool model_has_pmu(const struct coherence_model *m, const char *pmu)
{
	for (unsigned int i = 0; m->pmus[i]; i++)
		if (!strcmp(m->pmus[i], pmu))
			return true;
	return false;
}

/* The first present core PMU with coherence events, else the first one. */
const char *detect_core_pmu(void)
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
