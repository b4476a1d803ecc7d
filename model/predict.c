// SPDX-License-Identifier: GPL-2.0-only
/*
 * From a variant's access profile and a machine to a queueing network,
 * and from its solution to a prediction. model_doc.md derives each rule
 * and lists what the model leaves out.
 *
 * - Private work: the 1-thread ns/op, scaled by the clock ratio when the
 *   machine is another one. It is the delay centre.
 * - A line several threads use and some thread writes is a queueing
 *   centre. A handoff costs a one-way transfer to the next owner, the
 *   mean over the pairs of threads that share it (FIFO: the next owner is
 *   any other sharer), and keeps the line from everyone else for a second
 *   one: the new owner's tenure, until the next request reaches it.
 * - The owner goes on with its own visits during its tenure: with a visit
 *   every Z / v ns (v visits per operation), 1 + L v / Z visits per
 *   handoff, so a tight loop pays a fraction of a handoff per operation,
 *   and a line visited once in 32 operations nearly a whole one per visit.
 *   Locked ops and cmpxchg run inside the tenure.
 * - Domain first: while requesters wait in the cache domain that holds
 *   the line, the domain's shared cache hands it among them before the
 *   home's probe for a farther requester arrives, so a saturated line
 *   moves faster than the all-pairs mean (domain_first_handoff()).
 * - A plain store is a visit like any other: the owner stores on during its
 *   tenure, hundreds of stores a handoff in a tight loop, and one that no
 *   locked op or fence drains in the same operation runs a store buffer's
 *   worth of operations more while the line is away (x86).
 * - Lines another CPU wrote last but that are seldom fought over (cold
 *   transfers) cost one cold miss each, as latency, without queueing: a
 *   load of a line modified in the other cache, measured apart from the
 *   ping-pong, whose handoff also invalidates the waiter's copy first;
 *   or, where a run measured it, a share of a transfer (cold_share).
 * - A cmpxchg fails when the line left between its load and its attempt;
 *   each retry is another visit. The share of failures is taken as the
 *   line's utilisation times the chance the taker was another thread, at
 *   most the handoffs per attempt, a fixed point iterated with the
 *   network (cas_failures()).
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

/* Where the threads that share a line sit, as one-way transfers between them. */
struct spread {
	double all;		/* mean over every ordered pair: first come, first served */
	double local;		/* mean within a cache domain; 0: no pair shares one */
	double cross;		/* mean between domains; 0: one domain holds them all */
	double local_peers;	/* other threads in a thread's domain, on average */
};

/* Classes whose CPUs share a cache that hands a line on by itself. */
static bool same_domain(int c)
{
	return c == DISTANCE_SMT || c == DISTANCE_L2 || c == DISTANCE_L3;
}

/*
 * The transfers among the first count threads of a placement, or with
 * cold their cold misses (a one-way transfer where the profile gives
 * none). -1 with err filled: a class without a latency.
 */
static int spread_of(struct machine_profile *m, const struct placement *pl,
		     const char *policy, unsigned int count, bool cold,
		     struct spread *s, char *err, size_t errlen)
{
	double pairs[NR_DISTANCE_CLASSES], sum[2] = { 0 }, n[2] = { 0 };
	/*
	 * A line homed on another node: the requester's miss goes by the
	 * home's directory first, on every transfer and cold miss alike.
	 */
	double home = m->remote_home_ns > 0 ? m->home_away * m->remote_home_ns : 0;

