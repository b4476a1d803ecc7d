// SPDX-License-Identifier: GPL-2.0-only
/*
 * From a variant's access profile and a machine to a queueing network,
 * and from its solution to a prediction. model_doc.md derives each rule
 * and lists what the model leaves out.
 *
 * - Private work: the 1-thread ns/op, scaled by the clock ratio when the
 *   machine is another one. It is the delay centre.
 * - A line several threads use and some thread writes is a queueing
 *   centre. Handing it to the next owner costs one one-way transfer, the
 *   mean over the pairs of threads that share it (FIFO handoff: the next
 *   owner is any other sharer).
 * - An owner keeps the line for every visit it makes while the next
 *   request is on its way, one transfer time: with a visit every Z / v ns
 *   (v visits per operation), 1 + L v / Z visits per handoff, so a tight
 *   loop pays a fraction of a transfer per operation, and a line visited
 *   once in 32 operations nearly a whole transfer per visit.
 * - A locked RMW or cmpxchg holds its line while it executes (the cost of
 *   one on a private line, measured): that part of the private work is the
 *   line's service, not think time, since no other CPU can have the line
 *   meanwhile.
 * - Plain stores that no locked op or fence drains in the same operation
 *   retire into the store buffer (x86); each drain needs the line once,
 *   for a buffer's worth of stores: L / entries per store, as latency.
 * - Lines another CPU wrote last but that are seldom fought over (cold
 *   transfers) cost one cold miss each, as latency, without queueing: a
 *   load of a line modified in the other cache, measured apart from the
 *   ping-pong, whose handoff also invalidates the waiter's copy first.
 * - A cmpxchg fails when the line left between its load and its attempt;
 *   each retry is another visit. The share of failures is taken as the
 *   line's utilisation times the chance the taker was another thread, a
 *   fixed point iterated with the network.
 * - A line nobody writes stays shared in every cache: reads are local.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "catalog.h"
#include "model.h"

/*
 * Ordered pairs of distinct threads among the first count of a placement,
 * by class. N^2 lookups: kept per placement, since a sweep of variants
 * asks for the same thread counts again and again.
 */
static void pairs_by_class(struct machine_profile *m, const struct placement *pl,
			   const char *policy, unsigned int count, double *pairs)
{
	size_t bytes = sizeof(m->cache[0].pairs);
	unsigned int slot;

	for (unsigned int i = 0; i < m->nr_cached; i++) {
		if (m->cache[i].threads == pl->nr_cpus && m->cache[i].count == count &&
		    !strcmp(m->cache[i].policy, policy)) {
			memcpy(pairs, m->cache[i].pairs, bytes);
			return;
		}
	}
	memset(pairs, 0, bytes);
	for (unsigned int i = 0; i < count; i++)
		for (unsigned int j = i + 1; j < count; j++)
			pairs[topo_classify(m->topo, pl->cpus[i], pl->cpus[j])] += 2;
	slot = m->nr_cached < MODEL_PAIR_CACHE ? m->nr_cached++ : 0;
	memcpy(m->cache[slot].pairs, pairs, bytes);
	snprintf(m->cache[slot].policy, sizeof(m->cache[slot].policy), "%s", policy);
	m->cache[slot].threads = pl->nr_cpus;
	m->cache[slot].count = count;
}

/*
 * The mean one-way transfer between two of the threads, or with cold the
 * mean cold miss (a one-way transfer where the profile gives none); -1: a
 * class without a latency.
 */
static double mean_transfer(struct machine_profile *m, const struct placement *pl,
			    const char *policy, unsigned int count, bool cold,
			    char *err, size_t errlen)
{
	double pairs[NR_DISTANCE_CLASSES], sum = 0, n = 0;

	if (count < 2)
		return 0;
	pairs_by_class(m, pl, policy, count, pairs);
	for (int c = 0; c < NR_DISTANCE_CLASSES; c++) {
		if (!pairs[c])
			continue;
		if (c == DISTANCE_SAME_PU)
			continue;	/* two threads on one CPU: no transfer */
		if (m->one_way_ns[c] <= 0) {
			snprintf(err, errlen, "machine '%s' gives no one-way latency for class %s, which %u threads placed %s use",
				 m->name, distance_class_name((enum distance_class)c),
				 pl->nr_cpus, policy);
			return -1;
		}
		sum += pairs[c] * (cold && m->cold_miss_ns[c] > 0 ? m->cold_miss_ns[c] :
				   m->one_way_ns[c]);
		n += pairs[c];
	}
	return n ? sum / n : 0;
}

