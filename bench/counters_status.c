// SPDX-License-Identifier: GPL-2.0-only
/*
 * What the counters can do here, in words: each set's status ("n/a (no
 * hardware PMU)", or which events are n/a and why), the "counters"
 * object of the results context, and 'bouncelab list --events'.
 *
 * The notes a run prints (counters_prepare()), its results file and list
 * --events all say it through set_status() here, so that they cannot
 * disagree on what worked and why not.
 */
#include <limits.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "counters_internal.h"

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
unsigned int set_status(unsigned int set, char *buf, size_t len)
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