	*s = (struct spread){ 0 };
	if (count < 2)
		return 0;
	pairs_by_class(m, pl, policy, count, pairs);
	for (int c = 0; c < NR_DISTANCE_CLASSES; c++) {
		int local = same_domain(c);

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
		sum[local] += pairs[c] * (!cold ? m->one_way_ns[c] :
					  m->cold_share > 0 ? m->cold_share * m->one_way_ns[c] :
					  m->cold_miss_ns[c] > 0 ? m->cold_miss_ns[c] :
					  m->one_way_ns[c]) + pairs[c] * home;
		n[local] += pairs[c];
	}
	if (n[0] + n[1])
		s->all = (sum[0] + sum[1]) / (n[0] + n[1]);
	s->cross = n[0] ? sum[0] / n[0] : 0;
	s->local = n[1] ? sum[1] / n[1] : 0;
	s->local_peers = n[1] / count;
	return 0;
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

/* A line several threads fight over: a queueing centre. */
struct centre {
	const char *name;
	double rate;		/* visits it needs per operation, at most one */
	struct spread at;	/* where its sharers sit */
	double copies;
	double sharers;
	bool cas;		/* cmpxchg: failed attempts visit again */
	double buffered;	/* operations run on while the line is away */
	double share;		/* of the tenure and the run-on the owner gets */
	double retries;		/* per success, now */
	double handoff;		/* the mean one-way transfer of a handoff, now */
	double waiter_ns;	/* what each requester queued beyond the next adds */
	double dead;		/* ns a handoff takes for the queued requesters, now */
	double target;		/* the handoff the waiting implies, now */
	double lo, hi;		/* where the handoff's fixed point lies */
};

struct network {
	double think;
	double z;		/* the private cost per operation */
	unsigned int nr;
	unsigned int population;
	struct centre c[MVA_MAX_CENTRES];
	double demand[MVA_MAX_CENTRES];
	double copies[MVA_MAX_CENTRES];
	bool one_group;		/* the network is one group of false sharers */
};

/*
 * A handoff keeps the line from every other CPU for two transfers: the
 * transfer to the new owner, and the new owner's tenure, which lasts until
 * the next request reaches it, a transfer again. The owner goes on with
 * its own visits meanwhile, one every z / rate ns: a handoff serves
 * 1 + h x rate / z of them. So a tight loop pays a fraction of a handoff
 * per operation, and a line visited once in 32 operations nearly all of
 * one. Plain stores that no locked op or fence drains go on too while the
 * line is away, until the store buffer is full: a buffer's worth of
 * operations more per handoff, which commit in a burst when the line
 * comes back. has_pinned's pin_work sweep on the 2-vCPU guest (one-way 223 ns)
 * measured this: one transfer per handoff predicted 0.50-0.67 of the
 * 2-thread ns/op from pin_work 1 up, two predict 0.88-1.12
 * (test_against_measurements in tests/test_model.c, model_doc.md).
 * Where a run measures the tenure shorter, s transfers (the Zen 3 guest:
 * s = 0.39 for locked ops, 0.033 for plain stores), the handoff keeps the
 * line (1 + s) transfers and serves s times the visits and run-on.
 */
static double centre_visits(const struct centre *c, double z)
{
	double more = (z > 0 ? c->handoff * c->rate / z : 0) + c->buffered * c->rate;

	return c->rate / (1 + c->share * more);
}

/*
 * The queued requesters' time is the line's but nobody's tenure: the
 * owner serves no visit in it, so it is added per handoff, not spread
 * over the tenure's visits (model_doc.md, "Waiters").
 */
static double centre_demand(const struct centre *c, double z)
{
	return centre_visits(c, z) * ((1 + c->share) * c->handoff + c->dead) *
	       (1 + c->retries);
}

/*
 * Domain first. While the line is in a cache domain (an L3 and the cores
 * under it), the domain's shared cache hands it from core to core by
 * itself; a request from another domain has to go through the line's home,
 * whose probe reaches the domain a cross-domain transfer later. Requesters
 * already waiting in the domain take the line in turn meanwhile, each
 * handoff two local transfers: m = min(local waiters, cross / (2 local))
 * of them per domain visit, which lasts two cross-domain transfers. The
 * mean transfer of a handoff is then cross / (1 + m), never worse than
 * first come, first served. Without waiters, or with one domain, it is the
 * all-pairs mean. Returns what the waiting implies.
 */
static double domain_first_handoff(const struct centre *c, double waiting)
{
	double m;

	if (!(c->at.local > 0 && c->at.cross > 0) || c->sharers < 2 || !(waiting > 0))
		return c->at.all;
	m = fmin(waiting * c->at.local_peers / (c->sharers - 1), c->at.cross / (2 * c->at.local));
	return fmin(c->at.all, c->at.cross / (1 + m));
}

/*
 * The share of its tenure an owner's visits to a line get, as the run
 * measured it (model_doc.md, "The tenure's share"): plain stores nothing
 * drains, or locked ops and cmpxchg on the line; all of it otherwise, or
 * where the run measured none.
 */
static double tenure_share(const struct machine_profile *m, const struct line_access *a,
			   bool drained)
{
	double s = 0;

	if (!drained)
		s = m->tenure_share[0];
	else if (a->locked + a->cas > 0)
		s = m->tenure_share[1];
	return s > 0 ? fmin(1, s) : 1;
}

/* One line of the profile: a centre, latency, or nothing. */
static int add_line(struct network *net, const struct line_access *a,
		    const struct machine_profile *m, const struct spread *at,
		    unsigned int n, bool drained)
{
	unsigned int k = a->shared_by == LINE_SHARED_BY_ALL ? n :
			 (a->group_size < n ? a->group_size : n);
	bool hides = m->store_buffer && !drained;	/* plain stores wait in the buffer */
	struct centre *c;
	double must;

	if (k < 2 || a->stores + a->locked + a->cas <= 0 || at->all <= 0)
		return 0;	/* private, or read-only: every copy stays valid */
	must = a->locked + a->cas + a->stores +
	       (a->shared_by == LINE_SHARED_BY_ALL ? a->reads : 0);
	if (net->nr == MVA_MAX_CENTRES)
		return -1;
	c = &net->c[net->nr];
	*c = (struct centre){
		.name = a->line,
		.rate = fmin(1, must),
		.at = *at,
		.copies = a->shared_by == LINE_SHARED_BY_ALL || net->one_group ? 1 : (double)n / k,
		.sharers = k,
		.cas = a->cas > 0,
		.handoff = at->all,
		/* plain stores nothing drains: a buffer's worth waits for the line */
		.buffered = hides && a->stores > 0 ? m->store_buffer / a->stores : 0,
		.share = tenure_share(m, a, drained),
		.waiter_ns = m->waiter_ns,
	};
	net->copies[net->nr] = c->copies;
	net->demand[net->nr] = centre_demand(c, net->z);
	net->nr++;
	return 0;
}

/*
 * The attempts of a cmpxchg that fail: the line was busy and went to
 * another sharer between the load and the cmpxchg. It leaves once a
 * handoff, so an attempt fails at most as often as the line changes hands
 * per attempt: in a tight loop the owner's tenure covers many attempts
 * and only the one a handoff interrupts can fail.
 */
static double cas_failures(const struct centre *c, double busy, double z)
{
	double taken = fmin(busy, 0.95) * (c->sharers - 1) / c->sharers;

	return fmin(taken, centre_visits(c, z) / c->rate);
}

/* Where a centre's handoff lies: from the shortest one to the all-pairs mean. */
static void open_bracket(struct centre *c)
{
	c->lo = domain_first_handoff(c, INFINITY);
	c->hi = c->at.all;
}

/*
 * Where it lies once the retries have settled: between the handoff and
 * the handoff its waiting implies, since a longer handoff can only make
 * the implied one shorter. Opening the whole range again instead let a
 * cmpxchg line's retries, still moving while the bracket closed, steer
 * it beside the fixed point each time, nearer by a hair a round (3
 * threads on two L3s at a tenure share of 0.4 and a private cost of
 * 300 ns gave up after 50 rounds: "no solution").
 */
static void reopen_bracket(struct centre *c)
{
	c->lo = fmin(c->handoff, c->target);
	c->hi = fmax(c->handoff, c->target);
}

/*
 * Solves, then re-solves while what the solution implies changes the
 * demands: cmpxchg retries, and the local handoffs that waiting
 * requesters allow. The handoff is found by bisection: a longer one
 * makes more requesters wait, which can only shorten it, so its fixed
 * point is one, between the shortest handoff and the all-pairs mean.
 * (Iterating it directly swung between two states on a line near
 * saturation.) A bracket that closed while the retries or another line
 * still moved can miss the fixed point: it is opened again. Returns -1
 * when the network has no solution or does not settle.
 */
/*
 * Rounds of solve_handoffs() before it gives up: the model's tests and the
 * corpus check (166,000 solves, December 2026) settled within 43.
 */
#define SOLVER_ROUNDS 4000

static int solve_handoffs(struct network *net, struct mva_result *r, double *retries)
{
	int reopened = 0;

	*retries = 0;
	for (unsigned int k = 0; k < net->nr; k++)
		open_bracket(&net->c[k]);
	for (int round = 0; round < SOLVER_ROUNDS; round++) {
		double change = 0;
		bool settled = true, open = false;

		if (mva_solve(net->think, net->demand, net->copies, net->nr, net->population, r))
			return -1;
		for (unsigned int k = 0; k < net->nr; k++) {
			struct centre *c = &net->c[k];
			/* customers at the line beyond the one it serves */
			double waiting = fmax(0, r->throughput * r->residence[k] / c->copies -
					      r->utilisation[k]);
			double target = domain_first_handoff(c, waiting), d;

			c->target = target;

			if (c->cas) {
				double fail = cas_failures(c, r->utilisation[k], net->z);

				c->retries = (c->retries + fail / (1 - fail)) / 2;
				*retries = c->retries;
			}
			if (c->hi - c->lo > 1e-12 * c->hi) {
				open = true;
				if (target >= c->handoff)
					c->lo = c->handoff;
				else
					c->hi = c->handoff;
				c->handoff = (c->lo + c->hi) / 2;
			} else if (fabs(target - c->handoff) > 1e-6 * c->handoff) {
				settled = false;
			}
			d = centre_demand(c, net->z);
			change = fmax(change, fabs(d - net->demand[k]) / fmax(d, 1e-12));
			net->demand[k] = d;
		}
		/*
		 * Settled: the demands, and each handoff on its fixed point.
		 * A bracket still open is bisected on even where the demand
		 * hardly moves with the handoff (a cmpxchg line, a tiny
		 * private cost): stopping there printed a handoff off its own
		 * fixed point.
		 */
		if (change < 1e-9 && settled && !open)
			return 0;
		if (change < 1e-9 && !settled) {
			if (++reopened > 50)
				return -1;
			for (unsigned int k = 0; k < net->nr; k++)
				reopen_bracket(&net->c[k]);
		}
	}
	/* did not settle: no answer rather than one off its fixed point */
	return -1;
}

/*
 * Waiters (model_doc.md, "Waiters"): each requester queued at a line
 * beyond the next one in line adds waiter_ns to every handoff. The queue
 * is taken from the network solved without that cost, then the network
 * is solved again with it fixed. Fed back into itself (a longer handoff,
 * a longer queue), it had two fixed points near saturation, and which
 * one the iteration found moved with the starting point.
 */
static int solve(struct network *net, struct mva_result *r, double *retries)
{
	bool again = false;

	if (solve_handoffs(net, r, retries))
		return -1;
	for (unsigned int k = 0; k < net->nr; k++) {
		struct centre *c = &net->c[k];
		double waiting = fmax(0, r->throughput * r->residence[k] / c->copies -
				      r->utilisation[k]);

		/* never at 2 threads, where at most one waits */
		c->dead = c->waiter_ns * fmax(0, waiting - 1);
		if (c->dead > 0) {
			net->demand[k] = centre_demand(c, net->z);
			again = true;
		}
	}
	return again ? solve_handoffs(net, r, retries) : 0;
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
	struct spread all, cold;
	double z, retries;

	policy = policy ? policy : "compact";
	*out = (struct model_prediction){ .nr_threads = n };
	if (!f->access) {
		snprintf(err, errlen, "family '%s' declares no access profile: the model cannot predict it",
			 f->name);
		return -1;
	}
	if (!n || plan(m, policy, n, &pl, err, errlen) ||
	    spread_of(m, &pl, policy, n, false, &all, err, errlen) ||
	    spread_of(m, &pl, policy, n, true, &cold, err, errlen))
		return -1;
	f->access(cfg, &p);
	z = private_ns;
	if (private_ghz > 0 && m->clock_ghz > 0)
		z *= private_ghz / m->clock_ghz;
	if (f->spins) {
		/* a handoff each way per round trip: the transfer is the whole cost */
		out->ns_per_op = 2 * all.all;
		out->ops_per_s = out->ns_per_op > 0 ? n * 1e9 / out->ns_per_op : 0;
		out->bottleneck = p.nr_lines ? p.lines[0].line : NULL;
		out->busy = 1;
		out->transfer_ns = out->handoff_ns = all.all;
		return 0;
	}
	net.z = z;
	net.think = z + p.cold_transfers * cold.all;
	/*
	 * False sharing alone: each group of threads fights over its own
	 * line and the groups are independent, so one group is the network,
	 * exactly. Mixed with lines all threads share, a group's line is one
	 * of n / k copies chosen at random (an approximation).
	 */
	net.population = n;
	if (p.nr_lines && only_group_lines(&p))
		net.population = p.lines[0].group_size < n ? p.lines[0].group_size : n;
	net.one_group = net.population < n;
	for (unsigned int i = 0; i < p.nr_lines; i++) {
		const struct line_access *a = &p.lines[i];
		struct spread at = all;

		if (a->shared_by == LINE_SHARED_BY_GROUP && a->group_size < n &&
		    spread_of(m, &pl, policy, a->group_size, false, &at, err, errlen))
			return -1;
		if (add_line(&net, a, m, &at, n, drains_store_buffer(&p))) {
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
	if (solve(&net, &r, &retries)) {
		snprintf(err, errlen, "%s: the network has no solution (a negative or infinite cost, or a fixed point that does not settle)",
			 f->name);
		return -1;
	}
	out->ns_per_op = r.cycle;
	out->ops_per_s = n * 1e9 / r.cycle;
	out->retries = retries;
	for (unsigned int k = 0; k < net.nr; k++) {
		if (out->bottleneck && r.utilisation[k] <= out->busy)
			continue;
		out->bottleneck = net.c[k].name;
		out->busy = r.utilisation[k];
		out->transfer_ns = net.c[k].at.all;
		out->handoff_ns = net.c[k].handoff;
		out->waiters_ns = net.c[k].dead;
		/* a handoff shorter than first come, first served: cross / (1 + m) */
		out->local_handoffs = net.c[k].handoff < net.c[k].at.all ?
				      net.c[k].at.cross / net.c[k].handoff - 1 : 0;
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
