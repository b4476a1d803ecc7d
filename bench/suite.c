// SPDX-License-Identifier: GPL-2.0-only
/*
 * Suite expansion: the options (--threads, --param, --placement, --home,
 * --filter) into the list of cases, each named as its rows will be. The
 * body every case runs is bench_case.c's.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "catalog.h"
#include "suite.h"

int parse_uint_list(const char *what, const char *text, unsigned int max_value,
		    unsigned int *values, unsigned int *nr, char *err,
		    size_t errlen)
{
	const char *p = text;

	*nr = 0;
	for (;;) {
		char *end;
		unsigned long v;

		errno = 0;
		v = strtoul(p, &end, 10);
		if (*p == '-' || *p == '+' || end == p || errno || v == 0 ||
		    v > max_value || (*end && *end != ',')) {
			snprintf(err, errlen,
				 "%s '%s': expected a comma-separated list of integers from 1 to %u",
				 what, text, max_value);
			return -1;
		}
		if (*nr == SUITE_MAX_VALUES) {
			snprintf(err, errlen, "%s '%s': expected at most %d values",
				 what, text, SUITE_MAX_VALUES);
			return -1;
		}
		/* Two equal cases would share a name, and so each other's rows. */
		for (unsigned int i = 0; i < *nr; i++) {
			if (values[i] == v) {
				snprintf(err, errlen,
					 "%s '%s': %lu is listed twice: expected each value once",
					 what, text, v);
				return -1;
			}
		}
		values[(*nr)++] = (unsigned int)v;
		if (!*end)
			return 0;
		p = end + 1;
	}
}

/* 1, 2, 4, ... and the number of allowed CPUs itself. */
static unsigned int default_threads(unsigned int nr_cpus, unsigned int *out)
{
	unsigned int n = 0;

	for (unsigned int t = 1; t < nr_cpus && n < SUITE_MAX_VALUES - 1; t *= 2)
		out[n++] = t;
	out[n++] = nr_cpus;
	return n;
}

/*
 * A quick run: the default, and each value a claim of the family names,
 * so that every lesson's claim can be tested.
 */
static unsigned int quick_values(const struct kernel_family *family, int p, long *values)
{
	unsigned int n = 0;

	values[n++] = family->params[p].def;
	for (unsigned int k = 0; k < family->nr_claims && n < SUITE_MAX_VALUES; k++) {
		struct setting claim;
		char err[160];
		unsigned int i;
		long v;

		if (setting_parse(&claim, family, family->claims[k].setting, err, sizeof(err)) ||
		    !(claim.named & (1u << p)))
			continue;
		v = claim.value[p];
		for (i = 0; i < n && values[i] != v; i++)
			;
		if (i == n)
			values[n++] = v;
	}
	return n;
}

/* The values a parameter takes in this suite. */
static unsigned int param_values(const struct suite_options *opts,
				 const struct kernel_family *family, int p,
				 long *values)
{
	const struct kernel_param *param = &family->params[p];
	unsigned int n = 0;
	char err[256];

	for (unsigned int i = 0; i < opts->nr_overrides; i++) {
		const struct param_option *o = &opts->overrides[i];

		if (o->family == family && o->param == p) {
			memcpy(values, o->values, o->nr_values * sizeof(long));
			return o->nr_values;
		}
	}
	if (opts->quick)
		return quick_values(family, p, values);
	if (!param->suite) {
		values[0] = param->def;
		return 1;
	}
	/* The catalogue's own sweep lists are checked by the tests. */
	for (const char *s = param->suite; *s && n < SUITE_MAX_VALUES; ) {
		char item[64];
		size_t len = strcspn(s, ",");

		snprintf(item, sizeof(item), "%.*s", (int)len, s);
		if (!kernel_param_parse(param, item, &values[n], err, sizeof(err)))
			n++;
		s += len;
		if (*s == ',')
			s++;
	}
	if (!n)
		values[n++] = param->def;
	return n;
}

static void format_case_name(struct bench_case *c, bool show_placement)
{
	const struct kernel_family *f = c->family;
	struct setting s;
	size_t used;

	used = (size_t)snprintf(c->name, sizeof(c->name), "%s/%s", f->name,
				f->variants[c->cfg.variant].name);
	/* Only what differs from the default: names stay short. */
	setting_of_config(&s, f, &c->cfg);
	if (used < sizeof(c->name))
		used += setting_format(&s, SETTING_CASE_NAME, c->name + used,
				       sizeof(c->name) - used);
	if (show_placement && used < sizeof(c->name))
		used += (size_t)snprintf(c->name + used, sizeof(c->name) - used,
					 "/placement:%s", c->placement.policy);
	/* A home asked for is a case of its own, apart from the default. */
	if (c->home.kind != HOME_DEFAULT && used < sizeof(c->name))
		snprintf(c->name + used, sizeof(c->name) - used, "/home:%s",
			 c->home.name);
}