static bool drains_store_buffer(const struct access_profile *p)
{
	if (p->fenced || p->private_locked > 0)
		return true;
	for (unsigned int i = 0; i < p->nr_lines; i++)
		if (p->lines[i].locked > 0 || p->lines[i].cas > 0)
			return true;
	return false;
}

/* Every contended line is a group's (false sharing), of one group size. */
static bool only_group_lines(const struct access_profile *p)
{
	for (unsigned int i = 0; i < p->nr_lines; i++)
		if (p->lines[i].shared_by != LINE_SHARED_BY_GROUP ||
		    p->lines[i].group_size != p->lines[0].group_size)
			return false;
	return true;
}

struct network {
	double think;
	unsigned int nr;
	double demand[MVA_MAX_CENTRES];
	double base[MVA_MAX_CENTRES];		/* demand before cmpxchg retries */
	double copies[MVA_MAX_CENTRES];
	double sharers[MVA_MAX_CENTRES];
	double transfer[MVA_MAX_CENTRES];
	bool retries[MVA_MAX_CENTRES];
	const char *name[MVA_MAX_CENTRES];
	bool one_group;		/* the network is one group of false sharers */
};

/* One line of the profile: a centre, latency, or nothing. */
static int add_line(struct network *net, const struct line_access *a,
		    const struct machine_profile *m, double transfer,
		    unsigned int n, double z, bool hides)
{
	unsigned int k = a->shared_by == LINE_SHARED_BY_ALL ? n :
			 (a->group_size < n ? a->group_size : n);
	double must, visits, rate, hold;

	if (k < 2 || a->stores + a->locked + a->cas <= 0 || transfer <= 0)
		return 0;	/* private, or read-only: every copy stays valid */
	must = a->locked + a->cas + (hides ? 0 : a->stores) +
	       (a->shared_by == LINE_SHARED_BY_ALL ? a->reads : 0);
	if (hides && a->stores > 0)
		net->think += transfer / m->store_buffer * fmin(1, a->stores);
	if (must <= 0)
		return 0;
	/*
	 * Tenure: while the next request travels (one transfer), the owner
	 * goes on with its own visits to the line, one every z / rate ns;
	 * each handoff serves 1 + transfer x rate / z of them. A line visited
	 * once in 32 operations is kept for fewer of them than one visited by
	 * every operation.
	 */
	rate = fmin(1, must);
	visits = rate / (1 + (z > 0 ? transfer * rate / z : 0));
	/* the locked ops' own time on the line moves from think to service */
	hold = fmin((a->locked + a->cas) * m->locked_ns, net->think);
	net->think -= hold;
	if (net->nr == MVA_MAX_CENTRES)
		return -1;
	net->name[net->nr] = a->line;
	net->base[net->nr] = net->demand[net->nr] = visits * transfer + hold;
	net->copies[net->nr] = a->shared_by == LINE_SHARED_BY_ALL || net->one_group ?
			       1 : (double)n / k;
	net->sharers[net->nr] = k;
	net->transfer[net->nr] = transfer;
	net->retries[net->nr] = a->cas > 0;
	net->nr++;
	return 0;
}

/* Solves, then re-solves while cmpxchg retries change the demands. */
static int solve(struct network *net, unsigned int n, struct mva_result *r,
		 double *retries)
{
	*retries = 0;
	for (int iter = 0; iter < 50; iter++) {
		double change = 0;

		if (mva_solve(net->think, net->demand, net->copies, net->nr, n, r))
			return -1;
		for (unsigned int k = 0; k < net->nr; k++) {
			double fail, d;

			if (!net->retries[k])
				continue;
			/* a failure: the line was busy and went to another sharer */
			fail = fmin(r->utilisation[k], 0.95) * (net->sharers[k] - 1) / net->sharers[k];
			*retries = fail / (1 - fail);
			d = net->base[k] * (1 + *retries);
			change = fmax(change, fabs(d - net->demand[k]));
			net->demand[k] = d;
		}
		if (change < 1e-9)
			break;
	}
	return 0;
}

static int plan(struct machine_profile *m, const char *policy, unsigned int n,
		struct placement *pl, char *err, size_t errlen)
{
	if (n > m->nr_cpus) {
		snprintf(err, errlen, "%u threads: machine '%s' has %u CPUs, expected at most that many",
			 n, m->name, m->nr_cpus);
		return -1;
	}
	return topo_plan(m->topo, policy, n, pl, err, errlen) ? -1 : 0;
}

int model_predict(struct machine_profile *m, const struct kernel_family *f,
		  const struct kernel_config *cfg, double private_ns,
		  double private_ghz, const char *policy,
		  struct model_prediction *out, char *err, size_t errlen)
{
	static struct placement pl;	/* big; the model runs on one thread */
	struct access_profile p = { 0 };
	struct network net = { 0 };
	unsigned int n = cfg->nr_threads;
	struct mva_result r;
	double z, all, cold, retries;
	unsigned int population;

	policy = policy ? policy : "compact";
	*out = (struct model_prediction){ .nr_threads = n };
	if (!f->access) {
		snprintf(err, errlen, "family '%s' declares no access profile: the model cannot predict it",
			 f->name);
		return -1;
	}
	if (!n || plan(m, policy, n, &pl, err, errlen))
		return -1;
	all = mean_transfer(m, &pl, policy, n, false, err, errlen);
	cold = mean_transfer(m, &pl, policy, n, true, err, errlen);
	if (all < 0 || cold < 0)
		return -1;
	f->access(cfg, &p);
	z = private_ns;
	if (private_ghz > 0 && m->clock_ghz > 0)
		z *= private_ghz / m->clock_ghz;
	if (f->spins) {
		/* a handoff each way per round trip: the transfer is the whole cost */
		out->ns_per_op = 2 * all;
		out->ops_per_s = out->ns_per_op > 0 ? n * 1e9 / out->ns_per_op : 0;
		out->bottleneck = p.nr_lines ? p.lines[0].line : NULL;
		out->busy = 1;
		out->transfer_ns = all;
		return 0;
	}
	net.think = z + p.cold_transfers * cold;
	/*
	 * False sharing alone: each group of threads fights over its own
	 * line and the groups are independent, so one group is the network,
	 * exactly. Mixed with lines all threads share, a group's line is one
	 * of n / k copies chosen at random (an approximation).
	 */
	population = n;
	if (p.nr_lines && only_group_lines(&p))
		population = p.lines[0].group_size < n ? p.lines[0].group_size : n;
	net.one_group = population < n;
	for (unsigned int i = 0; i < p.nr_lines; i++) {
		const struct line_access *a = &p.lines[i];
		double transfer = all;

		if (a->shared_by == LINE_SHARED_BY_GROUP && a->group_size < n)
			transfer = mean_transfer(m, &pl, policy, a->group_size, false, err, errlen);
		if (transfer < 0 ||
		    add_line(&net, a, m, transfer, n, z, m->store_buffer && !drains_store_buffer(&p))) {
			if (transfer >= 0)
				snprintf(err, errlen, "family '%s': more than %d contended lines",
					 f->name, MVA_MAX_CENTRES);
			return -1;
		}
	}
	out->private_ns = net.think;
	if (net.think <= 0 && !net.nr) {
		snprintf(err, errlen, "%s/%s: no private cost and no shared line: nothing to predict",
			 f->name, f->variants[cfg->variant].name);
		return -1;
	}
	if (solve(&net, population, &r, &retries)) {
		snprintf(err, errlen, "%s: the network has no solution (a negative or infinite cost)",
			 f->name);
		return -1;
	}
	out->ns_per_op = r.cycle;
	out->ops_per_s = n * 1e9 / r.cycle;
	out->retries = retries;
	for (unsigned int k = 0; k < net.nr; k++) {
		if (out->bottleneck && r.utilisation[k] <= out->busy)
			continue;
		out->bottleneck = net.name[k];
		out->busy = r.utilisation[k];
		out->transfer_ns = net.transfer[k];
	}
	return 0;
}

int model_predict_case(struct machine_profile *m, const char *family,
		       const char *variant, unsigned int nr_names,
		       const char *const *names, const long *values,
		       unsigned int nr_threads, double private_ns,
		       double private_ghz, struct model_prediction *out,
		       char *err, size_t errlen)
{
	const struct kernel_family *f = catalog_find(family);
	struct kernel_config cfg;
	int v;

	if (!f) {
		snprintf(err, errlen, "family '%s': not in the catalogue", family);
		return -1;
	}
	v = catalog_variant_index(f, variant);
	if (v < 0) {
		snprintf(err, errlen, "variant '%s': not a variant of %s", variant, family);
		return -1;
	}
	kernel_config_defaults(f, &cfg);
	cfg.variant = (unsigned int)v;
	cfg.nr_threads = nr_threads;
	for (unsigned int i = 0; i < nr_names; i++) {
		int k = kernel_param_index(f, names[i]);

		if (k < 0) {
			snprintf(err, errlen, "parameter '%s': not a parameter of %s", names[i], family);
			return -1;
		}
		cfg.param[k] = values[i];
	}
	return model_predict(m, f, &cfg, private_ns, private_ghz, NULL, out, err, errlen);
}