/*
 * --filter is a PCRE2 pattern, compiled and matched under PCRE2's own
 * limits, which bound whatever the pattern is: glibc's regcomp() copied a
 * group once per count of a nested bounded repetition (255^4 copies grew
 * past 17 GB) and its matcher spent seconds on back-references, and no
 * hand-written check of the grammar can see every such case. Case names
 * are short: a pattern that needs more than the match limit's steps on
 * one is refused, not waited on.
 */
#define FILTER_MAX_LENGTH 256
#define FILTER_MAX_NESTING 32
#define FILTER_MATCH_LIMIT 100000
#define FILTER_DEPTH_LIMIT 1000
#define FILTER_HEAP_LIMIT_KB 4096

/* The compiled --filter and the limits it is matched under. */
struct case_filter {
	const char *pattern;
	bool negated;			/* "-PATTERN": every case but those */
	pcre2_code *code;		/* NULL: no filter, every case */
	pcre2_match_data *data;
	pcre2_match_context *limits;
	char failed[1024];		/* why a match was given up, once */
};

static int filter_compile(struct case_filter *f, const char *pattern, char *err,
			  size_t errlen)
{
	pcre2_compile_context *cc = pcre2_compile_context_create(NULL);
	PCRE2_UCHAR why[128];
	PCRE2_SIZE offset;
	int code;

	memset(f, 0, sizeof(*f));
	f->pattern = pattern;
	/* Google Benchmark's negation: a leading '-' keeps what does not match */
	f->negated = pattern[0] == '-';
	pattern += f->negated;
	if (strlen(pattern) > FILTER_MAX_LENGTH) {
		pcre2_compile_context_free(cc);
		snprintf(err, errlen, "--filter: a pattern of %zu characters: expected at most %d",
			 strlen(pattern), FILTER_MAX_LENGTH);
		return 2;
	}
	if (cc)
		pcre2_set_parens_nest_limit(cc, FILTER_MAX_NESTING);
	f->code = pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED, 0, &code,
				&offset, cc);
	pcre2_compile_context_free(cc);
	if (!f->code) {
		pcre2_get_error_message(code, why, sizeof(why));
		snprintf(err, errlen, "filter '%s': expected a regular expression (PCRE2 syntax: %s at offset %zu)",
			 pattern, (const char *)why, (size_t)offset);
		return 2;
	}
	f->data = pcre2_match_data_create_from_pattern(f->code, NULL);
	f->limits = pcre2_match_context_create(NULL);
	if (!f->data || !f->limits) {
		snprintf(err, errlen, "out of memory compiling the filter");
		return 1;
	}
	pcre2_set_match_limit(f->limits, FILTER_MATCH_LIMIT);
	pcre2_set_depth_limit(f->limits, FILTER_DEPTH_LIMIT);
	pcre2_set_heap_limit(f->limits, FILTER_HEAP_LIMIT_KB);
	return 0;
}

static void filter_free(struct case_filter *f)
{
	pcre2_match_data_free(f->data);
	pcre2_match_context_free(f->limits);
	pcre2_code_free(f->code);
	memset(f, 0, sizeof(*f));
}

void suite_row_name(const struct bench_case *c, char *buf, size_t len)
{
	snprintf(buf, len, "%s/real_time/threads:%u", c->name, c->cfg.nr_threads);
}

/*
 * 1 if the pattern matches name, 0 if not, -1 past PCRE2's limits, which
 * f->failed then says (once): the plan is refused.
 */
static int filter_match(struct case_filter *f, const char *name)
{
	int rc = pcre2_match(f->code, (PCRE2_SPTR)name, PCRE2_ZERO_TERMINATED, 0, 0,
			     f->data, f->limits);

	if (rc >= 0)
		return 1;
	if (rc != PCRE2_ERROR_NOMATCH && !*f->failed) {
		PCRE2_UCHAR why[128];

		pcre2_get_error_message(rc, why, sizeof(why));
		snprintf(f->failed, sizeof(f->failed),
			 "--filter '%.256s': too costly on the case name '%.160s' (PCRE2: %s): expected a pattern that needs fewer than %d steps on a name",
			 f->pattern, name, (const char *)why, FILTER_MATCH_LIMIT);
	}
	return rc == PCRE2_ERROR_NOMATCH ? 0 : -1;
}

/*
 * Whether a match result (filter_match()) leaves its case out: a match
 * past the limits does; else no match, or a match of a negated pattern.
 */
static bool filter_leaves_out(const struct case_filter *f, int m)
{
	return m < 0 || (f->negated ? m == 1 : m == 0);
}

/* Whether the filter leaves a name out. */
static bool filter_rejects(struct case_filter *f, const char *name)
{
	return f->code && filter_leaves_out(f, filter_match(f, name));
}

/*
 * Whether the filter leaves a case out. It is matched on the case's name
 * and on its row's name in the results (suite_row_name()), so a name
 * copied from results.json or compare.py selects its case too.
 */
static bool filter_rejects_case(struct case_filter *f, const struct bench_case *c)
{
	char row[sizeof(c->name) + 32];
	int m;

	if (!f->code)
		return false;
	m = filter_match(f, c->name);
	if (m == 0) {
		suite_row_name(c, row, sizeof(row));
		m = filter_match(f, row);
	}
	return filter_leaves_out(f, m);
}

struct plan_state {
	const struct suite_options *opts;
	const struct topo *topo;
	struct case_filter filter;
	struct suite *suite;
	unsigned int capacity;
	unsigned int nr_threads;
	unsigned int threads[SUITE_MAX_VALUES];
	unsigned int nr_placements;
	const char *const *placements;
	char placement_skip[256];	/* why a placement skipped a thread count */
	char thread_skip[256];		/* why a family skipped a thread count */
};

static int add_case(struct plan_state *ps, const struct bench_case *proto)
{
	struct suite *suite = ps->suite;

	if (suite->nr_cases == ps->capacity) {
		unsigned int cap = ps->capacity ? ps->capacity * 2 : 64;
		struct bench_case *c = realloc(suite->cases, cap * sizeof(*c));

		if (!c)
			return -1;
		suite->cases = c;
		ps->capacity = cap;
	}
	suite->cases[suite->nr_cases++] = *proto;
	return 0;
}

/*
 * Places one case. A policy that cannot take this thread count (pair:
 * takes 2) skips it; a bad policy is a usage error, and so is a spinning
 * family with two threads on one CPU: each would wait for the other to be
 * scheduled.
 */
static int plan_case(struct plan_state *ps, struct bench_case *c,
		     const char *policy, char *err, size_t errlen)
{
	const struct kernel_family *f = c->family;
	char why[256];
	int ret;

	ret = topo_plan(ps->topo, policy, c->cfg.nr_threads, &c->placement,
			why, sizeof(why));
	if (ret && ret != TOPO_PLAN_BAD_THREADS) {
		snprintf(err, errlen, "%s", why);
		return 2;
	}
	snprintf(c->placement.policy, sizeof(c->placement.policy), "%s", policy);
	c->home = ps->opts->home;
	c->home_node = -1;
	c->home_found = -ENODATA;
	format_case_name(c, ps->nr_placements > 1);
	if (filter_rejects_case(&ps->filter, c))
		return 0;
	if (ret) {
		snprintf(ps->placement_skip, sizeof(ps->placement_skip), "%s", why);
		return 0;
	}
	if (topo_home_node(ps->topo, &c->home, c->placement.cpus[0],
			   &c->home_node, err, errlen))
		return 2;
	if (f->spins && placement_shares_cpu(&c->placement)) {
		snprintf(err, errlen,
			 "%s with %u threads, placement %s: %s spins, so each thread needs a CPU of its own (this process may use %u)",
			 c->name, c->cfg.nr_threads, policy, f->name,
			 topo_nr_allowed_cpus(ps->topo));
		return 2;
	}
	if (ps->suite->nr_cases == SUITE_MAX_CASES) {
		snprintf(err, errlen,
			 "the suite has more than %d cases: expected fewer --threads or --param values, or a narrower --filter",
			 SUITE_MAX_CASES);
		return 2;
	}
	if (add_case(ps, c)) {
		snprintf(err, errlen, "out of memory planning the suite");
		return 1;
	}
	return 0;
}

/*
 * Remembers why a family the filter asks for ran no case, for the message
 * when nothing is left (pingpong on one allowed CPU: only 1 thread).
 */
static void note_thread_bounds(struct plan_state *ps,
			       const struct kernel_family *f, unsigned int v,
			       unsigned int t)
{
	char name[160], range[64];

	snprintf(name, sizeof(name), "%s/%s", f->name, f->variants[v].name);
	if (filter_rejects(&ps->filter, name))
		return;
	if (f->min_threads && f->max_threads)
		snprintf(range, sizeof(range), "%u to %u", f->min_threads, f->max_threads);
	else if (f->min_threads)
		snprintf(range, sizeof(range), "at least %u", f->min_threads);
	else
		snprintf(range, sizeof(range), "at most %u", f->max_threads);
	snprintf(ps->thread_skip, sizeof(ps->thread_skip),
		 "%s runs with %s threads, not %u: expected --threads in that range (this process may use %u CPUs)",
		 f->name, range, t, topo_nr_allowed_cpus(ps->topo));
}

/* Every variant x thread count x placement for one parameter set. */
static int plan_param_set(struct plan_state *ps,
			  const struct kernel_family *f, const long *param,
			  char *err, size_t errlen)
{
	struct bench_case c;
	int ret;

	for (unsigned int v = 0; v < f->nr_variants; v++) {
		for (unsigned int ti = 0; ti < ps->nr_threads; ti++) {
			unsigned int t = ps->threads[ti];

			if ((f->min_threads && t < f->min_threads) ||
			    (f->max_threads && t > f->max_threads)) {
				note_thread_bounds(ps, f, v, t);
				continue;
			}
			for (unsigned int pi = 0; pi < ps->nr_placements; pi++) {
				memset(&c, 0, sizeof(c));
				c.family = f;
				c.topo = ps->topo;
				c.cfg.variant = v;
				c.cfg.nr_threads = t;
				memcpy(c.cfg.param, param, sizeof(c.cfg.param));
				ret = plan_case(ps, &c, ps->placements[pi], err, errlen);
				if (ret)
					return ret;
			}
		}
	}
	return 0;
}

/* The cartesian product of the family's parameter values. */
static int plan_family(struct plan_state *ps, const struct kernel_family *f,
		       char *err, size_t errlen)
{
	long values[KERNEL_MAX_PARAMS][SUITE_MAX_VALUES];
	unsigned int nr[KERNEL_MAX_PARAMS];
	unsigned int idx[KERNEL_MAX_PARAMS] = { 0 };
	long param[KERNEL_MAX_PARAMS] = { 0 };
	int ret;

	for (unsigned int p = 0; p < f->nr_params; p++)
		nr[p] = param_values(ps->opts, f, (int)p, values[p]);
	for (;;) {
		unsigned int p;

		for (p = 0; p < f->nr_params; p++)
			param[p] = values[p][idx[p]];
		ret = plan_param_set(ps, f, param, err, errlen);
		if (ret)
			return ret;
		for (p = 0; p < f->nr_params; p++) {
			if (++idx[p] < nr[p])
				break;
			idx[p] = 0;
		}
		if (p == f->nr_params)
			return 0;
	}
}

int suite_plan(const struct suite_options *opts, const struct topo *topo,
	       struct suite *suite, char *err, size_t errlen)
{
	static const char *const default_placement[] = { "compact" };
	struct plan_state ps = { .opts = opts, .topo = topo, .suite = suite };
	int ret = 0;

	memset(suite, 0, sizeof(*suite));
	if (opts->filter) {
		ret = filter_compile(&ps.filter, opts->filter, err, errlen);
		if (ret) {
			filter_free(&ps.filter);
			return ret;
		}
	}
	if (opts->nr_threads) {
		ps.nr_threads = opts->nr_threads;
		memcpy(ps.threads, opts->threads, opts->nr_threads * sizeof(unsigned int));
	} else {
		ps.nr_threads = default_threads(topo_nr_allowed_cpus(topo), ps.threads);
	}
	ps.nr_placements = opts->nr_placements ? opts->nr_placements : 1;
	ps.placements = opts->nr_placements ? opts->placements : default_placement;

	for (unsigned int i = 0; i < catalog_size && !ret; i++)
		ret = plan_family(&ps, catalog[i], err, errlen);
	if (!ret && *ps.filter.failed) {
		snprintf(err, errlen, "%s", ps.filter.failed);
		ret = 2;
	}
	filter_free(&ps.filter);
	if (!ret && !suite->nr_cases && ps.placement_skip[0]) {
		snprintf(err, errlen, "%s", ps.placement_skip);
		ret = 2;
	} else if (!ret && !suite->nr_cases && ps.thread_skip[0]) {
		snprintf(err, errlen, "%s", ps.thread_skip);
		ret = 2;
	} else if (!ret && !suite->nr_cases) {
		snprintf(err, errlen, "filter '%s': no benchmark matches (see 'bouncelab list')",
			 opts->filter ? opts->filter : "");
		ret = 2;
	}
	if (ret)
		suite_free(suite);
	return ret;
}

void suite_free(struct suite *suite)
{
	free(suite->cases);
	suite->cases = NULL;
	suite->nr_cases = 0;
}

struct bench_case *suite_find(struct suite *suite, const char *name,
			      unsigned int nr_threads)
{
	for (unsigned int i = 0; i < suite->nr_cases; i++)
		if (suite->cases[i].cfg.nr_threads == nr_threads &&
		    !strcmp(suite->cases[i].name, name))
			return &suite->cases[i];
	return NULL;
}
